"""Lists of arrays as kernel parameters (cuTile's ListTy): `len(As)` is a run-time
int32, `As[g]` (g a run-time integer) an array usable wherever an array parameter
is. The launcher packs each list into a device table of rows (pointer, shape...,
strides...) and checks the list as cuTile's launch did (not empty, one dtype, one
rank). Each kernel here is run under TRITON_INTERPRET=1 against torch."""

import pytest
import torch

GROUPED_ADD = '''
import torch
import cuda.tile as ct


@ct.kernel
def grouped_add(Xs, Ys, Zs, T: ct.Constant[int]):
    # block b adds tile b of every group that has one
    b = ct.bid(0)
    for g in range(len(Xs)):
        X = Xs[g]
        n = ct.num_tiles(X, 0, (T,))
        if b < n:
            x = ct.load(X, (b,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
            y = ct.load(Ys[g], (b,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
            ct.store(Zs[g], (b,), tile=x + y)


def run(xs, ys, zs, T=8):
    blocks = max(ct.cdiv(x.shape[0], T) for x in xs)
    ct.launch(torch.cuda.current_stream(), (blocks,), grouped_add, (xs, ys, zs, T))
    return zs
'''


def test_grouped_add_over_three_lengths(convert, device):
    mod = convert(GROUPED_ADD)
    sizes = (5, 17, 30)
    xs = [torch.randn(n, device=device) for n in sizes]
    ys = [torch.randn(2 * n, device=device)[::2] for n in sizes]  # strided arrays too
    zs = [torch.zeros(n, device=device) for n in sizes]
    mod.run(xs, ys, zs)
    for x, y, z in zip(xs, ys, zs):
        torch.testing.assert_close(z, x + y)


def test_list_of_one_array(convert, device):
    mod = convert(GROUPED_ADD)
    x, y, z = torch.randn(21, device=device), torch.randn(21, device=device), torch.zeros(21, device=device)
    mod.run([x], [y], [z])
    torch.testing.assert_close(z, x + y)


def test_empty_list_is_refused_at_launch(convert, device):
    mod = convert(GROUPED_ADD)
    with pytest.raises(ValueError, match="empty lists are not supported"):
        mod.launch_grouped_add(None, (1,), ([], [], [], 8))


def test_mixed_dtypes_are_refused_at_launch(convert, device):
    mod = convert(GROUPED_ADD)
    xs = [torch.zeros(8, device=device), torch.zeros(8, device=device, dtype=torch.float16)]
    ys = [torch.zeros(8, device=device)] * 2
    with pytest.raises(TypeError, match="vary in data type"):
        mod.run(xs, ys, [torch.zeros(8, device=device)] * 2)


def test_mixed_ranks_are_refused_at_launch(convert, device):
    mod = convert(GROUPED_ADD)
    xs = [torch.zeros(8, device=device), torch.zeros(2, 4, device=device)]
    with pytest.raises(TypeError, match="vary in rank"):
        mod.run(xs, xs, xs)


def test_a_non_list_is_refused_at_launch(convert, device):
    mod = convert(GROUPED_ADD)
    x = torch.zeros(8, device=device)
    with pytest.raises(TypeError, match="not a list of arrays"):
        mod.launch_grouped_add(None, (1,), (x, [x], [x], 8))


GROUPED_SCALE_2D = '''
import torch
import cuda.tile as ct


@ct.kernel
def grouped_scale(As, Cs, factor, TM: ct.Constant[int], TN: ct.Constant[int], BLOCKS: ct.Constant[int]):
    # persistent blocks walk the tiles of all groups, group after group
    tile = ct.bid(0)
    first = 0
    for g in range(len(As)):
        A = As[g]
        C = Cs[g]
        m_tiles = ct.num_tiles(A, 0, (TM, TN))
        n_tiles = ct.num_tiles(A, 1, (TM, TN))
        count = m_tiles * n_tiles
        while tile >= first and tile < first + count:
            i = (tile - first) // n_tiles
            j = (tile - first) % n_tiles
            t = ct.load(A, (i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
            ct.store(C, (i, j), tile=ct.astype(t * factor, C.dtype))
            tile += BLOCKS
        first = first + count


def run(As, Cs, factor, blocks=3):
    ct.launch(torch.cuda.current_stream(), (blocks,), grouped_scale, (As, Cs, factor, 16, 16, blocks))
    return Cs
'''


