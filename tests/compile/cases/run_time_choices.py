"""Values chosen by a run-time condition: a number (1 if s > 0 else 0) and a tuple index
((0, 0) if s > 0 else (1, 0)), which Triton compiles item by item."""
import cuda.tile as ct


@ct.kernel
def run_time_choices_kernel(A, B, S, T: ct.Constant[int]):
    s = ct.load(S, (0,), ())
    idx = (0, 0) if s > 0 else (1, 0)
    t = ct.load(A, idx, (1, T))
    x = 1 if s > 0 else 0
    if x == 1:
        t = t + 1
    ct.store(B, (0, 0), t)
