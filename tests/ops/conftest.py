"""Fixtures for the operator tests: load a corpus module for a backend.

Backends (the `backend` parameter of every test_op_* test):
  "triton" -- run the converter, `build/cutile2triton corpus/cutile/NAME.py -o TMP/NAME.py`
              (override the binary with C2T_BIN), import the generated module;
  "cutile" -- import the original module; skipped with the reason when cuda.tile cannot
              run here (no GPU, no tileiras for this GPU);
the torch reference is computed in each test.

Select the converted kernels with
    python -m pytest tests/ops -k "test_op and triton" -vs --tb=short

Without a GPU everything runs on CPU tensors with TRITON_INTERPRET=1 (set by
ops_common before triton is imported), and the torch.cuda stream/device-property
calls of the host code are replaced by stand-ins (cuda_shims.py).
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ops_common  # noqa: E402  (must come before any triton import)
import pytest  # noqa: E402
import torch  # noqa: E402
from cuda_shims import cpu_cuda_shims  # noqa: E402


def pytest_report_header(config):
    return (f"ops device: {ops_common.DEVICE}"
            + (" (TRITON_INTERPRET=1)" if not ops_common.ON_GPU else "")
            + f"; converter: {ops_common.CONVERTER}")


@pytest.fixture(scope="session")
def device():
    return ops_common.DEVICE


@pytest.fixture(autouse=True)
def _host_cuda_shims():
    if ops_common.ON_GPU:
        yield
    else:
        with cpu_cuda_shims():
            yield


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture(scope="session")
def _converted_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("c2t_converted")


_module_cache = {}


@pytest.fixture(scope="session")
def load_op(_converted_dir):
    """load_op(name, backend) -> module with the same host functions as corpus/cutile/NAME.py."""

    def load(name: str, backend: str):
        key = (name, backend)
        if key in _module_cache:
            return _module_cache[key]
        if backend == "cutile":
            reason = ops_common.cutile_unavailable_reason()
            if reason:
                pytest.skip(reason)
            mod = ops_common.import_file(ops_common.CORPUS / f"{name}.py", f"c2t_cutile_{name}")
        elif backend == "triton":
            if not ops_common.have_converter():
                if os.environ.get("C2T_SKIP_MISSING_CONVERTER") == "1":
                    pytest.skip(f"converter {ops_common.CONVERTER} is not built")
                pytest.fail(f"converter {ops_common.CONVERTER} is not built (run make)",
                            pytrace=False)
            try:
                path = ops_common.convert(name, _converted_dir)
            except ops_common.ConversionError as e:
                pytest.fail(str(e), pytrace=False)
            mod = ops_common.import_file(path, f"c2t_triton_{name}")
        else:
            raise ValueError(f"unknown backend {backend!r}")
        _module_cache[key] = mod
        return mod

    return load
