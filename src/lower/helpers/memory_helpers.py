"""Runtime helpers of the memory family (src/lower/lower_memory*.c): padding
values, ct.atomic_cas with cuTile's out-of-bounds behaviour, and the waits and
signals of programmatic dependent launch (src/lower/lower_index.c).

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import os

import triton
import triton.language as tl

INTERPRETED = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") == "1")  # as host_helpers.py's INTERPRETED


# helper: ct_negative_zero
@triton.jit
def ct_negative_zero():
    """-0.0 (padding_mode=NEG_ZERO) as a float32 scalar. Triton turns a literal -0.0 into
    +0.0 (measured in its interpreter), so the value is made from its bits."""
    return tl.full((), 0x80000000, tl.uint32).to(tl.float32, bitcast=True)


# helper: ct_descriptor_coordinate
@triton.jit
def ct_descriptor_coordinate(offset):
    """A tile's element offset as the 32-bit coordinate a tensor descriptor takes: Triton
    refuses a 64-bit one, which an index computed from int64 values gives (an element of a
    torch.long array). An offset outside int32's range lies outside any array a descriptor
    covers: it is clamped, so the tile stays outside (padding there, as cuTile reads), never
    wrapped into the array. Triton's interpreter runs a range loop's counter as a Python int:
    adding an int32 zero makes it a tensor there (compiled, the addition folds away)."""
    offset = offset + tl.zeros((), tl.int32)
    if offset.dtype.primitive_bitwidth <= 32:
        return offset
    return tl.minimum(tl.maximum(offset, -2147483648), 2147483647).to(tl.int32)


# helper: ct_slice_range
@triton.jit
def ct_slice_range(start, length: tl.constexpr):
    """The element indices of ct.Slice(start, length) along its axis: start + arange(length),
    in 64 bits."""
    return tl.cast(start, tl.int64) + tl.arange(0, length)


# helper: ct_atomic_cas
@triton.jit
def ct_atomic_cas(base, offsets, inside, expected, desired, sem: tl.constexpr, scope: tl.constexpr):
    """ct.atomic_cas: per element, `desired` replaces the value when it equals `expected`;
    returns the old values. tl.atomic_cas has no mask: lanes outside the array compare-and-
    swap the first element with cmp == val (no change) and return `expected`, as cuTile's
    CAS does for them."""
    dtype: tl.constexpr = base.dtype.element_ty
    ptrs = base + tl.where(inside, offsets, 0)
    expected = tl.broadcast_to(tl.cast(expected, dtype), ptrs.shape)
    desired = tl.broadcast_to(tl.cast(desired, dtype), ptrs.shape)
    old = tl.atomic_cas(ptrs, tl.where(inside, expected, desired), desired, sem=sem, scope=scope)
    return tl.where(inside, old, expected)


# helper: ct_load_element_0d
@triton.jit
def ct_load_element_0d(base, shape, strides, other, check_bounds: tl.constexpr = True):
    """ct.load with shape=(): the element at () as a scalar; outside the array it
    reads `other` (the padding value)."""
    ptr = base
    return tl.load(ptr)  # a 0-d array's one element is always inside


# helper: ct_store_element_0d
@triton.jit
def ct_store_element_0d(base, shape, strides, value, check_bounds: tl.constexpr = True):
    """ct.store of a scalar (a 0-d tile): one element at element index (), not
    written outside the array."""
    ptr = base
    tl.store(ptr, value)  # a 0-d array's one element is always inside


# helper: ct_list_item
@triton.jit
def ct_list_item(first, table, index, RANK: tl.constexpr, INT64: tl.constexpr = False):
    """Element `index` of a list-of-arrays parameter (cuTile's As[g]) as an array's pieces:
    its base pointer (typed as the list's first array, `first`: one dtype for the list),
    shape and strides tuples (int32, as cuTile indexes arrays; int64 with INT64, a list of
    arrays indexed with int64). `table` holds one int64 row per array, written by the
    launcher: pointer, shape..., strides..."""
    index_dtype: tl.constexpr = tl.int64 if INT64 else tl.int32
    row = table + tl.cast(index, tl.int64) * (1 + 2 * RANK)
    shape = ()
    strides = ()
    for axis in tl.static_range(RANK):
        shape = shape + (tl.load(row + 1 + axis).to(index_dtype),)
        strides = strides + (tl.load(row + 1 + RANK + axis).to(index_dtype),)
    return tl.load(row).to(first.dtype), shape, strides


# helper: ct_grid_dependency_control_wait
@triton.jit
def ct_grid_dependency_control_wait():
    """ct.grid_dependency_control_wait: waits until the kernel this launch depends on
    (programmatic dependent launch, launch_pdl=True) is done and its writes are visible;
    returns at once in a launch that depends on none (PTX griddepcontrol.wait). Triton's
    interpreter runs launches one after the other: nothing to wait for there."""
    if not INTERPRETED:
        tl.extra.cuda.gdc_wait()


# helper: ct_grid_dependency_control_launch_dependents
@triton.jit
def ct_grid_dependency_control_launch_dependents():
    """ct.grid_dependency_control_launch_dependents: lets the next kernel, launched as
    depending on this one (launch_pdl=True), start before this one is done (PTX
    griddepcontrol.launch_dependents; no effect otherwise, nor under the interpreter)."""
    if not INTERPRETED:
        tl.extra.cuda.gdc_launch_dependents()
