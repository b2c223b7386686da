"""Performance: split-K matrix multiply (long K, few output tiles) vs torch.matmul (cuBLAS).

TFLOP/s = 2*M*N*K / time.  The converted kernels run at the corpus module's tile sizes.
"""

import pytest
import torch

from perf_common import PERF_BACKENDS, backend_module, check_close, gpu_only, ids, measure, randn, dname, sizes

pytestmark = gpu_only

CONFIGS = sizes(gpu=[(256, 256, 32768, 8, torch.float16), (512, 512, 16384, 4, torch.bfloat16),
                     (128, 1024, 65536, 16, torch.float16)],
                smoke=[(16, 16, 64, 2, torch.float16)])


def config_id(cfg):
    m, n, k, splits, dtype = cfg
    return f"{m}x{n}x{k} split{splits} {dname(dtype)}"


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_matmul_splitk(load_op, perf_record, backend, cfg):
    m, n, k, splits, dtype = cfg
    mod = backend_module(load_op, "matmul_splitk", backend)
    a, b = randn((m, k), dtype, scale=0.1), randn((k, n), dtype, scale=0.1)
    if mod is None:
        fn = lambda: a @ b  # noqa: E731
    else:
        fn = lambda: mod.matmul_splitk(a, b, splits=splits)  # noqa: E731
        check_close(backend, fn(), (a.float() @ b.float()).to(dtype), what="matmul_splitk", factor=4)
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, tflop=2 * m * n * k / 1e12)
