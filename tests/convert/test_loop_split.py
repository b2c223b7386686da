"""Loops of matrix products split where a test of their counter turns (src/lower/lower_split.c).

`for j in range(...)` whose body multiplies matrices and holds an `if j >= X:` (or `j > X`,
`j < X`, either way round, or such a comparison `and` tests that call nothing), X a scalar the
loop does not assign, becomes two loops in a `tl.static_range(2)`: the part where the
comparison cannot hold leaves the `if` out (its else alone runs), the other keeps it as
written. ct_loop_split computes the turn: X within the range, in the counter's dtype; a
bound that is not a signed integer (a float), or a constexpr test of the `if` that is false
(SPLIT=...), puts every iteration in the part that keeps the test. Each test runs the converted kernel against the loop computed in torch, with bounds
before, inside and past the range.
"""
import ast
import re

import pytest
import torch

CAUSAL = '''
import math
import cuda.tile as ct


@ct.kernel
def causal(Q, K, V, Out, TM: ct.Constant[int], TN: ct.Constant[int], D: ct.Constant[int]):
    bid = ct.bid(0)
    q = ct.load(Q, index=(bid, 0), shape=(TM, D))
    offs_m = ct.expand_dims(bid * TM + ct.arange(TM, dtype=ct.int32), 1)
    offs_n = ct.expand_dims(ct.arange(TN, dtype=ct.int32), 0)
    m_i = ct.full((TM,), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((TM,), dtype=ct.float32)
    acc = ct.zeros((TM, D), dtype=ct.float32)
    mask_start = (bid * TM) // TN
    hi = ct.cdiv((bid + 1) * TM, TN)
    for j in range(0, hi):
        k = ct.load(K, index=(0, j), shape=(D, TN), order=(1, 0))
        qk = ct.mma(q, k, ct.zeros((TM, TN), dtype=ct.float32))
        # only the tiles on the diagonal are masked
        if j >= mask_start:
            qk = ct.where(offs_m >= j * TN + offs_n, qk, -1.0e6)
        m_ij = ct.maximum(m_i, ct.max(qk, axis=-1))
        p = ct.exp(qk - m_ij[:, None])
        alpha = ct.exp(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1)
        v = ct.load(V, index=(j, 0), shape=(TN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    ct.store(Out, index=(bid, 0), tile=(acc / l_i[:, None]).astype(Out.dtype))
'''

# The loop of `banded` adds or subtracts each step's product by where its counter stands.
BANDED = '''
import cuda.tile as ct


@ct.kernel
def banded(A, B, Out, lo, hi, FLAG: ct.Constant[bool], T: ct.Constant[int]):
    bid = ct.bid(0)
    acc = ct.zeros((T, T), dtype=ct.float32)
    for j in range(1, ct.cdiv(A.shape[1], T)):
        a = ct.load(A, index=(bid, j), shape=(T, T))
        b = ct.load(B, index=(j, 0), shape=(T, T))
        p = ct.mma(a, b, ct.zeros((T, T), dtype=ct.float32))
        TEST
            acc = acc + p * 2.0
        else:
            acc = acc - p
    ct.store(Out, index=(bid, 0), tile=acc)
'''


def _loops(text, kernel):
    fn = next(node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef) and node.name == kernel)
    return [ast.unparse(node.iter) for node in ast.walk(fn) if isinstance(node, ast.For)]


def _causal_reference(q, k, v, tm):
    s = q.float() @ k.float().T
    rows = torch.arange(q.shape[0])[:, None]
    cols = torch.arange(k.shape[0])[None, :]
    s = s.masked_fill(cols > rows, float("-inf"))
    # the kernel sees keys up to the end of its row tile only: the same for a causal mask
    return torch.softmax(s, dim=-1) @ v.float()


