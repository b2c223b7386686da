"""Shared pieces of the operator tests (tests/ops).

Importing this module decides the device once per process:
* "cuda" when torch sees a GPU: converted Triton kernels are compiled for it,
  and the original cuTile modules can run too;
* "cpu" otherwise: TRITON_INTERPRET=1 is set *before* triton is imported
  anywhere, so converted kernels run on CPU tensors under Triton's interpreter.

It must be imported before anything imports triton; conftest.py imports it first.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "corpus" / "cutile"
CONVERTER = Path(os.environ.get("C2T_BIN", REPO / "build" / "cutile2triton"))

ON_GPU = torch.cuda.is_available()
DEVICE = "cuda" if ON_GPU else "cpu"
if not ON_GPU:
    if "triton" in sys.modules and os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError("triton was imported before TRITON_INTERPRET=1 could be set")
    os.environ["TRITON_INTERPRET"] = "1"
    import interpreter_bf16  # noqa: E402  (Triton's interpreter has no bfloat16 arithmetic)

    interpreter_bf16.install()

BACKENDS = ["triton", "cutile"]


def pick(cpu, cuda):
    """Small shapes for the interpreter, realistic ones on a GPU."""
    return cuda if ON_GPU else cpu


def import_file(path: Path, module_name: str):
    spec = importlib.util.spec_from_file_location(module_name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = mod
    spec.loader.exec_module(mod)
    return mod


def convert(name: str, out_dir: Path) -> Path:
    """Run the converter on corpus/cutile/NAME.py; return the path of the Triton module."""
    src = CORPUS / f"{name}.py"
    dst = out_dir / f"{name}.py"
    proc = subprocess.run([str(CONVERTER), str(src), "-o", str(dst)],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise ConversionError(
            f"{CONVERTER.name} {src.relative_to(REPO)} exited {proc.returncode}\n"
            f"--- stderr ---\n{proc.stderr}\n--- stdout ---\n{proc.stdout}")
    if not dst.exists():
        raise ConversionError(f"{CONVERTER.name} exited 0 but wrote no {dst}")
    return dst


class ConversionError(Exception):
    pass


def cutile_unavailable_reason():
    """None if the original cuTile modules can run here, else why not."""
    try:
        import cuda.tile  # noqa: F401
    except Exception as e:  # ImportError, or a broken install
        return f"cuda.tile is not importable: {type(e).__name__}: {e}"
    if not ON_GPU:
        return "cuda.tile needs an NVIDIA GPU to launch kernels; none here (CPU-only run)"
    major, minor = torch.cuda.get_device_capability()
    if major < 8:
        return f"cuda.tile does not target sm_{major}{minor}"
    try:
        from cuda.tile._compile import _find_compiler_bin  # private: best effort
        _find_compiler_bin()
    except ImportError:
        pass
    except Exception as e:
        return f"tileiras (cuTile's back end) not found: {e}"
    return None


def have_converter() -> bool:
    return CONVERTER.exists() or shutil.which(str(CONVERTER)) is not None


# ---- comparison helpers -------------------------------------------------------------

TOL = {
    # (rtol, atol) for results computed in float32 then stored in the output dtype
    torch.float32: (1e-5, 1e-6),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (1e-2, 1e-2),
}


def assert_close(actual, expected, *, rtol=None, atol=None, what=""):
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    d_rtol, d_atol = TOL.get(expected.dtype, (0, 0))
    torch.testing.assert_close(actual.cpu(), expected.cpu(),
                               rtol=d_rtol if rtol is None else rtol,
                               atol=d_atol if atol is None else atol,
                               msg=lambda m: f"{what}: {m}" if what else m)


def assert_equal(actual, expected, what=""):
    """Bit-exact comparison (integers, copies, gathers, permutations)."""
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    a, e = actual.cpu(), expected.cpu()
    if not torch.equal(a, e):
        bad = (a != e).nonzero()
        raise AssertionError(f"{what}: {bad.shape[0]} of {e.numel()} elements differ, "
                             f"first at {bad[0].tolist()}: {a[tuple(bad[0])]} vs {e[tuple(bad[0])]}")


def strided_view(shape, dtype, device, *, gen=None, pad_cols=5, offset=3, fill="randn"):
    """A 2-D view at an offset into a larger buffer: row stride != n_cols, base not aligned."""
    m, n = shape
    buf_len = offset + m * (n + pad_cols)
    if fill == "randn":
        buf = torch.randn(buf_len, generator=gen, dtype=torch.float32).to(dtype)
    else:
        buf = torch.randint(-100, 100, (buf_len,), generator=gen).to(dtype)
    buf = buf.to(device)
    return buf[offset:].as_strided((m, n), (n + pad_cols, 1))
