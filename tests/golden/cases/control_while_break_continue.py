"""break and continue in a while loop: flags, and the statements after a jump nested under them."""
import cuda.tile as ct


@ct.kernel
def accumulate(x, y, n, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,))
    i = 0
    while i < n:
        i += 1
        if i == 2:
            continue
        t = ct.load(x, index=(i,), shape=(TILE,))
        if ct.sum(t) > 100.0:
            break
        acc = acc + t
    ct.store(y, index=(0,), tile=acc)
