"""The command-line tool: options, exit statuses, diagnostics, I/O errors."""
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from plain_runner import Suite, tool, tool_env, BINARY

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = tool()  # $C2T_CLI, or the binary
DATA = os.path.join(HERE, "data")

SUITE = Suite("cli")
test = SUITE.test


def run(*args, stdin=None):
    return subprocess.run([*TOOL, *args], input=stdin, capture_output=True, env=tool_env())


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
    # two inputs that do not exist: nothing is converted, the first missing one is named
    r = run("frobnicate", "x.py")
    assert r.returncode == 2 and b"cannot open frobnicate" in r.stderr, r


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
        r = subprocess.run([*TOOL, "roundtrip", os.path.join(DATA, "small.py")], stdout=full, stderr=subprocess.PIPE,
                           env=tool_env())
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
    for word in (b"DIR", b"-o OUTDIR", b"--stats", b"--diff", b"--query", b"--list-ops", b"--markdown", b"C2Tnnn",
                 b"converted N, failed M, skipped K"):
        assert word in r.stdout, word


@test
def bad_options_are_usage_errors():
    for args, says in ((("--frobnicate", "x.py"), b"unknown option '--frobnicate'"),
                       (("a.py", "-o"), b"-o needs a path"),
                       (("a.py", "-o", "x", "-o", "y"), b"-o is given twice")):
        r = run(*args)
        assert r.returncode == 2 and says in r.stderr and b"--help" in r.stderr, (args, r)


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
    names = [n for n in names if n.startswith(("ct.", "Tile.", "Array.", "TiledView.", "RawArrayMemory."))]
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


# ------------------------------------------------ --list-ops and docs/ops.md (issue 8)

# cuda-tile 1.7's cuda.tile.__all__ (155 names), written out from its __init__.py.
CUDA_TILE_1_7_ALL = [
    "launch", "ByTarget", "MemoryOrder", "MemoryScope", "PaddingMode", "RoundingMode", "DType", "bfloat16",
    "bool_", "float4_e2m1fn", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float8_e5m3fnu", "float16",
    "float32", "float64", "foreign_pointer_dtype", "int8", "int16", "int32", "int64", "tfloat32", "uint8",
    "uint16", "uint32", "uint64", "TileCompilerExecutionError", "TileCompilerTimeoutError", "TileError",
    "TileInternalError", "TileRecursionError", "TileStaticAssertionError", "TileStaticEvalError",
    "TileSyntaxError", "TileTypeError", "TileUnsupportedFeatureError", "TileValueError", "StaticException",
    "Array", "ArrayAnnotation", "Constant", "ConstantAnnotation", "IndexedWithInt64", "ListAnnotation",
    "Scalar", "ScalarInt64", "Slice", "Tile", "TiledView", "abs", "add", "arange", "argmax", "argmin",
    "assert_", "assume_divisible_by", "astile", "astype", "atan2", "atomic_add", "atomic_and", "atomic_cas",
    "atomic_max", "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor", "bitwise_and", "bitwise_lshift",
    "bitwise_not", "bitwise_or", "bitwise_rshift", "bitwise_xor", "bid", "bitcast", "broadcast_to", "cat",
    "cdiv", "ceil", "cos", "cosh", "cumprod", "cumsum", "divmod", "ensure_constant", "equal", "exp", "exp2",
    "expand_dims", "extract", "floor", "floordiv", "full", "gather", "greater", "greater_equal", "insert",
    "less", "less_equal", "load", "load_advanced_indexing", "log", "log2", "matmul", "max", "maximum", "min",
    "minimum", "mma", "mma_scaled", "mod", "mul", "negative", "isnan", "not_equal", "num_blocks", "num_tiles",
    "ones", "pack_to_bytes", "permute", "pow", "printf", "print", "prod", "reduce", "reshape", "rsqrt", "scan",
    "scatter", "sin", "sinh", "sqrt", "static_assert", "static_eval", "static_exception", "static_iter",
    "store", "store_advanced_indexing", "sub", "sum", "tan", "tanh", "transpose", "truediv",
    "unpack_from_bytes", "where", "zeros", "grid_dependency_control_wait",
    "grid_dependency_control_launch_dependents", "compiler_timeout", "tune", "function", "kernel",
    "compilation",
]


