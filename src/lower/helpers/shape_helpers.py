"""Runtime helpers of the shape family (src/lower/lower_shape.c).

Each helper is a @triton.jit function that a generated module carries once,
when it uses it; its docstring says which cuTile semantics it carries.

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import triton
import triton.language as tl


# helper: ct_pack_to_bytes
@triton.jit
def ct_pack_to_bytes(x):
    """cuTile's pack_to_bytes of a 1-D tile of 1-, 2-, 4- or 8-byte elements (the tile
    already flattened row-major): each element's bytes, least significant first (the order
    in memory), one after the other, as a uint8 tile of x.shape[0] * width elements. cuTile
    does not pack bool tiles."""
    tl.static_assert(x.dtype != tl.int1, "cuTile does not pack bool tiles (pack_to_bytes)")
    WIDTH: tl.constexpr = x.dtype.primitive_bitwidth // 8
    COUNT: tl.constexpr = x.shape[0]
    if WIDTH == 1:
        return x.to(tl.uint8, bitcast=True)
    if WIDTH == 2:
        u = x.to(tl.uint16, bitcast=True)
    elif WIDTH == 4:
        u = x.to(tl.uint32, bitcast=True)
    else:
        u = x.to(tl.uint64, bitcast=True)
    shift = (tl.arange(0, WIDTH) * 8).to(u.dtype)
    byte = (u[:, None] >> shift[None, :]) & 0xFF
    return tl.reshape(byte.to(tl.uint8), (COUNT * WIDTH,))


# helper: ct_pack_float4_e2m1fn
@triton.jit
def ct_pack_float4_e2m1fn(code):
    """cuTile's pack_to_bytes of a 1-D float4_e2m1fn tile (its uint8 codes 0..15, the tile
    already flattened row-major): two codes a byte, element 2i in the low nibble and
    element 2i + 1 in the high one (the order in memory), as a uint8 tile of half as
    many elements."""
    COUNT: tl.constexpr = code.shape[0]
    tl.static_assert(COUNT % 2 == 0, "pack_to_bytes: an odd number of float4_e2m1fn elements is not whole bytes")
    low, high = tl.split(tl.reshape(code, (COUNT // 2, 2)))
    return (low | (high << 4)).to(tl.uint8)


# helper: ct_unpack_from_bytes
@triton.jit
def ct_unpack_from_bytes(x, dtype: tl.constexpr):
    """cuTile's unpack_from_bytes of a 1-D uint8 tile to a dtype of 2, 4 or 8 bytes: each
    WIDTH bytes, least significant first (the order in memory, as pack_to_bytes wrote
    them), make one element, as a tile of x.shape[0] // WIDTH elements."""
    tl.static_assert(x.dtype == tl.uint8, "unpack_from_bytes takes a uint8 tile")
    WIDTH: tl.constexpr = dtype.primitive_bitwidth // 8
    COUNT: tl.constexpr = x.shape[0]
    tl.static_assert(COUNT % WIDTH == 0, "unpack_from_bytes: the bytes are not a whole number of elements")
    if WIDTH == 2:
        u = tl.reshape(x, (COUNT // 2, 2)).to(tl.uint16)
    elif WIDTH == 4:
        u = tl.reshape(x, (COUNT // 4, 4)).to(tl.uint32)
    else:
        u = tl.reshape(x, (COUNT // 8, 8)).to(tl.uint64)
    shift = (tl.arange(0, WIDTH) * 8).to(u.dtype)
    # the bytes' bits do not overlap: their sum is their bitwise or
    word = tl.sum(u << shift[None, :], axis=1).to(u.dtype)
    return word.to(dtype, bitcast=True)


# helper: ct_unpack_float4_e2m1fn
@triton.jit
def ct_unpack_float4_e2m1fn(x):
    """cuTile's unpack_from_bytes of a 1-D uint8 tile to float4_e2m1fn: two codes a byte,
    the low nibble first (pack_to_bytes' order), as uint8 codes 0..15 (the converter's
    float4_e2m1fn tiles), twice as many elements."""
    tl.static_assert(x.dtype == tl.uint8, "unpack_from_bytes takes a uint8 tile")
    COUNT: tl.constexpr = x.shape[0]
    return tl.reshape(tl.join(x & 0xF, x >> 4), (COUNT * 2,)).to(tl.uint8)


# helper: ct_same_tuple
@triton.constexpr_function
def ct_same_tuple(a, b):
    """a == b for tuples known when Triton compiles (a ct.Constant tuple parameter compared
    with a tuple): Python's comparison, item by item, lengths included."""
    return tuple(a) == tuple(b)
