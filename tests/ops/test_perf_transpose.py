"""Performance: 2-D transpose (ct.transpose in registers, or an order="F" load) vs
torch (x.t().contiguous()).  Bytes moved: x read, y written.
"""

import pytest
import torch

from perf_common import (PERF_BACKENDS, backend_module, check_equal, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

# (shape, dtype, via_order)
CONFIGS = sizes(gpu=[(s, dt, v) for dt in [torch.float32, torch.float16] for v in [False, True]
                     for s in [(8192, 8192)]],
                smoke=[((100, 70), torch.float32, False), ((64, 32), torch.float16, True)])


def config_id(cfg):
    shape, dtype, via_order = cfg
    return f"{shape_id(shape, dtype)} {'order_F' if via_order else 'ct.transpose'}"


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_transpose(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "transpose", backend)
    shape, dtype, via_order = cfg
    x = randn(shape, dtype)
    if mod is None:
        fn = lambda: x.t().contiguous()  # noqa: E731
    else:
        fn = lambda: mod.transpose(x, via_order=via_order)  # noqa: E731
        check_equal(backend, fn(), x.t().contiguous(), what="transpose")
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(x, x))
