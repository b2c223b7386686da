"""Names of ct.static_iter loops that take constants, and tuples of arrays made in the kernel.
Written as locals (`i = index[i_k]`), such names were tensors on the GPU: indexing a tuple with
one failed to compile there ("assert isinstance(idx, slice)"), though the interpreter ran it."""
import cuda.tile as ct


@ct.function
def pick(vals, index: ct.Constant[tuple[int, ...]]):
    ret = ()
    for i in ct.static_iter(index):
        ret += (vals[i],)
    return ret


@ct.function
def scale(t, w):
    return t * w


@ct.kernel
def static_loop_constants_kernel(x, z, y, T: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (T,))
    b = a * 2.0
    c, d = pick((a, b), (1, 0))
    acc = c - d
    for w in ct.static_iter((1, 2, 3)):
        acc = acc + scale(a, w)
    for i, w in ct.static_iter(enumerate((0.5, 0.25))):
        acc = acc + scale(a, w) * i
    arrs = (x, z)
    for k in ct.static_iter(range(2)):
        acc = acc + ct.load(arrs[k], (ct.bid(0),), (T,))
    chosen = x if ct.bid(0) > 0 else z
    ct.store(y, (ct.bid(0),), acc + ct.load(chosen, (ct.bid(0),), (T,)))
