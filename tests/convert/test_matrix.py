"""Matrix products: ct.mma, ct.matmul, `@`, tfloat32 and fp8 operands (CUTILE-SEMANTICS §3.5, traps 6-8).

Each test converts a small kernel that loads tiles, multiplies them and stores the result, and
runs it under the Triton interpreter against torch. The interpreter ignores tl.dot's input
precision, so the tests that matter for it (true float32 vs tf32) read the generated code.
"""
import re

import pytest
import torch

MMA = """
import cuda.tile as ct

@ct.kernel
def k(x, y, acc_in, out, M: ct.Constant[int], K: ct.Constant[int], N: ct.Constant[int]):
    a = ct.load(x, index=(0, 0), shape=(M, K))
    b = ct.load(y, index=(0, 0), shape=(K, N))
    acc = ct.load(acc_in, index=(0, 0), shape=(M, N))
    ct.store(out, index=(0, 0), tile={expr})
"""

TORCH = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
         "float64": torch.float64, "int8": torch.int8, "uint8": torch.uint8, "int32": torch.int32}


def operands(dtype, m, k, n):
    if dtype in (torch.int8, torch.uint8):
        low = 0 if dtype == torch.uint8 else -100
        return (torch.randint(low, 100, (m, k)).to(dtype), torch.randint(low, 100, (k, n)).to(dtype))
    return torch.randn(m, k).to(dtype), torch.randn(k, n).to(dtype)


def run_mma(convert, expr, a, b, acc, out_dtype):
    mod = convert(MMA.format(expr=expr))
    out = torch.zeros(acc.shape, dtype=out_dtype)
    mod.launch_k(0, (1,), (a, b, acc, out, a.shape[0], a.shape[1], b.shape[1]))
    return out


@pytest.mark.parametrize("xd,accd", [("float16", "float32"), ("float16", "float16"), ("bfloat16", "float32"),
                                     ("float32", "float32"), ("float64", "float64"), ("int8", "int32"),
                                     ("uint8", "int32")])
@pytest.mark.parametrize("k", [32, 8])
def test_mma_each_dtype_row(convert, xd, accd, k):
    a, b = operands(TORCH[xd], 16, k, 16)
    acc = (torch.randint(-5, 5, (16, 16)) if accd == "int32" else torch.randn(16, 16)).to(TORCH[accd])
    out = run_mma(convert, "ct.mma(a, b, acc)", a, b, acc, TORCH[accd])
    if accd == "int32":
        assert torch.equal(out, a.to(torch.int64) @ b.to(torch.int64) + acc)  # exact, uint8 included
    else:
        want = a.double() @ b.double() + acc.double()
        tol = {"float16": 5e-2, "float32": 1e-4, "float64": 1e-10}[accd]
        torch.testing.assert_close(out.double(), want, rtol=tol, atol=tol * k)


def test_mma_int8_with_uint8(convert):
    # cuTile mixes int8 with uint8; tl.dot takes int8 only
    a = torch.randint(-128, 127, (16, 64)).to(torch.int8)
    b = torch.randint(0, 255, (64, 16)).to(torch.uint8)
    acc = torch.zeros(16, 16, dtype=torch.int32)
    for x, y in [(a, b), (b.T.contiguous(), a.T.contiguous())]:
        out = run_mma(convert, "ct.mma(a, b, acc)", x, y, acc, torch.int32)
        assert torch.equal(out, (x.to(torch.int64) @ y.to(torch.int64)).to(torch.int32))


def test_float32_is_true_float32_and_tfloat32_is_tf32(convert_text):
    text = convert_text(MMA.format(expr="ct.mma(a.astype(ct.float32), b.astype(ct.float32), acc.astype(ct.float32))"))
    assert 'input_precision="ieee"' in text and "tf32" not in re.sub(r'"""[\s\S]*?"""', "", text.split("def launch_k")[0])
    text = convert_text(MMA.format(
        expr="ct.mma(a.astype(ct.tfloat32), b.astype(ct.tfloat32), acc.astype(ct.float32))"))
    assert 'input_precision="tf32"' in text


