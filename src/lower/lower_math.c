/*
 * lower_math.c — operators and binary elementwise functions with cuTile's
 * semantics, and the op table of the math family.
 *
 * Dtypes follow cuTile's promotion (CUTILE-SEMANTICS §4.1): a loose
 * constant (a Python number) takes the dtype of a typed operand of its kind
 * or a higher one and must fit it; int with float gives the float dtype;
 * signed with unsigned, float16 with bfloat16, bool arithmetic and the
 * restricted floats (tf32, float8) are errors. Where dtypes are known at
 * conversion these errors are located errors; where they come from arrays
 * (known at launch) the helpers compute them at Triton compile time
 * (ct_common_dtype).
 *
 * Where Triton's operator means the same as cuTile's it stays an operator
 * (+ - * & | ^ << >> comparisons); otherwise a runtime helper carries
 * cuTile's meaning:
 *   /   IEEE round-to-nearest (Triton's float32 / is approximate); integers
 *       give float32; float16/bfloat16 stay in their dtype (Triton: float32)
 *   //  floor division (Triton truncates; float // is an error there)
 *   %   Python's modulo, sign of the divisor (Triton: C remainder, fmod)
 *   **  libdevice pow in the common float dtype
 * Triton computes an integer with a bfloat16 operand in float32 where
 * cuTile uses bfloat16: the integer operand is converted first.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower_math.h"

/* The kind of a Python number: 'b', 'i', 'f', or '?' for a constexpr
 * parameter whose value comes with the launch. */
static char number_category(const TypeInfo *type) {
  if (type->dtype == DT_UNKNOWN)
    return '?';
  if (type->is_float)
    return 'f';
  return type->dtype == DT_BOOL ? 'b' : 'i';
}

/* A loose constant's own dtype (cuTile's dtype_of_constant_scalar). */
static DType number_dtype(const TypeInfo *type) {
  switch (number_category(type)) {
  case 'b': return DT_BOOL;
  case 'f': return DT_FLOAT32;
  case 'i': return type->int_value >= INT32_MIN && type->int_value <= INT32_MAX ? DT_INT32 : DT_INT64;
  default: return DT_UNKNOWN;
  }
}

static int category_rank(char category) { return category == 'b' ? 0 : category == 'i' ? 1 : 2; }

static bool int_fits(long long value, DType dtype) {
  const DTypeInfo *info = dtype_info(dtype);
  if (info->category == 'u')
    return value >= 0 && (info->bits >= 64 || value < (1LL << info->bits));
  if (info->bits >= 64)
    return true;
  long long limit = 1LL << (info->bits - 1);
  return value >= -limit && value < limit;
}

static const char *dtype_name(DType dtype) { return dtype_info(dtype)->cutile; }

/* -------------------------------------------------------- promotion */

typedef enum OpClass {
  OPC_ARITH,    /* + - * */
  OPC_TRUEDIV,  /* / */
  OPC_FLOORDIV, /* // */
  OPC_MOD,      /* % */
  OPC_POW,      /* ** */
  OPC_BITWISE,  /* & | ^ */
  OPC_SHIFT,    /* << >> */
  OPC_COMPARE,  /* == != < <= > >= */
  OPC_MINMAX,   /* minimum, maximum */
  OPC_ATAN2,
} OpClass;

/* cuTile's promotion of two typed dtypes (the table of §4.1). */
static DType promote_typed(Lowerer *L, const Node *at, const char *what, DType a, DType b) {
  if (a == b)
    return a;
  char ca = math_category(a), cb = math_category(b);
  if (ca != cb)
    return category_rank(ca) > category_rank(cb) ? a : b;
  if (ca == 'f') {
    if (dtype_info(a)->bits == dtype_info(b)->bits)
      lower_error(L, at, "%s: cuTile does not promote %s with %s (convert one with astype)", what, dtype_name(a),
                  dtype_name(b));
    return dtype_info(a)->bits > dtype_info(b)->bits ? a : b;
  }
  if (dtype_info(a)->category != dtype_info(b)->category)
    lower_error(L, at, "%s: cuTile does not promote %s with %s (signed with unsigned; convert one with astype)",
                what, dtype_name(a), dtype_name(b));
  return dtype_info(a)->bits >= dtype_info(b)->bits ? a : b;
}

DType math_promote(Lowerer *L, const Node *at, const char *what, DType a, DType b) {
  return promote_typed(L, at, what, a, b);
}

/* A Python number meeting a tile of `dtype`. */
static DType promote_number(Lowerer *L, const Node *at, const char *what, const TypeInfo *number, DType dtype) {
  char category = number_category(number);
  if (dtype == DT_UNKNOWN || category == '?')
    return DT_UNKNOWN;
  if (category_rank(category) > category_rank(math_category(dtype)))
    return number_dtype(number);
  if (category == 'i' && math_category(dtype) == 'i' && !int_fits(number->int_value, dtype))
    lower_error(L, at, "%s: the constant %lld does not fit in %s, the dtype of the other operand", what,
                number->int_value, dtype_name(dtype));
  return dtype;
}

static void reject_restricted(Lowerer *L, const Node *at, const char *what, OpClass cls, const TypeInfo *type) {
  /* cuTile compares float8_e8m0fnu tiles; here they are uint8 bits, which do not order NaN (255) as cuTile */
  if (!math_is_number(type) && type->dtype == DT_FLOAT8_E8M0FNU && cls == OPC_COMPARE)
    lower_error(L, at, "%s of a float8_e8m0fnu tile cannot be converted: the converter holds it as its uint8 bits "
                "(compare its astype to float32)", what);
  if (!math_is_number(type) && math_dtype_is_restricted(type->dtype))
    lower_error(L, at, "%s: cuTile does no arithmetic on %s (convert it with astype first)", what,
                dtype_name(type->dtype));
  if (!math_is_number(type) && type->tf32_when)
    lower_error(L, at, "%s: this operand is tfloat32 at the launches where a condition holds (a dtype chosen at "
                "launch), and cuTile does no arithmetic on tfloat32 (only matrix products take it)", what);
}

static bool is_bool_operand(const TypeInfo *type) {
  return math_is_number(type) ? number_category(type) == 'b' : type->dtype == DT_BOOL;
}

/* The dtype cuTile gives `left op right` (DT_UNKNOWN: known at launch
 * only), after the checks cuTile makes where dtypes are known. */
