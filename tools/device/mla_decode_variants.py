"""TileGym's MLA decoding kernel: real cuTile against converted modules (the converter's
output and hand-edited variants of it), on the device.

    python3 tools/device/mla_decode_variants.py NAME=CONVERTED.py [NAME=CONVERTED.py ...]

Needs real cuTile (.cutile/setup.sh) and TileGym's sources in /tmp/tg (its module is imported
from there, not copied). For each shape (B, H, S) of TileGym's test_perf family (D 512, rope
64, float16, TILE_H 16, TILE_N 128, random inputs, the same kv array passed as K and V as
TileGym's launcher does): the GPU time of the kernel alone (torch.profiler, mean of 20
launches, us), do_bench's time (us, the L2 cleared before each run: host time included where
the host is slower than the kernel), and the largest differences from cuTile's output and
log-sum-exp. Each module must define launch__naive_absorb_mla_transpose_kernel.
"""
import math
import sys

import torch
import triton
from torch.profiler import ProfilerActivity, profile

from module_file import load as load_module

import cuda.tile as ct

sys.path.insert(0, "/tmp/tg/src")
import tilegym.ops.cutile.mla_decoding as original  # noqa: E402

SHAPES = [(1, 16, 1024), (1, 32, 8192), (128, 16, 1024), (128, 32, 2048), (1024, 16, 1024), (1024, 32, 8192)]


def load(name, path):
    return load_module(path, f"mla_variant_{name}")


def kernel_us(launch, repeats=20):
    launch()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            launch()
        torch.cuda.synchronize()
    times = [e.device_time for e in prof.events() if e.device_type.name == "CUDA" and "mla" in e.name]
    return sum(times) / max(len(times), 1)


def main():
    modules = {name: load(name, path) for name, path in (arg.split("=", 1) for arg in sys.argv[1:])}
    stream = torch.cuda.current_stream()
    for B, H, S in SHAPES:
        D, P, TH, TN = 512, 64, 16, 128
        q = torch.randn(B, H, D, device="cuda", dtype=torch.half)
        qpe = torch.randn(B, H, P, device="cuda", dtype=torch.half)
        kv = torch.randn(B, S, D, device="cuda", dtype=torch.half)
        kpe = torch.randn(B, S, P, device="cuda", dtype=torch.half)
        o, lse = torch.empty_like(q), torch.empty(B, H, device="cuda", dtype=torch.float32)
        args = (q, qpe, kv, kv, kpe, o, lse, 1 / math.sqrt(D + P), D, TH, TN, P, S, S % TN == 0)
        grid = (math.ceil(H / TH), B, 1)

        def cutile():
            ct.launch(stream, grid, original._naive_absorb_mla_transpose_kernel, args)

        cutile()
        reference, reference_lse = o.float().clone(), lse.clone()
        line = f"B={B} H={H} S={S}: cutile gpu {kernel_us(cutile):8.1f} bench {triton.testing.do_bench(cutile) * 1e3:8.1f}"
        for name, module in modules.items():
            def converted(module=module):
                module.launch__naive_absorb_mla_transpose_kernel(stream, grid, args)

            o.zero_()
            converted()
            diff = (o.float() - reference).abs().max().item()
            diff_lse = (lse - reference_lse).abs().max().item()
            line += (f" | {name} gpu {kernel_us(converted):8.1f} bench {triton.testing.do_bench(converted) * 1e3:8.1f}"
                     f" diff {diff:.2g}/{diff_lse:.2g}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
