"""tools/perf_report.py (make report) on a synthetic benchmark run; no GPU needed.

The run is built the way the pytest plugin writes build/perf/last_run.json
(cutile2triton.pytest_plugin._with_ratios over perf_record records).
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cutile2triton import pytest_plugin

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tools" / "perf_report.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("perf_report", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


perf_report = _load_script()


def rec(test, config, backend, ms, gbytes=None, tflop=None):
    return {"test": test, "config": config, "backend": backend, "ms": ms, "gbytes": gbytes,
            "tflop": tflop}


RECORDS = [
    # cuTile ran: the gate compares with it (1.0 ms vs 0.9 ms: 1.11x slower, ok)
    rec("test_perf_softmax_gather", "8192x8192 f16", "triton", 1.0, gbytes=0.268),
    rec("test_perf_softmax_gather", "8192x8192 f16", "cutile", 0.9, gbytes=0.268),
    rec("test_perf_softmax_gather", "8192x8192 f16", "torch", 2.0, gbytes=0.268),
    # 2.0 ms vs cuTile's 1.0 ms: MISS, although faster than torch
    rec("test_perf_softmax_gather", "4096x4096 f32", "triton", 2.0, gbytes=0.134),
    rec("test_perf_softmax_gather", "4096x4096 f32", "cutile", 1.0, gbytes=0.134),
    rec("test_perf_softmax_gather", "4096x4096 f32", "torch", 4.0, gbytes=0.134),
    # cuTile skipped: the gate compares with torch
    rec("test_perf_vector_add", "2^28 f32", "triton", 0.75, gbytes=3.2212),
    rec("test_perf_vector_add", "2^28 f32", "torch", 0.8, gbytes=3.2212),
    # a FLOP-counted kernel: TFLOP/s
    rec("test_perf_matmul", "4096^3 f16", "triton", 0.25, tflop=0.1374),
    rec("test_perf_matmul", "4096^3 f16", "torch", 0.2, tflop=0.1374),
    # only a torch time: no gate
    rec("test_perf_relu", "8192x8192 f32", "torch", 0.13, gbytes=0.537),
]


@pytest.fixture
def run_file(tmp_path):
    path = tmp_path / "perf" / "last_run.json"
    path.parent.mkdir()
    path.write_text(json.dumps(pytest_plugin._with_ratios(RECORDS), indent=1))
    return path


def table_rows(md):
    """{(kernel, size): {column: cell}} from the markdown table."""
    lines = [line for line in md.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == len(header), line
        row = dict(zip(header, cells))
        rows[(row["kernel"], row["size"])] = row
    return rows


def test_gate_is_the_plugins():
    assert perf_report.GATE == pytest_plugin.GATE


def test_table_rows(run_file, tmp_path):
    out = tmp_path / "out"
    assert perf_report.main([str(run_file), "--out-dir", str(out), "--no-png"]) == 0
    md = (out / "report.md").read_text()
    rows = table_rows(md)
    assert list(rows) == [("softmax_gather", "8192x8192 f16"), ("softmax_gather", "4096x4096 f32"),
                          ("vector_add", "2^28 f32"), ("matmul", "4096^3 f16"),
                          ("relu", "8192x8192 f32")]

    r = rows[("softmax_gather", "8192x8192 f16")]
    assert (r["converted ms"], r["cuTile ms"], r["torch ms"]) == ("1.0000", "0.9000", "2.0000")
    assert r["converted throughput"] == "268 GB/s"
    assert r["cuTile throughput"] == "298 GB/s"
    assert r["torch throughput"] == "134 GB/s"
    assert (r["vs cuTile"], r["vs torch"]) == ("0.90×", "2.00×")
    assert r["gate"] == "ok (cuTile)"

    r = rows[("softmax_gather", "4096x4096 f32")]
    assert (r["vs cuTile"], r["vs torch"]) == ("0.50×", "2.00×")
    assert r["gate"] == "**MISS** (cuTile)"

    r = rows[("vector_add", "2^28 f32")]
    assert r["cuTile ms"] == "–" and r["cuTile throughput"] == "–" and r["vs cuTile"] == "–"
    assert r["converted throughput"] == "4,295 GB/s"
    assert r["vs torch"] == "1.07×"
    assert r["gate"] == "ok (torch)"

    r = rows[("matmul", "4096^3 f16")]
    assert (r["converted throughput"], r["torch throughput"]) == ("550 TFLOP/s", "687 TFLOP/s")
    assert r["gate"] == "**MISS** (torch)"

    r = rows[("relu", "8192x8192 f32")]
    assert r["converted ms"] == "–" and r["gate"] == "–"

    assert "**Gate: 2 ok, 2 MISS**" in md
    assert "1 without a converted time or a baseline" in md
    assert "MISS: softmax_gather 4096x4096 f32, matmul 4096^3 f16." in md


def test_png_is_written(run_file, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed "
                        "(python3 -m pip install matplotlib): the chart cannot be drawn")
    out = tmp_path / "out"
    assert perf_report.main([str(run_file), "--out-dir", str(out)]) == 0
    png = (out / "report.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) > 10_000
    assert (out / "report.md").exists()


def test_defaults_are_build_perf(run_file, tmp_path, monkeypatch):
    """No arguments: build/perf/last_run.json in, build/perf/report.md out (as `make report`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "build" / "perf").mkdir(parents=True)
    (tmp_path / "build" / "perf" / "last_run.json").write_text(run_file.read_text())
    assert perf_report.main(["--no-png"]) == 0
    assert table_rows((tmp_path / "build" / "perf" / "report.md").read_text())
    # another run file: the report still goes to build/perf
    (tmp_path / "build" / "perf" / "report.md").unlink()
    assert perf_report.main([str(run_file), "--no-png"]) == 0
    assert (tmp_path / "build" / "perf" / "report.md").exists()
    assert not (run_file.parent / "report.md").exists()


