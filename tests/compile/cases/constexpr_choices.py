import cuda.tile as ct


@ct.kernel
def cat_kernel(x, out, axis: ct.Constant[int]):
    """ct.cat along an axis given at launch: both halves, flattened."""
    tx = ct.load(x, index=(0, 0), shape=(2, 4))
    tz = ct.cat((tx, tx * 10), axis).reshape((16,))
    ct.store(out, (0,), tile=tz)


@ct.kernel
def sized_kernel(x, y, FLAG: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int]):
    """A tile of BM or BN elements, chosen by FLAG; a tile of its size after it."""
    if FLAG == 1:
        t = ct.load(x, index=(ct.bid(0),), shape=(BM,))
    else:
        t = ct.load(x, index=(ct.bid(0),), shape=(BN,))
    ct.store(y, index=(ct.bid(0),), tile=ct.full(t.shape, 3.0, dtype=ct.float32) + t)


def plus_zero(t):
    return t + 0.0


@ct.kernel
def chosen_kernel(x, y, MODE: ct.Constant[int], BM: ct.Constant[int], BN: ct.Constant[int]):
    """A tile size chosen by an if/elif/else on a constexpr (a tile function lowered between
    the choice and its use keeps it a constexpr local)."""
    if MODE == 0:
        S = BM
    elif MODE == 1:
        S = BN
    else:
        S = 2 * BN
    t = plus_zero(ct.load(x, index=(ct.bid(0),), shape=(S,)))
    ct.store(y, index=(ct.bid(0),), tile=t + ct.full((S,), 1.0, dtype=ct.float32))


@ct.kernel
def tuple_shape_kernel(x, y, BM: ct.Constant[int], BK: ct.Constant[int], TRANS: ct.Constant[bool]):
    """Tile shapes kept in local tuples: one assigned once, one chosen by a constexpr if."""
    block = (BM, BK) if TRANS else (BK, BM)
    if TRANS:
        acc_shape = (BM, BK)
    else:
        acc_shape = (BK, BM)
    acc = ct.zeros(acc_shape, dtype=ct.float32)
    for i in range(4):
        acc += ct.load(x, index=(i, 0), shape=block)
    ct.store(y, index=(0, 0), tile=acc)


def load_block(x, i, shape):
    return ct.load(x, index=(i, 0), shape=shape)


@ct.kernel
def tuple_argument_kernel(x, y, BM: ct.Constant[int], BK: ct.Constant[int]):
    """A tile shape passed to a tile function, kept in a local and written in the call."""
    block = (BM, BK)
    t = load_block(x, ct.bid(0), block)
    ct.store(y, index=(ct.bid(0), 0), tile=t + load_block(x, ct.bid(0), (BM, BK)))


@ct.kernel
def minmax_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Tile sizes computed with min() and max() of constexprs (constexpr locals in Triton)."""
    S = max(BM, BN)
    T = min(BM, BN) * 2
    t = ct.load(x, index=(ct.bid(0),), shape=(S,))
    ct.store(y, index=(ct.bid(0),), tile=t + ct.zeros((T,), dtype=ct.float32))


@ct.kernel
def unpack_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """Sizes unpacked from a tile's shape with `_` for the ones not needed."""
    t = ct.load(x, index=(ct.bid(0), 0, 0), shape=(1, BM, BN))
    _, rows, _ = t.shape
    ct.store(y, index=(ct.bid(0), 0), tile=ct.reshape(t, (rows, BN)) + ct.zeros((rows, BN), dtype=ct.float32))
