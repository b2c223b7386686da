"""Math functions of float32 tiles (compile check: no PTX form that flushes subnormals)."""
import cuda.tile as ct


@ct.kernel
def k(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    r = ct.sin(a) + ct.ceil(a) + ct.rsqrt(a) + ct.exp2(a) + ct.sqrt(a) + ct.cos(a) * ct.log(a)
    ct.store(out, index=(bid,), tile=r)
