"""Attention over float8 keys and values: p @ v takes V's (TN, D) tiles as its right-hand
operand, stored N-major, which float8 wgmma cannot read; the converted kernel reads them from
the launcher's K-major copy of V (lower_memory_kmajor.c). K is loaded K-major already
(order=(0, 2, 1)): read as it is."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def attention(Q, K, V, Out, TM: ConstInt, TN: ConstInt, D: ConstInt, S: ConstInt):
    b = ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(b, ct.bid(0), 0), shape=(1, TM, D)), (TM, D))
    acc = ct.zeros((TM, D), dtype=ct.float32)
    for j in range(S // TN):
        k = ct.reshape(ct.load(K, index=(b, 0, j), shape=(1, D, TN), order=(0, 2, 1)), (D, TN))
        s = ct.mma(q, k, ct.zeros((TM, TN), dtype=ct.float32))
        p = ct.astype(ct.exp(s - ct.max(s, axis=1)[:, None]), Q.dtype)
        v = ct.load(V, index=(b, j, 0), shape=(1, TN, D))
        v = ct.reshape(v, (TN, D))
        acc = ct.mma(p, v, acc)
    ct.store(Out, index=(b, ct.bid(0), 0), tile=ct.reshape(acc, (1, TM, D)))


def run(q, k, v, out, TM, TN):
    B, S, D = q.shape
    ct.launch(torch.cuda.current_stream(), (S // TM, B, 1), attention, (q, k, v, out, TM, TN, D, k.shape[1]))
