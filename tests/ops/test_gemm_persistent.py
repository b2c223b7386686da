"""Persistent 2-D GEMM (corpus/cutile/gemm_persistent.py): a grid of at most one block per SM
walks the output tiles in the grouped order, `range(ct.bid(0), tiles, ct.num_blocks(0))`, each
tile's product accumulated in float32 and stored before the next starts."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

SHAPES = pick(cpu=[(1, 1, 1), (37, 48, 80), (100, 70, 33)],
              cuda=[(1, 1, 1), (333, 1025, 77), (4096, 4096, 4096)])
# (tile_m, tile_n, tile_k, blocks): blocks 0 is one per SM (4 without a GPU)
TILES = pick(cpu=[(16, 16, 16, 3), (32, 16, 32, 0)], cuda=[(128, 128, 64, 0), (64, 128, 64, 7)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tiles", TILES, ids=lambda t: "x".join(map(str, t[:3])) + f"-blocks{t[3]}")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_gemm_persistent(load_op, device, backend, shape, dtype, tiles):
    mod = load_op("gemm_persistent", backend)
    m, k, n = shape
    a = torch.randn(m, k).to(dtype).to(device)
    b = torch.randn(k, n).to(dtype).to(device)
    tm, tn, tk, blocks = tiles
    c = mod.gemm_persistent(a, b, tile_m=tm, tile_n=tn, tile_k=tk, blocks=blocks)
    want = (a.double() @ b.double()).to(dtype)
    tol = 2e-2 * max(1, k) ** 0.5
    assert_close(c, want, rtol=tol, atol=tol, what="gemm_persistent")
