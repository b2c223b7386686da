"""continue in a for loop: the loop stays a for; the rest of the body runs under a flag."""
import cuda.tile as ct


@ct.kernel
def skip_odd(x, y, n, TILE: ct.Constant[int]):
    acc = ct.load(x, index=(0,), shape=(TILE,)) * 0.0
    for j in range(n):
        if j % 2 == 1:
            continue
        acc = acc + ct.load(x, index=(j,), shape=(TILE,))
    ct.store(y, index=(0,), tile=acc)
