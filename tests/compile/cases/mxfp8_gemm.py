"""A block-scaled (MXFP8) GEMM, as cuTile's BlockScaledMatMul sample computes it without its
scale swizzle: one TM x TN tile of C per program, K in steps of TK, float8_e4m3fn operands
with one float8_e8m0fnu scale per 32 elements along K. The arrays may hold the bits (uint8)
or the dtypes themselves (torch.float8_e4m3fn, torch.float8_e8m0fnu): ct.bitcast of a tile
to its own dtype is the tile."""
import torch
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def mxfp8_gemm_kernel(A, A_scale, B, B_scale, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    m = ct.bid(0)
    n = ct.bid(1)
    acc = ct.zeros((TM, TN), ct.float32)
    for kk in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.bitcast(ct.load(A, index=(m, kk), shape=(TM, TK)), ct.float8_e4m3fn)
        a_scale = ct.bitcast(ct.load(A_scale, index=(m, kk), shape=(TM, TK // 32)), ct.float8_e8m0fnu)
        b = ct.bitcast(ct.load(B, index=(kk, n), shape=(TK, TN)), ct.float8_e4m3fn)
        b_scale = ct.bitcast(ct.load(B_scale, index=(kk, n), shape=(TK // 32, TN)), ct.float8_e8m0fnu)
        acc = ct.mma_scaled(a, a_scale, b, b_scale, acc)
    ct.store(C, index=(m, n), tile=acc)


def mxfp8_gemm(A, A_scale, B, B_scale, TM=128, TN=128, TK=128):
    C = torch.empty((A.shape[0], B.shape[1]), dtype=torch.float32, device=A.device)
    grid = (ct.cdiv(A.shape[0], TM), ct.cdiv(B.shape[1], TN), 1)
    ct.launch(torch.cuda.current_stream(), grid, mxfp8_gemm_kernel, (A, A_scale, B, B_scale, C, TM, TN, TK))
    return C
