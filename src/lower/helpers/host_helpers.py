"""Host-side functions of the generated module (src/lower/launch.c): the arrays
and the stream of a launch, ct.ByTarget, the TMA checks and allocator, the kernel
objects of host code (launch from any module, replace_hints, ct.kernel(f, **hints)),
the INTERPRETED flag the device helpers test, and the host values of cuTile's enums.

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import contextlib
import enum
import inspect
import operator
import os
import threading

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# helper: INTERPRETED
INTERPRETED = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") == "1")


# helper: _CUTILE_VERSION
# ct.__version__ on the host: the cuda-tile release whose semantics the converted code keeps
_CUTILE_VERSION = "1.7.0"


# helper: _tensor
def _tensor(array, name, rank=None, read_at=0, number=False):
    """An array argument of a launch as the torch tensor the kernel is given. cuTile took,
    zero-copy, torch tensors, arrays with __cuda_array_interface__ (CuPy, Numba) and DLPack
    arrays (numpy, JAX, ...): the tensor made here shares the array's memory, so the kernel
    writes into the caller's array. `rank`: the number of entries the kernel indexes the
    array with, which cuTile's launch requires of the array ("Index size 1 does not match
    the array rank 2"); an array of another rank is refused. A torch tensor is taken as it
    is (one isinstance check and one dtype test), except that a float8_e8m0fnu tensor, a
    dtype Triton kernels do not take, is given as its uint8 view (the same memory): its
    bits, which the converted kernel holds float8_e8m0fnu tiles as. `read_at`: the line of
    the cuTile source where the kernel reads this array's tiles as numbers (astype,
    arithmetic, a math function), which such bits are not: a float8_e8m0fnu array is refused
    there. With `number`, a bool, int or float is taken as it is: the kernel uses this
    parameter as an array only in constexpr branches, and cuTile types a parameter by its
    argument (a number where those branches are not taken)."""
    if isinstance(array, torch.Tensor):
        tensor = array
    elif number and type(array) in (bool, int, float):
        return array
    elif hasattr(array, "__cuda_array_interface__"):
        tensor = torch.as_tensor(array)
    elif hasattr(array, "__dlpack__"):
        tensor = torch.from_dlpack(array)
    else:
        takes = "a torch tensor or an object with __cuda_array_interface__ or __dlpack__"
        kind = type(array).__name__
        raise TypeError(f"kernel argument {name!r} is a {kind}, not an array ({takes})")
    if rank is not None and tensor.dim() != rank:
        what = f"kernel argument {name!r} is a {tensor.dim()}-d array"
        why = "cuTile: the index size must match the array rank"
        raise TypeError(f"{what} where the kernel indexes a {rank}-d one ({why})")
    if tensor.dtype is torch.float8_e8m0fnu:
        if read_at:
            what = f"kernel argument {name!r} is a float8_e8m0fnu array"
            held = "whose elements the converted kernel holds as their uint8 bits"
            read = f"it reads them as numbers at line {read_at} of its cuTile source"
            how = "(astype, arithmetic or a math function), which would take the bits for values"
            fix = "ct.bitcast the tile to ct.float8_e8m0fnu first"
            raise TypeError(f"{what}, {held}; {read} {how}: {fix}")
        return tensor.view(torch.uint8)
    return tensor


# helper: _tensors needs _tensor
def _tensors(arrays, name):
    """A tuple-of-arrays argument as a tuple of torch tensors (each as _tensor makes it)."""
    arrays = tuple(arrays)
    e8m0 = torch.float8_e8m0fnu  # given as a uint8 view (_tensor)
    if all(isinstance(array, torch.Tensor) and array.dtype is not e8m0 for array in arrays):
        return arrays
    return tuple(_tensor(array, f"{name}[{i}]") for i, array in enumerate(arrays))


# helper: _ArrayList
class _ArrayList(tuple):
    """The torch tensors of a list-of-arrays argument of one launch, with `key`, what the
    list's checks, device table and TMA flag depend on (its tensors' data pointers, shapes,
    strides, dtypes and devices), and `known`, what launches found of lists of that key
    before (shared by them): its device table under each stream, its TMA flag under "tma"."""

    key = ()
    known = None


# helper: _array_list_key
def _array_list_key(tensors):
    """The key of a list of torch tensors: their data pointers, shapes, strides, dtypes and
    device indices (-1: the CPU), each read with one map over the list. A mixture-of-experts
    launch gives 3 lists of 64 arrays: read tensor by tensor and again for each use, their
    metadata took more host time than the kernel took on the H200 (this takes a sixth of
    that). A TypeError where an item is not a torch tensor."""
    pointers = tuple(map(torch.Tensor.data_ptr, tensors))
    shapes = tuple(map(operator.attrgetter("shape"), tensors))
    strides = tuple(map(torch.Tensor.stride, tensors))
    dtypes = tuple(map(operator.attrgetter("dtype"), tensors))
    devices = tuple(map(torch.Tensor.get_device, tensors))
    return pointers, shapes, strides, dtypes, devices


# helper: _array_list needs _tensor _ArrayList _array_list_key
def _array_list(arrays, name, checked={}):
    """A list-of-arrays argument as an _ArrayList of torch tensors (each as _tensor makes it),
    with the checks cuTile's launch made: a list (a tuple is taken too), not empty, its arrays
    of one dtype and one rank; and, for the device table, on one device. A list of torch
    tensors whose key passed the checks before (up to 64 keys are kept) is not checked again."""
    if not isinstance(arrays, (list, tuple)):
        kind = type(arrays).__name__
        raise TypeError(f"kernel argument {name!r} is a {kind}, not a list of arrays")
    if not arrays:
        raise ValueError(f"kernel argument {name!r}: empty lists are not supported")
    try:
        key = _array_list_key(arrays)
    except TypeError:  # an array that is not a torch tensor
        key = None
    known = checked.get(key)
    if known is not None:
        tensors = _ArrayList(arrays)
        tensors.key, tensors.known = key, known
        return tensors
    e8m0 = torch.float8_e8m0fnu  # given as a uint8 view (_tensor)
    if key is not None and e8m0 not in key[3]:
        tensors = _ArrayList(arrays)
    else:
        tensors = _ArrayList(_tensor(array, f"{name}[{i}]") for i, array in enumerate(arrays))
        key = _array_list_key(tensors)
    first = tensors[0]
    for i, tensor in enumerate(tensors):
        what = f"kernel argument {name!r}: arrays in list vary in"
        items = f"{name}[0] and {name}[{i}]"
        if tensor.dtype != first.dtype:
            raise TypeError(f"{what} data type ({items}: {first.dtype}, {tensor.dtype})")
        if tensor.dim() != first.dim():
            raise TypeError(f"{what} rank ({items}: {first.dim()}, {tensor.dim()})")
        if tensor.device != first.device:
            raise ValueError(f"{what} device ({items}: {first.device}, {tensor.device})")
    known = checked.get(key)
    if known is None:
        if len(checked) >= 64:
            checked.clear()
        known = checked[key] = {}
    tensors.key, tensors.known = key, known
    return tensors


# helper: _array_list_table
def _array_list_table(tensors, captured=[]):
    """The device table of a list of arrays that the kernel reads (its list items): one int64
    row per array, its data pointer, shape and strides. The kernel indexes arrays with int32
    shapes and strides, as cuTile does: larger ones are refused. A table is uploaded once per
    content (the list's key) and stream (the launch's, current here) and kept with what is
    known of that content: a stream reads it only after its own upload. The upload is a copy
    from pinned host memory queued on the stream, which the host does not wait for: torch
    waits for the stream's queued work after a copy from pageable memory, so a launch whose
    list is new each time (outputs made for it) waited for the kernels before it, and the
    host's work for the next launch no longer overlapped the GPU's (H200: a 64-expert
    grouped GEMM, 0.75 ms a launch against 0.34 for cuTile). A launch captured into a CUDA
    graph gets a table of its own, copied from pinned host memory by the graph each time it
    replays (a captured copy has not run when the capture ends, so no other launch may read
    that table); the pinned rows are kept in `captured` for the life of the process, since
    a graph may replay as long as it lives. Torch's pinned memory is not reused before the
    copies queued from it have run."""
    device = tensors[0].device
    stream = torch._C._cuda_getCurrentRawStream(device.index) if device.type == "cuda" else None
    capturing = stream is not None and torch.cuda.is_current_stream_capturing()
    table = None if capturing else tensors.known.get(stream)
    if table is None:
        pointers, shapes, strides = tensors.key[:3]
        rows, dims = [], []
        for pointer, shape, stride in zip(pointers, shapes, strides):
            rows.append(pointer)
            rows += shape
            rows += stride
            dims += shape
            dims += stride
        if dims and max(dims) >= 2**31:
            shapes = [tuple(shape) for shape in shapes]
            raise ValueError(f"a list of arrays with shapes or strides beyond int32: {shapes}")
        if stream is None:  # on the CPU (Triton's interpreter)
            table = tensors.known[stream] = torch.tensor(rows, dtype=torch.int64)
            return table
        pinned = torch.tensor(rows, dtype=torch.int64, pin_memory=True)
        table = torch.empty(len(rows), dtype=torch.int64, device=device)
        table.copy_(pinned, non_blocking=True)
        if capturing:
            captured.append(pinned)
        else:
            tensors.known[stream] = table
    return table


# helper: _array_list_tma needs _tma_compatible
def _array_list_tma(tensors):
    """Whether a tensor descriptor can address every array of a list (_tma_compatible), kept
    with what is known of the list's content."""
    tma = tensors.known.get("tma")
    if tma is None:
        tma = tensors.known["tma"] = all(_tma_compatible(tensor) for tensor in tensors)
    return tma


