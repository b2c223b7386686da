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
