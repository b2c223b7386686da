/*
 * lower_math_basics.c — what the elementwise math family shares: dtype
 * categories, the note on the current statement, the tile type of a result,
 * RoundingMode and constant-flag arguments (lower_math.h).
 */
#include <string.h>

#include "lower_math.h"

/* ------------------------------------------------------------- basics */

bool math_is_number(const TypeInfo *type) { return type && type->kind == VAL_CONST; }

/* A Python number is never bfloat16 itself (a Constant parameter is an int,
 * float or bool); a tile is not when its dtype, or what it was computed from, says so. */
bool math_never_bfloat16(const TypeInfo *type) {
  return math_is_number(type) || type->not_bfloat16 || (type->dtype != DT_UNKNOWN && type->dtype != DT_BFLOAT16);
}

bool math_dtype_is_float(DType dtype) { return dtype != DT_UNKNOWN && dtype_info(dtype)->category == 'f'; }

bool math_dtype_is_restricted(DType dtype) {
  return dtype == DT_TFLOAT32 || dtype == DT_FLOAT8_E4M3FN || dtype == DT_FLOAT8_E5M2 || dtype == DT_FLOAT4_E2M1FN ||
         dtype == DT_FLOAT8_E8M0FNU;
}

char math_category(DType dtype) {
  if (dtype == DT_UNKNOWN)
    return '?';
  char category = dtype_info(dtype)->category;
  return category == 'u' ? 'i' : category;
}

void math_note(Lowerer *L, const char *text) {
  if (!L->statement_note) {
    L->statement_note = text;
  } else if (!strstr(L->statement_note, text)) {
    L->statement_note = arena_printf(&L->ctx->arena, "%s; %s", L->statement_note, text);
  }
}

TypeInfo *math_tile_type(Lowerer *L, const TypeInfo *like, DType dtype) {
  TypeInfo *type = type_new(L->ctx, VAL_TILE);
  if (like && like->kind == VAL_TILE) {
    *type = *like;
  } else {
    type->rank = 0;
  }
  type->kind = VAL_TILE;
  type->dtype = dtype;
  type->dtype_expr = NULL;
  type->tf32_when = NULL; /* arithmetic results are never tfloat32 */
  type->float_kind = false;
  type->loose = false;
  return type;
}

/* -------------------------------------------------- enum/flag arguments */

const char *math_rounding_mode(Lowerer *L, Node *arg, Node *source, const char *what) {
  if (!arg || arg->type->kind == VAL_NONE)
    return NULL;
  if (arg->type->kind != VAL_ENUM || strncmp(arg->type->member, "RoundingMode.", 13) != 0)
    lower_error(L, source, "%s: rounding_mode must be a ct.RoundingMode member", what);
  return arg->type->member + 13;
}

bool math_true_constant(Lowerer *L, Node *arg, Node *source, const char *what) {
  if (!arg)
    return false;
  if (arg->type->kind != VAL_CONST || arg->type->dtype == DT_UNKNOWN)
    lower_error(L, source, "%s must be a constant True or False", what);
  return arg->type->is_float ? arg->type->float_value != 0 : arg->type->int_value != 0;
}
