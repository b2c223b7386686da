/*
 * lower_matrix.c — matrix products: ct.mma, ct.matmul and the `@` operator
 * (CUTILE-SEMANTICS §3.5, traps 6-8).
 *
 * Both lower to the helpers of src/lower/helpers/matrix_helpers.py (ct_mma,
 * ct_matmul), which make tl.dot compute what cuTile does at Triton compile
 * time, where the operands' dtypes and shapes are known: batch broadcast,
 * K below tl.dot's minimum (a multiply-and-sum), uint8 operands, matmul's
 * accumulator rule. What is known here is checked here, as cuTile checks it
 * (ranks, shapes, the dtype table), and decided here: the input precision
 * (float32 is true float32 in cuTile: "ieee"; tfloat32 operands "tf32") and
 * the fp8 accumulation (use_fast_acc).
 */
#include <string.h>

#include "lower_math.h"

static const char *dtype_name(DType dtype) { return dtype_info(dtype)->cutile; }

static void require_tile(Lowerer *L, const Node *at, const char *what, const char *name, const TypeInfo *type,
                         int min_rank, int max_rank) {
  if (!type || type->kind != VAL_TILE)
    lower_error(L, at, "%s: %s must be a tile, not %s", what, name, type_describe(L->ctx, type));
  if (type->rank < 0)
    lower_error(L, at, "%s: the rank of %s is not known at conversion", what, name);
  if (type->rank < min_rank || type->rank > max_rank)
    lower_error(L, at, "%s: %s must be a %d-d%s tile, not %s", what, name, min_rank,
                max_rank > min_rank ? arena_printf(&L->ctx->arena, " to %d-d", max_rank) : "",
                type_describe(L->ctx, type));
}

/* One dimension of a product: its value (-1 unknown) and expression. */
typedef struct Dim {
  int value;
  Node *expr;
} Dim;

static Dim dim_of(const TypeInfo *type, int axis) {
  Dim dim = {type->shape[axis], type->dims[axis]};
  return dim;
}

static Dim one_dim(void) {
  Dim dim = {1, NULL};
  return dim;
}

/* The shapes of x @ y (x, y of rank 2 or 3 here): the output's dims; a
 * mismatch known at conversion is a located error, as cuTile's. */
static int product_shape(Lowerer *L, const Node *at, const char *what, const TypeInfo *x, const TypeInfo *y,
                         Dim *out) {
  int rx = x->rank, ry = y->rank;
  Dim k1 = dim_of(x, rx - 1), k2 = dim_of(y, ry - 2);
  if (k1.value >= 0 && k2.value >= 0 && k1.value != k2.value)
    lower_error(L, at, "%s: the shapes do not multiply (x has K = %d, y has K = %d)", what, k1.value, k2.value);
  int rank = 0;
  if (rx == 3 || ry == 3) {
    Dim bx = rx == 3 ? dim_of(x, 0) : one_dim(), by = ry == 3 ? dim_of(y, 0) : one_dim();
    if (bx.value >= 0 && by.value >= 0 && bx.value != by.value && bx.value != 1 && by.value != 1)
      lower_error(L, at, "%s: the batch dimensions %d and %d do not broadcast", what, bx.value, by.value);
    out[rank++] = bx.value == 1 ? by : bx;
  }
  out[rank++] = dim_of(x, rx - 2);
  out[rank++] = dim_of(y, ry - 1);
  return rank;
}

static TypeInfo *product_type(Lowerer *L, DType dtype, const Dim *dims, int rank) {
  TypeInfo *type = type_tile(L->ctx, dtype, rank, NULL);
  for (int d = 0; d < rank; d++) {
    type->shape[d] = dims[d].value;
    type->dims[d] = dims[d].expr;
  }
  return type;
}

/* Whether a value is tfloat32: 1 yes, 0 no, -1 known only at launch (tf32_when). */
static int tf32_state(const TypeInfo *type) {
  if (type->dtype == DT_TFLOAT32)
    return 1;
  return type->tf32_when ? -1 : 0;
}

/* input_precision of tl.dot: "tf32" for tfloat32 operands, else "ieee"
 * (cuTile's float32 product is true float32; Triton's default is tf32; the
 * option means nothing for other dtypes). */
