"""silu_and_mul: out = silu(x[:, :N]) * x[:, N:] for x of shape [M, 2N].

The fused gate/up activation of LLaMA-style MLPs: the gate and up projections
come out of one GEMM as the two halves of the last dimension.  Instead of
computing column offsets by hand, the kernel slices the input array into its
two halves with ``Array.slice`` (a view: no copy), then both halves are tiled
the same way as the output.  Bounds and padding of the loads are relative to
the sliced extent, so a tile that runs past column N of the gate half does
not read into the up half.
"""

import torch
import cuda.tile as ct

BLOCK_M = 16
BLOCK_N = 128


def silu(v):
    # x * sigmoid(x), written with one exp
    return v / (1.0 + ct.exp(-v))


@ct.kernel
def silu_and_mul_kernel(x, out, BM: ct.Constant[int], BN: ct.Constant[int]):
    n = out.shape[1]
    gate_arr = x.slice(axis=1, start=0, stop=n)
    up_arr = x.slice(axis=1, start=n, stop=2 * n)
    i = ct.bid(0)
    j = ct.bid(1)
    gate = ct.load(gate_arr, index=(i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    up = ct.load(up_arr, index=(i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    g = gate.astype(ct.float32)
    u = up.astype(ct.float32)
    ct.store(out, index=(i, j), tile=(silu(g) * u).astype(out.dtype))


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    assert x.dim() == 2 and x.shape[1] % 2 == 0
    m, two_n = x.shape
    n = two_n // 2
    out = torch.empty((m, n), dtype=x.dtype, device=x.device)
    if m == 0 or n == 0:
        return out
    grid = (ct.cdiv(m, BLOCK_M), ct.cdiv(n, BLOCK_N))
    ct.launch(torch.cuda.current_stream(), grid, silu_and_mul_kernel, (x, out, BLOCK_M, BLOCK_N))
    return out
