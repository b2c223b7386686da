"""pytest plugin: record every launch of a @triton.jit kernel made under TRITON_INTERPRET=1.

Loaded with `-p launch_record` (this folder on PYTHONPATH) by test_gpu_compile.py,
which runs the operator tests (tests/ops) through it.  Each launch becomes one
JSON line in the file named by C2T_RECORD_LAUNCHES:
  {"module": module name, "file": the converted module, "kernel": name,
   "args": [...], "kwargs": {...}, "grid": [...]}
with every argument encoded by encode() below: what the Triton binder needs to
give the same signature, constexprs and specialization attributes on a GPU
(a tensor's dtype and whether its address is 16-byte aligned, a tensor
descriptor's tensor and block shape, integers and floats by value, tuples
element by element), so tools/compile_check.py can
compile the kernel for sm_90/sm_100 exactly as that launch would have.

With C2T_RECORD_ONLY=1 the kernel is not run (the launch is only recorded):
the tests then fail on their unwritten outputs, which is expected; the corpus
host code computes no launch from a kernel's results.
"""

import json
import os

_SEEN = set()


def encode(value):
    """A JSON form of one launch argument (see tools/compile_check.py: decode)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, float):
        return {"float": value}
    if isinstance(value, (tuple, list)):
        return {"tuple": [encode(v) for v in value]}
    if hasattr(value, "block_shape") and hasattr(value, "base"):  # a tensor descriptor made on the host
        return {"descriptor": encode(value.base), "shape": list(value.shape), "strides": list(value.strides),
                "block_shape": list(value.block_shape), "padding": value.padding}
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        return {"tensor": str(value.dtype).replace("torch.", ""), "aligned": value.data_ptr() % 16 == 0,
                "shape": list(value.shape), "stride": list(value.stride())}
    import triton.language as tl
    if isinstance(value, tl.dtype):
        return {"tl_dtype": value.name}
    if isinstance(value, tl.constexpr):
        return {"constexpr": encode(value.value)}
    if isinstance(value, tl.tensor) and hasattr(value.handle, "data") and value.handle.data.size == 1:
        # a float or bool argument the launcher gave the interpreter as its float32 or int1 scalar
        item = value.handle.data.reshape(-1)[0]
        return bool(item) if value.dtype == tl.int1 else {"float": float(item)}
    raise TypeError(f"launch argument of type {type(value).__name__} cannot be recorded: {value!r}")


def _install(path, record_only):
    from triton.runtime.interpreter import InterpretedFunction

    original = InterpretedFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        fn = self.fn
        entry = {"module": fn.__module__, "file": fn.__code__.co_filename, "kernel": fn.__name__,
                 "args": [encode(a) for a in args], "kwargs": {k: encode(v) for k, v in kwargs.items()},
                 "grid": encode(tuple(grid)) if not callable(grid) else None}
        line = json.dumps(entry, sort_keys=True)
        if line not in _SEEN:
            _SEEN.add(line)
            with open(path, "a") as out:
                out.write(line + "\n")
        if record_only:
            return None
        return original(self, *args, grid=grid, warmup=warmup, **kwargs)

    InterpretedFunction.run = run


def pytest_configure(config):
    path = os.environ.get("C2T_RECORD_LAUNCHES")
    if not path:
        return
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError("launch_record needs TRITON_INTERPRET=1 (it records the interpreter's launches)")
    _install(path, os.environ.get("C2T_RECORD_ONLY") == "1")