static Node *input_precision(Lowerer *L, const Node *at, const char *what, const TypeInfo *x, const TypeInfo *y) {
  int sx = tf32_state(x), sy = tf32_state(y);
  for (int side = 0; side < 2; side++) {
    const TypeInfo *t = side ? x : y;
    int other = side ? sy : sx;
    if (other == 1 && tf32_state(t) == 0 && t->dtype != DT_UNKNOWN)
      lower_error(L, at, "%s: x and y must have the same dtype (tfloat32 and %s)", what, dtype_name(t->dtype));
  }
  if (sx == 1 || sy == 1)
    return T0(L, "\"tf32\"");
  const TypeInfo *when = sx == -1 ? x : sy == -1 ? y : NULL;
  if (!when)
    return T0(L, "\"ieee\"");
  return T(L, "\"tf32\" if _1 else \"ieee\"", node_copy_tree(&L->ctx->arena, when->tf32_when));
}

/* The dtype a product's operand is to cuTile's table (tfloat32 as itself). */
static bool mma_input_dtype(DType dtype) {
  switch (dtype) {
  case DT_FLOAT16: case DT_BFLOAT16: case DT_FLOAT32: case DT_TFLOAT32: case DT_FLOAT64:
  case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E5M2: case DT_INT8: case DT_UINT8:
    return true;
  default:
    return false;
  }
}

/* cuTile's accumulators for an operand dtype, the first being matmul's. */
static int mma_accumulators(DType dtype, DType out[2]) {
  switch (dtype) {
  case DT_FLOAT16: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E5M2:
    out[0] = DT_FLOAT16, out[1] = DT_FLOAT32;
    return 2;
  case DT_BFLOAT16: case DT_FLOAT32: case DT_TFLOAT32:
    out[0] = DT_FLOAT32;
    return 1;
  case DT_FLOAT64:
    out[0] = DT_FLOAT64;
    return 1;
  case DT_INT8: case DT_UINT8:
    out[0] = DT_INT32;
    return 1;
  default:
    return 0;
  }
}

static void check_input_dtype(Lowerer *L, const Node *at, const char *what, DType dtype) {
  if (dtype != DT_UNKNOWN && !mma_input_dtype(dtype))
    lower_error(L, at, "%s: cuTile has no matrix product of %s operands (float16, bfloat16, float32, tfloat32, "
                "float64, float8_e4m3fn, float8_e5m2, int8, uint8)", what, dtype_name(dtype));
}

/* ct.mma(x, y, acc, *, use_fast_acc=False) */
Node *lower_matrix_mma(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.mma()";
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  Node *acc = require_arg(L, call, &args, 2, what, "acc");
  require_tile(L, SRC(args, "x"), what, "x", x->type, 2, 3);
  require_tile(L, SRC(args, "y"), what, "y", y->type, 2, 3);
  require_tile(L, SRC(args, "acc"), what, "acc", acc->type, 2, 3);
  /* use_fast_acc: a constant, or a constexpr (a Constant parameter) that Triton decides */
  Node *fast_arg = ARG(args, "use_fast_acc");
  bool fast_at_launch = fast_arg && fast_arg->type->kind == VAL_CONST && fast_arg->type->dtype == DT_UNKNOWN;
  bool fast = !fast_at_launch &&
              math_true_constant(L, fast_arg, SRC(args, "use_fast_acc"), "ct.mma(use_fast_acc=)");
  const TypeInfo *xt = x->type, *yt = y->type, *at = acc->type;
  Dim dims[3];
  int rank = product_shape(L, call, what, xt, yt, dims);
  if (at->rank != rank)
    lower_error(L, SRC(args, "acc"), "%s: acc must have the shape of the product, a %d-d tile, not %s", what, rank,
                type_describe(L->ctx, at));
  for (int d = 0; d < rank; d++)
    if (dims[d].value >= 0 && at->shape[d] >= 0 && dims[d].value != at->shape[d])
      lower_error(L, SRC(args, "acc"), "%s: acc's dimension %d is %d, the product's is %d", what, d, at->shape[d],
                  dims[d].value);
  DType dx = xt->dtype, dy = yt->dtype, da = at->dtype;
  check_input_dtype(L, SRC(args, "x"), what, dx);
  check_input_dtype(L, SRC(args, "y"), what, dy);
  bool small_ints = (dx == DT_INT8 || dx == DT_UINT8) && (dy == DT_INT8 || dy == DT_UINT8);
  if (dx != DT_UNKNOWN && dy != DT_UNKNOWN && dx != dy && !small_ints)
    lower_error(L, call, "%s: x and y must have the same dtype (cuTile does not promote them), not %s and %s", what,
                dtype_name(dx), dtype_name(dy));
  DType known = dx != DT_UNKNOWN ? dx : dy;
  if (known != DT_UNKNOWN && da != DT_UNKNOWN) {
    DType allowed[2] = {DT_UNKNOWN, DT_UNKNOWN};
    int count = mma_accumulators(known, allowed);
    if (!(allowed[0] == da || (count == 2 && allowed[1] == da)))
      lower_error(L, SRC(args, "acc"), "%s: a product of %s takes a %s%s%s accumulator in cuTile, not %s", what,
                  dtype_name(known), dtype_name(allowed[0]), count == 2 ? " or " : "",
                  count == 2 ? dtype_name(allowed[1]) : "", dtype_name(da));
  }
  if (fast && known != DT_UNKNOWN && known != DT_FLOAT8_E4M3FN && known != DT_FLOAT8_E5M2)
    lower_error(L, SRC(args, "use_fast_acc"), "%s: use_fast_acc needs float8 operands in cuTile, not %s", what,
                dtype_name(known));
  Node *precision = input_precision(L, call, what, xt, yt);
  /* fp8: Triton's default on sm_90 is the fast accumulator; cuTile's is the precise one (ct_mma) */
  Node *fast_node = fast_at_launch ? fast_arg : T0(L, fast ? "True" : "False");
  L->kernel_has_dot = true;
  Node *result = T(L, "_1(_2, _3, _4, input_precision=_5, use_fast_acc=_6)", use_helper(L, HELPER_ct_mma), x, y, acc,
                   precision, fast_node);
  TypeInfo *type = type_new(L->ctx, VAL_TILE);
  *type = *at;
  type->tf32_when = NULL;
  type->loose = false;
  for (int d = 0; d < rank; d++)
    if (type->shape[d] < 0 && dims[d].value >= 0) {
      type->shape[d] = dims[d].value;
      type->dims[d] = dims[d].expr;
    }
  result->type = type;
  return result;
}

