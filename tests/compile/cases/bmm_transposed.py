"""Batched products whose operands are stored transposed: block (m, n, q) loads A as a
(1, TK, TM) tile of A^T and B as a (1, TN, TK) tile of B^T, permutes each to the product's
order and multiplies the 2-D planes."""

import torch
import cuda.tile as ct


@ct.kernel
def bmm_t_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    m = ct.bid(0)
    n = ct.bid(1)
    q = ct.bid(2)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(1, TK, TM))):
        a = ct.load(A, index=(q, k, m), shape=(1, TK, TM), padding_mode=ct.PaddingMode.ZERO)
        a = ct.reshape(ct.permute(a, (0, 2, 1)), (TM, TK))
        b = ct.load(B, index=(q, n, k), shape=(1, TN, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.reshape(ct.permute(b, (0, 2, 1)), (TK, TN))
        acc = ct.mma(a, b, acc=acc)
    out = ct.reshape(ct.astype(acc, C.dtype), (1, TM, TN))
    ct.store(C, index=(q, m, n), tile=out)


@ct.kernel
def bmm_order_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    """The same product with the transposes asked of the loads: order=(0, 2, 1)."""
    m = ct.bid(0)
    n = ct.bid(1)
    q = ct.bid(2)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(1, TK, TM))):
        a = ct.load(A, index=(q, m, k), shape=(1, TM, TK), order=(0, 2, 1), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(q, k, n), shape=(1, TK, TN), order=(0, 2, 1), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.reshape(a, (TM, TK)), ct.reshape(b, (TK, TN)), acc=acc)
    ct.store(C, index=(q, m, n), tile=ct.reshape(ct.astype(acc, C.dtype), (1, TM, TN)))


def bmm_t(at: torch.Tensor, bt: torch.Tensor, tm: int = 64, tn: int = 64, tk: int = 32) -> torch.Tensor:
    """C[q] = at[q].T @ bt[q].T for at of shape (Q, K, M) and bt of shape (Q, N, K)."""
    q, k, m = at.shape
    n = bt.shape[1]
    c = torch.empty((q, m, n), dtype=at.dtype, device=at.device)
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), q)
    ct.launch(torch.cuda.current_stream(), grid, bmm_t_kernel, (at, bt, c, tm, tn, tk))
    return c
