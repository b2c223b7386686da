"""grouped_gemm (corpus/cutile/grouped_gemm.py): a list of matrix products of different sizes in
one launch (lists of arrays as kernel parameters, persistent blocks over all problems' tiles);
float32 multiplies as tfloat32, float16 and bfloat16 as they are, accumulated in float32."""

import pytest
import torch

from ops_common import BACKENDS, assert_close, pick

# (M, K, N) per problem: experts of a mixture-of-experts layer hold different token counts
GROUPS = pick(cpu=[[(40, 32, 24)], [(16, 64, 48), (70, 32, 17), (1, 16, 16)], [(33, 16, 40), (8, 48, 8)]],
              cuda=[[(1000, 512, 256)], [(256, 1024, 512), (1, 1024, 512), (777, 1024, 512), (4096, 1024, 512)]])
TILES = pick(cpu=[(16, 16, 16), (32, 16, 32)], cuda=[(128, 128, 64)])


def _want(a, b, dtype):
    if dtype == torch.float32:  # tfloat32 products: both operands rounded to 10 mantissa bits first
        def tf32(t):
            bits = t.contiguous().view(torch.int32).to(torch.int64)
            bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
            return ((bits + 2**31) % 2**32 - 2**31).to(torch.int32).view(torch.float32)
        a, b = tf32(a), tf32(b)
    return (a.double() @ b.double()).to(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tiles", TILES, ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("groups", GROUPS, ids=lambda g: "_".join("x".join(map(str, s)) for s in g))
def test_op_grouped_gemm(load_op, device, backend, groups, dtype, tiles):
    mod = load_op("grouped_gemm", backend)
    torch.manual_seed(0)
    As = [torch.randn(m, k).to(dtype).to(device) for m, k, _ in groups]
    Bs = [torch.randn(k, n).to(dtype).to(device) for _, k, n in groups]
    Cs = mod.grouped_gemm(As, Bs, blocks=3, tile_m=tiles[0], tile_n=tiles[1], tile_k=tiles[2])
    assert len(Cs) == len(groups)
    for (m, k, n), a, b, c in zip(groups, As, Bs, Cs):
        assert c.shape == (m, n) and c.dtype == dtype
        tol = 1e-4 * max(1, k) ** 0.5 if dtype == torch.float32 else 2e-2 * max(1, k) ** 0.5
        assert_close(c, _want(a, b, dtype), rtol=tol, atol=tol, what="grouped_gemm")


@pytest.mark.parametrize("backend", BACKENDS)
def test_op_grouped_gemm_one_block_walks_every_problem(load_op, device, backend):
    """One persistent block computes every tile of every problem, in order."""
    mod = load_op("grouped_gemm", backend)
    As = [torch.randn(m, 16).half().to(device) for m in (20, 5, 33)]
    Bs = [torch.randn(16, n).half().to(device) for n in (16, 40, 7)]
    for a, b, c in zip(As, Bs, mod.grouped_gemm(As, Bs, blocks=1, tile_m=16, tile_n=16, tile_k=16)):
        assert_close(c, (a.float() @ b.float()).half(), rtol=2e-2, atol=2e-2, what="grouped_gemm")
