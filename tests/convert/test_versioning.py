"""A kernel lowered once per outcome of a constexpr condition (lower_version.c).

cuTile compiles a kernel per set of constexpr values, so a name may have another
rank (or shape) for each outcome of a constexpr `if`; the converter then lowers the
kernel once per outcome and joins the versions under one `if` that Triton decides
at compile time. Each test runs both outcomes against torch.
"""

import subprocess

import ops_common
import pytest
import torch

COLUMN_SUMS = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, B: ct.Constant[int], W: ct.Constant[int]):
    """Column sums of each block of B rows."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(B, W))
    if {cond}:
        v = ct.reshape(t, (B,))
    else:
        v = t
    s = ct.sum(v, axis=0)
    if {cond}:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, 1)))
    else:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, W)))
'''


def _column_sums(mod, w, n=3, b=4):
    x = torch.randn(n * b, w)
    out = torch.zeros(n, w)
    mod.launch_k(0, (n,), (x, out, b, w))
    torch.testing.assert_close(out, x.reshape(n, b, w).sum(1))


@pytest.mark.parametrize("cond", ["W == 1", "1 == W", "not W != 1", "W < 2"])
def test_rank_per_outcome_of_a_comparison(convert, cond):
    mod = convert(COLUMN_SUMS.format(cond=cond))
    _column_sums(mod, 1)
    _column_sums(mod, 4)


NEGATED_SECOND_TEST = COLUMN_SUMS.format(cond="W == 1").replace(
    """    if W == 1:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, 1)))
    else:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, W)))""",
    """    if W != 1:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, W)))
    else:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, 1)))""")


def test_negated_condition_prunes_the_other_ifs(convert, convert_text):
    assert "if W != 1:" in NEGATED_SECOND_TEST
    mod = convert(NEGATED_SECOND_TEST)
    _column_sums(mod, 1)
    _column_sums(mod, 8)
    text = convert_text(NEGATED_SECOND_TEST)
    assert text.count("if W == 1:") == 1 and "W != 1" not in text  # decided in each version


BOOL_FLAG = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, B: ct.Constant[int], FLAT: ct.Constant[bool]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(B, B))
    if FLAT:
        v = ct.reshape(t, (B * B,))
    else:
        v = t
    s = ct.sum(v, axis=0)
    if FLAT:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, 1)))
    else:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, B)))
'''


def test_rank_per_value_of_a_bool_constexpr(convert):
    mod = convert(BOOL_FLAG)
    b, n = 4, 2
    x = torch.randn(n * b, b)
    flat = torch.zeros(n, b)
    mod.launch_k(0, (n,), (x, flat, b, True))
    torch.testing.assert_close(flat[:, 0], x.reshape(n, -1).sum(1))
    cols = torch.zeros(n, b)
    mod.launch_k(0, (n,), (x, cols, b, False))
    torch.testing.assert_close(cols, x.reshape(n, b, b).sum(1))


NESTED = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, B: ct.Constant[int], MODE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(B,))
    if MODE == 0:
        v = t
    elif MODE == 1:
        v = ct.reshape(t, (1, B))
    else:
        v = ct.reshape(t, (1, 1, B))
    s = ct.sum(v, axis=0)       # rank 0, 1 or 2
    m = ct.reshape(ct.max(ct.reshape(s, (B,)) if MODE == 1 else (s if MODE == 0 else ct.reshape(s, (B,))), axis=0), (1,))
    ct.store(out, index=(i,), tile=m)
'''


def test_nested_conditions_give_three_versions(convert, convert_text):
    b, n = 8, 3
    x = torch.randn(n * b)
    for mode in (0, 1, 2):
        mod = convert(NESTED)
        out = torch.zeros(n)
        mod.launch_k(0, (n,), (x, out, b, mode))
        ref = x.reshape(n, b).sum(1) if mode == 0 else x.reshape(n, b).max(1).values
        torch.testing.assert_close(out, ref)


CONDITIONAL_EXPRESSION = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, B: ct.Constant[int], W: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(B, W))
    v = ct.reshape(t, (B,)) if W == 1 else t
    s = ct.sum(v, axis=0)
    ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, W)))
'''


def test_rank_per_outcome_of_a_conditional_expression(convert):
    mod = convert(CONDITIONAL_EXPRESSION)
    _column_sums(mod, 1)
    _column_sums(mod, 2)


def test_a_reassigned_constexpr_is_no_split(convert_error):
    source = COLUMN_SUMS.format(cond="W == 1").replace('    i = ct.bid(0)\n', '    i = ct.bid(0)\n    W = W + 0\n')
    message = convert_error(source)
    assert "C2T402" in message and "rank is not known" in message


def test_too_many_versions_is_a_located_limit(convert_error):
    lines = ["import cuda.tile as ct", "", "", "@ct.kernel",
             "def k(x, out, " + ", ".join(f"P{j}: ct.Constant[int]" for j in range(4)) + "):",
             "    t = ct.load(x, index=(0,), shape=(4,))"]
    for j in range(4):
        lines += [f"    if P{j} == 1:", "        t = ct.reshape(t, (1, 4))", "    else:",
                  "        t = ct.reshape(t, (4,))",
                  "    t = ct.reshape(ct.sum(t, axis=0), (4,)) if False else ct.reshape(t, (4,))"]
    lines += ["    ct.store(out, index=(0,), tile=t)", ""]
    message = convert_error("\n".join(lines))
    assert message.startswith("C2T002: too many versions of one function"), message


SUM_IN_A_TILE_FUNCTION = '''
import cuda.tile as ct


@ct.function
def total(v):
    return ct.sum(v, axis=0)


@ct.kernel
def k(x, out, B: ct.Constant[int], W: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(B, W))
    if W == 1:
        v = ct.reshape(t, (B,))
    else:
        v = t
    s = total(v)    # the first attempt fails in the tile function; each version lowers it for its rank
    ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, W)))
'''


def test_a_tile_function_called_with_a_tile_of_either_rank(convert):
    mod = convert(SUM_IN_A_TILE_FUNCTION)
    _column_sums(mod, 1)
    _column_sums(mod, 4)


EITHER_RANK_OVER_A_SCALAR = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, D: ct.Constant[int], AS_ROW: ct.Constant[bool]):
    """Each row divided by its sum; the row is (1, D) or (D,) by a constexpr."""
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(1, D))
    if AS_ROW:
        row = t
    else:
        row = ct.reshape(t, (D,))
    total = ct.sum(t)
    ct.store(out, index=(i, 0), tile=ct.reshape(row / total, (1, D)))
'''


@pytest.mark.parametrize("as_row", [True, False])
def test_a_tile_of_either_rank_over_a_scalar_keeps_its_rank_unknown(convert, as_row):
    """(rank unknown) / (0-d) was typed 0-d, and the reshape became tl.broadcast_to of a
    (1, D) or (D,) tile, which Triton refuses (TileGym's splitk_reduce)."""
    mod = convert(EITHER_RANK_OVER_A_SCALAR)
    x = torch.rand(3, 16) + 0.5
    out = torch.zeros(3, 16)
    mod.launch_k(0, (3,), (x, out, 16, as_row))
    torch.testing.assert_close(out, x / x.sum(1, keepdim=True))


NONE_OR_TILE = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, out, R: ct.Constant[int], D: ct.Constant[int]):
    """An optional operand: None unless R > 0, used only under R > 0 (inside a loop)."""
    i = ct.bid(0)
    extra = None
    if R > 0:
        extra = ct.reshape(ct.load(y, index=(i, 0, 0), shape=(16, 1, R)), (16, R))
    acc = ct.zeros((16, 16), dtype=ct.float32)
    for j in range(2):
        qk = ct.mma(ct.load(x, index=(i, 0), shape=(16, D)), ct.load(x, index=(j, 0), shape=(D, 16)), acc)
        if R > 0:
            other = ct.reshape(ct.load(y, index=(j, 0, 0), shape=(16, 1, R)), (16, R))
            qk = ct.mma(extra, ct.transpose(other), qk)
        acc = qk
    ct.store(out, index=(i, 0), tile=acc)
