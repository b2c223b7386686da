"""Tiles of more than five dimensions (an einsum-style contraction loads 7-D blocks): cuTile
takes them; a tensor descriptor has at most five, so they go through pointers, while the 4-D
store beside them keeps its descriptor. Gather, scatter and atomics of 6-D index tiles too."""
import cuda.tile as ct


@ct.kernel
def rank_seven_kernel(A, B, C, D, S, E: ct.Constant[int], X: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(A, index=(0, i, 0, 0, 0, 0, 0), shape=(E, 1, 2, 1, 1, X, X), padding_mode=ct.PaddingMode.ZERO)
    ct.store(B, index=(0, i, 0, 0, 0, 0), tile=ct.reshape(a, (E, 1, 2, 1, X, X)))
    ct.store(S, index=(0, i, 0, 0), tile=ct.reshape(a, (E, 1, 2 * X, X)))
    r = ct.arange(E, dtype=ct.int32)[:, None, None, None, None, None]
    c = ct.arange(X, dtype=ct.int32)[None, None, None, None, None, :]
    g = ct.gather(C, (r, i, 0, 0, 0, c))
    ct.scatter(C, (r, i, 1, 0, 0, c), g * 2)
    ct.atomic_add(D, (r, 0, 0, 0, 0, c), g)
