"""Tile functions and kernels as real modules write them: extra decorators on
kernels, tile functions imported from sibling modules, helper-library modules
without a kernel, one specialization per call signature, keyword arguments
and parameter defaults."""

import torch

# ------------------------------------------------------------- decorators

TAGGED = '''
import torch
import cuda.tile as ct

REGISTRY = {}


def register(name):
    def put(kernel):
        REGISTRY[name] = kernel
        return kernel
    return put


def tag(kernel):
    kernel.tagged_note = "tagged"
    return kernel


@register("triple")
@tag
@ct.kernel
def triple_kernel(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 3)


def triple(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), triple_kernel, (x, y, 16))
    return y
'''


def test_decorators_above_a_kernel_keep_their_effect(convert, device):
    mod = convert(TAGGED)
    assert mod.REGISTRY["triple"] is mod.triple_kernel
    assert mod.triple_kernel.tagged_note == "tagged"
    x = torch.randn(40, device=device)
    torch.testing.assert_close(mod.triple(x), x * 3)


def test_decorators_above_a_kernel_stay_in_order(convert_text):
    text = convert_text(TAGGED)
    # ours stays next to the def; _callable_kernel gives the source's a callable kernel object
    assert '@register("triple")\n@tag\n@_callable_kernel\n@triton.autotune(' in text
    assert text.index("@triton.autotune(") < text.index("@triton.jit\ndef triple_kernel(")


def test_decorator_below_ct_kernel_is_refused(convert_error):
    message = convert_error('''
import cuda.tile as ct


def tag(fn):
    return fn


@ct.kernel
@tag
def k(x, T: ct.Constant[int]):
    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))
''')
    assert "a decorator below @ct.kernel cannot be converted" in message


def test_decorator_using_cuda_tile_names_is_refused(convert_error):
    message = convert_error('''
import cuda.tile as ct


def typed(dtype):
    return lambda k: k


@typed(ct.float16)
@ct.kernel
def k(x, T: ct.Constant[int]):
    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))
''')
    assert "uses cuda.tile names" in message


# ------------------------------------- tile-helper libraries and imports

import importlib  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402

import pytest  # noqa: E402

import ops_common  # noqa: E402

HELPERS = '''
"""Tile helpers with no kernel of their own, next to host utilities."""
import math

import cuda.tile as ct


def round_up(n, m):
    return math.ceil(n / m) * m


def softplus_ct(x):
    # log(1 + exp(x)), computed in float32
    xf = ct.astype(x, ct.float32)
    return ct.astype(ct.log(1.0 + ct.exp(xf)), x.dtype)


def scaled_ones(x, B: ct.Constant[int]):
    return ct.full((B,), 2.0, dtype=x.dtype) * x


def leaky(x, slope):
    return ct.where(x > 0, x, x * slope)


def double_leaky(x, slope):
    return leaky(x, slope) * 2
'''

KERNELS = '''
import torch
import cuda.tile as ct

from .helpers import softplus_ct, scaled_ones
from .helpers import double_leaky as dl
from .helpers import round_up


@ct.kernel
def act_kernel(x, y, z, B: ct.Constant[int]):
    # the converter cannot see what an imported function returns: element
    # offsets (gather/scatter) need no tile shape
    offsets = ct.bid(0) * B + ct.arange(B, dtype=ct.int32)
    t = ct.gather(x, offsets)
    ct.scatter(y, offsets, softplus_ct(t) + scaled_ones(t, B))
    ct.scatter(z, offsets, dl(t, slope=0.25))


def act(x):
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    n = round_up(x.shape[0], 16)
    ct.launch(torch.cuda.current_stream(), (n // 16,), act_kernel, (x, y, z, 16))
    return y, z
'''


def _convert_package(tmp_path, files):
    source = tmp_path / "c2tpkg" / "cutile"
    source.mkdir(parents=True)
    (tmp_path / "c2tpkg" / "__init__.py").write_text("")
    (source / "__init__.py").write_text("")
    for name, text in files.items():
        (source / name).write_text(textwrap.dedent(text))
    proc = subprocess.run([str(ops_common.CONVERTER), str(source)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "c2tpkg" / "triton" / "__init__.py").write_text("")
    return tmp_path / "c2tpkg" / "triton"


def _import_converted(tmp_path, name):
    """c2tpkg.triton.NAME of _convert_package's tree, imported afresh."""
    sys.path.insert(0, str(tmp_path))
    try:
        for loaded in [m for m in sys.modules if m.startswith("c2tpkg")]:
            del sys.modules[loaded]
        return importlib.import_module(f"c2tpkg.triton.{name}")
    finally:
        sys.path.remove(str(tmp_path))


def test_imported_tile_functions_from_a_helper_library(tmp_path, device):
    out = _convert_package(tmp_path, {"helpers.py": HELPERS, "kernels.py": KERNELS})
    helpers_text = (out / "helpers.py").read_text()
    assert "@triton.jit\ndef softplus_ct(x):" in helpers_text
    assert "@triton.jit\ndef double_leaky(x, slope):" in helpers_text
    assert "@triton.jit\ndef leaky(x, slope):" in helpers_text  # called by a helper: tile code too
    assert "def round_up(n, m):" in helpers_text and "@triton.jit\ndef round_up" not in helpers_text
    kernels = _import_converted(tmp_path, "kernels")
    for dtype in (torch.float32, torch.float16):
        x = torch.randn(40, device=device).to(dtype)
        y, z = kernels.act(x)
        xf = x.float()
        expect_y = torch.log1p(torch.exp(xf)).to(dtype) + 2 * x
        expect_z = torch.where(x > 0, x, x * 0.25) * 2
        torch.testing.assert_close(y, expect_y)
        torch.testing.assert_close(z, expect_z)


SCHEDULE = '''
import cuda.tile as ct


def tile_of_block(n_cols):
    """This block's (row, column) tile of a grid n_cols tiles wide."""
    b = ct.bid(0)
    return b // n_cols, b % n_cols
'''

SHIFT = '''
import torch
import cuda.tile as ct

from .schedule import tile_of_block


@ct.kernel
def shift_kernel(x, y, N_COLS: ct.Constant[int], T: ct.Constant[int]):
    row, col = tile_of_block(N_COLS)
    t = ct.load(x, index=(row, col), shape=(T, T))
    ct.store(y, index=(row, col), tile=t + 1)


def shift(x, tile):
    y = torch.empty_like(x)
    n_cols = x.shape[1] // tile
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // tile * n_cols,), shift_kernel, (x, y, n_cols, tile))
    return y
'''


def test_an_imported_function_returning_a_tuple_unpacks(tmp_path, device):
    # what it returns is not known here, but as many values as the names it is unpacked
    # into: scalars in Triton, which index the tiles
    out = _convert_package(tmp_path, {"schedule.py": SCHEDULE, "shift.py": SHIFT})
    shift = _import_converted(tmp_path, "shift")
    x = torch.randn(32, 48, device=device)
    torch.testing.assert_close(shift.shift(x, 16), x + 1)


ROWS = '''
import cuda.tile as ct

SCALE = 2.0


def scaled_rows(x, i, R: ct.Constant[int], W: ct.Constant[int]):
    """R rows of x from row tile i, scaled: a tile the caller stores."""
    return ct.load(x, index=(i, 0), shape=(R, W)) * SCALE + offset(R, W)


def offset(R, W):
    return ct.full((R, W), 1.0, dtype=ct.float32)
'''

SCALE_ROWS = '''
import torch
import cuda.tile as ct

from {module} import scaled_rows


@ct.kernel
def rows_kernel(x, y, R: ct.Constant[int], W: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i, 0), tile=scaled_rows(x, i, R, W))


def rows(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 4,), rows_kernel, (x, y, 4, x.shape[1]))
    return y
'''


@pytest.mark.parametrize("module", [".rows_lib", "c2tpkg.cutile.rows_lib"])
def test_a_tile_function_of_a_sibling_file_is_copied_in(tmp_path, device, module):
    # what an imported tile function returns is known when its file is beside this one: the
    # function (with what it reads there: offset, SCALE) is copied in and converted here, so
    # the kernel can store what it returns (an array argument is fine too)
    out = _convert_package(tmp_path, {"rows_lib.py": ROWS, "scale_rows.py": SCALE_ROWS.format(module=module)})
    text = (out / "scale_rows.py").read_text()
    assert "@triton.jit\ndef scaled_rows(" in text and "@triton.jit\ndef offset(" in text and "SCALE = 2.0" in text
    assert "import scaled_rows" not in text  # the module defines it now
    rows = _import_converted(tmp_path, "scale_rows")
    x = torch.randn(8, 32, device=device)
    torch.testing.assert_close(rows.rows(x), x * 2 + 1)


CONSTANTS = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]
BLOCK = 16
ROWS = BLOCK // 8