'''

def _check_optional_operand(mod, r):
    """Launch k of an optional-operand module (x, y or None for r == 0) against torch."""
    x = torch.randn(32, 16)
    y = torch.randn(32, 1, max(r, 16))
    out = torch.zeros(32, 16)
    mod.launch_k(0, (2,), (x, y[:, :, :r] if r else y, out, r, 16))
    ref = torch.zeros(32, 16)
    for i in range(2):
        acc = torch.zeros(16, 16)
        for j in range(2):
            acc = acc + x[i * 16:(i + 1) * 16] @ x[j * 16:(j + 1) * 16]
            if r:
                acc = acc + y[i * 16:(i + 1) * 16, 0, :r] @ y[j * 16:(j + 1) * 16, 0, :r].T
        ref[i * 16:(i + 1) * 16] = acc
    torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)



@pytest.mark.parametrize("r", [0, 16])
def test_a_name_that_is_none_or_a_tile_per_constexpr_gives_two_versions(convert, r):
    """`extra = None; if R > 0: extra = ct.load(...)` (TileGym's fmha_prefill_bsr q_pe): the
    kernel is lowered once with R > 0 and once without, as cuTile compiles it per R."""
    mod = convert(NONE_OR_TILE)
    _check_optional_operand(mod, r)


# ------------------------------------------------------- versions of tile functions
#
# A tile function is lowered once per call signature; its body may split the same way a
# kernel's does, on its own constant parameters (`ct.Constant` ones, or those a call gives a
# constant), which are tl.constexpr in Triton: the versions are joined under one `if` in the
# function, and Triton compiles one of them per call.

OPTIONAL_OPERAND_IN_A_TILE_FUNCTION = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


def attend(x, y, out, i, R: ConstInt, D: ConstInt):
    """An optional operand: None unless R > 0, used only under R > 0 (inside a loop)."""
    extra = None
    if R > 0:
        extra = ct.reshape(ct.load(y, index=(i, 0, 0), shape=(16, 1, R)), (16, R))
    acc = ct.zeros((16, 16), dtype=ct.float32)
    for j in range(2):
        qk = ct.mma(ct.load(x, index=(i, 0), shape=(16, D)), ct.load(x, index=(j, 0), shape=(D, 16)), acc)
        if R > 0:
            other = ct.reshape(ct.load(y, index=(j, 0, 0), shape=(16, 1, R)), (16, R))
            qk = ct.mma(extra, ct.transpose(other), qk)
        acc = qk
    ct.store(out, index=(i, 0), tile=acc)


@ct.kernel
def k(x, y, out, R: ConstInt, D: ConstInt):
    attend(x, y, out, ct.bid(0), R, D)
'''


