"""Softmax over long rows, three passes over CHUNK-wide pieces of the row.

For rows too long to hold in one tile (vocabulary-sized logits):
  pass 1: elementwise running max across chunks, reduced once at the end;
  pass 2: sum of exp(x - max), again elementwise then reduced;
  pass 3: recompute exp(x - max) and scale by 1/sum.
The number of chunks is ``ct.num_tiles`` of the row in tile space.  Loads use
NEG_INF padding so the partial last chunk needs no mask.
"""

import torch
import cuda.tile as ct

NEG_INF = float("-inf")
CHUNK = 1024


@ct.kernel
def softmax_chunked_kernel(x, y, CHUNK_N: ct.Constant[int]):
    row = ct.bid(0)
    n_chunks = ct.num_tiles(x, axis=1, shape=(1, CHUNK_N))

    # pass 1: max
    m_vec = ct.full((1, CHUNK_N), NEG_INF, dtype=ct.float32)
    for c in range(n_chunks):
        t = ct.load(x, index=(row, c), shape=(1, CHUNK_N), padding_mode=ct.PaddingMode.NEG_INF)
        m_vec = ct.maximum(m_vec, t.astype(ct.float32))
    m = ct.max(m_vec)

    # pass 2: sum of exponentials
    s_vec = ct.zeros((1, CHUNK_N), dtype=ct.float32)
    for c in range(n_chunks):
        t = ct.load(x, index=(row, c), shape=(1, CHUNK_N), padding_mode=ct.PaddingMode.NEG_INF)
        s_vec = s_vec + ct.exp(t.astype(ct.float32) - m)
    inv_sum = 1.0 / ct.sum(s_vec)

    # pass 3: normalize and write
    for c in range(n_chunks):
        t = ct.load(x, index=(row, c), shape=(1, CHUNK_N), padding_mode=ct.PaddingMode.NEG_INF)
        p = ct.exp(t.astype(ct.float32) - m) * inv_sum
        ct.store(y, index=(row, c), tile=p.astype(y.dtype))


def softmax(x: torch.Tensor, chunk: int = CHUNK) -> torch.Tensor:
    assert x.dim() == 2
    n_rows, n_cols = x.shape
    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    if n_rows and n_cols:
        ct.launch(torch.cuda.current_stream(), (n_rows, 1, 1), softmax_chunked_kernel,
                  (x, y, chunk))
    return y
