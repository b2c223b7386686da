"""cuTile names as host values: annotations, enum and dtype aliases, guarded
imports, ct.cdiv imported by name, and what stays refused (ahead-of-time export)."""

import dataclasses
import typing

import pytest
import torch

COPY_KERNEL = '''
import pytest
import torch
import cuda.tile as ct


@ct.kernel
def copy_kernel(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t)
'''


def test_cutile_types_in_host_annotations(convert, device):
    mod = convert(COPY_KERNEL + '''
ConstInt = ct.Constant[int]
BLOCK: ct.Constant[int] = 16


def run(x, kernel: ct.kernel, dtype: ct.DType, block: ConstInt = BLOCK) -> ct.Array:
    y = torch.empty(x.shape, dtype=dtype, device=x.device)
    ct.launch(0, (ct.cdiv(x.shape[0], block),), kernel, (x, y, block))
    return y
''')
    x = torch.randn(40, device=device)
    assert torch.equal(mod.run(x, mod.copy_kernel, torch.float32), x)
    hints = typing.get_type_hints(mod.run)
    assert hints["dtype"] is torch.dtype and hints["block"] is int and hints["return"] is torch.Tensor


def test_dataclass_fields_typed_with_cutile_types(convert, device):
    mod = convert(COPY_KERNEL + '''
import dataclasses
from typing import Optional


@dataclasses.dataclass
class Plan:
    kernel: ct.kernel
    dtype: Optional[ct.DType] = ct.float16
    block: ct.Constant[int] = 8
    tile: ct.Tile = None


def run(x, plan: Plan):
    y = torch.empty(x.shape, dtype=plan.dtype, device=x.device)
    ct.launch(0, (ct.cdiv(x.shape[0], plan.block),), plan.kernel, (x.to(plan.dtype), y, plan.block))
    return y
''')
    fields = [field.name for field in dataclasses.fields(mod.Plan)]
    assert fields == ["kernel", "dtype", "block", "tile"]
    plan = mod.Plan(mod.copy_kernel)
    assert plan.dtype is torch.float16 and plan.block == 8
    x = torch.randn(20, device=device)
    assert torch.equal(mod.run(x, plan), x.to(torch.float16))


def test_padding_mode_alias_read_in_tile_code_and_on_the_host(convert, device):
    mod = convert('''
import pytest
import torch
import cuda.tile as ct

PAD = ct.PaddingMode.NEG_INF
ROUND = ct.RoundingMode.RZ


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=PAD)
    ct.store(y, index=(ct.bid(0),), tile=ct.max(t, axis=0, keepdims=True))


def run(x):
    y = torch.empty(ct.cdiv(x.shape[0], 16), device=x.device)
    ct.launch(0, (y.shape[0],), k, (x, y, 16))
    return y


def modes():
    return PAD, ROUND, PAD == ct.PaddingMode.NEG_INF, ct.MemoryOrder.ACQUIRE.value
''')
    x = -torch.rand(20, device=device) - 1.0
    expected = torch.stack([x[:16].max(), x[16:].max()])
    assert torch.equal(mod.run(x), expected)
    pad, rounding, same, order = mod.modes()
    assert pad.name == "NEG_INF" and pad.value == "neg_inf" and repr(pad) == "<PaddingMode.NEG_INF: 'neg_inf'>"
    assert rounding.name == "RZ" and same is True and order == "acquire"


def test_dtype_alias_read_in_tile_code_and_on_the_host(convert, device):
    mod = convert('''
import pytest
import torch
import cuda.tile as ct

DT = ct.float16


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t.astype(DT))


def run(x):
    y = torch.empty(x.shape, dtype=DT, device=x.device)
    ct.launch(0, (ct.cdiv(x.shape[0], 16),), k, (x, y, 16))
    return y
''')
    x = torch.randn(32, device=device)
    y = mod.run(x)
    assert y.dtype == torch.float16 and torch.equal(y, x.to(torch.float16))


def test_guarded_cutile_import(convert, device):
    mod = convert('''
import pytest
import torch

try:
    import cuda.tile as ct
    HAVE_CUTILE = True
except ImportError:
    ct = None
    HAVE_CUTILE = False


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) * 2)


def run(x):
    y = torch.empty_like(x)
    ct.launch(0, (ct.cdiv(x.shape[0], 8),), k, (x, y, 8))
    return y
''')
    assert mod.HAVE_CUTILE is True
    x = torch.randn(24, device=device)
    assert torch.equal(mod.run(x), x * 2)