def describe():
    return f"rows of {ROWS}"
'''

USES_CONSTANTS = '''
import torch
import cuda.tile as ct

from {module} import ConstInt, ROWS, describe


@ct.kernel
def shift(x, y, W: ConstInt):
    i = ct.bid(0)
    ct.store(y, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(ROWS, W)) + ROWS)


def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 2,), shift, (x, y, x.shape[1]))
    return y
'''


@pytest.mark.parametrize("module", [".consts", "c2tpkg.cutile.consts"])
def test_aliases_and_constants_of_a_sibling_file_are_copied_in(tmp_path, device, module):
    # cuTile reads `W: ConstInt` and `shape=(ROWS, W)` in the kernel's globals, where they are
    # the sibling's ct.Constant[int] and 2: copied in (with BLOCK, which ROWS reads), they are
    # this module's own, and the import names neither
    out = _convert_package(tmp_path, {"consts.py": CONSTANTS, "uses.py": USES_CONSTANTS.format(module=module)})
    text = (out / "uses.py").read_text()
    assert "ROWS = BLOCK // 8" in text and "BLOCK = 16" in text
    assert f"from {module} import describe\n" in text  # a host function stays imported, alone
    uses = _import_converted(tmp_path, "uses")
    x = torch.randn(8, 32, device=device)
    torch.testing.assert_close(uses.run(x), x + 2)


STAR_IMPORT = '''
import torch
import cuda.tile as ct

from .rows_lib import *


@ct.kernel
def rows_kernel(x, y, R: ct.Constant[int], W: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, index=(i, 0), tile=scaled_rows(x, i, R, W) + SCALE)


def rows(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 4,), rows_kernel, (x, y, 4, x.shape[1]))
    return y
'''


def test_names_of_a_star_import_of_a_sibling_file_are_copied_in(tmp_path, device):
    # `from .rows_lib import *` gives the sibling's public names: those tile code calls or reads
    # are copied in as a named import's are (they were "not defined in tile code"); the import stays
    out = _convert_package(tmp_path, {"rows_lib.py": ROWS, "star.py": STAR_IMPORT})
    text = (out / "star.py").read_text()
    assert "from .rows_lib import *\n" in text and "@triton.jit\ndef scaled_rows(" in text
    star = _import_converted(tmp_path, "star")
    x = torch.randn(8, 32, device=device)
    torch.testing.assert_close(star.rows(x), x * 2 + 1 + 2)


def test_a_sibling_function_reading_a_name_this_module_binds_is_not_copied(tmp_path):
    # the copy would read this module's SCALE, not its own: the import stays, and what the
    # function returns is unknown here again (the store of it is a located error)
    source = SCALE_ROWS.format(module=".rows_lib").replace("import torch\n", "import torch\n\nSCALE = 3.0\n")
    root = tmp_path / "c2tpkg" / "cutile"
    root.mkdir(parents=True)
    (root / "rows_lib.py").write_text(textwrap.dedent(ROWS))
    (root / "scale_rows.py").write_text(textwrap.dedent(source))
    proc = subprocess.run([str(ops_common.CONVERTER), str(root / "scale_rows.py")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1 and "the rank of this tile is not known at conversion time" in proc.stderr, proc.stderr


def test_array_passed_to_an_imported_function_is_refused(convert_error):
    message = convert_error('''
import cuda.tile as ct
from .helpers import load_row


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=t + load_row(x, B))
''')
    assert "an array passed to 'load_row'" in message


def test_storing_what_an_imported_function_returns_needs_its_rank(convert_error):
    message = convert_error('''
import cuda.tile as ct
from .helpers import softplus_ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=softplus_ct(t))
''')
    assert "the rank of this tile is not known at conversion time" in message
    # the message says where the tile comes from, and where the conditions of the copy are
    assert "it comes from a tile function of another module" in message and "sibling modules" in message


def test_an_operation_needing_the_rank_of_what_an_imported_function_returns(convert_error):
    message = convert_error('''
import cuda.tile as ct
from .helpers import softplus_ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(B, B))
    ct.store(y, index=(ct.bid(0), 0), tile=(softplus_ct(t) * 2).permute((1, 0)))
''')
    assert message.startswith("C2T402: permute() needs a tile of known rank, not a tile that comes from a tile "
                              "function of another module"), message


# ------------------------------------------ keyword arguments and defaults

DEFAULTS = '''
import torch
import cuda.tile as ct

OFFSET = 3.0


def affine(t, scale=2.0, shift=-1.0, out_dtype=ct.float32, extra=OFFSET):
    return ct.astype(t * scale + shift + extra, out_dtype)


