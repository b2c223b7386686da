"""A name a run-time `if` binds to a number in one branch and to a tile in the other, read only
inside each branch (cuTile allows types that differ where unused after the `if`), and abs() of
constants: Triton's code generator joins every name both branches bind and has no builtin abs."""
import cuda.tile as ct

NEG = -7


@ct.kernel
def branch_local_kernel(x, y, C: ct.Constant[int], TILE: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, (pid,), shape=(TILE,))
    if pid % 2 == 0:
        tmp = 3
        t = t + tmp
    else:
        tmp = ct.full((TILE,), 2.0, dtype=ct.float32)
        t = t * tmp
    ct.store(y, (pid,), t + (abs(NEG) + abs(C)))
