"""_c2t_launch (src/lower/helpers/host_helpers.py): the compiled kernel of a launch is reused for a
later launch only when Triton would compile the same kernel for it.

On the CPU no kernel compiles, so a stand-in plays Triton's side: `kernel[grid](...)` returns a
CompiledKernel whose own `[grid](...)` records the direct launches (the H200 runs the real
ones: .gpu/ probes and the op tests)."""
import sys
from pathlib import Path

import pytest
import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src" / "lower" / "helpers"))
import host_helpers as h  # noqa: E402


class _Param:
    def __init__(self, name, is_constexpr):
        self.name, self.is_constexpr = name, is_constexpr


class _Compiled(triton.compiler.CompiledKernel):
    function, packed_metadata = "function", "metadata"

    def __init__(self, direct):  # no compiled code: records what a direct launch passes
        self.direct = direct

    @property
    def run(self):  # what CompiledKernel[grid](...) calls: grid, stream, function, metadata, hooks
        def run(x, y, z, stream, function, metadata, launch_metadata, enter, exit, *args):
            assert (function, metadata) == ("function", "metadata")
            self.direct.append(((x, y, z), args, stream))
        return run

    def __getitem__(self, grid):  # with a profiler's hooks
        return lambda *args, stream=None: self.direct.append((grid, args, stream, "hooks"))


class _Kernel:
    """A kernel with parameters (x, n, FLAG: constexpr, _use_tma: constexpr = True)."""

    def __init__(self):
        self.params = [_Param("x", False), _Param("n", False), _Param("FLAG", True), _Param("_use_tma", True)]
        self.dispatched, self.direct = [], []

    def __getitem__(self, grid):
        def run(*args, **constants):
            self.dispatched.append((grid, args, constants))
            return _Compiled(self.direct)
        return run


@pytest.fixture(autouse=True)
def _no_gpu(monkeypatch):
    monkeypatch.setattr(h, "_LAUNCHED", {})
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch._C, "_cuda_getCurrentRawStream", lambda device: 1234, raising=False)


def test_the_second_launch_of_a_key_is_direct_with_every_parameter_in_order():
    kernel, x = _Kernel(), torch.zeros(8)
    h._c2t_launch(kernel, (4,), x, 8, FLAG=True)
    h._c2t_launch(kernel, [4], x, 8, FLAG=True)
    assert len(kernel.dispatched) == 1
    # the keyword constant in its parameter's place, the autotuner's constexpr padded
    assert kernel.direct == [((4, 1, 1), (x, 8, True, None), 1234)]


@pytest.mark.parametrize("other", [
    lambda x: (x, 9, True),             # another value
    lambda x: (x, True, True),          # True == 1 but Triton types it u1
    lambda x: (x, 8.0, True),           # 8.0 == 8 but Triton types it fp32
    lambda x: (x.half(), 8, True),      # another dtype
    lambda x: (x[1:], 8, True),         # an address that is not a multiple of 16 bytes
    lambda x: (x, 8, False),            # another constexpr value
])
def test_what_triton_compiles_for_differs_so_triton_dispatches_again(other):
    kernel, x = _Kernel(), torch.zeros(64)
    h._c2t_launch(kernel, (1,), x, 8, FLAG=True)
    tensor, n, flag = other(x)
    h._c2t_launch(kernel, (1,), tensor, n, FLAG=flag)
    assert len(kernel.dispatched) == 2 and not kernel.direct


def test_the_same_values_in_new_tensors_launch_directly():
    kernel = _Kernel()
    h._c2t_launch(kernel, (1,), torch.zeros(64), (64,), FLAG=True)
    h._c2t_launch(kernel, (1,), torch.ones(64), (64,), FLAG=True)
    assert len(kernel.dispatched) == 1 and len(kernel.direct) == 1


