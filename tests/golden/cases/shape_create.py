import cuda.tile as ct


@ct.kernel
def create(y, start, B: ct.Constant[int]):
    a = ct.arange(B, dtype=ct.int32)
    b = ct.arange(B, dtype=ct.float16, start=start, step=0.5)
    c = ct.full((B,), start, ct.float32) + ct.zeros((B,), ct.float32) + ct.ones(B, ct.float32)
    d = ct.astile((1.0, 2.0, 3.0, 4.0), dtype=ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=a + b + c + ct.extract(ct.cat((d, d), 0), (0,), (B,)))
