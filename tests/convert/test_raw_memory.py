"""Array.get_raw_memory (cuda-tile 1.7): an array's memory addressed by element offsets from
its base pointer. load_offset, store_offset and the atomic_*_offset methods become Triton's
pointer operations at `x + offset`; the result has the offset's shape, mask, values and
padding broadcast to it, and nothing is bounds-checked (real cuTile compiles these kernels:
checked with export_kernel)."""
import pytest
import torch

COPY = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, z, n, B: ct.Constant[int]):
    offs = ct.bid(0) * B + ct.arange(B, dtype=ct.int32)
    src = x.get_raw_memory()
    t = src.load_offset(offs, mask=offs < n, padding_value=-1.0)
    y.get_raw_memory().store_offset(offs, t * 2, mask=offs < n)
    # no mask: every lane is written, the padded ones with the padding value
    z.get_raw_memory().store_offset(offs, t)
'''


def test_masked_loads_read_the_padding_value_and_masked_stores_skip(convert, convert_text, device):
    text = convert_text(COPY)
    assert "tl.load(x + offs, mask=offs < n, other=-1.0)" in text, text
    assert "tl.store(y + offs, t * 2, mask=offs < n)" in text and "tl.store(z + offs, t)" in text, text
    assert "get_raw_memory" not in text
    mod = convert(COPY)
    x = torch.randn(40, device=device)
    y = torch.full((48,), 7.0, device=device)
    z = torch.zeros(48, device=device)
    mod.launch_k(0, (3,), (x, y, z, 40, 16))
    torch.testing.assert_close(y[:40], x * 2)
    assert (y[40:] == 7).all()  # masked off: not written
    torch.testing.assert_close(z[:40], x)
    assert (z[40:] == -1).all()  # read as padding, written unmasked


SHAPES = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, first, R: ct.Constant[int], C: ct.Constant[int]):
    # a 2-D tile of offsets into a row-major matrix, and a scalar offset
    raw = x.get_raw_memory()
    rows = ct.arange(R, dtype=ct.int32)[:, None]
    cols = ct.arange(C, dtype=ct.int32)[None, :]
    t = raw.load_offset(rows * x.shape[1] + cols)
    corner = raw.load_offset(0)
    ct.store(y, (0, 0), t + corner)
    first.get_raw_memory().store_offset(ct.bid(0), ct.full((), 1, dtype=raw.dtype) + corner)
'''


def test_offsets_of_any_shape_give_a_tile_of_that_shape(convert, device):
    mod = convert(SHAPES)
    x = torch.randn(6, 8, device=device)
    y = torch.empty(4, 8, device=device)
    first = torch.zeros(2, device=device)
    mod.launch_k(0, (1,), (x, y, first, 4, 8))
    torch.testing.assert_close(y, x[:4] + x[0, 0])
    torch.testing.assert_close(first[0], x[0, 0] + 1)
    assert first[1] == 0


VIEW = '''
import cuda.tile as ct


def add_at(mem, offs, v):
    return mem.atomic_add_offset(offs, v)


@ct.kernel
def k(x, counts, start, B: ct.Constant[int]):
    # the raw memory of a view starts at the view's first element
    rest = x.slice(0, start, x.shape[0])
    t = rest.get_raw_memory().load_offset(ct.arange(B, dtype=ct.int64))
    add_at(counts.get_raw_memory(), t, 1)
'''


def test_a_views_raw_memory_and_a_tile_function_taking_one(convert, device):
    mod = convert(VIEW)
    x = torch.randint(0, 5, (20,), dtype=torch.int32, device=device)
    counts = torch.zeros(5, dtype=torch.int32, device=device)
    mod.launch_k(0, (1,), (x, counts, 4, 16))
    torch.testing.assert_close(counts, torch.bincount(x[4:20].long(), minlength=5).to(torch.int32))


ATOMICS = '''
import cuda.tile as ct


@ct.kernel
def k(x, u, old, n, B: ct.Constant[int]):
    offs = ct.arange(B, dtype=ct.int32)
    v = ct.load(u, (0,), shape=(B,))
    before = x.get_raw_memory().atomic_OP_offset(offs, v, mask=offs < n)
    ct.store(old, (0,), before)
'''

