"""The command-line tool: options, exit statuses, diagnostics, I/O errors."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "build", "cutile2triton")
DATA = os.path.join(HERE, "data")

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def run(*args, stdin=None):
    return subprocess.run([TOOL, *args], input=stdin, capture_output=True)


@test
def help_exits_0_and_documents_every_command():
    r = run("--help")
    assert r.returncode == 0
    for word in (b"roundtrip", b"check", b"--version", b"Exit status"):
        assert word in r.stdout, word


@test
def version_exits_0():
    r = run("--version")
    assert r.returncode == 0 and re.match(rb"cutile2triton \d+\.\d+\.\d+\n", r.stdout)


@test
def no_arguments_is_a_usage_error():
    r = run()
    assert r.returncode == 2 and b"usage:" in r.stderr


@test
def unknown_command_is_a_usage_error():
    r = run("frobnicate", "x.py")
    assert r.returncode == 2 and b"usage:" in r.stderr


@test
def missing_file_is_an_io_error():
    r = run("roundtrip", os.path.join(DATA, "no_such_file.py"))
    assert r.returncode == 2 and b"cannot open" in r.stderr and r.stdout == b""


@test
def directory_is_an_io_error():
    r = run("roundtrip", DATA)
    assert r.returncode == 2 and r.stdout == b""


@test
def syntax_error_is_located_with_line_and_caret():
    path = os.path.join(DATA, "syntax_error.py")
    r = run("roundtrip", path)
    assert r.returncode == 1 and r.stdout == b""
    lines = r.stderr.decode().splitlines()
    assert re.match(re.escape(path) + r":2:\d+: error: .+", lines[0]), lines
    assert lines[1].strip() == "return x +"
    assert lines[2].strip() == "^"


@test
def check_accepts_valid_input_silently():
    r = run("check", os.path.join(DATA, "small.py"))
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b""


@test
def roundtrip_keeps_comments_and_docstring():
    r = run("roundtrip", os.path.join(DATA, "small.py"))
    assert r.returncode == 0
    with open(os.path.join(DATA, "small.py"), "rb") as f:
        assert r.stdout == f.read()


@test
def stdin_is_read_for_dash():
    r = run("roundtrip", "-", stdin=b"x  =  1\n")
    assert r.returncode == 0 and r.stdout == b"x = 1\n"


@test
def stdin_errors_name_stdin():
    r = run("check", "-", stdin=b"x = (\n")
    assert r.returncode == 1 and r.stderr.startswith(b"<stdin>:1:")


@test
def unwritable_output_is_an_io_error():
    if not os.path.exists("/dev/full"):
        return
    with open("/dev/full", "wb") as full:
        r = subprocess.run([TOOL, "roundtrip", os.path.join(DATA, "small.py")], stdout=full, stderr=subprocess.PIPE)
    assert r.returncode == 2 and b"cannot write" in r.stderr


@test
def input_file_is_never_modified():
    with tempfile.NamedTemporaryFile("wb", suffix=".py", delete=False) as f:
        f.write(b"def f(:\n")
        path = f.name
    try:
        before = os.stat(path).st_mtime_ns
        r = run("roundtrip", path)
        assert r.returncode == 1
        with open(path, "rb") as f:
            assert f.read() == b"def f(:\n"
        assert os.stat(path).st_mtime_ns == before
    finally:
        os.unlink(path)


def main():
    failed = 0
    for fn in TESTS:
        try:
            fn()
        except AssertionError as e:
            failed += 1
            print(f"FAIL {fn.__name__}: {e!r}")
    print(f"cli: {len(TESTS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
