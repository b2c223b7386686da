#!/usr/bin/env python3
"""Host time of each step of a converted launch, on the GPU's own host.

A converted module's kernels of a few microseconds are bound by the launcher's host time
when that is longer than the kernel (do_bench then times the host: split-K at 256x256 in
the corpus). This times, back to back on the CPU (the median of many calls, the GPU queue
kept short), each step the converted split-K module (corpus/cutile/matmul_splitk.py, run
through the converter first) takes per call: the whole call, its torch.empty calls, each
launcher, the launcher's argument preparation alone, `_launch` alone, Triton's launcher
with the host-made tensor descriptors it expands, the C launcher with those already
expanded, one fill_tma_descriptor, and small torch calls; and with --cutile MODULE the
cuTile module's call, for comparison (real cuTile on the device machine).

    build/cutile2triton corpus/cutile/matmul_splitk.py -o /tmp/splitk.py
    python3 tools/device/launch_cost_probe.py /tmp/splitk.py [--cutile corpus/cutile/matmul_splitk.py]
"""
import argparse
import statistics
import time

import torch

from module_file import load


def host_us(call, calls=400, batch=40):
    """The median host time of `call` in microseconds; synchronized every `batch` calls so
    that the launch queue never fills (a full queue makes a launch wait for the GPU)."""
    times = []
    for start in range(0, calls, batch):
        torch.cuda.synchronize()
        for _ in range(batch):
            begin = time.perf_counter()
            call()
            times.append(time.perf_counter() - begin)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e6


def kept_entry(module, kernel):
    for key, entry in module._LAUNCHED.items():
        if key[0] == id(kernel):
            return entry
    raise SystemExit(f"no kept launch of {kernel}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("--cutile")
    parser.add_argument("--size", type=int, nargs=3, default=[256, 256, 32768], metavar=("M", "N", "K"))
    parser.add_argument("--splits", type=int, default=8)
    options = parser.parse_args()
    m = load(options.module, "converted")
    M, N, K = options.size
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    splits = options.splits
    for _ in range(5):
        c = m.matmul_splitk(a, b, splits=splits)
    torch.cuda.synchronize()
    print(f"max error vs torch: {(c.float() - (a @ b).float()).abs().max().item():.3g}")
    partial = torch.empty((splits, M, N), dtype=torch.float32, device="cuda")
    stream = torch.cuda.current_stream()
    tiles = (-(-M // 64), -(-N // 64))
    per_split = -(-(-(-K // 64)) // splits)
    p_args = (a, b, partial, 64, 64, 64, per_split)
    r_args = (partial, c, splits, 64, 64)
    rows = {}
    rows["whole call"] = host_us(lambda: m.matmul_splitk(a, b, splits=splits))
    rows["two torch.empty"] = host_us(lambda: (torch.empty((splits, M, N), dtype=torch.float32, device=a.device),
                                               torch.empty((M, N), dtype=a.dtype, device=a.device)))
    rows["torch.cuda.current_stream()"] = host_us(torch.cuda.current_stream)
    rows["partial launcher"] = host_us(lambda: m.launch_splitk_partial_kernel(stream, (*tiles, splits), p_args))
    rows["reduce launcher"] = host_us(lambda: m.launch_splitk_reduce_kernel(stream, (*tiles, 1), r_args))
    # a replaying launcher (_replayed) and the launcher it wraps, which _launch keeps
    raw_partial = getattr(m.launch_splitk_partial_kernel, "__wrapped__", m.launch_splitk_partial_kernel)
    raw_reduce = getattr(m.launch_splitk_reduce_kernel, "__wrapped__", m.launch_splitk_reduce_kernel)
    if raw_partial is not m.launch_splitk_partial_kernel:
        rows["partial launcher, not replayed"] = host_us(lambda: raw_partial(stream, (*tiles, splits), p_args))
        rows["reduce launcher, not replayed"] = host_us(lambda: raw_reduce(stream, (*tiles, 1), r_args))
    launch = m._launch
    seen = []
    m._launch = lambda kernel, grid, *args, **constants: seen.append((kernel, grid, args, constants))
    try:
        rows["partial launcher, no _launch"] = host_us(lambda: raw_partial(stream, (*tiles, splits), p_args))
        rows["reduce launcher, no _launch"] = host_us(lambda: raw_reduce(stream, (*tiles, 1), r_args))
    finally:
        m._launch = launch
    m._launch = lambda kernel, grid, *args, **constants: None
    try:
        rows["whole call, _launch a no-op"] = host_us(lambda: m.matmul_splitk(a, b, splits=splits))
    finally:
        m._launch = launch
    kernel, grid, args, constants = seen[0]
    rows["_launch (partial)"] = host_us(lambda: launch(kernel, grid, *args, **dict(constants)))
    kernel2, grid2, args2, constants2 = seen[-1]
    rows["_launch (reduce)"] = host_us(lambda: launch(kernel2, grid2, *args2, **dict(constants2)))
    compiled, names, padding, direct, _, _ = kept_entry(m, kernel)
    if direct is not None and direct[-1] is not None:  # its descriptors are expanded by _launch: Triton's own
        direct = (compiled.run.launch, *direct[1:])
    values = list(args)
    for position, array in enumerate(values):
        if isinstance(array, torch.Tensor):
            values[position] = array.data_ptr()
    constants = dict(constants, enable_reflect_ftz=False)
    extra = [constants[name] for name in names]
    raw = stream.cuda_stream
    if direct is not None:
        call, cooperative, pdl = direct[0], direct[1], direct[2]
        full = (*tiles, splits, raw, compiled.function, cooperative, pdl, None, None, compiled.packed_metadata, None,
                None, None, *values, *extra, *padding)
        rows["Triton's launcher (expands descriptors)"] = host_us(lambda: call(*full))
        cell = dict(zip(call.__code__.co_freevars, call.__closure__ or ())).get("launcher")
        if cell is not None:
            expanded = []
            inner = cell.cell_contents
            cell.cell_contents = lambda *final: expanded.append(final)
            try:
                call(*full)
            finally:
                cell.cell_contents = inner
            rows["C launcher, descriptors expanded"] = host_us(lambda: inner(*expanded[0]))
    rows["torch.cuda.current_device()"] = host_us(torch.cuda.current_device)
    rows["a.data_ptr()"] = host_us(a.data_ptr)
    rows["tuple(a.shape), tuple(a.stride())"] = host_us(lambda: (tuple(a.shape), tuple(a.stride())))
    rows["_tma_compatible(a)"] = host_us(lambda: m._tma_compatible(a))
    rows["_host_descriptor(a)"] = host_us(lambda: m._host_descriptor(a, [64, 64]))
    if options.cutile:
        reference = load(options.cutile, "reference")
        for _ in range(5):
            reference.matmul_splitk(a, b, splits=splits)
        rows["cuTile: whole call"] = host_us(lambda: reference.matmul_splitk(a, b, splits=splits))
    for name, value in rows.items():
        print(f"{value:8.1f} us  {name}")


if __name__ == "__main__":
    main()