# helper: _torch_stream
def _torch_stream(stream, device):
    """A stream that is not a torch stream, as the torch stream of its handle: a raw handle
    (an int; 0 is CUDA's default stream, which is torch's default stream too), a CuPy stream
    (.ptr), an object with __cuda_stream__ (the CUDA stream protocol: cuda.core), a Numba or
    cuda.core stream (.handle) or a cuda.bindings CUstream."""
    if isinstance(stream, int) and not isinstance(stream, bool):
        handle = stream
    elif hasattr(stream, "__cuda_stream__"):
        handle = stream.__cuda_stream__()[1]
    elif isinstance(getattr(stream, "ptr", None), int):
        handle = stream.ptr
    elif hasattr(stream, "handle"):
        handle = int(getattr(stream.handle, "value", stream.handle) or 0)
    elif type(stream).__module__.startswith("cuda.bindings"):
        handle = int(stream)
    else:
        takes = "a torch or CuPy stream, an object with __cuda_stream__ or a raw handle (int)"
        raise TypeError(f"unsupported stream type {type(stream).__name__!r} (cuTile takes {takes})")
    if handle == 0:
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(handle, device=device)


# helper: _kernel_stream needs _torch_stream
def _kernel_stream(stream, *arrays):
    """The stream context of a launch: cuTile launched on `stream`. `arrays` are the launch's
    arrays, torch tensors by then (a tuple of them for a tuple-of-arrays parameter, a number
    where one may be given); the first tensor's device is the launch's. Nothing to switch
    for tensors on the CPU (Triton's interpreter), or when `stream` is the current stream
    already. None is refused as cuTile's ct.launch refuses it (a TypeError), on the CPU too."""
    if stream is None:
        raise TypeError("Stream is required, got None")
    for array in arrays:
        if isinstance(array, tuple):  # a tuple of arrays (and numbers): its first array
            array = next((item for item in array if isinstance(item, torch.Tensor)), None)
            if array is None:
                continue
        elif not isinstance(array, torch.Tensor):  # a number given for an array parameter
            continue
        if array.device.type != "cuda":
            return contextlib.nullcontext()
        device = array.device
        break
    else:
        if not torch.cuda.is_available():
            return contextlib.nullcontext()
        device = torch.device("cuda", torch.cuda.current_device())
    if not isinstance(stream, torch.cuda.Stream):
        stream = _torch_stream(stream, device)
    # the current stream's raw handle: cheaper than building a torch stream to compare with
    current = torch._C._cuda_getCurrentRawStream(device.index)
    if stream.device_index == device.index and stream.cuda_stream == current:
        return contextlib.nullcontext()
    return torch.cuda.stream(stream)


# helper: _tl_dtype
def _tl_dtype(dtype, name):
    """A ct.DType constexpr argument of a launch as the Triton dtype the kernel takes.
    cuTile took its own dtypes (which the converted host code spells as torch dtypes),
    torch dtypes and numpy dtypes (np.float16, np.dtype("float16"))."""
    if isinstance(dtype, tl.dtype):
        return dtype
    if isinstance(dtype, torch.dtype):
        text = str(dtype).removeprefix("torch.")
    else:
        try:
            import numpy

            text = numpy.dtype(dtype).name if dtype is not None else None
        except (TypeError, ImportError):
            text = None
    names = {"bool": "int1", "float8_e4m3fn": "float8e4nv", "float8_e5m2": "float8e5"}
    triton_dtype = getattr(tl, names.get(text, text), None) if text else None
    if not isinstance(triton_dtype, tl.dtype):
        raise TypeError(f"kernel argument {name!r}: {dtype!r} is not a dtype cuTile kernels take")
    return triton_dtype


