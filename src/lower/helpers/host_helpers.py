"""Host-side functions of the generated module (src/lower/launch.c): the stream
of a launch, ct.ByTarget, the TMA checks and allocator, ct.launch of a kernel
chosen at run time, the INTERPRETED flag the device helpers test, and the host
values of cuTile's enums.

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import contextlib
import enum
import os

import torch
import triton
import triton.language as tl

_LAUNCHERS = {}  # the generated module lists its kernels' launchers here


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


# helper: launch_kernel
def launch_kernel(stream, grid, kernel, args):
    """ct.launch(stream, grid, kernel, args) for a kernel chosen at run time."""
    if kernel not in _LAUNCHERS:
        raise TypeError(f"{kernel!r} is not a kernel converted from this module")
    _LAUNCHERS[kernel](stream, grid, args)


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
