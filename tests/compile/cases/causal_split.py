"""Causal attention over one head (the MLA prefill pattern): the loop over key tiles masks only
the tiles from the diagonal on, under `if j >= mask_start`. Converted, the loop runs in two
parts (src/lower/lower_split.c): the first without the test, the second with it."""
import math

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def causal_split_kernel(Q, K, V, Out, TM: ConstInt, TN: ConstInt, D: ConstInt):
    bid = ct.bid(0)
    q = ct.load(Q, index=(bid, 0), shape=(TM, D))
    offs_m = ct.expand_dims(bid * TM + ct.arange(TM, dtype=ct.int32), 1)
    offs_n = ct.expand_dims(ct.arange(TN, dtype=ct.int32), 0)
    m_i = ct.full((TM,), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((TM,), dtype=ct.float32)
    acc = ct.zeros((TM, D), dtype=ct.float32)
    mask_start = (bid * TM) // TN
    for j in range(0, ct.cdiv((bid + 1) * TM, TN)):
        k = ct.load(K, index=(0, j), shape=(D, TN), order=(1, 0))
        qk = ct.mma(q, k, ct.zeros((TM, TN), dtype=ct.float32))
        if j >= mask_start:
            qk = ct.where(offs_m >= j * TN + offs_n, qk, -1.0e6)
        m_ij = ct.maximum(m_i, ct.max(qk, axis=-1))
        p = ct.exp(qk - m_ij[:, None])
        alpha = ct.exp(m_i - m_ij)
        l_i = l_i * alpha + ct.sum(p, axis=-1)
        v = ct.load(V, index=(j, 0), shape=(TN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    ct.store(Out, index=(bid, 0), tile=(acc / l_i[:, None]).astype(Out.dtype))
