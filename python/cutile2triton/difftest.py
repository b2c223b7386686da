"""python -m cutile2triton.difftest: the differential test harness.

Takes a repository (or package) root that holds cuTile modules and a pytest
selection, converts every cuTile module in a shadow copy of the tree, runs the
selection twice as pytest subprocesses (the original tree with real cuTile,
the shadow tree with the converted modules in place of the originals) and
reports per test file and per cuTile module passed/failed/skipped on both
sides, the first error line of each test that passes with the original and
fails converted, and with --print-record the perf records (record_property)
of both sides side by side.

    python -m cutile2triton.difftest ROOT [PATH ...] [-k EXPR] [options] [-- PYTEST ARGS]

Exit status: 0 when it ran (whatever the test results), 1 when a pytest run
could not start (or wrote no JUnit XML), 2 on usage errors. README.md,
"Differential tests", documents the options.
"""

import argparse
import ast
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

SIDES = ("original", "converted")
STATUSES = ("passed", "failed", "error", "skipped")
NOT_CUTILE = "C2T400"  # the converter's code for "this module does not import cuda.tile"
IGNORED_DIRS = {".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox",
                ".venv", ".eggs"}
PROBE_PLUGIN = "_c2t_difftest_probe"
DEADLINE_SKIP = "not run: the difftest --timeout deadline came first"  # the probe's (difftest_probe.py)
LOG_TAIL_LINES = 40


class UsageError(Exception):
    pass


class RunError(Exception):
    pass


# ---------------------------------------------------------------------------
# command line


def parse_args(argv):
    if "--" in argv:
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1:]
    else:
        passthrough = []
    parser = argparse.ArgumentParser(
        prog="python -m cutile2triton.difftest",
        description="Run a pytest selection against a tree's cuTile modules and against their conversions, "
                    "and compare the results.")
    parser.add_argument("root", nargs="?", help="the repository or package root that holds the cuTile modules")
    parser.add_argument("selection", nargs="*", help="pytest paths (relative to ROOT) or test ids")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression")
    parser.add_argument("-m", dest="markexpr", help="pytest -m expression")
    parser.add_argument("-x", "--exitfirst", action="store_true", help="pytest -x (each run stops at its first failure)")
    parser.add_argument("-n", dest="numprocesses", help="pytest-xdist -n (needs pytest-xdist)")
    parser.add_argument("--timeout", type=float, help="seconds for each pytest run as a whole: the tests "
                        "still to start when it nears (15%% of it, 10 s to half of it, before) are skipped and "
                        "reported, so the run ends with what did run; a run still going past it is stopped and "
                        "counted as not started")
    parser.add_argument("--pythonpath", action="append", default=None, metavar="DIR",
                        help="folder relative to the tree put on PYTHONPATH of both runs (repeatable; "
                             "default: src when ROOT/src exists and is no package)")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs pytest (default: this one)")
    parser.add_argument("--converter", metavar="BIN",
                        help="convert with this cutile2triton executable (default: the Python package's library)")
    parser.add_argument("--only-original", action="store_true", help="run the original side only")
    parser.add_argument("--only-converted", action="store_true", help="run the converted side only")
    parser.add_argument("--collect-only", action="store_true", help="pytest --collect-only on each side (no test runs)")
    parser.add_argument("--stub-cuda-tile", action="store_true",
                        help="in the converted run, when cuda.tile cannot be imported, import stubs for it "
                             "(imports succeed, using a name raises)")
    parser.add_argument("--no-attribution", action="store_true",
                        help="do not record which cuTile modules each test ran (no per-module table)")
    parser.add_argument("--workdir", metavar="DIR",
                        help="keep the shadow tree, JUnit XML and logs in DIR (must be absent or empty); "
                             "default: a temporary folder, removed at the end")
    parser.add_argument("--keep", action="store_true", help="keep the temporary work folder (its path is printed)")
    parser.add_argument("--json", metavar="FILE", help="write everything to FILE as JSON")
    parser.add_argument("--from-json", metavar="FILE", action="append",
                        help="render the report of an earlier --json FILE; run nothing; repeated, the runs of "
                             "one-sided files (--only-original, --only-converted) are put side by side")
    parser.add_argument("--print-record", action="store_true",
                        help="print the perf records (record_property) of both sides side by side")
    parser.add_argument("--record-keys", default="*", metavar="GLOBS",
                        help="comma-separated globs of the record fields printed by --print-record "
                             "(e.g. 'benchmark.*.median'; default: all numeric fields)")
    parser.add_argument("--all-modules", action="store_true",
                        help="list every cuTile module in the per-module table, also those no test ran")
    parser.add_argument("--convert-only", action="store_true",
                        help="make the shadow tree and report the conversions; run no tests")
    args = parser.parse_args(argv)
    args.passthrough = passthrough
    if args.from_json:
        if args.root or args.selection:
            parser.error("--from-json takes no ROOT or selection")
        return args
    if not args.root:
        parser.error("ROOT is required (or --from-json FILE)")
    if args.only_original and args.only_converted:
        parser.error("--only-original and --only-converted exclude each other")
    if args.timeout is not None and args.timeout <= 0:
        parser.error("--timeout must be positive")
    return args


