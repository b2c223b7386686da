"""A pure tile function in the second operand of a while loop's `and`: cuTile skips it when the
first operand is false, Triton evaluates it; it only loads and compares, so both agree."""
import cuda.tile as ct


def below(v, limit):
    return v < limit


def row_positive(x, i):
    return below(i, 6) and ct.sum(ct.load(x, index=(i,), shape=(16,))) > -1000.0


@ct.kernel
def pure_condition_kernel(x, y, n):
    i = 0
    acc = ct.zeros((16,), dtype=ct.float32)
    while i < n and row_positive(x, i):
        acc = acc + ct.load(x, index=(i,), shape=(16,))
        i += 1
    ct.store(y, index=(0,), tile=acc)
