#!/usr/bin/env python3
"""The dtype real cuTile gives binary operations, for tests/convert/test_dtype_table.py.

    python3.12 tools/cutile_dtype_table.py [--out tests/convert/data/cutile_dtypes.json]

For each operation of OPS, each tile dtype A of TILES on the left and each tile dtype or Python
number B on the right (and each operation of UNARY on an A tile, B "-"), a kernel computes
`r = OP` and stores it, and cuTile's front end compiles
it to Tile IR bytecode (cuda.tile.compilation.export_kernel: no GPU, no tileiras); a
`ct.static_eval` records r.dtype while cuTile types the kernel. The table maps "A|B|OP" to that
dtype or to "ERR <cuTile's error>"; the operations' expressions go with it. Needs a Python with the cuda-tile wheel (see
tools/cutile_ptx.py for the pack's). The operand values do not matter: only types are read.
"""
import argparse
import importlib.util
import io
import json
import os
import sys
import tempfile
import types

TILES = ["bool_", "int8", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "float64"]
NUMBERS = {"int": "3", "float": "2.5", "bool": "True"}
OPS = {"add": "x + y", "truediv": "x / y", "floordiv": "x // y", "mod": "x % y", "pow": "x ** y",
       "and": "x & y", "shl": "x << y", "lt": "x < y", "where": "ct.where(m, x, y)", "rsub": "y - x",
       "mul": "x * y", "xor": "x ^ y", "shr": "x >> y", "eq": "x == y", "maximum": "ct.maximum(x, y)",
       "atan2": "ct.atan2(x, y)", "rtruediv": "y / x", "rpow": "y ** x"}
# one operand: B is "-"
UNARY = {"neg": "-x", "invert": "~x", "not": "not x", "abs": "abs(x)", "exp": "ct.exp(x)", "log": "ct.log(x)",
         "sqrt": "ct.sqrt(x)", "rsqrt": "ct.rsqrt(x)", "sin": "ct.sin(x)", "tanh": "ct.tanh(x)",
         "floor": "ct.floor(x)", "ceil": "ct.ceil(x)", "isnan": "ct.isnan(x)", "sum": "ct.sum(x, axis=0)",
         "prod": "ct.prod(x, axis=0)", "max": "ct.max(x, axis=0)", "argmax": "ct.argmax(x, axis=0)",
         "cumsum": "ct.cumsum(x, axis=0)", "cumprod": "ct.cumprod(x, axis=0)", "exp2": "ct.exp2(x)",
         "log2": "ct.log2(x)", "pos": "+x"}
# astype to each dtype, the restricted floats too
UNARY.update({f"astype_{d}": f"x.astype(ct.{d})" for d in
              ["bool_", "int8", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "float64", "tfloat32",
               "float8_e4m3fn", "float8_e5m2"]})

KERNEL = """import cuda.tile as ct
import dtype_table_state


@ct.kernel
def k(a, b, out):
    x = ct.load(a, index=(0,), shape=(16,))
    y = {y}
    m = x == x
    r = {expr}
    ct.static_eval(dtype_table_state.SEEN.append(r.dtype))
    ct.store(out, index=(0,), tile=r.astype(ct.float64))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "convert", "data",
                                                      "cutile_dtypes.json"))
    args = parser.parse_args()
    os.environ["CUDA_TILE_CACHE_DIR"] = "off"
    import cuda.tile as ct
    from cuda.tile import compilation as C
    state = types.SimpleNamespace(SEEN=[])
    sys.modules["dtype_table_state"] = state

    def array(dtype):
        return C.ArrayConstraint(getattr(ct, dtype), 1, index_dtype=ct.int32, stride_lower_bound_incl=0,
                                 alias_groups=(), may_alias_internally=False)

    table = {}
    with tempfile.TemporaryDirectory() as tmp:
        for a in TILES:
            for b in TILES + list(NUMBERS) + ["-"]:
                y = NUMBERS.get(b, "ct.load(b, index=(0,), shape=(16,))")
                for op, expr in (UNARY if b == "-" else OPS).items():
                    path = os.path.join(tmp, f"k{len(table)}.py")
                    with open(path, "w") as f:
                        f.write(KERNEL.format(y=y, expr=expr))
                    spec = importlib.util.spec_from_file_location(f"k{len(table)}", path)
                    module = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(module)
                    signature = C.KernelSignature([array(a), array(b if b in TILES else "int32"), array("float64")],
                                                  C.CallingConvention.cutile_python_v1())
                    state.SEEN.clear()
                    try:
                        C.export_kernel(module.k, [signature], io.BytesIO(), output_format="tileir_bytecode")
                        table[f"{a}|{b}|{op}"] = str(state.SEEN[-1])
                    except Exception as e:  # cuTile's refusal: its type and first line
                        table[f"{a}|{b}|{op}"] = f"ERR {type(e).__name__}: {str(e).splitlines()[0]}"
    with open(args.out, "w") as f:
        json.dump({"cuda_tile": ct.__version__, "numbers": NUMBERS, "binary": OPS, "unary": UNARY, "table": table},
                  f, indent=0, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
