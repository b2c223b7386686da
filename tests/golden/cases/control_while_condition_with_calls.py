"""A while condition with calls is not evaluated again after a break: it moves into the loop."""
import cuda.tile as ct


def visit(x, seen, i, n):
    ct.store(seen, index=(i,), tile=ct.load(x, index=(i,), shape=(4,)))
    return i < n


@ct.kernel
def walk(x: ct.Array, seen: ct.Array, n, stop):
    i = 0
    while visit(x, seen, i, n):
        if i == stop:
            break
        i += 1
