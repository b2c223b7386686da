#!/usr/bin/env python3
"""make report: a markdown table and a PNG chart of the last benchmark run.

    python3 tools/perf_report.py [RUN.json] [--out-dir DIR] [--no-png]

RUN.json is what `python -m pytest tests/ops -k test_perf --print-record` leaves
behind (the cutile2triton pytest plugin writes build/perf/last_run.json, or the
path in C2T_PERF_OUT): one record per test, size and backend, with the
milliseconds and the bytes moved (or the FLOPs).  Written to DIR (default:
build/perf; paths are relative to the current folder, as the plugin's are):

  report.md   one row per kernel and size: converted (triton) vs cuTile vs torch,
              ms and GB/s (or TFLOP/s), the ratios, the throughput of the converted
              kernel (and of cuTile's) as a percentage of a plain copy of the same bytes
              timed in the same run (the "copy" records), and the workflow's gate
              (the converted kernel may take at most 20% longer than cuTile,
              or than torch when cuTile did not run);
  report.png  grouped bars of throughput, one panel per kernel (needs matplotlib:
              python3 -m pip install matplotlib).

Exit status: 0 on success; 1 when matplotlib is missing (the table is written,
the chart is not); 2 when the run file is missing or unreadable.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

GATE = 1.2  # the same gate as python/cutile2triton/pytest_plugin.py
BACKENDS = ["triton", "cutile", "torch", "copy"]  # column order; others follow, sorted
LABELS = {"triton": "converted (Triton)", "cutile": "cuTile (original)", "torch": "PyTorch",
          "copy": "copy of the same bytes"}
COLORS = {"triton": "#1f77b4", "cutile": "#76b900", "torch": "#8c8c8c", "copy": "#d9d9d9"}
DEFAULT_RUN = Path("build/perf/last_run.json")
DEFAULT_OUT = Path("build/perf")
INSTALL_HINT = "python3 -m pip install matplotlib"


class ReportError(Exception):
    pass


# ---- reading the run ------------------------------------------------------------------

def load_run(path):
    """The records of a run: a list of dicts with test, config, backend, ms (+ gbytes/tflop)."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ReportError(f"no benchmark run at {path}: run the performance tests first, "
                          f"on a GPU:\n"
                          f"    python -m pytest tests/ops -k test_perf --print-record -v")
    except (OSError, ValueError) as e:
        raise ReportError(f"cannot read {path}: {e}")
    if isinstance(data, dict):
        data = data.get("records", [])
    if not isinstance(data, list):
        raise ReportError(f"{path}: expected a JSON list of records")
    records = []
    for i, row in enumerate(data):
        try:
            records.append({"test": str(row["test"]), "config": str(row["config"]),
                            "backend": str(row["backend"]), "ms": float(row["ms"]),
                            "gbytes": row.get("gbytes"), "tflop": row.get("tflop")})
        except (KeyError, TypeError, ValueError) as e:
            raise ReportError(f"{path}: record {i} lacks test/config/backend/ms: {e!r}")
    return records


def kernel_name(test):
    name = test[len("test_perf_"):] if test.startswith("test_perf_") else test
    return name.split("[")[0]


def throughput(rec):
    """(value, unit) of a record: TFLOP/s when it counts FLOPs, else GB/s; None if neither."""
    if not rec or rec["ms"] <= 0:
        return None
    seconds = rec["ms"] / 1e3
    if rec.get("tflop"):
        return rec["tflop"] / seconds, "TFLOP/s"
    if rec.get("gbytes"):
        return rec["gbytes"] / seconds, "GB/s"
    return None


def group(records):
    """Rows in run order: one per (kernel, config), with the record of each backend."""
    rows = {}
    for rec in records:
        key = (kernel_name(rec["test"]), rec["config"])
        row = rows.setdefault(key, {"kernel": key[0], "config": key[1], "by_backend": {}})
        row["by_backend"][rec["backend"]] = rec  # a repeated record: the last one wins
    for row in rows.values():
        b = row["by_backend"]
        conv, cut, tor = b.get("triton"), b.get("cutile"), b.get("torch")
        row["vs_cutile"] = cut["ms"] / conv["ms"] if conv and cut and conv["ms"] > 0 else None
        row["vs_torch"] = tor["ms"] / conv["ms"] if conv and tor and conv["ms"] > 0 else None
        copy = throughput(b.get("copy"))
        for backend in ("triton", "cutile"):  # GB/s over the copy's GB/s
            tp = throughput(b.get(backend))
            row["copy_" + backend] = tp[0] / copy[0] if tp and copy and tp[1] == copy[1] == "GB/s" else None
        baseline = cut or tor
        row["baseline"] = baseline["backend"] if baseline else None
        if conv and baseline:
            row["gate"] = "MISS" if conv["ms"] > GATE * baseline["ms"] else "ok"
        else:
            row["gate"] = None
    return list(rows.values())


