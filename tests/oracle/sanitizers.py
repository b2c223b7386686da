"""The round trip under AddressSanitizer + UndefinedBehaviorSanitizer.

1. The oracle (oracle.py) over every 10th standard-library file, with the
   sanitizer build: a sanitizer report makes the tool exit non-zero, which
   the oracle counts as a failure.
2. Hostile inputs: truncated files, random bytes, deep nesting, huge lines,
   NUL bytes, invalid UTF-8. Each must end in exit 0, or exit 1 with a
   located error; never a crash, a sanitizer report or a hang, and the input
   file is never modified.
3. cuTile conversions (`cutile2triton FILE`), valid and invalid, with leak
   detection: each ends in its expected exit status (1 with a located error).
"""
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "build", "asan", "cutile2triton")
LOCATED_ERROR = re.compile(rb"^.+:\d+:\d+: error: .+", re.M)
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86",
           UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87")


def hostile_inputs():
    """(name, bytes) pairs that try to break the front end."""
    rng = random.Random(20261129)
    tricky = (b'def f[T: int](a, /, b=1, *c, d, **e) -> "x":\n'
              b'    match a:\n        case [1, *r] | {"k": v} if v: pass\n'
              b'    x = f"{a!r:>{b}} {c = } {f"{1}"}"\n'
              b'    return (yield from g()) @ h[1:2, ::3]\n'
              b'class C(B, metaclass=M):\n    """doc"""  # c\n    async def g(): await x\n')
    yield "empty", b""
    for cut in range(0, len(tricky), 3):
        yield f"truncated at {cut}", tricky[:cut]
    for n in range(40):
        yield f"random bytes {n}", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
    alphabet = b"()[]{}:;,.=+-*/\\'\"#\n\t fx1_@!<>%&|^~"
    for n in range(60):
        yield f"random tokens {n}", bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 300)))
    yield "deep parentheses", b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"
    yield "deep brackets just under the limit", b"x = " + b"[" * 199 + b"]" * 199 + b"\n"
    yield "deep unary", b"x = " + b"-" * 100000 + b"1\n"
    yield "deep not", b"x = " + b"not " * 20000 + b"y\n"
    yield "deep power", b"x = " + b"2 ** " * 20000 + b"2\n"
    yield "deep lambda", b"x = " + b"lambda: " * 20000 + b"0\n"
    yield "deep ternary", b"x = " + b"a if b else " * 20000 + b"c\n"
    yield "deep attribute chain", b"x = a" + b".b" * 100000 + b"\n"
    yield "deep call chain", b"x = f" + b"()" * 100000 + b"\n"
    yield "long sum", b"x = " + b"1 + " * 200000 + b"1\n"
    yield "deep indentation", b"".join(b" " * i + b"if x:\n" for i in range(150)) + b" " * 150 + b"pass\n"
    yield "deep f-strings", b"x = " + b'f"{' * 300 + b"1" + b'}"' * 300 + b"\n"
    yield "huge line", b"x = '" + b"a" * 2_000_000 + b"'\n"
    yield "NUL byte", b"x = 1\x00\n"
    yield "invalid UTF-8", b"x = '\xff\xfe'\n"
    yield "lone surrogate", b"x = '\xed\xa0\x80'\n"
    yield "CR only", b"if x:\r    y = 1\r"
    yield "unterminated triple quote", b'x = """abc\n\n'
    yield "form feeds and tabs", b"if x:\n\t\x0c  y = 1\n"


KERNEL = b"import cuda.tile as ct\n\n@ct.kernel%s\ndef k(x, y):\n    t = ct.load(x, index=(ct.bid(0),), shape=(16,))\n%s"


