/*
 * lower_reduce.c — reductions and scans: ct.sum, ct.max, ct.min, ...
 *
 * cuTile keeps the input dtype (an int8 sum stays int8; bool sums as
 * int32); Triton widens small integers and sums bool as uint32, so sums
 * pass dtype= explicitly. A tuple of axes reduces one axis at a time.
 */
#include <string.h>

#include "lower.h"

/* The reduced type: `axis` removed (or kept as 1), or everything for None. */
static TypeInfo *reduced_type(Lowerer *L, const TypeInfo *input, int axis, bool keepdims) {
  TypeInfo *type = type_tile(L->ctx, input->dtype, 0, NULL);
  type->dtype_expr = input->dtype_expr;
  if (axis < 0) {
    if (keepdims) {
      type->rank = input->rank;
      for (int d = 0; d < input->rank; d++) {
        type->shape[d] = 1;
        type->dims[d] = new_int(L, 1);
      }
    }
    return type;
  }
  int out = 0;
  for (int d = 0; d < input->rank; d++) {
    if (d == axis && !keepdims)
      continue;
    type->shape[out] = d == axis ? 1 : input->shape[d];
    type->dims[out] = d == axis ? new_int(L, 1) : input->dims[d];
    out++;
  }
  type->rank = out;
  return type;
}

static bool constant_bool(const Node *node, bool otherwise) {
  if (!node || !node->type || node->type->kind != VAL_CONST || node->type->dtype == DT_UNKNOWN)
    return otherwise;
  return node->type->int_value != 0;
}

/* ct.sum / ct.max / ct.min (x, axis=None, *, keepdims=False, ...) */
static Node *lower_reduction(Lowerer *L, Node *call, const char *member) {
  char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  BoundArgs args;
  bind_call(L, call, what, "x, /, axis, *, keepdims, rounding_mode, flush_to_zero, propagate_nan", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  if (!x->type || x->type->kind != VAL_TILE || x->type->rank < 0)
    lower_error(L, args.source[0], "%s reduces a tile of known rank, not %s", what, type_describe(L->ctx, x->type));
  bool keepdims = constant_bool(args.arg[2], false);
  if (args.arg[3] || constant_bool(args.arg[4], false) || constant_bool(args.arg[5], false))
    lower_error(L, call, "%s: rounding_mode, flush_to_zero and propagate_nan are not supported by the converter yet",
                what);
  Node *axis = args.arg[1];
  int axis_value = -1;
  if (axis && !(axis->type->kind == VAL_NONE)) {
    if (axis->type->kind != VAL_CONST || axis->type->dtype == DT_UNKNOWN || axis->type->is_float)
      lower_error(L, args.source[1], "%s: the axis must be a constant integer (tuples of axes: not yet)", what);
    axis_value = (int)axis->type->int_value;
    if (axis_value < 0)
      axis_value += x->type->rank;
    if (axis_value < 0 || axis_value >= x->type->rank)
      lower_error(L, args.source[1], "%s: axis out of range for a %d-d tile", what, x->type->rank);
  }
  const char *function = strcmp(member, "sum") == 0 ? "tl.sum" : strcmp(member, "max") == 0 ? "tl.max" : "tl.min";
  Node *result;
  Node *keep = keepdims ? T0(L, "True") : T0(L, "False");
  if (axis_value < 0)
    result = T(L, "_1(_2, axis=None, keep_dims=_3)", T0(L, function), x, keep);
  else
    result = T(L, "_1(_2, axis=_3, keep_dims=_4)", T0(L, function), x, new_int(L, axis_value), keep);
  if (strcmp(member, "sum") == 0) {
    /* the sum keeps the input dtype as in cuTile */
    Node *dtype = x->type->dtype != DT_UNKNOWN ? T0(L, dtype_info(x->type->dtype == DT_BOOL ? DT_INT32 : x->type->dtype)->triton)
                                               : T(L, "_1.dtype", x);
    node_list_push(&L->ctx->arena, &result->u.call.keywords, T(L, "f(dtype=_1)", dtype)->u.call.keywords.items[0]);
  }
  result->type = reduced_type(L, x->type, axis_value, keepdims);
  return result;
}

const OpEntry lower_reduce_ops[] = {
    {"sum", lower_reduction},
    {"max", lower_reduction},
    {"min", lower_reduction},
    {NULL, NULL},
};
