"""An activation chosen by a string ct.Constant, as Triton's matmul tutorial passes ACTIVATION."""
import cuda.tile as ct


@ct.kernel
def string_constant_kernel(x, y, ACT: ct.Constant[str], T: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (T,))
    if ACT == "relu":
        t = ct.maximum(t, 0.0)
    elif ACT != "none":
        t = -t
    ct.store(y, (ct.bid(0),), t)
