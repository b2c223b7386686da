/*
 * lower_reduce.c — reductions and scans.
 *
 *   ct.sum, ct.prod, ct.max, ct.min     tl.sum / tl.reduce / tl.max / tl.min
 *   ct.argmax, ct.argmin                tl.reduce over (value, index) pairs
 *   ct.reduce, ct.scan                  tl.reduce / tl.associative_scan with the
 *                                       tile function as a top-level combine
 *   ct.cumsum, ct.cumprod               tl.cumsum / tl.associative_scan
 *
 * cuTile keeps the input dtype (an int8 sum stays int8 and wraps; bool
 * reduces as int32). Triton widens: tl.sum of int8 is int32 and of bool
 * uint32, tl.max/tl.min compute small ints and float16/bfloat16 in 32 bits,
 * tl.cumsum widens int8 and promotes bfloat16 to float32. So sums and
 * cumsums pass dtype=, max/min cast back, products use a multiply combine
 * in the input dtype. When the dtype comes from an array (unknown at
 * conversion time) small helpers pick the same at trace time. A tuple of
 * axes reduces one axis at a time, highest first.
 */
#include <string.h>

#include "lower_shape.h"

/* ------------------------------------------------------------- helpers */

/* Attach `text` (a `C2T3nn: ...` note) to the statement being lowered. */
static void reduce_note(Lowerer *L, const char *text) {
  if (!L->statement_note)
    L->statement_note = text;
  else if (!strstr(L->statement_note, text))
    L->statement_note = arena_printf(&L->ctx->arena, "%s; %s", L->statement_note, text);
}

static const char NOTE_FTZ[] =
    "C2T301: flush_to_zero=True is not applied (Triton has no flag for it): subnormal values are kept";
static const char NOTE_HALF_SUM[] =
    "C2T302: float16/bfloat16 accumulate in their own dtype as in cuTile, but in Triton's reduction order: "
    "the last bits may differ";

/* A flag whose value the conversion depends on (keepdims changes the
 * result's type): it must be known at conversion time. */
static bool constant_flag(Lowerer *L, const Node *node, const Node *at, const char *what, const char *name) {
  if (!node || node->type->kind == VAL_NONE)
    return false;
  if (node->type->kind != VAL_CONST || node->type->is_float)
    lower_error(L, at, "%s: %s must be a constant bool", what, name);
  if (node->type->dtype == DT_UNKNOWN)
    lower_error(L, at, "%s: %s must be known at conversion time (a literal or a module constant), not a value "
                "that comes with the launch", what, name);
  return node->type->int_value != 0;
}

/* A flag that only passes through to Triton (reverse= of a scan): True or
 * False when known, else the constant expression itself, which is a
 * tl.constexpr in the generated code (a ct.Constant parameter: its value
 * comes with each launch). */
static Node *constant_flag_node(Lowerer *L, Node *node, const Node *at, const char *what, const char *name) {
  if (!node || node->type->kind == VAL_NONE)
    return T0(L, "False");
  if (node->type->kind != VAL_CONST || node->type->is_float)
    lower_error(L, at, "%s: %s must be a constant bool", what, name);
  if (node->type->dtype == DT_UNKNOWN)
    return node;
  return node->type->int_value != 0 ? T0(L, "True") : T0(L, "False");
}

static bool is_small_int(DType dt) {
  const DTypeInfo *info = dtype_info(dt);
  return (info->category == 'i' || info->category == 'u') && info->bits < 32;
}

/* The result dtype of sum/prod/max/min/cumsum/cumprod: bool becomes int32. */
static DType reduced_dtype(DType dt) { return dt == DT_BOOL ? DT_INT32 : dt; }

/* Reject what the converter cannot keep: rounding modes other than RN;
 * note flush_to_zero. */
/* rounding_mode and flush_to_zero, where the row's signature has them. */
static void check_float_options(Lowerer *L, const BoundArgs *args, const char *what) {
  int rounding = bound_slot(args, "rounding_mode"), ftz = bound_slot(args, "flush_to_zero");
  if (rounding >= 0 && args->arg[rounding] && args->arg[rounding]->type->kind != VAL_NONE) {
    const TypeInfo *mode = args->arg[rounding]->type;
    if (mode->kind != VAL_ENUM || strcmp(mode->member, "RoundingMode.RN") != 0)
      lower_error(L, args->source[rounding],
                  "%s: rounding modes other than RoundingMode.RN cannot be converted (Triton's reductions "
                  "round to nearest)", what);
  }
  if (ftz >= 0 && constant_flag(L, args->arg[ftz], args->source[ftz], what, "flush_to_zero"))
    reduce_note(L, NOTE_FTZ);
}

