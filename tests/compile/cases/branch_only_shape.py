"""A name a run-time `if` rebinds in its branch to a tile of another shape, read only there:
valid cuTile (its type depends on the path taken, but nothing reads it after the `if`). Triton's
scf.if yields every name bound before it that a branch rebinds, of one type, so the branch binds
it under a name of its own from its first assignment on."""
import cuda.tile as ct


@ct.kernel
def branch_only_shape_kernel(x, y, rows, n: int, TILE: ct.Constant[int]):
    u = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    ct.store(y, index=(ct.bid(0), 0), tile=u * 2.0)
    if ct.bid(0) > n:
        w = u + 1.0  # a read of u before the branch rebinds it: the tile before
        u = ct.sum(w, axis=1, keepdims=True)
        ct.store(rows, index=(ct.bid(0), 0), tile=u)
