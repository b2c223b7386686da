/*
 * lower_math_runtime.c — the runtime helpers of the elementwise math family.
 *
 * Each helper is a @triton.jit (or @triton.constexpr_function) function the
 * generated module carries once; its docstring says which cuTile semantics
 * it carries. Helpers compute cuTile's dtypes at Triton compile time
 * (ct_common_dtype) because array dtypes are known only at launch.
 *
 * Triton's interpreter (TRITON_INTERPRET=1, CPU) has no libdevice: helpers
 * that call libdevice take another path there (`if INTERPRETED:`), numpy's
 * function through interpreted_numpy; Triton compiles only the branch its
 * constexpr condition picks, so the GPU never sees that path.
 */
#include <string.h>

#include "lower_math.h"

/* ------------------------------------------------------- dtype helpers */

static const char COMMON_DTYPE[] =
    "@triton.constexpr_function\n"
    "def ct_common_dtype(x, y):\n"
    "    \"\"\"The dtype cuTile gives an arithmetic operation on x and y (its promotion, not\n"
    "    Triton's): a Python number takes the dtype of a tile of its kind or a higher one\n"
    "    (bool < integer < float); an integer with a float gives the float dtype, bfloat16\n"
    "    included; signed with unsigned integers and float16 with bfloat16 are errors.\"\"\"\n"
    "    def kind(dtype):\n"
    "        return 0 if dtype == tl.int1 else 1 if dtype.is_int() else 2\n"
    "\n"
    "    def number_dtype(value):\n"
    "        if isinstance(value, bool):\n"
    "            return tl.int1\n"
    "        if isinstance(value, int):\n"
    "            return tl.int32 if -2**31 <= value < 2**31 else tl.int64\n"
    "        return tl.float32\n"
    "\n"
    "    x_number, y_number = not hasattr(x, \"dtype\"), not hasattr(y, \"dtype\")\n"
    "    a = number_dtype(x) if x_number else x.dtype\n"
    "    b = number_dtype(y) if y_number else y.dtype\n"
    "    if x_number != y_number:\n"
    "        number, tile = (a, b) if x_number else (b, a)\n"
    "        return tile if kind(number) <= kind(tile) else number\n"
    "    if a == b:\n"
    "        return a\n"
    "    if kind(a) != kind(b):\n"
    "        return a if kind(a) > kind(b) else b\n"
    "    if kind(a) == 2:\n"
    "        if a.primitive_bitwidth == b.primitive_bitwidth:\n"
    "            raise TypeError(f\"cuTile does not promote {a} with {b}\")\n"
    "        return a if a.primitive_bitwidth > b.primitive_bitwidth else b\n"
    "    if a.is_int_signed() != b.is_int_signed():\n"
    "        raise TypeError(f\"cuTile does not promote {a} with {b} (signed with unsigned)\")\n"
    "    return a if a.int_bitwidth > b.int_bitwidth else b\n";

static const char FLOAT_DTYPE[] =
    "@triton.constexpr_function\n"
    "def ct_float_dtype(dtype):\n"
    "    \"\"\"The dtype of cuTile's float functions (exp, sqrt, /, ...) on `dtype`: integers and\n"
    "    bool give float32.\"\"\"\n"
    "    return dtype if dtype.is_floating() else tl.float32\n";

static const char COMPUTE_DTYPE[] =
    "@triton.constexpr_function\n"
    "def ct_compute_dtype(dtype):\n"
    "    \"\"\"Where a float function of `dtype` is computed: float16/bfloat16 in float32 (rounded\n"
    "    back once: float32 has enough bits that the result is the correctly rounded one for\n"
    "    + - * / sqrt), float32/float64 in themselves.\"\"\"\n"
    "    return tl.float32 if dtype.primitive_bitwidth < 32 else dtype\n";

static const char INTERPRETED_NUMPY[] =
    "@triton.constexpr_function\n"
    "def interpreted_numpy(name, *args):\n"
    "    \"\"\"Only under TRITON_INTERPRET=1, which has no libdevice: numpy's function `name` on\n"
    "    the interpreter's float32/float64 tensors (the GPU path calls libdevice instead).\"\"\"\n"
    "    import numpy as np\n"
    "    from triton.runtime.interpreter import TensorHandle\n"
    "    like = next(a for a in args if isinstance(a, tl.tensor))\n"
    "    values = [a.handle.data if isinstance(a, tl.tensor) else a for a in args]\n"
    "    with np.errstate(all=\"ignore\"):\n"
    "        result = np.asarray(getattr(np, name)(*values)).astype(like.handle.data.dtype)\n"
    "    return tl.tensor(TensorHandle(result, like.handle.dtype), like.type)\n";

