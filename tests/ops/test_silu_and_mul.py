"""silu_and_mul: x [M, 2N] -> silu(x[:, :N]) * x[:, N:]."""

import pytest
import torch
import torch.nn.functional as F

from ops_common import BACKENDS, assert_close, pick, strided_view

SHAPES = pick(cpu=[(1, 1), (7, 33), (33, 100), (5, 256)], cuda=[(1, 1), (4096, 11008), (777, 333)])


def reference(x):
    n = x.shape[1] // 2
    return (F.silu(x[:, :n].float()) * x[:, n:].float()).to(x.dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x2*{s[1]}")
def test_op_silu_and_mul(load_op, device, backend, shape, dtype, strided):
    mod = load_op("silu_and_mul", backend)
    m, n = shape
    if strided:
        x = strided_view((m, 2 * n), dtype, device)
    else:
        x = torch.randn(m, 2 * n).to(dtype).to(device)
    out = mod.silu_and_mul(x)
    assert out.shape == (m, n)
    assert_close(out, reference(x), what="silu_and_mul")
