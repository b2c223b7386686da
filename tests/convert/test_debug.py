"""Debug operations: ct.printf / ct.print / print -> tl.device_print,
ct.assert_ (always checked, as in cuTile), ct.static_assert, ct.static_eval,
ct.ensure_constant, ct.assume_divisible_by."""

import re
import subprocess
import sys

import ops_common
import pytest
import torch


@pytest.fixture(autouse=True)
def _on_device():
    """Tensors of these tests live where the kernels run (CPU under the interpreter)."""
    torch.set_default_device(ops_common.DEVICE)
    yield
    torch.set_default_device("cpu")


def printed(out, prefix):
    """The distinct numbers printed after `prefix:` (interpreter: one line with all
    elements; GPU: one line per element and thread)."""
    numbers = []
    for line in out.splitlines():
        if f"{prefix}:" in line:
            numbers += [int(v) for v in re.findall(r"-?\d+", line.split(f"{prefix}:", 1)[1])]
    return sorted(set(numbers))


def sync():
    if ops_common.ON_GPU:
        torch.cuda.synchronize()


_LAUNCH = r"""
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("generated", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
device = "cuda" if torch.cuda.is_available() else "cpu"
y = torch.zeros(4, dtype=torch.int32, device=device)
module.launch_k(0, (1,), (y, int(sys.argv[2]), *[int(a) for a in sys.argv[3:]]))
if device == "cuda":
    torch.cuda.synchronize()
print("finished")
"""


def launch_alone(module, *args):
    """Launch module.launch_k(0, (1,), (y, *args)) in its own process (a device-side
    assert leaves the CUDA context unusable); returns (exit status, output)."""
    proc = subprocess.run([sys.executable, "-c", _LAUNCH, module.__file__, *map(str, args)], capture_output=True,
                          text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr

ARANGE_KERNEL = '''
import cuda.tile as ct

@ct.kernel
def k(y, n, TILE: ct.Constant[int]):
    t = ct.arange(TILE, dtype=ct.int32) + n
    {body}
    ct.store(y, index=(0,), tile=t)
'''


def kernel(body):
    return ARANGE_KERNEL.replace("{body}", body)


# ---------------------------------------------------------------- printing

def test_printf_prints_values(convert, convert_text, capfd):
    source = kernel('ct.printf("t=%d n=%5d\\n", t, n)')
    text = convert_text(source)
    assert 'tl.device_print("t=", t)' in text
    assert 'tl.device_print("n=", n)' in text
    mod = convert(source)
    y = torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 40, 4))
    sync()
    out = capfd.readouterr().out
    assert printed(out, "t=") == [40, 41, 42, 43], out
    assert printed(out, "n=") == [40], out


def test_printf_hex(convert_text):
    assert 'tl.device_print("t =", t, hex=True)' in convert_text(kernel('ct.printf("t = %x", t)'))


def test_print_fstring_hex_format_spec(convert_text):
    # cuTile prints `{t:#x}` in hexadecimal (its unpack_from_bytes page: "[0x4030201]")
    text = convert_text(kernel('print(f"t={t:#x} n={n:08X} f={t:.5f}")'))
    assert 'tl.device_print("t=", t, hex=True)' in text and 'tl.device_print("n=", n, hex=True)' in text
    assert 'tl.device_print("f=", t)' in text


@pytest.mark.parametrize("call", ["ct.print", "print"])
def test_print_fstring(convert, convert_text, capfd, call):
    source = kernel(f'{call}(f"tile={{t}} plus {{TILE}}", "and", n)')
    text = convert_text(source)
    assert 'tl.device_print("tile=", t)' in text
    mod = convert(source)
    y = torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 7, 4))
    sync()
    out = capfd.readouterr().out
    assert printed(out, "tile=") == [7, 8, 9, 10], out
    assert printed(out, "plus") == [4], out
    assert printed(out, "and") == [7], out


def test_print_a_tuple_item_by_item(convert, convert_text, capfd):
    """cuTile's documentation prints f"{(nx, ny, nz)}": a tuple known at conversion is printed
    as Python writes it, each item by Triton."""
    source = kernel('print(f"grid {(n, TILE)} one {(n,)}")')
    text = convert_text(source)
    assert 'tl.device_print("grid (", n)' in text and 'tl.device_print(",", TILE)' in text
    assert 'tl.device_print(") one (", n)' in text and 'tl.device_print(",)")' in text
    mod = convert(source)
    y = torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 7, 4))
    sync()
    out = capfd.readouterr().out
    assert printed(out, "grid (") == [7] and printed(out, ",") == [4], out


