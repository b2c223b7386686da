"""Decode attention (corpus/cutile/attention_decode.py): one query token per sequence, grouped
query heads sharing a KV head, the sequence split across blocks and the partial softmax results
combined.  Shapes give empty splits, a sequence shorter than one KV tile, and no grouping."""

import math

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

# (batch, q_heads, kv_heads, seq, head_dim, splits)
CASES = pick(cpu=[(1, 1, 1, 1, 16, 1), (2, 4, 2, 37, 16, 4), (1, 8, 1, 100, 32, 2), (2, 2, 2, 20, 16, 8)],
             cuda=[(1, 1, 1, 1, 64, 1), (8, 32, 8, 4096, 128, 8), (4, 64, 8, 1000, 64, 4),
                   (16, 16, 16, 16384, 128, 16)])


def reference(q, k, v):
    group = q.shape[1] // k.shape[1]
    kk = k.double().repeat_interleave(group, dim=1)
    vv = v.double().repeat_interleave(group, dim=1)
    s = torch.einsum("bhd,bhsd->bhs", q.double(), kk) / math.sqrt(q.shape[-1])
    return torch.einsum("bhs,bhsd->bhd", torch.softmax(s, dim=-1), vv).to(q.dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "b{}hq{}hk{}s{}d{}x{}".format(*c))
def test_op_attention_decode(load_op, device, backend, case, dtype):
    mod = load_op("attention_decode", backend)
    bsz, hq, hkv, seq, d, splits = case
    q = torch.randn(bsz, hq, d).to(dtype).to(device)
    k = torch.randn(bsz, hkv, seq, d).to(dtype).to(device)
    v = torch.randn(bsz, hkv, seq, d).to(dtype).to(device)
    tiles = dict(tile_kv=16) if device == "cpu" else {}
    o = mod.attention_decode(q, k, v, splits=splits, **tiles)
    assert o.shape == q.shape and o.dtype == dtype
    assert_close(o, reference(q, k, v), rtol=2e-2, atol=2e-2, what="attention_decode")
