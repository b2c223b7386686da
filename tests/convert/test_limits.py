"""The conversion's explicit limits (README.md, "Explicit limits"; issue 7,
defect 8): at each limit a module converts, one past it the conversion ends
in a located C2T002 error naming the limit. The table of names bound to the
cuda.tile module used to wrap at 16 entries (`ct_modules[count++ % 16]`):
an out-of-bounds write and a silently unconverted module."""

import re

import pytest

MAX_KERNELS = 4096
MAX_FUNCTIONS = 16384
MAX_NAMES = 16384
MAX_CT_MODULE_NAMES = 64

KERNEL = ("@ct.kernel\ndef k{i}(x):\n"
          "    ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(16,)))\n")


def module(kernels=1, functions=0, names=0, ct_names=0):
    parts = ["import cuda.tile as ct\n"]
    parts += [f"from cuda import tile as t{i}\n" for i in range(ct_names)]
    parts += [f"N{i} = {i}\n" for i in range(names)]
    parts += [KERNEL.format(i=i) for i in range(kernels)]
    parts += [f"def h{i}():\n    pass\n" for i in range(functions)]
    return "".join(parts)


CASES = {
    "kernels": (dict(kernels=MAX_KERNELS), dict(kernels=MAX_KERNELS + 1),
                f"too many kernels in one module (limit is {MAX_KERNELS})"),
    "functions": (dict(functions=MAX_FUNCTIONS - 1), dict(functions=MAX_FUNCTIONS),
                  f"too many module-level functions (limit is {MAX_FUNCTIONS})"),
    # `import cuda.tile as ct` binds no name of its own: N0.. fill the table
    "names": (dict(names=MAX_NAMES), dict(names=MAX_NAMES + 1),
              f"too many module-level names (limit is {MAX_NAMES})"),
    "cuda.tile names": (dict(ct_names=MAX_CT_MODULE_NAMES - 1), dict(ct_names=MAX_CT_MODULE_NAMES),
                        f"too many names bound to the cuda.tile module (limit is {MAX_CT_MODULE_NAMES})"),
}


@pytest.mark.parametrize("what", list(CASES))
def test_at_the_limit_converts(convert_text, what):
    at, _, _ = CASES[what]
    assert "@triton.jit" in convert_text(module(**at))


@pytest.mark.parametrize("what", list(CASES))
def test_past_the_limit_is_a_located_error(convert_error, what):
    _, past, message = CASES[what]
    found = convert_error(module(**past))
    assert found == f"C2T002: {message}", found


def test_seventeen_names_for_cuda_tile_all_work(convert_text):
    """Each of 17 names of the module is cuda.tile (the 17th used to overwrite the 1st)."""
    source = module(kernels=0, ct_names=17) + (
        "@t16.kernel\ndef k(x):\n"
        "    t0.store(x, index=(t16.bid(0),), tile=t0.load(x, index=(t16.bid(0),), shape=(16,)))\n")
    out = convert_text(source)
    assert re.search(r"^@triton\.jit\ndef k\(", out, re.M), out