# helper: _tensor_items needs _tensor
def _tensor_items(items, name, arrays):
    """A tuple argument of arrays and numbers ((x, 5)) as the tuple the kernel is given: the
    items `arrays` marks True as torch tensors (each as _tensor makes it), the others as they
    are (numbers; items past `arrays` too)."""
    items = tuple(items)
    return tuple(_tensor(item, f"{name}[{k}]") if k < len(arrays) and arrays[k] else item
                 for k, item in enumerate(items))


# helper: _constant_items
def _constant_items(value, constant):
    """A tuple argument whose annotation marks items ct.Constant (tuple[ct.Constant[int], int]):
    those items as tl.constexpr, which Triton compiles into the kernel as cuTile did, the others
    as they are. `constant` holds True for each such item, a tuple of them for a nested tuple."""
    if not isinstance(value, (tuple, list)) or len(value) != len(constant):
        raise TypeError(f"expected a tuple of {len(constant)} items for a {constant} tuple annotation, "
                        f"got {value!r}")
    items = []
    for item, fixed in zip(value, constant):
        if isinstance(fixed, tuple):
            item = _constant_items(item, fixed)
        elif fixed:
            item = tl.constexpr(item)
        items.append(item)
    return tuple(items)


# helper: _same_array
def _same_array(first, second):
    """Whether two array arguments of a launch are one array (one address, dtype, shape and
    strides): a kernel that loads the same tile of both then reads it once (a constexpr flag
    SECOND_is_FIRST; MLA decoding is given its latent cache as both K and V)."""
    return (
        isinstance(first, torch.Tensor)
        and isinstance(second, torch.Tensor)
        and first.data_ptr() == second.data_ptr()
        and first.dtype == second.dtype
        and first.shape == second.shape
        and first.stride() == second.stride()
        and first.device == second.device
    )


# helper: _tma_compatible
def _tma_compatible(tensor):
    """Whether a tensor descriptor (TMA) can address `tensor`: the last stride is 1, and the
    base address and the other strides are multiples of 16 bytes. On the H200 a descriptor
    that breaks these rules returns wrong data without an error, so such tensors take the
    pointer path."""
    strides = tensor.stride()
    rank = len(strides)
    if rank < 2 or rank > 5 or strides[-1] != 1 or tensor.data_ptr() & 15:
        return False
    size = tensor.element_size()
    if rank == 2:  # the common case
        return not strides[0] * size & 15
    for stride in strides[:-1]:  # a loop, not all() of a generator: host time of every launch
        if stride * size & 15:
            return False
    return True


# helper: _host_descriptor
def _host_descriptor(tensor, block_shape, padding="zero"):
    """The tensor descriptor of the whole `tensor` (whose TMA flag is set) for tiles of
    `block_shape`, made here and passed to the kernel, which Triton gives it in its
    parameters. tl.make_tensor_descriptor has each program write one to global memory and
    fence before its first load (on the H200 a decode step of 128 programs took 7.3 us so,
    4.1 with descriptors made on the host); cuTile passes its kernels such descriptors.
    None where TMA cannot describe it, the kernel then taking its pointers: an empty
    tensor, or a block whose last dimension spans less than 16 bytes (a (1, 64, 1) tile of
    a float16 array: the driver refuses such a box at launch, "Failed to create tensor map
    descriptor", though the kernel's own condition keeps it off the descriptor). Made
    without TensorDescriptor's other checks, which the kernel's condition and the TMA flag
    make (host time of every launch)."""
    shape = tensor.shape
    if not all(shape) or block_shape[-1] * tensor.element_size() < 16:
        return None
    made = TensorDescriptor.__new__(TensorDescriptor)
    made.base, made.shape, made.strides = tensor, shape, tensor.stride()
    made.block_shape, made.padding = block_shape, padding
    return made


# helper: _tma_workspace
_TMA_WORKSPACES = {}


def _tma_workspace(size: int, alignment: int, stream):
    """Global memory for the tensor descriptors kernels make (tl.make_tensor_descriptor): one
    buffer per device and stream, grown when a launch needs more, and reused by the next
    launch on that stream, which runs after this one (an allocation per launch cost about
    10 us of host time on the H200). A launch captured into a CUDA graph gets a buffer of
    its own, since a graph may replay on another stream."""
    if torch.cuda.is_current_stream_capturing():
        return torch.empty(size, device="cuda", dtype=torch.int8)
    # a stream's handle names it on every device; the default ones (0, 1, 2) do not
    key = stream if type(stream) is int and stream > 2 else (torch.cuda.current_device(), stream)
    buffer = _TMA_WORKSPACES.get(key)
    if buffer is None or buffer.numel() < size:
        buffer = _TMA_WORKSPACES[key] = torch.empty(size, device="cuda", dtype=torch.int8)
    return buffer


triton.set_allocator(_tma_workspace)


# helper: _launch_key
def _launch_key(values):
    """Of each launch argument, what Triton compiles the kernel for: a tensor's dtype, device
    and whether its address is a multiple of 16 bytes; a tuple of ints (a shape, strides) as
    it is; another tuple by its elements; a tensor descriptor made on the host by its
    dtype and block shape; any other value with its type (Triton types 1, 1.0
    and True differently, which compare equal). Host time of every launch: one pass, the
    commonest kind (a shape or strides tuple) tested first, by identity; a scalar adds its
    type and its value as two entries (no pair to build: a type starts a scalar's entries,
    a tuple any other argument's, so no two argument lists give one key)."""
    key = []
    add = key.append
    for value in values:
        kind = type(value)
        if kind is tuple:
            for item in value:
                if type(item) is not int:
                    add(_launch_key(value))
                    break
            else:
                add(value)
        elif kind is bool or kind is int or value is None:  # before isinstance, which is slower
            add(kind)
            add(value)
        elif kind is not torch.Tensor and hasattr(value, "block_shape"):
            add(kind)  # a descriptor made on the host: its dtype and block
            add((value.base.dtype, *value.block_shape))
        elif kind is torch.Tensor or isinstance(value, torch.Tensor):
            add((value.dtype, value.device, not value.data_ptr() & 15))
        else:
            add(kind)
            add(value)
    return tuple(key)


# helper: _loop_stop
def _loop_stop(stop):
    """The stop of a kernel's grid-stride loop as a launch gives it: an int, None (not known
    on the host), or a function of the launch's arguments computing it as the kernel does
    (`lambda: -(-N // BLOCK_N)` for ct.cdiv(N, BLOCK_N)); an int, else None (a value the host
    cannot compute so, such as a number given for an array)."""
    if callable(stop):
        try:
            stop = stop()
        except Exception:
            return None
    return stop if type(stop) is int else None


