#!/usr/bin/env python3
"""Compile converted Triton kernels for real GPUs (sm_90, sm_100) without one.

    tools/compile_check.py --launches LAUNCHES.jsonl [--json OUT] [--targets 90,100]
    tools/compile_check.py --calls CALLS.py DIR [--json OUT]

LAUNCHES.jsonl holds recorded launches (tests/compile/launch_record.py: one JSON
line a launch, recorded under TRITON_INTERPRET=1).  With --calls, the modules of
DIR (converted Triton modules) are imported under the interpreter in a child
process and CALLS.py's `CALLS = {"stem": [function(module), ...]}` are run to
record their launches (without running the kernels), then compiled.

Each distinct launch (the Triton binder's signature, constexprs, specialization
attributes and options, as a GPU launch would compute them) is compiled with
triton.compile(ASTSource(...), target=GPUTarget("cuda", CC, 32)) for each target,
which needs no GPU (the bundled ptxas makes the cubin).  Checks, per compile:
  * it compiles (the module is valid Triton for that launch);
  * shared memory (metadata.shared) <= --shared-limit (232,448 bytes: the H200's
    per-block limit);
  * the TMA path: when every `*_tma` flag of the launch is True, no 2-D+ tile load
    or store whose site has a descriptor branch (`if X_desc_N_ok: ... else: ...`)
    and whose tile satisfies TMA's box rules (and is a multiple of 128 bytes, which
    the converter asks of a descriptor tile) went through pointers, and each
    descriptor load/store of the TTIR became cp.async.bulk.tensor in the PTX;
  * each descriptor made on the host has a box the driver accepts when the launch
    encodes it (a last dimension of a multiple of 16 bytes, every one at most 256).
Exit status 0 when every check passes, 1 otherwise, 2 on bad usage.
C2T_DUMP_ASM=FOLDER writes each compile's TTGIR and PTX there (MODULE.KERNEL.HASH.ttgir, .ptx;
HASH: of the launch's constexprs):
where the products' operands live (ttg.local_load: a tile read back into registers) and
which instructions they became (wgmma or mma.sync).
"""

import argparse
import ast
import concurrent.futures
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_LIMIT = 232448  # bytes of shared memory a block may use on the H200 (sm_90)
TMA_MAX_TILE_BYTES = 131072  # the converter's C2T_TMA_MAX_TILE_BYTES: larger tiles go through pointers


# ---------------------------------------------------------------- decoding

class LaunchTensor:
    """What the binder reads of a tensor argument: its dtype and address (alignment)."""

    def __init__(self, dtype, aligned):
        self.dtype = dtype
        self._ptr = 1 << 20 if aligned else (1 << 20) + 2

    def data_ptr(self):
        return self._ptr


def decode(value):
    import torch
    import triton.language as tl
    if not isinstance(value, dict):
        return value
    if "int" in value:
        return int(value["int"])
    if "float" in value:
        return float(value["float"])
    if "tuple" in value:
        return tuple(decode(v) for v in value["tuple"])
    if "tensor" in value:
        return LaunchTensor(getattr(torch, value["tensor"]), value["aligned"])
    if "descriptor" in value:  # made on the host (_host_descriptor): what the binder reads of one
        from triton.tools.tensor_descriptor import TensorDescriptor
        made = TensorDescriptor.__new__(TensorDescriptor)
        made.base, made.shape, made.strides = decode(value["descriptor"]), value["shape"], value["strides"]
        made.block_shape, made.padding = value["block_shape"], value["padding"]
        return made
    if "tl_dtype" in value:
        return tl.str_to_ty(value["tl_dtype"], None) if hasattr(tl, "str_to_ty") else getattr(tl, value["tl_dtype"])
    if "constexpr" in value:
        return tl.constexpr(decode(value["constexpr"]))
    raise ValueError(f"unknown launch argument {value!r}")


# ---------------------------------------------------------------- source facts

