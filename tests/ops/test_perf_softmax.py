"""Performance: row softmax, the three corpus kernels (gather/scatter, persistent,
chunked three-pass) vs torch.softmax.

Bytes moved: x read, y written (the chunked kernel reads x three times; that is
part of its time, not of the byte count).
"""

import pytest
import torch

from perf_common import (PERF_BACKENDS, backend_module, check_close, gbytes, gpu_only, ids, measure,
                         randn, shape_id, sizes)

pytestmark = gpu_only

DTYPES = [torch.float16, torch.bfloat16, torch.float32]
CONFIGS = sizes(gpu=[(shape, dtype) for shape in [(4096, 4096), (8192, 8192)] for dtype in DTYPES],
                smoke=[((33, 100), torch.float16), ((3, 1500), torch.float32)])
# vocabulary-sized rows: what the chunked kernel is for
LONG_ROWS = sizes(gpu=[((1024, 128256), torch.bfloat16)], smoke=[((2, 3000), torch.bfloat16)])


def config_id(cfg):
    return shape_id(*cfg)


def run(load_op, perf_record, backend, name, cfg):
    mod = backend_module(load_op, name, backend)
    shape, dtype = cfg
    x = randn(shape, dtype)
    if mod is None:
        fn = lambda: torch.softmax(x, dim=-1)  # noqa: E731
    else:
        fn = lambda: mod.softmax(x)  # noqa: E731
        ref = torch.softmax(x.float(), dim=-1).to(dtype)
        check_close(backend, fn(), ref, what=name, factor=2)
    measure(perf_record, config=config_id(cfg), backend=backend, fn=fn, gbytes=gbytes(x, x))


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_softmax_gather(load_op, perf_record, backend, cfg):
    run(load_op, perf_record, backend, "softmax_gather", cfg)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids(config_id))
def test_perf_softmax_persistent(load_op, perf_record, backend, cfg):
    run(load_op, perf_record, backend, "softmax_persistent", cfg)


@pytest.mark.parametrize("backend", PERF_BACKENDS)
@pytest.mark.parametrize("cfg", CONFIGS + LONG_ROWS, ids=ids(config_id))
def test_perf_softmax_chunked(load_op, perf_record, backend, cfg):
    run(load_op, perf_record, backend, "softmax_chunked", cfg)
