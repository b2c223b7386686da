"""RoPE on [batch, seq, heads, head_dim] q and k (GQA: fewer k heads), split halves."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

# (batch, seq, q_heads, k_heads, head_dim); odd head counts exercise the padded H tile
CASES = pick(cpu=[(1, 1, 1, 1, 2), (2, 5, 8, 2, 16), (1, 7, 7, 1, 64), (3, 3, 4, 4, 32)],
             cuda=[(1, 1, 1, 1, 2), (4, 2048, 32, 8, 128), (2, 1000, 12, 12, 64), (1, 7, 7, 1, 64)])


def tables(seq, half, device, base=10000.0):
    inv_freq = 1.0 / base ** (torch.arange(half, dtype=torch.float32) / half)
    ang = torch.arange(seq, dtype=torch.float32)[:, None] * inv_freq[None, :]
    return ang.cos().to(device), ang.sin().to(device)


def reference(x, cos, sin):
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h].float(), x[..., h:].float()
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(x.dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "b{}s{}hq{}hk{}d{}".format(*c))
def test_op_rope(load_op, device, backend, case, dtype):
    mod = load_op("rope", backend)
    bsz, seq, hq, hk, d = case
    q = torch.randn(bsz, seq, hq, d).to(dtype).to(device)
    k = torch.randn(bsz, seq, hk, d).to(dtype).to(device)
    cos, sin = tables(seq, d // 2, device)
    q_out, k_out = mod.apply_rope(q, k, cos, sin)
    assert_close(q_out, reference(q, cos, sin), what="q")
    assert_close(k_out, reference(k, cos, sin), what="k")


@pytest.mark.parametrize("backend", BACKENDS)
def test_op_rope_from_bhsd_view(load_op, device, backend):
    """q produced as [B, H, S, D] and viewed as [B, S, H, D]: strided, not contiguous."""
    mod = load_op("rope", backend)
    bsz, seq, h, d = pick(cpu=(2, 5, 3, 16), cuda=(2, 512, 16, 128))
    q = torch.randn(bsz, h, seq, d, device=device).transpose(1, 2)
    k = torch.randn(bsz, h, seq, d, device=device).transpose(1, 2)
    cos, sin = tables(seq, d // 2, device)
    q_out, k_out = mod.apply_rope(q, k, cos, sin)
    assert_close(q_out, reference(q, cos, sin), what="q")
    assert_close(k_out, reference(k, cos, sin), what="k")
