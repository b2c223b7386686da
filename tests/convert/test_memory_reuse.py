"""A load that takes the tile another load read (lower/lower_memory_reuse.c): where the
module launches a kernel with one array for two parameters and the kernel loads the same
tile of both, the launcher's flag `V_is_K` (the two arguments one array at this launch)
makes the second load the first one's tile, and a product of that tile transposed is
computed transposed (the same sums). Under Triton's interpreter both paths run: the flag
set (one array) and not (two arrays), against a torch reference; the cases where a load
must read its own array keep no flag.
"""

import re

import pytest
import torch

# MLA decoding's pattern: the rows of step j read as K, then again as V in another axis order
DECODE = """
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.function
def scale(Out, b):
    ct.store(Out, index=(b, 0, 0), tile=ct.zeros((1, 32, 16), dtype=ct.float32))


@ct.kernel
def decode(Q, K, V, Out, TN: ConstInt, TD: ConstInt, TH: ConstInt, S: ConstInt):
    b = ct.bid(0)
    scale(Out, b)  # lowered here once: a call of it later stores as well
    q = ct.load(Q, index=(b, 0, 0), shape=(1, TD, TH))
    q = ct.reshape(q, (TD, TH))
    acc = ct.zeros((TD, TH), dtype=ct.float32)
    cnt = 0
    for i in range(0, S, TN):
        k = ct.load(K, index=(b, cnt, 0), shape=(1, TN, TD))
        k = ct.reshape(k, (TN, TD))
        s = ct.mma(k, q, ct.zeros((TN, TH), dtype=ct.float32))
        p = ct.exp(s - ct.max(s, 0)[None, :])
{between}        v = ct.load(V, index=(cnt, b, 0), shape=(TN, 1, TD), order=(1, 0, 2))
        v = ct.reshape(v, (TN, TD))
        v = ct.transpose(v)
        acc = ct.mma(v, ct.astype(p, Q.dtype), acc)
        cnt += 1
    ct.store(Out, index=(b, 0, 0), tile=ct.reshape(acc, (1, TD, TH)))


def run(q, kv, out, TN, S):
    B, TD, TH = q.shape
    ct.launch(torch.cuda.current_stream(), (B, 1, 1), decode, {args})


def run_apart(q, k, v, out, TN, S):
    B, TD, TH = q.shape
    ct.launch(torch.cuda.current_stream(), (B, 1, 1), decode, (q, k, v, out, TN, TD, TH, S))
"""

SAME = "(q, kv, kv, out, TN, TD, TH, S)"


def decode_source(between="", args=SAME):
    return DECODE.format(between=between, args=args)


def reference(q, k, v, TN):
    """The kernel's arithmetic in float32 (its products of float16 tiles are exact there)."""
    B, TD, TH = q.shape
    out = torch.zeros(B, TD, TH)
    for b in range(B):
        acc = torch.zeros(TD, TH)
        for j in range(k.shape[1] // TN):
            s = k[b, j * TN:(j + 1) * TN].float() @ q[b].float()
            p = torch.exp(s - s.max(0).values[None, :]).half().float()
            acc = v[b, j * TN:(j + 1) * TN].float().T @ p + acc
        out[b] = acc
    return out


def test_the_second_load_takes_the_first_tile_where_the_launch_passes_one_array(convert_text):
    text = convert_text(decode_source())
    assert "    V_is_K: tl.constexpr,\n" in text
    assert "V_is_K=_same_array(V, K)," in text
    # V's tile, in V's order, from K's; V's own load where the arrays differ
    assert re.search(r"if V_is_K:\n\s+v = tl\.reshape\(k, \(TN, 1, TD\)\)\n\s+elif V_desc_\d+_ok:", text), text
    # the product of that tile transposed, computed transposed from K's tile
    assert re.search(r"if V_is_K:\n\s+acc = tl\.trans\(ct_mma\(\n\s+tl\.trans\(p\.to\(Q\.dtype\.element_ty\)\),\n"
                     r"\s+k,\n\s+tl\.trans\(acc\),", text), text


@pytest.mark.parametrize("same", [True, False])
def test_both_paths_compute_the_kernel(convert, same):
    mod = convert(decode_source())
    flags = []
    same_array = mod._same_array
    mod._same_array = lambda first, second: flags.append(same_array(first, second)) or flags[-1]
    B, TD, TH, TN, S = 2, 32, 16, 16, 48
    q = torch.randn(B, TD, TH).half()
    kv = torch.randn(B, S, TD).half()
    out = torch.zeros(B, TD, TH)
    if same:
        mod.run(q, kv, out, TN, S)
        expected = reference(q, kv, kv, TN)
    else:
        v = torch.randn(B, S, TD).half()  # other values: a taken tile would be wrong here
        mod.run_apart(q, kv, v, out, TN, S)
        expected = reference(q, kv, v, TN)
    assert flags == [same]
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-3)