static DType operation_dtype(Lowerer *L, const Node *at, const char *what, OpClass cls, const TypeInfo *lt,
                             const TypeInfo *rt) {
  reject_restricted(L, at, what, cls, lt);
  reject_restricted(L, at, what, cls, rt);
  note_read_as_numbers(L, at, lt);
  note_read_as_numbers(L, at, rt);
  bool ln = math_is_number(lt), rn = math_is_number(rt);
  if (cls == OPC_BITWISE || cls == OPC_SHIFT) {
    for (int side = 0; side < 2; side++) {
      const TypeInfo *t = side ? rt : lt;
      char c = math_is_number(t) ? number_category(t) : math_category(t->dtype);
      if (c == 'f' || (cls == OPC_SHIFT && c == 'b'))
        lower_error(L, at, "%s needs %s operands (bitcast floats first)", what,
                    cls == OPC_SHIFT ? "integer" : "integer or bool");
    }
    if (cls == OPC_BITWISE && !ln && !rn && lt->dtype != DT_UNKNOWN && rt->dtype != DT_UNKNOWN &&
        lt->dtype != rt->dtype)
      lower_error(L, at, "%s needs operands of the same dtype in cuTile, not %s and %s", what,
                  dtype_name(lt->dtype), dtype_name(rt->dtype));
    /* cuTile refuses this one pair even with a Python bool (uint8 & True is uint8) */
    if (cls == OPC_BITWISE && ((is_bool_operand(lt) && !rn && rt->dtype == DT_INT8) ||
                               (is_bool_operand(rt) && !ln && lt->dtype == DT_INT8)))
      lower_error(L, at, "%s: cuTile does no bitwise operation on bool and int8 (convert one with astype)", what);
  }
  /* two bools divide as float32 (True / False is inf) */
  bool arithmetic = cls == OPC_ARITH || cls == OPC_FLOORDIV || cls == OPC_MOD || cls == OPC_POW;
  if (arithmetic && !(ln && rn) && is_bool_operand(lt) && is_bool_operand(rt))
    lower_error(L, at, "%s: cuTile does not do arithmetic on two bool operands (convert with astype)", what);
  DType dtype;
  if (ln && rn)
    return DT_UNKNOWN; /* Python arithmetic on Python numbers */
  if (ln || rn)
    dtype = promote_number(L, at, what, ln ? lt : rt, ln ? rt->dtype : lt->dtype);
  else if (lt->dtype == DT_UNKNOWN || rt->dtype == DT_UNKNOWN)
    dtype = DT_UNKNOWN;
  else
    dtype = promote_typed(L, at, what, lt->dtype, rt->dtype);
  if (cls == OPC_POW && math_category(dtype) != '?' && math_category(dtype) != 'f')
    lower_error(L, at, "%s: cuTile has no integer ** integer (make one operand a float)", what);
  if (cls == OPC_ATAN2 && math_category(dtype) != '?' && math_category(dtype) != 'f')
    lower_error(L, at, "%s: cuTile has no atan2 of integers (its compiler fails: make one operand a float)", what);
  if (cls == OPC_TRUEDIV && dtype != DT_UNKNOWN && !math_dtype_is_float(dtype))
    dtype = DT_FLOAT32;
  if (cls == OPC_COMPARE)
    dtype = DT_BOOL;
  return dtype;
}

/* Shapes broadcast numpy-style; a Python number is a scalar. */

static TypeInfo *broadcast_shapes(Lowerer *L, const TypeInfo *left, const TypeInfo *right, DType dtype);

static TypeInfo *broadcast_type(Lowerer *L, const TypeInfo *left, const TypeInfo *right, DType dtype) {
  TypeInfo *type = broadcast_shapes(L, left, right, dtype);
  if (type->dtype == DT_UNKNOWN)
    type->not_bfloat16 = math_never_bfloat16(left) && math_never_bfloat16(right);
  type->float_kind = false; /* lower_binary's `/` says so */
  return type;
}

/* Whether two dimension expressions are written alike (BLOCK and BLOCK, x.shape[0] and
 * x.shape[0]); two unknown ones (NULL) are alike, an unknown and a known one not. */
bool math_same_dim(Lowerer *L, const Node *a, const Node *b) {
  if (!a || !b)
    return a == b;
  if (a->kind == N_NAME && b->kind == N_NAME)
    return str_same(a->u.name.id, b->u.name.id);
  Buf x = {0}, y = {0};
  expr_text(L->ctx, a, &x);
  expr_text(L->ctx, b, &y);
  bool same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
  buf_free(&x);
  buf_free(&y);
  return same;
}

static TypeInfo *broadcast_shapes(Lowerer *L, const TypeInfo *left, const TypeInfo *right, DType dtype) {
  const TypeInfo *l = math_is_number(left) ? NULL : left;
  const TypeInfo *r = math_is_number(right) ? NULL : right;
  if (!l)
    return math_tile_type(L, r, dtype);
  if (!r)
    return math_tile_type(L, l, dtype);
  const TypeInfo *bigger = l->rank >= r->rank ? l : r;
  const TypeInfo *smaller = bigger == l ? r : l;
  TypeInfo *type = math_tile_type(L, bigger, dtype);
  if (bigger->rank < 0 || smaller->rank < 0) { /* a rank known only at launch stays unknown */
    type = math_tile_type(L, bigger->rank < 0 ? bigger : smaller, dtype);
    type->rank = -1;
    return type;
  }
  int offset = bigger->rank - smaller->rank;
  for (int d = offset; d < bigger->rank && d < C2T_MAX_RANK; d++) {
    int s = d - offset;
    if (bigger->shape[d] == 1 && smaller->shape[s] != 1) {
      type->shape[d] = smaller->shape[s];
      type->dims[d] = smaller->dims[s];
    } else if (bigger->shape[d] < 0 && smaller->shape[s] > 1) {
      /* a dimension known only when Triton compiles is 1 or the other's */
      type->shape[d] = smaller->shape[s];
      type->dims[d] = smaller->dims[s];
    } else if (L->function && L->function->role == ROLE_KERNEL && bigger->shape[d] < 0 && smaller->shape[s] < 0 &&
               bigger->dims[d] && smaller->dims[s] && bigger->dims[d]->kind == N_NAME &&
               smaller->dims[s]->kind == N_NAME && !math_same_dim(L, bigger->dims[d], smaller->dims[s])) {
      /* (1, N) against (M, N) in a kernel, each a constexpr parameter: the larger, as numpy
       * broadcasts (a tile function's dims stand for its caller's, and map back by name) */
      Node *dim = T(L, "max(_1, _2)", node_copy_tree(&L->ctx->arena, bigger->dims[d]),
                    node_copy_tree(&L->ctx->arena, smaller->dims[s]));
      dim->type = type_new(L->ctx, VAL_CONST); /* a constexpr, its value known when Triton compiles */
      dim->type->rank = 0;
      type->dims[d] = dim;
    }
  }
  return type;
}

/* ----------------------------------------------- bfloat16 with integers */

static bool integer_tile(const TypeInfo *type) {
  return !math_is_number(type) && type->dtype != DT_UNKNOWN && math_category(type->dtype) != 'f';
}

/* Whether a dtype expression `x.dtype.element_ty` names an array parameter that a local has
 * taken the name of since (`x = ct.load(x, ...)`): the name then holds a tile. */
static bool dtype_array_rebound(Lowerer *L, const Node *dtype_expr) {
  const Node *base = dtype_expr;
  while (base->kind == N_ATTRIBUTE)
    base = base->u.attribute.value;
  if (base->kind != N_NAME)
    return false;
  const Variable *var = scope_lookup(L, base->u.name.id);
  return var && var->type && var->type->kind != VAL_ARRAY && var->type->kind != VAL_LIST;
}

/* The dtype of an operand as Triton text without evaluating it twice:
 * a known dtype, the dtype expression of an array's tile, or `name.dtype`. */
static Node *dtype_text_of(Lowerer *L, Node *operand) {
  TypeInfo *type = operand->type;
  if (type->dtype != DT_UNKNOWN)
    return T0(L, dtype_info(type->dtype)->triton);
  if (operand->kind == N_NAME) /* the tile's own: `x = ct.load(x, ...)` leaves no array x to read it from */
    return T(L, "_1.dtype", operand);
  if (type->dtype_expr && !dtype_array_rebound(L, type->dtype_expr))
    return type->dtype_expr;
  if (type->dtype_expr) /* the array it names was rebound to a tile: the operand's own dtype */
    return T(L, "(_1).dtype", node_copy_tree(&L->ctx->arena, operand));
  return NULL;
}

/* Triton computes an integer (or bool) tile with a bfloat16 one in
 * float32; cuTile in bfloat16. Convert the integer side first: directly
 * when both dtypes are known, through ct_bf16_operand when the other
 * side's dtype comes from an array. */
static void convert_integer_side(Lowerer *L, Node **side, Node *other) {
  TypeInfo *type = (*side)->type, *other_type = other->type;
  if (!integer_tile(type) || math_is_number(other_type))
    return;
  if (other_type->dtype == DT_BFLOAT16) {
    Node *converted = T(L, "_1.to(tl.bfloat16)", *side);
    converted->type = type;
    *side = converted;
  } else if (other_type->dtype == DT_UNKNOWN && !other_type->not_bfloat16) {
    Node *dtype = dtype_text_of(L, other);
    if (!dtype)
      return; /* not reachable for tiles made by ct operations: they carry a dtype expression */
    Node *converted = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_bf16_operand), *side, dtype);
    converted->type = type;
    *side = converted;
  }
}

