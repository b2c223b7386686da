"""TileGym's persistent layer norm with its grid-stride loop spread: s times the host's programs
and the loop's step (NUM_SMS) s times larger, s = 1, 2, 4, 8, for each BLOCK_N and warp count,
converted (3 stages) or real cuTile; the best of each s. PYTHONPATH as persistent_layernorm_probe.py:
python3 persistent_layernorm_spread_probe.py conv|cutile OUT.json"""
import importlib, json, sys
import torch, triton
side = sys.argv[1]
mod = importlib.import_module("tilegym.ops.cutile.layer_norm_legacy")
NSM = torch.cuda.get_device_properties(0).multi_processor_count
if side == "conv":
    triton.set_allocator(mod._tma_workspace)
    k = mod._persistent_layer_norm_fwd_kernel
else:
    import cuda.tile as ct
res = []
for (N, D) in [(30000, 256), (30000, 1024), (128000, 256)]:
    x = torch.randn(N, D, dtype=torch.bfloat16, device="cuda")
    w = torch.randn(D, dtype=torch.bfloat16, device="cuda"); b = torch.randn_like(w)
    y = torch.empty_like(x); mean = torch.empty(N, device="cuda"); rstd = torch.empty(N, device="cuda")
    BD = triton.next_power_of_2(D)
    best = {}
    for BN in (4, 8, 16, 32):
        if BN * BD / 256 > 256:
            continue
        for s in (1, 2, 4, 8):
            grid = (min(s * NSM, -(-N // BN)),)
            if s > 1 and grid[0] < s * NSM:
                continue
            args = (x, y, w, b, mean, rstd, N, D, 1e-6, x.stride(0), y.stride(0), 0, 1, BN, BD, 1, grid[0])
            for nw in (4, 8):
                for S in ((0,) if side == "cutile" else (3,)):
                    if side == "cutile":
                        kk = mod._persistent_layer_norm_fwd_kernel.replace_hints(num_ctas=1, num_worker_warps=nw)
                        fn = lambda: ct.launch(torch.cuda.current_stream(), grid + (1, 1), kk, args)
                    else:
                        def fn():
                            k[grid](x, tuple(x.shape), tuple(x.stride()), y, tuple(y.shape), tuple(y.stride()),
                                    w, tuple(w.shape), tuple(w.stride()), b, tuple(b.shape), tuple(b.stride()),
                                    mean, tuple(mean.shape), tuple(mean.stride()),
                                    rstd, tuple(rstd.shape), tuple(rstd.stride()),
                                    N, D, 1e-6, x.stride(0), y.stride(0), 0, 1, BN, BD, 1, grid[0], True,
                                    _loop_stages=S, _use_tma=True, num_warps=nw, num_stages=S, enable_reflect_ftz=False)
                    try:
                        fn(); torch.cuda.synchronize()
                        t = triton.testing.do_bench(fn, warmup=10, rep=40) * 1000
                    except Exception as e:
                        t = None; print("ERR", type(e).__name__, str(e)[:150])
                    r = dict(N=N, D=D, BN=BN, s=s, nw=nw, S=S, us=t); res.append(r)
                    if t is not None and (s not in best or t < best[s][0]):
                        best[s] = (t, BN, nw, S)
    print(json.dumps(dict(N=N, D=D, best={s: v for s, v in sorted(best.items())})), flush=True)
json.dump(res, open(sys.argv[2], "w"))
