"""Mutational fuzzer of cutile2triton, run against the sanitizer build (build/asan/cutile2triton).

Seeds: corpus/cutile/*.py, tests/golden/cases/*, tests/cli/data/* and the regression seeds
tests/fuzz/regressions/* (fixed findings; they always run first, unmutated). Each case i of a run is
made from (seed, i) alone -- a seed file mutated by 1 to 5 mutations of tests/fuzz/mutate.py -- so
`fuzz.py --seed S --case I` replays it exactly, whatever the number of workers.

The oracle, for each case written to a temporary file IN (and a share of the cases also through
`roundtrip IN` and `check IN`):
  * no signal, no sanitizer report (ASan/LSan/UBSan), no timeout, exit status 0, 1 or 2 only;
  * exit 1: a located error `IN:LINE:COL: error: C2Tnnn: ...` on standard error, LINE within the
    file, no output file and nothing on standard output; C2T900 (internal error) is a finding;
  * "Python 3.12 accepts" means what `python3.12 FILE` accepts: the whole file must decode with its
    declared encoding, comments included (compile() of the bytes alone skips the bytes of comments;
    the converter, like `python FILE`, rejects invalid UTF-8 there with a located error);
  * exit 0: the output parses as Python 3.12 (checked by a Python 3.12 interpreter when one is found,
    otherwise by the running Python's compile(..., PyCF_ONLY_AST), which is then said); the input
    parses too (nothing invalid is converted);
  * the input file is unchanged (SHA-256 before and after);
  * with Python 3.12: roundtrip's output has the input's AST; `check` accepts exactly what 3.12
    accepts (except the converter's explicit limits, C2T002, and inputs 3.12 finds too deep);
    check and roundtrip agree.
A finding is minimized (line-, then byte-level delta debugging, keeping the same signature) and saved
under build/fuzz/findings/<oracle>-<hash>/: input.py, original.py, finding.txt (oracle, message,
command, case).

  python3 tests/fuzz/fuzz.py                        bounded run (make test's suite "fuzz")
  python3 tests/fuzz/fuzz.py --seconds 3600 --seed 1 --jobs 2    long run (make fuzz)
  python3 tests/fuzz/fuzz.py --seed S --case I      replay one case: its verdict, its findings saved
Ends with "fuzz: N passed, M failed" (N cases without a finding, M distinct findings) and the exit
status 1 when anything was found.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import mutate  # noqa: E402

DEFAULT_TOOL = os.path.join(ROOT, "build", "asan", "cutile2triton")
DEFAULT_FINDINGS = os.path.join(ROOT, "build", "fuzz", "findings")
REGRESSIONS = os.path.join(HERE, "regressions")
SEED_GLOBS = (("corpus", "cutile"), ("tests", "golden", "cases"), ("tests", "cli", "data"))
DEFAULT_SEED = 20260707
BOUNDED_CASES = 3000          # about a minute of wall time with 2 workers on the 2-core CI machine (37 s per 2000 here)
CASE_TIMEOUT_S = 10           # per run of the tool
PARSE_ONLY_SHARE = 0.3        # share of the cases also run through roundtrip and check
BATCH = 8                     # cases per task handed to a worker
MINIMIZE_S = 12               # per finding in a bounded run (--minimize-seconds)
MINIMIZE_MAX = 8              # findings minimized in one run; the others are saved as found
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0:allocator_may_return_null=1",
           UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87")
LOCATED = re.compile(rb"^(.*?):(\d+):(\d+): error: C2T(\d{3}): ", re.M)
ASAN_REPORT = re.compile(rb"ERROR: (AddressSanitizer|LeakSanitizer): ?([A-Za-z-]*)")
UBSAN_REPORT = re.compile(rb"([\w./-]+\.[ch]):(\d+):\d+: runtime error: ([^\n]{0,60})")
FRAME = re.compile(rb"#\d+ 0x[0-9a-f]+ in (\w+) (src/[\w/.-]+)")   # the project's frames (not libsanitizer's)

# 3.12 check: one persistent interpreter per worker, one path per line in, "ok DIGEST" or "err KIND" out.
CHECKER_SOURCE = r"""
import ast, hashlib, io, sys, tokenize, warnings
warnings.simplefilter("ignore")
sys.setrecursionlimit(20000)
for line in sys.stdin:
    path = line.rstrip("\n")
    try:
        with open(path, "rb") as f:
            data = f.read()
        # As `python FILE` reads a module: the whole file decoded with its declared encoding,
        # comments included (compile() of bytes alone does not check the bytes of comments).
        data.decode(tokenize.detect_encoding(io.BytesIO(data).readline)[0])
        tree = compile(data, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        reply = "ok " + hashlib.sha256(ast.dump(tree).encode("utf-8", "surrogatepass")).hexdigest()
    except (RecursionError, MemoryError) as e:
        reply = "err deep"
    except SyntaxError as e:
        reply = "err deep" if "too many nested" in str(e) or "too complex" in str(e) else "err syntax"
    except (ValueError, UnicodeError, OverflowError) as e:
        reply = "err syntax"
    sys.stdout.write(reply + "\n")
    sys.stdout.flush()
"""


def find_python312():
    """A Python 3.12 interpreter (FUZZ_PYTHON, python3.12 on PATH, pyenv's), or None."""
    candidates = [os.environ.get("FUZZ_PYTHON"), shutil.which("python3.12")]
    for root in (os.environ.get("PYENV_ROOT"), os.path.expanduser("~/.pyenv")):
        if root and os.path.isdir(os.path.join(root, "versions")):
            for name in sorted(os.listdir(os.path.join(root, "versions")), reverse=True):
                if name.startswith("3.12"):
                    candidates.append(os.path.join(root, "versions", name, "bin", "python3.12"))
    if sys.version_info[:2] == (3, 12):
        candidates.insert(0, sys.executable)
    for candidate in candidates:
        if not candidate:
            continue
        try:
            run = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"],
                                 capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if run.returncode == 0 and run.stdout.strip() == b"True":
            return candidate
    return None


class Checker:
    """Parses files with Python 3.12 (or, without one, the running Python): ('ok', digest) or ('err', kind)."""

    def __init__(self, python):
        self.python = python or sys.executable
        self.exact = python is not None
        self.process = None

    def _start(self):
        self.process = subprocess.Popen([self.python, "-c", CHECKER_SOURCE], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def parse(self, path):
        for _ in range(2):
            if self.process is None or self.process.poll() is not None:
                self._start()
            try:
                self.process.stdin.write(path + "\n")
                self.process.stdin.flush()
                reply = self.process.stdout.readline().split()
            except (BrokenPipeError, OSError):
                reply = []
            if len(reply) == 2:
                return reply[0], reply[1]
            self.process.kill()
            self.process.wait()
            self.process = None
        return "err", "checker-crashed"

    def close(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()


class Result:
    def __init__(self, rc, stdout, stderr, timed_out):
        self.rc, self.stdout, self.stderr, self.timed_out = rc, stdout, stderr, timed_out


def run_tool(tool, mode, path, out):
    command = [tool, path, "-o", out] if mode == "convert" else [tool, mode, path]
    try:
        run = subprocess.run(command, capture_output=True, env=ENV, timeout=CASE_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        return Result(None, e.stdout or b"", e.stderr or b"", True)
    return Result(run.returncode, run.stdout, run.stderr, False)


def sanitizer_signature(stderr):
    """A short stable name of a sanitizer report, or None."""
    m = ASAN_REPORT.search(stderr)
    if m:
        kind = m.group(1).decode() + ":" + (m.group(2).decode() or "report")
        frames = [f.group(1).decode() for f in FRAME.finditer(stderr[m.end():])
                  if not f.group(2).startswith(b"src/base/")]
        return kind + ("@" + frames[0] if frames else "")
    m = UBSAN_REPORT.search(stderr)
    if m:
        message = re.sub(rb"-?\d+", b"N", m.group(3)).decode("utf-8", "replace")
        return f"UBSan:{os.path.basename(m.group(1).decode())}:{m.group(2).decode()}:{message}"
    if b"AddressSanitizer" in stderr or b"runtime error:" in stderr:
        return "sanitizer:unrecognized report"
    return None


# Defects known and being fixed elsewhere: (name, predicate(signature, data, stderr)). A finding that matches
# one is labelled with its name; with --skip-known it is listed but not counted as a failure. Empty now: the
# five defects known when the fuzzer was written (64-bit overflow in constant folding, coding cookies, int
# literals of more than 4300 digits, leaks on conversion error paths, 17+ cuda.tile aliases) are fixed
# (2507ba0, 5501aef, b8d2fa0) and any new report of them is a finding.
KNOWN_DEFECTS = ()


def known_defect(signature, data, stderr):
    """The name of the known defect a finding is, or None."""
    for name, matches in KNOWN_DEFECTS:
        if matches(signature, data, stderr):
            return name
    return None


def source_lines(data):
    return re.split(rb"\r\n|\r|\n", data)


def judge_run(mode, data, path, result, out, checker):
    """Problems of one run: a list of (signature, message)."""
    if result.timed_out:
        return [(f"{mode}:timeout", f"{mode} ran over {CASE_TIMEOUT_S} s")]
    sanitizer = sanitizer_signature(result.stderr)
    if sanitizer:
        return [(f"{mode}:{sanitizer}", f"{mode}: sanitizer report (exit {result.rc})")]
    if result.rc < 0:
        return [(f"{mode}:signal {-result.rc}", f"{mode} killed by signal {-result.rc}")]
    if result.rc not in (0, 1, 2):
        return [(f"{mode}:exit {result.rc}", f"{mode} exited {result.rc}")]
    problems = []
    wrote = out is not None and os.path.exists(out)
    if result.rc == 1:
        m = LOCATED.search(result.stderr)
        if not m:
            problems.append((f"{mode}:exit 1 without a located error", f"{mode} exited 1 without FILE:LINE:COL: "
                             "error: C2Tnnn:"))
        else:
            line = int(m.group(2))
            if m.group(1) != path.encode():
                problems.append((f"{mode}:error names another file", f"{mode}: the error names {m.group(1)!r}"))
            if not 1 <= line <= len(source_lines(data)) + 1 or int(m.group(3)) < 1:
                problems.append((f"{mode}:error located outside the file",
                                 f"{mode}: error at {line}:{m.group(3).decode()}, the file has "
                                 f"{len(source_lines(data))} lines"))
            if m.group(4) == b"900":
                text = result.stderr[m.end():].split(b"\n")[0].decode("utf-8", "replace")
                kind = re.sub(r"\d+", "N", text.split(":")[1 if text.startswith("internal error:") else 0])[:50]
                problems.append((f"{mode}:internal error C2T900 ({kind.strip()})", f"{mode}: C2T900: {text[:300]}"))
        if wrote:
            problems.append((f"{mode}:output written on error", f"{mode} exited 1 but wrote {out}"))
        if result.stdout:
            problems.append((f"{mode}:standard output on error", f"{mode} exited 1 but printed on standard output"))
    elif result.rc == 2:
        if wrote:
            problems.append((f"{mode}:output written on exit 2", f"{mode} exited 2 but wrote {out}"))
    elif mode == "convert":
        if not wrote:
            problems.append(("convert:exit 0 without output", "convert exited 0 but wrote nothing"))
        elif checker.parse(out)[0] != "ok":
            problems.append(("convert:output does not parse", "the converted module does not parse as Python "
                             + ("3.12" if checker.exact else "(running interpreter)")))
    elif mode == "roundtrip":
        with open(path + ".rt.py", "wb") as f:
            f.write(result.stdout)
        if checker.parse(path + ".rt.py")[0] != "ok":
            problems.append(("roundtrip:output does not parse", "roundtrip's output does not parse"))
    return problems


def judge_case(tool, data, folder, checker, parse_only):
    """Problems of one case: [(signature, message, mode, known defect or None)]."""
    results = {}
    problems = judge_modes(tool, data, folder, checker, parse_only, results)
    return [(sig, msg, mode, known_defect(sig, data, results[mode].stderr if mode in results else b""))
            for sig, msg, mode in problems]


def judge_modes(tool, data, folder, checker, parse_only, results):
    """Run one case through convert (and, when parse_only, roundtrip and check); return its problems."""
    path = os.path.join(folder, "in.py")
    out = os.path.join(folder, "out.py")
    with open(path, "wb") as f:
        f.write(data)
    digest = hashlib.sha256(data).hexdigest()
    problems = []
    modes = ("convert", "roundtrip", "check") if parse_only else ("convert",)
    for mode in modes:
        if os.path.exists(out):
            os.unlink(out)
        result = run_tool(tool, mode, path, out if mode == "convert" else None)
        results[mode] = result
        found = judge_run(mode, data, path, result, out if mode == "convert" else None, checker)
        problems.extend((sig, msg, mode) for sig, msg in found)
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != digest:
                problems.append((f"{mode}:input modified", f"{mode} modified its input file", mode))
                with open(path, "wb") as f:
                    f.write(data)
    if problems:
        return problems
    verdict, tree = checker.parse(path) if checker.exact else ("?", "")
    convert = results["convert"]
    if convert.rc == 0 and verdict == "err" and tree == "syntax":
        problems.append(("convert:converts invalid Python", "converted a file Python 3.12 rejects", "convert"))
    if not parse_only:
        return problems
    roundtrip, check = results["roundtrip"], results["check"]
    if (roundtrip.rc == 0) != (check.rc == 0):
        problems.append(("check:disagrees with roundtrip",
                         f"check exited {check.rc}, roundtrip exited {roundtrip.rc}", "check"))
    if not checker.exact:
        return problems
    if verdict == "ok" and roundtrip.rc == 0:
        if checker.parse(path + ".rt.py") != ("ok", tree):
            problems.append(("roundtrip:AST differs", "roundtrip's output has another AST than the input",
                             "roundtrip"))
    limit = check.rc == 1 and LOCATED.search(check.stderr) and LOCATED.search(check.stderr).group(4) == b"002"
    if verdict == "ok" and check.rc == 1 and not limit:
        problems.append(("check:rejects valid Python", "check rejects a file Python 3.12 accepts: "
                         + check.stderr.split(b"\n")[0].decode("utf-8", "replace")[-160:], "check"))
    if verdict == "err" and tree == "syntax" and check.rc == 0:
        problems.append(("check:accepts invalid Python", "check accepts a file Python 3.12 rejects", "check"))
    return problems


# --- seeds and cases ----------------------------------------------------------------------------------

def read_folder(folder):
    files = []
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not name.startswith(".") and name != "README":
                with open(path, "rb") as f:
                    files.append((os.path.relpath(path, ROOT), f.read()))
    return files


def load_seeds():
    seeds = []
    for parts in SEED_GLOBS:
        seeds.extend(read_folder(os.path.join(ROOT, *parts)))
    return seeds


def make_case(seed, index, seeds, regressions):
    """(name, bytes, mutation names) of case `index`: regressions first, then each seed as is, then mutants."""
    if index < len(regressions):
        return regressions[index][0], regressions[index][1], []
    index -= len(regressions)
    if index < len(seeds):
        return seeds[index][0], seeds[index][1], []
    import random
    rng = random.Random(f"{seed}:{index + len(regressions)}")
    name, data = seeds[rng.randrange(len(seeds))]
    data, names = mutate.mutate(rng, data, [d for _, d in seeds])
    return name, data, names


# --- workers ----------------------------------------------------------------------------------------

_STATE = {}


def worker_init(tool, seed, python):
    # The work folder is inside the run's folder (the tool's snapshot), which the main process removes;
    # the 3.12 checker ends when the worker's end closes its standard input.
    _STATE.update(tool=tool, seed=seed, seeds=load_seeds(), regressions=read_folder(REGRESSIONS),
                  checker=Checker(python), folder=tempfile.mkdtemp(prefix="worker-", dir=os.path.dirname(tool)))


def run_batch(indices):
    """[(index, seed name, mutations, data or None, problems)] for the cases of one task."""
    import random
    out = []
    for index in indices:
        name, data, names = make_case(_STATE["seed"], index, _STATE["seeds"], _STATE["regressions"])
        parse_only = not names or random.Random(f"share:{_STATE['seed']}:{index}").random() < PARSE_ONLY_SHARE
        problems = judge_case(_STATE["tool"], data, _STATE["folder"], _STATE["checker"], parse_only)
        out.append((index, name, names, data if problems else None, problems))
    return out


# --- minimizing and saving -----------------------------------------------------------------------------

def reproduces(tool, data, mode, signature, folder, checker):
    problems = judge_case(tool, data, folder, checker, parse_only=mode != "convert")
    return any(sig == signature for sig, _, _, _ in problems)


def ddmin(units, test, deadline):
    """Delta debugging: the smallest sub-list of units (by chunk removal) for which test holds."""
    n = 2
    while len(units) >= 2 and time.monotonic() < deadline:
        size = max(1, len(units) // n)
        removed = False
        start = 0
        while start < len(units) and time.monotonic() < deadline:
            candidate = units[:start] + units[start + size:]
            if candidate and test(candidate):
                units = candidate
                removed = True
            else:
                start += size
        if not removed:
            if size == 1:
                break
            n = min(len(units), n * 2)
        else:
            n = max(2, n - 1)
    return units


def minimize(tool, data, mode, signature, checker, seconds):
    folder = tempfile.mkdtemp(prefix="c2t-fuzz-min-")
    deadline = time.monotonic() + seconds
    try:
        lines = data.splitlines(keepends=True)
        lines = ddmin(lines, lambda c: reproduces(tool, b"".join(c), mode, signature, folder, checker), deadline)
        data = b"".join(lines)
        if len(data) <= 4096:
            chars = [data[i:i + 1] for i in range(len(data))]
            data = b"".join(ddmin(chars, lambda c: reproduces(tool, b"".join(c), mode, signature, folder, checker),
                                  deadline))
        return data
    finally:
        shutil.rmtree(folder, True)


def save_finding(findings_dir, finding, minimized, seed, tool, shown_tool, checker):
    signature, message, mode, index, name, names, data, known = finding
    slug = re.sub(r"[^A-Za-z0-9]+", "-", signature).strip("-")[:60]
    folder = os.path.join(findings_dir, f"{slug}-{hashlib.sha256(signature.encode()).hexdigest()[:8]}")
    os.makedirs(folder, exist_ok=True)
    for file_name, content in (("input.py", minimized), ("original.py", data)):
        with open(os.path.join(folder, file_name), "wb") as f:
            f.write(content)
    where = os.path.relpath(os.path.join(folder, "input.py"), ROOT)
    command = {"convert": "{tool} {input} -o /tmp/c2t-out.py", "roundtrip": "{tool} roundtrip {input}",
               "check": "{tool} check {input}"}[mode].format(tool=os.path.relpath(shown_tool, ROOT), input=where)
    run_folder = tempfile.mkdtemp(prefix="c2t-fuzz-save-")
    try:
        with open(os.path.join(run_folder, "in.py"), "wb") as f:
            f.write(minimized)
        result = run_tool(tool, mode, os.path.join(run_folder, "in.py"), os.path.join(run_folder, "out.py"))
    finally:
        shutil.rmtree(run_folder, True)
    with open(os.path.join(folder, "finding.txt"), "w") as f:
        f.write(f"oracle: {signature}\nmessage: {message}\n")
        if known:
            f.write(f"known defect: {known}\n")
        f.write(f"command (from the repository root):\n  ASAN_OPTIONS={ENV['ASAN_OPTIONS']} "
                f"UBSAN_OPTIONS={ENV['UBSAN_OPTIONS']} {command}\n"
                f"3.12 checker: {checker.python}{'' if checker.exact else ' (not 3.12: the running Python)'}\n"
                f"case: python3 tests/fuzz/fuzz.py --seed {seed} --case {index}  (seed file {name}, "
                f"mutations: {', '.join(names) or 'none'})\n"
                f"minimized: {len(data)} -> {len(minimized)} bytes\n"
                f"exit status of the minimized input: {result.rc}{' (timeout)' if result.timed_out else ''}\n"
                "standard error (last 3000 bytes):\n")
        f.write(result.stderr[-3000:].decode("utf-8", "replace"))
    return folder


# --- main ---------------------------------------------------------------------------------------------

def replay(args, tool, python):
    seeds, regressions = load_seeds(), read_folder(REGRESSIONS)
    name, data, names = make_case(args.seed, args.case, seeds, regressions)
    checker = Checker(python)
    folder = tempfile.mkdtemp(prefix="c2t-fuzz-")
    try:
        problems = judge_case(tool, data, folder, checker, parse_only=True)
    finally:
        checker.close()
        shutil.rmtree(folder, True)
    sys.stdout.write(f"case {args.case}: seed file {name}, mutations: {', '.join(names) or 'none'}\n")
    if args.write:
        with open(args.write, "wb") as f:
            f.write(data)
        print(f"written to {args.write}")
    checker = Checker(python)
    try:
        for sig, message, mode, known in problems:
            print(f"FINDING {sig}: {message}" + (f" [known: {known}]" if known else ""))
            minimized = minimize(tool, data, mode, sig, checker, args.minimize_seconds)
            finding = (sig, message, mode, args.case, name, names, data, known)
            folder = save_finding(args.findings, finding, minimized, args.seed, tool, args.tool, checker)
            print(f"reproducer {os.path.relpath(folder, ROOT)}/input.py ({len(minimized)} bytes)")
    finally:
        checker.close()
    print(f"fuzz: {0 if problems else 1} passed, {len(problems)} failed")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default=DEFAULT_TOOL)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--cases", type=int, default=None, help=f"number of cases (bounded run: {BOUNDED_CASES})")
    parser.add_argument("--seconds", type=float, default=None, help="run for this long instead (long run)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--findings", default=DEFAULT_FINDINGS)
    parser.add_argument("--minimize-seconds", type=float, default=MINIMIZE_S)
    parser.add_argument("--case", type=int, default=None, help="replay this one case; its findings are minimized and saved")
    parser.add_argument("--write", default=None, help="with --case: also write the case's input to this file")
    parser.add_argument("--skip-known", action="store_true",
                        help="list findings that match a known defect (known_defect) without counting them")
    args = parser.parse_args()
    args.tool = os.path.abspath(args.tool)
    if not os.access(args.tool, os.X_OK):
        print(f"fuzz: {args.tool} is missing (make asan builds it)")
        print("fuzz: 0 passed, 1 failed")
        return 1
    # Run a private copy: a rebuild of build/asan during a long run must not pull the binary away.
    snapshot = tempfile.mkdtemp(prefix="c2t-fuzz-tool-")
    try:
        shutil.copy2(args.tool, os.path.join(snapshot, "cutile2triton"))
        return run(args, os.path.join(snapshot, "cutile2triton"))
    finally:
        shutil.rmtree(snapshot, True)


def run(args, tool):
    python = find_python312()
    print(f"fuzz: tool {os.path.relpath(args.tool, ROOT)}, seed {args.seed}; Python 3.12 check: "
          + (python if python else f"none found, using {sys.executable} (compile, PyCF_ONLY_AST; "
                                   "differential checks against 3.12 are off)"), flush=True)
    if args.case is not None:
        return replay(args, tool, python)
    limit = args.cases if args.cases is not None else (None if args.seconds else BOUNDED_CASES)
    deadline = time.monotonic() + args.seconds if args.seconds else None
    start = time.monotonic()
    findings = {}        # signature -> (signature, message, mode, index, name, names, data), lowest index kept
    failing_cases = ran = 0
    with Pool(args.jobs, worker_init, (tool, args.seed, python)) as pool:
        pending = []
        next_index = 0

        def submit():
            nonlocal next_index
            if (limit is not None and next_index >= limit) or (deadline and time.monotonic() >= deadline):
                return False
            end = next_index + BATCH if limit is None else min(limit, next_index + BATCH)
            pending.append(pool.apply_async(run_batch, (list(range(next_index, end)),)))
            next_index = end
            return True

        for _ in range(args.jobs * 3):
            submit()
        last_report = start
        while pending:
            for index, name, names, data, problems in pending.pop(0).get():
                ran += 1
                if problems:
                    failing_cases += 1
                for sig, message, mode, known in problems:
                    if sig not in findings or findings[sig][3] > index:
                        if sig not in findings:
                            print(f"FINDING {sig}: {message} (case {index}, {name}, {', '.join(names) or 'as is'})"
                                  + (f" [known: {known}]" if known else ""), flush=True)
                        findings[sig] = (sig, message, mode, index, name, names, data, known)
            submit()
            if args.seconds and time.monotonic() - last_report > 60:
                last_report = time.monotonic()
                elapsed = last_report - start
                print(f"fuzz: {ran} cases in {elapsed:.0f} s ({ran / elapsed:.1f}/s), {len(findings)} findings",
                      flush=True)
    elapsed = time.monotonic() - start
    checker = Checker(python)
    try:
        for k, finding in enumerate(sorted(findings.values(), key=lambda f: (f[3], f[0]))):
            sig, _, mode, index, _, _, data, known = finding
            seconds = args.minimize_seconds if k < MINIMIZE_MAX else 0
            minimized = minimize(tool, data, mode, sig, checker, seconds) if seconds else data
            folder = save_finding(args.findings, finding, minimized, args.seed, tool, args.tool, checker)
            label = "KNOWN" if known and args.skip_known else "FAIL"
            print(f"{label} {sig}: case {index}; reproducer {os.path.relpath(folder, ROOT)}/input.py "
                  f"({len(minimized)} bytes)" + (f" [known: {known}]" if known else ""))
    finally:
        checker.close()
    print(f"fuzz: {ran} cases run in {elapsed:.1f} s, {ran / max(elapsed, 1e-9):.1f} cases/s, "
          f"{len(findings)} findings ({failing_cases} failing cases), seed {args.seed}, {args.jobs} workers")
    counted = [f for f in findings.values() if not (f[7] and args.skip_known)]
    if len(counted) < len(findings):
        print(f"fuzz: {len(findings) - len(counted)} findings are known defects (--skip-known): not counted")
    print(f"fuzz: {ran - failing_cases} passed, {len(counted)} failed")
    return 1 if counted else 0


if __name__ == "__main__":
    sys.exit(main())