def test_a_causal_loop_masks_in_its_second_part_only(convert_text, convert, device):
    text = convert_text(CAUSAL)
    loops = _loops(text, "causal")
    assert len(loops) == 2 and loops[0] == "tl.static_range(2)", loops
    part, split = re.fullmatch(r"range\(0 if (part_\d+) == 0 else (j_split_\d+), \2 if \1 == 0 else hi\)", loops[1]).groups()
    assert f"{split} = ct_loop_split(mask_start, 0, hi, 1, True)" in text
    assert "# the loop in two parts: the first, where `j >= mask_start` cannot hold, does not test it" in text
    assert f"if {part} == 1:  # `j >= mask_start` cannot hold in part 0" in text
    # the comment above the `if` stays above it
    assert text.index("# only the tiles on the diagonal are masked") < text.index(f"if {part} == 1:")
    mod = convert(CAUSAL)
    for seq, tm, tn in ((64, 16, 16), (64, 32, 16), (48, 16, 32)):
        q, k, v = (torch.randn(seq, 16, device=device) for _ in range(3))
        out = torch.zeros(seq, 16, device=device)
        mod.launch_causal(0, ((seq + tm - 1) // tm,), (q, k, v, out, tm, tn, 16))
        torch.testing.assert_close(out, _causal_reference(q, k, v, tm), atol=1e-4, rtol=1e-4)


def _banded_reference(a, b, t, holds):
    acc = torch.zeros(a.shape[0], t)
    for j in range(1, a.shape[1] // t):
        p = a[:, j * t:(j + 1) * t] @ b[j * t:(j + 1) * t]
        acc = acc + p * 2.0 if holds(j) else acc - p
    return acc


@pytest.mark.parametrize("test, holds, split", [
    ("if j >= lo:", lambda j, lo, hi, flag: j >= lo, r"ct_loop_split\(lo, 1, stop_\d+, 1, True\)"),
    ("if lo > j:", lambda j, lo, hi, flag: j < lo, r"ct_loop_split\(lo, 1, stop_\d+, 1, False\)"),
    ("if j > lo:", lambda j, lo, hi, flag: j > lo, r"ct_loop_split\(lo \+ 1, 1, stop_\d+, 1, True\)"),
    ("if FLAG and lo < j and j < hi:", lambda j, lo, hi, flag: flag and lo < j < hi,
     r"ct_loop_split\(lo \+ 1, 1, stop_\d+, 1, True, SPLIT=FLAG\)"),
])
def test_each_comparison_splits_where_it_turns(convert_text, convert, device, test, holds, split):
    source = BANDED.replace("TEST", test)
    text = convert_text(source)
    assert re.search(split, text), text
    assert _loops(text, "banded")[0] == "tl.static_range(2)"
    mod = convert(source)
    a, b = torch.randn(32, 96, device=device), torch.randn(96, 16, device=device)
    # bounds before the range, inside it, at its ends and past it; ints and floats
    for lo, hi in ((-5, 9), (0, 3), (2, 4), (3.5, 4.5), (5, 1), (6, 6), (40, 50), (-2.5, 7.0)):
        for flag in (True, False):
            out = torch.zeros(32, 16, device=device)
            mod.launch_banded(0, (2,), (a, b, out, lo, hi, flag, 16))
            expected = torch.cat([_banded_reference(a[r * 16:(r + 1) * 16].cpu(), b.cpu(), 16,
                                                    lambda j: holds(j, lo, hi, flag)) for r in range(2)])
            torch.testing.assert_close(out.cpu(), expected, atol=1e-4, rtol=1e-4, msg=f"lo={lo} hi={hi} {flag}")


# A loop stepping by its tile, as Triton's tutorials write them: the counter is a key offset.
STEPPED = '''
import cuda.tile as ct


@ct.kernel
def stepped(A, B, Out, lo, T: ct.Constant[int], STEP: ct.Constant[int]):
    bid = ct.bid(0)
    acc = ct.zeros((T, T), dtype=ct.float32)
    for n in range(T, A.shape[1], STEP):
        a = ct.load(A, index=(bid, n // T), shape=(T, T))
        b = ct.load(B, index=(n // T, 0), shape=(T, T))
        p = ct.mma(a, b, ct.zeros((T, T), dtype=ct.float32))
        if n >= lo:
            p = p * 2.0
        acc = acc + p
    ct.store(Out, index=(bid, 0), tile=acc)
'''


def test_a_loop_with_a_step_splits_at_its_first_counter_past_the_bound(convert_text, convert, device):
    text = convert_text(STEPPED)
    assert re.search(r"ct_loop_split\(lo, T, stop_\d+, STEP, True\)", text), text
    mod = convert(STEPPED)
    a, b = torch.randn(16, 128, device=device), torch.randn(128, 16, device=device)
    for step in (16, 32, 48):
        for lo in (-7, 0, 16, 17, 40, 64, 100, 200, 33.5):
            out = torch.zeros(16, 16, device=device)
            mod.launch_stepped(0, (1,), (a, b, out, lo, 16, step))
            expected = torch.zeros(16, 16)
            for n in range(16, 128, step):
                p = a[:, n:n + 16].cpu() @ b[n:n + 16].cpu()
                expected += p * 2.0 if n >= lo else p
            torch.testing.assert_close(out.cpu(), expected, atol=1e-4, rtol=1e-4, msg=f"step={step} lo={lo}")


@pytest.mark.parametrize("test, why", [
    ("if j <= lo:", "its turn, lo + 1, may overflow"),
    ("if j >= ct.cdiv(lo, 2):", "a bound that calls"),
    ("if j == lo:", "not a turn"),
    ("if lo < hi:", "no counter"),
])
def test_other_tests_leave_the_loop_whole(convert_text, test, why):
    text = convert_text(BANDED.replace("TEST", test))
    assert "ct_loop_split" not in text and "tl.static_range" not in text, why


def test_a_bound_the_loop_assigns_leaves_it_whole(convert_text, convert, device):
    source = BANDED.replace("TEST", "if j >= lo:").replace("acc = acc - p", "acc = acc - p\n        lo = lo + 1")
    text = convert_text(source)
    assert "ct_loop_split" not in text
    mod = convert(source)
    a, b = torch.randn(16, 96, device=device), torch.randn(96, 16, device=device)
    out = torch.zeros(16, 16, device=device)
    mod.launch_banded(0, (1,), (a, b, out, 2, 0, True, 16))
    state = {"lo": 2}

    def holds(j):
        taken = j >= state["lo"]
        state["lo"] += 0 if taken else 1
        return taken

    torch.testing.assert_close(out.cpu(), _banded_reference(a.cpu(), b.cpu(), 16, holds), atol=1e-4, rtol=1e-4)


def test_loops_without_products_or_with_a_break_stay_whole(convert_text):
    no_product = BANDED.replace("TEST", "if j >= lo:").replace(
        "p = ct.mma(a, b, ct.zeros((T, T), dtype=ct.float32))", "p = a * b")
    assert "ct_loop_split" not in convert_text(no_product)
    with_break = BANDED.replace("TEST", "if j >= lo:").replace("acc = acc - p", "acc = acc - p\n            break")
    assert "ct_loop_split" not in convert_text(with_break)


def test_no_loop_split_keeps_the_loop_as_written(tmp_path, convert_text):
    """--no-loop-split (C2T_OPTION_NO_LOOP_SPLIT): the loop stays whole; everything else is as
    the default conversion writes it."""
    import subprocess

    import ops_common

    src = tmp_path / "causal.py"
    src.write_text(CAUSAL)
    proc = subprocess.run([str(ops_common.CONVERTER), "--no-loop-split", str(src), "-o", "-"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    whole = proc.stdout
    assert "ct_loop_split" not in whole and "tl.static_range" not in whole
    assert _loops(whole, "causal") == ["range(0, hi)"]
    assert "        if j >= mask_start:\n" in whole
    split = convert_text(CAUSAL)
    assert "ct_loop_split" in split
    # outside the kernel's loop the two conversions agree
    assert whole[:whole.index("def causal(")] == split[:split.index("def causal(")]


def test_a_counter_the_body_assigns_leaves_the_loop_whole(convert_text, convert, device):
    """`j = j * 2` before the `if`: it tests another value than the counter's, so the loop is
    not split there (a split at the counter's turn would run the wrong arm)."""
    source = BANDED.replace("TEST", "j = j * 2\n        if j >= lo:")
    assert "ct_loop_split" not in convert_text(source)
    mod = convert(source)
    a, b = torch.randn(16, 96, device=device), torch.randn(96, 16, device=device)
    out = torch.zeros(16, 16, device=device)
    mod.launch_banded(0, (1,), (a, b, out, 5, 0, True, 16))
    torch.testing.assert_close(out.cpu(), _banded_reference(a.cpu(), b.cpu(), 16, lambda j: j * 2 >= 5), atol=1e-4,
                               rtol=1e-4)
