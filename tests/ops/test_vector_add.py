"""vector_add: c = a + b on 1-D tensors (tile-space loads and the gather/scatter form)."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, assert_equal, pick

SIZES = pick(cpu=[1, 7, 33, 1000, 3000], cuda=[1, 33, 100_003, 1 << 24])
LAYOUTS = ["contiguous", "stepped", "offset"]


def make_1d(n, dtype, device, layout):
    if layout == "contiguous":
        return torch.randn(n).to(dtype).to(device)
    if layout == "stepped":  # stride 2: x[::2]
        return torch.randn(2 * n).to(dtype).to(device)[::2]
    return torch.randn(n + 3).to(dtype).to(device)[3:]  # base 3 elements into a buffer


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("use_gather", [False, True], ids=["tiled", "gather"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("n", SIZES)
def test_op_vector_add(load_op, device, backend, n, dtype, layout, use_gather):
    mod = load_op("vector_add", backend)
    a = make_1d(n, dtype, device, layout)
    b = make_1d(n, dtype, device, "contiguous")
    c = mod.vector_add(a, b, tile=256, use_gather=use_gather)
    ref = a + b  # one correctly rounded add per element on both sides
    if dtype == torch.float32:
        assert_equal(c, ref, "c")
    else:
        assert_close(c, ref, what="c")


@pytest.mark.parametrize("backend", BACKENDS)
def test_op_vector_add_default_tile(load_op, device, backend):
    mod = load_op("vector_add", backend)
    n = pick(cpu=2500, cuda=10_000_019)
    a, b = torch.randn(n, device=device), torch.randn(n, device=device)
    assert_equal(mod.vector_add(a, b), a + b, "c")
