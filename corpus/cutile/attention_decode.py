"""Decode attention with a split KV sequence and grouped query heads (GQA).

One new token per sequence: q is [B, Hq, D]; the cache k, v is [B, Hkv, S, D];
each KV head serves G = Hq / Hkv query heads.  The first kernel gives block
(b * Hkv + h, split) the G query heads of KV head h (one (G_PAD, D) tile: the
group is the M side of the products, so it runs on tensor cores) and one slice
of the sequence.  It walks the slice in TKV steps with an online softmax in
base 2 (scores are scaled by scale * log2(e), so exp2 gives the same weights)
and stores its unnormalized output, row maximum and row sum.  The second
kernel combines the SPLITS partial results of each (b, h): the weights
exp2(m_i - max m) rescale each split's sum and output.  A split whose slice
is empty keeps m = -inf and weight 0; the first split is never empty.
"""

import math

import torch
import cuda.tile as ct

LOG2E = math.log2(math.e)


@ct.kernel
def decode_partial_kernel(Q, K, V, O_part, M_part, L_part, scale: float, G_PAD: ct.Constant[int],
                          D: ct.Constant[int], TKV: ct.Constant[int], TILES_PER_SPLIT: ct.Constant[int]):
    bh = ct.bid(0)
    split = ct.bid(1)
    num_heads = K.shape[1]
    b = bh // num_heads
    h = bh % num_heads
    seq = K.shape[2]
    q = ct.load(Q, index=(b, h, 0, 0), shape=(1, 1, G_PAD, D), padding_mode=ct.PaddingMode.ZERO)
    q = q.reshape((G_PAD, D))
    row_max = ct.full((G_PAD, 1), -math.inf, dtype=ct.float32)
    row_sum = ct.zeros((G_PAD, 1), dtype=ct.float32)
    acc = ct.zeros((G_PAD, D), dtype=ct.float32)
    first = split * TILES_PER_SPLIT
    last = min(first + TILES_PER_SPLIT, ct.cdiv(seq, TKV))
    for j in range(first, last):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, TKV, D), padding_mode=ct.PaddingMode.ZERO)
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, TKV, D), padding_mode=ct.PaddingMode.ZERO)
        k = k.reshape((TKV, D))
        v = v.reshape((TKV, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((G_PAD, TKV), dtype=ct.float32)) * (scale * LOG2E)
        keys = j * TKV + ct.arange(TKV, dtype=ct.int32)
        s = ct.where(keys[None, :] < seq, s, -math.inf)
        new_max = ct.maximum(row_max, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - new_max)
        correction = ct.exp2(row_max - new_max)
        row_sum = row_sum * correction + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(v.dtype), v, acc * correction)
        row_max = new_max
    ct.store(O_part, index=(bh, split, 0, 0), tile=acc.reshape((1, 1, G_PAD, D)))
    ct.store(M_part, index=(bh, split, 0), tile=row_max.reshape((1, 1, G_PAD)))
    ct.store(L_part, index=(bh, split, 0), tile=row_sum.reshape((1, 1, G_PAD)))


@ct.kernel
def decode_combine_kernel(O_part, M_part, L_part, Out, SPLITS: ct.Constant[int], G_PAD: ct.Constant[int],
                          D: ct.Constant[int]):
    bh = ct.bid(0)
    num_heads = Out.shape[1]
    b = bh // num_heads
    h = bh % num_heads
    m = ct.load(M_part, index=(bh, 0, 0), shape=(1, SPLITS, G_PAD), padding_mode=ct.PaddingMode.NEG_INF)
    l = ct.load(L_part, index=(bh, 0, 0), shape=(1, SPLITS, G_PAD), padding_mode=ct.PaddingMode.ZERO)
    o = ct.load(O_part, index=(bh, 0, 0, 0), shape=(1, SPLITS, G_PAD, D), padding_mode=ct.PaddingMode.ZERO)
    m = m.reshape((SPLITS, G_PAD))
    l = l.reshape((SPLITS, G_PAD))
    o = o.reshape((SPLITS, G_PAD, D))
    top = ct.max(m, axis=0, keepdims=True)
    weight = ct.where(m == -math.inf, 0.0, ct.exp2(m - top))
    total = ct.sum(l * weight, axis=0)
    out = ct.sum(o * weight.reshape((SPLITS, G_PAD, 1)), axis=0) / total.reshape((G_PAD, 1))
    ct.store(Out, index=(b, h, 0, 0), tile=out.astype(Out.dtype).reshape((1, 1, G_PAD, D)))


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def attention_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, splits: int = 4,
                     tile_kv: int = 64) -> torch.Tensor:
    """q: [B, Hq, D]; k, v: [B, Hkv, S, D] with Hq a multiple of Hkv.  Returns [B, Hq, D]."""
    bsz, hq, d = q.shape
    hkv, seq = k.shape[1], k.shape[2]
    assert k.shape == v.shape == (bsz, hkv, seq, d) and hq % hkv == 0 and seq > 0
    assert splits > 0 and splits & (splits - 1) == 0, "splits must be a power of two"
    group = hq // hkv
    g_pad = max(next_power_of_2(group), 16)
    tiles = ct.cdiv(seq, tile_kv)
    splits = min(splits, next_power_of_2(tiles))
    per_split = ct.cdiv(tiles, splits)
    q4 = q.reshape(bsz, hkv, group, d)
    out = torch.empty((bsz, hkv, group, d), dtype=q.dtype, device=q.device)
    o_part = torch.empty((bsz * hkv, splits, g_pad, d), dtype=torch.float32, device=q.device)
    m_part = torch.empty((bsz * hkv, splits, g_pad), dtype=torch.float32, device=q.device)
    l_part = torch.empty((bsz * hkv, splits, g_pad), dtype=torch.float32, device=q.device)
    stream = torch.cuda.current_stream()
    ct.launch(stream, (bsz * hkv, splits, 1), decode_partial_kernel,
              (q4, k, v, o_part, m_part, l_part, 1.0 / math.sqrt(d), g_pad, d, tile_kv, per_split))
    ct.launch(stream, (bsz * hkv, 1, 1), decode_combine_kernel, (o_part, m_part, l_part, out, splits, g_pad, d))
    return out.reshape(bsz, hq, d)
