"""Split-K matrix multiply (corpus/cutile/matmul_splitk.py): float32 partial products per K slice
in a workspace, then one kernel sums the slices.  Shapes give an empty last slice, a K that is not
a multiple of the K tile, and more splits than K tiles."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

# (M, N, K, splits)
CASES = pick(cpu=[(16, 16, 16, 1), (33, 20, 100, 2), (16, 48, 80, 4), (20, 16, 16, 4)],
             cuda=[(128, 128, 8192, 4), (1000, 300, 5000, 8), (64, 64, 64, 2), (16, 4096, 16384, 16)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "m{}n{}k{}s{}".format(*c))
def test_op_matmul_splitk(load_op, device, backend, case, dtype):
    mod = load_op("matmul_splitk", backend)
    m, n, k, splits = case
    a = torch.randn(m, k).to(dtype).to(device)
    b = torch.randn(k, n).to(dtype).to(device)
    tiles = dict(tile_m=16, tile_n=16, tile_k=16) if device == "cpu" else {}
    c = mod.matmul_splitk(a, b, splits=splits, **tiles)
    assert c.dtype == dtype and c.shape == (m, n)
    ref = (a.double() @ b.double())
    tol = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2}[dtype] * max(1.0, k ** 0.5 / 8)
    assert_close(c, ref.to(dtype), rtol=tol, atol=tol, what="matmul_splitk")
