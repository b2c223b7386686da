/*
 * lower_index.c — block indices and tile counts: ct.bid, ct.num_blocks,
 * ct.num_tiles, ct.cdiv; and the grid's dependency control (programmatic
 * dependent launch): ct.grid_dependency_control_wait and _launch_dependents.
 */
#include <string.h>

#include "lower.h"
#include "lower_math.h"

/* An axis argument: a constant 0, 1 or 2. */
static long long constant_axis(Lowerer *L, Node *call, Node *axis, const char *what) {
  if (!axis || !axis->type || axis->type->kind != VAL_CONST || axis->type->is_float || axis->type->int_value < 0 ||
      axis->type->int_value > 2)
    lower_error(L, call, "%s: the axis must be a constant 0, 1 or 2", what);
  return axis->type->int_value;
}

/* ct.bid(axis) -> tl.program_id(axis) */
Node *lower_bid(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.bid()", "axis", &args);
  long long axis = constant_axis(L, call, require_arg(L, call, &args, 0, "ct.bid()", "axis"), "ct.bid()");
  Node *result = T(L, "tl.program_id(_1)", new_int(L, axis));
  result->type = type_tile(L->ctx, DT_INT32, 0, NULL);
  return result;
}

/* ct.num_blocks(axis) -> tl.num_programs(axis) */
Node *lower_num_blocks(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.num_blocks()", "axis", &args);
  long long axis = constant_axis(L, call, require_arg(L, call, &args, 0, "ct.num_blocks()", "axis"), "ct.num_blocks()");
  Node *result = T(L, "tl.num_programs(_1)", new_int(L, axis));
  result->type = type_tile(L->ctx, DT_INT32, 0, NULL);
  return result;
}

/* ct.cdiv(x, y): folded for constants; else the exact helper, whose result
 * has the shape and dtype of x // y (a tile stays a tile). */
Node *lower_cdiv(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.cdiv()", "x, y", &args);
  Node *x = require_arg(L, call, &args, 0, "ct.cdiv()", "x");
  Node *y = require_arg(L, call, &args, 1, "ct.cdiv()", "y");
  bool x_const = x->type->kind == VAL_CONST && x->type->dtype != DT_UNKNOWN;
  bool y_const = y->type->kind == VAL_CONST && y->type->dtype != DT_UNKNOWN;
  if (x_const && y_const) {
    /* ceil(a / b): the floor quotient, one more when inexact; folded in
     * int64 (a zero divisor or an overflow is a located error) */
    long long a = x->type->int_value, b = y->type->int_value;
    long long q = fold_int(L, call, '/', a, b);
    return new_int(L, fold_int(L, call, '%', a, b) != 0 ? q + 1 : q);
  }
  if (x->type->kind == VAL_CONST && y->type->kind == VAL_CONST) {
    /* constexpr operands: Python's floor division is exact */
    Node *folded = T(L, "-(-_1 // _2)", x, y);
    folded->type = type_new(L->ctx, VAL_CONST);
    folded->type->rank = 0;
    return folded;
  }
  for (int side = 0; side < 2; side++) {
    const TypeInfo *t = side ? y->type : x->type;
    if (t && (math_is_number(t) ? t->is_float : math_dtype_is_float(t->dtype)))
      lower_error(L, call, "ct.cdiv() takes integers, not %s", type_describe(L->ctx, t));
  }
  Node *result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_cdiv), x, y);
  /* a tile operand keeps its shape: the result broadcasts as x // y does */
  result->type = math_binary_type(L, call, "ct.cdiv()", AOP_FLOORDIV, x->type, y->type);
  return result;
}

/* ct.grid_dependency_control_wait() and ct.grid_dependency_control_launch_dependents():
 * their helpers (memory_helpers.py), Triton's gdc_wait and gdc_launch_dependents */
Node *lower_grid_dependency(Lowerer *L, Node *call, const char *member) {
  const char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  BoundArgs args;
  bind_call(L, call, what, "", &args);
  bool wait = strcmp(member, "grid_dependency_control_wait") == 0;
  Node *result = T(L, "_1()", use_helper(L, wait ? HELPER_ct_grid_dependency_control_wait
                                                 : HELPER_ct_grid_dependency_control_launch_dependents));
  result->type = type_new(L->ctx, VAL_NONE);
  return result;
}
