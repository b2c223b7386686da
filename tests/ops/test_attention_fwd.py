"""Attention forward with an online softmax (corpus/cutile/attention_fwd.py): Q @ K^T through a
transposed K tile, P @ V into a rescaled float32 accumulator, keys past the end masked."""

import math

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

SHAPES = pick(cpu=[(1, 1, 16), (2, 37, 32), (3, 128, 16)],
              cuda=[(1, 1, 64), (8, 1000, 64), (32, 4096, 128)])


def reference(q, k, v):
    s = (q.double() @ k.double().transpose(1, 2)) / math.sqrt(q.shape[-1])
    return (torch.softmax(s, dim=-1) @ v.double()).to(q.dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_attention_fwd(load_op, device, backend, shape, dtype):
    mod = load_op("attention_fwd", backend)
    bh, seq, d = shape
    q, k, v = (torch.randn(bh, seq, d).to(dtype).to(device) for _ in range(3))
    tiles = dict(tile_q=16, tile_kv=32) if device == "cpu" else {}
    o = mod.attention_fwd(q, k, v, **tiles)
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    assert_close(o, reference(q, k, v), rtol=tol, atol=tol, what="attention_fwd")