def test_a_type_alias_inside_the_guarded_import_block(convert, convert_text, device):
    """`try: import cuda.tile as ct; ConstInt = ct.Constant[int]; <kernels and host code>
    except ImportError:` (public code guards the whole cuTile part so): the alias goes as a
    module-level one does, in the kernel's signature and in a host function's, and a constant
    bound in the block gets its constexpr twin there."""
    source = '''
import math
import pytest
import torch

HAS_CUTILE = False
try:
    import cuda.tile as ct
    ConstInt = ct.Constant[int]

    SCALE = 2.0 * math.log(2) / math.log(2)  # a constant bound in the block, read by the kernel

    @ct.kernel
    def twice(x, y, T: ConstInt):
        ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) * SCALE)

    def run(x, tile: ConstInt = 16):
        y = torch.empty_like(x)
        ct.launch(0, (ct.cdiv(x.shape[0], tile),), twice, (x, y, tile))
        return y

    HAS_CUTILE = True
except ImportError:
    pass
'''
    text = convert_text(source)
    assert "Constant" not in text and "ConstInt" not in text.split("def run(")[1].split(":")[1]
    mod = convert(source)
    assert mod.HAS_CUTILE
    x = torch.randn(40, device=device)
    assert torch.equal(mod.run(x), x * 2)


ROW_SUMS = '''

@ct.kernel
def row_sums(x, out, TILE: ConstInt):
    acc = ct.zeros((1, TILE), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(1, TILE))):
        acc += ct.load(x, index=(ct.bid(0), j), shape=(1, TILE), padding_mode=PAD)
    ct.store(out, index=(ct.bid(0),), tile=ct.sum(acc, axis=1))


def run(x):
    out = torch.empty(x.shape[0], device=x.device)
    ct.launch(0, (x.shape[0],), row_sums, (x, out, 16))
    return out
'''


def test_aliases_chosen_by_the_flag_of_a_guarded_import(convert, convert_text, device):
    """`ConstInt = ct.Constant[int] if HAS_CUTILE else int` and `if HAS_CUTILE: PAD = ...`
    beside `try: import cuda.tile as ct; HAS_CUTILE = True`: the converted module runs the
    try body, so the alias is ct.Constant[int] (the tile shape is a constant) and the
    conditional statement is its branch."""
    source = '''
import types

import pytest
import torch

try:
    import cuda.tile as ct
    HAS_CUTILE = True
except ModuleNotFoundError:
    ct = types.SimpleNamespace(Constant=dict, kernel=lambda f=None, **kw: f)
    HAS_CUTILE = False

ConstInt = ct.Constant[int] if HAS_CUTILE else int
if HAS_CUTILE:
    PAD = ct.PaddingMode.ZERO
''' + ROW_SUMS
    assert "if HAS_CUTILE else int" not in convert_text(source)
    mod = convert(source)
    x = torch.randn(3, 40, device=device)
    torch.testing.assert_close(mod.run(x), x.sum(1))


@pytest.mark.parametrize("test", ["ct", "ct is not None", "not not ct"])
def test_aliases_chosen_by_the_cuda_tile_module_itself(convert, convert_text, device, test):
    """`PAD = ct.PaddingMode.ZERO if ct else None` beside `except ImportError: ct = None`
    (FlashInfer's optional cuTile kernels): the converted module's tile code was read with the
    cuda.tile module, which is true."""
    source = f'''
import torch

try:
    import cuda.tile as ct
except ImportError:
    ct = None

ConstInt = ct.Constant[int] if {test} else None
PAD = ct.PaddingMode.ZERO if {test} else None
''' + ROW_SUMS
    text = convert_text(source)
    assert "\nPAD = _PaddingMode.ZERO\n" in text and "ConstInt" not in text
    mod = convert(source)
    x = torch.randn(3, 40, device=device)
    torch.testing.assert_close(mod.run(x), x.sum(1))


