"""Host side of a converted module: launches, launchers, imports, hints, constants."""

import ast

import torch

COPY_KERNEL = '''
import torch
import cuda.tile as ct

TILE = 16


@ct.kernel
def copy_kernel(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t)
'''


def test_launch_with_a_literal_argument_tuple(convert, device):
    mod = convert(COPY_KERNEL + '''
def copy(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], TILE),), copy_kernel, (x, y, TILE))
    return y
''')
    x = torch.randn(37, device=device)
    assert torch.equal(mod.copy(x), x)


def test_statements_sharing_a_line_run_once(convert, convert_text, device):
    # `a; b` on one line, at module level and in a host function that launches: each runs once,
    # the launch converted (the second statement of a line was copied with the whole line before)
    source = COPY_KERNEL + '''
log = []; log.append("module")


def copy(x):
    y = torch.empty_like(x); log.append("copy")
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], TILE),), copy_kernel, (x, y, TILE)); log.append("launched")
    return y
'''
    assert "ct." not in convert_text(source).split("def copy(")[1].split("\n\n\n")[0]
    mod = convert(source)
    x = torch.randn(37, device=device)
    assert torch.equal(mod.copy(x), x)
    assert mod.log == ["module", "copy", "launched"]


def test_a_launch_at_module_level_runs_at_import(convert, device):
    # a script: the launch runs while the module is imported, so the helpers come before it
    torch.set_default_device(device)
    try:
        mod = convert(COPY_KERNEL + '''
x = torch.arange(32.0)
y = torch.zeros(32)
ct.launch(torch.cuda.current_stream(), (2,), copy_kernel, (x, y, TILE))
''')
    finally:
        torch.set_default_device("cpu")
    assert torch.equal(mod.y, mod.x)


def test_a_host_function_annotated_with_ct_constant_stays_host_code(convert, convert_text):
    # ct.Constant as a host annotation does not make tile code (it became @triton.jit, which the
    # interpreter lets host code call but a GPU does not)
    source = COPY_KERNEL + '''
def double(x: ct.Constant[int]):
    return 2 * x


def run():
    v: ct.Constant[int] = 21
    return double(v)
'''
    assert "def double(x: int):" in convert_text(source)
    assert convert(source).run() == 42