# helper: _grid_steps needs _loop_stop
def _grid_steps(grid, stop, step):
    """Whether a kernel's loop `for i in range(ct.bid(0), stop, step)`, launched on `grid`,
    walks what it would walk stepping by the program count (the converter's rule:
    lower_spread.c): the host gives its program count as the step (a persistent kernel's
    NUM_SMS), or no program reaches a second iteration either way (a positive step, and stop,
    where known, within both: a negative one walks down). Then the kernel steps by the
    program count (_step_is_grid), and its grid may spread."""
    stop = _loop_stop(stop)
    first = grid if isinstance(grid, int) else grid[0]
    if type(step) is not int or type(first) is not int:
        return False
    return first == step or (type(stop) is int and step > 0 and first >= stop and step >= stop)


# helper: _SpreadGrid needs _loop_stop
class _SpreadGrid:
    """The grid of a kernel whose programs share one loop, `for i in range(ct.bid(0), stop,
    ct.num_blocks(0))`, and whose iterations touch what no other iteration touches (the
    converter's rule: lower_spread.c): the program count cannot change what it computes, so
    the autotuner's candidate launches `_grid_spread` times the host's programs along the first
    axis (at most `stop`, at least the host's count). The host asks for few programs (the SM
    count times cuTile's occupancy), each walking its rows one after the other; more programs
    keep more rows in flight (on an H100, the converting skill's softmax at 32768x1024
    float16: 1909 GB/s on 528 programs at best, 2537 on 8448). Where an array the kernel
    writes shares its storage with another array of the launch (one tensor given twice), the
    rule's proof does not hold: the host's grid. Never past CUDA's limit of a grid's first
    axis. A loop that steps by a parameter is spread only where it steps by the program
    count (`steps`, which the launcher finds from the host's grid)."""

    def __init__(self, grid, stop, written, others, steps=True):
        self.grid, self.written, self.others = tuple(grid), written, others
        self.stop, self.steps = _loop_stop(stop), steps

    def __call__(self, meta):
        spread = meta.get("_grid_spread", 1)
        first = self.grid[0]
        if spread > 1 and self.steps and self._apart():
            wanted = min(first * spread, 2**31 - 1)  # CUDA's limit of a grid's first axis
            if type(self.stop) is int:
                wanted = min(wanted, max(first, self.stop))
            first = max(first, wanted)
        return (first, *self.grid[1:])

    def _apart(self):
        """Whether no written array shares its storage with another array of the launch."""
        seen = set()
        for value in self.others:
            if isinstance(value, torch.Tensor):
                seen.add(value.untyped_storage().data_ptr())
        for value in self.written:
            if not isinstance(value, torch.Tensor):
                return False
            storage = value.untyped_storage().data_ptr()
            if storage in seen:
                return False
            seen.add(storage)
        return True


# helper: _interpreted_scalars
_INTERPRETING = triton.knobs.runtime.interpret


def _interpreted_scalars(kernel, args):
    """A launch's float and bool arguments as compiled Triton takes them, for Triton's
    interpreter (TRITON_INTERPRET=1). It passes a Python float to the kernel as it is, weakly
    typed there (a float16 tile times it stays float16), where compiled Triton, as cuTile, takes
    a float32 scalar (the product is float32); and it fails on a bool (its int1 scalar made of
    32-bit data). Each float or bool of a parameter that is no constexpr becomes the
    interpreter's float32 or int1 scalar, as it makes an int argument an int32 one; tuples item
    by item."""
    from triton.runtime.interpreter import TensorHandle
    import numpy

    def converted(value):
        if type(value) is float:
            handle = TensorHandle(numpy.array([value], dtype=numpy.float32), tl.float32)
            return tl.tensor(handle, tl.float32)
        if type(value) is bool:
            return tl.tensor(TensorHandle(numpy.array([value], dtype=numpy.bool_), tl.int1), tl.int1)
        if type(value) is tuple:
            return tuple(converted(item) for item in value)
        return value

    function = kernel
    while hasattr(function, "fn"):  # the autotuner's, the interpreter's wrapper: the Python function
        function = function.fn
    if not inspect.isfunction(function):
        return args
    params = list(inspect.signature(function).parameters.values())
    given = []
    for i, value in enumerate(args):
        constexpr = i < len(params) and params[i].annotation in (tl.constexpr, "tl.constexpr")
        given.append(value if constexpr else converted(value))
    return tuple(given)


# helper: _c2t_launch needs _launch_key _interpreted_scalars
_LAUNCHED = {}
_LAUNCHED_LIMIT = 4096  # kept launch keys (all kernels); more are dropped together
_LAUNCH_PLANS = {}


def _launch_plan(kernel, count):
    """How a launch of `kernel` with `count` positional arguments is keyed: (the kernel, a
    function prepare(args, constants)) where the converted kernel has array parameters (x,
    x_shape, x_strides: the launcher passes x, tuple(x.shape), tuple(x.stride()), so the two
    tuples hold ints), else (the kernel, None). prepare returns the launch's key (the kernel;
    each array's dtype, device and whether its address is a multiple of 16 bytes; the
    shapes and strides as they are; _launch_key's of the other arguments and the keyword
    constants; the constants' names) and its arguments with each array's address in its
    place, or None when an array parameter is given something other than a tensor. It is
    written for the kernel's parameters, one name per argument and no loop (host time of
    every launch: 6.7 us against 14.0 for the loop it replaced, split-K's partial kernel on
    a CPU with the launch mocked)."""
    function = kernel
    while function is not None and not hasattr(function, "params"):
        function = getattr(function, "fn", None)  # an autotuner's kernel (None: the interpreter's)
    names = [param.name for param in function.params[:count]] if function is not None else []
    arrays = [at for at in range(len(names) - 2)
              if names[at + 1] == names[at] + "_shape" and names[at + 2] == names[at] + "_strides"]
    if not arrays:
        return kernel, None
    tuples = [at + step for at in arrays for step in (1, 2)]
    rest = [f"a{at}" for at in range(count) if at not in tuples and at not in arrays]
    arguments = [f"a{at}" for at in range(count)]
    given = [f"p{at}" if at in arrays else f"a{at}" for at in range(count)]
    key = ["kernel_id"]
    key += [f"a{at}.dtype, a{at}.get_device(), p{at} & 15" for at in arrays]
    key += [f"a{at}" for at in tuples]
    key += [f"_launch_key(({''.join(name + ', ' for name in rest)}*constants.values(),))", "tuple(constants)"]
    lines = [
        "def prepare(args, constants):",
        f"    {', '.join(arguments)}, = args",
        f"    if not ({' and '.join(f'isinstance(a{at}, Tensor)' for at in arrays)}):",
        "        return None",
        *[f"    p{at} = a{at}.data_ptr()" for at in arrays],
        f"    key = ({', '.join(key)})",
        f"    return key, ({', '.join(given)},)",
    ]
    scope = {"Tensor": torch.Tensor, "_launch_key": _launch_key, "kernel_id": id(kernel)}
    exec("\n".join(lines), scope)
    return kernel, scope["prepare"]


