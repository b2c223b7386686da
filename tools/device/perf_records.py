#!/usr/bin/env python3
"""The perf records of a difftest run (--json) as a table: per test and pass, each side's mean
time, the converted speed relative to the original (original time / converted time) and the
GPU time of the kernels each side ran (TileGym's records carry kernel_times, measured with
CUPTI): a small time dominated by kernels, not by the host.

    python3 tools/device/perf_records.py RUN.json [RUN.json ...]
"""
import json
import sys


def kernel_us(record):
    return sum(k.get("total_time_us", 0.0) for k in record.get("kernel_times", [])) if record else None


def rows(path):
    run = json.load(open(path))
    original, converted = run["runs"]["original"]["tests"], run["runs"]["converted"]["tests"]
    for test, result in original.items():
        theirs = (result.get("properties") or {}).get("benchmark") or {}
        ours = ((converted.get(test) or {}).get("properties") or {}).get("benchmark") or {}
        for framework, passes in theirs.items():
            for name, before in passes.items():
                after = (ours.get(framework) or {}).get(name)
                yield test, name, before, after


def main(paths):
    print(f"{'test':90s} {'pass':9s} {'original us':>12s} {'converted us':>13s} {'speed':>6s} "
          f"{'GPU us orig':>12s} {'GPU us conv':>12s}")
    for path in paths:
        for test, name, before, after in rows(path):
            label = test.split("/")[-1]
            if not after:
                print(f"{label:90s} {name:9s} {before['mean'] * 1000:12.1f} {'(not run)':>13s}")
                continue
            print(f"{label:90s} {name:9s} {before['mean'] * 1000:12.1f} {after['mean'] * 1000:13.1f} "
                  f"{before['mean'] / after['mean']:6.2f} {kernel_us(before) or 0:12.1f} {kernel_us(after) or 0:12.1f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