def test_a_main_block_reaching_a_launch_through_an_alias_runs_as_a_script(tmp_path):
    # `if __name__ == "__main__": run = run_ct; print(run())`: the helpers come before the block
    import subprocess
    import sys

    import ops_common

    src = tmp_path / "script.py"
    src.write_text(COPY_KERNEL + '''
def run_copy():
    x = torch.arange(32.0)
    y = torch.zeros(32)
    ct.launch(0, (2,), copy_kernel, (x, y, TILE))
    return y


if __name__ == "__main__":
    run = run_copy
    print("sum", float(run().sum()))
''')
    out = tmp_path / "script_triton.py"
    subprocess.run([str(ops_common.CONVERTER), str(src), "-o", str(out)], check=True)
    env = dict(__import__("os").environ, TRITON_INTERPRET="1")
    proc = subprocess.run([sys.executable, str(out)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "sum 496.0" in proc.stdout, proc.stderr[-2000:]


def test_a_tile_function_host_code_names_keeps_host_annotations(convert):
    # fill is tile code that host code only names (fill.__name__): it stays as written, but its
    # ct.Constant annotation is evaluated when the module defines it, so it becomes the host type
    mod = convert(COPY_KERNEL + '''
def fill(y, TILE: ct.Constant[int]):
    ct.store(y, index=(0,), tile=ct.full((TILE,), 3, dtype=y.dtype))


NAMES = [fill.__name__]
''')
    assert mod.NAMES == ["fill"]


def test_launch_with_arguments_built_in_a_loop(convert, device):
    mod = convert(COPY_KERNEL + '''
def copy(x):
    y = torch.empty_like(x)
    args = ()
    for value in (x, y, TILE):
        args = args + (value,)
    grid = [ct.cdiv(x.shape[0], TILE)]
    ct.launch(torch.cuda.current_stream(), grid, copy_kernel, args)
    return y
''')
    x = torch.randn(50, device=device)
    assert torch.equal(mod.copy(x), x)


def test_launch_of_a_kernel_chosen_at_run_time(convert, device):
    mod = convert(COPY_KERNEL + '''
@ct.kernel
def negate_kernel(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=-t)


def run(x, negate):
    y = torch.empty_like(x)
    kernel = negate_kernel if negate else copy_kernel
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], TILE),), kernel, (x, y, TILE))
    return y
''')
    x = torch.randn(20, device=device)
    assert torch.equal(mod.run(x, False), x)
    assert torch.equal(mod.run(x, True), -x)


def test_launch_on_a_side_stream(convert, device):
    mod = convert(COPY_KERNEL + '''
def copy(x):
    y = torch.empty_like(x)
    side = torch.cuda.Stream()
    ct.launch(side, (ct.cdiv(x.shape[0], TILE),), copy_kernel, (x, y, TILE))
    side.synchronize()
    return y
''')
    x = torch.randn(40, device=device)
    assert torch.equal(mod.copy(x), x)


def test_three_dimensional_grid_and_from_imports(convert, device):
    mod = convert('''
import torch
from cuda.tile import kernel, bid, load, store, Constant, launch
import cuda.tile as ct

ConstInt = ct.Constant[int]


@kernel
def grid_kernel(x, y, B: ConstInt):
    i = bid(0) + 2 * bid(1) + 6 * bid(2)
    t = load(x, index=(i,), shape=(B,))
    store(y, index=(i,), tile=t + 1)


def run(x):
    y = torch.empty_like(x)
    launch(torch.cuda.current_stream(), (2, 3, 4), grid_kernel, (x, y, 4))
    return y
''')
    x = torch.arange(96, dtype=torch.float32, device=device)
    assert torch.equal(mod.run(x), x + 1)


def test_module_constant_read_in_a_kernel(convert, device):
    mod = convert('''
import torch
import cuda.tile as ct

SCALE = 3
BLOCK = 8


@ct.kernel
def scale_kernel(x, y):
    t = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,))
    ct.store(y, index=(ct.bid(0),), tile=t * SCALE)


def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], BLOCK),), scale_kernel, (x, y))
    return y
''')
    x = torch.arange(20, dtype=torch.int32, device=device)
    assert torch.equal(mod.run(x), x * 3)
    assert mod.BLOCK == 8 and isinstance(mod.BLOCK, int)


def test_host_cdiv_is_exact_for_negative_operands(convert):
    mod = convert(COPY_KERNEL + '''
def host_cdiv(a, b):
    return ct.cdiv(a, b)
''')
    for a in range(-9, 10):
        for b in (-4, -3, -1, 1, 2, 5):
            assert mod.host_cdiv(a, b) == -((-a) // b), (a, b)


def test_host_dtypes_become_torch_dtypes(convert):
    mod = convert(COPY_KERNEL + '''
DTYPE = ct.float16


def make(n):
    return torch.zeros(n, dtype=ct.bfloat16), DTYPE
''')
    t, dtype = mod.make(3)
    assert t.dtype == torch.bfloat16 and dtype == torch.float16


def test_hints_become_launch_options_or_notes(convert_text):
    text = convert_text('''
import cuda.tile as ct


@ct.kernel(occupancy=2, num_ctas=ct.ByTarget(sm_100=2, default=1))
def k(x, T: ct.Constant[int]):
    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))
''')
    assert "C2T101: num_ctas=ct.ByTarget(sm_100=2, default=1) is a cuTile compiler hint" in text
    assert "C2T101" in text and "occupancy=2" in text
    names = {node.id for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Name)}
    assert "cuda.tile" not in text and "ct" not in names


def test_converted_module_has_no_cuda_tile_left(convert_text):
    text = convert_text(COPY_KERNEL)
    assert "import cuda" not in text and "ct.Constant" not in text
    assert "@triton.jit" in text and "def launch_copy_kernel(stream, grid, args):" in text


def test_star_import_is_an_error(convert_error):
    message = convert_error('''
from cuda.tile import *
''')
    assert "import *" in message


def test_not_a_cutile_module_is_an_error(convert_error):
    assert "does not import cuda.tile" in convert_error("x = 1\n")


def test_launch_with_wrong_arity_is_an_error(convert_error):
    message = convert_error(COPY_KERNEL + '''
def run(x, y):
    ct.launch(torch.cuda.current_stream(), (1,), copy_kernel)
''')
    assert "ct.launch" in message


def test_kernel_with_star_args_is_an_error(convert_error):
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(*arrays):
    pass
''')
    assert "positional parameters" in message


def test_tuple_of_arrays_parameter(convert, device):
    mod = convert('''
import torch
import cuda.tile as ct


@ct.kernel
def sum_kernel(inputs, out, T: ct.Constant[int]):
    a = ct.load(inputs[0], index=(ct.bid(0),), shape=(T,))
    b = ct.load(inputs[1], index=(ct.bid(0),), shape=(T,))
    n = inputs[2].shape[0]
    c = ct.load(inputs[2], index=(ct.bid(0),), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(ct.bid(0),), tile=a + b + c + n)


def run(xs, out):
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(out.shape[0], 8),), sum_kernel, (tuple(xs), out, 8))
    return out