def test_one_array_given_as_two_views_is_two_arrays(convert):
    mod = convert(decode_source())
    B, TD, TH, TN, S = 1, 32, 16, 16, 32
    q = torch.randn(B, TD, TH).half()
    kv = torch.randn(B, 2 * S, TD).half()
    k, v = kv[:, :S], kv[:, S:]  # one storage, other addresses
    out = torch.zeros(B, TD, TH)
    assert not mod._same_array(v, k) and mod._same_array(k, k)
    assert not mod._same_array(kv.view(torch.int16), kv)  # one address, another dtype
    assert not mod._same_array(kv[:, :, :16], kv[:, :, :32])  # one address, another shape
    assert not mod._same_array(kv, 3)  # a number where an array may be
    mod.run_apart(q, k, v, out, TN, S)
    torch.testing.assert_close(out, reference(q, k, v, TN), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("between, args", [
    ("", "(q, kv, kv.clone(), out, TN, TD, TH, S)"),           # the module launches two arrays
    ("        ct.store(Out, index=(b, 0, 0), tile=ct.reshape(acc, (1, TD, TH)))\n", SAME),  # a store between
    ("        scale(Out, b)\n", SAME),                          # a tile function (which may store) between
    ("        cnt = cnt + 0\n", SAME),                          # a name of the index bound again
    ("        k = k * 2\n", SAME),                              # the name holding K's tile bound again
    ("        k = k.astype(ct.float32)\n", SAME),               # ... to K's tile converted
    ("        if TN > 8:\n            k = ct.reshape(q, (TN, TD))\n", SAME),  # ... in a branch
])
def test_a_load_reads_its_own_array_otherwise(convert_text, between, args):
    assert "_is_" not in convert_text(decode_source(between, args))


def test_a_tile_of_an_array_whose_rank_a_launch_time_if_decides_is_not_taken(convert_text):
    """K first read in the branches of an `if` on a constexpr: another launch may give K another
    rank, so V's load reads its own array."""
    load = "        k = ct.load(K, index=(b, cnt, 0), shape=(1, TN, TD))\n"
    source = decode_source().replace(load, "        if TN > 4:\n    " + load + "        else:\n    " + load)
    assert source != decode_source()
    assert "_is_" not in convert_text(source)


def test_a_local_of_the_flag_s_name_is_renamed(convert):
    mod = convert(decode_source("        V_is_K = 3\n        acc = acc * V_is_K / 3\n"))
    B, TD, TH, TN, S = 1, 32, 16, 16, 32
    q, kv, out = torch.randn(B, TD, TH).half(), torch.randn(B, S, TD).half(), torch.zeros(B, TD, TH)
    mod.run(q, kv, out, TN, S)
    torch.testing.assert_close(out, reference(q, kv, kv, TN), rtol=1e-4, atol=1e-3)


TWO_LOOPS = """
import cuda.tile as ct
import torch


@ct.kernel
def k2(X, Y, Out, T: ct.Constant[int]):
    b = ct.bid(0)
    x = ct.load(X, index=(b, 0), shape=(1, T))
    acc = ct.zeros((1, T), dtype=ct.float32)
    for i in range(4):
        y = ct.load(Y, index=(b, 0), shape=(1, T))  # in the loop: after the store of the last iteration
        acc += ct.astype(x + y, ct.float32)
        ct.store(X, index=(b, 0), tile=ct.astype(acc, X.dtype))
    ct.store(Out, index=(b, 0), tile=acc)


def run(x, out, T):
    ct.launch(torch.cuda.current_stream(), (x.shape[0], 1, 1), k2, (x, x, out, T))
"""


def test_a_load_in_a_loop_does_not_take_a_tile_read_before_it(convert):
    mod = convert(TWO_LOOPS)
    x = torch.randn(2, 16)
    start = x.clone()
    out = torch.zeros(2, 16)
    mod.run(x, out, 16)
    acc = torch.zeros(2, 16)
    xs = start.clone()
    for _ in range(4):  # y reads what the previous iteration stored
        acc = acc + (start + xs)
        xs = acc.clone()
    torch.testing.assert_close(out, acc)


def test_the_test_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    args = [cutile_export.array(ct.float16, 3), cutile_export.array(ct.float16, 3), cutile_export.array(ct.float16, 3),
            cutile_export.array(ct.float32, 3), 16, 32, 16, 48]
    source = decode_source().replace("def decode(", "def k(")
    assert cutile_export.cubin_size(source, args) > 0
