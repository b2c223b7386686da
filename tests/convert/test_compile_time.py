"""Values known before a kernel runs: comparisons on dtypes and None, branches decided at
conversion (only the live one is converted, as cuTile compiles only it), conditions
known at launch (Triton's code generator decides them: a constexpr `if`), and
check_bounds= / latency= given by constexpr parameters or constant expressions.
"""

import json
import os
import subprocess
import sys

import pytest
import torch


@pytest.fixture(autouse=True)
def _on_device(device):
    torch.set_default_device(device)
    yield
    torch.set_default_device("cpu")


def cdiv(a, b):
    return -(-a // b)


# ------------------------------------------------- dtype comparisons at launch

DTYPE_BRANCH = """
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if x.dtype == ct.float32:
        t = t * 2
    elif x.dtype {op} (ct.float16, ct.bfloat16):
        t = t * 3
    else:
        t = t + 7
    ct.store(y, index=(ct.bid(0),), tile=t)
"""


@pytest.mark.parametrize("dtype, expected", [(torch.float32, lambda x: x * 2), (torch.float16, lambda x: x * 3),
                                             (torch.bfloat16, lambda x: x * 3), (torch.int32, lambda x: x + 7)])
def test_dtype_comparison_picks_the_branch_at_launch(convert, dtype, expected):
    mod = convert(DTYPE_BRANCH.format(op="in"))
    x = (torch.arange(40) - 20).to(dtype)
    y = torch.zeros_like(x)
    mod.launch_k(0, (cdiv(40, 16),), (x, y, 16))
    assert torch.equal(y, expected(x))


def test_dtype_not_in(convert):
    mod = convert(DTYPE_BRANCH.replace("x.dtype {op} (ct.float16, ct.bfloat16)",
                                       "x.dtype not in (ct.float32, ct.int32)"))
    x = torch.arange(16).to(torch.float16)
    y = torch.zeros_like(x)
    mod.launch_k(0, (1,), (x, y, 16))
    assert torch.equal(y, x * 3)


def test_dtype_comparison_between_arrays(convert):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if x.dtype != y.dtype:
        t = ct.astype(t * 4, y.dtype)
    ct.store(y, index=(ct.bid(0),), tile=t)
""")
    x = torch.arange(16, dtype=torch.float32)
    for out_dtype, factor in [(torch.float16, 4), (torch.float32, 1)]:
        y = torch.zeros(16, dtype=out_dtype)
        mod.launch_k(0, (1,), (x, y, 16))
        assert torch.equal(y, (x * factor).to(out_dtype))


def test_dtype_conditional_expression(convert):
    # the operands differ in dtype: Triton keeps one at compile time
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    u = ct.astype(t, ct.float32) if t.dtype is not ct.float32 else t * 2
    ct.store(y, index=(ct.bid(0),), tile=u + 1)
""")
    for dtype, expected in [(torch.float16, lambda x: x.float() + 1), (torch.float32, lambda x: x * 2 + 1)]:
        x = torch.arange(16).to(dtype)
        y = torch.zeros(16, dtype=torch.float32)
        mod.launch_k(0, (1,), (x, y, 16))
        assert torch.equal(y, expected(x))


CONDITIONAL_DTYPE = """
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    dt = ct.float16 if x.dtype == ct.float32 else x.dtype
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(ct.astype(t, dt) * 3, ct.float32))
"""


def test_dtype_chosen_by_a_conditional_expression(convert):
    mod = convert(CONDITIONAL_DTYPE)
    for dtype in [torch.float32, torch.bfloat16, torch.int8]:
        x = (torch.arange(16) * 1.37).to(dtype)
        y = torch.zeros(16)
        mod.launch_k(0, (1,), (x, y, 16))
        narrow = torch.float16 if dtype == torch.float32 else dtype
        assert torch.equal(y, (x.to(narrow) * 3).float()), dtype


def test_dtype_chosen_by_a_conditional_expression_compiles_for_the_gpu(tmp_path, convert_text):
    path = tmp_path / "conditional_dtype.py"
    path.write_text(convert_text(CONDITIONAL_DTYPE))
    for pointer in ["*fp32", "*bf16"]:
        signature = {"x": pointer, "x_shape": ["i32"], "x_strides": ["i32"], "y": "*fp32", "y_shape": ["i32"],
                     "y_strides": ["i32"], "TILE": "constexpr"}
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        proc = subprocess.run([sys.executable, "-c", _GPU_COMPILE, str(path), "k", json.dumps(signature),
                               json.dumps({"TILE": 16})], capture_output=True, text=True, timeout=300, env=env)
        if "No module named" in proc.stderr and "nvidia" in proc.stderr:  # pragma: no cover
            pytest.skip("Triton's CUDA back end is not importable")
        assert proc.returncode == 0, proc.stderr[-3000:]


def test_number_or_scalar_chosen_by_a_constexpr(convert):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int], SHARED: ct.Constant[int]):
    row = 0 if SHARED == 1 else ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE))
    ct.store(y, index=(ct.bid(0), 0), tile=t)
