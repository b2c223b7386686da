/*
 * lower_math_unary.c — unary elementwise operations and conversions with
 * cuTile's semantics.
 *
 *   exp, exp2, log, log2, sqrt, rsqrt, sin, cos, tan, sinh, cosh, tanh,
 *   floor, ceil   float functions: integer and bool inputs become float32
 *                 first; float16/bfloat16 are computed in float32 and
 *                 rounded back (Triton's math takes float32/float64 only).
 *                 exp and tanh default to full precision (libdevice),
 *                 sqrt to IEEE round-to-nearest (tl.sqrt_rn); APPROX picks
 *                 the approximate instructions. floor/ceil reject integers.
 *   -x, ~x, abs, isnan
 *   astype        x.to(dtype): float->int truncates, int->bool is != 0,
 *                 float->float rounds to nearest or toward zero on request
 *   bitcast       x.to(dtype, bitcast=True), same width, no bool
 *   float8_e8m0fnu  its uint8 bits: astype from it is exact (2**(b-127)),
 *                 to it is cuTile's RZ/RP rounding (not converted); its
 *                 constants fold as cuTile folds them
 *   ct.int16(5)   a strictly typed constant: folded here, a 0-d tile
 *   int() float() bool()  on scalars
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower_math.h"

static const char *dtype_name(DType dtype) { return dtype_info(dtype)->cutile; }

/* A Python number as a 0-d tensor of `dtype` (helpers read .dtype). */
static Node *number_as_tensor(Lowerer *L, Node *x, DType dtype) {
  Node *made = T(L, "tl.full((), _1, _2)", x, T0(L, dtype_info(dtype)->triton));
  made->type = type_tile(L->ctx, dtype, 0, NULL);
  return made;
}

/* A Python number given to a float function: cuTile makes it float32. */
static Node *float_operand(Lowerer *L, Node *x) {
  return math_is_number(x->type) ? number_as_tensor(L, x, DT_FLOAT32) : x;
}

static void require_value(Lowerer *L, Node *at, const char *what, const TypeInfo *type) {
  if (!type || (type->kind != VAL_TILE && type->kind != VAL_CONST))
    lower_error(L, at, "%s of %s cannot be converted", what, type_describe(L->ctx, type));
}

/* ------------------------------------------------------ float functions */

typedef struct UnaryFunction {
  const char *member;
  const char *signature;
  const char *helper;           /* the default form */
  const char *gpu_expr;         /* on `x` in float32/float64 */
  const char *interpreted_expr; /* NULL: the GPU expression runs in the interpreter too */
  const char *doc;
  bool rejects_integers; /* floor, ceil */
} UnaryFunction;

static const UnaryFunction FUNCTIONS[] = {
#define UNARY(NAME, SIGNATURE, HELPER, GPU, INTERPRETED, HELPER_DOC, REJECTS_INTEGERS, DOC) \
  {NAME, SIGNATURE, HELPER, GPU, INTERPRETED, HELPER_DOC, REJECTS_INTEGERS},
#define QUERY(NAME, SUMMARY, EXAMPLE)
#include "ops/math_unary.def"
#undef UNARY
#undef QUERY
};

static const UnaryFunction EXP_APPROX = {
    "exp", NULL, "ct_exp_approx", "tl.exp(x)", NULL,
    "ct.exp(x, rounding_mode=RoundingMode.APPROX): the approximate exponential (tl.exp).", false};
static const UnaryFunction TANH_APPROX = {
    "tanh", NULL, "ct_tanh_approx",
    "tl.inline_asm_elementwise(\"tanh.approx.f32 $0, $1;\", \"=f,f\", [x], dtype=tl.float32, is_pure=True, pack=1)",
    "interpreted_numpy(\"tanh\", x)",
    "ct.tanh(x, rounding_mode=RoundingMode.APPROX) on float32: the tanh.approx.f32 instruction.", false};
static const UnaryFunction SQRT_APPROX = {
    "sqrt", NULL, "ct_sqrt_approx", "tl.sqrt(x)", NULL,
    "ct.sqrt(x, rounding_mode=RoundingMode.APPROX): the approximate square root (tl.sqrt).", false};

/* exp2's result is never negative and exp2 of a subnormal is 1.0 either way: flushing it is
 * flushing the result (interpreted); on the GPU the instruction cuTile's flush_to_zero=True is,
 * one MUFU operation where flushing around it would add several per element (TileGym's
 * attention kernels take exp2 so in their inner loops). */
static const UnaryFunction EXP2_FTZ = {
    "exp2", NULL, "ct_exp2_ftz",
    "tl.inline_asm_elementwise(\"ex2.approx.ftz.f32 $0, $1;\", \"=f,f\", [x], dtype=tl.float32, is_pure=True, pack=1)",
    "tl.where(tl.exp2(x) < 1.1754943508222875e-38, 0.0, tl.exp2(x))",
    "ct.exp2(x, flush_to_zero=True) on float32: the ex2.approx.ftz.f32 instruction (a subnormal result is 0).",
    false};

