"""A rank tested with another constexpr (`A.ndim == 1 and MODE == 0`): each branch compiles only
for the launches it is taken on, a 1-D and a 2-D array alike."""
import cuda.tile as ct


@ct.kernel
def rank_conditions_kernel(A, C, T: ct.Constant[int], MODE: ct.Constant[int]):
    if A.ndim == 1 and MODE == 0:
        ct.store(C, (0,), ct.load(A, (0,), (T,)) + 1)
    if A.ndim == 2 and MODE == 0:
        ct.store(C, (0,), ct.reshape(ct.load(A, (0, 0), (1, T)), (T,)) + 2)
    if A.ndim == 2:
        ct.store(C, (1,), ct.reshape(ct.load(A, (1, 0), (1, T)), (T,)) * 3)
