"""ct.static_iter over a Constant parameter's tuple (`cols: ct.Constant[tuple]`), plain and
enumerated: the tuple is a constexpr to Triton, of a length known at each launch, so the loop
is tl.static_range(len(cols)) indexing it with the constexpr counter."""
import cuda.tile as ct


@ct.kernel
def constant_tuple_loop_kernel(x, out, cols: ct.Constant[tuple], TS: ct.Constant[int]):
    bid = ct.bid(0)
    acc = ct.zeros((TS,), ct.float32)
    for c in ct.static_iter(cols):
        acc = acc + ct.reshape(ct.load(x, index=(bid, c), shape=(TS, 1)), (TS,))
    for k, c in ct.static_iter(enumerate(cols, 1)):
        acc = acc + ct.reshape(ct.load(x, index=(bid, c), shape=(TS, 1)), (TS,)) * k
    ct.store(out, index=(bid,), tile=acc)
