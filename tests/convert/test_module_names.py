"""The module's own names against those the converter adds (src/lower/lower_names.c).

The converted module carries helpers (ct_launch, _tensor, ct_cdiv, ...), the imports
they need (os, operator, torch, triton, tl, ...) and constexpr twins (NAME_TL) of module
constants at module level; a name the module binds itself that one of them binds too would
replace the other (the module's callers, the helpers or the kernels would reach the wrong
thing, with exit status 0). That is a located error at the
module's binding; an import of the same module is the same binding and converts.
"""
import pytest
import torch

KERNEL = '''
import cuda.tile as ct
import torch
{imports}
from cuda.tile.tune import exhaustive_search


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


def {run}(x):
    y = torch.empty_like(x)
    result = exhaustive_search([16, 32], 0, lambda t: (ct.cdiv(x.shape[0], t),), scale,
                               lambda t: (x, y, t), quiet=True)
    t = result.best.config
    ct.launch(0, (ct.cdiv(x.shape[0], t),), scale, (x, y, t))
    return y
{tail}
'''


def source(run="run", imports="", tail=""):
    return KERNEL.format(run=run, imports=imports, tail=tail)


def test_a_function_named_as_a_helper_is_refused_at_its_def(convert_error):
    # exhaustive_search's helper times launches with ct_launch, the helper of ct.launch
    message = convert_error(source(run="ct_launch"))
    assert message.startswith("C2T403: the module binds 'ct_launch' at module level, which the "
                              "converted module also binds (a function of the code it adds)")
    assert "rename the module's 'ct_launch'" in message


def test_a_host_function_named_launch_kernel_converts(convert):
    """The helper of ct.launch for any kernel was named launch_kernel, a name host code gives
    its own wrappers (a public module: `def launch_kernel(x, occupancy=2)` calling ct.launch of
    a variant), which was refused as a name both bind; the helper is ct_launch now."""
    mod = convert(source(run="launch_kernel"))
    x = torch.randn(64)
    assert torch.equal(mod.launch_kernel(x), x * 2)


def test_a_name_the_helpers_import_is_refused_where_the_module_assigns_it(convert_error, convert_text):
    message = convert_error(source(tail="\ncontextlib = {'add': 1}\n"))
    assert message.startswith("C2T403: the module binds 'contextlib' at module level, which the converted "
                              "module also binds (an import its helpers use)")
    # operator is imported only for lists of arrays (_array_list_key): here the name is the module's
    text = convert_text(source(tail="\noperator = {'add': 1}\n"))
    assert "import operator" not in text and "operator = {'add': 1}" in text


def test_a_name_of_a_constants_twin_is_refused(convert_error):
    # tile code reads module constant SCALE as its twin SCALE_TL = tl.constexpr(SCALE); the
    # module's own SCALE_TL = 5 would have made the kernel multiply by 5
    message = convert_error('''
import cuda.tile as ct

SCALE = 3.0
SCALE_TL = 5.0


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * SCALE)
''')
    assert message.startswith("C2T403: the module binds 'SCALE_TL' at module level, which the converted "
                              "module also binds (the constexpr twin tile code reads")


def test_bindings_in_module_level_blocks_and_targets_are_seen(convert_error):
    tail = "\ntry:\n    import numpy as os\nexcept ImportError:\n    pass\n"
    assert "binds 'os'" in convert_error(source(tail=tail))
    tail = "\nfor _tensor in range(2):\n    pass\n"
    assert "binds '_tensor'" in convert_error(source(tail=tail))
    tail = "\nfirst, (second, *ct_launch) = 1, (2, 3)\n"
    assert "binds 'ct_launch'" in convert_error(source(tail=tail))
    tail = "\nwith open(__file__) as INTERPRETED:\n    pass\n"
    assert "binds 'INTERPRETED'" in convert_error(source(tail=tail))


def test_imports_of_the_same_module_and_unrelated_names_convert_and_run(convert):
    imports = "import os\nimport os.path\nimport triton.language as tl\nfrom time import time\nimport random as launch"
    # a function of the module using names the converter's code does not bind (time: the
    # search's timing imports perf_counter itself) and one it binds only inside functions
    tail = "\n\ndef now():\n    return time()\n\n\ndef other(ct_launch):\n    return ct_launch + 1\n"
    mod = convert(source(imports=imports, tail=tail))
    x = torch.randn(64)
    assert torch.equal(mod.run(x), x * 2)
    assert isinstance(mod.now(), float)
    assert mod.other(1) == 2


def test_a_helper_name_the_module_does_not_need_is_free(convert):
    # without exhaustive_search the module carries no ct_launch helper
    mod = convert('''
import cuda.tile as ct
import torch


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


def ct_launch(x):
    y = torch.empty_like(x)
    ct.launch(0, (ct.cdiv(x.shape[0], 16),), scale, (x, y, 16))
    return y
''')
    x = torch.randn(64)
    assert torch.equal(mod.ct_launch(x), x * 2)



