"""return inside a while loop (helper and kernel): flag, value carried out, returned after the loop."""
import cuda.tile as ct


def first_big(x, n, limit):
    i = 0
    while i < n:
        s = ct.sum(ct.load(x, index=(i,), shape=(4,)))
        if s > limit:
            return s
        i += 1
    return limit * 0.0 - 1.0


@ct.kernel
def find(x, y, n, limit):
    s = first_big(x, n, limit)
    i = 0
    while True:
        if i == n:
            return
        i += 1
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)) * 0.0 + s)
