"""cuTile's tuple arguments (cuda-tile 1.7): a tuple of numbers given at launch, indexed with
constants, and a Constant parameter holding a tuple (ct.Constant[tuple]), whose items size tiles.
Run under the interpreter here; tests/compile compiles the same forms for the GPU."""
import re

import ops_common
import pytest
import torch

DEVICE = ops_common.DEVICE

SOURCE = '''
import cuda.tile as ct


@ct.kernel
def shifted(x, y, coeffs, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(TILE,))
    ct.store(y, index=(pid,), tile=t * coeffs[0] + coeffs[1] // coeffs[2] + coeffs[len(coeffs) - 1])


@ct.kernel
def blocked(x, y, tile: ct.Constant[tuple[int, int]], nested: ct.Constant[tuple]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=tile)
    u = ct.load(x, index=(pid, 0), shape=(nested[1][0], nested[1][1]))
    ct.store(y, index=(pid, 0), tile=t + u * len(nested[1]))


def run(x, coeffs):
    y = x.new_empty(x.shape)
    ct.launch(0, (x.shape[0] // 8,), shifted, (x, y, coeffs, 8))
    return y
'''


def test_a_tuple_of_numbers_is_indexed_as_cutile_does(convert):
    mod = convert(SOURCE)
    x = torch.arange(32, dtype=torch.int32, device=DEVICE)
    # int32 items: floor division of ints stays an int; a negative index counts from the end
    torch.testing.assert_close(mod.run(x, (3, 7, 2, 5)), x * 3 + 7 // 2 + 5)
    xf = torch.randn(32, device=DEVICE)
    torch.testing.assert_close(mod.run(xf, (0.5, 7.0, 2.0, -1.0)), xf * 0.5 + 3.0 - 1.0)


def test_a_constant_tuples_items_size_tiles(convert):
    mod = convert(SOURCE)
    x = torch.randn(4, 16, device=DEVICE)
    y = torch.empty_like(x)
    mod.launch_blocked(0, (4,), (x, y, (1, 16), (0, (1, 16))))
    torch.testing.assert_close(y, x * 3)


def test_a_constant_tuple_takes_constant_indices_only(convert_error):
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(x, tiles: ct.Constant[tuple]):
    i = ct.bid(0)
    t = ct.load(x, index=(0,), shape=(tiles[i],))
    ct.store(x, index=(0,), tile=t)
''')
    assert "index of a Constant parameter's tuple must be a constant" in message


PARTLY = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, cfg: tuple[ct.Constant[int], int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(cfg[0],))
    ct.store(y, index=(ct.bid(0),), tile=t + cfg[1])
'''


def test_items_annotated_constant_are_constexprs_and_the_others_run_time_values(convert):
    mod = convert(PARTLY)
    x = torch.randn(32, device=DEVICE)
    for cfg in ((8, 3), (16, -2)):
        y = torch.empty_like(x)
        mod.launch_k(0, (32 // cfg[0],), (x, y, cfg))
        torch.testing.assert_close(y, x + cfg[1])
    try:
        mod.launch_k(0, (1,), (x, x.clone(), (8,)))
    except TypeError as error:  # the annotation's shape is checked at launch
        assert "tuple of 2 items" in str(error)
    else:
        raise AssertionError("a tuple of the wrong length was launched")


MIXED = '''
import cuda.tile as ct


@ct.kernel
def k(pair, out, TILE: ct.Constant[int]):
    t = ct.load(pair[0], index=(ct.bid(0),), shape=(TILE,))
    ct.store(out, index=(ct.bid(0),), tile=t + pair[1] * pair[2].shape[0])
'''


def test_a_tuple_of_arrays_and_numbers(convert, device):
    """cuTile 1.7 takes (tensor, 5): the items used as arrays are arrays, the others numbers."""
    mod = convert(MIXED)
    x = torch.arange(32, dtype=torch.int32, device=device)
    out = torch.zeros_like(x)
    mod.launch_k(0, (2,), ((x, 5, torch.empty(3, device=device)), out, 16))
    torch.testing.assert_close(out, x + 15)


NESTED_TUPLES = '''
import cuda.tile as ct


@ct.kernel
def k(pair, out, cfg):
    # cfg = ((scale, shift), bias) and pair = (array, (a, b)): tuples inside tuple arguments
    t = ct.load(pair[0], (0,), (8,))
    ct.store(out, (0,), t * cfg[0][0] + cfg[0][1] + cfg[1] + pair[1][0] * pair[1][1])
'''


def test_items_of_tuples_nested_in_a_tuple_argument(convert, device):
    mod = convert(NESTED_TUPLES)
    x = torch.arange(8, dtype=torch.int32, device=device)
    out = torch.zeros(8, dtype=torch.int32, device=device)
    mod.launch_k(0, (1,), ((x, (3, 7)), out, ((2, 5), 100)))
    torch.testing.assert_close(out, x * 2 + 5 + 100 + 21)


def test_the_nested_tuples_kernel_is_valid_cutile(cutile_export):
    ct, compilation = cutile_export.ct, cutile_export.compilation
    i32 = cutile_export.array(ct.int32, 1)
    scalar = compilation.ScalarConstraint(ct.int32)
    pair = compilation.TupleConstraint((i32, compilation.TupleConstraint((scalar, scalar))))
    cfg = compilation.TupleConstraint((compilation.TupleConstraint((scalar, scalar)), scalar))
    assert cutile_export.cubin_size(NESTED_TUPLES, [pair, i32, cfg], convention="cutile_python_v2") > 0


DATACLASSES = '''
import dataclasses
from dataclasses import dataclass

import cuda.tile as ct


@dataclass(frozen=True)
class Window:
    lo: int
    hi: int
    scale: float = 1.0


@dataclass(frozen=True)
class Job:
    window: Window
    bias: float


def apply(job, t):
    return t * job.window.scale + job.bias


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    w = Window(i * T, hi=i * T + T)
    job = Job(w, 0.5)
    t = ct.load(x, (i,), (T,))
    wider = dataclasses.replace(w, scale=3.0)
    ct.store(y, (i,), apply(job, t) + apply(Job(wider, bias=1.0), t) + (job.window.hi - job.window.lo))
'''


def test_frozen_dataclasses_in_tile_code_are_tuples_of_their_fields(convert, convert_text, device):
    text = convert_text(DATACLASSES)
    kernel = text.split("def k(")[1].split("def launch_k(")[0]
    assert "Window(" not in kernel and "Job(" not in kernel and "dataclasses" not in kernel, kernel
    mod = convert(DATACLASSES)
    x = torch.randn(32, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, 16))
    torch.testing.assert_close(y, (x * 1.0 + 0.5) + (x * 3.0 + 1.0) + 16)


def _dataclass_kernel(body, fields="    lo: int\n    hi: int = 4\n", decorator="@dataclass(frozen=True)"):
    return f'''
from dataclasses import dataclass, field

import cuda.tile as ct


{decorator}
class Window:
{fields}

@ct.kernel
def k(x, T: ct.Constant[int]):
    {body}
'''


def test_what_a_dataclass_in_tile_code_cannot_do_is_a_located_error(convert_error):
    store = "ct.store(x, (0,), ct.full((T,), w.lo, dtype=ct.int32))"
    assert "is not frozen" in convert_error(_dataclass_kernel(f"w = Window(1)\n    {store}", decorator="@dataclass"))
    assert "is missing field 'lo'" in convert_error(_dataclass_kernel(f"w = Window(hi=1)\n    {store}"))
    assert "has no field 'width'" in convert_error(_dataclass_kernel(f"w = Window(1, width=2)\n    {store}"))
    assert "takes 2 fields, 3 given" in convert_error(_dataclass_kernel(f"w = Window(1, 2, 3)\n    {store}"))
    assert "'size' is not a field of the dataclass 'Window'" in convert_error(
        _dataclass_kernel("w = Window(1)\n    ct.store(x, (0,), ct.full((T,), w.size, dtype=ct.int32))"))
    assert "given by a call (field(...))" in convert_error(
        _dataclass_kernel(f"w = Window(1)\n    {store}", fields="    lo: int\n    hi: int = field(default=4)\n"))


def test_the_dataclasses_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    f32 = cutile_export.array(ct.float32, 1)
    assert cutile_export.cubin_size(DATACLASSES, [f32, f32, 16]) > 0


# the DATACLASSES module's Window with methods
METHODS = DATACLASSES.split("import dataclasses\n")[1].split("\n\n@dataclass(frozen=True)\nclass Job")[0] + '''
    @property
    def width(self):
        return self.hi - self.lo

    @staticmethod
    def shifted(t, by):
        return t + by

    def apply(self, t, bias=0.0):
        # scaled, shifted by the width
        return Window.shifted(t * self.scale, self.width) + bias

    def reshape(self, lo):
        return Window(lo, lo + self.width, self.scale)


@dataclass(frozen=True)
class Job:
    window: Window
    bias: float


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    i = ct.bid(0)
    job = Job(Window(i * T, i * T + T, 2.0), 0.5)
    t = ct.load(x, (i,), (T,)).reshape((T,))
    moved = job.window.reshape(3)
    out = job.window.apply(t, bias=job.bias) + Window.apply(moved, t) + moved.lo
    ct.store(y, (i,), out)
'''


def test_methods_of_dataclasses_are_tile_functions_of_the_instance(convert, convert_text, device):
    text = convert_text(METHODS)
    # each method tile code calls is a twin after the class, called with the instance first; the
    # tiles' own reshape (the name of a method too) stays Triton's, and its twin is left out
    assert "def Window_apply(self, t, bias" in text and "def Window_width(self" in text, text
    assert "def Window_shifted(t, by)" in text and "def Window_reshape(self, lo" in text, text
    assert text.index("class Window:") < text.index("def Window_apply(") < text.index("class Job:"), text
    kernel = text.split("def k(")[1].split("def launch_k(")[0]
    assert "Window_apply(job[0], t, job[1])" in kernel and "tl.reshape(" in kernel, kernel
    assert "    def apply(self, t, bias=0.0):\n        # scaled, shifted by the width\n" in text, text
    mod = convert(METHODS)
    x = torch.randn(32, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, 16))
    expected = (x * 2.0 + 16 + 0.5) + (x * 2.0 + 16) + 3
    torch.testing.assert_close(y, expected)


def test_the_methods_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    f32 = cutile_export.array(ct.float32, 1)
    assert cutile_export.cubin_size(METHODS, [f32, f32, 16]) > 0


def test_what_a_method_in_tile_code_cannot_do_is_a_located_error(convert_error):
    methods = ("    lo: int\n    hi: int = 4\n\n    @staticmethod\n    def twice(v):\n        return v * 2\n\n"
               "    @classmethod\n    def make(cls, v):\n        return cls(v)\n\n"
               "    @property\n    def size(self):\n        return self.hi - self.lo\n")
    store = "ct.store(x, (0,), ct.full((T,), {}, dtype=ct.int32))"
    # cuTile gives a staticmethod called on an instance the instance as its first argument
    assert "is a @staticmethod called on an instance" in convert_error(
        _dataclass_kernel("w = Window(1)\n    " + store.format("w.twice(3)"), fields=methods))
    assert "the method Window.make cannot be converted" in convert_error(
        _dataclass_kernel("w = Window.make(1)\n    " + store.format("w.lo"), fields=methods))
    assert "'twice' is a method of the dataclass 'Window': tile code calls it" in convert_error(
        _dataclass_kernel("w = Window(1)\n    f = w.twice\n    " + store.format("w.lo"), fields=methods))
    assert "Window.size is a property, not a method" in convert_error(
        _dataclass_kernel("w = Window(1)\n    " + store.format("w.size()"), fields=methods))


UNPACKED_CONSTANTS = '''
from typing import Annotated

import cuda.tile as ct


@ct.kernel
def k(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0, 1))], y, S: ct.Constant[tuple]):
    rows, cols = x.shape  # static: constants
    a, b = S
    ct.static_assert(S[0] == 2)
    t = ct.load(x, (0, 0), (rows, cols))
    ct.store(y, (0, 0), ct.reshape(t, (a, b)))
'''


def test_unpacked_constant_tuples_size_tiles(convert, convert_text, device):
    text = convert_text(UNPACKED_CONSTANTS)
    assert "a: tl.constexpr = S[0]" in text and "rows: tl.constexpr = x_shape[0]" in text, text
    mod = convert(UNPACKED_CONSTANTS)
    x = torch.randn(4, 8, device=device)
    y = torch.empty(2, 16, device=device)
    mod.launch_k(0, (1,), (x, y, (2, 16)))
    torch.testing.assert_close(y, x.reshape(2, 16))
    with pytest.raises(Exception, match="cannot unpack into 2 names"):
        mod.launch_k(0, (1,), (x, y, (2, 16, 1)))


def test_the_unpacked_constants_kernel_is_valid_cutile(cutile_export):
    ct, compilation = cutile_export.ct, cutile_export.compilation
    x = compilation.ArrayConstraint(ct.float32, 2, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=[],
                                    may_alias_internally=False, stride_constant=[None, 1], shape_constant=[4, 8],
                                    stride_divisible_by=[8, 1], shape_divisible_by=[4, 8], base_addr_divisible_by=16)
    y = cutile_export.array(ct.float32, 2)
    assert cutile_export.cubin_size(UNPACKED_CONSTANTS, [x, y, (2, 16)], convention="cutile_python_v2") > 0


TUPLE_SLICES = '''
import cuda.tile as ct


@ct.kernel
def k(A, y, T: ct.Constant[int]):
    lead = A.shape[:2]            # an array of a rank known only when Triton compiles
    sizes = (T, 2 * T, 3 * T, 4 * T)
    odd = sizes[1::2]             # known here: (2T, 4T)
    back = sizes[::-1][:2]        # (4T, 3T)
    tail = sizes[-2:]             # (3T, 4T)
    total = lead[0] * 1000 + lead[1] * 100 + odd[0] + odd[1] + back[0] * back[1] + tail[0] - tail[1]
    ct.store(y, (0,), ct.full((T,), total, dtype=ct.int32))
'''


def test_tuples_are_sliced_as_python_slices_them(convert, device):
    mod = convert(TUPLE_SLICES)
    y = torch.zeros(4, dtype=torch.int32, device=device)
    mod.launch_k(0, (1,), (torch.randn(3, 5, 7, device=device), y, 4))
    T = 4
    want = 3 * 1000 + 5 * 100 + 2 * T + 4 * T + 4 * T * 3 * T + 3 * T - 4 * T
    assert y.tolist() == [want] * 4


def test_the_tuple_slices_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    assert cutile_export.cubin_size(TUPLE_SLICES, [cutile_export.array(ct.float32, 3),
                                                   cutile_export.array(ct.int32, 1), 4]) > 0


STARRED = '''
import cuda.tile as ct


def add(a, b):
    return a + b


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    prefix = (ct.bid(0),)
    t = ct.load(x, index=(*prefix, 0), shape=(1, T))
    pair = (t, 1.0)
    u = ct.reshape(add(*pair), (*t.shape[1:], 1)) + add(*(2.0, 3.0))
    ct.store(y, index=(*prefix, 0), tile=ct.reshape(u, (1, T)))
'''


def test_starred_items_and_arguments_are_the_tuples_items(convert, convert_text, device):
    """(*prefix, 0) in a tuple display and add(*pair) in a call take the items of a tuple whose
    length is known when converting, each in its place, as cuTile does."""
    text = convert_text(STARRED)
    kernel = text.split("def k(")[1].split("def launch_k(")[0]
    assert "add(pair[0], pair[1])" in kernel and re.search(r"add(_2)?\(2\.0, 3\.0\)", kernel), kernel
    assert "(*" not in kernel and "[prefix[0], 0]" in kernel, kernel
    mod = convert(STARRED)
    x = torch.randn(4, 16, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (4,), (x, y, 16))
    torch.testing.assert_close(y, x + 6.0)


def test_the_starred_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    f32 = cutile_export.array(ct.float32, 2)
    assert cutile_export.cubin_size(STARRED, [f32, f32, 16]) > 0


STARRED_OPERATIONS = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    index = (ct.bid(0),)
    t = ct.load(x, *(index,), shape=(T,))
    args = (index, t * 2)
    ct.store(y, *args)
'''


def test_starred_arguments_of_cutile_operations_are_the_tuples_items(convert, device):
    """ct.store(y, *args) and ct.load(x, *(index,), ...) (cuTile's own tuple tests): the items
    of a tuple of a length known when converting, as for a tile function's call; they were
    refused ("starred arguments cannot be converted"). An array reached only through such a
    tuple (`ct.store(*args)` with y in args) is still refused: the scan that finds a kernel's
    array parameters does not follow starred arguments."""
    mod = convert(STARRED_OPERATIONS)
    x = torch.randn(32, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (2,), (x, y, 16))
    torch.testing.assert_close(y, x * 2)


def test_the_starred_operations_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    f32 = cutile_export.array(ct.float32, 1)
    assert cutile_export.cubin_size(STARRED_OPERATIONS, [f32, f32, 16]) > 0


def test_a_starred_item_of_no_known_length_is_a_located_error(convert_error):
    source = STARRED.replace("index=(*prefix, 0), shape", "index=(*ct.bid(0), 0), shape")
    assert "a starred item of a tuple must be a tuple whose length is known" in convert_error(source)


def test_a_dataclass_kernel_parameter_is_a_located_error(convert_error):
    """cuTile 1.7 takes a dataclass instance as a kernel argument only under its
    development-only calling convention (DataclassConstraint): refused at the parameter."""
    source = '''
from dataclasses import dataclass

import cuda.tile as ct


@dataclass(frozen=True)
class Args:
    x: ct.Array
    scale: float


@ct.kernel
def k(a: Args, T: ct.Constant[int]):
    t = ct.load(a.x, index=(ct.bid(0),), shape=(T,))
    ct.store(a.x, index=(ct.bid(0),), tile=t * a.scale)
'''
    assert "a kernel parameter that is a dataclass instance ('a: Args')" in convert_error(source)


ARRAYS_IN_TUPLES = '''
import cuda.tile as ct


@ct.kernel
def indexed(x, z, y, T: ct.Constant[int]):
    # a local tuple of arrays: items by number, unpacked, and by a ct.static_iter counter
    arrs = (x, z)
    first, second = arrs
    acc = ct.load(arrs[0], (ct.bid(0),), (T,)) - ct.load(second, (ct.bid(0),), (T,))
    for i in ct.static_iter(range(len(arrs))):
        acc += ct.load(arrs[i], (ct.bid(0),), (T,)) * (i + 2)
    ct.store(y, (ct.bid(0),), acc)


@ct.kernel
def iterated(x, z, y, T: ct.Constant[int]):
    acc = ct.zeros((T,), dtype=ct.float32)
    for k, a in ct.static_iter(enumerate((x, z), 1)):
        acc += ct.load(a, (ct.bid(0),), (T,), padding_mode=ct.PaddingMode.NEG_INF) * k
    ct.store(y, (ct.bid(0),), acc)


@ct.function
def add_into(pair, b, T):
    # stores through an item: pair[0] += pair[1]
    t = ct.load(pair[0], (b,), (T,)) + ct.load(pair[1], (b,), (T,))
    ct.store(pair[0], (b,), t)


@ct.kernel
def passed(x, z, T: ct.Constant[int]):
    add_into((x, z), ct.bid(0), T)


@ct.kernel
def passed_param(xs, T: ct.Constant[int]):
    add_into(xs, ct.bid(0), T)
'''


def test_arrays_held_in_a_local_tuple_are_the_arrays(convert, convert_text, device):
    """cuTile 1.7 takes a tuple of arrays made in the kernel: indexed with numbers each item is its
    array (its own descriptor path); indexed with a ct.static_iter counter, or iterated, the tuples
    of pointers, shapes and strides are indexed while Triton compiles."""
    mod = convert(ARRAYS_IN_TUPLES)
    x = torch.randn(64, device=device)
    z = torch.randn(64, device=device)
    y = torch.empty(64, device=device)
    mod.launch_indexed(0, (4,), (x, z, y, 16))
    torch.testing.assert_close(y, x - z + 2 * x + 3 * z)
    mod.launch_iterated(0, (4,), (x, z, y, 16))
    torch.testing.assert_close(y, x + 2 * z)
    text = convert_text(ARRAYS_IN_TUPLES)
    assert "(x, z)[i]" in text and "(x_shape, z_shape)[i]" in text
    assert "arrs = " not in text  # the tuple is no run-time value: its uses read its arrays


def test_a_tuple_of_arrays_passed_to_a_tile_function_is_three_tuples(convert, convert_text, device):
    """The tile function takes the tuples of pointers, shapes and strides; a store through an item
    writes the caller's array (a display's, or a kernel's tuple parameter's)."""
    mod = convert(ARRAYS_IN_TUPLES)
    x = torch.randn(64, device=device)
    z = torch.randn(64, device=device)
    expected = x + z
    mod.launch_passed(0, (4,), (x, z, 16))
    torch.testing.assert_close(x, expected)
    mod.launch_passed_param(0, (4,), ((x, z), 16))
    torch.testing.assert_close(x, expected + z)
    text = convert_text(ARRAYS_IN_TUPLES)
    assert "def add_into(pair, pair_shape, pair_strides, b, T" in text
    assert "add_into((x, z), (x_shape, z_shape), (x_strides, z_strides)," in text


def test_a_float_only_padding_of_a_tuple_item_is_checked_where_the_item_is_used(convert_text):
    """A NEG_INF padding needs a float array: for an item picked by a counter the static check
    sits in the loop, where the counter is bound, not at the top of the kernel."""
    text = convert_text(ARRAYS_IN_TUPLES)
    body = text[text.index("def iterated("):text.index("def launch_iterated")]
    loop = body.index("tl.static_range(2)")
    assert body.count("tl.static_assert") == 1 and body.index("tl.static_assert") > loop


def test_the_arrays_in_tuples_kernels_are_valid_cutile(cutile_export):
    ct, compilation = cutile_export.ct, cutile_export.compilation
    f32 = cutile_export.array(ct.float32, 1)
    tile = compilation.ConstantConstraint(16)
    for name in ("indexed", "iterated"):
        assert cutile_export.cubin_size(ARRAYS_IN_TUPLES, [f32, f32, f32, tile], kernel=name) > 0
    assert cutile_export.cubin_size(ARRAYS_IN_TUPLES, [f32, f32, tile], kernel="passed") > 0