def test_an_annotated_type_alias_of_constant(convert, convert_text, device):
    """`ConstInt: TypeAlias = ct.Constant[int]` is the alias `ConstInt = ct.Constant[int]` is:
    it leaves the host code, and parameters annotated with it are constexprs."""
    source = '''
from typing import TypeAlias

import pytest
import torch
import cuda.tile as ct

ConstInt: TypeAlias = ct.Constant[int]


@ct.kernel
def shifted(x, y, T: ConstInt):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) + 1.0)


def run(x):
    y = torch.empty_like(x)
    ct.launch(0, (ct.cdiv(x.shape[0], 8),), shifted, (x, y, 8))
    return y
'''
    text = convert_text(source)
    assert "ConstInt" not in text and "T: tl.constexpr" in text
    x = torch.randn(20, device=device)
    torch.testing.assert_close(convert(source).run(x), x + 1)


HASATTR = '''
import pytest
import torch
import cuda.tile as ct

HAS_MMA = hasattr(ct, "mma")
HAS_FUTURE_OP = hasattr(ct, "{missing}")

if HAS_MMA:

    @ct.function
    def combine(a, b):
        return a + b

else:

    @ct.function
    def combine(a, b):
        return a - b

if HAS_FUTURE_OP:

    @ct.function
    def scaled(t):
        return t * 3.0

else:

    @ct.function
    def scaled(t):
        return t * 2.0


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=scaled(combine(t, t)))


def run(x):
    y = torch.empty_like(x)
    ct.launch(0, (ct.cdiv(x.shape[0], 8),), k, (x, y, 8))
    return y
'''


def test_hasattr_of_cutile_is_what_cutile_1_7_has_and_picks_the_tile_function(convert, convert_text, device):
    """hasattr(ct, "mma") is True in cuda.tile 1.7, hasattr(ct, "not_an_op") False: the host
    constant the converted module holds, and the `if` that defines one version of a tile
    function per outcome keeps the taken branch only (the first definition was taken
    whatever the condition said)."""
    source = HASATTR.format(missing="not_an_op")
    text = convert_text(source)
    assert "HAS_MMA = True" in text and "HAS_FUTURE_OP = False" in text
    assert "a - b" not in text and "t * 3.0" not in text
    mod = convert(source)
    x = torch.randn(16, device=device)
    torch.testing.assert_close(mod.run(x), (x + x) * 2.0)
    assert mod.HAS_MMA is True and mod.HAS_FUTURE_OP is False


def test_a_tile_whose_tfloat32_ness_is_a_launch_condition_cannot_go_to_a_tile_function(convert_error):
    message = convert_error('''
import cuda.tile as ct


@ct.function
def accumulate(a, b, acc):
    return ct.mma(a, b, acc)


@ct.kernel
def k(A, B, C, T: ct.Constant[int]):
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    a = ct.load(A, index=(0, 0), shape=(T, T)).astype(dtype)
    b = ct.load(B, index=(0, 0), shape=(T, T)).astype(dtype)
    acc = accumulate(a, b, ct.zeros((T, T), dtype=ct.float32))
    ct.store(C, index=(0, 0), tile=acc)
''')
    assert "a tile that is tfloat32 only for some dtypes of the launch" in message, message


def test_a_fallback_binding_does_not_hide_the_cutile_one(convert, device):
    # `except ImportError: RM = None` runs only where cuda.tile is missing; the converted
    # module never imports it, so RM stays cuTile's RoundingMode for the tile code
    mod = convert('''
import pytest
import torch

try:
    import cuda.tile as ct
    from cuda.tile import RoundingMode as RM
    HAVE_CUTILE = True
except ImportError:
    RM = None
    HAVE_CUTILE = False


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=ct.truediv(t, 3.0, rounding_mode=RM.APPROX))


def run(x):
    y = torch.empty_like(x)
    ct.launch(0, (ct.cdiv(x.shape[0], 8),), k, (x, y, 8))
    return y
''')
    assert mod.HAVE_CUTILE is True  # the try body ran, not the handler
    x = torch.randn(24, device=device)
    torch.testing.assert_close(mod.run(x), x / 3.0)


def test_type_checking_import(convert_text, convert):
    source = '''
from typing import TYPE_CHECKING

import pytest
import torch
from cuda.tile import kernel, load, store, bid, Constant

if TYPE_CHECKING:
    import cuda.tile as ct


@kernel
def k(x, y, T: Constant[int]):
    store(y, index=(bid(0),), tile=load(x, index=(bid(0),), shape=(T,)))


def block_of(kernel: "ct.kernel", block: "ct.Constant[int]" = 4) -> int:
    return block
'''
    text = convert_text(source)
    assert "import cuda" not in text
    assert convert(source).block_of(None) == 4


