"""Performance: row-wise inclusive cumsum (chunks with a carry) vs torch.cumsum.

The reversed scan is timed against torch's usual spelling, flip + cumsum + flip.
Bytes moved: x read, y written.
"""

import pytest
import torch

from perf_common import (PERF_BACKENDS, backend_module, check_close, check_equal, gbytes, gpu_only,
                         ids, measure, randn, shape_id, sizes)

pytestmark = gpu_only

# (shape, dtype, reverse)
CONFIGS = sizes(gpu=[((4096, 4096), torch.float32, False), ((8192, 8192), torch.float32, False),
                     ((8192, 8192), torch.float32, True), ((8192, 8192), torch.int32, False)],
                smoke=[((5, 700), torch.float32, False), ((5, 700), torch.float32, True),
                       ((7, 33), torch.int32, False)])


def config_id(cfg):
    shape, dtype, reverse = cfg
    return shape_id(shape, dtype) + (" reverse" if reverse else "")


def torch_cumsum(x, reverse):
    if reverse:
        return torch.cumsum(x.flip(1), dim=1, dtype=x.dtype).flip(1)
    return torch.cumsum(x, dim=1, dtype=x.dtype)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_cumsum(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "cumsum", backend)
    shape, dtype, reverse = cfg
    x = randn(shape, dtype)
    if mod is None:
        fn = lambda: torch_cumsum(x, reverse)  # noqa: E731
    else:
        fn = lambda: mod.cumsum(x, reverse=reverse)  # noqa: E731
        if dtype.is_floating_point:
            # a tree scan vs a sequential one: the error grows like sqrt(n) ulps
            ref = torch_cumsum(x.double(), reverse).to(dtype)
            tol = 4e-6 * shape[1] ** 0.5
            check_close(backend, fn(), ref, what="cumsum", rtol=tol, atol=tol)
        else:
            check_equal(backend, fn(), torch_cumsum(x, reverse), what="cumsum")
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(x, x))
