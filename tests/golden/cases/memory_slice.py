"""Array.slice: a view (base moved, extent stop - start); loads pad at the sliced extent."""
import cuda.tile as ct


@ct.kernel
def window(x, y, start, stop, B: ct.Constant[int]):
    rows = x.slice(0, start, stop)
    cols = x.slice(1, start, stop)
    a = ct.load(rows, (ct.bid(0), 0), (B, B), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(cols, (ct.bid(0), 0), (B, B), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, (ct.bid(0), 0), a + b)
