"""Element-wise vector addition, c = a + b, on 1-D tensors.

Two kernels that compute the same thing:

* ``vector_add_kernel`` partitions the arrays into TILE-sized tiles and uses
  ``ct.load``/``ct.store`` in tile space.  The last tile usually runs past the
  end of the array: loads pad it with zeros and the store drops the lanes that
  are out of bounds, so no explicit mask is needed.
* ``vector_add_gather_kernel`` does the bounds handling by hand: element
  indices from ``ct.arange``, a ``mask`` on the gather and on the scatter.
  It is the form people write when the index math is not a plain tiling.

The inputs may be strided 1-D views (``x[::2]``, ``buf[5:]``): cuTile arrays
carry their strides, so the kernels never assume contiguity.
"""

import torch
import cuda.tile as ct

# Default elements per block.  1024 fp32 elements = 4 KiB per operand.
TILE = 1024


@ct.kernel(num_ctas=ct.ByTarget(sm_100=2, default=1))
def vector_add_kernel(a, b, c, TILE_SIZE: ct.Constant[int]):
    bid = ct.bid(0)
    # Index is in tile units: this block covers elements [bid*TILE_SIZE, (bid+1)*TILE_SIZE).
    ta = ct.load(a, index=(bid,), shape=(TILE_SIZE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(bid,), shape=(TILE_SIZE,), padding_mode=ct.PaddingMode.ZERO)
    # Out-of-bounds lanes of the tail tile are dropped by the store.
    ct.store(c, index=(bid,), tile=ta + tb)


@ct.kernel
def vector_add_gather_kernel(a, b, c, n, TILE_SIZE: ct.Constant[int]):
    bid = ct.bid(0)
    # Element indices this block owns.
    offs = ct.arange(TILE_SIZE, dtype=ct.int32) + bid * TILE_SIZE
    in_range = offs < n
    ta = ct.gather(a, offs, mask=in_range, padding_value=0)
    tb = ct.gather(b, offs, mask=in_range, padding_value=0)
    ct.scatter(c, offs, ta + tb, mask=in_range)


def vector_add(a: torch.Tensor, b: torch.Tensor, *, tile: int = TILE,
               use_gather: bool = False) -> torch.Tensor:
    """Return a + b for two 1-D tensors of the same shape and dtype."""
    assert a.dim() == 1 and a.shape == b.shape and a.dtype == b.dtype
    n = a.shape[0]
    c = torch.empty(n, dtype=a.dtype, device=a.device)
    if n == 0:
        return c
    grid = (ct.cdiv(n, tile), 1, 1)
    stream = torch.cuda.current_stream()
    if use_gather:
        ct.launch(stream, grid, vector_add_gather_kernel, (a, b, c, n, tile))
    else:
        ct.launch(stream, grid, vector_add_kernel, (a, b, c, tile))
    return c
