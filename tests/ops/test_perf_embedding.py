"""Performance: embedding lookup (int64 ids, bounds-checked 2-D gather) vs F.embedding.

Bytes moved: the ids read, one weight row read and one output row written per token.
"""

import pytest
import torch
import torch.nn.functional as F

from ops_common import DEVICE
from perf_common import (PERF_BACKENDS, backend_module, check_equal, dname, gbytes, gpu_only, ids,
                         measure, randn, sizes)

pytestmark = gpu_only

# (tokens, vocab, dim, dtype): LLaMA-3 vocabulary in bf16; a 32k vocabulary in f32
CONFIGS = sizes(gpu=[(16384, 128256, 4096, torch.bfloat16), (32768, 32000, 4096, torch.float32)],
                smoke=[(66, 1000, 128, torch.bfloat16), (33, 100, 70, torch.float32)])


def config_id(cfg):
    tokens, vocab, dim, dtype = cfg
    return f"T{tokens} V{vocab} D{dim} {dname(dtype)}"


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_embedding(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "embedding", backend)
    tokens, vocab, dim, dtype = cfg
    weight = randn((vocab, dim), dtype)
    ids = torch.randint(0, vocab, (tokens,), dtype=torch.int64, device=DEVICE)
    if mod is None:
        fn = lambda: F.embedding(ids, weight)  # noqa: E731
    else:
        fn = lambda: mod.embedding(ids, weight)  # noqa: E731
        check_equal(backend, fn(), weight.index_select(0, ids), what="embedding")
    row_bytes = tokens * dim * weight.element_size()
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(ids, extra_bytes=2 * row_bytes))
