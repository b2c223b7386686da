"""Regressions found by running the corpus (corpus/cutile) through the
operator tests: one focused case per root cause, run under the interpreter
(and, where it matters, through Triton's GPU code generator on the CPU)."""

import ops_common
import pytest
import torch

from test_control import frontend

TILE = 8


@pytest.fixture(autouse=True)
def _tensors_on_the_test_device():
    """Tensors made here live on the GPU when there is one (the CPU under the interpreter)."""
    with torch.device(ops_common.DEVICE):
        yield


# ---- cumsum.py: a ct.Constant[bool] parameter as reverse= of a scan

def test_scan_reverse_from_constant_parameter(convert):
    mod = convert('''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int], REVERSE: ct.Constant[bool]):
    t = ct.load(x, index=(0,), shape=(N,))
    ct.store(y, index=(0,), tile=ct.cumsum(t, axis=0, reverse=REVERSE))
''')
    x = torch.randn(TILE)
    for reverse in (False, True):
        y = torch.empty_like(x)
        mod.launch_k(0, (1,), (x, y, TILE, reverse))
        ref = x.flip(0).cumsum(0).flip(0) if reverse else x.cumsum(0)
        torch.testing.assert_close(y, ref)


def test_keepdims_from_launch_value_is_a_located_error(convert_error):
    message = convert_error('''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int], KEEP: ct.Constant[bool]):
    t = ct.load(x, index=(0,), shape=(N,))
    ct.store(y, index=(0,), tile=ct.sum(t, axis=0, keepdims=KEEP))
''')
    assert "keepdims must be known at conversion time" in message


# ---- gelu.py: a tile function reads the shape of its parameter (sizes the
# caller knows only as constexprs) and loops over a module tuple of constants

GELU_LIKE = '''
import cuda.tile as ct

COEFFS = (0.5, -2.0, 3.0)

def poly(z):
    acc = ct.zeros(z.shape, dtype=ct.float32)
    for c in ct.static_iter(COEFFS):
        acc = acc * z + c
    return acc

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    v = ct.load(x, index=(ct.bid(0),), shape=(N,))
    ct.store(y, index=(ct.bid(0),), tile=poly(v))
'''


def test_tile_function_shape_of_parameter_and_static_iter_over_tuple(convert):
    mod = convert(GELU_LIKE)
    x = torch.randn(2 * TILE)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, TILE))
    torch.testing.assert_close(y, ((0.5 * x - 2.0) * x) + 3.0)


def test_static_iter_over_tuple_passes_tritons_code_generator(tmp_path, convert_text):
    text = convert_text(GELU_LIKE)
    assert "tl.static_range(3)" in text
    frontend(tmp_path, text, "k", ("x", "y"), {"N": TILE})


# ---- rope.py: the dims of a tile function's results, in the caller's terms

def test_tile_function_result_dims_map_to_the_caller(convert):
    mod = convert('''
import cuda.tile as ct

def rotate(a, b, c):
    return a * c - b, b * c + a

@ct.kernel
def k(x, y, H: ct.Constant[int], W: ct.Constant[int]):
    t = ct.load(x, index=(0, 0, 0), shape=(1, H, W)).reshape((H, W))
    c = ct.load(x, index=(0, 0, 0), shape=(1, 1, W)).reshape((1, W))
    o1, o2 = rotate(t, t, c)
    ct.store(y, index=(0, 0, 0), tile=(o1 + o2).reshape((1, H, W)))
''')
    x = torch.randn(1, 4, TILE)
    y = torch.empty_like(x)
    mod.launch_k(0, (1,), (x, y, 4, TILE))
    t, c = x[0], x[0, :1]
    torch.testing.assert_close(y[0], (t * c - t) + (t * c + t))


def test_tile_function_called_with_other_shapes_gets_one_function_per_shape(convert):
    # (was a located error while a tile function was converted once, for its first call)
    mod = convert('''
import cuda.tile as ct

def twice(t):
    return t + t

@ct.kernel
def k(x, y, z):
    a = twice(ct.load(x, index=(0,), shape=(8,)))
    b = twice(ct.load(x, index=(0,), shape=(16,)))
    ct.store(y, index=(0,), tile=a)
    ct.store(z, index=(0,), tile=b)
''')
    x = torch.randn(16)
    y, z = torch.empty(8), torch.empty(16)
    mod.launch_k(0, (1,), (x, y, z))
    torch.testing.assert_close(y, 2 * x[:8])
    torch.testing.assert_close(z, 2 * x)


# ---- swiglu.py: a name set to a constant before a loop and changed in it
# is a loop-carried value, not the constant

