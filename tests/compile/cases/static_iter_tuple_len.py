"""`for i in ct.static_iter(range(len(xs)))` over a tuple of arrays given to the kernel: cuTile
knows len(xs) when it compiles, so xs is a tuple (not a list of arrays whose length comes at
run time) and the loop unrolls."""
import cuda.tile as ct

W = (1.0, -2.0, 0.5)


@ct.kernel
def tuple_len_kernel(xs, y):
    acc = ct.zeros((8,), dtype=ct.float32)
    for i in ct.static_iter(range(len(xs))):
        acc = acc + ct.load(xs[i], (0,), shape=(8,)) * W[i] + i
    ct.store(y, (0,), acc)


@ct.kernel
def tuple_items_kernel(xs, y):
    acc = ct.zeros((8,), dtype=ct.float32)
    for a in ct.static_iter(xs):
        acc = acc + ct.load(a, (0,), shape=(8,))
    ct.store(y, (0,), acc)
