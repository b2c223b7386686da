"""cuTile operators: floor division, Python modulo, IEEE division, pow, and
cuTile's promotion (integer with bfloat16, loose constants)."""
import cuda.tile as ct


@ct.kernel
def operators(x, y, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    b = ct.load(y, index=(bid,), shape=(TILE,))
    offsets = ct.arange(TILE, dtype=ct.int32)
    quotient = a // b + a % b
    ratio = a / b * 2.0
    power = a ** 2.0
    mixed = a * offsets - (-b)
    ct.store(out, index=(bid,), tile=quotient + ratio + power + mixed)
