"""Strided tiled views and the views' atomic stores on the GPU: the kernels of
tests/convert/test_tiled_view.py converted, against real cuTile, element for element (they
must be equal). Run from the repository root on a GPU with cuda.tile importable and
build/cutile2triton built: python3 tools/device/views_vs_cutile.py"""
import importlib.util, subprocess, sys, torch
sys.path.insert(0, "tests/convert")
import test_tiled_view as T

def load(src, name, convert):
    path = f"/tmp/{name}.py"
    open(path, "w").write(src)
    if convert:
        subprocess.run(["build/cutile2triton", path, "-o", f"/tmp/{name}_tri.py"], check=True)
        path = f"/tmp/{name}_tri.py"
    spec = importlib.util.spec_from_file_location(name + ("_tri" if convert else ""), path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m

import cuda.tile as ct
s = torch.cuda.current_stream()
res = []
conv, orig = load(T.STEPS, "steps", True), load(T.STEPS, "steps_o", False)
for tile, step, n in ((4, 2, 8), (4, 8, 16), (4, 3, 12), (8, 3, 13)):
    x = torch.arange(1, n + 1, device="cuda", dtype=torch.float32)
    a = torch.zeros(n, device="cuda"); b = torch.zeros(n, device="cuda")
    conv.launch_window(s, (1,), (x, a, tile, step)); ct.launch(s, (1,), orig.window, (x, b, tile, step))
    res.append(("window", tile, step, n, torch.equal(a, b)))
x = torch.randint(0, 10, (7, 9), dtype=torch.int32, device="cuda")
a = torch.zeros(9, dtype=torch.int32, device="cuda"); b = torch.zeros_like(a)
conv.launch_box_sums(s, (3,), (x, a, 4, 2, 2, 3, 3)); ct.launch(s, (3,), orig.box_sums, (x, b, 4, 2, 2, 3, 3))
res.append(("box_sums", torch.equal(a, b)))
x = torch.randn(10, 10, device="cuda"); a = torch.empty(4, 4, device="cuda"); b = torch.empty(4, 4, device="cuda")
conv.launch_padded_windows(s, (4, 4), (x, a, 4, 3)); ct.launch(s, (4, 4), orig.padded_windows, (x, b, 4, 3))
res.append(("padded", torch.equal(a, b)))
for op in T.TORCH_OPS:
    src = T.ATOMICS.replace("atomic_store_OP", f"atomic_store_{op}")
    c, o = load(src, f"at_{op}", True), load(src, f"at_{op}_o", False)
    dt = torch.float32 if op == "add" else torch.int32
    for steps in ((8, 8), (5, 6), (11, 12)):
        x = torch.randint(-50, 50, (200, 260), device="cuda").to(dt); y = torch.randint(-50, 50, (200, 260), device="cuda").to(dt)
        xa, xb = x.clone(), x.clone()
        grid = (-(-200 // steps[0]), -(-260 // steps[1]))
        c.launch_combine(s, grid, (xa, y, 8, 8, *steps)); ct.launch(s, grid, o.combine, (xb, y, 8, 8, *steps))
        res.append((op, steps, torch.equal(xa, xb)))
torch.cuda.synchronize()
for r in res: print(r)
print("ALL EQUAL" if all(r[-1] for r in res) else "MISMATCH")
