"""A bool tile stored from a 2-D float tile (a dropout or causal mask): the float load takes a
descriptor on the TMA path, the bool store goes through pointers (Triton's descriptors take
elements of a byte or more; a bool pointer's element is one bit)."""
import cuda.tile as ct


@ct.kernel
def bool_mask_store_kernel(x, mask, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN))
    ct.store(mask, index=(i, 0), tile=t > 0)
