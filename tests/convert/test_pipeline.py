"""Loops whose loads Triton may start early (src/lower/lower_pipeline.c).

A loop of a kernel's body that loads from arrays it does not also write becomes
`tl.range(..., num_stages=_loop_stages)`: Triton 3.6 software-pipelines such a loop's
loads only when the loop asks for stages itself. `_loop_stages` is a constexpr
parameter that each autotune candidate sets to its own num_stages (the last one, 1,
runs the loop unpipelined) and a fixed launch to the stages it takes. A loop that
reads what it stores, calls a tile function, does atomics or multiplies matrices
stays a plain range (a pipelined loop reads ahead of its own stores).
"""
import ast
import subprocess

import torch

import ops_common

ROWS = '''
import cuda.tile as ct


@ct.kernel
def row_sums(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    for i in range(ct.bid(0), ct.cdiv(x.shape[0], TM), ct.num_blocks(0)):
        t = ct.load(x, index=(i, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(i,), tile=ct.sum(t.astype(ct.float32), axis=1))
'''


def _loops(text, kernel):
    """The iterables of the loops of `kernel`'s body, as generated, outer ones first."""
    fn = next(node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef) and node.name == kernel)
    return [ast.unparse(node.iter) for node in ast.walk(fn) if isinstance(node, ast.For)]


def test_a_loop_reading_other_arrays_than_it_writes_asks_for_stages(convert_text, convert, device):
    text = convert_text(ROWS)
    loops = _loops(text, "row_sums")
    assert len(loops) == 1 and loops[0].startswith("tl.range(") and loops[0].endswith(", num_stages=_loop_stages)")
    assert "_loop_stages: tl.constexpr = 1," in text
    assert "loops=True" in text  # each candidate sets _loop_stages
    mod = convert(ROWS)
    x = torch.randn(37, 16, device=device)
    out = torch.zeros(37, device=device)
    mod.launch_row_sums(0, (3,), (x, out, 4, 16))
    torch.testing.assert_close(out, x.sum(dim=1))


def test_each_candidate_pipelines_its_loops_with_its_own_stage_count(convert):
    mod = convert(ROWS)
    configs = mod._launch_candidates(mod.row_sums.configs, 64, tma=True, loops=True)
    assert configs and all(c.kwargs["_loop_stages"] == c.num_stages for c in configs)
    assert configs[-1].num_stages == 1  # the candidate that always fits: no pipelining
    assert "_loop_stages" not in mod._launch_candidates(mod.row_sums.configs, 64, tma=True)[0].kwargs


def test_small_tiles_in_pipelined_loops_also_try_four_stages(convert):
    """Small loads need more of them in flight: a kernel whose loops Triton pipelines tries
    the hand pick at 4 stages too when its tiles have at most 8192 elements; larger tiles,
    kernels without such loops and matrix products keep their candidates."""
    mod = convert(ROWS)
    configs = mod.row_sums.configs

    def picks(elements, **flags):
        return [(c.num_warps, c.num_stages) for c in mod._launch_candidates(configs, elements, **flags)]

    small = picks(64, loops=True)
    assert small == [(4, 3), (8, 3), (16, 3), (4, 4), (4, 2), (4, 1)]
    assert picks(8192, loops=True).count((16, 4)) == 1
    assert all(stages != 4 for _, stages in picks(16384, loops=True))
    assert all(stages != 4 for _, stages in picks(64))
    assert picks(64, tma=True, loops=True)[4] == (4, 4)


