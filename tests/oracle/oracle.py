"""The parser oracle: CPython's own parser judges our round trip.

For every .py file of the running python3's standard library (tests
included, site-packages excluded):

* if CPython's ``ast.parse`` accepts the file, ``cutile2triton roundtrip``
  must exit 0 and its output must parse to an AST equal to the original's
  (``ast.dump`` without positions);
* if CPython rejects it, ``cutile2triton check`` must exit 1 with a located
  error ``FILE:LINE:COL: error: ...`` -- except for the files listed in
  NEWER_GRAMMAR, which are valid in the Python 3.12 grammar we target.

Run alone: python3 tests/oracle/oracle.py --tool build/cutile2triton [--sample N]
"""
import argparse
import ast
import os
import re
import subprocess
import sys
import sysconfig
import warnings
import functools
from multiprocessing import Pool

# Files the oracle's CPython rejects but the Python 3.12 grammar accepts,
# relative to the stdlib folder, with the reason.
NEWER_GRAMMAR = {
}

LOCATED_ERROR = re.compile(r"^.+:\d+:\d+: error: .+", re.M)


def stdlib_files():
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "site-packages")
        found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(".py"))
    return root, sorted(found)


def cpython_dump(source_bytes):
    """ast.dump of the source, or None when CPython rejects it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.dump(ast.parse(source_bytes))
        except (SyntaxError, ValueError, UnicodeError, MemoryError, RecursionError):
            return None


def check_file(tool, root, path):
    """Return (ok, message) for one file."""
    rel = os.path.relpath(path, root)
    with open(path, "rb") as f:
        original = f.read()
    expected = cpython_dump(original)
    if expected is None:
        run = subprocess.run([tool, "check", path], capture_output=True)
        if rel in NEWER_GRAMMAR:
            if run.returncode != 0:
                return False, f"{rel}: valid in 3.12 ({NEWER_GRAMMAR[rel]}) but rejected"
            return True, ""
        stderr = run.stderr.decode("utf-8", "replace")
        if run.returncode != 1 or not LOCATED_ERROR.search(stderr):
            return False, f"{rel}: CPython rejects it; we exited {run.returncode}: {stderr[:300]!r}"
        return True, ""
    run = subprocess.run([tool, "roundtrip", path], capture_output=True)
    if run.returncode != 0:
        return False, f"{rel}: roundtrip exited {run.returncode}: {run.stderr.decode('utf-8', 'replace')[:400]}"
    actual = cpython_dump(run.stdout)
    if actual is None:
        return False, f"{rel}: the round-tripped output does not parse"
    if actual != expected:
        return False, f"{rel}: the round-tripped AST differs"
    return True, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default="build/cutile2triton")
    parser.add_argument("--sample", type=int, default=1, help="check every Nth file only")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    root, files = stdlib_files()
    files = files[:: args.sample]
    tool = os.path.abspath(args.tool)
    with Pool(args.jobs) as pool:
        results = pool.map(functools.partial(check_file, tool, root), files, chunksize=8)
    failures = [message for ok, message in results if not ok]
    for message in failures:
        print("FAIL", message)
    passed = len(results) - len(failures)
    print(f"oracle ({tool}, {root}): {passed} passed, {len(failures)} failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