typedef struct StoreCount {
  Str name;
  int count;
} StoreCount;

static void count_stores(Node *node, void *data) {
  StoreCount *c = data;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_STORE && str_same(node->u.name.id, c->name))
    c->count++;
  node_children(node, count_stores, data);
}

typedef struct ReassignedScan {
  Lowerer *L;
  bool found;
} ReassignedScan;

/* A name `expr` reads that the function being lowered binds more than once (a parameter
 * counts once): no tl.constexpr local in Triton, a run-time scalar there. */
static void find_reassigned(Node *node, void *data) {
  ReassignedScan *scan = data;
  if (scan->found)
    return;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_LOAD) {
    Node *def = scan->L->function->def;
    StoreCount c = {node->u.name.id, 0};
    NodeList *params = &def->u.function_def.args->u.arguments.args;
    for (int i = 0; i < params->count; i++)
      c.count += str_same(params->items[i]->u.arg.arg, c.name);
    for (int i = 0; i < def->u.function_def.body.count; i++)
      count_stores(def->u.function_def.body.items[i], &c);
    scan->found = c.count > 1;
    return;
  }
  node_children(node, find_reassigned, data);
}

/* A loosely typed integer whose value comes with the launch (`t = n * 3; t += 1`, n a Constant
 * parameter) beside an 8- or 16-bit integer tile: cuTile computes in the tile's dtype, Triton
 * promotes the tile to the scalar's int32 where the scalar is no constexpr (a local assigned
 * twice): the scalar is cast to the tile's dtype, through ct_loose_integer where that dtype
 * comes with the launch (there only for a scalar read from such a local: a constexpr int
 * takes the tile's dtype in Triton too). */
bool math_reads_reassigned(Lowerer *L, Node *expr) {
  ReassignedScan scan = {L, false};
  if (L->function)
    find_reassigned(expr, &scan);
  return scan.found;
}

static void match_narrow_integer(Lowerer *L, Node **side, Node *other) {
  const TypeInfo *type = (*side)->type, *tile = other->type;
  if (!math_is_number(type) || type->dtype != DT_UNKNOWN || type->is_float || math_is_number(tile))
    return;
  Node *cast;
  /* a constexpr's int Triton takes in the tile's dtype already */
  if (tile->kind == VAL_TILE && tile->dtype == DT_UNKNOWN && !tile->not_bfloat16 && !tile->float_kind &&
      math_reads_reassigned(L, *side)) {
    /* the tile's dtype comes with the launch: Triton casts where it is a narrow integer one */
    Node *dtype = dtype_text_of(L, other);
    if (!dtype)
      return; /* not reachable for tiles made by ct operations: they carry a dtype expression */
    cast = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_loose_integer), *side, dtype);
  } else if (integer_tile(tile) && tile->dtype != DT_BOOL && dtype_info(tile->dtype)->bits <= 16)
    cast = T(L, "tl.cast(_1, _2)", *side, T0(L, dtype_info(tile->dtype)->triton));
  else
    return;
  cast->type = (*side)->type;
  *side = cast;
}

/* Two tiles whose dtypes are both known only at launch are left to
 * Triton's promotion, which agrees with cuTile's for every pair cuTile
 * accepts except integer/bool with bfloat16 (computed in float32): a
 * known residual, see tests/convert/test_math.py. */
static void match_bfloat16(Lowerer *L, Node **left, Node **right) {
  convert_integer_side(L, left, *right);
  convert_integer_side(L, right, *left);
}

/* ------------------------------------------------------------ folding */

/* The value of a constant as Python sees it, for division checks. */
static bool number_is_zero(const TypeInfo *type) {
  return type->is_float ? type->float_value == 0 : type->int_value == 0;
}

/* Folds `lt op rt` on two Python numbers, as cuTile folds loose constants:
 * integers in int64 (an overflow is a located error at `at`, see
 * fold_int), a division by a known zero is an error as in Python. */
static TypeInfo *number_result(Lowerer *L, const Node *at, const TypeInfo *lt, const TypeInfo *rt, AstOp op) {
  TypeInfo *type = type_new(L->ctx, VAL_CONST);
  type->rank = 0;
  type->loose = true;
  bool known = lt->dtype != DT_UNKNOWN && rt->dtype != DT_UNKNOWN;
  bool any_float = lt->is_float || rt->is_float;
  type->is_float = any_float || op == AOP_DIV;
  type->dtype = known ? (type->is_float ? DT_FLOAT32 : DT_INT32) : DT_UNKNOWN;
  if (rt->dtype != DT_UNKNOWN && (op == AOP_DIV || op == AOP_FLOORDIV || op == AOP_MOD) && number_is_zero(rt))
    lower_error(L, at, "division or modulo by zero in a constant expression");
  if (!known)
    return type;
  double a = lt->is_float ? lt->float_value : (double)lt->int_value;
  double b = rt->is_float ? rt->float_value : (double)rt->int_value;
  long long x = lt->int_value, y = rt->int_value;
  if (!type->is_float && (op == AOP_FLOORDIV || op == AOP_MOD || op == AOP_BITAND || op == AOP_BITOR ||
                          op == AOP_BITXOR)) {
    /* Python's on ints: // rounds toward minus infinity, % takes the divisor's sign
     * (tiles[(i + 1) % 3] in a tuple comprehension) */
    if ((op == AOP_FLOORDIV || op == AOP_MOD) && x == LLONG_MIN && y == -1) {
      type->dtype = DT_UNKNOWN; /* beyond int64: value not tracked */
      return type;
    }
    long long value = op == AOP_BITAND ? x & y : op == AOP_BITOR ? x | y : op == AOP_BITXOR ? x ^ y : 0;
    if (op == AOP_FLOORDIV || op == AOP_MOD) {
      long long q = x / y, r = x % y;
      if (r != 0 && (r < 0) != (y < 0)) {
        q -= 1;
        r += y;
      }
      value = op == AOP_FLOORDIV ? q : r;
    }
    type->int_value = value;
    type->float_value = (double)value;
    return type;
  }
  switch (op) {
  case AOP_ADD: type->float_value = a + b; break;
  case AOP_SUB: type->float_value = a - b; break;
  case AOP_MULT: type->float_value = a * b; break;
  case AOP_DIV: type->float_value = a / b; break;
  default: type->dtype = DT_UNKNOWN; return type; /* value not tracked */
  }
  if (!type->is_float) {
    char fold = op == AOP_ADD ? '+' : op == AOP_SUB ? '-' : '*';
    type->int_value = fold_int(L, at, fold, x, y);
    type->float_value = (double)type->int_value;
  } else {
    /* int_value of a float constant: its truncation where it has one */
    type->int_value = isfinite(type->float_value) && fabs(type->float_value) < 0x1p63 ? (long long)type->float_value : 0;
  }
  return type;
}

/* --------------------------------------------------------- operators */

static OpClass class_of(AstOp op) {
  switch (op) {
  case AOP_DIV: return OPC_TRUEDIV;
  case AOP_FLOORDIV: return OPC_FLOORDIV;
  case AOP_MOD: return OPC_MOD;
  case AOP_POW: return OPC_POW;
  case AOP_BITAND:
  case AOP_BITOR:
  case AOP_BITXOR: return OPC_BITWISE;
  case AOP_LSHIFT:
  case AOP_RSHIFT: return OPC_SHIFT;
  default: return OPC_ARITH;
  }
}

