"""Python values in tile code, evaluated at conversion time (issue 9, "tilevals").

cuTile's front end evaluates some Python while it compiles a kernel: the
constants of math, numpy and torch, their dtypes, float("inf"), len() of a
tuple, names bound at module level (also by tuple assignment or imported from
another module). The converter folds those it can know to literals (Python's
repr of the double), and leaves math functions of a constant parameter (known
only at launch) to Triton, which calls math's function while compiling. What
cannot be known or translated is a located error.
"""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

N = 64

SCALE_KERNEL = """
import math
import numpy as np
import torch
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * ({expr}))
"""

FOLDED = [
    "math.pi", "math.e", "math.tau", "np.pi", "np.e", "torch.pi", "torch.e",
    "math.log2(math.e)", "math.sqrt(2.0)", "math.log(2)", "math.log(8, 2)", "math.log10(1000)",
    "math.exp(1.5)", "math.exp(-0.5) * 3", "math.pow(2, 0.5)", "math.atan2(1, 2)", "math.tanh(0.3)",
    "math.floor(2.7)", "math.ceil(2.1)", "math.trunc(-2.5)", "math.fabs(-1.25)", "math.copysign(3, -0.0)",
    "1.0 / math.sqrt(3)", "math.sqrt(2.0 * math.pi)", "float('1.5e-3')", "float(\"-2.5\")",
]


def run_scale(convert, expr):
    mod = convert(SCALE_KERNEL.format(expr=expr))
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    return x, y


@pytest.mark.parametrize("expr", FOLDED)
def test_values_known_at_conversion_match_python(convert, expr):
    value = eval(expr, {"math": math, "np": np, "torch": torch})
    x, y = run_scale(convert, expr)
    expected = x * torch.tensor(float(value), dtype=torch.float32)
    assert torch.equal(y, expected), (expr, value)


@pytest.mark.parametrize("expr", ["math.log2(math.e)", "math.sqrt(2.0)", "math.log(2)", "math.exp(1.5)", "np.pi"])
def test_folded_value_is_spelled_as_python_repr(convert_text, expr):
    value = eval(expr, {"math": math, "np": np})
    text = convert_text(SCALE_KERNEL.format(expr=expr))
    assert f"t * {value!r}" in text, text


@pytest.mark.parametrize("value", [0.1, 1e16, 1.5e-07, -0.0, 123.0, 1234567890123456.0, 1e-30, 3e+38,
                                   0.0001, 2.0 ** 70, 1 / 3])
def test_float_literal_is_python_repr(convert_text, value):
    # float("...") of a literal is read at conversion and written back as repr
    text = convert_text(SCALE_KERNEL.format(expr=f"float('{value!r}')"))
    assert f"t * {value!r}" in text or f"t * ({value!r})" in text, text


INF_KERNEL = """
import math
import numpy as np
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    low = ct.where(t > 0, t, {neg})
    high = ct.full((TILE,), {pos}, dtype=ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=ct.minimum(low, high))
"""


@pytest.mark.parametrize("neg,pos", [("-math.inf", "math.inf"), ("float('-inf')", "float('inf')"),
                                     ("-np.inf", "np.inf"), ("float('-Infinity')", "float(' +inf ')")])
def test_infinities(convert, neg, pos):
    mod = convert(INF_KERNEL.format(neg=neg, pos=pos))
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    assert torch.equal(y, torch.where(x > 0, x, -torch.inf))


@pytest.mark.parametrize("nan", ["math.nan", "float('nan')", "np.nan", "torch.nan"])
def test_nan(convert, nan):
    mod = convert(SCALE_KERNEL.format(expr=nan))
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    assert torch.isnan(y).all()


DTYPE_KERNEL = """
import numpy as np
import torch
import cuda.tile as ct
{imports}

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    r = ct.arange(TILE, dtype={index_dtype})
    z = ct.full((TILE,), 0.5, dtype={float_dtype})
    ct.store(y, index=(ct.bid(0),), tile=(t + r + z).astype({out_dtype}))
"""