@pytest.mark.parametrize("r", [0, 16])
def test_a_tile_function_with_an_optional_operand_gives_two_versions(convert, r):
    """`extra = None; if R > 0: extra = ct.load(...)` in a tile function (TileGym's
    fmha_prefill_bsr body, whose q_pe is this): lowered once with R > 0 and once without."""
    mod = convert(OPTIONAL_OPERAND_IN_A_TILE_FUNCTION)
    _check_optional_operand(mod, r)


def test_the_versions_of_a_tile_function_are_joined_in_it(convert_text):
    text = convert_text(OPTIONAL_OPERAND_IN_A_TILE_FUNCTION)
    body = text.split("def attend(")[1].split("\n@")[0]
    assert body.count("if R > 0:") == 1 and "\n    else:\n" in body  # one if on R in the function
    assert body.count("ct_mma(") == 3  # two products with R > 0, one without
    kernel = text.split("def k(")[1].split("\ndef ")[0]
    assert "if R > 0" not in kernel  # the kernel itself is one version


RANK_IN_A_TILE_FUNCTION = '''
import cuda.tile as ct


def column_sums(t, B, W):
    """Column sums of a (B, W) tile, through a (B,) vector when W == 1."""
    if W == 1:
        v = ct.reshape(t, (B,))
    else:
        v = t
    s = ct.sum(v, axis=0)
    return ct.reshape(s, (1, W))


def raw_sums(t, B, W):
    if W == 1:
        v = ct.reshape(t, (B,))
    else:
        v = t
    return ct.sum(v, axis=0)     # 0-d when W == 1, (W,) otherwise


@ct.kernel
def k(x, out, out2, B: ct.Constant[int], W: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(B, W))
    ct.store(out, index=(i, 0), tile=column_sums(t, B, W))
    ct.store(out2, index=(i, 0), tile=ct.reshape(raw_sums(t, B, W), (1, W)))
'''


