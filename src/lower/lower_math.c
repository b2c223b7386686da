/*
 * lower_math.c — operators and elementwise math with cuTile's semantics.
 *
 * Where Triton's operator means the same as cuTile's, it stays an
 * operator (+, -, *, comparisons, bitwise). Where it does not, a runtime
 * helper carries cuTile's meaning:
 *   /   IEEE round-to-nearest (Triton's float32 / is approximate), integers
 *       give float32, float16/bfloat16 stay in their dtype (Triton: float32)
 *   //  floor division (Triton truncates; float // is an error there)
 *   %   Python's modulo, sign of the divisor (Triton: C remainder, fmod)
 */
#include <string.h>

#include "lower.h"

/* ------------------------------------------------------------ promotion */

static bool dtype_is_float(DType dt) { return dtype_info(dt)->category == 'f'; }

/* cuTile's promotion of two known dtypes (§4.1); DT_UNKNOWN if either is. */
static DType promote(DType a, DType b) {
  if (a == DT_UNKNOWN || b == DT_UNKNOWN)
    return DT_UNKNOWN;
  if (a == b)
    return a;
  const DTypeInfo *x = dtype_info(a), *y = dtype_info(b);
  if (x->category == 'f' && y->category != 'f')
    return a;
  if (y->category == 'f' && x->category != 'f')
    return b;
  if (x->category == 'b')
    return b;
  if (y->category == 'b')
    return a;
  if (x->category == 'f' && y->category == 'f') {
    if (a == DT_FLOAT64 || b == DT_FLOAT64)
      return DT_FLOAT64;
    return DT_FLOAT32; /* f16 with bf16 is an error in cuTile; f16/bf16 with f32 is f32 */
  }
  return x->bits >= y->bits ? a : b;
}

/* The dtype of `left op right`: a loose constant adopts the typed side. */
static DType result_dtype(const TypeInfo *left, const TypeInfo *right) {
  bool left_loose = left->kind == VAL_CONST && left->loose;
  bool right_loose = right->kind == VAL_CONST && right->loose;
  if (left_loose && !right_loose) {
    if (left->is_float && !dtype_is_float(right->dtype) && right->dtype != DT_UNKNOWN)
      return DT_FLOAT32;
    return right->dtype;
  }
  if (right_loose && !left_loose) {
    if (right->is_float && !dtype_is_float(left->dtype) && left->dtype != DT_UNKNOWN)
      return DT_FLOAT32;
    return left->dtype;
  }
  return promote(left->dtype, right->dtype);
}

/* Shapes broadcast numpy-style. */
static TypeInfo *broadcast_type(Lowerer *L, const TypeInfo *left, const TypeInfo *right, DType dtype) {
  const TypeInfo *bigger = left->rank >= right->rank ? left : right;
  const TypeInfo *smaller = bigger == left ? right : left;
  if (left->kind == VAL_CONST && right->kind == VAL_CONST) {
    TypeInfo *type = type_new(L->ctx, VAL_CONST);
    type->dtype = dtype;
    type->rank = 0;
    type->loose = left->loose && right->loose;
    type->is_float = left->is_float || right->is_float;
    return type;
  }
  TypeInfo *type = type_tile(L->ctx, dtype, bigger->rank < 0 ? -1 : bigger->rank, NULL);
  int offset = bigger->rank - (smaller->rank < 0 ? 0 : smaller->rank);
  for (int d = 0; d < bigger->rank && d < C2T_MAX_RANK; d++) {
    type->shape[d] = bigger->shape[d];
    type->dims[d] = bigger->dims[d];
    int s = d - offset;
    if (smaller->rank > 0 && s >= 0 && bigger->shape[d] == 1 && smaller->shape[s] != 1) {
      type->shape[d] = smaller->shape[s];
      type->dims[d] = smaller->dims[s];
    }
  }
  return type;
}

/* ---------------------------------------------------------- helpers */

static const char TRUEDIV_HELPER[] =
    "@triton.jit\n"
    "def ct_truediv(x, y):\n"
    "    \"\"\"x / y as cuTile computes it: IEEE round-to-nearest (Triton's float32 / is\n"
    "    approximate), integers divide as float32, float16/bfloat16 stay in their dtype.\"\"\"\n"
    "    dtype: tl.constexpr = (x + y).dtype\n"
    "    if dtype == tl.float64:\n"
    "        return tl.div_rn(x.to(tl.float64), y.to(tl.float64))\n"
    "    elif dtype.is_floating():\n"
    "        # float32 holds float16/bfloat16 quotients exactly enough: one rounding to dtype\n"
    "        return tl.div_rn(tl.cast(x, tl.float32), tl.cast(y, tl.float32)).to(dtype)\n"
    "    else:\n"
    "        return tl.div_rn(tl.cast(x, tl.float32), tl.cast(y, tl.float32))\n";

