"""Argument sets used to compile-check each corpus module with real cuda.tile (no GPU).

Each case: id -> (module, host function, () -> (args, kwargs)).  The tensors are
CPU tensors: only their dtype, rank, strides and the host-side grid math matter,
nothing is computed.  Run them with `python tests/ops/cutile_check.py [names]`
or through tests/ops/test_cutile_compile.py.
"""

import torch

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16


def _f(*shape, dtype=F32):
    return torch.randn(*shape).to(dtype)


def _ln_bwd_args(dtype):
    x = _f(37, 300, dtype=dtype)
    return (_f(37, 300, dtype=dtype), x, _f(300, dtype=dtype), _f(37), _f(37)), {}


def _moe_args(dtype, *, experts, top_k, tokens=37, hidden=256, inter=384):
    ids = torch.stack([torch.randperm(experts)[:top_k] for _ in range(tokens)]).to(torch.int32)
    weights = torch.rand(tokens, top_k)
    return (_f(tokens, hidden, dtype=dtype), _f(experts, inter, hidden, dtype=dtype),
            _f(experts, inter, hidden, dtype=dtype), _f(experts, hidden, inter, dtype=dtype), weights, ids), {}


COMPILE_CASES = {
    "vector_add_f32": ("vector_add", "vector_add", lambda: ((_f(1000), _f(1000)), {})),
    "vector_add_f16_strided": ("vector_add", "vector_add",
                               lambda: ((_f(2000, dtype=F16)[::2], _f(1000, dtype=F16)),
                                        {"tile": 256})),
    "vector_add_gather_bf16": ("vector_add", "vector_add",
                               lambda: ((_f(33, dtype=BF16), _f(33, dtype=BF16)),
                                        {"use_gather": True, "tile": 64})),
    "gelu_erf_f32": ("gelu", "gelu", lambda: ((_f(4, 100),), {})),
    "gelu_tanh_bf16": ("gelu", "gelu", lambda: ((_f(4, 100, dtype=BF16),), {"approximate": "tanh"})),
    "relu_f32_transposed": ("relu", "relu", lambda: ((_f(70, 100).t(),), {})),
    "relu_i32": ("relu", "relu", lambda: ((torch.randint(-5, 5, (33, 7), dtype=torch.int32),), {})),
    "silu_and_mul_f16": ("silu_and_mul", "silu_and_mul", lambda: ((_f(33, 2 * 100, dtype=F16),), {})),
    "silu_and_mul_f32": ("silu_and_mul", "silu_and_mul", lambda: ((_f(7, 2 * 64),), {})),
    "swiglu_bf16_views": ("swiglu", "swiglu",
                          lambda: ((lambda t: (t[:, :300], t[:, 300:]))(_f(9, 600, dtype=BF16)), {})),
    "dropout_f32": ("dropout", "dropout", lambda: ((_f(3, 333), 0.25, 1234), {})),
    "dropout_f16": ("dropout", "dropout", lambda: ((_f(1000, dtype=F16), 0.5, 7), {})),
    "softmax_gather_f32": ("softmax_gather", "softmax", lambda: ((_f(10, 70),), {})),
    "softmax_gather_f16_rows": ("softmax_gather", "softmax",
                                lambda: ((_f(10, 128, dtype=F16)[:, :100],), {})),
    "softmax_persistent_f32": ("softmax_persistent", "softmax", lambda: ((_f(300, 70),), {})),
    "softmax_persistent_bf16": ("softmax_persistent", "softmax",
                                lambda: ((_f(5, 1000, dtype=BF16),), {})),
    "softmax_chunked_f32": ("softmax_chunked", "softmax", lambda: ((_f(4, 5000),), {})),
    "softmax_chunked_f16": ("softmax_chunked", "softmax",
                            lambda: ((_f(4, 300, dtype=F16),), {"chunk": 64})),
    "layernorm_forward_f32": ("layernorm_forward", "layernorm_forward",
                              lambda: ((_f(17, 100), _f(100), _f(100)), {})),
    "layernorm_forward_f16": ("layernorm_forward", "layernorm_forward",
                              lambda: ((_f(17, 4096, dtype=F16), _f(4096, dtype=F16),
                                        _f(4096, dtype=F16), 1e-6), {})),
    "layernorm_backward_f32": ("layernorm_backward", "layernorm_backward",
                               lambda: _ln_bwd_args(F32)),
    "layernorm_backward_bf16": ("layernorm_backward", "layernorm_backward",
                                lambda: _ln_bwd_args(BF16)),
    "rmsnorm_f32": ("rmsnorm", "rmsnorm", lambda: ((_f(9, 100), _f(100)), {})),
    "rmsnorm_bf16_3chunks": ("rmsnorm", "rmsnorm",
                             lambda: ((_f(9, 3000, dtype=BF16), _f(3000, dtype=BF16)), {})),
    "rope_f32": ("rope", "apply_rope",
                 lambda: ((_f(2, 5, 8, 64), _f(2, 5, 2, 64), _f(5, 32), _f(5, 32)), {})),
    "rope_bf16_odd_heads": ("rope", "apply_rope",
                            lambda: ((_f(1, 7, 7, 128, dtype=BF16), _f(1, 7, 1, 128, dtype=BF16),
                                      _f(7, 64), _f(7, 64)), {})),
    "transpose_f32": ("transpose", "transpose", lambda: ((_f(100, 70),), {})),
    "transpose_i32_order_f": ("transpose", "transpose",
                              lambda: ((torch.randint(0, 9, (33, 7), dtype=torch.int32),),
                                       {"via_order": True})),
    "cumsum_f32": ("cumsum", "cumsum", lambda: ((_f(5, 1000),), {})),
    "cumsum_i32_reverse": ("cumsum", "cumsum",
                           lambda: ((torch.randint(-9, 9, (5, 100), dtype=torch.int32),),
                                    {"reverse": True})),
    "cumsum_f16_to_f32": ("cumsum", "cumsum",
                          lambda: ((_f(5, 100, dtype=F16),), {"dtype": F32})),
    "bincount_i64": ("histogram", "bincount",
                     lambda: ((torch.randint(-3, 40, (1000,)), 32), {})),
    "bincount_i32": ("histogram", "bincount",
                     lambda: ((torch.randint(0, 40, (100,), dtype=torch.int32), 32), {})),
    "histc_f32": ("histogram", "histc", lambda: ((_f(1000), 16, -2.0, 2.0), {})),
    "embedding_f32": ("embedding", "embedding",
                      lambda: ((torch.randint(0, 100, (3, 7)), _f(100, 96)), {})),
    "embedding_bf16": ("embedding", "embedding",
                       lambda: ((torch.randint(0, 1000, (33,)), _f(1000, 128, dtype=BF16)), {})),
    "row_argmax_f32": ("row_argmax", "row_argmax", lambda: ((_f(6, 1000),), {})),
    "row_argmax_f16": ("row_argmax", "row_argmax", lambda: ((_f(6, 100, dtype=F16),), {})),
    # lists of arrays (cutile_check: a ListConstraint of what holds for every element)
    "grouped_scale_add_f32": ("grouped_scale_add", "grouped_scale_add",
                              lambda: (([_f(40, 33), _f(7, 64)], [_f(40, 33), _f(7, 64)], 1.5), {})),
    "grouped_gemm_f16": ("grouped_gemm", "grouped_gemm",
                         lambda: (([_f(40, 64, dtype=F16), _f(70, 64, dtype=F16)],
                                   [_f(64, 48, dtype=F16), _f(64, 20, dtype=F16)]), {"blocks": 4})),
    "grouped_gemm_f32_as_tf32": ("grouped_gemm", "grouped_gemm",
                                 lambda: (([_f(33, 128)], [_f(128, 72)]), {"blocks": 2})),
    "attention_decode_f16": ("attention_decode", "attention_decode",
                             lambda: ((_f(2, 8, 64, dtype=F16), _f(2, 2, 100, 64, dtype=F16),
                                       _f(2, 2, 100, 64, dtype=F16)), {"splits": 2})),
    "attention_decode_paged_bf16": ("attention_decode", "attention_decode_paged",
                                    lambda: ((_f(3, 16, 128, dtype=BF16), _f(20, 4, 16, 128, dtype=BF16),
                                              _f(20, 4, 16, 128, dtype=BF16),
                                              torch.randperm(20)[:15].reshape(3, 5).to(torch.int32),
                                              torch.tensor([80, 1, 37], dtype=torch.int32)), {"splits": 4})),
    "gemm_persistent_f16": ("gemm_persistent", "gemm_persistent",
                            lambda: ((_f(300, 200, dtype=F16), _f(200, 260, dtype=F16)), {})),
    "gemm_persistent_bf16_small_tiles": ("gemm_persistent", "gemm_persistent",
                                         lambda: ((_f(37, 48, dtype=BF16), _f(48, 80, dtype=BF16)),
                                                  {"tile_m": 16, "tile_n": 16, "tile_k": 16, "blocks": 3})),
    "attention_causal_f16_gqa": ("attention_causal", "attention_causal",
                                 lambda: ((_f(2, 4, 100, 64, dtype=F16), _f(2, 2, 100, 64, dtype=F16),
                                           _f(2, 2, 100, 64, dtype=F16)), {})),
    "attention_causal_bf16_small_tiles": ("attention_causal", "attention_causal",
                                          lambda: ((_f(1, 2, 37, 32, dtype=BF16), _f(1, 1, 37, 32, dtype=BF16),
                                                    _f(1, 1, 37, 32, dtype=BF16)),
                                                   {"tile_q": 16, "tile_kv": 32})),
    "moe_f16": ("moe", "moe_forward", lambda: _moe_args(F16, experts=5, top_k=3)),
    "moe_bf16": ("moe", "moe_forward", lambda: _moe_args(BF16, experts=8, top_k=2)),
    "moe_f32": ("moe", "moe_forward", lambda: _moe_args(F32, experts=4, top_k=2)),
}