static Node *call_unary_helper(Lowerer *L, const UnaryFunction *fn, Node *x) {
  bool float32_only = fn == &EXP_APPROX || fn == &TANH_APPROX || fn == &SQRT_APPROX || fn == &EXP2_FTZ;
  Node *helper = math_unary_helper(L, fn->helper, fn->gpu_expr, fn->interpreted_expr, fn->doc, float32_only);
  return T(L, "_1(_2)", helper, float_operand(L, x));
}

/* The rounding_mode of exp/tanh/sqrt: the helper it picks (NULL: the
 * default form), or a located error for modes with no faithful form. */
static const UnaryFunction *rounded_form(Lowerer *L, const UnaryFunction *fn, const char *mode, DType dtype,
                                         Node *source, const char *what) {
  if (!mode)
    return fn;
  bool is_sqrt = strcmp(fn->member, "sqrt") == 0;
  bool float32_only = strcmp(mode, "APPROX") == 0 || strcmp(mode, "FULL") == 0 ||
                      (is_sqrt && strcmp(mode, "RN") != 0);
  if (float32_only && dtype != DT_FLOAT32 && dtype != DT_UNKNOWN) /* unknown: the helper checks */
    lower_error(L, source, "%s with rounding_mode=RoundingMode.%s is converted for float32 input only (here: %s)",
                what, mode, dtype_name(dtype));
  if (is_sqrt) {
    if (strcmp(mode, "RN") == 0)
      return fn;
    if (strcmp(mode, "APPROX") == 0)
      return &SQRT_APPROX;
    if (strcmp(mode, "RZ") == 0 || strcmp(mode, "RM") == 0 || strcmp(mode, "RP") == 0)
      return NULL; /* ct_sqrt_directed */
  } else if (strcmp(mode, "FULL") == 0) {
    return fn;
  } else if (strcmp(mode, "APPROX") == 0) {
    return strcmp(fn->member, "exp") == 0 ? &EXP_APPROX : &TANH_APPROX;
  }
  lower_error(L, source, "%s does not accept rounding_mode=RoundingMode.%s", what, mode);
}

static Node *lower_float_function(Lowerer *L, Node *call, const UnaryFunction *fn) {
  BoundArgs args;
  const char *what = arena_printf(&L->ctx->arena, "ct.%s()", fn->member);
  bind_op(L, call, what, fn->member, &args); /* the row's signature (ops/math_unary.def) */
  Node *x = ARG(args, "x");
  if (!x)
    lower_error(L, call, "%s: missing required argument 'x'", what);
  require_value(L, call, what, x->type);
  DType in = math_is_number(x->type) ? (x->type->dtype == DT_UNKNOWN ? DT_UNKNOWN : DT_FLOAT32) : x->type->dtype;
  note_read_as_numbers(L, call, x->type);
  if (math_dtype_is_restricted(in))
    lower_error(L, call, "%s: cuTile does no arithmetic on %s", what, dtype_name(in));
  bool integer_input = in != DT_UNKNOWN && !math_dtype_is_float(in) &&
                       !(math_is_number(x->type) && x->type->dtype != DT_UNKNOWN);
  if (fn->rejects_integers && (integer_input || (math_is_number(x->type) && !x->type->is_float)))
    lower_error(L, call, "%s takes a float tile in cuTile, not %s", what,
                math_is_number(x->type) ? "an integer" : dtype_name(in));
  DType out = in == DT_UNKNOWN ? DT_UNKNOWN : math_dtype_is_float(in) ? in : DT_FLOAT32;
  const char *mode = NULL;
  Node *mode_source = bound_slot(&args, "rounding_mode") < 0 ? NULL : SRC(args, "rounding_mode");
  if (mode_source)
    mode = math_rounding_mode(L, ARG(args, "rounding_mode"), mode_source, what);
  bool flush = bound_slot(&args, "flush_to_zero") >= 0 && SRC(args, "flush_to_zero") &&
               math_true_constant(L, ARG(args, "flush_to_zero"), SRC(args, "flush_to_zero"), what);
  const UnaryFunction *form = rounded_form(L, fn, mode, out, mode_source, what);
  if (flush && form == fn && strcmp(fn->member, "exp2") == 0) { /* one instruction */
    form = &EXP2_FTZ;
    flush = false;
  }
  if (flush) /* its operand and result (math_flushed) */
    x = math_flushed(L, x);
  Node *result;
  if (!form) {
    const char *direction = strcmp(mode, "RZ") == 0 ? "\"rz\"" : strcmp(mode, "RM") == 0 ? "\"rd\"" : "\"ru\"";
    result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_sqrt_directed), float_operand(L, x), T0(L, direction));
  } else {
    result = call_unary_helper(L, form, x);
  }
  result->type = math_tile_type(L, math_is_number(x->type) ? NULL : x->type, out);
  return flush ? math_flushed(L, result) : result;
}

