"""A persistent loop over row tiles: each program sums the rows of every num_blocks-th tile
(a loop whose loads Triton may start early: lower_pipeline.c)."""
import cuda.tile as ct


@ct.kernel
def row_sums(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    for i in range(ct.bid(0), ct.cdiv(x.shape[0], TM), ct.num_blocks(0)):
        t = ct.load(x, index=(i, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(i,), tile=ct.sum(t.astype(ct.float32), axis=1))
