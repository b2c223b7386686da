"""Row softmax, one row per block, with gather/scatter and element indices.

The row is fetched with ``ct.gather`` at column indices ``arange(BLOCK)``;
BLOCK is the row length rounded up to a power of two.  Columns past the end
of the row fail the bounds check and read ``padding_value=-inf``, so they drop
out of the max and contribute exp(-inf) = 0 to the sum.  ``ct.scatter``
writes back only the in-bounds columns.
"""

import torch
import cuda.tile as ct

NEG_INF = float("-inf")


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


@ct.kernel
def softmax_gather_kernel(x, y, BLOCK: ct.Constant[int]):
    row = ct.bid(0)
    cols = ct.arange(BLOCK, dtype=ct.int32)
    v = ct.gather(x, (row, cols), padding_value=NEG_INF)
    v = ct.astype(v, ct.float32)
    row_max = ct.max(v, axis=0)
    e = ct.exp(v - row_max)
    denom = ct.sum(e, axis=0)
    ct.scatter(y, (row, cols), ct.astype(e / denom, y.dtype))


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim of a 2-D tensor (rows may be strided)."""
    assert x.dim() == 2
    n_rows, n_cols = x.shape
    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    if n_rows == 0 or n_cols == 0:
        return y
    block = next_power_of_2(n_cols)
    ct.launch(torch.cuda.current_stream(), (n_rows,), softmax_gather_kernel, (x, y, block))
    return y