/* The type of x reduced along `axis` (-1: all axes). */
static TypeInfo *reduced_type(Lowerer *L, const Node *x, DType dtype, int axis, bool keepdims) {
  const TypeInfo *in = x->type;
  Node *dims[C2T_MAX_RANK];
  int rank = 0;
  for (int d = 0; d < in->rank; d++) {
    if (axis >= 0 && d != axis)
      dims[rank++] = shape_tile_dim(L, in, d);
    else if (keepdims)
      dims[rank++] = new_int(L, 1);
  }
  return shape_tile_type(L, dtype, in->dtype_expr, rank, dims);
}

static Node *axis_node(Lowerer *L, int axis) { return axis < 0 ? T0(L, "None") : new_int(L, axis); }

static Node *keep_node(Lowerer *L, bool keepdims) { return keepdims ? T0(L, "True") : T0(L, "False"); }

/* The axes a reduction names: None (all, *count = 0 and returns false), an
 * int, or a tuple of ints; sorted highest first, repeats rejected. */
static bool read_axes(Lowerer *L, const Node *axis, const Node *at, int rank, bool allow_tuple, const char *what,
                      int *axes, int *count) {
  *count = 0;
  if (!axis || axis->type->kind == VAL_NONE)
    return false;
  if (axis->type->kind == VAL_TUPLE) {
    if (!allow_tuple)
      lower_error(L, at, "%s: the axis must be None or one constant integer", what);
    for (int i = 0; i < axis->type->count; i++) {
      const TypeInfo *elt = axis->type->elts[i];
      if (!elt || elt->kind != VAL_CONST || elt->dtype == DT_UNKNOWN || elt->is_float)
        lower_error(L, at, "%s: the axes must be constant integers", what);
      long long value = elt->int_value;
      if (value < -rank || value >= rank)
        lower_error(L, at, "%s: axis %lld is out of range for a %d-d tile", what, value, rank);
      int a = (int)(value < 0 ? value + rank : value);
      for (int j = 0; j < *count; j++)
        if (axes[j] == a)
          lower_error(L, at, "%s: axis %d is named twice", what, a);
      axes[(*count)++] = a;
    }
  } else {
    axes[(*count)++] = shape_axis(L, axis, at, rank, what);
  }
  for (int i = 1; i < *count; i++) /* highest first: lower axes keep their numbers */
    for (int j = i; j > 0 && axes[j] > axes[j - 1]; j--) {
      int swap = axes[j];
      axes[j] = axes[j - 1];
      axes[j - 1] = swap;
    }
  return true;
}

/* ------------------------------------------------------ runtime helpers */

/* The runtime helpers (ct_sum, ct_max_propagate_nan, ct_argmax, ...) are
 * Python in src/lower/helpers/reduce_helpers.py. */

static Node *propagate_nan_helper(Lowerer *L, bool is_max) {
  return use_helper(L, is_max ? HELPER_ct_max_propagate_nan : HELPER_ct_min_propagate_nan);
}

/* ct_argmax / ct_argmin (and their _propagate_nan forms), with their combine. */
static Node *arg_helper(Lowerer *L, bool is_max, bool propagate_nan) {
  if (propagate_nan)
    return use_helper(L, is_max ? HELPER_ct_argmax_propagate_nan : HELPER_ct_argmin_propagate_nan);
  return use_helper(L, is_max ? HELPER_ct_argmax : HELPER_ct_argmin);
}

/* --------------------------------------------------- sum, prod, max, min */

typedef enum ReduceKind { R_SUM, R_PROD, R_MAX, R_MIN } ReduceKind;