def list_ops():
    r = run("--list-ops")
    assert r.returncode == 0 and r.stderr == b"", r
    return [line.split("\t") for line in r.stdout.decode().splitlines()]


@test
def list_ops_names_every_public_name_of_cuda_tile_1_7():
    assert len(CUDA_TILE_1_7_ALL) == 155 and len(set(CUDA_TILE_1_7_ALL)) == 155
    rows = list_ops()
    names = [row[0] for row in rows]
    assert len(names) == len(set(names)), "a name is listed twice"
    missing = [name for name in CUDA_TILE_1_7_ALL if "ct." + name not in names]
    assert missing == [], missing
    # every ct.* name listed is a real one (no invented names); the others are method forms
    assert sorted(n[3:] for n in names if n.startswith("ct.")) == sorted(CUDA_TILE_1_7_ALL)
    for name in ("Tile.astype", "Tile.reshape", "Tile.item", "Array.slice", "Array.tiled_view"):
        assert name in names, name
    for row in rows:
        classes = ("ct.", "Tile.", "Array.", "TiledView.", "RawArrayMemory.")
        assert len(row) == 3 and row[1] and row[0].startswith(classes), row
        status = row[2]
        assert status == "converted" or status.startswith(("converted with a note: ", "not supported: ")), row
    status = dict((row[0], row[2]) for row in rows)
    assert status["ct.load"] == "converted" and status["Array.slice"] == "converted"
    assert status["Array.tiled_view"] == "converted" and status["TiledView.load"] == "converted"
    assert status["ct.load_advanced_indexing"] == "converted", status["ct.load_advanced_indexing"]
    assert status["ct.unpack_from_bytes"] == "converted", status["ct.unpack_from_bytes"]
    assert status["ct.compilation"].startswith("not supported: "), status["ct.compilation"]
    assert status["ct.matmul"].startswith("converted with a note: ")
    assert status["ct.mma_scaled"].startswith("converted with a note: "), status["ct.mma_scaled"]
    assert status["ct.float8_e8m0fnu"].startswith("converted with a note: "), status["ct.float8_e8m0fnu"]
    assert status["ct.float8_e5m3fnu"].startswith("not supported: "), status["ct.float8_e5m3fnu"]


@test
def docs_ops_md_is_generated_from_the_table():
    r = run("--list-ops", "--markdown")
    assert r.returncode == 0, r
    with open(os.path.join(ROOT, "docs", "ops.md"), "rb") as f:
        assert f.read() == r.stdout, "docs/ops.md is stale: cutile2triton --list-ops --markdown > docs/ops.md"
    text = r.stdout.decode()
    for name, _, _ in list_ops():
        assert "| `" + name + "` |" in text, name
    assert run("--list-ops", "--frobnicate").returncode == 2


@test
def a_listed_name_without_a_lowering_is_a_located_error_with_its_reason():
    head = b"import cuda.tile as ct\n\n@ct.kernel\ndef k(x, B: ct.Constant[int]):\n"
    cases = [(b"    t = ct.float8_e5m3fnu(x)\n", "ct.float8_e5m3fnu", "not converted yet")]
    for line, name, reason in cases:
        r = run("-", stdin=head + line)
        assert r.returncode == 1 and r.stdout == b"", r
        err = first_error(r)
        assert re.match(r"<stdin>:5:\d+: error: C2T\d\d\d: ", err), err
        assert name + " is not supported by the converter: " in err and reason in err, err
    r = run("-", stdin=head + b"    t = ct.frobnicate(x)\n")
    assert r.returncode == 1 and "ct.frobnicate is not a name of cuda.tile" in first_error(r), first_error(r)


