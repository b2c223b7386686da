"""Host-side functions of the generated module (src/lower/launch.c): the stream
of a launch, ct.ByTarget, the TMA checks and allocator, the kernel objects of
host code (launch from any module, replace_hints, ct.kernel(f, **hints)), the
INTERPRETED flag the device helpers test, and the host values of cuTile's enums.

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import contextlib
import enum
import os

import torch
import triton
import triton.language as tl

# helper: INTERPRETED
INTERPRETED = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") == "1")


# helper: _kernel_stream
def _kernel_stream(stream, tensor):
    """The stream context of a launch: cuTile launched on `stream`. Nothing to switch
    when it is the current stream already, or for tensors on the CPU (Triton's interpreter)."""
    if stream is None or tensor is None or tensor.device.type != "cuda":
        return contextlib.nullcontext()
    if stream == torch.cuda.current_stream(tensor.device):
        return contextlib.nullcontext()
    return torch.cuda.stream(stream)


# helper: _tma_compatible
def _tma_compatible(tensor):
    """Whether a tensor descriptor (TMA) can address `tensor`: the last stride is 1, and the
    base address and the other strides are multiples of 16 bytes. On the H200 a descriptor
    that breaks these rules returns wrong data without an error, so such tensors take the
    pointer path."""
    size = tensor.element_size()
    return (
        2 <= tensor.dim() <= 5
        and tensor.stride(-1) == 1
        and tensor.data_ptr() % 16 == 0
        and all(stride * size % 16 == 0 for stride in tensor.stride()[:-1])
    )


# helper: _tma_workspace
def _tma_workspace(size: int, alignment: int, stream):
    """Global memory for the tensor descriptors kernels make (tl.make_tensor_descriptor)."""
    return torch.empty(size, device="cuda", dtype=torch.int8)


triton.set_allocator(_tma_workspace)


# helper: _by_target
def _by_target(default=None, **by_arch):
    """ct.ByTarget: the value given for this GPU's architecture (sm_XY), else the default."""
    if not torch.cuda.is_available():
        return default
    major, minor = torch.cuda.get_device_capability()
    return by_arch.get(f"sm_{major}{minor}", default)


# helper: _TileKernel
class _TileKernel:
    """A cuTile kernel object on the host: ct.launch launches it, replace_hints makes a
    variant with other compiler hints, _pyfunc is its function for ct.kernel(f, **hints).
    Of the hints only num_ctas is a Triton launch option; occupancy, opt_level and
    num_worker_warps are kept but have no Triton counterpart (C2T101). `hints` holds the
    hints given since the kernel's decorator, whose own hints are the launcher's defaults."""

    HINTS = ("num_ctas", "occupancy", "opt_level", "num_worker_warps")

    def __init__(self, launcher, hints):
        for name in hints:
            if name not in self.HINTS:
                raise TypeError(f"{name!r} is not a cuTile kernel hint {self.HINTS}")
        self.launcher = launcher
        self.hints = hints

    def replace_hints(self, **hints):
        return _TileKernel(self.launcher, {**self.hints, **hints})

    @property
    def _pyfunc(self):
        # ct.kernel(function) starts from cuTile's default hints, not the decorator's
        defaults = {"num_ctas": None, "occupancy": None, "opt_level": 3, "num_worker_warps": None}
        return _TileKernel(self.launcher, defaults)

    def launch_tile_kernel(self, stream, grid, args):
        if "num_ctas" not in self.hints:
            self.launcher(stream, grid, args)
        else:
            num_ctas = self.hints["num_ctas"]
            self.launcher(stream, grid, args, num_ctas=1 if num_ctas is None else num_ctas)


# helper: _host_kernel needs _TileKernel
def _host_kernel(function, launcher):
    """Give a converted kernel what cuTile host code uses of a kernel object (replace_hints,
    _pyfunc) and the launch that ct.launch calls, so any module can launch it."""
    kernel = _TileKernel(launcher, {})
    function.replace_hints = kernel.replace_hints
    function._pyfunc = kernel._pyfunc
    function.launch_tile_kernel = kernel.launch_tile_kernel


# helper: launch_kernel
def launch_kernel(stream, grid, kernel, args):
    """ct.launch(stream, grid, kernel, args) of a kernel chosen at run time or imported from
    another module: any kernel converted by cutile2triton, or a variant of one."""
    launch = getattr(kernel, "launch_tile_kernel", None)
    if launch is None:
        raise TypeError(f"{kernel!r} is not a kernel converted by cutile2triton")
    launch(stream, grid, args)


# helper: _ct_kernel
def _ct_kernel(function, **hints):
    """ct.kernel(function, **hints) on the host, where function is a converted kernel's
    function (kernel._pyfunc): a kernel with cuTile's default hints and these."""
    pyfunc = getattr(function, "_pyfunc", None)
    if pyfunc is None:
        raise TypeError(f"ct.kernel({function!r}): not a kernel converted by cutile2triton")
    return pyfunc.replace_hints(**hints)


# The host values of cuTile's enums (cuda.tile 1.7): the same class names, member
# names and values, so host code that keeps, compares or prints them behaves the
# same. Tile code never reads these: the converter resolves an enum member there.

# helper: _PaddingMode
_PaddingMode = enum.Enum(
    "PaddingMode",
    [("UNDETERMINED", "undetermined"), ("ZERO", "zero"), ("NEG_ZERO", "neg_zero"), ("NAN", "nan"),
     ("POS_INF", "pos_inf"), ("NEG_INF", "neg_inf")],
)


# helper: _RoundingMode
_RoundingMode = enum.Enum(
    "RoundingMode",
    [("RN", "nearest_even"), ("RZ", "zero"), ("RM", "negative_inf"), ("RP", "positive_inf"),
     ("RA", "nearest_away"), ("FULL", "full"), ("APPROX", "approx"), ("RZI", "nearest_int_to_zero")],
)


# helper: _MemoryOrder
_MemoryOrder = enum.Enum(
    "MemoryOrder",
    [("WEAK", "weak"), ("RELAXED", "relaxed"), ("ACQUIRE", "acquire"), ("RELEASE", "release"),
     ("ACQ_REL", "acq_rel")],
)


# helper: _MemoryScope
_MemoryScope = enum.Enum(
    "MemoryScope",
    [("NONE", "none"), ("BLOCK", "block"), ("CLUSTER", "cluster"), ("DEVICE", "device"), ("SYS", "sys")],
)