def backends_in(records):
    seen = {rec["backend"] for rec in records}
    return [b for b in BACKENDS if b in seen] + sorted(seen - set(BACKENDS))


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# ---- the markdown table ---------------------------------------------------------------

def fmt_ms(rec):
    return f"{rec['ms']:.4f}" if rec else "–"


def fmt_tp(rec):
    tp = throughput(rec)
    if tp is None:
        return "–"
    value, unit = tp
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"


def fmt_ratio(r):
    if r is None:
        return "–"
    return f"{r:.2f}×" if r >= 0.1 else f"{r:.2g}×"


def fmt_percent(fraction):
    return f"{fraction * 100:.0f}%" if fraction is not None else "–"


def name_of(backend):
    return {"triton": "converted", "cutile": "cuTile"}.get(backend, backend)


def markdown(rows, backends, source):
    out = ["# Performance report", ""]
    n_records = sum(len(r["by_backend"]) for r in rows)
    stamp = ""
    try:
        mtime = time.localtime(Path(source).stat().st_mtime)
        stamp = time.strftime(" (written %Y-%m-%d %H:%M)", mtime)
    except OSError:
        pass
    out.append(f"Run: `{source}`{stamp}: {n_records} measurements, {len(rows)} kernel/size pairs, "
               f"backends: {', '.join(backends)}.")
    out.append("")
    out.append("*converted* is the Triton module produced by cutile2triton, *cuTile* the original "
               "module, *torch* a PyTorch implementation of the same operation. "
               "A ratio is the other backend's time over the converted kernel's "
               "(above 1: the converted kernel is faster). "
               f"Gate: the converted kernel may take at most {round((GATE - 1) * 100)}% longer "
               "than "
               "cuTile, or than torch where cuTile did not run. "
               "*% of copy*: the kernel's GB/s over that of `dst.copy_(src)` moving the same "
               "bytes in the same run (the copy limit).")
    out.append("")
    gated = [r for r in rows if r["gate"]]
    misses = [r for r in gated if r["gate"] == "MISS"]
    summary = [f"**Gate: {len(gated) - len(misses)} ok, {len(misses)} MISS**"]
    if len(gated) < len(rows):
        summary.append(f"{len(rows) - len(gated)} without a converted time or a baseline")
    g_cut = geomean(r["vs_cutile"] for r in rows)
    g_tor = geomean(r["vs_torch"] for r in rows)
    if g_cut:
        summary.append(f"geometric mean vs cuTile {g_cut:.2f}×")
    if g_tor:
        summary.append(f"geometric mean vs torch {g_tor:.2f}×")
    out.append("; ".join(summary) + ".")
    if misses:
        out.append("")
        out.append("MISS: " + ", ".join(f"{r['kernel']} {r['config']}" for r in misses) + ".")
    out.append("")

    header = ["kernel", "size"]
    header += [f"{name_of(b)} ms" for b in backends]
    header += [f"{name_of(b)} throughput" for b in backends]
    ratio_cols = [b for b in ("cutile", "torch") if b in backends and "triton" in backends]
    header += [f"vs {name_of(b)}" for b in ratio_cols]
    copy_cols = [b for b in ("triton", "cutile") if "copy" in backends and b in backends]
    header += [f"{name_of(b)} % of copy" for b in copy_cols]
    header += ["gate"]
    align = ["---", "---"] + ["---:"] * (2 * len(backends) + len(ratio_cols) + len(copy_cols)) + [":---:"]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "|".join(align) + "|")
    for r in rows:
        b = r["by_backend"]
        cells = [r["kernel"], r["config"]]
        cells += [fmt_ms(b.get(k)) for k in backends]
        cells += [fmt_tp(b.get(k)) for k in backends]
        cells += [fmt_ratio(r["vs_" + k]) for k in ratio_cols]
        cells += [fmt_percent(r["copy_" + k]) for k in copy_cols]
        if r["gate"] == "MISS":
            cells.append(f"**MISS** ({name_of(r['baseline'])})")
        elif r["gate"]:
            cells.append(f"ok ({name_of(r['baseline'])})")
        else:
            cells.append("–")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return "\n".join(out)


