"""An array whose ct.ArrayAnnotation makes its last dimension and its strides static: its
shape sizes a tile, in the kernel and in a tile function, and an assertion reads a stride."""
from typing import Annotated

import cuda.tile as ct

Rows = Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(-1,), static_stride_dims=(1,))]


def row_sums(x, i):
    return ct.sum(ct.load(x, (i, 0), (1, x.shape[1])), axis=1)


@ct.kernel
def static_dims_kernel(x: Rows, y):
    ct.static_assert(x.strides[1] == 1)
    n = x.shape[-1]
    t = ct.load(x, (ct.bid(0), 0), (1, n))
    ct.store(y, (ct.bid(0),), ct.sum(t, axis=1) + row_sums(x, ct.bid(0)))
