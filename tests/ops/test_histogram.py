"""Histograms with atomic_add: integer bincount and float histc (int32 counts, exact)."""

import pytest
import torch

from ops_common import BACKENDS, assert_equal, pick

SIZES = pick(cpu=[1, 7, 33, 1000, 40_000], cuda=[1, 33, 1_000_003, 1 << 26])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n_bins", [1, 7, 256])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=["i32", "i64"])
@pytest.mark.parametrize("n", SIZES)
def test_op_histogram_bincount(load_op, device, backend, n, dtype, n_bins):
    mod = load_op("histogram", backend)
    # values outside [0, n_bins), negative ones included, are not counted
    x = torch.randint(-3, n_bins + 3, (n,), dtype=dtype, device=device)
    hist = mod.bincount(x, n_bins)
    inside = x[(x >= 0) & (x < n_bins)]
    ref = torch.bincount(inside.cpu(), minlength=n_bins).to(torch.int32)
    assert_equal(hist, ref, "bincount")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bins,lo,hi", [(1, 0.0, 1.0), (16, -2.0, 2.0), (100, -8.0, 17.0)])
@pytest.mark.parametrize("n", SIZES)
def test_op_histogram_histc(load_op, device, backend, n, bins, lo, hi):
    mod = load_op("histogram", backend)
    width = (hi - lo) / bins
    # values at bin centres +-30% (no rounding ties at edges), some outside, some == hi
    which = torch.randint(-2, bins + 2, (n,))
    x = lo + (which.float() + 0.5 + 0.6 * (torch.rand(n) - 0.5)) * width
    x[:: 97] = hi
    x = x.to(device)
    hist = mod.histc(x, bins, lo, hi)
    ref = torch.histc(x.cpu(), bins=bins, min=lo, max=hi).to(torch.int32)
    assert_equal(hist, ref, "histc")
