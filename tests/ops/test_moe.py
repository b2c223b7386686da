"""moe (corpus/cutile/moe.py): a mixture-of-experts SwiGLU layer -- assignments grouped by expert
in blocks (atomics, a cumsum, a scatter), two expert GEMMs over gathered rows, a weighted combine.
Cases give experts without tokens, a top-k that is not a power of two, and sizes that are not
multiples of the tiles."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, assert_equal, pick

# (tokens, hidden, inter, experts, top_k)
CASES = pick(cpu=[(1, 16, 16, 2, 1), (13, 32, 48, 4, 2), (30, 40, 24, 5, 3), (9, 16, 32, 16, 6)],
             cuda=[(1, 256, 512, 8, 2), (333, 1024, 1408, 64, 6), (2048, 2048, 1536, 8, 2)])
TILES = pick(cpu=dict(block_m=16, block_n=16, block_k=16, group_m=2), cuda={})


def inputs(tokens, hidden, inter, experts, top_k, dtype, device, skew=False):
    x = torch.randn(tokens, hidden).to(dtype)
    scale = hidden ** -0.5
    w_gate = (torch.randn(experts, inter, hidden) * scale).to(dtype)
    w_up = (torch.randn(experts, inter, hidden) * scale).to(dtype)
    w_down = (torch.randn(experts, hidden, inter) * inter ** -0.5).to(dtype)
    logits = torch.randn(tokens, experts)
    if skew:  # most tokens prefer the first experts; the last ones get none
        logits[:, : experts // 2] += 8.0
    return [t.to(device) for t in (x, w_gate, w_up, w_down, logits)]


def reference(x, w_gate, w_up, w_down, weights, ids):
    """The layer in float32, rounding where the kernels store: h and each weighted expert row."""
    out = torch.zeros(x.shape, dtype=torch.float32)
    x, weights, ids = x.cpu().float(), weights.cpu().float(), ids.cpu().long()
    for e in range(w_gate.shape[0]):
        token, k = (ids == e).nonzero(as_tuple=True)
        if token.numel() == 0:
            continue
        xs = x[token]
        g = xs @ w_gate[e].cpu().float().T
        u = xs @ w_up[e].cpu().float().T
        h = (g * torch.sigmoid(g) * u).to(w_gate.dtype).float()
        y = ((h @ w_down[e].cpu().float().T) * weights[token, k][:, None]).to(w_gate.dtype).float()
        out.index_add_(0, token, y)
    return out.to(x.dtype if w_gate.dtype == torch.float32 else w_gate.dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "t{}h{}i{}e{}k{}".format(*c))
def test_op_moe(load_op, device, backend, case, dtype):
    mod = load_op("moe", backend)
    tokens, hidden, inter, experts, top_k = case
    x, w_gate, w_up, w_down, logits = inputs(*case, dtype, device, skew=True)
    weights, ids = mod.route(logits, top_k)
    out = mod.moe_forward(x, w_gate, w_up, w_down, weights, ids, **TILES)
    assert out.shape == x.shape and out.dtype == dtype
    want = reference(x, w_gate, w_up, w_down, weights, ids)
    tol = 2e-3 if dtype == torch.float32 else 3e-2  # two chained products and a silu
    assert_close(out, want, rtol=tol, atol=tol, what="moe")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("block_m", pick(cpu=[4, 16], cuda=[64, 128]))
@pytest.mark.parametrize("case", CASES, ids=lambda c: "t{}h{}i{}e{}k{}".format(*c))
def test_op_moe_align_groups_every_assignment_once_by_expert(load_op, device, backend, case, block_m):
    mod = load_op("moe", backend)
    tokens, _, _, experts, top_k = case
    logits = torch.randn(tokens, experts)
    logits[:, : experts // 2] += 8.0
    _, ids = mod.route(logits.to(device), top_k)
    sorted_ids, block_expert = mod.moe_align(ids, experts, block_m)
    n = tokens * top_k
    flat = ids.reshape(-1).cpu().long()
    rows = sorted_ids.cpu().long().reshape(-1, block_m)
    blocks = block_expert.cpu().long()
    assert rows.shape[0] == blocks.shape[0]
    counts = torch.bincount(flat, minlength=experts)
    used = int(sum((c + block_m - 1) // block_m for c in counts.tolist()))
    # blocks in expert order, each expert's blocks just enough for its assignments, then unused ones
    want_blocks = torch.repeat_interleave(torch.arange(experts), (counts + block_m - 1) // block_m)
    assert_equal(blocks[:used], want_blocks, what="block experts")
    assert bool((blocks[used:] >= experts).all()), blocks[used:]
    assert bool((rows[used:] == n).all())
    # every assignment exactly once, in a block of its expert; the rest padding
    real = rows[:used][rows[:used] != n]
    assert_equal(real.sort().values, torch.arange(n), what="assignments")
    for b in range(used):
        ids_b = rows[b][rows[b] != n]
        assert bool((flat[ids_b] == blocks[b]).all()), (b, ids_b, flat[ids_b], blocks[b])
