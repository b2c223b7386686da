"""Histograms with atomics: integer bincount and float histc.

Both kernels walk the input in TILE-sized pieces with a grid-stride ``while``
loop, read the piece with ``ct.gather`` and bump the bins with
``ct.atomic_add`` on an int32 histogram.

Out-of-range handling leans on the bounds checks of gather and atomic_add:
* lanes past the end of the input gather ``padding_value=-1``;
* a bin index < 0 or >= n_bins is out of bounds for the histogram array, and
  an out-of-bounds atomic does nothing (negative indices are out of bounds,
  not wrapped).
So values outside [0, n_bins) are simply not counted, like
``torch.bincount`` of the in-range values.
"""

import torch
import cuda.tile as ct

TILE = 512
MAX_PROGRAMS = 64


@ct.kernel
def bincount_kernel(x, hist, TILE_SIZE: ct.Constant[int]):
    n = x.shape[0]
    n_tiles = ct.cdiv(n, TILE_SIZE)
    t = ct.bid(0)
    while t < n_tiles:
        offs = t * TILE_SIZE + ct.arange(TILE_SIZE, dtype=ct.int32)
        bins = ct.gather(x, offs, padding_value=-1)
        ct.atomic_add(hist, bins, 1)
        t += ct.num_blocks(0)


@ct.kernel
def histc_kernel(x, hist, lo, hi, inv_width, TILE_SIZE: ct.Constant[int]):
    n = x.shape[0]
    n_bins = hist.shape[0]
    n_tiles = ct.cdiv(n, TILE_SIZE)
    t = ct.bid(0)
    while t < n_tiles:
        offs = t * TILE_SIZE + ct.arange(TILE_SIZE, dtype=ct.int32)
        v = ct.gather(x, offs, mask=offs < n, padding_value=0).astype(ct.float32)
        b = ct.floor((v - lo) * inv_width).astype(ct.int32)
        # x == hi belongs to the last bin (torch.histc convention)
        b = ct.minimum(b, n_bins - 1)
        counted = (offs < n) & (v >= lo) & (v <= hi)
        ct.atomic_add(hist, ct.where(counted, b, -1), 1)
        t += ct.num_blocks(0)


def _grid(n: int):
    return (max(1, min(ct.cdiv(n, TILE), MAX_PROGRAMS)),)


def bincount(x: torch.Tensor, n_bins: int) -> torch.Tensor:
    """Counts of each value in [0, n_bins) of an integer 1-D tensor; others ignored."""
    hist = torch.zeros(n_bins, dtype=torch.int32, device=x.device)
    if x.numel():
        ct.launch(torch.cuda.current_stream(), _grid(x.numel()), bincount_kernel, (x, hist, TILE))
    return hist


def histc(x: torch.Tensor, bins: int, lo: float, hi: float) -> torch.Tensor:
    """Like torch.histc(x, bins, lo, hi) but with int32 counts."""
    hist = torch.zeros(bins, dtype=torch.int32, device=x.device)
    if x.numel():
        inv_width = bins / (hi - lo)
        ct.launch(torch.cuda.current_stream(), _grid(x.numel()), histc_kernel,
                  (x, hist, lo, hi, inv_width, TILE))
    return hist