Node *lower_math_unary_function(Lowerer *L, Node *call, const char *member) {
  if (strcmp(member, "negative") == 0 || strcmp(member, "bitwise_not") == 0) {
    BoundArgs args;
    const char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
    bind_call(L, call, what, "x, /", &args);
    Node *x = require_arg(L, call, &args, 0, what, "x");
    return member[0] == 'n' ? lower_math_negative(L, call, x) : lower_math_bitwise_not(L, call, x);
  }
  for (size_t i = 0; i < sizeof FUNCTIONS / sizeof FUNCTIONS[0]; i++)
    if (strcmp(FUNCTIONS[i].member, member) == 0)
      return lower_float_function(L, call, &FUNCTIONS[i]);
  lower_error(L, call, "ct.%s is not supported by the converter yet", member);
}

/* ------------------------------------------------- -x, ~x, abs, isnan */

static TypeInfo *negated_number(Lowerer *L, const Node *at, const TypeInfo *type) {
  TypeInfo *copy = type_new(L->ctx, VAL_CONST);
  *copy = *type;
  copy->int_value = type->is_float || type->dtype == DT_UNKNOWN ? 0 : fold_int(L, at, 'n', type->int_value, 0);
  copy->float_value = -type->float_value;
  if (type->dtype == DT_BOOL) /* -True is -1 */
    copy->dtype = DT_INT32;
  return copy;
}

/* -x: bool tiles become int32 first (cuTile); unsigned wraps. */
Node *lower_math_negative(Lowerer *L, Node *expr, Node *operand) {
  TypeInfo *type = operand->type;
  require_value(L, expr, "negation", type);
  if (math_is_number(type)) {
    Node *result = T(L, "-_1", operand);
    result->type = negated_number(L, expr, type);
    return result;
  }
  if (math_dtype_is_restricted(type->dtype))
    lower_error(L, expr, "negation: cuTile does no arithmetic on %s", dtype_name(type->dtype));
  note_read_as_numbers(L, expr, type);
  if (type->dtype == DT_BOOL) {
    Node *result = T(L, "-(_1.to(tl.int32))", operand);
    result->type = math_tile_type(L, type, DT_INT32);
    return result;
  }
  bool maybe_bool = type->dtype == DT_UNKNOWN && !type->float_kind; /* a bool array's tile: int32 */
  Node *result = maybe_bool ? T(L, "_1(_2)", use_helper(L, HELPER_ct_negative), operand) : T(L, "-_1", operand);
  result->type = math_tile_type(L, type, type->dtype);
  result->type->dtype_expr = type->dtype_expr;
  result->type->float_kind = type->float_kind;
  if (maybe_bool && type->dtype_expr)
    result->type->dtype_expr = T(L, "tl.int32 if _1 == tl.int1 else _1", type->dtype_expr,
                                 node_copy_tree(&L->ctx->arena, type->dtype_expr));
  return result;
}

/* ~x: integers flip their bits, bool tiles are negated; floats and bool
 * constants are errors in cuTile. */
Node *lower_math_bitwise_not(Lowerer *L, Node *expr, Node *operand) {
  TypeInfo *type = operand->type;
  require_value(L, expr, "the ~ operator", type);
  if (math_is_number(type)) {
    if (type->is_float || type->dtype == DT_BOOL)
      lower_error(L, expr, "~ on a %s constant is not valid in cuTile%s", type->is_float ? "float" : "bool",
                  type->is_float ? "" : " (use `not`)");
    Node *result = T(L, "~_1", operand);
    result->type = type_new(L->ctx, VAL_CONST);
    *result->type = *type;
    result->type->int_value = ~type->int_value;
    return result;
  }
  if (math_dtype_is_float(type->dtype))
    lower_error(L, expr, "~ needs an integer or bool tile, not %s (bitcast floats first)", dtype_name(type->dtype));
  Node *result = T(L, "~_1", operand);
  result->type = math_tile_type(L, type, type->dtype);
  result->type->dtype_expr = type->dtype_expr;
  return result;
}

/* ct.abs(x), abs(x): tl.abs (unsigned and bool stay as they are). */
Node *lower_math_abs(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "abs()", "x, /", &args);
  Node *x = require_arg(L, call, &args, 0, "abs()", "x");
  require_value(L, call, "abs()", x->type);
  if (math_is_number(x->type)) {
    /* known: the number itself; a launch constant: a conditional Triton decides while it compiles
       (a @triton.jit function has no builtin abs) */
    bool known = x->type->dtype != DT_UNKNOWN;
    long long int_value = known && !x->type->is_float ? fold_int(L, call, 'a', x->type->int_value, 0) : 0;
    Node *result = !known               ? T(L, "(_1 if _1 >= 0 else -_1)", x)
                   : x->type->is_float ? new_float(L, fabs(x->type->float_value))
                                       : new_int(L, int_value);
    result->type = type_new(L->ctx, VAL_CONST);
    *result->type = *x->type;
    result->type->int_value = int_value;
    result->type->float_value = known && !x->type->is_float ? (double)int_value : fabs(x->type->float_value);
    return result;
  }
  if (math_dtype_is_restricted(x->type->dtype))
    lower_error(L, call, "abs(): cuTile does no arithmetic on %s", dtype_name(x->type->dtype));
  note_read_as_numbers(L, call, x->type);
  Node *result = x->type->dtype == DT_BOOL ? x : T(L, "tl.abs(_1)", x);
  result->type = math_tile_type(L, x->type, x->type->dtype);
  result->type->dtype_expr = x->type->dtype_expr;
  result->type->float_kind = x->type->float_kind;
  return result;
}

