"""The converter's dtypes of binary operations against real cuTile's, pair by pair.

data/cutile_dtypes.json holds what cuTile 1.7's front end gives `x OP y` for 18 operations
(arithmetic, bitwise, shifts, comparisons, where, maximum, atan2, reversed operands), x a tile
of 9 dtypes and y a tile of those or a Python int, float or bool, and 34 operations of one tile
(negation, ~, not, abs, math functions, reductions, scans, astype to 12 dtypes, tfloat32 and
float8 among them): the result's dtype, or cuTile's error (tools/cutile_dtype_table.py
made it with real cuTile). Here the dtypes are known when the converter reads the kernel (the
tiles are astype'd), so it decides each case itself: every result cuTile types must convert,
with ct.static_assert(r.dtype == ct.D) holding (the converter folds it, and fails where it does
not hold), and every operation cuTile refuses must be a located error. (With dtypes known only
at launch Triton's promotion decides; where it differs, integer or bool with bfloat16, is a
known residual: test_math.py.)"""
import json
from pathlib import Path

import pytest

RECORD = json.loads((Path(__file__).parent / "data" / "cutile_dtypes.json").read_text())
DATA, NUMBERS, OPS, UNARY = RECORD["table"], RECORD["numbers"], RECORD["binary"], RECORD["unary"]
PAIRS = sorted({tuple(key.split("|")[:2]) for key in DATA})


def ops_of(b):
    return UNARY if b == "-" else OPS


def kernel(a, b, ops):
    """A kernel computing each op of `ops` ((op, dtype or None) pairs) on an `a` tile and a `b` tile
    or number, asserting the dtype where one is given."""
    y = "x" if b == "-" else NUMBERS.get(b, f"ct.load(b, index=(0,), shape=(16,)).astype(ct.{b})")
    body = "".join(f"    r{i} = {ops_of(b)[op]}\n" + (f"    ct.static_assert(r{i}.dtype == ct.{dtype})\n" if dtype else "")
                   for i, (op, dtype) in enumerate(ops))
    return ("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(a, b, out):\n"
            f"    x = ct.load(a, index=(0,), shape=(16,)).astype(ct.{a})\n    y = {y}\n    m = x == x\n"
            f"{body}    ct.store(out, index=(0,), tile=x)\n")


def test_the_table_covers_every_case():
    assert len(DATA) == 9 * (12 * len(OPS) + len(UNARY)) and len(UNARY) == 34
    assert all(f"{a}|{b}|{op}" in DATA for a, b in PAIRS for op in ops_of(b))


@pytest.mark.parametrize("a, b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_binary_operation_dtypes_are_cutiles(convert_text, convert_error, a, b):
    typed = [(op, DATA[f"{a}|{b}|{op}"]) for op in ops_of(b) if not DATA[f"{a}|{b}|{op}"].startswith("ERR")]
    if typed:
        convert_text(kernel(a, b, typed))  # fails on the first static assertion that does not hold
    for op in ops_of(b):
        if DATA[f"{a}|{b}|{op}"].startswith("ERR"):
            assert convert_error(kernel(a, b, [(op, None)])).startswith("C2T4"), (op, DATA[f"{a}|{b}|{op}"])