def test_printf_count_mismatch_is_an_error(convert_error):
    assert "conversions" in convert_error(kernel('ct.printf("%d %d", t)'))


def test_printf_needs_a_literal_format(convert_error):
    assert "string literal" in convert_error(kernel('ct.printf(t, t)'))


# -------------------------------------------------------------- assertions

def test_assert_passes_and_kernel_is_debug(convert, convert_text):
    source = kernel('ct.assert_(t >= n, "below n")')
    text = convert_text(source)
    assert "debug=True" in text.split("def k(")[0].splitlines()[-1]
    mod = convert(source)
    y = torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 3, 4))
    assert y.tolist() == [3, 4, 5, 6]


def test_failing_assert_is_reported(convert):
    """cuTile always checks assert_; tl.device_assert is a no-op without debug and
    under the interpreter: the converted kernel must still fail."""
    mod = convert(kernel('ct.assert_(t < 42, "t reached 42")'))
    status, out = launch_alone(mod, 30, 4)
    assert status == 0 and "finished" in out, out
    status, out = launch_alone(mod, 40, 4)
    assert status != 0 and "t reached 42" in out, out


HELPER_ASSERT = '''
import cuda.tile as ct

def checked(t, n):
    ct.assert_(t != n, message="hit n")
    return t

@ct.kernel
def k(y, n):
    t = ct.arange(4, dtype=ct.int32)
    ct.store(y, index=(0,), tile=checked(t, n))
'''


def test_assert_in_helper_makes_kernel_debug(convert, convert_text):
    text = convert_text(HELPER_ASSERT)
    assert re.search(r"@triton\.jit\([^)]*debug=True\)\ndef k\(", text), text
    mod = convert(HELPER_ASSERT)
    status, out = launch_alone(mod, 9)
    assert status == 0 and "finished" in out, out
    status, out = launch_alone(mod, 2)
    assert status != 0 and "hit n" in out, out


def test_assert_needs_bool(convert_error):
    assert "boolean" in convert_error(kernel('ct.assert_(ct.arange(4, dtype=ct.int32))'))


# ---------------------------------------------------------- compile time

def test_static_assert_true_is_dropped(convert_text):
    text = convert_text(kernel('ct.static_assert(2 + 2, "fine")'))
    assert "static_assert" not in text


def test_static_assert_on_a_folded_comparison(convert_text, convert_error):
    """A comparison of constants known at conversion is folded (as cuTile folds it)."""
    assert "static_assert" not in convert_text(kernel('ct.static_assert(4 > 2, "fine")'))
    assert "too small" in convert_error(kernel('ct.static_assert(4 < 2, "too small")'))


def test_static_assert_false_is_a_conversion_error(convert_error):
    assert "too small" in convert_error(kernel('ct.static_assert(False, "too small")'))


def test_static_assert_on_launch_constant(convert, convert_text):
    source = kernel('ct.static_assert(TILE == 4, "TILE must be 4")')
    assert 'tl.static_assert(TILE == 4, "TILE must be 4")' in convert_text(source)
    mod = convert(source)
    y = torch.zeros(8, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 0, 4))
    with pytest.raises(Exception, match="TILE must be 4"):
        mod.launch_k(0, (1,), (y, 0, 8))


def test_static_assert_on_runtime_value_is_an_error(convert_error):
    assert "compile-time" in convert_error(kernel('ct.static_assert(n > 2)'))


def test_static_eval_and_ensure_constant(convert):
    mod = convert(kernel('t = t + ct.static_eval(TILE * 2) + ct.ensure_constant(3)'))
    y = torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 0, 4))
    assert y.tolist() == [11, 12, 13, 14]


SUMS = """
import cuda.tile as ct


@ct.kernel
def k(y, n: ct.Constant[int]):
    tup = (1, 2, 3)
    s1 = ct.static_eval(sum(tup))
    ct.static_assert(s1 == 6)
    s2 = sum((n, 2 * n))
    s3 = ct.static_eval(sum(i * i for i in ct.static_iter(range(4))))
    s4 = sum((), 5)
    t = ct.arange(4, dtype=ct.int32)
    ct.store(y, (0,), sum((t, t * 10), s1 + s2 + s3 + s4))
"""