/* One reduction of x along `axis` (-1: all of it). */
static Node *reduce_once(Lowerer *L, ReduceKind kind, Node *x, int axis, bool keepdims, bool propagate_nan) {
  DType dt = x->type->dtype;
  bool known = dt != DT_UNKNOWN;
  const char *triton_dt = known ? dtype_info(reduced_dtype(dt))->triton : NULL;
  Node *result = NULL;
  Node *a = axis_node(L, axis), *k = keep_node(L, keepdims);
  bool half = dt == DT_FLOAT16 || dt == DT_BFLOAT16;
  bool is_float = known && dtype_info(dt)->category == 'f';
  switch (kind) {
  case R_SUM:
    if (!known)
      result = T(L, "_1(_2, _3, _4)", use_helper(L, HELPER_ct_sum), x, a, k);
    else if (dt == DT_BOOL || is_small_int(dt))
      result = T(L, "tl.sum(_1, axis=_2, keep_dims=_3, dtype=_4)", x, a, k, T0(L, triton_dt));
    else
      result = T(L, "tl.sum(_1, axis=_2, keep_dims=_3)", x, a, k);
    if (half)
      reduce_note(L, NOTE_HALF_SUM);
    break;
  case R_PROD: {
    Node *multiply = use_helper(L, HELPER_ct_multiply);
    if (!known)
      result = T(L, "_1(_2, _3, _4)", use_helper(L, HELPER_ct_prod), x, a, k);
    else if (dt == DT_BOOL)
      result = T(L, "tl.reduce(_1.to(tl.int32), _2, _3, keep_dims=_4)", x, a, multiply, k);
    else
      result = T(L, "tl.reduce(_1, _2, _3, keep_dims=_4)", x, a, multiply, k);
    if (half)
      reduce_note(L, NOTE_HALF_SUM);
    break;
  }
  case R_MAX:
  case R_MIN: {
    bool is_max = kind == R_MAX;
    if (propagate_nan && (!known || is_float)) {
      result = T(L, "_1(_2, _3, _4)", propagate_nan_helper(L, is_max), x, a, k);
    } else if (!known) {
      result = T(L, "_1(_2, _3, _4)", use_helper(L, is_max ? HELPER_ct_max : HELPER_ct_min),
                 x, a, k);
    } else {
      result = T(L, is_max ? "tl.max(_1, axis=_2, keep_dims=_3)" : "tl.min(_1, axis=_2, keep_dims=_3)", x, a, k);
      if (half || is_small_int(dt) || dt == DT_BOOL) /* Triton computed it in 32 bits */
        result = T(L, "_1.to(_2)", result, T0(L, triton_dt));
    }
    break;
  }
  }
  result->type = reduced_type(L, x, reduced_dtype(dt), axis, keepdims);
  return result;
}

/* ct.sum / ct.prod (x, axis=None, *, keepdims, rounding_mode, flush_to_zero)
 * ct.max / ct.min  (x, axis=None, *, keepdims, flush_to_zero, propagate_nan) */
Node *lower_reduction(Lowerer *L, Node *call, const char *member) {
  char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  BoundArgs args;
  bind_op(L, call, what, member, &args); /* sum/prod have rounding_mode, max/min propagate_nan */
  Node *x = shape_require_tile(L, call, &args, 0, what);
  if (x->type->dtype == DT_TFLOAT32 || x->type->dtype == DT_FLOAT8_E4M3FN || x->type->dtype == DT_FLOAT8_E5M2)
    lower_error(L, args.source[0], "%s: %s tiles cannot be reduced (not an arithmetic dtype)", what,
                dtype_info(x->type->dtype)->cutile);
  bool keepdims = constant_flag(L, ARG(args, "keepdims"), SRC(args, "keepdims"), what, "keepdims");
  bool propagate_nan = bound_slot(&args, "propagate_nan") >= 0 &&
                       constant_flag(L, ARG(args, "propagate_nan"), SRC(args, "propagate_nan"), what, "propagate_nan");
  check_float_options(L, &args, what);
  ReduceKind kind = strcmp(member, "sum") == 0    ? R_SUM
                    : strcmp(member, "prod") == 0 ? R_PROD
                    : strcmp(member, "max") == 0  ? R_MAX
                                                  : R_MIN;
  int axes[C2T_MAX_RANK], count;
  if (x->type->rank == 0) { /* a 0-d tile reduces to itself */
    Node *same = x->type->dtype == DT_BOOL ? T(L, "_1.to(tl.int32)", x) : x;
    if (same == x)
      same = T(L, "_1", x);
    same->type = shape_tile_type(L, reduced_dtype(x->type->dtype), x->type->dtype_expr, 0, NULL);
    return same;
  }
  if (!read_axes(L, ARG(args, "axis"), SRC(args, "axis"), x->type->rank, true, what, axes, &count))
    return reduce_once(L, kind, x, -1, keepdims, propagate_nan);
  Node *result = x;
  for (int i = 0; i < count; i++)
    result = reduce_once(L, kind, result, axes[i], keepdims, propagate_nan);
  return result;
}

/* ----------------------------------------------------- argmax, argmin */

/* tl.arange(0, n) laid along `axis` of `rank`: `tl.arange(0, N)[:, None]`. */
static Node *index_along(Lowerer *L, Node *n, int axis, int rank) {
  if (rank <= 1)
    return T(L, "tl.arange(0, _1)", n);
  Buf text = {0};
  buf_puts(&text, "tl.arange(0, _1)[");
  for (int d = 0; d < rank; d++)
    buf_printf(&text, "%s%s", d ? ", " : "", d == axis ? ":" : "None");
  buf_puts(&text, "]");
  Node *indexed = T(L, arena_strndup(&L->ctx->arena, text.data, text.len), n);
  buf_free(&text);
  return indexed;
}