/* --------------------------------------------------------- arithmetic */

static const char BF16_OPERAND[] =
    "@triton.jit\n"
    "def ct_bf16_operand(x, other_dtype: tl.constexpr):\n"
    "    \"\"\"x, an integer or bool operand of an operation whose other operand has dtype\n"
    "    `other_dtype`: cuTile computes an integer with bfloat16 in bfloat16, Triton would use\n"
    "    float32, so x becomes bfloat16 there and stays as it is otherwise.\"\"\"\n"
    "    if other_dtype == tl.bfloat16:\n"
    "        return x.to(tl.bfloat16)\n"
    "    else:\n"
    "        return x\n";

static const char TRUEDIV[] =
    "@triton.jit\n"
    "def ct_truediv(x, y):\n"
    "    \"\"\"x / y as cuTile computes it: IEEE round-to-nearest (Triton's float32 / is\n"
    "    approximate), integers divide as float32, float16/bfloat16 stay in their dtype\n"
    "    (Triton gives float32).\"\"\"\n"
    "    dtype: tl.constexpr = ct_float_dtype(ct_common_dtype(x, y))\n"
    "    if dtype == tl.float64:\n"
    "        return tl.cast(x, tl.float64) / tl.cast(y, tl.float64)  # float64 division is IEEE\n"
    "    else:\n"
    "        return tl.div_rn(tl.cast(x, tl.float32), tl.cast(y, tl.float32)).to(dtype)\n";

static const char FLOORDIV[] =
    "@triton.jit\n"
    "def ct_floordiv(x, y):\n"
    "    \"\"\"x // y as cuTile (and Python) computes it: rounded toward negative infinity\n"
    "    (Triton's // truncates toward zero and rejects floats); floats give floor(x / y)\n"
    "    with an IEEE division, in their dtype.\"\"\"\n"
    "    dtype: tl.constexpr = ct_common_dtype(x, y)\n"
    "    if dtype.is_floating():\n"
    "        q = ct_truediv(x, y)\n"
    "        return tl.floor(q.to(ct_compute_dtype(dtype))).to(dtype)\n"
    "    else:\n"
    "        x = tl.cast(x, dtype)\n"
    "        y = tl.cast(y, dtype)\n"
    "        q = x // y\n"
    "        r = x - q * y\n"
    "        return q - ((r != 0) & ((r < 0) != (y < 0))).to(dtype)\n";

static const char MOD[] =
    "@triton.jit\n"
    "def ct_mod(x, y):\n"
    "    \"\"\"x % y as cuTile (and Python) computes it: the result has the sign of y (Triton's %\n"
    "    is C's remainder, with the sign of x); float16/bfloat16 stay in their dtype.\"\"\"\n"
    "    dtype: tl.constexpr = ct_common_dtype(x, y)\n"
    "    x = tl.cast(x, ct_compute_dtype(dtype) if dtype.is_floating() else dtype)\n"
    "    y = tl.cast(y, ct_compute_dtype(dtype) if dtype.is_floating() else dtype)\n"
    "    r = x % y\n"
    "    fix = (r != 0) & ((r < 0) != (y < 0))\n"
    "    return tl.where(fix, r + y, r).to(dtype)\n";

static const char POW[] =
    "@triton.jit\n"
    "def ct_pow(x, y):\n"
    "    \"\"\"x ** y as cuTile computes it: both operands promoted to their common float dtype\n"
    "    (libdevice pow; float16/bfloat16 computed in float32 and rounded back). cuTile has no\n"
    "    integer ** integer.\"\"\"\n"
    "    dtype: tl.constexpr = ct_common_dtype(x, y)\n"
    "    tl.static_assert(dtype.is_floating(), \"cuTile has no integer ** integer\")\n"
    "    x = tl.cast(x, ct_compute_dtype(dtype))\n"
    "    y = tl.cast(y, ct_compute_dtype(dtype))\n"
    "    if INTERPRETED:\n"
    "        r = interpreted_numpy(\"power\", x, y)\n"
    "    else:\n"
    "        r = libdevice.pow(x, y)\n"
    "    return r.to(dtype)\n";

