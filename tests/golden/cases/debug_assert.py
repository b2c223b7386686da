"""ct.assert_ is always checked: a helper that also checks under the interpreter, and debug=True on the kernel (also through a tile function)."""
import cuda.tile as ct


def checked(t, n):
    ct.assert_(t != n, message="hit n")
    return t


@ct.kernel
def guard(y, n, TILE: ct.Constant[int]):
    t = ct.arange(TILE, dtype=ct.int32) + n
    ct.assert_(t >= n, "below n")
    ct.store(y, index=(0,), tile=checked(t, n))


@ct.kernel
def guard_in_helper(y, n):
    ct.store(y, index=(0,), tile=checked(ct.arange(4, dtype=ct.int32), n))
