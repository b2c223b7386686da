"""Tensor descriptors made by the launcher (lower_memory.c: take_host_descriptors).

tl.make_tensor_descriptor has each program write its descriptor to global memory and fence
before its first TMA load: on the H200 about 3 us that a short program pays in full (a decode
step of 128 programs took 7.3 us so, 4.1 with descriptors made on the host and passed as
arguments, which is how cuTile gives its kernels theirs). In a kernel that multiplies matrices,
a descriptor of a whole array parameter whose block shape the launcher knows (constants and
constexpr parameters) is therefore made by the launcher (_host_descriptor) where the array
suits TMA, else None: the kernel's condition asks that it was given, and takes its pointers
otherwise. Other descriptors are made in the kernel as before.
"""

import re
from pathlib import Path

import torch

GEMM = '''
import cuda.tile as ct


@ct.kernel
def gemm(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(ct.bid(0), k), shape=(BM, BK), padding_mode=ct.PaddingMode.{padding})
        y = ct.load(b, index=(k, ct.bid(1)), shape=(BK, 2 * BN // 2), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=acc.astype(c.dtype))
'''


def _spy(mod):
    """Records what each _host_descriptor call of the module made."""
    made = []
    real = mod._host_descriptor

    def spy(tensor, block_shape, padding="zero"):
        descriptor = real(tensor, block_shape, padding)
        made.append((tensor, list(block_shape), padding, descriptor))
        return descriptor

    mod._host_descriptor = spy
    return made


def test_a_product_kernel_takes_its_descriptors_from_the_launcher(convert, convert_text):
    text = convert_text(GEMM.format(padding="ZERO"))
    kernel, launcher = text.split("def launch_gemm(")
    made_here = [line for line in kernel.split("def gemm(")[1].splitlines() if "make_tensor_descriptor" in line]
    # only the K-major copy's, which a float8 launch stages (lower_memory_kmajor.c; else compiled out)
    assert all("b_kmajor_desc_" in line for line in made_here), made_here
    assert re.search(r"a_desc_\d+_ok: tl\.constexpr = \(\s+a_desc_\d+ is not None\s+and _use_tma\s+and a_tma", kernel)
    assert re.search(r"a_desc_\d+=_host_descriptor\(a, \[BM, BK\]\) if a_tma else None", launcher)
    assert re.search(r"b_desc_\d+=_host_descriptor\(b, \[BK, 2 \* BN // 2\]\) if b_tma else None", launcher)
    assert "a_tma=(a_tma := _tma_compatible(a))" in launcher
    assert "from triton.tools.tensor_descriptor import TensorDescriptor" in text
    mod = convert(GEMM.format(padding="ZERO"))
    made = _spy(mod)
    a = torch.randn(48, 64).half()  # rows of 128 bytes: TMA can address them
    b = torch.randn(64, 32).half()
    c = torch.zeros(48, 32).half()
    mod.launch_gemm(0, (3, 2), (a, b, c, 16, 16, 16))
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=1e-2)
    # the operands and the output, through the descriptors made here
    assert [(t, block) for t, block, _, d in made if d is not None] == [(a, [16, 16]), (b, [16, 16]), (c, [16, 16])]


def test_an_array_tma_cannot_address_takes_the_pointer_path(convert):
    mod = convert(GEMM.format(padding="ZERO"))
    made = _spy(mod)
    a = torch.randn(48 * 64 + 1).half()[1:].view(48, 64)  # 2 bytes off a 16-byte boundary
    b = torch.randn(64, 32).half()
    c = torch.zeros(48, 32).half()
    mod.launch_gemm(0, (3, 2), (a, b, c, 16, 16, 16))
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=1e-2)
    assert [t is a for t, _, _, _ in made] == [False, False]  # a's was never asked for: None


def test_nan_padding_is_the_descriptors(convert):
    mod = convert(GEMM.format(padding="NAN"))
    made = _spy(mod)
    a = torch.randn(40, 64).half()  # the last row tile reads 8 rows past the end: NaN
    b = torch.randn(64, 32).half()
    c = torch.zeros(48, 32).half()
    mod.launch_gemm(0, (3, 2), (a, b, c[:40], 16, 16, 16))
    assert [padding for t, _, padding, _ in made if t is a] == ["nan"]
    torch.testing.assert_close(c[:40].float(), a.float() @ b.float(), rtol=1e-2, atol=1e-2)