''')
    base = torch.arange(60, dtype=torch.float32, device=device)
    xs = [base[:20], base[20:40], base[::3][:20]]
    out = torch.empty(20, device=device)
    assert torch.equal(mod.run(xs, out), xs[0] + xs[1] + xs[2] + 20)


def test_comments_stay_with_the_code_they_describe(convert_text):
    text = convert_text('''
import cuda.tile as ct

# Elements per block.
BLOCK = 16


# The kernel below copies.
@ct.kernel
def copy_kernel(x, y):
    # one tile per block
    t = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,))
    ct.store(y, index=(ct.bid(0),), tile=t)  # tail lanes dropped
''')
    lines = text.splitlines()
    at = {line.strip(): i for i, line in enumerate(lines)}
    assert at["# Elements per block."] + 1 == at["BLOCK = 16"]
    assert lines[at["# The kernel below copies."] + 1].startswith("@triton.autotune(")  # above both decorators
    assert lines[at["# one tile per block"]].startswith("    # one")
    assert any(line.endswith("# tail lanes dropped") for line in lines)


def test_a_kernel_local_named_like_a_host_function_leaves_that_function_host_code(convert, device):
    """`emb = ct.gather(...)` in a kernel beside a host function `emb`: the local is the
    kernel's own (Python's scoping), so the host function, which calls torch, is not taken for
    a tile function (it was: a located error at `indices.numel()`)."""
    mod = convert('''
import torch
import cuda.tile as ct


@ct.kernel
def lookup(indices, weight, out, T: ct.Constant[int], D: ct.Constant[int]):
    rows = ct.load(indices, index=(ct.bid(0),), shape=(T,))
    emb = ct.gather(weight, (rows[:, None], ct.arange(D, dtype=ct.int32)[None, :]))
    ct.store(out, index=(ct.bid(0), 0), tile=emb)


def emb(indices, weight):
    out = torch.empty((indices.numel(), weight.shape[1]), dtype=weight.dtype, device=weight.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(indices.numel(), 8),), lookup, (indices, weight, out, 8, 16))
    return out
