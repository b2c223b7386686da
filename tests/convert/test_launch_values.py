"""What a converted launcher takes as arrays and streams, as ct.launch did.

cuTile takes, zero-copy, torch tensors and any array with __cuda_array_interface__
(CuPy, Numba) or DLPack (__dlpack__: numpy, JAX, ...), and streams as torch or CuPy
streams or raw integer handles. The launcher turns each array into a torch tensor once
per launch (sharing memory: the kernel writes into the caller's array) and a stream that
is not a torch stream into torch.cuda.ExternalStream of its handle.

The numpy and DLPack cases run on the CPU under Triton's interpreter; the CUDA array
interface and external streams need a GPU (skipped without one).
"""

import numpy as np
import pytest
import torch

import ops_common

CUDA = pytest.mark.skipif(not ops_common.ON_GPU, reason="needs a GPU")

AXPY = '''
import cuda.tile as ct

T = 8


@ct.kernel
def axpy_kernel(x, y, out, a: float, TILE: ct.Constant[int]):
    tx = ct.load(x, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ty = ct.load(y, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(ct.bid(0),), tile=a * tx + ty)


def axpy(stream, x, y, out, a):
    ct.launch(stream, (ct.cdiv(out.shape[0], T),), axpy_kernel, (x, y, out, a, T))
    return out
'''

TUPLE_SUM = '''
import cuda.tile as ct


@ct.kernel
def pair_sum_kernel(pair, out, TILE: ct.Constant[int]):
    a = ct.load(pair[0], index=(ct.bid(0),), shape=(TILE,))
    b = ct.load(pair[1], index=(ct.bid(0),), shape=(TILE,))
    ct.store(out, index=(ct.bid(0),), tile=a - b)


def pair_sum(stream, pair, out):
    ct.launch(stream, (out.shape[0] // 4,), pair_sum_kernel, (pair, out, 4))
'''