def test_missing_run_says_how_to_make_one(tmp_path, capsys):
    assert perf_report.main([str(tmp_path / "nothing.json")]) == 2
    err = capsys.readouterr().err
    assert "no benchmark run at" in err and "-k test_perf --print-record" in err


def test_missing_matplotlib_says_what_to_install(run_file, tmp_path):
    """Run the script with `import matplotlib` failing: the table is written, the message
    names the package, the exit status is 1."""
    out = tmp_path / "out"
    code = ("import runpy, sys; sys.modules['matplotlib'] = None; "
            f"sys.argv = ['perf_report.py', {str(run_file)!r}, '--out-dir', {str(out)!r}]; "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "matplotlib is not installed" in proc.stderr
    assert "pip install matplotlib" in proc.stderr
    assert (out / "report.md").exists() and not (out / "report.png").exists()


COPY_RECORDS = [
    rec("test_perf_softmax_gather", "8192x8192 f16", "triton", 1.0, gbytes=0.268),
    rec("test_perf_softmax_gather", "8192x8192 f16", "cutile", 0.8, gbytes=0.268),
    rec("test_perf_softmax_gather", "8192x8192 f16", "copy", 0.5, gbytes=0.268),
    # no copy record (the converted check failed, say): no percentage
    rec("test_perf_vector_add", "2^28 f32", "triton", 0.75, gbytes=3.2212),
    rec("test_perf_vector_add", "2^28 f32", "torch", 0.8, gbytes=3.2212),
    # a FLOP-counted kernel has no copy limit
    rec("test_perf_matmul", "4096^3 f16", "triton", 0.25, tflop=0.1374),
]


def test_percent_of_copy(tmp_path):
    run = tmp_path / "run.json"
    run.write_text(json.dumps(pytest_plugin._with_ratios(COPY_RECORDS)))
    out = tmp_path / "out"
    assert perf_report.main([str(run), "--out-dir", str(out), "--no-png"]) == 0
    md = (out / "report.md").read_text()
    rows = table_rows(md)
    r = rows[("softmax_gather", "8192x8192 f16")]
    assert r["copy throughput"] == "536 GB/s"
    assert (r["converted % of copy"], r["cuTile % of copy"]) == ("50%", "62%")
    assert r["gate"] == "**MISS** (cuTile)"  # the copy is no baseline
    r = rows[("vector_add", "2^28 f32")]
    assert r["converted % of copy"] == "–" and r["gate"] == "ok (torch)"
    assert rows[("matmul", "4096^3 f16")]["converted % of copy"] == "–"
    assert "*% of copy*" in md


def test_no_copy_column_without_copy_records(run_file, tmp_path):
    out = tmp_path / "out"
    assert perf_report.main([str(run_file), "--out-dir", str(out), "--no-png"]) == 0
    assert "% of copy |" not in (out / "report.md").read_text().split("| kernel")[1].splitlines()[0]


def test_perf_common_records_a_copy_with_each_converted_time(monkeypatch):
    sys.path.insert(0, str(REPO / "tests" / "ops"))
    import perf_common

    timed = []

    def bench(fn):
        fn()
        timed.append(fn)
        return 2.0

    monkeypatch.setattr(perf_common, "bench", bench)
    records = []
    record = lambda **kw: records.append(kw)  # noqa: E731
    perf_common.measure(record, config="c", backend="triton", fn=lambda: None, gbytes=2e-6)
    perf_common.measure(record, config="c", backend="torch", fn=lambda: None, gbytes=2e-6)
    perf_common.measure(record, config="c", backend="triton", fn=lambda: None, tflop=1.0)
    assert [(r["backend"], r.get("gbytes")) for r in records] == [
        ("triton", 2e-6), ("copy", 2e-6), ("torch", 2e-6), ("triton", None)]
    assert len(timed) == 4  # the copy was timed too
