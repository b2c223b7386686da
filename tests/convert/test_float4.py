"""float4_e2m1fn tiles and ct.pack_to_bytes, and the spellings older cuda.tile needed
for them (cuda.tile._datatype.float4_e2m1fn, cuda.tile._stub.pack_to_bytes, and
`ct.pack_to_bytes = pack_to_bytes` on the host).

Triton has no FP4 dtype: the converter holds a float4_e2m1fn tile as uint8 codes
(sign in bit 3, then the 2-bit exponent and the mantissa bit), which astype makes
(to nearest, ties to even, saturating at 6; cuda/tile/_bytecode/float.py) and only
astype, reshape, permute, transpose, expand_dims and pack_to_bytes take: anything
else would read the codes as numbers, so it is a located error. pack_to_bytes
flattens row-major and reads the bytes as memory holds them: element 2i in the low
nibble, wider elements least significant byte first.
"""
import torch

# FP4 magnitudes and, for each, values that round to it (ties to the even code)
FP4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
CASES = [  # value, its code
    (0.0, 0), (-0.0, 8), (0.25, 0), (0.2500001, 1), (0.75, 2), (-0.75, 10), (1.25, 2), (1.2500001, 3),
    (1.75, 4), (2.5, 4), (2.75, 5), (3.5, 6), (5.0, 6), (5.0000005, 7), (6.0, 7), (1e30, 7), (float("inf"), 7),
    (float("-inf"), 15), (-0.1, 8), (-4.4, 14), (1.4, 3), (-2.6, 13), (0.7, 1), (3.2, 5),
]

