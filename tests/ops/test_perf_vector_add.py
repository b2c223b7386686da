"""Performance: vector_add, c = a + b (tiled and gather/scatter kernels) vs torch.add.

Bytes moved: a and b read, c written.  2^28 float32 elements move 3.2 GB.
"""

import pytest
import torch

from perf_common import (PERF_BACKENDS, backend_module, check_close, check_equal, dname, gbytes,
                         gpu_only, ids, measure, pow2_id, randn, sizes)

pytestmark = gpu_only

# (n, dtype, use_gather)
CONFIGS = sizes(gpu=[(1 << 26, torch.float32, False), (1 << 28, torch.float32, False),
                     (1 << 28, torch.bfloat16, False), (1 << 28, torch.float32, True)],
                smoke=[(3000, torch.float32, False), (1 << 12, torch.bfloat16, False),
                       (3000, torch.float32, True)])


def config_id(cfg):
    n, dtype, use_gather = cfg
    return f"{pow2_id(n)} {dname(dtype)}" + (" gather" if use_gather else "")


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_vector_add(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "vector_add", backend)
    n, dtype, use_gather = cfg
    a, b = randn(n, dtype), randn(n, dtype)
    if mod is None:
        fn = lambda: torch.add(a, b)  # noqa: E731
    else:
        fn = lambda: mod.vector_add(a, b, use_gather=use_gather)  # noqa: E731
        if dtype == torch.float32:
            check_equal(backend, fn(), a + b, what="c")
        else:
            check_close(backend, fn(), a + b, what="c")
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(a, b, a))