@test
def method_forms_come_from_the_table():
    head = b"import cuda.tile as ct\n\n@ct.kernel\ndef k(x, B: ct.Constant[int]):\n"
    r = run("-", stdin=head + b"    t = ct.load(x, (0,), (B,))\n    ct.store(x, (0,), t.reshape((B,)).astype(ct.float16))\n")
    assert r.returncode == 0, r
    r = run("-", stdin=head + b"    t = ct.load(x, (0,), (B,))\n    ct.store(x, (0,), t.exp())\n")
    assert r.returncode == 1 and "method 'exp' cannot be converted" in first_error(r), first_error(r)


# ------------------------------------------------ writing outputs (issue 7)

CORPUS = os.path.join(ROOT, "corpus", "cutile")
RELU = os.path.join(CORPUS, "relu.py")
USES_BINARY = TOOL == [BINARY]


def converted(path=RELU):
    r = run(path)
    assert r.returncode == 0, r
    return r.stdout


def big_module(folder, megabytes=40):
    """relu.py with a large string constant: the output takes a while to write."""
    path = os.path.join(folder, "big.py")
    with open(RELU, "rb") as f:
        text = f.read()
    with open(path, "wb") as f:
        f.write(text + b'\nDATA = "' + b"x" * (megabytes << 20) + b'"\n')
    return path


def stray(folder, keep):
    return sorted(set(os.listdir(folder)) - set(keep))