static const char FLOORDIV_HELPER[] =
    "@triton.jit\n"
    "def ct_floordiv(x, y):\n"
    "    \"\"\"x // y as cuTile (and Python) computes it: rounded toward negative infinity.\n"
    "    Triton's // truncates toward zero and rejects floats.\"\"\"\n"
    "    dtype: tl.constexpr = (x + y).dtype\n"
    "    if dtype.is_floating():\n"
    "        return tl.floor(ct_truediv(x, y))\n"
    "    else:\n"
    "        q = x // y\n"
    "        r = x - q * y\n"
    "        return q - ((r != 0) & ((r < 0) != (y < 0))).to(dtype)\n";

static const char MOD_HELPER[] =
    "@triton.jit\n"
    "def ct_mod(x, y):\n"
    "    \"\"\"x % y as cuTile (and Python) computes it: the result has the sign of y.\n"
    "    Triton's % is C's remainder (sign of x).\"\"\"\n"
    "    r = x % y\n"
    "    fix = (r != 0) & ((r < 0) != (y < 0))\n"
    "    return tl.where(fix, r + y, r)\n";

static Node *call_helper(Lowerer *L, const char *name, const char *source, Node *left, Node *right) {
  return T(L, "_1(_2, _3)", use_runtime(L, name, source), left, right);
}

/* ----------------------------------------------------------- operators */

Node *lower_binary_operator(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  TypeInfo *lt = left->type, *rt = right->type;
  if (!lt || !rt || (lt->kind != VAL_TILE && lt->kind != VAL_CONST) || (rt->kind != VAL_TILE && rt->kind != VAL_CONST))
    lower_error(L, expr, "operator on %s and %s cannot be converted", type_describe(L->ctx, lt),
                type_describe(L->ctx, rt));
  DType dtype = result_dtype(lt, rt);
  Node *result;
  switch (op) {
  case AOP_DIV:
    if (lt->kind == VAL_CONST && rt->kind == VAL_CONST && lt->dtype != DT_UNKNOWN && rt->dtype != DT_UNKNOWN) {
      result = T(L, "_1 / _2", left, right);
    } else {
      result = call_helper(L, "ct_truediv", TRUEDIV_HELPER, left, right);
    }
    if (!dtype_is_float(dtype) && dtype != DT_UNKNOWN)
      dtype = DT_FLOAT32;
    break;
  case AOP_FLOORDIV:
  case AOP_MOD:
    if (lt->kind == VAL_CONST && rt->kind == VAL_CONST) {
      result = T(L, op == AOP_MOD ? "_1 % _2" : "_1 // _2", left, right); /* Python semantics already */
    } else if (op == AOP_MOD) {
      result = call_helper(L, "ct_mod", MOD_HELPER, left, right);
    } else {
      use_runtime(L, "ct_truediv", TRUEDIV_HELPER);
      result = call_helper(L, "ct_floordiv", FLOORDIV_HELPER, left, right);
    }
    break;
  case AOP_MATMULT: lower_error(L, expr, "the @ operator is not supported by the converter yet");
  default: {
    Node *made = T(L, "_1 + _2", left, right);
    made->u.bin_op.op = op;
    result = made;
    break;
  }
  }
  result->type = broadcast_type(L, lt, rt, dtype);
  if (lt->kind == VAL_CONST && rt->kind == VAL_CONST && !lt->is_float && !rt->is_float && lt->dtype != DT_UNKNOWN &&
      rt->dtype != DT_UNKNOWN) {
    long long a = lt->int_value, b = rt->int_value;
    switch (op) {
    case AOP_ADD: result->type->int_value = a + b; break;
    case AOP_SUB: result->type->int_value = a - b; break;
    case AOP_MULT: result->type->int_value = a * b; break;
    default: result->type->dtype = DT_UNKNOWN; break; /* value not tracked */
    }
  } else if (lt->kind == VAL_CONST && rt->kind == VAL_CONST) {
    result->type->dtype = DT_UNKNOWN;
  }
  return result;
}

Node *lower_unary_operator(Lowerer *L, Node *expr, AstOp op, Node *operand) {
  TypeInfo *type = operand->type;
  if (!type || (type->kind != VAL_TILE && type->kind != VAL_CONST))
    lower_error(L, expr, "operator on %s cannot be converted", type_describe(L->ctx, type));
  Node *result = T(L, "-_1", operand);
  result->u.unary_op.op = op;
  TypeInfo *copy = type_new(L->ctx, type->kind);
  *copy = *type;
  if (op == AOP_USUB && type->kind == VAL_CONST) {
    copy->int_value = -type->int_value;
    copy->float_value = -type->float_value;
  }
  if (op == AOP_NOT) {
    copy->dtype = DT_BOOL;
    copy->is_float = false;
  }
  result->type = copy;
  return result;
}

