"""LayerNorm forward over the last dimension, with affine weight and bias.

One block per row; the whole row is one [1, BLOCK] tile (BLOCK = row length
rounded up to a power of two), so mean and variance are single reductions.
The padded tail of the tile is zero (ZERO padding), which is harmless for the
mean, but x - mean is not zero there: the centred values are masked with
``ct.where`` before the variance.  Mean and 1/std of each row are saved in
float32 for the backward pass.

The host function takes an optional stream: callers that overlap layers on a
side stream pass theirs, everyone else gets the current stream.
"""

import torch
import cuda.tile as ct


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


@ct.kernel
def layernorm_fwd_kernel(x, weight, bias, y, mean_out, rstd_out, eps,
                         BLOCK: ct.Constant[int]):
    row = ct.bid(0)
    n = x.shape[1]
    t = ct.load(x, index=(row, 0), shape=(1, BLOCK), padding_mode=ct.PaddingMode.ZERO)
    t = ct.astype(t, ct.float32)

    mean = ct.sum(t) / n
    cols = ct.arange(BLOCK, dtype=ct.int32).reshape((1, BLOCK))
    centred = ct.where(cols < n, t - mean, 0.0)
    var = ct.sum(centred * centred) / n
    rstd = ct.rsqrt(var + eps)

    w = ct.load(weight, index=(0,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(bias, index=(0,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    out = centred * rstd * w.astype(ct.float32)[None, :] + b.astype(ct.float32)[None, :]
    ct.store(y, index=(row, 0), tile=out.astype(y.dtype))

    # 0-d tiles: one element at element index `row`
    ct.store(mean_out, index=(row,), tile=mean)
    ct.store(rstd_out, index=(row,), tile=rstd)


def layernorm_forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                      eps: float = 1e-5, *, stream=None):
    """Return (y, mean, rstd) for a 2-D x normalized over dim 1."""
    assert x.dim() == 2 and weight.shape == (x.shape[1],) and bias.shape == weight.shape
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    if stream is None:
        stream = torch.cuda.current_stream()
    if m and n:
        ct.launch(stream, (m,), layernorm_fwd_kernel,
                  (x, weight, bias, y, mean, rstd, eps, next_power_of_2(n)))
    return y, mean, rstd