@pytest.mark.parametrize("w", [1, 4])
def test_a_rank_per_outcome_in_a_tile_function_and_in_what_it_returns(convert, w):
    """column_sums splits on its own W (given the kernel's constexpr, so a tl.constexpr);
    raw_sums returns another rank per outcome, so the kernel that reshapes what it returns
    splits on the same condition in its own terms, and each of its versions knows which
    version of raw_sums it calls."""
    mod = convert(RANK_IN_A_TILE_FUNCTION)
    x = torch.randn(12, w)
    out, out2 = torch.zeros(3, w), torch.zeros(3, w)
    mod.launch_k(0, (3,), (x, out, out2, 4, w))
    ref = x.reshape(3, 4, w).sum(1)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(out2, ref)


SHAPE_OF_A_TILE_PARAMETER = '''
import cuda.tile as ct


def weighted_rows(t, w):
    """A product for 16 rows or more, a broadcast sum below: another rank per outcome."""
    {unpack}
    if N >= 16:
        r = ct.extract(ct.mma(ct.reshape(w, (1, N)), t, ct.zeros((1, D), dtype=ct.float32)), (0, 0), shape=(1, D))
    else:
        r = ct.sum(t * ct.reshape(w, (N, 1)), axis=0)
    return r


@ct.kernel
def k(x, wt, out, N: ct.Constant[int], D: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(N, D))
    w = ct.load(wt, index=(0,), shape=(N,))
    acc = weighted_rows(t, w)
    ct.store(out, index=(0, 0), tile=ct.reshape(acc, (1, D)))
'''


@pytest.mark.parametrize("unpack", ["N, D = t.shape", "N = t.shape[0]\n    D = t.shape[1]"])
@pytest.mark.parametrize("n", [8, 16])
def test_a_split_on_a_dimension_of_a_tile_parameter(convert, convert_text, unpack, n):
    """`N, D = t.shape` then `if N >= 16` in a tile function: N is a constexpr with one
    value (a shape), so the function splits on it (the joined `if` reads t.shape[0], as N
    is bound inside each version), and the kernel, whose t has N rows, splits on N >= 16
    in its own terms (it reshapes what the function returns, of another rank per version)."""
    source = SHAPE_OF_A_TILE_PARAMETER.format(unpack=unpack)
    assert "if t.shape[0] >= 16:" in convert_text(source)
    mod = convert(source)
    x, w = torch.randn(n, 32), torch.randn(n)
    out = torch.zeros(1, 32)
    mod.launch_k(0, (1,), (x, w, out, n, 32))
    torch.testing.assert_close(out, (w[None, :] @ x), rtol=1e-4, atol=1e-4)


def test_a_literal_argument_picks_the_version_a_call_returns(convert):
    """raw_sums(t, B, 1): the call decides W == 1 itself, so its result has a known rank."""
    source = RANK_IN_A_TILE_FUNCTION.replace(
        "ct.store(out2, index=(i, 0), tile=ct.reshape(raw_sums(t, B, W), (1, W)))",
        "ct.store(out2, index=(i, 0), tile=ct.reshape(raw_sums(ct.reshape(t, (B * W, 1)), B * W, 1), (1, 1)))")
    mod = convert(source)
    x = torch.randn(12, 2)
    out, out2 = torch.zeros(3, 2), torch.zeros(3, 1)
    mod.launch_k(0, (3,), (x, out, out2, 4, 2))
    torch.testing.assert_close(out, x.reshape(3, 4, 2).sum(1))
    torch.testing.assert_close(out2, x.reshape(3, 8).sum(1, keepdim=True))


def test_versions_returning_none_and_a_tile_are_a_located_error(convert_error):
    message = convert_error('''
import cuda.tile as ct


def doubled_or_none(t, R: ct.Constant[int]):
    extra = None
    if R > 0:
        extra = t * 2
    if R > 0:
        extra = ct.sum(extra, axis=0)
    return extra


@ct.kernel
def k(x, out, B: ct.Constant[int], R: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    e = doubled_or_none(t, R)
    ct.store(out, index=(ct.bid(0),), tile=t)
''')
    assert message.startswith("C2T402: the versions of this tile function") and "None" in message, message


