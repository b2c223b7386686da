"""A matrix product scaled by a column of a 3-D array, read as a (1, BM, 1) tile: a host
descriptor of that array would have a box 1 element wide (2 bytes in float16), which the
driver refuses when the launch encodes it, so the launcher gives None for it."""
import cuda.tile as ct


@ct.kernel
def narrow_column_kernel(a, b, s, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(ct.bid(0), k), shape=(BM, BK))
        y = ct.load(b, index=(k, ct.bid(1)), shape=(BK, BN))
        acc = ct.mma(x, y, acc)
    # one scale per row: a column of a (batch, rows, heads) array
    scale = ct.load(s, index=(0, ct.bid(0), 1), shape=(1, BM, 1)).reshape((BM, 1))
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=(acc * scale.astype(ct.float32)).astype(c.dtype))
