"""ct.atomic_cas: tl.atomic_cas has no mask; outside lanes return `expected`."""
import cuda.tile as ct


@ct.kernel
def claim(slots, idx, owner, B: ct.Constant[int]):
    i = ct.load(idx, (0,), (B,))
    old = ct.atomic_cas(slots, i, 0, ct.bid(0) + 1)
    ct.store(owner, (ct.bid(0),), old)
