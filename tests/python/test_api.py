"""The Python API (python/cutile2triton) in the process that imports it, and
`python -m cutile2triton`, judged against the command-line tool
(build/cutile2triton) on the same inputs.

The library runs inside the Python process here: a symbol of the library
that libc or libpython also defines must not be bound to theirs (that
crashed every call), so the shared library exports only the c2t_* entry
points of include/cutile2triton.h.
"""
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "build" / "cutile2triton"
CORPUS = ROOT / "corpus" / "cutile"
HEADER = ROOT / "include" / "cutile2triton.h"
SAMPLES = ["vector_add.py", "relu.py", "rope.py", "softmax_chunked.py"]

sys.path.insert(0, str(ROOT / "python"))
import cutile2triton  # noqa: E402

LOCATED = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): error: C2T\d{3}: ", re.M)
BAD_KERNEL = "import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n    yield 1\n"


def tool(*args, stdin=None):
    return subprocess.run([str(TOOL), *args], input=stdin, capture_output=True)


def python_m(*args, stdin=None, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, "-m", "cutile2triton", *args], input=stdin, capture_output=True,
                          env=env, cwd=cwd)


def sample(name):
    path = CORPUS / name
    if not path.is_file():
        pytest.fail(f"corpus file missing: {path}")
    return path


def test_the_clone_package_is_tested():
    """Also with a version of the package installed: the clone's python/ is the
    one imported (conftest.py, pytest.ini)."""
    assert (ROOT / "python" / "cutile2triton") == Path(cutile2triton.__file__).resolve().parent


# ---- the library's exported symbols


def test_library_exports_only_the_public_entry_points():
    nm = shutil.which("nm")
    assert nm, "nm (binutils) is needed to list the library's dynamic symbols"
    listing = subprocess.run([nm, "-D", "--defined-only", str(cutile2triton.library_path())], capture_output=True,
                             text=True, check=True).stdout
    names = sorted(line.split()[-1] for line in listing.splitlines() if line.strip())
    # the functions declared by the public header (whatever marks them exported)
    declared = sorted(set(re.findall(r"^(?:C2T_API )?[a-z][^(;]*?\b(c2t_\w+)\(", HEADER.read_text(), re.M)))
    assert len(declared) >= 8, f"the declarations of include/cutile2triton.h were not found: {declared}"
    assert names == declared, f"exported but not public: {sorted(set(names) - set(declared))}; " \
                              f"public but not exported: {sorted(set(declared) - set(names))}"


# ---- convert, roundtrip, check_syntax, version in this process


@pytest.mark.parametrize("name", SAMPLES)
def test_convert_str_matches_the_tool(name):
    path = sample(name)
    expected = tool(str(path))
    assert expected.returncode == 0, expected.stderr
    assert cutile2triton.convert(path.read_text(encoding="utf-8"), filename=str(path)) == expected.stdout.decode()


def test_convert_bytes_equals_str():
    path = sample("vector_add.py")
    data = path.read_bytes()
    assert cutile2triton.convert(data) == cutile2triton.convert(data.decode("utf-8"))
    assert "@triton.jit" in cutile2triton.convert(data)


def test_module_without_cuda_tile_is_an_error_as_in_the_tool():
    with pytest.raises(cutile2triton.ConversionError) as caught:
        cutile2triton.convert("x = 1\n", filename="<stdin>")
    expected = tool("-", stdin=b"x = 1\n")
    assert expected.returncode == 1 and expected.stdout == b""
    assert str(caught.value) == expected.stderr.decode().strip()
    assert LOCATED.match(str(caught.value)), str(caught.value)


def test_conversion_error_is_located():
    with pytest.raises(cutile2triton.ConversionError) as caught:
        cutile2triton.convert(BAD_KERNEL, filename="bad.py")
    text = str(caught.value)
    match = LOCATED.search(text)
    assert match and text.startswith(match.group(0)), text
    assert match.group("file") == "bad.py" and match.group("line") == "6"
    assert caught.value.diagnostics.strip() == text
    expected = tool("-", stdin=BAD_KERNEL.encode())
    assert expected.returncode == 1
    assert expected.stderr.decode().replace("<stdin>", "bad.py").strip() == text


def test_syntax_error_raises_located():
    with pytest.raises(cutile2triton.ConversionError) as caught:
        cutile2triton.convert("def f(:\n", filename="s.py")
    assert LOCATED.match(str(caught.value)), str(caught.value)