def test_an_empty_array_gets_no_descriptor(convert):
    mod = convert(GEMM.format(padding="ZERO"))
    assert mod._host_descriptor(torch.zeros(0, 64).half(), [16, 16]) is None
    made = mod._host_descriptor(torch.zeros(32, 64).half(), [16, 32], "nan")
    got = (tuple(made.shape), tuple(made.strides), made.block_shape, made.padding)
    assert got == ((32, 64), (64, 1), [16, 32], "nan")


def test_the_launch_key_holds_a_descriptors_dtype_and_block(convert):
    """Triton compiles a kernel per descriptor dtype and block shape (its tensordesc<...>
    signature), not per address or shape: so does the key of a kept launch."""
    mod = convert(GEMM.format(padding="ZERO"))
    x, y = torch.zeros(32, 64).half(), torch.zeros(64, 64).half()
    key = mod._launch_key
    same = key([mod._host_descriptor(x, [16, 16])]) == key([mod._host_descriptor(y, [16, 16])])
    assert same
    assert key([mod._host_descriptor(x, [16, 16])]) != key([mod._host_descriptor(x, [16, 32])])
    assert key([mod._host_descriptor(x, [16, 16])]) != key([mod._host_descriptor(x.float(), [16, 16])])
    assert key([None]) != key([mod._host_descriptor(x, [16, 16])])


RELU_2D = '''
import cuda.tile as ct


@ct.kernel
def relu2d(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(BM, BN))
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=ct.where(t > 0, t, 0))
'''

MODULE_BLOCK = '''
import cuda.tile as ct

TILE = 16


@ct.kernel
def gemm(a, b, c, BN: ct.Constant[int]):
    acc = ct.zeros((TILE, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TILE, TILE))):
        x = ct.load(a, index=(ct.bid(0), k), shape=(TILE, TILE))
        y = ct.load(b, index=(k, 0), shape=(TILE, BN))
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(ct.bid(0), 0), tile=acc.astype(c.dtype))
'''

LOCAL_BLOCK = MODULE_BLOCK.replace("TILE = 16\n", "").replace("):\n    acc", "):\n    TILE = BN // 2\n    acc", 1)


def test_a_block_of_module_constants_is_their_value_in_the_launcher(convert, convert_text):
    text = convert_text(MODULE_BLOCK)
    launcher = text.split("def launch_gemm(")[1]
    assert "a_desc_1=_host_descriptor(a, [16, 16]) if a_tma else None" in launcher
    assert "b_desc_2=_host_descriptor(b, [16, BN]) if b_tma else None" in launcher
    mod = convert(MODULE_BLOCK)
    a, b, c = torch.randn(32, 64).half(), torch.randn(64, 16).half(), torch.zeros(32, 16).half()
    mod.launch_gemm(0, (2,), (a, b, c, 16))
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=1e-2)


def test_other_descriptors_are_made_in_the_kernel(convert, convert_text):
    """Without a product the default path is pointers (descriptors not reused: not worth a
    launch's host time); a block shape of a local is the kernel's to compute."""
    for source in (RELU_2D, LOCAL_BLOCK):
        text = convert_text(source)
        assert "_host_descriptor" not in text and "tl.make_tensor_descriptor(" in text
    mod = convert(LOCAL_BLOCK)
    a, b, c = torch.randn(32, 64).half(), torch.randn(64, 32).half(), torch.zeros(32, 32).half()
    mod.launch_gemm(0, (2,), (a, b, c, 32))
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=1e-2)


TILE_FUNCTION = '''
import cuda.tile as ct


@ct.function
def product(a, b, i, j, BM, BN, BK):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        acc = ct.mma(ct.load(a, index=(i, k), shape=(BM, BK)), ct.load(b, index=(k, j), shape=(BK, BN)), acc)
    return acc


@ct.kernel
def gemm(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = product(a, b, ct.bid(0), ct.bid(1), BM, BN, BK) + product(a, b, ct.bid(0), ct.bid(1), BM, BN, BK // 2)
    for repeat in range(2):
        acc += product(a, b, ct.bid(0), ct.bid(1), BM, BN, BK)
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=acc.astype(c.dtype))
'''


