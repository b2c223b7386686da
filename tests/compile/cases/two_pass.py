import torch
import cuda.tile as ct


@ct.kernel
def two_pass_kernel(x, y, CHUNKS: ct.Constant[int], TILE: ct.Constant[int]):
    row = ct.bid(0)
    total = ct.zeros((TILE,), dtype=ct.float32)
    for c in range(CHUNKS):
        t = ct.load(x, index=(row, c), shape=(1, TILE))
        total = total + ct.reshape(ct.astype(t, ct.float32), (TILE,))
    scale = ct.sum(total) / (CHUNKS * TILE)
    for c in range(CHUNKS):
        # t holds x's dtype before this loop and float32 inside it: set afresh
        # in each iteration and not read after, it is not carried
        t = ct.load(x, index=(row, c), shape=(1, TILE))
        t = ct.astype(t, ct.float32)
        ct.store(y, index=(row, c), tile=ct.astype(t * scale, y.dtype))
