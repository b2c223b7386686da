#!/usr/bin/env python3
"""What real cuTile makes of a kernel, without a GPU: its Tile IR and the PTX tileiras writes.

    tools/cutile_ptx.py FILE KERNEL PARAM... [--arch sm_90] [--grep REGEX]

PARAM describes each parameter of KERNEL, in order:
    array:DTYPE:NDIM    an array (ct.float32, 2 dimensions: array:float32:2), nothing known
                        of its layout
    array:DTYPE:NDIM:contiguous
                        as cuTile's launch specializes a contiguous tensor whose address
                        is a multiple of 16 bytes and whose dimensions are multiples of 16
                        (its last stride 1, the others multiples of 16 bytes): the loads
                        it compiles for such a launch (TMA for tiles that take it)
    list:ARRAY          a list of arrays, each as ARRAY says (list:array:bfloat16:2:contiguous)
    scalar:DTYPE        a run-time scalar (scalar:float64)
    const:VALUE         a ct.Constant parameter (const:64, const:True, const:0.5)

The kernel is compiled with cuda.tile.compilation.export_kernel (cuTile's ahead-of-time
export), whose compiler, tileiras, hands its PTX to the ptxas beside it: tileiras runs here
from a folder first on PATH where a stand-in ptxas keeps a copy of that PTX, then runs the
real one. The PTX ends with the kernel's Tile IR as
comments. cuTile's disk cache is off, so each run compiles.

Needs real cuTile: a Python with the cuda-tile wheel (3.12 for 1.7) and tileiras and ptxas on
PATH. With the pack of ../shared/cutile-h200/pack.sh (.cutile/), on this machine:
    python3 -c "import tarfile; tarfile.open('.cutile/tc.tar.xz').extractall('/tmp')"
    python3.12 -m pip install --target /tmp/ctsite --no-deps .cutile/whl/cuda_tile-*.whl
    python3.12 -m pip install typing_extensions       # cuda.tile imports it
    PATH=/tmp/tc/bin:$PATH PYTHONPATH=/tmp/ctsite python3.12 tools/cutile_ptx.py k.py k array:float32:2 const:32
Reading the PTX is how the rules of tests/convert/test_restricted_floats.py were found (the
constants cuTile folds, the roundings tileiras emits). Exit status: 0, 1 when cuTile refuses
the kernel (its message on standard error), 2 on bad usage.
"""
import argparse
import glob
import importlib.util
import io
import os
import re
import shutil
import sys
import tempfile

PTXAS_STAND_IN = """#!/bin/sh
# keeps a copy of each PTX file tileiras gives ptxas, then runs the real ptxas
for arg in "$@"; do
  case "$arg" in *.ptx) cp "$arg" "{keep}/$(basename "$arg")";; esac
done
exec "{real}" "$@"
"""


def parameter(ct, C, text):
    kind, _, rest = text.partition(":")
    if kind == "list":
        return C.ListConstraint(parameter(ct, C, rest), alias_groups=(), elements_may_alias=False)
    if kind == "array":
        dtype, _, ndim = rest.partition(":")
        ndim, _, layout = ndim.partition(":")
        ndim, facts = int(ndim), {}
        if layout == "contiguous":  # as a launch with a contiguous tensor would specialize it
            per_16_bytes = max(1, 128 // getattr(ct, dtype).bitwidth)
            facts = dict(stride_constant=(None,) * (ndim - 1) + (1,), stride_divisible_by=(per_16_bytes,) * (ndim - 1) + (1,),
                         shape_divisible_by=16, base_addr_divisible_by=16)
        elif layout:
            raise ValueError(f"unknown array layout {layout!r} (contiguous)")
        return C.ArrayConstraint(getattr(ct, dtype), ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
                                 alias_groups=(), may_alias_internally=False, **facts)
    if kind == "scalar":
        return C.ScalarConstraint(getattr(ct, rest))
    if kind == "const":
        return C.ConstantConstraint(eval(rest, {}))  # a Python literal: 64, True, 0.5
    raise ValueError(f"unknown parameter kind {kind!r} (array:DTYPE:NDIM, scalar:DTYPE, const:VALUE)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("kernel")
    parser.add_argument("params", nargs="+")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--grep", help="print only the lines that match this regular expression")
    args = parser.parse_args()
    real, tileiras = shutil.which("ptxas"), shutil.which("tileiras")
    if real is None or tileiras is None:
        parser.error("no tileiras or ptxas on PATH (tileiras's toolkit)")
    os.environ["CUDA_TILE_CACHE_DIR"] = "off"
    import cuda.tile as ct
    from cuda.tile import compilation as C
    spec = importlib.util.spec_from_file_location("probed", args.file)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.file)))
    spec.loader.exec_module(module)
    try:
        params = [parameter(ct, C, p) for p in args.params]
    except (ValueError, AttributeError, SyntaxError) as e:
        parser.error(str(e))
    with tempfile.TemporaryDirectory() as tmp:
        keep = os.path.join(tmp, "kept-ptx")
        os.mkdir(keep)
        # the toolkit's folder again, its other parts (libnvvm) linked: tileiras finds them beside its bin/
        toolkit = os.path.dirname(os.path.dirname(os.path.realpath(tileiras)))
        for name in os.listdir(toolkit):
            if name != "bin":
                os.symlink(os.path.join(toolkit, name), os.path.join(tmp, name))
        stand_in = os.path.join(tmp, "bin", "ptxas")
        os.mkdir(os.path.dirname(stand_in))
        with open(stand_in, "w") as f:
            f.write(PTXAS_STAND_IN.format(keep=keep, real=real))
        os.chmod(stand_in, 0o755)
        # tileiras runs the ptxas beside it: a link to it (a copy across file systems) beside the stand-in
        beside = os.path.join(os.path.dirname(stand_in), "tileiras")
        try:
            os.link(tileiras, beside)
        except OSError:
            shutil.copy2(tileiras, beside)
        os.environ["PATH"] = os.path.dirname(stand_in) + os.pathsep + os.environ["PATH"]
        signature = C.KernelSignature(params, C.CallingConvention.cutile_python_v1())
        try:
            C.export_kernel(getattr(module, args.kernel), [signature], io.BytesIO(), output_format="cubin",
                            gpu_code=args.arch)
        except Exception as e:  # cuTile's refusal of the kernel: its message
            print(f"{type(e).__name__}: {e}", file=sys.stderr)
            return 1
        for path in sorted(glob.glob(os.path.join(keep, "*.ptx")), key=os.path.getsize, reverse=True):
            with open(path) as f:
                for line in f:
                    if not args.grep or re.search(args.grep, line):
                        sys.stdout.write(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
