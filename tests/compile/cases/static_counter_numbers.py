"""The counter of a ct.static_iter loop is a Python int in cuTile (the loop is unrolled), and a
constexpr to Triton under tl.static_range: converting it (float(i), int(i), astype) takes
tl.cast, which takes a constexpr (a Python int has no .to), and 2 ** i stays Python's power."""
import cuda.tile as ct


@ct.kernel
def static_counter_kernel(x, o, B: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (B,))
    for i in ct.static_iter(range(1, 4)):
        t = t + float(i) + int(i) + ct.float32(i) + ct.astype(i, ct.float32)
        t = t + 2 ** i + i ** 2
    ct.store(o, (ct.bid(0),), t)