""")
    x = torch.arange(3 * 16, dtype=torch.float32).reshape(3, 16)
    for shared, expected in [(1, x[0:1].expand(3, 16)), (0, x)]:
        y = torch.zeros(3, 16)
        mod.launch_k(0, (3,), (x, y, 16, shared))
        assert torch.equal(y, expected), shared


def test_refused_arithmetic_on_tfloat32_chosen_at_launch(convert_error):
    # tfloat32 is tl.float32 to Triton; the type remembers when it is tfloat32 (matrix products
    # read it), and arithmetic on it is refused as cuTile refuses it
    error = convert_error(CONDITIONAL_DTYPE.replace("ct.float16 if", "ct.tfloat32 if"))
    assert "cuTile does no arithmetic on tfloat32" in error


def test_dtype_comparison_is_a_compile_time_branch(convert_text):
    text = convert_text(DTYPE_BRANCH.format(op="in"))
    assert "if x.dtype.element_ty == tl.float32:" in text
    assert "elif x.dtype.element_ty == tl.float16 or x.dtype.element_ty == tl.bfloat16:" in text or \
        "x.dtype.element_ty == tl.float16 or x.dtype.element_ty == tl.bfloat16" in text


_GPU_COMPILE = r"""
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import ASTSource

path, kernel, signature, constants = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
spec = importlib.util.spec_from_file_location("generated", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
signature = {k: tuple(v) if isinstance(v, list) else v for k, v in signature.items()}
fn = getattr(module, kernel)
while not isinstance(fn, triton.runtime.JITFunction):  # under @triton.autotune
    fn = fn.fn
compiled = triton.compile(ASTSource(fn, signature, constants),
                          target=GPUTarget("cuda", 90, 32))
assert compiled.asm["ptx"]
"""


@pytest.mark.parametrize("pointer", ["*fp32", "*fp16", "*i32"])
def test_dtype_branches_compile_for_the_gpu(tmp_path, convert_text, pointer):
    # each branch gives t another dtype: Triton's GPU compiler refuses that in an `if` it
    # compiles at run time, so this compiles only when the dtype test is decided at compile time
    text = convert_text("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int], MODE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if x.dtype == ct.float32:
        t = ct.astype(t, ct.float16)
    elif x.dtype in (ct.float16, ct.bfloat16):
        t = ct.astype(t, ct.int8)
    if MODE in (1, 3):
        t = ct.astype(t, ct.int16)
    u = ct.astype(t, ct.float32) if t.dtype is not ct.float32 else t * 2
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(u, y.dtype))
""")
    path = tmp_path / "dtype_branches.py"
    path.write_text(text)
    signature = {"x": pointer, "x_shape": ["i32"], "x_strides": ["i32"], "y": "*fp32", "y_shape": ["i32"],
                 "y_strides": ["i32"], "TILE": "constexpr", "MODE": "constexpr"}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", _GPU_COMPILE, str(path), "k", json.dumps(signature),
                           json.dumps({"TILE": 16, "MODE": 1})], capture_output=True, text=True, timeout=300, env=env)
    if "No module named" in proc.stderr and "nvidia" in proc.stderr:  # pragma: no cover
        pytest.skip("Triton's CUDA back end is not importable")
    assert proc.returncode == 0, proc.stderr[-3000:]


# ------------------------------------------- decided at conversion: pruned

def test_known_dtype_comparison_prunes_the_dead_branch(convert, convert_text):
    # the dead branch indexes x with two indices (x is 1-d) and calls an op that does not exist:
    # cuTile never compiles it, so it must not be converted
    source = """
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.astype(ct.load(x, index=(ct.bid(0),), shape=(TILE,)), ct.float16)
    if t.dtype == ct.float32:
        u = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, 1))
        ct.no_such_op(u)
    else:
        t = t + 1
    if ct.float16 is ct.float16 and t.dtype != ct.bfloat16:
        t = t * 2
    ct.store(y, index=(ct.bid(0),), tile=t)
"""
    text = convert_text(source)
    assert "no_such_op" not in text
    mod = convert(source)
    x = torch.arange(32, dtype=torch.float32)
    y = torch.zeros(32, dtype=torch.float16)
    mod.launch_k(0, (2,), (x, y, 16))
    assert torch.equal(y, ((x + 1) * 2).half())


def test_known_conditional_expression_converts_only_the_live_operand(convert):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    u = t * 5 if ct.int8 != ct.int16 else ct.no_such_op(t)
    ct.store(y, index=(ct.bid(0),), tile=u)
""")
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16)
    mod.launch_k(0, (1,), (x, y, 16))
    assert torch.equal(y, x * 5)


def test_module_constant_comparison_prunes(convert, convert_text):
    source = """
import cuda.tile as ct

