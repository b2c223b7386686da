"""Control flow: break/continue/return in loops (flag rewrites), if/else on
run-time scalars and constants, while loops, chained and/or, conditional
expressions, ct.static_iter.

Triton's interpreter runs Python directly and accepts break/continue, so
besides running the kernels each test checks the generated module the way
Triton's GPU code generator sees it: no Break/Continue node and no return
inside a loop in any @triton.jit function, and (`frontend`) the kernel goes
through Triton's own code generator (ast_to_ttir), which runs on the CPU.
"""

import ast
import json
import os
import subprocess
import sys

import ops_common
import pytest
import torch

TILE = 4


@pytest.fixture(autouse=True)
def _on_device():
    """Tensors of these tests live where the kernels run (CPU under the interpreter)."""
    torch.set_default_device(ops_common.DEVICE)
    yield
    torch.set_default_device("cpu")


# ------------------------------------------------------------------ checks

def _is_jit(fn: ast.FunctionDef) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr == "jit":
            return True
    return False


def assert_gpu_control_flow(text: str):
    """No break/continue, and no return inside a loop, in any @triton.jit function."""
    tree = ast.parse(text)
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and _is_jit(fn)):
            continue
        for node in ast.walk(fn):
            assert not isinstance(node, (ast.Break, ast.Continue)), f"{type(node).__name__} left in {fn.name}"
            if isinstance(node, (ast.While, ast.For)):
                for inner in ast.walk(node):
                    assert not isinstance(inner, ast.Return), f"return inside a loop in {fn.name}"


_FRONTEND = r"""
import importlib.util, inspect, json, sys
from triton._C.libtriton import ir
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia.compiler import CUDABackend
from triton.compiler.compiler import ASTSource

path, kernel, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
module_spec = importlib.util.spec_from_file_location("generated", path)
module = importlib.util.module_from_spec(module_spec)
module_spec.loader.exec_module(module)
jit = getattr(module, kernel)
# "@Name.member": a value of the generated module (an Enum member given as a constexpr)
spec["constexprs"] = {k: eval(v[1:], vars(module)) if isinstance(v, str) and v.startswith("@") else v
                      for k, v in spec["constexprs"].items()}
while not hasattr(jit, "arg_names") or not hasattr(jit, "src"):  # under @triton.autotune
    jit = jit.fn
# constexpr parameters with defaults the launch does not set (_loop_stages, _use_tma)
for param in jit.params:
    if param.is_constexpr and param.name not in spec["constexprs"] and param.default is not inspect.Parameter.empty:
        spec["constexprs"][param.name] = param.default
signature = {}
for name in jit.arg_names:
    if name in spec["constexprs"]:
        signature[name] = "constexpr"
    elif name in spec["pointers"]:
        signature[name] = "*fp32"
    elif name.endswith("_shape") or name.endswith("_strides"):
        signature[name] = ("i32",)
    else:
        signature[name] = "i32"
target = GPUTarget("cuda", 90, 32)
backend = CUDABackend(target)
options = backend.parse_options({"debug": True})
context = ir.context()
ir.load_dialects(context)
backend.load_dialects(context)
constants = {(jit.arg_names.index(k),): v for k, v in spec["constexprs"].items()}
source = ASTSource(jit, signature, constants)
source.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(), context)
"""


def frontend(tmp_path, text, kernel="k", pointers=("x", "y"), constexprs=None):
    """Run Triton's GPU code generator (AST -> TTIR, CPU only) on a generated
    kernel, in a process without TRITON_INTERPRET: it refuses what the
    interpreter lets through (break, returns in loops, loop-carried variables
    that change type, `if` on tensors)."""
    path = tmp_path / f"frontend_{kernel}.py"
    path.write_text(text)
    spec = json.dumps({"pointers": list(pointers), "constexprs": constexprs or {}})
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", _FRONTEND, str(path), kernel, spec], capture_output=True, text=True,
                          timeout=120, env=env)
    if "No module named" in proc.stderr and "nvidia" in proc.stderr:  # pragma: no cover
        pytest.skip("Triton's CUDA front end is not importable")
    assert proc.returncode == 0, f"Triton's code generator refused the kernel:\n{proc.stderr[-3000:]}"


@pytest.fixture
def convert_checked(convert, convert_text):
    """Convert, check the text for what Triton's GPU compiler refuses, import."""

    def run(source):
        assert_gpu_control_flow(convert_text(source))
        return convert(source)

    return run


def tiles(n_tiles):
    return torch.randn(n_tiles * TILE, dtype=torch.float32)


def tile(x, i):
    return x[i * TILE:(i + 1) * TILE]


# ---------------------------------------------------------------- break / continue

WHILE_JUMPS = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, n, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,))
    i = 0
    while i < n:
        i += 1
        if i == 2:
            continue
        t = ct.load(x, index=(i,), shape=(TILE,))
        if i > 5:
            break
            acc = acc + 1000.0
        acc = acc + t
    ct.store(y, index=(0,), tile=acc)
'''


@pytest.mark.parametrize("n", [0, 1, 2, 4, 9])
def test_while_break_continue(convert_checked, n):
    mod = convert_checked(WHILE_JUMPS)
    x, y = tiles(12), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, n, TILE))
    ref = tile(x, 0).clone()
    i = 0
    while i < n:
        i += 1
        if i == 2:
            continue
        if i > 5:
            break
        ref += tile(x, i)
    torch.testing.assert_close(y, ref)


FOR_BREAK = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, n, limit, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,)) * 0.0
    for j in range(1, n, 2):
        t = ct.load(x, index=(j,), shape=(TILE,))
        if ct.sum(t) > limit:
            break
        acc = acc + t * j
    ct.store(y, index=(0,), tile=acc)
'''


@pytest.mark.parametrize("n,limit", [(0, 0.0), (9, 100.0), (9, 0.0), (12, 1.0)])
def test_for_break_on_data(convert_checked, n, limit):
    """`for` with a break on a run-time (data) condition becomes a counted while."""
    mod = convert_checked(FOR_BREAK)
    x, y = tiles(12), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, n, limit, TILE))
    ref = torch.zeros(TILE)
    for j in range(1, n, 2):
        t = tile(x, j)
        if t.sum() > limit:
            break
        ref += t * j
    torch.testing.assert_close(y, ref)


FOR_BOUNDS_ONCE = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, n, step, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,)) * 0.0
    for j in range(0, n, step):
        n = n - 1
        step = step + 1
        if j > 100:
            break
        acc = acc + j
    ct.store(y, index=(0,), tile=acc)
'''


def test_for_break_evaluates_range_once(convert_checked):
    """range(a, b, c) evaluates b and c once, even when the body rebinds them."""
    mod = convert_checked(FOR_BOUNDS_ONCE)
    x, y = tiles(1), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, 10, 3, TILE))
    torch.testing.assert_close(y, torch.full((TILE,), float(0 + 3 + 6 + 9)))


FOR_CONTINUE = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, n, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,)) * 0.0
    for j in range(n):
        if j % 3 == 0:
            continue
        elif j == 4:
            acc = acc - 1.0
            continue
        acc = acc + ct.load(x, index=(j,), shape=(TILE,))
    ct.store(y, index=(0,), tile=acc)
'''


