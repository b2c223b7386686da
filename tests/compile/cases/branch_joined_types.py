"""Names a run-time `if` leaves holding a value of a new type on every path that goes on, read
after the `if`: valid cuTile (the type does not depend on the path). Triton checks, at each `if`,
that a branch keeps the type of a name bound before it ("initial value for `u` is of type
fp32[16, 1], but the then block redefines it as fp32[16, 16]"), and drops after it a name only
one branch binds ("u is not defined") where the other returns. Each kernel computes something
that shows which path ran."""
import cuda.tile as ct


@ct.kernel
def joined_after_the_if(x, y, c: int, TILE: ct.Constant[int]):
    """Row sums before the `if`, a full tile from each branch."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    u = ct.sum(t, axis=1, keepdims=True)
    if c > 0:
        u = u + t
    else:
        u = t - u
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def rebound_in_both_inner_branches(x, y, c: int, TILE: ct.Constant[int]):
    """A branch makes u row sums, then an inner `if` makes it a full tile again on each path."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    u = t
    if c > 0:
        u = ct.sum(u, axis=1, keepdims=True)
        if c > 2:
            u = u + t
        else:
            u = t * 2.0
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def joined_in_a_loop(x, y, n: int, TILE: ct.Constant[int]):
    """Each iteration: row sums, then a full tile from each branch, summed."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    acc = ct.zeros((TILE, TILE), dtype=ct.float32)
    for i in range(n):
        u = ct.sum(t, axis=1, keepdims=True) * i
        if i % 2 == 0:
            u = u + t
        else:
            u = t - u
        acc = acc + u
    ct.store(y, index=(ct.bid(0), 0), tile=acc)


@ct.kernel
def elif_that_returns(x, y, c: int, TILE: ct.Constant[int]):
    """The middle branch of an elif chain stores row sums and returns; the others bind u."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c == 0:
        u = t
    elif c == 1:
        u = ct.sum(t, axis=1, keepdims=True)
        ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + u)
        return
    else:
        u = t * 4.0
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def else_that_returns(x, y, c: int, TILE: ct.Constant[int]):
    """An inner `if` whose else branch returns, in the else branch of an outer one."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    if c > 5:
        u = t + 1.0
    else:
        if c > 0:
            u = t * 3.0
        else:
            s = ct.sum(t, axis=1, keepdims=True)
            ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + s)
            return
    ct.store(y, index=(ct.bid(0), 0), tile=u)


@ct.kernel
def continue_then_rebound(x, y, c: int, TILE: ct.Constant[int]):
    """After `if ...: continue`, u becomes row sums: the iteration's other path."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    acc = ct.zeros((TILE, 1), dtype=ct.float32)
    for i in range(4):
        u = t * i
        if i == c:
            continue
        u = ct.sum(u, axis=1, keepdims=True)
        acc = acc + u
    ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + acc)


@ct.kernel
def break_then_rebound(x, y, c: int, TILE: ct.Constant[int]):
    """After `if ...: break`, u becomes row sums."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TILE, TILE))
    acc = ct.zeros((TILE, 1), dtype=ct.float32)
    for i in range(4):
        u = t * i
        if i >= c:
            break
        u = ct.sum(u, axis=1, keepdims=True)
        acc = acc + u
    ct.store(y, index=(ct.bid(0), 0), tile=t * 0.0 + acc)