@test
def concurrent_writers_to_the_same_output_always_leave_a_whole_file():
    with tempfile.TemporaryDirectory() as tmp:
        source = big_module(tmp, 2)
        expected = converted(source)
        out = os.path.join(tmp, "out.py")
        for attempt in range(40):
            pair = [subprocess.Popen([*TOOL, source, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=tool_env()) for _ in range(2)]
            results = [(p.wait(), p.stdout.read(), p.stderr.read()) for p in pair]
            for p in pair:
                p.stdout.close()
                p.stderr.close()
            assert all(code == 0 and err == b"" for code, _, err in results), (attempt, results)
            with open(out, "rb") as f:
                assert f.read() == expected, attempt
            assert stray(tmp, ["big.py", "out.py"]) == [], (attempt, os.listdir(tmp))


@test
def planted_symlinks_at_temporary_names_are_never_followed():
    with tempfile.TemporaryDirectory() as tmp:
        victim = os.path.join(tmp, "victim.txt")
        with open(victim, "wb") as f:
            f.write(b"precious\n")
        folder = os.path.join(tmp, "work")
        os.mkdir(folder)
        names = ["out.py.c2t-tmp", ".out.py.c2t-tmp", "out.py.tmp", ".out.py.tmp", "out.py~", ".out.py.swp",
                 "out.py.new", ".out.py.c2t-tmp.tmp"]
        for name in names:
            os.symlink(victim, os.path.join(folder, name))
        out = os.path.join(folder, "out.py")
        for _ in range(2):  # a new file, then a replacement
            r = run(RELU, "-o", out)
            assert r.returncode == 0, r
            with open(out, "rb") as f:
                assert f.read() == converted()
            assert not os.path.islink(out)
        with open(victim, "rb") as f:
            assert f.read() == b"precious\n", "written through a planted link"
        assert all(os.path.islink(os.path.join(folder, n)) for n in names)
        assert stray(folder, names + ["out.py"]) == [], os.listdir(folder)


def catch_writing(folder, proc):
    """Stop `proc` while its temporary file exists in `folder`; the name, or
    None when the writing was over before it could be stopped."""
    while proc.poll() is None:
        names = [n for n in os.listdir(folder) if ".c2t-" in n]
        if names:
            os.kill(proc.pid, signal.SIGSTOP)
            if os.path.exists(os.path.join(folder, names[0])):
                return names[0]
            os.kill(proc.pid, signal.SIGCONT)
            return None
    return None


def _default_signals():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@test
def sigint_or_sigterm_while_writing_leaves_no_temporary_file():
    # The process is stopped (SIGSTOP) at a moment its temporary file exists,
    # so the signal surely lands inside the write-to-rename window.
    with tempfile.TemporaryDirectory() as tmp:
        source = big_module(tmp)
        out = os.path.join(tmp, "out.py")
        for sig in (signal.SIGINT, signal.SIGTERM):
            caught = 0
            for attempt in range(40):
                with open(out, "wb") as f:
                    f.write(b"OLD\n")
                # the signals' default actions in the child: a shell without job control starts
                # background commands with SIGINT ignored, which the tool then keeps ignoring
                proc = subprocess.Popen([*TOOL, source, "-o", out], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, env=tool_env(), preexec_fn=_default_signals)
                name = catch_writing(tmp, proc)
                if name:
                    os.kill(proc.pid, sig)
                    os.kill(proc.pid, signal.SIGCONT)
                err = proc.communicate()[1]
                proc.stderr.close()
                if name:
                    caught += 1
                    assert proc.returncode != 0, (sig, err)
                    with open(out, "rb") as f:
                        assert f.read() == b"OLD\n", "the old output must stay whole"
                assert stray(tmp, ["big.py", "out.py"]) == [], (sig, os.listdir(tmp))
                if caught == 3:
                    break
            assert caught == 3, (sig, caught)


@test
def a_write_stopped_by_the_file_size_limit_leaves_no_temporary_file():
    # RLIMIT_FSIZE: the kernel stops the write half-way, deterministically
    # (SIGXFSZ for the binary; Python ignores SIGXFSZ, so python -m sees EFBIG).
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))

    with tempfile.TemporaryDirectory() as tmp:
        source = big_module(tmp, 1)
        out = os.path.join(tmp, "out.py")
        with open(out, "wb") as f:
            f.write(b"OLD\n")
        r = subprocess.run([*TOOL, source, "-o", out], capture_output=True, preexec_fn=limit, env=tool_env())
        assert r.returncode in (-signal.SIGXFSZ, 2), r
        if r.returncode == 2:
            assert b"cannot write" in r.stderr, r
        with open(out, "rb") as f:
            assert f.read() == b"OLD\n"
        assert stray(tmp, ["big.py", "out.py"]) == [], os.listdir(tmp)


@test
def a_read_only_output_is_refused_and_kept():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.py")
        with open(out, "wb") as f:
            f.write(b"OLD\n")
        os.chmod(out, 0o444)
        r = run(RELU, "-o", out)
        assert r.returncode == 2 and b"read-only" in r.stderr and r.stdout == b"", r
        with open(out, "rb") as f:
            assert f.read() == b"OLD\n"
        assert os.stat(out).st_mode & 0o777 == 0o444
        assert os.listdir(tmp) == ["out.py"]


@test
def a_replaced_output_keeps_its_mode():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.py")
        for mode in (0o640, 0o755):
            with open(out, "wb") as f:
                f.write(b"OLD\n")
            os.chmod(out, mode)
            assert run(RELU, "-o", out).returncode == 0
            assert os.stat(out).st_mode & 0o7777 == mode, oct(os.stat(out).st_mode)
            with open(out, "rb") as f:
                assert f.read() == converted()