/* ct.argmax / ct.argmin (x, axis=None, *, keepdims, propagate_nan): int32
 * index, ties to the smallest; axis None indexes the row-major flattened
 * tile (reshaped without reordering; Triton's own axis=None reduction may
 * reorder) and keepdims then gives (1,)*ndim. */
Node *lower_arg_reduction(Lowerer *L, Node *call, const char *member) {
  char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  int rank = x->type->rank;
  if (rank == 0)
    lower_error(L, args.source[0], "%s of a 0-d tile cannot be converted", what);
  bool keepdims = constant_flag(L, ARG(args, "keepdims"), SRC(args, "keepdims"), what, "keepdims");
  bool propagate_nan = constant_flag(L, ARG(args, "propagate_nan"), SRC(args, "propagate_nan"), what, "propagate_nan");
  Node *helper = arg_helper(L, strcmp(member, "argmax") == 0, propagate_nan);
  Node *dims[C2T_MAX_RANK];
  shape_require_dims(L, args.source[0], x->type, what, dims);
  int axes[C2T_MAX_RANK], count;
  Node *result;
  if (read_axes(L, args.arg[1], args.source[1], rank, false, what, axes, &count)) {
    result = T(L, "_1(_2, _3, _4, _5)", helper, x, index_along(L, dims[axes[0]], axes[0], rank), new_int(L, axes[0]),
               keep_node(L, keepdims));
    result->type = reduced_type(L, x, DT_INT32, axes[0], keepdims);
    return result;
  }
  Node *count_node = shape_product(L, dims, rank);
  Node *flat = rank == 1 ? x : shape_reshape(L, x, &count_node, 1);
  result = T(L, "_1(_2, _3, 0, False)", helper, flat, index_along(L, count_node, 0, 1));
  result->type = shape_tile_type(L, DT_INT32, NULL, 0, NULL);
  if (!keepdims)
    return result;
  Node *ones[C2T_MAX_RANK];
  for (int d = 0; d < rank; d++)
    ones[d] = new_int(L, 1);
  return shape_reshape(L, result, ones, rank);
}

/* ------------------------------------------------------- cumsum, cumprod */

/* ct.cumsum / ct.cumprod (x, axis=0, *, reverse, rounding_mode, flush_to_zero) */
Node *lower_cumulative(Lowerer *L, Node *call, const char *member) {
  char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  bool is_sum = strcmp(member, "cumsum") == 0;
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  if (x->type->rank == 0)
    lower_error(L, SRC(args, "x"), "%s of a 0-d tile cannot be converted", what);
  int axis = ARG(args, "axis") ? shape_axis(L, ARG(args, "axis"), SRC(args, "axis"), x->type->rank, what) : 0;
  Node *r = constant_flag_node(L, ARG(args, "reverse"), SRC(args, "reverse"), what, "reverse");
  check_float_options(L, &args, what);
  DType dt = x->type->dtype;
  Node *a = new_int(L, axis);
  Node *result;
  if (dt == DT_UNKNOWN && is_sum) {
    result = T(L, "_1(_2, _3, _4)", use_helper(L, HELPER_ct_cumsum), x, a, r);
  } else if (dt == DT_UNKNOWN) {
    use_helper(L, HELPER_ct_multiply);
    result = T(L, "_1(_2, _3, _4)", use_helper(L, HELPER_ct_cumprod), x, a, r);
  } else if (is_sum && (dt == DT_BOOL || is_small_int(dt) || dt == DT_BFLOAT16)) {
    result = T(L, "tl.cumsum(_1, _2, reverse=_3, dtype=_4)", x, a, r, T0(L, dtype_info(reduced_dtype(dt))->triton));
  } else if (is_sum) {
    result = T(L, "tl.cumsum(_1, _2, reverse=_3)", x, a, r);
  } else {
    Node *values = dt == DT_BOOL ? T(L, "_1.to(tl.int32)", x) : x;
    result = T(L, "tl.associative_scan(_1, _2, _3, reverse=_4)", values, a, use_helper(L, HELPER_ct_multiply), r);
  }
  if (dt == DT_FLOAT16 || dt == DT_BFLOAT16)
    reduce_note(L, NOTE_HALF_SUM);
  Node *dims[C2T_MAX_RANK];
  shape_require_dims(L, args.source[0], x->type, what, dims);
  result->type = shape_tile_type(L, reduced_dtype(dt), x->type->dtype_expr, x->type->rank, dims);
  return result;
}

/* ------------------------------------------------ ct.reduce, ct.scan */

/* A combine function for Triton: a top-level @triton.jit function of 2N
 * scalars returning N, each cast back to its operand's dtype (cuTile casts
 * the results implicitly; Triton requires the operands' dtypes). */