def test_tfloat32_chosen_at_launch(convert, convert_text):
    source = """
import cuda.tile as ct

@ct.kernel
def k(x, y, out, M: ct.Constant[int], K: ct.Constant[int], N: ct.Constant[int]):
    dtype = ct.tfloat32 if x.dtype == ct.float32 else x.dtype
    a = ct.load(x, index=(0, 0), shape=(M, K)).astype(dtype)
    b = ct.load(y, index=(0, 0), shape=(K, N))
    b = ct.astype(b, ct.tfloat32) if b.dtype == ct.float32 else b
    acc = ct.mma(a, b, ct.zeros((M, N), dtype=ct.float32))
    ct.store(out, index=(0, 0), tile=acc)
"""
    text = convert_text(source)
    assert 'input_precision="tf32" if x.dtype.element_ty == tl.float32 else "ieee"' in text
    mod = convert(source)
    for dtype in [torch.float32, torch.float16]:
        a, b = operands(dtype, 16, 32, 16)
        out = torch.zeros(16, 16)
        mod.launch_k(0, (1,), (a, b, out, 16, 32, 16))
        torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("spelling", ["a.astype(ct.tfloat32)", "ct.astype(a, dtype)"])
def test_tfloat32_operands_round_to_nearest_even(convert, spelling):
    # cuTile's astype to tfloat32 rounds to nearest, ties to even (sm_80+ tf32 products
    # truncate float32 operands instead). A product with the identity gives the rounded
    # operand exactly: each value below sits at or next to a tf32 rounding point.
    source = f"""
import cuda.tile as ct

@ct.kernel
def k(x, y, out, M: ct.Constant[int], K: ct.Constant[int], N: ct.Constant[int]):
    dtype = ct.tfloat32 if x.dtype == ct.float32 else x.dtype
    a = ct.load(x, index=(0, 0), shape=(M, K))
    a = {spelling}
    b = ct.load(y, index=(0, 0), shape=(K, N)).astype(ct.tfloat32)
    ct.store(out, index=(0, 0), tile=ct.mma(a, b, ct.zeros((M, N), dtype=ct.float32)))
"""
    u = 2.0**-10  # tf32's step in [1, 2)
    cases = [(1 + u / 2, 1.0), (1 + u / 2 + 2.0**-20, 1 + u), (1 + 3 * u / 2, 1 + 2 * u), (1 + u - 2.0**-23, 1 + u),
             (-(1 + u / 2 + 2.0**-20), -(1 + u)), (3 * 2.0**-130 + 2.0**-137, 3 * 2.0**-130), (2.0**-137, 0.0),
             (1 + 5 * u / 2, 1 + 2 * u), (1 + 7 * u / 2, 1 + 4 * u)]
    values = torch.tensor([c[0] for c in cases] * 2 + [1.0] * (32 - 2 * len(cases)), dtype=torch.float32)
    want = torch.tensor([c[1] for c in cases] * 2 + [1.0] * (32 - 2 * len(cases)), dtype=torch.float32)
    a = values.reshape(16, 2).repeat(1, 8)  # 16 x 16
    eye = torch.eye(16)
    out = torch.zeros(16, 16)
    convert(source).launch_k(0, (1,), (a, eye, out, 16, 16, 16))
    assert torch.equal(out, want.reshape(16, 2).repeat(1, 8))


def test_fast_accumulation_only_with_use_fast_acc(convert_text):
    text = convert_text(MMA.format(expr="ct.mma(a, b, acc)"))
    assert "use_fast_acc=False" in text  # fp8 promoted once per product (Triton's sm_90 default: never)
    assert "max_num_imprecise_acc=IMPRECISE" in text and "K if x.dtype.is_fp8() and not use_fast_acc" in text
    text = convert_text(MMA.format(expr="ct.mma(a, b, acc, use_fast_acc=True)"))
    assert "use_fast_acc=True" in text
    # a Constant parameter: decided when Triton compiles
    source = MMA.format(expr="ct.mma(a, b, acc, use_fast_acc=FAST)").replace("N: ct.Constant[int]",
                                                                           "N: ct.Constant[int], FAST: ct.Constant[bool]")
    assert "use_fast_acc=FAST" in convert_text(source)


