"""LayerNorm forward (y, mean, rstd) and backward (dx, dw, db)."""

import pytest
import torch
import torch.nn.functional as F

from ops_common import BACKENDS, ON_GPU, assert_close, pick, strided_view

SHAPES = pick(cpu=[(1, 1), (7, 33), (33, 100), (17, 300)],
              cuda=[(1, 1), (4096, 4096), (8192, 1024), (333, 5000)])
DTYPES = [torch.float32, torch.float16, torch.bfloat16]
EPS = 1e-5


def ref_forward(x, w, b, eps):
    xf = x.float()
    mean = xf.mean(dim=1)
    var = xf.var(dim=1, unbiased=False)
    rstd = torch.rsqrt(var + eps)
    y = F.layer_norm(xf, (x.shape[1],), w.float(), b.float(), eps).to(x.dtype)
    return y, mean, rstd


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("side_stream", [False, True], ids=["current_stream", "side_stream"])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_layernorm_forward(load_op, device, backend, shape, dtype, strided, side_stream):
    mod = load_op("layernorm_forward", backend)
    m, n = shape
    x = strided_view(shape, dtype, device) if strided else torch.randn(shape).to(dtype).to(device)
    w = (1 + 0.1 * torch.randn(n)).to(dtype).to(device)
    b = (0.1 * torch.randn(n)).to(dtype).to(device)
    if side_stream:
        stream = torch.cuda.Stream()  # a stand-in on CPU (cuda_shims)
        stream.wait_stream(torch.cuda.current_stream())
        y, mean, rstd = mod.layernorm_forward(x, w, b, EPS, stream=stream)
        stream.synchronize()
    else:
        y, mean, rstd = mod.layernorm_forward(x, w, b, EPS)
    ry, rmean, rrstd = ref_forward(x, w, b, EPS)
    # reductions: a few ulp of difference in summation order
    assert_close(mean, rmean, rtol=1e-5, atol=1e-6, what="mean")
    assert_close(rstd, rrstd, rtol=1e-5, atol=1e-6, what="rstd")
    if dtype == torch.float32:
        assert_close(y, ry, rtol=1e-5, atol=1e-5, what="y")
    else:
        assert_close(y, ry, what="y")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES + pick(cpu=[(9, 7)], cuda=[(9, 7)]),
                         ids=lambda s: "x".join(map(str, s)))
def test_op_layernorm_backward(load_op, device, backend, shape, dtype):
    mod = load_op("layernorm_backward", backend)
    m, n = shape
    x = torch.randn(shape).to(dtype).to(device)
    dy = torch.randn(shape).to(dtype).to(device)
    w = (1 + 0.1 * torch.randn(n)).to(dtype).to(device)
    b = torch.zeros(n, dtype=dtype, device=device)
    _, mean, rstd = ref_forward(x, w, b, EPS)

    dx, dw, db = mod.layernorm_backward(dy, x, w, mean, rstd)

    xf = x.float().requires_grad_()
    wf = w.float().requires_grad_()
    bf = b.float().requires_grad_()
    F.layer_norm(xf, (n,), wf, bf, EPS).backward(dy.float())
    if dtype == torch.float32:
        assert_close(dx, xf.grad, rtol=1e-5, atol=1e-5, what="dx")
        # dw/db: sums over all rows in a different order (partials per program)
        tol = 1e-5 * max(1, m) ** 0.5
        assert_close(dw, wf.grad, rtol=tol, atol=tol, what="dw")
        assert_close(db, bf.grad, rtol=tol, atol=tol, what="db")
    else:
        assert_close(dx, xf.grad.to(dtype), what="dx")
        assert_close(dw, wf.grad.to(dtype), rtol=1e-2, atol=1e-2 * max(1, m) ** 0.5, what="dw")
        assert_close(db, bf.grad.to(dtype), rtol=1e-2, atol=1e-2 * max(1, m) ** 0.5, what="db")
