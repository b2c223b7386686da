"""2-D GEMM with a grouped tile schedule (corpus/cutile/gemm.py): float32 multiplies as tfloat32,
float16 and bfloat16 as they are, all accumulated in float32."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

SHAPES = pick(cpu=[(1, 1, 1), (33, 70, 17), (64, 64, 64), (100, 40, 130)],
              cuda=[(1, 1, 1), (333, 1025, 77), (4096, 4096, 4096)])
TILES = pick(cpu=[(32, 16, 16), (16, 32, 32)], cuda=[(128, 128, 64)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tiles", TILES, ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_gemm(load_op, device, backend, shape, dtype, tiles):
    mod = load_op("gemm", backend)
    m, k, n = shape
    a = torch.randn(m, k).to(dtype).to(device)
    b = torch.randn(k, n).to(dtype).to(device)
    c = mod.gemm(a, b, tile_m=tiles[0], tile_n=tiles[1], tile_k=tiles[2])
    want = (a.double() @ b.double()).to(dtype)
    # tf32 for float32 on the GPU: about 1e-3 relative per product
    tol = 2e-3 * max(1, k) ** 0.5 if dtype == torch.float32 else 2e-2 * max(1, k) ** 0.5
    assert_close(c, want, rtol=tol, atol=tol, what="gemm")