/* ct.isnan(x): x != x (unordered), float tiles only. */
Node *lower_math_isnan(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.isnan()", "x, /", &args);
  Node *x = require_arg(L, call, &args, 0, "ct.isnan()", "x");
  require_value(L, call, "ct.isnan()", x->type);
  bool integer = math_is_number(x->type) ? !x->type->is_float && x->type->dtype != DT_UNKNOWN
                                         : x->type->dtype != DT_UNKNOWN && !math_dtype_is_float(x->type->dtype);
  if (integer)
    lower_error(L, call, "ct.isnan() takes a float tile in cuTile");
  if (math_is_number(x->type))
    x = number_as_tensor(L, x, DT_FLOAT32);
  Node *result;
  if (x->kind == N_NAME) /* a name can be read twice */
    result = T(L, "_1 != _1", x);
  else
    result = T(L, "_1(_2)", use_helper(L, HELPER_ct_isnan), x);
  result->type = math_tile_type(L, x->type, DT_BOOL);
  return result;
}

/* ------------------------------------------------------- conversions */

/* A known constant converted to `dtype` as cuTile converts: floats to
 * integers truncate, integers wrap, anything to bool is != 0. Returns
 * Python text of the value. */
static const char *converted_constant_text(Lowerer *L, const Node *at, const TypeInfo *number, DType dtype) {
  const DTypeInfo *info = dtype_info(dtype);
  if (info->category == 'f') {
    double value = number->is_float ? number->float_value : (double)number->int_value;
    if (isnan(value))
      return "float(\"nan\")";
    if (isinf(value))
      return value > 0 ? "float(\"inf\")" : "float(\"-inf\")";
    const char *digits = arena_printf(&L->ctx->arena, "%.17g", value);
    bool looks_float = strchr(digits, '.') || strchr(digits, 'e');
    return looks_float ? digits : arena_printf(&L->ctx->arena, "%s.0", digits);
  }
  bool nonzero = number->is_float ? number->float_value != 0 : number->int_value != 0;
  if (info->category == 'b')
    return nonzero ? "True" : "False";
  long long value = number->int_value;
  if (number->is_float) {
    if (!isfinite(number->float_value) || fabs(number->float_value) >= 9.2e18)
      lower_error(L, at, "a float constant outside the integer range cannot be converted to an integer dtype");
    value = (long long)number->float_value; /* truncation toward zero */
  }
  unsigned long long bits = (unsigned long long)value;
  if (info->bits < 64)
    bits &= (1ULL << info->bits) - 1;
  if (info->category == 'i' && info->bits < 64 && (bits >> (info->bits - 1)) & 1)
    return arena_printf(&L->ctx->arena, "%lld", (long long)bits - (1LL << info->bits));
  if (info->category == 'u')
    return arena_printf(&L->ctx->arena, "%llu", bits);
  return arena_printf(&L->ctx->arena, "%lld", (long long)bits);
}

Node *math_float8_constant(Lowerer *L, Node *shape, double value, DType dtype) {
  double finite;
  int code = dtype_fold_float8(dtype, value, &finite);
  Node *triton = T0(L, dtype_info(dtype)->triton);
  if (dtype_float8_is_special(dtype, code))
    return T(L, "tl.full(_1, _2, tl.uint8).to(_3, bitcast=True)", shape, new_int(L, code), triton);
  return T(L, "tl.full(_1, _2, tl.float32).to(_3)", shape, T0(L, float_literal_text(L, finite)), triton);
}

/* A Python number as a strictly typed scalar of `dtype`. */
static Node *typed_constant(Lowerer *L, Node *at, Node *x, DType dtype) {
  Node *result;
  if (x->type->dtype != DT_UNKNOWN && (dtype == DT_FLOAT8_E4M3FN || dtype == DT_FLOAT8_E5M2)) {
    const TypeInfo *number = x->type;
    result = math_float8_constant(L, T0(L, "()"), number->is_float ? number->float_value : (double)number->int_value,
                                  dtype);
  } else if (x->type->dtype != DT_UNKNOWN) {
    const char *text = converted_constant_text(L, at, x->type, dtype);
    result = T(L, "tl.full((), _1, _2)", T0(L, text), T0(L, dtype_info(dtype)->triton));
  } else {
    result = T(L, "tl.cast(_1, _2)", x, T0(L, dtype_info(dtype)->triton));
  }
  result->type = type_tile(L->ctx, dtype, 0, NULL);
  return result;
}

static const char *rounding_of(const char *mode) { return strcmp(mode, "RZ") == 0 ? "\"rtz\"" : NULL; }

