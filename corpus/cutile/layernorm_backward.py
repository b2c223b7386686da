"""LayerNorm backward: dx per row, dw/db as per-program partial sums.

Given dy, x, weight and the mean/rstd saved by the forward pass:
    xhat = (x - mean) * rstd
    dx   = rstd * (w*dy - xhat * mean(w*dy*xhat) - mean(w*dy))
    dw   = sum over rows of dy * xhat,   db = sum over rows of dy
Each program handles ROWS_PER_PROG consecutive rows and accumulates its share
of dw/db in registers; it writes one row of a [num_programs, N] float32 partial
buffer, which the host reduces with a torch sum.  The last program usually has
fewer rows: its loop leaves with ``break`` at the end of the matrix.
"""

import torch
import cuda.tile as ct

ROWS_PER_PROG = 8


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


@ct.kernel
def layernorm_bwd_kernel(dy, x, weight, mean, rstd, dx, dw_partial, db_partial,
                         ROWS: ct.Constant[int], BLOCK: ct.Constant[int]):
    pid = ct.bid(0)
    n_rows = x.shape[0]
    n = x.shape[1]
    col_ok = ct.arange(BLOCK, dtype=ct.int32) < n
    w = ct.load(weight, index=(0,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    w = w.astype(ct.float32)

    dw_acc = ct.zeros((BLOCK,), dtype=ct.float32)
    db_acc = ct.zeros((BLOCK,), dtype=ct.float32)
    for r in range(ROWS):
        row = pid * ROWS + r
        if row >= n_rows:
            break
        xt = ct.load(x, index=(row, 0), shape=(1, BLOCK), padding_mode=ct.PaddingMode.ZERO)
        dyt = ct.load(dy, index=(row, 0), shape=(1, BLOCK), padding_mode=ct.PaddingMode.ZERO)
        xt = xt.reshape((BLOCK,)).astype(ct.float32)
        dyt = dyt.reshape((BLOCK,)).astype(ct.float32)
        mu = ct.load(mean, index=(row,), shape=())
        rs = ct.load(rstd, index=(row,), shape=())

        xhat = ct.where(col_ok, (xt - mu) * rs, 0.0)
        wdy = w * dyt
        c1 = ct.sum(xhat * wdy) / n
        c2 = ct.sum(wdy) / n
        dxt = (wdy - (xhat * c1 + c2)) * rs
        ct.store(dx, index=(row, 0), tile=dxt.reshape((1, BLOCK)).astype(dx.dtype))

        dw_acc = dw_acc + dyt * xhat
        db_acc = db_acc + dyt

    ct.store(dw_partial, index=(pid, 0), tile=dw_acc.reshape((1, BLOCK)))
    ct.store(db_partial, index=(pid, 0), tile=db_acc.reshape((1, BLOCK)))


def layernorm_backward(dy, x, weight, mean, rstd):
    """Return (dx, dw, db)."""
    m, n = x.shape
    dx = torch.empty((m, n), dtype=x.dtype, device=x.device)
    n_progs = ct.cdiv(m, ROWS_PER_PROG)
    dw_partial = torch.empty((n_progs, n), dtype=torch.float32, device=x.device)
    db_partial = torch.empty((n_progs, n), dtype=torch.float32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (n_progs,), layernorm_bwd_kernel,
              (dy, x, weight, mean, rstd, dx, dw_partial, db_partial,
               ROWS_PER_PROG, next_power_of_2(n)))
    dw = dw_partial.sum(dim=0).to(weight.dtype)
    db = db_partial.sum(dim=0).to(weight.dtype)
    return dx, dw, db
