"""The layout of generated modules: what a person converting by hand would write.

Comments stay where the source had them, the imports come after the module's
docstring and licence header, and no generated line is longer than 100
columns. The converted modules are also imported and run, so a layout that
breaks the code fails here too.
"""

import re
import subprocess
from pathlib import Path

import ops_common
import pytest
import torch

KERNEL = '''

@ct.kernel
def copy_kernel(x, y, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=t)
'''


def _index(lines, text):
    return next(i for i, line in enumerate(lines) if line.strip() == text)


def _check_copy(mod, device):
    x = torch.arange(32, dtype=torch.float32, device=device)
    y = torch.zeros_like(x)
    mod.launch_copy_kernel(0, (4,), (x, y, 8))
    assert torch.equal(x, y)


def test_imports_come_after_the_licence_header(convert_text, convert, device):
    source = '''# SPDX-License-Identifier: Apache-2.0
# Copyright the authors.
import cuda.tile as ct  # the tile language
''' + KERNEL
    lines = convert_text(source).splitlines()
    assert lines[:2] == ["# SPDX-License-Identifier: Apache-2.0", "# Copyright the authors."]
    assert lines[2].startswith("import ")
    # the trailing comment of the cuda.tile import ends the block that replaces it
    last_import = max(i for i, line in enumerate(lines[:12]) if line.startswith("import "))
    assert lines[last_import] == "import triton.language as tl  # the tile language"
    _check_copy(convert(source), device)


def test_imports_come_after_the_docstring_and_the_comments_below_it(convert_text, convert, device):
    source = '''"""A module docstring."""

# SPDX-License-Identifier: MIT
import cuda.tile as ct
import math
''' + KERNEL
    lines = convert_text(source).splitlines()
    assert lines[:4] == ['"""A module docstring."""', "", "# SPDX-License-Identifier: MIT", "import contextlib"]
    assert lines.index("import math") < _index(lines, "def _kernel_stream(stream, *arrays):")
    _check_copy(convert(source), device)


def test_comment_above_the_cutile_import_stays_above_its_replacement(convert_text):
    lines = convert_text('''# Header.

import torch  # tensors

# The tile language.
import cuda.tile as ct
''' + KERNEL).splitlines()
    assert lines[:3] == ["# Header.", "", "import torch  # tensors"]
    comment = lines.index("# The tile language.")
    assert lines[comment + 1].startswith("import ") and comment < lines.index("import triton")


def test_parameter_comments_stay_on_their_parameters(convert_text, convert, device):
    source = '''import cuda.tile as ct


@ct.function
def twice(a,  # a tile
          b):  # the helper
    return a + b


@ct.kernel
def copy_kernel(  # the kernel
    # the arrays:
    x,  # the input
    y,  # the output
    B: ct.Constant[int]  # elements per block
    # nothing after B
):  # header
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=twice(t, t) - t)
'''
    lines = convert_text(source).splitlines()
    kernel = lines.index("def copy_kernel(  # the kernel")
    assert lines[kernel - 1] == "@triton.jit", "no comment between the decorator and the def"
    assert lines[kernel + 1:kernel + 11] == [
        "    # the arrays:",
        "    x,  # the input",  # an array's comment stays on the first of x, x_shape, x_strides
        "    x_shape,",
        "    x_strides,",
        "    y,  # the output",
        "    y_shape,",
        "    y_strides,",
        "    B: tl.constexpr,  # elements per block",
        "    # nothing after B",
        "):  # header",
    ]
    helper = lines.index("def twice(")
    assert lines[helper + 1:helper + 4] == ["    a,  # a tile", "    b,", "):  # the helper"]
    _check_copy(convert(source), device)


def test_a_one_line_header_keeps_its_comment_and_its_line(convert_text):
    lines = convert_text('''import cuda.tile as ct


@ct.kernel
def copy_kernel(x, y, B: ct.Constant[int]):  # copies
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=t)
''').splitlines()
    assert "def copy_kernel(x, x_shape, x_strides, y, y_shape, y_strides, B: tl.constexpr):  # copies" in lines


REPO = Path(__file__).resolve().parents[2]
LIMIT = 100


def _long_generated_lines(source_text, output_text):
    """The lines over the limit that the converter wrote: a line copied from the
    source is the author's, and so is a comment of the source at the end of a line."""
    source_lines = set(source_text.splitlines())
    comments = {line[line.index("#"):] for line in source_lines if "#" in line}
    found = []
    for number, line in enumerate(output_text.splitlines(), 1):
        if len(line) <= LIMIT or line in source_lines:
            continue
        code, _, comment = line.partition("  #")
        if comment and "#" + comment in comments and len(code) <= LIMIT:
            continue
        found.append(f"{number}: {line}")
    return found