MATMUL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, out, XS: ct.Constant[int], YS: ct.Constant[int], {params}):
    a = ct.load(x, index={xi}, shape={xs})
    b = ct.load(y, index={yi}, shape={ys})
    ct.store(out, index={oi}, tile={expr})
"""


def zeros_index(shape):
    return "(" + ", ".join("0" for _ in shape) + ("," if len(shape) == 1 else "") + ")"


def run_matmul(convert, expr, a, b, out_shape, out_dtype):
    source = MATMUL.format(params="Z: ct.Constant[int]", xi=zeros_index(a.shape), xs=tuple(a.shape),
                           yi=zeros_index(b.shape), ys=tuple(b.shape), oi=zeros_index(out_shape) if out_shape else "()",
                           expr=expr)
    if not out_shape:
        source = source.replace("ct.store(out, index=(), tile=", "ct.store(out, index=(0,), tile=ct.reshape(")
        source = source.replace(expr + ")", expr + ", (1,)))")
    mod = convert(source)
    out = torch.zeros(out_shape or (1,), dtype=out_dtype)
    mod.launch_k(0, (1,), (a, b, out, 0, 0, 0))
    return out


@pytest.mark.parametrize("expr", ["a @ b", "ct.matmul(a, b)"])
def test_matmul_float16_accumulates_in_float16(convert, expr):
    a = torch.full((16, 64), 1.0, dtype=torch.float16)
    b = torch.full((64, 16), 1.0 + 2 ** -10, dtype=torch.float16)  # 64 * (1 + 2^-10) is not a float16
    out = run_matmul(convert, expr, a, b, (16, 16), torch.float16)
    torch.testing.assert_close(out.float(), (a.float() @ b.float()).half().float(), rtol=2e-3, atol=0.07)


def test_matmul_int8_is_cast_back_to_int8(convert):
    a = torch.full((16, 32), 10, dtype=torch.int8)
    b = torch.full((32, 16), 10, dtype=torch.int8)
    out = run_matmul(convert, "a @ b", a, b, (16, 16), torch.int8)
    assert torch.equal(out, (a.to(torch.int32) @ b.to(torch.int32)).to(torch.int8))  # 3200 wraps to -128


def test_matmul_promotes_operands(convert):
    a = torch.randn(16, 32, dtype=torch.float32)
    b = torch.randn(32, 16).half()
    out = run_matmul(convert, "a @ b", a, b, (16, 16), torch.float32)
    torch.testing.assert_close(out, a @ b.float(), rtol=1e-4, atol=1e-4)


def test_matmul_of_vectors(convert):
    v = torch.randn(32)
    m = torch.randn(32, 16)
    torch.testing.assert_close(run_matmul(convert, "a @ b", v, m, (16,), torch.float32), v @ m, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(run_matmul(convert, "a @ b", m.T.contiguous(), v, (16,), torch.float32), m.T @ v,
                               rtol=1e-4, atol=1e-4)
    w = torch.randn(32)
    torch.testing.assert_close(run_matmul(convert, "a @ b", v, w, (), torch.float32), (v @ w).reshape(1),
                               rtol=1e-4, atol=1e-4)


def test_batched_3d_with_2d_broadcast(convert):
    a = torch.randn(2, 16, 32)
    b = torch.randn(32, 16)
    torch.testing.assert_close(run_matmul(convert, "a @ b", a, b, (2, 16, 16), torch.float32), a @ b,
                               rtol=1e-4, atol=1e-4)
    acc = "ct.zeros((2, 16, 16), dtype=ct.float32)"
    torch.testing.assert_close(run_matmul(convert, f"ct.mma(a, b, {acc})", a, b, (2, 16, 16), torch.float32),
                               a @ b, rtol=1e-4, atol=1e-4)
    c = torch.randn(1, 32, 16)
    torch.testing.assert_close(run_matmul(convert, "ct.matmul(a, b)", a, c, (2, 16, 16), torch.float32), a @ c,
                               rtol=1e-4, atol=1e-4)


def test_transposed_operand_feeds_the_product(convert):
    q = torch.randn(16, 32)
    kk = torch.randn(16, 32)
    out = run_matmul(convert, "ct.mma(a, ct.transpose(b), ct.zeros((16, 16), dtype=ct.float32))", q, kk, (16, 16),
                     torch.float32)
    torch.testing.assert_close(out, q @ kk.T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("expr,message", [
    ("ct.mma(a.astype(ct.bfloat16), b.astype(ct.bfloat16), acc.astype(ct.float16))", "takes a float32 accumulator"),
    ("ct.mma(a.astype(ct.float16), b.astype(ct.float32), acc.astype(ct.float32))", "same dtype"),
    ("ct.mma(a.astype(ct.int8), b.astype(ct.int8), acc.astype(ct.float32))", "int32 accumulator"),
    ("ct.mma(a.astype(ct.int16), b.astype(ct.int16), acc.astype(ct.int32))", "no matrix product of int16"),
    ("ct.mma(a.astype(ct.float16), b.astype(ct.float16), acc.astype(ct.float32), use_fast_acc=True)",
     "use_fast_acc needs float8"),
    ("a.astype(ct.tfloat32) + 1.0", "no arithmetic on tfloat32"),
    ("ct.mma(a.astype(ct.tfloat32), b.astype(ct.float32), acc.astype(ct.float32))", "same dtype"),
    ("ct.mma(a, b, ct.zeros((4, 4), dtype=ct.float32))", "acc's dimension"),
    ("ct.mma(a, ct.zeros((16, 16), dtype=ct.float32), acc)", "do not multiply"),
    ("ct.mma_scaled(a, a, b, b, acc)", "with scaling block size B = K // K_s in {16, 32}, got x.shape[1] = 32"),
])
def test_rejected_as_cutile_rejects(convert_error, expr, message):
    source = MMA.replace("shape=(M, K)", "shape=(8, 32)").replace("shape=(K, N)", "shape=(32, 8)")
    source = source.replace("shape=(M, N)", "shape=(8, 8)")
    assert message in convert_error(source.format(expr=expr))


def test_dtype_rules_checked_at_triton_compile_time(convert):
    # dtypes known only at launch: cuTile's table is checked when Triton compiles the kernel
    mod = convert(MMA.format(expr="ct.mma(a, b, acc)"))
    a, b = operands(torch.bfloat16, 16, 32, 16)
    with pytest.raises(Exception, match="accumulator dtype"):
        mod.launch_k(0, (1,), (a, b, torch.zeros(16, 16).half(), torch.zeros(16, 16).half(), 16, 32, 16))


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_operands(convert, convert_text, name):
    if not hasattr(torch, name):
        pytest.skip("no float8 in this torch")
    source = MMA.format(expr="ct.mma(a, b, acc)")
    mod = convert(source)
    fp8 = getattr(torch, name)
    a, b = torch.randn(16, 32).to(fp8), torch.randn(32, 16).to(fp8)
    for acc_dtype in [torch.float32, torch.float16]:
        acc = torch.randn(16, 16).to(acc_dtype)
        out = run_mma(convert, "ct.mma(a, b, acc)", a, b, acc, acc_dtype)
        want = a.float() @ b.float() + acc.float()
        torch.testing.assert_close(out.float(), want, rtol=1e-2, atol=5e-2)
    # astype to fp8 names Triton's fp8 dtypes (the interpreter's own fp32 -> fp8 rounding differs from
    # the GPU's, so this one is read, not run)
    text = convert_text(MMA.format(expr=f"ct.mma(a.astype(ct.{name}), b.astype(ct.{name}), acc)"))
    assert {"float8_e4m3fn": "tl.float8e4nv", "float8_e5m2": "tl.float8e5"}[name] in text


def test_gemm_with_padding_mode_in_a_local(convert):
    # the shape of the usual cuTile GEMM: an enum member kept in a local (it is a compile-time
    # value: the statement goes, its uses read the member), tf32 chosen when the array is float32
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    pad = ct.PaddingMode.ZERO
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for kk in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(ct.bid(0), kk), shape=(TM, TK), padding_mode=pad).astype(dtype)
        b = ct.load(B, index=(kk, ct.bid(1)), shape=(TK, TN), padding_mode=pad).astype(dtype)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.astype(acc, C.dtype))
""")
    for dtype in [torch.float32, torch.float16]:
        a, b = torch.randn(40, 50).to(dtype), torch.randn(50, 24).to(dtype)
        c = torch.zeros(40, 24, dtype=dtype)
        mod.launch_k(0, (3, 2), (a, b, c, 16, 16, 16))
        torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=2e-2, atol=2e-2)


