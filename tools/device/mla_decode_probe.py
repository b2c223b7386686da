"""TileGym's MLA decoding kernel: real cuTile against the converted module, autotuned and at
each of its autotune candidates, on the device.

    python3 tools/device/mla_decode_probe.py CONVERTED.py

Needs real cuTile (.cutile/setup.sh) and TileGym's sources in /tmp/tg (its module is imported
from there, not copied). The shapes are those of TileGym's test_perf (D 512, rope 64, float16,
TILE_H 16, TILE_N 128, inputs of ones as there). Times: triton.testing.do_bench, us, with the
L2 cleared before each run; maxdiff: the largest difference from cuTile's output. The
candidates are those the converted module's _launch_candidates gives; each is forced by
replacing that function, the autotuner's cache and the launch cache emptied in between.
MLA_SHAPES (a Python literal of (B, H, S)) and MLA_ALL (time every candidate at every shape,
not only the first two) narrow or widen a run.
"""
import ast
import math
import os
import sys

import torch
import triton

from module_file import load as load_module

import cuda.tile as ct

sys.path.insert(0, "/tmp/tg/src")
import tilegym.ops.cutile.mla_decoding as original  # noqa: E402

SHAPES = ast.literal_eval(os.environ.get(
    "MLA_SHAPES", "[(1, 16, 1024), (1, 32, 8192), (128, 16, 1024), (128, 32, 2048), (1024, 16, 1024), (1024, 32, 8192)]"))


def load(path):
    return load_module(path, "mla_decode_converted")


def main():
    mod = load(sys.argv[1])
    kernel = mod._naive_absorb_mla_transpose_kernel
    real = mod._launch_candidates
    candidates = real(kernel.configs, 128 * 512, tma=True, dot=True, stores=True)
    stream = torch.cuda.current_stream()
    for index, (B, H, S) in enumerate(SHAPES):
        D, P, TH, TN = 512, 64, 16, 128
        q = torch.ones(B, H, D, device="cuda", dtype=torch.half)
        qpe = torch.ones(B, H, P, device="cuda", dtype=torch.half)
        kv = torch.ones(B, S, D, device="cuda", dtype=torch.half)
        kpe = torch.ones(B, S, P, device="cuda", dtype=torch.half)
        o, lse = torch.empty_like(q), torch.empty(B, H, device="cuda", dtype=torch.float32)
        args = (q, qpe, kv, kv, kpe, o, lse, 1 / math.sqrt(D + P), D, TH, TN, P, S, S % TN == 0)
        grid = (math.ceil(H / TH), B, 1)
        bytes_ = B * S * (D + P) * 2
        ms = triton.testing.do_bench(lambda: ct.launch(stream, grid, original._naive_absorb_mla_transpose_kernel, args))
        reference = o.float().clone()
        print(f"== B={B} H={H} S={S}: cutile {ms * 1e3:8.1f} us {bytes_ / ms / 1e6:6.0f} GB/s", flush=True)

        def run(label):
            o.zero_()
            kernel.cache.clear()
            mod._LAUNCHED.clear()
            mod._LAUNCH_PLANS.clear()
            try:
                t = triton.testing.do_bench(lambda: mod.launch__naive_absorb_mla_transpose_kernel(stream, grid, args))
            except Exception as e:  # a candidate that does not compile
                print(f"   {label}: {type(e).__name__} {str(e)[:120]}", flush=True)
                return
            diff = (o.float() - reference).abs().max().item()
            print(f"   {label}: {t * 1e3:8.1f} us  x{ms / t:5.2f}  maxdiff {diff:.3g}", flush=True)

        mod._launch_candidates = real
        run("converted (autotuned)")
        if index < 2 or os.environ.get("MLA_ALL"):
            for config in candidates:
                mod._launch_candidates = lambda configs, *a, c=config, **k: [c]
                run(f"warps {config.num_warps} stages {config.num_stages} {config.kwargs}")
            mod._launch_candidates = real


if __name__ == "__main__":
    main()
