"""Stand-ins for the torch.cuda calls that host code makes, for CPU-only runs.

The corpus host code is written for a GPU: it calls
``torch.cuda.current_stream()``, creates side streams with
``torch.cuda.Stream()`` and reads ``get_device_properties(...).multi_processor_count``.
On a CPU build of torch those raise.  When the converted Triton code runs under
TRITON_INTERPRET=1 on CPU tensors, streams mean nothing, so these shims make the
host code run unchanged.  They are installed only when no GPU is present.
"""

import contextlib

import torch

CPU_FAKE_SM_COUNT = 4  # small, so persistent kernels loop over several rows each


class FakeStream:
    cuda_stream = 0

    def wait_stream(self, other):
        pass

    def synchronize(self):
        pass

    def record_event(self, event=None):
        return event


class _FakeProps:
    multi_processor_count = CPU_FAKE_SM_COUNT
    name = "cpu (TRITON_INTERPRET)"
    # host code that sizes its grid as a CUDA launch would (blocks per SM) reads this too;
    # the H100's and H200's value
    max_threads_per_multi_processor = 2048


@contextlib.contextmanager
def cpu_cuda_shims():
    names = ("current_stream", "default_stream", "Stream", "stream",
             "get_device_properties", "synchronize")
    saved = {k: getattr(torch.cuda, k) for k in names}
    torch.cuda.current_stream = lambda *a, **k: FakeStream()
    torch.cuda.default_stream = lambda *a, **k: FakeStream()
    torch.cuda.Stream = lambda *a, **k: FakeStream()
    torch.cuda.stream = lambda s: contextlib.nullcontext()
    torch.cuda.get_device_properties = lambda *a, **k: _FakeProps()
    torch.cuda.synchronize = lambda *a, **k: None
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(torch.cuda, k, v)