QUANTIZE = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, R: ct.Constant[int], C: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(R, C))
    codes = ct.astype(t, ct.float4_e2m1fn)
    ct.store(out, index=(ct.bid(0), 0), tile=ct.reshape(ct.pack_to_bytes(codes), (R, C // 2)))
'''


def packed(codes, rows):
    c = torch.tensor(codes, dtype=torch.uint8).reshape(rows, -1)
    return c[:, 0::2] | (c[:, 1::2] << 4)


def test_astype_rounds_to_nearest_even_and_packs_low_nibble_first(convert, device):
    mod = convert(QUANTIZE)
    values = [v for v, _ in CASES] + [0.0] * (32 - len(CASES))
    codes = [c for _, c in CASES] + [0] * (32 - len(CASES))
    x = torch.tensor(values, dtype=torch.float32).reshape(4, 8)
    out = torch.zeros(4, 4, dtype=torch.uint8, device=device)
    mod.launch_k(0, (1,), (x.to(device), out, 4, 8))
    assert out.cpu().tolist() == packed(codes, 4).tolist()


def test_astype_of_bfloat16_and_float64_tiles(convert, device):
    mod = convert(QUANTIZE)
    for dtype in (torch.bfloat16, torch.float64):
        x = torch.tensor([1.25, -1.75, 2.5, 3.5, 5.0, 7.0, -0.3, 0.26], dtype=dtype).reshape(1, 8)
        out = torch.zeros(1, 4, dtype=torch.uint8, device=device)
        mod.launch_k(0, (1,), (x.to(device), out, 1, 8))
        assert out.cpu().tolist() == packed([2, 12, 4, 6, 6, 7, 9, 1], 1).tolist(), dtype
    # a float64 just past a tie rounds up (through float32 it would be the tie, rounding to 0)
    x = torch.tensor([0.25 + 2.0 ** -40, 0.25] + [0.0] * 6, dtype=torch.float64).reshape(1, 8)
    out = torch.zeros(1, 4, dtype=torch.uint8, device=device)
    mod.launch_k(0, (1,), (x.to(device), out, 1, 8))
    assert out.cpu().tolist()[0][0] == 0x01


def fp4_value(v):
    """The FP4 value cuTile rounds v to: the nearest magnitude, the even code on a tie,
    6 past 6, with v's sign."""
    a = abs(v)
    best = min(range(8), key=lambda k: (abs(a - FP4[k]), k % 2)) if a <= 6 else 7
    return -FP4[best] if str(v).startswith("-") else FP4[best]


def test_float4_tiles_round_trip_through_shape_operations_and_astype(convert, device):
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(x, y, z):
    t = ct.load(x, index=(0, 0), shape=(4, 8))
    q = ct.transpose(ct.astype(t, ct.float4_e2m1fn))
    q = ct.permute(ct.expand_dims(q, 0), (0, 2, 1))
    q = q.reshape((8, 4))
    ct.store(y, index=(0, 0), tile=q.astype(ct.float32))
    ct.store(z, index=(0, 0), tile=ct.astype(q, ct.float16))
''')
    x = torch.randn(4, 8) * 4
    x[0, :4] = torch.tensor([-0.0, 0.25, 100.0, -100.0])
    y = torch.zeros(8, 4, device=device)
    z = torch.zeros(8, 4, dtype=torch.float16, device=device)
    mod.launch_k(0, (1,), (x.to(device), y, z))
    # transpose, then the permute back: x's elements in x's order, read as (8, 4)
    want = torch.tensor([fp4_value(v) for v in x.flatten().tolist()]).reshape(8, 4)
    assert y.cpu().tolist() == want.tolist()
    assert torch.equal(torch.signbit(y.cpu()), torch.signbit(want))  # -0.0 stays -0.0
    assert y.cpu()[0].tolist() == [0.0, 0.0, 6.0, -6.0]
    assert torch.equal(z.cpu().float(), y.cpu())


def test_pack_to_bytes_of_wider_and_8_bit_tiles(convert, device):
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(a, b, c, out_a, out_b, out_c):
    ct.store(out_a, index=(0,), tile=ct.pack_to_bytes(ct.load(a, index=(0, 0), shape=(2, 4))))
    ct.store(out_b, index=(0,), tile=ct.pack_to_bytes(ct.load(b, index=(0,), shape=(8,))))
    ct.store(out_c, index=(0,), tile=ct.pack_to_bytes(ct.load(c, index=(0, 0), shape=(4, 2))))
''')
    a = torch.tensor([[0x04030201, -2, 7, 1 << 30], [5, 6, -7, 8]], dtype=torch.int32)
    b = torch.randn(8).half()
    c = torch.tensor([[-1, 2], [-3, 4], [127, -128], [0, 9]], dtype=torch.int8)
    outs = [torch.zeros(n, dtype=torch.uint8, device=device) for n in (32, 16, 8)]
    mod.launch_k(0, (1,), (a.to(device), b.to(device), c.to(device), *outs))
    assert outs[0].cpu().tolist()[:4] == [1, 2, 3, 4]  # little-endian, as cuTile's own example
    for out, x in zip(outs, (a, b, c)):
        assert torch.equal(out.cpu(), x.flatten().view(torch.uint8))


def test_private_spellings_and_the_host_self_binding(convert, convert_text, device):
    source = '''
import cuda.tile as ct
import torch
from cuda.tile._datatype import float4_e2m1fn
from cuda.tile._stub import pack_to_bytes

ct.pack_to_bytes = pack_to_bytes


@ct.kernel
def k(x, out):
    t = ct.load(x, index=(0,), shape=(8,))
    ct.store(out, index=(0,), tile=ct.pack_to_bytes(ct.astype(t, float4_e2m1fn)))


def quantize(x):
    out = torch.zeros(4, dtype=torch.uint8, device=x.device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, out))
    return out
'''
    text = convert_text(source)
    assert "# ct.pack_to_bytes = pack_to_bytes: cuda.tile's own name bound to itself; dropped" in text
    assert "C2T206" in text and "cuda.tile" not in text.replace("cuda.tile's own", "")
    mod = convert(source)
    x = torch.tensor([0.5, -0.5, 1.0, 6.0, 2.5, 2.75, -8.0, 0.0], device=device)
    assert mod.quantize(x).cpu().tolist() == packed([1, 9, 2, 7, 4, 5, 15, 0], 1)[0].tolist()


def test_a_self_binding_inside_a_function_becomes_pass(convert_text):
    text = convert_text('''
import cuda.tile as ct
from cuda.tile._stub import pack_to_bytes


def setup():
    ct.pack_to_bytes = pack_to_bytes


@ct.kernel
def k(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)))
''')
    body = text.split("def setup():\n")[1].split("\n\n")[0]
    assert "ct.pack_to_bytes = pack_to_bytes: cuda.tile's own name bound to itself" in body
    assert body.splitlines()[-1] == "    pass"


def test_a_known_constant_folds(convert, device):
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(x):
    c = ct.astype(3.3, ct.float4_e2m1fn).reshape((1,))
    d = ct.astype(-0.25, ct.float4_e2m1fn).reshape((1,))
    pair = ct.astype(c, ct.float32) + ct.astype(d, ct.float32)
    ct.store(x, index=(0,), tile=pair)
''')
    x = torch.zeros(1, device=device)
    mod.launch_k(0, (1,), (x,))
    assert x.cpu().tolist() == [3.0]


