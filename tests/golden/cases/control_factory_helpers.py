"""A kernel factory: the kernel reads the factory's argument (a constexpr parameter after its
own) and calls functions the factory defines (moved to module level with it)."""
import cuda.tile as ct


def make_scaler(tile):
    def scaled(t):
        return twice(t) + 1.0

    def twice(t):
        return t * 2

    @ct.kernel
    def scale(x):
        i = ct.bid(0)
        ct.store(x, (i,), scaled(ct.load(x, (i,), (tile,))))

    return scale
