"""Programmatic dependent launch: a producer lets its dependent start early, the consumer
waits for it before reading what it wrote."""
import cuda.tile as ct


@ct.kernel
def producer_kernel(x, mid, B: ct.Constant[int]):
    ct.grid_dependency_control_launch_dependents()
    ct.store(mid, (ct.bid(0),), ct.load(x, (ct.bid(0),), (B,)) * 2)


@ct.kernel
def consumer_kernel(y, mid, out, B: ct.Constant[int]):
    t = ct.load(y, (ct.bid(0),), (B,))  # independent of the producer
    ct.grid_dependency_control_wait()
    ct.store(out, (ct.bid(0),), ct.load(mid, (ct.bid(0),), (B,)) + t)


def run(stream, x, y, mid, out):
    ct.launch(stream, (x.shape[0] // 64,), producer_kernel, (x, mid, 64))
    ct.launch(stream, (x.shape[0] // 64,), consumer_kernel, (y, mid, out, 64), programmatic_dependent_launch=True)