def test_for_continue_in_elif(convert_checked):
    mod = convert_checked(FOR_CONTINUE)
    x, y = tiles(8), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, 8, TILE))
    ref = torch.zeros(TILE)
    for j in range(8):
        if j % 3 == 0:
            continue
        elif j == 4:
            ref -= 1.0
            continue
        ref += tile(x, j)
    torch.testing.assert_close(y, ref)


NESTED = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, n, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,)) * 0.0
    for i in range(n):
        if i == 1:
            continue
        j = 0
        while True:
            if j >= i:
                break
            j += 1
            if j == 2:
                continue
            acc = acc + ct.load(x, index=(j,), shape=(TILE,))
        if i == 4:
            break
        acc = acc + i
    ct.store(y, index=(0,), tile=acc)
'''


def test_nested_loops_own_their_jumps(convert_checked):
    mod = convert_checked(NESTED)
    x, y = tiles(8), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, 7, TILE))
    ref = torch.zeros(TILE)
    for i in range(7):
        if i == 1:
            continue
        j = 0
        while True:
            if j >= i:
                break
            j += 1
            if j == 2:
                continue
            ref += tile(x, j)
        if i == 4:
            break
        ref += i
    torch.testing.assert_close(y, ref)


SIDE_EFFECT_CONDITION = '''
import cuda.tile as ct

def visit(x, seen, i, n):
    ct.store(seen, index=(i,), tile=ct.load(x, index=(i,), shape=(4,)))
    return i < n

@ct.kernel
def k(x: ct.Array, seen: ct.Array, n, stop):
    i = 0
    while visit(x, seen, i, n):
        if i == stop:
            break
        i += 1
'''


def test_while_condition_with_side_effects_not_evaluated_after_break(convert_checked):
    """cuTile does not evaluate the condition again after a break; Triton's `and`
    would evaluate both sides, so the condition moves into the loop."""
    mod = convert_checked(SIDE_EFFECT_CONDITION)
    x, seen = tiles(8), torch.zeros(8 * TILE)
    mod.launch_k(0, (1,), (x, seen, 6, 2))
    ref = torch.zeros(8 * TILE)
    ref[:3 * TILE] = x[:3 * TILE]  # visited i = 0, 1, 2; the break at 2 stops it
    torch.testing.assert_close(seen, ref)
    seen.zero_()
    mod.launch_k(0, (1,), (x, seen, 3, 99))  # ends by the condition: visits 0..3
    ref = torch.zeros(8 * TILE)
    ref[:4 * TILE] = x[:4 * TILE]
    torch.testing.assert_close(seen, ref)


# ---------------------------------------------------------------------- return

RETURN_IN_WHILE = '''
import cuda.tile as ct

def first_big(x, n, limit):
    i = 0
    while i < n:
        s = ct.sum(ct.load(x, index=(i,), shape=(4,)))
        if s > limit:
            return s
        i += 1
    return limit * 0.0 - 1.0

@ct.kernel
def k(x, y, n, limit):
    s = first_big(x, n, limit)
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)) * 0.0 + s)
'''


@pytest.mark.parametrize("limit", [-100.0, 0.5, 100.0])
def test_return_inside_while_in_helper(convert_checked, limit):
    mod = convert_checked(RETURN_IN_WHILE)
    x, y = tiles(6), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, 6, limit))
    expected = -1.0
    for i in range(6):
        s = tile(x, i).sum()
        if s > limit:
            expected = s.item()
            break
    torch.testing.assert_close(y, torch.full((TILE,), expected))


KERNEL_RETURN_IN_WHILE = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, n, TILE: ct.Constant[int]):
    i = 0
    while i < 4:
        if i == n:
            return
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(TILE,)))
        i += 1
    ct.store(y, index=(4,), tile=ct.load(x, index=(4,), shape=(TILE,)))
'''


@pytest.mark.parametrize("n", [0, 2, 7])
def test_bare_return_inside_while_in_kernel(convert_checked, n):
    mod = convert_checked(KERNEL_RETURN_IN_WHILE)
    x, y = tiles(5), torch.zeros(5 * TILE)
    mod.launch_k(0, (1,), (x, y, n, TILE))
    ref = torch.zeros(5 * TILE)
    written = min(n, 4)
    ref[:written * TILE] = x[:written * TILE]
    if n >= 4:
        ref[4 * TILE:] = x[4 * TILE:]
    torch.testing.assert_close(y, ref)


EARLY_RETURN_HELPER = '''
import cuda.tile as ct

def pick(t, n):
    if n > 2:
        return t * 2.0
    return t - 1.0

@ct.kernel
def k(x, y, n):
    t = ct.load(x, index=(0,), shape=(4,))
    ct.store(y, index=(0,), tile=pick(t, n))
'''


@pytest.mark.parametrize("n", [1, 5])
def test_early_return_in_helper_outside_loops(convert_checked, n):
    """Triton accepts returns inside `if` outside loops: kept as written."""
    mod = convert_checked(EARLY_RETURN_HELPER)
    x, y = tiles(1), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, n))
    torch.testing.assert_close(y, x * 2.0 if n > 2 else x - 1.0)


# ------------------------------------------------------------- if / while / expressions

BRANCHES = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, n, MODE: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(4,))
    if MODE == 1:
        t = t + 1.0
    elif MODE == 2:
        t = t * 3.0
    else:
        t = t - 5.0
    if n > 2 and n < 100 and n != 7 or n == 0:
        t = t * 10.0
    if not (n > 50 or n < -50 or n == 7):
        t = t + 0.5
    s = 2.0 if n > 3 else 0.25
    ct.store(y, index=(0,), tile=t * s)
'''


@pytest.mark.parametrize("mode", [1, 2, 3])
@pytest.mark.parametrize("n", [0, 2, 3, 7, 60])
def test_if_constexpr_runtime_and_chains(convert_checked, mode, n):
    mod = convert_checked(BRANCHES)
    x, y = tiles(1), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, n, mode))
    t = x + 1.0 if mode == 1 else x * 3.0 if mode == 2 else x - 5.0
    if n > 2 and n < 100 and n != 7 or n == 0:
        t = t * 10.0
    if not (n > 50 or n < -50 or n == 7):
        t = t + 0.5
    torch.testing.assert_close(y, t * (2.0 if n > 3 else 0.25))


STATIC_RANGE = '''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(4,))
    for i in ct.static_iter(range(1, N)):
        acc = acc + ct.load(x, index=(i,), shape=(4,)) * i
    ct.store(y, index=(0,), tile=acc)
