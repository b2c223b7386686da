"""Performance: silu_and_mul, x [M, 2N] -> silu(x[:, :N]) * x[:, N:], vs torch (F.silu and *).

Bytes moved: x read (M x 2N), out written (M x N).  Sizes of LLaMA MLPs (N = 11008, 14336).
"""

import pytest
import torch
import torch.nn.functional as F

from perf_common import (PERF_BACKENDS, backend_module, check_close, dname, gbytes, gpu_only, ids,
                         measure, randn, sizes)

pytestmark = gpu_only

# (M, N, dtype): x is [M, 2N]
CONFIGS = sizes(gpu=[(4096, 11008, torch.float16), (8192, 14336, torch.bfloat16)],
                smoke=[(33, 100, torch.float16), (16, 128, torch.bfloat16)])


def config_id(cfg):
    m, n, dtype = cfg
    return f"{m}x2*{n} {dname(dtype)}"


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_silu_and_mul(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "silu_and_mul", backend)
    m, n, dtype = cfg
    x = randn((m, 2 * n), dtype)
    if mod is None:
        fn = lambda: F.silu(x[:, :n]) * x[:, n:]  # noqa: E731
    else:
        fn = lambda: mod.silu_and_mul(x)  # noqa: E731
        ref = (F.silu(x[:, :n].float()) * x[:, n:].float()).to(dtype)
        check_close(backend, fn(), ref, what="silu_and_mul", factor=2)
    out_bytes = m * n * x.element_size()
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(x, extra_bytes=out_bytes))