/* x.to(dtype) with cuTile's astype rules; `source` locates errors. */
static Node *convert_tile(Lowerer *L, Node *at, Node *x, Node *dtype_node, DType dtype, const char *mode,
                          Node *mode_source) {
  DType from = x->type->dtype;
  if (math_is_number(x->type) && dtype != DT_UNKNOWN && !mode)
    return typed_constant(L, at, x, dtype);
  if (math_is_number(x->type))
    x = number_as_tensor(L, x, x->type->is_float ? DT_FLOAT32 : DT_INT32);
  bool float_to_float = math_dtype_is_float(from) && math_dtype_is_float(dtype);
  if (mode && strcmp(mode, "RN") != 0) {
    bool unknown = from == DT_UNKNOWN || dtype == DT_UNKNOWN;
    if (!unknown && !float_to_float)
      lower_error(L, mode_source, "astype(): a rounding_mode is only valid for float to float conversions");
    bool widening = !unknown && dtype_info(dtype)->bits > dtype_info(from)->bits;
    if (!widening && !rounding_of(mode))
      lower_error(L, mode_source, "astype() with rounding_mode=RoundingMode.%s cannot be converted (Triton rounds "
                  "float conversions to nearest or toward zero only)", mode);
    if (!widening) {
      Node *result = T(L, "_1.to(_2, fp_downcast_rounding=\"rtz\")", x, dtype_node);
      result->type = math_tile_type(L, x->type, dtype);
      return result;
    }
  }
  /* a float to bool is x != 0, NaN true: cuTile's `ftoi unsigned` to i1, which tileiras 13.4 writes as
     setp.neu (read in its PTX), and Triton's cast (une). The counter of a ct.static_iter loop is
     a Python int to Triton (tl.static_range), and a range loop's (and `i - 4`) is one in Triton's
     interpreter: neither has .to, tl.cast takes both. */
  bool python_int = x->type->static_counter || x->type->interpreted_int;
  Node *result = T(L, python_int ? "tl.cast(_1, _2)" : "_1.to(_2)", x, dtype_node);
  result->type = math_tile_type(L, x->type, dtype);
  if (dtype == DT_UNKNOWN)
    result->type->dtype_expr = dtype_node;
  return result;
}

/* astype to tfloat32 (or to a dtype that is tfloat32 when a constexpr
 * condition holds): Triton has no tf32 dtype, so the value is float32
 * rounded as cuTile rounds it (to nearest even: ct_to_tfloat32, an integer or bool
 * tile converted to float32 first; float16 and bfloat16 are tf32 values already) and
 * its type says tfloat32, which the
 * matrix product that takes it reads (input_precision="tf32"); cuTile does
 * nothing else with a tf32 tile. The rounding matters: the tf32 products of
 * sm_80+ truncate float32 operands, a bias of about 2**-11 per operand that
 * a long K sums (TileGym's mhc GEMM failed its 1e-2 tolerance so). */
static Node *convert_to_tf32(Lowerer *L, Node *at, Node *x, Node *dtype, const char *mode, Node *mode_source) {
  if (mode && strcmp(mode, "RN") != 0)
    lower_error(L, mode_source, "astype() to tfloat32 with rounding_mode=RoundingMode.%s cannot be converted", mode);
  if (math_is_number(x->type))
    lower_error(L, at, "astype() of a number to tfloat32 cannot be converted (only matrix products take tfloat32)");
  DType from = x->type->dtype; /* integers and bools too: to float32, then tf32 (ct_to_tfloat32) */
  Node *result;
  TypeInfo *type;
  bool exact = from == DT_FLOAT16 || from == DT_BFLOAT16 || from == DT_TFLOAT32;
  Node *rounded = exact ? T(L, "_1.to(tl.float32)", x)
                        : tf32_twin_or(L, x, T(L, "_1(_2)", use_helper(L, HELPER_ct_to_tfloat32), x));
  if (dtype->type->dtype == DT_TFLOAT32) {
    result = rounded;
    type = math_tile_type(L, x->type, DT_TFLOAT32);
  } else {
    result = T(L, "_1 if _2 else _3.to(_4)", rounded, node_copy_tree(&L->ctx->arena, dtype->type->tf32_when), x,
               dtype);
    type = math_tile_type(L, x->type, DT_UNKNOWN);
    type->dtype_expr = dtype;
    type->tf32_when = dtype->type->tf32_when;
  }
  result->type = type;
  return result;
}

static const char FLOAT4_NAN_NOTE[] =
    "C2T206: astype(float4_e2m1fn): NaN has no FP4 value and cuTile defines none for it; here it is 6.0 (code 7)";

/* astype to float4_e2m1fn: the uint8 code of each element (Triton has no
 * FP4 dtype; rows flagged OPF_FP4 take the codes). cuTile rounds float to
 * FP4 to nearest, ties to even, saturating (cuda/tile/_ir/ops_utils.py
 * gives (float, f4e2m1fn) RN only; cuda/tile/_bytecode/float.py: finite-only,
 * clamped to the largest magnitude). A number known here is folded as cuTile
 * folds it, where NaN is an error. */