def test_a_tuple_of_arrays_is_keyed_by_its_arrays_not_their_identity():
    kernel, a = _Kernel(), torch.zeros(64)
    h._c2t_launch(kernel, (1,), (a, a), 8, FLAG=True)
    h._c2t_launch(kernel, (1,), (a, a.half()), 8, FLAG=True)
    assert len(kernel.dispatched) == 2


def test_launch_options_are_in_the_key_and_not_passed_as_parameters():
    kernel, x = _Kernel(), torch.zeros(8)
    h._c2t_launch(kernel, (1,), x, 8, FLAG=True, num_warps=4)
    h._c2t_launch(kernel, (1,), x, 8, FLAG=True, num_warps=8)
    h._c2t_launch(kernel, (1,), x, 8, FLAG=True, num_warps=8)
    assert [c["num_warps"] for _, _, c in kernel.dispatched] == [4, 8]
    assert kernel.direct == [((1, 1, 1), (x, 8, True, None), 1234)]


def test_an_unhashable_argument_always_goes_through_triton():
    kernel, x = _Kernel(), torch.zeros(8)
    for _ in range(2):
        h._c2t_launch(kernel, (1,), x, [1, 2], FLAG=True)
    assert len(kernel.dispatched) == 2


def test_a_keyword_that_is_not_the_next_parameter_is_never_kept():
    kernel, x = _Kernel(), torch.zeros(8)
    for _ in range(2):
        h._c2t_launch(kernel, (1,), x, _use_tma=False)  # n is missing: the order cannot be known
    assert len(kernel.dispatched) == 2 and not kernel.direct


def test_the_kept_keys_are_bounded(monkeypatch):
    monkeypatch.setattr(h, "_LAUNCHED_LIMIT", 3)
    kernel, x = _Kernel(), torch.zeros(8)
    for n in range(10):
        h._c2t_launch(kernel, (1,), x, n, FLAG=True)
    assert len(h._LAUNCHED) <= 3


def test_with_a_profilers_launch_hook_the_direct_launch_calls_it():
    kernel, x = _Kernel(), torch.zeros(8)
    hook = lambda metadata: None  # noqa: E731
    triton.knobs.runtime.launch_enter_hook.add(hook)
    try:
        for _ in range(2):
            h._c2t_launch(kernel, (4,), x, 8, FLAG=True)
    finally:
        triton.knobs.runtime.launch_enter_hook.remove(hook)
    assert kernel.direct == [((4, 1, 1), (x, 8, True, None), 1234, "hooks")]


def test_an_entry_keeps_its_kernel_alive_so_no_other_kernel_takes_its_id():
    import gc
    import weakref
    kernel, x = _Kernel(), torch.zeros(8)
    h._c2t_launch(kernel, (1,), x, 8, FLAG=True)
    alive = weakref.ref(kernel)
    del kernel
    gc.collect()
    assert alive() is not None  # a new kernel object cannot reuse the kept key's id


class _ArrayKernel(_Kernel):
    """A converted kernel's parameters: an array with its shape and strides, then (n, FLAG)."""

    def __init__(self):
        super().__init__()
        self.params = [_Param("x", False), _Param("x_shape", False), _Param("x_strides", False),
                       _Param("n", False), _Param("FLAG", True), _Param("_use_tma", True)]


def _array_launch(kernel, x, n=8, flag=True, grid=(2,)):
    h._c2t_launch(kernel, grid, x, tuple(x.shape), tuple(x.stride()), n, FLAG=flag)


def test_a_kept_launch_passes_each_array_as_its_address():
    kernel, x = _ArrayKernel(), torch.zeros(64)
    _array_launch(kernel, x)
    _array_launch(kernel, x)
    assert len(kernel.dispatched) == 1
    # the C launcher is given the address, not the tensor (it would call data_ptr() and ask the driver)
    assert kernel.direct == [((2, 1, 1), (x.data_ptr(), (64,), (1,), 8, True, None), 1234)]


