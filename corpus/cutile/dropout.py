"""Inverted dropout with a counter-based hash instead of an RNG state.

Whether element i is kept depends only on (seed, i): a 32-bit integer hash of
``i + seed * GOLDEN`` (an xor-shift-multiply finalizer) is compared with a
threshold derived from p.  Kept elements are scaled by 1/(1-p), dropped ones
become zero.  The same (seed, i) always gives the same mask, so the backward
pass can recompute it instead of storing it, and a reference can compute it
in torch with the same integer arithmetic.

The hash is done in int64 with explicit masking to 32 bits: every product is
a value < 2^32 times a constant < 2^31, so nothing overflows int64 and no
unsigned arithmetic (which cuTile will not mix with signed) is needed.
"""

import torch
import cuda.tile as ct

BLOCK = 1024

GOLDEN = 0x9E3779B1      # seed spreading multiplier
HASH_MUL_1 = 0x7FEB352D  # both < 2^31 so (2^32 - 1) * mul fits in int64
HASH_MUL_2 = 0x2C1B3C6D
MASK_32 = 0xFFFFFFFF
RAND_BITS = 24           # the threshold compare uses the low 24 bits
RAND_MASK = (1 << RAND_BITS) - 1


def hash32(v):
    """32-bit finalizer on an int64 tile holding values in [0, 2^32)."""
    v = v ^ (v >> 16)
    v = (v * HASH_MUL_1) & MASK_32
    v = v ^ (v >> 15)
    v = (v * HASH_MUL_2) & MASK_32
    v = v ^ (v >> 16)
    return v


@ct.kernel
def dropout_kernel(x, out, keep_mask, seed, threshold, scale, BLOCK_SIZE: ct.Constant[int]):
    bid = ct.bid(0)
    idx = ct.arange(BLOCK_SIZE, dtype=ct.int32) + bid * BLOCK_SIZE
    seed64 = ct.astype(seed, ct.int64)
    counter = (idx.astype(ct.int64) + seed64 * GOLDEN) & MASK_32
    r = hash32(counter) & RAND_MASK
    keep = r >= threshold
    v = ct.load(x, index=(bid,), shape=(BLOCK_SIZE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.where(keep, v.astype(ct.float32) * scale, 0.0)
    ct.store(out, index=(bid,), tile=y.astype(out.dtype))
    ct.store(keep_mask, index=(bid,), tile=keep)


def dropout(x: torch.Tensor, p: float, seed: int):
    """Return (out, keep_mask).  p in [0, 1); seed in [0, 2^31)."""
    if not 0.0 <= p < 1.0:
        raise ValueError("p must be in [0, 1)")
    flat = x.contiguous().view(-1)
    out = torch.empty_like(flat)
    keep = torch.empty(flat.shape, dtype=torch.bool, device=x.device)
    n = flat.numel()
    if n:
        threshold = int(p * (1 << RAND_BITS))
        scale = 1.0 / (1.0 - p)
        grid = (ct.cdiv(n, BLOCK),)
        ct.launch(torch.cuda.current_stream(), grid, dropout_kernel,
                  (flat, out, keep, seed, threshold, scale, BLOCK))
    return out.view(x.shape), keep.view(x.shape)
