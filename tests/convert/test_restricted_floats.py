"""tfloat32 and float8 tiles where cuTile computes no arithmetic on them but still gives values:
ct.where() between such tiles (a choice), the constants cuTile folds to them (ct.full, a number
beside one in ct.where), and ct.matmul of tfloat32 operands, whose product cuTile casts back to
tfloat32. Each rule was read in what real cuTile 1.7 (its front end and tileiras 13.4) makes of
a small kernel: the Tile IR constants (`constant <tf32: 9.997550e-02>` for 0.1) and the PTX
(`cvt.rn.tf32.f32` after the product). Run under the Triton interpreter against torch."""
import pytest
import torch

TF32_OF_0_1 = 0.0999755859375  # 0.1 to float32, then to tf32's 10 mantissa bits, to nearest


def tf32(x):
    """x (float32) rounded to tfloat32: to nearest, ties to even."""
    bits = x.view(torch.int32).to(torch.int64)
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
    return rounded.to(torch.int32).view(torch.float32)


SELECT = '''
import cuda.tile as ct


@ct.kernel
def k(a, b, out, T: ct.Constant[int]):
    x = ct.load(a, index=(0, 0), shape=(T, T)).astype(ct.{dtype})
    y = ct.load(b, index=(0, 0), shape=(T, T)).astype(ct.{dtype})
    keep = ct.load(a, index=(0, 0), shape=(T, T)) > 0
    ct.store(out, index=(0, 0), tile={expr}.astype(ct.float32))
'''


@pytest.mark.parametrize("dtype", ["tfloat32", "float8_e4m3fn", "float8_e5m2"])
def test_where_chooses_between_restricted_tiles_and_folded_numbers(convert, dtype):
    """cuTile's ct.where takes tfloat32 and float8 tiles (the converter refused them as
    arithmetic); a number beside one is folded to that dtype as a constant is."""
    torch.manual_seed(0)
    a, b = torch.randn(16, 16), torch.randn(16, 16)
    if dtype != "tfloat32":  # values of the dtype: Triton's interpreter misrounds some float8 casts
        a, b = (t.to(getattr(torch, dtype)).float() for t in (a, b))
    mod = convert(SELECT.format(dtype=dtype, expr="ct.where(keep, x, ct.where(keep, 0, y))"))
    out = torch.empty(16, 16)
    mod.launch_k(0, (1,), (a, b, out, 16))
    cast = tf32 if dtype == "tfloat32" else (lambda t: t.to(getattr(torch, dtype)).float())
    assert torch.equal(out, torch.where(a > 0, cast(a), cast(b)))
    mod = convert(SELECT.format(dtype=dtype, expr="ct.where(keep, x, 0.1)"))
    mod.launch_k(0, (1,), (a, b, out, 16))
    number = TF32_OF_0_1 if dtype == "tfloat32" else torch.tensor(0.1).to(getattr(torch, dtype)).item()
    assert torch.equal(out, torch.where(a > 0, cast(a), torch.tensor(number)))


def test_where_does_not_promote_a_restricted_dtype(convert_error):
    message = convert_error(SELECT.format(dtype="tfloat32", expr="ct.where(keep, x, y.astype(ct.float16))"))
    assert "C2T402: ct.where(): cuTile does not promote tfloat32 with float16" in message


FULL = '''
import cuda.tile as ct


@ct.kernel
def k(v, out, T: ct.Constant[int]):
    ct.store(out, index=(0, 0), tile=ct.full((T, T), {value}, dtype=ct.tfloat32).astype(ct.float32))
'''


@pytest.mark.parametrize("value", ["0.1", "v"])
def test_a_tfloat32_fill_is_rounded_to_tfloat32(convert, value):
    """ct.full(..., 0.1, dtype=ct.tfloat32) holds 0.1 rounded to tf32 (cuTile's Tile IR:
    `constant <tf32: 9.997550e-02>`; a run-time value: cvt.rn.tf32.f32), not float32's 0.1."""
    out = torch.empty(16, 16)
    convert(FULL.format(value=value)).launch_k(0, (1,), (0.1, out, 16))
    assert torch.equal(out, torch.full((16, 16), TF32_OF_0_1))


def test_a_tfloat32_matmul_is_rounded_back_to_tfloat32(convert):
    """ct.matmul(x, y) of tfloat32 tiles is a tfloat32 tile: cuTile rounds the float32
    product (cvt.rn.tf32.f32 after the mma). (1 + 2**-10)**2 = 1 + 2**-9 + 2**-20 holds in
    float32 and is 1 + 2**-9 in tf32."""
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(a, out, T: ct.Constant[int]):
    x = ct.load(a, index=(0, 0), shape=(T, T)).astype(ct.tfloat32)
    ct.store(out, index=(0, 0), tile=ct.matmul(x, x).astype(ct.float32))
''')
    a = torch.zeros(16, 16)
    a[0, 0] = 1 + 2.0**-10
    out = torch.empty(16, 16)
    mod.launch_k(0, (1,), (a, out, 16))
    assert out[0, 0].item() == 1 + 2.0**-9 and torch.count_nonzero(out) == 1


def test_a_tfloat32_tile_is_not_stored(convert_error):
    """No array holds tfloat32 and cuTile casts it to no array's dtype implicitly ("Stored tile
    is incompatible with array's dtype: cannot implicitly cast tfloat32 to float32"): a located
    error, where the converter used to store its float32 values."""
    message = convert_error(SELECT.format(dtype="tfloat32", expr="x").replace(
        "    ct.store(out, index=(0, 0), tile=x.astype(ct.float32))", "    ct.store(out, index=(0, 0), tile=x)"))
    assert "C2T402: ct.store(): cuTile stores no tfloat32 tile" in message


def test_an_integer_tile_converts_to_tfloat32(convert):
    """cuTile converts integers and bools to tfloat32 (cvt.rn.f32.s32 then cvt.rn.tf32.f32 in
    its PTX): float32 first, then tf32's 10 mantissa bits, to nearest, ties to even."""
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(a, out):
    x = ct.load(a, index=(0,), shape=(8,))
    ct.store(out, index=(0,), tile=x.astype(ct.tfloat32).astype(ct.float32))
''')
    a = torch.tensor([2049, 2051, 3, -2051, 16777217, 0, 1 << 30, -1], dtype=torch.int32)
    out = torch.empty(8)
    mod.launch_k(0, (1,), (a, out))
    assert out.tolist() == [2048.0, 2052.0, 3.0, -2052.0, 16777216.0, 0.0, 2.0**30, -1.0]