def test_a_tile_function_takes_the_descriptors_its_kernel_is_given(convert, convert_text):
    """A tile function (TileGym's kernels are often a call of one) makes a descriptor only where
    its caller gives None; a kernel's call outside loops passes the kernel's own, which its
    launcher makes, in the kernel's terms (one per block shape); a call in a loop passes None."""
    text = convert_text(TILE_FUNCTION)
    function, kernel = text.split("def product(")[1].split("def gemm(")
    assert re.search(r"if a_desc_\d+_ok and a_desc_\d+ is None:\n\s+a_desc_\d+ = tl\.make_tensor_descriptor", function)
    launcher = kernel.split("def launch_gemm(")[1]
    blocks = re.findall(r"(\w)_host_desc_\d+=_host_descriptor\(\w, \[([^]]*)\]\)", launcher)
    assert blocks == [("a", "BM, BK"), ("b", "BK, BN"), ("a", "BM, BK // 2"), ("b", "BK // 2, BN")]
    in_loop = kernel.split("for repeat in")[1].split("def launch_gemm(")[0]
    assert "_host_desc_" not in in_loop and re.search(r"None,\s+None,\s+\)", in_loop)  # a call in a loop
    mod = convert(TILE_FUNCTION)
    made = _spy(mod)
    a, b = torch.randn(32, 64).half(), torch.randn(64, 32).half()
    c = torch.zeros(32, 32).half()
    mod.launch_gemm(0, (2, 2), (a, b, c, 16, 16, 32))
    torch.testing.assert_close(c.float(), 4 * (a.float() @ b.float()), rtol=1e-2, atol=5e-2)
    assert sorted((t is a, block) for t, block, _, d in made if d is not None and t is not c) == \
        [(False, [16, 16]), (False, [32, 16]), (True, [16, 16]), (True, [16, 32])]


def test_a_tile_function_of_a_kernel_without_products_makes_its_own(convert, convert_text):
    source = TILE_FUNCTION.replace("acc = ct.mma(ct.load(a, index=(i, k), shape=(BM, BK)), "
                                   "ct.load(b, index=(k, j), shape=(BK, BN)), acc)",
                                   "acc += ct.load(a, index=(i, k), shape=(BM, BN))")
    text = convert_text(source)
    assert "_host_descriptor(" not in text and "_host_desc_" not in text
    mod = convert(source)
    a, c = torch.randn(32, 64), torch.zeros(32, 32)
    mod.launch_gemm(0, (2, 2), (a, a, c, 16, 16, 32))
    tiles = a.view(32, 4, 16)  # column tile k of each row: tiles[:, k]
    # BK=32 sums tiles 0 and 1 (three calls); BK//2=16 sums all four (one call)
    row = 4 * (tiles[:, 0] + tiles[:, 1]) + tiles[:, 2] + tiles[:, 3]
    torch.testing.assert_close(c, torch.cat([row, row], 1), rtol=1e-4, atol=1e-4)


# TILE_FUNCTION's product, called by two kernels
TWO_KERNELS = TILE_FUNCTION.split("@ct.kernel")[0] + '''@ct.kernel
def gemm(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=product(a, b, ct.bid(0), ct.bid(1), BM, BN, BK).astype(c.dtype))


@ct.kernel
def gemm_relu(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = product(a, b, ct.bid(0), ct.bid(1), BM, BN, BK)
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=ct.maximum(acc, 0).astype(c.dtype))
'''


def test_a_second_kernel_calling_a_product_function_is_a_product_kernel_too(convert, convert_text):
    """The tile function is converted once, for the first kernel's call; the second kernel
    calling it multiplies matrices as well: it is tuned as one (dot=True) and its launcher makes
    the descriptors (it was tuned as an elementwise kernel, descriptors made per program)."""
    text = convert_text(TWO_KERNELS)
    first, second = text.split("def launch_gemm(")[1].split("def launch_gemm_relu(")
    for launcher in (first, second):
        assert "a_host_desc_1=_host_descriptor(a, [BM, BK]) if a_tma else None" in launcher
    assert text.count("dot=True") == 2
    mod = convert(TWO_KERNELS)
    a, b = torch.randn(32, 64).half(), torch.randn(64, 32).half()
    product = a.float() @ b.float()
    for launch, want in ((mod.launch_gemm, product), (mod.launch_gemm_relu, product.relu())):
        c = torch.zeros(32, 32).half()
        launch(0, (2, 2), (a, b, c, 16, 16, 32))
        torch.testing.assert_close(c.float(), want, rtol=1e-2, atol=5e-2)


