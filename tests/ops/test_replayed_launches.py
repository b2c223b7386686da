"""A converted launcher replays its launch from the third time the same key comes (_replayed in
src/lower/helpers/host_helpers.py): each call of these operators takes fresh inputs of the same
shapes, which torch's caching allocator gives back at the same addresses, so on a GPU later calls
are replays of the C launcher with the parameters kept before, and must compute what their inputs
give, call after call. Under Triton's interpreter every launch goes through Triton: nothing is kept."""

import inspect

import pytest
import torch

from ops_common import ON_GPU, assert_close, pick


def _kept(module):
    """The kept replays of each replaying launcher of a converted module."""
    kept = {}
    for name, value in vars(module).items():
        if name.startswith("launch_") and hasattr(value, "__wrapped__"):
            kept[name] = inspect.getclosurevars(value).nonlocals["kept"]
    return kept


def _splitk(mod, device):
    m, n, k = pick(cpu=(16, 32, 64), cuda=(256, 256, 8192))
    a, b = torch.randn(m, k, device=device), torch.randn(k, n, device=device)
    tiles = dict(tile_m=16, tile_n=16, tile_k=16) if device == "cpu" else {}
    return mod.matmul_splitk(a, b, splits=4, **tiles), a.double() @ b.double(), 1e-3 * max(1.0, k ** 0.5 / 8)


def _softmax(mod, device):
    x = torch.randn(*pick(cpu=(4, 40), cuda=(512, 1000)), device=device)
    return mod.softmax(x), torch.softmax(x.double(), dim=1), 1e-5


def _layernorm(mod, device):
    rows, n = pick(cpu=(4, 40), cuda=(512, 1000))
    x, w, b = torch.randn(rows, n, device=device), torch.randn(n, device=device), torch.randn(n, device=device)
    y = mod.layernorm_forward(x, w, b)[0]
    return y, torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5), 1e-4


def _vector_add(mod, device):
    a, b = (torch.randn(pick(cpu=1000, cuda=1 << 20), device=device) for _ in range(2))
    return mod.vector_add(a, b), a.double() + b.double(), 1e-6


CASES = {"matmul_splitk": _splitk, "softmax_persistent": _softmax, "layernorm_forward": _layernorm,
         "vector_add": _vector_add}


@pytest.mark.parametrize("name", list(CASES))
def test_op_replayed_launches_compute_what_each_calls_inputs_give(load_op, device, name):
    mod = load_op(name, "triton")
    for call in range(5):
        got, expected, tol = CASES[name](mod, device)
        assert_close(got, expected.to(got.dtype), rtol=tol, atol=tol, what=f"{name}, call {call + 1}")
    kept = _kept(mod)
    assert kept, "the converted module has no replaying launcher"
    if ON_GPU:  # the later calls were replays of kept launches
        assert any(kept.values()), kept
    else:
        assert not any(kept.values())
