"""relu on 2-D tensors: bit-exact for floats and ints, strided inputs."""

import pytest
import torch

from ops_common import BACKENDS, assert_equal, pick, strided_view

SHAPES = pick(cpu=[(1, 1), (7, 3), (33, 65), (100, 70)], cuda=[(1, 1), (100, 70), (8192, 8191)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset_rows"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32],
                         ids=["f32", "bf16", "i32"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_relu(load_op, device, backend, shape, dtype, layout):
    mod = load_op("relu", backend)
    fill = "randn" if dtype.is_floating_point else "randint"
    if layout == "contiguous":
        x = strided_view(shape, dtype, device, pad_cols=0, offset=0, fill=fill)
    elif layout == "transposed":
        x = strided_view(shape[::-1], dtype, device, pad_cols=0, offset=0, fill=fill).t()
    else:
        x = strided_view(shape, dtype, device, fill=fill)
    y = mod.relu(x)
    assert y.is_contiguous()
    assert_equal(y, torch.relu(x), "relu")