@pytest.mark.parametrize("other, same", [
    (lambda x: (x.clone(), 8, True), True),         # other memory, what Triton compiles for the same
    (lambda x: (x.half(), 8, True), False),         # another dtype
    (lambda x: (x[1:33], 8, True), False),          # an address that is not a multiple of 16 bytes
    (lambda x: (x[:16], 8, True), False),           # another shape
    (lambda x: (x[::2], 8, True), False),           # other strides
    (lambda x: (x, True, True), False),             # True == 1 but Triton types it u1
    (lambda x: (x, 8, False), False),               # another constexpr value
])
def test_the_key_of_a_converted_kernels_arrays_holds_what_triton_compiles_for(other, same):
    kernel, x = _ArrayKernel(), torch.zeros(64)
    _array_launch(kernel, x[:32])
    tensor, n, flag = other(x[:32] if same else x)
    _array_launch(kernel, tensor, n, flag)
    assert len(kernel.dispatched) == (1 if same else 2)


def test_a_parameter_tensor_is_an_array_and_a_tuple_in_its_place_is_keyed_by_its_items():
    kernel, x = _ArrayKernel(), torch.nn.Parameter(torch.zeros(64))
    for _ in range(2):
        _array_launch(kernel, x)
    assert len(kernel.dispatched) == 1 and kernel.direct[0][1][0] == x.data_ptr()
    kernel, a = _ArrayKernel(), torch.zeros(64)
    for pair in ((a, a), (a, torch.ones(64)), (a, a.half())):
        h._c2t_launch(kernel, (1,), pair, ((64,), (64,)), ((1,), (1,)), 8, FLAG=True)
    assert len(kernel.dispatched) == 2  # the third pair's dtype differs
    assert len(kernel.direct) == 1 and kernel.direct[0][1][0][1].dtype == torch.float32


class _Launcher:
    """Triton 3.6's CudaLauncher as a kept launch uses it: the C launch and its fixed options."""
    launch_cooperative_grid, launch_pdl, num_ctas = False, True, 1
    global_scratch_align, profile_scratch_size = 128, 0

    def __init__(self, calls, scratch_size):
        self.calls, self.global_scratch_size = calls, scratch_size

    def launch(self, *args):
        self.calls.append(args)


class _LauncherCompiled(_Compiled):
    def __init__(self, direct, scratch_size):
        super().__init__(direct)
        self.launcher = _Launcher(direct, scratch_size)

    @property
    def run(self):
        return self.launcher


class _LauncherKernel(_ArrayKernel):
    def __init__(self, scratch_size):
        super().__init__()
        self.scratch_size = scratch_size

    def __getitem__(self, grid):
        def run(*args, **constants):
            self.dispatched.append((grid, args, constants))
            return _LauncherCompiled(self.direct, self.scratch_size)
        return run


@pytest.mark.parametrize("scratch_size", [0, 64])
def test_a_kept_launch_calls_the_c_launcher_with_the_scratch_memory_triton_would_allocate(scratch_size):
    asked = []
    allocator = lambda size, align, stream: asked.append((size, align, stream)) or "buffer"  # noqa: E731
    before = h._SCRATCH._allocator.get()
    triton.set_allocator(allocator)
    try:
        kernel, x = _LauncherKernel(scratch_size), torch.zeros(64)
        _array_launch(kernel, x, grid=(3, 2))
        _array_launch(kernel, x, grid=(3, 2))
    finally:
        triton.set_allocator(before)
    assert asked == ([(3 * 2 * scratch_size, 128, 1234)] if scratch_size else [])
    scratch = "buffer" if scratch_size else None
    assert kernel.direct == [(3, 2, 1, 1234, "function", False, True, scratch, None, "metadata", None, None, None,
                              x.data_ptr(), (64,), (1,), 8, True, None)]


