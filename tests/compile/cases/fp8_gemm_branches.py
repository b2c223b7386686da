"""A float8 GEMM whose B is read in one of two orders, chosen by a constexpr flag: (N, K) tiles
transposed where TRANS_B, else (K, N) tiles (two loads of one tile, a latency hint on one), the
product after the `if`. Float8 wgmma reads its right-hand operand K-major only: where the
launch does not transpose, the converted kernel reads B's tiles from the launcher's K-major
copy (lower_memory_kmajor.c), and makes no copy for the launches that do."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def gemm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt, TRANS_B: ConstBool, HINT: ConstInt):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        if TRANS_B:
            b = ct.load(B, index=(bn, k), shape=(TN, TK), padding_mode=ct.PaddingMode.ZERO)
            b = ct.transpose(b)
        else:
            if HINT > 0:
                b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO, latency=HINT)
            else:
                b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        b = ct.astype(b, A.dtype)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def run(a, b, c, TM, TN, TK, trans_b, hint):
    M, N = c.shape
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(M, TM), ct.cdiv(N, TN), 1), gemm,
              (a, b, c, TM, TN, TK, trans_b, hint))
