"""Causal attention forward with grouped query heads (corpus/cutile/attention_causal.py): the key
loop ends at the diagonal and masks under `if j >= diagonal:`, which the converter runs as a
second loop (src/lower/lower_split.c); query heads share KV heads in groups of 1, 2 or 4."""

import math

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

# (batch, q_heads, kv_heads, seq, head_dim)
SHAPES = pick(cpu=[(1, 2, 1, 1, 16), (1, 2, 2, 37, 16), (2, 4, 1, 64, 32)],
              cuda=[(1, 1, 1, 1, 64), (2, 8, 2, 1000, 64), (2, 16, 4, 2048, 128)])
# (tile_q, tile_kv): one masked key tile a query tile, two, or one that also holds later queries'
TILES = pick(cpu=[(16, 16), (32, 16), (16, 32)], cuda=[None])


def reference(q, k, v):
    group = q.shape[1] // k.shape[1]
    k, v = (t.double().repeat_interleave(group, dim=1) for t in (k, v))
    s = (q.double() @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    seq = q.shape[2]
    s = s.masked_fill(torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1), -math.inf)
    return (torch.softmax(s, dim=-1) @ v).to(q.dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("tiles", TILES, ids=lambda t: "default" if t is None else "tiles%dx%d" % t)
def test_op_attention_causal(load_op, device, backend, shape, dtype, tiles):
    mod = load_op("attention_causal", backend)
    batch, q_heads, kv_heads, seq, d = shape
    q = torch.randn(batch, q_heads, seq, d).to(dtype).to(device)
    k, v = (torch.randn(batch, kv_heads, seq, d).to(dtype).to(device) for _ in range(2))
    o = mod.attention_causal(q, k, v, **(dict(zip(("tile_q", "tile_kv"), tiles)) if tiles else {}))
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    assert_close(o, reference(q, k, v), rtol=tol, atol=tol, what="attention_causal")