static const char *operator_text(AstOp op) {
  switch (op) {
  case AOP_ADD: return "+";
  case AOP_SUB: return "-";
  case AOP_MULT: return "*";
  case AOP_DIV: return "/";
  case AOP_FLOORDIV: return "//";
  case AOP_MOD: return "%";
  case AOP_POW: return "**";
  case AOP_BITAND: return "&";
  case AOP_BITOR: return "|";
  case AOP_BITXOR: return "^";
  case AOP_LSHIFT: return "<<";
  case AOP_RSHIFT: return ">>";
  case AOP_MATMULT: return "@";
  default: return "?";
  }
}

static void require_operand(Lowerer *L, const Node *at, const char *what, const TypeInfo *type) {
  if (!type || (type->kind != VAL_TILE && type->kind != VAL_CONST))
    lower_error(L, at, "%s on %s cannot be converted", what, type_describe(L->ctx, type));
}

/* A bool operand meeting a Python int beyond int32: Triton types the
 * number uint32 or int64 by its value, cuTile int64. */
static void check_number_width(Lowerer *L, const Node *at, const char *what, const TypeInfo *lt, const TypeInfo *rt) {
  for (int side = 0; side < 2; side++) {
    const TypeInfo *number = side ? rt : lt, *tile = side ? lt : rt;
    if (!math_is_number(number) || math_is_number(tile) || number_category(number) == '?')
      continue;
    if (number->is_float && math_category(tile->dtype) != 'f') {
      double magnitude = fabs(number->float_value);
      bool float32_range = magnitude == 0 || isinf(magnitude) || isnan(magnitude) ||
                           (magnitude >= 0x1p-126 && magnitude <= 0x1.fffffep127);
      if (!float32_range)
        lower_error(L, at, "%s: the constant %g with an integer operand is float32 in cuTile but float64 in "
                    "Triton; write it as a float32 value", what, number->float_value);
    }
    if (!number->is_float && number_category(number) == 'i' && tile->dtype != DT_UNKNOWN &&
        math_category(tile->dtype) == 'b' && !int_fits(number->int_value, DT_INT32))
      lower_error(L, at, "%s: an integer constant beyond int32 with a bool operand cannot be converted", what);
  }
}

/* The counter of a ct.static_iter loop as what cuTile has it, a Python int (of a value known
 * at each unrolled step, not here). */
static TypeInfo *counter_as_number(Lowerer *L, TypeInfo *type) {
  TypeInfo *number = type_new(L->ctx, VAL_CONST);
  number->rank = 0;
  number->dtype = DT_UNKNOWN;
  number->not_bfloat16 = type->not_bfloat16;
  return number;
}

/* Whether an operand makes an arithmetic result a float: a float constant, a tile of a float
 * dtype, or one known to be a float at launch (float_kind). */
static bool float_kind_operand(const TypeInfo *type) {
  if (math_is_number(type))
    return type->is_float;
  return type->float_kind || (type->dtype != DT_UNKNOWN && math_dtype_is_float(type->dtype));
}

/* `left op right` for the operators of the binary family, with cuTile's
 * dtypes; `what` names it in errors. */
static Node *lower_binary(Lowerer *L, Node *at, const char *what, AstOp op, Node *left, Node *right) {
  TypeInfo *lt = left->type, *rt = right->type;
  require_operand(L, at, what, lt);
  require_operand(L, at, what, rt);
  OpClass cls = class_of(op);
  /* `2 ** i` of a ct.static_iter counter is Python's power of ints, which cuTile folds at each
   * step (of an int32 tile it would have none): Triton folds it too, the counter being a
   * constexpr under tl.static_range */
  if (cls == OPC_POW && (math_is_number(lt) || lt->static_counter) && (math_is_number(rt) || rt->static_counter) &&
      (lt->static_counter || rt->static_counter)) {
    lt = lt->static_counter ? counter_as_number(L, lt) : lt;
    rt = rt->static_counter ? counter_as_number(L, rt) : rt;
    Node *folded = T(L, "_1 ** _2", left, right);
    folded->type = number_result(L, at, lt, rt, op);
    return folded;
  }
  DType dtype = operation_dtype(L, at, what, cls, lt, rt);
  if (math_is_number(lt) && math_is_number(rt)) { /* Python's arithmetic, as cuTile's on loose constants */
    Node *folded = T(L, "_1 + _2", left, right);
    folded->u.bin_op.op = op;
    folded->type = number_result(L, at, lt, rt, op);
    return folded;
  }
  check_number_width(L, at, what, lt, rt);
  Node *result;
  switch (cls) {
  case OPC_TRUEDIV: result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_truediv), left, right); break;
  case OPC_FLOORDIV: result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_floordiv), left, right); break;
  case OPC_MOD: result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_mod), left, right); break;
  case OPC_POW: result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_pow), left, right); break;
  default:
    match_narrow_integer(L, &left, right);
    match_narrow_integer(L, &right, left);
    match_bfloat16(L, &left, &right);
    result = T(L, "_1 + _2", left, right);
    result->u.bin_op.op = op;
    break;
  }
  result->type = broadcast_type(L, lt, rt, dtype);
  /* a float whichever dtypes come with the launch: a true division, or arithmetic with a float
     operand (a float constant or tile decides the category: an integer tile * 0.5 is float32) */
  if (dtype == DT_UNKNOWN && (cls == OPC_TRUEDIV || float_kind_operand(lt) || float_kind_operand(rt)))
    result->type->float_kind = true;
  if ((op == AOP_ADD || op == AOP_SUB || op == AOP_MULT) && (lt->interpreted_int || rt->interpreted_int) &&
      (lt->interpreted_int || math_is_number(lt)) && (rt->interpreted_int || math_is_number(rt)))
    result->type->interpreted_int = true; /* `i - 4` of a loop counter i */
  return result;
}

/* The tile type cuTile gives `left op right`, for an operation lowered
 * elsewhere that follows the operator's dtype and broadcast rules (ct.cdiv
 * as //). */
TypeInfo *math_binary_type(Lowerer *L, const Node *at, const char *what, AstOp op, const TypeInfo *lt,
                           const TypeInfo *rt) {
  require_operand(L, at, what, lt);
  require_operand(L, at, what, rt);
  return broadcast_type(L, lt, rt, operation_dtype(L, at, what, class_of(op), lt, rt));
}

/* a + b of two tuples of lengths known at conversion: Triton's tuples concatenate alike. */
static Node *tuple_concatenation(Lowerer *L, Node *left, Node *right) {
  const TypeInfo *a = left->type, *b = right->type;
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = a->count + b->count;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(type->count + 1));
  for (int i = 0; i < a->count; i++)
    type->elts[i] = a->elts[i];
  for (int i = 0; i < b->count; i++)
    type->elts[a->count + i] = b->elts[i];
  Node *joined = T(L, "_1 + _2", left, right);
  joined->type = type;
  return joined;
}

static bool is_known_tuple(const TypeInfo *type) {
  return type && type->kind == VAL_TUPLE && type->count >= 0 && !type->array && (type->elts || !type->count);
}

Node *lower_binary_operator(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  if (op == AOP_ADD && is_known_tuple(left->type) && is_known_tuple(right->type))
    return tuple_concatenation(L, left, right);
  if (op == AOP_MATMULT)
    return lower_matrix_product(L, expr, "the @ operator", left, right, expr, expr);
  const char *what = arena_printf(&L->ctx->arena, "the %s operator", operator_text(op));
  return lower_binary(L, expr, what, op, left, right);
}

