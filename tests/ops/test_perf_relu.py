"""Performance: relu on 2-D tiles vs torch.relu.  Bytes moved: x read, y written."""

import pytest
import torch

from perf_common import (PERF_BACKENDS, backend_module, check_equal, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

CONFIGS = sizes(gpu=[((8192, 8192), torch.float32), ((8192, 8192), torch.bfloat16)],
                smoke=[((33, 70), torch.float32), ((64, 64), torch.bfloat16)])


def config_id(cfg):
    return shape_id(*cfg)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_relu(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "relu", backend)
    shape, dtype = cfg
    x = randn(shape, dtype)
    if mod is None:
        fn = lambda: torch.relu(x)  # noqa: E731
    else:
        fn = lambda: mod.relu(x)  # noqa: E731
        check_equal(backend, fn(), torch.relu(x), what="relu")
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(x, x))
