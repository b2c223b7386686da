"""Shared pieces of the performance tests (tests/ops/test_perf_*.py).

A test_perf_* case measures one corpus operator at one realistic size on one backend:
  "triton" -- the module converted by build/cutile2triton (the `load_op` fixture);
  "cutile" -- the original cuTile module (skipped with the reason when cuda.tile cannot run);
  "torch"  -- a PyTorch implementation of the same operation (the library baseline);
  "copy"   -- recorded with each "triton" measurement that counts bytes: dst.copy_(src)
              moving the same bytes (half read, half written) in the same run, the copy
              limit the report's "% of copy" compares with.
Before a converted or original kernel is timed, its output is checked once against
torch: a performance test must not time a wrong kernel.  The time comes from
triton.testing.do_bench (L2 flushed before each call, median of the repetitions);
the case then calls `perf_record` with the bytes the operation must move, so the
--print-record table shows GB/s and the ratio to cuTile (torch when cuTile did not run):

    python -m pytest tests/ops -k "test_perf" --print-record -v

Without a GPU every case is skipped ("no GPU: performance is measured on the H200").
C2T_PERF_SMOKE=1 instead runs the same code on the CPU at tiny sizes (interpreter,
wall-clock timing; the numbers mean nothing) to check the tests themselves.
Timing knobs: C2T_PERF_WARMUP_MS (default 10), C2T_PERF_REP_MS (default 50).
"""

import os
import re
import time

import pytest
import torch

from ops_common import DEVICE, ON_GPU

PERF_BACKENDS = ["triton", "cutile", "torch"]
NO_GPU_REASON = "no GPU: performance is measured on the H200"
SMOKE = not ON_GPU and os.environ.get("C2T_PERF_SMOKE") == "1"

# `pytestmark = gpu_only` in each test_perf_*.py file
gpu_only = pytest.mark.skipif(not (ON_GPU or SMOKE), reason=NO_GPU_REASON)

WARMUP_MS = float(os.environ.get("C2T_PERF_WARMUP_MS", "10"))
REP_MS = float(os.environ.get("C2T_PERF_REP_MS", "50"))

DTYPE_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
               torch.int32: "i32", torch.int64: "i64", torch.bool: "bool"}

# the workflow's tolerances: float32 1e-3, float16/bfloat16 1e-2; twice that
# (factor=2) for reductions, transcendentals and chained operations
TOL = {torch.float32: 1e-3, torch.float16: 1e-2, torch.bfloat16: 1e-2}


def sizes(gpu, smoke):
    """The configurations of a test: realistic ones on the GPU, tiny ones for C2T_PERF_SMOKE."""
    return smoke if SMOKE else gpu


def ids(config_id):
    """pytest ids from a config label: "8192x8192 bf16" -> "8192x8192_bf16"."""
    return lambda cfg: re.sub(r"[^\w.^=+*-]", "_", config_id(cfg))


def dname(dtype):
    return DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))


def shape_id(shape, dtype=None):
    text = "x".join(str(d) for d in shape)
    return f"{text} {dname(dtype)}" if dtype is not None else text


def pow2_id(n):
    """2^28 for powers of two, the number itself otherwise."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def randn(shape, dtype, scale=1.0):
    if dtype.is_floating_point:
        x = torch.randn(shape, device=DEVICE, dtype=torch.float32)
        return (x * scale if scale != 1.0 else x).to(dtype)
    return torch.randint(-100, 100, shape, device=DEVICE, dtype=dtype)


def gbytes(*tensors, extra_bytes=0):
    """Bytes moved, in GB: each tensor read or written once (list a tensor twice if it is both)."""
    return (sum(t.numel() * t.element_size() for t in tensors) + extra_bytes) / 1e9


def backend_module(load_op, name, backend):
    """The module that implements the operation for `backend`; None for "torch"."""
    if backend == "torch":
        return None
    return load_op(name, backend)


def _fail(backend, what, err):
    pytest.fail(f"{backend} output is wrong ({what}); not timing it.\n{err}", pytrace=False)


def check_close(backend, actual, expected, *, what, factor=1.0, rtol=None, atol=None):
    """actual ~ expected (on the device); the workflow's tolerance for the dtype times factor."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        _fail(backend, what, f"got {tuple(actual.shape)} {actual.dtype}, "
                             f"expected {tuple(expected.shape)} {expected.dtype}")
    tol = TOL.get(expected.dtype, 0.0) * factor
    try:
        torch.testing.assert_close(actual, expected, rtol=tol if rtol is None else rtol,
                                   atol=tol if atol is None else atol)
    except AssertionError as e:
        _fail(backend, what, e)


def check_equal(backend, actual, expected, *, what):
    """Bit-exact on the device (integers, copies, gathers, permutations)."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        _fail(backend, what, f"got {tuple(actual.shape)} {actual.dtype}, "
                             f"expected {tuple(expected.shape)} {expected.dtype}")
    if not torch.equal(actual, expected):
        bad = (actual != expected).nonzero()
        first = tuple(bad[0].tolist())
        _fail(backend, what, f"{bad.shape[0]} of {expected.numel()} elements differ, first at "
                             f"{list(first)}: {actual[first].item()} vs {expected[first].item()}")


def bench(fn):
    """Milliseconds per call of fn (median, L2 flushed before each call)."""
    if SMOKE:  # CPU smoke run: checks the plumbing, the number means nothing
        fn()
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1e3
    import triton.testing
    return triton.testing.do_bench(fn, warmup=WARMUP_MS, rep=REP_MS, return_mode="median")


def copy_time(gbytes):
    """Milliseconds of dst.copy_(src) over byte buffers that move `gbytes` GB in all (half
    read, half written): what the memory system gives a kernel moving those bytes."""
    count = max(1, int(gbytes * 1e9 / 2))
    src = torch.empty(count, dtype=torch.uint8, device=DEVICE)
    dst = torch.empty_like(src)
    ms = bench(lambda: dst.copy_(src))
    del src, dst
    return ms


def measure(perf_record, *, config, backend, fn, gbytes=None, tflop=None):
    """Time fn and record it; returns the milliseconds. With a converted ("triton") time
    that counts bytes, a "copy" record of the same bytes goes with it."""
    ms = bench(fn)
    perf_record(config=config, backend=backend, ms=ms, gbytes=gbytes, tflop=tflop)
    if backend == "triton" and gbytes and not tflop:
        perf_record(config=config, backend="copy", ms=copy_time(gbytes), gbytes=gbytes)
    return ms
