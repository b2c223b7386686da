"""Embedding gather by int64 ids; out-of-range ids give zero rows (bounds-checked gather)."""

import pytest
import torch

from ops_common import BACKENDS, assert_equal, pick

CASES = pick(cpu=[((1,), 1, 1), ((7,), 33, 5), ((3, 11), 100, 70), ((2, 33), 1000, 128)],
             cuda=[((1,), 1, 1), ((8, 2048), 128_256, 4096), ((333,), 50_000, 1000)])


def reference(ids, weight):
    valid = (ids >= 0) & (ids < weight.shape[0])
    rows = weight[ids.clamp(0, weight.shape[0] - 1)]
    return torch.where(valid[..., None], rows, torch.zeros((), dtype=weight.dtype,
                                                           device=weight.device))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("with_bad_ids", [False, True], ids=["in_range", "with_out_of_range"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32],
                         ids=["f32", "bf16", "i32"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"ids{'x'.join(map(str, c[0]))}-v{c[1]}-d{c[2]}")
def test_op_embedding(load_op, device, backend, case, dtype, with_bad_ids):
    mod = load_op("embedding", backend)
    ids_shape, vocab, dim = case
    if dtype.is_floating_point:
        weight = torch.randn(vocab, dim).to(dtype).to(device)
    else:
        weight = torch.randint(-1000, 1000, (vocab, dim), dtype=dtype, device=device)
    ids = torch.randint(0, vocab, ids_shape, dtype=torch.int64, device=device)
    if with_bad_ids:
        flat = ids.view(-1)
        flat[::3] = vocab          # one past the end
        flat[1::5] = -1            # negative: out of bounds, not Python-wrapped
        flat[2::7] = 1 << 40       # far out, needs 64-bit index math
    out = mod.embedding(ids, weight)
    assert_equal(out, reference(ids, weight), "embedding")
