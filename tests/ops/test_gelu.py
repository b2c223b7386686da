"""gelu: exact (erf) and tanh forms."""

import pytest
import torch
import torch.nn.functional as F

from ops_common import BACKENDS, assert_close, pick

SHAPES = pick(cpu=[(1,), (7,), (33, 5), (100, 70)], cuda=[(1,), (4096, 11008), (3, 1_000_003)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_gelu(load_op, device, backend, shape, dtype, approximate):
    mod = load_op("gelu", backend)
    x = (3 * torch.randn(shape)).to(dtype).to(device)
    y = mod.gelu(x, approximate=approximate)
    ref = F.gelu(x.float(), approximate=approximate).to(dtype)
    if dtype == torch.float32 and approximate == "none":
        # erf comes from the A&S 7.1.26 approximation (|err| <= 1.5e-7 on erf)
        assert_close(y, ref, rtol=1e-5, atol=2e-6, what="gelu")
    else:
        assert_close(y, ref, what="gelu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_op_gelu_noncontiguous(load_op, device, backend):
    mod = load_op("gelu", backend)
    x = torch.randn(40, 30, device=device).t()  # host code reshapes (copies) it
    assert_close(mod.gelu(x, "tanh"), F.gelu(x, approximate="tanh"), what="gelu")
