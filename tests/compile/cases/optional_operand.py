"""A tile function with an optional operand: `extra` is None unless R > 0 and used only
under R > 0; the function is converted once per outcome of `R > 0`, the two versions
joined under one `if` on its tl.constexpr parameter R (Triton compiles one)."""
import cuda.tile as ct

ConstInt = ct.Constant[int]


def scores(x, y, i, R: ConstInt, D: ConstInt):
    extra = None
    if R > 0:
        extra = ct.load(y, index=(i, 0), shape=(16, R))
    acc = ct.zeros((16, 16), dtype=ct.float32)
    for j in range(2):
        acc = ct.mma(ct.load(x, index=(i, 0), shape=(16, D)), ct.transpose(ct.load(x, index=(j, 0), shape=(16, D))),
                     acc)
        if R > 0:
            acc = ct.mma(extra, ct.transpose(ct.load(y, index=(j, 0), shape=(16, R))), acc)
    return acc


@ct.kernel
def optional_operand_kernel(x, y, out, R: ConstInt, D: ConstInt):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=scores(x, y, i, R, D))
