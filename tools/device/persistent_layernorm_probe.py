"""TileGym's persistent layer norm (layer_norm_legacy) on the GPU, every BLOCK_N, warp count,
stage count and path (descriptor or pointers) of its search space, the L2 flushed before each
run (triton.testing.do_bench), as TileGym's benchmark runs: the measurement behind the
4-stage autotune candidate (_launch_candidates). Run with PYTHONPATH at a TileGym tree whose
layer_norm_legacy.py and utils.py are converted (conv) or original (cutile):
python3 persistent_layernorm_probe.py conv|cutile OUT.json"""
import importlib
import json
import sys

import torch
import triton

side = sys.argv[1]
mod = importlib.import_module("tilegym.ops.cutile.layer_norm_legacy")
NSM = torch.cuda.get_device_properties(0).multi_processor_count
if side == "conv":
    triton.set_allocator(mod._tma_workspace)
    k = mod._persistent_layer_norm_fwd_kernel
else:
    import cuda.tile as ct
res = []
for (N, D) in [(30000, 256), (128000, 256), (30000, 1024), (128000, 1024)]:
    x = torch.randn(N, D, dtype=torch.bfloat16, device="cuda")
    w = torch.randn(D, dtype=torch.bfloat16, device="cuda"); b = torch.randn_like(w)
    y = torch.empty_like(x); mean = torch.empty(N, device="cuda"); rstd = torch.empty(N, device="cuda")
    BD = triton.next_power_of_2(D)
    for BN in (8, 16, 32):
        grid = (min(NSM, -(-N // BN)),)
        args = (x, y, w, b, mean, rstd, N, D, 1e-6, x.stride(0), y.stride(0), 0, 1, BN, BD, 1, grid[0])
        for nw in (4, 8):
            variants = [(0, None)] if side == "cutile" else [(S, t) for S in (3, 4, 6) for t in (True, False)]
            for S, tma in variants:
                if side == "cutile":
                    kk = mod._persistent_layer_norm_fwd_kernel.replace_hints(num_ctas=1, num_worker_warps=nw)
                    fn = lambda: ct.launch(torch.cuda.current_stream(), grid + (1, 1), kk, args)
                else:
                    def fn():
                        k[grid](x, tuple(x.shape), tuple(x.stride()), y, tuple(y.shape), tuple(y.stride()),
                                w, tuple(w.shape), tuple(w.stride()), b, tuple(b.shape), tuple(b.stride()),
                                mean, tuple(mean.shape), tuple(mean.stride()), rstd, tuple(rstd.shape), tuple(rstd.stride()),
                                N, D, 1e-6, x.stride(0), y.stride(0), 0, 1, BN, BD, 1, grid[0], True,
                                _loop_stages=S, _use_tma=tma, num_warps=nw, num_stages=S, enable_reflect_ftz=False)
                try:
                    fn(); torch.cuda.synchronize()
                    t = triton.testing.do_bench(fn, warmup=10, rep=40) * 1000
                except Exception as e:
                    t = None; print("ERR", type(e).__name__, str(e)[:150])
                r = dict(N=N, D=D, BN=BN, nw=nw, tma=tma, S=S, us=t); print(json.dumps(r), flush=True); res.append(r)
json.dump(res, open(sys.argv[2], "w"))
