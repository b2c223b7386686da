"""make test: run every suite and end with one line "N passed, M failed".

Suites (each prints its own "NAME: N passed, M failed" line):
  unit         the C unit tests (tokenizer, parser, emitter)
  cli          the command-line tool: options, exit statuses, I/O errors,
               diagnostic codes, --query
  directory    directory mode, --stats, --diff
  cli (python -m), directory (python -m)
               the same two suites, the tool run as `python -m cutile2triton`
               (C2T_CLI) through the Python package and the shared library
  oracle       round trip of the whole standard library, judged by CPython
  sanitizers   the oracle on a sample, plus hostile inputs, under ASan+UBSan
  valgrind     a few files under valgrind's memcheck (when valgrind exists)
  fuzz         the mutational fuzzer, bounded (fixed seed, ~1 minute), on the
               sanitizer build; each distinct finding is a failure
  gpu compile  tests/compile: every launch the operator tests make, compiled for
               sm_90 and sm_100 without a GPU (tools/compile_check.py): valid
               Triton, shared memory within the H200's, TMA where promised
  pytest       the conversion tests: rules (tests/convert), goldens
               (tests/golden), the runtime helpers of src/lower/helpers
               (tests/helpers), the corpus operators (tests/ops), run on the CPU
               under TRITON_INTERPRET=1 without a GPU; the Python API
               (tests/python)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, "build")
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed")


PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def pytest_counts(output):
    """(passed, failed) from pytest's closing line; errors count as failures."""
    lines = [line for line in output.splitlines() if PYTEST_COUNT.search(line) and " in " in line]
    if not lines:
        return None
    counts = {}
    for number, word in PYTEST_COUNT.findall(lines[-1]):
        counts[word.rstrip("s") if word.startswith("error") else word] = int(number)
    return counts.get("passed", 0), counts.get("failed", 0) + counts.get("error", 0)


def run_suite(name, command, env=None):
    """Run one suite, echo its output, return (passed, failed)."""
    print(f"=== {name}: {' '.join(command)}", flush=True)
    merged_env = dict(os.environ, **(env or {}))
    run = subprocess.run(command, cwd=ROOT, env=merged_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = run.stdout.decode("utf-8", "replace")
    sys.stdout.write(output)
    if "pytest" in command:  # a pytest run (the conversion tests, gpu compile)
        counts = pytest_counts(output)
        if counts is None:
            print(f"{name}: no pytest summary; counted as 1 failure (exit {run.returncode})")
            return 0, 1
        passed, failed = counts
        if run.returncode not in (0, 1) or (run.returncode == 1 and failed == 0):
            print(f"{name}: pytest exited {run.returncode}; counted as 1 failure")
            failed = max(failed, 1)
        return passed, failed
    found = SUMMARY.findall(output)
    if not found:
        print(f"{name}: no summary line; counted as 1 failure (exit {run.returncode})")
        return 0, 1
    passed, failed = (int(x) for x in found[-1])
    if run.returncode != 0 and failed == 0:
        print(f"{name}: exited {run.returncode}; counted as 1 failure")
        failed = 1
    return passed, failed


def main():
    py = sys.executable
    # `python -m cutile2triton` of the clone (python/, with build/libcutile2triton.so)
    python_m_env = {"C2T_CLI": f"{shlex.quote(py)} -m cutile2triton", "PYTHONPATH": os.path.join(ROOT, "python")}
    suites = [
        ("unit", [os.path.join(BUILD, "unit_tests")], None),
        ("cli", [py, os.path.join(HERE, "cli", "test_cli.py")], None),
        ("directory", [py, os.path.join(HERE, "cli", "test_directory.py")], None),
        # the same two scripts with the tool run through the Python API
        ("cli (python -m)", [py, os.path.join(HERE, "cli", "test_cli.py")], python_m_env),
        ("directory (python -m)", [py, os.path.join(HERE, "cli", "test_directory.py")], python_m_env),
        ("oracle", [py, os.path.join(HERE, "oracle", "oracle.py"), "--tool", os.path.join(BUILD, "cutile2triton")], None),
        ("sanitizers", [py, os.path.join(HERE, "oracle", "sanitizers.py")], None),
    ]
    if shutil.which("valgrind"):
        suites.append(("valgrind", [py, os.path.join(HERE, "oracle", "valgrind.py")], None))
    else:
        print("valgrind: not installed here; that suite is not run")
    suites.append(("fuzz", [py, os.path.join(HERE, "fuzz", "fuzz.py")], None))
    suites.append(("gpu compile", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/compile"], None))
    suites.append(("pytest", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/convert", "tests/golden", "tests/helpers",
                              "tests/ops", "tests/report", "tests/python"], None))
    total_passed = total_failed = 0
    for name, command, env in suites:
        passed, failed = run_suite(name, command, env)
        total_passed += passed
        total_failed += failed
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