STAGED = """
import cuda.tile as ct

@ct.kernel
def k(x, y, out, sums, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    dtype = ct.tfloat32 if x.dtype == ct.float32 else x.dtype
    total = ct.zeros((TN,), dtype=ct.float32)
    for kk in range(ct.num_tiles(x, axis=1, shape=(TM, TK))):
        a = ct.load(x, index=(i, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(y, index=(kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        total = total + ct.sum(b, axis=0)
        acc = ct.mma(ct.astype(a, dtype), ct.astype(b, dtype), acc)
    ct.store(out, index=(i, j), tile=acc)
    ct.store(sums, index=(i, j), tile=ct.reshape(total, (1, TN)))
"""


def tf32_rounded(t):
    """cuTile's astype(tfloat32) of float32 values: to nearest, ties to even, on the bits."""
    bits = t.contiguous().view(torch.int32).to(torch.int64)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
    return ((bits + 2**31) % 2**32 - 2**31).to(torch.int32).view(torch.float32)


@pytest.mark.parametrize("m", [64, 8])
def test_a_tfloat32_right_operand_is_staged_rounded_and_transposed(convert, m):
    # the launcher gives the kernel B rounded and K-major (sm_90's tf32 wgmma then reads its tiles
    # from TMA, not through registers): where the launch has the work for it (m = 64), and where
    # it has not (m = 8: the others arrays are small next to B), B itself, rounded tile by tile.
    # The products and the plain float32 use of B (its column sums) are the same either way.
    mod = convert(STAGED)
    torch.manual_seed(0)
    k, n = 96, 64
    x, y = torch.randn(m, k), torch.randn(k, n)
    staged = []
    plain = mod._tf32_stage

    def recording(array, *others):
        made = plain(array, *others)
        staged.append(made is not array)
        if made is not array:
            assert made.shape == (array.shape[1], array.shape[0]) and made.is_contiguous()
            assert torch.equal(made, tf32_rounded(array).T)
        return made

    def run(stage):
        mod._tf32_stage = stage
        out, sums = torch.zeros(m, n), torch.zeros(-(-m // 8), n)
        mod.launch_k(0, (-(-m // 8), n // 16, 1), (x, y, out, sums, 8, 16, 32))
        return out, sums

    out, sums = run(recording)
    assert staged and all(staged) == (m == 64), staged
    out_plain, sums_plain = run(lambda array, *others: array)
    # the same rounded operands; the interpreter's numpy matmul may sum a transposed operand
    # in another order (on some CPUs it does), so the products agree to float32 summation error
    torch.testing.assert_close(out, out_plain, rtol=1e-5, atol=1e-5)
    assert torch.equal(sums, sums_plain)
    if m == 64:  # the products read the copy (a copy of zeros gives zeros), the sums read B
        out_zero, sums_zero = run(lambda array, *others: torch.zeros(array.shape[1], array.shape[0]))
        assert not out_zero.any() and torch.equal(sums_zero, sums)
    want = tf32_rounded(x).double() @ tf32_rounded(y).double()
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(sums[0].double(), y.double().sum(0), rtol=1e-5, atol=1e-4)


def test_a_float16_right_operand_is_not_staged(convert):
    mod = convert(STAGED)
    x, y = torch.randn(16, 64).half(), torch.randn(64, 32).half()
    out, sums = torch.zeros(16, 32).half(), torch.zeros(2, 32)
    made = []
    plain = mod._tf32_stage
    mod._tf32_stage = lambda array, *others: made.append(plain(array, *others)) or made[-1]
    mod.launch_k(0, (2, 2, 1), (x, y, out, sums, 8, 16, 32))
    assert made and made[0] is y
    torch.testing.assert_close(out.float(), x.float() @ y.float(), rtol=1e-2, atol=1e-2)


def test_only_a_right_operand_converted_to_tfloat32_gets_a_staged_copy(convert_text):
    text = convert_text(STAGED)
    kernel = text.split("def k(")[1].split("\ndef ")[0]
    assert "y_tf32_staged: tl.constexpr" in kernel and "x_tf32" not in kernel
    assert "tl.trans(y_tf32_desc_" in kernel
    # a product of float32 operands (no tfloat32) stages nothing
    plain = convert_text(STAGED.replace("ct.tfloat32 if x.dtype == ct.float32 else x.dtype", "x.dtype"))
    assert "_tf32" not in plain.split("def k(")[1].split("\ndef ")[0]


STAGED_LOCAL_TILE = """
import cuda.tile as ct

@ct.kernel
def k(A, B, C, N: ct.Constant[int]):
    TM = 16
    TK = 32
    acc = ct.zeros((TM, N), dtype=ct.float32)
    for kk in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(ct.bid(0), kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(kk, 0), shape=(TK, N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a.astype(ct.tfloat32), b.astype(ct.tfloat32), acc)
    ct.store(C, index=(ct.bid(0), 0), tile=acc)
"""


def test_a_tile_size_of_a_kernel_local_takes_no_staged_copy(convert, convert_text):
    """The staged tfloat32 copy's descriptor is made at the top of the kernel, and its block
    shape read the kernel's local TK (`TK = 32`, Megatron's mHC RMS-norm backward) before
    the local was set: exit 0, a module whose launch raised UnboundLocalError. Such a
    product now rounds B's tiles in the kernel, as any other does."""
    text = convert_text(STAGED_LOCAL_TILE)
    assert "_tf32_staged" not in text.split("def k(")[1].split("\ndef ")[0]
    mod = convert(STAGED_LOCAL_TILE)
    x, y, out = torch.randn(32, 64), torch.randn(64, 16), torch.zeros(32, 16)
    mod.launch_k(0, (2, 1, 1), (x, y, out, 16))
    want = tf32_rounded(x).double() @ tf32_rounded(y).double()
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)


STAGED_BRANCHES = """
import cuda.tile as ct

@ct.kernel
def k(x, y, out, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int], TRANS: ct.Constant[bool]):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for kk in range(ct.num_tiles(x, axis=1, shape=(TM, TK))):
        a = ct.load(x, index=(i, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        if TRANS:  # y is (N, K)
            b = ct.transpose(ct.load(y, index=(j, kk), shape=(TN, TK), padding_mode=ct.PaddingMode.ZERO))
        else:
            b = ct.load(y, index=(kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.astype(a, ct.tfloat32), ct.astype(b, ct.tfloat32), acc)
    ct.store(out, index=(i, j), tile=acc)
"""


@pytest.mark.parametrize("trans", [False, True])
def test_a_staged_tile_from_one_branch_of_a_constexpr_if(convert, trans):
    # b comes from a branch chosen by a constexpr: the untransposed branch's staged tile stays
    # b's after the `if` (through a local both branches set, None in the other), and the
    # transposed branch rounds in the kernel
    mod = convert(STAGED_BRANCHES)
    torch.manual_seed(1)
    x, y = torch.randn(64, 96), torch.randn(96, 64)
    given = y.T.contiguous() if trans else y

    def run(stage):
        mod._tf32_stage = stage
        out = torch.zeros(64, 64)
        mod.launch_k(0, (8, 4, 1), (x, given, out, 8, 16, 32, trans))
        return out

    plain = mod._tf32_stage
    copies = []
    out = run(lambda array, *others: copies.append(array) or plain(array, *others))
    want = tf32_rounded(x).double() @ tf32_rounded(y).double()
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)
    # the launcher copies y only for the value of TRANS whose branch reads the copy
    assert len(copies) == (0 if trans else 1)
    if not trans:  # the copy is read only where the untransposed branch loads
        zeros = run(lambda array, *others: torch.zeros(array.shape[1], array.shape[0]))
        assert not zeros.any()


def _launch_of_y(text):
    return [line.strip() for line in text.splitlines() if line.strip().startswith("y_tf32=")]


def test_the_copy_is_made_for_the_constexpr_values_whose_branches_read_it(convert_text):
    # both ways of an inner `if` read the copy: the launcher tests the outer condition alone
    nested = STAGED_BRANCHES.replace(
        "        else:\n            b = ct.load(y, index=(kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)\n",
        "        elif TK >= 32:\n"
        "            b = ct.load(y, index=(kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)\n"
        "        else:\n"
        "            b = ct.load(y, index=(kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO, latency=2)\n",
    )
    assert "elif TK >= 32" in nested
    assert _launch_of_y(convert_text(STAGED_BRANCHES)) == [
        "y_tf32=(y_tf32 := _tf32_stage(y, x, out) if not TRANS else y),"
    ]
    assert _launch_of_y(convert_text(nested)) == ["y_tf32=(y_tf32 := _tf32_stage(y, x, out) if not TRANS else y),"]
    # only the inner `if`'s second way reads it (the first adds to the load): both conditions,
    # the comparison negated in parentheses
    one_way = nested.replace(
        "        elif TK >= 32:\n            b = ct.load(y, index=(kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)",
        "        elif TK >= 32:\n            b = ct.load(y, index=(kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO) + 0.0",
    )
    assert "ZERO) + 0.0" in one_way
    assert _launch_of_y(convert_text(one_way)) == [
        "y_tf32=(y_tf32 := _tf32_stage(y, x, out) if not TRANS and not (TK >= 32) else y),"
    ]
    # a condition the launcher cannot evaluate (a local of the kernel): the copy at every launch
    local = STAGED_BRANCHES.replace("        if TRANS:  # y is (N, K)", "        flip = TRANS\n        if flip:")
    assert _launch_of_y(convert_text(local)) == ["y_tf32=(y_tf32 := _tf32_stage(y, x, out)),"]


def test_no_memory_for_the_staged_copy_means_rounding_in_the_kernel(convert, monkeypatch):
    mod = convert(STAGED)
    x, y = torch.randn(64, 96), torch.randn(96, 64)
    empty = torch.empty

    def no_memory(*args, **kwargs):
        if args and args[0] == (64, 96):  # the copy's shape (y transposed)
            raise torch.OutOfMemoryError("no memory")
        return empty(*args, **kwargs)

    monkeypatch.setattr(mod.torch, "empty", no_memory)
    assert mod._tf32_stage(y, x) is y
    monkeypatch.setattr(mod.torch, "empty", empty)
    out, sums = torch.zeros(64, 64), torch.zeros(8, 64)
    monkeypatch.setattr(mod.torch, "empty", no_memory)
    mod.launch_k(0, (8, 4, 1), (x, y, out, sums, 8, 16, 32))
    monkeypatch.setattr(mod.torch, "empty", empty)
    want = tf32_rounded(x).double() @ tf32_rounded(y).double()
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)