/* x @ y, ct.matmul(x, y): operands 1-D to 3-D, promoted to one dtype. */
Node *lower_matrix_product(Lowerer *L, Node *at, const char *what, Node *x, Node *y, Node *x_source, Node *y_source) {
  require_tile(L, x_source, what, "x", x->type, 1, 3);
  require_tile(L, y_source, what, "y", y->type, 1, 3);
  const TypeInfo *xt = x->type, *yt = y->type;
  /* the shapes as cuTile sees them: a 1-D x is a row (1, K), a 1-D y a column (K, 1) */
  TypeInfo xs = *xt, ys = *yt;
  if (xt->rank == 1) {
    xs.rank = 2;
    xs.shape[1] = xt->shape[0], xs.dims[1] = xt->dims[0];
    xs.shape[0] = 1, xs.dims[0] = NULL;
  }
  if (yt->rank == 1) {
    ys.rank = 2;
    ys.shape[1] = 1, ys.dims[1] = NULL;
  }
  Dim dims[3];
  int rank = product_shape(L, at, what, &xs, &ys, dims);
  Dim out[3];
  int out_rank = 0;
  for (int d = 0; d < rank; d++) {
    if (xt->rank == 1 && d == rank - 2)
      continue;
    if (yt->rank == 1 && d == rank - 1)
      continue;
    out[out_rank++] = dims[d];
  }
  DType dx = xt->dtype, dy = yt->dtype, dtype = DT_UNKNOWN;
  check_input_dtype(L, x_source, what, dx);
  check_input_dtype(L, y_source, what, dy);
  if (dx != DT_UNKNOWN && dy != DT_UNKNOWN)
    dtype = math_promote(L, at, what, dx, dy);
  else if (dx == dy)
    dtype = dx;
  Node *precision = input_precision(L, at, what, xt, yt);
  L->kernel_has_dot = true;
  Node *result = T(L, "_1(_2, _3, input_precision=_4)", use_helper(L, HELPER_ct_matmul), x, y, precision);
  result->type = product_type(L, dtype, out, out_rank);
  if (dtype == DT_UNKNOWN && tf32_state(xt) == -1)
    result->type->tf32_when = xt->tf32_when; /* tf32 @ tf32 stays tf32 in cuTile */
  return result;
}

/* ct.matmul(x, y) */
Node *lower_matrix_matmul(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.matmul()";
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = require_arg(L, call, &args, 1, what, "y");
  return lower_matrix_product(L, call, what, x, y, SRC(args, "x"), SRC(args, "y"));
}
