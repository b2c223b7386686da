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
