"""Compile-check corpus kernels with the real cuda-tile package, without a GPU.

cuda.tile compiles a kernel at ``ct.launch`` time, which needs libcuda.  Its
ahead-of-time API (``cuda.tile.compilation.export_kernel``) runs the same front
end (Python AST -> typed cuTile IR -> Tile IR bytecode) and, when ``tileiras``
is installed (pip package ``nvidia-cuda-tileiras``), the back end down to a
cubin for a named GPU -- no device needed.

To check a *module* rather than a kernel in isolation, this helper runs the
module's own host function on CPU tensors with ``ct.launch`` replaced by a
recorder.  Each recorded launch is turned into a ``KernelSignature`` built from
the actual arguments (dtype, rank, stride facts of each tensor; int32/float32/
bool scalars; values of ``ct.Constant`` parameters) and exported for every
requested target.  So the grid computation, the argument tuple and the kernel
body are all checked; the numerics are not (nothing runs).

Used by tests/ops/test_cutile_compile.py and by hand:

    python tests/ops/cutile_check.py            # every corpus module, sm_90 + sm_100
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_shims import cpu_cuda_shims  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "corpus" / "cutile"
DEFAULT_TARGETS = ("sm_90", "sm_100")


@dataclass
class Launch:
    kernel: str
    grid: tuple
    constants: dict
    outputs: dict = field(default_factory=dict)  # target -> size of the cubin / bytecode


def load_module(name: str):
    path = CORPUS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"cutile_corpus_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pow2_divisor(v: int, cap: int = 16) -> int:
    if v == 0:
        return cap
    d = 1
    while d < cap and v % (d * 2) == 0:
        d *= 2
    return d


def _is_constant_param(annotation) -> bool:
    from cuda.tile._stub import ConstantAnnotation
    if typing.get_origin(annotation) is typing.Annotated:
        return any(isinstance(m, ConstantAnnotation) for m in annotation.__metadata__)
    return False


def _signature_for(kernel, args):
    import cuda.tile as ct
    from cuda.tile.compilation import (ArrayConstraint, CallingConvention, KernelSignature, ListConstraint,
                                       ScalarConstraint)
    dtypes = {
        torch.float32: ct.float32, torch.float16: ct.float16, torch.bfloat16: ct.bfloat16,
        torch.float64: ct.float64, torch.int8: ct.int8, torch.int16: ct.int16,
        torch.int32: ct.int32, torch.int64: ct.int64, torch.uint8: ct.uint8, torch.bool: ct.bool_,
    }
    pyfunc = kernel._pyfunc
    hints = typing.get_type_hints(pyfunc, include_extras=True)
    params = list(inspect.signature(pyfunc).parameters)
    if len(params) != len(args):
        raise TypeError(f"{pyfunc.__name__}: {len(params)} parameters, launched with {len(args)} args")
    constraints, constants = [], {}
    for name, a in zip(params, args):
        if _is_constant_param(hints.get(name)):
            constraints.append(a)
            constants[name] = a
        elif isinstance(a, torch.Tensor):
            constraints.append(_array_constraint([a], dtypes, ct, ArrayConstraint))
        elif isinstance(a, (list, tuple)) and a and all(isinstance(t, torch.Tensor) for t in a):
            # a list of arrays: what holds for every element (cuTile takes one dtype and rank)
            constraints.append(ListConstraint(_array_constraint(list(a), dtypes, ct, ArrayConstraint),
                                              alias_groups=[], elements_may_alias=False))
        elif isinstance(a, bool):
            constraints.append(ScalarConstraint(ct.bool_))
        elif isinstance(a, int):
            if not -2**31 <= a < 2**31:
                raise ValueError(f"{name}={a} does not fit the int32 a kernel argument gets")
            constraints.append(ScalarConstraint(ct.int32))
        elif isinstance(a, float):
            constraints.append(ScalarConstraint(ct.float32))
        else:
            raise TypeError(f"{name}: unsupported argument type {type(a)}")
    return KernelSignature(constraints, CallingConvention.cutile_python_v1()), constants


def _array_constraint(tensors, dtypes, ct, ArrayConstraint):
    """The ArrayConstraint that holds for each of `tensors` (one dtype and rank)."""
    first = tensors[0]
    if any(t.dtype != first.dtype or t.dim() != first.dim() for t in tensors):
        raise TypeError("a list of arrays of one dtype and rank")
    elem = first.element_size()
    dims = range(first.dim())
    return ArrayConstraint(
        dtypes[first.dtype], first.dim(), index_dtype=ct.int32, stride_lower_bound_incl=0,
        alias_groups=[], may_alias_internally=False,
        stride_constant=[1 if all(t.stride(d) == 1 for t in tensors) else None for d in dims],
        stride_divisible_by=[min(_pow2_divisor(t.stride(d)) for t in tensors) for d in dims],
        shape_divisible_by=[min(_pow2_divisor(t.shape[d]) for t in tensors) for d in dims],
        base_addr_divisible_by=min(_pow2_divisor(t.data_ptr(), 16 * elem) for t in tensors))


def compile_host_call(fn, *args, targets=DEFAULT_TARGETS, **kwargs):
    """Run host function `fn` with ct.launch replaced by export_kernel; return the launches."""
    import cuda.tile as ct
    from cuda.tile.compilation import export_kernel

    launches: list[Launch] = []

    def recording_launch(stream, grid, kernel, kernel_args, /, **kw):
        if not isinstance(grid, tuple) or not 1 <= len(grid) <= 3:
            raise TypeError(f"grid must be a tuple of 1-3 ints, got {grid!r}")
        for g in grid:
            if not isinstance(g, int) or not 1 <= g < 2**24:
                raise ValueError(f"bad grid dimension {g!r} in {grid!r}")
        if not isinstance(kernel_args, tuple):
            raise TypeError("kernel arguments must be a tuple")
        sig, constants = _signature_for(kernel, kernel_args)
        rec = Launch(kernel._pyfunc.__name__, grid, constants)
        for t in targets:
            buf = io.BytesIO()
            if t == "tileir":
                export_kernel(kernel, [sig], buf, output_format="tileir_bytecode",
                              bytecode_version="13.3")
            else:
                export_kernel(kernel, [sig], buf, gpu_code=t, output_format="cubin")
            rec.outputs[t] = len(buf.getvalue())
        launches.append(rec)

    saved = ct.launch
    ct.launch = recording_launch
    try:
        with cpu_cuda_shims():
            fn(*args, **kwargs)
    finally:
        ct.launch = saved
    return launches


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from cutile_cases import COMPILE_CASES  # noqa: E402
    only = set(sys.argv[1:])
    failed = 0
    for case_id, (mod_name, fn_name, make_args) in COMPILE_CASES.items():
        if only and mod_name not in only and case_id not in only:
            continue
        mod = load_module(mod_name)
        args, kwargs = make_args()
        try:
            launches = compile_host_call(getattr(mod, fn_name), *args, **kwargs)
            for l in launches:
                print(f"ok   {case_id}: {l.kernel} grid={l.grid} {l.constants} {l.outputs}")
        except Exception as e:  # report and continue with the next case
            failed += 1
            print(f"FAIL {case_id}: {type(e).__name__}: {str(e)[:2000]}")
    print(f"{failed} failed")
    sys.exit(1 if failed else 0)
