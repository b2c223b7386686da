"""make bench: parse and emit the whole standard library, ours against CPython's.

Both sides get the same files (those CPython's ast.parse accepts) and do the
same job in one process each: read, parse, write the module back as source
(ours: c2t_roundtrip; CPython: ast.parse + ast.unparse). Prints both times,
the ratio, and our peak memory.
"""
import argparse
import ast
import os
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "oracle"))
from oracle import stdlib_files  # noqa: E402


def accepted_files(files):
    kept = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            with open(path, "rb") as f:
                try:
                    ast.parse(f.read())
                except (SyntaxError, ValueError, UnicodeError, RecursionError, MemoryError):
                    continue
            kept.append(path)
    return kept


def cpython_seconds(files):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        for path in files:
            with open(path, "rb") as f:
                ast.unparse(ast.parse(f.read()))
        return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-binary", default="build/bench_roundtrip")
    parser.add_argument("--tool", default="build/cutile2triton", help="unused; kept for the Makefile")
    args = parser.parse_args()
    root, files = stdlib_files()
    files = accepted_files(files)
    total_bytes = sum(os.path.getsize(p) for p in files)
    ours = subprocess.run([args.bench_binary], input="\n".join(files).encode(), capture_output=True, check=True)
    fields = ours.stdout.decode().split()
    stats = dict(zip(fields[::2], fields[1::2]))
    our_seconds = float(stats["seconds"])
    theirs = cpython_seconds(files)
    print(f"standard library: {root}")
    print(f"files: {len(files)} ({total_bytes / 1e6:.1f} MB), our failures: {stats['failures']}")
    print(f"cutile2triton parse+emit: {our_seconds:.3f} s")
    print(f"CPython ast.parse+ast.unparse: {theirs:.3f} s (Python {sys.version.split()[0]})")
    print(f"ratio: {theirs / our_seconds:.1f}x faster")
    print(f"our peak memory: {int(stats['peak_rss_kib']) / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