/* -x, +x, ~x, not x */
Node *lower_unary_operator(Lowerer *L, Node *expr, AstOp op, Node *operand) {
  TypeInfo *type = operand->type;
  require_operand(L, expr, "a unary operator", type);
  refuse_coded(L, expr, "a unary operator", type, 0);
  if (op == AOP_USUB)
    return lower_math_negative(L, expr, operand);
  if (op == AOP_INVERT)
    return lower_math_bitwise_not(L, expr, operand);
  if (op == AOP_UADD) {
    if (!math_is_number(type) && type->dtype == DT_BOOL) { /* cuTile's +x of bools is int32, as -x is */
      Node *result = T(L, "_1.to(tl.int32)", operand);
      result->type = math_tile_type(L, type, DT_INT32);
      return result;
    }
    return operand;
  }
  /* not: Python's `not` on a Triton tensor is not elementwise (the
   * interpreter calls bool() on it): compare with zero instead */
  if (math_is_number(type)) {
    Node *result = T(L, "not _1", operand);
    result->type = type_const_bool(L->ctx, type->dtype != DT_UNKNOWN && type->int_value == 0 && type->float_value == 0);
    result->type->dtype = type->dtype == DT_UNKNOWN ? DT_UNKNOWN : DT_BOOL;
    return result;
  }
  Node *result = T(L, "_1 == 0", operand);
  result->type = math_tile_type(L, type, DT_BOOL);
  return result;
}

static AstOp compare_op_of(const char *member) {
  static const struct {
    const char *member;
    AstOp op;
  } MAP[] = {{"equal", AOP_EQ},   {"not_equal", AOP_NOTEQ}, {"greater", AOP_GT},
             {"greater_equal", AOP_GTE}, {"less", AOP_LT}, {"less_equal", AOP_LTE}};
  for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++)
    if (strcmp(MAP[i].member, member) == 0)
      return MAP[i].op;
  return AOP_EQ;
}

/* ---------------------------------------- comparisons on compile-time values */

/* A bool known at conversion: the constant itself (cuTile folds it). */
static Node *known_bool(Lowerer *L, bool value) {
  Node *node = T0(L, value ? "True" : "False");
  node->type = type_const_bool(L->ctx, value);
  return node;
}

/* A bool that Triton's code generator decides (a constexpr): known at
 * launch, not at conversion. */
static TypeInfo *launch_bool(Lowerer *L) {
  TypeInfo *type = type_new(L->ctx, VAL_CONST);
  type->rank = 0;
  type->dtype = DT_UNKNOWN;
  type->loose = true;
  return type;
}

static bool is_known_number(const TypeInfo *type) {
  return type && type->kind == VAL_CONST && type->dtype != DT_UNKNOWN;
}

/* `a op b` on two numbers known at conversion, in Python's semantics. */
static bool fold_number_comparison(AstOp op, const TypeInfo *a, const TypeInfo *b) {
  int order;
  if (a->is_float || b->is_float) {
    double x = a->is_float ? a->float_value : (double)a->int_value;
    double y = b->is_float ? b->float_value : (double)b->int_value;
    if (x != x || y != y) /* nan: every comparison but != is false */
      return op == AOP_NOTEQ;
    order = x < y ? -1 : x > y ? 1 : 0;
  } else {
    order = a->int_value < b->int_value ? -1 : a->int_value > b->int_value ? 1 : 0;
  }
  switch (op) {
  case AOP_EQ: return order == 0;
  case AOP_NOTEQ: return order != 0;
  case AOP_LT: return order < 0;
  case AOP_LTE: return order <= 0;
  case AOP_GT: return order > 0;
  case AOP_GTE: return order >= 0;
  default: return false;
  }
}

static bool is_dtype_or_none(const TypeInfo *type) {
  return type && (type->kind == VAL_DTYPE || type->kind == VAL_NONE);
}

/* Comparisons on dtypes and None (x.dtype == ct.float32, A.dtype != B.dtype,
 * x is None): decided where both sides are known, else left to Triton's
 * code generator, which compares dtypes at compile time (a constexpr
 * condition: Triton compiles only the taken branch of an `if` on it, as
 * cuTile does). `is` on dtypes is written `==`: Triton's dtypes are not
 * unique objects (x.dtype.element_ty is not tl.float32), cuTile's are. */
static Node *compare_compile_time(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  const TypeInfo *lt = left->type, *rt = right->type;
  bool equal_test = op == AOP_EQ || op == AOP_IS;
  if (op != AOP_EQ && op != AOP_NOTEQ && op != AOP_IS && op != AOP_ISNOT)
    lower_error(L, expr, "only ==, !=, `is` and `is not` compare %s and %s in tile code", type_describe(L->ctx, lt),
                type_describe(L->ctx, rt));
  if (lt->kind == VAL_NONE || rt->kind == VAL_NONE) { /* `x is None`: None only equals None */
    bool both = lt->kind == VAL_NONE && rt->kind == VAL_NONE;
    const TypeInfo *other = lt->kind != VAL_NONE ? lt : rt;
    /* known not to be None: a tile, a dtype, a tuple...; an array or a
     * constexpr may be None at launch */
    bool other_known = both || other->kind == VAL_TILE || other->kind == VAL_DTYPE || other->kind == VAL_TUPLE ||
                       other->kind == VAL_ENUM || other->kind == VAL_STRING || other->kind == VAL_FUNCTION ||
                       is_known_number(other);
    if (other_known)
      return known_bool(L, both == equal_test);
    Node *result = T(L, "_1 is _2", left, right); /* decided by Triton at compile time */
    result->u.compare.ops[0] = op;
    result->type = launch_bool(L);
    return result;
  }
  if (lt->kind != VAL_DTYPE || rt->kind != VAL_DTYPE)
    lower_error(L, expr, "a comparison of %s with %s cannot be converted (cuTile compares a dtype only with a "
                "dtype)", type_describe(L->ctx, lt), type_describe(L->ctx, rt));
  if (lt->dtype != DT_UNKNOWN && rt->dtype != DT_UNKNOWN)
    return known_bool(L, (lt->dtype == rt->dtype) == equal_test);
  Node *result = T(L, "_1 == _2", left, right);
  result->u.compare.ops[0] = equal_test ? AOP_EQ : AOP_NOTEQ;
  result->type = launch_bool(L);
  return result;
}

/* `ACT == "relu"`, ACT a ct.Constant (a string at launch, as Triton's matmul tutorial passes
 * its ACTIVATION): Triton compares the constexpr while it compiles, so an `if` on it keeps one
 * branch, as cuTile's does. Two strings written out compare here; a string and a number or an
 * enum member are unequal, as in Python. */
static Node *compare_strings(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  if (op != AOP_EQ && op != AOP_NOTEQ)
    lower_error(L, expr, "only == and != compare strings in tile code");
  bool equal_test = op == AOP_EQ;
  const TypeInfo *lt = left->type, *rt = right->type;
  if (lt && rt && lt->kind == VAL_STRING && rt->kind == VAL_STRING) {
    const char *a = plain_string_text(L, left), *b = plain_string_text(L, right);
    if (!a || !b)
      lower_error(L, expr, "a comparison of strings can be converted only for plain literals (no prefix, escape "
                  "or triple quotes)");
    return known_bool(L, (strcmp(a, b) == 0) == equal_test);
  }
  const TypeInfo *other = lt && lt->kind == VAL_STRING ? rt : lt;
  if (other && other->kind == VAL_CONST && other->dtype == DT_UNKNOWN && !other->is_float && !other->const_tuple) {
    Node *result = T(L, "_1 == _2", left, right); /* decided by Triton at compile time */
    result->u.compare.ops[0] = op;
    result->type = launch_bool(L);
    return result;
  }
  if (other && (is_known_number(other) || other->kind == VAL_ENUM))
    return known_bool(L, !equal_test);
  lower_error(L, expr, "a comparison of a string with %s cannot be converted (a string compares with a string or "
              "with a ct.Constant holding one)", type_describe(L->ctx, other));
}

/* `x in (a, b, c)`: cuTile compares x with each item (==) and ors the
 * results, stopping at one known to be true. */
