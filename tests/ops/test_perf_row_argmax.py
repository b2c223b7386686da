"""Performance: row max and argmax over logits (greedy sampling) vs torch.max(x, dim=1).

Bytes moved: x read, the int64 indices and the maxima written.
"""

import pytest
import torch

from perf_common import (PERF_BACKENDS, backend_module, check_equal, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

# (rows, vocab) logits: LLaMA-3 vocabulary
CONFIGS = sizes(gpu=[((256, 128256), torch.bfloat16), ((1024, 128256), torch.bfloat16),
                     ((1024, 128256), torch.float32)],
                smoke=[((4, 1000), torch.bfloat16), ((7, 33), torch.float32)])


def config_id(cfg):
    return shape_id(*cfg)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_row_argmax(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "row_argmax", backend)
    (m, n), dtype = cfg
    x = randn((m, n), dtype)
    if mod is None:
        fn = lambda: torch.max(x, dim=1)  # noqa: E731
    else:
        fn = lambda: mod.row_argmax(x)  # noqa: E731
        idx, val = fn()
        # ties (frequent in bf16 over 128k columns) go to the first index, as in torch.argmax
        check_equal(backend, idx, torch.argmax(x.float(), dim=1), what="argmax")
        check_equal(backend, val, x.max(dim=1).values, what="max")
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(x, extra_bytes=m * (8 + x.element_size())))
