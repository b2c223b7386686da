"""The command-line tool: options, exit statuses, diagnostics, I/O errors."""
import os
import re
import subprocess
import sys
import tempfile

from plain_runner import Suite

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "build", "cutile2triton")
DATA = os.path.join(HERE, "data")

SUITE = Suite("cli")
test = SUITE.test


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


@test
def help_documents_the_new_options():
    r = run("--help")
    for word in (b"DIR", b"-o OUTDIR", b"--stats", b"--diff", b"--query", b"C2Tnnn", b"converted N, failed M, skipped K"):
        assert word in r.stdout, word


@test
def bad_options_are_usage_errors():
    for args in (("--frobnicate", "x.py"), ("a.py", "b.py"), ("a.py", "-o"), ("a.py", "-o", "x", "-o", "y")):
        r = run(*args)
        assert r.returncode == 2 and b"usage:" in r.stderr, args


def first_error(r):
    return r.stderr.decode("utf-8", "replace").splitlines()[0]


@test
def every_error_carries_a_code_after_the_prefix():
    cases = [
        (b"x = (\n", "C2T001"),                          # syntax
        (b"x = 1\n" + b"(" * 300 + b"\n", "C2T002"),    # limit: nested brackets
        (b"x = '\xff'\n", "C2T003"),                    # encoding: invalid UTF-8
        (b"x = 1\0\n", "C2T003"),                       # encoding: NUL byte
        (b"import os\n", "C2T400"),                      # not a cuTile module
        (b"from cuda.tile import *\n", "C2T401"),        # module level
        (b"import cuda.tile as ct\n\n@ct.kernel\ndef k(x):\n    yield 1\n", "C2T402"),  # tile code
        (b"import cuda.tile as ct\n\n@ct.kernel(frob=1)\ndef k(x):\n    pass\n", "C2T402"),
        (b"import cuda.tile as ct\n\n@ct.kernel\ndef k(x):\n    pass\n\ndef run(s):\n    ct.launch(s, (1,), k)\n",
         "C2T403"),                                        # host code
    ]
    for source, code in cases:
        r = run("-", stdin=source)
        assert r.returncode == 1 and r.stdout == b"", (source, r)
        assert re.match(r"<stdin>:\d+:\d+: error: " + code + r": \S", first_error(r)), (source, first_error(r))
    r = run("check", "-", stdin=b"x = (\n")
    assert re.match(r"<stdin>:1:\d+: error: C2T001: ", first_error(r)), first_error(r)


@test
def query_prints_translation_and_a_converted_example():
    for name in ("ct.load", "load", "cuda.tile.load"):
        r = run("--query", name)
        out = r.stdout.decode()
        assert r.returncode == 0 and out.startswith("ct.load\n"), (name, r.stderr)
        assert "cuTile:" in out and "ct.load(x" in out and "@triton.jit" in out and "tl.make_tensor_descriptor" in out
    r = run("--query", "ct.gather")
    assert r.returncode == 0 and b"tl.load(" in r.stdout, r
    r = run("--query", "Tile.astype")
    assert r.returncode == 0 and b".to(tl.float16)" in r.stdout, r
    assert run("--query", "astype").stdout == r.stdout


@test
def every_query_example_converts():
    names = run("--query", "no.such.op").stderr.decode().split()
    names = [n for n in names if n.startswith(("ct.", "Tile.", "Array."))]
    assert len(names) >= 20, names
    for name in names:
        r = run("--query", name)
        assert r.returncode == 0 and b"@triton.jit" in r.stdout, (name, r.stderr)


@test
def unknown_query_lists_known_names():
    r = run("--query", "ct.frobnicate")
    assert r.returncode == 2 and r.stdout == b"", r
    err = r.stderr.decode()
    assert "ct.frobnicate" in err and "ct.load" in err and "Tile.astype" in err, err


if __name__ == "__main__":
    sys.exit(SUITE.main())