class DLPackOnly:
    """An array that offers DLPack and nothing else (no shape, no stride(), no CAI)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, *args, **kwargs):
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class CudaArrayInterfaceOnly:
    """A GPU array seen only through __cuda_array_interface__ (as Numba or CuPy offer it)."""

    def __init__(self, tensor):
        self._tensor = tensor  # keeps the memory alive
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__


def numbers(n, start=0.0):
    return np.arange(start, start + n, dtype=np.float32)


def expected_axpy(x, y, a):
    return a * np.asarray(x) + np.asarray(y)


# ------------------------------------------------------------------ arrays


def test_numpy_arrays_are_written_in_place(convert):
    mod = convert(AXPY)
    x, y, out = numbers(21), numbers(21, 100.0), np.zeros(21, dtype=np.float32)
    result = mod.axpy(0, x, y, out, 2.0)
    assert result is out
    np.testing.assert_array_equal(out, expected_axpy(x, y, 2.0))


def test_strided_numpy_views(convert):
    mod = convert(AXPY)
    base = numbers(60)
    x, y = base[::3], base[1::3]
    out_base = np.zeros(40, dtype=np.float32)
    out = out_base[::2]
    mod.axpy(0, x, y, out, -1.0)
    np.testing.assert_array_equal(out, expected_axpy(x, y, -1.0))
    assert not out_base[1::2].any(), "only the view's elements are written"


def test_an_object_with_only_dlpack(convert):
    mod = convert(AXPY)
    x, y, out = numbers(13), numbers(13, 5.0), np.zeros(13, dtype=np.float32)
    mod.launch_axpy_kernel(0, (2,), (DLPackOnly(x), DLPackOnly(y), DLPackOnly(out), 3.0, 8))
    np.testing.assert_array_equal(out, expected_axpy(x, y, 3.0))


def test_numpy_and_torch_arrays_mixed(convert, device):
    if device != "cpu":
        pytest.skip("numpy arrays live on the CPU; the kernel runs on the GPU")
    mod = convert(AXPY)
    x = numbers(16)
    y = torch.ones(16)
    out = np.zeros(16, dtype=np.float32)
    mod.axpy(0, x, y, out, 0.5)
    np.testing.assert_array_equal(out, expected_axpy(x, y.numpy(), 0.5))


def test_tuple_of_numpy_arrays(convert):
    mod = convert(TUPLE_SUM)
    a, b = numbers(12, 10.0), numbers(12)
    out = np.zeros(12, dtype=np.float32)
    mod.pair_sum(0, (a, DLPackOnly(b)), out)
    np.testing.assert_array_equal(out, a - b)


def test_a_list_is_no_array(convert):
    mod = convert(AXPY)
    out = np.zeros(8, dtype=np.float32)
    with pytest.raises(TypeError, match=r"kernel argument 'x' is a list, not an array"):
        mod.axpy(0, [1.0] * 8, numbers(8), out, 1.0)


def test_a_number_where_an_array_goes(convert):
    mod = convert(AXPY)
    with pytest.raises(TypeError, match=r"kernel argument 'out' is a float, not an array"):
        mod.launch_axpy_kernel(0, (1,), (numbers(8), numbers(8), 4.0, 1.0, 8))


def test_torch_tensors_are_passed_as_they_are(convert, device):
    mod = convert(AXPY)
    x = torch.randn(19, device=device)
    y = torch.randn(19, device=device)
    out = torch.empty(19, device=device)
    assert mod.axpy(torch.cuda.current_stream(), x, y, out, 2.0) is out
    torch.testing.assert_close(out, 2.0 * x + y)


# ----------------------------------------------------------------- streams


@pytest.mark.parametrize("stream", [0], ids=["handle-0"])  # None: a TypeError (test_launch_dtypes_streams.py)
def test_default_stream_values(convert, device, stream):
    mod = convert(AXPY)
    x = torch.randn(9, device=device)
    y = torch.randn(9, device=device)
    out = torch.empty(9, device=device)
    mod.axpy(stream, x, y, out, 1.5)
    if device != "cpu":
        torch.cuda.synchronize()
    torch.testing.assert_close(out, 1.5 * x + y)


def test_a_stream_of_no_known_kind(convert, device):
    mod = convert(AXPY)
    if device == "cpu":
        pytest.skip("on the CPU (Triton's interpreter) the stream is not used")
    x = torch.randn(9, device=device)
    with pytest.raises(TypeError, match="unsupported stream type 'str'"):
        mod.axpy("side", x, x, torch.empty_like(x), 1.0)


# ------------------------------------------------------- GPU-only: CAI, streams


@CUDA
def test_cuda_array_interface(convert):
    mod = convert(AXPY)
    x = torch.randn(33, device="cuda")
    y = torch.randn(33, device="cuda")
    out = torch.zeros(33, device="cuda")
    arrays = (CudaArrayInterfaceOnly(x), CudaArrayInterfaceOnly(y), CudaArrayInterfaceOnly(out))
    mod.launch_axpy_kernel(torch.cuda.current_stream(), (5,), arrays + (2.0, 8))
    torch.testing.assert_close(out, 2.0 * x + y)


@CUDA
def test_cuda_dlpack_capsule_owner(convert):
    mod = convert(AXPY)
    x = torch.randn(33, device="cuda")
    out = torch.zeros(33, device="cuda")
    mod.launch_axpy_kernel(torch.cuda.current_stream(), (5,), (DLPackOnly(x), DLPackOnly(x), DLPackOnly(out), 1.0, 8))
    torch.testing.assert_close(out, 2.0 * x)


class CupyLikeStream:
    """A stream as CuPy shows it: the raw handle in .ptr."""

    def __init__(self, torch_stream):
        self.ptr = torch_stream.cuda_stream


class CudaStreamProtocol:
    """A stream offering the CUDA stream protocol (cuda.core): __cuda_stream__() -> (version, handle)."""

    def __init__(self, torch_stream):
        self._handle = torch_stream.cuda_stream

    def __cuda_stream__(self):
        return (0, self._handle)


def _cupy_stream(side):
    cupy = pytest.importorskip("cupy")
    return cupy.cuda.ExternalStream(side.cuda_stream)


def _numba_stream(side):
    cuda = pytest.importorskip("numba.cuda")
    return cuda.external_stream(side.cuda_stream)


def _cuda_core_stream(side):
    core = pytest.importorskip("cuda.core")
    stream_type = getattr(core, "Stream", None) or pytest.importorskip("cuda.core.experimental").Stream
    return stream_type.from_handle(side.cuda_stream)


def _cuda_bindings_stream(side):
    driver = pytest.importorskip("cuda.bindings.driver")
    return driver.CUstream(side.cuda_stream)


def _launched_on(mod, make_stream):
    """Runs axpy on a side stream given as make_stream(side) and checks the kernel ran there:
    the side stream first waits on a long-running fill, so a launch on another stream
    would read the old values."""
    side = torch.cuda.Stream()
    n = 1 << 22
    x = torch.zeros(n, device="cuda")
    y = torch.zeros(n, device="cuda")
    out = torch.empty(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # the side stream is busy for a while
        x.fill_(1.0)
    mod.axpy(make_stream(side), x, y, out, 3.0)
    side.synchronize()
    torch.cuda.synchronize()
    return out


@CUDA
@pytest.mark.parametrize("make_stream", [
    lambda side: side,
    lambda side: side.cuda_stream,
    lambda side: CupyLikeStream(side),
    lambda side: CudaStreamProtocol(side),
    _cupy_stream,
    _numba_stream,
    _cuda_core_stream,
    _cuda_bindings_stream,
], ids=["torch", "int-handle", "cupy-ptr", "cuda-stream-protocol", "cupy", "numba", "cuda-core",
        "cuda-bindings"])
def test_side_stream_kinds(convert, make_stream):
    mod = convert(AXPY)
    out = _launched_on(mod, make_stream)
    assert torch.all(out == 3.0), "the kernel ran on the stream it was given"


@CUDA
def test_handle_zero_is_the_default_stream(convert):
    mod = convert(AXPY)
    x = torch.ones(64, device="cuda")
    out = torch.empty(64, device="cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # the current stream is a side stream: 0 still means the default one
        mod.axpy(0, x, x, out, 1.0)
        assert torch.cuda.current_stream() == side
    torch.cuda.default_stream().synchronize()
    assert torch.all(out == 2.0)


@CUDA
def test_cupy_arrays_are_written_in_place(convert):
    cupy = pytest.importorskip("cupy")
    mod = convert(AXPY)
    x = cupy.arange(45, dtype=cupy.float32)
    y = cupy.ones(45, dtype=cupy.float32)
    out = cupy.zeros(45, dtype=cupy.float32)
    assert mod.axpy(torch.cuda.current_stream(), x, y, out, 2.0) is out
    torch.cuda.synchronize()
    assert cupy.array_equal(out, 2 * x + y)


@CUDA
def test_strided_cupy_view(convert):
    cupy = pytest.importorskip("cupy")
    mod = convert(AXPY)
    base = cupy.arange(90, dtype=cupy.float32)
    out = cupy.zeros(60, dtype=cupy.float32)
    mod.axpy(torch.cuda.current_stream(), base[::3], base[1::3], out[::2], 1.0)
    torch.cuda.synchronize()
    assert cupy.array_equal(out[::2], base[::3] + base[1::3])
    assert not out[1::2].any()


@CUDA
def test_numba_device_arrays(convert):
    cuda = pytest.importorskip("numba.cuda")
    mod = convert(AXPY)
    x = cuda.to_device(numbers(30))
    y = cuda.to_device(numbers(30, 7.0))
    out = cuda.device_array(30, dtype=np.float32)
    mod.axpy(torch.cuda.current_stream(), x, y, out, 4.0)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), expected_axpy(numbers(30), numbers(30, 7.0), 4.0))


@CUDA
def test_tuple_of_cupy_arrays(convert):
    cupy = pytest.importorskip("cupy")
    mod = convert(TUPLE_SUM)
    a, b = cupy.arange(16, dtype=cupy.float32), cupy.full(16, 3, dtype=cupy.float32)
    out = torch.zeros(16, device="cuda")
    mod.pair_sum(torch.cuda.current_stream(), [a, b], out)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.arange(16, device="cuda", dtype=torch.float32) - 3)


TMA_COPY = '''
import cuda.tile as ct


@ct.kernel
def copy2d_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(BM, BN))
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=t)
'''


def test_a_tma_launcher_sets_the_allocator_for_its_own_thread(convert_text):
    # Triton's allocator is a ContextVar: a launch from another thread (autograd's
    # backward runs on threads of its own) does not see the module-level setting
    text = convert_text(TMA_COPY)
    launcher = text.split("def launch_copy2d_kernel(")[1].split("\n\n\n")[0]
    assert launcher.index("triton.set_allocator(_tma_workspace)") < launcher.index("_launch(")


@CUDA
def test_a_tma_kernel_launched_from_another_thread(convert):
    import threading
    mod = convert(TMA_COPY)
    x = torch.randn(64, 64, device="cuda")
    y = torch.zeros_like(x)
    errors = []

    def run():
        try:
            mod.launch_copy2d_kernel(torch.cuda.current_stream(), (2, 2), (x, y, 32, 32))
            torch.cuda.synchronize()
        except Exception as error:  # reported below
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not errors, errors
    assert torch.equal(x, y)


KINDS_OF_PARAMETERS = '''
import cuda.tile as ct


@ct.kernel
def k(x, /, y, *, scale: ct.Constant[float], TILE: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(y, (i,), ct.load(x, (i,), (TILE,)) * scale)


def run(x, y):
    ct.launch(0, (2,), k, (x, y, 3.0, 8))
'''


def test_positional_only_and_keyword_only_kernel_parameters_take_arguments_by_position(convert, device):
    """ct.launch gives a kernel its arguments by position, whatever the parameters' kinds."""
    mod = convert(KINDS_OF_PARAMETERS)
    x = torch.randn(16, device=device)
    y = torch.empty_like(x)
    mod.run(x, y)
    torch.testing.assert_close(y, x * 3.0)