def test_a_kept_launch_is_reused_on_its_own_device_only(monkeypatch):
    kernel, x = _ArrayKernel(), torch.zeros(64)
    _array_launch(kernel, x)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)  # torch.cuda.set_device(1)
    _array_launch(kernel, x)
    assert len(kernel.dispatched) == 2 and not kernel.direct  # Triton launches on device 1
    _array_launch(kernel, x)
    assert len(kernel.dispatched) == 2 and len(kernel.direct) == 1


class _DescriptorKernel(_Kernel):
    """A converted kernel with a host-made descriptor: (x, x_shape, x_strides, FLAG: constexpr,
    x_desc: keyword, _use_tma: constexpr = True), whose compiled launcher is Triton 3.6's own
    wrapper (wrap_handle_tensordesc) over a recording C launcher."""

    def __init__(self, calls):
        super().__init__()
        self.params = [_Param("x", False), _Param("x_shape", False), _Param("x_strides", False),
                       _Param("FLAG", True), _Param("x_desc", False), _Param("_use_tma", True)]
        self.calls = calls

    def __getitem__(self, grid):
        from triton.backends.nvidia import driver
        signature = {"x": "*fp32", "x_shape": "(i32,)", "x_strides": "(i32,)", "FLAG": "constexpr",
                     "x_desc": "tensordesc<fp32[16, 16]>", "_use_tma": "constexpr"}
        layout = {"swizzle": 0, "elem_size": 4, "elem_type": 7, "block_size": [16, 16], "fp4_padded": False}
        launcher = _Launcher(self.calls, 0)
        launcher.launch = driver.wrap_handle_tensordesc(lambda *args: self.calls.append(args), signature, [layout])

        def run(*args, **constants):
            self.dispatched.append((grid, args, constants))
            compiled = _LauncherCompiled(self.direct, 0)
            compiled.launcher = launcher
            return compiled
        return run


def test_a_kept_launch_keeps_the_tensor_maps_of_its_descriptors(monkeypatch):
    from triton.backends.nvidia import driver
    made = []

    def make_tensordesc_arg(descriptor, layout):  # the driver call, recorded (no GPU here)
        made.append(descriptor.base.data_ptr())
        return [("map", descriptor.base.data_ptr(), layout["block_size"]), *descriptor.shape, *descriptor.strides]

    monkeypatch.setattr(driver, "make_tensordesc_arg", make_tensordesc_arg)
    calls = []
    kernel = _DescriptorKernel(calls)
    x, y = torch.zeros(32, 32), torch.zeros(32, 32)

    def launch(x):
        h._c2t_launch(kernel, (2,), x, tuple(x.shape), tuple(x.stride()), FLAG=True,
                  x_desc=h._host_descriptor(x, [16, 16]))

    for tensor in (x, x, y, x):
        launch(tensor)
    assert len(kernel.dispatched) == 1  # the same key each time: kept after the first
    # the C launcher below Triton's wrapper is given each descriptor expanded as Triton expands it
    # (the first launch was Triton's own)
    expanded = lambda t: [("map", t.data_ptr(), [16, 16]), 32, 32, 32, 1]  # noqa: E731
    assert [call[13:] for call in calls] == [
        (t.data_ptr(), (32, 32), (32, 1), True, *expanded(t), None) for t in (x, y, x)]
    # a map is made once for each address: the fourth launch reuses the second's
    assert made == [x.data_ptr(), y.data_ptr()]


def test_a_descriptor_of_other_strides_or_shape_gets_a_map_of_its_own(monkeypatch):
    from triton.backends.nvidia import driver
    made = []
    monkeypatch.setattr(driver, "make_tensordesc_arg",
                        lambda d, layout: made.append((d.shape, d.strides)) or ["map", *d.shape, *d.strides])
    kernel = _DescriptorKernel([])
    x = torch.zeros(64, 32)
    for view in (x[:32], x[:32], x[:48], x.view(32, 64)[:, :32], x[:32]):
        h._c2t_launch(kernel, (2,), view, (32, 32), (32, 1), FLAG=True, x_desc=h._host_descriptor(view, [16, 16]))
    # kept from the second launch: x[:32] made once, then x[:48] and the view of other strides
    assert made == [((32, 32), (32, 1)), ((48, 32), (32, 1)), ((32, 32), (64, 1))]


