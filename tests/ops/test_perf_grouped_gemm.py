"""Performance: the corpus grouped GEMM (corpus/cutile/grouped_gemm.py) at mixture-of-experts
shapes -- experts of uneven token counts, one launch for all -- vs torch (one cuBLAS GEMM per
expert). TFLOP/s are recorded."""

import pytest
import torch

from perf_common import PERF_BACKENDS, backend_module, check_close, gpu_only, ids, measure, randn, sizes

pytestmark = gpu_only

# (token counts per expert, K, N): a Mixtral-like up projection (8 experts, 4096 -> 14336 split
# in two halves here to keep the run short) and a DeepSeek-like one (many small experts)
MOE = sizes(gpu=[(((512, 2048, 1024, 256, 3072, 768, 1536, 1024), 4096, 7168), torch.bfloat16),
                 (((128,) * 32 + (384,) * 32, 2048, 1408), torch.bfloat16),
                 (((512, 2048, 1024, 256, 3072, 768, 1536, 1024), 4096, 7168), torch.float16)],
            smoke=[(((32, 64, 16), 64, 64), torch.float16)])


def name(cfg):
    (tokens, k, n), dtype = cfg
    return f"{len(tokens)}x(~{sum(tokens) // len(tokens)})x{k}x{n} " + {torch.float16: "f16", torch.bfloat16: "bf16"}[dtype]


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", MOE, ids=ids(name))
def test_perf_grouped_gemm(load_op, perf_record, backend, cfg):
    (tokens, k, n), dtype = cfg
    mod = backend_module(load_op, "grouped_gemm", backend)
    As = [randn((m, k), dtype) for m in tokens]
    Bs = [randn((k, n), dtype) for _ in tokens]
    small = dict(tile_m=32, tile_n=32, tile_k=32) if k < 128 else {}
    if mod is None:
        fn = lambda: [a @ b for a, b in zip(As, Bs)]  # noqa: E731
    else:
        fn = lambda: mod.grouped_gemm(As, Bs, **small)  # noqa: E731
        for c, a, b in zip(fn(), As, Bs):
            check_close(backend, c, (a.float() @ b.float()).to(dtype), what="grouped_gemm", rtol=0.05, atol=0.5)
    measure(perf_record, config=name(cfg), backend=backend, fn=fn, tflop=2 * sum(tokens) * k * n / 1e12)
