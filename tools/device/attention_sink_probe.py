"""TileGym's attention with sinks on the GPU, real cuTile against its conversion: each side's
exhaustive_search (printed: every configuration's time as that side measured it), the
configuration it chose, and that configuration's kernel time per call (torch.profiler, CUDA
activity, 30 calls). The probe that found the converted search timing the launcher instead of
the kernel (stop 34). Run on the device machine, from the repository root, with real cuTile
set up (source .cutile/setup.sh) and a TileGym tree at TILEGYM:

    build/cutile2triton $TILEGYM/src/tilegym/ops/cutile/attention_sink.py -o /tmp/as_conv.py
    python3 tools/device/attention_sink_probe.py $TILEGYM /tmp/as_conv.py [--both]

Without --both only the converted side runs (cuTile's search compiles 18 configurations)."""
import importlib
import importlib.util
import sys

import torch
from torch.profiler import ProfilerActivity, profile

SHAPES = [  # batch, queries, keys, KV heads, heads per KV head, head dim, sliding window
    (1, 128, 2048, 8, 8, 64, None),
    (1, 1, 10919, 8, 8, 64, None),
]


def kernel_us(fn, calls=30):
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    return {e.key[:40]: e.device_time_total / calls for e in prof.key_averages() if "attention_sink" in e.key}


def main(tilegym, converted, both):
    sys.path.insert(0, f"{tilegym}/src")
    original = importlib.import_module("tilegym.ops.cutile.attention_sink")
    spec = importlib.util.spec_from_file_location("attention_sink_converted", converted)
    conv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conv)
    sides = (("cutile", original), ("converted", conv)) if both else (("converted", conv),)
    for bs, nq, nk, kv_heads, group, d, window in SHAPES:
        torch.manual_seed(0)
        q = torch.randn(bs, nq, kv_heads, group, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(bs, nk, kv_heads, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(bs, nk, kv_heads, d, device="cuda", dtype=torch.bfloat16)
        sinks = torch.randn(kv_heads * group, device="cuda", dtype=torch.bfloat16)
        start = torch.tensor([0], dtype=torch.int32, device="cuda")
        print(f"=== shape {(bs, nq, nk, kv_heads, group, d, window)}", flush=True)
        outputs = []
        for name, module in sides:
            def call(module=module):
                return module.attention_sink(q, k, v, sinks, 1.0 / d**0.5, window, start)
            print(f"--- {name} search", flush=True)
            outputs.append(call())
            best = list(module._attention_sink_tune_cache.values())[-1][0]
            print(name, "best", best, "kernel us", kernel_us(call), flush=True)
        if both:
            print("max diff", (outputs[0].float() - outputs[1].float()).abs().max().item())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--both" in sys.argv)
