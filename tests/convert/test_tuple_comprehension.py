"""tuple(e for ... in ct.static_iter(...)): cuTile runs the generator while it compiles; the
converter unrolls it into the tuple of its elements (lower_pyvalue.c), each written as the
source wrote it with the loop names replaced by their values. Tuples of lengths known at
conversion also concatenate (a + b), and a ct.static_iter counter indexes a tuple
(test_control.py). Each kernel runs under the interpreter against the same Python."""

import ops_common
import pytest
import torch

TILE = 4

ALL_FORMS = '''
import cuda.tile as ct


@ct.kernel
def k(x, y):
    tiles = tuple(ct.load(x, (i,), (4,)) for i in ct.static_iter(range(4)))
    pairs = tuple((tiles[i], tiles[i + 1]) for i in ct.static_iter(range(3)))
    diffs = tuple(u - v for u, v in ct.static_iter(pairs))
    weighted = tuple(t * w for t, w in ct.static_iter(zip(tiles, (1.0, 2.0, 3.0))))
    evens = tuple(t + i for i, t in ct.static_iter(enumerate(tiles, 10)) if i % 2 == 0)
    grid = tuple(tiles[i] * j for i in ct.static_iter(range(2)) for j in ct.static_iter(range(i, 3)))
    nested = tuple(tuple(tiles[i] + j for j in ct.static_iter(range(2))) for i in ct.static_iter(range(2)))
    backwards = tuple(tiles[i] for i in ct.static_iter(range(3, -1, -2)))
    same = tuple(tiles)
    out = diffs + weighted + evens + grid + nested[0] + nested[1] + backwards + (same[3],)
    for n in ct.static_iter(range(len(out))):
        ct.store(y, (n,), out[n])
'''


def _expected(x):
    t = [x[TILE * i:TILE * (i + 1)] for i in range(4)]
    pairs = [(t[i], t[i + 1]) for i in range(3)]
    out = [u - v for u, v in pairs] + [a * w for a, w in zip(t, (1.0, 2.0, 3.0))]
    out += [a + i for i, a in enumerate(t, 10) if i % 2 == 0]
    out += [t[i] * j for i in range(2) for j in range(i, 3)] + [t[0], t[0] + 1, t[1], t[1] + 1]
    out += [t[3], t[1], t[3]]
    return torch.cat(out)


def test_every_form_unrolls_and_computes_what_python_does(convert, convert_text):
    text = convert_text(ALL_FORMS)
    assert "for i in" not in text and "static_iter" not in text  # nothing left to Triton to run
    assert "diffs = pairs[0][0] - pairs[0][1], pairs[1][0] - pairs[1][1], pairs[2][0] - pairs[2][1]" in text
    assert "evens = tiles[0] + 10, tiles[2] + 12" in text
    mod = convert(ALL_FORMS)
    x = torch.randn(4 * TILE, device=ops_common.DEVICE)
    y = torch.zeros(20 * TILE, device=ops_common.DEVICE)
    mod.launch_k(0, (1,), (x, y))
    torch.testing.assert_close(y, _expected(x))


def test_a_long_tuple_is_written_one_element_a_line(convert_text):
    text = convert_text(ALL_FORMS)
    start = text.index("    tiles = (\n")
    block = text[start:text.index("    )\n", start)]
    assert block.count("ct_load_1d(x, x_shape, x_strides,") == 4 and block.count("\n") == 5


@pytest.mark.parametrize("body, message", [
    ("t = tuple(ct.load(x, (i,), (4,)) for i in range(3))",
     "each `for` walks ct.static_iter"),
    ("t = tuple(ct.load(x, (i,), (4,)) for i in ct.static_iter(range(ct.bid(0))))",
     "a range() bound of a tuple comprehension must be an integer known at conversion"),
    ("t = tuple(ct.load(x, (i,), (4,)) for i in ct.static_iter(range(3)) if i < ct.bid(0))",
     "the `if` of a tuple comprehension must be known at conversion"),
    ("t = tuple(u for u in ct.static_iter((ct.load(x, (0,), (4,)),) * 2))",
     "an iterable with a call would be written again for each element"),
    ("t = tuple((lambda: i)() for i in ct.static_iter(range(3)))",
     "holds a lambda"),
    ("t = tuple(tuple(i for i in ct.static_iter(range(2))) for i in ct.static_iter(range(2)))",
     "binds one of its loop names again"),
    ("t = tuple(a for a, b in ct.static_iter(range(3)))",
     "cannot unpack"),
    ("t = tuple(i for i in ct.static_iter(range(1000)))",
     "elements of a tuple comprehension"),
])
def test_what_cannot_be_unrolled_is_a_located_error(convert_error, body, message):
    source = f'''
import cuda.tile as ct


@ct.kernel
def k(x, y):
    {body}
    ct.store(y, (0,), ct.load(x, (0,), (4,)))
'''
    assert message in convert_error(source)


def test_triton_gpu_codegen_accepts_the_unrolled_tuples(convert_text, tmp_path):
    """Nested tuples, their concatenation and a static_range over the result go through
    Triton's own code generator (AST -> TTIR, on the CPU)."""
    from test_control import frontend
    frontend(tmp_path, convert_text(ALL_FORMS), "k", ("x", "y"), {})