def test_loop_carried_constant_is_not_folded(convert):
    mod = convert('''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    n = ct.num_tiles(x, axis=0, shape=(N,))
    i = 0
    while i < n:
        t = ct.load(x, index=(i,), shape=(N,))
        ct.store(y, index=(i,), tile=t * 2)
        i += 1
''')
    x = torch.randn(4 * TILE)
    y = torch.empty_like(x)
    mod.launch_k(0, (1,), (x, y, TILE))
    torch.testing.assert_close(y, x * 2)


def test_constant_changed_in_a_branch_is_not_folded(convert):
    mod = convert('''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    i = 0
    if ct.bid(0) > 0:
        i = 1
    t = ct.load(x, index=(i,), shape=(N,))
    ct.store(y, index=(ct.bid(0),), tile=t)
''')
    x = torch.randn(2 * TILE)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, TILE))
    torch.testing.assert_close(y, x)


# ---- row_argmax.py: -inf padding of a bfloat16 tile on the TMA path

def test_bfloat16_neg_inf_padding_on_the_descriptor_path(convert):
    mod = convert('''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, N), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, index=(ct.bid(0), 0), tile=t)
''')
    x = torch.randn(2, 5).to(torch.bfloat16)
    x = torch.nn.functional.pad(x, (0, 3))[:, :5]  # rows 16-byte aligned: the descriptor path
    y = torch.empty(2, TILE, dtype=torch.bfloat16)
    mod.launch_k(0, (2,), (x, y, TILE))
    assert torch.equal(y[:, :5], x)
    assert torch.isneginf(y[:, 5:]).all()


# ---- vector_add.py: bfloat16 arithmetic (the interpreter needs the test
# harness's bfloat16 support, tests/ops/interpreter_bf16.py)

def test_bfloat16_add_of_array_tiles(convert):
    mod = convert('''
import cuda.tile as ct

@ct.kernel
def k(a, b, c, N: ct.Constant[int]):
    ta = ct.load(a, index=(ct.bid(0),), shape=(N,))
    tb = ct.load(b, index=(ct.bid(0),), shape=(N,))
    ct.store(c, index=(ct.bid(0),), tile=ta + tb)
''')
    a = torch.randn(2 * TILE).to(torch.bfloat16)
    b = torch.randn(2 * TILE).to(torch.bfloat16)
    c = torch.empty_like(a)
    mod.launch_k(0, (2,), (a, b, c, TILE))
    assert torch.equal(c, a + b)


# ---- family issues: (a) an array parameter only passed to a tile function

def test_array_parameter_only_passed_to_a_tile_function(convert):
    mod = convert('''
import cuda.tile as ct

def copy_tile(src, dst, i, n):
    ct.store(dst, index=(i,), tile=ct.load(src, index=(i,), shape=(n,)))

def forward(src, dst, i, n):
    copy_tile(src, dst, i, n)

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    forward(x, y, ct.bid(0), N)
''')
    x = torch.randn(2 * TILE)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, TILE))
    torch.testing.assert_close(y, x)


# ---- (b) a while condition that needs statements before each test

def test_while_condition_with_queued_statements_is_a_located_error(convert_error):
    message = convert_error('''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    i = 0
    while ct.num_tiles(x.slice(axis=0, start=i, stop=N), axis=0, shape=(4,)) > 1:
        i += 4
    ct.store(y, index=(0,), tile=ct.full((4,), i, dtype=ct.int32))
''')
    assert "`while` condition cannot be converted" in message


# ---- (c) the note on the INTERPRETED flag

def test_interpreted_flag_note_is_general(convert_text):
    text = convert_text('''
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(N,))
    ct.assert_(ct.sum(t) > -1e30, "finite")
    ct.store(y, index=(0,), tile=ct.exp(t))
''')
    assert "TRITON_INTERPRET=1: Triton's CPU interpreter, where libdevice and device asserts are unavailable" in text
    assert "has no libdevice" not in text


# ---- a tile function is converted once: a ct.Constant parameter is not
# folded to its first call's value

def test_tile_function_constant_parameter_with_two_values(convert):
    mod = convert('''
import cuda.tile as ct

def scaled_load(x, i, n: ct.Constant[int], s: ct.Constant[int]):
    return ct.load(x, index=(i,), shape=(n,)) * s

@ct.kernel
def k(x, y, z, N: ct.Constant[int]):
    ct.store(y, index=(0,), tile=scaled_load(x, 0, N, 2))
    ct.store(z, index=(0,), tile=scaled_load(x, 0, N * 2, 3))
''')
    x = torch.randn(2 * TILE)
    y, z = torch.empty(TILE), torch.empty(2 * TILE)
    mod.launch_k(0, (1,), (x, y, z, TILE))
    torch.testing.assert_close(y, x[:TILE] * 2)
    torch.testing.assert_close(z, x * 3)