static Node *compare_contained(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  if (!right->type || right->type->kind != VAL_TUPLE || right->kind != N_TUPLE)
    lower_error(L, expr, "'in' in tile code can only be converted with a tuple written out on its right, not %s",
                type_describe(L->ctx, right->type));
  NodeList *items = &right->u.list.elts;
  Node *result = NULL;
  for (int i = 0; i < items->count; i++) {
    Node *cmp = lower_comparison(L, expr, AOP_EQ, left, items->items[i]);
    if (cmp->type && cmp->type->kind == VAL_TILE && cmp->type->rank != 0)
      lower_error(L, expr, "'in' requires scalar operands, not %s", type_describe(L->ctx, cmp->type));
    if (is_known_number(cmp->type) && cmp->type->int_value) {
      result = known_bool(L, true);
      break;
    }
    if (is_known_number(cmp->type)) /* known false: adds nothing */
      continue;
    if (!result) {
      result = cmp;
      continue;
    }
    bool both_constant = result->type->kind == VAL_CONST && cmp->type->kind == VAL_CONST;
    TypeInfo *type = both_constant ? launch_bool(L) : type_tile(L->ctx, DT_BOOL, 0, NULL);
    result = both_constant ? T(L, "_1 or _2", result, cmp) : T(L, "_1 | _2", result, cmp);
    result->type = type;
  }
  if (!result)
    result = known_bool(L, false);
  if (op == AOP_IN)
    return result;
  if (is_known_number(result->type))
    return known_bool(L, result->type->int_value == 0);
  return lower_unary_operator(L, expr, AOP_NOT, result);
}

/* Item `i` of a lowered tuple: the item written in it, else `t[i]`. */
static Node *tuple_item(Lowerer *L, Node *tuple, int i) {
  if (tuple->kind == N_TUPLE)
    return tuple->u.list.elts.items[i];
  Node *item = T(L, "_1[_2]", node_copy_tree(&L->ctx->arena, tuple), new_int(L, i));
  item->type = tuple->type->elts[i];
  return item;
}

/* `t == u`, `t != u` of tuples (`a.shape == b.shape`): item by item as Python compares them;
 * tuples of different lengths are unequal. Items known at conversion fold; the others are
 * ANDed, a constexpr where they all are (ct.static_assert takes it). A tuple with anything
 * but a tuple, and the orderings of tuples, are located errors. */
static Node *compare_tuples(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  const TypeInfo *lt = left->type, *rt = right->type;
  if (op != AOP_EQ && op != AOP_NOTEQ)
    lower_error(L, expr, "tuples can be compared with == and != only in tile code");
  bool lc = lt && lt->kind == VAL_CONST && lt->const_tuple, rc = rt && rt->kind == VAL_CONST && rt->const_tuple;
  if ((lc || rc) && (lc || lt->kind == VAL_TUPLE) && (rc || rt->kind == VAL_TUPLE)) {
    /* a ct.Constant tuple parameter, whose length Triton knows: compared whole when it compiles */
    Node *same = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_same_tuple), left, right);
    same->type = launch_bool(L);
    return op == AOP_EQ ? same : lower_unary_operator(L, expr, AOP_NOT, same);
  }
  if (!lt || !rt || lt->kind != VAL_TUPLE || rt->kind != VAL_TUPLE)
    lower_error(L, expr, "a comparison of %s with %s cannot be converted", type_describe(L->ctx, lt),
                type_describe(L->ctx, rt));
  Node *all = NULL;
  bool unequal = lt->count != rt->count;
  for (int i = 0; !unequal && i < lt->count; i++) {
    Node *a = tuple_item(L, left, i), *b = tuple_item(L, right, i);
    if (a->type && b->type && a->type->kind == VAL_CONST && b->type->kind == VAL_CONST && !a->type->is_float &&
        math_same_dim(L, a, b))
      continue; /* one constexpr int written the same on both sides (`B` and `B`): equal */
    Node *item = lower_comparison(L, expr, AOP_EQ, a, b);
    if (item->type && item->type->kind == VAL_TILE && item->type->rank != 0)
      lower_error(L, expr, "a comparison of tuples holding tiles cannot be converted (compare their items)");
    if (is_known_number(item->type)) { /* known here: true adds nothing, false decides */
      unequal = !item->type->int_value;
      continue;
    }
    if (!all) {
      all = item;
      continue;
    }
    bool both_constant = all->type->kind == VAL_CONST && item->type->kind == VAL_CONST;
    TypeInfo *type = both_constant ? launch_bool(L) : type_tile(L->ctx, DT_BOOL, 0, NULL);
    all = both_constant ? T(L, "_1 and _2", all, item) : T(L, "_1 & _2", all, item);
    all->type = type;
  }
  Node *result = unequal ? known_bool(L, false) : all ? all : known_bool(L, true);
  if (op == AOP_EQ)
    return result;
  if (is_known_number(result->type))
    return known_bool(L, result->type->int_value == 0);
  return lower_unary_operator(L, expr, AOP_NOT, result);
}

Node *lower_comparison(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right) {
  if (op == AOP_IN || op == AOP_NOTIN)
    return compare_contained(L, expr, op, left, right);
  bool left_item = left->type && left->type->kind == VAL_CONST && left->type->const_tuple;
  bool right_item = right->type && right->type->kind == VAL_CONST && right->type->const_tuple;
  bool left_number = left->type && left->type->kind == VAL_CONST && !left->type->const_tuple;
  bool right_number = right->type && right->type->kind == VAL_CONST && !right->type->const_tuple;
  if ((left_item && right_number) || (left_number && right_item)) {
    /* `S[0] == 4`: an item of a constant tuple (a number or a tuple again, which Triton knows when it
       compiles) with a number: compared then */
    Node *result = T(L, "_1 == _2", left, right);
    result->u.compare.ops[0] = op;
    result->type = launch_bool(L);
    return result;
  }
  bool constant_tuple = left_item || right_item;
  if ((left->type && left->type->kind == VAL_TUPLE) || (right->type && right->type->kind == VAL_TUPLE) ||
      constant_tuple)
    return compare_tuples(L, expr, op, left, right);
  if (is_dtype_or_none(left->type) || is_dtype_or_none(right->type))
    return compare_compile_time(L, expr, op, left, right);
  if ((left->type && left->type->kind == VAL_STRING) || (right->type && right->type->kind == VAL_STRING))
    return compare_strings(L, expr, op, left, right);
  if (op == AOP_IS || op == AOP_ISNOT)
    lower_error(L, expr, "'is' comparisons cannot be converted in tile code on %s and %s (only on None and dtypes)",
                type_describe(L->ctx, left->type), type_describe(L->ctx, right->type));
  TypeInfo *lt = left->type, *rt = right->type;
  require_operand(L, expr, "a comparison", lt);
  require_operand(L, expr, "a comparison", rt);
  operation_dtype(L, expr, "a comparison", OPC_COMPARE, lt, rt);
  if (math_is_number(lt) && math_is_number(rt)) {
    Node *result = T(L, "_1 < _2", left, right);
    result->u.compare.ops[0] = op;
    if (is_known_number(lt) && is_known_number(rt)) { /* known at conversion: an `if` on it is decided here */
      result->type = type_const_bool(L->ctx, fold_number_comparison(op, lt, rt));
      return result;
    }
    result->type = launch_bool(L);
    return result;
  }
  check_number_width(L, expr, "a comparison", lt, rt);
  match_bfloat16(L, &left, &right);
  Node *result = T(L, "_1 < _2", left, right);
  result->u.compare.ops[0] = op;
  result->type = broadcast_type(L, lt, rt, DT_BOOL);
  return result;
}

/* `x` with its float32 subnormals flushed to zeros of their sign (flush_to_zero=True,
 * ct_flush_subnormals), the type kept; a Python number is taken as written. */
Node *math_flushed(Lowerer *L, Node *x) {
  if (!x->type || math_is_number(x->type))
    return x;
  Node *flushed = T(L, "_1(_2)", use_helper(L, HELPER_ct_flush_subnormals), x);
  flushed->type = x->type;
  return flushed;
}

/* ------------------------------------------------------ ct functions */