WIDE = '''
import cuda.tile as ct


@ct.kernel
def attend(q, kv, out, TN: ct.Constant[int], TD: ct.Constant[int]):
    # MLA decoding's shape of product: K/V tiles of TN x TD with TD = 512, wider than a TMA box
    acc = ct.zeros((16, TD), dtype=ct.float32)
    x = ct.load(q, index=(ct.bid(0), 0), shape=(16, TD), padding_mode=ct.PaddingMode.ZERO)
    for n in range(ct.num_tiles(kv, axis=0, shape=(TN, TD))):
        k = ct.load(kv, index=(n, 0), shape=(TN, TD), padding_mode=ct.PaddingMode.ZERO)
        p = ct.mma(x, ct.transpose(k), ct.zeros((16, TN), dtype=ct.float32))
        acc = ct.mma(p.astype(kv.dtype), k, acc)
    ct.store(out, index=(ct.bid(0), 0), tile=acc.astype(out.dtype))


@ct.kernel
def row_sums(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for n in range(ct.num_tiles(x, axis=1, shape=(TM, TN))):
        acc += ct.load(x, index=(ct.bid(0), n), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    ct.store(out, index=(ct.bid(0),), tile=ct.sum(acc, axis=1))
'''


def test_tiles_wider_than_a_tma_box_take_descriptors(convert, convert_text):
    # Triton 3.6 copies a block over 256 elements a dimension in several TMA boxes (a 32 x 512
    # float16 block: boxes of 32 x 64 on sm_90): such tiles take descriptors (they took
    # pointers: TileGym's MLA decoding ran its 128 x 512 K/V tiles unpipelined through them, 0.64x
    # real cuTile on an H100, 0.88x with descriptors), up to 128 KiB a tile
    text = convert_text(WIDE)
    assert "<= 256" not in text
    assert re.search(r"kv_desc_\d+=_host_descriptor\(kv, \[TN, TD\]\) if kv_tma else None", text)
    assert re.search(r"TN \* TD \* \(kv\.dtype\.element_ty\.primitive_bitwidth // 8\) <= 131072", text)
    assert re.search(r"x_desc_\d+ = tl\.make_tensor_descriptor\(", text)
    mod = convert(WIDE)
    made = _spy(mod)
    q = torch.randn(32, 512).half() / 8
    kv = torch.randn(40, 512).half() / 8  # 40 rows: the last 32-row tile runs past the end
    out = torch.zeros(32, 512).half()
    mod.launch_attend(0, (2,), (q, kv, out, 32, 512))
    assert [(block, d is not None) for t, block, _, d in made if t is kv] == [([32, 512], True)]
    p = (q.float() @ kv.float().T).half().float()
    torch.testing.assert_close(out.float(), p @ kv.float(), rtol=2e-2, atol=2e-2)
    x = torch.randn(48, 1000)  # float32 rows of 4000 bytes, 16-byte aligned; 1000 = 512 + 488
    sums = torch.zeros(48)
    mod.launch_row_sums(0, (3,), (x, sums, 16, 512))
    torch.testing.assert_close(sums, x.sum(1), rtol=1e-5, atol=1e-4)
    big = torch.randn(16, 2048)  # a 16 x 2048 float32 tile is 128 KiB: the largest a descriptor takes
    sums = torch.zeros(16)
    mod.launch_row_sums(0, (1,), (big, sums, 16, 2048))
    torch.testing.assert_close(sums, big.sum(1), rtol=1e-5, atol=1e-3)
    wider = torch.randn(16, 4096)  # 256 KiB a tile: its pointers
    sums = torch.zeros(16)
    mod.launch_row_sums(0, (1,), (wider, sums, 16, 4096))
    torch.testing.assert_close(sums, wider.sum(1), rtol=1e-5, atol=1e-3)


# a product scaled by a (1, BM, 1) column of a 3-D array (the compile tests' case)
SCALED_GEMM = (Path(__file__).resolve().parents[1] / "compile" / "cases" / "narrow_column.py").read_text()


