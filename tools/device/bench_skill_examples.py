"""Time the examples of TileGym's converting skill on a GPU: each cuTile example converted by
cutile2triton, the original with real cuTile, the example's own hand-written Triton and the
vendor operation (torch / cuBLAS / SDPA), side by side in one process. Every timed output is
checked against the vendor's first; a wrong one is reported and not timed.

    python3 tools/device/bench_skill_examples.py EXAMPLES_DIR [--converter build/cutile2triton]
        [--only softmax,layernorm,matmul,attention] [--json OUT.json]

EXAMPLES_DIR is skills/tilegym-converting-cutile-to-triton/examples of a TileGym checkout
(its 0N_name/cutile_kernel.py and triton_kernel.py are imported from there, not copied).
Times: triton.testing.do_bench, median ms, L2 flushed before each call.
"""

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import triton.testing

from module_file import load

REPO = Path(__file__).resolve().parents[2]


def modules(examples, folder, converter, work):
    src = examples / folder / "cutile_kernel.py"
    out = work / f"{folder}_converted.py"
    proc = subprocess.run([str(converter), str(src), "-o", str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{src}: conversion failed\n{proc.stderr}")
    found = {"converted": load(out, f"conv_{folder}"), "handwritten": load(examples / folder / "triton_kernel.py",
                                                                            f"hand_{folder}")}
    try:
        found["cutile"] = load(src, f"orig_{folder}")
    except Exception as e:  # no cuda.tile here: the other backends still run
        print(f"  (real cuTile not importable: {type(e).__name__}: {e})")
    return found


def cases(examples, converter, work, only):
    """(example, size, backend, fn, vendor fn, GB or TFLOP per call, unit, tolerance: of the largest
    difference from the vendor's output, times its largest magnitude where that is above 1)"""
    f16 = torch.float16
    if "softmax" in only:
        mods = modules(examples, "02_softmax", converter, work)
        for m, n in ((8192, 8192), (4096, 32768), (16384, 4096), (32768, 1024)):
            x = torch.randn(m, n, device="cuda", dtype=f16)
            vendor = lambda x=x: torch.softmax(x, dim=-1)  # noqa: E731
            for backend, mod in mods.items():
                yield ("softmax", f"{m}x{n} f16", backend, lambda x=x, mod=mod: mod.softmax(x), vendor,
                       2 * x.numel() * x.element_size() / 1e9, "GB/s", 1e-2)
            yield ("softmax", f"{m}x{n} f16", "vendor", vendor, vendor, 2 * x.numel() * x.element_size() / 1e9,
                   "GB/s", 0)
    if "layernorm" in only:
        mods = modules(examples, "03_layernorm", converter, work)
        for m, n in ((8192, 8192), (4096, 4096)):
            x = torch.randn(m, n, device="cuda", dtype=f16)
            w = torch.randn(n, device="cuda", dtype=f16)
            b = torch.randn(n, device="cuda", dtype=f16)
            vendor = lambda x=x, w=w, b=b: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)  # noqa: E731
            gb = 2 * x.numel() * x.element_size() / 1e9
            for backend, mod in mods.items():
                fn = getattr(mod, "layer_norm_forward", None) or getattr(mod, "layernorm_forward")
                yield ("layernorm fwd", f"{m}x{n} f16", backend,
                       lambda x=x, w=w, b=b, fn=fn: first(fn(x, w, b, 1e-5)), vendor, gb, "GB/s", 2e-2)
            yield ("layernorm fwd", f"{m}x{n} f16", "vendor", vendor, vendor, gb, "GB/s", 0)
    if "matmul" in only:
        mods = modules(examples, "04_matmul", converter, work)
        for n in (4096, 8192):
            a = torch.randn(n, n, device="cuda", dtype=f16)
            b = torch.randn(n, n, device="cuda", dtype=f16)
            vendor = lambda a=a, b=b: a @ b  # noqa: E731
            for backend, mod in mods.items():
                yield ("matmul", f"{n}^3 f16", backend, lambda a=a, b=b, mod=mod: mod.matmul(a, b), vendor,
                       2 * n ** 3 / 1e12, "TFLOP/s", 2e-2 * math.sqrt(n))
            yield ("matmul", f"{n}^3 f16", "vendor", vendor, vendor, 2 * n ** 3 / 1e12, "TFLOP/s", 0)
    if "attention" in only:
        mods = modules(examples, "05_attention", converter, work)
        for d in (64, 128):
            q, k, v = (torch.randn(4, 32, 4096, d, device="cuda", dtype=f16) for _ in range(3))
            vendor = lambda q=q, k=k, v=v: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
                q, k, v, is_causal=True)
            tflop = 4 * 4 * 32 * 4096 * 4096 * d / 2 / 1e12  # causal: half the products
            for backend, mod in mods.items():
                if hasattr(mod, "fmha_forward"):  # the cuTile example and its conversion: causal by flag
                    fn = lambda q=q, k=k, v=v, mod=mod, d=d: mod.fmha_forward(q, k, v, 1 / math.sqrt(d), True)
                else:  # the hand-written Triton takes (Q, K, V) and returns (O, L)
                    fn = lambda q=q, k=k, v=v, mod=mod: first(mod.flash_attention_forward(q, k, v))
                yield ("attention causal", f"B4 H32 S4096 D{d} f16", backend, fn, vendor, tflop, "TFLOP/s", 2e-2)
            yield ("attention causal", f"B4 H32 S4096 D{d} f16", "vendor", vendor, vendor, tflop, "TFLOP/s", 0)


def first(result):
    return result[0] if isinstance(result, tuple) else result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", type=Path)
    parser.add_argument("--converter", type=Path, default=REPO / "build" / "cutile2triton")
    parser.add_argument("--only", default="softmax,layernorm,matmul,attention")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for example, size, backend, fn, vendor, amount, unit, tol in cases(args.examples, args.converter, Path(tmp),
                                                                          args.only.split(",")):
            row = {"example": example, "size": size, "backend": backend}
            try:
                if backend != "vendor":
                    got, want = fn(), vendor()
                    err = (got.float() - want.float()).abs().max().item()
                    row["max_error"] = err
                    tol *= max(1.0, want.float().abs().max().item())  # relative where values are large
                    if not err <= tol:
                        row["wrong"] = True
                        print(f"{example:17s} {size:22s} {backend:12s} WRONG: max error {err:.3g} > {tol:.3g}",
                              flush=True)
                        rows.append(row)
                        continue
                ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                row.update(ms=ms, throughput=amount / ms * 1e3, unit=unit)
                print(f"{example:17s} {size:22s} {backend:12s} {ms:9.4f} ms {row['throughput']:9.1f} {unit}"
                      + (f"  (max error {row['max_error']:.2g})" if "max_error" in row else ""), flush=True)
            except Exception as e:  # report and go on: one backend's failure says nothing of the others
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                print(f"{example:17s} {size:22s} {backend:12s} FAILED {row['error']}", flush=True)
            rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
