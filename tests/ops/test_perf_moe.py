"""Performance: the corpus mixture-of-experts layer (corpus/cutile/moe.py: align, gated up
projection, weighted down projection, combine) at Mixtral- and DeepSeek-like shapes, vs torch
(one cuBLAS GEMM per expert and projection over the tokens routed to it, as a model's eager code
runs it). TFLOP/s count the three projections of every routed token."""

import pytest
import torch

from perf_common import PERF_BACKENDS, backend_module, check_close, gpu_only, ids, measure, randn, sizes

pytestmark = gpu_only

# (tokens, hidden, inter, experts, top_k), dtype
MOE = sizes(gpu=[((2048, 4096, 14336, 8, 2), torch.bfloat16),   # Mixtral 8x7B, a prefill chunk
                 ((4096, 2048, 1408, 64, 6), torch.bfloat16),   # DeepSeek-V2-Lite-like routed experts
                 ((64, 4096, 14336, 8, 2), torch.bfloat16),     # Mixtral decode: weight-bound
                 ((2048, 4096, 14336, 8, 2), torch.float16)],
            smoke=[((9, 32, 64, 4, 2), torch.float16)])


def name(cfg):
    (t, h, i, e, k), dtype = cfg
    return f"T{t} H{h} I{i} E{e} top{k} " + {torch.float16: "f16", torch.bfloat16: "bf16"}[dtype]


def torch_moe(x, w_gate, w_up, w_down, weights, topk_ids):
    out = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
    for e in range(w_gate.shape[0]):
        token, k = (topk_ids == e).nonzero(as_tuple=True)
        xs = x[token]
        h = torch.nn.functional.silu(xs @ w_gate[e].T) * (xs @ w_up[e].T)
        out.index_add_(0, token, ((h @ w_down[e].T) * weights[token, k, None]).float())
    return out.to(x.dtype)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", MOE, ids=ids(name))
def test_perf_moe(load_op, perf_record, backend, cfg):
    (tokens, hidden, inter, experts, top_k), dtype = cfg
    mod = backend_module(load_op, "moe", backend)
    x = randn((tokens, hidden), dtype)
    w_gate = randn((experts, inter, hidden), dtype, scale=hidden ** -0.5)
    w_up = randn((experts, inter, hidden), dtype, scale=hidden ** -0.5)
    w_down = randn((experts, hidden, inter), dtype, scale=inter ** -0.5)
    weights, topk_ids = torch.softmax(randn((tokens, experts), torch.float32), -1).topk(top_k, dim=-1)
    weights = weights / weights.sum(-1, keepdim=True)
    topk_ids = topk_ids.to(torch.int32)
    if mod is None:
        fn = lambda: torch_moe(x, w_gate, w_up, w_down, weights, topk_ids)  # noqa: E731
    else:
        small = dict(block_m=16, block_n=16, block_k=16) if hidden < 128 else {}
        fn = lambda: mod.moe_forward(x, w_gate, w_up, w_down, weights, topk_ids, **small)  # noqa: E731
        check_close(backend, fn(), torch_moe(x, w_gate, w_up, w_down, weights, topk_ids), what="moe",
                    rtol=0.05, atol=0.05)
    measure(perf_record, config=name(cfg), backend=backend, fn=fn,
            tflop=2 * tokens * top_k * 3 * hidden * inter / 1e12)
