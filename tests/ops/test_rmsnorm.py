"""RMSNorm with compile-time-unrolled chunks."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick, strided_view

# n > 1024 exercises NUM_CHUNKS > 1; m not a multiple of ROWS_PER_PROG exercises `continue`
SHAPES = pick(cpu=[(1, 1), (7, 33), (33, 100), (5, 2500)],
              cuda=[(1, 1), (4096, 4096), (8191, 3000), (1, 16384)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_rmsnorm(load_op, device, backend, shape, dtype, strided):
    mod = load_op("rmsnorm", backend)
    m, n = shape
    eps = 1e-6
    x = strided_view(shape, dtype, device) if strided else torch.randn(shape).to(dtype).to(device)
    w = (1 + 0.1 * torch.randn(n)).to(dtype).to(device)
    y = mod.rmsnorm(x, w, eps)
    xf = x.float()
    ref = (xf * torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + eps) * w.float()).to(dtype)
    if dtype == torch.float32:
        assert_close(y, ref, rtol=1e-5, atol=1e-5, what="rmsnorm")
    else:
        assert_close(y, ref, what="rmsnorm")
