"""Performance: gelu (exact erf form and tanh form) vs torch.nn.functional.gelu.

Bytes moved: x read, y written.
"""

import pytest
import torch
import torch.nn.functional as F

from perf_common import (PERF_BACKENDS, backend_module, check_close, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

# (shape, dtype, approximate)
CONFIGS = sizes(gpu=[((8192, 8192), torch.float32, "none"), ((8192, 8192), torch.bfloat16, "none"),
                     ((8192, 8192), torch.bfloat16, "tanh")],
                smoke=[((33, 70), torch.float32, "none"), ((33, 70), torch.bfloat16, "tanh")])


def config_id(cfg):
    shape, dtype, approximate = cfg
    return f"{shape_id(shape, dtype)} {'erf' if approximate == 'none' else 'tanh'}"


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_gelu(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "gelu", backend)
    shape, dtype, approximate = cfg
    x = randn(shape, dtype, scale=3.0)
    if mod is None:
        fn = lambda: F.gelu(x, approximate=approximate)  # noqa: E731
    else:
        fn = lambda: mod.gelu(x, approximate=approximate)  # noqa: E731
        ref = F.gelu(x.float(), approximate=approximate).to(dtype)
        check_close(backend, fn(), ref, what="gelu", factor=2)
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(x, x))