def test_a_block_narrower_than_16_bytes_gets_no_descriptor(convert):
    """The driver refuses a TMA box whose last dimension spans less than 16 bytes when the
    launch encodes the descriptor ("Failed to create tensor map descriptor: invalid
    argument", blockSize=[1, 64, 1] of a bfloat16 (16, T, 8) array: TileGym's
    chunk_gated_delta_rule on the H100), though the kernel's condition sends such a tile
    through pointers; the interpreter does not check it. The launcher gives None."""
    mod = convert(SCALED_GEMM)
    assert mod._host_descriptor(torch.zeros(2, 64, 8).half(), [1, 64, 1]) is None
    assert mod._host_descriptor(torch.zeros(2, 64, 8).half(), [1, 64, 8]) is not None  # 16 bytes
    assert mod._host_descriptor(torch.zeros(2, 64, 4).float(), [1, 64, 4]) is not None
    made = _spy(mod)
    a, b = torch.randn(32, 64).half(), torch.randn(64, 32).half()
    s = torch.randn(2, 32, 8).half()
    c = torch.zeros(32, 32).half()
    mod.launch_narrow_column_kernel(0, (2, 2), (a, b, s, c, 16, 16, 16))
    expected = (a.float() @ b.float()) * s[0, :, 1:2].float()
    torch.testing.assert_close(c.float(), expected, rtol=1e-2, atol=1e-2)
    given = {id(t): d for t, _, _, d in made}
    assert given[id(a)] is not None and given[id(c)] is not None
    assert id(s) in given and given[id(s)] is None


# the output's rank is the branch's: a 3-D tile of a batched output, else a 2-D one (TileGym's
# flash decode stores its split outputs so, in a tile function its kernel calls)
RANK_IN_BRANCH = '''
import cuda.tile as ct


@ct.function
def product_into(a, b, c, BM, BN, K, BATCHED):
    acc = ct.mma(ct.load(a, index=(ct.bid(0), 0), shape=(BM, K)), ct.load(b, index=(0, 0), shape=(K, BN)),
                 ct.zeros((BM, BN), dtype=ct.float32))
    if BATCHED:
        ct.store(c, index=(0, ct.bid(0), 0), tile=ct.reshape(acc.astype(c.dtype), (1, BM, BN)))
    else:
        ct.store(c, index=(ct.bid(0), 0), tile=acc.astype(c.dtype))


@ct.kernel
def gemm(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], K: ct.Constant[int], BATCHED: ct.Constant[bool]):
    acc = ct.mma(ct.load(a, index=(ct.bid(0), 0), shape=(BM, K)), ct.load(b, index=(0, 0), shape=(K, BN)),
                 ct.zeros((BM, BN), dtype=ct.float32))
    if BATCHED:
        ct.store(c, index=(0, ct.bid(0), 0), tile=ct.reshape(acc.astype(c.dtype), (1, BM, BN)))
    else:
        ct.store(c, index=(ct.bid(0), 0), tile=acc.astype(c.dtype))


@ct.kernel
def gemm_called(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], K: ct.Constant[int],
                BATCHED: ct.Constant[bool]):
    product_into(a, b, c, BM, BN, K, BATCHED)
'''


def test_an_array_whose_rank_a_branch_learns_gets_descriptors_of_that_rank(convert, convert_text):
    """An array whose rank is learnt under a constexpr `if` may have another rank at another
    launch: its launcher makes the descriptor only for an array of the branch's rank, else
    None (the kernel then makes its own, of the rank it has). Such descriptors were made by
    each program: TileGym's flash decode, 16 programs of one 128-key tile each, 6.7 us
    against real cuTile's 5.1 on an H100."""
    text = convert_text(RANK_IN_BRANCH)
    for launcher in text.split("def launch_gemm")[1:]:
        assert re.search(r"c_(host_)?desc_\d+=_host_descriptor\(c, \[1, BM, BN\]\) if c_tma and c\.dim\(\) == 3 "
                         r"else None", launcher)
        assert re.search(r"c_(host_)?desc_\d+=_host_descriptor\(c, \[BM, BN\]\) if c_tma and c\.dim\(\) == 2 "
                         r"else None", launcher)
        assert re.search(r"a_(host_)?desc_\d+=_host_descriptor\(a, \[BM, K\]\) if a_tma else None", launcher)
    mod = convert(RANK_IN_BRANCH)
    made = _spy(mod)
    a, b = torch.randn(32, 16).half(), torch.randn(16, 16).half()
    want = a.float() @ b.float()
    for launch in (mod.launch_gemm, mod.launch_gemm_called):
        for batched in (True, False):
            made.clear()
            c = torch.zeros((1, 32, 16) if batched else (32, 16)).half()
            launch(0, (2,), (a, b, c, 16, 16, 16, batched))
            torch.testing.assert_close(c.float().view(32, 16), want, rtol=1e-2, atol=1e-2)
            blocks = [block for t, block, _, d in made if t is c and d is not None]
            assert blocks == ([[1, 16, 16]] if batched else [[16, 16]]), blocks
