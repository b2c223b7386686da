"""A split of decode attention (TileGym's flash decode pattern): each program reads a query
tile of 16 heads and SPLIT keys of one head's cache, TN keys a step, in a loop over
range(SPLIT // TN) whose count is a constexpr. Where it is 1, the loop would be folded away by
Triton and the V tile's copy issued only after the QK product and softmax; the converted loop
starts at ct_run_time_zero() then, and Triton's pipeliner issues both copies first."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def split_decode_kernel(Q, K, V, Out, TN: ConstInt, D: ConstInt, SPLIT: ConstInt):
    b = ct.bid(0)
    split = ct.bid(1)
    q = ct.reshape(ct.load(Q, index=(b, 0, 0), shape=(1, 16, D)), (16, D))
    acc = ct.zeros((16, D), dtype=ct.float32)
    m = ct.full((16,), -1.0e30, dtype=ct.float32)
    total = ct.zeros((16,), dtype=ct.float32)
    for j in range(SPLIT // TN):
        step = split * (SPLIT // TN) + j
        k = ct.reshape(ct.load(K, index=(b, step, 0), shape=(1, TN, D)), (TN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((16, TN), dtype=ct.float32))
        m_new = ct.maximum(m, ct.max(s, 1))
        p = ct.exp(s - m_new[:, None])
        alpha = ct.exp(m - m_new)
        total = total * alpha + ct.sum(p, 1)
        v = ct.reshape(ct.load(V, index=(b, step, 0), shape=(1, TN, D)), (TN, D))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha[:, None])
        m = m_new
    out = acc / total[:, None]
    ct.store(Out, index=(b, split, 0, 0), tile=ct.reshape(out, (1, 1, 16, D)))
