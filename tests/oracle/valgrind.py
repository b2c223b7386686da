"""A few round trips under valgrind's memcheck: no invalid access, no leak."""
import os
import re
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "build", "cutile2triton")
STDLIB = sysconfig.get_paths()["stdlib"]
FILES = ["ast.py", "typing.py", "test/test_grammar.py", "test/test_patma.py", "test/test_fstring.py"]


def main():
    passed = failed = 0
    broken = os.path.join(HERE, "..", "cli", "data", "syntax_error.py")
    cases = [("roundtrip", os.path.join(STDLIB, f)) for f in FILES] + [("check", broken)]
    for command, path in cases:
        run = subprocess.run(["valgrind", "--quiet", "--error-exitcode=99", "--leak-check=full",
                              "--errors-for-leak-kinds=definite,indirect", TOOL, command, path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if run.returncode in (0, 1) and not re.search(rb"==\d+==", run.stderr):
            passed += 1
        else:
            failed += 1
            print(f"FAIL {path}: exit {run.returncode}\n{run.stderr.decode('utf-8', 'replace')[:2000]}")
    print(f"valgrind: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