static const char ATAN2[] =
    "@triton.jit\n"
    "def ct_atan2(x1, x2):\n"
    "    \"\"\"ct.atan2(x1, x2): the angle of (x2, x1) in [-pi, pi], in the common dtype of x1 and\n"
    "    x2 (integers give float32; float16/bfloat16 computed in float32 and rounded back).\"\"\"\n"
    "    dtype: tl.constexpr = ct_float_dtype(ct_common_dtype(x1, x2))\n"
    "    x1 = tl.cast(x1, ct_compute_dtype(dtype))\n"
    "    x2 = tl.cast(x2, ct_compute_dtype(dtype))\n"
    "    if INTERPRETED:\n"
    "        r = interpreted_numpy(\"arctan2\", x1, x2)\n"
    "    else:\n"
    "        r = libdevice.atan2(x1, x2)\n"
    "    return r.to(dtype)\n";

/* ------------------------------------------------- directed rounding */

static const char ROUND_DIRECTED[] =
    "@triton.jit\n"
    "def ct_round_directed(q, exact_above, exact_below, MODE: tl.constexpr):\n"
    "    \"\"\"Only under TRITON_INTERPRET=1: the float32 `q`, rounded to nearest, moved one ulp\n"
    "    where the exact result lies above it (`exact_above`) or below it (`exact_below`) and\n"
    "    MODE (\"rz\" toward zero, \"rd\" down, \"ru\" up) rounds the other way. The callers find\n"
    "    the side from a remainder that is exact in float64.\"\"\"\n"
    "    bits = q.to(tl.int32, bitcast=True)\n"
    "    up = tl.where(q > 0, bits + 1, tl.where(q < 0, bits - 1, 1)).to(tl.float32, bitcast=True)\n"
    "    down = tl.where(q > 0, bits - 1, tl.where(q < 0, bits + 1, -2147483647)).to(tl.float32, bitcast=True)\n"
    "    if MODE == \"rd\":\n"
    "        return tl.where(exact_below, down, q)\n"
    "    elif MODE == \"ru\":\n"
    "        return tl.where(exact_above, up, q)\n"
    "    else:\n"
    "        return tl.where((q > 0) & exact_below, down, tl.where((q < 0) & exact_above, up, q))\n";

static const char DIV_DIRECTED[] =
    "@triton.jit\n"
    "def ct_truediv_directed(x, y, MODE: tl.constexpr):\n"
    "    \"\"\"ct.truediv(x, y, rounding_mode=RZ/RM/RP) on float32: the quotient rounded toward\n"
    "    zero (MODE \"rz\"), down (\"rd\") or up (\"ru\"), as libdevice's div_rz/rd/ru.\"\"\"\n"
    "    tl.static_assert(ct_common_dtype(x, y) == tl.float32, \"converted for float32 only\")\n"
    "    x = tl.cast(x, tl.float32)\n"
    "    y = tl.cast(y, tl.float32)\n"
    "    if INTERPRETED:\n"
    "        q = tl.div_rn(x, y)\n"
    "        r = (x.to(tl.float64) - q.to(tl.float64) * y.to(tl.float64)) * y.to(tl.float64)\n"
    "        return ct_round_directed(q, r > 0, r < 0, MODE)\n"
    "    elif MODE == \"rz\":\n"
    "        return libdevice.div_rz(x, y)\n"
    "    elif MODE == \"rd\":\n"
    "        return libdevice.div_rd(x, y)\n"
    "    else:\n"
    "        return libdevice.div_ru(x, y)\n";

static const char SQRT_DIRECTED[] =
    "@triton.jit\n"
    "def ct_sqrt_directed(x, MODE: tl.constexpr):\n"
    "    \"\"\"ct.sqrt(x, rounding_mode=RZ/RM/RP) on float32: the square root rounded toward zero\n"
    "    (MODE \"rz\"), down (\"rd\") or up (\"ru\"), as libdevice's sqrt_rz/rd/ru.\"\"\"\n"
    "    tl.static_assert(x.dtype == tl.float32, \"converted for float32 only\")\n"
    "    x = tl.cast(x, tl.float32)\n"
    "    if INTERPRETED:\n"
    "        q = tl.sqrt_rn(x)\n"
    "        r = x.to(tl.float64) - q.to(tl.float64) * q.to(tl.float64)\n"
    "        return ct_round_directed(q, r > 0, r < 0, MODE)\n"
    "    elif MODE == \"rz\":\n"
    "        return libdevice.sqrt_rz(x)\n"
    "    elif MODE == \"rd\":\n"
    "        return libdevice.sqrt_rd(x)\n"
    "    else:\n"
    "        return libdevice.sqrt_ru(x)\n";