def _direct_launch(compiled):
    """What a kept launch calls: the compiled kernel's C launcher itself (Triton 3.6's
    CudaLauncher.launch) with its fixed options, where the kernel needs no profiler scratch
    memory, else None (compiled.run then, which allocates it). The last item is None, or for
    a kernel with tensor descriptor parameters what _expand_descriptors needs: Triton's
    launcher wraps the C one in a function that makes each descriptor's CUDA tensor map
    (make_tensordesc_arg: a driver call and Python around it, 3-4 us a descriptor on the
    H100's host), and the kept launch calls the C launcher below it with maps it keeps."""
    launcher = compiled.run
    try:
        if launcher.profile_scratch_size:
            return None
        options = (launcher.launch_cooperative_grid, launcher.launch_pdl, launcher.global_scratch_size,
                   launcher.global_scratch_align, launcher.num_ctas)
        launch = launcher.launch
    except AttributeError:
        return None
    code = getattr(launch, "__code__", None)
    if code is None:  # the C launcher itself: no descriptor parameters
        return (launch, *options, None)
    cells = dict(zip(code.co_freevars, launch.__closure__ or ()))
    try:
        below = cells["launcher"].cell_contents
        positions = sorted(cells["tensordesc_indices"].cell_contents)
        metadata = cells["tensordesc_meta"].cell_contents
        expand = launch.__globals__["make_tensordesc_arg"]
    except (KeyError, ValueError):  # another wrapper: called as it is
        return (launch, *options, None)
    if len(metadata) != len(positions) or None in metadata:
        return (launch, *options, None)  # no layouts to make maps from: Triton expands them
    return (below, *options, (expand, tuple(zip(positions, metadata)), {}))


_TENSOR_MAPS_LIMIT = 256  # kept tensor maps of one kept launch; more are dropped together


def _expand_descriptors(params, descriptors):
    """A kept launch's parameters with each tensor descriptor replaced by what Triton's
    launcher passes the C one for it (make_tensordesc_arg: the CUDA tensor map, the shape and
    strides), which is kept under the descriptor's address, shape, strides and padding: the
    map is made of these and of the kernel's fixed layout of that parameter, so the same
    values give the same map (the tensors of a model's step come back at the same addresses
    from torch's caching allocator)."""
    expand, positions, kept = descriptors
    final = []
    start = 0
    for position, layout in positions:
        final += params[start:position]
        start = position + 1
        descriptor = params[position]
        try:
            key = (position, descriptor.base.data_ptr(), descriptor.shape, descriptor.strides, descriptor.padding)
            made = kept.get(key)
        except TypeError:  # an unhashable shape (a list): made each time
            final += expand(descriptor, layout)
            continue
        if made is None:
            if len(kept) >= _TENSOR_MAPS_LIMIT:
                kept.clear()
            made = kept[key] = expand(descriptor, layout)
        final += made
    final += params[start:]
    return final


_SCRATCH = getattr(triton.runtime, "_allocation", None)


class _Recording(threading.local):
    """Per thread, the record of the replaying launcher running there (a list: the data
    pointers of its arrays, then what each launch gives), None where none runs."""

    launch = None


_RECORDING = _Recording()


def _owned_arrays(values, pointers):
    """Whether every array among a launch's arguments (a tensor, a tensor descriptor's, a
    tuple's) is one of the launcher's arguments or a view from the same address: their data
    pointers are `pointers`. An array the launcher made (a staged copy, a list's device
    table) is not, and a launch that reads one is not replayed: its memory may be reused."""
    for value in values:
        kind = type(value)
        if kind is bool or kind is int or kind is float or kind is str or value is None:
            continue
        if kind is tuple:
            if not _owned_arrays(value, pointers):
                return False
        elif isinstance(value, torch.Tensor):
            if value.data_ptr() not in pointers:
                return False
        elif hasattr(value, "block_shape"):  # a tensor descriptor the launcher made
            if value.base.data_ptr() not in pointers:
                return False
        else:
            return False
    return True