'''


def test_static_iter_range(convert_checked, convert_text):
    assert "tl.static_range(1, N)" in convert_text(STATIC_RANGE)
    mod = convert_checked(STATIC_RANGE)
    x, y = tiles(4), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y, 4))
    torch.testing.assert_close(y, tile(x, 0) + sum(tile(x, i) * i for i in range(1, 4)))


STATIC_ENUMERATE_ZIP = '''
import cuda.tile as ct

@ct.kernel
def k(x, y):
    a = ct.load(x, index=(0,), shape=(4,))
    b = ct.load(x, index=(1,), shape=(4,))
    c = ct.load(x, index=(2,), shape=(4,))
    acc = ct.zeros((4,), dtype=ct.float32)
    for i, t in ct.static_iter(enumerate((a, b, c), 1)):
        acc = acc + t * i
    for t, w in ct.static_iter(zip((a, b, c), (0.5, 0.25))):
        acc = acc + t * w
    ct.store(y, index=(0,), tile=acc)
'''


def test_static_iter_over_enumerate_and_zip_of_tuples(convert_checked, convert_text):
    """cuTile evaluates a static_iter's iterable with Python: enumerate(tuple, start) gives the
    counter plus start and the element, zip(...) the elements side by side up to the shortest."""
    text = convert_text(STATIC_ENUMERATE_ZIP)
    assert "tl.static_range(3)" in text and "tl.static_range(2)" in text
    mod = convert_checked(STATIC_ENUMERATE_ZIP)
    x, y = tiles(3), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y))
    want = sum(tile(x, i) * (i + 1) for i in range(3)) + tile(x, 0) * 0.5 + tile(x, 1) * 0.25
    torch.testing.assert_close(y, want)


STATIC_NESTED_TARGETS = '''
import cuda.tile as ct

PAIRS = ((0, 1.0), (2, 0.5), (1, 0.25))

@ct.kernel
def k(x, y):
    a = ct.load(x, index=(0,), shape=(4,))
    b = ct.load(x, index=(1,), shape=(4,))
    acc = ct.zeros((4,), dtype=ct.float32)
    for index, weight in ct.static_iter(PAIRS):
        acc = acc + ct.load(x, index=(index,), shape=(4,)) * weight
    for i, (t, w) in ct.static_iter(enumerate(((a, 2.0), (b, 3.0)), 1)):
        acc = acc + t * w * i
    ct.store(y, index=(0,), tile=acc)
'''


def test_static_iter_with_a_target_that_unpacks_each_element(tmp_path, convert_checked, convert_text):
    """`for a, b in ct.static_iter(PAIRS)` and `for i, (t, w) in ct.static_iter(enumerate(...))`:
    each name takes its item of the element, as Python unpacks it (and Triton's GPU code
    generator takes the constexpr tuple of tuples indexed twice). A name that takes a constant
    is written as that item at each use, a constexpr, as cuTile's constant is: a local would
    hold a tensor, which indexes no tuple and is not weakly typed (t * w of a float16 t would
    compute in float32); enumerate()'s counter likewise."""
    text = convert_text(STATIC_NESTED_TARGETS)
    assert "(x, x_shape, x_strides, PAIRS_TL[index_k_1][0], 4" in text and "* PAIRS_TL[index_k_1][1]" in text, text
    assert "weight =" not in text and "i = " not in text and "(i_k_2 + 1)" in text, text
    frontend(tmp_path, text)
    mod = convert_checked(STATIC_NESTED_TARGETS)
    x, y = tiles(3), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y))
    want = tile(x, 0) * 1.0 + tile(x, 2) * 0.5 + tile(x, 1) * 0.25 + tile(x, 0) * 2.0 * 1 + tile(x, 1) * 3.0 * 2
    torch.testing.assert_close(y, want)


@pytest.mark.parametrize("pairs, target, expect", [
    ("((0, 1), (2, 3, 4))", "a, b", "element 1 of the tuple"),
    ("(0, 1)", "a, b", "element 0 of the tuple"),
    ("((0, (1, 2)), (2, (3, 4)))", "a, (b, c)", "into names"),
])
def test_static_iter_target_that_does_not_fit_the_elements_is_an_error(convert_error, pairs, target, expect):
    message = convert_error(f'''
import cuda.tile as ct

PAIRS = {pairs}

@ct.kernel
def k(x, y):
    acc = ct.zeros((4,), dtype=ct.float32)
    for {target} in ct.static_iter(PAIRS):
        acc = acc + ct.load(x, index=(a,), shape=(4,))
    ct.store(y, index=(0,), tile=acc)
''')
    assert expect in message


STATIC_COUNTER_INDEX = '''
import cuda.tile as ct

@ct.kernel
def k(x, y):
    a = ct.load(x, index=(0,), shape=(4,))
    b = ct.load(x, index=(1,), shape=(4,))
    c = ct.load(x, index=(2,), shape=(4,))
    tiles = a, b, c
    weights = (1.0, 0.5, 0.25)
    acc = ct.zeros((4,), dtype=ct.float32)
    for i in ct.static_iter(range(len(tiles))):
        acc = acc + tiles[i] * weights[i]
    for j in ct.static_iter(range(-2, 0)):
        acc = acc + tiles[j]
    ct.store(y, index=(0,), tile=acc)
'''


def test_a_tuple_indexed_by_a_static_iter_counter(convert_checked, convert_text):
    """The counter of a ct.static_iter(range(...)) is a constexpr of Triton's tl.static_range,
    which indexes a tuple as it is: tiles[i] with i the counter, negative ones too (Python's)."""
    text = convert_text(STATIC_COUNTER_INDEX)
    assert "tiles[i]" in text and "weights[i]" in text and "tiles[j]" in text
    mod = convert_checked(STATIC_COUNTER_INDEX)
    x, y = tiles(3), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y))
    want = tile(x, 0) * 1.0 + tile(x, 1) * 0.5 + tile(x, 2) * 0.25 + tile(x, 2) + tile(x, 1)
    torch.testing.assert_close(y, want)


MIXED_SHAPES_BY_COUNTER = '''
import cuda.tile as ct

@ct.kernel
def k(x, y):
    a = ct.load(x, index=(0,), shape=(4,))
    b = ct.load(x, index=(0,), shape=(8,))
    pair = a, b
    for i in ct.static_iter(range(2)):
        ct.store(y, index=(0,), tile=pair[i])
'''


def test_a_counter_index_over_tiles_of_other_shapes_takes_each_in_its_iteration(convert_checked, device):
    """cuTile unrolls the loop: each iteration stores its own tile, (4,) then (8,) (tileiras 13.4
    compiles it). Triton's tl.static_range unrolls it too; the converter types the body with what
    the tiles agree on (the dimension is unknown to it) and converts it (it was refused)."""
    mod = convert_checked(MIXED_SHAPES_BY_COUNTER)
    x = torch.randn(16, device=device)
    y = torch.zeros(16, device=device)
    mod.launch_k(0, (1,), (x, y))
    torch.testing.assert_close(y[:8], x[:8])
    assert not y[8:].any()


def test_the_mixed_shapes_kernel_is_valid_cutile(cutile_export):
    f32 = cutile_export.array(cutile_export.ct.float32, 1)
    assert cutile_export.cubin_size(MIXED_SHAPES_BY_COUNTER, [f32, f32]) > 0


def test_a_counter_index_needs_the_counter_itself(convert_error):
    shifted = convert_error('''
