"""cuTile float functions: integer inputs become float32, float16/bfloat16 are
computed in float32; exp/tanh full precision, sqrt IEEE, APPROX forms."""
import cuda.tile as ct


@ct.kernel
def functions(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    smooth = ct.exp(a) + ct.tanh(a) + ct.sin(a) * ct.cos(a) + ct.log(ct.abs(a) + 1)
    roots = ct.sqrt(ct.abs(a)) + ct.sqrt(ct.abs(a), rounding_mode=ct.RoundingMode.APPROX)
    steps = ct.floor(a) - ct.ceil(a) + ct.atan2(a, 2.0)
    clean = ct.where(ct.isnan(a), 0.0, ct.maximum(a, 0.0, propagate_nan=True))
    ct.store(out, index=(bid,), tile=smooth + roots + steps + clean)
