"""ct.gather / ct.scatter: element indices (scalars and tiles broadcast), bounds, masks, padding."""
import cuda.tile as ct


@ct.kernel
def permute_rows(x, idx, y, B: ct.Constant[int]):
    i = ct.load(idx, (0,), (B,))
    row = ct.bid(0)
    v = ct.gather(x, (row, i), mask=i != 3, padding_value=-1)
    ct.scatter(y, (row, i), v)
    w = ct.gather(x, (row, i), check_bounds=False)
    ct.scatter(y, (row + 1, i), w, mask=w > 0, check_bounds=False)
