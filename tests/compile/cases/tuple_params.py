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


@ct.kernel
def partly_constant_kernel(x, y, cfg: tuple[tuple[ct.Constant[int], int], float]):
    # cfg[0][0] sizes the tile: a constant item, compiled into the kernel as cuTile does
    t = ct.load(x, index=(ct.bid(0),), shape=(cfg[0][0],))
    ct.store(y, index=(ct.bid(0),), tile=t * cfg[1] + cfg[0][1])


@ct.kernel
def mixed_tuple_kernel(pair, y, TILE: ct.Constant[int]):
    # pair[0] an array, pair[1] a number: a tuple of arrays and numbers
    t = ct.load(pair[0], index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * pair[1])


@ct.kernel
def compared_tuple_kernel(x, B: ct.Constant[int], SHAPE: ct.Constant[tuple]):
    # a Constant tuple compared whole (its length is known when the kernel compiles)
    t = ct.load(x, index=(0,), shape=(B,))
    if SHAPE == (B,):
        t = t + 1
    ct.store(x, index=(0,), tile=t)
