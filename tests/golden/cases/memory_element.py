"""shape=() loads one element; a scalar store writes one element at element index."""
import cuda.tile as ct


@ct.kernel
def pick(x, y):
    v = ct.load(x, index=(ct.bid(0), 2), shape=(), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0),), tile=v + 1)