static const struct {
  const char *member;
  AstOp op;
} BINARY_MEMBERS[] = {
    {"add", AOP_ADD},           {"sub", AOP_SUB},           {"mul", AOP_MULT},
    {"truediv", AOP_DIV},       {"floordiv", AOP_FLOORDIV}, {"mod", AOP_MOD},
    {"pow", AOP_POW},           {"bitwise_and", AOP_BITAND}, {"bitwise_or", AOP_BITOR},
    {"bitwise_xor", AOP_BITXOR}, {"bitwise_lshift", AOP_LSHIFT}, {"bitwise_rshift", AOP_RSHIFT},
};

/* ct.floordiv(x, y), ct.mod, ct.pow, ct.bitwise_*: the operator's lowering. */
Node *lower_binary_function(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  const char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  bind_call(L, call, what, "x, y, /", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  for (size_t i = 0; i < sizeof BINARY_MEMBERS / sizeof BINARY_MEMBERS[0]; i++)
    if (strcmp(BINARY_MEMBERS[i].member, member) == 0)
      return lower_binary(L, call, what, BINARY_MEMBERS[i].op, x, y);
  lower_error(L, call, "internal error: %s is not a binary function", what);
}

/* ct.add/sub/mul(x, y, rounding_mode=, flush_to_zero=): RN is the
 * operator; the directed modes have no Triton form that runs everywhere. */
Node *lower_rounded_arithmetic(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  const char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  bind_call(L, call, what, "x, y, /, *, rounding_mode, flush_to_zero", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  const char *mode = math_rounding_mode(L, args.arg[2], args.source[2], what);
  if (mode && strcmp(mode, "RN") != 0)
    lower_error(L, args.source[2], "%s with rounding_mode=RoundingMode.%s cannot be converted (Triton has no "
                "directed-rounding %s)", what, mode, member);
  AstOp op = strcmp(member, "add") == 0 ? AOP_ADD : strcmp(member, "sub") == 0 ? AOP_SUB : AOP_MULT;
  if (!math_true_constant(L, args.arg[3], args.source[3], what))
    return lower_binary(L, call, what, op, x, y);
  return math_flushed(L, lower_binary(L, call, what, op, math_flushed(L, x), math_flushed(L, y)));
}

/* A Python number as a float32 scalar tensor, for helpers that read .dtype. */
static Node *as_float32_tensor(Lowerer *L, Node *x) {
  if (!math_is_number(x->type))
    return x;
  Node *made = T(L, "tl.full((), _1, tl.float32)", x);
  made->type = type_tile(L->ctx, DT_FLOAT32, 0, NULL);
  return made;
}

/* ct.truediv(x, y, rounding_mode=, flush_to_zero=):
 *   RN (default)  IEEE division, ct_truediv
 *   FULL          cuTile's full-range approximation (within 2 ulp): Triton's
 *                 plain `/` on float32, which is PTX's div.full.f32 too (not the
 *                 IEEE division: an exact quotient may come out an ulp off in
 *                 both, and a float8 rounding after it then differs from IEEE's)
 *   APPROX        the same division (note C2T201: at least as accurate)
 *   RZ, RM, RP    libdevice div_rz/div_rd/div_ru on float32 */
static Node *lower_truediv_mode(Lowerer *L, Node *call, const char *what, const char *mode, Node *mode_source,
                                Node *x, Node *y);

Node *lower_truediv(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  const char *what = "ct.truediv()";
  bind_call(L, call, what, "x, y, /, *, rounding_mode, flush_to_zero", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  const char *mode = math_rounding_mode(L, args.arg[2], args.source[2], what);
  if (math_true_constant(L, args.arg[3], args.source[3], what)) /* operands and quotient flushed */
    return math_flushed(L, lower_truediv_mode(L, call, what, mode, args.source[2], math_flushed(L, x),
                                              math_flushed(L, y)));
  return lower_truediv_mode(L, call, what, mode, args.source[2], x, y);
}

/* x / y in rounding mode `mode` (NULL: RN), `mode_source` where it is written. */
static Node *lower_truediv_mode(Lowerer *L, Node *call, const char *what, const char *mode, Node *mode_source,
                                Node *x, Node *y) {
  if (!mode || strcmp(mode, "RN") == 0)
    return lower_binary(L, call, what, AOP_DIV, x, y);
  Node *plain = lower_binary(L, call, what, AOP_DIV, x, y); /* types and checks */
  DType dtype = plain->type->dtype;
  if (strcmp(mode, "RA") == 0 || strcmp(mode, "RZI") == 0)
    lower_error(L, mode_source, "%s does not accept rounding_mode=RoundingMode.%s", what, mode);
  if (dtype != DT_FLOAT32 && dtype != DT_UNKNOWN) /* unknown: the helpers check at Triton compile time */
    lower_error(L, mode_source, "%s with rounding_mode=RoundingMode.%s is converted for float32 operands "
                "only (here: %s)", what, mode, dtype_name(dtype));
  Node *result;
  if (strcmp(mode, "FULL") == 0 || strcmp(mode, "APPROX") == 0) {
    if (mode[0] == 'A')
      math_note(L, "C2T201: RoundingMode.APPROX division computed as the full-range one (at least as accurate)");
    result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_truediv_full), x, y);
  } else {
    const char *direction = strcmp(mode, "RZ") == 0 ? "\"rz\"" : strcmp(mode, "RM") == 0 ? "\"rd\"" : "\"ru\"";
    result = T(L, "_1(_2, _3, _4)", use_helper(L, HELPER_ct_truediv_directed), x, y, T0(L, direction));
  }
  result->type = plain->type;
  return result;
}

/* An operand of divmod, which the quotient and the remainder both read: a name or a
 * literal as it is, another expression (`t + 1`, `-3`) evaluated once into a local before
 * the statement (L->pending). */
static Node *divmod_operand(Lowerer *L, Node *call, Node *operand, const char *hint) {
  if (operand->kind == N_NAME || operand->kind == N_CONSTANT)
    return operand;
  if (!L->pending)
    lower_error(L, call, "divmod() of expressions cannot be converted here: assign the operands to names first");
  Str temp = new_temp_name(L, hint);
  const char *text = arena_strndup(&L->ctx->arena, temp.text, (size_t)temp.len);
  scope_bind(L, temp, operand->type);
  NodeList made = template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(new_name(L, text), operand));
  set_store_context(made.items[0]->u.assign.targets.items[0], CTX_STORE);
  node_list_push(&L->ctx->arena, L->pending, made.items[0]);
  Node *name = new_name(L, text);
  name->type = operand->type;
  return name;
}

/* ct.divmod(x, y) / divmod(x, y): integers only, (x // y, x % y). */
Node *lower_divmod(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  const char *what = "divmod()";
  bind_call(L, call, what, "x, y, /", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  for (int side = 0; side < 2; side++) {
    const TypeInfo *t = side ? y->type : x->type;
    if (t && ((math_is_number(t) && t->is_float) || (!math_is_number(t) && math_dtype_is_float(t->dtype))))
      lower_error(L, call, "divmod() on floats is not supported by cuTile");
  }
  x = divmod_operand(L, call, x, "divmod_x");
  y = divmod_operand(L, call, y, "divmod_y");
  Node *quotient = lower_binary(L, call, what, AOP_FLOORDIV, x, y);
  Node *remainder = lower_binary(L, call, what, AOP_MOD, x, y);
  Node *tuple = T(L, "(_1, _2)", quotient, remainder);
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = 2;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * 2);
  type->elts[0] = quotient->type;
  type->elts[1] = remainder->type;
  tuple->type = type;
  return tuple;
}

/* ct.minimum/maximum(x, y, flush_to_zero=, propagate_nan=), min(x, y),
 * max(x, y): tl.minimum/maximum; NaN is ignored unless propagate_nan
 * (tl.PropagateNan.ALL). */
