"""Attention over float8 keys and values whose loop stands in a tile function the kernel
calls with its arrays: the function reads V's (TN, D) tiles, the right-hand operand of p @ v,
from the K-major copy its caller gives (lower_memory_kmajor.c), the kernel's own."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


def attend(Q, K, V, Out, b, TM: ConstInt, TN: ConstInt, D: ConstInt, S: ConstInt):
    q = ct.reshape(ct.load(Q, index=(b, ct.bid(0), 0), shape=(1, TM, D)), (TM, D))
    acc = ct.zeros((TM, D), dtype=ct.float32)
    for j in range(S // TN):
        k = ct.reshape(ct.load(K, index=(b, 0, j), shape=(1, D, TN), order=(0, 2, 1)), (D, TN))
        s = ct.mma(q, k, ct.zeros((TM, TN), dtype=ct.float32))
        p = ct.astype(ct.exp(s - ct.max(s, axis=1)[:, None]), Q.dtype)
        v = ct.reshape(ct.load(V, index=(b, j, 0), shape=(1, TN, D)), (TN, D))
        acc = ct.mma(p, v, acc)
    ct.store(Out, index=(b, ct.bid(0), 0), tile=ct.reshape(acc, (1, TM, D)))


@ct.kernel
def attention(Q, K, V, Out, TM: ConstInt, TN: ConstInt, D: ConstInt, S: ConstInt):
    attend(Q, K, V, Out, ct.bid(1), TM, TN, D, S)


def run(q, k, v, out, TM, TN):
    B, S, D = q.shape
    ct.launch(torch.cuda.current_stream(), (S // TM, B, 1), attention, (q, k, v, out, TM, TN, D, k.shape[1]))
