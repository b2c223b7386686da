"""Embedding lookup: out[t, :] = weight[ids[t], :] with int64 token ids.

A 2-D grid: axis 0 over blocks of BT tokens, axis 1 over blocks of BD
embedding columns.  The ids of the block come in with a plain 1-D load; the
rows are fetched with one 2-D ``ct.gather`` whose row indices are the ids
(a [BT, 1] tile) and whose column indices are a [1, BD] arange -- they
broadcast to a [BT, BD] tile.  With ``check_bounds=True`` an id outside
[0, vocab) (negative included) reads zeros instead of faulting; torch would
raise, the kernel returns a zero row.
"""

import torch
import cuda.tile as ct

BLOCK_T = 16
BLOCK_D = 64


@ct.kernel
def embedding_kernel(ids, weight, out, BT: ct.Constant[int], BD: ct.Constant[int]):
    tb = ct.bid(0)
    db = ct.bid(1)
    tok_ids = ct.load(ids, index=(tb,), shape=(BT,), padding_mode=ct.PaddingMode.ZERO)
    cols = db * BD + ct.arange(BD, dtype=ct.int32)
    rows = ct.gather(weight, (tok_ids[:, None], cols[None, :]), padding_value=0,
                     check_bounds=True)
    ct.store(out, index=(tb, db), tile=rows)


def embedding(ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """ids: int64 of any shape, weight: [vocab, dim].  Returns ids.shape + (dim,)."""
    assert ids.dtype == torch.int64 and weight.dim() == 2
    flat_ids = ids.reshape(-1)
    n_tok = flat_ids.numel()
    dim = weight.shape[1]
    out = torch.empty((n_tok, dim), dtype=weight.dtype, device=weight.device)
    if n_tok and dim:
        grid = (ct.cdiv(n_tok, BLOCK_T), ct.cdiv(dim, BLOCK_D))
        ct.launch(torch.cuda.current_stream(), grid, embedding_kernel,
                  (flat_ids, weight, out, BLOCK_T, BLOCK_D))
    return out.view(*ids.shape, dim)