Node *lower_minmax(Lowerer *L, Node *call, const char *member) {
  bool is_min = strcmp(member, "minimum") == 0;
  bool builtin = call->u.call.func->kind == N_NAME;
  const char *what = builtin ? (is_min ? "min()" : "max()") : (is_min ? "ct.minimum()" : "ct.maximum()");
  if (builtin && (call->u.call.args.count != 2 || call->u.call.keywords.count))
    lower_error(L, call, "%s in tile code takes exactly two operands", what);
  BoundArgs args;
  bind_call(L, call, what, "x, y, /, *, flush_to_zero, propagate_nan", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  require_operand(L, call, what, x->type);
  require_operand(L, call, what, y->type);
  if (is_bool_operand(x->type) && is_bool_operand(y->type) && !(math_is_number(x->type) && math_is_number(y->type)))
    lower_error(L, call, "%s: cuTile takes no minimum or maximum of two bools (convert with astype)", what);
  DType dtype = operation_dtype(L, call, what, OPC_MINMAX, x->type, y->type);
  if (math_true_constant(L, args.arg[2], args.source[2], what)) { /* the result is one of the flushed operands */
    x = math_flushed(L, x);
    y = math_flushed(L, y);
  }
  bool propagate = math_true_constant(L, args.arg[3], args.source[3], what);
  if (math_is_number(x->type) && math_is_number(y->type)) {
    Node *folded = T(L, is_min ? "min(_1, _2)" : "max(_1, _2)", x, y);
    folded->type = type_new(L->ctx, VAL_CONST);
    folded->type->rank = 0;
    folded->type->loose = true;
    return folded;
  }
  check_number_width(L, call, what, x->type, y->type);
  TypeInfo *xt = x->type, *yt = y->type;
  match_bfloat16(L, &x, &y);
  Node *result;
  if (propagate)
    result = T(L, is_min ? "tl.minimum(_1, _2, propagate_nan=tl.PropagateNan.ALL)"
                         : "tl.maximum(_1, _2, propagate_nan=tl.PropagateNan.ALL)", x, y);
  else
    result = T(L, is_min ? "tl.minimum(_1, _2)" : "tl.maximum(_1, _2)", x, y);
  result->type = broadcast_type(L, xt, yt, dtype);
  return result;
}

/* ct.equal(x, y) ...: the comparison operators. */
Node *lower_compare_function(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  const char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  bind_call(L, call, what, "x, y, /", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  return lower_comparison(L, call, compare_op_of(member), x, y);
}

/* ct.atan2(x1, x2): libdevice atan2 in the common float dtype. */
Node *lower_atan2(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.atan2()", "x1, x2, /", &args);
  Node *x1 = require_arg(L, call, &args, 0, "ct.atan2()", "x1");
  Node *x2 = require_arg(L, call, &args, 1, "ct.atan2()", "x2");
  require_operand(L, call, "ct.atan2()", x1->type);
  require_operand(L, call, "ct.atan2()", x2->type);
  DType dtype = operation_dtype(L, call, "ct.atan2()", OPC_ATAN2, x1->type, x2->type);
  TypeInfo *t1 = x1->type, *t2 = x2->type;
  if (math_is_number(t1) && math_is_number(t2)) {
    x1 = as_float32_tensor(L, x1);
    dtype = DT_FLOAT32;
  }
  Node *result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_atan2), x1, x2);
  result->type = broadcast_type(L, x1->type, x2->type, dtype);
  return result;
}

/* The tfloat32 or float8 dtype a ct.where() selects in (DT_UNKNOWN: none): cuTile selects
 * between tiles of such a dtype (a choice, not arithmetic), each tile operand of that one
 * dtype (it promotes none to or from them) and a number folded to it. */
static DType where_restricted_dtype(Lowerer *L, const Node *at, const char *what, const TypeInfo *x,
                                    const TypeInfo *y) {
  const TypeInfo *tile = !math_is_number(x) && math_dtype_is_restricted(x->dtype) ? x
                         : !math_is_number(y) && math_dtype_is_restricted(y->dtype) ? y
                                                                                    : NULL;
  if (!tile || tile->dtype == DT_FLOAT4_E2M1FN || tile->dtype == DT_FLOAT8_E8M0FNU)
    return DT_UNKNOWN; /* refused as arithmetic: the converter holds those as codes */
  const TypeInfo *other = tile == x ? y : x;
  if (!math_is_number(other) && other->dtype != tile->dtype)
    lower_error(L, at, "%s: cuTile does not promote %s with %s (a restricted float dtype; convert one with "
                "astype)", what, dtype_name(tile->dtype), other->dtype == DT_UNKNOWN ? "a dtype known at launch"
                                                                                      : dtype_name(other->dtype));
  if (math_is_number(other) && other->dtype == DT_UNKNOWN)
    lower_error(L, at, "%s: a number known only at launch beside a %s tile cannot be converted (cuTile folds "
                "it to the dtype when it compiles)", what, dtype_name(tile->dtype));
  return tile->dtype;
}

/* A where() operand in the restricted `dtype`: a tile as it is, a number folded as cuTile folds it. */
static Node *restricted_where_operand(Lowerer *L, Node *x, DType dtype) {
  if (!math_is_number(x->type))
    return x;
  double value = x->type->is_float ? x->type->float_value : (double)x->type->int_value;
  if (dtype == DT_TFLOAT32) /* a float32 tile holding tf32 values */
    return T0(L, float_literal_text(L, dtype_fold_tfloat32(value)));
  return math_float8_constant(L, T0(L, "()"), value, dtype);
}

/* ct.where(cond, x, y): tl.where with cuTile's promotion of x and y (a
 * Python number takes the other side's dtype: where(m, f16, 0) is f16). */
Node *lower_where(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  const char *what = "ct.where()";
  bind_call(L, call, what, "cond, x, y, /", &args);
  Node *cond = require_arg(L, call, &args, 0, what, "cond");
  Node *x = require_arg(L, call, &args, 1, what, "x");
  Node *y = require_arg(L, call, &args, 2, what, "y");
  require_operand(L, call, what, cond->type);
  require_operand(L, call, what, x->type);
  require_operand(L, call, what, y->type);
  TypeInfo *xt = x->type, *yt = y->type;
  DType restricted = where_restricted_dtype(L, call, what, xt, yt);
  if (restricted != DT_UNKNOWN) {
    Node *result = T(L, "tl.where(_1, _2, _3)", cond, restricted_where_operand(L, x, restricted),
                     restricted_where_operand(L, y, restricted));
    TypeInfo *shape = broadcast_type(L, math_is_number(cond->type) ? xt : cond->type, xt, restricted);
    result->type = broadcast_type(L, shape, yt, restricted);
    return result;
  }
  DType dtype = operation_dtype(L, call, what, OPC_MINMAX, x->type, y->type);
  if (math_is_number(xt) && math_is_number(yt)) {
    bool any_float = xt->is_float || yt->is_float;
    bool known = xt->dtype != DT_UNKNOWN && yt->dtype != DT_UNKNOWN;
    dtype = !known ? DT_UNKNOWN : any_float ? DT_FLOAT32 : (xt->dtype == DT_BOOL && yt->dtype == DT_BOOL) ? DT_BOOL : DT_INT32;
    if (known && !any_float && (!int_fits(xt->int_value, DT_INT32) || !int_fits(yt->int_value, DT_INT32)))
      lower_error(L, call, "%s: integer constants beyond int32 cannot be converted here", what);
  } else {
    check_number_width(L, call, what, xt, yt);
  }
  match_bfloat16(L, &x, &y);
  Node *result = T(L, "tl.where(_1, _2, _3)", cond, x, y);
  TypeInfo *shape = broadcast_type(L, math_is_number(cond->type) ? xt : cond->type, xt, dtype);
  result->type = broadcast_type(L, shape, yt, dtype);
  return result;
}