def test_too_many_versions_of_a_tile_function_is_a_located_limit(convert_error):
    lines = ["import cuda.tile as ct", "", "",
             "def f(x, out, " + ", ".join(f"P{j}: ct.Constant[int]" for j in range(4)) + "):",
             "    t = ct.load(x, index=(0,), shape=(4,))"]
    for j in range(4):
        lines += [f"    if P{j} == 1:", "        t = ct.reshape(t, (1, 4))", "    else:",
                  "        t = ct.reshape(t, (4,))",
                  "    t = ct.reshape(ct.sum(t, axis=0), (4,)) if False else ct.reshape(t, (4,))"]
    lines += ["    ct.store(out, index=(0,), tile=t)", "", "", "@ct.kernel",
              "def k(x, out, " + ", ".join(f"P{j}: ct.Constant[int]" for j in range(4)) + "):",
              "    f(x, out, " + ", ".join(f"P{j}" for j in range(4)) + ")", ""]
    message = convert_error("\n".join(lines))
    assert message.startswith("C2T002: too many versions of one function"), message


# ------------------------- what a failed attempt at a version leaves behind

HELPER_BEFORE_THE_SPLIT = '''
import cuda.tile as ct


def halve(t, D: ct.Constant[int]):
    return t // D


@ct.kernel
def k(x, y, B: ct.Constant[int], W: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    h = halve(t, 2)                 # lowered in the kernel's first attempt, kept for its versions
    if W == 1:
        acc = ct.zeros((B,), dtype=ct.int32)
    else:
        acc = ct.zeros((B, W), dtype=ct.int32)
    s = ct.sum(acc, axis=0)
    ct.store(y, index=(ct.bid(0),), tile=h + ct.reshape(ct.sum(ct.reshape(s, (1, -1)), axis=1), (1,)))
'''


@pytest.mark.parametrize("w", [1, 2])
def test_a_helper_of_a_tile_function_lowered_before_a_split_stays(convert, w):
    """halve's floor division calls the ct_floordiv helper; the kernel's first attempt lowered
    halve, then split; its versions reuse halve, so the helper must still be in the module."""
    mod = convert(HELPER_BEFORE_THE_SPLIT)
    x = torch.arange(-8, 8, dtype=torch.int32)
    y = torch.zeros(16, dtype=torch.int32)
    mod.launch_k(0, (1,), (x, y, 16, w))
    torch.testing.assert_close(y, torch.div(x, 2, rounding_mode="floor"))


SPECIALIZATION_IN_A_FAILED_ATTEMPT = '''
import cuda.tile as ct


def total(v):
    return ct.sum(v, axis=-1)


@ct.kernel
def k(x, out, out2, B: ct.Constant[int], W: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(B, W))
    a = total(ct.reshape(t, (B * W,)))      # total for a 1-D tile
    if W == 1:
        v = ct.reshape(t, (1, B))
    else:
        v = ct.transpose(t)
    s = total(v)                            # the first attempt made a copy for a rank it did not know
    ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, W)))
    ct.store(out2, index=(i,), tile=ct.reshape(a, (1,)))
'''


@pytest.mark.parametrize("w", [1, 4])
def test_a_specialization_made_by_a_failed_attempt_is_dropped(convert, convert_text, w):
    """The copy of `total` that the kernel's failed first attempt made stayed in the module,
    named `total` again, and replaced the first one."""
    text = convert_text(SPECIALIZATION_IN_A_FAILED_ATTEMPT)
    assert text.count("def total(") == 1 and "ct.sum(v, axis=-1)" not in text
    mod = convert(SPECIALIZATION_IN_A_FAILED_ATTEMPT)
    x = torch.randn(12, w)
    out, out2 = torch.zeros(3, w), torch.zeros(3)
    mod.launch_k(0, (3,), (x, out, out2, 4, w))
    torch.testing.assert_close(out, x.reshape(3, 4, w).sum(1))
    torch.testing.assert_close(out2, x.reshape(3, -1).sum(1))


# ------------------- a tile function no kernel calls and nothing converted can call