def test_cdiv_imported_by_name_on_the_host(convert):
    mod = convert('''
from cuda.tile import cdiv, kernel


@kernel
def k(x):
    pass


def blocks(n, b):
    return cdiv(n, b)
''')
    assert [mod.blocks(n, 4) for n in (0, 1, 4, 5, -5)] == [0, 1, 1, 2, -1]


def test_ahead_of_time_export_is_an_error(convert_error):
    message = convert_error(COPY_KERNEL + '''
import cuda.tile.compilation


def export(path):
    ct.compilation.export_kernel(copy_kernel, path)
''')
    assert "cuda.tile.compilation" in message and "export_kernel" in message


def test_ahead_of_time_export_imported_by_name_is_an_error(convert_error):
    message = convert_error(COPY_KERNEL + '''
from cuda.tile.compilation import export_kernel as export


def run(path):
    export(copy_kernel, path)
''')
    assert "cuda.tile.compilation" in message and "export_kernel" in message


def test_host_use_of_the_cuda_tile_module_itself_is_an_error(convert_error):
    message = convert_error('''
try:
    import cuda.tile as ct
except ImportError:
    ct = None


@ct.kernel
def k(x):
    pass


LANGUAGE = ct  # the module as a value (`ct is not None` is a test the converter answers)
''')
    assert "cuda.tile module itself ('ct')" in message


def test_cyclic_type_aliases_in_a_host_annotation_become_text(convert):
    mod = convert('''
import cuda.tile as ct

A = ct.Constant[B]
B = ct.Constant[A]


@ct.kernel
def k(x):
    pass


def f(n: A) -> int:
    return n + 1
''')
    assert mod.f(2) == 3 and mod.f.__annotations__["n"] == "A"


def test_cutile_imported_with_other_modules_in_one_statement(convert, convert_text, device):
    # `import math, cuda.tile as ct, json`: the other modules keep an import statement of their
    # own where it stood; the cuda.tile part goes, as a statement of its own would
    source = '''
import pytest
import torch
import math, cuda.tile as ct, json  # one statement


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) * 2)


def run(x):
    y = torch.empty_like(x)
    ct.launch(0, (math.ceil(x.shape[0] / 8),), k, (x, y, 8))
    return y, json.dumps(1)
'''
    text = convert_text(source)
    assert "import math, json\n" in text and "cuda.tile" not in text
    x = torch.randn(24, device=device)
    y, dumped = convert(source).run(x)
    assert torch.equal(y, x * 2) and dumped == "1"


def test_module_constants_of_a_chained_assignment(convert, device):
    mod = convert('''
import pytest
import torch
import cuda.tile as ct

TM = TN = 8


@ct.kernel
def k(x, y):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TM, TN))
    ct.store(y, index=(ct.bid(0), 0), tile=t + TN)


def run(x):
    y = torch.empty_like(x)
    ct.launch(0, (x.shape[0] // TM,), k, (x, y))
    return y
''')
    x = torch.randn(16, 8, device=device)
    assert torch.equal(mod.run(x), x + 8)


def test_cutile_version_on_the_host_is_the_one_the_conversion_follows(convert):
    # ct.__version__ on the host (a probe printing it, a version check): the cuda-tile release
    # whose names and semantics the converter follows (its --list-ops), also in an f-string
    # (a quoted literal there would need Python 3.12) and at import time
    mod = convert('''
import cuda.tile as ct

AT_IMPORT = ct.__version__


@ct.kernel
def k(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)))


def describe():
    return f"converted from cuda-tile {ct.__version__}"
''')
    assert mod.AT_IMPORT == "1.7.0" and mod.describe() == "converted from cuda-tile 1.7.0"


def test_a_module_that_imports_what_the_helpers_need_only_after_them_still_imports(convert, convert_text, device):
    """The helpers go before the first statement that needs one at import (PAD below); a
    module's own `import os` after it (a tutorial's benchmark imports at its end) comes too late
    for them (INTERPRETED reads os.environ), so the converter imports os itself; a torch import
    before the helpers is not repeated."""
    source = """
import cuda.tile as ct
import pytest
import torch

PAD = ct.PaddingMode.ZERO


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=PAD)
    ct.store(y, index=(ct.bid(0),), tile=ct.exp(t))


def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 16))
    return y


import os  # noqa: E402
"""
    text = convert_text(source)
    assert text.index("import os\n") < text.index("INTERPRETED = ")
    assert text.count("import torch\n") == 1
    mod = convert(source)
    x = torch.randn(16, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (1,), (x, y, 16))
    torch.testing.assert_close(y, torch.exp(x))


