"""Attention forward, O = softmax(Q K^T * scale) V, one pass with an online softmax.

Q, K, V, O are (batch*heads, seq, head_dim). Block (q, bh) keeps a (TQ, D)
tile of Q and walks the keys in TKV steps: S = Q @ K^T (ct.mma with a
transposed K tile), a running row maximum and row sum rescale the float32
output accumulator, and P @ V adds the new keys' share. Keys past the
sequence end are masked to -inf (their padded rows would otherwise count).
"""

import math

import torch
import cuda.tile as ct

TILE_Q = 64
TILE_KV = 64


@ct.kernel
def attention_fwd_kernel(Q, K, V, O, scale: float, TQ: ct.Constant[int], TKV: ct.Constant[int],
                         D: ct.Constant[int]):
    tile_q = ct.bid(0)
    bh = ct.bid(1)
    seq = K.shape[1]
    q = ct.load(Q, index=(bh, tile_q, 0), shape=(1, TQ, D), padding_mode=ct.PaddingMode.ZERO).reshape((TQ, D))
    row_max = ct.full((TQ, 1), -math.inf, dtype=ct.float32)
    row_sum = ct.zeros((TQ, 1), dtype=ct.float32)
    acc = ct.zeros((TQ, D), dtype=ct.float32)
    for j in range(ct.cdiv(seq, TKV)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, TKV, D), padding_mode=ct.PaddingMode.ZERO).reshape((TKV, D))
        v = ct.load(V, index=(bh, j, 0), shape=(1, TKV, D), padding_mode=ct.PaddingMode.ZERO).reshape((TKV, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((TQ, TKV), dtype=ct.float32)) * scale
        keys = j * TKV + ct.arange(TKV, dtype=ct.int32)
        s = ct.where(keys[None, :] < seq, s, -math.inf)
        new_max = ct.maximum(row_max, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - new_max)
        correction = ct.exp(row_max - new_max)
        row_sum = row_sum * correction + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), v, acc * correction)
        row_max = new_max
    out = (acc / row_sum).astype(O.dtype).reshape((1, TQ, D))
    ct.store(O, index=(bh, tile_q, 0), tile=out)


def attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, tile_q: int = TILE_Q,
                  tile_kv: int = TILE_KV) -> torch.Tensor:
    assert q.dim() == 3 and q.shape == k.shape == v.shape and q.dtype == k.dtype == v.dtype
    bh, seq, d = q.shape
    o = torch.empty_like(q)
    grid = (ct.cdiv(seq, tile_q), bh, 1)
    ct.launch(torch.cuda.current_stream(), grid, attention_fwd_kernel,
              (q, k, v, o, 1.0 / math.sqrt(d), tile_q, tile_kv, d))
    return o
