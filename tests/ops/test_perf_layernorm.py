"""Performance: LayerNorm forward (y, mean, rstd) and backward (dx, dw, db) vs torch
(F.layer_norm, and aten.native_layer_norm_backward: the kernel autograd runs).

Bytes moved, the same count for every backend:
  forward:  x read, y written, weight and bias read, mean and rstd (float32) written;
  backward: dy and x read, dx written, weight, mean and rstd read, dw and db written.
(The corpus backward also writes and sums per-program partials of dw/db; that
extra traffic is part of its time, not of the byte count.)
"""

import pytest
import torch
import torch.nn.functional as F

from perf_common import (PERF_BACKENDS, backend_module, check_close, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

EPS = 1e-5
DTYPES = [torch.float16, torch.bfloat16, torch.float32]
CONFIGS = sizes(gpu=[(shape, dtype) for shape in [(4096, 4096), (8192, 8192)] for dtype in DTYPES],
                smoke=[((33, 100), torch.float16), ((17, 300), torch.float32)])


def config_id(cfg):
    return shape_id(*cfg)


def params(n, dtype):
    w = (1 + 0.1 * randn(n, torch.float32)).to(dtype)
    b = (0.1 * randn(n, torch.float32)).to(dtype)
    return w, b


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_layernorm_forward(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "layernorm_forward", backend)
    (m, n), dtype = cfg
    x = randn((m, n), dtype)
    w, b = params(n, dtype)
    if mod is None:
        fn = lambda: F.layer_norm(x, (n,), w, b, EPS)  # noqa: E731
    else:
        fn = lambda: mod.layernorm_forward(x, w, b, EPS)  # noqa: E731
        y, mean, rstd = fn()
        ry, rmean, rrstd = torch.ops.aten.native_layer_norm(x.float(), [n], w.float(), b.float(),
                                                            EPS)
        check_close(backend, mean, rmean.view(-1), what="mean", factor=2)
        check_close(backend, rstd, rrstd.view(-1), what="rstd", factor=2)
        check_close(backend, y, ry.to(dtype), what="y", factor=2)
        del y, mean, rstd, ry, rmean, rrstd
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(x, x, w, b, extra_bytes=8 * m))


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_layernorm_backward(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "layernorm_backward", backend)
    (m, n), dtype = cfg
    x = randn((m, n), dtype)
    dy = randn((m, n), dtype)
    w, b = params(n, dtype)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [n], w, b, EPS)  # [m, 1] each
    if mod is None:
        mask = [True, True, True]
        fn = lambda: torch.ops.aten.native_layer_norm_backward(  # noqa: E731
            dy, x, [n], mean, rstd, w, b, mask)
    else:
        mean1, rstd1 = mean.view(-1).float(), rstd.view(-1).float()
        fn = lambda: mod.layernorm_backward(dy, x, w, mean1, rstd1)  # noqa: E731
        dx, dw, db = fn()
        rdx, rdw, rdb = torch.ops.aten.native_layer_norm_backward(
            dy.float(), x.float(), [n], mean1.view(m, 1), rstd1.view(m, 1), w.float(), b.float(),
            [True, True, True])
        # dw/db: sums over all rows in another order
        sum_tol = 2 * (1e-3 if dtype == torch.float32 else 1e-2) * m ** 0.5
        check_close(backend, dx, rdx.to(dtype), what="dx", factor=2)
        check_close(backend, dw, rdw.to(dtype), what="dw", factor=2, atol=sum_tol)
        check_close(backend, db, rdb.to(dtype), what="db", factor=2, atol=sum_tol)
        del dx, dw, db, rdx, rdw, rdb
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(dy, x, x, w, w, b, extra_bytes=8 * m))