@pytest.mark.parametrize("shapes", [[(16, 32), (40, 48), (33, 20)], [(100, 70), (31, 5)]],
                         ids=["tma-eligible", "pointer-only"])
def test_grouped_2d_tiles_with_num_tiles(convert, device, shapes):
    mod = convert(GROUPED_SCALE_2D)
    As = [torch.randn(s, device=device) for s in shapes]
    Cs = [torch.zeros(s, device=device, dtype=torch.float16) for s in shapes]
    mod.run(As, Cs, 2.0)
    for a, c in zip(As, Cs):
        torch.testing.assert_close(c, (a * 2).to(torch.float16))


def test_grouped_2d_takes_tma_when_every_array_suits_it(convert_text):
    text = convert_text(GROUPED_SCALE_2D)
    assert "tl.make_tensor_descriptor(" in text
    assert "As_tma=_array_list_tma(As)" in text


def test_a_blocks_descriptors_of_a_group_are_made_only_when_it_has_a_tile_there(convert_text, convert, device):
    """The descriptors of As[g] and Cs[g] are read only by the while loop over the group's
    tiles: they are made under `if TEST:` of that loop (a block with no tile in group g makes
    none), in their order, not once per group for every block."""
    text = convert_text(GROUPED_SCALE_2D)
    body = text[text.index("    for g in range(As_len):"):]
    guard = body.index("\n        if ")  # the loop's test, again
    loop = body.index("\n            while ")
    text = body
    assert guard < text.index("As_desc_1 = tl.make_tensor_descriptor(") < text.index("Cs_desc_2 = tl.make_tensor_descriptor(") < loop
    # `first`, a Python int carried by the loop, is never bfloat16: no conversion around it
    assert "if tile >= first and tile < first + count:" in text and "ct_bf16_operand" not in text
    # more blocks than some groups have tiles: blocks skip groups without making descriptors
    mod = convert(GROUPED_SCALE_2D)
    shapes = [(16, 32), (48, 48), (16, 16)]
    As = [torch.randn(s, device=device) for s in shapes]
    Cs = [torch.zeros(s, device=device, dtype=torch.float16) for s in shapes]
    mod.run(As, Cs, 3.0, blocks=7)
    for a, c in zip(As, Cs):
        torch.testing.assert_close(c, (a * 3).to(torch.float16))


def test_item_shape_and_gather(convert, device):
    mod = convert('''
import torch
import cuda.tile as ct


@ct.kernel
def lengths_and_firsts(Xs, out, T: ct.Constant[int]):
    # out[g] = len(Xs[g]) + sum of Xs[g][::2] (first T elements of it)
    g = ct.bid(0)
    X = Xs[g]
    idx = ct.arange(T, dtype=ct.int32) * 2
    v = ct.gather(X, idx, padding_value=0)
    total = ct.sum(v) + X.shape[0]
    ct.scatter(out, g, total)


def run(xs, out):
    ct.launch(torch.cuda.current_stream(), (len(xs),), lengths_and_firsts, (xs, out, 8))
    return out
''')
    xs = [torch.arange(n, dtype=torch.float32, device=device) for n in (3, 9, 20)]
    out = torch.zeros(3, device=device)
    mod.run(xs, out)
    want = torch.tensor([x[::2][:8].sum() + x.shape[0] for x in xs], device=device)
    torch.testing.assert_close(out, want)


def test_len_is_a_run_time_int32(convert_text):
    text = convert_text(GROUPED_ADD)
    assert "for g in range(Xs_len):" in text
    assert '"Xs_len"' in text  # do_not_specialize: a length of 1 stays an int32 argument


