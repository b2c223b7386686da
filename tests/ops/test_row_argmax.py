"""Row-wise max/argmax; ties resolve to the first index, as torch.argmax does."""

import pytest
import torch

from ops_common import BACKENDS, assert_equal, pick, strided_view

SHAPES = pick(cpu=[(1, 1), (7, 33), (5, 128), (4, 1000)],
              cuda=[(1, 1), (64, 128_256), (4096, 1000), (3, 129)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("ties", [False, True], ids=["random", "many_ties"])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_row_argmax(load_op, device, backend, shape, dtype, strided, ties):
    mod = load_op("row_argmax", backend)
    if strided:
        x = strided_view(shape, dtype, device)
    else:
        x = torch.randn(shape).to(dtype).to(device)
    if ties:  # small integers: the max appears several times, often in several chunks
        x.copy_(torch.randint(0, 4, shape).to(dtype))
    idx, val = mod.row_argmax(x)
    assert_equal(idx, torch.argmax(x.float(), dim=1), "argmax")
    assert_equal(val, x.max(dim=1).values, "max")