static Node *convert_to_float4(Lowerer *L, Node *at, Node *x, const char *mode, Node *mode_source) {
  if (mode && strcmp(mode, "RN") != 0)
    lower_error(L, mode_source, "astype() to float4_e2m1fn takes no rounding_mode but RN in cuTile, not %s", mode);
  TypeInfo *type;
  Node *result;
  if (math_is_number(x->type) && x->type->dtype == DT_BOOL)
    lower_error(L, at, "astype() of a bool constant to float4_e2m1fn cannot be converted");
  if (math_is_number(x->type) && x->type->dtype != DT_UNKNOWN) {
    double value = x->type->is_float ? x->type->float_value : (double)x->type->int_value;
    int code;
    if (!dtype_float4_code(value, &code))
      lower_error(L, at, "astype(): NaN cannot be represented in float4_e2m1fn (cuTile's error too)");
    result = T(L, "tl.full((), _1, tl.uint8)", new_int(L, code));
    type = type_tile(L->ctx, DT_FLOAT4_E2M1FN, 0, NULL);
  } else {
    if (math_is_number(x->type)) /* a constexpr: a Python float, rounded from its double */
      x = number_as_tensor(L, x, DT_FLOAT64);
    DType from = x->type->dtype;
    if (from != DT_UNKNOWN && !math_dtype_is_float(from))
      lower_error(L, at, "astype() of a %s tile to float4_e2m1fn cannot be converted: cuTile documents the "
                  "rounding of float sources only", dtype_name(from));
    result = T(L, "_1(_2)", use_helper(L, HELPER_ct_to_float4_e2m1fn), x);
    type = math_tile_type(L, x->type, DT_FLOAT4_E2M1FN);
    math_note(L, FLOAT4_NAN_NOTE);
  }
  result->type = type;
  return result;
}

/* astype of a float4_e2m1fn tile (its codes) to a float dtype: exact. */
static Node *convert_from_float4(Lowerer *L, Node *at, Node *x, Node *dtype_node, DType dtype, const char *mode,
                                 Node *mode_source) {
  if (dtype == DT_FLOAT4_E2M1FN)
    return x;
  if (dtype == DT_UNKNOWN || !math_dtype_is_float(dtype))
    lower_error(L, at, "astype() of a float4_e2m1fn tile to %s cannot be converted: only float dtypes are",
                dtype == DT_UNKNOWN ? "a dtype known only at launch" : dtype_name(dtype));
  if (mode && strcmp(mode, "RN") != 0)
    lower_error(L, mode_source, "astype() of a float4_e2m1fn tile is exact: write it without rounding_mode=%s", mode);
  Node *result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_from_float4_e2m1fn), x, dtype_node);
  result->type = math_tile_type(L, x->type, dtype);
  return result;
}

/* A float8_e8m0fnu tile (its bits) as float32: 2**(b-127) exactly, bits 0
 * the subnormal 2**-127, 255 NaN (ct_float8_e8m0fnu_to_float32). */
static Node *float8_e8m0fnu_as_float32(Lowerer *L, Node *x) {
  Node *result = T(L, "_1(_2)", use_helper(L, HELPER_ct_float8_e8m0fnu_to_float32), x);
  result->type = math_tile_type(L, x->type, DT_FLOAT32);
  return result;
}

/* astype to float8_e8m0fnu: cuTile converts floats to it with RZ or RP only
 * (cuda/tile/_ir/ops_utils.py: no RN row, the default), on the GPU, whose
 * results for zero, negative, NaN and out-of-range values it does not
 * document; integers with no rounding_mode, likewise on the GPU. */
static _Noreturn void refuse_to_float8_e8m0fnu(Lowerer *L, const Node *at, const char *what, const TypeInfo *x,
                                               const char *mode, const Node *mode_source) {
  DType from = math_is_number(x) ? (x->is_float ? DT_FLOAT32 : DT_INT32) : x->dtype;
  if (from != DT_UNKNOWN && math_dtype_is_float(from) && (!mode || strcmp(mode, "RN") == 0))
    lower_error(L, mode_source ? mode_source : at, "%s: cuTile converts %s to float8_e8m0fnu only with "
                "rounding_mode=RoundingMode.RZ or RoundingMode.RP, not RN (the default)", what, dtype_name(from));
  lower_error(L, mode_source && mode ? mode_source : at,
              "%s: a conversion of %s to float8_e8m0fnu%s%s cannot be converted: cuTile leaves it to the GPU, whose "
              "results for zero, negative, NaN and out-of-range values it does not document (ct.bitcast a uint8 "
              "tile of exponent bits instead)", what,
              math_is_number(x) ? "a number" : from == DT_UNKNOWN ? "a tile whose dtype is known only at launch"
                                                                  : arena_printf(&L->ctx->arena, "a %s tile",
                                                                                 dtype_name(from)),
              mode ? " with rounding_mode=RoundingMode." : "", mode ? mode : "");
}

/* astype of the lowered tile or number x to the lowered dtype (the rules of
 * lower_math_astype, whose call `at` locates errors) */