def test_constant_indices_keep_the_tuple_path(convert_text):
    """A parameter indexed by constants only, without len(), stays a tuple of arrays."""
    text = convert_text('''
import cuda.tile as ct


@ct.kernel
def k(xs, out, T: ct.Constant[int]):
    a = ct.load(xs[0], index=(ct.bid(0),), shape=(T,))
    b = ct.load(xs[1], index=(ct.bid(0),), shape=(T,))
    ct.store(out, index=(ct.bid(0),), tile=a + b)
''')
    assert "xs_table" not in text and "xs_shape" in text


def test_negative_constant_index_is_an_error(convert_error):
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(Xs, out, T: ct.Constant[int]):
    for g in range(len(Xs)):
        ct.store(out, (g,), tile=ct.load(Xs[g], (0,), shape=(T,)))
    ct.store(out, (0,), tile=ct.load(Xs[-1], (0,), shape=(T,)))
''')
    assert "negative index" in message


def test_float_index_is_an_error(convert_error):
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(Xs, out, T: ct.Constant[int]):
    for g in range(len(Xs)):
        ct.store(out, (g,), tile=ct.load(Xs[g * 1.5], (0,), shape=(T,)))
''')
    assert "indexed by an integer scalar" in message


GROUPED_GEMM = '''
import torch
import cuda.tile as ct


@ct.kernel
def grouped_matmul(As, Bs, Cs, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
                   BLOCKS: ct.Constant[int]):
    # persistent blocks over the output tiles of every problem C[g] = A[g] @ B[g]
    tile = ct.bid(0)
    first = 0
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        m_tiles = ct.num_tiles(A, 0, (TM, TK))
        k_tiles = ct.num_tiles(A, 1, (TM, TK))
        n_tiles = ct.num_tiles(B, 1, (TK, TN))
        while tile >= first and tile < first + m_tiles * n_tiles:
            i = (tile - first) // n_tiles
            j = (tile - first) % n_tiles
            acc = ct.zeros((TM, TN), dtype=ct.float32)
            for kk in range(k_tiles):
                a = ct.load(A, (i, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
                b = ct.load(B, (kk, j), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(C, (i, j), tile=ct.astype(acc, C.dtype))
            tile += BLOCKS
        first = first + m_tiles * n_tiles


def run(As, Bs, blocks=4):
    Cs = [torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=a.dtype) for a, b in zip(As, Bs)]
    ct.launch(torch.cuda.current_stream(), (blocks,), grouped_matmul, (As, Bs, Cs, 16, 16, 16, blocks))
    return Cs
'''


def test_grouped_gemm(convert, device):
    mod = convert(GROUPED_GEMM)
    dims = [(16, 32, 16), (40, 24, 48), (8, 64, 33)]
    As = [torch.randn(m, k, device=device, dtype=torch.float16) for m, k, _ in dims]
    Bs = [torch.randn(k, n, device=device, dtype=torch.float16) for _, k, n in dims]
    Cs = mod.run(As, Bs)
    for a, b, c in zip(As, Bs, Cs):
        torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=1e-2, rtol=1e-2)


def test_list_passed_to_a_tile_function_is_an_error(convert_error):
    message = convert_error('''
import cuda.tile as ct


@ct.function
def first_tile(Ys, g):
    return ct.load(Ys[g], (0,), shape=(8,))


@ct.kernel
def k(Xs, out, T: ct.Constant[int]):
    for g in range(len(Xs)):
        ct.store(out, (g,), tile=ct.load(Xs[g], (0,), shape=(T,)))
    ct.store(out, (1,), tile=first_tile(Xs, 0))
''')
    assert "list of arrays cannot be passed to a tile function" in message


def test_an_item_passed_to_a_tile_function(convert, device):
    mod = convert('''
import torch
import cuda.tile as ct


@ct.function
def double_tile(X, b, T):
    return ct.load(X, (b,), shape=(T,), padding_mode=ct.PaddingMode.ZERO) * 2


@ct.kernel
def k(Xs, Ys, T: ct.Constant[int]):
    for g in range(len(Xs)):
        ct.store(Ys[g], (ct.bid(0),), tile=double_tile(Xs[g], ct.bid(0), T))


def run(xs, ys):
    ct.launch(torch.cuda.current_stream(), (2,), k, (xs, ys, 8))
    return ys
''')
    xs = [torch.randn(n, device=device) for n in (16, 11)]
    ys = [torch.zeros(n, device=device) for n in (16, 11)]
    mod.run(xs, ys)
    for x, y in zip(xs, ys):
        torch.testing.assert_close(y, x * 2)


