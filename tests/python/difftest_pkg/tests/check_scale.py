"""Tests of fakepkg.scale, run twice by the difftest harness's tests."""

import importlib.util
import os

import pytest
import torch


def _source():
    with open(importlib.util.find_spec("fakepkg.scale").origin, encoding="utf-8") as f:
        return f.read()


def test_scale_shift():
    from fakepkg.scale import scale_shift

    on_gpu = torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1"
    x = torch.arange(40, dtype=torch.float32, device="cuda" if on_gpu else "cpu")
    torch.testing.assert_close(scale_shift(x, 2.0, 1.0), x * 2.0 + 1.0)


def test_source_is_cutile():
    # passes with the original module only: the first error line is known
    assert "import cuda.tile" in _source(), "fakepkg.scale does not import cuda.tile"


def test_perf(record_property):
    median = 1.0 if "import cuda.tile" in _source() else 2.5
    record_property("benchmark", {"fake": {"median": median, "kernel_name": "scale_shift_kernel"}})


def test_skipped():
    pytest.skip("this one never runs")
