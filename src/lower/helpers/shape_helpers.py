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