import cuda.tile as ct

@ct.kernel
def k(x, y):
    a = ct.load(x, index=(0,), shape=(4,))
    pair = a, a
    for i in ct.static_iter(range(1)):
        ct.store(y, index=(0,), tile=pair[i + 1])
''')
    assert "a tuple index in tile code must be a constant" in shifted
    runtime = convert_error('''
import cuda.tile as ct

@ct.kernel
def k(x, y):
    a = ct.load(x, index=(0,), shape=(4,))
    pair = a, a
    for i in range(2):
        ct.store(y, index=(0,), tile=pair[i])
''')
    assert "a tuple index in tile code must be a constant" in runtime


# ------------------------------------------------- Triton's GPU code generator

STATIC_TUPLE_GROWTH = '''
import cuda.tile as ct


def columns(x, count):
    found = ()
    for i in ct.static_iter(range(count)):
        found += (ct.load(x, index=(i,), shape=(4,)),)
    return found


@ct.kernel
def k(x, y):
    cols = columns(x, 3)
    acc = ct.zeros((4,), dtype=ct.float32)
    for c in ct.static_iter(cols):
        acc = acc + c
    first, second, third = cols
    pairs = ()
    for i in ct.static_iter(range(2)):
        for j in ct.static_iter(range(0, 3, 2)):
            pairs = pairs + (cols[j] * (i + 1),)
    for p in ct.static_iter(pairs):
        acc = acc + p * 10
    acc = acc + first * 100 + third * 1000 + len(cols) + len(pairs) * 0.5
    ct.store(y, index=(0,), tile=acc)
'''


def test_a_tuple_grown_in_a_static_iter_loop(convert_checked, convert_text):
    """A tuple grown in a ct.static_iter loop (`found += (tile,)`, the columns helper of a public
    MPM kernel) holds, after the loop, what every iteration appended: cuTile unrolls the loop,
    and so does Triton's tl.static_range. The converter lowers the body once and took the tuple
    to hold one iteration's items: it iterated over the first column only (exit 0, the sum of
    one column instead of three), folded len() to 1 and refused unpacking into three names."""
    text = convert_text(STATIC_TUPLE_GROWTH)
    assert "for c_k_1 in tl.static_range(3):" in text and "for p_k_2 in tl.static_range(4):" in text, text
    mod = convert_checked(STATIC_TUPLE_GROWTH)
    x, y = tiles(3), torch.zeros(TILE)
    mod.launch_k(0, (1,), (x, y))
    c = [tile(x, i) for i in range(3)]
    want = sum(c) + 10 * (c[0] + c[2]) * 3 + 100 * c[0] + 1000 * c[2] + 3 + 4 * 0.5
    torch.testing.assert_close(y, want)


def test_a_tuple_grown_in_a_static_iter_loop_of_a_launch_count_is_refused(convert_error):
    # the trip count comes with the launch: the tuple's length after the loop is not known here
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(x, y, N: ct.Constant[int]):
    found = ()
    for i in ct.static_iter(range(N)):
        found += (ct.load(x, index=(i,), shape=(4,)),)
    a, b = found
    ct.store(y, index=(0,), tile=a + b)
''')
    assert message.startswith("C2T402: the tuple 'found' grows in this ct.static_iter loop, whose trip count is "
                              "known only at launch"), message


FSTRING_ASSERT = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, BLOCK: ct.Constant[int], GROUP: ct.Constant[int]):
    ct.static_assert(BLOCK == GROUP, f"the kernel needs BLOCK == GROUP, got {BLOCK} vs {GROUP}")
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(BLOCK,)))
'''


def test_a_static_assert_message_formatted_from_constants(convert_checked, convert_text):
    """ct.static_assert(cond, f"... {BLOCK} ...") with launch constants (FlashInfer's grouped
    fp8 GEMM; cuTile's own tests): Triton formats an f-string of constexprs while it compiles, as
    cuTile does; it was refused ("the message must be a string literal")."""
    assert 'f"the kernel needs BLOCK == GROUP, got {BLOCK} vs {GROUP}"' in convert_text(FSTRING_ASSERT)
    mod = convert_checked(FSTRING_ASSERT)
    x, y = tiles(2), torch.zeros(2 * TILE)
    mod.launch_k(0, (2,), (x, y, TILE, TILE))
    torch.testing.assert_close(y, x)
    with pytest.raises(Exception, match="got 4 vs 8"):
        mod.launch_k(0, (2,), (x, y, TILE, 8))


def test_a_static_assert_message_with_a_format_spec_is_refused(convert_error):
    message = convert_error(FSTRING_ASSERT.replace("{BLOCK} vs", "{BLOCK:4d} vs"))
    assert message.startswith("C2T402: ct.static_assert(): a format spec or `=` in the message's f-string"), message


RETURN_IN_FOR = '''
import cuda.tile as ct


def first_above(t, n, limit):
    for i in range(n):
        s = ct.astype(ct.sum(t), ct.float32) * (i + 1)
        if s > limit:
            return s
    return ct.astype(ct.sum(t), ct.float32) * 0 - 1