def test_streamed_rows_also_try_the_other_warp_counts_unpipelined(convert):
    """A row streamed through a loop by plain loads can be fastest unpipelined with more warps
    than the hand pick (H100: 16 warps at 1 stage against 8 at 3 for 2048-element tiles), so a
    kernel with pipelined loops tries the next two warp counts at 1 stage too, after the hand
    pick's, where each thread keeps 4 elements of the tile or more; matrix products and
    kernels without such loops do not."""
    mod = convert(ROWS)
    configs = mod.row_sums.configs

    def picks(elements, **flags):
        return [(c.num_warps, c.num_stages) for c in mod._launch_candidates(configs, elements, **flags)]

    wide = picks(2048, loops=True)
    assert wide[-3:] == [(8, 1), (4, 1), (16, 1)]
    assert picks(1024, loops=True)[-3:] == [(4, 2), (4, 1), (8, 1)]  # 16 warps: 2 elements a thread
    assert [c for c in picks(64, loops=True) if c[1] == 1] == [(4, 1)]
    assert [c for c in picks(2048) if c[1] == 1] == [(8, 1)]
    assert [c for c in picks(64 * 64, loops=True, dot=True) if c[1] == 1] == [(4, 1)]
    spread = picks(2048, loops=True, spread=True)
    assert spread[:len(wide)] == wide  # the spread candidates come after them


