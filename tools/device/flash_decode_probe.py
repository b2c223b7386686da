"""TileGym's flash decode (its attention decode kernel and split-K reduce) at the small shapes
of its test_perf: real cuTile against converted modules, autotuned and at each autotune
candidate of either kernel, with each kernel's GPU time from the profiler.

    python3 tools/device/flash_decode_probe.py TILEGYM_SRC LABEL=DIR [LABEL=DIR ...]

Each DIR holds a converted flash_decode.py and splitk_reduce.py (converted by one converter
binary: comparing two binaries is two DIRs). They are imported as modules of TileGym's
package (c2t_<tag>_flash_decode, which imports c2t_<tag>_splitk_reduce), written into
TILEGYM_SRC/tilegym/ops/cutile, each candidate from fresh modules (the launchers keep
compiled launches). Needs real cuTile (.cutile/setup.sh). Times: Triton's do_bench_cudagraph
as TileGym's test_perf times (a CUDA graph of the call), us; maxdiff: the largest difference
from cuTile's output. FD_SHAPES (a Python literal of (S, group)) narrows a run; the candidates
are timed for the variants FD_CANDIDATE_LABELS names (comma-separated; default the last one)
at the first FD_CANDIDATE_SHAPES shapes (default 2).
"""
import ast
import importlib
import math
import os
import sys
from pathlib import Path

import torch
import triton

SHAPES = ast.literal_eval(os.environ.get("FD_SHAPES", "[(512, 8), (512, 4), (512, 1), (1024, 4), (1024, 1)]"))
B, H, D = 1, 32, 128


def install(package_dir, tag, directory):
    """Writes DIR's modules into TileGym's package as c2t_<tag>_*; returns the decode module's name."""
    reduce_text = (Path(directory) / "splitk_reduce.py").read_text()
    decode_text = (Path(directory) / "flash_decode.py").read_text()
    decode_text = decode_text.replace("tilegym.ops.cutile.splitk_reduce", f"tilegym.ops.cutile.c2t_{tag}_splitk_reduce")
    (package_dir / f"c2t_{tag}_splitk_reduce.py").write_text(reduce_text)
    (package_dir / f"c2t_{tag}_flash_decode.py").write_text(decode_text)
    return f"tilegym.ops.cutile.c2t_{tag}_flash_decode", f"tilegym.ops.cutile.c2t_{tag}_splitk_reduce"


def kernel_times(fn, count=50):
    """Each kernel's mean GPU time over `count` calls, us, from the profiler."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(count):
            fn()
        torch.cuda.synchronize()
    times = {}
    for event in prof.key_averages():
        if event.device_type == torch.autograd.DeviceType.CUDA and event.count >= count:
            total = getattr(event, "device_time_total", None) or getattr(event, "cuda_time_total", 0)
            times[event.key[:40]] = total / event.count
    return " ".join(f"{name}={t:.2f}" for name, t in sorted(times.items()))


def main():
    src = Path(sys.argv[1])
    sys.path.insert(0, str(src))
    package_dir = src / "tilegym" / "ops" / "cutile"
    import tilegym.ops.cutile.flash_decode as original

    variants = [arg.split("=", 1) for arg in sys.argv[2:]]
    serial = [0]

    def fresh(directory, force_decode=None, force_reduce=None):
        serial[0] += 1
        decode_name, reduce_name = install(package_dir, f"{serial[0]}", directory)
        reduce_mod = importlib.import_module(reduce_name)
        if force_reduce is not None:
            reduce_mod._launch_candidates = lambda configs, *a, c=force_reduce, **k: [c]
        decode_mod = importlib.import_module(decode_name)
        if force_decode is not None:
            decode_mod._launch_candidates = lambda configs, *a, c=force_decode, **k: [c]
        return decode_mod, reduce_mod

    labels = os.environ.get("FD_CANDIDATE_LABELS", variants[-1][0]).split(",")
    for index, (S, group) in enumerate(SHAPES):
        torch.manual_seed(42)
        q = torch.randn(B, H, 1, D, device="cuda", dtype=torch.float16)
        k = torch.randn(B, H // group, S, D, device="cuda", dtype=torch.float16)
        v = torch.randn(B, H // group, S, D, device="cuda", dtype=torch.float16)
        scale = 1.0 / math.sqrt(D)
        reference = original.fmha_decode(q, k, v, scale).float()
        t_ref = triton.testing.do_bench_cudagraph(lambda: original.fmha_decode(q, k, v, scale))
        print(f"== S={S} group={group}: cutile {t_ref * 1e3:7.2f} us  kernels: "
              f"{kernel_times(lambda: original.fmha_decode(q, k, v, scale))}", flush=True)

        def run(label, decode_mod, reduce_mod):
            try:
                out = decode_mod.fmha_decode(q, k, v, scale)
                diff = (out.float() - reference).abs().max().item()
                t = triton.testing.do_bench_cudagraph(lambda: decode_mod.fmha_decode(q, k, v, scale))
                kernels = kernel_times(lambda: decode_mod.fmha_decode(q, k, v, scale))
            except Exception as e:  # a candidate that does not compile or run
                print(f"   {label}: {type(e).__name__} {str(e)[:160]}", flush=True)
                return
            picks = []
            for mod in (decode_mod, reduce_mod):
                for name in dir(mod):
                    best = getattr(getattr(mod, name), "best_config", None)
                    if best is not None:
                        picks.append(f"{name}: w{best.num_warps} s{best.num_stages} {best.kwargs}")
            print(f"   {label}: {t * 1e3:7.2f} us  x{t_ref / t:5.2f}  maxdiff {diff:.3g}  {kernels}", flush=True)
            if picks:
                print("      picked " + "; ".join(picks), flush=True)

        for label, directory in variants:
            decode_mod, reduce_mod = fresh(directory)
            run(f"{label} autotuned", decode_mod, reduce_mod)
            if label not in labels or index >= int(os.environ.get("FD_CANDIDATE_SHAPES", "2")):
                continue
            decode_kernel = decode_mod._attention_decode_kernel_grouped
            for config in decode_mod._launch_candidates(decode_kernel.configs, 1, dot=True, tma=True):
                run(f"{label} decode w{config.num_warps} s{config.num_stages} {config.kwargs}",
                    *fresh(directory, force_decode=config))
            reduce_kernel = reduce_mod._splitk_reduce_kernel
            for config in reduce_mod._launch_candidates(reduce_kernel.configs, 512, dot=True, tma=True, stores=True):
                run(f"{label} reduce w{config.num_warps} s{config.num_stages} {config.kwargs}",
                    *fresh(directory, force_reduce=config))


if __name__ == "__main__":
    main()