def _c2t_launch(kernel, grid, *args, **constants):
    """kernel[grid](*args, **constants), launched faster from the second time a key comes:
    Triton's dispatch (its autotuner's key, the arguments' specialization, the compiled
    kernel's lookup) cost 40-70 us of host time per launch on the H200, more than many
    kernels take. The compiled kernel a launch ran is kept under a key of its arguments and
    options that holds all Triton compiles for and the autotuner's key (the same key gives
    the same kernel and configuration), and is launched directly the next time, on the
    current stream, when the current device is the one it was kept on (Triton loads a
    kernel per device; on another the launch goes through Triton again). The key of an
    array (_launch_plan) is its dtype, device and whether its address is a multiple of 16
    bytes, with its shape and strides; of anything else, _launch_key's. A kept launch calls
    the C launcher itself (_direct_launch) and gives it each array's address as an int: for
    a tensor the launcher calls data_ptr() and asks the driver about the address (on the
    H200's host, 9.8 us for a launch of eight arrays given as tensors, 7.4 given as
    addresses), and the CUDA tensor maps of its host-made descriptors as it kept them
    (_expand_descriptors). On the H100's host these made split-K's call of two launches
    take 78-95 us instead of 145. Under TRITON_INTERPRET=1 every launch goes through Triton.
    Every kernel is compiled with enable_reflect_ftz=False: Triton's default flushes float32
    subnormal inputs and results of its math functions to zero (sin, ceil, rsqrt, exp2, ...:
    the .ftz forms of the PTX), where cuTile keeps them unless flush_to_zero=True (measured
    on the H200 against cuTile 1.7: sin(1e-39) was 0, exp2(-144.7) 0, not 2.8e-44)."""
    constants["enable_reflect_ftz"] = False
    if _INTERPRETING:
        args = _interpreted_scalars(kernel, args)
    record = _RECORDING.launch
    plan = _LAUNCH_PLANS.get((id(kernel), len(args)))
    if plan is None:
        if len(_LAUNCH_PLANS) >= _LAUNCHED_LIMIT:
            _LAUNCH_PLANS.clear()
        plan = _LAUNCH_PLANS[id(kernel), len(args)] = _launch_plan(kernel, len(args))
    try:
        prepared = plan[1](args, constants) if plan[1] is not None else None
        if prepared is None:
            key, values = (id(kernel), _launch_key((*args, *constants.values())), tuple(constants)), args
        else:
            key, values = prepared
        kept = _LAUNCHED.get(key)
    except TypeError:  # an unhashable argument: Triton's own dispatch
        if record is not None:
            record.append(None)
        return kernel[grid](*args, **constants)
    device = torch.cuda.current_device() if kept is not None else None
    if kept is not None and kept[5] == device:  # Triton launches on the current device
        compiled, names, padding, direct, _, _, meta = kept
        grid = (*(grid(meta) if meta is not None else grid), 1, 1)
        stream = torch._C._cuda_getCurrentRawStream(device)
        runtime = triton.knobs.runtime
        extra = [constants[name] for name in names]
        hooked = runtime.launch_enter_hook.calls or runtime.launch_exit_hook.calls  # a profiler
        if hooked or direct is None:
            if record is not None:  # launched by Triton's Python: not replayed
                record.append(None)
            # compiled[grid] calls the hooks; compiled.run is what it runs, less the metadata
            # for absent hooks
            if hooked:
                compiled[grid](*args, *extra, *padding, stream=stream)
            else:
                compiled.run(grid[0], grid[1], grid[2], stream, compiled.function, compiled.packed_metadata,
                             None, None, None, *values, *extra, *padding)
            return
        launch, cooperative, pdl, scratch_size, scratch_align, ctas, descriptors = direct
        scratch = None
        if scratch_size:  # from the allocator Triton's launcher asks (triton.set_allocator)
            size = grid[0] * grid[1] * grid[2] * ctas * scratch_size
            scratch = _SCRATCH._allocator.get()(size, scratch_align, stream)
        params = [*values, *extra, *padding]
        if descriptors is not None:
            params = _expand_descriptors(params, descriptors)
        params = (grid[0], grid[1], grid[2], stream, compiled.function, cooperative, pdl, scratch, None,
                  compiled.packed_metadata, None, None, None, *params)
        if record is not None:  # the same parameters launch the same work while they hold
            owned = _owned_arrays((*args, *constants.values()), record[0])
            asked = (size, scratch_align) if scratch_size else None  # asked again at each replay
            record.append((launch, params, device, asked) if owned else None)
        launch(*params)
        return
    if record is not None:
        record.append(None)
    compiled = kernel[grid if callable(grid) else tuple(grid)](*args, **constants)
    if not isinstance(compiled, triton.compiler.CompiledKernel):  # the interpreter
        return
    # the parameters after the positional ones: the keyword constants, then constexprs with
    # defaults (the autotuner's; the launcher ignores a constexpr's value)
    function = kernel
    while not hasattr(function, "params"):
        function = function.fn
    params = function.params[len(args):]
    names = [p.name for p in params if p.name in constants]
    rest = params[len(names):]
    if all(p.is_constexpr for p in rest) and [p.name for p in params[:len(names)]] == names:
        if len(_LAUNCHED) >= _LAUNCHED_LIMIT:
            _LAUNCHED.clear()
        direct = _direct_launch(compiled) if _SCRATCH is not None else None
        # the kernel too: while the entry lives, no other kernel object can take its id
        # a grid the launch options decide (a spread grid): the autotuner's choice for this key,
        # or the options given (a searched launch's candidate; they are in the key)
        meta = None
        if callable(grid):
            chosen = getattr(kernel, "best_config", None)
            meta = dict(chosen.kwargs) if chosen is not None else dict(constants)
        device = torch.cuda.current_device()
        _LAUNCHED[key] = (compiled, names, (None,) * len(rest), direct, kernel, device, meta)


# helper: _replayed needs _c2t_launch
_REPLAYED_LIMIT = 1024  # replayed launches kept per launcher; more are dropped together


def _replay_key(stream, grid, args, options):
    """What a launcher's launch is a function of: the stream's handle, the grid, each
    argument's type and value, or for a tensor its data pointer, dtype, shape and strides,
    and the launch options; None where an argument is of another kind (a list of arrays, an
    object with __cuda_array_interface__), which _replayed does not replay. A tensor adds
    four entries that start with an int, any other argument two that start with its type."""
    if type(grid) is not tuple:
        grid = tuple(grid)
    if type(stream) is int:
        key = [stream, grid]
    elif isinstance(stream, torch.cuda.Stream):
        key = [stream.cuda_stream, grid]
    else:
        return None
    add = key.append
    tensor, parameter = torch.Tensor, torch.nn.Parameter
    for value in args:
        kind = type(value)
        if kind is int or kind is bool or value is None:
            add(kind)
            add(value)
        elif kind is float:  # -0.0 == 0.0, but the kernel is given the one it was given
            add(kind)
            add(value if value else str(value))
        elif kind is tensor or kind is parameter:
            add(value.data_ptr())
            add(value.dtype)
            add(value.shape)
            add(value.stride())
        else:
            return None
    if options:
        add(tuple(options.items()))
    return tuple(key)


