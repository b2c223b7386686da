"""Float8 right-hand operands of products read from a K-major copy the launcher makes
(lower/lower_memory_kmajor.c): float8 wgmma reads its right-hand operand K-major only, so the
(K, N) tile of an array whose last axis is N is read, where the launcher stages it, from the
array with its last two axes swapped. Under Triton's interpreter the staged and unstaged paths
give the same bits; the staging helper copies float8 arrays only, and arrays the kernel writes
or reads otherwise are not staged. A tile converted by astype to a dtype that may be float8
(the array's own, or one chosen from the operands' dtypes) is read from the copy and converted
the same way.
"""

from pathlib import Path

import pytest
import torch

ATTENTION = (Path(__file__).resolve().parents[1] / "compile" / "cases" / "fp8_attention.py").read_text()
# the attention's loop in a tile function the kernel calls with its arrays
IN_FUNCTION = (Path(__file__).resolve().parents[1] / "compile" / "cases" / "fp8_attention_function.py").read_text()

# a GEMM whose operands go through astype to a dtype chosen from A's (tfloat32 for float32)
GEMM = """
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def gemm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO).astype(dtype)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO).astype(dtype)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def run(a, b, c, TM, TN, TK):
    M, N = c.shape
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(M, TM), ct.cdiv(N, TN), 1), gemm, (a, b, c, TM, TN, TK))
"""


def test_the_product_reads_v_from_the_copy(convert_text):
    text = convert_text(ATTENTION)
    assert "    V_kmajor,\n    V_kmajor_staged: tl.constexpr,\n" in text
    assert ("        if V_kmajor_desc_1_ok:\n"
            "            V_kmajor_tile_2 = tl.trans(tl.reshape(V_kmajor_desc_1.load([b, 0, j * TN]), (D, TN)))\n"
            "        else:\n"
            "            V_kmajor_tile_2 = v\n"
            "        acc = ct_mma(p, V_kmajor_tile_2, acc,") in text
    assert "V_kmajor=(V_kmajor := _kmajor_stage(V, Q, K, Out))," in text
    assert "K_kmajor" not in text  # K's tiles are K-major already (order=(0, 2, 1))


@pytest.mark.parametrize("source", [ATTENTION, IN_FUNCTION], ids=["kernel", "tile_function"])
@pytest.mark.parametrize("dtype", [torch.float8_e5m2, torch.float8_e4m3fn])
def test_staged_and_unstaged_paths_give_the_same_bits(convert, dtype, source):
    mod = convert(source)
    B, S, D, TM, TN = 2, 64, 32, 16, 16
    q, k = (torch.randn(B, S, D) * 0.5).to(dtype), (torch.randn(B, S, D) * 0.5).to(dtype)
    v = torch.randn(B, S, D).to(dtype)
    stage, staged = mod._kmajor_stage, []
    mod._kmajor_stage = lambda array, *others: staged.append(stage(array, *others)) or staged[-1]
    with_copy = torch.zeros(B, S, D)
    mod.run(q, k, v, with_copy, TM, TN)
    assert len(staged) == 1 and staged[0] is not v
    assert torch.equal(staged[0].view(torch.uint8), v.transpose(-1, -2).contiguous().view(torch.uint8))
    mod._kmajor_stage = lambda array, *others: array
    without = torch.zeros(B, S, D)
    mod.run(q, k, v, without, TM, TN)
    assert torch.equal(with_copy, without)


