"""TileGym's static persistent matmul, float16 A @ B at 2048^3, 4096^3 and 8192^3: real cuTile
(its own exhaustive_search) against the converted module, as converted and with its persistent
loop written `tl.range(..., flatten=True)` (Triton fuses the tile loop with the K loop, so the
next tile's loads overlap this tile's epilogue). Each side runs the module's own search, then
times the chosen launch. Results are checked against torch.
Usage: python3 persistent_gemm_flatten_probe.py CONVERTED.py OUT.json   (PYTHONPATH at TileGym's src)"""
import importlib.util, json, re, sys
import torch, triton

converted_path, out_path = sys.argv[1], sys.argv[2]
text = open(converted_path).read()
loop = re.compile(r"for tile_id in range\(start_bid, num_tiles, num_programs\):")
if not loop.search(text):
    sys.exit("the persistent loop is not where the probe expects it")
flat_path = converted_path.replace(".py", "_flat.py")
open(flat_path, "w").write(loop.sub(
    "for tile_id in tl.range(start_bid, num_tiles, num_programs, flatten=True):", text))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sides = {"converted": load("mm_conv", converted_path), "flatten": load("mm_flat", flat_path)}
try:
    import cuda.tile  # noqa: F401
    sides["cutile"] = importlib.import_module("tilegym.ops.cutile.matmul")
except Exception as e:  # the probe still compares the two converted forms
    print("cuTile unavailable:", type(e).__name__, e)

results = []
for n in (2048, 4096, 8192):
    a = torch.randn(n, n, dtype=torch.float16, device="cuda") / 8
    b = torch.randn(n, n, dtype=torch.float16, device="cuda") / 8
    ref = a.float() @ b.float()
    for name, mod in sides.items():
        c = torch.empty(n, n, dtype=torch.float16, device="cuda")
        stream = torch.cuda.current_stream()
        run = lambda: mod._cutile_autotune_static_persistent_matmul(stream, a, b, c, n, n, n, False, False)
        try:
            run()
            torch.cuda.synchronize()
            err = (c.float() - ref).abs().max().item()
            ms = triton.testing.do_bench(run, warmup=25, rep=200)
            cfg = mod._static_persistent_matmul_tune_cache[(n, n, n, False, False, a.dtype, str(a.device))][0]
            r = dict(n=n, side=name, us=ms * 1000, tflops=2 * n**3 / ms / 1e9, max_err=err,
                     cfg=vars(cfg))
            chosen = getattr(mod._static_persistent_matmul_kernel, "__dict__", {}).get("_c2t_chosen")
            if chosen:  # the Triton options the converted search kept, last one chosen
                r["options"] = str(list(chosen.values())[-1])
        except Exception as e:
            r = dict(n=n, side=name, error=f"{type(e).__name__}: {str(e)[:300]}")
        print(json.dumps(r), flush=True)
        results.append(r)
        json.dump(results, open(out_path, "w"), indent=1)
