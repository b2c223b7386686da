"""TileGym's RMSNorm reload kernel (_rms_norm_kernel_gather), float16 rows of 8192, 16384 and
4096: real cuTile, the converted kernel autotuned and at each warp count and stage count, and
hand-written Triton variants (evict_last on the first pass, streaming stores, load order).
Run once per side with PYTHONPATH at a TileGym tree, original or with rms_norm.py converted:
python3 rms_reload_probe.py cutile|conv OUT.json"""
import importlib, json, sys
import torch, triton, triton.language as tl
side = sys.argv[1]
mod = importlib.import_module("tilegym.ops.cutile.rms_norm")
conv = orig = mod
if side == "cutile":
    import cuda.tile as ct

@triton.jit
def v_kernel(x, w, out, rstd, M, N: tl.constexpr, T: tl.constexpr, EVL: tl.constexpr, CS: tl.constexpr,
             XFIRST: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((T,), tl.float32)
    offs = tl.arange(0, T)
    for j in tl.range(0, N // T):
        if EVL:
            xj = tl.load(x + row * N + j * T + offs, eviction_policy="evict_last").to(tl.float32)
        else:
            xj = tl.load(x + row * N + j * T + offs).to(tl.float32)
        acc += xj * xj
    r = tl.rsqrt(tl.sum(acc, 0) / N + 1e-6)
    tl.store(rstd + row, r)
    for j in tl.range(0, N // T):
        if XFIRST:
            xj = tl.load(x + row * N + j * T + offs).to(tl.float32)
            wj = tl.load(w + j * T + offs).to(tl.float32)
        else:
            wj = tl.load(w + j * T + offs).to(tl.float32)
            xj = tl.load(x + row * N + j * T + offs).to(tl.float32)
        y = (xj * r * wj).to(tl.float16)
        if CS:
            tl.store(out + row * N + j * T + offs, y, cache_modifier=".cs")
        else:
            tl.store(out + row * N + j * T + offs, y)

res = []
def bench(name, fn, **kw):
    try:
        fn(); torch.cuda.synchronize()
        t = triton.testing.do_bench(fn, warmup=10, rep=60) * 1000
    except Exception as e:
        t = None; print("ERR", name, type(e).__name__, str(e)[:200])
    r = dict(name=name, us=t, **kw); print(json.dumps(r), flush=True); res.append(r)

for M, N in [(65536, 8192), (65536, 16384), (262144, 4096)]:
    x = torch.randn(M, N, dtype=torch.float16, device="cuda")
    w = torch.randn(N, dtype=torch.float16, device="cuda")
    out = torch.empty_like(x); rs = torch.empty(M, dtype=torch.float32, device="cuda")
    T = min(2048, triton.next_power_of_2(N))
    args = (x, w, out, rs, N, 1e-6, 0.0, T)
    if side == "cutile":
        kc = orig._rms_norm_kernel_gather
        bench("cutile", lambda: ct.launch(torch.cuda.current_stream(), (M,), kc, args), M=M, N=N)
        continue
    bench("conv_autotuned", lambda: conv.launch__rms_norm_kernel_gather(torch.cuda.current_stream(), (M,), args),
          M=M, N=N)
    k = conv._rms_norm_kernel_gather
    k = getattr(k, "fn", k)
    for nw in (1, 2, 4, 8, 16):
        for S in (1, 2, 3):
            bench("conv", lambda: k[(M,)](x, tuple(x.shape), tuple(x.stride()), w, tuple(w.shape), tuple(w.stride()),
                  out, tuple(out.shape), tuple(out.stride()), rs, tuple(rs.shape), tuple(rs.stride()),
                  N, 1e-6, 0.0, T, _loop_stages=S, num_warps=nw, num_stages=S), M=M, N=N, nw=nw, S=S)
    for nw in (2, 4, 8):
        for evl in (0, 1):
            for cs in (0, 1):
                for xf in (0, 1):
                    bench("hand", lambda: v_kernel[(M,)](x, w, out, rs, M, N, T, evl, cs, xf, num_warps=nw),
                          M=M, N=N, nw=nw, evl=evl, cs=cs, xf=xf)
    del x, out
json.dump(res, open(sys.argv[2], "w"))
