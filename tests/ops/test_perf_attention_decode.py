"""Performance: decode attention with a split KV sequence and grouped query heads vs torch's
scaled_dot_product_attention (enable_gqa).  Memory-bound: GB/s = bytes of q, k, v read and the
output written."""

import math

import pytest
import torch

from perf_common import PERF_BACKENDS, backend_module, check_close, gbytes, gpu_only, ids, measure, randn, dname, sizes

pytestmark = gpu_only

# (batch, q_heads, kv_heads, seq, head_dim, splits, dtype). Real cuTile 1.7 stops with "CUDA error:
# misaligned address" on this kernel whenever splits=4 (H200, 2026-12-04: b16-b64, seq 2048 and 8192,
# float16 and bfloat16; splits 8 and 16 run right), which ends every later test of the process, so
# the configurations split 8 or 16 ways; tests/ops/test_attention_decode.py runs the converted kernel
# with 4 splits.
CONFIGS = sizes(gpu=[(16, 32, 8, 8192, 128, 8, torch.bfloat16), (64, 32, 8, 2048, 128, 8, torch.float16),
                     (4, 64, 8, 32768, 64, 16, torch.bfloat16)],
                smoke=[(1, 4, 2, 40, 16, 2, torch.float16)])


def config_id(cfg):
    b, hq, hk, s, d, splits, dtype = cfg
    return f"b{b} h{hq}/{hk} s{s} d{d} split{splits} {dname(dtype)}"


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_attention_decode(load_op, perf_record, backend, cfg):
    b, hq, hk, s, d, splits, dtype = cfg
    mod = backend_module(load_op, "attention_decode", backend)
    q, k, v = randn((b, hq, d), dtype), randn((b, hk, s, d), dtype), randn((b, hk, s, d), dtype)
    sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
        q[:, :, None, :], k, v, enable_gqa=True)[:, :, 0, :]
    if mod is None:
        fn = sdpa
    else:
        fn = lambda: mod.attention_decode(q, k, v, splits=splits)  # noqa: E731
        check_close(backend, fn(), sdpa(), what="attention_decode", factor=2)
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(q, k, v, q))


# paged KV cache: (batch, q_heads, kv_heads, seq, head_dim, page, splits, dtype); every sequence
# `seq` long, its pages scattered over the pool at random
PAGED = sizes(gpu=[(32, 32, 8, 4096, 128, 64, 8, torch.bfloat16), (64, 32, 8, 2048, 128, 16, 8, torch.float16)],
              smoke=[(2, 4, 2, 40, 16, 16, 2, torch.float16)])


def paged_id(cfg):
    b, hq, hk, s, d, page, splits, dtype = cfg
    return f"b{b} h{hq}/{hk} s{s} d{d} page{page} split{splits} {dname(dtype)}"


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", PAGED, ids=ids(paged_id))
def test_perf_attention_decode_paged(load_op, perf_record, backend, cfg):
    b, hq, hk, s, d, page, splits, dtype = cfg
    mod = backend_module(load_op, "attention_decode", backend)
    per_seq = -(-s // page)
    k_cache, v_cache = randn((b * per_seq, hk, page, d), dtype), randn((b * per_seq, hk, page, d), dtype)
    table = torch.randperm(b * per_seq, device=k_cache.device).to(torch.int32).reshape(b, per_seq)
    seq_lens = torch.full((b,), s, dtype=torch.int32, device=k_cache.device)
    q = randn((b, hq, d), dtype)

    def gathered_sdpa():  # the pages copied into one contiguous [B, Hkv, S, D] cache, then SDPA
        k = k_cache[table.long()].permute(0, 2, 1, 3, 4).reshape(b, hk, per_seq * page, d)[:, :, :s]
        v = v_cache[table.long()].permute(0, 2, 1, 3, 4).reshape(b, hk, per_seq * page, d)[:, :, :s]
        return torch.nn.functional.scaled_dot_product_attention(q[:, :, None, :], k, v, enable_gqa=True)[:, :, 0, :]

    if mod is None:
        fn = gathered_sdpa
    else:
        fn = lambda: mod.attention_decode_paged(q, k_cache, v_cache, table, seq_lens, splits=splits)  # noqa: E731
        check_close(backend, fn(), gathered_sdpa(), what="attention_decode_paged", factor=2)
    measure(perf_record, config=paged_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(q, k_cache, v_cache, q))