def test_a_keyword_only_kernel_parameter_with_a_default_is_a_located_error(convert_error):
    source = KINDS_OF_PARAMETERS.replace("TILE: ct.Constant[int])", "TILE: ct.Constant[int] = 8)")
    assert "only plain positional parameters can be converted" in convert_error(source)


def test_the_kinds_of_parameters_kernel_is_valid_cutile(cutile_export):
    ct, array = cutile_export.ct, cutile_export.array
    assert cutile_export.cubin_size(KINDS_OF_PARAMETERS, [array(ct.float32, 1), array(ct.float32, 1), 3.0, 8]) > 0


DEPENDENT = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    ct.grid_dependency_control_wait()
    t = ct.load(x, (ct.bid(0),), (TILE,))
    ct.grid_dependency_control_launch_dependents()
    ct.store(y, (ct.bid(0),), t + 1)


def run(x, y, dependent):
    ct.launch(0, (2,), k, (x, y, 8), programmatic_dependent_launch=dependent)
'''


def test_a_programmatic_dependent_launch_is_tritons_launch_pdl(convert, convert_text, device):
    text = convert_text(DEPENDENT)
    assert "def launch_k(stream, grid, args, programmatic_dependent_launch=False):" in text, text
    assert "launch_pdl=programmatic_dependent_launch," in text
    assert "launch_k(0, (2,), (x, y, 8), programmatic_dependent_launch=dependent)" in text
    assert "tl.extra.cuda.gdc_wait()" in text and "tl.extra.cuda.gdc_launch_dependents()" in text
    mod = convert(DEPENDENT)
    x = torch.randn(16, device=device)
    for dependent in (True, False):
        y = torch.empty_like(x)
        mod.run(x, y, dependent)
        torch.testing.assert_close(y, x + 1)


def test_a_dependent_launch_of_a_kernel_chosen_at_run_time_is_a_located_error(convert_error):
    source = DEPENDENT.replace("ct.launch(0, (2,), k,", "kernel = k\n    ct.launch(0, (2,), kernel,")
    assert "programmatic_dependent_launch=) of a kernel chosen at run time" in convert_error(source)
    source = DEPENDENT.replace("programmatic_dependent_launch=dependent", "occupancy=2")
    assert "programmatic_dependent_launch= alone as a keyword" in convert_error(source)


OPTIONAL_OPERANDS = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, bias, extra_out, HAS_BIAS: ct.Constant[bool], TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if HAS_BIAS:
        t = t + ct.load(bias, index=(ct.bid(0),), shape=(TILE,))
        ct.store(extra_out, index=(ct.bid(0),), tile=t)
    ct.store(y, index=(ct.bid(0),), tile=t)
'''


