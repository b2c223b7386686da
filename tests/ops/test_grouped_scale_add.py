"""grouped_scale_add: a list of 2-D problems of different shapes in one launch
(lists of arrays as kernel parameters), TMA-eligible and pointer-only lists."""

import pytest
import torch

from ops_common import BACKENDS, pick, strided_view

GROUPS = pick(cpu=[[(32, 32)], [(16, 40), (33, 65), (64, 32)], [(7, 3), (100, 70)]],
              cuda=[[(32, 32)], [(1000, 512), (33, 65), (4096, 1024)], [(7, 3), (100, 70), (8192, 777)]])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("shapes", GROUPS, ids=lambda g: "_".join("x".join(map(str, s)) for s in g))
def test_op_grouped_scale_add(load_op, device, backend, shapes, dtype):
    mod = load_op("grouped_scale_add", backend)
    As = [torch.randn(s, device=device).to(dtype) for s in shapes]
    Bs = [strided_view(s, dtype, device) for s in shapes]  # padded rows: other strides
    Cs = mod.grouped_scale_add(As, Bs, 1.5, blocks=3)
    tol = 1e-3 if dtype == torch.float32 else 1e-2
    for a, b, c in zip(As, Bs, Cs):
        want = (a.float() * 1.5 + b.float()).to(dtype)
        torch.testing.assert_close(c, want, atol=tol, rtol=tol)