@ct.kernel
def k(x, y, n, limit, T: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=ct.full((T,), first_above(t, n, limit), dtype=ct.float32))
'''


def test_a_return_inside_a_for_loop_of_a_helper(convert_checked):
    """`return` inside a `for` loop of a tile function (cuTile 1.7 compiles it; its own helper
    tests): the loop runs as a `while` with flags, as a `while` loop's return does, and the value
    is returned after it. It was refused as 'not supported by cuTile'."""
    mod = convert_checked(RETURN_IN_FOR)
    x = torch.ones(TILE)
    for n, limit, want in ((5, 10.0, 12.0), (5, 100.0, -1.0), (0, 1.0, -1.0)):
        y = torch.zeros(TILE)
        mod.launch_k(0, (1,), (x, y, n, limit, TILE))
        assert torch.all(y == want), (n, limit, y)


GPU_CASES = {
    "while_jumps": (WHILE_JUMPS, ("x", "y"), {"TILE": TILE}),
    "for_break": (FOR_BREAK, ("x", "y"), {"TILE": TILE}),
    "for_bounds_once": (FOR_BOUNDS_ONCE, ("x", "y"), {"TILE": TILE}),
    "for_continue": (FOR_CONTINUE, ("x", "y"), {"TILE": TILE}),
    "nested": (NESTED, ("x", "y"), {"TILE": TILE}),
    "side_effect_condition": (SIDE_EFFECT_CONDITION, ("x", "seen"), {}),
    "return_in_while": (RETURN_IN_WHILE, ("x", "y"), {}),
    "kernel_return_in_while": (KERNEL_RETURN_IN_WHILE, ("x", "y"), {"TILE": TILE}),
    "early_return_helper": (EARLY_RETURN_HELPER, ("x", "y"), {}),
    "branches": (BRANCHES, ("x", "y"), {"MODE": 2}),
    "static_range": (STATIC_RANGE, ("x", "y"), {"N": 4}),
    "static_enumerate_zip": (STATIC_ENUMERATE_ZIP, ("x", "y"), {}),
    "static_counter_index": (STATIC_COUNTER_INDEX, ("x", "y"), {}),
    "static_tuple_growth": (STATIC_TUPLE_GROWTH, ("x", "y"), {}),
    "fstring_assert": (FSTRING_ASSERT, ("x", "y"), {"BLOCK": 4, "GROUP": 4}),
    "return_in_for": (RETURN_IN_FOR, ("x", "y"), {"T": 4}),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
def test_triton_gpu_codegen_accepts(convert_text, tmp_path, case):
    source, pointers, constexprs = GPU_CASES[case]
    frontend(tmp_path, convert_text(source), "k", pointers, constexprs)


def test_triton_gpu_codegen_refuses_break(tmp_path):
    """The check above is meaningful: Triton's code generator refuses `break`."""
    text = """
import triton
import triton.language as tl

@triton.jit
def k(x, y, n):
    for i in range(n):
        if i > 2:
            break
"""
    with pytest.raises(AssertionError, match="Break"):
        frontend(tmp_path, text, "k", ("x", "y"), {})


# ----------------------------------------------------------------------- errors

def test_return_of_the_counter_inside_a_for_loop(convert_checked):
    """It was refused ('returning from inside a `for` loop is not supported by cuTile'); cuTile
    1.7 compiles it, and the loop now runs as a `while` with flags."""
    mod = convert_checked('''
import cuda.tile as ct

def f(n):
    for i in range(n):
        if i == 3:
            return i
    return 0

@ct.kernel
def k(y, n):
    ct.store(y, index=(0,), tile=ct.arange(4, dtype=ct.int32) + f(n))
''')
    for n, add in ((2, 0), (4, 3), (9, 3)):
        y = torch.zeros(4, dtype=torch.int32)
        mod.launch_k(0, (1,), (y, n))
        assert torch.equal(y, torch.arange(4, dtype=torch.int32) + add), (n, y)


def test_return_of_the_counter_inside_a_while_loop(convert_checked):
    """`return i` from inside `while i < n`, i a scalar set before the loop: the value carried
    for the return starts as i itself (no zero of a type unknown before the loop to make)."""
    mod = convert_checked('''
import cuda.tile as ct

def first_neg(x, n):
    i = 0
    while i < n:
        v = ct.load(x, (i,), shape=(1,))
        if ct.sum(v) < 0.0:
            return i
        i += 1
    return -1

@ct.kernel
def k(x, y, n):
    ct.store(y, (0,), ct.full((1,), first_neg(x, n), dtype=ct.int32))
''')
    x = torch.tensor([1.0, 2.0, -3.0, 4.0, -5.0])
    for n, want in ((5, 2), (2, -1)):
        y = torch.zeros(1, dtype=torch.int32)
        mod.launch_k(0, (1,), (x, y, n))
        assert y.item() == want, (n, y)


@pytest.mark.parametrize("step", ["0", "-1"])
def test_constant_step_must_be_positive(convert_error, step):
    message = convert_error(f'''
import cuda.tile as ct

@ct.kernel
def k(y, n):
    t = ct.arange(4, dtype=ct.int32)
    for i in range(n, 0, {step}):
        t = t + i
    ct.store(y, index=(0,), tile=t)
''')
    assert "step" in message


@pytest.mark.parametrize("jump", ["break", "continue"])
def test_jump_inside_static_iter_is_an_error(convert_error, jump):
    message = convert_error(f'''
import cuda.tile as ct

@ct.kernel
def k(y):
    t = ct.arange(4, dtype=ct.int32)
    for i in ct.static_iter(range(4)):
        if i == 2:
            {jump}
        t = t + i
    ct.store(y, index=(0,), tile=t)
''')
    assert "static_iter" in message


def test_with_statement_is_an_error(convert_error):
    convert_error('''
import cuda.tile as ct

@ct.kernel
def k(y):
    with ct.compiler_timeout(3):
        t = ct.arange(4, dtype=ct.int32)
    ct.store(y, index=(0,), tile=t)
''')


def test_while_on_a_tile_is_an_error(convert_error):
    message = convert_error('''
import cuda.tile as ct

@ct.kernel
def k(y):
    t = ct.arange(4, dtype=ct.int32)
    while t < 3:
        t = t + 1
    ct.store(y, index=(0,), tile=t)
''')
    assert "scalar" in message


def test_and_with_side_effect_operand_is_an_error(convert_error):
    """cuTile skips the right operand of `and`/`or` when the left decides; Triton
    evaluates both: an operand with side effects cannot stay in the expression."""
    message = convert_error('''
import cuda.tile as ct

def visit(x, seen, i):
    ct.store(seen, index=(i,), tile=ct.load(x, index=(i,), shape=(4,)))
    return i < 3

@ct.kernel
def k(x: ct.Array, seen: ct.Array, n):
    if n > 2 and visit(x, seen, n):
        ct.store(seen, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)))
''')
    assert "side effects" in message


def test_or_with_pure_operands_runs(convert_checked):
    """Side-effect-free operands: evaluating both sides gives cuTile's result."""
    mod = convert_checked('''
import cuda.tile as ct

@ct.kernel
def k(x, y, n):
    t = ct.load(x, index=(0,), shape=(4,))
    if n == 0 or ct.sum(ct.load(x, index=(n,), shape=(4,))) > 0.0 or n > 5:
        t = t + 1.0
    ct.store(y, index=(0,), tile=t)
''')
    x, y = tiles(8), torch.zeros(TILE)
    for n in range(8):
        mod.launch_k(0, (1,), (x, y, n))
        expect = tile(x, 0) + 1.0 if (n == 0 or tile(x, n).sum() > 0 or n > 5) else tile(x, 0)
        torch.testing.assert_close(y, expect)


def test_while_and_a_pure_tile_function_runs(convert_checked):
    """A tile function that only loads and computes gives the same value evaluated where
    cuTile skips it: it stays in the `and`, also through a call of another such function."""
    mod = convert_checked('''
import cuda.tile as ct

def below(v, limit):
    return v < limit

def in_range(x, i):
    return below(i, 6) and ct.sum(ct.load(x, index=(i,), shape=(4,))) > -100.0

@ct.kernel
def k(x, y, n):
    i = 0
    acc = ct.zeros((4,), dtype=ct.float32)
    while i < n and in_range(x, i):
        acc = acc + ct.load(x, index=(i,), shape=(4,))
        i += 1
    ct.store(y, index=(0,), tile=acc)