UNCALLABLE = '''
import cuda.tile as ct


def gather_next(a, i):
    """Element i + 1 of a."""
    return ct.gather(a, (i + 1,), padding_value=0)


def gather_next_twice(a, i):
    return gather_next(a, i) * 2


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=t + 1)
'''


def test_an_unused_tile_function_taking_an_array_that_needs_a_call_is_a_stub(convert, convert_text):
    """No kernel calls gather_next, and another module's kernel could not pass it an array
    (that is refused there): lowered without a call, the rank of `i` is unknown, so it
    becomes a stub that names why if Triton ever compiles it; so does the function calling it.
    The kernel converts and runs (TileGym's fmha_decode_bsr has such a function)."""
    text = convert_text(UNCALLABLE)
    stub = text.split("def gather_next(a, i):")[1].split("\n@")[0]
    assert '"""Element i + 1 of a."""' in stub
    assert "tl.static_assert(" in stub and "gather_next was not converted" in stub
    assert "7:5: error: C2T402: the rank of this index is not known" in stub
    twice = text.split("def gather_next_twice(a, i):")[1].split("\n@")[0]
    assert "tile function 'gather_next' cannot be converted without a call from a kernel" in twice
    assert "ct.gather(" not in text  # nothing of the cuTile body left
    mod = convert(UNCALLABLE)
    x = torch.randn(32)
    y = torch.zeros(32)
    mod.launch_k(0, (2,), (x, y, 16))
    torch.testing.assert_close(y, x + 1)


