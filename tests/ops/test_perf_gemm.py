"""Performance: matrix products -- the corpus GEMM (grouped schedule; float32 as tfloat32), a
persistent GEMM, batched GEMM, attention forward and causal attention with grouped query heads --
vs torch (cuBLAS / SDPA). TFLOP/s are recorded."""

import math

import pytest
import torch

from perf_common import PERF_BACKENDS, backend_module, check_close, gpu_only, ids, measure, randn, sizes

pytestmark = gpu_only

GEMM = sizes(gpu=[((4096, 4096, 4096), dt) for dt in [torch.float16, torch.bfloat16, torch.float32]],
             smoke=[((64, 64, 64), torch.float16)])
PERSISTENT = sizes(gpu=[((2048, 2048, 2048), torch.float16), ((8192, 8192, 8192), torch.float16),
                        ((4096, 4096, 4096), torch.bfloat16)],
                   smoke=[((64, 64, 64), torch.float16)])
BMM = sizes(gpu=[((16, 1024, 1024, 1024), torch.float16)], smoke=[((2, 32, 32, 32), torch.float16)])
ATTENTION = sizes(gpu=[((32, 4096, 128), torch.float16)], smoke=[((2, 64, 16), torch.float16)])
# (batch, q_heads, kv_heads, seq, head_dim)
CAUSAL = sizes(gpu=[((2, 32, 8, 4096, 128), torch.float16), ((1, 32, 8, 16384, 64), torch.bfloat16)],
               smoke=[((1, 2, 1, 64, 16), torch.float16)])


def name(shape, dtype):
    return "x".join(map(str, shape)) + " " + {torch.float16: "f16", torch.bfloat16: "bf16",
                                             torch.float32: "f32"}[dtype]


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", GEMM, ids=ids(lambda c: name(*c)))
def test_perf_gemm(load_op, perf_record, backend, cfg):
    (m, k, n), dtype = cfg
    mod = backend_module(load_op, "gemm", backend)
    a, b = randn((m, k), dtype), randn((k, n), dtype)
    small = dict(tile_m=32, tile_n=32, tile_k=32) if m < 128 else {}
    if mod is None:
        fn = lambda: a @ b  # noqa: E731  (torch's float32 is true float32 unless TF32 is allowed)
    else:
        fn = lambda: mod.gemm(a, b, **small)  # noqa: E731
        # tfloat32 for float32 inputs: about 1e-3 relative per product
        check_close(backend, fn(), (a.double() @ b.double()).to(dtype), what="gemm", factor=4, rtol=0.05, atol=0.5)
    measure(perf_record, config=name((m, k, n), dtype), backend=backend, fn=fn, tflop=2 * m * n * k / 1e12)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", PERSISTENT, ids=ids(lambda c: name(*c)))
def test_perf_gemm_persistent(load_op, perf_record, backend, cfg):
    (m, k, n), dtype = cfg
    mod = backend_module(load_op, "gemm_persistent", backend)
    a, b = randn((m, k), dtype), randn((k, n), dtype)
    small = dict(tile_m=32, tile_n=32, tile_k=32) if m < 128 else {}
    if mod is None:
        fn = lambda: a @ b  # noqa: E731
    else:
        fn = lambda: mod.gemm_persistent(a, b, **small)  # noqa: E731
        check_close(backend, fn(), (a.double() @ b.double()).to(dtype), what="gemm_persistent", rtol=0.05,
                    atol=0.5)
    measure(perf_record, config=name((m, k, n), dtype), backend=backend, fn=fn, tflop=2 * m * n * k / 1e12)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", BMM, ids=ids(lambda c: name(*c)))
def test_perf_bmm(load_op, perf_record, backend, cfg):
    (q, m, k, n), dtype = cfg
    mod = backend_module(load_op, "bmm", backend)
    a, b = randn((q, m, k), dtype), randn((q, k, n), dtype)
    small = dict(tile_m=32, tile_n=32, tile_k=32) if m < 64 else {}
    if mod is None:
        fn = lambda: torch.bmm(a, b)  # noqa: E731
    else:
        fn = lambda: mod.bmm(a, b, **small)  # noqa: E731
        check_close(backend, fn(), torch.bmm(a.float(), b.float()).to(dtype), what="bmm", rtol=0.05, atol=0.5)
    measure(perf_record, config=name((q, m, k, n), dtype), backend=backend, fn=fn, tflop=2 * q * m * n * k / 1e12)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", ATTENTION, ids=ids(lambda c: name(*c)))
def test_perf_attention_fwd(load_op, perf_record, backend, cfg):
    (bh, seq, d), dtype = cfg
    mod = backend_module(load_op, "attention_fwd", backend)
    q, k, v = (randn((bh, seq, d), dtype) for _ in range(3))
    small = dict(tile_q=16, tile_kv=16) if seq < 128 else {}
    sdpa = torch.nn.functional.scaled_dot_product_attention
    if mod is None:
        fn = lambda: sdpa(q[None], k[None], v[None])[0]  # noqa: E731
    else:
        fn = lambda: mod.attention_fwd(q, k, v, **small)  # noqa: E731
        check_close(backend, fn(), sdpa(q[None].float(), k[None].float(), v[None].float())[0].to(dtype),
                    what="attention_fwd", factor=2)
    measure(perf_record, config=name((bh, seq, d), dtype), backend=backend, fn=fn,
            tflop=4 * bh * seq * seq * d / 1e12)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CAUSAL, ids=ids(lambda c: name(*c)))
def test_perf_attention_causal(load_op, perf_record, backend, cfg):
    (batch, q_heads, kv_heads, seq, d), dtype = cfg
    mod = backend_module(load_op, "attention_causal", backend)
    q = randn((batch, q_heads, seq, d), dtype)
    k, v = (randn((batch, kv_heads, seq, d), dtype) for _ in range(2))
    small = dict(tile_q=16, tile_kv=16) if seq < 128 else {}
    sdpa = torch.nn.functional.scaled_dot_product_attention
    if mod is None:
        fn = lambda: sdpa(q, k, v, is_causal=True, enable_gqa=True)  # noqa: E731
    else:
        fn = lambda: mod.attention_causal(q, k, v, **small)  # noqa: E731
        check_close(backend, fn(), sdpa(q.float(), k.float(), v.float(), is_causal=True, enable_gqa=True).to(dtype),
                    what="attention_causal", factor=2)
    # the products over the keys up to the diagonal: half of Q K^T and of P V
    measure(perf_record, config=name((batch, q_heads, kv_heads, seq, d), dtype), backend=backend, fn=fn,
            tflop=2 * batch * q_heads * seq * seq * d / 1e12)
