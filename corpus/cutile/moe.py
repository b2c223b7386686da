"""Mixture-of-experts feed-forward layer with SwiGLU experts, as a serving engine runs it.

Each of T tokens goes to TOP_K of E experts (the router's top-k on the host). The expert
weights are stacked as nn.Linear keeps them: w_gate and w_up [E, I, H], w_down [E, H, I].
Token t's k-th choice is assignment a = t * TOP_K + k. Four steps, five kernels:

1. align: the assignments are grouped by expert into blocks of BLOCK_M rows. `count` gives
   each assignment a slot within its expert (an atomic post-increment: the order inside an
   expert is whatever the atomics give, and no result depends on it); `align` (one block)
   rounds each expert's count up to whole blocks, lays the experts end to end and writes the
   expert of every block (E or more: a block past the last expert's); `place` writes each
   assignment's id at its row. Rows left over hold T * TOP_K, the id of no assignment.
2. up: block (m, n) of `expert_gemm` gathers the token rows of x named by row block m's ids,
   multiplies them by its expert's gate and up weights (read transposed through order=) and
   writes silu(gate) * up to those assignments' rows of h [T * TOP_K, I].
3. down: the same kernel reads h's rows by assignment, multiplies by w_down and scales each
   row by its routing weight.
4. combine: each token's TOP_K rows summed in float32.

Row blocks are visited GROUP_M at a time for each column block, so a group's weight tiles
are read from L2. Ids past the assignments index past the arrays' rows: gather reads zeros
there and scatter writes nothing.
"""

import torch
import cuda.tile as ct

ALIGN_TILE = 256


@ct.kernel
def moe_count_kernel(topk_ids, counts, slots, TILE: ct.Constant[int]):
    ids = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    expert = ct.gather(topk_ids, ids, padding_value=-1)
    slot = ct.atomic_add(counts, expert, 1)
    ct.scatter(slots, ids, slot)


@ct.kernel
def moe_align_kernel(counts, block_start, block_expert, E_PAD: ct.Constant[int], BLOCK_M: ct.Constant[int],
                     TILE: ct.Constant[int]):
    experts = ct.arange(E_PAD, dtype=ct.int32)
    blocks = ct.cdiv(ct.gather(counts, experts, padding_value=0), BLOCK_M)
    ends = ct.cumsum(blocks, axis=0)
    ct.scatter(block_start, experts, ends - blocks)
    for t in range(ct.cdiv(block_expert.shape[0], TILE)):
        rows = t * TILE + ct.arange(TILE, dtype=ct.int32)
        # the expert of block b: how many experts end at or before it
        expert = ct.sum(ct.where(ends[None, :] <= rows[:, None], 1, 0), axis=1)
        ct.scatter(block_expert, rows, expert)


@ct.kernel
def moe_place_kernel(topk_ids, slots, block_start, sorted_ids, BLOCK_M: ct.Constant[int], TILE: ct.Constant[int]):
    ids = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    valid = ids < topk_ids.shape[0]
    expert = ct.gather(topk_ids, ids, padding_value=0)
    row = ct.gather(block_start, expert) * BLOCK_M + ct.gather(slots, ids, padding_value=0)
    ct.scatter(sorted_ids, row, ids, mask=valid)


@ct.kernel
def expert_gemm_kernel(x, w, w_up, out, sorted_ids, block_expert, route_weights, ROW_DIV: ct.Constant[int],
                       GATED: ct.Constant[bool], WEIGHTED: ct.Constant[bool], BM: ct.Constant[int],
                       BN: ct.Constant[int], BK: ct.Constant[int], GROUP_M: ct.Constant[int]):
    tiles_m = block_expert.shape[0]
    tiles_n = ct.cdiv(out.shape[1], BN)
    per_group = GROUP_M * tiles_n
    pid = ct.bid(0)
    first_m = pid // per_group * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    bm = first_m + pid % per_group % group_m
    bn = pid % per_group // group_m
    expert = ct.gather(block_expert, bm)
    if expert < w.shape[0]:
        ids = ct.load(sorted_ids, (bm,), shape=(BM,))
        rows = ids // ROW_DIV
        acc = ct.zeros((BM, BN), dtype=ct.float32)
        acc_up = ct.zeros((BM, BN), dtype=ct.float32)
        for kk in range(ct.cdiv(x.shape[1], BK)):
            cols = kk * BK + ct.arange(BK, dtype=ct.int32)
            a = ct.gather(x, (rows[:, None], cols[None, :]))
            b = ct.load(w, (expert, kk, bn), shape=(1, BK, BN), order=(0, 2, 1),
                        padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b.reshape((BK, BN)), acc)
            if GATED:
                b_up = ct.load(w_up, (expert, kk, bn), shape=(1, BK, BN), order=(0, 2, 1),
                               padding_mode=ct.PaddingMode.ZERO)
                acc_up = ct.mma(a, b_up.reshape((BK, BN)), acc_up)
        if GATED:
            acc = acc / (1.0 + ct.exp(-acc)) * acc_up
        if WEIGHTED:
            acc = acc * ct.gather(route_weights, ids)[:, None]
        out_cols = bn * BN + ct.arange(BN, dtype=ct.int32)
        ct.scatter(out, (ids[:, None], out_cols[None, :]), acc.astype(out.dtype))


