"""swiglu: out = silu(a) * b, with a and b the two halves of one projection output."""

import pytest
import torch
import torch.nn.functional as F

from ops_common import BACKENDS, assert_close, pick

SHAPES = pick(cpu=[(1, 1), (3, 7), (9, 300), (4, 600)], cuda=[(1, 1), (4096, 14336), (33, 1000)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("as_halves", [False, True], ids=["separate", "halves_of_one"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_swiglu(load_op, device, backend, shape, dtype, as_halves):
    mod = load_op("swiglu", backend)
    m, n = shape
    if as_halves:  # row stride 2n, and b starts n elements into the buffer
        proj = torch.randn(m, 2 * n).to(dtype).to(device)
        a, b = proj[:, :n], proj[:, n:]
    else:
        a = torch.randn(m, n).to(dtype).to(device)
        b = torch.randn(m, n).to(dtype).to(device)
    out = mod.swiglu(a, b)
    ref = (F.silu(a.float()) * b.float()).to(dtype)
    assert_close(out, ref, what="swiglu")
