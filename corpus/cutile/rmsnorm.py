"""RMSNorm: y = x * rsqrt(mean(x^2) + eps) * weight.

Rows are split into NUM_CHUNKS chunks of CHUNK columns, with NUM_CHUNKS a
compile-time constant: the chunk loops are unrolled with ``ct.static_iter``,
so each chunk is its own straight-line code.  Each program handles
ROWS_PER_PROG rows; rows past the end are skipped with ``continue``.
"""

import torch
import cuda.tile as ct

ROWS_PER_PROG = 4
MAX_CHUNK = 1024


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


@ct.kernel
def rmsnorm_kernel(x, weight, y, eps, ROWS: ct.Constant[int], CHUNK: ct.Constant[int],
                   NUM_CHUNKS: ct.Constant[int]):
    n_rows = x.shape[0]
    n = x.shape[1]
    for r in range(ROWS):
        row = ct.bid(0) * ROWS + r
        if row >= n_rows:
            continue
        sq = ct.zeros((1, CHUNK), dtype=ct.float32)
        for c in ct.static_iter(range(NUM_CHUNKS)):
            t = ct.load(x, index=(row, c), shape=(1, CHUNK), padding_mode=ct.PaddingMode.ZERO)
            t = t.astype(ct.float32)
            sq = sq + t * t
        inv_rms = ct.rsqrt(ct.sum(sq) / n + eps)
        for c in ct.static_iter(range(NUM_CHUNKS)):
            t = ct.load(x, index=(row, c), shape=(1, CHUNK), padding_mode=ct.PaddingMode.ZERO)
            w = ct.load(weight, index=(c,), shape=(CHUNK,), padding_mode=ct.PaddingMode.ZERO)
            out = t.astype(ct.float32) * inv_rms * w.astype(ct.float32)[None, :]
            ct.store(y, index=(row, c), tile=out.astype(y.dtype))


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    assert x.dim() == 2 and weight.shape == (x.shape[1],)
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    if m == 0 or n == 0:
        return y
    chunk = min(next_power_of_2(n), MAX_CHUNK)
    num_chunks = ct.cdiv(n, chunk)
    grid = (ct.cdiv(m, ROWS_PER_PROG),)
    ct.launch(torch.cuda.current_stream(), grid, rmsnorm_kernel,
              (x, weight, y, eps, ROWS_PER_PROG, chunk, num_chunks))
    return y