''')
    x, y = tiles(8), torch.zeros(TILE)
    for n in (0, 3, 8):
        mod.launch_k(0, (1,), (x, y, n))
        expect = sum((tile(x, i) for i in range(min(n, 6))), torch.zeros(TILE))
        torch.testing.assert_close(y, expect)


@pytest.mark.parametrize("effect", [
    "ct.store(seen, index=(i,), tile=ct.load(x, index=(i,), shape=(4,)))",
    "ct.atomic_add(seen, (i,), 1.0)",
    "print(i)",
])
def test_and_with_a_function_that_calls_one_with_side_effects_is_an_error(convert_error, effect):
    """The side effect is two calls down: the operand still cannot stay in the `and`."""
    message = convert_error(f'''
import cuda.tile as ct

def visit(x, seen, i):
    {effect}
    return i < 3

def check(x, seen, i):
    return visit(x, seen, i) or i > 5

@ct.kernel
def k(x: ct.Array, seen: ct.Array, n):
    if n > 2 and check(x, seen, n):
        ct.store(seen, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)))
''')
    assert "side effects" in message


SET_AFRESH = '''
import cuda.tile as ct


@ct.kernel
def afresh_kernel(x, y, N: ct.Constant[int], F: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(N,))
    for i in range(3):
        # t is set afresh in each iteration: inside the loop it is a name of its own
        t = ct.load(x, index=(i,), shape=(N,))
        if F:
            u = t * 2
        else:
            u = t
        ct.store(y, index=(i,), tile=u)
'''


@pytest.mark.parametrize("flag", [0, 1])
def test_a_loop_local_renamed_everywhere_in_the_loop(convert, device, flag):
    # every use in the loop reads this iteration's value, also in a branch the
    # converter does not rewrite otherwise (`u = t` copied from the source read the
    # value from before the loop)
    mod = convert(SET_AFRESH)
    x = torch.arange(12, dtype=torch.float32, device=device)
    y = torch.zeros_like(x)
    mod.launch_afresh_kernel(0, (1,), (x, y, 4, flag))
    assert torch.equal(y.cpu(), (x * (2 if flag else 1)).cpu())


def test_a_negative_constant_step_is_an_error_located_at_its_loop(tmp_path):
    """A folded `-1` has no location of its own: the error points at the loop."""
    src = tmp_path / "negative_step.py"
    src.write_text('''import cuda.tile as ct

@ct.kernel
def k(x):
    for i in range(4, 0, -1):
        ct.store(x, index=(i,), tile=ct.zeros((4,), dtype=ct.float32))
''')
    proc = subprocess.run([str(ops_common.CONVERTER), str(src), "-o", str(tmp_path / "out.py")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and not (tmp_path / "out.py").exists()
    assert f"{src}:5:5: error: C2T402: the step of range() in tile code must be positive" in proc.stderr


STATIC_CHOICE = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, FLAG: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int]):
{choice}
    t = ct.load(x, index=(ct.bid(0),), shape=(S,))
    ct.store(y, index=(ct.bid(0),), tile=t + ct.full((S,), 1.0, dtype=ct.float32))
'''


def test_a_size_each_branch_of_a_constexpr_if_assigns_is_a_constexpr_local(convert, convert_text):
    """`if FLAG == 1: S = BM` / `else: S = BN` is a constant when Triton compiles (cuTile
    knows it when it compiles): each branch's assignment is `S: tl.constexpr = ...`."""
    source = STATIC_CHOICE.format(choice="    if FLAG == 1:\n        S = BM\n    else:\n        S = BN")
    text = convert_text(source)
    assert "S: tl.constexpr = BM" in text and "S: tl.constexpr = BN" in text
    mod = convert(source)
    x = torch.randn(64)
    for flag, tiles in ((1, 4), (0, 2)):
        y = torch.zeros(64)
        mod.launch_k(0, (tiles,), (x, y, flag, 16, 32))
        torch.testing.assert_close(y, x + 1.0)


def test_a_size_from_a_module_tuple_indexed_by_a_constant_is_a_constexpr_local(convert, convert_text):
    """`S = SIZES[FLAG]` (a module tuple of sizes, a constant parameter choosing one): cuTile knows
    S when it compiles, so it may size a tile; Triton does too where it is a tl.constexpr local."""
    source = "SIZES = (16, 32)\n" + STATIC_CHOICE.format(choice="    S = SIZES[FLAG]")
    assert "S: tl.constexpr = SIZES_TL[FLAG]" in convert_text(source)
    mod = convert(source)
    x = torch.randn(64)
    for flag, tiles in ((0, 4), (1, 2)):
        y = torch.zeros(64)
        mod.launch_k(0, (tiles,), (x, y, flag, 16, 32))
        torch.testing.assert_close(y, x + 1.0)


def test_a_constant_chosen_by_a_dtype_comparison_is_a_constexpr_local(convert, convert_text):
    """`if t.dtype == ct.float16: code = 16 / else: code = 32`, t's dtype set by a constexpr `if`
    above: Triton compares dtypes while it compiles, so `code` is a constant there too."""
    source = '''
import cuda.tile as ct


@ct.kernel
def k(x, z, HALF: ct.Constant[bool]):
    t = ct.load(x, (0,), shape=(8,))
    if HALF:
        t = t.astype(ct.float16)
    if t.dtype == ct.float16:
        code = 16
    else:
        code = 32
    ct.store(z, (0,), ct.full((code // 8,), code, dtype=ct.int32))
'''
    assert "code: tl.constexpr = 16" in convert_text(source)
    mod = convert(source)
    for half, code in ((True, 16), (False, 32)):
        z = torch.zeros(4, dtype=torch.int32)
        mod.launch_k(0, (1,), (torch.randn(8), z, half))
        assert z.tolist()[:code // 8] == [code] * (code // 8)


@pytest.mark.parametrize("choice, message", [
    # one branch assigns twice: Triton cannot keep it a constant
    ("    if FLAG == 1:\n        S = BM\n        S = S * 2\n    else:\n        S = BN",
     "'S' is a constant chosen by this `if`"),
    # assigned before and in one branch: a run-time value, as before
    ("    S = BN\n    if FLAG == 1:\n        S = BM", "the tile shape must be constant"),
])
def test_a_constant_chosen_by_a_constexpr_if_otherwise_is_a_located_error(convert_error, choice, message):
    assert message in convert_error(STATIC_CHOICE.format(choice=choice))


SAME_SIZES_CHOSEN = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, out, FLAG: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0), 0), shape=(BM, BN))
    b = ct.load(y, index=(ct.bid(0), 0), shape=(BM, BN))
    t = a if FLAG == 1 else b
    ct.store(out, index=(ct.bid(0),), tile=ct.reshape(t, (BM * BN,)))
