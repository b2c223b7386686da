"""Performance: RMSNorm vs torch.nn.functional.rms_norm.

Bytes moved: x read, y written, weight read.
"""

import pytest
import torch
import torch.nn.functional as F

from perf_common import (PERF_BACKENDS, backend_module, check_close, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

EPS = 1e-6
DTYPES = [torch.float16, torch.bfloat16, torch.float32]
CONFIGS = sizes(gpu=[(shape, dtype) for shape in [(4096, 4096), (8192, 8192)] for dtype in DTYPES],
                smoke=[((5, 2500), torch.float16), ((33, 100), torch.float32)])


def config_id(cfg):
    return shape_id(*cfg)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_rmsnorm(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "rmsnorm", backend)
    (m, n), dtype = cfg
    x = randn((m, n), dtype)
    w = (1 + 0.1 * randn(n, torch.float32)).to(dtype)
    if mod is None:
        fn = lambda: F.rms_norm(x, (n,), w, EPS)  # noqa: E731
    else:
        fn = lambda: mod.rmsnorm(x, w, EPS)  # noqa: E731
        xf = x.float()
        ref = (xf * torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + EPS) * w.float()).to(dtype)
        del xf
        check_close(backend, fn(), ref, what="rmsnorm", factor=2)
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(x, x, w))
