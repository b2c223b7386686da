"""tf32 GEMM at 4096^3 on the H200: which operand layouts and roundings keep Triton 3.6's wgmma
pipelined (the measurement behind src/lower/lower_tf32.c). Run on a GPU: python3 tf32_probe.py"""
import itertools

import torch
import triton
import triton.language as tl

triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))

@triton.jit
def rnd(x):
    u = x.to(tl.uint32, bitcast=True)
    u = (u + 0xFFF + ((u >> 13) & 1)) & 0xFFFFE000
    return u.to(tl.float32, bitcast=True)

@triton.jit
def k(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
      BT: tl.constexpr, RA: tl.constexpr, RB: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM); tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows = min(tiles_m - first_m, GROUP)
    pm = first_m + (pid % per_group) % rows
    pn = (pid % per_group) // rows
    a_d = tl.make_tensor_descriptor(A, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    if BT:
        b_d = tl.make_tensor_descriptor(B, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    else:
        b_d = tl.make_tensor_descriptor(B, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_d = tl.make_tensor_descriptor(C, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), tl.float32)
    for kk in range(tl.cdiv(K, BK)):
        a = a_d.load([pm * BM, kk * BK])
        if BT:
            b = tl.trans(b_d.load([pn * BN, kk * BK]))
        else:
            b = b_d.load([kk * BK, pn * BN])
        if RA:
            a = rnd(a)
        if RB:
            b = rnd(b)
        acc = tl.dot(a, b, acc, input_precision="tf32")
    c_d.store([pm * BM, pn * BN], acc)

@triton.jit
def stage(B, BT_, K, N, BK: tl.constexpr, BN: tl.constexpr):
    # BT_[n, k] = rnd(B[k, n])
    pk = tl.program_id(0); pn = tl.program_id(1)
    rk = pk * BK + tl.arange(0, BK); rn = pn * BN + tl.arange(0, BN)
    m = (rk[:, None] < K) & (rn[None, :] < N)
    x = tl.load(B + rk[:, None] * N + rn[None, :], mask=m)
    tl.store(BT_ + rn[None, :] * K + rk[:, None], rnd(x), mask=m)

M = N = K = 4096
a = torch.randn(M, K, device="cuda"); b = torch.randn(K, N, device="cuda")
bt = b.t().contiguous()
c = torch.empty(M, N, device="cuda")
flop = 2 * M * N * K
def tf(ms): return flop / ms / 1e9
ref = (a.double() @ b.double()).float()
for (bt_, ra, rb) in [(0, 1, 1), (0, 0, 0), (1, 0, 0), (1, 1, 0)]:
    best = None
    for BM, BN, BK, w, s in itertools.product([128], [128, 256], [32, 64], [8], [3]):
        try:
            grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
            fn = lambda: k[grid](a, bt if bt_ else b, c, M, N, K, BM, BN, BK, bt_, ra, rb, 8, num_warps=w, num_stages=s)
            fn(); torch.cuda.synchronize()
            ms = triton.testing.do_bench_cudagraph(fn)
            err = (c - ref).abs().max().item()
            if best is None or ms < best[0]:
                best = (ms, BM, BN, BK, w, s, err)
        except Exception as e:
            pass
    print(f"BT={bt_} RA={ra} RB={rb}: best {tf(best[0]):.1f} TFLOP/s {best[0]*1e3:.0f} us cfg={best[1:6]} maxerr={best[6]:.3g}", flush=True)
# staging cost: round + transpose B into K-major
bs = torch.empty(N, K, device="cuda")
for BK_, BN_ in [(64, 64), (32, 128), (128, 32)]:
    f = lambda: stage[(triton.cdiv(K, BK_), triton.cdiv(N, BN_))](b, bs, K, N, BK_, BN_)
    f(); ms = triton.testing.do_bench_cudagraph(f)
    print(f"stage {BK_}x{BN_}: {ms*1e3:.1f} us ({2*K*N*4/ms/1e6:.0f} GB/s)")
torch.backends.cuda.matmul.allow_tf32 = True
ms = triton.testing.do_bench_cudagraph(lambda: a @ b); print(f"cuBLAS tf32: {tf(ms):.1f} TFLOP/s")
