"""Performance: dropout with a counter hash (returns out and the keep mask) vs
torch's native_dropout (also out and a bool mask; its own RNG).

Bytes moved: x read, out and the bool keep mask written.  The converted and
original kernels are checked against the hash restated in torch (int64 arithmetic).
"""

import pytest
import torch

from perf_common import (PERF_BACKENDS, backend_module, check_close, check_equal, gbytes, gpu_only,
                         ids, measure, randn, shape_id, sizes)

pytestmark = gpu_only

P, SEED = 0.1, 1234
# the hash of corpus/cutile/dropout.py, restated (not imported from it)
GOLDEN = 0x9E3779B1
MUL_1, MUL_2 = 0x7FEB352D, 0x2C1B3C6D
MASK_32 = 0xFFFFFFFF
RAND_BITS = 24

CONFIGS = sizes(gpu=[((8192, 8192), torch.float32), ((8192, 8192), torch.float16)],
                smoke=[((33, 70), torch.float32), ((100,), torch.float16)])


def config_id(cfg):
    return f"{shape_id(*cfg)} p={P}"


def reference(x, p, seed):
    v = (torch.arange(x.numel(), dtype=torch.int64, device=x.device) + seed * GOLDEN) & MASK_32
    v ^= v >> 16
    v = (v * MUL_1) & MASK_32
    v ^= v >> 15
    v = (v * MUL_2) & MASK_32
    v ^= v >> 16
    keep = ((v & ((1 << RAND_BITS) - 1)) >= int(p * (1 << RAND_BITS))).view(x.shape)
    del v
    out = torch.where(keep, x.float() * (1.0 / (1.0 - p)), 0.0).to(x.dtype)
    return out, keep


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_dropout(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "dropout", backend)
    shape, dtype = cfg
    x = randn(shape, dtype)
    if mod is None:
        fn = lambda: torch.ops.aten.native_dropout(x, P, True)  # noqa: E731
    else:
        fn = lambda: mod.dropout(x, P, SEED)  # noqa: E731
        out, keep = fn()
        ref_out, ref_keep = reference(x, P, SEED)
        check_equal(backend, keep, ref_keep, what="keep mask")
        check_close(backend, out, ref_out, what="dropout out")
        del out, keep, ref_out, ref_keep
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(x, x, extra_bytes=x.numel()))
