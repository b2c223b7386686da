import torch
import cuda.tile as ct


@ct.kernel
def flatten_pairs_kernel(x, y, BLOCK: ct.Constant[int]):
    bid = ct.bid(0)
    F = BLOCK * 2
    t = ct.load(x, index=(bid, 0), shape=(BLOCK, 2))
    flat = ct.reshape(t, (F,))
    half = F // 2
    ones = ct.full((half,), 1.0, dtype=ct.float32)
    ct.store(y, index=(bid,), tile=flat * 2 + ct.sum(ones) * 0)


def flatten_pairs(x, block=8):
    y = torch.empty(x.shape[0] * 2, dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], block),), flatten_pairs_kernel, (x, y, block))
    return y
