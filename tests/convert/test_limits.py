"""The conversion's explicit limits (README.md, "Explicit limits"; issue 7,
defect 8): at each limit a module converts, one past it the conversion ends
in a located C2T002 error naming the limit. The table of names bound to the
cuda.tile module used to wrap at 16 entries (`ct_modules[count++ % 16]`):
an out-of-bounds write and a silently unconverted module."""

import re

import pytest

MAX_KERNELS = 4096
MAX_FUNCTIONS = 16384
MAX_NAMES = 16384
MAX_CT_MODULE_NAMES = 64

KERNEL = ("@ct.kernel\ndef k{i}(x):\n"
          "    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(16,)))\n")


def module(kernels=1, functions=0, names=0, ct_names=0):
    parts = ["import cuda.tile as ct\n"]
    parts += [f"from cuda import tile as t{i}\n" for i in range(ct_names)]
    parts += [f"N{i} = {i}\n" for i in range(names)]
    parts += [KERNEL.format(i=i) for i in range(kernels)]
    parts += [f"def h{i}():\n    pass\n" for i in range(functions)]
    return "".join(parts)


CASES = {
    "kernels": (dict(kernels=MAX_KERNELS), dict(kernels=MAX_KERNELS + 1),
                f"too many kernels in one module (limit is {MAX_KERNELS})"),
    "functions": (dict(functions=MAX_FUNCTIONS - 1), dict(functions=MAX_FUNCTIONS),
                  f"too many module-level functions (limit is {MAX_FUNCTIONS})"),
    # `import cuda.tile as ct` binds no name of its own: N0.. fill the table
    "names": (dict(names=MAX_NAMES), dict(names=MAX_NAMES + 1),
              f"too many module-level names (limit is {MAX_NAMES})"),
    "cuda.tile names": (dict(ct_names=MAX_CT_MODULE_NAMES - 1), dict(ct_names=MAX_CT_MODULE_NAMES),
                        f"too many names bound to the cuda.tile module (limit is {MAX_CT_MODULE_NAMES})"),
}


@pytest.mark.parametrize("what", list(CASES))
def test_at_the_limit_converts(convert_text, what):
    at, _, _ = CASES[what]
    assert "@triton.jit" in convert_text(module(**at))


@pytest.mark.parametrize("what", list(CASES))
def test_past_the_limit_is_a_located_error(convert_error, what):
    _, past, message = CASES[what]
    found = convert_error(module(**past))
    assert found == f"C2T002: {message}", found


def test_seventeen_names_for_cuda_tile_all_work(convert_text):
    """Each of 17 names of the module is cuda.tile (the 17th used to overwrite the 1st)."""
    source = module(kernels=0, ct_names=17) + (
        "@t16.kernel\ndef k(x):\n"
        "    t0.store(x, index=(t16.bid(0),), tile=t0.load(x, index=(t16.bid(0),), shape=(16,)))\n")
    out = convert_text(source)
    assert re.search(r"^@triton\.jit\ndef k\(", out, re.M), out


# ---------------------------------------------------------------- issue 8: one report for every limit

def loop_assigning(count):
    """A loop assigning `count` other names before `i = i + 1`, then a static check of `i`."""
    body = "".join(f"        d{j} = {j}\n" for j in range(count))
    return ("import cuda.tile as ct\n\n@ct.kernel\ndef k(x, y, n: int):\n"
            "    t = ct.load(x, index=(ct.bid(0),), shape=(16,))\n"
            "    i = 0\n"
            "    for r in range(n):\n"
            f"{body}        i = i + 1\n"
            "    ct.static_assert(i == 0)\n"
            "    ct.store(y, index=(ct.bid(0),), tile=t + i)\n")


@pytest.mark.parametrize("count", [3, 300])
def test_a_name_assigned_in_a_loop_is_not_a_constant_after_it(convert_error, count):
    """Names past the 256th a loop assigns were dropped: `i` stayed the constant 0 and the
    static_assert passed silently on a value the loop changes."""
    found = convert_error(loop_assigning(count))
    assert found.startswith("C2T402: ct.static_assert() needs a compile-time condition"), found


def test_extract_split_view_past_the_limit_is_a_located_error(convert_error):
    """bit_axis[64] was written past its end (4 axes of 2**20 sub-tiles: 80 bits) before the check."""
    source = ("import cuda.tile as ct\n\n@ct.kernel\ndef k(x, y):\n"
              "    t = ct.full((1048576, 1048576, 1048576, 1048576), 0, dtype=ct.float32)\n"
              "    s = ct.extract(t, index=(1, 1, 1, 1), shape=(1, 1, 1, 1))\n"
              "    ct.store(y, index=(0, 0, 0, 0), tile=s)\n")
    found = convert_error(source)
    assert found == "C2T002: too many axes in the split view of ct.extract() with constant indices (limit is 16)", found