def reference(q, k, v, TN):
    """The kernel's arithmetic: per step of TN keys, exp(s - its max) @ v."""
    s = q.float() @ k.float().transpose(1, 2)
    out = torch.zeros(q.shape)
    for j in range(k.shape[1] // TN):
        block = s[:, :, j * TN:(j + 1) * TN]
        p = torch.exp(block - block.max(-1, keepdim=True).values).to(q.dtype).float()
        out += p @ v[:, j * TN:(j + 1) * TN].float()
    return out


@pytest.mark.parametrize("source", [ATTENTION, IN_FUNCTION], ids=["kernel", "tile_function"])
def test_the_tile_read_from_the_copy_is_the_tile(convert, source):
    """The staged path forced for float16 (whose products the interpreter computes as torch
    does): the kernel computes the reference, so the copy's tile is read at the right place."""
    mod = convert(source)
    mod._kmajor_stage = lambda array, *others: array.transpose(-1, -2).contiguous()
    B, S, D, TM, TN = 2, 64, 32, 16, 16
    q, k, v = (torch.randn(B, S, D) * 0.5).half(), (torch.randn(B, S, D) * 0.5).half(), torch.randn(B, S, D).half()
    out = torch.zeros(B, S, D)
    mod.run(q, k, v, out, TM, TN)
    torch.testing.assert_close(out, reference(q, k, v, TN), rtol=1e-5, atol=1e-4)


def test_the_copy_is_made_for_float8_arrays_only(convert):
    mod = convert(ATTENTION)
    big = torch.empty(10_000)
    a = torch.randn(2, 3, 48, 40).to(torch.float8_e5m2)
    assert torch.equal(mod._kmajor_stage(a, big).view(torch.uint8), a.transpose(-1, -2).contiguous().view(torch.uint8))
    rows = a[:, :, :, :32]  # rows of a wider array: one batch of strided matrices
    assert torch.equal(mod._kmajor_stage(rows, big).view(torch.uint8),
                       rows.transpose(-1, -2).contiguous().view(torch.uint8))
    half = a.half()
    assert mod._kmajor_stage(half, big) is half  # bfloat16 and float16 wgmma read N-major operands
    assert mod._kmajor_stage(a, torch.empty(8)) is a  # each tile read a few times: no copy
    odd = torch.randn(2, 36, 8).to(torch.float8_e5m2)
    assert mod._kmajor_stage(odd, big) is odd  # 36 rows: the copy's rows of 36 bytes would not suit TMA


@pytest.mark.parametrize("change", [
    ("        acc = ct.mma(p, v, acc)\n", "        acc = ct.mma(p, v, acc)\n        ct.store(V, index=(b, j, 0), tile=ct.reshape(v, (1, TN, D)))\n"),
    ("index=(b, j, 0), shape=(1, TN, D))", "index=(b, j, 0), shape=(1, TN, D), padding_mode=ct.PaddingMode.NAN)"),
    ("        acc = ct.mma(p, v, acc)\n", "        acc = ct.mma(p, ct.transpose(ct.transpose(v)) * 1, acc)\n"),
])
def test_an_array_the_kernel_writes_or_reads_otherwise_is_not_staged(convert_text, change):
    source = ATTENTION.replace(*change)
    assert source != ATTENTION
    assert "V_kmajor" not in convert_text(source)


def test_a_converted_operand_is_read_from_the_copy_and_converted_so(convert_text):
    text = convert_text(GEMM)
    assert ("        if B_kmajor_desc_3_ok:\n"
            "            B_kmajor_tile_4 = tl.trans(tl.reshape(\n"
            "                B_kmajor_desc_3.load([bn * TN, k * TK]),\n"
            "                (TN, TK),\n"
            "            ))\n"
            "            B_kmajor_tile_4 = (\n"
            "                ct_to_tfloat32(B_kmajor_tile_4)\n"
            "                if A.dtype.element_ty == tl.float32\n"
            "                else B_kmajor_tile_4.to(dtype)\n"
            "            )\n"
            "        else:\n"
            "            B_kmajor_tile_4 = b\n"
            "        acc = ct_mma(\n"
            "            a,\n"
            "            B_kmajor_tile_4,\n") in text
    assert "A_kmajor" not in text  # the left operand is read as stored


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_a_converted_operand_gives_the_same_bits_staged_and_unstaged(convert, dtype):
    mod = convert(GEMM)
    M, N, K = 40, 48, 64  # M and N not multiples of the tiles: zero padding on both paths
    a, b = (torch.randn(M, K) * 0.5).to(dtype), (torch.randn(K, N) * 0.5).to(dtype)
    stage, staged = mod._kmajor_stage, []
    mod._kmajor_stage = lambda array, *others: staged.append(stage(array, *others)) or staged[-1]
    with_copy = torch.zeros(M, N)
    mod.run(a, b, with_copy, 16, 32, 32)
    assert len(staged) == 1 and staged[0] is not b
    mod._kmajor_stage = lambda array, *others: array
    without = torch.zeros(M, N)
    mod.run(a, b, without, 16, 32, 32)
    assert torch.equal(with_copy, without)
    torch.testing.assert_close(with_copy, a.float() @ b.float(), rtol=1e-5, atol=1e-4)


B_LOAD = "b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO).astype(dtype)"


@pytest.mark.parametrize("conversion, staged", [
    (".astype(ct.float8_e5m2)", True),   # float8 stays float8
    (".astype(ct.float16)", False),      # widened: read through registers anyway
    (".astype(dtype).transpose().transpose()", False),  # the converted tile transposed: not followed
    (".reshape((TK, TN)).astype(dtype)", True),          # the tile reshaped, then converted
    (".astype(dtype).astype(dtype)", False),  # converted twice: not followed
])
def test_which_conversions_are_read_from_the_copy(convert_text, conversion, staged):
    source = GEMM.replace(B_LOAD, B_LOAD.replace(".astype(dtype)", conversion))
    assert source != GEMM
    assert ("B_kmajor" in convert_text(source)) == staged


# B read in one of two orders chosen by a constexpr flag, the product after the `if`
BRANCHED = (Path(__file__).resolve().parents[1] / "compile" / "cases" / "fp8_gemm_branches.py").read_text()


def test_a_tile_bound_in_one_branch_of_a_launch_time_if_is_read_from_the_copy_there(convert_text):
    text = convert_text(BRANCHED)
    # the two loads of the else branch read the same tile: one tile, whichever runs
    assert "    B_kmajor_desc_1_ok: tl.constexpr = (\n        B_kmajor_staged\n        and not TRANS_B\n" in text
    assert ("            B_kmajor_tile_2 = B_kmajor_tile_2.to(A.dtype.element_ty)\n"
            "        else:\n"
            "            B_kmajor_tile_2 = b\n"
            "        acc = ct_mma(a, B_kmajor_tile_2, acc,") in text
    # the copy only for the launches that take that branch
    assert "B_kmajor=(B_kmajor := _kmajor_stage(B, A, C) if not TRANS_B else B)," in text


@pytest.mark.parametrize("trans_b, hint", [(False, 0), (False, 3), (True, 0)])
def test_both_branches_compute_the_product_staged_or_not(convert, trans_b, hint):
    mod = convert(BRANCHED)
    M, N, K = 40, 48, 64
    a = (torch.randn(M, K) * 0.5).to(torch.float8_e4m3fn)
    b_math = (torch.randn(K, N) * 0.5).to(torch.float8_e4m3fn)
    b = b_math.T.contiguous() if trans_b else b_math
    stage, staged = mod._kmajor_stage, []
    mod._kmajor_stage = lambda array, *others: staged.append(stage(array, *others)) or staged[-1]
    with_copy = torch.zeros(M, N)
    mod.run(a, b, with_copy, 16, 32, 32, trans_b, hint)
    assert len(staged) == (0 if trans_b else 1)  # a launch that reads B (N, K) makes no copy
    mod._kmajor_stage = lambda array, *others: array
    without = torch.zeros(M, N)
    mod.run(a, b, without, 16, 32, 32, trans_b, hint)
    assert torch.equal(with_copy, without)
    torch.testing.assert_close(with_copy, a.float() @ b_math.float(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("change", [
    # the branches read other tiles of B
    ("            else:\n                b = ct.load(B, index=(k, bn)", "            else:\n                b = ct.load(B, index=(k, bm)"),
    # an `if` decided at run time, not at launch
    ("        if TRANS_B:\n", "        if ct.bid(2) > 0:\n"),
])
def test_a_tile_the_branches_do_not_agree_on_is_not_read_from_the_copy(convert_text, change):
    source = BRANCHED.replace(*change)
    assert source != BRANCHED
    assert "B_kmajor" not in convert_text(source)


@pytest.mark.parametrize("product", ["acc + a @ b", "acc + ct.matmul(a, b)"])
def test_the_right_hand_operand_of_matmul_and_the_operator_is_read_from_the_copy(convert_text, convert, product):
    source = GEMM.replace(".astype(dtype)\n", "\n").replace("acc = ct.mma(a, b, acc)", f"acc = {product}")
    assert source.count("ct.PaddingMode.ZERO)\n") == 2 and product in source
    text = convert_text(source)
    assert "acc = acc + ct_matmul(a, B_kmajor_tile_" in text
    mod = convert(source)
    M, N, K = 40, 48, 64
    a, b = torch.randn(M, K).half(), torch.randn(K, N).half()
    outs = []
    for stage in (lambda array, *others: array.transpose(-1, -2).contiguous(),  # staged, float16
                  lambda array, *others: array):
        mod._kmajor_stage = stage
        outs.append(torch.zeros(M, N))
        mod.run(a, b, outs[-1], 16, 32, 32)
    assert torch.equal(outs[0], outs[1])
    # each step's float16 product (cuTile's matmul keeps its operands' dtype) summed in float32
    steps = sum((a[:, k:k + 32].float() @ b[k:k + 32].float()).half().float() for k in (0, 32))
    torch.testing.assert_close(outs[0], steps, rtol=1e-3, atol=1e-3)


def many_conditions(count):
    """A kernel whose products read B's tile under `count` launch-time conditions, one each."""
    flags = ", ".join(f"F{i}: ct.Constant[bool]" for i in range(count))
    steps = "".join(f"""
    if F{i}:
        b = ct.transpose(ct.load(B, index=(0, 0), shape=(16, 32)))
    else:
        b = ct.load(B, index=(0, 0), shape=(32, 16))
    acc = ct.mma(a, b, acc)""" for i in range(count))
    return f"""
import cuda.tile as ct
import torch


@ct.kernel
def gemm(A, B, C, {flags}):
    a = ct.load(A, index=(0, 0), shape=(16, 32))
    acc = ct.zeros((16, 16), dtype=ct.float32){steps}
    ct.store(C, index=(0, 0), tile=acc)


def run(a, b, c, *flags):
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), gemm, (a, b, c, *flags))
"""


@pytest.mark.parametrize("count", [4, 5])  # C2T_MAX_KMAJOR_WHENS: 4
def test_past_its_limit_of_conditions_the_copy_is_made_at_every_float8_launch(convert_text, convert, count):
    text = " ".join(convert_text(many_conditions(count)).split()).replace("( ", "(").replace(" )", ")")
    conditions = " or ".join(f"not F{i}" for i in range(count))
    if count <= 4:
        assert f"B_kmajor=(B_kmajor := _kmajor_stage(B, A, C) if {conditions} else B)," in text
    else:
        assert "B_kmajor=(B_kmajor := _kmajor_stage(B, A, C))," in text
    mod = convert(many_conditions(count))
    mod._kmajor_stage = lambda array, *others: array.transpose(-1, -2).contiguous()  # staged, float16
    a, b = torch.randn(16, 32).half(), torch.randn(32, 16).half()
    out = torch.zeros(16, 16)
    for value in (False, True):  # each launch reads B one way at every step
        out.zero_()
        mod.run(a, b.T.contiguous() if value else b, out, *([value] * count))
        torch.testing.assert_close(out, count * (a.float() @ b.float()), rtol=1e-3, atol=1e-3)




def test_a_tile_function_reads_the_copy_its_caller_gives(convert_text):
    text = convert_text(IN_FUNCTION)
    assert "    V_kmajor,\n    V_kmajor_staged: tl.constexpr,\n):" in text  # the function's, and the kernel's
    assert "        acc = ct_mma(p, V_kmajor_tile_2, acc," in text
    assert "        V_kmajor,\n        V_kmajor_staged,\n    )" in text  # the kernel's call passes its own
    assert "V_kmajor=(V_kmajor := _kmajor_stage(V, Q, K, Out))," in text
    assert "K_kmajor" not in text


@pytest.mark.parametrize("change", [
    # the function writes V too
    ("    ct.store(Out, index=(b, ct.bid(0), 0)", "    ct.store(V, index=(b, 0, 0), tile=ct.zeros((1, TN, D), dtype=V.dtype))\n"
                                                 "    ct.store(Out, index=(b, ct.bid(0), 0)"),
    # the kernel writes V
    ("    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)\n",
     "    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)\n    ct.store(V, index=(0, 0, 0), tile=ct.zeros((1, TN, D), dtype=V.dtype))\n"),
    # another tile function the kernel calls writes V
    ("@ct.kernel\n", "def clear(X, TN: ConstInt, D: ConstInt):\n"
                     "    ct.store(X, index=(0, 0, 0), tile=ct.zeros((1, TN, D), dtype=X.dtype))\n\n\n@ct.kernel\n"),
    # called in a loop: the function would make the copy's descriptor at each call
    ("    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)\n", "    for b in range(ct.bid(1), ct.bid(1) + 1):\n"
                                                        "        attend(Q, K, V, Out, b, TM, TN, D, S)\n"),
])
def test_a_tile_function_gets_no_copy_where_its_array_is_written_or_the_call_repeats(convert_text, change):
    source = IN_FUNCTION.replace(*change)
    if "def clear" in source:
        source = source.replace("    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)\n",
                                "    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)\n    clear(V, TN, D)\n")
    assert source != IN_FUNCTION
    text = convert_text(source)
    assert "_kmajor_stage(V" not in text


def test_a_tile_function_between_passes_the_copy_on(convert_text, convert):
    """kernel -> outer -> attend: the function between gives attend the copy the kernel gives it."""
    source = IN_FUNCTION.replace(
        "@ct.kernel\ndef attention(Q, K, V, Out, TM: ConstInt, TN: ConstInt, D: ConstInt, S: ConstInt):\n"
        "    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)\n",
        "def outer(Q, K, V, Out, TM: ConstInt, TN: ConstInt, D: ConstInt, S: ConstInt):\n"
        "    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)\n\n\n"
        "@ct.kernel\ndef attention(Q, K, V, Out, TM: ConstInt, TN: ConstInt, D: ConstInt, S: ConstInt):\n"
        "    outer(Q, K, V, Out, TM, TN, D, S)\n")
    assert source != IN_FUNCTION
    text = convert_text(source)
    assert text.count("        V_kmajor,\n        V_kmajor_staged,\n    )") == 2  # outer's call and the kernel's
    assert "V_kmajor=(V_kmajor := _kmajor_stage(V, Q, K, Out))," in text
    mod = convert(source)
    mod._kmajor_stage = lambda array, *others: array.transpose(-1, -2).contiguous()  # staged, float16
    B, S, D, TM, TN = 2, 64, 32, 16, 16
    q, k, v = (torch.randn(B, S, D) * 0.5).half(), (torch.randn(B, S, D) * 0.5).half(), torch.randn(B, S, D).half()
    out = torch.zeros(B, S, D)
    mod.run(q, k, v, out, TM, TN)
    torch.testing.assert_close(out, reference(q, k, v, TN), rtol=1e-3, atol=1e-3)
