"""Names a run-time `if` leaves holding a value of another type on each path, where nothing reads
that value after the `if`: valid cuTile (it refuses only a read: "Type of `u` depends on path
taken"). Triton's scf.if yields one type for every name bound before it that a branch rebinds, and
for every name both branches bind, so each branch that binds another type binds it under a name of
its own. Each kernel computes something that shows which path ran."""
import cuda.tile as ct

DEBUG = False


@ct.kernel
def rebound_by_a_later_if(x, y, c: int, TILE: ct.Constant[int]):
    """Both branches bind u, of two shapes; the next `if` rebinds it before any read."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c > 0:
        u = t * 2.0
    else:
        u = ct.sum(t, axis=1, keepdims=True)
    if c > 5:
        u = t + 1.0
    else:
        u = t - 1.0
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def branch_in_a_loop(x, y, rows, n: int, TILE: ct.Constant[int]):
    """A branch of a loop's body binds u to another shape and reads it there."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    acc = ct.zeros((TILE, TILE), dtype=ct.float32)
    acc_rows = ct.zeros((TILE, 1), dtype=ct.float32)
    for i in range(n):
        if i % 2 == 0:
            u = t * i
            acc = acc + u
        else:
            u = ct.sum(t, axis=1, keepdims=True)
            u = u * i
            acc_rows = acc_rows + u
    ct.store(y, index=(ct.bid(0), 0), tile=acc)
    ct.store(rows, index=(ct.bid(0), 0), tile=acc_rows)


@ct.kernel
def swapped_tuple(x, y, c: int, TILE: ct.Constant[int]):
    """Unpacked targets: u and w swap shapes between the branches."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    s = ct.sum(t, axis=1, keepdims=True)
    if c > 0:
        u, w = t, s
        ct.store(y, index=(ct.bid(0), 0), tile=u - w)
    else:
        w, u = t, s
        ct.store(y, index=(ct.bid(0), 0), tile=w * 2.0 + u)


@ct.kernel
def elif_chain(x, y, c: int, TILE: ct.Constant[int]):
    """Four branches, u a row sum, a column sum, a number and the tile."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c == 0:
        u = ct.sum(t, axis=1, keepdims=True)
        ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + u)
    elif c == 1:
        u = ct.sum(t, axis=0, keepdims=True)
        ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + u)
    elif c == 2:
        u = 5.0
        ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + u)
    else:
        u = t
        ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def number_then_tile(x, y, c: int, TILE: ct.Constant[int]):
    """u a number before the `if`, a tile in its branch."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    u = 2.0
    if c > 0:
        u = t * u
        ct.store(y, index=(ct.bid(0), 0), tile=u)
    else:
        ct.store(y, index=(ct.bid(0), 0), tile=t + u)


@ct.kernel
def read_only_when_debugging(x, y, c: int, TILE: ct.Constant[int]):
    """The only read after the `if` sits under `if DEBUG:`, DEBUG False: cuTile compiles it out."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c > 0:
        u = t
    else:
        u = ct.sum(t, axis=1, keepdims=True)
    if DEBUG:
        ct.store(y, index=(ct.bid(0), 0), tile=u)
    ct.store(y, index=(ct.bid(0), 0), tile=t * 3.0)


@ct.kernel
def returning_branch(x, y, c: int, TILE: ct.Constant[int]):
    """The branch that returns binds u to another shape; the path that goes on reads the tile."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    u = t
    if c > 0:
        u = ct.sum(u, axis=1, keepdims=True)
        ct.store(y, index=(ct.bid(0), 0), tile=u + t * 0.0)
        return
    u = u * 2.0
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def read_then_rebound_in_a_loop(x, y, n: int, TILE: ct.Constant[int]):
    """The branch reads u in a loop of its own before rebinding it: `u_1 = u` first."""
    u = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    ct.store(y, index=(ct.bid(0), 0), tile=u)
    if n > 0:
        for i in range(n):
            u = u + 1.0
        u = ct.sum(u, axis=1, keepdims=True)
        ct.store(y, index=(ct.bid(0), 0), tile=u + ct.zeros((TILE, TILE), dtype=ct.float32))


@ct.kernel
def bound_where_it_goes_on(x, y, c: int, TILE: ct.Constant[int]):
    """Only the branch that does not return binds u, read after the `if`: what follows moves into
    that branch (Triton joins only names bound before the `if` or in both branches)."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c > 0:
        u = t * 3.0
    else:
        ct.store(y, index=(ct.bid(0), 0), tile=t)
        return
    # what follows reads u
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def returning_branch_of_another_shape(x, y, c: int, TILE: ct.Constant[int]):
    """Both branches bind u, the one that returns to another shape."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c > 0:
        u = ct.sum(t, axis=1, keepdims=True)
        ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + u)
        return
    else:
        u = t * 4.0
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def rebound_where_it_goes_on(x, y, c: int, TILE: ct.Constant[int]):
    """u a tile before the `if`; the branch that goes on rebinds it to its row sums, read after."""
    u = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c > 0:
        ct.store(y, index=(ct.bid(0), 0), tile=u)
        return
    else:
        u = ct.sum(u, axis=1, keepdims=True)
    ct.store(y, index=(ct.bid(0), 0), tile=u + ct.zeros((TILE, TILE), dtype=ct.float32))


@ct.function
def doubled_plus_one_unless(t, c):
    if c > 0:
        return t
    else:
        s = t * 2.0
    return s + 1.0


@ct.kernel
def through_a_tile_function(x, y, c: int, TILE: ct.Constant[int]):
    """The same in a tile function: its last `return` reads what the branch that goes on binds."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    ct.store(y, index=(ct.bid(0), 0), tile=doubled_plus_one_unless(t, c))
