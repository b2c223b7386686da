"""A tile function calling itself with a constant that halves at each call: cuTile unrolls the
recursion as it compiles; converted, each call is a specialization with its constant folded in."""
import cuda.tile as ct


def tree_sum(t, n: ct.Constant[int]):
    if n == 1:
        return t
    half = n // 2
    a = ct.extract(t, index=(0,), shape=(half,))
    b = ct.extract(t, index=(1,), shape=(half,))
    return tree_sum(a + b, half)


@ct.kernel
def recursive_sum_kernel(x, y):
    t = ct.load(x, index=(ct.bid(0),), shape=(64,))
    ct.store(y, index=(ct.bid(0),), tile=tree_sum(t, 64))