class SourceFacts:
    """Per converted file: the line span of each function, and the kernel lines that
    are the pointer branch of a descriptor choice (`if X_desc_N_ok: ... else: ...`)."""

    def __init__(self, path):
        tree = ast.parse(Path(path).read_text(), filename=str(path))
        self.functions = []  # (first line, last line, name)
        self.pointer_branch = {}  # line -> the `_ok` name
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                self.functions.append((node.lineno, node.end_lineno, node.name))
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id.endswith("_ok") \
                    and "_desc_" in node.test.id:
                for stmt in node.orelse:
                    for line in range(stmt.lineno, stmt.end_lineno + 1):
                        self.pointer_branch[line] = node.test.id

    def function_at(self, line):
        best = None
        for first, last, name in self.functions:
            if first <= line <= last and (best is None or first >= best[0]):
                best = (first, name)
        return best[1] if best else None


LOC_DEF = re.compile(r'^#(loc\d*) = loc\((.*)\)\s*$')
FILE_LOC = re.compile(r'^"([^"]*)":(\d+):\d+$')
CALLSITE = re.compile(r'^callsite\(#(loc\d*) at #(loc\d*)\)$')
NAMED = re.compile(r'^"[^"]*"\(#(loc\d*)\)$')
POINTER_ACCESS = re.compile(r'\btt\.(load|store)\b.*: tensor<((?:\d+x)+)!tt\.ptr<(\w+)>>.* loc\(#(loc\d*)\)')
ELEMENT_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
                 "f8E4M3FN": 1, "f8E5M2": 1}


def frames(locs, name, depth=0):
    """(file, line) frames of a TTIR location, innermost first."""
    text = locs.get(name)
    if text is None or depth > 64:
        return []
    m = FILE_LOC.match(text)
    if m:
        return [(m.group(1), int(m.group(2)))]
    m = CALLSITE.match(text)
    if m:
        return frames(locs, m.group(1), depth + 1) + frames(locs, m.group(2), depth + 1)
    m = NAMED.match(text)
    if m:
        return frames(locs, m.group(1), depth + 1)
    return []


