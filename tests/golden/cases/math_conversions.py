"""cuTile conversions: astype (truncation, rounding toward zero), bitcast,
strictly typed constants."""
import cuda.tile as ct


@ct.kernel
def conversions(x, out, bits, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    whole = a.astype(ct.int32) + ct.int16(70000)
    half = ct.astype(a, ct.float16, rounding_mode=ct.RoundingMode.RZ)
    ct.store(out, index=(bid,), tile=whole.astype(ct.float32) + half.astype(ct.float32))
    ct.store(bits, index=(bid,), tile=ct.bitcast(a, ct.int32) >> 23)
