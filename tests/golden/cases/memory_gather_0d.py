"""ct.gather of a 0-d array (indices ()): its one element, read at its base (real cuTile 1.7 compiles it)."""
import cuda.tile as ct


@ct.kernel
def gather_0d(x, y):
    v = ct.gather(x, ())
    ct.store(y, (), v)