def _replayed(launcher):
    """The launcher, replaying its launch: from the third time the same key comes
    (_replay_key: the stream, the grid, the arguments), the kept launch's C launcher is
    called with the parameters that launch gave it, without the launcher's own Python (its
    arrays' shapes, strides and TMA checks, its descriptors, _c2t_launch's key), which took
    24-33 us of host time per launch of split-K's partial kernel on the H100's host. The
    first launch of a key goes through Triton, the second is kept by _c2t_launch, which gives
    its parameters here (their arrays, pointers or tensor maps, are the arguments' own:
    _owned_arrays; the scratch memory of descriptors the kernel makes is asked of Triton's
    allocator at each replay, as Triton's launcher asks), and the third and later are
    replayed, on the current device when it is the one the second ran on and while no
    profiler's hooks are set (else the launcher runs).
    A launcher whose keys keep changing (more than _REPLAYED_LIMIT with fewer replays) stops
    keying them."""
    kept = {}
    replays, keying = 0, True  # replays since the kept launches were last dropped
    runtime = triton.knobs.runtime
    key_arrays = {torch.Tensor, torch.nn.Parameter}.__contains__  # the tensors _replay_key keys

    def launch(stream, grid, args, **options):
        nonlocal replays, keying
        try:
            key = _replay_key(stream, grid, args, options) if keying else None
            entry = kept.get(key) if key is not None else None
        except TypeError:  # an unhashable grid or option
            key = entry = None
        if entry is not None and entry[0] == torch.cuda.current_device():
            if not (runtime.launch_enter_hook.calls or runtime.launch_exit_hook.calls):
                replays += 1
                _, call, params, asked = entry
                if asked is None:
                    call(*params)
                else:  # the scratch memory of the descriptors the kernel makes, for its stream
                    scratch = _SCRATCH._allocator.get()(*asked, params[3])
                    call(*params[:7], scratch, *params[8:])  # the C launcher's 8th: scratch
                return
        if key is None:
            return launcher(stream, grid, args, **options)
        pointers = {value.data_ptr() for value in args if key_arrays(type(value))}
        outer = _RECORDING.launch
        record = _RECORDING.launch = [pointers]
        try:
            launcher(stream, grid, args, **options)
        finally:
            _RECORDING.launch = outer
        if len(record) != 2 or record[1] is None:
            return
        call, params, device, asked = record[1]
        if params[3] != key[0] or device != torch.cuda.current_device():  # on another stream or device
            return
        if len(kept) >= _REPLAYED_LIMIT:
            keying = replays >= _REPLAYED_LIMIT
            replays = 0
            kept.clear()
        kept[key] = (device, call, params, asked)

    launch.__name__, launch.__qualname__ = launcher.__name__, launcher.__qualname__
    launch.__doc__ = launcher.__doc__
    launch.__wrapped__ = launcher
    return launch


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
    variant with other compiler hints, _pyfunc is its function for ct.kernel(f, **hints)
    (with the kernel's name and parameters, for host code that reads them: __name__,
    inspect.signature). Of the hints num_worker_warps is num_warps for a launcher with fixed
    launch options (one that takes it; an autotuned one chooses its own); num_ctas, occupancy
    and opt_level are kept but not used (C2T101: Triton 3.6's num_ctas > 1 computes wrong
    results on Hopper, so each program is one CTA; the others have no Triton counterpart).
    `hints` holds the hints given since the kernel's decorator, whose own hints are the
    launcher's defaults. `captured` (a kernel defined in a host function that read its locals)
    gives the values its launches append to their arguments."""

    HINTS = ("num_ctas", "occupancy", "opt_level", "num_worker_warps")

    def __init__(self, launcher, hints, captured=None, name=None, params=None):
        for hint in hints:
            if hint not in self.HINTS:
                raise TypeError(f"{hint!r} is not a cuTile kernel hint {self.HINTS}")
        self.launcher = launcher
        self.hints = hints
        self.captured = captured
        self.name, self.params = name, params

    def replace_hints(self, **hints):
        return _TileKernel(self.launcher, {**self.hints, **hints}, self.captured, self.name, self.params)

    @property
    def _pyfunc(self):
        # ct.kernel(function) starts from cuTile's default hints, not the decorator's
        defaults = {"num_ctas": None, "occupancy": None, "opt_level": 3, "num_worker_warps": None}
        function = _TileKernel(self.launcher, defaults, self.captured, self.name, self.params)
        if self.name is not None:
            function.__name__ = function.__qualname__ = self.name
        if self.params is not None:
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
            params = [inspect.Parameter(name, kind) for name in self.params]
            function.__signature__ = inspect.Signature(params)
        return function

    def __call__(self, *args, **kwargs):
        # callable, as cuTile's kernel objects are (decorators tell kernels from messages so)
        raise TypeError("Tile kernels cannot be called directly: launch them (ct.launch in cuTile)")

    def launch_tile_kernel(self, stream, grid, args):
        options = {}
        code = getattr(self.launcher, "__wrapped__", self.launcher).__code__
        if "num_worker_warps" in code.co_varnames[:code.co_argcount]:
            options["num_worker_warps"] = self.hints.get("num_worker_warps")
        if self.captured is not None:
            args = (*args, *self.captured())
        self.launcher(stream, grid, args, **options)


# helper: _host_kernel needs _TileKernel
def _host_kernel(function, launcher, params=None):
    """Give a converted kernel what cuTile host code uses of a kernel object (replace_hints,
    _pyfunc) and the launch that ct.launch calls, so any module can launch it; `params`: the
    names of its parameters in the cuTile source."""
    inner = function  # @triton.autotune's object has no __name__: its function has
    while not hasattr(inner, "__name__") and hasattr(inner, "fn"):
        inner = inner.fn
    kernel = _TileKernel(launcher, {}, name=getattr(inner, "__name__", None), params=params)
    function.replace_hints = kernel.replace_hints
    function._pyfunc = kernel._pyfunc
    function.launch_tile_kernel = kernel.launch_tile_kernel


# helper: _TileDispatcher needs _TileKernel
class _TileDispatcherType(type):
    def __instancecheck__(cls, value):
        return isinstance(value, _TileKernel) or callable(getattr(value, "launch_tile_kernel", None))


class _TileDispatcher(metaclass=_TileDispatcherType):
    """cuTile's kernel class (cuda.tile._execution.TileDispatcher) for host code that names it
    (annotations, isinstance): a converted kernel, or a variant or function of one, is one."""


# helper: _TileCompilerTimeoutError
class _TileCompilerTimeoutError(Exception):
    """cuTile's compile time limit exceeded (TileCompilerTimeoutError): never raised, as
    Triton compiles without a time limit (C2T102)."""


# helper: _TileCompilerExecutionError
# cuTile's back end failing on a kernel its front end took (TileCompilerExecutionError:
# tileiras's error, a configuration's tiles past the shared memory among them); Triton's
# counterpart: a compiled kernel that does not fit the GPU (its front end's errors are
# cuTile's TileTypeError and the like, not caught as this)
_TileCompilerExecutionError = (triton.runtime.errors.OutOfResources,)


# helper: _TileError
# cuTile's base class of its compiler's errors (TileError), for a fallback that catches it
# around a launch: what Triton raises where a kernel does not compile for its arguments
# (CompilationError, a failed static_assert among them) or does not fit the GPU
# (OutOfResources); its interpreter raises InterpreterError for either
_TileError = (
    triton.compiler.errors.CompilationError,
    triton.runtime.errors.OutOfResources,
    triton.runtime.errors.InterpreterError,
)


# helper: _default_tile_context
class _default_tile_context:
    """cuTile's compiler settings (cuda.tile._cext.default_tile_context) for host code that
    reads or sets them: kept, not used (Triton has no time limit on compilation, C2T102)."""

    class config:
        compiler_timeout_sec = None


# helper: _callable_kernel
class _CallableAutotuner(triton.runtime.Autotuner):
    """An autotuned kernel that can be called, to raise what calling a cuTile kernel raises."""

    def __call__(self, *args, **kwargs):
        raise TypeError("Tile kernels cannot be called directly: launch them (ct.launch in cuTile)")


def _callable_kernel(kernel):
    """The converted kernel as the decorators above it in the cuTile source take it: a
    callable object, as cuTile's kernels are (a decorator that takes a kernel or a message
    tells them apart so: TileGym's experimental_kernel made an uncallable @triton.autotune
    object into its inner decorator function). Otherwise unchanged."""
    if isinstance(kernel, triton.runtime.Autotuner) and not callable(kernel):
        kernel.__class__ = _CallableAutotuner
    return kernel


# helper: _nested_kernel needs _TileKernel
def _nested_kernel(launcher, captured=None, name=None, /, **hints):
    """The kernel object @ct.kernel(**hints) made where a host function defined the kernel
    (cutile2triton moved the kernel itself to module level, as Triton needs): a new one at
    each call, with these hints, launched by `launcher`, named as the kernel is (`name`
    where the module-level one is another). A kernel that read locals of the host function
    takes them as constexpr parameters after its own: `captured()` gives their values at
    each launch (Python reads a closure when it runs)."""
    kernel = _TileKernel(launcher, hints, captured)
    kernel.__name__ = name or launcher.__name__[len("launch_"):]
    return kernel


# helper: _cdiv
def _cdiv(x, y):
    """ct.cdiv as a value on the host (map(ct.cdiv, ...)): cuTile's exact ceiling of x / y."""
    return -((-x) // y)


# helper: _bitwidth
def _bitwidth(dtype):
    """dtype.bitwidth on the host, where cuTile's dtypes are torch dtypes: its itemsize in bits
    (ct.bool_ is 8, as cuTile's); any other object's own bitwidth."""
    if isinstance(dtype, torch.dtype):
        return dtype.itemsize * 8
    return dtype.bitwidth


# helper: ct_launch
def ct_launch(stream, grid, kernel, args):
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


# helper: _BytecodeVersion
_BytecodeVersion = enum.IntEnum(
    "BytecodeVersion",
    [("V_13_1", 130100), ("V_13_2", 130200), ("V_13_3", 130300), ("V_13_4", 130400), ("V_13_5", 130500)],
)


# helper: _max_bytecode_version needs _BytecodeVersion
def _max_bytecode_version(temp_dir=None, allow_dev=False):
    """cuTile's _get_max_supported_bytecode_version: the newest Tile IR its compiler
    (tileiras) takes, which host code tests before using a feature. The converted module
    compiles with Triton, which takes every feature the conversion kept: the newest."""
    return max(_BytecodeVersion)


# helper: _dev_features_enabled
def _dev_features_enabled():
    """cuTile's dev_features_enabled(): whether its features in development are on. The
    converted module runs no cuTile: off."""
    return False


# helper: _kmajor_stage_kernel
@triton.jit
def _kmajor_stage_kernel(src, dst, R, C, stride_b, stride_r, stride_c, BR: tl.constexpr, BC: tl.constexpr):
    """dst[b, j, i] = src[b, i, j] for each of a batch of R x C matrices (dst is contiguous)."""
    batch = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)  # 64-bit offsets: a matrix may pass 2**31
    cols = tl.program_id(1).to(tl.int64) * BC + tl.arange(0, BC)
    inside = (rows[:, None] < R) & (cols[None, :] < C)
    tile = tl.load(src + batch * stride_b + rows[:, None] * stride_r + cols[None, :] * stride_c, mask=inside)
    tl.store(dst + batch * R * C + cols[None, :] * R + rows[:, None], tile, mask=inside)