@test
def a_symlinked_output_writes_the_file_it_points_to():
    with tempfile.TemporaryDirectory() as tmp:
        real_folder = os.path.join(tmp, "real")
        os.mkdir(real_folder)
        real = os.path.join(real_folder, "target.py")
        with open(real, "wb") as f:
            f.write(b"OLD\n")
        os.chmod(real, 0o600)
        link = os.path.join(tmp, "out.py")
        os.symlink(real, link)
        r = run(RELU, "-o", link)
        assert r.returncode == 0, r
        assert os.path.islink(link) and os.readlink(link) == real
        with open(real, "rb") as f:
            assert f.read() == converted()
        assert os.stat(real).st_mode & 0o777 == 0o600
        assert sorted(os.listdir(real_folder)) == ["target.py"]
        # a link to a missing file is refused
        dangling = os.path.join(tmp, "dangling.py")
        os.symlink(os.path.join(tmp, "missing", "x.py"), dangling)
        r = run(RELU, "-o", dangling)
        assert r.returncode == 2 and b"symbolic link" in r.stderr, r
        assert os.path.islink(dangling)


@test
def an_output_in_a_missing_folder_is_an_io_error():
    with tempfile.TemporaryDirectory() as tmp:
        r = run(RELU, "-o", os.path.join(tmp, "missing", "out.py"))
        assert r.returncode == 2 and b"cannot write" in r.stderr, r
        assert os.listdir(tmp) == []


# ------------------------------------------------------- bounded reading

LIMIT = 64 * 1024 * 1024


def limit_message(name, size):
    return f"{name}:1:1: error: C2T002: too many bytes in one input: {size} (limit is {LIMIT})\n".encode()


def stream_limit_message(name):
    return f"{name}:1:1: error: C2T002: too many bytes in one input (limit is {LIMIT})\n    \n    ^\n".encode()


@test
def dev_zero_is_refused_at_the_limit_quickly():
    def bounded():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB: the old reader needed 2

    start = time.monotonic()
    r = subprocess.run([*TOOL, "/dev/zero"], capture_output=True, timeout=60, env=tool_env(),
                       preexec_fn=bounded if USES_BINARY else None)
    assert time.monotonic() - start < 20
    assert r.returncode == 1 and r.stdout == b"", r
    assert r.stderr == stream_limit_message("/dev/zero"), r.stderr[:200]