def _check_dtype_kernel(mod):
    x = torch.randn(N, dtype=torch.float16)
    y = torch.empty(N, dtype=torch.float16)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    r = torch.arange(16).repeat(N // 16).float()
    assert torch.equal(y, (x.float() + r + 0.5).half())


@pytest.mark.parametrize("imports,index_dtype,float_dtype,out_dtype", [
    ("", "np.int32", "np.float32", "np.float16"),
    ("", "torch.int32", "torch.float32", "torch.float16"),
    ("", "torch.int", "torch.float", "torch.half"),
    ("", "ct.int32", "ct.float32", "ct._datatype.float16"),
    ("import cuda.tile._datatype as dt", "dt.int32", "dt.float32", "dt.float16"),
    ("from cuda.tile._datatype import int32 as i32, float32, float16", "i32", "float32", "float16"),
    ("from numpy import int32, float32, float16", "int32", "float32", "float16"),
])
def test_numpy_torch_and_private_dtypes(convert, imports, index_dtype, float_dtype, out_dtype):
    _check_dtype_kernel(convert(DTYPE_KERNEL.format(imports=imports, index_dtype=index_dtype,
                                                    float_dtype=float_dtype, out_dtype=out_dtype)))


@pytest.mark.parametrize("imports,index_dtype,float_dtype,out_dtype", [
    ("import cupy as cp", "cp.int32", "cp.float32", "cp.float16"),
    ("from cupy import int32, float32, float16", "int32", "float32", "float16"),
])
def test_cupy_dtypes_are_numpy_s(convert, monkeypatch, imports, index_dtype, float_dtype, out_dtype):
    # cupy.float32 is numpy.float32, which cuTile takes as a dtype in tile code; CuPy is not
    # installed here, so the converted module imports a stand-in holding numpy's types
    import numpy
    import types
    cupy = types.ModuleType("cupy")
    cupy.int32, cupy.float32, cupy.float16 = numpy.int32, numpy.float32, numpy.float16
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    _check_dtype_kernel(convert(DTYPE_KERNEL.format(imports=imports, index_dtype=index_dtype,
                                                    float_dtype=float_dtype, out_dtype=out_dtype)))


def test_module_dtype_alias_of_torch(convert):
    mod = convert("""
import torch
import cuda.tile as ct

ACC = torch.float32

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,)).astype(ACC)
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)
""")
    x = torch.randn(N, dtype=torch.float16)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    assert torch.equal(y, x.float() * 3.0)


def test_private_rounding_mode_spelling(convert):
    mod = convert("""
import cuda.tile as ct
from cuda.tile._numeric_semantics import RoundingMode as RMd

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t.astype(ct.float16, rounding_mode=RMd.RZ))
""")
    x = torch.randn(N) * 1000
    y = torch.empty(N, dtype=torch.float16)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    # toward zero: the nearest float16, one step toward zero where that rounded away
    nearest = x.half()
    away = nearest.float().abs() > x.abs()
    expected = torch.where(away, torch.nextafter(nearest, torch.zeros_like(nearest)), nearest)
    assert torch.equal(y, expected)


def test_math_of_a_constant_parameter_is_left_to_triton(convert, convert_text):
    source = """
import math
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int], D: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * (1.0 / math.sqrt(D)) + math.floor(D / 2))
"""
    assert "1.0 / math.sqrt(D)" in convert_text(source)
    mod = convert(source)
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y, 16, 7))
    expected = x * torch.tensor(1.0 / math.sqrt(7), dtype=torch.float32) + math.floor(7 / 2)
    assert torch.equal(y, expected)


GPU_COMPILE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("converted", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
import triton
from triton.backends.compiler import GPUTarget
one = ("i32",)
signature = {"x": "*fp32", "x_shape": one, "x_strides": one, "y": "*fp32", "y_shape": one, "y_strides": one,
             "TILE": "constexpr", "D": "constexpr"}
kernel = mod.k
while not isinstance(kernel, triton.runtime.JITFunction):  # under @triton.autotune
    kernel = kernel.fn
src = triton.compiler.ASTSource(kernel, signature, {"TILE": 16, "D": 7})
print(triton.compile(src, target=GPUTarget("cuda", 90, 32)).asm["ttir"])
"""


def test_math_of_a_constant_parameter_compiles_for_the_gpu(tmp_path):
    # Triton's GPU front end (not the interpreter) calls math.sqrt on the
    # constexpr while compiling; compiling for sm_90 needs no GPU
    import ops_common

    source = tmp_path / "cutile_sqrt.py"
    source.write_text(textwrap.dedent("""
        import math
        import cuda.tile as ct

        @ct.kernel
        def k(x, y, TILE: ct.Constant[int], D: ct.Constant[int]):
            t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
            ct.store(y, index=(ct.bid(0),), tile=t * (1.0 / math.sqrt(D)))
    """))
    converted = tmp_path / "triton_sqrt.py"
    proc = subprocess.run([str(ops_common.CONVERTER), str(source), "-o", str(converted)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "cache")
    proc = subprocess.run([sys.executable, "-c", GPU_COMPILE, str(converted)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "dense<0.377964467>" in proc.stdout  # float32(1 / sqrt(7)), folded by Triton


def test_len_of_known_tuples(convert):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    sizes = (1, 2, 3)
    ct.store(y, index=(ct.bid(0),), tile=t * len(sizes) + len(t.shape) + len(x.shape) * 10)
""")
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    assert torch.equal(y, x * 3 + 1 + 10)


