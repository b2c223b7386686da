"""The plain test runner of the CLI suites: each suite registers its test
functions with @suite.test and ends with sys.exit(suite.main()), which prints
"NAME: N passed, M failed" (the line tests/run_all.py reads)."""


class Suite:
    def __init__(self, name):
        self.name = name
        self.tests = []

    def test(self, fn):
        self.tests.append(fn)
        return fn

    def main(self):
        failed = 0
        for fn in self.tests:
            try:
                fn()
            except AssertionError as e:
                failed += 1
                print(f"FAIL {fn.__name__}: {e!r}")
        print(f"{self.name}: {len(self.tests) - failed} passed, {failed} failed")
        return 1 if failed else 0


import os
import shlex

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, "build", "cutile2triton")


def tool():
    """The command under test: $C2T_CLI shell-split (e.g. "python3 -m
    cutile2triton"), by default the binary build/cutile2triton."""
    command = os.environ.get("C2T_CLI", "").strip()
    return shlex.split(command) if command else [BINARY]


def tool_env():
    """The environment for the tool: PYTHONPATH made absolute, so that
    `python -m cutile2triton` also works from another working folder."""
    env = dict(os.environ)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep))
    return env