def test_an_unused_tile_function_whose_tiles_need_a_call_is_a_stub_and_importers_copy_it(tmp_path, device):
    """No kernel of its module calls last_total, whose axis=-1 needs its argument's rank: it
    becomes a stub naming why (cuTile compiles a function only for a call; a public bitonic-sort
    module failed to convert over such an unused helper). A module that imports it converts a
    copy of it from the source (resolve_siblings.c), specialized at its call, and runs."""
    lib = tmp_path / "tilelib.py"
    lib.write_text(UNCALLABLE.replace('''def gather_next_twice(a, i):
    return gather_next(a, i) * 2''', '''def last_total(t):
    return ct.sum(t, axis=-1)'''))
    proc = subprocess.run([str(ops_common.CONVERTER), str(lib)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    stub = proc.stdout.split("def last_total(t):")[1].split("\n@")[0]
    assert "last_total was not converted" in stub and "ranks or dtypes come only with a call" in stub
    user = tmp_path / "user.py"
    user.write_text('''
import cuda.tile as ct
from tilelib import last_total


@ct.kernel
def totals(x, y, R: ct.Constant[int], C: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(R, C))
    ct.store(y, index=(ct.bid(0),), tile=last_total(t))
''')
    out = tmp_path / "user_triton.py"
    proc = subprocess.run([str(ops_common.CONVERTER), str(user), "-o", str(out)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    mod = ops_common.import_file(out, "c2t_case_user_triton")
    x = torch.randn(8, 16, device=device)
    y = torch.empty(8, device=device)
    mod.launch_totals(0, (2,), (x, y, 4, 16))
    torch.testing.assert_close(y, x.sum(-1))


SIZE_PER_OUTCOME = '''
import cuda.tile as ct


@ct.function
def first_block(x, FLAG, BM, BN):
    if FLAG == 1:
        return ct.load(x, index=(ct.bid(0),), shape=(BM,))
    return ct.load(x, index=(ct.bid(0),), shape=(BN,))


@ct.kernel
def k(x, y, FLAG: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int]):
    {body}
    z = ct.full(t.shape, 3.0, dtype=ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=z + t)
'''
SIZE_BODIES = {
    "if": """if FLAG == 1:
        t = ct.load(x, index=(ct.bid(0),), shape=(BM,))
    else:
        t = ct.load(x, index=(ct.bid(0),), shape=(BN,))""",
    "function": "t = first_block(x, FLAG, BM, BN)",
}


@pytest.mark.parametrize("how", sorted(SIZE_BODIES))
def test_a_size_chosen_by_a_constexpr_is_the_chosen_one(convert, convert_text, how):
    """After a constexpr `if` (or a tile function's versions) giving a tile BM elements in
    one outcome and BN in the other, its size is neither name: `ct.full(t.shape, ...)` was
    written with BN, so FLAG == 1 stored BN elements at bid * BN (a silent wrong result)."""
    source = SIZE_PER_OUTCOME.format(body=SIZE_BODIES[how])
    assert "tl.full((BN,)" not in convert_text(source)
    mod = convert(source)
    x = torch.randn(64)
    for flag, tiles in ((1, 4), (0, 2)):
        y = torch.zeros(64)
        mod.launch_k(0, (tiles,), (x, y, flag, 16, 32))
        torch.testing.assert_close(y, x + 3.0)


RUN_TIME_BRANCHES = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, BM: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(BM,))
    if ct.sum(t) > 0:
        u = t * 2
    else:
        u = ct.full((BM,), 0.0, dtype=ct.float32)
    ct.store(y, index=(ct.bid(0), 0), tile=ct.reshape(u, (1, BM)))
'''


def test_a_run_time_if_keeps_the_sizes_its_branches_share(convert):
    mod = convert(RUN_TIME_BRANCHES)
    x = torch.tensor([1.0, 2.0, -5.0, 1.0])
    y = torch.zeros(2, 2)
    mod.launch_k(0, (2,), (x, y, 2))
    torch.testing.assert_close(y, torch.tensor([[2.0, 4.0], [0.0, 0.0]]))


COMMENTED_VERSIONS = (COLUMN_SUMS.format(cond="W == 1")
                      .replace("    t = ct.load(", "    # the block of rows\n    t = ct.load(")
                      .replace("        v = ct.reshape(", "        # one column: a vector\n        v = ct.reshape(")
                      .replace("        v = t\n", "        # W columns: the tile\n        v = t\n\n    # column sums\n"))


def test_each_version_keeps_its_own_comments_and_none_of_the_other(convert, convert_text):
    """Each version is written with the comments of the lines it holds, less those of the
    branch it left out: the second version had no comments at all, and the first one read
    the other outcome's comments (and a blank line too many where a branch was left out)."""
    text = convert_text(COMMENTED_VERSIONS)
    body = text[text.index("def k("):text.index("def launch_k(")]
    first, second = body.split("\n    else:\n", 1)
    for version, mine, other in ((first, "# one column: a vector", "# W columns: the tile"),
                                 (second, "# W columns: the tile", "# one column: a vector")):
        assert mine in version and other not in version, version
        assert "# the block of rows" in version and "# column sums" in version, version
        assert "\n\n\n" not in version.rstrip(), version
    _column_sums(convert(COMMENTED_VERSIONS), 1)
    _column_sums(convert(COMMENTED_VERSIONS), 4)


CHOSEN_ARRAY = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, out, USE_X: ct.Constant[bool], T: ct.Constant[int]):
    src = x if USE_X else y
    if USE_X:
        dst = out
    else:
        dst = out
    if not USE_X:
        other = x
    else:
        other = y
    ct.store(dst, (ct.bid(0),), ct.load(src, (ct.bid(0),), (T,)) * 10 + ct.load(other, (ct.bid(0),), (T,)))
'''


def test_an_array_chosen_by_a_constexpr_is_a_version_each(convert, convert_text):
    """`src = x if USE_X else y`, or the same by an `if` statement, then loads through src: the
    arrays are parameters (pointer, shape and strides), not values Triton can choose at run
    time, so the kernel is lowered once per outcome. Both were refused ("ct.load() works on
    an array, not a scalar"; "a different array in each branch"); no `pass` is left where the
    chosen name's assignment converted to nothing."""
    text = convert_text(CHOSEN_ARRAY)
    assert "pass" not in text.split("def k(")[1].split("def launch_k")[0]
    mod = convert(CHOSEN_ARRAY)
    x, y = torch.arange(16.0, device=ops_common.DEVICE), torch.full((16,), 0.5, device=ops_common.DEVICE)
    for use_x, want in ((True, x * 10 + 0.5), (False, y * 10 + x)):
        out = torch.zeros(16, device=ops_common.DEVICE)
        mod.launch_k(0, (2,), (x, y, out, use_x, 8))
        torch.testing.assert_close(out, want)


def test_a_tuple_of_float8_dtypes_indexed_by_a_constant_is_a_located_error(convert_error):
    """float4_e2m1fn (and float8_e8m0fnu) tiles are held as their bits in other Triton dtypes,
    chosen where the dtype is known at conversion: a tuple holding one indexed by a ct.Constant
    is refused by name (float8_e4m3fn alone is Triton's float8e4nv and converts)."""
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(x, y, D: ct.Constant[int]):
    dt = (ct.float4_e2m1fn, ct.float8_e4m3fn)[D]
    ct.store(y, (0,), ct.load(x, (0,), (16,)).astype(dt).astype(ct.float32))
''')
    assert message.startswith("C2T402: a tuple holding the dtype float4_e2m1fn indexed by a value known only"), message


RENAMED_IN_EACH_VERSION = '''
import cuda.tile as ct


@ct.kernel
def k(q, out, BLOCK: ct.Constant[int], R: ct.Constant[int]):
    q_pe = None
    if R > 0:
        q_pe = ct.load(q, index=(0,), shape=(BLOCK,))
    acc = ct.full((BLOCK,), 0.0, dtype=ct.float32)
    base = ct.arange(BLOCK, dtype=ct.int32)
    for i in range(2):
        offs = i + base
    for i in range(3):
        qk = ct.full((BLOCK,), 1.0, dtype=ct.float32)
        if R > 0:
            qk = qk + q_pe
        offs = i + base
        mask = 2 <= offs
        acc = acc + ct.where(mask, qk, 0.0)
    ct.store(out, index=(0,), tile=acc)
'''


def test_a_loop_local_renamed_in_each_version_of_the_kernel(convert, device):
    """`offs` is set afresh in the second loop, so each version names it `offs_1` there; the
    right operand of `2 <= offs` was shared between the kernel as written and its copies (a
    comparison's operands array), so the first attempt's renaming reached the next version's
    source ("name 'offs_1' is not defined", FlashInfer's block-sparse prefill)."""
    mod = convert(RENAMED_IN_EACH_VERSION)
    q = torch.rand(8, device=device)
    for r in (0, 1):
        out = torch.empty(8, device=device)
        mod.launch_k(0, (1,), (q, out, 8, r))
        per_step = 1.0 + (q if r else 0.0)
        steps = torch.stack([(torch.arange(8, device=device) + i >= 2).float() for i in range(3)]).sum(0)
        torch.testing.assert_close(out, per_step * steps)


OPTIONAL_INPUT = '''
import cuda.tile as ct


@ct.function
def combine(t, r):
    if r is not None:
        t = t + r
    return t


@ct.function
def add_optional(t, b, HAS):
    r = None
    if HAS:
        r = ct.load(b, (0,), shape=(8,))
    if r is not None:
        t = t + r
    return t


@ct.kernel
def k(a, b, y, FLAG: ct.Constant[bool]):
    {bind}
    out = ct.load(a, (0,), shape=(8,))
    if res is None:
        out = out * 10.0
    flag = 0 if res is None else 1
    out = combine(out, res) + flag
    for i in range(2):
        if res is not None:
            out = out + 1.0
    ct.store(y, (0,), out + add_optional(out, b, FLAG))
'''


@pytest.mark.parametrize("bind", [
    "res = None\n    if FLAG:\n        res = ct.load(b, (0,), shape=(8,))",
    "if FLAG:\n        res = ct.load(b, (0,), shape=(8,))\n    else:\n        res = None",
    "res = ct.load(b, (0,), shape=(8,)) if FLAG else None",
])
def test_an_optional_input_tested_with_is_none(convert, device, bind):
    """`res = None` / `if FLAG: res = ct.load(...)` then `if res is not None:` (optional bias,
    residual): which one `res` is comes with the constexpr, so each test of it is decided per
    outcome. The test was folded for the None branch (`is not None` false for FLAG=True too:
    the bias never added), in the kernel and in a tile function alike."""
    mod = convert(OPTIONAL_INPUT.replace("{bind}", bind))
    a = torch.arange(8.0, device=device)
    b = torch.full((8,), 100.0, device=device)
    for flag in (True, False):
        y = torch.zeros(8, device=device)
        mod.launch_k(0, (1,), (a, b, y, flag))
        out = a + b + 1 + 2 if flag else a * 10
        torch.testing.assert_close(y, out + (out + b if flag else out))
