"""ct.gather of a 0-d array (indices ()): a located error, not an internal one."""
import cuda.tile as ct


@ct.kernel
def gather_0d(x, y):
    v = ct.gather(x, ())
    ct.store(y, (), v)
