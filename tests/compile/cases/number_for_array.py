"""An optional operand given as a number: `bias` is an array only where ACT == 3 (a branch
the launch decides); launched with bias=0 otherwise, as cuTile types a parameter by the
launch's argument and compiles only the branches taken. The launcher passes the number with
() for its shape and strides and a False TMA flag; Triton too compiles only the branch taken."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def biased_matmul(a, b, c, bias, TILE_M: ConstInt, TILE_N: ConstInt, TILE_K: ConstInt, ACT: ConstInt):
    acc = ct.full((TILE_M, TILE_N), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TILE_M, TILE_K))):
        acc = ct.mma(ct.load(a, index=(ct.bid(0), k), shape=(TILE_M, TILE_K)),
                     ct.load(b, index=(k, ct.bid(1)), shape=(TILE_K, TILE_N)), acc)
    if ACT == 1:
        acc = ct.maximum(acc, 0)
    elif ACT == 3:
        acc = acc + ct.load(bias, index=(ct.bid(0), ct.bid(1)), shape=(TILE_M, TILE_N))
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=acc.astype(c.dtype))


def matmul(a, b, c, bias=0, act=0):
    ct.launch(0, (a.shape[0] // 32, b.shape[1] // 32), biased_matmul, (a, b, c, bias, 32, 32, 32, act))