def load_scaled(a, B: ct.Constant[int], factor=1.0):
    return ct.load(a, index=(ct.bid(0),), shape=(B,)) * factor


@ct.kernel
def defaults_kernel(x, y1, y2, y3, y4, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y1, index=(ct.bid(0),), tile=affine(t))
    ct.store(y2, index=(ct.bid(0),), tile=affine(t, 3.0))
    ct.store(y3, index=(ct.bid(0),), tile=affine(t, shift=0.5, scale=4.0, extra=0.0))
    ct.store(y4, index=(ct.bid(0),), tile=load_scaled(B=B, a=x))


def run(x):
    ys = [torch.empty_like(x) for _ in range(4)]
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 16,), defaults_kernel, (x, *ys, 16))
    return ys
'''


def test_keyword_arguments_and_defaults_of_tile_functions(convert, device):
    mod = convert(DEFAULTS)
    x = torch.randn(32, device=device)
    y1, y2, y3, y4 = mod.run(x)
    torch.testing.assert_close(y1, x * 2.0 - 1.0 + 3.0)
    torch.testing.assert_close(y2, x * 3.0 - 1.0 + 3.0)
    torch.testing.assert_close(y3, x * 4.0 + 0.5)
    torch.testing.assert_close(y4, x)


def test_literal_defaults_stay_in_the_converted_function(convert_text):
    text = convert_text(DEFAULTS)
    # what other modules' calls may leave out; the non-literal ones are passed by every call here
    assert "def load_scaled(a, a_shape, a_strides, B: tl.constexpr, factor: tl.constexpr = 1.0):" in text


def test_a_missing_argument_is_a_located_error(convert_error):
    message = convert_error(DEFAULTS.replace("affine(t, 3.0)", "affine(scale=3.0)"))
    assert "tile function 'affine' is missing argument 't'" in message


def test_an_unexpected_keyword_is_a_located_error(convert_error):
    message = convert_error(DEFAULTS.replace("affine(t, 3.0)", "affine(t, bias=3.0)"))
    assert "unexpected keyword argument 'bias'" in message


def test_a_default_computed_by_an_expression_is_refused(convert_error):
    message = convert_error(DEFAULTS.replace("extra=OFFSET", "extra=OFFSET * 2"))
    assert "the default of parameter 'extra' cannot be converted" in message


# ------------------------------------------ one specialization per signature

POLY = '''
import torch
import cuda.tile as ct


def row_total(t):
    # rank 1: the sum; rank 2: the sums of the rows
    return ct.sum(t, axis=t.ndim - 1)


def bump(t, amount):
    return t + amount


def first_tile(a, B: ct.Constant[int]):
    return ct.load(a, index=(ct.bid(0),), shape=(B,))


@ct.kernel
def poly_kernel(x1, x2, h, y1, y2, y3, y4, B: ct.Constant[int]):
    t1 = ct.load(x1, index=(ct.bid(0),), shape=(B,))
    t2 = ct.load(x2, index=(ct.bid(0), 0), shape=(B, B))
    ct.store(y1, index=(ct.bid(0),), tile=ct.full((B,), row_total(t1), dtype=ct.float32))
    ct.store(y2, index=(ct.bid(0),), tile=row_total(t2))
    th = ct.load(h, index=(ct.bid(0),), shape=(B,))
    ct.store(y3, index=(ct.bid(0),), tile=bump(ct.astype(th, ct.float16), 1) + ct.astype(bump(ct.astype(t1, ct.float32), 2), ct.float16))
    ct.store(y4, index=(ct.bid(0),), tile=first_tile(x1, B) + ct.astype(first_tile(h, B), ct.float32))


