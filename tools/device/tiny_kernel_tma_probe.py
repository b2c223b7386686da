"""Tiny kernels on the H200: a converted module's splitk_reduce (TileGym's, converted into the tree as
tilegym/ops/cutile/_skr_conv.py) on its descriptor path and its pointer path, and real cuTile; GPU time by
CUDA-graph replay (do_bench_cudagraph). Usage: PYTHONPATH=TILEGYM/src python3 tiny_kernel_tma_probe.py OUT.jsonl"""
import importlib, json, sys
import torch, triton
orig = importlib.import_module("tilegym.ops.cutile.splitk_reduce")
conv = importlib.import_module("tilegym.ops.cutile._skr_conv")
triton.set_allocator(conv._tma_workspace)
out = open(sys.argv[1], "w")
for B, H, S, D in [(1, 32, 4, 128), (1, 32, 8, 128), (1, 32, 16, 128), (4, 32, 16, 128)]:
    a = torch.randn(B, H, S, D, dtype=torch.float16, device="cuda")
    lse = torch.randn(B, H, S, dtype=torch.float32, device="cuda")
    o1 = torch.empty(B, H, D, dtype=torch.float16, device="cuda"); o2 = torch.empty_like(o1); o3 = torch.empty_like(o1)
    S2 = 1 << (S - 1).bit_length(); TD = min(128, 1 << (D - 1).bit_length()); use_dot = S2 >= 16
    grid = (B, H, (D + TD - 1) // TD)
    def conv_run(o, tma):
        conv._splitk_reduce_kernel[grid](a, tuple(a.shape), a.stride(), lse, tuple(lse.shape), lse.stride(), o, tuple(o.shape), o.stride(),
                                         B, 1024, H, D, S, S2, TD, use_dot, True, True, _use_tma=tma)
    r = {"shape": [B, H, S, D]}
    for name, fn in [("cutile", lambda: orig.splitk_reduce(a, lse, o1, 1024)), ("conv_tma", lambda: conv_run(o2, True)),
                     ("conv_ptr", lambda: conv_run(o3, False))]:
        try:
            fn(); torch.cuda.synchronize()
            r[name + "_us"] = triton.testing.do_bench_cudagraph(fn, rep=50) * 1000
        except Exception as e:
            r[name + "_us"] = repr(e)[:200]
    r["same_tma"] = bool(torch.allclose(o1.float(), o2.float(), atol=1e-2)); r["same_ptr"] = bool(torch.allclose(o1.float(), o3.float(), atol=1e-2))
    print(json.dumps(r), flush=True); out.write(json.dumps(r) + "\n")