# _replayed: a launcher's third launch of a key calls the C launcher with the second's parameters

def _replaying(kernel, runs, make=None):
    """A converted launcher's shape: (x, n, flag) given, _c2t_launch called with x's shape and
    strides; `runs` counts how often its body runs; `make` (optional) gives the array launched."""
    def launch_k(stream, grid, args, num_worker_warps=None):
        """Launch k."""
        runs.append(stream)
        x, n, flag = args
        x = make(x) if make else x
        h._c2t_launch(kernel, grid, x, tuple(x.shape), tuple(x.stride()), n, FLAG=flag)
    return h._replayed(launch_k)


def test_a_replayed_launcher_passes_the_c_launcher_what_its_kept_launch_passed():
    kernel, runs, x = _LauncherKernel(0), [], torch.zeros(64)
    launch = _replaying(kernel, runs)
    for _ in range(4):
        launch(1234, (3, 2), (x, 8, True))
    assert len(kernel.dispatched) == 1  # the first through Triton
    assert len(runs) == 2  # the second kept by _c2t_launch; the third and fourth replayed
    expected = (3, 2, 1, 1234, "function", False, True, None, None, "metadata", None, None, None,
                x.data_ptr(), (64,), (1,), 8, True, None)
    assert kernel.direct == [expected] * 3
    assert launch.__name__ == "launch_k" and launch.__doc__ == "Launch k."


@pytest.mark.parametrize("other", [
    lambda x: (1234, (3, 2), (x.clone(), 8, True), {}),        # another address
    lambda x: (1234, (3, 2), (x.half(), 8, True), {}),         # another dtype
    lambda x: (1234, (3, 2), (x[:32], 8, True), {}),           # another shape
    lambda x: (1234, (3, 2), (x[::2], 8, True), {}),           # other strides
    lambda x: (1234, (3, 2), (x, 9, True), {}),                # another value
    lambda x: (1234, (3, 2), (x, 8.0, True), {}),              # 8.0 == 8 but a float
    lambda x: (1234, (3, 2), (x, 8, 1), {}),                   # 1 == True but an int
    lambda x: (1234, (3, 1), (x, 8, True), {}),                # another grid
    lambda x: (1234, (3, 2), (x, 8, True), {"num_worker_warps": 8}),  # another hint
])
def test_a_launch_whose_key_differs_runs_the_launcher(other):
    kernel, runs, x = _LauncherKernel(0), [], torch.zeros(64)
    launch = _replaying(kernel, runs)
    for _ in range(3):
        launch(1234, (3, 2), (x, 8, True))
    stream, grid, args, options = other(x)
    launch(stream, grid, args, **options)
    assert len(runs) == 3
    if len(kernel.dispatched) == 2:  # what Triton compiles for differs: through Triton
        assert kernel.dispatched[-1][1][0] is args[0]
    else:
        assert kernel.direct[-1][13] == args[0].data_ptr() and kernel.direct[-1][:3] == (*grid, 1)


@pytest.mark.parametrize("case", ["made array", "other stream", "list argument", "hooks", "other device"])
def test_a_launch_that_cannot_be_replayed_runs_the_launcher_every_time(case, monkeypatch):
    kernel, runs, x = _LauncherKernel(0), [], torch.zeros(64)
    stream, args = 1234, (x, 8, True)
    if case == "made array":  # a staged copy: its memory may be another array's by the next launch
        launch = _replaying(kernel, runs, make=lambda x: x.clone())
    elif case == "other stream":  # _c2t_launch launches on the current stream (1234 here), not on 99
        launch, stream = _replaying(kernel, runs), 99
    elif case == "list argument":  # not keyed: a list's arrays are read through a device table
        launch = _replaying(kernel, runs, make=lambda items: items[0])
        args = ([x], 8, True)
    else:
        launch = _replaying(kernel, runs)
    for _ in range(2):
        launch(stream, (1,), args)
    if case == "hooks":
        hook = lambda metadata: None  # noqa: E731
        triton.knobs.runtime.launch_enter_hook.add(hook)
    if case == "other device":
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    try:
        for _ in range(2):
            launch(stream, (1,), args)
    finally:
        if case == "hooks":
            triton.knobs.runtime.launch_enter_hook.remove(hook)
    assert len(runs) == 4