@test
def endless_standard_input_is_refused_at_the_limit():
    proc = subprocess.Popen([*TOOL, "check", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=tool_env())
    sent = 0
    chunk = b"#" * (1 << 20)
    try:
        while sent < 4 * LIMIT:  # the tool stops reading after LIMIT + 1 bytes
            proc.stdin.write(chunk)
            sent += len(chunk)
    except BrokenPipeError:
        pass
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    err = proc.stderr.read()
    proc.stdout.read()
    proc.wait(timeout=60)
    proc.stdout.close()
    proc.stderr.close()
    assert sent < 4 * LIMIT, "the tool read on past the limit"
    assert proc.returncode == 1 and err == stream_limit_message("<stdin>"), err[:200]


@test
def the_input_limit_agrees_with_the_library():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.py")
        line = b"#" * 1023 + b"\n"
        with open(path, "wb") as f:
            f.write(line * (LIMIT // len(line)))
        r = run("check", path)  # exactly at the limit: read whole and accepted by the library
        assert r.returncode == 0 and r.stderr == b"", r.stderr[:300]
        with open(path, "ab") as f:
            f.write(b"\n")
        for args, name in (((path,), path), (("check", path), path), (("-",), "<stdin>")):
            if args == ("-",):
                with open(path, "rb") as f:
                    r = subprocess.run([*TOOL, "-"], stdin=f, capture_output=True, env=tool_env())
            else:
                r = run(*args)
            assert r.returncode == 1 and r.stdout == b"", (args, r.stderr[:300])
            # the library's own words for a file of LIMIT + 1 bytes (src/api.c)
            assert r.stderr == limit_message(name, LIMIT + 1) + b"    \n    ^\n", (args, r.stderr[:300])
        with open(path, "rb") as f:  # through a pipe the size is not known in advance
            data = f.read()
        r = run("check", "-", stdin=data)
        assert r.returncode == 1 and r.stderr == stream_limit_message("<stdin>"), r.stderr


# --------------------------------------------------- conventions (issue 7)

@test
def dash_output_is_standard_output():
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([*TOOL, RELU, "-o", "-"], capture_output=True, cwd=tmp, env=tool_env())
        assert r.returncode == 0 and r.stdout == converted(), r
        assert os.listdir(tmp) == [], "no file named '-'"


@test
def an_unknown_option_is_named_in_one_line():
    r = run(RELU, "--frobnicate")
    lines = r.stderr.decode().splitlines()
    assert r.returncode == 2 and r.stdout == b"", r
    assert lines == ["cutile2triton: unknown option '--frobnicate'", "try 'cutile2triton --help' for the usage"], lines


@test
def roundtrip_and_check_without_a_file_say_so():
    for command in ("roundtrip", "check"):
        r = run(command)
        assert r.returncode == 2 and f"{command} needs a FILE".encode() in r.stderr, r
        assert b"cannot open" not in r.stderr
        r = run(command, "a.py", "b.py")
        assert r.returncode == 2 and f"{command} takes one FILE".encode() in r.stderr, r


@test
def output_folder_with_one_input_writes_under_the_input_name():
    with tempfile.TemporaryDirectory() as tmp:
        for out in (tmp, tmp + "/"):
            r = run(RELU, "-o", out)
            assert r.returncode == 0 and r.stdout == b"", r
            with open(os.path.join(tmp, "relu.py"), "rb") as f:
                assert f.read() == converted()
        r = run(RELU, "-o", os.path.join(tmp, "missing") + "/")
        assert r.returncode == 2 and b"no such folder" in r.stderr, r
        with open(RELU, "rb") as f:
            r = subprocess.run([*TOOL, "-", "-o", tmp], stdin=f, capture_output=True, env=tool_env())
        assert r.returncode == 2 and b"is a folder" in r.stderr, r
        assert sorted(os.listdir(tmp)) == ["relu.py"]


def cutile_copy(tmp, name="relu.py", text=None):
    folder = os.path.join(tmp, "ops", "cutile")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if text is None:
        shutil.copy(os.path.join(CORPUS, name), path)
    else:
        with open(path, "wb") as f:
            f.write(text)
    return path


@test
def check_exits_1_when_a_file_would_change_and_writes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        path = cutile_copy(tmp)
        target = os.path.join(tmp, "ops", "triton", "relu.py")
        r = run("--check", path)
        assert r.returncode == 1 and b"would create " + target.encode() in r.stderr and r.stdout == b"", r
        assert not os.path.exists(os.path.dirname(target))
        out = os.path.join(tmp, "out.py")
        r = run("--check", path, "-o", out)
        assert r.returncode == 1 and not os.path.exists(out), r
        assert run(path, "-o", out).returncode == 0
        r = run("--check", path, "-o", out)
        assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"", r
        with open(out, "ab") as f:
            f.write(b"# edited\n")
        before = os.stat(out).st_mtime_ns
        r = run("--check", path, "-o", out)
        assert r.returncode == 1 and b"would change " + out.encode() in r.stderr, r
        r = run("--check", "--diff", path, "-o", out)
        assert r.returncode == 1 and b"-# edited" in r.stdout, r
        r = run("--check", "--quiet", path, "-o", out)
        assert r.returncode == 1 and r.stderr == b"", r
        assert os.stat(out).st_mtime_ns == before
        r = run("--check", path, "-o", "-")
        assert r.returncode == 2, r


@test
def check_in_directory_mode():
    with tempfile.TemporaryDirectory() as tmp:
        cutile_copy(tmp)
        cutile_copy(tmp, "vector_add.py")
        ops = os.path.join(tmp, "ops")
        r = run("--check", ops)
        assert r.returncode == 1 and r.stderr.decode().endswith("converted 2, failed 0, skipped 0, would change 2\n"), r
        assert not os.path.exists(os.path.join(ops, "triton"))
        assert run(ops).returncode == 0
        r = run("--check", ops)
        assert r.returncode == 0 and r.stderr.decode().endswith("would change 0\n"), r


@test
def several_inputs_each_get_their_own_output():
    with tempfile.TemporaryDirectory() as tmp:
        relu = cutile_copy(tmp)
        add = cutile_copy(tmp, "vector_add.py")
        bad = cutile_copy(tmp, "bad.py", b"import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n    yield 1\n")
        plain = cutile_copy(tmp, "plain.py", b"x = 1\n")
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        r = run(relu, bad, plain, add, "-o", out)
        err = r.stderr.decode()
        assert r.returncode == 1, r  # bad.py failed; the others went on
        assert re.search(r"bad\.py:6:5: error: C2T402: ", err) and err.endswith("converted 2, failed 1, skipped 1\n"), err
        assert sorted(os.listdir(out)) == ["relu.py", "vector_add.py"]
        with open(os.path.join(out, "vector_add.py"), "rb") as f:
            assert f.read() == converted(add)
        # without -o: each to its /cutile/ -> /triton/ path
        r = run(relu, add, "--quiet")
        assert r.returncode == 0 and r.stderr == b"", r
        assert sorted(os.listdir(os.path.join(tmp, "ops", "triton"))) == ["relu.py", "vector_add.py"]
        # inputs are checked before anything is converted
        r = run(relu, os.path.join(tmp, "missing.py"), "-o", os.path.join(tmp, "new"))
        assert r.returncode == 2 and b"cannot open" in r.stderr, r
        for args in ((relu, add, "-o", os.path.join(out, "relu.py")), (relu, add, "-o", "-"), (relu, "-"),
                     (relu, tmp)):
            r = run(*args)
            assert r.returncode == 2 and b"--help" in r.stderr, (args, r)
        # two inputs with one output name: the second is not converted
        other = os.path.join(tmp, "other")
        os.mkdir(other)
        shutil.copy(RELU, other)
        r = run(relu, os.path.join(other, "relu.py"), "-o", out)
        assert r.returncode == 1 and b"is the output of" in r.stderr, r


@test
def double_dash_ends_the_options():
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(RELU, os.path.join(tmp, "-relu.py"))
        r = subprocess.run([*TOOL, "--", "-relu.py"], capture_output=True, cwd=tmp, env=tool_env())
        assert r.returncode == 0 and r.stdout == converted(), r
        r = subprocess.run([*TOOL, "roundtrip", "--", "-relu.py"], capture_output=True, cwd=tmp, env=tool_env())
        assert r.returncode == 0 and r.stdout.startswith(b'"""'), r
        r = subprocess.run([*TOOL, "-relu.py"], capture_output=True, cwd=tmp, env=tool_env())
        assert r.returncode == 2 and b"unknown option '-relu.py'" in r.stderr, r


@test
def quiet_prints_only_errors():
    with tempfile.TemporaryDirectory() as tmp:
        cutile_copy(tmp)
        cutile_copy(tmp, "bad.py", b"import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n    yield 1\n")
        ops = os.path.join(tmp, "ops")
        r = run(ops)
        assert b"converted 1, failed 1, skipped 0" in r.stderr, r
        r = run("--quiet", ops)
        err = r.stderr.decode()
        assert r.returncode == 1 and "converted" not in err and "bad.py:6:5: error: C2T402" in err, err


def run_on_terminal(args, env_extra):
    """Run the tool with standard error on a pseudo-terminal."""
    master, slave = pty.openpty()
    env = tool_env()
    env.pop("NO_COLOR", None)
    env.update(env_extra)
    proc = subprocess.Popen([*TOOL, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                            env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    proc.wait()
    return proc.returncode, b"".join(chunks)


@test
def diagnostics_are_coloured_on_a_terminal_unless_no_color():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bad.py")
        with open(path, "wb") as f:
            f.write(b"x = (\n")
        code, err = run_on_terminal(["check", path], {})
        assert code == 1 and b"\x1b[1;31merror:\x1b[0m C2T001: " in err and b"\x1b[1m" + path.encode() in err, err
        code, err = run_on_terminal(["check", path], {"NO_COLOR": "1"})
        assert code == 1 and b"\x1b[" not in err and b": error: C2T001: " in err, err
        code, err = run_on_terminal(["check", path], {"NO_COLOR": ""})  # empty: as if unset
        assert b"\x1b[1;31merror:" in err, err
        r = run("check", path)  # not a terminal
        assert r.returncode == 1 and b"\x1b[" not in r.stderr, r


HALF_SUM = b'''import cuda.tile as ct


@ct.kernel
def k(x, B: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(B,))
    s = ct.sum(a.astype(ct.float16))
    ct.store(x, index=(i,), tile=a + s)
'''


@test
def werror_notes_makes_the_notes_fatal():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "half.py")
        with open(path, "wb") as f:
            f.write(HALF_SUM)
        r = run(path)
        assert r.returncode == 0 and b"# C2T302:" in r.stdout, r
        out = os.path.join(tmp, "out.py")
        r = run("--werror-notes", path, "-o", out)
        err = r.stderr.decode()
        assert r.returncode == 1 and r.stdout == b"" and not os.path.exists(out), r
        assert re.match(re.escape(path) + r":8:5: error: C2T302: .*--werror-notes", err), err
        # a note on the launcher: C2T101 at the kernel hint
        r = run("--werror-notes", RELU, "-o", out)
        err = r.stderr.decode()
        assert r.returncode == 1 and not os.path.exists(out), r
        assert re.match(re.escape(RELU) + r":\d+:\d+: error: C2T101: occupancy=4 ", err), err
        with open(RELU) as f:
            line = int(err.split(":")[1])
            assert "occupancy=4" in f.read().splitlines()[line - 1]


@test
def help_and_readme_document_every_option():
    r = run("--help")
    usage = r.stdout.decode()
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    section = readme[readme.index("## Command line"):]
    section = section[:section.index("\n## ", 1)]
    for option in ("-o -", "--check", "--quiet", "--werror-notes", "--no-autotune", "--no-loop-split", "NO_COLOR", "--",
                   "--diff", "--stats"):
        assert option in usage, option
        assert option in section, option
    assert "torch==2.13.0" in readme[:readme.index("## Command line")], "the quick start pins torch"

IN_PROCESS = r"""
import ctypes, os, signal, sys, threading
import cutile2triton._native as native
libc = ctypes.CDLL(None, use_errno=True)

def handler(sig):
    buf = ctypes.create_string_buffer(256)
    assert libc.sigaction(sig, None, buf) == 0
    return buf.raw[:8]

signal.signal(signal.SIGTERM, lambda *a: None)  # a Python handler, as a program may have
sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGXFSZ)
before = [handler(s) for s in sigs]
relu, folder = sys.argv[1], sys.argv[2]
codes = []
def convert(i):
    codes.append(native.main(["cutile2triton", relu, "-o", os.path.join(folder, "out%d.py" % (i % 3))]))
threads = [threading.Thread(target=convert, args=(i,)) for i in range(12)]
for t in threads: t.start()
for t in threads: t.join()
after = [handler(s) for s in sigs]
print(codes, before == after, sorted(os.listdir(folder)))
"""


@test
def c2t_main_in_process_restores_the_signal_handlers_and_threads_write_whole_files():
    # always in-process through the Python package (ctypes), whatever $C2T_CLI is
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        r = subprocess.run([sys.executable, "-c", IN_PROCESS, RELU, tmp], capture_output=True, env=env, timeout=120)
        assert r.returncode == 0, r
        assert r.stdout.decode().strip() == "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] True ['out0.py', 'out1.py', 'out2.py']", r
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name), "rb") as f:
                assert f.read() == converted(), name


if __name__ == "__main__":
    sys.exit(SUITE.main())
