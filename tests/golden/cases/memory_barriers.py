"""Block-wide memory order: a store then a load of the same array, loops, and a lock hand-off."""
import cuda.tile as ct


@ct.kernel
def accumulate(acc, n, B: ct.Constant[int]):
    for step in range(n):
        t = ct.load(acc, (0,), (B,))
        ct.store(acc, (0,), t + 1)


@ct.kernel
def locked_sum(lock, total, x, B: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (B,))
    while ct.atomic_cas(lock, 0, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    s = ct.load(total, (0,), (B,))
    ct.store(total, (0,), s + t)
    ct.atomic_xchg(lock, 0, 0, memory_order=ct.MemoryOrder.RELEASE)
