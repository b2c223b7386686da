"""Conversion defects found by the fuzzer (tests/fuzz), each with the case that
showed it.

* `ct.load(x, index=(), shape=())` of a 0-d array, and `ct.store` of a 0-d
  tile into one, generated a helper with an empty `mask=` (a C2T900 internal
  error): a 0-d array has one element, always inside, so no mask is needed.
* `x.slice(2**63 - 1, ...)` of an array whose rank is not known overflowed
  int64 while building the new shape (UBSan): an axis past the largest rank
  an array can have is a located error.
* `ct.gather(x, ())` (and the other element-indexed operations) generated a
  helper `ct_element_offsets_0d(strides(null))` (a C2T900 internal error):
  they read and write the 0-d array's one element, at its base.
* `ct.cdiv(n, *a)` in host code became `-(-n // *a)`, which is not Python: an
  unpacked argument there is a located error.
"""

import torch

ZERO_D = """
import cuda.tile as ct

@ct.kernel
def k(x, y):
    t = ct.load(x, index=(), shape=(), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(), tile=t * 2)
"""


def test_zero_d_load_and_store_convert_and_run(convert, device):
    mod = convert(ZERO_D)
    x = torch.tensor(21.0, device=device)
    y = torch.zeros((), device=device)
    mod.launch_k(0, (1,), (x, y))
    assert y.item() == 42.0


SLICE = """
import cuda.tile as ct

@ct.kernel
def k(x, out):
    n = out.shape[1]
    g = x.slice({axis}, start=0, stop=n)
"""


def test_slice_axis_past_the_largest_rank_is_a_located_error(convert_error):
    for axis in (9223372036854775807, 8):
        message = convert_error(SLICE.format(axis=axis))
        assert "axis" in message and "out of range" in message, message


def test_empty_gather_indices_read_and_write_a_0d_arrays_element(convert, device):
    """Found by the fuzzer as an internal error, then refused; real cuTile 1.7 compiles gathers,
    scatters and atomics of a 0-d array with indices () (its test suite writes results so)."""
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, out, n: ct.Constant[int]):
    v = ct.gather(x, (), padding_value=0)
    ct.scatter(out, (), v * n + 1.0)
    ct.atomic_add(out, (), 2.0)
    old = ct.atomic_cas(out, (), 18.0, 20.0)
    ct.scatter(x, (), old)
""")
    x = torch.tensor(3.0, device=device)
    out = torch.tensor(0.0, device=device)
    mod.launch_k(0, (1,), (x, out, 5))
    assert out.item() == 20.0 and x.item() == 18.0  # 3 * 5 + 1 + 2, swapped for 20


def test_host_cdiv_of_an_unpacked_argument_is_a_located_error(convert_error, convert_text):
    source = """
import cuda.tile as ct


def blocks(n, *a):
    return ct.cdiv(n, *a)
"""
    message = convert_error(source)
    assert message.startswith("C2T403: ct.cdiv on the host with an unpacked argument cannot be converted"), message
    assert "return -(-n // a[0])" in convert_text(source.replace("ct.cdiv(n, *a)", "ct.cdiv(n, a[0])"))
