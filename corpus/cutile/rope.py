"""Rotary position embedding (RoPE), "split halves" convention (GPT-NeoX/LLaMA).

For a head vector v of size D, with h = D/2, v1 = v[:h], v2 = v[h:]:
    out[:h] = v1 * cos - v2 * sin
    out[h:] = v2 * cos + v1 * sin
cos/sin are [seq_len, D/2] float32 tables.

Layout [batch, seq, heads, head_dim].  One block per token: the flat token
index is split into (batch, position) with ``//`` and ``%``; the block loads
all heads of the token at once as a [H_PAD, D/2] tile per half.  The halves
are tile index 0 and 1 along the last axis (tile width D/2), so the second
half needs no offset arithmetic -- it is just the next tile.  H_PAD is the
head count rounded up to a power of two; the padded heads are dropped by the
store.  q and k (different head counts under GQA) are processed by two
launches of the same kernel, built in a loop.
"""

import torch
import cuda.tile as ct


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def rotate(v1, v2, cos, sin):
    return v1 * cos - v2 * sin, v2 * cos + v1 * sin


@ct.kernel
def rope_kernel(x, cos, sin, out, H_PAD: ct.Constant[int], HALF: ct.Constant[int]):
    tok = ct.bid(0)
    seq_len = x.shape[1]
    b = tok // seq_len
    s = tok % seq_len

    x1 = ct.load(x, index=(b, s, 0, 0), shape=(1, 1, H_PAD, HALF), padding_mode=ct.PaddingMode.ZERO)
    x2 = ct.load(x, index=(b, s, 0, 1), shape=(1, 1, H_PAD, HALF), padding_mode=ct.PaddingMode.ZERO)
    x1 = x1.reshape((H_PAD, HALF)).astype(ct.float32)
    x2 = x2.reshape((H_PAD, HALF)).astype(ct.float32)
    c = ct.load(cos, index=(s, 0), shape=(1, HALF))
    sn = ct.load(sin, index=(s, 0), shape=(1, HALF))

    o1, o2 = rotate(x1, x2, c, sn)
    ct.store(out, index=(b, s, 0, 0), tile=o1.astype(out.dtype).reshape((1, 1, H_PAD, HALF)))
    ct.store(out, index=(b, s, 0, 1), tile=o2.astype(out.dtype).reshape((1, 1, H_PAD, HALF)))


def apply_rope(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
    """q: [B, S, Hq, D], k: [B, S, Hk, D], cos/sin: [S, D/2] float32.  Returns (q_out, k_out)."""
    bsz, seq_len, _, head_dim = q.shape
    half = head_dim // 2
    assert head_dim % 2 == 0 and half & (half - 1) == 0, "D/2 must be a power of two"
    assert cos.shape == (seq_len, half) and sin.shape == cos.shape
    q_out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    k_out = torch.empty(k.shape, dtype=k.dtype, device=k.device)
    stream = torch.cuda.current_stream()
    grid = (bsz * seq_len,)
    for src, dst in ((q, q_out), (k, k_out)):
        args = (src, cos, sin, dst, next_power_of_2(src.shape[2]), half)
        ct.launch(stream, grid, rope_kernel, args)
    return q_out, k_out