'''


def test_tiles_of_sizes_written_alike_chosen_by_a_constexpr_keep_their_sizes(convert):
    """`a if FLAG == 1 else b`, both (BM, BN) tiles: the sizes are the same names, so the
    choice keeps them (a reshape needs them; they were compared as distinct expressions)."""
    mod = convert(SAME_SIZES_CHOSEN)
    x, y = torch.randn(8, 4), torch.randn(8, 4)
    for flag, chosen in ((1, x), (0, y)):
        out = torch.zeros(32)
        mod.launch_k(0, (2,), (x, y, out, flag, 4, 4))
        assert torch.equal(out, chosen.reshape(32))


STATIC_ITER_SAME_SIZES = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, out, B: ct.Constant[int]):
    tiles = (ct.load(x, index=(ct.bid(0),), shape=(B,)), ct.load(y, index=(ct.bid(0),), shape=(B,)))
    acc = ct.zeros((B,), dtype=ct.float32)
    for t in ct.static_iter(tiles):
        acc += t
    ct.store(out, index=(ct.bid(0),), tile=acc)
'''


def test_static_iter_over_tiles_whose_sizes_are_written_alike(convert):
    """Two (B,) tiles loaded separately are one kind of element for ct.static_iter (their
    sizes were compared as distinct expressions: refused)."""
    mod = convert(STATIC_ITER_SAME_SIZES)
    x, y = torch.randn(16), torch.randn(16)
    out = torch.zeros(16)
    mod.launch_k(0, (2,), (x, y, out, 8))
    torch.testing.assert_close(out, x + y)


REASSIGNED_SIZE_PARAMETER = '''
import cuda.tile as ct


def twice_zeros(n):
    n = n * 2
    return ct.zeros((n,), dtype=ct.float32)


@ct.kernel
def k(y, B: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=twice_zeros(B))
'''


def test_a_tile_size_Triton_would_see_as_a_run_time_value_is_a_located_error(convert_error):
    """A tile function's parameter reassigned (`n = n * 2`) is a plain local in Triton: a tile it
    sizes converted with exit 0 and did not compile for a GPU; now it is a located error."""
    assert "'n' sizes a tile here" in convert_error(REASSIGNED_SIZE_PARAMETER)


def test_an_arange_of_a_reassigned_local_is_a_located_error(convert_error):
    source = '''
import cuda.tile as ct


@ct.kernel
def k(y, B: ct.Constant[int]):
    n = B
    n = n * 2
    ct.store(y, index=(ct.bid(0),), tile=ct.arange(n, dtype=ct.float32))
'''
    assert "'n' sizes a tile here" in convert_error(source)


@pytest.mark.parametrize("loop", ["for i in range(3):", "while ct.bid(0) < 0:"])
def test_a_tuple_grown_in_a_run_time_loop_is_refused(convert_error, loop):
    """cuTile refuses a tuple whose length a run-time loop changes ("Type of `found` depends on
    path taken"), as Triton's code generator refuses the loop-carried value; the conversion
    wrote the loop as it was (exit 0, a module Triton does not compile)."""
    message = convert_error(f'''
import cuda.tile as ct


@ct.kernel
def k(x, y):
    found = ()
    {loop}
        found += (ct.load(x, index=(0,), shape=(4,)),)
    ct.store(y, index=(0,), tile=found[0])
''')
    assert message.startswith("C2T402: the tuple 'found' has 0 items before this loop and 1 after its body"), message


def test_a_name_of_another_type_on_each_path_is_refused_where_it_is_used(convert_error, convert_text):
    """cuTile refuses a use of a name whose type depends on the path taken through a run-time
    `if` ("Type of `u` depends on path taken"): a tile before it, a number in its branch, or
    tiles of two known shapes. The converter says so at the use; it wrote a module that computed
    garbage (a helper's sweep). Unused after the `if`, the name is valid cuTile and converts."""
    loop = '''
import cuda.tile as ct


@ct.kernel
def k(U, Out, n: int, T: ct.Constant[int]):
    u = ct.load(U, index=(0, 0), shape=(T, T))
    for kk in range(n):
        if kk > 0:
            u = 250
        u = u + 10
    ct.store(Out, index=(0, 0), tile=u)
'''
    err = convert_error(loop)
    assert err.startswith("C2T402: the type of 'u' depends on the path taken to here"), err
    shapes = '''
import cuda.tile as ct


@ct.kernel
def k(U, Out, n: int):
    u = ct.load(U, index=(0, 0), shape=(16, 16))
    if ct.bid(0) > n:
        u = ct.sum(u, axis=1, keepdims=True)
    ct.store(Out, index=(0, 0), tile=u)
'''
    assert convert_error(shapes).startswith("C2T402: the type of 'u' depends on the path taken to here")
    unused_after = shapes.replace("    ct.store(Out, index=(0, 0), tile=u)\n",
                                  "").replace("        u = ct.sum(u, axis=1, keepdims=True)\n",
                                              "        u = ct.sum(u, axis=1, keepdims=True)\n"
                                              "        ct.store(Out, index=(0, 0), tile=ct.broadcast_to(u, (16, 16)))\n")
    assert "        u_1 = ct_sum(u, 1, True)\n" in convert_text(unused_after)  # its own name: Triton joins u


def test_a_name_whose_known_type_changes_across_iterations_is_refused_at_the_loop(convert_error, convert_text):
    """`u` a (16, 16) tile before the loop and (16, 1) after its body: cuTile refuses the kernel
    ("Type of `u` depends on path taken"), read after the loop or not, and so does Triton (a
    loop-carried value keeps its type); the converter says so at the loop. Where the dimensions
    are known only at launch (`(T, T)` and `(T, 1)`, T a constexpr), the launch decides, in cuTile
    and in Triton, and the kernel converts."""
    source = '''
import cuda.tile as ct


@ct.kernel
def k(U, Out, n: int):
    u = ct.load(U, index=(0, 0), shape=(16, 16))
    for i in range(n):
        u = ct.sum(u, axis=1, keepdims=True)
    ct.store(Out, index=(0, 0), tile=u)
'''
    err = convert_error(source)
    assert err.startswith("C2T402: the type of `u` changes from one iteration of this loop to the next: "
                          "a tile (16, 16) before it, a tile (16, 1) after its body"), err
    while_loop = source.replace("    for i in range(n):\\n", "    while ct.bid(0) > n:\\n")
    assert "changes from one iteration of this loop" in convert_error(while_loop)
    by_launch = source.replace("def k(U, Out, n: int):", "def k(U, Out, n: int, T: ct.Constant[int]):").replace(
        "shape=(16, 16)", "shape=(T, T)")
    assert "for i in range(n):" in convert_text(by_launch)


def test_a_number_on_one_path_and_a_scalar_tile_of_another_dtype_on_the_other_is_refused_where_used(
        convert_error, convert_text):
    """`s = 3` / `s = ct.sum(<int64 tile>)`, `s = 2.5` / `s = ct.sum(<int32 tile>)`: cuTile refuses a
    read of s ("Type of `s` depends on path taken"); Triton makes the number an int32 (a float a
    float32) scalar and refuses the `if` ("Mismatched type for s between then block (int32) and
    else block (int64)"), where the converter wrote both with exit 0. The number of the scalar's
    own kind (`s = 3` with an int32 sum, `s = 2.5` with a float32 one) still converts."""
    source = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, c: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    if c > 0:
        s = NUMBER
    else:
        s = ct.sum(ct.arange(16, dtype=ct.DTYPE))
    ct.store(Y, index=(0, 0), tile=t + s)