def test_a_fixed_launch_gives_the_loops_its_stage_count(tmp_path):
    src = tmp_path / "rows.py"
    src.write_text(ROWS)
    proc = subprocess.run([str(ops_common.CONVERTER), "--no-autotune", str(src), "-o", "-"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "_loop_stages=num_stages," in proc.stdout


IN_PLACE_SCAN = '''
import cuda.tile as ct


@ct.kernel
def running_sum(x, TN: ct.Constant[int]):
    # each tile adds the last element of the tile before it, as that tile was stored
    for i in range(1, ct.cdiv(x.shape[0], TN)):
        before = ct.load(x, index=(i - 1,), shape=(TN,))
        t = ct.load(x, index=(i,), shape=(TN,))
        last = ct.sum(ct.where(ct.arange(TN, dtype=ct.int32) == TN - 1, before, 0.0))
        ct.store(x, index=(i,), tile=t + last)
'''


def test_a_loop_that_reads_what_it_stored_stays_a_range(convert_text, convert, device):
    text = convert_text(IN_PLACE_SCAN)
    loops = _loops(text, "running_sum")
    assert loops and all(not loop.startswith("tl.range") for loop in loops)
    assert "_loop_stages" not in text.split("def launch_running_sum")[0].split("def running_sum")[1]
    mod = convert(IN_PLACE_SCAN)
    x = torch.ones(32, device=device)
    mod.launch_running_sum(0, (1,), (x, 8))
    expected = torch.ones(32, device=device)
    for i in range(1, 4):
        expected[i * 8:(i + 1) * 8] += expected[i * 8 - 1]
    torch.testing.assert_close(x, expected)


def _kernel_loops(convert_text, body, extra=""):
    source = f'''
import cuda.tile as ct
{extra}

@ct.kernel
def k(x, y, z, T: ct.Constant[int]):
{body}
'''
    return _loops(convert_text(source), "k")


def test_loops_that_stay_ranges(convert_text):
    cases = {
        "a tile function": ("    for i in range(4):\n        ct.store(y, index=(i,), tile=twice(ct.load(x, index=(i,), shape=(T,))))\n",
                            "\n@ct.function\ndef twice(t):\n    return t * 2\n"),
        "an atomic": ("    for i in range(4):\n        t = ct.load(x, index=(i,), shape=(T,))\n"
                      "        ct.atomic_add(z, ct.arange(T, dtype=ct.int32), t)\n", ""),
        "a nested loop (the inner one may)": ("    for i in range(4):\n        for j in range(2):\n"
                                              "            ct.store(y, index=(i * 2 + j,), tile=ct.load(x, index=(i,), shape=(T,)))\n", ""),
        "no load": ("    for i in range(4):\n        ct.store(y, index=(i,), tile=ct.zeros((T,), dtype=ct.float32))\n", ""),
        "a break": ("    for i in range(4):\n        t = ct.load(x, index=(i,), shape=(T,))\n"
                    "        if ct.sum(t) > 0:\n            break\n        ct.store(y, index=(i,), tile=t)\n", ""),
    }
    for what, (body, extra) in cases.items():
        loops = _kernel_loops(convert_text, body, extra)
        if what.startswith("a nested loop"):
            assert not loops[0].startswith("tl.range") and loops[1].startswith("tl.range"), (what, loops)
        else:
            assert all(not loop.startswith("tl.range") for loop in loops), (what, loops)


def test_a_matrix_product_loop_keeps_the_kernels_own_pipelining(convert_text):
    loops = _kernel_loops(convert_text, "    acc = ct.zeros((T, T), dtype=ct.float32)\n"
                          "    for k in range(4):\n"
                          "        a = ct.load(x, index=(0, k), shape=(T, T))\n"
                          "        acc = ct.mma(a, ct.load(y, index=(k, 0), shape=(T, T)), acc)\n"
                          "    ct.store(z, index=(0, 0), tile=acc)\n")
    assert loops and not loops[0].startswith("tl.range")


NORM_OR_REUSE = '''
import cuda.tile as ct


@ct.kernel
def rows(x, y, Mean, TM: ct.Constant[int], TN: ct.Constant[int], COMPUTE: ct.Constant[int]):
    for i in range(ct.bid(0), ct.cdiv(x.shape[0], TM), ct.num_blocks(0)):
        t = ct.load(x, index=(i, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        if COMPUTE:
            mean = ct.sum(t, axis=1) / TN
            ct.store(Mean, index=(i,), tile=mean)
        else:
            mean = ct.load(Mean, index=(i,), shape=(TM,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(i, 0), tile=t - mean[:, None])
'''


def test_a_load_and_a_store_of_one_array_in_the_two_branches_of_a_constexpr_if_pipeline(convert_text, convert, device):
    """One compilation runs one branch of `if COMPUTE:` (a constexpr parameter): the store of
    Mean in one and its load in the other never meet, so the loop is pipelined (TileGym's
    persistent layer norm has this shape); it computes what it did, either way."""
    assert _loops(convert_text(NORM_OR_REUSE), "rows")[0].startswith("tl.range(")
    mod = convert(NORM_OR_REUSE)
    x = torch.randn(37, 16, device=device)
    for compute in (1, 0):
        y = torch.zeros(37, 16, device=device)
        mean = torch.zeros(37, device=device) if compute else torch.randn(37, device=device)
        expected_mean = x.mean(dim=1) if compute else mean.clone()
        mod.launch_rows(0, (3,), (x, y, mean, 4, 16, compute))
        torch.testing.assert_close(mean, expected_mean)
        torch.testing.assert_close(y, x - expected_mean[:, None])


def test_a_store_that_may_meet_a_load_of_its_array_keeps_the_loop_a_range(convert_text):
    """The branches of an if on a run-time value, or a load outside the constexpr if whose
    branch stores the array, or both in one branch: the loop stays a range."""
    compute_if = NORM_OR_REUSE
    cases = {
        "a run-time if": compute_if.replace("if COMPUTE:", "if ct.bid(1) == 0:"),
        "a load outside the branch": compute_if.replace(
            "        ct.store(y, index=(i, 0), tile=t - mean[:, None])",
            "        ct.store(y, index=(i, 0), tile=t - ct.load(Mean, index=(i,), shape=(TM,))[:, None])"),
        "both in one branch": compute_if.replace(
            "            ct.store(Mean, index=(i,), tile=mean)",
            "            ct.store(Mean, index=(i,), tile=mean + ct.load(Mean, index=(i,), shape=(TM,)))"),
        "a nested constexpr if": compute_if.replace(
            "            ct.store(Mean, index=(i,), tile=mean)",
            "            if TM > 2:\n                ct.store(Mean, index=(i,), tile=mean)\n"
            "            else:\n                ct.store(Mean, index=(i,), tile=ct.load(Mean, index=(i,), shape=(TM,)))"),
    }
    for what, source in cases.items():
        assert source != compute_if, what
        loops = _loops(convert_text(source), "rows")
        assert not loops[0].startswith("tl.range"), (what, loops)
