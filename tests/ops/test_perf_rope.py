"""Performance: RoPE (split halves) on q [B, S, Hq, D] and k [B, S, Hk, D] (GQA), vs
the PyTorch formulation of LLaMA, q * cos + rotate_half(q) * sin, with the tables
prepared outside the timed region.

Bytes moved: q and k read and written, the [S, D/2] float32 cos/sin tables read.
"""

import pytest
import torch

from ops_common import DEVICE
from perf_common import (PERF_BACKENDS, backend_module, check_close, dname, gbytes, gpu_only, ids,
                         measure, randn, sizes)

pytestmark = gpu_only

# (batch, seq, q_heads, k_heads, head_dim, dtype)
CONFIGS = sizes(gpu=[(4, 2048, 32, 8, 128, torch.bfloat16), (8, 4096, 32, 8, 128, torch.bfloat16),
                     (8, 4096, 32, 8, 128, torch.float32)],
                smoke=[(2, 5, 8, 2, 16, torch.bfloat16), (1, 7, 7, 1, 64, torch.float32)])


def config_id(cfg):
    bsz, seq, hq, hk, d, dtype = cfg
    return f"b{bsz} s{seq} h{hq}/{hk} d{d} {dname(dtype)}"


def tables(seq, half, base=10000.0):
    inv_freq = 1.0 / base ** (torch.arange(half, dtype=torch.float32, device=DEVICE) / half)
    ang = torch.arange(seq, dtype=torch.float32, device=DEVICE)[:, None] * inv_freq[None, :]
    return ang.cos(), ang.sin()


def reference(x, cos, sin):
    """float32 math, like the kernel."""
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h].float(), x[..., h:].float()
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(x.dtype)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_rope(load_op, perf_record, backend, cfg):
    mod = backend_module(load_op, "rope", backend)
    bsz, seq, hq, hk, d, dtype = cfg
    q = randn((bsz, seq, hq, d), dtype)
    k = randn((bsz, seq, hk, d), dtype)
    cos, sin = tables(seq, d // 2)
    if mod is None:
        # HF LLaMA layout: [S, D] tables in the activation dtype, broadcast over batch and heads
        cos_full = torch.cat([cos, cos], dim=-1).to(dtype)[None, :, None, :]
        sin_full = torch.cat([sin, sin], dim=-1).to(dtype)[None, :, None, :]
        fn = lambda: (q * cos_full + rotate_half(q) * sin_full,  # noqa: E731
                      k * cos_full + rotate_half(k) * sin_full)
    else:
        fn = lambda: mod.apply_rope(q, k, cos, sin)  # noqa: E731
        q_out, k_out = fn()
        check_close(backend, q_out, reference(q, cos, sin), what="q", factor=2)
        check_close(backend, k_out, reference(k, cos, sin), what="k", factor=2)
        del q_out, k_out
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn,
            gbytes=gbytes(q, q, k, k, cos, sin))