def test_sum_of_a_tuple_known_at_conversion(convert, convert_text):
    """ct.static_eval(sum(t)) (cuTile's test_static_eval): Python's sum of a tuple, start
    included, of a generator over ct.static_iter too, each `+` as cuTile's; it was refused
    ("'sum' cannot be called in tile code"). Items known at conversion are written as numbers."""
    assert "s1: tl.constexpr = 1 + 2 + 3" in convert_text(SUMS)
    mod = convert(SUMS)
    y = torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 3))
    assert y.tolist() == [34 + 11 * i for i in range(4)]


def test_sum_of_a_tuple_of_unknown_length_is_an_error(convert_error):
    assert "sum() of" in convert_error(kernel('t = t + sum(ct.bid(0))'))


def test_ensure_constant_of_runtime_value_is_an_error(convert_error):
    assert "not a compile-time constant" in convert_error(kernel('t = t + ct.ensure_constant(n)'))


def test_assume_divisible_by(convert):
    mod = convert(kernel('t = t + ct.assume_divisible_by(n, 8)'))
    y = torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (y, 16, 4))
    assert y.tolist() == [32, 33, 34, 35]
    if ops_common.ON_GPU:
        return  # a false hint is undefined behaviour (cuTile and Triton alike)
    # a false hint is undefined behaviour in cuTile; Triton's interpreter catches it
    with pytest.raises(Exception, match="Assume failed"):
        mod.launch_k(0, (1,), (y, 12, 4))


def test_assume_divisible_by_needs_positive_constant(convert_error):
    assert "divisor" in convert_error(kernel('t = t + ct.assume_divisible_by(n, 0)'))


STATIC_EXCEPTION = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, MODE: ct.Constant[int], T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    if MODE == 0:
        r = t * 2
    elif MODE == 1:
        r = t + 1
    else:
        raise ct.static_exception(ValueError("MODE must be 0 or 1"))
    ct.store(y, (ct.bid(0),), r)
'''


def test_a_static_exception_fails_the_compile_of_the_branch_taken_only(convert, convert_text, device):
    assert 'tl.static_assert(False, "ValueError: MODE must be 0 or 1")' in convert_text(STATIC_EXCEPTION)
    mod = convert(STATIC_EXCEPTION)
    x = torch.randn(16, device=device)
    for mode, want in ((0, x * 2), (1, x + 1)):
        y = torch.empty_like(x)
        mod.launch_k(0, (1,), (x, y, mode, 16))
        torch.testing.assert_close(y, want)
    with pytest.raises(Exception, match="MODE must be 0 or 1"):
        mod.launch_k(0, (1,), (x, torch.empty_like(x), 2, 16))


def test_raise_other_than_a_static_exception_is_a_located_error(convert_error):
    plain = STATIC_EXCEPTION.replace("raise ct.static_exception(ValueError(", "raise ValueError((")
    assert "converted only as `raise ct.static_exception(...)`" in convert_error(plain)
    value = STATIC_EXCEPTION.replace("raise ct.static_exception(", "e = ct.static_exception(")
    assert "converted only as `raise ct.static_exception(...)`" in convert_error(value)


def test_the_static_exception_kernel_is_valid_cutile(cutile_export):
    ct, array = cutile_export.ct, cutile_export.array
    f32 = array(ct.float32, 1)
    assert cutile_export.cubin_size(STATIC_EXCEPTION, [f32, f32, 0, 16]) > 0
    with pytest.raises(Exception, match="MODE must be 0 or 1"):
        cutile_export.cubin_size(STATIC_EXCEPTION, [f32, f32, 2, 16])


def test_printing_the_shape_of_an_array_of_unknown_rank_says_why(convert_error):
    """x.shape of an array no load or store fixes the rank of: a tuple of a length known only
    at launch. The refusal said 'only tiles, constants and tuples of them can be printed ...,
    not a tuple'; it now says what the tuple lacks."""
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(x, TILE: ct.Constant[int]):
    ct.print(x.shape)
''')
    assert message.startswith("C2T402: a tuple whose length is not known at conversion (the shape of an array"), message
