"""break in a for loop: a while over an explicit counter, range() bounds evaluated once."""
import cuda.tile as ct


@ct.kernel
def first_rows(x, y, n, step, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,)) * 0.0
    for j in range(1, n, step):
        t = ct.load(x, index=(j,), shape=(TILE,))
        if ct.sum(t) < 0.0:
            break
        acc = acc + t
    ct.store(y, index=(0,), tile=acc)
