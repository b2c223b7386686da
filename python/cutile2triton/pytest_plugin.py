"""pytest plugin: --print-record, the performance table of the workflow.

Performance tests (test_perf_*) measure one backend at one size and call the
`perf_record` fixture:

    def test_perf_softmax(backend, shape, perf_record):
        ms = triton.testing.do_bench(lambda: run(backend, x))
        perf_record(config=f"{M}x{N} f16", backend=backend, ms=ms, gbytes=2 * x.nbytes / 1e9)

With --print-record the session ends with one table row per record: config,
backend, milliseconds, GB/s or TFLOP/s, and the ratio of the baseline's time
to this backend's (> 1 is faster). The baseline is the `cutile` row of the
same test and config when it ran, else the `torch` row. A `triton` row more
than 20% slower than the baseline is marked MISS (the workflow's gate).
Records also go to build/perf/last_run.json for `make report`.
"""

import json
import os
from pathlib import Path

import pytest

GATE = 1.2  # the converted kernel may take at most 20% longer than the baseline
_records = []


def pytest_addoption(parser):
    group = parser.getgroup("cutile2triton")
    group.addoption("--print-record", action="store_true", default=False,
                    help="print a table of the performance records of test_perf_* tests")


@pytest.fixture
def perf_record(request):
    """perf_record(config=..., backend=..., ms=..., gbytes=None, tflop=None): one measurement."""

    def record(*, config, backend, ms, gbytes=None, tflop=None):
        name = request.node.originalname or request.node.name
        _records.append({"test": name, "config": str(config), "backend": backend, "ms": float(ms),
                         "gbytes": gbytes, "tflop": tflop})

    return record


def _throughput(row):
    seconds = row["ms"] / 1e3
    if row.get("tflop"):
        return f"{row['tflop'] / seconds:8.1f} TFLOP/s"
    if row.get("gbytes"):
        return f"{row['gbytes'] / seconds:8.1f} GB/s"
    return ""


def _with_ratios(records):
    by_key = {}
    for row in records:
        by_key.setdefault((row["test"], row["config"]), {})[row["backend"]] = row
    rows = []
    for (test, config), backends in by_key.items():
        baseline = backends.get("cutile") or backends.get("torch")
        for backend, row in sorted(backends.items()):
            ratio = baseline["ms"] / row["ms"] if baseline and row["ms"] > 0 else None
            miss = backend == "triton" and baseline is not None and baseline is not row and \
                row["ms"] > GATE * baseline["ms"]
            rows.append(dict(row, ratio=ratio, baseline=baseline["backend"] if baseline else None, miss=miss))
    return rows


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _records:
        return
    rows = _with_ratios(_records)
    out = Path(os.environ.get("C2T_PERF_OUT", "build/perf/last_run.json"))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=1))
    except OSError:
        pass
    if not config.getoption("print_record"):
        return
    tr = terminalreporter
    tr.section("performance records (ratio = baseline ms / this ms; MISS = more than 20% slower)")
    tr.write_line(f"{'test':<28} {'config':<26} {'backend':<8} {'ms':>9} {'throughput':>17} {'ratio':>7}  gate")
    for row in rows:
        ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else "-"
        gate = "MISS" if row["miss"] else ("ok" if row["backend"] == "triton" and row["baseline"] else "")
        tr.write_line(f"{row['test']:<28} {row['config']:<26} {row['backend']:<8} {row['ms']:9.4f} "
                      f"{_throughput(row):>17} {ratio:>7}  {gate}")
