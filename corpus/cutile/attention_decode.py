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

The paged variant reads the cache as a serving engine keeps it: pages of PAGE
positions, k_cache and v_cache [num_pages, Hkv, PAGE, D], and a block table
[B, max_pages] naming the page of each position block of each sequence; each
sequence has its own length (seq_lens).  A split walks its share of the table,
loading the page number and then that page: an index known only at run time.
Both partial kernels share the online-softmax step and the stores of their results (tile
functions).
"""

import math

import torch
import cuda.tile as ct

LOG2E = math.log2(math.e)


def attend(q, k, v, first_key, seq, scale, row_max, row_sum, acc):
    """One step of the online softmax in base 2: the (G_PAD, TKV) scores of q against the keys
    first_key, first_key + 1, ... (those at or past seq masked), folded into the running
    maximum, sum and output."""
    s = ct.mma(q, ct.transpose(k), ct.zeros((q.shape[0], k.shape[0]), dtype=ct.float32)) * (scale * LOG2E)
    keys = first_key + ct.arange(k.shape[0], dtype=ct.int32)
    s = ct.where(keys[None, :] < seq, s, -math.inf)
    new_max = ct.maximum(row_max, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - new_max)
    correction = ct.exp2(row_max - new_max)
    row_sum = row_sum * correction + ct.sum(p, axis=1, keepdims=True)
    acc = ct.mma(p.astype(v.dtype), v, acc * correction)
    return new_max, row_sum, acc


def store_partial(O_part, M_part, L_part, bh, split, acc, row_max, row_sum):
    """A split's unnormalized output, row maximum and row sum, at (bh, split) of the workspace."""
    g_pad = acc.shape[0]
    d = acc.shape[1]
    ct.store(O_part, index=(bh, split, 0, 0), tile=acc.reshape((1, 1, g_pad, d)))
    ct.store(M_part, index=(bh, split, 0), tile=row_max.reshape((1, 1, g_pad)))
    ct.store(L_part, index=(bh, split, 0), tile=row_sum.reshape((1, 1, g_pad)))


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
        row_max, row_sum, acc = attend(q, k.reshape((TKV, D)), v.reshape((TKV, D)), j * TKV, seq, scale,
                                       row_max, row_sum, acc)
    store_partial(O_part, M_part, L_part, bh, split, acc, row_max, row_sum)


@ct.kernel
def paged_decode_partial_kernel(Q, K_cache, V_cache, block_table, seq_lens, O_part, M_part, L_part, scale: float,
                                G_PAD: ct.Constant[int], D: ct.Constant[int], PAGE: ct.Constant[int],
                                PAGES_PER_SPLIT: ct.Constant[int]):
    bh = ct.bid(0)
    split = ct.bid(1)
    num_heads = K_cache.shape[1]
    b = bh // num_heads
    h = bh % num_heads
    seq = ct.gather(seq_lens, b)
    q = ct.load(Q, index=(b, h, 0, 0), shape=(1, 1, G_PAD, D), padding_mode=ct.PaddingMode.ZERO)
    q = q.reshape((G_PAD, D))
    row_max = ct.full((G_PAD, 1), -math.inf, dtype=ct.float32)
    row_sum = ct.zeros((G_PAD, 1), dtype=ct.float32)
    acc = ct.zeros((G_PAD, D), dtype=ct.float32)
    first = split * PAGES_PER_SPLIT
    last = min(first + PAGES_PER_SPLIT, ct.cdiv(seq, PAGE))
    for j in range(first, last):
        page = ct.gather(block_table, (b, j))
        k = ct.load(K_cache, index=(page, h, 0, 0), shape=(1, 1, PAGE, D))
        v = ct.load(V_cache, index=(page, h, 0, 0), shape=(1, 1, PAGE, D))
        row_max, row_sum, acc = attend(q, k.reshape((PAGE, D)), v.reshape((PAGE, D)), j * PAGE, seq, scale,
                                       row_max, row_sum, acc)
    store_partial(O_part, M_part, L_part, bh, split, acc, row_max, row_sum)


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
    tiles = ct.cdiv(seq, tile_kv)
    splits = min(splits, next_power_of_2(tiles))
    q4, g_pad, parts = split_workspace(q, hkv, splits)
    ct.launch(torch.cuda.current_stream(), (bsz * hkv, splits, 1), decode_partial_kernel,
              (q4, k, v, *parts, 1.0 / math.sqrt(d), g_pad, d, tile_kv, ct.cdiv(tiles, splits)))
    return combine(q, parts, splits, g_pad)


def split_workspace(q: torch.Tensor, hkv: int, splits: int):
    """q seen as [B, Hkv, G, D], G_PAD, and the float32 partial results of each (b, h, split):
    output [B * Hkv, SPLITS, G_PAD, D], row maximum and row sum [B * Hkv, SPLITS, G_PAD]."""
    bsz, hq, d = q.shape
    group = hq // hkv
    g_pad = max(next_power_of_2(group), 16)
    o_part = torch.empty((bsz * hkv, splits, g_pad, d), dtype=torch.float32, device=q.device)
    m_part = torch.empty((bsz * hkv, splits, g_pad), dtype=torch.float32, device=q.device)
    l_part = torch.empty((bsz * hkv, splits, g_pad), dtype=torch.float32, device=q.device)
    return q.reshape(bsz, hkv, group, d), g_pad, (o_part, m_part, l_part)


def combine(q: torch.Tensor, parts, splits: int, g_pad: int) -> torch.Tensor:
    """The partial results combined into the output, [B, Hq, D] like q."""
    bsz, hq, d = q.shape
    hkv = parts[0].shape[0] // bsz
    out = torch.empty((bsz, hkv, hq // hkv, d), dtype=q.dtype, device=q.device)
    ct.launch(torch.cuda.current_stream(), (bsz * hkv, 1, 1), decode_combine_kernel,
              (*parts, out, splits, g_pad, d))
    return out.reshape(bsz, hq, d)


def attention_decode_paged(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_table: torch.Tensor,
                           seq_lens: torch.Tensor, *, splits: int = 4) -> torch.Tensor:
    """q: [B, Hq, D]; k_cache, v_cache: [num_pages, Hkv, PAGE, D]; block_table: [B, max_pages] int32, the
    page of each block of PAGE positions of each sequence (entries past a sequence's length are not
    read); seq_lens: [B] int32, each at least 1.  Returns [B, Hq, D]."""
    bsz, hq, d = q.shape
    _, hkv, page, _ = k_cache.shape
    assert v_cache.shape == k_cache.shape and k_cache.shape[3] == d and hq % hkv == 0
    assert block_table.shape[0] == bsz and seq_lens.shape == (bsz,)
    assert splits > 0 and splits & (splits - 1) == 0, "splits must be a power of two"
    max_pages = block_table.shape[1]
    splits = min(splits, next_power_of_2(max_pages))
    q4, g_pad, parts = split_workspace(q, hkv, splits)
    ct.launch(torch.cuda.current_stream(), (bsz * hkv, splits, 1), paged_decode_partial_kernel,
              (q4, k_cache, v_cache, block_table, seq_lens, *parts, 1.0 / math.sqrt(d), g_pad, d, page,
               ct.cdiv(max_pages, splits)))
    return combine(q, parts, splits, g_pad)