# helper: _kmajor_stage needs _kmajor_stage_kernel _c2t_launch
def _kmajor_stage(array, *others):
    """The right-hand operand of a kernel's float8 products as sm_90's float8 wgmma reads it:
    K-major, the array with its last two axes swapped (the copy's [..., j, i] is
    array[..., i, j], contiguous), so that its tiles go from TMA straight to the product
    instead of through registers to be transposed at every step (TileGym's MLA prefill on an
    H100: 4258 us instead of 7267). Made for a float8 array of 2 or more dimensions whose
    leading ones make one batch of matrices and whose rows fit a descriptor, when the launch's
    other arrays hold at least half as many elements (a product that reads each of its tiles
    many times); else `array` itself, which the kernel reads as before, also where the copy
    finds no memory."""
    if not isinstance(array, torch.Tensor) or array.dim() < 2:
        return array
    if array.dtype not in (torch.float8_e4m3fn, torch.float8_e5m2):
        return array
    rows, cols = array.shape[-2], array.shape[-1]
    if rows % 16 or not rows or not cols:  # the copy's rows: 16-byte multiples for its descriptor
        return array
    elements = sum(other.numel() for other in others if isinstance(other, torch.Tensor))
    if 2 * elements < array.numel():
        return array
    try:
        matrices = array.reshape(-1, rows, cols) if array.dim() > 2 else array[None]
    except RuntimeError:  # leading dimensions that do not make one batch
        return array
    if matrices.data_ptr() != array.data_ptr() or matrices.shape[0] > 65535:  # a copy; more than a grid's z
        return array
    try:
        staged = torch.empty((*array.shape[:-2], cols, rows), dtype=array.dtype, device=array.device)
    except torch.OutOfMemoryError:  # a speed-up only: the kernel reads the array as before
        return array
    grid = (triton.cdiv(rows, 64), triton.cdiv(cols, 64), matrices.shape[0])
    _c2t_launch(_kmajor_stage_kernel, grid, matrices, staged, rows, cols, *matrices.stride(), 64, 64)
    return staged


# helper: _tf32_stage_kernel needs ct_to_tfloat32
@triton.jit
def _tf32_stage_kernel(src, dst, R, C, stride_r, stride_c, BR: tl.constexpr, BC: tl.constexpr):
    """dst[j, i] = the tfloat32 rounding of src[i, j] (dst is C x R, contiguous)."""
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
    inside = (rows[:, None] < R) & (cols[None, :] < C)
    tile = tl.load(src + rows[:, None] * stride_r + cols[None, :] * stride_c, mask=inside)
    tl.store(dst + cols[None, :] * R + rows[:, None], ct_to_tfloat32(tile), mask=inside)


# helper: _tf32_stage needs _tf32_stage_kernel _c2t_launch
def _tf32_stage(array, *others):
    """The right-hand operand of a kernel's tfloat32 products as sm_90's tf32 wgmma reads it
    fastest: rounded as cuTile's astype(tfloat32) rounds (to nearest even) and transposed,
    K-major (the copy's [j, i] is array[i, j]), so that its tiles go from TMA straight to the
    product instead of through registers to be rounded (about 3x the speed on the H200 at
    4096^3). Made for a float32 matrix when the launch's other arrays hold at least half as
    many elements (a product that reads each of its tiles many times); else `array` itself,
    which the kernel rounds tile by tile as before, also where the copy finds no memory. The
    copy is launched as the converted kernels are (its compiled kernel reused from the second
    launch of a key on: Triton's own dispatch of it took as much host time again as the
    product's launch)."""
    if not isinstance(array, torch.Tensor) or array.dtype != torch.float32 or array.dim() != 2:
        return array
    rows, cols = array.shape
    if rows % 4 or not rows or not cols:  # the copy's rows: 16-byte multiples for its descriptor
        return array
    elements = sum(other.numel() for other in others if isinstance(other, torch.Tensor))
    if 2 * elements < array.numel():
        return array
    try:
        staged = torch.empty((cols, rows), dtype=torch.float32, device=array.device)
    except torch.OutOfMemoryError:  # a speed-up only: the kernel rounds as before
        return array
    grid = (triton.cdiv(rows, 64), triton.cdiv(cols, 64))
    _c2t_launch(_tf32_stage_kernel, grid, array, staged, rows, cols, array.stride(0), array.stride(1), 64, 64)
    return staged
