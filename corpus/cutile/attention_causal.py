"""Causal attention forward with grouped query heads: O = softmax(Q K^T * scale + causal mask) V.

Q and O are (batch, q_heads, seq, head_dim), K and V (batch, kv_heads, seq, head_dim), with
q_heads a multiple of kv_heads: query head h reads KV head h // (q_heads // kv_heads). Block
(q, b*q_heads + h) keeps a (TQ, D) tile of Q and walks the key tiles up to the diagonal only;
the online softmax runs in base 2 (the scale folded with log2(e)). Key tiles wholly before the
query tile need no mask; from `diagonal`, the first tile the diagonal crosses, keys after their
query are masked to -inf under `if j >= diagonal:`. Keys past the sequence end need no test of
their own: for every query row that is stored they come after the query.
"""

import math

import torch
import cuda.tile as ct

TILE_Q = 128
TILE_KV = 64
LOG2E = 1.4426950408889634


@ct.kernel
def attention_causal_kernel(Q, K, V, O, scale: float, GROUP: ct.Constant[int], TQ: ct.Constant[int],
                            TKV: ct.Constant[int], D: ct.Constant[int]):
    tile_q = ct.bid(0)
    heads = Q.shape[1]
    b = ct.bid(1) // heads
    h = ct.bid(1) % heads
    kv_h = h // GROUP
    q = ct.load(Q, index=(b, h, tile_q, 0), shape=(1, 1, TQ, D),
                padding_mode=ct.PaddingMode.ZERO).reshape((TQ, D))
    queries = tile_q * TQ + ct.arange(TQ, dtype=ct.int32)
    qk_scale = scale * LOG2E
    row_max = ct.full((TQ, 1), -math.inf, dtype=ct.float32)
    row_sum = ct.zeros((TQ, 1), dtype=ct.float32)
    acc = ct.zeros((TQ, D), dtype=ct.float32)
    diagonal = (tile_q * TQ) // TKV
    last = ct.minimum(ct.cdiv((tile_q + 1) * TQ, TKV), ct.cdiv(K.shape[2], TKV))
    for j in range(last):
        k = ct.load(K, index=(b, kv_h, 0, j), shape=(1, 1, D, TKV), order=(0, 1, 3, 2),
                    padding_mode=ct.PaddingMode.ZERO).reshape((D, TKV))
        s = ct.mma(q, k, ct.zeros((TQ, TKV), dtype=ct.float32)) * qk_scale
        if j >= diagonal:
            keys = j * TKV + ct.arange(TKV, dtype=ct.int32)
            s = ct.where(keys[None, :] <= queries[:, None], s, -math.inf)
        new_max = ct.maximum(row_max, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - new_max)
        correction = ct.exp2(row_max - new_max)
        row_sum = row_sum * correction + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kv_h, j, 0), shape=(1, 1, TKV, D),
                    padding_mode=ct.PaddingMode.ZERO).reshape((TKV, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * correction)
        row_max = new_max
    out = (acc / row_sum).astype(O.dtype).reshape((1, 1, TQ, D))
    ct.store(O, index=(b, h, tile_q, 0), tile=out)


def attention_causal(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, tile_q: int = TILE_Q,
                     tile_kv: int = TILE_KV) -> torch.Tensor:
    assert q.dim() == 4 and k.shape == v.shape and q.dtype == k.dtype == v.dtype
    batch, q_heads, seq, d = q.shape
    kv_heads = k.shape[1]
    assert k.shape == (batch, kv_heads, seq, d) and q_heads % kv_heads == 0
    o = torch.empty_like(q)
    grid = (ct.cdiv(seq, tile_q), batch * q_heads, 1)
    ct.launch(torch.cuda.current_stream(), grid, attention_causal_kernel,
              (q, k, v, o, 1.0 / math.sqrt(d), q_heads // kv_heads, tile_q, tile_kv, d))
    return o