Node *math_astype_value(Lowerer *L, Node *at, Node *x, Node *dtype, const char *mode, Node *mode_source) {
  bool from_e8m0 = !math_is_number(x->type) && x->type->dtype == DT_FLOAT8_E8M0FNU;
  if (from_e8m0 && dtype->type->dtype == DT_FLOAT8_E8M0FNU)
    return x;
  if (dtype->type->dtype == DT_FLOAT8_E8M0FNU)
    refuse_to_float8_e8m0fnu(L, at, "astype()", x->type, mode, mode_source);
  if (from_e8m0) {
    /* exact in float32, so float32's conversion to the target is cuTile's (one rounding) */
    if (mode && strcmp(mode, "RN") != 0)
      lower_error(L, mode_source, "astype() of a float8_e8m0fnu tile with rounding_mode=RoundingMode.%s cannot be "
                  "converted (the converter takes RN only from float8_e8m0fnu)", mode);
    x = float8_e8m0fnu_as_float32(L, x);
    if (dtype->type->dtype == DT_FLOAT32)
      return x;
  }
  if (!math_is_number(x->type) && x->type->dtype == DT_FLOAT4_E2M1FN)
    return convert_from_float4(L, at, x, dtype, dtype->type->dtype, mode, mode_source);
  if (dtype->type->dtype == DT_FLOAT4_E2M1FN)
    return convert_to_float4(L, at, x, mode, mode_source);
  if (dtype->type->dtype == DT_TFLOAT32 || dtype->type->tf32_when)
    return convert_to_tf32(L, at, x, dtype, mode, mode_source);
  return convert_tile(L, at, x, dtype, dtype->type->dtype, mode, mode_source);
}

/* ct.astype(x, dtype, rounding_mode=), x.astype(dtype) */
Node *lower_math_astype(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "astype()", "x, dtype, /, *, rounding_mode", &args);
  Node *x = require_arg(L, call, &args, 0, "astype()", "x");
  Node *dtype = require_arg(L, call, &args, 1, "astype()", "dtype");
  require_value(L, call, "astype()", x->type);
  if (dtype->type->kind != VAL_DTYPE)
    lower_error(L, args.source[1], "astype() needs a dtype");
  const char *mode = math_rounding_mode(L, args.arg[2], args.source[2], "astype()");
  if (dtype->type->dtype != DT_UNKNOWN) /* (to an array's dtype it may be the tile's own: no conversion) */
    note_read_as_numbers(L, call, x->type);
  Node *result = math_astype_value(L, call, x, dtype, mode, args.source[2]);
  /* a load's tile converted: lower_memory_kmajor.c may convert the same tile read from a copy */
  reuse_note_convert(L, x, result, &(ReuseConvert){call, dtype, mode, args.source[2], x->type});
  return result;
}

/* ct.bitcast(x, dtype): the same bits as another dtype of the same width. */
Node *lower_math_bitcast(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.bitcast()", "x, /, dtype", &args);
  Node *x = require_arg(L, call, &args, 0, "ct.bitcast()", "x");
  Node *dtype = require_arg(L, call, &args, 1, "ct.bitcast()", "dtype");
  require_value(L, call, "ct.bitcast()", x->type);
  if (dtype->type->kind != VAL_DTYPE)
    lower_error(L, args.source[1], "ct.bitcast() needs a dtype");
  if (math_is_number(x->type)) {
    if (x->type->dtype == DT_UNKNOWN)
      lower_error(L, call, "ct.bitcast() of a constant parameter cannot be converted");
    x = number_as_tensor(L, x, x->type->is_float ? DT_FLOAT32 : x->type->dtype == DT_BOOL ? DT_BOOL : DT_INT32);
  }
  DType from = x->type->dtype, to = dtype->type->dtype;
  if (from == DT_BOOL || to == DT_BOOL)
    lower_error(L, call, "ct.bitcast() does not take bool");
  if (from != DT_UNKNOWN && to != DT_UNKNOWN && dtype_info(from)->bits != dtype_info(to)->bits)
    lower_error(L, call, "ct.bitcast() needs dtypes of the same width, not %s and %s", dtype_name(from),
                dtype_name(to));
  /* uint8 and float8_e8m0fnu are both uint8 bits in Triton */
  bool same_bits =
      from != DT_UNKNOWN && to != DT_UNKNOWN && strcmp(dtype_info(from)->triton, dtype_info(to)->triton) == 0;
  Node *result;
  if (same_bits) { /* the same node, retyped (a shallow copy: x keeps its own type) */
    result = arena_alloc(&L->ctx->arena, sizeof(Node));
    *result = *x;
  } else {
    result = T(L, "_1.to(_2, bitcast=True)", x, dtype);
  }
  result->type = math_tile_type(L, x->type, to);
  if (to == DT_UNKNOWN)
    result->type->dtype_expr = dtype;
  return result;
}

Node *math_float8_e8m0fnu_fill(Lowerer *L, const Node *at, const Node *value, const char *what) {
  const TypeInfo *type = value->type;
  if (!math_is_number(type)) /* cuTile converts it with no rounding mode (not astype's rule): on the GPU */
    lower_error(L, at, "%s: a run-time value made float8_e8m0fnu cannot be converted: cuTile converts it on the GPU, "
                "whose rounding to float8_e8m0fnu (of zero, negative, NaN and out-of-range values too) it does not "
                "document (ct.bitcast a uint8 tile of exponent bits instead)", what);
  if (type->dtype == DT_UNKNOWN) { /* a constexpr, or Python arithmetic left to Triton: folded there */
    Node *bits = T(L, "_1(_2)", use_helper(L, HELPER_ct_float8_e8m0fnu_bits), (Node *)value);
    bits->type = type_new(L->ctx, VAL_CONST);
    bits->type->rank = 0;
    bits->type->dtype = DT_UNKNOWN;
    return bits;
  }
  int bits;
  if (!dtype_float8_e8m0fnu_bits(type->is_float ? type->float_value : (double)type->int_value, &bits))
    lower_error(L, at, "%s: negative values cannot be represented in float8_e8m0fnu (cuTile's error too)", what);
  return new_int(L, bits);
}