def test_a_number_for_an_array_only_a_branch_not_taken_reads(convert):
    """cuTile types a parameter by the launch's argument and compiles only the constexpr
    branches taken: `bias` and `extra_out` may be 0 where HAS_BIAS is False (the autotuner's
    copies leave them). An array the kernel reads outside such branches (x) must be one."""
    mod = convert(OPTIONAL_OPERANDS)
    x, y, out = torch.randn(32), torch.zeros(32), torch.zeros(32)
    mod.launch_k(0, (2,), (x, y, 0, 0, False, 16))
    assert torch.equal(y, x)
    bias = torch.randn(32)
    mod.launch_k(0, (2,), (x, y, bias, out, True, 16))
    assert torch.equal(y, x + bias) and torch.equal(out, x + bias)
    nargs = {"y": y, "extra_out": 0}
    mod._tuning_copies(nargs, False, kept=["extra_out"], written=["y", "extra_out"])
    assert nargs["_copies_made"] == {}  # y shares memory with no other array; extra_out a number
    with pytest.raises(TypeError, match=r"kernel argument 'x' is a int, not an array"):
        mod.launch_k(0, (2,), (0, y, 0, out, False, 16))
    with pytest.raises(TypeError, match=r"kernel argument 'bias' is a list, not an array"):
        mod.launch_k(0, (2,), (x, y, [0], out, False, 16))