typedef struct Combine {
  const char *name;   /* of the generated wrapper */
  Node *node;
} Combine;

static const char *params_text(Lowerer *L, int n) {
  Buf text = {0};
  for (int i = 0; i < 2 * n; i++)
    buf_printf(&text, "%s%c%d", i ? ", " : "", i < n ? 'a' : 'b', i % n);
  char *result = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return result;
}

/* "tl.cast(r0, a0.dtype), ..." for the results r0.. and first operands a0... */
static const char *cast_back_text(Lowerer *L, const char **results, const char **operands, int n) {
  Buf text = {0};
  for (int i = 0; i < n; i++)
    buf_printf(&text, "%stl.cast(%s, %s.dtype)", i ? ", " : "", results[i], operands[i]);
  char *result = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return result;
}

static TypeInfo **operand_types(Lowerer *L, Node **xs, int n) {
  TypeInfo **types = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(2 * n));
  for (int i = 0; i < 2 * n; i++) {
    types[i] = type_tile(L->ctx, xs[i % n]->type->dtype, 0, NULL);
    types[i]->dtype_expr = xs[i % n]->type->dtype_expr;
  }
  return types;
}

/* A module tile function: lowered with 0-d operands, then wrapped. */
static Combine combine_of_function(Lowerer *L, Node *func, Node *at, Node **xs, int n, const char *what) {
  Str fn_name = {func->type->member, (int)strlen(func->type->member)};
  Function *fn = find_function(L->conv, fn_name);
  if (!fn)
    lower_error(L, at, "%s: '%s' is not a tile function of this module", what, func->type->member);
  TypeInfo **types = operand_types(L, xs, n);
  Node *probe = T(L, "_1()", new_name(L, func->type->member));
  for (int i = 0; i < 2 * n; i++) {
    Str temp = new_temp_name(L, "combine_operand");
    scope_bind(L, temp, types[i]);
    node_list_push(&L->ctx->arena, &probe->u.call.args, new_name(L, arena_strndup(&L->ctx->arena, temp.text, (size_t)temp.len)));
  }
  lower_device_call(L, probe, fn);
  const TypeInfo *returned = fn->return_type;
  int returned_count = returned && returned->kind == VAL_TUPLE ? returned->count : 1;
  if (returned_count != n)
    lower_error(L, at, "%s: '%s' must return %d value%s, one per operand", what, func->type->member, n,
                n == 1 ? "" : "s");
  const char *results[C2T_MAX_CALL_ARGS], *operands[C2T_MAX_CALL_ARGS];
  Buf targets = {0};
  for (int i = 0; i < n; i++) {
    results[i] = arena_printf(&L->ctx->arena, "r%d", i);
    operands[i] = arena_printf(&L->ctx->arena, "a%d", i);
    buf_printf(&targets, "%sr%d", i ? ", " : "", i);
  }
  const char *name = arena_printf(&L->ctx->arena, "%s_combine%d", func->type->member, n);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(%s):\n"
      "    \"\"\"%s as a combine function: its results cast back to the operands' dtypes, as\n"
      "    cuTile's reduce and scan do.\"\"\"\n"
      "    %s = %s(%s)\n"
      "    return %s\n",
      name, params_text(L, n), func->type->member, buf_text(&targets), func->type->member, params_text(L, n),
      cast_back_text(L, results, operands, n));
  buf_free(&targets);
  return (Combine){name, use_runtime(L, name, source)};
}

/* A lambda: its body lowered with 0-d operands and lifted to a top-level
 * @triton.jit function (Triton's combine functions cannot be lambdas). */
