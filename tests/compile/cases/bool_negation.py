"""-x of a tile whose dtype comes with the launch: a bool array's tile is negated as int32
(cuTile: -True is -1), any other as it is (ct_negative decides while Triton compiles)."""
import cuda.tile as ct


@ct.kernel
def negate_kernel(x, y):
    t = ct.load(x, index=(ct.bid(0),), shape=(16,))
    ct.store(y, index=(ct.bid(0),), tile=-t)
