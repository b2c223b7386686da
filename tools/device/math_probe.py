"""Bits of cuTile's math operations against the converted Triton ones, on a GPU with real cuTile.
Writes a cuTile module with one kernel per operation, converts it with the converter given as
argv[1] (`python3 tools/device/math_probe.py build/cutile2triton`; `--convert-only` stops there),
runs both on the same 2^20 inputs per dtype and prints, per operation and dtype, how many results
differ in their bits and the largest distance in ulp (H200, session 19: every operation but pow
bit-identical once launches compile with enable_reflect_ftz=False)."""
import os, subprocess, sys

import torch

from module_file import load

OPS = {
    "exp": "ct.exp(t)", "exp_approx": "ct.exp(t, rounding_mode=ct.RoundingMode.APPROX)",
    "exp2": "ct.exp2(t)", "exp2_ftz": "ct.exp2(t, flush_to_zero=True)", "log": "ct.log(t)", "log2": "ct.log2(t)",
    "sqrt": "ct.sqrt(t)", "sqrt_approx": "ct.sqrt(t, rounding_mode=ct.RoundingMode.APPROX)",
    "rsqrt": "ct.rsqrt(t)", "sin": "ct.sin(t)", "cos": "ct.cos(t)", "tan": "ct.tan(t)",
    "sinh": "ct.sinh(t)", "cosh": "ct.cosh(t)", "tanh": "ct.tanh(t)",
    "tanh_approx": "ct.tanh(t, rounding_mode=ct.RoundingMode.APPROX)",
    "floor": "ct.floor(t)", "ceil": "ct.ceil(t)", "div": "t / (t * t + 0.75)",
    "div_approx": "ct.truediv(t, t * t + 0.75, rounding_mode=ct.RoundingMode.APPROX)",
    "pow": "ct.pow(ct.abs(t), t * 0.25)", "sigmoid_expr": "1.0 / (1.0 + ct.exp(-t))",
}
T = 1024
src = ["import cuda.tile as ct", "import torch", ""]
for name, expr in OPS.items():
    src += ["@ct.kernel", f"def k_{name}(x, y, T: ct.Constant[int]):", "    i = ct.bid(0)",
            "    t = ct.load(x, index=(i,), shape=(T,))", f"    ct.store(y, index=(i,), tile={expr})", ""]
src += ["KERNELS = {" + ", ".join(f'"{n}": k_{n}' for n in OPS) + "}", "",
        "def run(name, x):", "    y = torch.empty_like(x)",
        f"    ct.launch(torch.cuda.current_stream(), (x.numel() // {T}, 1, 1), KERNELS[name], (x, y, {T}))",
        "    return y", ""]
os.makedirs("/tmp/mp", exist_ok=True)
open("/tmp/mp/mk.py", "w").write("\n".join(src))
rc = subprocess.run([sys.argv[1], "/tmp/mp/mk.py", "-o", "/tmp/mp/mk_triton.py"]).returncode
assert rc == 0, rc


if len(sys.argv) > 2 and sys.argv[2] == "--convert-only":
    sys.exit(0)
orig, conv = load("/tmp/mp/mk.py", "mk"), load("/tmp/mp/mk_triton.py", "mk_triton")
torch.manual_seed(0)
n = 1 << 20
base = torch.cat([torch.randn(n // 4) * 4, torch.randn(n // 4) * 40, (torch.rand(n // 4) - 0.5) * 2,
                  torch.randn(n // 4 - 16) * 1e-3,
                  torch.tensor([0.0, -0.0, 1.0, -1.0, 88.7, -87.3, 100.0, -100.0, 1e-38, 1e-45, 3e38, -3e38,
                                float("inf"), float("-inf"), float("nan"), 0.5])])
print(f"{'op':14} {'dtype':9} {'differ':>8} {'max ulp':>8}  example (x, cuTile, converted)")
for dtype, itype in ((torch.float32, torch.int32), (torch.float16, torch.int16), (torch.bfloat16, torch.int16)):
    x = base.to(dtype).cuda()
    for name in OPS:
        try:
            a = orig.run(name, x)
            b = conv.run(name, x)
        except Exception as e:  # an operation one side does not take for this dtype
            print(f"{name:14} {str(dtype)[6:]:9} error: {type(e).__name__}: {str(e)[:90]}")
            continue
        torch.cuda.synchronize()
        ai, bi = a.view(itype).long(), b.view(itype).long()
        both_nan = torch.isnan(a) & torch.isnan(b)
        differ = (ai != bi) & ~both_nan
        cnt = int(differ.sum())
        ulp = 0
        if cnt:
            same_sign = (a.sign() == b.sign()) & differ & torch.isfinite(a) & torch.isfinite(b)
            ulp = int((ai - bi).abs()[same_sign].max()) if same_sign.any() else -1
            j = int(differ.nonzero()[0])
            ex = f"({float(x[j]):.9g}, {float(a[j]):.9g}, {float(b[j]):.9g})"
        else:
            ex = ""
        print(f"{name:14} {str(dtype)[6:]:9} {cnt:8d} {ulp:8d}  {ex}")
