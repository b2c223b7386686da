"""Row-wise max and argmax (greedy sampling over logits).

One block per row, CHUNK columns at a time.  Each chunk gives its max and the
position of its first maximum (``ct.argmax`` breaks ties toward the smallest
index); a chunk replaces the running best only if its max is strictly
greater, so across chunks the first occurrence wins too -- the same answer as
torch.argmax.  NEG_INF padding keeps the partial last chunk out of the race.
"""

import torch
import cuda.tile as ct

NEG_INF = float("-inf")
CHUNK = 128


@ct.kernel
def row_argmax_kernel(x, out_idx, out_val, CHUNK_N: ct.Constant[int]):
    row = ct.bid(0)
    n_chunks = ct.cdiv(x.shape[1], CHUNK_N)
    best_val = ct.full((), NEG_INF, dtype=ct.float32)
    best_idx = ct.full((), 0, dtype=ct.int32)
    for c in range(n_chunks):
        t = ct.load(x, index=(row, c), shape=(1, CHUNK_N), padding_mode=ct.PaddingMode.NEG_INF)
        t = t.astype(ct.float32)
        chunk_max = ct.max(t)
        if chunk_max > best_val:
            best_val = chunk_max
            best_idx = c * CHUNK_N + ct.argmax(t)
    ct.store(out_idx, index=(row,), tile=best_idx.astype(out_idx.dtype))
    ct.store(out_val, index=(row,), tile=best_val.astype(out_val.dtype))


def row_argmax(x: torch.Tensor):
    """Return (indices int64 [M], values x.dtype [M]) of the max of each row of 2-D x."""
    assert x.dim() == 2 and x.shape[1] > 0
    m = x.shape[0]
    idx = torch.empty(m, dtype=torch.int64, device=x.device)
    val = torch.empty(m, dtype=x.dtype, device=x.device)
    if m:
        ct.launch(torch.cuda.current_stream(), (m,), row_argmax_kernel, (x, idx, val, CHUNK))
    return idx, val
