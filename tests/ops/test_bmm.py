"""Batched GEMM on 3-D tiles (corpus/cutile/bmm.py), with a per-batch right operand or one
shared 2-D one (a 3-D x 2-D product whose batch axis broadcasts)."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

SHAPES = pick(cpu=[(1, 1, 1, 1), (3, 33, 40, 17), (2, 64, 32, 64)],
              cuda=[(1, 1, 1, 1), (7, 333, 129, 65), (16, 1024, 1024, 1024)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shared_b", [False, True], ids=["batched_b", "shared_b"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_bmm(load_op, device, backend, shape, dtype, shared_b):
    mod = load_op("bmm", backend)
    batches, m, k, n = shape
    a = torch.randn(batches, m, k).to(dtype).to(device)
    b = torch.randn(k, n) if shared_b else torch.randn(batches, k, n)
    b = b.to(dtype).to(device)
    c = mod.bmm(a, b, tile_m=32, tile_n=32, tile_k=16) if device == "cpu" else mod.bmm(a, b)
    want = (a.double() @ b.double()).to(dtype)
    # float32 is true float32 here (no tfloat32 in this kernel)
    tol = 1e-5 * max(1, k) ** 0.5 if dtype == torch.float32 else 2e-2 * max(1, k) ** 0.5
    assert_close(c, want, rtol=tol, atol=tol, what="bmm")
