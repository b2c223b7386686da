"""Performance: histograms with atomics, integer bincount and float histc, vs
torch.bincount / torch.histc.  Bytes moved: the input read once (the bins are tiny).
"""

import pytest
import torch

from ops_common import DEVICE
from perf_common import (PERF_BACKENDS, backend_module, check_equal, gbytes, gpu_only, measure,
                         pow2_id, sizes)

pytestmark = gpu_only

N = sizes(gpu=1 << 26, smoke=40_000)
N_BINS = 256
BINS, LO, HI = 100, -4.0, 4.0


@pytest.mark.parametrize("backend", PERF_BACKENDS)
def test_perf_histogram_bincount(load_op, perf_record, backend):
    mod = backend_module(load_op, "histogram", backend)
    # in-range values only: torch.bincount rejects negatives, the kernel would skip them
    x = torch.randint(0, N_BINS, (N,), dtype=torch.int32, device=DEVICE)
    if mod is None:
        fn = lambda: torch.bincount(x, minlength=N_BINS)  # noqa: E731
    else:
        fn = lambda: mod.bincount(x, N_BINS)  # noqa: E731
        ref = torch.bincount(x, minlength=N_BINS).to(torch.int32)
        check_equal(backend, fn(), ref, what="bincount")
    measure(perf_record, config=f"{pow2_id(N)} i32 {N_BINS} bins", backend=backend, fn=fn,
            gbytes=gbytes(x))


@pytest.mark.parametrize("backend", PERF_BACKENDS)
def test_perf_histogram_histc(load_op, perf_record, backend):
    mod = backend_module(load_op, "histogram", backend)
    # values at bin centres +-30% (no rounding ties at the edges), some outside, some == HI
    width = (HI - LO) / BINS
    which = torch.randint(-2, BINS + 2, (N,), device=DEVICE)
    x = LO + (which.float() + 0.5 + 0.6 * (torch.rand(N, device=DEVICE) - 0.5)) * width
    x[::97] = HI
    del which
    if mod is None:
        fn = lambda: torch.histc(x, bins=BINS, min=LO, max=HI)  # noqa: E731
    else:
        fn = lambda: mod.histc(x, BINS, LO, HI)  # noqa: E731
        ref = torch.histc(x, bins=BINS, min=LO, max=HI).to(torch.int32)
        check_equal(backend, fn(), ref, what="histc")
    measure(perf_record, config=f"{pow2_id(N)} f32 {BINS} bins", backend=backend, fn=fn,
            gbytes=gbytes(x))
