/*
 * lower_shape.c — tile creation and shape operations: ct.arange, ct.full,
 * ct.zeros, ct.ones, reshape, permute, transpose, expand_dims, broadcast_to,
 * cat, extract.
 */
#include <string.h>

#include "lower.h"

/* ct.arange(size, *, dtype, start=0, step=1) */
static Node *lower_arange(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.arange()", "size, /, *, dtype, start, step", &args);
  Node *size = require_arg(L, call, &args, 0, "ct.arange()", "size");
  Node *dtype = require_arg(L, call, &args, 1, "ct.arange()", "dtype");
  if (dtype->type->kind != VAL_DTYPE)
    lower_error(L, args.source[1], "ct.arange(): dtype must be a dtype");
  if (size->type->kind != VAL_CONST)
    lower_error(L, args.source[0], "ct.arange(): the size must be constant");
  Node *result = T(L, "tl.arange(0, _1)", size);
  if (dtype->type->dtype != DT_INT32)
    result = T(L, "tl.cast(_1, _2)", result, dtype);
  if (args.arg[3])
    result = T(L, "_1 * tl.cast(_2, _3)", result, args.arg[3], dtype);
  if (args.arg[2])
    result = T(L, "_1 + tl.cast(_2, _3)", result, args.arg[2], dtype);
  result->type = type_tile(L->ctx, dtype->type->dtype, 1, NULL);
  result->type->dims[0] = size;
  result->type->shape[0] = size->type->dtype != DT_UNKNOWN ? (int)size->type->int_value : -1;
  return result;
}

const OpEntry lower_shape_ops[] = {
    {"arange", lower_arange},
    {NULL, NULL},
};
