import torch
import cuda.tile as ct


@ct.function
def tile_product(a, b, c, i, j, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    # the product of a row of A tiles and a column of B tiles, in a tile function
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        x = ct.load(a, index=(i, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, index=(k, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(i, j), tile=ct.astype(acc, c.dtype))


@ct.kernel
def tile_fn_gemm(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    tile_product(a, b, c, ct.bid(0), ct.bid(1), TM, TN, TK)


def gemm(a, b, tm=128, tn=128, tk=64):
    c = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(a.shape[0], tm), ct.cdiv(b.shape[1], tn), 1)
    ct.launch(torch.cuda.current_stream(), grid, tile_fn_gemm, (a, b, c, tm, tn, tk))
    return c


@ct.function
def attend(q_all, k_all, v_all, out, b, h, m, TM: ct.Constant[int], TN: ct.Constant[int], D: ct.Constant[int]):
    # one query tile against every key tile (4-D arrays: batch, head, sequence, dim)
    q = ct.reshape(ct.load(q_all, index=(b, h, m, 0), shape=(1, 1, TM, D)), (TM, D))
    m_i = ct.full((TM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.full((TM, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TM, D), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(k_all, axis=2, shape=(1, 1, TN, D))):
        k = ct.reshape(ct.load(k_all, index=(b, h, j, 0), shape=(1, 1, TN, D)), (TN, D))
        s = ct.mma(q, ct.transpose(k), ct.full((TM, TN), 0.0, dtype=ct.float32))
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.reshape(ct.load(v_all, index=(b, h, j, 0), shape=(1, 1, TN, D)), (TN, D))
        acc = ct.mma(ct.astype(p, v.dtype), v, acc * alpha)
        m_i = m_new
    o = ct.astype(acc / l_i, out.dtype)
    ct.store(out, index=(b, h, m, 0), tile=ct.reshape(o, (1, 1, TM, D)))


@ct.kernel
def attention_kernel(q, k, v, o, H: ct.Constant[int], TM: ct.Constant[int], TN: ct.Constant[int],
                     D: ct.Constant[int]):
    attend(q, k, v, o, ct.bid(1) // H, ct.bid(1) % H, ct.bid(0), TM, TN, D)