''')
    weight = torch.randn(50, 16, device=device)
    indices = torch.randint(0, 50, (24,), dtype=torch.int32, device=device)
    torch.testing.assert_close(mod.emb(indices, weight), weight[indices.long()])


IMPORT_CHOSEN_CONSTANTS = """
import cuda.tile as ct
import os

if os.environ.get("C2T_TEST_WIDE") == "1":  # decided when the module is imported (a GPU's capability)
    SCALE = 2.0
    BLOCK = 16
else:
    SCALE = 3.0
    BLOCK = 8


@ct.kernel
def k(A):
    t = ct.load(A, index=(0,), shape=(BLOCK,))
    if BLOCK == 8:
        t = t + 1
    ct.store(A, index=(0,), tile=t * SCALE)
"""


def test_module_constants_an_import_time_if_chooses_are_read_as_chosen(convert, convert_text, convert_error,
                                                                       monkeypatch, device):
    """`BLOCK = 16` on one machine and 8 on another (an `if` decided at import): kernels read
    the twin written after the `if`, not the last branch's value folded in (the twins were
    written in the else branch only: the other branch left them undefined)."""
    text = convert_text(IMPORT_CHOSEN_CONSTANTS)
    after_if = text.index("    BLOCK = 8\n") + len("    BLOCK = 8\n")
    assert text[after_if:].startswith("BLOCK_TL = tl.constexpr(BLOCK)") and "if BLOCK_TL == 8:" in text
    for wide, want in (("0", lambda a: (a + 1) * 3.0), ("1", lambda a: a * 2.0)):
        monkeypatch.setenv("C2T_TEST_WIDE", wide)
        mod = convert(IMPORT_CHOSEN_CONSTANTS)
        a = torch.randn(16, device=device)
        n = 8 if wide == "0" else 16
        expected = a.clone()
        expected[:n] = want(a[:n])
        mod.launch_k(0, (1,), (a,))
        torch.testing.assert_close(a, expected)
    modes = IMPORT_CHOSEN_CONSTANTS.replace("    SCALE = 3.0\n", "    SCALE = 3.0\n    PAD = ct.PaddingMode.ZERO\n")
    modes = modes.replace("    SCALE = 2.0\n", "    SCALE = 2.0\n    PAD = ct.PaddingMode.NAN\n")
    modes = modes.replace("shape=(BLOCK,))", "shape=(BLOCK,), padding_mode=PAD)")
    assert "'PAD' is bound in a branch of a module-level `if` decided at import" in convert_error(modes)


def test_tfloat32_in_host_code_is_an_error(convert_error):
    """torch has no tfloat32: as torch.float32 a ct.Constant dtype given ct.tfloat32 would make
    the kernel's products full float32 ones, and {ct.float32: .., ct.tfloat32: ..} one key."""
    source = '''
import cuda.tile as ct


@ct.kernel
def mm(a, b, c, DT: ct.Constant[ct.DType]):
    x = ct.load(a, index=(0, 0), shape=(16, 16)).astype(DT)
    y = ct.load(b, index=(0, 0), shape=(16, 16)).astype(DT)
    ct.store(c, index=(0, 0), tile=ct.mma(x, y, ct.zeros((16, 16), dtype=ct.float32)))


def run(a, b, c):
    ct.launch(0, (1,), mm, (a, b, c, ct.tfloat32))
'''
    message = convert_error(source)
    assert "host code uses ct.tfloat32, which has no torch dtype" in message, message


def test_cdiv_as_a_value_on_the_host(convert):
    """map(ct.cdiv, (M, N), (16, 16)): ct.cdiv passed as a function is cuTile's exact ceiling
    (_cdiv); it was "host code uses ct.cdiv, which has no conversion on the host"."""
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def fill(y):
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=ct.full((16, 16), 1.0, dtype=ct.float32))


def run(y):
    grid = tuple(map(ct.cdiv, y.shape, (16, 16)))
    ct.launch(0, grid, fill, (y,))
    return grid
''')
    y = torch.zeros(40, 20)
    assert mod.run(y) == (3, 2)
    assert torch.equal(y, torch.ones(40, 20))


def test_raising_tile_compiler_execution_error_is_a_located_error(convert_error, convert):
    """`except ct.TileCompilerExecutionError:` catches Triton's OutOfResources (a tuple of
    classes); raising one made a call of that tuple ("'tuple' object is not callable")."""
    source = '''
import cuda.tile as ct


@ct.kernel
def k(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)))


def run(x):
    try:
        ct.launch(0, (1,), k, (x,))
    except ct.TileCompilerExecutionError:
        raise ct.TileCompilerExecutionError("no")
'''
    assert "ct.TileCompilerExecutionError(...) on the host cannot be converted" in convert_error(source)
    mod = convert(source.replace('raise ct.TileCompilerExecutionError("no")', "raise"))
    x = torch.ones(8)
    mod.run(x)
    assert torch.equal(x, torch.ones(8))


TILE_ERROR_FALLBACK = '''
import torch
import cuda.tile as ct


@ct.kernel
def double(x):
    ct.static_assert(x.dtype == ct.float32, "float32 only")
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)) * 2)


def run(x):
    try:
        ct.launch(0, (1,), double, (x,))
        return "kernel"
    except ct.TileError:
        x.mul_(2)
        return "fallback"
'''