def test_load_index_past_the_tile_rank_limit(convert_error):
    # 9 dimensions: past MAX_TILE_RANK (8, as a tile's); 6 to 8 convert (tests/compile)
    source = ("import cuda.tile as ct\n\n@ct.kernel\ndef k(x, y):\n"
              "    t = ct.load(x, index=(0, 0, 0, 0, 0, 0, 0, 0, 0), shape=(1, 1, 1, 1, 1, 1, 1, 1, 1))\n"
              "    ct.store(y, index=(0, 0, 0, 0, 0, 0, 0, 0, 0), tile=t)\n")
    found = convert_error(source)
    assert found == ("C2T002: too many entries in an index, shape or order tuple of a memory operation "
                     "(limit is 8)"), found


def test_local_names_past_the_limit(convert_error):
    names = "".join(f"    v{j} = {j}\n" for j in range(1025))
    source = ("import cuda.tile as ct\n\n@ct.kernel\ndef k(x):\n" + names +
              "    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(16,)))\n")
    assert convert_error(source) == "C2T002: too many local names in one function (limit is 1024)"


def test_names_assigned_from_names_do_not_make_the_tfloat32_scan_exponential(convert_text):
    # the scan for staged tfloat32 operands follows a product's right operand back through the
    # names it is assigned from; 30 names each assigned 20 times from the three before took
    # exponential time (36 s at 24 names) before the scan's step budget (C2T_TF32_SCAN_STEPS)
    lines = ["import cuda.tile as ct", "", "@ct.kernel", "def k(x, y, out, T: ct.Constant[int]):",
             "    a = ct.load(x, index=(0, 0), shape=(T, T))", "    n0 = ct.load(y, index=(0, 0), shape=(T, T))"]
    for i in range(1, 30):
        lines += [f"    n{i} = n{max(0, i - 1 - j % 3)}" for j in range(20)]
    lines.append("    ct.store(out, index=(0, 0), tile=ct.mma(a.astype(ct.tfloat32), ct.astype(n29, ct.tfloat32), "
                 "ct.zeros((T, T), dtype=ct.float32)))")
    assert "@triton.jit" in convert_text("\n".join(lines) + "\n")  # the fixture's subprocess stops at 60 s


def test_a_name_joined_after_each_of_many_ifs_is_not_quadratic(convert_text):
    # each `if` whose branches both rebind u to a full tile (row sums before it) binds u_N; the
    # search for a free N scanned the function once per number taken: 1000 such ifs took 103 s
    lines = ["import cuda.tile as ct", "", "@ct.kernel", "def k(x, y, c: int):",
             "    t = ct.load(x, index=(0, 0), shape=(16, 16))", "    u = ct.sum(t, axis=1, keepdims=True)"]
    for i in range(900):
        lines += [f"    if c == {i}:", f"        u = t * {i}.0", "    else:", f"        u = t + {i}.0",
                  "    u = ct.sum(u, axis=1, keepdims=True)"]
    lines.append("    ct.store(y, index=(0, 0), tile=t * 0.0 + u)")
    text = convert_text("\n".join(lines) + "\n")  # the fixture's subprocess stops at 60 s
    assert "        u_900 = t + 899.0\n    u = u_900\n" in text, text[-2000:]


def test_tuples_of_tuples_of_a_parameter_are_not_followed_level_by_level(convert_error):
    # `b = (x, x)` / `x = (b, b)` repeated: following each display into a scan of the body, and the
    # displays that scan finds, grew as a power of the body's length (40 pairs did not end in 60 s)
    lines = ["import cuda.tile as ct", "", "@ct.kernel", "def k(x, y):"]
    for i in range(40):
        lines += ["    b = (x, x)", "    x = (b, b)"]
    lines.append("    ct.store(y, (0,), ct.load(x[0][0], (0,), (16,)))")
    message = convert_error("\n".join(lines) + "\n")  # the fixture's subprocess stops at 60 s
    # x[0][0] is a tuple 78 levels deep: past CODED_SCAN_MAX_DEPTH, said so (it read "of a
    # float4_e2m1fn tile", what such a tuple is taken to hold)
    assert "ct.load() of tuples nested more than 16 levels deep cannot be converted" in message, message


# ------------------------------------------------ the README's table and the sources agree

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFINE = re.compile(r"^#define\s+([A-Z0-9_]+)\s+(.+?)\s*(?:/\*.*)?$", re.M)
ROW = re.compile(r"^\| `([A-Z0-9_]+)` \| ([0-9]+) \|", re.M)