static Combine combine_of_lambda(Lowerer *L, Node *lambda, Node **xs, int n, const char *what) {
  Node *arguments = lambda->u.lambda.args;
  NodeList *params = &arguments->u.arguments.args;
  if (arguments->u.arguments.vararg || arguments->u.arguments.kwarg || arguments->u.arguments.kwonlyargs.count ||
      arguments->u.arguments.posonlyargs.count || arguments->u.arguments.defaults.count)
    lower_error(L, lambda, "%s: a combine lambda can only have plain parameters", what);
  if (params->count != 2 * n)
    lower_error(L, lambda, "%s: the combine function takes %d operands, this lambda %d", what, 2 * n, params->count);
  TypeInfo **types = operand_types(L, xs, n);
  Scope *outer = L->scope;
  NodeList *outer_pending = L->pending;
  NodeList pending = {0};
  L->scope = arena_alloc(&L->ctx->arena, sizeof(Scope));
  L->pending = &pending;
  Buf *header = lower_buf(L); /* lowering the body may stop at an error */
  for (int i = 0; i < 2 * n; i++) {
    Str name = params->items[i]->u.arg.arg;
    scope_bind(L, name, types[i]);
    buf_printf(header, "%s%.*s", i ? ", " : "", name.len, name.text);
  }
  Node *body = lower_expr(L, lambda->u.lambda.body);
  L->scope = outer;
  L->pending = outer_pending;
  if (pending.count)
    lower_error(L, lambda, "%s: this lambda body cannot be lifted to a combine function", what);
  int returned = body->type && body->type->kind == VAL_TUPLE ? body->type->count : 1;
  if (returned != n)
    lower_error(L, lambda, "%s: the lambda must return %d value%s, one per operand", what, n, n == 1 ? "" : "s");
  const char *results[C2T_MAX_CALL_ARGS], *operands[C2T_MAX_CALL_ARGS];
  for (int i = 0; i < n; i++) {
    Str param = params->items[i]->u.arg.arg;
    operands[i] = arena_strndup(&L->ctx->arena, param.text, (size_t)param.len);
    Node *item = n == 1 ? body : body->kind == N_TUPLE ? body->u.list.elts.items[i] : NULL;
    if (!item)
      lower_error(L, lambda, "%s: the lambda must return a tuple written in its body", what);
    Buf text = {0};
    expr_text(L->ctx, item, &text);
    results[i] = arena_strndup(&L->ctx->arena, text.data, text.len);
    buf_free(&text);
  }
  const char *name = arena_printf(&L->ctx->arena, "combine_line%d", lambda->span.start.line);
  Pos body_at = lambda->u.lambda.body->span.start; /* named_combine's body starts where the lambda does */
  bool named = lambda->u.lambda.body->kind == N_CALL && body_at.line == lambda->span.start.line &&
               body_at.col == lambda->span.start.col;
  const char *doc;
  if (named) {
    Buf text = {0};
    expr_text(L->ctx, lambda->u.lambda.body->u.call.func, &text);
    doc = arena_printf(&L->ctx->arena,
                       "%s (line %d) as a combine function, lifted to a top-level function\n"
                       "    (Triton's combine functions must be @triton.jit functions); results cast back to the\n"
                       "    operands' dtypes as cuTile does.",
                       text.data, lambda->span.start.line);
    buf_free(&text);
  } else {
    doc = arena_printf(&L->ctx->arena,
                       "The combine lambda of line %d, lifted to a top-level function (Triton's combine\n"
                       "    functions must be @triton.jit functions); results cast back to the operands' dtypes\n"
                       "    as cuTile does.",
                       lambda->span.start.line);
  }
  const char *source = arena_printf(&L->ctx->arena,
                                    "@triton.jit\n"
                                    "def %s(%s):\n"
                                    "    \"\"\"%s\"\"\"\n"
                                    "    return %s\n",
                                    name, header->data, doc, cast_back_text(L, results, operands, n));
  buf_free(header);
  return (Combine){name, use_runtime(L, name, source)};
}

/* The operands of ct.reduce/ct.scan broadcast to one shape (numpy rules). */
static int broadcast_operands(Lowerer *L, Node *x, Node *at, Node **xs, const char *what) {
  int n;
  if (x->type && x->type->kind == VAL_TUPLE) {
    if (x->kind != N_TUPLE)
      lower_error(L, at, "%s: write the tuple of tiles in the call", what);
    n = x->u.list.elts.count;
    if (n < 1 || n > C2T_MAX_CALL_ARGS / 2)
      lower_error(L, at, "%s: 1 to %d tiles can be combined", what, C2T_MAX_CALL_ARGS / 2);
    for (int i = 0; i < n; i++)
      xs[i] = x->u.list.elts.items[i];
  } else {
    n = 1;
    xs[0] = x;
  }
  int rank = 0;
  for (int i = 0; i < n; i++) {
    if (!xs[i]->type || xs[i]->type->kind != VAL_TILE || xs[i]->type->rank < 0)
      lower_error(L, at, "%s needs tiles, not %s", what, type_describe(L->ctx, xs[i]->type));
    if (xs[i]->type->rank > rank)
      rank = xs[i]->type->rank;
  }
  Node *dims[C2T_MAX_RANK];
  for (int d = 0; d < rank; d++)
    dims[d] = NULL;
  for (int i = 0; i < n; i++) {
    int offset = rank - xs[i]->type->rank;
    for (int d = offset; d < rank; d++) {
      Node *dim = shape_tile_dim(L, xs[i]->type, d - offset);
      long long value;
      if (!dim)
        lower_error(L, at, "%s: dimension %d of operand %d is not known at conversion time", what, d - offset, i);
      if (!dims[d] || (shape_known_int(dims[d], &value) && value == 1))
        dims[d] = dim;
    }
  }
  for (int d = 0; d < rank; d++)
    if (!dims[d])
      dims[d] = new_int(L, 1);
  for (int i = 0; n > 1 && i < n; i++) {
    bool same = xs[i]->type->rank == rank;
    for (int d = 0; same && d < rank; d++) {
      long long p, q;
      Node *dim = shape_tile_dim(L, xs[i]->type, d);
      same = dim == dims[d] || (shape_known_int(dim, &p) && shape_known_int(dims[d], &q) && p == q);
    }
    if (same)
      continue;
    Node *source = xs[i];
    if (xs[i]->type->rank < rank && xs[i]->type->rank > 0) {
      Node *padded[C2T_MAX_RANK];
      int offset = rank - xs[i]->type->rank;
      for (int d = 0; d < rank; d++)
        padded[d] = d < offset ? new_int(L, 1) : shape_tile_dim(L, xs[i]->type, d - offset);
      source = T(L, "tl.reshape(_1, _2)", xs[i], shape_tuple_node(L, padded, rank));
    }
    Node *spread = T(L, "tl.broadcast_to(_1, _2)", source, shape_tuple_node(L, dims, rank));
    spread->type = shape_tile_type(L, xs[i]->type->dtype, xs[i]->type->dtype_expr, rank, dims);
    xs[i] = spread;
  }
  return n;
}