def test_a_fallback_on_tile_error_catches_what_triton_raises(convert, convert_error):
    """`except ct.TileError:` around a launch (a torch fallback where the kernel does not compile
    for its arguments) catches Triton's CompilationError and OutOfResources, and the
    interpreter's InterpreterError; it was "host code uses ct.TileError". Raising one is an
    error, as for TileCompilerExecutionError."""
    mod = convert(TILE_ERROR_FALLBACK)
    x, h = torch.ones(8), torch.ones(8, dtype=torch.float16)
    assert mod.run(x) == "kernel" and mod.run(h) == "fallback"
    assert torch.equal(x, torch.full((8,), 2.0)) and torch.equal(h, torch.full((8,), 2.0, dtype=torch.float16))
    raised = TILE_ERROR_FALLBACK.replace("        x.mul_(2)\n", "        raise ct.TileError('no')\n")
    assert "ct.TileError(...) on the host cannot be converted" in convert_error(raised)


def test_the_bitwidth_of_a_dtype_on_the_host(convert):
    """`2048 // dt.bitwidth` of a cuTile dtype (a torch dtype on the host, which has no
    bitwidth: AttributeError at run time) is its itemsize in bits; another object's bitwidth
    is its own."""
    mod = convert('''
import cuda.tile as ct


class Packed:
    bitwidth = 4


@ct.kernel
def fill(y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.full((TILE,), 1.0, dtype=y.dtype))


def run(y):
    dt = ct.float16
    tile = 2048 // dt.bitwidth
    ct.launch(0, (ct.cdiv(y.numel(), tile),), fill, (y, tile))
    return tile, ct.bool_.bitwidth, ct.float32.bitwidth, Packed().bitwidth, ct.bool_.name
''')
    y = torch.zeros(256, dtype=torch.float16)
    assert mod.run(y) == (128, 8, 32, 4, "bool_")
    assert torch.equal(y, torch.ones(256, dtype=torch.float16))


REEXPORTS = '''
import cuda.tile as ct
from cuda.tile import PaddingMode, float32

__all__ = ["PaddingMode", "float32", "ct", "copy_kernel", "MODE"]
MODE = PaddingMode.ZERO


@ct.kernel
def copy_kernel(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=MODE)
    ct.store(y, index=(ct.bid(0),), tile=t.astype(float32))
'''


def test_all_names_no_cuda_tile_name_the_module_no_longer_imports(convert, convert_text):
    """`__all__` listing names of cuda.tile the module re-exports (a public copy of cuTile's
    own package does): the converted module does not import them, so they leave `__all__`
    and `from module import *` works (it raised AttributeError)."""
    text = convert_text(REEXPORTS)
    assert '__all__ = ["copy_kernel", "MODE"]' in text, text
    mod = convert(REEXPORTS)
    namespace = {}
    exec(f"from {mod.__name__} import *", namespace)
    assert "copy_kernel" in namespace and "MODE" in namespace


def test_a_name_cuda_tile_does_not_have_is_said_so_on_the_host(convert_error):
    """Host code of a fork of cuTile (`ct.set_backend("cpu")`, an `@ct.autotune` decorator above
    the kernel) names what cuda-tile 1.7 lacks: the located error says the name is not cuTile's,
    where it said the name had no conversion."""
    message = convert_error(COPY_KERNEL + '\nct.set_backend("cpu")\n')
    assert message.startswith("C2T403: ct.set_backend is not a name of cuda.tile"), message
    message = convert_error(COPY_KERNEL.replace("@ct.kernel", '@ct.autotune(configs=[], key=["T"])\n@ct.kernel'))
    assert message.startswith("C2T402: ct.autotune is not a name of cuda.tile"), message
    # names of cuda.tile that have no conversion keep their message, private ones and the jax
    # submodule (outside __all__) included
    for use in ("ct.tune.Config", "ct._ir.ops", "ct.jax.cutile_call"):
        message = convert_error(COPY_KERNEL + f"\nHOOK = {use}\n")
        assert message.startswith(f"C2T403: host code uses {use}, which has no conversion"), message