def run(x1, x2, h):
    y1 = torch.empty_like(x1)
    y2 = torch.empty_like(x1)
    y3 = torch.empty_like(h)
    y4 = torch.empty_like(x1)
    ct.launch(torch.cuda.current_stream(), (x1.shape[0] // 16,), poly_kernel, (x1, x2, h, y1, y2, y3, y4, 16))
    return y1, y2, y3, y4
'''


def test_tile_function_called_with_different_ranks_and_dtypes(convert, device):
    mod = convert(POLY)
    x1 = torch.randn(16, device=device)
    x2 = torch.randn(16, 16, device=device)
    h = torch.randn(16, device=device).half()
    y1, y2, y3, y4 = mod.run(x1, x2, h)
    torch.testing.assert_close(y1, x1.sum().expand(16), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(y2, x2.sum(dim=1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(y3, (h + 1) + (x1 + 2).half())
    torch.testing.assert_close(y4, x1 + h.float())


def test_each_signature_gets_its_own_function(convert_text):
    text = convert_text(POLY)
    assert "def row_total(t):" in text and "def row_total_2(t):" in text
    assert "row_total_3" not in text
    assert "def bump(t, amount: tl.constexpr):" in text  # float16, float32 tiles; constants stay constexprs
    assert "def bump_2(t, amount: tl.constexpr):" in text
    # the arrays' dtypes are known only at launch: one function, which Triton specializes itself
    assert "first_tile_2" not in text


def test_too_many_specializations_is_a_located_limit(convert_error):
    lines = "".join(f"    a{i} = twice(ct.zeros(({2 ** (i % 8)}, {2 ** (i // 8)}), dtype=ct.float32))\n"
                    for i in range(65))
    message = convert_error("import cuda.tile as ct\n\ndef twice(t):\n    return t + t\n\n@ct.kernel\ndef k(x):\n" + lines)
    assert "too many specializations of one tile function" in message and "(limit is 64)" in message


HOST_AND_TILE_HELPER = '''
import torch
import cuda.tile as ct


def cdiv(a, b):
    return (a + b - 1) // b


@ct.kernel
def scale_kernel(x, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    n = cdiv(x.shape[0], TILE)
    t = ct.load(x, index=(i,), shape=(TILE,))
    ct.store(out, index=(i,), tile=t * n)


def scale(x, tile=16):
    out = torch.empty_like(x)
    ct.launch(0, (cdiv(x.shape[0], tile),), scale_kernel, (x, out, tile))
    return out
'''


def test_a_plain_function_of_host_and_tile_code_stays_a_host_function(convert, convert_text):
    """cdiv called in a kernel and by the host: the host keeps the function as written
    (a @triton.jit function cannot be called outside a kernel on the GPU: TileGym's
    swa_attention), the kernel calls a Triton copy of it."""
    text = convert_text(HOST_AND_TILE_HELPER)
    assert "\n\ndef cdiv(a, b):\n    return (a + b - 1) // b\n" in text
    assert "@triton.jit\ndef cdiv_1(" in text and "cdiv_1(x_shape[0], TILE)" in text
    mod = convert(HOST_AND_TILE_HELPER)
    assert not hasattr(mod.cdiv, "fn") and mod.cdiv(7, 2) == 4
    x = torch.randn(40)
    torch.testing.assert_close(mod.scale(x), x * 3)


TILE_FN_TMA = '''
import torch
import cuda.tile as ct


@ct.function
def scaled_copy(src, dst, i, j, s, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(src, index=(i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(dst, index=(i, j), tile=t * s)


@ct.function
def through(src, dst, i, j, BM: ct.Constant[int], BN: ct.Constant[int]):
    scaled_copy(src, dst, i, j, 2.0, BM, BN)


@ct.kernel
def copy_kernel(x, y, s, BM: ct.Constant[int], BN: ct.Constant[int]):
    scaled_copy(x, y, ct.bid(0), ct.bid(1), s, BM, BN)


@ct.kernel
def nested_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    through(x, y, ct.bid(0), ct.bid(1), BM, BN)


@ct.kernel
def view_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    v = x.slice(axis=1, start=1, stop=x.shape[1])
    scaled_copy(v, y, ct.bid(0), ct.bid(1), 1.0, BM, BN)


def grid(t):
    return (ct.cdiv(t.shape[0], 16), ct.cdiv(t.shape[1], 32), 1)


def run(x, s):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), grid(x), copy_kernel, (x, y, s, 16, 32))
    return y


def run_nested(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), grid(x), nested_kernel, (x, y, 16, 32))
    return y


def run_view(x):
    y = torch.empty((x.shape[0], x.shape[1] - 1), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), grid(y), view_kernel, (x, y, 16, 32))
    return y
'''


def test_a_tile_function_uses_descriptors_with_flags_its_calls_give(convert_text):
    """Loads and stores in a tile function take descriptors as a kernel's do: each array
    parameter used so gets its flag parameter (NAME_tma) and the function `_use_tma`, after
    the parameters as written; a kernel passes its own flags (and so takes them from its
    launcher), a tile function passes its own, a view passes False."""
    text = convert_text(TILE_FN_TMA)
    head = text[text.index("def scaled_copy("):text.index("):", text.index("def scaled_copy("))]
    assert "BN: tl.constexpr,\n    src_tma: tl.constexpr,\n    dst_tma: tl.constexpr," in head and head.rstrip().endswith("_use_tma: tl.constexpr,")
    assert "src_desc_1 = tl.make_tensor_descriptor(" in text and "src_desc_1.load(" in text
    flat = " ".join(text.split())
    assert "y_strides, tl.program_id(0), tl.program_id(1), s, BM, BN, x_tma, y_tma, _use_tma, )" in flat
    assert "dst_strides, i, j, 2.0, BM, BN, src_tma, dst_tma, _use_tma, )" in flat  # through's own
    assert "BM, BN, False, y_tma, _use_tma, )" in flat  # a view takes pointers


def test_a_tile_function_with_descriptors_computes_what_cutile_does(convert, device):
    mod = convert(TILE_FN_TMA)
    x = torch.randn(40, 96, device=device)
    torch.testing.assert_close(mod.run(x, 2.5), x * 2.5)
    torch.testing.assert_close(mod.run_nested(x), x * 2.0)
    torch.testing.assert_close(mod.run_view(x), x[:, 1:])
    kernel = mod.copy_kernel.fn  # the pointer path of the same kernel
    y = torch.zeros_like(x)
    kernel[(3, 3, 1)](x, tuple(x.shape), tuple(x.stride()), y, tuple(y.shape), tuple(y.stride()), 1.5, 16, 32,
                      x_tma=True, y_tma=True, _use_tma=False)
    torch.testing.assert_close(y, x * 1.5)


IN_A_LOOP = '''
import cuda.tile as ct


@ct.function
def add_tile(src, dst, i, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(src, index=(i, 0), shape=(BM, BN))
    ct.store(dst, index=(i, 0), tile=t + 1)


@ct.kernel
def rows_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    for i in range(ct.bid(0), 4, ct.num_blocks(0)):
        add_tile(x, y, i, BM, BN)
'''


def test_a_tile_function_called_in_a_loop_takes_pointers(convert_text, convert, device):
    """Its descriptors would be made again at every iteration: a call in a loop passes False."""
    text = convert_text(IN_A_LOOP)
    flat = " ".join(text.split())
    assert "i, BM, BN, False, False, False)" in flat
    assert "x_tma" not in text  # the kernel has no flag of its own to pass
    mod = convert(IN_A_LOOP)
    x = torch.randn(32, 16, device=device)
    y = torch.zeros_like(x)
    mod.launch_rows_kernel(0, (2,), (x, y, 8, 16))
    torch.testing.assert_close(y, x + 1)


KEYWORD_ONLY = '''
import cuda.tile as ct


@ct.function
def affine(t, /, scale=2.0, *, bias, clamp=None):
    out = t * scale + bias
    return out if clamp is None else ct.minimum(out, clamp)


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,))
    ct.store(y, index=(i,), tile=affine(t, bias=0.5) + affine(t, 3.0, bias=1.0, clamp=0.0))
'''


def test_positional_only_and_keyword_only_parameters_of_a_tile_function(convert, convert_text, device):
    """cuTile takes them (real cuTile 1.7 compiles such a function): the converted function has
    plain parameters in their order, every call binding its arguments to them."""
    text = convert_text(KEYWORD_ONLY)
    assert "def affine(t, scale: tl.constexpr, bias: tl.constexpr, clamp=None):" in text, text
    # the version without clamp has only the live operand of `out if clamp is None else ...`
    # (it was copied from the source whole, ct.minimum included, when that operand was a name)
    assert "ct.minimum" not in text and "    return out\n" in text, text
    mod = convert(KEYWORD_ONLY)
    x = torch.randn(64, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (4,), (x, y, 16))
    torch.testing.assert_close(y, (x * 2.0 + 0.5) + torch.clamp(x * 3.0 + 1.0, max=0.0))


ENUM_AND_DTYPE_ARGUMENTS = """
import cuda.tile as ct


def load_with(A, mode, T):
    return ct.load(A, index=(0,), shape=(T,), padding_mode=mode)


def cast_to(t, dt):
    return ct.astype(t, dt)


@ct.kernel
def k(A, B, C, T: ct.Constant[int]):
    a = load_with(A, ct.PaddingMode.ZERO, T)
    b = load_with(A, ct.PaddingMode.NEG_INF, T)
    ct.store(B, index=(0,), tile=ct.cat((ct.reshape(ct.max(a, axis=0), (1,)), ct.reshape(ct.max(b, axis=0), (1,))), 0))
    ct.store(C, index=(0,), tile=cast_to(a, ct.float16).astype(ct.float32) + cast_to(a, ct.int32))
"""


def test_a_tile_function_given_other_modes_or_dtypes_is_lowered_for_each(convert, convert_text):
    """A padding mode argument is taken in where the function is lowered: each mode its own
    lowering (the first call's mode served both, and `ct.PaddingMode.ZERO` was passed on
    into Triton code, which has no `ct`); a dtype argument types each call as given."""
    text = convert_text(ENUM_AND_DTYPE_ARGUMENTS)
    assert "ct.PaddingMode" not in text[:text.index("def launch_k")]
    assert "def load_with_2(" in text and "def cast_to_2(" in text
    mod = convert(ENUM_AND_DTYPE_ARGUMENTS)
    a = torch.tensor([-1.5, -2.25, -3.0])
    b, c = torch.zeros(2), torch.zeros(3)
    mod.launch_k(0, (1,), (a, b, c, 4))  # the 4th element pads: 0, then -inf
    torch.testing.assert_close(b, torch.tensor([0.0, -1.5]))
    torch.testing.assert_close(c, a + a.to(torch.int32).to(torch.float32))


# ----------------------------------------------- functions defined in a kernel

NESTED = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, out, scale, T: ct.Constant[int]):
    # a helper of the kernel's own, reading the kernel's parameters and locals
    def shifted(t, by=1.0):
        return t * scale + by + offset

    def twice(t):
        return shifted(shifted(t))  # what shifted reads, twice reads too

    def add(a, b):  # reads nothing of the kernel: also a value (a combine function)
        return a + b

    square = lambda t: t * t  # noqa: E731
    i = ct.bid(0)
    t = ct.load(x, (i,), (T,))
    offset = 10.0
    first = shifted(t)
    offset = 20.0  # read when called, as Python reads a closure's variables
    ct.store(y, (i,), first + twice(t) + square(t))
    ct.store(out, (i,), ct.reduce(t, 0, add, 0.0))
'''


def test_functions_defined_in_a_kernel_move_to_module_level(convert, convert_text, device):
    text = convert_text(NESTED)
    assert "def k_shifted(" in text and "def k_twice(" in text and "def k_square(" in text, text
    kernel = text.split("def k(")[1].split("def launch_k(")[0]
    assert "def shifted" not in kernel and "lambda" not in kernel, kernel
    mod = convert(NESTED)
    x = torch.randn(32, device=device)
    y = torch.empty_like(x)
    out = torch.empty(2, device=device)
    mod.launch_k(0, (2,), (x, y, out, 3.0, 16))

    def shifted(t, offset, by=1.0):
        return t * 3.0 + by + offset

    want = shifted(x, 10.0) + shifted(shifted(x, 20.0), 20.0) + x * x
    torch.testing.assert_close(y, want)
    torch.testing.assert_close(out, x.reshape(2, 16).sum(1))


def test_a_closure_factory_in_a_kernel_is_a_located_error(convert_error):
    source = NESTED.replace("    def add(a, b):", "    def make(c):\n        def f(t):\n            return t + c\n"
                            "        return f\n\n    def add(a, b):")
    assert "the function 'make' defined here cannot be converted" in convert_error(source)
    passed = NESTED.replace("ct.reduce(t, 0, add, 0.0)", "ct.reduce(t, 0, shifted, 0.0)")
    assert "the function 'shifted' defined here cannot be converted" in convert_error(passed)


def test_the_nested_functions_kernel_is_valid_cutile(cutile_export):
    ct, array = cutile_export.ct, cutile_export.array
    f32 = array(ct.float32, 1)
    assert cutile_export.cubin_size(NESTED, [f32, f32, f32, 3.0, 16]) > 0


IN_TILE_FUNCTION = '''
import cuda.tile as ct


@ct.function
def scaled(t, n):
    def times(v):
        return v * n
    return times(t) + 1


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    ct.store(y, (ct.bid(0),), scaled(ct.load(x, (ct.bid(0),), (T,)), 3))
'''


@pytest.mark.parametrize("decorator", ["@ct.function\n", ""])
def test_a_function_defined_in_a_tile_function_moves_too(convert, convert_text, device, decorator):
    source = IN_TILE_FUNCTION.replace("@ct.function\n", decorator)  # a plain helper a kernel calls too
    assert "def scaled_times(v, n" in convert_text(source)
    mod = convert(source)
    x = torch.randn(16, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (1,), (x, y, 16))
    torch.testing.assert_close(y, x * 3 + 1)


def test_a_function_defined_in_a_host_callable_tile_function_is_a_located_error(convert_error):
    host = IN_TILE_FUNCTION.replace("@ct.function\n", "@ct.function(host=True)\n")
    assert "never in a function host code calls too" in convert_error(host)


IN_BLOCKS = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int], TWICE: ct.Constant[bool]):
    i = ct.bid(0)
    acc = ct.zeros((T,), dtype=ct.float32)
    for d in range(3):
        # defined in the loop: reads the array x, the loop's d and the kernel's i when called
        def shifted():
            return ct.gather(x, i * T + ct.arange(T, dtype=ct.int32) + d)

        acc = acc + shifted()
    if TWICE:
        double = lambda t: t * 2.0  # noqa: E731
        acc = double(acc)
    ct.store(y, (i,), acc)
