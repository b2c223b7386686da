"""ct.printf, ct.print and print: tl.device_print, one call per printed value."""
import cuda.tile as ct


@ct.kernel
def show(y, n, TILE: ct.Constant[int]):
    t = ct.arange(TILE, dtype=ct.int32) + n
    ct.printf("t=%d n=%d\n", t, n)
    ct.printf("hex %08x\n", t)
    ct.print(f"tile={t}", "size", TILE)
    print(f"n = {n}")
    ct.store(y, index=(0,), tile=t)
