#!/usr/bin/env python3
"""Host time per call of a converted module's function, and where it goes (cProfile).

A kernel of a few microseconds launched from Python is bound by the launcher's host time
when that is longer; do_bench then times the host. This runs a call CALLS times back to
back (wall time per call, the GPU synchronized at the end: the longer of host and GPU
time), then profiles the same loop (cProfile's own overhead inflates the host times it
shows, about 2x) and prints the functions with the most time of their own.

    python3 tools/device/host_time_probe.py MODULE.py "SETUP" "CALL" [--calls N]

SETUP and CALL are Python run with the module imported as `m` (and torch): SETUP once
(make the arrays), CALL timed, e.g.
    python3 tools/device/host_time_probe.py /tmp/splitk.py \\
      "a = torch.randn(256, 32768, device='cuda', dtype=torch.float16); b = torch.randn(32768, 256, device='cuda', dtype=torch.float16)" \\
      "m.matmul_splitk(a, b, splits=8)"
"""
import argparse
import cProfile
import importlib.util
import io
import pstats
import sys
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("setup")
    parser.add_argument("call")
    parser.add_argument("--calls", type=int, default=300)
    options = parser.parse_args()
    spec = importlib.util.spec_from_file_location("probed", options.module)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scope = {"m": module, "torch": torch}
    exec(options.setup, scope)
    call = compile(options.call, "<call>", "exec")
    for _ in range(5):  # compiles, tunes, fills the launch caches
        exec(call, scope)
    torch.cuda.synchronize()

    def loop():
        for _ in range(options.calls):
            exec(call, scope)

    start = time.perf_counter()
    loop()
    torch.cuda.synchronize()
    both = (time.perf_counter() - start) / options.calls
    print(f"{options.call}: {both * 1e6:.1f} us a call, back to back")
    profile = cProfile.Profile()
    profile.enable()
    loop()
    profile.disable()
    torch.cuda.synchronize()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(22)
    print(text.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