MODE = 2

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if MODE == 1:
        ct.store(y, index=(ct.bid(0), 0), tile=t.reshape((TILE, 1)))
    elif MODE >= 2.5:
        ct.store(y, index=(ct.bid(0), 0, 0), tile=t.reshape((TILE, 1, 1)))
    else:
        ct.store(y, index=(ct.bid(0),), tile=t - 1)
"""
    text = convert_text(source)
    assert "reshape" not in text
    mod = convert(source)
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16)
    mod.launch_k(0, (1,), (x, y, 16))
    assert torch.equal(y, x - 1)


def test_none_comparisons_known_at_conversion(convert):
    mod = convert("""
import cuda.tile as ct

@ct.function
def scaled(t, s):
    if s is None:
        return t
    return t * s

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if t.dtype is not None:
        t = scaled(t, None) + 1
    ct.store(y, index=(ct.bid(0),), tile=t)
""")
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16)
    mod.launch_k(0, (1,), (x, y, 16))
    assert torch.equal(y, x + 1)


def test_constexpr_comparison_decided_at_launch(convert):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int], MODE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if MODE in (1, 3):
        t = t * 2
    if MODE != 3:
        t = t + 1
    ct.store(y, index=(ct.bid(0),), tile=t)
""")
    x = torch.arange(16, dtype=torch.float32)
    for mode, expected in [(1, x * 2 + 1), (2, x + 1), (3, x * 2)]:
        y = torch.zeros(16)
        mod.launch_k(0, (1,), (x, y, 16, mode))
        assert torch.equal(y, expected), mode


# ------------------------------------------------------------ refused

@pytest.mark.parametrize("expr, message", [
    ("t.dtype < ct.float32", "only ==, !=, `is` and `is not` compare a dtype and a dtype"),
    ("t.dtype == 4", "a comparison of a dtype with a constant cannot be converted"),
    ("t is t", "'is' comparisons cannot be converted in tile code"),
    ("t.dtype in DTS", "'in' in tile code can only be converted with a tuple written out"),
])
def test_refused_comparisons(convert_error, expr, message):
    error = convert_error(f"""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    DTS = (ct.float16, ct.float32)
    if {expr}:
        t = t + 1
    ct.store(y, index=(ct.bid(0),), tile=t)
""")
    assert message in error


def test_refused_conditional_expression_of_two_kinds(convert_error):
    error = convert_error("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    u = t if x.dtype == ct.float32 else ct.sum(t, 0, keepdims=True).reshape((1, 1))
    ct.store(y, index=(ct.bid(0),), tile=u)
""")
    assert "the two operands of this conditional expression have different types" in error


# ------------------------------------------ check_bounds= and latency= from constexprs

BOUNDS = """
import cuda.tile as ct

@ct.kernel
def k(x, y, z, w, TILE: ct.Constant[int], EXACT: ct.Constant[bool], LAT: ct.Constant[int]):
    offs = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    g = ct.gather(x, offs, check_bounds=not EXACT, padding_value=1.0, latency=LAT)
    m = ct.gather(x, offs, mask=offs < 20, check_bounds=EXACT == False)
    ct.scatter(y, offs, g + m, check_bounds=not EXACT)
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,), check_bounds=not EXACT, latency=LAT)
    ct.store(z, index=(ct.bid(0),), tile=t * 2, check_bounds=not EXACT, latency=LAT)
    rows = ct.load(w, index=(ct.bid(0), 0), shape=(TILE, 4), check_bounds=not EXACT, padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(w, index=(ct.bid(0), 0), tile=rows + 1, check_bounds=not EXACT)
"""


@pytest.mark.parametrize("n, exact", [(37, False), (48, True)])
def test_check_bounds_from_a_constexpr(convert, n, exact):
    mod = convert(BOUNDS)
    x = torch.arange(n, dtype=torch.float32)
    y, z = torch.zeros(n), torch.zeros(n)
    w = torch.arange(n * 4, dtype=torch.float32).reshape(n, 4)
    expected_w = w + 1
    mod.launch_k(0, (cdiv(n, 16),), (x, y, z, w, 16, exact, 3))
    m = torch.where(torch.arange(n) < 20, x, torch.zeros(n))
    assert torch.equal(y, x + m)
    assert torch.equal(z, x * 2)
    assert torch.equal(w, expected_w)


def test_check_bounds_from_a_constexpr_is_a_helper_argument(convert_text):
    text = convert_text(BOUNDS)
    assert "check_bounds=not EXACT)" in text
    assert "if not EXACT else None" in text


@pytest.mark.parametrize("exact", [False, True])
def test_check_bounds_constexpr_compiles_for_the_gpu(tmp_path, convert_text, exact):
    path = tmp_path / "bounds.py"
    path.write_text(convert_text(BOUNDS))
    signature = {"TILE": "constexpr", "EXACT": "constexpr", "LAT": "constexpr"}
    for a in "xyzw":
        signature.update({a: "*fp32", a + "_shape": ["i32"] * (2 if a == "w" else 1),
                          a + "_strides": ["i32"] * (2 if a == "w" else 1)})
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", _GPU_COMPILE, str(path), "k", json.dumps(signature),
                           json.dumps({"TILE": 16, "EXACT": exact, "LAT": 2})],
                          capture_output=True, text=True, timeout=300, env=env)
    if "No module named" in proc.stderr and "nvidia" in proc.stderr:  # pragma: no cover
        pytest.skip("Triton's CUDA back end is not importable")
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_check_bounds_in_a_tile_function_and_atomics(convert):
    mod = convert("""
import cuda.tile as ct

@ct.function
def bump(y, offs, flag):
    ct.atomic_add(y, offs, 1.0, check_bounds=flag)

@ct.kernel
def k(y, TILE: ct.Constant[int], PADDED: ct.Constant[bool]):
    offs = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    bump(y, offs, PADDED)
""")
    y = torch.zeros(21)
    mod.launch_k(0, (2,), (y, 16, True))
    assert torch.equal(y, torch.ones(21))


@pytest.mark.parametrize("option, message", [
    ("check_bounds=t > 0", "check_bounds must be True, False or a constexpr parameter"),
    ("check_bounds=1.5", "check_bounds must be True, False or a constexpr parameter"),
    ("latency=11", "latency must be a constant from 1 to 10"),
    ("latency=ct.bid(0)", "latency must be a constant from 1 to 10"),
])
def test_refused_memory_options(convert_error, option, message):
    error = convert_error(f"""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=())
    offs = ct.arange(TILE, dtype=ct.int32)
    ct.scatter(y, offs, t, {option})