def tma_findings(ttir, ptx, facts, kernel, tma_launch, bool_arrays=()):
    """Problems of the TMA path in one compile (empty when fine), and counts for the report.
    `bool_arrays`: the kernel's bool array parameters, whose tiles Triton gives no descriptor
    (its descriptors take elements of a whole byte or more; a bool pointer's is one bit)."""
    locs = {}
    for line in ttir.splitlines():
        m = LOC_DEF.match(line)
        if m:
            locs[m.group(1)] = m.group(2)
    problems = []
    pointer_tiles = 0
    for line in ttir.splitlines():
        m = POINTER_ACCESS.search(line)
        if not m:
            continue
        dims = [int(d) for d in m.group(2).rstrip("x").split("x")]
        if len(dims) < 2:
            continue
        chain = frames(locs, m.group(4))
        if not chain:
            continue
        helper = facts.function_at(chain[0][1])
        if not helper or not re.match(r"ct_(load|store)_\dd$", helper):
            continue  # gathers, scatters, element accesses: pointers by design
        pointer_tiles += 1
        site = next((ln for _, ln in chain if facts.function_at(ln) == kernel), None)
        ok_name = facts.pointer_branch.get(site) if site else None
        size = ELEMENT_BYTES.get(m.group(3), 4)
        box_ok = (dims[-1] * size >= 16  # TMA's inner box; a dimension over 256 is copied in several boxes
                  and math.prod(dims) * size % 128 == 0  # a whole tile of 128-byte multiples (the pipeliner's ring)
                  and math.prod(dims) * size <= TMA_MAX_TILE_BYTES)
        of_bool = ok_name and re.sub(r"_desc_\d+_ok$", "", ok_name) in bool_arrays
        if tma_launch and ok_name and box_ok and not of_bool:
            problems.append(f"line {site}: a {'x'.join(map(str, dims))} tile {m.group(1)} went through pointers "
                            f"on the TMA path ({ok_name} was False)")
    desc_loads = len(re.findall(r"\btt\.descriptor_load\b", ttir))
    desc_stores = len(re.findall(r"\btt\.descriptor_store\b", ttir))
    tma_loads = len(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global", ptx))
    tma_stores = len(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.global\.shared::cta", ptx))
    if desc_loads and not tma_loads:
        problems.append(f"{desc_loads} descriptor load(s) in the TTIR but no TMA load in the PTX")
    if desc_stores and not tma_stores:
        problems.append(f"{desc_stores} descriptor store(s) in the TTIR but no TMA store in the PTX")
    counts = {"descriptor_loads": desc_loads, "descriptor_stores": desc_stores, "ptx_tma_loads": tma_loads,
              "ptx_tma_stores": tma_stores, "pointer_tiles": pointer_tiles,
              "ptx_wgmma": len(re.findall(r"\bwgmma\.mma_async\b", ptx)),
              "ptx_cp_async": len(re.findall(r"\bcp\.async\.c[ag]\.shared", ptx)),  # pipelined pointer loads
              # the wgmma waits (0: each product waited for before the next; above: pipelined)
              "ptx_wgmma_waits": sorted(set(int(n) for n in re.findall(r"wgmma\.wait_group\.sync\.aligned\s+(\d+)", ptx))),
              # float32 divisions by kind (IEEE div.rn, full-range div.full, div.approx): math mappings
              "ptx_div_f32": {kind: len(re.findall(rf"\bdiv\.{kind}(?:\.ftz)?\.f32\b", ptx))
                              for kind in ("rn", "full", "approx")},
              # float32 instructions that flush subnormals (cuTile keeps them unless flush_to_zero=True)
              "ptx_ftz_f32": len(re.findall(r"\.ftz\.f32\b", ptx))}
    return problems, counts


# ---------------------------------------------------------------- compiling

_modules = {}


def load_module(path):
    import importlib.util
    path = str(path)
    if path not in _modules:
        name = "c2t_compile_" + re.sub(r"\W", "_", Path(path).stem) + f"_{len(_modules)}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _modules[path] = (module, SourceFacts(path))
    return _modules[path]


def jit_function(kernel):
    """The JITFunction of a generated kernel (under @triton.autotune: the one it wraps)."""
    from triton.runtime.jit import JITFunction
    while not isinstance(kernel, JITFunction):
        kernel = kernel.fn
    return kernel


def bind(fn, backend, args, kwargs):
    """What JITFunction.run computes before compiling: signature, constexprs, attributes, options."""
    from triton.runtime.jit import create_function_from_signature
    kwargs = dict(kwargs)
    kwargs.setdefault("debug", False)
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound, specialization, options = binder(*args, **kwargs)
    options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound, specialization, options)
    return options, signature, constexprs, attrs


def host_descriptor_findings(fn, args, kwargs, metas):
    """What the driver would refuse when the launch encodes its host-made descriptors (Triton
    makes the CUDA tensor map of each at every launch, not at compile time): a box whose last
    dimension spans less than 16 bytes or a multiple of none ("Failed to create tensor map
    descriptor: invalid argument"; a (1, 64, 1) float16 box, TileGym's chunk_gated_delta_rule),
    or a dimension over 256 elements. `metas` is the compiled kernel's tensordesc_meta, one
    entry per descriptor parameter (None where it is lowered to pointers)."""
    problems = []
    values = dict(zip(fn.arg_names, args), **kwargs)  # as recorded, in the kernel's parameter order below
    given = [name for name in fn.arg_names if isinstance(values.get(name), dict) and "descriptor" in values[name]]
    for name, meta in zip(given, metas or []):
        if not meta:
            continue
        box, size = list(meta["block_size"]), meta["elem_size"]
        if box[-1] * size % 16 or any(d > 256 for d in box):
            problems.append(f"descriptor {name}: a box {box} of {size}-byte elements, which the driver refuses "
                            "at launch (its last dimension must span a multiple of 16 bytes, each at most 256)")
    return problems


def compile_one(job):
    """Compile one distinct launch for one target; a result dict."""
    path, kernel, args, kwargs, cc, shared_limit = job
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    result = {"file": path, "kernel": kernel, "target": f"sm_{cc}", "problems": []}
    start = time.time()
    try:
        module, facts = load_module(path)
        fn = jit_function(getattr(module, kernel))
        target = GPUTarget("cuda", cc, 32)
        backend = make_backend(target)
        options, signature, constexprs, attrs = bind(fn, backend, [decode(a) for a in args],
                                                     {k: decode(v) for k, v in kwargs.items()})
        result["constexprs"] = {fn.arg_names[p[0]] + "".join(f"[{i}]" for i in p[1:]): repr(v)
                                for p, v in constexprs.items()}
        result["enable_reflect_ftz"] = options.enable_reflect_ftz  # the launch's, as compiled
        compiled = triton.compile(ASTSource(fn, signature, constexprs, attrs), target=target,
                                  options=options.__dict__)
    except Exception as e:  # the module is not valid Triton for this launch
        lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
        where = lines[0] if lines and lines[0].startswith("at ") else ""
        caret = max((i for i, line in enumerate(lines) if set(line) == {"^"}), default=-1)
        code = lines[caret - 1] if caret > 0 else ""
        cause = " ".join(lines[caret + 1:] if caret >= 0 else lines[-3:])
        result["problems"].append(f"does not compile: {type(e).__name__} {where} `{code}`: {cause}")
        result["seconds"] = round(time.time() - start, 2)
        return result
    result["seconds"] = round(time.time() - start, 2)
    result["shared"] = compiled.metadata.shared
    if compiled.metadata.shared > shared_limit:
        result["problems"].append(f"shared memory {compiled.metadata.shared} bytes > {shared_limit}")
    result["problems"] += host_descriptor_findings(fn, args, kwargs, getattr(compiled.metadata, "tensordesc_meta", None))
    flags = {k: v for k, v in result["constexprs"].items() if k.endswith("_tma")}
    tma_launch = bool(flags) and all(v == "True" for v in flags.values())
    result["tma_launch"] = tma_launch
    bool_arrays = {name for name, ty in signature.items() if ty in ("*i1", "*u1")}  # torch.bool: *u1
    problems, counts = tma_findings(compiled.asm["ttir"], compiled.asm["ptx"], facts, kernel, tma_launch,
                                    bool_arrays)
    result["problems"] += problems
    result.update(counts)
    # programmatic dependent launch: its waits and signals, and whether the launch asks for it
    result["ptx_griddepcontrol"] = compiled.asm["ptx"].count("griddepcontrol.")
    # tiles read back from shared memory into registers (a transposed operand of a product that
    # Triton could not keep in shared memory for wgmma takes such a round trip per step)
    result["ttgir_local_loads"] = len(re.findall(r"\bttg\.local_load\b", compiled.asm["ttgir"]))
    result["launch_pdl"] = bool(getattr(options, "launch_pdl", False))
    if os.environ.get("C2T_DUMP_ASM"):
        launch = hashlib.sha1(json.dumps(result["constexprs"], sort_keys=True).encode()).hexdigest()[:8]
        for kind in ("ttgir", "ptx"):
            Path(os.environ["C2T_DUMP_ASM"], f"{Path(result['file']).stem}.{kernel}.{launch}.{kind}").write_text(
                compiled.asm[kind])
    return result


def distinct_launches(records, cc):
    """One launch per (file, kernel, binder key): what a GPU's kernel cache would compile once."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    backend = make_backend(GPUTarget("cuda", cc, 32))
    seen, jobs, errors = set(), [], []
    for record in records:
        try:
            module, _ = load_module(record["file"])
            fn = jit_function(getattr(module, record["kernel"]))
            args = [decode(a) for a in record["args"]]
            kwargs = {k: decode(v) for k, v in record["kwargs"].items()}
            options, signature, constexprs, attrs = bind(fn, backend, args, kwargs)
        except Exception as e:
            errors.append({"file": record["file"], "kernel": record["kernel"], "target": f"sm_{cc}",
                           "problems": [f"cannot bind the launch: {type(e).__name__}: {e}"]})
            continue
        key = (record["file"], record["kernel"], repr(sorted(signature.items())), repr(sorted(constexprs.items())),
               repr(sorted(attrs.items())), repr(sorted(options.__dict__.items())))
        if key not in seen:
            seen.add(key)
            jobs.append((record["file"], record["kernel"], record["args"], record["kwargs"]))
    return jobs, errors


def check(records, targets, shared_limit, jobs_count):
    results = []
    all_jobs = []
    for cc in targets:
        jobs, errors = distinct_launches(records, cc)
        results += errors
        all_jobs += [(path, kernel, args, kwargs, cc, shared_limit) for path, kernel, args, kwargs in jobs]
    if jobs_count > 1:
        with concurrent.futures.ProcessPoolExecutor(jobs_count) as pool:
            results += list(pool.map(compile_one, all_jobs))
    else:
        results += [compile_one(job) for job in all_jobs]
    return results


# ---------------------------------------------------------------- recording from calls

def record_calls(calls_file, directory, out):
    """Child process (TRITON_INTERPRET=1): import each module of `directory`, run its calls."""
    sys.path.insert(0, str(ROOT / "tests" / "compile"))
    import launch_record
    launch_record._install(out, record_only=True)
    import importlib.util
    spec = importlib.util.spec_from_file_location("c2t_calls", calls_file)
    calls = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calls)
    failures = 0
    for path in sorted(Path(directory).glob("*.py")):
        entries = calls.CALLS.get(path.stem)
        if not entries:
            print(f"{path.name}: no calls in {calls_file}; not checked")
            continue
        try:
            mod_spec = importlib.util.spec_from_file_location("c2t_rec_" + re.sub(r"\W", "_", path.stem), path)
            module = importlib.util.module_from_spec(mod_spec)
            sys.modules[mod_spec.name] = module
            mod_spec.loader.exec_module(module)
            for call in entries:
                call(module)
        except Exception as e:
            failures += 1
            print(f"{path.name}: its calls failed: {type(e).__name__}: {e}")
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", help="converted modules (with --calls)")
    parser.add_argument("--launches", help="recorded launches (JSON lines)")
    parser.add_argument("--calls", help="a Python file with CALLS = {module stem: [function(module), ...]}")
    parser.add_argument("--targets", default="90,100", help="compute capabilities (default 90,100)")
    parser.add_argument("--shared-limit", type=int, default=SHARED_LIMIT)
    parser.add_argument("--json", help="write every result here")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--record-child", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.record_child:
        return 1 if record_calls(options.calls, options.directory, options.record_child) else 0
    if bool(options.launches) == bool(options.calls) or (options.calls and not options.directory):
        parser.error("give --launches FILE, or --calls FILE and a directory")
    start = time.time()
    launches = options.launches
    if options.calls:
        launches = os.path.join(options.directory, ".c2t_launches.jsonl")
        if os.path.exists(launches):
            os.remove(launches)
        env = dict(os.environ, TRITON_INTERPRET="1")
        subprocess.run([sys.executable, __file__, options.directory, "--calls", options.calls,
                        "--record-child", launches], env=env, check=False)
        if not os.path.exists(launches):
            print("no launches recorded")
            return 1
    if os.environ.get("TRITON_INTERPRET") == "1":
        print("compile_check: TRITON_INTERPRET=1 is set; it must not be (kernels are compiled)", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in open(launches) if line.strip()]
    targets = [int(t) for t in options.targets.split(",")]
    results = check(records, targets, options.shared_limit, options.jobs)
    bad = [r for r in results if r["problems"]]
    for r in results:
        status = "FAIL" if r["problems"] else "ok  "
        print(f"{status} {r['target']} {Path(r['file']).name}:{r['kernel']} "
              f"shared={r.get('shared', '-')} tma={r.get('ptx_tma_loads', 0)}/{r.get('ptx_tma_stores', 0)} "
              f"{'TMA-launch ' if r.get('tma_launch') else ''}{r.get('seconds', '')}s")
        for p in r["problems"]:
            print(f"     {p}")
    if options.json:
        Path(options.json).write_text(json.dumps(results, indent=1))
    print(f"compile_check: {len(records)} launches, {len(results)} compiles, {len(bad)} failed, "
          f"{time.time() - start:.1f}s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
