"""What the converter adds is there only where the converted module reads it.

Every converted module could take the launch helpers (_tensor, _kernel_stream, ...) and the
imports they and Triton code need (contextlib, torch, triton, tl). A module with no kernel and
no launch (a package's __init__, a benchmark that imports its kernels, host utilities) reads
none of them, and a kernel with no tuple of arrays never calls _tensors: such helpers and
imports are left out, and the banner of the helpers with them where none stays.
"""

import re

import pytest
import torch

KERNEL = '''

@ct.kernel
def copy_kernel(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=t)


def copy(x, y):
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 8,), copy_kernel, (x, y, 8))
'''


def _defs(text):
    return re.findall(r"^(?:def|class) (\w+)", text, re.M)


def _imports(text):
    return [line.split("  #")[0] for line in text.splitlines() if re.match(r"(import|from) ", line)]


def _check_copy(mod, device):
    x = torch.arange(32, dtype=torch.float32, device=device)
    y = torch.zeros_like(x)
    mod.copy(x, y)
    assert torch.equal(x, y)


def test_a_module_without_kernels_takes_no_helpers_and_no_imports(convert_text, convert):
    source = '''# Host utilities.
import math
import cuda.tile as ct  # noqa: F401


def tiles(n, tile):
    return ct.cdiv(n, tile) * math.prod((1,))
'''
    text = convert_text(source)
    assert _imports(text) == ["import math"]
    assert _defs(text) == ["tiles"]
    assert "Written by cutile2triton" not in text
    assert "noqa" not in text, "the cuda.tile import's own comment goes with it"
    assert text.startswith("# Host utilities.\n"), "the comments above the import stay"
    assert convert(source).tiles(10, 4) == 3


def test_a_kernel_module_takes_what_its_launch_reads(convert_text, convert, device):
    source = "import torch\nimport cuda.tile as ct\n" + KERNEL
    text = convert_text(source)
    defs = _defs(text)
    assert {"_tensor", "_kernel_stream", "_torch_stream"} <= set(defs)
    assert "_tensors" not in defs, "no tuple of arrays is launched"
    assert "Written by cutile2triton" in text
    assert {"import triton", "import triton.language as tl", "import contextlib"} <= set(_imports(text))
    _check_copy(convert(source), device)


def test_a_tuple_of_arrays_takes_tensors(convert_text):
    text = convert_text('''import torch
import cuda.tile as ct


@ct.kernel
def add_kernel(xs, y, B: ct.Constant[int]):
    t = ct.load(xs[0], index=(ct.bid(0),), shape=(B,)) + ct.load(xs[1], index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=t)


def add(a, b, y):
    ct.launch(torch.cuda.current_stream(), (4,), add_kernel, ((a, b), y, 8))
''')
    assert "_tensors" in _defs(text)


@pytest.mark.parametrize("own", [
    "import triton\n",
    "import triton\nimport triton.language as tl\n",
    "import contextlib\nimport triton\nimport triton.language as tl\n",
])
def test_imports_the_module_has_are_not_repeated(convert_text, convert, device, own):
    source = own + "import torch\nimport cuda.tile as ct  # the tile language\n" + KERNEL
    text = convert_text(source)
    imports = _imports(text)
    assert len(imports) == len(set(imports)), imports
    assert "import triton" in imports and "import triton.language as tl" in imports
    _check_copy(convert(source), device)


def test_a_helper_statement_binding_no_name_stays(convert_text):
    # the TMA allocator is set by a statement of its own, which nothing reads
    text = convert_text('''import torch
import cuda.tile as ct


@ct.kernel
def copy_kernel(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(B, B))
    ct.store(y, index=(ct.bid(0), 0), tile=t)


def copy(x, y):
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 16,), copy_kernel, (x, y, 16))
''')
    assert re.search(r"^triton\.set_allocator\(_tma_workspace\)$", text, re.M)
    assert {"_tma_workspace", "_tma_compatible"} <= set(_defs(text))