@pytest.mark.parametrize("module", sorted((REPO / "corpus" / "cutile").glob("*.py"))
                         + sorted((REPO / "tests" / "golden" / "cases").glob("*.py")),
                         ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_no_generated_line_is_longer_than_100_columns(module):
    proc = subprocess.run([str(ops_common.CONVERTER), str(module)], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.skip("a golden case of an error")
    assert _long_generated_lines(module.read_text(), proc.stdout) == []


def test_a_long_expression_is_broken_at_its_operators_and_still_computes(convert_text, convert, device):
    source = '''import cuda.tile as ct


@ct.kernel
def mix(x, y, z, out, BLOCK: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,))
    b = ct.load(y, index=(ct.bid(0),), shape=(BLOCK,))
    c = ct.load(z, index=(ct.bid(0),), shape=(BLOCK,))
    t = a * 2.0 + b * 3.0 - c * 4.0 + ct.exp(a) - ct.exp(b) + ct.exp(c) - ct.sqrt(a) * ct.sqrt(b + c)
    ct.store(out, index=(ct.bid(0),), tile=t)
'''
    lines = convert_text(source).splitlines()
    assert all(len(line) <= LIMIT for line in lines)
    start = lines.index("    t = (")
    assert lines[start + 1:start + 9] == [
        "        a * 2.0",
        "        + b * 3.0",
        "        - c * 4.0",
        "        + ct_exp(a)",
        "        - ct_exp(b)",
        "        + ct_exp(c)",
        "        - ct_sqrt(a) * ct_sqrt(b + c)",
        "    )",
    ]
    mod = convert(source)
    x, y, z = (torch.rand(16, device=device) + 0.5 for _ in range(3))
    out = torch.empty_like(x)
    mod.launch_mix(0, (2,), (x, y, z, out, 8))
    expected = x * 2.0 + y * 3.0 - z * 4.0 + torch.exp(x) - torch.exp(y) + torch.exp(z) - x.sqrt() * (y + z).sqrt()
    torch.testing.assert_close(out, expected)


def test_a_long_conditional_value_is_broken_at_if_and_else_and_still_computes(convert_text, convert, device):
    source = '''import cuda.tile as ct


@ct.kernel
def pick(x, out, BLOCK: ct.Constant[int], SCALE_WITH_THE_EXPONENT: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(BLOCK,))
    t = ct.exp(a) * 0.5 + 1.0 if SCALE_WITH_THE_EXPONENT > 0 and BLOCK >= 8 else ct.sqrt(a) * 0.25 - 1.0
    u = a if BLOCK > 8 else a + a
    u += ct.exp(a) * 0.25 + 2.0 if SCALE_WITH_THE_EXPONENT > 1 and BLOCK >= 16 else ct.sqrt(a) * 0.125 - 2.0
    ct.store(out, index=(ct.bid(0),), tile=t + u)
'''
    lines = convert_text(source).splitlines()
    assert all(len(line) <= LIMIT for line in lines)
    start = lines.index("    t = (")
    assert lines[start + 1:start + 5] == [
        "        ct_exp(a) * 0.5 + 1.0",
        "        if SCALE_WITH_THE_EXPONENT > 0 and BLOCK >= 8",
        "        else ct_sqrt(a) * 0.25 - 1.0",
        "    )",
    ]
    assert "    u = a if BLOCK > 8 else a + a" in lines  # short enough: one line
    start = lines.index("    u += (")  # an augmented assignment's value too
    assert lines[start + 1:start + 5] == [
        "        ct_exp(a) * 0.25 + 2.0",
        "        if SCALE_WITH_THE_EXPONENT > 1 and BLOCK >= 16",
        "        else ct_sqrt(a) * 0.125 - 2.0",
        "    )",
    ]
    mod = convert(source)
    x = torch.rand(16, device=device) + 0.5
    for scale, expected in ((1, torch.exp(x) * 0.5 + 1.0 + 2 * x + x.sqrt() * 0.125 - 2.0),
                            (0, x.sqrt() * 0.25 - 1.0 + 2 * x + x.sqrt() * 0.125 - 2.0)):
        out = torch.empty_like(x)
        mod.launch_pick(0, (2,), (x, out, 8, scale))
        torch.testing.assert_close(out, expected)


def test_a_long_note_of_the_converter_goes_above_its_line(convert_text):
    lines = convert_text('''import cuda.tile as ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(B,))
    ct.store(y, index=(ct.bid(0),), tile=ct.sum(ct.reshape(a, (1, B)), axis=1, flush_to_zero=True))
''').splitlines()
    note = next(i for i, line in enumerate(lines) if "C2T301" in line)
    assert lines[note].lstrip().startswith("# C2T301")
    assert all(len(line) <= LIMIT for line in lines)


BANNER = "# Written by cutile2triton: the helpers the converted code above calls."


@pytest.mark.parametrize("module", sorted((REPO / "corpus" / "cutile").glob("*.py")), ids=lambda path: path.stem)
def test_helpers_stand_in_one_marked_block_after_the_users_code(module):
    proc = subprocess.run([str(ops_common.CONVERTER), str(module)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    banner = lines.index(BANNER)
    names = re.findall(r"^def (\w+)\(", module.read_text(), re.M)
    assert names
    # every function of the source comes before the block, every generated helper after it,
    # unless a launcher runs a helper at import (a default computed by a helper)
    if not any(line.startswith("def launch_") and "=_by_target(" in line for line in lines):
        for name in names:
            assert next(i for i, line in enumerate(lines) if line.startswith(f"def {name}(")) < banner
    assert "def _kernel_stream(stream, *arrays):" in lines[banner:]
    assert not any(line.startswith("def ct_") for line in lines[:banner])


def test_code_run_at_import_finds_the_helpers_defined_before_it(convert_text, tmp_path, device):
    source = '''import cuda.tile as ct
import torch
''' + KERNEL + '''

def copy(x):
    y = torch.zeros_like(x)
    ct.launch(0, (4,), copy_kernel, (x, y, 8))
    return y


SELF_CHECK = copy(torch.arange(32.0, device="''' + str(device) + '''"))

if __name__ == "__main__":
    print(copy(torch.ones(32)).sum().item())
'''
    text = convert_text(source)
    lines = text.splitlines()
    # the block goes right before the first statement that runs module code at import
    assert lines.index(BANNER) < _index(lines, 'SELF_CHECK = copy(torch.arange(32.0, device="' + str(device) + '"))')
    assert _index(lines, "def copy(x):") < lines.index(BANNER)
    path = tmp_path / "runs_at_import.py"
    path.write_text(text)
    mod = ops_common.import_file(path, "c2t_case_runs_at_import")
    assert torch.equal(mod.SELF_CHECK.cpu(), torch.arange(32.0))


CHOSEN = '''
import cuda.tile as ct


@ct.kernel
def k(X, Y, TM: ct.Constant[int], TN: ct.Constant[int]):
    for i in range(ct.bid(0), 8, ct.num_blocks(0)):
        # above the load
        x = ct.load(
            X,
            index=(i, 0),
            shape=(TM, TN),
            latency=10,  # inside the call
        )
        # above the store
        ct.store(Y, index=(i, 0), tile=x)  # after the store
'''


def test_comments_of_a_statement_that_chooses_a_descriptor_stay_with_it(convert_text):
    """A 2-D load or store becomes an `if` between its descriptor and its pointers; the
    comments above, inside and after the source statement stand above that `if`, in the
    loop they were in (they used to go above the loop, or were lost)."""
    text = convert_text(CHOSEN)
    body = text[text.index("    for i in "):text.index("def launch_k(")]
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    assert lines[1:4] == ["# above the load", "# inside the call", "if X_desc_1_ok:"]
    store = lines.index("# above the store")
    assert lines[store + 1:store + 3] == ["# after the store", "if Y_desc_2_ok:"]
    assert body.count("#") == 4


DROPPED_FIRST = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, MODE: ct.Constant[int]):
    if MODE == 1:
        t = ct.load(x, index=(0,), shape=(16,))
    elif MODE == 2:
        # about the padding, whose local the conversion drops
        PAD = ct.PaddingMode.ZERO
        t = ct.load(x, index=(0,), shape=(16,), padding_mode=PAD) * 2
    else:
        t = ct.load(x, index=(0,), shape=(16,)) * 3
    ct.store(y, index=(0,), tile=t)
'''


def test_the_comment_of_a_dropped_first_statement_stays_in_its_clause(convert_text):
    """`PAD = ct.PaddingMode.ZERO` leaves no statement in Triton; its comment stays inside
    the elif (it went above the `elif` line, in the clause before)."""
    text = convert_text(DROPPED_FIRST)
    lines = [line.rstrip() for line in text[text.index("def k("):text.index("def launch_k(")].splitlines()]
    at = lines.index("    elif MODE == 2:")
    assert lines[at + 1] == "        # about the padding, whose local the conversion drops", lines


REPLACED = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, start, stop):
    t = ct.load(x, index=(0,), shape=(16,))

    # the rows from start on
    rows = x.slice(0, start, stop)  # shape: (stop - start,)
    u = ct.load(rows, index=(0,), shape=(16,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(0,), tile=t + u)
'''


def test_comments_of_a_statement_the_converter_replaced_stay_at_its_place(convert_text):
    """x.slice(...) becomes statements the converter writes (the view's pointer and shape): the
    first takes the statement's place, so the comment above it and the one at the end of its
    line stay there (they went below, to the next statement of the source)."""
    text = convert_text(REPLACED)
    lines = [line.rstrip() for line in text[text.index("def k("):text.index("def launch_k(")].splitlines()]
    at = lines.index("    # the rows from start on")
    assert lines[at - 1] == "" and lines[at + 1].startswith("    x_slice_1 = x + "), lines
    assert lines[at + 1].endswith("  # shape: (stop - start,)"), lines


LONG_DICT = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * 2)


def launch_settings(n):
    return {"tiles_for_the_rows_of_this_launch": ct.cdiv(n, 16), "programs_for_one_tile": ct.cdiv(n, 16) * 1}
'''


def test_a_long_dict_is_broken_one_item_a_line(convert_text, convert):
    """A dict the converter writes past 100 columns stands one item a line, each with its comma,
    even a dict of one item (the autotuner's prune_configs_by: its lambda was hugged by the
    braces, `)},` closing two brackets on one line); both still compute what they did."""
    text = convert_text(LONG_DICT)
    lines = text.splitlines()
    at = lines.index("    return {")
    assert lines[at + 1].strip().startswith('"tiles_for_the_rows_of_this_launch": ') and lines[at + 1].endswith(",")
    assert lines[at + 2].strip().startswith('"programs_for_one_tile": ') and lines[at + 3] == "    }", lines[at:at + 4]
    at = lines.index("    prune_configs_by={")
    assert lines[at + 1].startswith('        "early_config_prune": lambda configs, nargs, **launch: '), lines[at:at + 3]
    assert "    )},\n" not in text and _long_generated_lines(LONG_DICT, text) == []
    assert convert(LONG_DICT).launch_settings(100) == {"tiles_for_the_rows_of_this_launch": 7, "programs_for_one_tile": 7}


ARGUMENT_COMMENTS = '''
import torch
import cuda.tile as ct


@ct.kernel
def scale(x, y, FACTOR: ct.Constant[int], TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * FACTOR)


def run(x, y):
    ct.launch(  # one program a tile
        torch.cuda.current_stream(),
        (ct.cdiv(x.shape[0], 16), 1, 1),
        scale,  # the kernel
        (
            x,  # read
            # written:
            y,
            3,  # FACTOR
            16,  # TILE
        ),
    )  # done
'''


def test_the_comments_of_a_launch_s_arguments_stay_on_them(convert_text, convert, device):
    """ct.launch becomes the kernel's launcher, without the kernel argument: each argument's
    comment stays on it (the call stays broken one argument a line for them, short as it is),
    a comment on a line of its own stays above the argument under it, the opening line's stays
    there, and the dropped kernel argument's stands above the next (before, every comment of
    the statement went above the call)."""
    lines = [line.rstrip() for line in convert_text(ARGUMENT_COMMENTS).splitlines()]
    at = lines.index("    launch_scale(  # one program a tile")
    assert lines[at + 1:at + 12] == [
        "        torch.cuda.current_stream(),",
        "        (-(-x.shape[0] // 16), 1, 1),",
        "        # the kernel",
        "        (",
        "            x,  # read",
        "            # written:",
        "            y,",
        "            3,  # FACTOR",
        "            16,  # TILE",
        "        ),",
        "    )  # done",
    ], lines[at:at + 12]
    mod = convert(ARGUMENT_COMMENTS)
    x = torch.arange(40, dtype=torch.float32, device=device)
    y = torch.zeros_like(x)
    mod.run(x, y)
    torch.testing.assert_close(y, x * 3)


DROPPED_HINT_COMMENTS = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(
        y,
        index=(ct.bid(0),),
        tile=t * 2,
        allow_tma=False,  # faster here
        latency=3,  # a hint
    )
'''


def test_comments_of_dropped_hints_stand_above_the_short_call_they_were_in(convert_text):
    """The comments of keywords the conversion leaves out have no argument to stay on: the call
    the converter writes stays on one line, under them."""
    lines = [line.rstrip() for line in convert_text(DROPPED_HINT_COMMENTS).splitlines()]
    at = lines.index("    # faster here")
    assert lines[at + 1] == "    # a hint" and lines[at + 2].startswith("    ct_store_1d(y, "), lines[at:at + 3]
    assert lines[at + 2].endswith(")"), lines[at + 2]
