"""Inclusive prefix sum along the rows of a 2-D tensor, forward or reversed.

One block per row.  The row is scanned CHUNK columns at a time with
``ct.cumsum``; the total of the chunks already done is carried in a [1, 1]
tile and added to the next chunk.  For the reversed scan the chunks are
visited from last to first and ``ct.cumsum(..., reverse=True)`` scans each
from its end; ZERO padding of the partial last chunk adds nothing either way.

The accumulation dtype is the output dtype (like torch.cumsum(dtype=...)):
fp16 input with a float32 output accumulates in float32.
"""

import torch
import cuda.tile as ct

CHUNK = 256


@ct.kernel
def cumsum_kernel(x, y, CHUNK_N: ct.Constant[int], REVERSE: ct.Constant[bool]):
    row = ct.bid(0)
    n_chunks = ct.num_tiles(x, axis=1, shape=(1, CHUNK_N))
    carry = ct.zeros((1, 1), dtype=y.dtype)
    for k in range(n_chunks):
        c = n_chunks - 1 - k if REVERSE else k
        t = ct.load(x, index=(row, c), shape=(1, CHUNK_N), padding_mode=ct.PaddingMode.ZERO)
        t = t.astype(y.dtype)
        ct.store(y, index=(row, c), tile=ct.cumsum(t, axis=1, reverse=REVERSE) + carry)
        carry = carry + ct.sum(t, axis=1, keepdims=True)


def cumsum(x: torch.Tensor, *, reverse: bool = False, dtype=None) -> torch.Tensor:
    """Inclusive scan over dim 1 of a 2-D tensor."""
    assert x.dim() == 2
    out_dtype = dtype or x.dtype
    m, n = x.shape
    y = torch.empty((m, n), dtype=out_dtype, device=x.device)
    if m and n:
        ct.launch(torch.cuda.current_stream(), (m,), cumsum_kernel, (x, y, CHUNK, reverse))
    return y