def test_tma_flag_checks_every_array_of_the_list(convert, device, monkeypatch):
    mod = convert(GROUPED_SCALE_2D)
    seen = []
    check = mod._tma_compatible
    monkeypatch.setattr(mod, "_tma_compatible", lambda t: seen.append(tuple(t.shape)) or check(t))
    shapes = [(16, 32), (40, 48), (100, 70)]
    As = [torch.randn(s, device=device) for s in shapes]
    Cs = [torch.zeros(s, device=device) for s in shapes]
    mod.run(As, Cs, 3.0)
    assert set(seen) == set(shapes)  # As's flag looked at all three (the last one fails it)
    for a, c in zip(As, Cs):
        torch.testing.assert_close(c, a * 3)


def test_what_a_list_gives_is_kept_per_content_and_found_again_only_for_that_content(convert, device, monkeypatch):
    """A list's checks, device table and TMA flag are worked out once per content (data
    pointers, shapes, strides, dtypes, devices) and found again by a new list object of the
    same content; a list whose content differs in any of these is worked out anew (its
    results right), and a mixed list stays refused after a good one was seen."""
    mod = convert(GROUPED_SCALE_2D)
    seen = []
    check = mod._tma_compatible
    monkeypatch.setattr(mod, "_tma_compatible", lambda t: seen.append(tuple(t.shape)) or check(t))
    shapes = [(16, 32), (48, 48)]
    As = [torch.randn(s, device=device) for s in shapes]
    Cs = [torch.zeros(s, device=device) for s in shapes]
    mod.run(As, Cs, 3.0)
    first = mod._array_list(list(As), "As")
    mod.run(list(As), list(Cs), 2.0)  # new lists, same content: nothing looked at again
    assert len(seen) == 4 and mod._array_list(list(As), "As").known is first.known
    for a, c in zip(As, Cs):
        torch.testing.assert_close(c, a * 2)
    # the same tensors, one of them a view of other strides, shape, or memory: new content
    wider = torch.randn(48, 96, device=device)
    for other in (wider[:, ::2], wider[:, :48], torch.randn(48, 48, device=device), wider[:, 48:]):
        As2, Cs2 = [As[0], other], [torch.zeros(16, 32, device=device), torch.zeros(48, 48, device=device)]
        assert mod._array_list(As2, "As").known is not first.known
        mod.run(As2, Cs2, 5.0)
        for a, c in zip(As2, Cs2):
            torch.testing.assert_close(c, a * 5)
    assert mod._array_list([As[0], wider[:, ::2]], "As").key[2] == ((32, 1), (96, 2))
    with pytest.raises(TypeError, match="vary in data type"):
        mod.run([As[0], As[1].half()], Cs, 1.0)
    with pytest.raises(TypeError, match="vary in data type"):  # and again: nothing kept of it
        mod.run([As[0], As[1].half()], Cs, 1.0)


def test_a_list_of_arrays_that_are_not_torch_tensors_converts_them_each_launch(convert, device):
    """Arrays given through __cuda_array_interface__ / DLPack (not torch tensors) have no key
    of their own: each launch makes them tensors, and the tensors' content finds what an
    earlier launch kept."""
    numpy = pytest.importorskip("numpy")
    if device != "cpu":
        pytest.skip("numpy arrays are DLPack arrays on the CPU (the interpreter's device)")
    mod = convert(GROUPED_ADD)
    xs = [numpy.arange(n, dtype=numpy.float32) for n in (5, 9)]
    zs = [numpy.zeros(n, dtype=numpy.float32) for n in (5, 9)]
    for _ in range(2):
        mod.run(xs, xs, zs)
        for x, z in zip(xs, zs):
            numpy.testing.assert_allclose(z, 2 * x)
    tensors = mod._array_list(xs, "Xs")
    assert all(isinstance(t, torch.Tensor) for t in tensors) and tensors.known is mod._array_list(xs, "Xs").known


