"""The runtime helpers of src/lower/helpers/ (the Python the generated modules carry).

- src/lower/helper_text.h is what tools/gen_helpers.py makes of them now (not stale);
- every helper parses with CPython on its own, as the converter emits it;
- the self-contained ones run under Triton's interpreter (TRITON_INTERPRET=1)
  from a tiny kernel against a torch reference: the arithmetic helpers (floor
  division, Python modulo, IEEE true division, exact ceiling division), a
  reduction helper (ct_sum keeps the dtype, ct_argmax ties and NaN), the
  NaN-propagating max, and ct_atomic_cas's mask emulation.
"""
import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported

import pytest  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import gen_helpers  # noqa: E402

HELPERS = gen_helpers.all_helpers()


def test_header_is_not_stale():
    header = (REPO / "src" / "lower" / "helper_text.h").read_text()
    assert header == gen_helpers.generate(), "run: python3 tools/gen_helpers.py > src/lower/helper_text.h"


def test_generator_runs_as_a_script():
    out = subprocess.run([sys.executable, str(REPO / "tools" / "gen_helpers.py")], capture_output=True, text=True,
                         check=True).stdout
    assert out == gen_helpers.generate()


@pytest.mark.parametrize("file,name,needs,text", HELPERS, ids=[h[1] for h in HELPERS])
def test_helper_parses_alone(file, name, needs, text):
    module = ast.parse(text)
    defined = {node.name for node in module.body if isinstance(node, ast.FunctionDef)}
    defined |= {t.id for node in module.body if isinstance(node, ast.Assign) for t in node.targets}
    assert name in defined, f"{file}: helper {name} does not define {name}"
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_every_helper_is_used_by_the_converter():
    sources = "".join(p.read_text() for p in (REPO / "src" / "lower").glob("*.c"))
    unused = [name for _, name, _, _ in HELPERS if f"HELPER_{name}" not in sources and
              not any(name in needs for _, _, needs, _ in HELPERS)]
    assert unused == []


def test_marker_needs_are_checked(tmp_path, monkeypatch):
    bad = tmp_path / "bad.py"
    bad.write_text("# helper: a\ndef a():\n    return b()\n\n\n# helper: b\ndef b():\n    return 1\n")
    monkeypatch.setattr(gen_helpers, "FOLDER", tmp_path)
    with pytest.raises(SystemExit, match="a says it needs"):
        gen_helpers.all_helpers()


def load(file):
    """The helper file as a module (its preamble imports triton and defines INTERPRETED)."""
    path = REPO / "src" / "lower" / "helpers" / file
    spec = importlib.util.spec_from_file_location(f"c2t_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


M = load("math_helpers.py")
R = load("reduce_helpers.py")
MEM = load("memory_helpers.py")


@triton.jit
def binary_kernel(x, y, out, N: tl.constexpr, OP: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(x + i)
    b = tl.load(y + i)
    if OP == "floordiv":
        r = M.ct_floordiv(a, b)
    elif OP == "mod":
        r = M.ct_mod(a, b)
    elif OP == "truediv":
        r = M.ct_truediv(a, b)
    else:
        r = M.ct_cdiv(a, b)
    tl.store(out + i, r)


def run_binary(op, a, b, out_dtype):
    out = torch.empty(a.shape, dtype=out_dtype)
    binary_kernel[(1,)](a, b, out, a.numel(), op)
    return out


INTS = torch.tensor([7, -7, 7, -7, 0, 5, -1, 9], dtype=torch.int32)
DIVS = torch.tensor([2, 2, -2, -2, 3, 5, 4, -4], dtype=torch.int32)


def test_floordiv_rounds_toward_negative_infinity():
    assert run_binary("floordiv", INTS, DIVS, torch.int32).tolist() == [a // b for a, b in zip(INTS.tolist(), DIVS.tolist())]
    x = torch.tensor([7.5, -7.5, 1.0, -1.0], dtype=torch.float32)
    y = torch.tensor([2.0, 2.0, -0.3, 0.3], dtype=torch.float32)
    assert torch.equal(run_binary("floordiv", x, y, torch.float32), torch.floor(x / y))


def test_mod_has_the_sign_of_the_divisor():
    assert run_binary("mod", INTS, DIVS, torch.int32).tolist() == [a % b for a, b in zip(INTS.tolist(), DIVS.tolist())]
    x = torch.tensor([7.5, -7.5, 7.5, -7.5], dtype=torch.float32)
    y = torch.tensor([2.0, 2.0, -2.0, -2.0], dtype=torch.float32)
    assert run_binary("mod", x, y, torch.float32).tolist() == [1.5, 0.5, -0.5, -1.5]


def test_truediv_is_ieee_and_integers_give_float32():
    x = torch.randn(64, dtype=torch.float32)
    y = torch.randn(64, dtype=torch.float32)
    assert torch.equal(run_binary("truediv", x, y, torch.float32), x / y)
    assert torch.equal(run_binary("truediv", INTS, DIVS, torch.float32), INTS.float() / DIVS.float())


def test_cdiv_is_the_exact_ceiling_for_any_sign():
    expected = [-((-a) // b) for a, b in zip(INTS.tolist(), DIVS.tolist())]
    assert run_binary("cdiv", INTS, DIVS, torch.int32).tolist() == expected


@triton.jit
def reduce_kernel(x, out, index_out, M: tl.constexpr, N: tl.constexpr):
    t = tl.load(x + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out + tl.arange(0, M), R.ct_sum(t, 1, False))
    tl.store(index_out + tl.arange(0, M), R.ct_argmax(t, tl.arange(0, N)[None, :], 1, False))


def test_sum_keeps_int8_and_argmax_takes_the_first_largest():
    x = torch.tensor([[100, 100, 1, 100], [-5, 3, 3, 0]], dtype=torch.int8)
    out = torch.empty(2, dtype=torch.int8)
    index = torch.empty(2, dtype=torch.int32)
    reduce_kernel[(1,)](x, out, index, 2, 4)
    assert out.tolist() == [(301 + 128) % 256 - 128, 1]  # wraps in int8, as cuTile's int8 sum
    assert index.tolist() == [0, 1]


@triton.jit
def float_reduce_kernel(x, out, index_out, N: tl.constexpr):
    t = tl.load(x + tl.arange(0, N))
    tl.store(out, R.ct_max_propagate_nan(t, 0, False))
    tl.store(index_out, R.ct_argmax(t, tl.arange(0, N), 0, False))


def test_max_propagates_nan_and_argmax_ranks_nan_last():
    x = torch.tensor([1.0, float("nan"), 3.0, 3.0], dtype=torch.float32)
    out = torch.empty(1, dtype=torch.float32)
    index = torch.empty(1, dtype=torch.int32)
    float_reduce_kernel[(1,)](x, out, index, 4)
    assert torch.isnan(out).item()
    assert index.item() == 2


@triton.jit
def cas_kernel(base, old_out, N: tl.constexpr):
    i = tl.arange(0, N)
    inside = i < 3
    old = MEM.ct_atomic_cas(base, i.to(tl.int64), inside, 0, 7, "acq_rel", "gpu")
    tl.store(old_out + i, old)


def test_atomic_cas_masks_lanes_outside():
    base = torch.tensor([0, 1, 0, 0], dtype=torch.int32)
    old = torch.empty(4, dtype=torch.int32)
    cas_kernel[(1,)](base, old, 4)
    assert base.tolist() == [7, 1, 7, 0]  # lane 3 is outside: not written
    assert old.tolist() == [0, 1, 0, 0]  # and returns `expected`
