"""ct.unpack_from_bytes (the inverse of pack_to_bytes) and float4_e2m1fn tiles made by
ct.full, ct.zeros and ct.ones, under the interpreter.

cuTile's unpack_from_bytes takes a 1-D uint8 tile: to an 8-bit dtype it is a bitcast, to
float4_e2m1fn two codes a byte (the low nibble first, as pack_to_bytes wrote them), to a
wider dtype each element's bytes least significant first (cuda/tile/_ir/ops.py). The
converter holds float4_e2m1fn tiles as uint8 codes, which a fill gives as astype would.
"""
import pytest
import torch

UNPACK = '''
import cuda.tile as ct


@ct.kernel
def k(raw, i32, f16, i64, i8, codes, N: ct.Constant[int]):
    b = ct.load(raw, index=(0,), shape=(N,))
    ct.store(i32, index=(0,), tile=ct.unpack_from_bytes(b, ct.int32))
    ct.store(f16, index=(0,), tile=ct.unpack_from_bytes(b, ct.float16))
    ct.store(i64, index=(0,), tile=ct.unpack_from_bytes(b, ct.int64))
    ct.store(i8, index=(0,), tile=ct.unpack_from_bytes(b, ct.int8))
    q = ct.unpack_from_bytes(b, ct.float4_e2m1fn)
    ct.store(codes, index=(0,), tile=ct.astype(q, ct.float32))
'''

FP4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def test_unpack_from_bytes_reads_elements_as_memory_holds_them(convert, device):
    mod = convert(UNPACK)
    raw = torch.tensor([1, 2, 3, 4, 0xFF, 0x7F, 0x80, 0x3C, 0x00, 0xFB, 9, 8, 7, 6, 5, 0x81], dtype=torch.uint8)
    outs = [torch.zeros(4, dtype=torch.int32), torch.zeros(8, dtype=torch.float16), torch.zeros(2, dtype=torch.int64),
            torch.zeros(16, dtype=torch.int8), torch.zeros(32)]
    outs = [o.to(device) for o in outs]
    mod.launch_k(0, (1,), (raw.to(device), *outs, 16))
    assert outs[0].cpu().tolist()[0] == 0x04030201  # cuTile's own example
    for out, dtype in zip(outs[:4], (torch.int32, torch.float16, torch.int64, torch.int8)):
        assert torch.equal(out.cpu().view(torch.uint8), raw), dtype  # bit for bit, NaN patterns too
    fp4 = []
    for byte in raw.tolist():
        for code in (byte & 0xF, byte >> 4):
            fp4.append(-FP4[code & 7] if code & 8 else FP4[code])
    assert outs[4].cpu().tolist() == fp4


def test_unpack_from_bytes_inverts_pack_to_bytes(convert, device):
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(x, y, z, N: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(N,))
    ct.store(y, index=(0,), tile=ct.unpack_from_bytes(ct.pack_to_bytes(t), ct.float32))
    q = ct.astype(t, ct.float4_e2m1fn)
    back = ct.unpack_from_bytes(ct.pack_to_bytes(q), ct.float4_e2m1fn)
    ct.store(z, index=(0,), tile=ct.astype(back, ct.float32))
''')
    x = torch.tensor([0.3, -1.7, 5.5, 2.25, 1e-40, -0.0, 7.0, 0.75], device=device)
    y, z = torch.zeros_like(x), torch.zeros_like(x)
    mod.launch_k(0, (1,), (x, y, z, 8))
    assert torch.equal(y.view(torch.int32), x.view(torch.int32))
    assert z.cpu().tolist() == [0.5, -1.5, 6.0, 2.0, 0.0, -0.0, 6.0, 1.0]


FILLS = '''
import cuda.tile as ct


@ct.kernel
def k(out, packed, v: ct.Constant[float]):
    a = ct.astype(ct.full((8,), 1.4, ct.float4_e2m1fn), ct.float32)
    b = ct.astype(ct.full((8,), v, ct.float4_e2m1fn), ct.float32)
    c = ct.astype(ct.ones((8,), ct.float4_e2m1fn), ct.float32)
    d = ct.astype(ct.zeros((8,), ct.float4_e2m1fn), ct.float32)
    ct.store(out, index=(0, 0), tile=ct.reshape(ct.cat((ct.cat((a, b), 0), ct.cat((c, d), 0)), 0), (4, 8)))
    ct.store(packed, index=(0,), tile=ct.pack_to_bytes(ct.full((4,), -3.0, ct.float4_e2m1fn)))
'''


def test_float4_fills_round_as_astype_does(convert, device):
    mod = convert(FILLS)
    # a constexpr rounds from its double: 0.25 + 2**-40 is past the tie (float32 would make it the tie)
    for v, rounded in ((2.6, 3.0), (-0.3, -0.5), (100.0, 6.0), (0.25, 0.0), (0.25 + 2.0**-40, 0.5)):
        out = torch.zeros(4, 8, device=device)
        packed = torch.zeros(2, dtype=torch.uint8, device=device)
        mod.launch_k(0, (1,), (out, packed, v))
        assert out.cpu().tolist() == [[1.5] * 8, [rounded] * 8, [1.0] * 8, [0.0] * 8], v
        assert packed.cpu().tolist() == [0xDD, 0xDD]  # -3.0 is code 13, two a byte


@pytest.mark.parametrize("expression, message", [
    ("ct.unpack_from_bytes(ct.reshape(b, (2, 4)), ct.int32)", "unpack_from_bytes requires a 1D tile, got 2D tile"),
    ("ct.unpack_from_bytes(ct.astype(b, ct.int8), ct.int32)", "unpack_from_bytes requires uint8 tile, got int8 tile"),
    ("ct.unpack_from_bytes(b, ct.bool_)", "unpack_from_bytes to a bool_ tile is not supported"),
    ("ct.unpack_from_bytes(ct.extract(b, (0,), (2,)), ct.int32)", "total bits (2 * 8) not divisible by 32"),
    ("ct.full((8,), float('nan'), ct.float4_e2m1fn)", "NaN cannot be represented in float4_e2m1fn"),
    ("ct.full((8,), ct.sum(ct.astype(b, ct.float32)), ct.float4_e2m1fn)",
     "a run-time fill value of a float4_e2m1fn tile cannot be converted"),
])
def test_bad_uses_are_located_errors(convert_error, expression, message):
    text = convert_error(f'''
import cuda.tile as ct


@ct.kernel
def k(x):
    b = ct.load(x, index=(0,), shape=(8,))
    r = {expression}
''')
    assert message in text


def test_kernels_here_are_valid_cutile(cutile_export):
    """The kernels above compile with cuda.tile for sm_100 (where cuda.tile and tileiras are
    importable: PYTHONPATH=/path/to/cuda-tile)."""
    ct, array = cutile_export.ct, cutile_export.array
    unpack_args = [array(ct.uint8, 1), array(ct.int32, 1), array(ct.float16, 1), array(ct.int64, 1),
                   array(ct.int8, 1), array(ct.float32, 1), 16]
    assert cutile_export.cubin_size(UNPACK, unpack_args) > 0
    fill_args = [array(ct.float32, 2, shape_divisible_by=[4, 8]), array(ct.uint8, 1), 2.6]
    assert cutile_export.cubin_size(FILLS, fill_args) > 0