def test_a_module_function_named_launch_keeps_its_name(convert):
    # `_launch` is what a module's own launch wrapper is often called (41 of 1718 files of a
    # public corpus): the helper every converted launch goes through is _c2t_launch, so both
    # stand side by side
    mod = convert('''
import cuda.tile as ct
import torch


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


def _launch(x):
    y = torch.empty_like(x)
    ct.launch(0, (ct.cdiv(x.shape[0], 16),), scale, (x, y, 16))
    return y


def run(x):
    return _launch(x) + 1
''')
    x = torch.randn(64)
    assert torch.equal(mod.run(x), x * 2 + 1)
    assert mod._launch is not mod._c2t_launch

# A tile function's own names against the parameters the converter adds (x_shape, x_strides,
# x_tma, x_desc_1, _use_tma, ... for an array parameter x): a local is the function's alone and
# takes a name of its own (x_shape_1); a declared parameter of such a name is a located error.

SHIFTED_STORE = '''
import cuda.tile as ct


@ct.kernel
def shift(x, y, TILE: ct.Constant[int]):
    y_shape = x.shape  # the kernel's own local, not y's shape
    n = y_shape[0]
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0) + 2,), tile=t + n)


def run(x, y):
    ct.launch(0, (2,), shift, (x, y, 16))
    return y
'''


def test_a_local_named_as_an_arrays_shape_parameter_is_renamed(convert, convert_text):
    # the store into y used the local (x's shape, 32 elements) as y's and wrote nothing
    text = convert_text(SHIFTED_STORE)
    assert "y_shape_1 = x_shape" in text and "n = y_shape_1[0]" in text
    mod = convert(SHIFTED_STORE)
    x = torch.arange(32.0)
    y = mod.run(x, torch.zeros(64))
    assert torch.equal(y[:32], torch.zeros(32)) and torch.equal(y[32:], x + 32)


def test_a_local_tile_shape_named_as_a_shape_parameter_sizes_the_tile(convert):
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    x_shape = (TILE,)
    _use_tma = 2
    t = ct.load(x, index=(ct.bid(0),), shape=x_shape)
    ct.store(y, index=(ct.bid(0),), tile=t * _use_tma)


def run(x, y):
    ct.launch(0, (3,), scale, (x, y, 16))
    return y
''')
    x = torch.randn(48)
    assert torch.equal(mod.run(x, torch.zeros(48)), x * 2)


def test_a_parameter_named_as_an_arrays_shape_parameter_is_refused(convert_error):
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def scale(x, x_shape, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * x_shape)
''')
    assert message.startswith("C2T402: 'x_shape' is the name of a parameter the converter adds to the "
                              "Triton function")


@pytest.mark.parametrize("name", ["x_tma", "x_kmajor"])
def test_a_tile_function_parameter_named_as_one_added_after_its_own_is_refused(convert_error, name):
    """A TMA flag or a K-major copy's parameter comes after a tile function's parameters as
    written: a parameter so named already would be given twice."""
    message = convert_error(f'''
import cuda.tile as ct


def product(x, y, {name}, T: ct.Constant[int]):
    a = ct.load(x, index=(0, 0), shape=(T, T))
    b = ct.load(x, index=(0, ct.bid(0)), shape=(T, T))
    ct.store(y, index=(0, ct.bid(0)), tile=ct.mma(a, b, ct.zeros((T, T), dtype=ct.float32)) + {name})


@ct.kernel
def gemm(x, y, T: ct.Constant[int]):
    product(x, y, 1.0, T)
''')
    assert message.startswith(f"C2T402: '{name}' is the name of a parameter the converter adds to the "
                              "Triton function")


def test_kernel_parameters_named_as_the_launchers_own_names_are_renamed(convert, convert_text):
    # the launcher unpacked the kernel's arguments over its own stream, grid and args
    source = '''
import cuda.tile as ct


@ct.kernel
def fill(out, grid, stream, args, num_warps, TILE: ct.Constant[int]):
    t = ct.full((TILE,), 1.0, dtype=ct.float32) * grid + stream + args + num_warps
    ct.store(out, index=(ct.bid(0),), tile=t)


def run(out):
    ct.launch(0, (ct.cdiv(out.shape[0], 16),), fill, (out, 5, 7, 11, 100, 16))
    return out
'''
    assert "out, grid_1, stream_1, args_1, num_warps_1, TILE = args" in convert_text(source)
    mod = convert(source)
    assert torch.equal(mod.run(torch.zeros(48)), torch.full((48,), 123.0))


def test_a_local_named_as_a_module_name_tile_code_reads_is_renamed(convert):
    # `tl` hid Triton's module from the whole converted kernel (tl.program_id read the local)
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    tl = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    triton = tl * 2
    ct.store(y, index=(ct.bid(0),), tile=ct.exp(triton) * 0 + triton)


def run(x, y):
    ct.launch(0, (3,), scale, (x, y, 16))
    return y