@ct.kernel
def moe_combine_kernel(y, out, K_PAD: ct.Constant[int], TH: ct.Constant[int]):
    rows = ct.load(y, (ct.bid(0), 0, ct.bid(1)), shape=(1, K_PAD, TH), padding_mode=ct.PaddingMode.ZERO)
    total = ct.sum(rows.astype(ct.float32), axis=1)
    ct.store(out, (ct.bid(0), ct.bid(1)), tile=total.astype(out.dtype))


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def route(logits: torch.Tensor, top_k: int):
    """Top-k routing: (weights [T, top_k] float32 summing to 1 per token, expert ids [T, top_k] int32)."""
    weights, ids = torch.softmax(logits.float(), dim=-1).topk(top_k, dim=-1)
    return weights / weights.sum(dim=-1, keepdim=True), ids.to(torch.int32)


def moe_align(topk_ids: torch.Tensor, n_experts: int, block_m: int):
    """(sorted_ids, block_expert): the assignments' ids grouped by expert in blocks of block_m
    rows (padding rows hold topk_ids.numel()), and the expert of each block (>= n_experts: unused)."""
    ids = topk_ids.reshape(-1)
    n = ids.numel()
    max_blocks = ct.cdiv(n, block_m) + n_experts - 1
    dev = ids.device
    counts = torch.zeros(n_experts, dtype=torch.int32, device=dev)
    slots = torch.empty(n, dtype=torch.int32, device=dev)
    block_start = torch.empty(n_experts, dtype=torch.int32, device=dev)
    block_expert = torch.empty(max_blocks, dtype=torch.int32, device=dev)
    sorted_ids = torch.full((max_blocks * block_m,), n, dtype=torch.int32, device=dev)
    stream = torch.cuda.current_stream()
    grid = (ct.cdiv(n, ALIGN_TILE), 1, 1)
    ct.launch(stream, grid, moe_count_kernel, (ids, counts, slots, ALIGN_TILE))
    ct.launch(stream, (1, 1, 1), moe_align_kernel,
              (counts, block_start, block_expert, next_power_of_2(n_experts), block_m, ALIGN_TILE))
    ct.launch(stream, grid, moe_place_kernel, (ids, slots, block_start, sorted_ids, block_m, ALIGN_TILE))
    return sorted_ids, block_expert


def expert_gemm(x, w, w_up, out, sorted_ids, block_expert, route_weights, *, row_div, gated, weighted,
                block_m, block_n, block_k, group_m):
    grid = (block_expert.shape[0] * ct.cdiv(out.shape[1], block_n), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, expert_gemm_kernel,
              (x, w, w_up, out, sorted_ids, block_expert, route_weights, row_div, gated, weighted,
               block_m, block_n, block_k, group_m))


def moe_forward(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
                topk_weights: torch.Tensor, topk_ids: torch.Tensor, *, block_m: int = 64, block_n: int = 128,
                block_k: int = 64, group_m: int = 8) -> torch.Tensor:
    """sum over k of topk_weights[t, k] * down_e(silu(gate_e(x_t)) * up_e(x_t)), e = topk_ids[t, k].
    x: [T, H]; w_gate, w_up: [E, I, H]; w_down: [E, H, I]; topk_weights, topk_ids: [T, top_k]."""
    tokens, hidden = x.shape
    n_experts, inter, _ = w_gate.shape
    top_k = topk_ids.shape[1]
    assert w_up.shape == w_gate.shape and w_down.shape == (n_experts, hidden, inter)
    assert topk_weights.shape == topk_ids.shape == (tokens, top_k)
    sorted_ids, block_expert = moe_align(topk_ids, n_experts, block_m)
    weights = topk_weights.reshape(-1).to(torch.float32)
    tiles = dict(block_m=block_m, block_n=block_n, block_k=block_k, group_m=group_m)
    h = torch.empty((tokens * top_k, inter), dtype=x.dtype, device=x.device)
    expert_gemm(x, w_gate, w_up, h, sorted_ids, block_expert, weights, row_div=top_k, gated=True,
                weighted=False, **tiles)
    y = torch.empty((tokens * top_k, hidden), dtype=x.dtype, device=x.device)
    expert_gemm(h, w_down, w_down, y, sorted_ids, block_expert, weights, row_div=1, gated=False,
                weighted=True, **tiles)
    out = torch.empty_like(x)
    tile_h = min(256, next_power_of_2(hidden))
    ct.launch(torch.cuda.current_stream(), (tokens, ct.cdiv(hidden, tile_h), 1), moe_combine_kernel,
              (y.reshape(tokens, top_k, hidden), out, next_power_of_2(top_k), tile_h))
    return out
