"""SwiGLU with separate gate and up tensors: out = silu(a) * b.

One block per row; the row is walked in BLOCK-wide chunks with a ``while``
loop (the row length is a run-time value).  ``a`` and ``b`` are usually views
of one [M, 2N] projection output, so their row stride is 2N, not N -- the
kernel takes them as strided 2-D arrays and loads [1, BLOCK] tiles.
"""

import torch
import cuda.tile as ct

BLOCK = 256


@ct.kernel
def swiglu_fwd_kernel(a, b, out, BLOCK_N: ct.Constant[int]):
    row = ct.bid(0)
    n_chunks = ct.cdiv(a.shape[1], BLOCK_N)
    chunk = 0
    while chunk < n_chunks:
        ta = ct.load(a, index=(row, chunk), shape=(1, BLOCK_N), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(row, chunk), shape=(1, BLOCK_N), padding_mode=ct.PaddingMode.ZERO)
        fa = ct.astype(ta, ct.float32)
        fb = ct.astype(tb, ct.float32)
        sig = 1.0 / (1.0 + ct.exp(-fa))
        ct.store(out, index=(row, chunk), tile=ct.astype(fa * sig * fb, out.dtype))
        chunk += 1


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    assert a.shape == b.shape and a.dim() == 2 and a.dtype == b.dtype
    m, n = a.shape
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    if m == 0 or n == 0:
        return out
    args = (a, b, out, BLOCK)
    ct.launch(torch.cuda.current_stream(), (m,), swiglu_fwd_kernel, args)
    return out