# ---------------------------------------------------------------------------
# conversion and the shadow tree


def _walk_python_files(root):
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder) / name


def _may_import_cuda_tile(text):
    # A cheap filter; the converter's resolver decides (C2T400 for the others).
    return "cuda" in text and "tile" in text


class Converter:
    def __init__(self, executable=None):
        self.executable = executable
        self._convert = None
        if executable is None:
            try:
                from . import _native
            except (ImportError, OSError) as exc:
                raise UsageError(f"the cutile2triton library cannot be loaded ({exc}); build it with `make` "
                                 f"or pass --converter BIN")
            self._convert = _native.convert
            self._error = _native.ConversionError
        elif shutil.which(executable) is None and not Path(executable).is_file():
            raise UsageError(f"--converter {executable}: no such executable")

    def convert(self, source_path, rel, out_path):
        """('converted', None) | ('not-cutile', None) | ('refused', diagnostics)"""
        if self._convert is not None:
            text = source_path.read_bytes()
            try:
                output = self._convert(text, filename=rel)
            except self._error as exc:
                if f"error: {NOT_CUTILE}:" in _first_error(exc.diagnostics):
                    return "not-cutile", None
                return "refused", exc.diagnostics
            out_path.write_text(output, encoding="utf-8")
            return "converted", None
        tmp = out_path.with_name(out_path.name + ".c2t-tmp")
        run = subprocess.run([self.executable, "-q", str(source_path), "-o", str(tmp)], capture_output=True,
                             text=True, errors="replace")
        if run.returncode == 0 and tmp.is_file():
            os.replace(tmp, out_path)
            return "converted", None
        if tmp.exists():
            tmp.unlink()
        if f"error: {NOT_CUTILE}:" in _first_error(run.stderr):
            return "not-cutile", None
        diagnostics = run.stderr.replace(str(source_path), rel)
        return "refused", diagnostics or f"exit {run.returncode}"


