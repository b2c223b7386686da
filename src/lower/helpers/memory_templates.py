"""Rank-parameterized runtime helpers of the memory family: the pointer path of
ct.load / ct.store (src/lower/lower_memory_helpers.c) and the element indices of
ct.gather, ct.scatter and the atomics (src/lower/lower_memory_gather.c).

Each helper is written once, for any rank, and filled in per rank by the
converter (fill_template in src/lower/runtime.c). A marker line

    # template: NAME from rank N

starts one (N: the smallest rank the converter asks for); the `#   WORD = TEXT`
lines under it declare its placeholder words. In the code, RANK is the rank
and each declared WORD its TEXT, in which {ITEM|SEP} is ITEM once per axis
(SEP between), $ the axis and [^] the subscript that lays a 1-D range along
axis $ ("[:, None]" at rank 2, nothing at rank 1). A word alone on its line is
one such line per axis. So the file stays Python as written: the words are
plain names. See tools/gen_helpers.py.

Tiles are indexed in tile units: the tile at index (i0, i1) of shape (S0, S1)
covers elements [i0*S0, (i0+1)*S0) x [i1*S1, (i1+1)*S1). Offsets are 64-bit:
a row offset of a large array passes 2**31 long before any one shape or stride
value does.
"""
import triton
import triton.language as tl


# template: ct_load_RANKd from rank 1
#   INDEX = {i$|, }
#   SIZE = {S$|, }
#   SIZE_PARAMS = {S$: tl.constexpr|, }
#   OFFSETS = o$ = tl.cast(i$, tl.int64) * S$ + tl.arange(0, S$)
#   POINTERS = base{ + o$[^] * strides[$]}
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_load_RANKd(base, shape, strides, INDEX, SIZE_PARAMS, other, check_bounds: tl.constexpr = True):
    """ct.load through pointers: the tile at tile index (INDEX) of shape (SIZE).
    Elements outside the array read `other` (the padding value); with
    check_bounds=False the caller promises there are none."""
    OFFSETS
    ptrs = POINTERS
    if check_bounds:
        tile = tl.load(ptrs, mask=INSIDE, other=other)
    else:
        tile = tl.load(ptrs)
    return tile


# template: ct_store_RANKd from rank 1
#   INDEX = {i$|, }
#   SIZES = S$: tl.constexpr = value.shape[$]
#   OFFSETS = o$ = tl.cast(i$, tl.int64) * S$ + tl.arange(0, S$)
#   POINTERS = base{ + o$[^] * strides[$]}
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_store_RANKd(base, shape, strides, INDEX, value, check_bounds: tl.constexpr = True):
    """ct.store through pointers: `value` as the tile at tile index (INDEX). Elements
    outside the array are not written; tl.store casts to the array's dtype (cuTile's
    implicit store cast, which only widens)."""
    SIZES
    OFFSETS
    ptrs = POINTERS
    if check_bounds:
        tl.store(ptrs, value, mask=INSIDE)
    else:
        tl.store(ptrs, value)


# template: ct_tile_mask_RANKd from rank 1
#   INDEX = {i$|, }
#   SIZE = {S$|, }
#   SIZE_PARAMS = {S$: tl.constexpr|, }
#   OFFSETS = o$ = tl.cast(i$, tl.int64) * S$ + tl.arange(0, S$)
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_tile_mask_RANKd(shape, INDEX, SIZE_PARAMS):
    """Which elements of the tile at tile index (INDEX) of shape (SIZE) lie inside
    the array (a descriptor pads the others with zero; cuTile's padding mode
    may ask for another value)."""
    OFFSETS
    return INSIDE


# template: ct_load_element_RANKd from rank 1
#   INDEX = {i$|, }
#   POINTER = base{ + tl.cast(i$, tl.int64) * strides[$]}
#   INSIDE = {(i$ >= 0) & (i$ < shape[$])| & }
@triton.jit
def ct_load_element_RANKd(base, shape, strides, INDEX, other, check_bounds: tl.constexpr = True):
    """ct.load with shape=(): the element at (INDEX) as a scalar; outside the array it
    reads `other` (the padding value)."""
    ptr = POINTER
    if check_bounds:
        value = tl.load(ptr, mask=INSIDE, other=other)
    else:
        value = tl.load(ptr)
    return value


# template: ct_store_element_RANKd from rank 1
#   INDEX = {i$|, }
#   POINTER = base{ + tl.cast(i$, tl.int64) * strides[$]}
#   INSIDE = {(i$ >= 0) & (i$ < shape[$])| & }
@triton.jit
def ct_store_element_RANKd(base, shape, strides, INDEX, value, check_bounds: tl.constexpr = True):
    """ct.store of a scalar (a 0-d tile): one element at element index (INDEX), not
    written outside the array."""
    ptr = POINTER
    if check_bounds:
        tl.store(ptr, value, mask=INSIDE)
    else:
        tl.store(ptr, value)


# template: ct_element_offsets_RANKd from rank 1
#   INDEX = {i$|, }
#   OFFSETS = {tl.cast(i$, tl.int64) * strides[$]| + }
@triton.jit
def ct_element_offsets_RANKd(strides, INDEX):
    """The 64-bit element offsets of the element indices (INDEX) of ct.gather, ct.scatter
    and the atomics (tiles and scalars broadcast together), as cuTile computes addresses."""
    return OFFSETS


