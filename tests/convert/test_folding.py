"""Constant folding in cuTile's int64 (issue 7, defect 4).

cuTile's integer constants are int64: a folded constant expression whose
value leaves int64, or that divides by a known zero, is a located error of
the conversion (the release build used to wrap silently, the sanitizer build
to abort). In-range folds keep Python's semantics (floor division and
modulo), checked here against Python's own arithmetic.
"""

import pytest
import torch

INT64_MAX = 2**63 - 1

SHAPE_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y):
    t = ct.load(x, index=(ct.bid(0),), shape=({shape},))
    ct.store(y, index=(ct.bid(0),), tile=t)
"""

VALUE_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t + ({expr}))
"""

OVERFLOWS = [
    "9223372036854775807 + 1",
    "-9223372036854775807 - 2",
    "-(-9223372036854775807 - 1)",
    "4611686018427387904 * 2",
    "3037000500 * 3037000500",
    "abs(-9223372036854775807 - 1)",
    "ct.cdiv(-9223372036854775807 - 1, -1)",
    "int(1e19)",
    "int(1e300 * 1e300)",
]


@pytest.mark.parametrize("expr", OVERFLOWS)
def test_overflowing_fold_is_a_located_error(convert_error, expr):
    message = convert_error(VALUE_KERNEL.format(expr=expr))
    assert "int64" in message, message


def test_overflowing_shape_is_a_located_error(convert_error):
    message = convert_error(SHAPE_KERNEL.format(shape="9223372036854775807 + 1"))
    assert "overflows int64" in message, message


def test_a_literal_of_2_63_or_more_names_cutiles_uint64(convert_error):
    # cuTile types 0xFFFFFFFFFFFFFFFF a uint64 constant; the message said it did not fit 64 bits
    message = convert_error(VALUE_KERNEL.format(expr="0xFFFFFFFFFFFFFFFF"))
    assert "is 2**63 or more, a uint64 constant in cuTile" in message, message
    message = convert_error(VALUE_KERNEL.format(expr="0x1FFFFFFFFFFFFFFFF"))
    assert "does not fit in 64 bits" in message, message


@pytest.mark.parametrize("expr", ["1 / 0", "1 // 0", "1 % 0", "1.5 / 0.0", "ct.cdiv(7, 0)"])
def test_division_by_a_known_zero_is_a_located_error(convert_error, expr):
    message = convert_error(VALUE_KERNEL.format(expr=expr))
    assert "by zero" in message, message


@pytest.mark.parametrize("expr, value", [
    ("9223372036854775806 + 1", INT64_MAX),
    ("-9223372036854775807 - 1 + 9223372036854775807", -1),
    ("3037000499 * 3037000499 - 9223372030926249001", 0),
    ("ct.cdiv(-7, 2)", -3),
    ("ct.cdiv(7, -2)", -3),
    ("ct.cdiv(7, 2)", 4),
    ("-(-5)", 5),
])
def test_in_range_folds_keep_their_value(convert, device, expr, value):
    assert eval(expr.replace("ct.cdiv", "(lambda a, b: -(-a // b))")) == value
    mod = convert(VALUE_KERNEL.format(expr=expr))
    x = torch.zeros(16, dtype=torch.int64, device=device)
    y = torch.zeros(16, dtype=torch.int64, device=device)
    mod.launch_k(0, (1,), (x, y, 16))
    assert torch.equal(y.cpu(), torch.full((16,), value, dtype=torch.int64))