ERRORS = {
    "arithmetic": ("q + q", "cuTile does no arithmetic on float4_e2m1fn"),
    "compare": ("q > 0", "cuTile does no arithmetic on float4_e2m1fn"),
    "not": ("not q", "of a float4_e2m1fn tile cannot be converted"),
    "where": ("ct.where(t > 0, q, q)", "ct.where() of a float4_e2m1fn tile cannot be converted"),
    "sum": ("ct.sum(q)", "of a float4_e2m1fn tile cannot be converted"),
    "bitcast": ("ct.bitcast(q, ct.uint8)", "of a float4_e2m1fn tile cannot be converted"),
    "cat": ("ct.cat((q, q), 0)", "of a float4_e2m1fn tile cannot be converted"),
    "to int": ("ct.astype(q, ct.int32)", "to int32 cannot be converted: only float dtypes are"),
    "from int": ("ct.astype(ct.astype(t, ct.int32), ct.float4_e2m1fn)", "astype() of a int32 tile to float4_e2m1fn"),
    "rounding": ("ct.astype(t, ct.float4_e2m1fn, rounding_mode=ct.RoundingMode.RZ)", "takes no rounding_mode but RN"),
    "nan": ("ct.astype(float('nan'), ct.float4_e2m1fn)", "NaN cannot be represented in float4_e2m1fn"),
    "odd": ("ct.pack_to_bytes(ct.astype(ct.load(x, index=(0,), shape=(1,)), ct.float4_e2m1fn))",
            "bits (1 elements of 4 bits) are not whole bytes"),
    "bool": ("ct.pack_to_bytes(t > 0)", "cuTile does not pack bool tiles"),
}


def error_kernel(expression, store=False):
    return f'''
import cuda.tile as ct


@ct.kernel
def k(x):
    t = ct.load(x, index=(0,), shape=(8,))
    q = ct.astype(t, ct.float4_e2m1fn)
    r = {expression}
    ct.store(x, index=(0,), tile={"q" if store else "t"})
'''


def test_every_other_use_of_a_float4_tile_is_a_located_error(convert_error):
    for name, (expression, message) in ERRORS.items():
        assert message in convert_error(error_kernel(expression)), name
    assert "ct.store() of a float4_e2m1fn tile cannot be converted" in convert_error(error_kernel("q", store=True))
    assert "print() of a float4_e2m1fn tile" in convert_error(error_kernel("print(q)"))


def test_a_float4_tile_reaching_a_tile_function_is_checked_there(convert_error):
    message = convert_error('''
import cuda.tile as ct


def twice(v):
    return v * 2


@ct.kernel
def k(x):
    t = ct.load(x, index=(0,), shape=(8,))
    ct.store(x, index=(0,), tile=ct.astype(twice(ct.astype(t, ct.float4_e2m1fn)), ct.float32))
''')
    assert "cuTile does no arithmetic on float4_e2m1fn" in message


def test_host_uses_of_the_float4_dtype_and_patches_of_cuda_tile_are_errors(convert_error):
    kernel = '''
import cuda.tile as ct


@ct.kernel
def k(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)))
'''
    assert "ct.float4_e2m1fn, which has no torch dtype" in convert_error(kernel + "\nDT = ct.float4_e2m1fn\n")
    message = convert_error(kernel + "\ndef mine(x):\n    return x\n\n\nct.pack_to_bytes = mine\n")
    assert "host code assigns to ct.pack_to_bytes: the converted module has no cuda.tile to patch" in message


def test_stub_names_are_the_public_ones_only_where_stub_has_them(convert, convert_error, device):
    mod = convert('''
import cuda.tile as ct
from cuda.tile._stub import load, store, Constant


@ct.kernel
def k(x, T: Constant[int]):
    store(x, index=(0,), tile=load(x, index=(0,), shape=(T,)) * 2)
''')
    x = torch.arange(8.0, device=device)
    mod.launch_k(0, (1,), (x, 8))
    assert x.cpu().tolist() == [2.0 * i for i in range(8)]
    # cuda.tile takes launch from elsewhere: _stub has none
    message = convert_error('''
import cuda.tile as ct
from cuda.tile._stub import launch


@ct.kernel
def k(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)))


def run(x):
    launch(0, (1,), k, (x,))
''')
    assert "host code uses ct._stub.launch" in message
