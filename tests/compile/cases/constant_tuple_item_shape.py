"""An item of a ct.Constant tuple parameter inside a tile shape, `ct.zeros((TS[0],), ...)`:
Triton's code generator gives TS[0] as a bare int, which a shape tuple cannot hold; and
ct.num_tiles with that tuple as the shape (its item along the axis)."""
import cuda.tile as ct


@ct.kernel
def tuple_item_kernel(x, y, TS: ct.Constant[tuple]):
    acc = ct.zeros((TS[0],), dtype=ct.float32)
    for j in range(ct.num_tiles(x, 1, shape=TS)):
        t = ct.load(x, (ct.bid(0), j), shape=TS, padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.sum(t, axis=1)
    ct.store(y, (ct.bid(0),), acc)