def test_an_item_descriptor_is_made_once_where_the_item_is_read(convert_text):
    text = convert_text(GROUPED_SCALE_2D)
    loop = text[text.index("for g in range(As_len):"):]
    item = loop.index("ct_list_item(As, As_table, g, As_rank)")
    assert loop.count("tl.make_tensor_descriptor(") == 2  # As's and Cs's, not one per tile
    assert item < loop.index("tl.make_tensor_descriptor(") < loop.index("while")


TWO_BLOCK_SHAPES = '''
import torch
import cuda.tile as ct


@ct.kernel
def k(Xs, Ys, WIDE: ct.Constant[bool]):
    # each item read with the block shape the constexpr branch picks
    for g in range(len(Xs)):
        X = Xs[g]
        Y = Ys[g]
        for r in range(ct.num_tiles(X, 0, (16, 16))):
            if WIDE:
                t = ct.load(X, (r, 0), shape=(16, 32), padding_mode=ct.PaddingMode.ZERO)
                ct.store(Y, (r, 0), tile=t + 1)
            else:
                t = ct.load(X, (r, 0), shape=(16, 16), padding_mode=ct.PaddingMode.ZERO)
                ct.store(Y, (r, 0), tile=t + 1)


def run(xs, ys, wide):
    ct.launch(torch.cuda.current_stream(), (1,), k, (xs, ys, wide))
    return ys
'''


@pytest.mark.parametrize("wide", [True, False])
def test_two_block_shapes_of_one_item(convert, device, wide):
    mod = convert(TWO_BLOCK_SHAPES)
    width = 32 if wide else 16
    xs = [torch.randn(n, width, device=device) for n in (16, 40)]
    ys = [torch.zeros(n, width, device=device) for n in (16, 40)]
    mod.run(xs, ys, wide)
    for x, y in zip(xs, ys):
        torch.testing.assert_close(y, x + 1)


def test_two_block_shapes_of_one_item_both_made_where_it_is_read(convert_text):
    text = convert_text(TWO_BLOCK_SHAPES)
    inner = text[text.index("for r in range("):text.index("def launch_k")]
    assert "tl.make_tensor_descriptor(" not in inner
    assert text.count("tl.make_tensor_descriptor(") == 4


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
def test_a_list_launch_captured_in_a_cuda_graph_replays_right(convert):
    """cuTile 1.7 refuses list arguments in a CUDA graph ("List argument in CUDAGraph isn't
    supported yet"); the converted launch captures: its table is copied by the graph at each
    replay. A replay computes from the arrays' contents at that time, and an eager launch of
    the same lists after the capture, on the capture's stream or another, is right too."""
    mod = convert(GROUPED_ADD)
    sizes = (5, 17, 30)
    xs = [torch.randn(n, device="cuda") for n in sizes]
    ys = [torch.randn(n, device="cuda") for n in sizes]
    zs = [torch.zeros(n, device="cuda") for n in sizes]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        mod.run(xs, ys, zs)  # compiled and tuned before the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        mod.run(xs, ys, zs)
    for scale in (2.0, -3.0):
        for x in xs:
            x.mul_(scale)
        for z in zs:
            z.zero_()
        graph.replay()
        torch.cuda.synchronize()
        for x, y, z in zip(xs, ys, zs):
            torch.testing.assert_close(z, x + y)
    for stream in (side, torch.cuda.current_stream()):
        with torch.cuda.stream(stream):
            for z in zs:
                z.zero_()
            mod.run(xs, ys, zs)
        torch.cuda.synchronize()
        for x, y, z in zip(xs, ys, zs):
            torch.testing.assert_close(z, x + y)


