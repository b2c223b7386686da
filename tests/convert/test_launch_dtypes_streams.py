"""What the generated launcher makes of a launch's dtype constants and its stream."""

import numpy as np
import pytest
import torch

DTYPE_KERNEL = '''
import torch
import numpy as np
import cuda.tile as ct

DT = ct.Constant[ct.DType]


@ct.kernel
def cast_add(x, y, T: ct.Constant[int], DTYPE: ct.Constant[ct.DType], ACC: DT):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    z = ct.zeros((T,), dtype=ACC)
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(ct.astype(t, DTYPE), ACC) + z)


def run(x, dtype, acc=ct.float32):
    y = torch.zeros(x.shape, dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), cast_add, (x, y, 16, dtype, acc))
    return y


def run_with_cutile_dtype(x):
    return run(x, ct.float16)


def run_with_numpy_dtype(x):
    return run(x, np.float16, np.dtype("float32"))
'''


@pytest.mark.parametrize("how", ["torch", "cutile", "numpy"])
def test_dtype_constant_from_the_host(convert, how):
    mod = convert(DTYPE_KERNEL)
    x = torch.randn(40) * 100
    ref = x.to(torch.float16).to(torch.float32)
    y = {"torch": lambda: mod.run(x, torch.float16), "cutile": lambda: mod.run_with_cutile_dtype(x),
         "numpy": lambda: mod.run_with_numpy_dtype(x)}[how]()
    assert torch.equal(y, ref)
    assert torch.equal(mod.run(x, torch.int16), x.to(torch.int16).to(torch.float32))


def test_a_dtype_constant_that_is_no_dtype_is_a_type_error(convert):
    mod = convert(DTYPE_KERNEL)
    with pytest.raises(TypeError, match="DTYPE"):
        mod.run(torch.randn(16), 16)


STREAM_KERNEL = '''
import torch
import cuda.tile as ct


@ct.kernel
def copy(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))


def run(x, stream):
    y = torch.zeros_like(x)
    ct.launch(stream, (ct.cdiv(x.shape[0], 16),), copy, (x, y, 16))
    return y
'''


def test_none_as_the_stream_is_a_type_error_as_in_cutile(convert):
    # cuTile: TypeError("Stream is required, got None"), also for the launcher called directly
    mod = convert(STREAM_KERNEL)
    x = torch.randn(32)
    with pytest.raises(TypeError, match="Stream is required, got None"):
        mod.run(x, None)
    with pytest.raises(TypeError, match="Stream is required"):
        mod.launch_copy(None, (2,), (x, torch.zeros_like(x), 16))
    assert torch.equal(mod.run(x, torch.cuda.current_stream()), x)
    assert torch.equal(mod.run(x, 0), x)


UNTYPED_DTYPE_KERNEL = '''
import torch
import cuda.tile as ct


@ct.kernel
def scale_cast(x, y, OUT: ct.Constant, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    if OUT == ct.float16:
        t = t * 2
    ct.store(y, index=(ct.bid(0),), tile=t.astype(OUT))


@ct.kernel
def which(out, c: ct.Constant):
    ct.scatter(out, 0, c == ct.float32)
    ct.scatter(out, 1, c != ct.int32)


def run(x, out_dtype):
    y = torch.zeros(x.shape, dtype=out_dtype)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), scale_cast, (x, y, out_dtype, 16))
    return y


def run_which(c):
    out = torch.full((2,), -1, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (1,), which, (out, c))
    return out.tolist()
'''


def test_a_bare_constant_used_as_a_dtype_takes_a_dtype(convert):
    # cuTile compiles a bare ct.Constant holding a dtype as it does a ct.Constant[ct.DType]:
    # `OUT == ct.float16` is decided at compile time, `astype(OUT)` casts to it
    mod = convert(UNTYPED_DTYPE_KERNEL)
    x = torch.randn(40) * 100
    assert torch.equal(mod.run(x, torch.float16), (x * 2).to(torch.float16))
    assert torch.equal(mod.run(x, torch.float32), x)
    assert torch.equal(mod.run(x, torch.int32), x.to(torch.int32))
    assert mod.run_which(torch.float32) == [1, 1]
    assert mod.run_which(torch.int32) == [0, 0]
    assert mod.run_which(torch.float64) == [0, 1]
    with pytest.raises(TypeError, match="'OUT'"):
        mod.launch_scale_cast(0, (1,), (x, torch.zeros(16), 3, 16))


FLOAT_ARGUMENTS = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, alpha: ct.Constant[float], beta, pair, flag, T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    if alpha > 0.5:  # a constexpr: still a Python float
        t = t * alpha
    if flag:  # a bool argument: the interpreter failed on it ("itemsize exceeds int1")
        t = t + 0.0
    ct.store(y, (ct.bid(0),), t * beta + pair[0])
'''


def test_a_float_argument_is_a_float32_scalar_as_compiled_triton_takes_it(convert, device):
    """cuTile (and compiled Triton) take a float argument as a float32 scalar: a float16 tile
    times it is float32. Triton's interpreter passed the Python float as it is, weakly typed,
    and the product stayed float16 (1.0 instead of 1.0001 here); the launcher now gives it as
    the interpreter's float32 scalar, a tuple's items too, a constexpr's value untouched."""
    mod = convert(FLOAT_ARGUMENTS)
    x = torch.ones(32, dtype=torch.float16, device=device)
    y = torch.zeros(32, dtype=torch.float32, device=device)
    mod.launch_k(0, (2,), (x, y, 2.0, 1.0001, (0.0001,), True, 16))
    expected = torch.tensor(2.0, dtype=torch.float32) * torch.tensor(1.0001, dtype=torch.float32) + \
        torch.tensor(0.0001, dtype=torch.float32)
    torch.testing.assert_close(y, torch.full((32,), expected.item(), device=device), rtol=0, atol=1e-7)
