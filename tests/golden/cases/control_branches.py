"""if/elif/else on constants (folded by Triton) and run-time scalars, chained and/or, conditional expressions, static_iter."""
import cuda.tile as ct


@ct.kernel
def branches(x, y, n, MODE: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(4,))
    if MODE == 1:
        t = t + 1.0
    elif MODE == 2:
        t = t * 3.0
    else:
        t = t - 5.0
    if n > 2 and n < 100 and n != 7 or n == 0:
        t = t * 10.0
    s = 2.0 if n > 3 else 0.25
    for i in ct.static_iter(range(3)):
        t = t + i
    ct.store(y, index=(0,), tile=t * s)