def test_a_new_tables_upload_does_not_wait_for_the_kernels_queued_before_it(convert, device):
    """The device table of a list seen for the first time (outputs made for each launch) is
    copied from pinned host memory on the launch's stream: the host goes on while the GPU
    still runs what was queued before (torch waits for the stream after a copy from pageable
    memory), and the table holds each array's pointer, shape and strides once the copy runs."""
    if device == "cpu":
        pytest.skip("a stream to queue work on needs the GPU (the CPU's table is made in place)")
    mod = convert(GROUPED_SCALE_2D)
    As = [torch.randn(s, device=device) for s in ((16, 32), (40, 48))]
    tensors = mod._array_list(As, "As")
    torch.cuda.synchronize()
    torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU time queued on the current stream
    table = mod._array_list_table(tensors)
    assert not torch.cuda.current_stream().query()  # the host did not wait for the stream
    torch.cuda.synchronize()
    rows = [value for a in As for value in (a.data_ptr(), *a.shape, *a.stride())]
    assert table.tolist() == rows
    assert mod._array_list_table(mod._array_list(list(As), "As")) is table  # kept for that content


WIDE_LISTS = '''
from typing import Annotated

import cuda.tile as ct

# type aliases of cuTile annotations: gone with cuda.tile in the converted module
WideArrays = Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)]
Wide = Annotated[ct.Array, ct.ArrayAnnotation(index_dtype=ct.int64)]
ConstInt = Annotated[int, ct.ConstantAnnotation()]


@ct.kernel
def k(xs: WideArrays, y: Wide, out, T: ConstInt):
    total = ct.zeros((T,), dtype=ct.float32)
    for g in range(len(xs)):
        x = xs[g]
        total += ct.load(x, (0,), (T,), padding_mode=ct.PaddingMode.ZERO)
        # int64 extents: no wrap at 2**31
        ct.store(out, (g,), x.shape[0] * 1000000000)
    ct.store(y, (0,), total)
'''


def test_lists_and_arrays_annotated_as_int64_indexed(convert, convert_text, device):
    text = convert_text(WIDE_LISTS)
    assert "INT64=True" in text and "ListAnnotation" not in text and "ct." not in text.split("def k(")[0], text
    mod = convert(WIDE_LISTS)
    xs = [torch.randn(n, device=device) for n in (3, 8, 5)]
    y = torch.zeros(8, device=device)
    out = torch.zeros(3, dtype=torch.int64, device=device)
    mod.launch_k(0, (1,), (xs, y, out, 8))
    want = sum(torch.nn.functional.pad(x, (0, 8 - x.shape[0])) for x in xs)
    torch.testing.assert_close(y, want)
    assert out.tolist() == [3 * 10**9, 8 * 10**9, 5 * 10**9]


def test_the_wide_lists_kernel_is_valid_cutile(cutile_export):
    ct, compilation = cutile_export.ct, cutile_export.compilation
    wide = compilation.ArrayConstraint(ct.float32, 1, index_dtype=ct.int64, stride_lower_bound_incl=0,
                                       alias_groups=[], may_alias_internally=False, stride_constant=[1],
                                       stride_divisible_by=[1], shape_divisible_by=[1], base_addr_divisible_by=16)
    wide_list = compilation.ListConstraint(wide, alias_groups=[], elements_may_alias=False)
    assert cutile_export.cubin_size(WIDE_LISTS, [wide_list, wide, cutile_export.array(ct.int64, 1), 8]) > 0


UNPACKED_ITEMS = '''
import cuda.tile as ct


@ct.kernel
def k(As, Bs):
    for g in range(len(As)):
        Ai, Bi = As[g], Bs[g]
        ct.store(Ai, (0, 0), ct.load(Bi, (0, 0), (16, 32)))
'''


def test_items_of_two_lists_unpacked_in_one_assignment(convert, device):
    """`Ai, Bi = As[g], Bs[g]` (a public MoE grouped GEMM): the scan that finds which parameters
    hold arrays took the assigned tuple for a subscript and crashed (exit 139)."""
    mod = convert(UNPACKED_ITEMS)
    As = [torch.zeros(16, 32, device=device) for _ in range(3)]
    Bs = [torch.randn(16, 32, device=device) for _ in range(3)]
    mod.launch_k(0, (1,), (As, Bs))
    for a, b in zip(As, Bs):
        assert torch.equal(a, b)
