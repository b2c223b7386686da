"""Performance: swiglu, out = silu(a) * b with a, b the two halves of one [M, 2N]
projection (row stride 2N), vs torch (F.silu(a) * b).

Bytes moved: a and b read, out written.
"""

import pytest
import torch
import torch.nn.functional as F

from perf_common import (PERF_BACKENDS, backend_module, check_close, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

# (M, N, dtype)
CONFIGS = sizes(gpu=[(4096, 14336, torch.bfloat16), (8192, 14336, torch.float32)],
                smoke=[(9, 300, torch.bfloat16), (4, 600, torch.float32)])


def config_id(cfg):
    m, n, dtype = cfg
    return shape_id((m, n), dtype)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_swiglu(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "swiglu", backend)
    m, n, dtype = cfg
    proj = randn((m, 2 * n), dtype)
    a, b = proj[:, :n], proj[:, n:]
    if mod is None:
        fn = lambda: F.silu(a) * b  # noqa: E731
    else:
        fn = lambda: mod.swiglu(a, b)  # noqa: E731
        ref = (F.silu(a.float()) * b.float()).to(dtype)
        check_close(backend, fn(), ref, what="swiglu", factor=2)
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(a, b, a))