static Node *operands_node(Lowerer *L, Node **xs, int n) {
  if (n == 1)
    return xs[0];
  Node *tuple = T0(L, "()");
  for (int i = 0; i < n; i++)
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, xs[i]);
  return tuple;
}

/* The identity: checked (constant scalars, one per operand), then dropped. */
static void check_identity(Lowerer *L, Node *identity, Node *at, int n, const char *what) {
  int count = identity->type->kind == VAL_TUPLE ? identity->type->count : 1;
  if (count != n)
    lower_error(L, at, "%s: %d identity values for %d operands", what, count, n);
  for (int i = 0; i < count; i++) {
    const TypeInfo *type = identity->type->kind == VAL_TUPLE ? identity->type->elts[i] : identity->type;
    if (!type || type->kind != VAL_CONST)
      lower_error(L, at, "%s: the identity must be constant scalars", what);
  }
}

/* A combine function named, not defined here: a cuTile operation (ct.maximum), a function of
 * operator (operator.add) or the builtins max and min, which cuTile calls on two operands; as
 * the lambda `lambda a, b: f(a, b)`. NULL for anything else (a tile function, a lambda). */
static Node *named_combine(Lowerer *L, Node *func) {
  if (func->kind == N_LAMBDA)
    return NULL;
  Node *bound = lower_bound_function(L, func); /* `f = ct.maximum` then f, `fs[0]` */
  if (bound)
    func = bound;
  bool named = false;
  const char *member = resolve_ct_member(L->conv, func);
  if (member) {
    const OpRow *row = op_find(member);
    named = row && !(row->flags & (OPF_TYPE | OPF_DTYPE | OPF_ENUM | OPF_EXCEPTION | OPF_SUBMODULE | OPF_HOST));
  } else if (func->kind == N_NAME && !scope_lookup(L, func->u.name.id) && !find_function(L->conv, func->u.name.id) &&
             !find_binding(L->conv, func->u.name.id)) {
    named = str_eq(func->u.name.id, "max") || str_eq(func->u.name.id, "min");
  }
  if (!named) {
    const Node *base = func;
    while (base->kind == N_ATTRIBUTE)
      base = base->u.attribute.value;
    const char *python = base->kind == N_NAME && !scope_lookup(L, base->u.name.id) ? resolve_python_name(L->conv, func)
                                                                                   : NULL;
    named = python && lower_is_operator_function(python);
  }
  if (!named)
    return NULL;
  Node *lambda = T(L, "lambda a, b: _1(a, b)", func);
  lambda->span = lambda->u.lambda.body->span = func->span; /* where errors point; see combine_of_lambda */
  return lambda;
}

/* Take a lambda argument out before the others are lowered. */
static Node *take_lambda(Lowerer *L, Node *call, int position, const char *keyword) {
  NodeList *args = &call->u.call.args;
  Node *named = args->count > position ? named_combine(L, args->items[position]) : NULL;
  if (args->count > position && (args->items[position]->kind == N_LAMBDA || named)) {
    Node *lambda = named ? named : args->items[position];
    args->items[position] = T0(L, "None");
    return lambda;
  }
  NodeList *keywords = &call->u.call.keywords;
  for (int k = 0; k < keywords->count; k++) {
    Node *kw = keywords->items[k];
    named = str_eq(kw->u.keyword.arg, keyword) ? named_combine(L, kw->u.keyword.value) : NULL;
    if (str_eq(kw->u.keyword.arg, keyword) && (kw->u.keyword.value->kind == N_LAMBDA || named)) {
      Node *lambda = named ? named : kw->u.keyword.value;
      kw->u.keyword.value = T0(L, "None");
      return lambda;
    }
  }
  return NULL;
}

