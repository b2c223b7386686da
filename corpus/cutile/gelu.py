"""GELU activation, both forms used by transformer MLPs.

* exact:  gelu(x) = 0.5 * x * (1 + erf(x / sqrt(2)))
* tanh:   gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))

cuTile has no ``erf``; the exact form uses the Abramowitz & Stegun 7.1.26
rational approximation (|error| <= 1.5e-7 on erf), evaluated with Horner's rule
unrolled at compile time by ``ct.static_iter`` over a module-level coefficient
tuple.  The form is a compile-time flag, so each launch compiles only one path.

All math is done in float32; fp16/bf16 inputs are widened on load and narrowed
on store (ct.store only casts implicitly along widening paths, so the narrowing
cast has to be written out).
"""

import math

import torch
import cuda.tile as ct

BLOCK = 1024

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
INV_SQRT_2 = 1.0 / math.sqrt(2.0)
GELU_TANH_COEF = 0.044715

# A&S 7.1.26: erf(z) = 1 - t*(a1 + t*(a2 + t*(a3 + t*(a4 + t*a5)))) * exp(-z^2), t = 1/(1 + p*z)
ERF_P = 0.3275911
ERF_COEFFS_HIGH_TO_LOW = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def erf_approx(z):
    """erf for a float32 tile, |error| <= 1.5e-7."""
    az = ct.abs(z)
    t = 1.0 / (1.0 + ERF_P * az)
    poly = ct.zeros(z.shape, dtype=ct.float32)
    for coef in ct.static_iter(ERF_COEFFS_HIGH_TO_LOW):
        poly = poly * t + coef
    poly = poly * t
    erf_abs = 1.0 - poly * ct.exp(-az * az)
    # erf is odd
    return ct.where(z < 0, -erf_abs, erf_abs)


@ct.kernel
def gelu_kernel(x, y, BLOCK_SIZE: ct.Constant[int], APPROXIMATE: ct.Constant[bool]):
    bid = ct.bid(0)
    v = ct.load(x, index=(bid,), shape=(BLOCK_SIZE,), padding_mode=ct.PaddingMode.ZERO)
    v = ct.astype(v, ct.float32)
    if APPROXIMATE:
        inner = SQRT_2_OVER_PI * (v + GELU_TANH_COEF * v * v * v)
        out = 0.5 * v * (1.0 + ct.tanh(inner))
    else:
        out = 0.5 * v * (1.0 + erf_approx(v * INV_SQRT_2))
    ct.store(y, index=(bid,), tile=out.astype(y.dtype))


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """Same contract as torch.nn.functional.gelu(x, approximate=...)."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    flat = x.reshape(-1)  # copies only if x is not contiguous
    out = torch.empty_like(flat)
    n = flat.numel()
    if n > 0:
        grid = (ct.cdiv(n, BLOCK),)
        ct.launch(torch.cuda.current_stream(), grid, gelu_kernel,
                  (flat, out, BLOCK, approximate == "tanh"))
    return out.view(x.shape)