'''


@pytest.mark.parametrize("twice", [True, False])
def test_functions_defined_in_a_loop_or_under_if_move_too(convert, convert_text, device, twice):
    text = convert_text(IN_BLOCKS)
    assert "def k_shifted(x, x_shape, x_strides, i, T: tl.constexpr, d):" in text, text
    assert "acc = acc + k_shifted(x, x_shape, x_strides, i, T, d)" in text, text
    mod = convert(IN_BLOCKS)
    x = torch.randn(40, device=device)
    y = torch.empty(32, device=device)
    mod.launch_k(0, (2,), (x, y, 16, twice))
    want = sum(x[d:d + 32] for d in range(3))
    torch.testing.assert_close(y, want * (2.0 if twice else 1.0))


def test_a_function_defined_twice_in_blocks_stays_a_located_error(convert_error):
    # `double` bound by the lambda under the if and by a def in the else: not one function
    source = IN_BLOCKS.replace("double = lambda t: t * 2.0  # noqa: E731", "def double(t):\n            return t * 2.0")
    source = source.replace("    ct.store(y, (i,), acc)", "    else:\n        def double(t):\n"
                            "            return t\n\n        acc = double(acc)\n    ct.store(y, (i,), acc)")
    assert "the function 'double' defined here cannot be converted" in convert_error(source)


def test_the_kernel_with_functions_in_blocks_is_valid_cutile(cutile_export):
    ct, array = cutile_export.ct, cutile_export.array
    f32 = array(ct.float32, 1)
    assert cutile_export.cubin_size(IN_BLOCKS, [f32, f32, 16, True]) > 0

def test_a_moved_function_takes_its_comments_and_leaves_the_kernels(convert_text):
    # the comments of the kernel's lines before the def were all written above the moved def
    text = convert_text('''
