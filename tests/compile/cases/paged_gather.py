import torch
import cuda.tile as ct


@ct.kernel
def paged_gather_kernel(cache, pages, out, token, BP: ct.Constant[int], BN: ct.Constant[int],
                        D: ct.Constant[int]):
    # rows of a paged cache: the pages an index tile names, a token range and every column
    p = ct.load(pages, index=(ct.bid(0),), shape=(BP,))
    kv = ct.load_advanced_indexing(cache, (p, ct.Slice(token, BN), ct.Slice(0, D)),
                                   padding_mode=ct.PaddingMode.ZERO)
    ct.store_advanced_indexing(out, (ct.arange(BP, dtype=ct.int32) + ct.bid(0) * BP,
                                     ct.Slice(0, BN), ct.Slice(0, D)), kv * 2)


def paged_gather(cache, pages, token, bn):
    out = torch.zeros(pages.shape[0], bn, cache.shape[2], dtype=cache.dtype, device=cache.device)
    bp = 4
    ct.launch(torch.cuda.current_stream(), (pages.shape[0] // bp,), paged_gather_kernel,
              (cache, pages, out, token, bp, bn, cache.shape[2]))
    return out
