"""dropout with a counter hash: the mask is a pure function of (seed, element index).

The reference recomputes the hash in torch int64 arithmetic, so the keep mask
must match bit for bit, and kept values are x * 1/(1-p).
"""

import pytest
import torch

from ops_common import BACKENDS, assert_close, assert_equal, pick

# the hash, restated from the kernel's spec (not imported from it)
GOLDEN = 0x9E3779B1
MUL_1, MUL_2 = 0x7FEB352D, 0x2C1B3C6D
MASK_32 = 0xFFFFFFFF
RAND_BITS = 24


def reference(x, p, seed):
    idx = torch.arange(x.numel(), dtype=torch.int64)
    v = (idx + seed * GOLDEN) & MASK_32
    v = v ^ (v >> 16)
    v = (v * MUL_1) & MASK_32
    v = v ^ (v >> 15)
    v = (v * MUL_2) & MASK_32
    v = v ^ (v >> 16)
    keep = (v & ((1 << RAND_BITS) - 1)) >= int(p * (1 << RAND_BITS))
    keep = keep.view(x.shape).to(x.device)
    scale = 1.0 / (1.0 - p)
    out = torch.where(keep, x.float() * scale, 0.0).to(x.dtype)
    return out, keep


SHAPES = pick(cpu=[(1,), (7,), (33, 3), (100, 70)], cuda=[(1,), (8192, 8192), (1_000_003,)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("p,seed", [(0.0, 0), (0.1, 1), (0.5, 123456789), (0.9, 2**31 - 1)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_op_dropout(load_op, device, backend, shape, dtype, p, seed):
    mod = load_op("dropout", backend)
    x = torch.randn(shape).to(dtype).to(device)
    out, keep = mod.dropout(x, p, seed)
    ref_out, ref_keep = reference(x, p, seed)
    assert_equal(keep, ref_keep, "keep mask")
    assert_close(out, ref_out, what="dropout out")


def test_reference_hash_keeps_about_1_minus_p():
    """Sanity of the spec itself (no backend): the hash is roughly uniform."""
    x = torch.ones(1 << 16)
    for p in (0.1, 0.5, 0.9):
        _, keep = reference(x, p, seed=42)
        assert abs(keep.float().mean().item() - (1 - p)) < 0.01
