"""2-D transpose, y = x.T, two ways.

* VIA_ORDER=False: load a (BM, BN) tile at (i, j), ``ct.transpose`` it in
  registers, store it as a (BN, BM) tile at (j, i) of the output.
* VIA_ORDER=True: let the load do it -- ``order="F"`` maps tile axis 0 to
  array axis 1, so loading index (j, i) with shape (BN, BM) yields the
  transposed tile directly.

Either way the edge tiles of odd shapes are partial: the loads pad, the stores
drop what is outside the output.  The host launches on a side stream that
waits for the current stream, and makes the current stream wait for it.
"""

import torch
import cuda.tile as ct

BLOCK_M = 64
BLOCK_N = 32


@ct.kernel(occupancy=2)
def transpose_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int],
                     VIA_ORDER: ct.Constant[bool]):
    i = ct.bid(0)
    j = ct.bid(1)
    if VIA_ORDER:
        t = ct.load(x, index=(j, i), shape=(BN, BM), order="F",
                    padding_mode=ct.PaddingMode.ZERO)
    else:
        t = ct.transpose(ct.load(x, index=(i, j), shape=(BM, BN),
                                 padding_mode=ct.PaddingMode.ZERO))
    ct.store(y, index=(j, i), tile=t)


def transpose(x: torch.Tensor, *, via_order: bool = False) -> torch.Tensor:
    assert x.dim() == 2
    m, n = x.shape
    y = torch.empty((n, m), dtype=x.dtype, device=x.device)
    if m == 0 or n == 0:
        return y
    grid = (ct.cdiv(m, BLOCK_M), ct.cdiv(n, BLOCK_N), 1)
    main = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    side.wait_stream(main)
    ct.launch(side, grid, transpose_kernel, (x, y, BLOCK_M, BLOCK_N, via_order))
    main.wait_stream(side)
    return y