# template: ct_element_inside_RANKd from rank 1
#   INDEX = {i$|, }
#   INSIDE = {(i$ >= 0) & (i$ < shape[$])| & }
@triton.jit
def ct_element_inside_RANKd(shape, INDEX):
    """Which element indices (INDEX) of ct.gather, ct.scatter and the atomics lie inside
    the array (tiles and scalars broadcast together). cuTile compares them unsigned:
    negative indices are outside."""
    return INSIDE


# template: ct_load_advanced_RANKd from rank 2
#   AXES = {a$|, }
#   OFFSETS = o$ = tl.cast(a$, tl.int64)
#   POINTERS = base{ + o$[^] * strides[$]}
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_load_advanced_RANKd(base, shape, strides, AXES, other):
    """ct.load_advanced_indexing through pointers: each axis of the tile reads the array's
    elements at the 1-D tile of that axis (the sparse dimension's index tile, or a
    ct.Slice's start + arange(length)). Elements outside the array, on any axis (negative
    indices too), read `other` (the padding value; None for UNDETERMINED)."""
    OFFSETS
    ptrs = POINTERS
    return tl.load(ptrs, mask=INSIDE, other=other)


# template: ct_store_advanced_RANKd from rank 2
#   AXES = {a$|, }
#   OFFSETS = o$ = tl.cast(a$, tl.int64)
#   POINTERS = base{ + o$[^] * strides[$]}
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_store_advanced_RANKd(base, shape, strides, AXES, value):
    """ct.store_advanced_indexing through pointers: `value` written at the elements the
    1-D tile of each axis selects (as ct_load_advanced_RANKd reads them); elements
    outside the array are not written. tl.store casts to the array's dtype."""
    OFFSETS
    ptrs = POINTERS
    tl.store(ptrs, value, mask=INSIDE)


# template: ct_load_view_RANKd from rank 1
#   INDEX = {i$|, }
#   SIZE = {S$|, }
#   STEP = {T$|, }
#   SIZE_PARAMS = {S$: tl.constexpr|, }
#   STEP_PARAMS = {T$: tl.constexpr|, }
#   OFFSETS = o$ = tl.cast(i$, tl.int64) * T$ + tl.arange(0, S$)
#   POINTERS = base{ + o$[^] * strides[$]}
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_load_view_RANKd(base, shape, strides, INDEX, SIZE_PARAMS, STEP_PARAMS, other,
                       check_bounds: tl.constexpr = True):
    """TiledView.load of a view with traversal steps (STEP): the tile of shape (SIZE) at
    tile index (INDEX), whose origin is the index times the steps (tiles overlap where a
    step is smaller than the tile, leave gaps where it is larger). Elements outside the
    array read `other` (the view's padding value)."""
    OFFSETS
    ptrs = POINTERS
    if check_bounds:
        tile = tl.load(ptrs, mask=INSIDE, other=other)
    else:
        tile = tl.load(ptrs)
    return tile


# template: ct_store_view_RANKd from rank 1
#   INDEX = {i$|, }
#   STEP = {T$|, }
#   STEP_PARAMS = {T$: tl.constexpr|, }
#   SIZES = S$: tl.constexpr = value.shape[$]
#   OFFSETS = o$ = tl.cast(i$, tl.int64) * T$ + tl.arange(0, S$)
#   POINTERS = base{ + o$[^] * strides[$]}
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_store_view_RANKd(base, shape, strides, INDEX, STEP_PARAMS, value, check_bounds: tl.constexpr = True):
    """TiledView.store of a view with traversal steps (STEP): `value` as the tile at tile
    index (INDEX), whose origin is the index times the steps. Elements outside the array
    are not written; tl.store casts to the array's dtype."""
    SIZES
    OFFSETS
    ptrs = POINTERS
    if check_bounds:
        tl.store(ptrs, value, mask=INSIDE)
    else:
        tl.store(ptrs, value)


# template: ct_atomic_view_RANKd from rank 1
#   INDEX = {i$|, }
#   SIZE = {S$|, }
#   STEP = {T$|, }
#   SIZE_PARAMS = {S$: tl.constexpr|, }
#   STEP_PARAMS = {T$: tl.constexpr|, }
#   OFFSETS = o$ = tl.cast(i$, tl.int64) * T$ + tl.arange(0, S$)
#   POINTERS = base{ + o$[^] * strides[$]}
#   INSIDE = {((o$ >= 0) & (o$ < shape[$]))[^]| & }
@triton.jit
def ct_atomic_view_RANKd(base, shape, strides, INDEX, SIZE_PARAMS, STEP_PARAMS, update, OP: tl.constexpr):
    """TiledView.atomic_store_OP: `update`, broadcast to the tile shape (SIZE), combined
    element by element and atomically (OP: "add", "max", "min", "and", "or" or "xor")
    into the tile at tile index (INDEX), whose origin is the index times the steps (STEP).
    Elements outside the array are not touched; the old values are not returned. Triton's
    atomics cast the update to the array's dtype."""
    OFFSETS
    ptrs = POINTERS
    inside = INSIDE
    update = tl.broadcast_to(update, SIZE)
    if OP == "add":
        tl.atomic_add(ptrs, update, mask=inside)
    elif OP == "max":
        tl.atomic_max(ptrs, update, mask=inside)
    elif OP == "min":
        tl.atomic_min(ptrs, update, mask=inside)
    elif OP == "and":
        tl.atomic_and(ptrs, update, mask=inside)
    elif OP == "or":
        tl.atomic_or(ptrs, update, mask=inside)
    else:
        tl.atomic_xor(ptrs, update, mask=inside)