def test_roundtrip_matches_the_tool():
    path = sample("rope.py")
    expected = tool("roundtrip", str(path))
    assert expected.returncode == 0, expected.stderr
    assert cutile2triton.roundtrip(path.read_bytes(), filename=str(path)) == expected.stdout.decode()
    assert cutile2triton.roundtrip("x  =  [1,\n  2]  # c\n") == "x = [1, 2]  # c\n"


def test_check_syntax():
    assert cutile2triton.check_syntax("def f():\n    return 1\n") is None
    with pytest.raises(cutile2triton.ConversionError) as caught:
        cutile2triton.check_syntax("x = (1,\n", filename="open.py")
    assert LOCATED.match(str(caught.value)) and str(caught.value).startswith("open.py:"), str(caught.value)


def test_version():
    declared = re.search(r'#define C2T_VERSION "([^"]+)"', HEADER.read_text()).group(1)
    assert cutile2triton.version() == declared
    assert declared in tool("--version").stdout.decode()


ROUNDS = 12  # per thread


def many_calls_kernel(count=60):
    """A kernel that binds the arguments of ct.load, ct.store and ct.sum over and
    over: threads that share any state of the argument binding (a static buffer
    of parameter names did) disagree within a few rounds."""
    lines = ["import cuda.tile as ct", "", "", "@ct.kernel", "def k(x, y):", "    i = ct.bid(0)"]
    for n in range(count):
        lines.append(f"    t{n} = ct.load(x, index=(i,), shape=(16,), padding_mode=ct.PaddingMode.ZERO)")
        lines.append(f"    ct.store(y, index=(i,), tile=t{n})")
        lines.append(f"    s{n} = ct.sum(t{n}, axis=0, keepdims=True)")
    return "\n".join(lines) + "\n"


def test_threads_convert_at_once():
    sources = [sample(name).read_text(encoding="utf-8") for name in SAMPLES] + [BAD_KERNEL, many_calls_kernel()]

    def one(source):
        try:
            return "ok", cutile2triton.convert(source)
        except cutile2triton.ConversionError as error:
            return "error", str(error)

    expected = [one(source) for source in sources]
    assert expected[-1][0] == "ok", expected[-1][1]
    results = {}
    barrier = threading.Barrier(8)

    def worker(index):
        barrier.wait()
        results[index] = [one(source) for _ in range(ROUNDS) for source in sources]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8
    for index in range(8):
        assert results[index] == expected * ROUNDS


# ---- python -m cutile2triton: the tool's statuses and outputs


def same_as_tool(args, stdin=None, cwd=None):
    mine = python_m(*args, stdin=stdin, cwd=cwd)
    theirs = subprocess.run([str(TOOL), *args], input=stdin, capture_output=True, cwd=cwd)
    assert (mine.returncode, mine.stdout, mine.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)
    return mine


def test_python_m_file():
    r = same_as_tool([str(sample("vector_add.py"))])
    assert r.returncode == 0 and b"@triton.jit" in r.stdout


def test_python_m_stdin():
    r = same_as_tool(["-"], stdin=sample("relu.py").read_bytes())
    assert r.returncode == 0 and b"@triton.jit" in r.stdout
    r = same_as_tool(["-"], stdin=BAD_KERNEL.encode())
    assert r.returncode == 1 and LOCATED.match(r.stderr.decode()), r.stderr


def test_python_m_usage_and_version():
    assert same_as_tool(["--no-such-option"]).returncode == 2
    assert same_as_tool(["--version"]).returncode == 0
    assert same_as_tool(["roundtrip", str(sample("rope.py"))]).returncode == 0
    assert same_as_tool(["check", str(sample("rope.py"))]).returncode == 0


def test_python_m_directory(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in SAMPLES[:2]:
        shutil.copy(sample(name), src)
    (src / "bad.py").write_text(BAD_KERNEL)
    outputs = {}
    for who, runner in (("python", python_m), ("tool", None)):
        out = tmp_path / f"out_{who}"
        args = ["src", "-o", out.name]
        if runner:
            r = runner(*args, cwd=tmp_path)
        else:
            r = subprocess.run([str(TOOL), *args], capture_output=True, cwd=tmp_path)
        files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        outputs[who] = (r.returncode, r.stdout, r.stderr.replace(out.name.encode(), b"OUT"), files)
    assert outputs["python"] == outputs["tool"]
    status, _, stderr, files = outputs["python"]
    assert status == 1 and b"bad.py" in stderr
    assert sorted(files) == sorted(SAMPLES[:2])
