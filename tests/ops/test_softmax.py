"""Row softmax, three implementations: gather/scatter, persistent, chunked (three passes)."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick, strided_view

MODULES = {
    "softmax_gather": {},
    "softmax_persistent": {},
    "softmax_chunked": {},
}
SHAPES = pick(cpu=[(1, 1), (7, 33), (33, 100), (100, 70), (3, 1500)],
              cuda=[(1, 1), (100, 70), (4096, 4096), (1024, 32000), (333, 1025)])
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def reference(x):
    return torch.softmax(x.float(), dim=-1).to(x.dtype)


def _check(load_op, device, backend, name, shape, dtype, strided, **kw):
    mod = load_op(name, backend)
    if strided:
        x = strided_view(shape, dtype, device)
    else:
        x = torch.randn(shape).to(dtype).to(device)
    x = x * 4 if dtype == torch.float32 else x
    y = mod.softmax(x, **kw)
    assert_close(y, reference(x), what=name)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_softmax_gather(load_op, device, backend, shape, dtype, strided):
    _check(load_op, device, backend, "softmax_gather", shape, dtype, strided)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_softmax_persistent(load_op, device, backend, shape, dtype, strided):
    # on CPU the SM count shim is 4, so with occupancy 2 each program walks several rows
    _check(load_op, device, backend, "softmax_persistent", shape, dtype, strided)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunk", [64, 1024])
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "offset_rows"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_softmax_chunked(load_op, device, backend, shape, dtype, strided, chunk):
    _check(load_op, device, backend, "softmax_chunked", shape, dtype, strided, chunk=chunk)