import cuda.tile as ct


@ct.kernel
def k(
    x,  # f32 [N]
    y,  # f32 [N]
    T: ct.Constant[int],
):
    # the body
    i = ct.bid(0)

    # a helper
    # (two lines)
    def twice(t):
        # doubled
        return t * 2

    # store it
    ct.store(y, (i,), twice(ct.load(x, (i,), (T,))))
''')
    assert "\n\n# a helper\n# (two lines)\n@triton.jit\ndef k_twice(t):\n    # doubled\n    return t * 2\n" in text, text
    kernel = text.split("def k(")[1].split("def launch_k(")[0]
    assert "    x,  # f32 [N]\n" in kernel and "    y,  # f32 [N]\n" in kernel, kernel
    assert "    # the body\n    i = tl.program_id(0)\n\n    # store it\n" in kernel, kernel
    assert "doubled" not in kernel and "a helper" not in kernel, kernel

def test_a_keyword_only_array_parameter_of_a_tile_function(convert, device):
    # the kernel's x is an array because the function uses its keyword-only x as one
    mod = convert('''
import cuda.tile as ct


@ct.function
def window(d, *, x, T: ct.Constant[int]):
    return ct.load(x, index=(ct.bid(0) + d,), shape=(T,))


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=window(1, T=T, x=x))
''')
    x = torch.randn(48, device=device)
    y = torch.empty(32, device=device)
    mod.launch_k(0, (2,), (x, y, 16))
    torch.testing.assert_close(y, x[16:])

TILE_CODE_BEFORE_THE_IMPORT = '''
from dataclasses import dataclass


def doubled(t):
    return t * 2


@dataclass(frozen=True)
class Window:
    lo: int
    scale: float = 1.0

    def apply(self, t):
        return t * self.scale


import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, (i,), (T,))
    ct.store(y, (i,), Window(i, 3.0).apply(doubled(t)))
'''


def test_tile_code_above_the_cuda_tile_import_has_triton_imported_before_it(convert, convert_text, device):
    # @triton.jit runs when the module defines the function: `import triton` must come first
    text = convert_text(TILE_CODE_BEFORE_THE_IMPORT)
    assert text.index("import triton\n") < text.index("def doubled(") < text.index("def Window_apply("), text
    mod = convert(TILE_CODE_BEFORE_THE_IMPORT)
    x = torch.randn(32, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, 16))
    torch.testing.assert_close(y, x * 6.0)


AXIS_PARAMETER = '''
import cuda.tile as ct


def red(t, axis):
    return ct.sum(t, axis=axis, keepdims=True)


def norm(t, *, axis=1):
    return ct.sqrt(ct.sum(t * t, axis=axis, keepdims=True))


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=(2, T))
    ct.store(y, index=(pid, 0), tile=t + red(t, 1) + red(t, 0) + norm(t))
'''


def test_a_parameter_the_body_needs_when_converting_takes_the_calls_value(convert, convert_text, device):
    """An axis (a shape, ...) is needed when converting: a function given a constant for it is
    lowered with the call's value folded in, one specialization per value, as cuTile compiles
    a function per call; a constant it does not need stays a constexpr parameter."""
    text = convert_text(AXIS_PARAMETER)
    assert "def red(t, axis: tl.constexpr)" in text and "def red_2(t, axis: tl.constexpr)" in text, text
    mod = convert(AXIS_PARAMETER)
    x = torch.randn(4, 16, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, 16))
    expected = torch.cat([t + t.sum(1, keepdim=True) + t.sum(0, keepdim=True) + (t * t).sum(1, keepdim=True).sqrt()
                          for t in x.split(2)])
    torch.testing.assert_close(y, expected)


def test_the_axis_parameter_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    f32 = cutile_export.array(ct.float32, 2)
    assert cutile_export.cubin_size(AXIS_PARAMETER, [f32, f32, 16]) > 0


IN_A_BRANCH = '''
import cuda.tile as ct


@ct.function
def copy_rows(src, dst, i, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(src, index=(i, 0), shape=(BM, BN))
    ct.store(dst, index=(i, 0), tile=t + 1)


@ct.function
def copy_planes(src, dst, i, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(src, index=(0, i, 0), shape=(1, BM, BN))
    ct.store(dst, index=(0, i, 0), tile=t * 2)


@ct.kernel
def branch_kernel(x, y, PLANES: ct.Constant[bool], BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    if PLANES:
        copy_planes(x, y, i, BM, BN)
    else:
        copy_rows(x, y, i, BM, BN)
'''


def test_a_tile_function_called_where_the_rank_is_learnt_takes_the_kernel_s_flags(convert_text, convert, device):
    """The kernel learns x's rank only in a constexpr branch (another launch may give another):
    it cannot make x's descriptor itself, but the function it calls there makes its own, so the
    call passes the kernel's flags (TileGym's Gemma attention: K and V first used in calls under
    `if STAGE & 1:`, which took pointers); each launch's rank computes what cuTile does, through
    descriptors and through pointers."""
    text = convert_text(IN_A_BRANCH)
    flat = " ".join(text.split())
    assert flat.count("i, BM, BN, x_tma, y_tma, _use_tma") == 2, text
    mod = convert(IN_A_BRANCH)
    kernel = mod.branch_kernel.fn
    for shape, planes, want in (((32, 16), False, lambda x: x + 1), ((1, 32, 16), True, lambda x: x * 2)):
        x = torch.randn(shape, device=device)
        for use_tma in (True, False):
            y = torch.zeros_like(x)
            kernel[(4, 1, 1)](x, tuple(x.shape), tuple(x.stride()), y, tuple(y.shape), tuple(y.stride()), planes, 8, 16,
                              x_tma=True, y_tma=True, _use_tma=use_tma)
            torch.testing.assert_close(y, want(x))
        y = torch.zeros_like(x)
        mod.launch_branch_kernel(0, (4,), (x, y, planes, 8, 16))
        torch.testing.assert_close(y, want(x))


# ------------------------------------------------- an array passed on under another name

RENAMED_IN_FUNCTION = '''
import cuda.tile as ct


@ct.function
def bump(a, T: ct.Constant[int]):
    b = a
    t = ct.load(b, index=(ct.bid(0),), shape=(T,))
    ct.store(b, index=(ct.bid(0),), tile=t + 1)


def add_into(grid, idx, values):  # a plain helper no kernel calls, renaming its argument
    update = values
    ct.atomic_add(grid, (idx,), update)


@ct.kernel
def bump_kernel(x, T: ct.Constant[int]):
    bump(x, T)
'''


def test_a_tile_function_s_local_name_for_its_array_parameter(convert, device):
    """Whether a tile function's parameter is an array is learnt from its own body, the names
    it binds to it included (`b = a`), not from the body of the function being lowered: the
    kernel's x is an array (it was refused as a scalar), and a helper no kernel calls, which
    was scanned with no function being lowered, no longer crashes the converter."""
    mod = convert(RENAMED_IN_FUNCTION)
    x = torch.arange(32, dtype=torch.float32, device=device)
    mod.launch_bump_kernel(0, (4,), (x, 8))
    torch.testing.assert_close(x, torch.arange(32, dtype=torch.float32, device=device) + 1)


FACTORY = '''
import cuda.tile as ct


def make_counter(n):
    width = n.bit_length()  # plain Python, on the host

    @ct.function
    def bump(counts, idx):
        return ct.atomic_add(counts, idx, width)

    return bump
'''


def test_a_host_factory_of_a_tile_function_is_host_code(convert_error):
    """A plain function is tile code when it calls tile-only operations, but not those of a
    @ct.function (or @ct.kernel) it defines: the factory stays host code, and the error is
    the one for ct.function in host code (it was an error about the factory's own host code:
    `n.bit_length()` in tile code)."""
    message = convert_error(FACTORY)
    assert message.startswith("C2T403: host code uses ct.function,"), message


SHAPE_LIB = '''
import cuda.tile as ct


@ct.function
def plus_ones(x):
    return ct.full(x.shape, 1.0, dtype=x.dtype) + x
'''

SHAPE_USER = '''
import torch
import cuda.tile as ct

from .shape_lib import plus_ones


@ct.kernel
def plus_kernel(x, y, B: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0), 0), tile=plus_ones(ct.load(x, index=(ct.bid(0), 0), shape=(B, B))))


def plus(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 8,), plus_kernel, (x, y, 8))
    return y