def test_a_launcher_that_launches_twice_is_not_replayed():
    kernel, runs, x = _LauncherKernel(0), [], torch.zeros(64)

    def launch_twice(stream, grid, args):
        runs.append(stream)
        for n in (8, 9):
            h._c2t_launch(kernel, grid, x, tuple(x.shape), tuple(x.stride()), n, FLAG=True)
    launch = h._replayed(launch_twice)
    for _ in range(4):
        launch(1234, (1,), (x,))
    assert len(runs) == 4 and len(kernel.direct) == 6


def test_a_launcher_whose_keys_keep_changing_stops_keying(monkeypatch):
    monkeypatch.setattr(h, "_REPLAYED_LIMIT", 4)
    kernel, runs, x = _LauncherKernel(0), [], torch.zeros(64)
    launch = _replaying(kernel, runs)
    for n in range(12):  # each key twice: kept, never replayed
        launch(1234, (1,), (x, n, True))
        launch(1234, (1,), (x, n, True))
    for _ in range(3):
        launch(1234, (1,), (x, 0, True))
    assert len(runs) == 27  # keying stopped once 4 keys were kept with no replay among them


def test_a_kernel_objects_launch_gives_a_replayed_launcher_its_hints():
    kernel, runs, x = _LauncherKernel(0), [], torch.zeros(64)
    launch = _replaying(kernel, runs)
    tile = h._TileKernel(launch, {}).replace_hints(num_worker_warps=8)
    for _ in range(3):
        tile.launch_tile_kernel(1234, (1,), (x, 8, True))
    assert len(runs) == 2 and len(kernel.direct) == 2


def test_a_replayed_kernel_that_makes_descriptors_asks_the_allocator_for_its_scratch_each_time():
    asked = []
    allocator = lambda size, align, stream: asked.append((size, align, stream)) or f"buffer{len(asked)}"  # noqa: E731
    before = h._SCRATCH._allocator.get()
    triton.set_allocator(allocator)
    try:
        kernel, runs, x = _LauncherKernel(64), [], torch.zeros(64)
        launch = _replaying(kernel, runs)
        for _ in range(4):
            launch(1234, (3, 2), (x, 8, True))
    finally:
        triton.set_allocator(before)
    assert len(runs) == 2  # the third and fourth replayed
    assert asked == [(3 * 2 * 64, 128, 1234)] * 3  # the kept launch's, then each replay's
    assert [call[7] for call in kernel.direct] == ["buffer1", "buffer2", "buffer3"]
    assert all(call[:7] + call[8:] == kernel.direct[0][:7] + kernel.direct[0][8:] for call in kernel.direct)


def test_a_negative_zero_is_not_replayed_as_the_zero_kept_before():
    import math
    kernel, runs, x = _LauncherKernel(0), [], torch.zeros(64)
    launch = _replaying(kernel, runs)
    for scale in (0.0, 0.0, 0.0, -0.0, -0.0, -0.0):
        launch(1234, (1,), (x, scale, True))
    # 0.0: through Triton, kept, replayed; -0.0 runs the launcher (_c2t_launch's kept launch), then replays
    assert len(runs) == 3
    assert [math.copysign(1.0, call[16]) for call in kernel.direct] == [1.0, 1.0, -1.0, -1.0, -1.0]