/* ct.int16(5), ct.float32(x): a strictly typed constant, or astype. */
Node *lower_math_dtype_constructor(Lowerer *L, Node *call, const char *member) {
  DType dtype = dtype_from_cutile_name(member);
  const char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  NodeList *raw = &call->u.call.args;
  bool no_value = raw->count == 0 && call->u.call.keywords.count == 0; /* ct.int32(): cuTile's x=0 */
  bool string = raw->count == 1 && call->u.call.keywords.count == 0 && raw->items[0]->kind == N_STRING;
  BoundArgs args = {0};
  Node *x;
  if (no_value || string) {
    x = no_value ? new_int(L, 0) : lower_number_of_string(L, raw->items[0], dtype, what);
    args.source[0] = no_value ? call : raw->items[0];
    if (no_value)
      x->span = call->span;
  } else {
    bind_call(L, call, what, "value, /", &args);
    x = require_arg(L, call, &args, 0, what, "value");
  }
  require_value(L, call, what, x->type);
  Node *dtype_node = T0(L, dtype_info(dtype)->triton);
  note_read_as_numbers(L, call, x->type);
  if (dtype == DT_FLOAT8_E8M0FNU) {
    if (!math_is_number(x->type) && x->type->dtype == DT_FLOAT8_E8M0FNU)
      return x;
    Node *result = T(L, "tl.full((), _1, tl.uint8)", math_float8_e8m0fnu_fill(L, args.source[0], x, what));
    result->type = type_tile(L->ctx, DT_FLOAT8_E8M0FNU, 0, NULL);
    return result;
  }
  return convert_tile(L, call, x, dtype_node, dtype, NULL, NULL);
}

/* int(N), float(N), bool(N) of a Constant parameter (its value comes with the
 * launch): Triton applies int() and float() to a constexpr's value at compile
 * time, as Python does; bool() is not a builtin of Triton's, `N != 0` is. */
static Node *python_conversion_of_constexpr(Lowerer *L, Node *x, const char *member) {
  Node *result = member[0] == 'b' ? T(L, "_1 != 0", x) : T(L, member[0] == 'i' ? "int(_1)" : "float(_1)", x);
  TypeInfo *type = type_new(L->ctx, VAL_CONST);
  type->rank = 0;
  type->dtype = DT_UNKNOWN;
  type->loose = true;
  type->is_float = member[0] == 'f';
  result->type = type;
  return result;
}

/* int(x), float(x), bool(x) in tile code: on constants Python's own
 * conversion (folded), on scalars astype to int32, float32, bool. */
Node *lower_math_python_conversion(Lowerer *L, Node *call, const char *member) {
  const char *what = arena_printf(&L->ctx->arena, "%s()", member);
  if (call->u.call.args.count != 1 || call->u.call.keywords.count)
    lower_error(L, call, "%s in tile code takes one argument", what);
  BoundArgs args;
  bind_call(L, call, what, "x, /", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  require_value(L, call, what, x->type);
  TypeInfo *type = x->type;
  if (math_is_number(type)) {
    if (type->dtype == DT_UNKNOWN)
      return python_conversion_of_constexpr(L, x, member);
    TypeInfo *result_type = type_new(L->ctx, VAL_CONST);
    *result_type = *type;
    result_type->loose = true;
    Node *result;
    if (member[0] == 'i') {
      result_type->int_value = type->is_float ? fold_float_to_int(L, call, type->float_value) : type->int_value;
      result_type->float_value = (double)result_type->int_value;
      result_type->is_float = false;
      result_type->dtype = DT_INT32;
      result = new_int(L, result_type->int_value);
    } else if (member[0] == 'f') {
      result_type->float_value = type->is_float ? type->float_value : (double)type->int_value;
      result_type->is_float = true;
      result_type->dtype = DT_FLOAT32;
      result = T0(L, converted_constant_text(L, call, type, DT_FLOAT64));
    } else {
      bool value = type->is_float ? type->float_value != 0 : type->int_value != 0;
      result_type->int_value = value;
      result_type->is_float = false;
      result_type->dtype = DT_BOOL;
      result = T0(L, value ? "True" : "False");
    }
    result->type = result_type;
    return result;
  }
  if (type->rank > 0)
    lower_error(L, call, "%s takes a scalar, not %s", what, type_describe(L->ctx, type));
  DType dtype = member[0] == 'i' ? DT_INT32 : member[0] == 'f' ? DT_FLOAT32 : DT_BOOL;
  if (dtype == DT_BOOL) {
    Node *result = T(L, "_1 != 0", x);
    result->type = math_tile_type(L, type, DT_BOOL);
    return result;
  }
  return convert_tile(L, call, x, T0(L, dtype_info(dtype)->triton), dtype, NULL, NULL);
}