def source_defines():
    found = {}
    for folder in ("src", "include"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if name.endswith((".c", ".h")):
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        for macro, value in DEFINE.findall(f.read()):
                            found.setdefault(macro, value)
    return found


def evaluate(expression, defines, depth=0):
    """The value of a #define made of numbers, other #defines, + - * << and parentheses."""
    assert depth < 10, expression
    text = re.sub(r"\b([A-Z][A-Z0-9_]+)\b", lambda m: str(evaluate(defines[m.group(1)], defines, depth + 1)), expression)
    text = re.sub(r"\b(\d+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU]?)\b", r"\1", text)
    assert re.fullmatch(r"[0-9+\-*<>() ]+", text), (expression, text)
    return eval(text)  # noqa: S307 -- digits and operators only (checked above)


def readme_rows():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return {name: int(value) for name, value in ROW.findall(f.read())}


def test_readme_limit_table_matches_the_sources():
    defines, rows = source_defines(), readme_rows()
    assert len(rows) > 30, rows
    for name, value in rows.items():
        assert name in defines, f"README names {name}, which no source defines"
        assert evaluate(defines[name], defines) == value, f"{name}: README says {value}, the source {defines[name]}"


def test_every_limit_of_the_sources_is_in_the_readme_table():
    limits = {name for name in source_defines() if re.search(r"(^|_)MAX(_|$)", name)}
    limits -= {"TOKENS_INITIAL_MAX"}  # the token array's first capacity; it grows, no limit
    limits -= {"C2T_MAX_SOURCE_BYTES"}  # the library's name for C2T_MAX_INPUT_BYTES (in the table)
    missing = sorted(limits - set(readme_rows()))
    assert not missing, f"limits missing from README's table: {missing}"


MAX_HELPER_DEPTH = 8


def chain_factory(depth):
    """A factory whose kernel calls f0, which calls f1, ... f{depth}: depth + 1 functions
    moved with the kernel, the last at chain depth `depth`."""
    helpers = "".join(f"    def f{i}(t):\n        return f{i + 1}(t) + 1\n\n" for i in range(depth))
    helpers += f"    def f{depth}(t):\n        return t\n\n"
    return ("import cuda.tile as ct\n\n\ndef factory():\n" + helpers +
            "    @ct.kernel\n    def k(x):\n"
            "        ct.store(x, index=(0,), tile=f0(ct.load(x, index=(0,), shape=(16,))))\n\n"
            "    return k\n")


def test_functions_moved_with_a_nested_kernel_in_a_chain_up_to_the_limit(convert_text, convert_error):
    assert "def f7(t):" in convert_text(chain_factory(MAX_HELPER_DEPTH - 1))
    found = convert_error(chain_factory(MAX_HELPER_DEPTH))
    assert found == ("C2T002: too many plain functions of a host function calling one another, moved with its "
                     f"kernel (limit is {MAX_HELPER_DEPTH})"), found


@pytest.mark.parametrize("loop", ["grown", "comprehension"])
def test_a_range_over_all_of_int64_is_past_the_limit(convert_error, loop):
    """range(-(2**63 - 1), 2**63 - 1) has more values than a long long holds: counted in unsigned
    arithmetic (stop - start overflowed before, undefined behaviour in C), it is past the limit."""
    body = ("    found = ()\n    for i in ct.static_iter(range(-9223372036854775807, 9223372036854775807)):\n"
            "        found += (ct.load(x, index=(0,), shape=(4,)),)\n" if loop == "grown" else
            "    found = tuple(ct.load(x, index=(0,), shape=(4,)) for i in ct.static_iter("
            "range(9223372036854775807, -9223372036854775807, -1)))\n")
    message = convert_error("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, y):\n" + body +
                            "    ct.store(y, index=(0,), tile=found[0])\n")
    assert message.startswith("C2T002: too many elements of a tuple"), message


RESOLVE_MAX_FACTORIES = 64


def kernel_factories(count):
    """`count` factories of plain tile defs, each one's result given to ct.kernel."""
    factories = "".join(f"def make{i}():\n    def k(x):\n        ct.store(x, (0,), ct.load(x, (0,), (16,)) + {i})\n\n"
                        f"    return k\n\n\n" for i in range(count))
    calls = "".join(f"    ct.launch(0, (1,), ct.kernel(make{i}()), (x,))\n" for i in range(count))
    return "import cuda.tile as ct\n\n\n" + factories + "def run(x):\n" + calls


def test_kernel_factories_up_to_the_limit(convert_text, convert_error):
    text = convert_text(kernel_factories(RESOLVE_MAX_FACTORIES))
    last = RESOLVE_MAX_FACTORIES - 1
    assert f"def make{last}():\n    k = _nested_kernel(launch_make{last}_k, None, \"k\")\n" in text
    found = convert_error(kernel_factories(RESOLVE_MAX_FACTORIES + 1))
    assert found == ("C2T002: too many functions whose result host code gives ct.kernel "
                     f"(limit is {RESOLVE_MAX_FACTORIES})"), found
