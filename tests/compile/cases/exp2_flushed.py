"""ct.exp2(flush_to_zero=True) of a float32 tile (compile check: PTX's ex2.approx.ftz.f32)."""
import cuda.tile as ct


@ct.kernel
def k(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(out, index=(bid,), tile=ct.exp2(a, flush_to_zero=True) + ct.exp2(a))