Node *lower_comparison(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  TypeInfo *lt = left->type, *rt = right->type;
  if (op == AOP_IS || op == AOP_ISNOT || op == AOP_IN || op == AOP_NOTIN)
    lower_error(L, expr, "'is' and 'in' comparisons cannot be converted in tile code");
  Node *result = T(L, "_1 < _2", left, right);
  result->u.compare.ops[0] = op;
  if (lt->kind == VAL_CONST && rt->kind == VAL_CONST) {
    result->type = type_new(L->ctx, VAL_CONST);
    result->type->rank = 0;
    return result;
  }
  result->type = broadcast_type(L, lt, rt, DT_BOOL);
  result->type->dtype = DT_BOOL;
  return result;
}

/* ------------------------------------------------------------ functions */

static Node *unary_math(Lowerer *L, Node *call, const char *member, const char *triton) {
  BoundArgs args;
  char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  bind_call(L, call, what, "x, /, *, rounding_mode, flush_to_zero", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *result = T(L, "_1(_2)", T0(L, triton), x);
  TypeInfo *type = type_new(L->ctx, VAL_TILE);
  *type = *x->type;
  type->kind = VAL_TILE;
  if (!dtype_is_float(type->dtype) && type->dtype != DT_UNKNOWN)
    type->dtype = DT_FLOAT32;
  result->type = type;
  return result;
}

static const char EXP_HELPER[] =
    "@triton.jit\n"
    "def ct_exp(x):\n"
    "    \"\"\"ct.exp: full precision like cuTile (tl.exp is approximate on the GPU); integers give\n"
    "    float32, float16/bfloat16 are computed in float32 and rounded back.\"\"\"\n"
    "    if x.dtype == tl.float64:\n"
    "        return precise_exp(x)\n"
    "    elif x.dtype == tl.float16 or x.dtype == tl.bfloat16:\n"
    "        return precise_exp(x.to(tl.float32)).to(x.dtype)\n"
    "    else:\n"
    "        return precise_exp(x.to(tl.float32))\n";

static const char PRECISE_EXP_HELPER[] =
    "@triton.jit\n"
    "def precise_exp(x):\n"
    "    \"\"\"exp rounded as libdevice does; Triton's interpreter has no libdevice, and there\n"
    "    tl.exp is numpy's exp.\"\"\"\n"
    "    if INTERPRETED:\n"
    "        return tl.exp(x)\n"
    "    else:\n"
    "        return libdevice.exp(x)\n";

static Node *lower_exp(Lowerer *L, Node *call, const char *member) {
  Node *result = unary_math(L, call, member, "ct_exp");
  Node *x = result->u.call.args.items[0];
  if (x->type->kind == VAL_CONST) /* a Python number in Triton: make it a float32 scalar */
    result->u.call.args.items[0] = T(L, "tl.full((), _1, tl.float32)", x);
  L->needs_libdevice = true;
  L->needs_interpreted_flag = true;
  use_runtime(L, "precise_exp", PRECISE_EXP_HELPER);
  result->u.call.func = use_runtime(L, "ct_exp", EXP_HELPER);
  return result;
}

static Node *lower_simple_unary(Lowerer *L, Node *call, const char *member) {
  static const struct {
    const char *member, *triton;
  } MAP[] = {{"exp2", "tl.exp2"}, {"log", "tl.log"},     {"log2", "tl.log2"}, {"rsqrt", "tl.rsqrt"},
             {"sin", "tl.sin"},   {"cos", "tl.cos"},     {"floor", "tl.floor"}, {"ceil", "tl.ceil"},
             {"sqrt", "tl.sqrt_rn"}};
  for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++)
    if (strcmp(MAP[i].member, member) == 0)
      return unary_math(L, call, member, MAP[i].triton);
  lower_error(L, call, "ct.%s is not supported by the converter yet", member);
}

/* x.astype(dtype) / ct.astype(x, dtype) -> x.to(dtype) */
static Node *lower_astype(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "astype()", "x, dtype, /, *, rounding_mode", &args);
  Node *x = require_arg(L, call, &args, 0, "astype()", "x");
  Node *dtype = require_arg(L, call, &args, 1, "astype()", "dtype");
  if (dtype->type->kind != VAL_DTYPE)
    lower_error(L, args.source[1], "astype() needs a dtype");
  if (args.arg[2])
    lower_error(L, args.source[2], "astype() with a rounding_mode is not supported by the converter yet");
  Node *result = T(L, "tl.cast(_1, _2)", x, dtype);
  TypeInfo *type = type_new(L->ctx, VAL_TILE);
  *type = *x->type;
  type->kind = VAL_TILE;
  type->dtype = dtype->type->dtype;
  type->dtype_expr = dtype->type->dtype != DT_UNKNOWN ? NULL : dtype;
  result->type = type;
  return result;
}

const OpEntry lower_math_ops[] = {
    {"exp", lower_exp},
    {"exp2", lower_simple_unary},
    {"log", lower_simple_unary},
    {"log2", lower_simple_unary},
    {"rsqrt", lower_simple_unary},
    {"sqrt", lower_simple_unary},
    {"sin", lower_simple_unary},
    {"cos", lower_simple_unary},
    {"floor", lower_simple_unary},
    {"ceil", lower_simple_unary},
    {"astype", lower_astype},
    {NULL, NULL},
};