''')
    x = torch.randn(48)
    assert torch.equal(mod.run(x, torch.zeros(48)), x * 2)


def test_a_host_local_hiding_the_helper_its_converted_launch_calls_is_refused(convert_error):
    # ct.launch of a kernel chosen at run time becomes ct_launch(stream, grid, kernel, args)
    message = convert_error(HOST_LOCAL.format(name="ct_launch"))
    assert message.startswith("C2T403: the function binds 'ct_launch', a helper of the converted module "
                              "that its converted code calls")


def test_a_host_local_named_launch_kernel_converts(convert):
    """A public module binds `launch_kernel = kernel.replace_hints(...)` and launches it: the
    helper of ct.launch had that name and the module was refused; the helper is ct_launch now."""
    mod = convert(HOST_LOCAL.format(name="launch_kernel"))
    x = torch.randn(48)
    assert torch.equal(mod.run(x, 2), x * 2) and torch.equal(mod.run(x, 3), x * 3)


HOST_LOCAL = '''
import cuda.tile as ct
import torch


@ct.kernel
def double(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


@ct.kernel
def triple(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 3)


def run(x, which):
    y = torch.empty_like(x)
    {name} = double if which == 2 else triple
    ct.launch(0, (ct.cdiv(x.shape[0], 16),), {name}, (x, y, 16))
    return y
'''


HOST_TORCH = '''
import cuda.tile as ct
{imports}


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


def run(x):
    {local}
    y = th.empty(x.shape, dtype=ct.float16)
    ct.launch(0, (ct.cdiv(x.shape[0], 16),), scale, (x, y, 16))
    return y


def other(torch):
    return torch
'''


def test_a_host_local_hiding_the_module_its_converted_code_reads_is_refused(convert_error):
    # ct.float16 becomes torch.float16: with a local `torch` it read the local's attribute
    # (an AttributeError of a str at run time), whether the converter imports torch or the
    # module does
    for imports in ("import torch as th", "import torch\nimport torch as th"):
        message = convert_error(HOST_TORCH.format(imports=imports, local='torch = "a label"'))
        assert message.startswith("C2T403: the function binds 'torch', the name of a module the converted "
                                  "module imports, which its converted code reads"), message
        assert "rename the function's 'torch'" in message


def test_a_local_of_a_module_name_its_converted_code_does_not_read_converts(convert):
    # `other(torch)` reads only its own parameter; run's local is named otherwise
    mod = convert(HOST_TORCH.format(imports="import torch as th", local='label = "a label"'))
    x = torch.randn(32, dtype=torch.float16)
    assert torch.equal(mod.run(x), x * 2)
    assert mod.other(5) == 5


def test_a_tile_function_parameter_hiding_triton_language_is_refused(convert_error):
    # its converted body reads tl.* (the kernel's own parameters so named are renamed)
    message = convert_error('''
import cuda.tile as ct


@ct.function
def twice(t, tl):
    return t * tl


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=twice(ct.load(x, index=(ct.bid(0),), shape=(TILE,)), 2))
''')
    assert message.startswith("C2T403: the function binds 'tl', the name of a module the converted module imports")


def test_a_global_declaration_of_a_name_the_converter_binds_is_refused(convert_error, convert):
    # `global ct_launch` then an assignment would replace the helper the converted
    # ct.launch of a kernel chosen at run time calls, from inside a function
    module = '''
import cuda.tile as ct
import torch


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


def setup():
    global {name}, counter
    {name} = None
    counter = 1


def run(x):
    y = torch.empty_like(x)
    kernels = [scale]
    ct.launch(0, (2,), kernels[0], (x, y, 16))
    return y
'''
    message = convert_error(module.format(name="ct_launch"))
    assert message.startswith("C2T403: the function declares 'ct_launch' global, which the converted "
                              "module binds at module level (a function of the code it adds)"), message
    mod = convert(module.format(name="chosen"))  # a name of its own converts
    mod.setup()
    x = torch.randn(32)
    assert torch.equal(mod.run(x), x * 2)


SHAPE_OF_NAMES = '''
import cuda.tile as ct

BLOCK = 32
SHAPE = (2, BLOCK)


@ct.kernel
def k(x, y):
    t = ct.load(x, index=(ct.bid(0), 0), shape=SHAPE)
    ct.store(y, index=(ct.bid(0), 0), tile=t + 1)
'''


def test_a_module_tuple_of_module_constants_is_a_tile_shape(convert, convert_error):
    """SHAPE = (2, BLOCK) is (2, 32) where BLOCK is assigned once (it was refused: "index and shape
    must have one entry per array dimension"); a BLOCK stored again anywhere is not folded (after
    `BLOCK = 64`, SHAPE is still (2, 32) in Python: folding the last binding would load 2 x 64)."""
    mod = convert(SHAPE_OF_NAMES)
    x = torch.arange(4 * 32, dtype=torch.float32).reshape(4, 32)
    y = torch.zeros_like(x)
    mod.launch_k(0, (2,), (x, y))
    assert torch.equal(y, x + 1)
    again = SHAPE_OF_NAMES.replace("SHAPE = (2, BLOCK)\n", "SHAPE = (2, BLOCK)\nBLOCK = 64\n")
    assert "one entry per array dimension" in convert_error(again)
