"""Directory mode, --stats and --diff of the command-line tool.

Inputs are small cuTile modules of corpus/cutile/ copied into temporary
folders (the corpus itself is never written).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from plain_runner import Suite, tool, tool_env, BINARY

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = tool()  # $C2T_CLI, or the binary
CORPUS = os.path.join(ROOT, "corpus", "cutile")

SUITE = Suite("directory")
test = SUITE.test


def run(*args, cwd=None):
    return subprocess.run([*TOOL, *args], capture_output=True, cwd=cwd, env=tool_env())


def convert(path):
    r = run(path)
    assert r.returncode == 0, r.stderr
    return r.stdout


BAD = b"import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n    yield 1\n"
PLAIN = b"def helper():\n    return 1\n"


def make_tree(root):
    """root/ops/cutile/{relu.py, vector_add.py, sub/rope.py, bad.py, plain.py, syntax.py}."""
    src = os.path.join(root, "ops", "cutile")
    os.makedirs(os.path.join(src, "sub"))
    shutil.copy(os.path.join(CORPUS, "relu.py"), src)
    shutil.copy(os.path.join(CORPUS, "vector_add.py"), src)
    shutil.copy(os.path.join(CORPUS, "rope.py"), os.path.join(src, "sub"))
    with open(os.path.join(src, "bad.py"), "wb") as f:
        f.write(BAD)
    with open(os.path.join(src, "plain.py"), "wb") as f:
        f.write(PLAIN)
    with open(os.path.join(src, "syntax.py"), "wb") as f:
        f.write(b"def f(:\n")
    return src


def snapshot(root):
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, root)] = f.read()
    return found


@test
def directory_mode_maps_cutile_to_triton():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        before = snapshot(src)
        r = run(os.path.join(tmp, "ops"))
        assert r.returncode == 1, r  # bad.py and syntax.py fail
        err = r.stderr.decode()
        assert err.rstrip().endswith("converted 3, failed 2, skipped 1"), err
        out = os.path.join(tmp, "ops", "triton")
        assert sorted(snapshot(out)) == ["relu.py", "sub/rope.py", "vector_add.py"], sorted(snapshot(out))
        assert snapshot(src) == before, "the inputs must not change"
        with open(os.path.join(out, "relu.py"), "rb") as f:
            assert f.read() == convert(os.path.join(src, "relu.py"))
        # the failures are located errors with codes; failed files write nothing
        assert re.search(r"bad\.py:6:5: error: C2T402: ", err), err
        assert re.search(r"syntax\.py:1:\d+: error: C2T001: ", err), err
        assert not os.path.exists(os.path.join(out, "bad.py"))
        assert not os.path.exists(os.path.join(out, "plain.py"))
        assert "plain.py" not in err  # skipped quietly when stderr is not a terminal


@test
def directory_mode_with_output_folder_mirrors_the_tree():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        for name in ("bad.py", "syntax.py"):
            os.unlink(os.path.join(src, name))
        out = os.path.join(tmp, "generated")
        r = run(src, "-o", out)
        assert r.returncode == 0, r
        assert r.stderr.decode().strip().splitlines()[-1] == "converted 3, failed 0, skipped 1"
        assert sorted(snapshot(out)) == ["relu.py", "sub/rope.py", "vector_add.py"]
        assert not os.path.exists(os.path.join(tmp, "ops", "triton"))


@test
def directory_mode_is_deterministic():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        first = run(src, "-o", os.path.join(tmp, "a"))
        second = run(src, "-o", os.path.join(tmp, "b"))
        assert first.stderr == second.stderr
        assert snapshot(os.path.join(tmp, "a")) == snapshot(os.path.join(tmp, "b"))


@test
def directory_without_cutile_folder_is_explained_per_file():
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "kernels")
        os.makedirs(folder)
        shutil.copy(os.path.join(CORPUS, "relu.py"), folder)
        with open(os.path.join(folder, "plain.py"), "wb") as f:
            f.write(PLAIN)
        r = run(folder)
        err = r.stderr.decode()
        assert r.returncode == 1 and "no folder named 'cutile'" in err and "-o OUTDIR" in err, err
        assert err.rstrip().endswith("converted 0, failed 1, skipped 1"), err
        assert sorted(os.listdir(folder)) == ["plain.py", "relu.py"]


@test
def symlink_loops_and_unreadable_files_do_not_crash():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        os.symlink("..", os.path.join(src, "sub", "loop"))
        os.symlink("missing.py", os.path.join(src, "dangling.py"))
        r = run(src, "-o", os.path.join(tmp, "out"))
        err = r.stderr.decode()
        assert r.returncode == 1, r
        assert "symbolic link loop" in err and "dangling.py" in err, err
        # dangling.py, bad.py, syntax.py fail; the rest go on
        assert err.rstrip().endswith("converted 3, failed 3, skipped 1"), err


@test
def output_folder_equal_to_input_is_refused():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        before = snapshot(src)
        r = run(src, "-o", src)
        assert r.returncode == 2 and snapshot(src) == before, r


@test
def stats_of_one_module():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "relu.py")
        shutil.copy(os.path.join(CORPUS, "relu.py"), path)
        r = run("--stats", path)
        assert r.returncode == 0 and r.stdout == convert(path)
        err = r.stderr.decode()
        assert f"stats: {path}" in err, err
        assert "operations (5): ct.bid 2, ct.load 1, ct.store 1, ct.where 1" in err, err
        assert "memory operations (2): 2 with TMA (descriptor path), 0 pointer path only" in err, err
        assert "notes (1): C2T101 1" in err, err  # @ct.kernel(occupancy=4)


@test
def stats_name_pointer_only_reasons():
    source = b'''import cuda.tile as ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(B,))
    b = ct.load(y, index=(i, 0), shape=(B, B), allow_tma=False)
    ct.store(x, index=(i,), tile=a + ct.sum(b, axis=1))
'''
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.py")
        with open(path, "wb") as f:
            f.write(source)
        r = run("--stats", path)
        err = r.stderr.decode()
        assert r.returncode == 0, err
        assert "0 with TMA (descriptor path), 3 pointer path only (1-D tile 2, allow_tma=False 1)" in err, err
        assert "ct.load 2" in err and "ct.store 1" in err and "ct.sum 1" in err, err


@test
def stats_in_directory_mode_have_a_total():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        r = run("--stats", src, "-o", os.path.join(tmp, "out"))
        err = r.stderr.decode()
        assert err.count("stats: ") == 4, err  # three modules and the total
        total = err[err.index("stats: total"):]
        assert "C2T101" in total and "ct.load" in total, total


@test
def diff_of_a_new_file_is_all_added_and_writes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        path = os.path.join(src, "relu.py")
        r = run("--diff", path)
        assert r.returncode == 0, r
        target = os.path.join(tmp, "ops", "triton", "relu.py")
        assert not os.path.exists(os.path.dirname(target)), "--diff writes nothing"
        lines = r.stdout.decode().splitlines()
        expected = convert(path).decode().splitlines()
        assert lines[0] == "--- /dev/null", lines[:3]
        assert lines[1] == "+++ b/" + target.lstrip("/"), lines[:3]
        assert lines[2] == f"@@ -0,0 +1,{len(expected)} @@", lines[:3]
        assert lines[3:] == ["+" + line for line in expected]


@test
def diff_shows_changed_lines_with_three_lines_of_context():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        path = os.path.join(src, "relu.py")
        out = os.path.join(tmp, "relu_triton.py")
        assert run(path, "-o", out).returncode == 0
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("BLOCK_M = 32", "BLOCK_M = 16"))
        with open(out, "rb") as f:
            before = f.read()
        r = run("--diff", path, "-o", out)
        assert r.returncode == 0, r
        with open(out, "rb") as f:
            assert f.read() == before, "--diff writes nothing"
        diff = r.stdout.decode().splitlines()
        label = out.lstrip("/")
        assert diff[0] == "--- a/" + label and diff[1] == "+++ b/" + label, diff[:2]
        assert re.match(r"@@ -\d+,7 \+\d+,7 @@$", diff[2]), diff[2]
        assert diff[3:] == [diff[3], diff[4], diff[5], "-BLOCK_M = 32", "+BLOCK_M = 16", diff[8], diff[9], diff[10]]
        assert all(line.startswith(" ") for line in diff[3:6] + diff[8:11])
        # the same text as diff -u, headers aside
        gnu = subprocess.run(["diff", "-u", out, "-"], input=convert(path), capture_output=True)
        if gnu.returncode == 1:
            assert gnu.stdout.decode().splitlines()[2:] == diff[2:]


@test
def diff_of_an_unchanged_file_is_empty():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        path = os.path.join(src, "relu.py")
        out = os.path.join(tmp, "relu_triton.py")
        assert run(path, "-o", out).returncode == 0
        r = run("--diff", path, "-o", out)
        assert r.returncode == 0 and r.stdout == b"", r


@test
def diff_in_directory_mode_writes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        r = run("--diff", os.path.join(tmp, "ops"))
        assert r.returncode == 1  # bad.py, syntax.py
        assert not os.path.exists(os.path.join(tmp, "ops", "triton"))
        out = r.stdout.decode()
        assert out.count("--- /dev/null") == 3, out[:200]
        for name in ("relu.py", "sub/rope.py", "vector_add.py"):
            assert "+++ b/" + os.path.join(tmp, "ops", "triton", name).lstrip("/") in out


@test
def diff_without_output_needs_a_cutile_folder():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "relu.py")
        shutil.copy(os.path.join(CORPUS, "relu.py"), path)
        r = run("--diff", path)
        assert r.returncode == 2 and b"-o OUT.py" in r.stderr and r.stdout == b"", r


@test
def output_folder_maps_cutile_to_triton_under_it_too():
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(tmp)
        for name in ("bad.py", "syntax.py"):
            os.unlink(os.path.join(src, name))
        out = os.path.join(tmp, "generated")
        r = run(os.path.join(tmp, "ops"), "-o", out)
        assert r.returncode == 0, r
        assert sorted(snapshot(out)) == ["triton/relu.py", "triton/sub/rope.py", "triton/vector_add.py"], snapshot(out)
        with open(os.path.join(out, "triton", "relu.py"), "rb") as f:
            assert f.read() == convert(os.path.join(src, "relu.py"))


if __name__ == "__main__":
    sys.exit(SUITE.main())
