"""fp8 tiles read with zero padding: a gather with padding_value=0 (an int) and a tiled
load with PaddingMode.ZERO on the pointer path. Triton cannot cast an int constant to
fp8, so the padding must reach tl.load as a float."""
import torch
import cuda.tile as ct


@ct.kernel
def fp8_dequant_kernel(x, s, y, B: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    rows = i * B + ct.arange(B, dtype=ct.int32)
    cols = j * B + ct.arange(B, dtype=ct.int32)
    t = ct.gather(x, (rows[:, None], cols[None, :]), padding_value=0)
    u = ct.load(x, index=(i, j), shape=(B, B), padding_mode=ct.PaddingMode.ZERO)
    scale = ct.load(s, index=(i, j), shape=(1, 1))
    out = (ct.astype(t, ct.float32) + ct.astype(u, ct.float32)) * scale
    ct.store(y, index=(i, j), tile=ct.astype(out, y.dtype))


def fp8_dequant(x, s, block):
    y = torch.empty(x.shape, dtype=torch.bfloat16, device=x.device)
    ct.launch(torch.cuda.current_stream(), (s.shape[0], s.shape[1]), fp8_dequant_kernel, (x, s, y, block))
    return y
