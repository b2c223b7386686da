"""2-D transpose via ct.transpose and via an order="F" load: bit-exact."""

import pytest
import torch

from ops_common import BACKENDS, assert_equal, pick, strided_view

SHAPES = pick(cpu=[(1, 1), (7, 1), (1, 33), (33, 7), (100, 70), (64, 32)],
              cuda=[(1, 1), (100, 70), (8192, 8192), (4097, 3001)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("via_order", [False, True], ids=["ct_transpose", "order_F"])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32, torch.int64],
                         ids=["f32", "f16", "i32", "i64"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_transpose(load_op, device, backend, shape, dtype, strided, via_order):
    mod = load_op("transpose", backend)
    fill = "randn" if dtype.is_floating_point else "randint"
    if strided:
        x = strided_view(shape, dtype, device, fill=fill)
    else:
        x = strided_view(shape, dtype, device, pad_cols=0, offset=0, fill=fill)
    y = mod.transpose(x, via_order=via_order)
    assert y.is_contiguous()
    assert_equal(y, x.t(), "transpose")