'''


def test_a_library_function_reading_the_shape_of_its_argument(tmp_path, device):
    """x.shape of a tile function's parameter is known only with a call: in a library module no
    kernel of which calls it, the function becomes the stub that says so (the module was refused,
    'tile attribute shape cannot be converted here'), and a kernel of another module that
    imports it converts its own copy, for its argument."""
    out = _convert_package(tmp_path, {"shape_lib.py": SHAPE_LIB, "shape_user.py": SHAPE_USER})
    lib = (out / "shape_lib.py").read_text()
    assert "tl.static_assert(" in lib and "'.shape' needs a tile of known rank" in lib, lib
    user = _import_converted(tmp_path, "shape_user")
    x = torch.randn(16, 8, device=device)
    torch.testing.assert_close(user.plus(x), x + 1)



DTYPE_ATTRIBUTE = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(t, ct.float32) + t.dtype.bitwidth)
'''


def test_an_attribute_of_a_dtype_in_tile_code_is_refused_where_it_is(convert_error):
    """ct.float16.bitwidth is 16 on the host; in tile code cuTile 1.7 refuses any attribute of a
    dtype ("No such attribute 'bitwidth' for object of type DTypeConstructor"). The conversion
    said so at the + that read it ('the + operator on a value of unknown kind'); now at the
    attribute, naming it."""
    message = convert_error(DTYPE_ATTRIBUTE)
    assert message.startswith("C2T402: a dtype has no attributes in tile code ('.bitwidth'"), message


def test_cutile_refuses_an_attribute_of_a_dtype_in_tile_code(cutile_export):
    """The refusal above is cuTile's own: export_kernel stops at the attribute."""
    with pytest.raises(Exception, match="bitwidth"):
        cutile_export.cubin_size(DTYPE_ATTRIBUTE, [cutile_export.array(cutile_export.ct.float16, 1),
                                                   cutile_export.array(cutile_export.ct.float32, 1), 8])


COPIED_LIB = '''
import cuda.tile as ct


def widen(t):
    return ct.astype(t, ct.float32) + t.dtype.bitwidth
'''

COPIED_USER = '''
import torch
import cuda.tile as ct

from .copied_lib import widen


@ct.kernel
def widen_kernel(x, y, B: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=widen(ct.load(x, index=(ct.bid(0),), shape=(B,))))
'''


