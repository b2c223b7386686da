"""cuTile's tuple arguments: a tuple of numbers given at launch (offsets[0]) and Constant
parameters holding tuples (ct.Constant[tuple]): one as a whole tile shape, one nested, whose
items and len() are constants."""
import cuda.tile as ct


@ct.kernel
def tuple_params_kernel(x, y, offsets, tiles: ct.Constant[tuple], nested: ct.Constant[tuple]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid, 0), shape=tiles)
    scaled = t * offsets[0] + offsets[1] / offsets[2]
    ct.store(y, index=(pid, 0), tile=scaled + len(tiles) * nested[1][0])
