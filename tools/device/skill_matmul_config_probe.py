"""The converting skill's float16 matmul (examples/04_matmul, 128x128x32 tiles as its host
code asks) on the GPU: the converted kernel at each launch configuration the converter's
autotuner might offer (warps x stages x store path), beside real cuTile and cuBLAS, in one
process, 4096^3 and 8192^3, the L2 flushed before each run (do_bench). It tells which
configuration closes the gap to cuTile that the autotuner's own candidates leave (H200,
2026-12-06: 616.6 TFLOP/s converted against cuTile's 658.4 at 4096^3).

    python3 tools/device/skill_matmul_config_probe.py EXAMPLES_DIR CONVERTER OUT.jsonl"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.testing

from module_file import load

examples, converter, out_path = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
# PROBE_DRY_RUN=1: a check of this script on the CPU under TRITON_INTERPRET=1, at 64^3, one candidate
DRY = os.environ.get("PROBE_DRY_RUN") == "1"
DEVICE = "cpu" if DRY else "cuda"
out = open(out_path, "w")


def rec(**r):
    print(json.dumps(r), flush=True)
    out.write(json.dumps(r) + "\n")
    out.flush()


work = Path(tempfile.mkdtemp())
src = examples / "04_matmul" / "cutile_kernel.py"
subprocess.run([converter, str(src), "-o", str(work / "conv.py")], check=True)
conv = load(work / "conv.py", "conv_matmul")
try:
    orig = load(src, "orig_matmul")
except Exception as e:  # no cuda.tile: the converted side still runs
    orig = None
    rec(note=f"cuTile not importable: {e}")

candidates = [(w, s, extra) for w in (4, 8) for s in (3, 4, 5, 6) for extra in ({}, {"_store_tma": False})]
if DRY:
    candidates = candidates[-1:]
for n in ((64,) if DRY else (4096, 8192)):
    dtype = torch.float32 if DRY else torch.float16
    a = torch.randn(n, n, device=DEVICE, dtype=dtype)
    b = torch.randn(n, n, device=DEVICE, dtype=dtype)
    ref = a @ b
    flop = 2 * n ** 3

    def timed(side, fn, **info):
        try:
            c = fn()
            err = (c.float() - ref.float()).abs().max().item()
            if DRY:
                rec(side=side, n=n, err=err, **info)
                return
            torch.cuda.synchronize()
            us = triton.testing.do_bench(fn, warmup=25, rep=100) * 1000
            rec(side=side, n=n, us=us, tflops=flop / us / 1e6, err=err, **info)
        except Exception as e:  # a configuration Triton refuses (shared memory): reported, not fatal
            rec(side=side, n=n, error=f"{type(e).__name__}: {str(e)[:200]}", **info)

    def converted():  # the example's host code (matmul()), less its is_cuda assert
        c = torch.empty((n, n), device=DEVICE, dtype=dtype)
        grid = (triton.cdiv(n, 128) * triton.cdiv(n, 128), 1, 1)
        conv.launch_matmul_kernel(torch.cuda.current_stream(), grid, (a, b, c, 128, 128, 32))
        return c

    timed("cublas", lambda: a @ b)
    if orig is not None:
        timed("cutile", lambda: orig.matmul(a, b))
    conv.matmul_kernel.cache.clear()
    timed("converted-autotuned", converted)
    chosen = next(iter(conv.matmul_kernel.cache.values()), None)
    rec(side="converted-autotuned-choice", n=n, config=str(chosen))
    default = conv._launch_candidates
    for w, s, extra in candidates:
        conv._launch_candidates = lambda configs, elements, w=w, s=s, extra=extra, **kw: [
            triton.Config(dict(extra), num_warps=w, num_stages=s)]
        conv.matmul_kernel.cache.clear()
        timed("converted", converted, warps=w, stages=s, store="pointers" if extra else "descriptor")
    conv._launch_candidates = default
