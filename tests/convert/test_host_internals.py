"""Host code that names cuTile's internals the way a home-made autotuner does (a pattern of
public cuTile code): the compiler's exceptions caught per configuration, its compile time limit
read and set through cuda.tile._cext.default_tile_context, the kernel class
cuda.tile._execution.TileDispatcher in annotations and isinstance, and a kernel's function
(`_pyfunc`) asked for its name and parameters to map a configuration's arguments by name."""
import inspect

import pytest
import torch
import triton

N, TILE = 256, 64

AUTOTUNER = """
import inspect

import cuda.tile as ct
from cuda.tile._cext import default_tile_context
from cuda.tile._exception import TileCompilerExecutionError, TileCompilerTimeoutError
from cuda.tile._execution import TileDispatcher


@ct.kernel
def scale(x, out, factor: float, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    ct.store(out, index=(bid,), tile=ct.load(x, index=(bid,), shape=(TILE,)) * factor)


def described(kernel: TileDispatcher):
    return kernel._pyfunc.__name__, list(inspect.signature(kernel._pyfunc).parameters)


def is_kernel(value):
    return isinstance(value, TileDispatcher)


def outcome(error):
    try:
        raise error
    except TileCompilerTimeoutError:
        return "timeout"
    except ct.TileCompilerExecutionError:
        return "failed"
    except Exception:
        return "other"


def tuned_launch(stream, x, out, factor, tiles):
    old = default_tile_context.config.compiler_timeout_sec
    default_tile_context.config.compiler_timeout_sec = 30
    tried = []
    try:
        for tile in tiles:
            variant = ct.kernel(scale._pyfunc, occupancy=2)
            named = dict(zip(inspect.signature(scale._pyfunc).parameters, (x, out, factor, tile)))
            try:
                ct.launch(stream, (ct.cdiv(x.shape[0], named["TILE"]),), variant, tuple(named.values()))
            except TileCompilerTimeoutError:
                tried.append((tile, "timeout"))
                continue
            except TileCompilerExecutionError:
                tried.append((tile, "failed"))
                continue
            tried.append((tile, default_tile_context.config.compiler_timeout_sec))
    finally:
        default_tile_context.config.compiler_timeout_sec = old
    return tried, default_tile_context.config.compiler_timeout_sec
"""


def test_an_autotuner_on_cutile_internals_converts_and_runs(convert, device):
    mod = convert(AUTOTUNER)
    assert mod.described(mod.scale) == ("scale", ["x", "out", "factor", "TILE"])
    variant = mod.scale.replace_hints(occupancy=2)
    assert mod.described(variant) == ("scale", ["x", "out", "factor", "TILE"])
    assert mod.is_kernel(mod.scale) and mod.is_kernel(variant) and mod.is_kernel(mod.scale._pyfunc)
    assert not mod.is_kernel(mod.described) and not mod.is_kernel(None)
    x = torch.randn(N, device=device)
    out = torch.zeros_like(x)
    tried, after = mod.tuned_launch(0, x, out, 3.0, [TILE, TILE // 2])
    assert tried == [(TILE, 30), (TILE // 2, 30)] and after is None
    torch.testing.assert_close(out, x * 3.0)


def test_compile_failures_are_caught_as_cutile_catches_them(convert):
    """TileCompilerExecutionError (cuTile's back end failing) is what a kernel that does not fit
    raises in Triton (OutOfResources); Triton's front-end errors are cuTile's TileTypeError
    and the like, not caught as it; a compile time limit Triton does not have is never hit."""
    mod = convert(AUTOTUNER)
    assert mod.outcome(triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")) == "failed"
    assert mod.outcome(triton.compiler.errors.CompilationError("src", None, "bad")) == "other"
    assert mod.outcome(RuntimeError("x")) == "other"


@pytest.mark.parametrize("spelling", ["ct.TileCompilerTimeoutError", "ct._exception.TileCompilerTimeoutError"])
def test_both_spellings_of_an_exception_convert(convert, spelling):
    source = AUTOTUNER.replace("except TileCompilerTimeoutError:\n        return", f"except {spelling}:\n        return")
    assert source != AUTOTUNER
    mod = convert(source)
    assert mod.outcome(ValueError()) == "other"
    assert inspect.isclass(mod._TileCompilerTimeoutError)


BOXED = """
import cuda.tile as ct


class Box:
    def __init__(self, kernel):
        self.kernel = kernel


@Box
@ct.kernel
def copy(x, out, TILE: ct.Constant[int]):
    ct.store(out, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)))
"""


def test_a_kernel_a_decorator_wraps_in_an_object_without_a_name_imports(convert):
    """What a decorator above @ct.kernel makes of the kernel gets the kernel object's methods;
    an object with no __name__ (and no function inside, as @triton.autotune's has) gives
    _pyfunc none."""
    mod = convert(BOXED)
    assert isinstance(mod.copy, mod.Box) and not hasattr(mod.copy._pyfunc, "__name__")
    assert list(inspect.signature(mod.copy._pyfunc).parameters) == ["x", "out", "TILE"]