def test_tuple_assignments_and_module_constants(convert):
    mod = convert("""
import math
import cuda.tile as ct

TM, SCALE = 16, 2.5
NEG = -math.inf

@ct.kernel
def k(x, y):
    a, b = 1.0, 0.0
    t = ct.load(x, index=(ct.bid(0),), shape=(TM,))
    ct.store(y, index=(ct.bid(0),), tile=ct.maximum(ct.where(t > 0, t * SCALE * a + b, NEG), -1.0))
""")
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y))
    assert torch.equal(y, torch.clamp(torch.where(x > 0, x * 2.5, -torch.inf), min=-1.0))


def test_constant_imported_from_a_sibling_module(tmp_path, monkeypatch):
    import ops_common

    pkg = tmp_path / "tvpkg"
    (pkg / "cutile").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "cutile" / "__init__.py").write_text("")
    (pkg / "cutile" / "config.py").write_text("BLOCK = 16\nFACTOR = 0.5\n")
    (pkg / "cutile" / "kern.py").write_text(textwrap.dedent("""
        import cuda.tile as ct
        from .config import BLOCK, FACTOR as F

        @ct.kernel
        def k(x, y):
            t = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,))
            ct.store(y, index=(ct.bid(0),), tile=t * F)
    """))
    out = pkg / "cutile" / "kern_triton.py"
    proc = subprocess.run([str(ops_common.CONVERTER), str(pkg / "cutile" / "kern.py"), "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "BLOCK_TL = tl.constexpr(BLOCK)" in out.read_text()
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    mod = importlib.import_module("tvpkg.cutile.kern_triton")
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y))
    assert torch.equal(y, x * 0.5)


@pytest.mark.parametrize("cutile_import", ["import cuda.tile as ct",
                                           "try:\n    import cuda.tile as ct\nexcept ImportError:\n    ct = None"])
def test_constant_bound_above_the_cuda_tile_import(convert, device, cutile_import):
    # a constant the converter does not know (imported from outside the package: tarfile's 512)
    # is read through its constexpr twin, which calls tl: the twin follows the imports
    mod = convert(f"""
from tarfile import BLOCKSIZE
{cutile_import}

@ct.kernel
def k(x, y):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(16,)) * BLOCKSIZE)
""")
    x = torch.randn(N, device=device)
    y = torch.empty(N, device=device)
    mod.launch_k(0, (N // 16,), (x, y))
    assert torch.equal(y, x * 512)


ERRORS = [
    ("math.sqrt(-1.0)", "domain error"),
    ("math.log(0)", "out of range"),
    ("math.exp(1000.0)", "out of range"),
    ("math.log(8, 1)", "division by zero"),
    ("math.floor(math.inf)", "infinity"),
    ("math.erf(0.5)", "math.erf() cannot be converted"),
    ("math.sqrt(t)", "for tiles use the cuTile operation"),
    ("math.sqrt(1.0, 2.0)", "takes 1 positional argument"),
    ("np.sqrt(2.0)", "numpy.sqrt() cannot be called in tile code"),
    ("torch.exp(t)", "torch.exp() cannot be called in tile code"),
    ("np.linalg", "numpy.linalg cannot be used in tile code"),
    ("torch.complex64", "torch.complex64 cannot be used in tile code"),
    ("math.foo", "math.foo cannot be used in tile code"),
    ("math", "the module math cannot be used as a value"),
    ("float('abc')", "cannot read \"abc\""),
    ("float('0x10')", "cannot read"),
    ("float(b'1.0')", "float() of this string cannot be converted"),
    ("len(t)", "len() of a 1-d tile"),
]


@pytest.mark.parametrize("expr,message", ERRORS)
def test_values_that_cannot_be_known_are_located_errors(convert_error, expr, message):
    found = convert_error(SCALE_KERNEL.format(expr=expr))
    assert message in found, found


def test_math_function_of_a_parameter_needs_the_module_name(convert_error):
    found = convert_error("""
from math import sqrt
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int], D: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * sqrt(D))
""")
    assert "known only at launch" in found and "import math" in found, found


def test_a_local_named_like_a_module_is_the_local(convert):
    mod = convert("""
import math
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    math = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=math * 2.0)
""")
    x = torch.randn(N)
    y = torch.empty(N)
    mod.launch_k(0, (N // 16,), (x, y, 16))
    assert torch.equal(y, x * 2.0)