'''
    for number, dtype in (("3", "int64"), ("2.5", "int32"), ("3", "float32")):
        err = convert_error(source.replace("NUMBER", number).replace("DTYPE", dtype))
        assert err.startswith("C2T402: the type of 's' depends on the path taken to here"), (number, dtype, err)
    for number, dtype in (("3", "int32"), ("2.5", "float32")):
        assert "        s = " + number in convert_text(source.replace("NUMBER", number).replace("DTYPE", dtype))


def test_a_name_of_another_type_left_by_break_or_continue_is_refused_where_it_is_read(convert_error, convert_text):
    """A branch that binds u to row sums, then leaves by `break`: read after the loop, u holds
    either type (cuTile: "Type of `u` depends on path taken: Tile[float32,(16,1)] vs.
    Tile[float32,(16,16)]"); by `continue`, the next iteration reads either. Both converted with
    exit 0 into modules Triton refused (the break's value was joined with the loop's as a tile of
    unknown width). Not read anywhere after, the row sums get a name of their own."""
    broken = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, n: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    u = t
    for i in range(8):
        if i == n:
            u = ct.sum(t, axis=1, keepdims=True)
            break
    ct.store(Y, index=(0, 0), tile=t + u)
'''
    err = convert_error(broken)
    assert err.startswith("C2T402: the type of 'u' depends on the path taken to here"), err
    assert "u_1 = ct_sum(t, 1, True)" in convert_text(broken.replace("tile=t + u", "tile=t"))
    continued = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, n: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    u = t
    acc = ct.zeros((16, 16), dtype=ct.float32)
    for i in range(8):
        acc = acc + u
        if i == n:
            u = ct.sum(t, axis=1, keepdims=True)
            continue
    ct.store(Y, index=(0, 0), tile=acc)
'''
    err = convert_error(continued)
    assert err.startswith("C2T402: the type of `u` depends on the path taken through this loop's body (a branch "
                          "that ends in `continue` gives it another type), and the next iteration reads it"), err
    assert "acc = acc + u" in convert_text(continued.replace("ct.sum(t, axis=1, keepdims=True)", "t * 2.0"))


def test_a_tile_function_returning_another_type_on_another_path_is_refused_at_the_return(convert_error, convert_text):
    """Returns of a tile function that give another shape, or tuples of swapped shapes, where a
    run-time `if` decides which runs: cuTile refuses it ("Type of return value depends on path
    taken: Tile[float32,(16,1)] vs. Tile[float32,(16,16)]"), and Triton refused the converted
    module ("Inconsistent return types"). Decided by a constexpr, each version returns one type."""
    source = '''
import cuda.tile as ct


@ct.function
def f(t, c):
    if c > 0:
        return t
    else:
        return ct.sum(t, axis=1, keepdims=True)


@ct.kernel
def k(X, Y, c: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    ct.store(Y, index=(0, 0), tile=t + f(t, c))
'''
    err = convert_error(source)
    assert err.startswith("C2T402: the type of what this tile function returns depends on the path taken: "
                          "a tile (16, 1) here, a tile (16, 16) at another return"), err
    swapped = source.replace("return t\n", "return t, ct.sum(t, axis=1, keepdims=True)\n").replace(
        "return ct.sum(t, axis=1, keepdims=True)\n", "return ct.sum(t, axis=1, keepdims=True), t\n").replace(
        "tile=t + f(t, c)", "tile=f(t, c)[1]")
    assert "returns depends on the path taken" in convert_error(swapped)
    by_constexpr = source.replace("def k(X, Y, c: int):", "def k(X, Y, c: ct.Constant[int]):")
    assert "@triton.jit" in convert_text(by_constexpr)


def test_a_name_of_another_type_through_tuples_nested_ifs_and_numbers_is_refused_where_it_is_used(
        convert_error, convert_text):
    """More reads cuTile refuses ("Type of `x` depends on path taken") that converted with exit 0
    into a module Triton refused (a helper's sweep): an int on one path and a float on the other,
    tuples whose items swap shapes, a name an inner `if` leaves of two shapes read after the outer
    one, and a loop whose body leaves a name of two shapes that its next iteration reads. Each is
    now a located error; unread, each converts."""
    numbers = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, c: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    if c > 0:
        s = 1
    else:
        s = 2.5
    ct.store(Y, index=(0, 0), tile=t * s)
'''
    err = convert_error(numbers)
    assert err.startswith("C2T402: the type of 's' depends on the path taken to here"), err
    assert "t * 2.0" in convert_text(numbers.replace("t * s", "t * 2.0"))
    tuples = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, c: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    s = ct.sum(t, axis=1, keepdims=True)
    if c > 0:
        p = (t, s)
    else:
        p = (s, t)
    ct.store(Y, index=(0, 0), tile=p[0] + p[1])
'''
    err = convert_error(tuples)
    assert err.startswith("C2T402: the type of 'p' depends on the path taken to here"), err
    convert_text(tuples.replace("tile=p[0] + p[1]", "tile=t"))
    nested = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, c: int, d: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    if c > 0:
        if d > 0:
            u = t * 2.0
        else:
            u = ct.sum(t, axis=1, keepdims=True)
    else:
        u = t - 5.0
    ct.store(Y, index=(0, 0), tile=t + u)
'''
    err = convert_error(nested)
    assert err.startswith("C2T402: the type of 'u' depends on the path taken to here"), err
    convert_text(nested.replace("tile=t + u", "tile=t"))
    loop = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, n: int):
    u = ct.load(X, index=(0, 0), shape=(16, 16))
    for i in range(n):
        if i > 0:
            u = ct.sum(u, axis=1, keepdims=True)
    ct.store(Y, index=(0, 0), tile=ct.load(X, index=(0, 0), shape=(16, 16)))
'''
    err = convert_error(loop)
    assert err.startswith("C2T402: the type of `u` depends on the path taken through this loop's body"), err
    convert_text(loop.replace("u = ct.sum(u, axis=1, keepdims=True)", "w = ct.sum(u, axis=1, keepdims=True)"))
    ternary = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, c: int):
    t = ct.load(X, index=(0, 0), shape=(16, 16))
    s = ct.sum(t, axis=1, keepdims=True)
    u = t if c > 0 else s
    ct.store(Y, index=(0, 0), tile=u + t)
'''
    err = convert_error(ternary)
    assert err.startswith("C2T402: the type of 'u' depends on the path taken to here: a run-time `if` (or "), err
    assert "u = t if c > 0 else t * 2.0" in convert_text(ternary.replace("else s", "else t * 2.0"))