static const char DIV_APPROX[] =
    "@triton.jit\n"
    "def ct_truediv_approx(x, y):\n"
    "    \"\"\"ct.truediv(x, y, rounding_mode=APPROX) on float32: Triton's plain / on float32,\n"
    "    the approximate division.\"\"\"\n"
    "    tl.static_assert(ct_common_dtype(x, y) == tl.float32, \"converted for float32 only\")\n"
    "    return tl.cast(x, tl.float32) / tl.cast(y, tl.float32)\n";

/* ------------------------------------------------------------ lookup */

typedef struct HelperText {
  const char *name;
  const char *source;
  const char *needs[4]; /* helpers it calls */
  bool libdevice;       /* uses libdevice and the INTERPRETED flag */
} HelperText;

static const HelperText HELPERS[] = {
    {"ct_common_dtype", COMMON_DTYPE, {NULL}, false},
    {"ct_float_dtype", FLOAT_DTYPE, {NULL}, false},
    {"ct_compute_dtype", COMPUTE_DTYPE, {NULL}, false},
    {"interpreted_numpy", INTERPRETED_NUMPY, {NULL}, false},
    {"ct_bf16_operand", BF16_OPERAND, {NULL}, false},
    {"ct_truediv", TRUEDIV, {"ct_common_dtype", "ct_float_dtype"}, false},
    {"ct_floordiv", FLOORDIV, {"ct_truediv", "ct_compute_dtype"}, false},
    {"ct_mod", MOD, {"ct_common_dtype", "ct_compute_dtype"}, false},
    {"ct_pow", POW, {"ct_common_dtype", "ct_compute_dtype", "interpreted_numpy"}, true},
    {"ct_atan2", ATAN2, {"ct_common_dtype", "ct_float_dtype", "ct_compute_dtype", "interpreted_numpy"}, true},
    {"ct_round_directed", ROUND_DIRECTED, {NULL}, false},
    {"ct_truediv_directed", DIV_DIRECTED, {"ct_round_directed", "ct_common_dtype"}, true},
    {"ct_truediv_approx", DIV_APPROX, {"ct_common_dtype"}, false},
    {"ct_sqrt_directed", SQRT_DIRECTED, {"ct_round_directed"}, true},
};

Node *math_helper(Lowerer *L, const char *name) {
  for (size_t i = 0; i < sizeof HELPERS / sizeof HELPERS[0]; i++) {
    const HelperText *helper = &HELPERS[i];
    if (strcmp(helper->name, name) != 0)
      continue;
    for (int j = 0; j < 4 && helper->needs[j]; j++) /* helpers it calls come first */
      math_helper(L, helper->needs[j]);
    if (helper->libdevice) {
      L->needs_libdevice = true;
      L->needs_interpreted_flag = true;
    }
    return use_runtime(L, helper->name, helper->source);
  }
  lower_error(L, NULL, "internal error: no math helper '%s'", name);
}

static const char FLOAT32_ONLY[] =
    "    tl.static_assert(x.dtype == tl.float32, \"cuTile takes this rounding mode for float32 only\")\n";

/* ct_<name>(x): a float math function with cuTile's dtypes: integers and
 * bool give float32, float16/bfloat16 are computed in float32 and rounded
 * back (Triton's math functions take float32/float64 only). */
Node *math_unary_helper(Lowerer *L, const char *name, const char *gpu_expr, const char *interpreted_expr,
                        const char *doc, bool float32_only) {
  math_helper(L, "ct_float_dtype");
  math_helper(L, "ct_compute_dtype");
  Buf body = {0};
  if (interpreted_expr) {
    if (strstr(interpreted_expr, "interpreted_numpy"))
      math_helper(L, "interpreted_numpy");
    L->needs_libdevice = true;
    L->needs_interpreted_flag = true;
    buf_printf(&body,
               "    if INTERPRETED:\n"
               "        r = %s\n"
               "    else:\n"
               "        r = %s\n",
               interpreted_expr, gpu_expr);
  } else {
    buf_printf(&body, "    r = %s\n", gpu_expr);
  }
  const char *source = arena_printf(&L->ctx->arena,
                                    "@triton.jit\n"
                                    "def %s(x):\n"
                                    "    \"\"\"%s\"\"\"\n"
                                    "%s"
                                    "    dtype: tl.constexpr = ct_float_dtype(x.dtype)\n"
                                    "    x = x.to(ct_compute_dtype(dtype))\n"
                                    "%s"
                                    "    return r.to(dtype)\n",
                                    name, doc, float32_only ? FLOAT32_ONLY : "", body.data);
  buf_free(&body);
  return use_runtime(L, arena_strndup(&L->ctx->arena, name, strlen(name)), source);
}