static Combine read_combine(Lowerer *L, Node *lambda, const BoundArgs *args, int index, Node **xs, int n,
                            const char *what) {
  if (lambda)
    return combine_of_lambda(L, lambda, xs, n, what);
  Node *func = args->arg[index];
  if (!func)
    lower_error(L, NULL, "%s: missing the combine function", what);
  if (func->type->kind != VAL_FUNCTION)
    lower_error(L, args->source[index],
                "%s: the combine function must be a tile function of this module or a lambda, not %s", what,
                type_describe(L->ctx, func->type));
  return combine_of_function(L, func, args->source[index], xs, n, what);
}

static TypeInfo *results_type(Lowerer *L, Node **results, int n) {
  if (n == 1)
    return results[0]->type;
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = n;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)n);
  for (int i = 0; i < n; i++)
    type->elts[i] = results[i]->type;
  return type;
}

/* ct.reduce(x, /, axis, func, identity, *, keepdims=False) */
Node *lower_custom_reduce(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.reduce()";
  Node *lambda = take_lambda(L, call, 2, "func");
  BoundArgs args;
  bind_call(L, call, what, "x, /, axis, func, identity, *, keepdims", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *axis_arg = require_arg(L, call, &args, 1, what, "axis");
  Node *identity = require_arg(L, call, &args, 3, what, "identity");
  bool keepdims = constant_flag(L, args.arg[4], args.source[4], what, "keepdims");
  Node *xs[C2T_MAX_CALL_ARGS];
  int n = broadcast_operands(L, x, args.source[0], xs, what);
  check_identity(L, identity, args.source[3], n, what);
  int rank = xs[0]->type->rank;
  if (rank == 0)
    lower_error(L, args.source[0], "%s of 0-d tiles cannot be converted", what);
  int axis = shape_axis(L, axis_arg, args.source[1], rank, what);
  Combine combine = read_combine(L, lambda, &args, 2, xs, n, what);
  Node *result = T(L, "tl.reduce(_1, _2, _3, keep_dims=_4)", operands_node(L, xs, n), new_int(L, axis), combine.node,
                   keep_node(L, keepdims));
  Node *parts[C2T_MAX_CALL_ARGS];
  for (int i = 0; i < n; i++) {
    parts[i] = T(L, "_1", xs[i]);
    parts[i]->type = reduced_type(L, xs[i], xs[i]->type->dtype, axis, keepdims);
  }
  result->type = results_type(L, parts, n);
  return result;
}

/* ct.scan(x, /, axis, func, identity, *, reverse=False): inclusive on both
 * sides. */
Node *lower_custom_scan(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.scan()";
  Node *lambda = take_lambda(L, call, 2, "func");
  BoundArgs args;
  bind_call(L, call, what, "x, /, axis, func, identity, *, reverse", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *axis_arg = require_arg(L, call, &args, 1, what, "axis");
  Node *identity = require_arg(L, call, &args, 3, what, "identity");
  Node *reverse = constant_flag_node(L, args.arg[4], args.source[4], what, "reverse");
  Node *xs[C2T_MAX_CALL_ARGS];
  int n = broadcast_operands(L, x, args.source[0], xs, what);
  check_identity(L, identity, args.source[3], n, what);
  int rank = xs[0]->type->rank;
  if (rank == 0)
    lower_error(L, args.source[0], "%s of 0-d tiles cannot be converted", what);
  int axis = shape_axis(L, axis_arg, args.source[1], rank, what);
  Combine combine = read_combine(L, lambda, &args, 2, xs, n, what);
  Node *result = T(L, "tl.associative_scan(_1, _2, _3, reverse=_4)", operands_node(L, xs, n), new_int(L, axis),
                   combine.node, reverse);
  Node *parts[C2T_MAX_CALL_ARGS];
  for (int i = 0; i < n; i++) {
    Node *dims[C2T_MAX_RANK];
    shape_require_dims(L, args.source[0], xs[i]->type, what, dims);
    parts[i] = T(L, "_1", xs[i]);
    parts[i]->type = shape_tile_type(L, xs[i]->type->dtype, xs[i]->type->dtype_expr, rank, dims);
  }
  result->type = results_type(L, parts, n);
  return result;
}