def _first_error(diagnostics):
    for line in (diagnostics or "").splitlines():
        if ": error: " in line:
            return line.strip()
    for line in (diagnostics or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def make_shadow(root, shadow, converter):
    """Copy ROOT to SHADOW (without VCS and cache folders) and replace each
    converted cuTile module by its conversion. Returns {relpath: entry}."""
    shutil.copytree(root, shadow, symlinks=True, dirs_exist_ok=True,
                    ignore=lambda folder, names: [n for n in names if n in IGNORED_DIRS])
    modules = {}
    for path in _walk_python_files(root):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            continue  # the link in the shadow tree points to the original; its target is converted in place
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            modules[rel] = {"status": "refused", "error": f"{rel}: cannot be read: {exc.strerror}"}
            continue
        if not _may_import_cuda_tile(text):
            continue
        status, diagnostics = converter.convert(path, rel, shadow / rel)
        if status == "not-cutile":
            continue
        entry = {"status": status}
        if diagnostics:
            entry["error"] = _first_error(diagnostics)
            entry["diagnostics"] = diagnostics
        modules[rel] = entry
    return modules


def default_pythonpath(root):
    src = root / "src"
    if src.is_dir() and not (src / "__init__.py").exists():
        return ["src"]
    return []


def dotted_names(rel, pythonpath):
    names = []
    for base in [*pythonpath, "."]:
        base = base.strip("/")
        prefix = "" if base in ("", ".") else base + "/"
        if not rel.startswith(prefix):
            continue
        inner = rel[len(prefix):][:-3]
        parts = inner.split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and all(p.isidentifier() for p in parts):
            names.append(".".join(parts))
    return names


# ---------------------------------------------------------------------------
# the pytest runs


def pytest_command(args, junit):
    command = [args.python, "-m", "pytest", *args.selection]
    if args.keyword:
        command += ["-k", args.keyword]
    if args.markexpr:
        command += ["-m", args.markexpr]
    if args.exitfirst:
        command.append("-x")
    if args.numprocesses:
        command += ["-n", args.numprocesses]
    if args.collect_only:
        command.append("--collect-only")
    command += ["-p", PROBE_PLUGIN, "-p", "no:cacheprovider", f"--junitxml={junit}", "-o", "junit_family=xunit1",
                "-rN", *args.passthrough]
    return command


def check_cuda_tile(python, env, cwd):
    """(importable, detail): whether `import cuda.tile` works for that Python and PYTHONPATH."""
    probe = "import cuda.tile as ct, sys; sys.stdout.write(getattr(ct, '__file__', '') or '')"
    try:
        run = subprocess.run([python, "-c", probe], env=env, cwd=cwd, capture_output=True, text=True,
                             errors="replace", timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"the check could not run: {exc}"
    if run.returncode == 0:
        return True, run.stdout.strip()
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    return False, lines[-1].strip() if lines else f"exit {run.returncode}"


def run_side(side, tree, args, work, pythonpath, modules_file):
    junit = work / f"{side}.xml"
    log = work / f"{side}.log"
    probe_out = work / f"{side}-probe"
    for stale in (junit, log):
        if stale.exists():
            stale.unlink()
    shutil.rmtree(probe_out, ignore_errors=True)
    env = dict(os.environ)
    paths = [str(tree / p) for p in pythonpath] + [str(work / "plugin")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["C2T_DIFFTEST_PROBE_OUT"] = str(probe_out)
    env["C2T_DIFFTEST_TREE"] = str(tree)
    env["C2T_DIFFTEST_MODULES"] = str(modules_file)
    env["C2T_DIFFTEST_ATTRIBUTE"] = "0" if args.no_attribution else "1"
    env["C2T_DIFFTEST_STUB"] = "1" if side == "converted" and args.stub_cuda_tile else "0"
    check_env = dict(env)
    importable, detail = check_cuda_tile(args.python, check_env, tree)
    command = pytest_command(args, junit)
    if args.timeout:
        # the tests still to start at the deadline are skipped (the probe plugin), leaving the
        # rest of --timeout for the run to end and write its JUnit XML
        env["C2T_DIFFTEST_DEADLINE"] = str(time.time() + args.timeout - min(max(10.0, 0.15 * args.timeout),
                                                                            0.5 * args.timeout))
    result = {"tree": str(tree), "command": command, "pythonpath": pythonpath, "log": str(log),
              "cuda_tile": {"importable": importable, "detail": detail}}
    try:
        with open(log, "w", encoding="utf-8", errors="replace") as out:
            returncode = run_pytest(command, tree, env, out, args.timeout)
    except OSError as exc:
        raise RunError(f"{side} run: pytest could not start: {exc}")
    if returncode is None:
        # stopped at --timeout (a test still running at the deadline): no JUnit XML, but the
        # probe wrote each test's outcome as it ended
        tests = read_outcomes(probe_out)
        if not tests:
            raise RunError(f"{side} run: pytest did not finish within --timeout {args.timeout:g} s and "
                           f"reported no test before (log: {log})")
        result.update(returncode=None, stopped=args.timeout, tests=tests)
        result.update(read_probes(probe_out))
        result["summary"] = f"stopped at --timeout {args.timeout:g} s"
        return result
    result["returncode"] = returncode
    if returncode in (3, 4) or not junit.is_file():
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_TAIL_LINES:])
        raise RunError(f"{side} run: pytest exited {returncode} "
                       f"{'(usage error)' if returncode == 4 else '(internal error)' if returncode == 3 else 'and wrote no JUnit XML'}"
                       f"; the end of its output:\n{tail}")
    result["tests"] = parse_junit(junit)
    result.update(read_probes(probe_out))
    result["summary"] = log_summary(log)
    return result


def run_pytest(command, tree, env, out, timeout):
    """pytest's exit status, or None when it ran past `timeout` and was stopped: its whole
    process group (xdist's workers too, which would otherwise keep the GPU) is killed."""
    process = subprocess.Popen(command, cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()
        process.wait()
        return None
    except BaseException:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        raise


def read_outcomes(folder):
    """{nodeid: entry} as parse_junit gives it, from the outcomes the probe appended as each
    test phase ended (the tests that had not ended are absent)."""
    tests = {}
    for path in sorted(Path(folder).glob("outcomes-*.jsonl")) if Path(folder).is_dir() else []:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                report = json.loads(line)
                nodeid, when, outcome = report["nodeid"], report["when"], report["outcome"]
            except (ValueError, KeyError, TypeError):
                continue  # the line being written when the run was stopped
            status = {"passed": "passed", "skipped": "skipped"}.get(outcome, "failed" if when == "call" else "error")
            message = report.get("message") or ""
            entry = tests.get(nodeid)
            if entry is not None and (status == "passed" or entry["status"] != "passed"):
                if entry["status"] == "passed" and status == "passed":
                    entry["time"] += float(report.get("duration") or 0.0)
                continue  # a later phase that passed, or a second failure: the first one stands
            tests[nodeid] = {"status": status, "file": nodeid.split("::")[0], "message": _first_line(message),
                             "properties": report.get("properties") or {},
                             "time": float(report.get("duration") or 0.0)}
            if status in ("failed", "error"):
                tests[nodeid]["detail"] = message
    return tests


def log_summary(log):
    """pytest's closing line ('== 3 passed, 1 skipped in 0.5s ==')."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        if re.match(r"^=+ .* in [0-9.]+s.* =+$", line.strip()):
            return line.strip("= ").strip()
    return ""


def read_probes(folder):
    merged = {"collected": [], "usage": {}, "imported": {}, "imported_elsewhere": [], "attribution": "off",
              "probe_cuda_tile": None, "python_version": None}
    seen = set()
    # collected-PID.json: written at collection (also by a run stopped before its end)
    for path in sorted(Path(folder).glob("collected-*.json")) if Path(folder).is_dir() else []:
        try:
            collected = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for nodeid in collected if isinstance(collected, list) else []:
            if isinstance(nodeid, str) and nodeid not in seen:
                seen.add(nodeid)
                merged["collected"].append(nodeid)
    for path in sorted(Path(folder).glob("probe-*.json")) if Path(folder).is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for nodeid in data.get("collected", []):
            if nodeid not in seen:
                seen.add(nodeid)
                merged["collected"].append(nodeid)
        for nodeid, rels in data.get("usage", {}).items():
            merged["usage"].setdefault(nodeid, [])
            merged["usage"][nodeid] = sorted(set(merged["usage"][nodeid]) | set(rels))
        merged["imported"].update(data.get("imported", {}))
        for pair in data.get("imported_elsewhere", []):
            if pair not in merged["imported_elsewhere"]:
                merged["imported_elsewhere"].append(pair)
        merged["attribution"] = data.get("attribution", merged["attribution"])
        merged["python_version"] = data.get("python", merged["python_version"])
        state = data.get("cuda_tile")
        if state and (merged["probe_cuda_tile"] is None or state.get("imported")):
            merged["probe_cuda_tile"] = state
    return merged


# ---------------------------------------------------------------------------
# JUnit XML


def _property_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def _error_line(element):
    message = _first_line(element.get("message"))
    if message and message != "collection failure":
        return message
    for line in (element.text or "").splitlines():
        if line.startswith("E "):
            return line[1:].strip()
    return message or _first_line(element.text)


def _error_detail(element, limit=8):
    """The `E ` lines of a failure's text (assert_close's mismatch counts), at most `limit`."""
    lines = [line[1:].strip() for line in (element.text or "").splitlines() if line.startswith("E ")]
    return "\n".join(lines[:limit])[:800]


def _nodeid(case):
    file = case.get("file")
    classname = case.get("classname") or ""
    name = case.get("name") or ""
    if not file:
        return (classname + "::" + name) if classname else name, None
    file = file.replace(os.sep, "/")
    dotted = re.sub(r"\.py$", "", file).replace("/", ".")
    if not classname and name == dotted:
        return file, file  # a collection error of the file
    classes = classname[len(dotted):].lstrip(".") if classname.startswith(dotted) else ""
    parts = [file, *([c for c in classes.split(".") if c]), name]
    return "::".join(parts), file


def parse_junit(path):
    """{nodeid: {"status", "file", "message", "properties"}} from a JUnit XML file."""
    try:
        tree = ET.parse(path)
    except ET.ParseError as exc:
        raise RunError(f"{path}: the JUnit XML cannot be read: {exc}")
    tests = {}
    for case in tree.iter("testcase"):
        nodeid, file = _nodeid(case)
        status, message, detail = "passed", "", ""
        failure, error, skipped = case.find("failure"), case.find("error"), case.find("skipped")
        if failure is not None:
            status, message, detail = "failed", _error_line(failure), _error_detail(failure)
        elif error is not None:
            status, message, detail = "error", _error_line(error), _error_detail(error)
        elif skipped is not None:
            status, message = "skipped", _first_line(skipped.get("message")) or _first_line(skipped.text)
        properties = {}
        for prop in case.iter("property"):
            properties[prop.get("name")] = _property_value(prop.get("value", ""))
        entry = tests.get(nodeid)
        if entry is not None and STATUSES.index(entry["status"]) <= STATUSES.index(status) and entry["status"] != "passed":
            continue  # keep the first failure of a test reported twice (call + teardown)
        tests[nodeid] = {"status": status, "file": file or nodeid.split("::")[0], "message": message,
                         "properties": properties, "time": float(case.get("time") or 0.0)}
        if detail:
            tests[nodeid]["detail"] = detail
    return tests


# ---------------------------------------------------------------------------
# the report


def _counts(tests, ids):
    counts = dict.fromkeys(STATUSES, 0)
    for nodeid in ids:
        entry = tests.get(nodeid)
        if entry:
            counts[entry["status"]] += 1
    return counts


def _fmt_counts(counts):
    if counts is None:
        return "-"
    return f"{counts['passed']}/{counts['failed'] + counts['error']}/{counts['skipped']}"


def compare(data):
    runs = data["runs"]
    orig = runs.get("original", {}).get("tests") or {}
    conv = runs.get("converted", {}).get("tests") or {}
    new_failures, new_skips, fixed = [], [], []
    if "original" in runs and "converted" in runs:
        for nodeid, entry in orig.items():
            other = conv.get(nodeid)
            if entry["status"] == "passed" and other and other["status"] in ("failed", "error"):
                new_failures.append({"test": nodeid, "error": other["message"], "detail": other.get("detail", "")})
            elif entry["status"] == "passed" and other and other["status"] == "skipped":
                new_skips.append({"test": nodeid, "reason": other["message"]})
            elif entry["status"] in ("failed", "error") and other and other["status"] == "passed":
                fixed.append(nodeid)
    return {"new_failures": new_failures, "new_skips": new_skips, "passes_only_converted": fixed}


def per_file(data):
    """{file: {side: [test ids]}}: the ids of the JUnit XML and those collected."""
    rows = {}
    for side in SIDES:
        run = data["runs"].get(side, {})
        for nodeid, entry in (run.get("tests") or {}).items():
            rows.setdefault(entry["file"], {}).setdefault(side, []).append(nodeid)
        for nodeid in run.get("collected") or []:
            ids = rows.setdefault(nodeid.split("::")[0], {}).setdefault(side, [])
            if nodeid not in ids:
                ids.append(nodeid)
    return rows


def _fmt_side(run, ids):
    counts = _counts(run["tests"], ids)
    ran = sum(counts.values())
    text = _fmt_counts(counts)
    return text if ran == len(ids) else f"{text} of {len(ids)}"


def per_module(data):
    usage = {}
    for side in SIDES:
        for nodeid, rels in (data["runs"].get(side, {}).get("usage") or {}).items():
            for rel in rels:
                usage.setdefault(rel, set()).add(nodeid)
    return {rel: sorted(ids) for rel, ids in usage.items()}


def _table(rows, header):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _numeric_leaves(value, prefix):
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield prefix, float(value)
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _numeric_leaves(inner, f"{prefix}.{key}" if prefix else str(key))


def record_rows(data, globs):
    patterns = [g.strip() for g in globs.split(",") if g.strip()] or ["*"]
    sides = {side: data["runs"].get(side, {}).get("tests") or {} for side in SIDES}
    ids = []
    for side in SIDES:
        for nodeid, entry in sides[side].items():
            if entry["properties"] and nodeid not in ids:
                ids.append(nodeid)
    rows = []
    for nodeid in ids:
        leaves = {}
        for side in SIDES:
            entry = sides[side].get(nodeid)
            for name, value in (entry["properties"] if entry else {}).items():
                for key, number in _numeric_leaves(value, name):
                    leaves.setdefault(key, {})[side] = number
        for key, values in leaves.items():
            if not any(fnmatch.fnmatchcase(key, p) for p in patterns):
                continue
            o, c = values.get("original"), values.get("converted")
            ratio = c / o if o not in (None, 0.0) and c is not None else None
            rows.append({"test": nodeid, "field": key, "original": o, "converted": c, "ratio": ratio})
    return rows


def _num(value):
    if value is None:
        return "-"
    return f"{value:.6g}"


def _detail_lines(detail, message):
    """A failure's further lines (after the one already printed), indented under it."""
    lines = [line for line in (detail or "").splitlines() if line.strip()]
    if lines and lines[0] == message:
        lines = lines[1:]
    return [f"        {line}" for line in lines]


def render(data, print_record=False, record_keys="*", all_modules=False):
    out = []
    add = out.append
    add(f"difftest: {data['root']}")
    if data.get("shadow"):
        add(f"shadow tree: {data['shadow']}{'' if data.get('kept') else ' (removed)'}")
    modules = data["modules"]
    converted = sorted(r for r, m in modules.items() if m["status"] == "converted")
    refused = sorted(r for r, m in modules.items() if m["status"] == "refused")
    add(f"cuTile modules: {len(modules)}: {len(converted)} converted (substituted in the shadow tree), "
        f"{len(refused)} refused (left as the original)")
    for rel in refused:
        add(f"  refused: {modules[rel].get('error') or rel}")
    runs = data["runs"]
    for side in SIDES:
        run = runs.get(side)
        if not run:
            continue
        add("")
        add(f"{side} run: {shlex.join(run['command'])}")
        add(f"  in {run['tree']}, PYTHONPATH +{':'.join(run['pythonpath']) or ' (nothing)'}; pytest exit "
            f"{run['returncode']}: {run.get('summary') or 'no summary line'}")
        ct = run["cuda_tile"]
        probe = run.get("probe_cuda_tile") or {}
        if ct["importable"]:
            add(f"  cuda.tile: importable ({ct['detail'] or 'found'})")
        elif probe.get("stub"):
            add(f"  cuda.tile: not installed ({ct['detail']}); the harness's stub stood for it (--stub-cuda-tile)")
        elif side == "original":
            add(f"  cuda.tile: NOT importable ({ct['detail']}): this run does not test real cuTile; "
                f"its cuTile tests fail or skip")
        else:
            add(f"  cuda.tile: not importable ({ct['detail']}): converted modules do not need it; tests that "
                f"probe for it may skip (see --stub-cuda-tile)")
        if run.get("collected") is not None:
            add(f"  collected {len(run['collected'])} tests; {len(run.get('imported', {}))} of the tree's cuTile "
                f"modules imported from this tree")
        late = sum(1 for t in run.get("tests", {}).values()
                   if t["status"] == "skipped" and DEADLINE_SKIP in t["message"])
        if late:
            add(f"  WARNING: {late} tests did not run: the --timeout deadline came first (counted as skipped)")
        if run.get("stopped"):
            unfinished = len(set(run.get("collected") or []) - set(run["tests"]))
            add(f"  WARNING: stopped at --timeout {run['stopped']:g} s (a test still running at the deadline): "
                f"{len(run['tests'])} tests ended before it and are counted; {unfinished} collected tests did not end")
        for name, path in run.get("imported_elsewhere", []):
            add(f"  WARNING: {name} was imported from {path}, outside this tree: that copy was tested, not this "
                f"tree's (set --pythonpath, or uninstall it)")
    add("")
    add("per test file (passed/failed/skipped, failed counts errors; 'of N': N collected, when some did not run)")
    files = per_file(data)
    cmp = compare(data)
    new_by_test = {f["test"] for f in cmp["new_failures"]}
    rows = []
    for file in sorted(files):
        sides = files[file]
        new = sum(1 for nodeid in sides.get("original", []) if nodeid in new_by_test)
        # "-": that side did not run this file (one-sided reports merged from runs of other selections)
        rows.append([file, *[_fmt_side(runs[s], sides[s]) if s in runs and sides.get(s) else "-" for s in SIDES],
                     new])
    totals = [_fmt_side(runs[s], [i for f in files.values() for i in f.get(s, [])]) if s in runs else "-"
              for s in SIDES]
    rows.append(["(all)", *totals, len(new_by_test)])
    out += ["  " + line for line in _table(rows, ["file", "original", "converted", "new failures"])]
    add("")
    usage = per_module(data)
    attribution = [runs[s].get("attribution") for s in SIDES if s in runs]
    add(f"per cuTile module (the tests that ran its code; attribution: {', '.join(a or 'off' for a in attribution)})")
    rows, unused = [], 0
    for rel in sorted(modules):
        ids = usage.get(rel, [])
        if not ids and not all_modules:
            unused += 1
            continue
        new = sum(1 for nodeid in ids if nodeid in new_by_test)
        rows.append([rel, modules[rel]["status"], len(ids),
                     *[_fmt_counts(_counts(runs[s]["tests"], ids)) if s in runs else "-" for s in SIDES], new])
    if rows:
        out += ["  " + line for line in _table(rows, ["module", "status", "tests", "original", "converted",
                                                      "new failures"])]
    else:
        add("  (no cuTile module ran in a test)" if modules else "  (no cuTile modules)")
    if unused:
        add(f"  ({unused} other cuTile modules ran in no test: --all-modules lists them)")
    for side in SIDES:
        if side not in runs:
            continue
        tests = runs[side]["tests"]
        bad = [(nodeid, e) for nodeid, e in tests.items() if e["status"] in ("failed", "error")
               and (len(runs) == 1 or nodeid == e["file"])]
        if bad:
            add("")
            what = "failures" if len(runs) == 1 else "collection errors"
            add(f"{side} run: {what}: {len(bad)}")
            for nodeid, e in bad:
                add(f"  {nodeid}")
                add(f"      {e['message']}")
                out.extend(_detail_lines(e.get("detail"), e["message"]))
    if "original" in runs and "converted" in runs:
        add("")
        add(f"new failures (pass with the original, fail converted): {len(cmp['new_failures'])}")
        for item in cmp["new_failures"]:
            add(f"  {item['test']}")
            add(f"      {item['error']}")
            out.extend(_detail_lines(item.get("detail"), item["error"]))
        if cmp["new_skips"]:
            add(f"newly skipped (pass with the original, skipped converted): {len(cmp['new_skips'])}")
            for item in cmp["new_skips"]:
                add(f"  {item['test']}: {item['reason']}")
        if cmp["passes_only_converted"]:
            add(f"fail with the original, pass converted: {len(cmp['passes_only_converted'])}")
            for nodeid in cmp["passes_only_converted"]:
                add(f"  {nodeid}")
    if print_record:
        add("")
        rows = record_rows(data, record_keys)
        add("perf records (record_property; ratio = converted / original, > 1: the converted value is larger)")
        if rows:
            table = [[r["test"], r["field"], _num(r["original"]), _num(r["converted"]),
                      f"{r['ratio']:.3f}" if r["ratio"] is not None else "-"] for r in rows]
            out += ["  " + line for line in _table(table, ["test", "field", "original", "converted", "ratio"])]
        else:
            add("  (no numeric records)")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------


def run(args):
    root = Path(args.root).resolve()
    if not root.is_dir():
        raise UsageError(f"{args.root}: not a folder")
    pythonpath = args.pythonpath if args.pythonpath is not None else default_pythonpath(root)
    for p in pythonpath:
        if not (root / p).is_dir():
            raise UsageError(f"--pythonpath {p}: {root / p} is not a folder")
    if args.json and not Path(args.json).resolve().parent.is_dir():
        raise UsageError(f"--json {args.json}: its folder does not exist")
    converter = Converter(args.converter)
    if args.workdir:
        work = Path(args.workdir).resolve()
        if work.exists() and (not work.is_dir() or any(work.iterdir())):
            raise UsageError(f"--workdir {args.workdir}: exists and is not an empty folder")
        if work == root or root in work.parents:
            raise UsageError(f"--workdir {args.workdir}: inside ROOT")
        work.mkdir(parents=True, exist_ok=True)
        keep = True
    else:
        work = Path(tempfile.mkdtemp(prefix="c2t-difftest-"))
        keep = args.keep
    try:
        shadow = work / "shadow" / root.name
        plugin = work / "plugin"
        plugin.mkdir(parents=True, exist_ok=True)
        probe_source = Path(__file__).with_name("difftest_probe.py").read_text(encoding="utf-8")
        (plugin / f"{PROBE_PLUGIN}.py").write_text(probe_source, encoding="utf-8")
        need_shadow = not args.only_original or args.convert_only
        modules = make_shadow(root, shadow, converter) if need_shadow else scan_modules(root, converter, work)
        modules_file = work / "modules.json"
        modules_file.write_text(json.dumps({rel: dotted_names(rel, pythonpath) for rel in modules}), encoding="utf-8")
        data = {"root": str(root), "shadow": str(shadow) if need_shadow else None, "kept": keep,
                "selection": args.selection, "keyword": args.keyword, "modules": modules, "runs": {}}
        if not args.convert_only:
            if not args.only_converted:
                data["runs"]["original"] = run_side("original", root, args, work, pythonpath, modules_file)
            if not args.only_original:
                data["runs"]["converted"] = run_side("converted", shadow, args, work, pythonpath, modules_file)
        data["comparison"] = compare(data)
        return data
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def scan_modules(root, converter, work):
    """The conversion status of each cuTile module without a shadow tree (--only-original)."""
    scratch = work / "scratch.py"
    modules = {}
    for path in _walk_python_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if path.is_symlink() or not _may_import_cuda_tile(text):
            continue
        status, diagnostics = converter.convert(path, rel, scratch)
        if status == "not-cutile":
            continue
        modules[rel] = {"status": status, **({"error": _first_error(diagnostics), "diagnostics": diagnostics}
                                             if diagnostics else {})}
    if scratch.exists():
        scratch.unlink()
    return modules


def read_report(path):
    """An earlier --json file, checked for what render() reads."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data["runs"], dict) or not isinstance(data["modules"], dict):
            raise TypeError("runs and modules must be objects")
        data["root"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"--from-json {path}: not a difftest JSON file ({exc})")
    return data


def merge_reports(reports, paths):
    """One report from several: each side's run comes from the one file that has it.

    The module table is the one of a file that made the shadow tree (a converted run's),
    since only that one records what was substituted; the comparison is made again."""
    data = dict(reports[0])
    data["runs"] = {}
    origin = {}
    for report, path in zip(reports, paths):
        if Path(report["root"]).name != Path(data["root"]).name:
            raise UsageError(f"--from-json {path}: its root {report['root']} is not {data['root']}'s tree")
        for side, run in report["runs"].items():
            if side in origin:
                raise UsageError(f"--from-json {path}: its {side} run is also in {origin[side]}")
            origin[side] = path
            data["runs"][side] = run
        if report.get("shadow") and not data.get("shadow"):
            data.update(shadow=report["shadow"], kept=report.get("kept"), modules=report["modules"])
    data["comparison"] = compare(data)
    return data


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.from_json:
            data = merge_reports([read_report(path) for path in args.from_json], args.from_json)
        else:
            data = run(args)
    except UsageError as exc:
        print(f"difftest: error: {exc}", file=sys.stderr)
        return 2
    except RunError as exc:
        print(f"difftest: error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
        except OSError as exc:
            print(f"difftest: error: --json {args.json}: {exc.strerror}", file=sys.stderr)
            return 2
    sys.stdout.write(render(data, args.print_record, args.record_keys, args.all_modules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
