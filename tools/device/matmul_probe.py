"""TileGym's float16 matmul on the GPU, the measurement behind exhaustive_search's launch-option
search (tune_helpers.py): cuBLAS, real cuTile's own search configurations (plain and static
persistent), and the converted kernels over tile x warps x stages x store path (and the
persistent loop as tl.range(flatten=True) / warp_specialize=True where the converted module
has such variants), 4096^3 and 8192^3, the L2 flushed before each run (do_bench). Run with
PYTHONPATH at a TileGym tree whose ops/cutile/matmul.py is the original (cublas, cutile) or
converted (conv):  python3 matmul_probe.py cublas|cutile|conv OUT.jsonl"""
import importlib, json, sys, re, os
import torch, triton, triton.language as tl
side = sys.argv[1]
out = open(sys.argv[2], "w")
def rec(**r):
    print(json.dumps(r), flush=True); out.write(json.dumps(r) + "\n"); out.flush()
mod = importlib.import_module("tilegym.ops.cutile.matmul")
NSM = torch.cuda.get_device_properties(0).multi_processor_count
sizes = [(4096, 4096, 4096), (8192, 8192, 8192)]
def bench(fn):
    fn(); torch.cuda.synchronize()
    return triton.testing.do_bench(fn, warmup=25, rep=100) * 1000
for (M, N, K) in sizes:
    a = torch.randn(M, K, dtype=torch.float16, device="cuda"); b = torch.randn(K, N, dtype=torch.float16, device="cuda")
    ref = a @ b
    fl = 2 * M * N * K
    if side == "cublas":
        t = bench(lambda: a @ b); rec(side="cublas", M=M, us=t, tf=fl / t / 1e6); continue
    if side == "cutile":
        import cuda.tile as ct
        from math import ceil
        st = torch.cuda.current_stream()
        for cfg in mod._matmul_autotune_configs():
            c = torch.empty(M, N, dtype=torch.float16, device="cuda")
            kk = mod._matmul_kernel.replace_hints(num_ctas=cfg.num_ctas, occupancy=cfg.occupancy)
            g = (ceil(M / cfg.TILE_SIZE_M) * ceil(N / cfg.TILE_SIZE_N), 1, 1)
            fn = lambda: ct.launch(st, g, kk, (a, b, c, cfg.TILE_SIZE_M, cfg.TILE_SIZE_N, cfg.TILE_SIZE_K))
            try:
                t = bench(fn); err = (c.float() - ref.float()).abs().max().item()
            except Exception as e:
                t = None; err = str(e)[:100]
            rec(side="cutile", kind="plain", M=M, cfg=vars(cfg), us=t, tf=t and fl / t / 1e6, err=err)
        for cfg in mod._static_persistent_matmul_autotune_configs():
            c = torch.empty(M, N, dtype=torch.float16, device="cuda")
            kk = mod._static_persistent_matmul_kernel.replace_hints(num_ctas=cfg.num_ctas, occupancy=cfg.occupancy)
            g = (min(NSM // cfg.num_ctas, ceil(M / cfg.TILE_SIZE_M) * ceil(N / cfg.TILE_SIZE_N)) * cfg.occupancy, 1, 1)
            fn = lambda: ct.launch(st, g, kk, (a, b, c, M, N, K, cfg.TILE_SIZE_M, cfg.TILE_SIZE_N, cfg.TILE_SIZE_K, False, False, cfg.GROUP_SIZE_M, cfg.LOAD_LATENCY))
            try:
                t = bench(fn); err = (c.float() - ref.float()).abs().max().item()
            except Exception as e:
                t = None; err = str(e)[:100]
            rec(side="cutile", kind="persistent", M=M, cfg=vars(cfg), us=t, tf=t and fl / t / 1e6, err=err)
        continue
    triton.set_allocator(mod._tma_workspace)
    c = torch.empty(M, N, dtype=torch.float16, device="cuda")
    common = lambda x: (x, tuple(x.shape), tuple(x.stride()))
    plain = [((128, 128, 32), w, s, st) for w in (4, 8) for s in (3, 4, 5) for st in (True, False)]
    plain += [((128, 128, 64), w, s, st) for w in (4, 8) for s in (3, 4, 5) for st in (True, False)]
    plain += [((128, 256, 64), 8, s, st) for s in (3, 4) for st in (True, False)]
    plain += [((256, 128, 64), 8, s, st) for s in (3, 4) for st in (True, False)]
    plain += [((256, 256, 64), w, s, True) for w in (8, 16) for s in (2, 3)]
    for (TM, TN, TK), w, s, stma in plain:
        k = mod._matmul_kernel
        g = (triton.cdiv(M, TM) * triton.cdiv(N, TN),)
        fn = lambda: k[g](*common(a), *common(b), *common(c), TM, TN, TK, True, True, True, b, False,
                          _store_tma=stma, num_warps=w, num_stages=s, enable_reflect_ftz=False)
        c.zero_()
        try:
            t = bench(fn); err = (c.float() - ref.float()).abs().max().item()
        except Exception as e:
            t = None; err = type(e).__name__ + str(e)[:100]
        rec(side="conv", kind="plain", M=M, tile=[TM, TN, TK], w=w, s=s, stma=stma, us=t, tf=t and fl / t / 1e6, err=err)
    for vname in ("orig", "flat", "ws"):
        k = getattr(mod, "_static_persistent_matmul_kernel_" + vname, None) if vname != "orig" else mod._static_persistent_matmul_kernel
        if k is None:
            continue
        for (TM, TN, TK), w, s in [((128, 128, 64), 8, 3), ((128, 128, 64), 8, 4), ((128, 256, 64), 8, 3), ((128, 256, 64), 8, 4), ((256, 128, 64), 8, 3), ((128, 128, 64), 4, 4)]:
            g = (min(NSM, triton.cdiv(M, TM) * triton.cdiv(N, TN)),)
            fn = lambda: k[g](*common(a), *common(b), *common(c), M, N, K, TM, TN, TK, False, False, 8, -1, True, True, True, b, False,
                              num_warps=w, num_stages=s, enable_reflect_ftz=False)
            c.zero_()
            try:
                t = bench(fn); err = (c.float() - ref.float()).abs().max().item()
            except Exception as e:
                t = None; err = type(e).__name__ + str(e)[:100]
            rec(side="conv", kind="persistent-" + vname, M=M, tile=[TM, TN, TK], w=w, s=s, us=t, tf=t and fl / t / 1e6, err=err)