OPS = {"add": torch.add, "max": torch.maximum, "min": torch.minimum, "and": torch.bitwise_and,
       "or": torch.bitwise_or, "xor": torch.bitwise_xor, "xchg": lambda a, b: b}


@pytest.mark.parametrize("op", sorted(OPS))
def test_atomics_update_the_unmasked_lanes_and_return_the_old_values(convert, device, op):
    mod = convert(ATOMICS.replace("atomic_OP_offset", f"atomic_{op}_offset"))
    x = torch.randint(-50, 50, (16,), dtype=torch.int32, device=device)
    u = torch.randint(-50, 50, (16,), dtype=torch.int32, device=device)
    old = torch.zeros(16, dtype=torch.int32, device=device)
    expected = x.clone()
    expected[:11] = OPS[op](x[:11], u[:11])
    got = x.clone()
    mod.launch_k(0, (1,), (got, u, old, 11, 16))
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(old[:11], x[:11])


CAS = '''
import cuda.tile as ct


@ct.kernel
def k(x, old, n, B: ct.Constant[int]):
    offs = ct.arange(B, dtype=ct.int32)
    before = x.get_raw_memory().atomic_cas_offset(offs, 0, 42, mask=offs < n,
                                                  memory_order=ct.MemoryOrder.RELAXED)
    old.get_raw_memory().store_offset(offs, before)
'''


def test_compare_and_swap_returns_expected_on_masked_lanes(convert, convert_text, device):
    assert '"relaxed"' in convert_text(CAS)  # memory_order: the helper's sem
    mod = convert(CAS)
    x = torch.tensor([0, 1, 0, 1, 0, 0, 5, 0], dtype=torch.int32, device=device)
    old = torch.full((8,), -1, dtype=torch.int32, device=device)
    mod.launch_k(0, (1,), (x, old, 6, 8))
    assert x.tolist() == [42, 1, 42, 1, 42, 42, 5, 0]
    assert old.tolist() == [0, 1, 0, 1, 0, 0, 0, 0]  # the last two masked off: `expected`


def _kernel(body):
    return f'''
import cuda.tile as ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    raw = x.get_raw_memory()
    offs = ct.arange(B, dtype=ct.int32)
    {body}
'''


@pytest.mark.parametrize("body, message", [
    ("t = ct.load(raw, (0,), shape=(B,))", "not its raw memory (x.get_raw_memory())"),
    ("n = raw.shape[0]", "has no attribute 'shape'"),
    ("t = raw.load_offset(ct.arange(B, dtype=ct.float32))", "the offset must be an integer tile or scalar"),
    ("t = raw.load_offset(offs, mask=ct.full((B, B), True, dtype=ct.bool_))", "does not broadcast to the shape of the offset"),
    ("raw.store_offset(0, ct.zeros((B,), dtype=ct.float32))", "the value (a 1-d tile of float32) does not broadcast"),
    ("t = x.load_offset(offs)", "works on the raw memory of an array"),
    ("t = raw.get_raw_memory()", "not its raw memory"),
    ("if ct.bid(0) > 4:\n        m = raw\n    else:\n        m = x\n    t = m.load_offset(offs)",
     "raw memory of an array (x.get_raw_memory()) in one branch"),
])
def test_what_raw_memory_cannot_do_is_a_located_error(convert_error, body, message):
    assert message in convert_error(_kernel(body))


def test_the_raw_memory_kernels_here_are_valid_cutile(cutile_export):
    """Real cuTile 1.7 compiles the kernels above for sm_100 (where cuda.tile and tileiras are
    importable)."""
    ct, array = cutile_export.ct, cutile_export.array
    f32, i32 = array(ct.float32, 1), array(ct.int32, 1)
    assert cutile_export.cubin_size(COPY, [f32, f32, f32, 40, 16]) > 0
    assert cutile_export.cubin_size(SHAPES, [array(ct.float32, 2), array(ct.float32, 2), f32, 4, 8]) > 0
    assert cutile_export.cubin_size(VIEW, [i32, i32, 4, 16]) > 0
    for op in OPS:
        assert cutile_export.cubin_size(ATOMICS.replace("atomic_OP_offset", f"atomic_{op}_offset"),
                                        [i32, i32, i32, 11, 16]) > 0
    assert cutile_export.cubin_size(CAS, [i32, i32, 6, 8]) > 0
