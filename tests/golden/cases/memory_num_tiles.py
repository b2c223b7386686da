"""ct.num_tiles: cdiv of the extent that tile axis `axis` walks (order applies)."""
import cuda.tile as ct


@ct.kernel
def count(x, out):
    ct.store(out, (0,), ct.num_tiles(x, 1, (16, 32)))
    ct.store(out, (1,), ct.num_tiles(x, 0, (16, 32), order="F"))