""")
    assert message in error


# ------------------------------------ an array's rank chosen by a constexpr branch

RANK_BRANCH = """
import cuda.tile as ct

@ct.kernel
def k(x, out, TILE: ct.Constant[int], PER_ELEMENT: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE))
    if PER_ELEMENT == 1:
        ct.store(out, index=(row, 0), tile=t * 2)
    if PER_ELEMENT != 1:
        ct.scatter(out, row, ct.sum(t, 1, keepdims=False).reshape(()))
"""


@pytest.mark.parametrize("per_element", [1, 0])
def test_array_rank_chosen_by_a_constexpr_branch(convert, per_element):
    # out is (rows, TILE) when PER_ELEMENT == 1, else (rows,): cuTile compiles only the taken branch
    mod = convert(RANK_BRANCH)
    x = torch.arange(4 * 16, dtype=torch.float32).reshape(4, 16)
    out = torch.zeros(4, 16) if per_element else torch.zeros(4)
    mod.launch_k(0, (4,), (x, out, 16, per_element))
    assert torch.equal(out, x * 2 if per_element else x.sum(1))


@pytest.mark.parametrize("per_element", [1, 0])
def test_array_rank_chosen_by_a_constexpr_branch_compiles_for_the_gpu(tmp_path, convert_text, per_element):
    path = tmp_path / "rank_branch.py"
    path.write_text(convert_text(RANK_BRANCH))
    out_rank = 2 if per_element else 1
    signature = {"x": "*fp32", "x_shape": ["i32"] * 2, "x_strides": ["i32"] * 2, "out": "*fp32",
                 "out_shape": ["i32"] * out_rank, "out_strides": ["i32"] * out_rank, "TILE": "constexpr",
                 "PER_ELEMENT": "constexpr", "x_tma": "constexpr", "out_tma": "constexpr"}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", _GPU_COMPILE, str(path), "k", json.dumps(signature),
                           json.dumps({"TILE": 16, "PER_ELEMENT": per_element, "x_tma": True, "out_tma": True})],
                          capture_output=True, text=True, timeout=300, env=env)
    if "No module named" in proc.stderr and "nvidia" in proc.stderr:  # pragma: no cover
        pytest.skip("Triton's CUDA back end is not importable")
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_refused_array_of_two_ranks_in_a_run_time_branch(convert_error):
    # a run-time `if` compiles both branches: one rank for the array, as in cuTile
    error = convert_error(RANK_BRANCH.replace("if PER_ELEMENT == 1:", "if ct.bid(0) == 1:")
                          .replace("if PER_ELEMENT != 1:", "if ct.bid(0) != 1:"))
    assert "ct.scatter(): the indices need one entry per array dimension" in error


TILE_OF_TWO_RANKS = '''
import cuda.tile as ct


@ct.kernel
def two_ranks_kernel(x, y, B: ct.Constant[int]):
    if B == 1:
        acc = ct.zeros((8,), dtype=ct.float32)
    else:
        acc = ct.zeros((8, B), dtype=ct.float32)
    ct.store(y, index=(0,), tile=ct.sum(acc, axis=0))
'''


def test_a_tile_given_two_ranks_by_a_launch_time_branch_gets_a_version_per_outcome(convert, device):
    # Triton compiles one branch per value of B, cuTile one kernel per value: after the
    # `if` the rank is not known, so the kernel is lowered once for B == 1 and once for
    # B != 1, joined under `if B == 1:` (tests/convert/test_versioning.py)
    mod = convert(TILE_OF_TWO_RANKS.replace("ct.zeros(", "ct.ones("))
    for b in (1, 4):
        y = torch.zeros(b, device=device)
        mod.launch_two_ranks_kernel(0, (1,), (torch.zeros(1, device=device), y, b))
        assert torch.equal(y, torch.full((b,), 8.0, device=device))


def test_a_tile_given_two_shapes_by_a_launch_time_branch_keeps_what_they_share(convert, device):
    mod = convert(TILE_OF_TWO_RANKS.replace("ct.zeros((8,), dtype=ct.float32)", "ct.ones((8, B), dtype=ct.float32)")
                  .replace("tile=ct.sum(acc, axis=0)", "tile=ct.sum(acc, axis=0) + 1"))
    for b, expected in ((1, 9.0), (4, 1.0)):
        y = torch.zeros(b, device=device)
        mod.launch_two_ranks_kernel(0, (1,), (torch.zeros(8, device=device), y, b))
        assert torch.equal(y.cpu(), torch.full((b,), expected))


UNKNOWN_IN_BRANCH = '''
import cuda.tile as ct


@ct.kernel
def swish_kernel(x, y, IS_SWISH: ct.Constant[int], B: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(B,))
    if IS_SWISH:
        t = ct.sigmoid(t) * t
    ct.store(y, index=(0,), tile=t)
'''


def test_a_branch_calling_a_name_cutile_lacks_fails_only_when_compiled(convert, device):
    # cuTile 1.7 has no ct.sigmoid: it reports that only when it compiles the branch
    # (IS_SWISH true); the converted kernel fails in the same case, and runs otherwise
    mod = convert(UNKNOWN_IN_BRANCH)
    x = torch.randn(8, device=device)
    y = torch.zeros_like(x)
    mod.launch_swish_kernel(0, (1,), (x, y, 0, 8))
    assert torch.equal(x, y)
    with pytest.raises(Exception, match="ct.sigmoid is not a name of cuda.tile"):
        mod.launch_swish_kernel(0, (1,), (x, y, 1, 8))


UNKNOWN_IN_ELIF = '''
import cuda.tile as ct


@ct.kernel
def act_kernel(x, y, ACT: ct.Constant[int], B: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(B,))
    if ACT == 1:
        t = ct.maximum(t, 0.0)
    elif ACT == 2:
        t = t * ct.sigmoid(t)
    elif ACT == 3:
        t = t + 1.0
    else:
        t = t - 1.0
    ct.store(y, index=(0,), tile=t)
'''


def test_an_elif_calling_a_name_cutile_lacks_leaves_the_rest_of_the_chain(convert, device):
    """Only the `elif` that calls the unknown name fails when compiled: the branches after it,
    and the final else, were replaced with it (a public matmul's ACT=0 and ACT=3 failed to
    compile converted, where cuTile runs them)."""
    mod = convert(UNKNOWN_IN_ELIF)
    x = torch.randn(8, device=device)
    for act, want in ((0, x - 1.0), (1, torch.clamp(x, min=0.0)), (3, x + 1.0)):
        y = torch.zeros_like(x)
        mod.launch_act_kernel(0, (1,), (x, y, act, 8))
        assert torch.equal(y, want), act
    with pytest.raises(Exception, match="ct.sigmoid is not a name of cuda.tile"):
        mod.launch_act_kernel(0, (1,), (x, torch.zeros_like(x), 2, 8))


def test_a_run_time_elif_of_a_constexpr_if_calling_a_name_cutile_lacks_fails_only_when_compiled(convert, device):
    """`elif ct.bid(0) == 0:` after `if ACT == 1:`: cuTile compiles the run-time `if` as a whole
    where ACT takes it, so it is the static_assert as a whole (it was refused since the `elif`
    is lowered alone)."""
    mod = convert(UNKNOWN_IN_ELIF.replace("elif ACT == 2:", "elif ct.bid(0) == 0:"))
    x = torch.randn(8, device=device)
    y = torch.zeros_like(x)
    mod.launch_act_kernel(0, (1,), (x, y, 1, 8))
    assert torch.equal(y, torch.clamp(x, min=0.0))
    with pytest.raises(Exception, match="ct.sigmoid is not a name of cuda.tile"):
        mod.launch_act_kernel(0, (1,), (x, y, 3, 8))


def test_a_branch_calling_an_operation_with_arguments_it_lacks_fails_only_when_compiled(convert, device):
    """`ct.arange(0, 16)` (cuTile's takes one positional argument) in a branch of a constexpr:
    cuTile reports it only when it compiles that branch; the conversion was refused."""
    mod = convert(UNKNOWN_IN_BRANCH.replace("ct.sigmoid(t) * t", "t * (ct.arange(0, B) + 1)"))
    x = torch.randn(8, device=device)
    y = torch.zeros_like(x)
    mod.launch_swish_kernel(0, (1,), (x, y, 0, 8))
    assert torch.equal(x, y)
    with pytest.raises(Exception, match="ct.arange.. takes at most 1 positional arguments"):
        mod.launch_swish_kernel(0, (1,), (x, y, 1, 8))


def test_a_run_time_branch_calling_a_name_cutile_lacks_is_refused(convert_error):
    error = convert_error(UNKNOWN_IN_BRANCH.replace("if IS_SWISH:", "if ct.bid(0) == 0:"))
    assert "ct.sigmoid is not a name of cuda.tile" in error


# ---------------------------------------------------------- tuple comparisons

TUPLE_COMPARISONS = """
import cuda.tile as ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    a = ct.load(x, (0,), (B,))
    b = ct.load(y, (0,), (B,))
    ct.static_assert(a.shape == b.shape)
    ct.static_assert(a.shape != (B, B))
    if a.shape == (16,) and (B, 2) != (B, 3):
        a = a * 2
    if (B, 1) == (8, 1):
        a = a + 1
    ct.store(x, (0,), a + b)
"""


def test_tuples_compare_item_by_item(convert, convert_text, convert_error):
    """`a.shape == b.shape` (shape checks) and comparisons with tuples written out: item by
    item, folded where the items are known, constexprs otherwise (ct.static_assert and a
    branch decided at launch take them); tuples of different lengths are unequal."""
    text = convert_text(TUPLE_COMPARISONS)
    kernel = text[text.index("def k("):text.index("def launch_k")]
    assert "static_assert" not in kernel  # both decided here: (B,) == (B,), and lengths 1 and 2
    assert "if B == 16" in kernel and "if B == 8:" in kernel
    failed = convert_error(TUPLE_COMPARISONS.replace("a.shape != (B, B)", "a.shape == (B, B)"))
    assert "static assertion failed" in failed or "static_assert" in failed
    mod = convert(TUPLE_COMPARISONS)
    for size, want in ((16, lambda x, y: x * 2 + y), (8, lambda x, y: x + 1 + y), (4, lambda x, y: x + y)):
        x, y = torch.randn(size), torch.randn(size)
        expected = want(x, y)
        mod.launch_k(0, (1,), (x, y, size))
        torch.testing.assert_close(x, expected)
    ordering = convert_error(TUPLE_COMPARISONS.replace("a.shape != (B, B)", "a.shape < (B, B)"))
    assert "tuples can be compared with == and != only" in ordering


CONSTANT_TUPLE = """
import cuda.tile as ct


@ct.kernel
def k(x, B: ct.Constant[int], SHAPE: ct.Constant[tuple]):
    a = ct.load(x, (0,), (B,))
    if SHAPE == (B,):
        a = a + 1
    if SHAPE != (B, 2):
        a = a * 2
    ct.store(x, (0,), a)
"""


def test_a_constant_tuple_parameter_compares_whole_when_triton_compiles(convert, convert_text):
    """A ct.Constant tuple parameter's length is known only at launch: the comparison is
    Python's, made when Triton compiles the kernel (ct_same_tuple)."""
    assert "if ct_same_tuple(SHAPE, (B,)):" in convert_text(CONSTANT_TUPLE)
    mod = convert(CONSTANT_TUPLE)
    for shape, want in (((8,), lambda x: (x + 1) * 2), ((8, 2), lambda x: x), ((4, 4), lambda x: x * 2)):
        x = torch.randn(8)
        expected = want(x)
        mod.launch_k(0, (1,), (x, 8, shape))
        torch.testing.assert_close(x, expected)


RANK_AND_MODE = """
import cuda.tile as ct


@ct.kernel
def k(A, C, T: ct.Constant[int], MODE: ct.Constant[int]):
    if A.ndim == 1 and MODE == 0:
        ct.store(C, (0,), ct.load(A, (0,), (T,)) + 1)
    if A.ndim == 2 and MODE == 0:
        ct.store(C, (0,), ct.reshape(ct.load(A, (0, 0), (1, T)), (T,)) + 2)
    if A.ndim == 2:
        ct.store(C, (1,), ct.reshape(ct.load(A, (1, 0), (1, T)), (T,)) * 3)
"""


def test_an_and_of_constexprs_is_decided_when_triton_compiles(convert, convert_text):
    """`if A.ndim == 1 and MODE == 0:` is a constexpr condition: the rank its branch learns
    holds only there (it fixed A's rank for the rest, and the 2-D branches after it were
    dropped as dead: a 2-D A then ran nothing)."""
    text = convert_text(RANK_AND_MODE)
    assert "if len(A_shape) == 2 and MODE == 0:" in text and "if len(A_shape) == 2:" in text
    mod = convert(RANK_AND_MODE)
    a1 = torch.randn(8)
    c = torch.zeros(16)  # tile 0: the first two branches, tile 1: the third
    mod.launch_k(0, (1,), (a1, c, 8, 0))
    torch.testing.assert_close(c, torch.cat([a1 + 1, torch.zeros(8)]))
    a2 = torch.randn(2, 8)
    c = torch.zeros(16)
    mod.launch_k(0, (1,), (a2, c, 8, 0))
    torch.testing.assert_close(c, torch.cat([a2[0] + 2, a2[1] * 3]))
    c = torch.zeros(16)
    mod.launch_k(0, (1,), (a2, c, 8, 1))
    torch.testing.assert_close(c, torch.cat([torch.zeros(8), a2[1] * 3]))


CHOSEN_CONSTANT = """
import cuda.tile as ct


@ct.kernel
def k(A, T: ct.Constant[int], FLAG: ct.Constant[int]):
    x = 1 if FLAG == 1 else 0
    t = ct.load(A, index=(0,), shape=(T,))
    if x == 1:
        t = t + 1
    ct.store(A, index=(0,), tile=t * (2.5 if FLAG == 1 else 2.5))
"""


def test_a_constant_chosen_by_a_constexpr_is_not_either_operand(convert, convert_text):
    """`1 if FLAG == 1 else 0` is known only when Triton compiles: an `if x == 1:` on it stays
    (the two constants were taken as one type, the first: x was 1 and the `if` dropped, so
    FLAG == 0 added 1 too); operands of one value stay that value (2.5)."""
    text = convert_text(CHOSEN_CONSTANT)
    assert "if x == 1:" in text
    mod = convert(CHOSEN_CONSTANT)
    for flag, added in ((1, 1.0), (0, 0.0)):
        a = torch.randn(8)
        expected = (a + added) * 2.5
        mod.launch_k(0, (1,), (a, 8, flag))
        torch.testing.assert_close(a, expected)


RETURNED_CONSTANTS = """
import cuda.tile as ct


def pick(F):
    if F == 1:
        return 1
    return 0


def pick_else(F):
    if F == 1:
        return 1
    else:
        return 0


@ct.kernel
def k(A, T: ct.Constant[int], F: ct.Constant[int]):
    t = ct.load(A, index=(0,), shape=(T,))
    if pick(F) == 1:
        t = t + 1
    if pick_else(F) == 0:
        t = t * 5
    ct.store(A, index=(0,), tile=t)
"""


def test_constants_returned_under_a_constexpr_are_known_only_when_triton_compiles(convert, convert_text):
    """A tile function returning 1 or 0 by a constexpr: its callers saw the first return's
    type, value included, so `pick(F) == 1` was folded true and `pick_else(F) == 0` false."""
    text = convert_text(RETURNED_CONSTANTS)
    assert "if pick(F) == 1:" in text and "if pick_else(F) == 0:" in text
    mod = convert(RETURNED_CONSTANTS)
    for flag, want in ((1, lambda a: a + 1), (0, lambda a: a * 5)):
        a = torch.randn(8)
        expected = want(a)
        mod.launch_k(0, (1,), (a, 8, flag))
        torch.testing.assert_close(a, expected)


CHOSEN_TUPLE = """
import cuda.tile as ct


def pick(F):
    if F == 1:
        return (1, 2)
    return (3, 4)


@ct.kernel
def k(A, T: ct.Constant[int], F: ct.Constant[int]):
    offsets = (10, 20) if F == 1 else (30, 40)
    t = ct.load(A, index=(0,), shape=(T,))
    ct.store(A, index=(0,), tile=t + offsets[1] + pick(F)[0])
"""


def test_tuples_chosen_by_a_constexpr_keep_both_choices(convert, convert_error):
    """`(10, 20) if F == 1 else (30, 40)` and a tile function returning one of two tuples:
    their items are known only when Triton compiles (the first tuple stood for both; as a
    tile shape such a tuple is a located error, not the first shape)."""
    mod = convert(CHOSEN_TUPLE)
    for flag, added in ((1, 20 + 1), (0, 40 + 3)):
        a = torch.randn(8)
        expected = a + added
        mod.launch_k(0, (1,), (a, 8, flag))
        torch.testing.assert_close(a, expected)
    shape = CHOSEN_TUPLE.replace("shape=(T,)", "shape=(8,) if F == 1 else (16,)")
    assert "a tile shape kept in a local tuple must hold constants, assigned once" in convert_error(shape)


BRANCH_TUPLES = """
import cuda.tile as ct


@ct.kernel
def k(A, T: ct.Constant[int], F: ct.Constant[int], N: int):
    if F == 1:
        offsets = (10, 20)
    else:
        offsets = (30, 40)
    steps = (0, 1)
    for i in range(N):
        steps = (i, i + 1)
    t = ct.load(A, index=(0,), shape=(T,))
    ct.store(A, index=(0,), tile=t + offsets[1] + steps[1])
"""


def test_tuples_assigned_in_branches_and_loops_keep_every_value(convert, convert_error):
    """A tuple that each branch of an `if` (or a loop) assigns differently: its items after
    it are what the run gives (the else branch's tuple stood for both, the loop's first)."""
    mod = convert(BRANCH_TUPLES)
    for flag, n, added in ((1, 3, 20 + 3), (0, 0, 40 + 1)):
        a = torch.randn(8)
        expected = a + added
        mod.launch_k(0, (1,), (a, 8, flag, n))
        torch.testing.assert_close(a, expected)
    # each branch assigns it once from constants: a constexpr local there, so it may size a tile
    as_shape = convert(BRANCH_TUPLES.replace("shape=(T,)", "shape=(offsets[0] // 10 * 8,)"))
    a = torch.randn(8)
    expected = a + 20 + 3
    as_shape.launch_k(0, (1,), (a, 8, 1, 3))
    torch.testing.assert_close(a, expected)
    looped = BRANCH_TUPLES.replace("shape=(T,)", "shape=(steps[0] * 8,)")
    assert "the tile shape must be constant" in convert_error(looped)
    lengths = BRANCH_TUPLES.replace("offsets = (30, 40)", "offsets = (30, 40, 50)")
    assert "'offsets' is a tuple of 2 items in one branch of this `if` and of 3 in the other" in convert_error(lengths)


def test_an_enum_chosen_by_a_constexpr_is_a_located_error(convert_error):
    """A padding mode chosen by a condition known at launch selects code here: one value is
    needed (the first operand, or the else branch's, stood for both)."""
    chosen = """
import cuda.tile as ct


@ct.kernel
def k(A, B, T: ct.Constant[int], F: ct.Constant[int]):
    mode = ct.PaddingMode.ZERO if F == 1 else ct.PaddingMode.NEG_INF
    ct.store(B, index=(0,), tile=ct.load(A, index=(0,), shape=(T,), padding_mode=mode))
"""
    assert "the two operands of this conditional expression have different types" in convert_error(chosen)
    branches = chosen.replace("    mode = ct.PaddingMode.ZERO if F == 1 else ct.PaddingMode.NEG_INF\n",
                              "    if F == 1:\n        mode = ct.PaddingMode.ZERO\n    else:\n"
                              "        mode = ct.PaddingMode.NEG_INF\n")
    assert "'mode' is PaddingMode.ZERO in one branch of this `if` and PaddingMode.NEG_INF" in convert_error(branches)


RUN_TIME_CHOICE = """
import cuda.tile as ct


@ct.kernel
def k(A, S, T: ct.Constant[int]):
    s = ct.load(S, (0,), ())
    x = 1 if s > 0 else 0
    t = ct.load(A, (0,), (T,))
    if x == 1:
        t = t + 1
    ct.store(A, (0,), t)
"""


def test_numbers_chosen_by_a_run_time_condition_are_a_run_time_scalar(convert, convert_text):
    """`1 if s > 0 else 0` with s loaded: neither number (the first stood for both, and
    `if x == 1:` was folded true)."""
    assert "if x == 1:" in convert_text(RUN_TIME_CHOICE)
    mod = convert(RUN_TIME_CHOICE)
    for sign, added in ((1.0, 1.0), (-1.0, 0.0)):
        a = torch.randn(8)
        expected = a + added
        mod.launch_k(0, (1,), (a, torch.tensor([sign]), 8))
        torch.testing.assert_close(a, expected)


RUN_TIME_TUPLE = """
import cuda.tile as ct


@ct.kernel
def k(A, B, S, T: ct.Constant[int]):
    s = ct.load(S, (0,), ())
    idx = (0, 0) if s > 0 else (1, 0)
    ct.store(B, (0, 0), ct.load(A, idx, (1, T)))
"""


def test_tuples_chosen_by_a_run_time_condition_keep_both_choices(convert):
    """`(0, 0) if s > 0 else (1, 0)`: each item is what the run chooses (the first tuple stood
    for both: row 0 was read either way)."""
    mod = convert(RUN_TIME_TUPLE)
    a = torch.randn(2, 16)
    for sign, row in ((1.0, 0), (-1.0, 1)):
        b = torch.zeros(1, 16)
        mod.launch_k(0, (1,), (a, b, torch.tensor([sign]), 16))
        torch.testing.assert_close(b[0], a[row])


def test_strings_compare_at_conversion_or_when_triton_compiles(convert_text, convert_error):
    """Two strings written out compare at conversion (the dead branch is not converted); a string
    and a number are unequal, as in Python; an ordering of strings is a located error."""
    text = convert_text('''
import cuda.tile as ct


@ct.kernel
def k(x, MODE: ct.Constant[str]):
    t = ct.load(x, (0,), (16,))
    if "a" == "b" or 3 == "3":
        t = ct.no_such_op(t)
    if MODE != "keep":
        t = t * 2
    ct.store(x, (0,), t)
''')
    assert "no_such_op" not in text and 'if MODE != "keep":' in text
    assert "only == and != compare strings" in convert_error('''
import cuda.tile as ct


@ct.kernel
def k(x, MODE: ct.Constant[str]):
    if MODE < "m":
        ct.store(x, (0,), ct.zeros((16,), dtype=ct.float32))
''')
