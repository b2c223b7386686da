"""TileGym's MLA prefill kernel, configuration by configuration: real cuTile against converted
modules at fixed Triton launch options, on the device (docs/perf/h100_2026-12-05d/).

    python3 tools/device/mla_config_probe.py CONVERTED.py [VARIANT.py ...]

Needs real cuTile (.cutile/setup.sh) and TileGym's sources in /tmp/tg (its module is imported
from there, not copied). Each converted module is loaded as it is; its launcher's option search
(_searched_launch) is replaced by the options under test, so one (TILE_M, TILE_N) configuration
of the kernel's exhaustive_search space runs with one (num_warps, num_stages) at a time.
cuTile runs each configuration with occupancy 1 and 2 (num_ctas 1), as its search space has
them. Times: triton.testing.do_bench (L2 cleared before each run), us, and TFLOP/s of the
causal product (B4 H32 D128, rope dimension 64); maxdiff: the largest difference from cuTile's
output of the same configuration. MLA_TILES, MLA_OPTIONS (Python literals) and MLA_SECONDS
narrow a run: e.g. MLA_TILES="[(128, 64)]" MLA_OPTIONS="[(8, 3)]" MLA_CASES="[('bfloat16', 1024)]".
"""
import ast
import math
import os
import sys
import time

import torch
import triton

from module_file import load as load_module

import cuda.tile as ct

sys.path.insert(0, "/tmp/tg/src")
import tilegym.ops.cutile.mla as original  # noqa: E402

TILES = ast.literal_eval(os.environ.get("MLA_TILES", "[(128, 64), (128, 128), (256, 64), (256, 128), (64, 64), (64, 128)]"))
OPTIONS = ast.literal_eval(os.environ.get("MLA_OPTIONS", "[(8, 2), (8, 3), (4, 2), (4, 3)]"))
SECONDS = float(os.environ.get("MLA_SECONDS", "500"))
CASES = ast.literal_eval(os.environ.get("MLA_CASES", "[('float8_e5m2', 8192), ('bfloat16', 4096)]"))


def load(path):
    return load_module(path, "mla_probe_" + os.path.basename(path)[:-3])


def main():
    variants = {os.path.basename(p)[:-3]: load(p) for p in sys.argv[1:]}
    began = time.time()
    for dtype_name, S in CASES:
        dtype = getattr(torch, dtype_name)
        B, H, D, P = 4, 32, 128, 64

        def tensor(*shape):
            return torch.empty(*shape, device="cuda", dtype=torch.half).normal_(0, 0.3).to(dtype)

        q, qpe, k, kpe, v = tensor(B, H, S, D), tensor(B, H, S, P), tensor(B, H, S, D), tensor(B, 1, S, P), tensor(B, H, S, D)
        o = torch.empty_like(q)
        stream = torch.cuda.current_stream()
        flops = 4 * B * H * S * S / 2 * (D + P / 2)
        print(f"== {dtype} S={S}", flush=True)
        for tm, tn in TILES:
            grid = (math.ceil(S / tm), B * H, 1)
            args = (q, qpe, k, kpe, v, o, 1 / math.sqrt(D + P), D, P, H, tm, tn, 0)
            reference = None
            for occupancy in (1, 2):
                kernel = original._prefill_mla_kernel.replace_hints(num_ctas=1, occupancy=occupancy)
                try:
                    ms = triton.testing.do_bench(lambda: ct.launch(stream, grid, kernel, args), warmup=10, rep=40)
                    reference = o.float().clone()
                    print(f"cutile {tm}x{tn} occupancy {occupancy}: {ms * 1e3:9.1f} us {flops / ms / 1e9:5.0f} TF", flush=True)
                except Exception as e:
                    print(f"cutile {tm}x{tn} occupancy {occupancy}: {type(e).__name__}", flush=True)
            for name, module in variants.items():
                for warps, stages in OPTIONS:
                    if time.time() - began > SECONDS:
                        print("(time)")
                        return
                    module._searched_launch = (lambda kernel, key, launch, shapes, candidates, w=warps, s=stages, **_:
                                               launch(s, w))
                    run = lambda: module.launch__prefill_mla_kernel(stream, grid, args)  # noqa: E731
                    try:
                        o.zero_()
                        run()
                        torch.cuda.synchronize()
                        diff = (o.float() - reference).abs().max().item() if reference is not None else float("nan")
                        ms = triton.testing.do_bench(run, warmup=10, rep=40)
                        print(f"{name} {tm}x{tn} {warps} warps {stages} stages: {ms * 1e3:9.1f} us "
                              f"{flops / ms / 1e9:5.0f} TF maxdiff {diff:.3g}", flush=True)
                    except Exception as e:
                        print(f"{name} {tm}x{tn} {warps} warps {stages} stages: {type(e).__name__} {str(e)[:80]}", flush=True)


if __name__ == "__main__":
    main()