# ---- the chart --------------------------------------------------------------------------

def chart(rows, backends, png_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels = []
    for r in rows:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    ncols = min(4, len(kernels)) or 1
    nrows = math.ceil(len(kernels) / ncols) or 1
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.9 * nrows), squeeze=False)
    width = 0.8 / max(1, len(backends))
    for ax, kernel in zip(axes.flat, kernels):
        krows = [r for r in rows if r["kernel"] == kernel]
        units = {throughput(rec)[1] for r in krows for rec in r["by_backend"].values()
                 if throughput(rec)}
        unit = units.pop() if len(units) == 1 else "throughput"
        top = 0.0
        for i, r in enumerate(krows):
            for j, backend in enumerate(backends):
                x = i + (j - (len(backends) - 1) / 2) * width
                tp = throughput(r["by_backend"].get(backend))
                if tp is None:
                    ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=6, color="#999999",
                            rotation=90)
                    continue
                ax.bar(x, tp[0], width * 0.92, color=COLORS.get(backend, None),
                       label=LABELS.get(backend, backend) if i == 0 else None)
                top = max(top, tp[0])
            ratio = r["vs_cutile"] if r["vs_cutile"] is not None else r["vs_torch"]
            tp = throughput(r["by_backend"].get("triton"))
            if ratio is not None and tp is not None and "triton" in backends:
                x = i + (backends.index("triton") - (len(backends) - 1) / 2) * width
                miss = r["gate"] == "MISS"
                ax.annotate(fmt_ratio(ratio), (x, tp[0]), xytext=(0, 2), textcoords="offset points",
                            ha="center", va="bottom", fontsize=7,
                            color="#d62728" if miss else "#222222",
                            fontweight="bold" if miss else "normal")
        ax.set_title(kernel, fontsize=10, fontweight="bold")
        ax.set_ylabel(unit, fontsize=8)
        ax.set_ylim(0, top * 1.18 if top > 0 else 1)
        ax.set_xticks(range(len(krows)))
        ax.set_xticklabels([r["config"] for r in krows], rotation=25, ha="right", fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ax.set_xlim(-0.6, len(krows) - 0.4)
    for ax in list(axes.flat)[len(kernels):]:
        ax.axis("off")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS.get(b, "#444444")) for b in backends]
    fig.legend(handles, [LABELS.get(b, b) for b in backends], loc="upper center",
               ncol=len(backends),
               frameon=False, fontsize=10, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle("Throughput per kernel and size (higher is better); "
                 "the label over a converted bar "
                 "is its speed relative to cuTile (torch where cuTile did not run), red = MISS",
                 fontsize=10, y=1.0 - 0.35 / (3.9 * nrows))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.55 / (3.9 * nrows)))
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


# ---- main -----------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Markdown table and PNG chart of the last benchmark run.")
    ap.add_argument("run", nargs="?", default=str(DEFAULT_RUN),
                    help=f"the run's JSON records (default: {DEFAULT_RUN})")
    ap.add_argument("--out-dir", default=str(DEFAULT_OUT),
                    help=f"where report.md and report.png go (default: {DEFAULT_OUT})")
    ap.add_argument("--no-png", action="store_true", help="write the table only")
    args = ap.parse_args(argv)

    try:
        records = load_run(args.run)
    except ReportError as e:
        print(f"perf_report: {e}", file=sys.stderr)
        return 2
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = group(records)
    backends = backends_in(records)
    md_path = out_dir / "report.md"
    md_path.write_text(markdown(rows, backends, args.run))
    print(f"perf_report: wrote {md_path} ({len(rows)} rows)")
    if args.no_png:
        return 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"perf_report: matplotlib is not installed, "
              f"so {out_dir / 'report.png'} was not drawn.\n"
              f"    install it with:  {INSTALL_HINT}\n"
              f"    (or pass --no-png for the table only)", file=sys.stderr)
        return 1
    png_path = out_dir / "report.png"
    chart(rows, backends, png_path)
    print(f"perf_report: wrote {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
