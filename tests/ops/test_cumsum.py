"""Row-wise inclusive cumsum, forward and reverse, chunked with a carry."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, assert_equal, pick, strided_view

# n > 256 (the kernel's CHUNK) exercises the carry across chunks
SHAPES = pick(cpu=[(1, 1), (7, 33), (3, 256), (5, 700)],
              cuda=[(1, 1), (4096, 4096), (64, 100_000), (333, 257)])


def reference(x, reverse, dtype):
    xs = x.flip(1) if reverse else x
    out = torch.cumsum(xs.to(dtype), dim=1, dtype=dtype)
    return out.flip(1) if reverse else out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64], ids=["i32", "i64"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_cumsum_int(load_op, device, backend, shape, dtype, strided, reverse):
    mod = load_op("cumsum", backend)
    x = (strided_view(shape, dtype, device, fill="randint") if strided
         else torch.randint(-100, 100, shape, dtype=dtype, device=device))
    y = mod.cumsum(x, reverse=reverse)
    assert_equal(y, reference(x, reverse, dtype), "cumsum")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16_to_f32"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_cumsum_float(load_op, device, backend, shape, dtype, reverse):
    mod = load_op("cumsum", backend)
    x = torch.randn(shape).to(dtype).to(device)
    y = mod.cumsum(x, reverse=reverse, dtype=torch.float32)
    ref = reference(x.double(), reverse, torch.float64).float()
    # a tree scan vs torch's sequential sum: error grows like sqrt(n) ulps of the running sum
    tol = 2e-6 * shape[1] ** 0.5
    assert_close(y, ref, rtol=tol, atol=tol, what="cumsum")