def test_an_error_in_a_copied_function_names_where_it_stands(tmp_path):
    """A plain function copied from a sibling module stands at the import here, where its errors
    pointed without naming it; the message now names the function and its line in the sibling."""
    pkg = tmp_path / "c2tpkg" / "cutile"
    pkg.mkdir(parents=True)
    (pkg / "copied_lib.py").write_text(COPIED_LIB)
    (pkg / "copied_user.py").write_text(COPIED_USER)
    proc = subprocess.run([str(ops_common.CONVERTER), str(pkg / "copied_user.py"), "-o", str(tmp_path / "out.py")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "copied_user.py:5:1: error: C2T402: a dtype has no attributes in tile code" in proc.stderr, proc.stderr
    assert "(in widen, copied from " in proc.stderr and "copied_lib.py:5)" in proc.stderr, proc.stderr


# ------------------------------------------------- functions as values

FUNCTION_VALUES = '''
import cuda.tile as ct


@ct.function
def apply(f, t):
    return f(t)


@ct.function
def twice(t):
    return t * 2


@ct.kernel
def k(x, y, T: ct.Constant[int], FAST: ct.Constant[bool]):
    t = ct.load(x, (ct.bid(0),), (T,))
    f = ct.exp
    fs = (ct.sin, ct.cos)
    g = ct.exp2 if FAST else twice
    if FAST:
        h = twice
    else:
        h = ct.abs
    ct.store(y, (ct.bid(0),), f(t) + g(t) + h(t) + apply(ct.sin, t) + apply(f, t) + fs[1](t))
'''


def test_functions_bound_to_names_and_passed_to_tile_functions(convert, convert_text, device):
    """cuTile calls a function through a name bound to it (`f = ct.exp`, `f(t)`), chosen by a
    constexpr (`ct.exp2 if FAST else twice`, or in the branches of an `if`), or given to a tile
    function. Each call calls the function itself; the choice by a constexpr makes a version of
    the kernel per outcome, a tile function given two functions a specialization per function."""
    text = convert_text(FUNCTION_VALUES)
    assert "ct.exp" not in text.split("def launch_k")[0].split("def k(")[1]  # no cuda.tile name left
    assert "def apply_2(f, t):" in text and "apply(None, t)" in text
    mod = convert(FUNCTION_VALUES)
    x = torch.rand(32, device=device) - 0.5
    for fast in (True, False):
        y = torch.empty_like(x)
        mod.launch_k(0, (2,), (x, y, 16, fast))
        g = torch.exp2(x) if fast else x * 2
        h = x * 2 if fast else x.abs()
        torch.testing.assert_close(y, torch.exp(x) + g + h + torch.sin(x) + torch.exp(x) + torch.cos(x))


def test_the_function_values_kernel_is_valid_cutile(cutile_export):
    ct, array = cutile_export.ct, cutile_export.array
    f32 = array(ct.float32, 1)
    assert cutile_export.cubin_size(FUNCTION_VALUES, [f32, f32, 16, True]) > 0


@pytest.mark.parametrize("body,message", [
    ("    if ct.bid(0) == 0:\n        f = ct.exp\n    else:\n        f = ct.sin\n",
     "'f' is ct.exp in one branch of this `if` and ct.sin in the other"),
    ("    f = ct.exp\n    for i in range(2):\n        f = ct.sin\n", "`f` is given another function in this loop"),
    ("    f = ct.sin if ct.bid(0) == 0 else ct.exp\n", "chooses between two functions by a value known only"),
    ("    a, f = t, ct.exp\n", "ct.exp here cannot be converted: a function is a value only while cuTile compiles"),
    ("    fs = (ct.exp,)\n    for i in range(2):\n        t = fs[0](t)\n        fs = (ct.sin,)\n    f = fs[0]\n",
     "`fs` is given another kind of value in this loop"),
])
def test_a_function_chosen_at_run_time_is_a_located_error(convert_error, body, message):
    source = ("import cuda.tile as ct\n\n@ct.kernel\ndef k(x, T: ct.Constant[int]):\n"
              "    t = ct.load(x, (ct.bid(0),), (T,))\n" + body + "    ct.store(x, (ct.bid(0),), f(t))\n")
    assert message in convert_error(source)


UNCALLED_TUPLE_HELPERS = '''
import cuda.tile as ct


@ct.function
def retile(original, index: ct.Constant[tuple[int, ...]]):
    # original is a tuple only a call gives: lowered without one it is a tile of unknown rank
    ret = ()
    for i in ct.static_iter(index):
        ret += (original[i],)
    return ret


@ct.function
def add_one(t):
    return t + 1.0


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    ct.store(y, (ct.bid(0),), add_one(ct.load(x, (ct.bid(0),), (T,))))
'''


def test_a_tile_function_no_kernel_calls_that_indexes_its_tuple_parameter_is_a_stub(convert, convert_text, device):
    """A library's tile helper over a tuple and a ct.Constant[tuple] (a public reduction library's
    codegen module): cuTile compiles it only for a call, so the module converts, the helper saying
    why it was not converted if Triton is ever asked to compile it (the module was refused)."""
    text = convert_text(UNCALLED_TUPLE_HELPERS)
    assert "retile was not converted: no kernel of its module calls it, and what its parameters are" in text
    mod = convert(UNCALLED_TUPLE_HELPERS)
    x = torch.rand(16, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (1,), (x, y, 16))
    torch.testing.assert_close(y, x + 1)


def test_an_uncalled_tile_function_keeps_a_located_error_of_its_own(convert_error):
    """What no call could make valid stays a located error (a name cuda.tile lacks, used on a
    value of the function's own)."""
    message = convert_error("import cuda.tile as ct\n\n@ct.function\ndef f(t):\n"
                            "    u = ct.zeros((4,), dtype=ct.float32)\n    return t + ct.sigmoid(u)\n")
    assert "sigmoid" in message


def test_a_tile_function_no_kernel_calls_that_calls_its_parameter_is_a_stub(convert, convert_text, device):
    """cuTile compiles `apply(f, t)` only for a call, which gives f; with none in its module the
    converted function says so if Triton is ever asked to compile it, and the module converts."""
    source = FUNCTION_VALUES.replace("apply(ct.sin, t) + apply(f, t) + ", "")
    text = convert_text(source)
    assert "apply was not converted: no kernel of its module calls it, and it calls its parameter 'f'" in text
    mod = convert(source)
    x = torch.rand(16, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (1,), (x, y, 16, False))
    torch.testing.assert_close(y, torch.exp(x) + x * 2 + x.abs() + torch.cos(x))


# ---------------------------------------------------------------- recursion

RECURSIVE_SUM = '''
import cuda.tile as ct


def tree_sum(t, n: ct.Constant[int]):
    """The sum of a tile of n elements, halving it at each call."""
    if n == 1:
        return t
    half = n // 2
    a = ct.extract(t, index=(0,), shape=(half,))
    b = ct.extract(t, index=(1,), shape=(half,))
    return tree_sum(a + b, half)


@ct.kernel
def k(x, y):
    t = ct.load(x, index=(ct.bid(0),), shape=(16,))
    ct.store(y, index=(ct.bid(0),), tile=tree_sum(t, 16))
'''


def test_a_recursion_whose_constants_change_at_each_call_is_unrolled(convert, convert_text, device):
    """cuTile unrolls tree_sum(t, 16) -> tree_sum(a + b, 8) -> ... -> tree_sum(., 1) as it compiles;
    it was refused ("recursive tile functions cannot be converted"). Each call is a specialization
    with its constant folded in, the last returning its tile."""
    text = convert_text(RECURSIVE_SUM)
    assert "return tree_sum_2(a + b, half)" in text and "def tree_sum_5(t, n: tl.constexpr):\n    \"\"\"The sum of a tile of n elements, halving it at each call.\"\"\"\n    return t" in text
    mod = convert(RECURSIVE_SUM)
    x = torch.randn(48, device=device)
    y = torch.zeros(3, device=device)
    mod.launch_k(0, (3,), (x, y))
    torch.testing.assert_close(y, x.reshape(3, 16).sum(1))


def test_the_recursive_sum_is_valid_cutile(cutile_export):
    ct, array = cutile_export.ct, cutile_export.array
    assert cutile_export.cubin_size(RECURSIVE_SUM, [array(ct.float32, 1), array(ct.float32, 1)]) > 0


@pytest.mark.parametrize("source,message", [
    (RECURSIVE_SUM.replace("def k(x, y):", "def k(x, y, N: ct.Constant[int]):").replace("tree_sum(t, 16)", "tree_sum(t, N)")
     .replace("shape=(16,)", "shape=(N,)"), "unless each call's constant arguments are known at conversion"),
    (RECURSIVE_SUM.replace("return tree_sum(a + b, half)", "return tree_sum(t, n)"),
     "passes the same argument types and constants as the one it is in"),
    (RECURSIVE_SUM.replace("return tree_sum(a + b, half)", "return tree_sum(t, n + 1)").replace("shape=(half,)", "shape=(1,)"),
     "too many specializations of one tile function"),
])
def test_a_recursion_that_cannot_be_unrolled_at_conversion_is_a_located_error(convert_error, source, message):
    assert message in convert_error(source)