COMPILER_QUERIES = '''
import tempfile

import cuda.tile as ct
from cuda.tile._bytecode.version import BytecodeVersion
from cuda.tile._cext import dev_features_enabled, get_compute_capability
from cuda.tile._compile import _get_max_supported_bytecode_version


@ct.kernel
def k(x, T: ct.Constant[int]):
    ct.store(x, (0,), ct.zeros((T,), dtype=ct.float32))


def tileiras_version():
    return _get_max_supported_bytecode_version(tempfile.gettempdir(), allow_dev=dev_features_enabled())


def supported():
    # as cuTile's samples gate a feature on the machine and on the compiler
    return tileiras_version() >= BytecodeVersion.V_13_3, BytecodeVersion(130100).name


def capability():
    return get_compute_capability()
'''


def test_what_host_code_asks_cutiles_internals_about_the_compiler(convert, convert_text):
    text = convert_text(COMPILER_QUERIES)
    assert "return torch.cuda.get_device_capability()" in text and "cuda.tile" not in text, text
    mod = convert(COMPILER_QUERIES)
    # Triton compiles every feature the conversion kept: the newest Tile IR version cuTile 1.7 names
    assert mod.supported() == (True, "V_13_1")
    assert int(mod.tileiras_version()) == 130500


@pytest.mark.parametrize("test, value", [
    ("ct is None", "False"), ("ct is not None", "True"), ("None == ct", "False"), ("ct != None", "True"),
    ("not ct", "False"),
])
def test_an_optional_cutile_import_tested_at_run_time(convert, convert_text, device, test, value):
    """`try: import cuda.tile as ct` / `except ImportError: ct = None`, then host code asks
    whether cuTile is there: the converted module has the kernels the import gave, so each test
    is the constant it is with cuTile present, and the try statement goes (its else block
    stays, its comments go with it)."""
    source = f'''
import pytest
import torch

# cuTile is optional here
try:
    import cuda.tile as ct  # the language
except ImportError:  # no cuTile: torch only
    ct = None
else:
    BACKEND = "cutile"

if ct is not None:
    @ct.kernel
    def k(x, y, T: ct.Constant[int]):
        ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) * 2)


def run(x):
    if {test}:
        y = torch.empty_like(x)
        ct.launch(0, (ct.cdiv(x.shape[0], 8),), k, (x, y, 8))
        return y
    return None


FOUND = "yes" if {test} else "no"
'''
    text = convert_text(source)
    assert "\ntry:" not in text and "the language" not in text and "torch only" not in text
    assert "# cuTile is optional here\n" in text and 'BACKEND = "cutile"' in text
    assert f"    if {value}:  # was `{test}`: the converted module has what the import gave\n" in text
    mod = convert(source)
    assert mod.BACKEND == "cutile" and mod.FOUND == ("yes" if value == "True" else "no")
    x = torch.randn(24, device=device)
    if value == "True":
        assert torch.equal(mod.run(x), x * 2)
    else:
        assert mod.run(x) is None


@pytest.mark.parametrize("scale,block", [
    ("ct.Constant[float](2)", "ct.Constant[int](16.0)"),
    ("ConstFloat(2)", "ConstInt(16.0)"),  # module-level aliases, which the conversion drops
])
def test_a_constant_annotation_called_on_the_host_is_its_type(convert, device, scale, block):
    """ct.Constant[float](v) is typing.Annotated[float, ...](v) in cuTile 1.7, so float(v): a
    launch argument written so is converted to float(v) (it was refused, and a call of an alias
    of it named the alias the conversion drops)."""
    mod = convert(f'''
import torch
import cuda.tile as ct

ConstFloat = ct.Constant[float]
ConstInt = ct.Constant[int]


@ct.kernel
def scale_kernel(x, y, s: ct.Constant[float], T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * s)


def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 16,), scale_kernel, (x, y, {scale}, {block}))
    return y
''')
    x = torch.randn(64, device=device)
    torch.testing.assert_close(mod.run(x), x * 2)
