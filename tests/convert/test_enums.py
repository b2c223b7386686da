"""Members of a module's Enum classes in tile code (cuTile takes them as compile-time
constants and as constexpr kernel arguments): the kernel reads the constexpr twin
Class_MEMBER_TL = tl.constexpr(Class.MEMBER), written after the class, so Triton compares
the members themselves while it compiles, as Python does."""

import ops_common
import pytest
import torch

ENUMS = '''
import enum
from enum import IntEnum

import torch
import cuda.tile as ct


class Mode(enum.Enum):
    ADD = 0
    MUL = 1
    SAME_VALUE_AS_ADD = "other"


class Priority(IntEnum):
    LOW = 0
    HIGH = 2


@ct.kernel
def k(x, y, MODE: ct.Constant):
    t = ct.load(x, (0,), (4,))
    chosen = Mode.MUL
    if MODE == Mode.ADD:
        t = t + 3
    elif MODE == chosen:
        t = t * (Priority.HIGH + 1)
    else:
        t = t - 1
    ct.store(y, (0,), t)


def run(x, mode):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, mode))
    return y
'''


def test_enum_members_compare_as_python_compares_them(convert, convert_text):
    text = convert_text(ENUMS)
    assert "Mode_ADD_TL = tl.constexpr(Mode.ADD)" in text and "Priority_HIGH_TL = tl.constexpr(Priority.HIGH)" in text
    assert text.index("class Mode(enum.Enum):") < text.index("Mode_ADD_TL = ") < text.index("@triton.jit")
    mod = convert(ENUMS)
    x = torch.arange(4, dtype=torch.float32, device=ops_common.DEVICE)
    torch.testing.assert_close(mod.run(x, mod.Mode.ADD), x + 3)
    torch.testing.assert_close(mod.run(x, mod.Mode.MUL), x * 3)
    torch.testing.assert_close(mod.run(x, mod.Mode.SAME_VALUE_AS_ADD), x - 1)


@pytest.mark.parametrize("member", ["ADD", "MUL"])
def test_triton_gpu_codegen_takes_an_enum_member_as_a_constexpr(convert_text, tmp_path, member):
    from test_control import frontend
    frontend(tmp_path, convert_text(ENUMS), "k", ("x", "y"), {"MODE": f"@Mode.{member}"})


def test_a_name_that_is_not_a_member_is_a_located_error(convert_error):
    message = convert_error('''
import enum
import cuda.tile as ct


class Mode(enum.Enum):
    ADD = 0

    def describe(self):
        return "add"


@ct.kernel
def k(x, MODE: ct.Constant):
    if MODE == Mode.describe:
        ct.store(x, (0,), ct.zeros((4,), dtype=ct.float32))
''')
    assert "'describe' is not a member assigned in enum Mode" in message


CALLED = '''
import enum

import torch
import cuda.tile as ct


class Mode(enum.Enum):
    ADD = 0
    MUL = 1


@ct.kernel
def k(x, y, M: ct.Constant[int]):
    t = ct.load(x, (0,), (4,))
    mode = Mode(M)
    if mode == Mode.ADD:
        t = t + 3
    elif Mode(1) == mode:
        t = t * 2
    ct.store(y, (0,), t)
'''


def test_the_class_called_with_a_constant_is_its_member(convert, convert_text):
    """Mode(M) with M a ct.Constant: cuTile calls the class when it compiles (real cuTile 1.7
    compiles this kernel); Triton calls it through a constexpr function written after the
    class. It was refused ("'Mode' cannot be called in tile code")."""
    text = convert_text(CALLED)
    assert "@triton.constexpr_function\ndef Mode_TL(value):" in text
    assert text.index("class Mode(enum.Enum):") < text.index("def Mode_TL(") < text.index("@triton.jit")
    assert "mode: tl.constexpr = Mode_TL(M)" in text
    mod = convert(CALLED)
    x = torch.arange(4, dtype=torch.float32, device=ops_common.DEVICE)
    for m, expected in ((0, x + 3), (1, x * 2)):
        y = torch.zeros_like(x)
        mod.launch_k(0, (1,), (x, y, m))
        torch.testing.assert_close(y, expected)


@pytest.mark.parametrize("m", [0, 1])
def test_triton_gpu_codegen_calls_the_class_while_it_compiles(convert_text, tmp_path, m):
    from test_control import frontend
    frontend(tmp_path, convert_text(CALLED), "k", ("x", "y"), {"M": m})


def test_the_kernel_that_calls_the_class_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    args = [cutile_export.array(ct.float32, 1), cutile_export.array(ct.float32, 1),
            cutile_export.compilation.ConstantConstraint(1)]
    assert cutile_export.cubin_size(CALLED, args, gpu="sm_90") > 0


def test_the_class_called_with_a_run_time_value_is_a_located_error(convert_error):
    message = convert_error(CALLED.replace("def k(x, y, M: ct.Constant[int]):", "def k(x, y, M):"))
    assert "Mode(value) in tile code: cuTile calls the class when it compiles" in message


BY_STRING = '''
import enum

import cuda.tile as ct


class Status(enum.Enum):
    OK = "ok"
    ERR = "err"


@ct.kernel
def k(out):
    x = Status("ok")
    if x == Status.OK:
        ct.scatter(out, (), 1)
    else:
        ct.scatter(out, (), 0)
'''


def test_the_class_called_with_a_string_literal_is_its_member(convert, convert_text, tmp_path):
    """Status("ok"): a string literal is known when cuTile compiles (its
    test_construction_from_string_value); it was refused as "not a string"."""
    mod = convert(BY_STRING)
    out = torch.zeros((), dtype=torch.int32, device=ops_common.DEVICE)
    mod.launch_k(0, (1,), (out,))
    assert out.item() == 1
    from test_control import frontend
    frontend(tmp_path, convert_text(BY_STRING), "k", ("out",), {})
