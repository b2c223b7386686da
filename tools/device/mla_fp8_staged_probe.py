"""TileGym's MLA prefill in float8_e5m2 (B4 H32 S8192, D128, rope 64): real cuTile at its
fastest configuration (64x128 tiles, occupancy 2) against the converted module and a variant
of it whose V is read from a K-major copy (docs/perf/h100_2026-12-06c/), on the device.

    python3 tools/device/mla_fp8_staged_probe.py      # with .gpu/mla_pre_base.py, .gpu/mla_pre_vt.py
    python3 tools/device/mla_fp8_staged_probe.py NAME=CONVERTED.py ...   # converted modules, V as it is

.gpu/mla_pre_base.py is the converted tilegym/ops/cutile/mla.py (its register_impl lines left
out); .gpu/mla_pre_vt.py the same with its V load reading `V_desc.load([b, h, 0, j * TILE_N])`
of a (B, H, D, S) array, transposed in the kernel (`tl.trans(tl.reshape(..., (TILE_D,
TILE_N)))`), and the launcher's descriptor block [1, 1, TILE_D, TILE_N]; the probe passes it
V transposed and made contiguous, and times that copy alone. Needs real cuTile and TileGym's
sources in /tmp/tg (imported from there, not copied). Times: triton.testing.do_bench, us.
"""
import math
import sys
import time

import torch
import triton

from module_file import load

import cuda.tile as ct

sys.path.insert(0, "/tmp/tg/src")
import tilegym.ops.cutile.mla as original  # noqa: E402

B, H, S, D, P = 4, 32, 8192, 128, 64
CONFIGS = [(256, 64, 8, 3), (128, 128, 8, 3), (128, 64, 8, 3)]  # tiles, warps, stages


def main():
    given = [arg.split("=", 1) for arg in sys.argv[1:]]
    if not given:
        given = [("base", ".gpu/mla_pre_base.py"), ("vt", ".gpu/mla_pre_vt.py")]

    def tensor(*shape):
        return torch.empty(*shape, device="cuda", dtype=torch.half).normal_(0, 0.3).to(torch.float8_e5m2)

    q, qpe, k, kpe, v = tensor(B, H, S, D), tensor(B, H, S, P), tensor(B, H, S, D), tensor(B, 1, S, P), tensor(B, H, S, D)
    v_t = v.transpose(-1, -2).contiguous()
    o = torch.empty_like(q)
    stream = torch.cuda.current_stream()
    flops = 4 * B * H * S * S / 2 * (D + P / 2)
    began = time.time()
    ms = triton.testing.do_bench(lambda: v_t.copy_(v.transpose(-1, -2)), warmup=5, rep=20)
    print(f"transpose copy of V: {ms * 1e3:.1f} us", flush=True)

    def args(tm, tn, values):
        return (q, qpe, k, kpe, values, o, 1 / math.sqrt(D + P), D, P, H, tm, tn, 0)

    kernel = original._prefill_mla_kernel.replace_hints(num_ctas=1, occupancy=2)
    ms = triton.testing.do_bench(lambda: ct.launch(stream, (S // 64, B * H, 1), kernel, args(64, 128, v)),
                                 warmup=10, rep=40)
    reference = o.float().clone()
    print(f"cutile 64x128 occ2: {ms * 1e3:.1f} us {flops / ms / 1e9:.0f} TF ({time.time() - began:.0f} s)", flush=True)
    # the hand-made variant "vt" reads V transposed; the others are given V (their launcher stages it)
    runs = [(name, load(path, f"mla_{name}"), v_t if name == "vt" else v) for name, path in given]
    for name, module, values in runs:
        for tm, tn, warps, stages in CONFIGS:
            module._searched_launch = (lambda kernel, key, launch, shapes, candidates, *rest, w=warps, s=stages, **kw:
                                       launch(s, w))

            def run(module=module, tm=tm, tn=tn, values=values):
                module.launch__prefill_mla_kernel(stream, (math.ceil(S / tm), B * H, 1), args(tm, tn, values))

            try:
                o.zero_()
                run()
                torch.cuda.synchronize()
                diff = (o.float() - reference).abs().max().item()
                ms = triton.testing.do_bench(run, warmup=10, rep=40)
                print(f"{name} {tm}x{tn} {warps}w {stages}s: {ms * 1e3:.1f} us {flops / ms / 1e9:.0f} TF "
                      f"maxdiff {diff:.3g} ({time.time() - began:.0f} s)", flush=True)
            except Exception as e:  # a configuration that does not compile or fit
                print(f"{name} {tm}x{tn}: {type(e).__name__} {str(e)[:100]}", flush=True)


if __name__ == "__main__":
    main()
