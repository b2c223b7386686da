"""Fixtures for the conversion-rule tests (tests/convert).

Each test writes a small cuTile module, converts it with the real converter
and runs the result against a PyTorch reference:

    def test_floordiv_rounds_down(convert):
        mod = convert('''
    import cuda.tile as ct
    @ct.kernel
    def k(x, y, TILE: ct.Constant[int]):
        t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
        ct.store(y, index=(ct.bid(0),), tile=t // 3)
    ''')
        ...
        mod.launch_k(0, grid, (x, y, 16))   # or the module's own host function

Without a GPU the generated kernels run on CPU tensors under
TRITON_INTERPRET=1 (set by ops_common before triton is imported).
`convert_error(source)` asserts the conversion fails with a located error
and returns the message.
"""

import itertools
import re
import subprocess
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))

import ops_common  # noqa: E402  (sets TRITON_INTERPRET=1 before triton is imported)
import pytest  # noqa: E402
import torch  # noqa: E402
from cuda_shims import cpu_cuda_shims  # noqa: E402

_counter = itertools.count()
LOCATED_ERROR = re.compile(r"^\S+:\d+:\d+: error: (.+)$", re.M)


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


def _write(tmp_path, source):
    path = tmp_path / f"cutile_case_{next(_counter)}.py"
    path.write_text(textwrap.dedent(source))
    return path


@pytest.fixture
def convert(tmp_path):
    """convert(source) -> the imported Triton module converted from `source`."""

    def run(source: str):
        src = _write(tmp_path, source)
        dst = src.with_name(src.stem + "_triton.py")
        proc = subprocess.run([str(ops_common.CONVERTER), str(src), "-o", str(dst)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, f"conversion failed:\n{proc.stderr}"
        return ops_common.import_file(dst, f"c2t_case_{dst.stem}")

    return run


@pytest.fixture
def convert_text(tmp_path):
    """convert_text(source) -> the generated Triton source (not imported)."""

    def run(source: str) -> str:
        src = _write(tmp_path, source)
        proc = subprocess.run([str(ops_common.CONVERTER), str(src)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, f"conversion failed:\n{proc.stderr}"
        return proc.stdout

    return run


@pytest.fixture
def convert_error(tmp_path):
    """convert_error(source) -> the message of the located error the conversion must end with."""

    def run(source: str) -> str:
        src = _write(tmp_path, source)
        dst = src.with_name(src.stem + "_triton.py")
        proc = subprocess.run([str(ops_common.CONVERTER), str(src), "-o", str(dst)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1, f"expected exit 1, got {proc.returncode}:\n{proc.stderr}"
        assert not dst.exists(), "a failed conversion must write nothing"
        found = LOCATED_ERROR.search(proc.stderr)
        assert found, f"no located error in:\n{proc.stderr}"
        return found.group(1)

    return run


class CutileExport:
    """Real cuTile's front end and tileiras, without a GPU (cuda.tile.compilation.export_kernel):
    whether a kernel written for a test is valid cuTile. `array(dtype, rank)` is an array
    argument (contiguous rows, 16-byte aligned); `cubin_size(source, args)` compiles the
    kernel `k` (or the one named by `kernel=`) of `source` for `gpu` and returns the cubin's size."""

    def __init__(self, tmp_path, ct, compilation):
        self.tmp_path, self.ct, self.compilation = tmp_path, ct, compilation

    def array(self, dtype, rank, shape_divisible_by=16):
        divisible = shape_divisible_by if isinstance(shape_divisible_by, list) else [shape_divisible_by] * rank
        return self.compilation.ArrayConstraint(
            dtype, rank, index_dtype=self.ct.int32, stride_lower_bound_incl=0, alias_groups=[],
            may_alias_internally=False, stride_constant=[None] * (rank - 1) + [1],
            stride_divisible_by=[16] * (rank - 1) + [1], shape_divisible_by=divisible, base_addr_divisible_by=16)

    def cubin_size(self, source, args, gpu="sm_100", convention="cutile_python_v1", kernel="k"):
        import importlib.util
        import io
        path = self.tmp_path / f"cutile_kernel_{len(list(self.tmp_path.iterdir()))}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out = io.BytesIO()
        calling = getattr(self.compilation.CallingConvention, convention)()  # v2: tuple parameters
        signature = self.compilation.KernelSignature(args, calling)
        self.compilation.export_kernel(getattr(module, kernel), [signature], out, gpu_code=gpu, output_format="cubin")
        return len(out.getvalue())


@pytest.fixture
def cutile_export(tmp_path):
    """A CutileExport; the test is skipped where cuda.tile or tileiras cannot be imported
    (PYTHONPATH=/path/to/cuda-tile runs it)."""
    ct = pytest.importorskip("cuda.tile")
    compilation = pytest.importorskip("cuda.tile.compilation")
    try:
        from cuda.tile._compile import _find_compiler_bin
        _find_compiler_bin()
    except Exception as e:  # no tileiras: nothing to compile with
        pytest.skip(f"tileiras not available: {e}")
    return CutileExport(tmp_path, ct, compilation)