def conversion_inputs():
    """(name, bytes, expected exit) cuTile modules converted with `cutile2triton FILE`
    under the sanitizers with leak detection: valid ones and error paths (an
    error in the middle of building text once leaked it)."""
    def kernel(body, decorator=b""):
        return KERNEL % (decorator, b"".join(b"    " + line + b"\n" for line in body.split(b"\n")))
    yield "valid load/store", kernel(b"ct.store(y, index=(ct.bid(0),), tile=t + 1)"), 0
    yield "valid print", kernel(b'ct.print(f"t={t}", "b")\nct.printf("%d", t)'), 0
    yield "valid scan lambda", kernel(b"ct.store(y, index=(ct.bid(0),), tile=ct.scan(t, 0, lambda a, b: a + b, 0))"), 0
    yield "valid hints", kernel(b"ct.store(y, index=(ct.bid(0),), tile=t)", b"(num_ctas=1, occupancy=2)"), 0
    yield "scan lambda with an unknown call", kernel(
        b"ct.store(y, index=(ct.bid(0),), tile=ct.scan(t, 0, lambda a, b: ct.z(a, b), 0))"), 1
    yield "kernel hint shape=1", kernel(b"ct.store(y, index=(ct.bid(0),), tile=t)", b"(shape=1)"), 1
    yield "kernel hint after a kept one", kernel(b"ct.store(y, index=(ct.bid(0),), tile=t)", b"(num_ctas=2, shape=1)"), 1
    yield "print of a string variable", kernel(b's = "s"\nct.print(f"a{s}", "b")'), 1
    yield "Tile.print of a dtype", kernel(b"t.print(ct.int8)"), 1
    yield "printf of an unknown call", kernel(b'ct.printf("value %d", ct.z(t))'), 1
    yield "printf with too few values", kernel(b'ct.printf("%d %d", t)'), 1
    yield "fold overflow", kernel(b"ct.store(y, index=(ct.bid(0),), tile=t + (9223372036854775807 + 1))"), 1
    yield "fold negation overflow", kernel(b"ct.store(y, index=(ct.bid(0),), tile=t + -(-9223372036854775807 - 1))"), 1
    yield "fold division by zero", kernel(b"ct.store(y, index=(ct.bid(0),), tile=t + 1 // 0)"), 1
    yield "shape overflow", kernel(b"u = ct.load(x, index=(0,), shape=(9223372036854775807 + 1,))"), 1
    yield "17 names for cuda.tile", b"".join(b"from cuda import tile as t%d\n" % i for i in range(17)) + kernel(
        b"ct.store(y, index=(ct.bid(0),), tile=t)"), 0
    yield "65 names for cuda.tile", b"".join(b"from cuda import tile as t%d\n" % i for i in range(65)) + kernel(
        b"ct.store(y, index=(ct.bid(0),), tile=t)"), 1
    yield "not cuTile", b"x = 1\n", 1


def run_conversion(name, data, expected):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "input.py")
        with open(path, "wb") as f:
            f.write(data)
        try:
            run = subprocess.run([TOOL, path], capture_output=True, env=ENV, timeout=60)
        except subprocess.TimeoutExpired:
            return f"{name}: hang (over 60 s)"
        if run.returncode == expected and (expected == 0 or LOCATED_ERROR.search(run.stderr)):
            return None
        return f"{name}: exit {run.returncode}, expected {expected}: {run.stderr[:600]!r}"


def run_hostile(name, data):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "input.py")
        with open(path, "wb") as f:
            f.write(data)
        digest = hashlib.sha256(data).hexdigest()
        try:
            run = subprocess.run([TOOL, "roundtrip", path], capture_output=True, env=ENV, timeout=60)
        except subprocess.TimeoutExpired:
            return f"{name}: hang (over 60 s)"
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != digest:
                return f"{name}: the input file was modified"
        if run.returncode == 0:
            return None
        if run.returncode == 1 and LOCATED_ERROR.search(run.stderr):
            return None
        return f"{name}: exit {run.returncode}: {run.stderr[:600]!r}"


def main():
    passed = failed = 0
    oracle = subprocess.run([sys.executable, os.path.join(HERE, "oracle.py"), "--tool", TOOL, "--sample", "10"],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = oracle.stdout.decode("utf-8", "replace")
    sys.stdout.write(text)
    counts = re.findall(r"(\d+) passed, (\d+) failed", text)
    if counts:
        passed += int(counts[-1][0])
        failed += int(counts[-1][1])
    else:
        failed += 1
    for name, data in hostile_inputs():
        problem = run_hostile(name, data)
        if problem:
            print("FAIL", problem)
            failed += 1
        else:
            passed += 1
    for name, data, expected in conversion_inputs():
        problem = run_conversion(name, data, expected)
        if problem:
            print("FAIL conversion", problem)
            failed += 1
        else:
            passed += 1
    print(f"sanitizers: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
