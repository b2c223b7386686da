"""A tile function that unpacks its tile's dimensions into two locals (`rows, cols =
t.shape[0], t.shape[1]`) and reshapes with them: both must stay constexprs in Triton."""
import cuda.tile as ct


def row_sums(t):
    rows, cols = t.shape[0], t.shape[1]
    return ct.sum(t.reshape((rows * cols,)).reshape((rows, cols)), axis=1)


@ct.kernel
def unpacked_dims_kernel(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(B, 2 * B))
    ct.store(y, index=(ct.bid(0),), tile=row_sums(t))
