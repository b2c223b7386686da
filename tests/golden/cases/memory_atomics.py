"""Atomics with gather-style indices: memory_order/memory_scope map to Triton's sem/scope."""
import cuda.tile as ct


@ct.kernel
def histogram(x, hist, flags, B: ct.Constant[int]):
    v = ct.load(x, (ct.bid(0),), (B,))
    old = ct.atomic_add(hist, v, 1)
    ct.atomic_max(hist, v, old, memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK)
    ct.atomic_or(flags, 0, ct.bid(0), check_bounds=False)
    prev = ct.atomic_xchg(flags, 1, 7, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.SYS)
