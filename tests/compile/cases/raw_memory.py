"""Raw memory (x.get_raw_memory()): a histogram by element offsets, masked loads with a
padding value, a scalar compare-and-swap and a 2-D tile of offsets."""
import cuda.tile as ct


@ct.kernel
def raw_histogram_kernel(values, counts, firsts, n, B: ct.Constant[int]):
    offs = ct.bid(0) * B + ct.arange(B, dtype=ct.int32)
    bins = values.get_raw_memory().load_offset(offs, mask=offs < n, padding_value=0)
    counts.get_raw_memory().atomic_add_offset(bins, 1, mask=offs < n, memory_order=ct.MemoryOrder.RELAXED)
    # the first block to get here claims the slot: firsts[0] is its id plus one
    firsts.get_raw_memory().atomic_cas_offset(0, 0, ct.bid(0) + 1)


@ct.kernel
def raw_rows_kernel(x, y, R: ct.Constant[int], C: ct.Constant[int]):
    rows = ct.bid(0) * R + ct.arange(R, dtype=ct.int64)[:, None]
    cols = ct.arange(C, dtype=ct.int64)[None, :]
    t = x.get_raw_memory().load_offset(rows * C + cols)
    y.get_raw_memory().store_offset(rows * C + cols, t * 2)
