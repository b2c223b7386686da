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


/* A located error at `source` unless `acc` (type `at`) has the product's shape (`dims`). */
static void check_accumulator(Lowerer *L, Node *source, const char *what, const TypeInfo *at, const Dim *dims,
                              int rank) {
  if (at->rank != rank)
    lower_error(L, source, "%s: acc must have the shape of the product, a %d-d tile, not %s", what, rank,
                type_describe(L->ctx, at));
  for (int d = 0; d < rank; d++)
    if (dims[d].value >= 0 && at->shape[d] >= 0 && dims[d].value != at->shape[d])
      lower_error(L, source, "%s: acc's dimension %d is %d, the product's is %d", what, d, at->shape[d],
                  dims[d].value);
}

/* The type of a product accumulated into `acc` (type `at`): acc's, with the dimensions the
 * product's shape (`dims`) knows where acc's do not; a tile, not a tfloat32 one. */
static TypeInfo *accumulated_type(Lowerer *L, const TypeInfo *at, const Dim *dims, int rank) {
  TypeInfo *type = type_new(L->ctx, VAL_TILE);
  *type = *at;
  type->tf32_when = NULL;
  type->loose = false;
  for (int d = 0; d < rank; d++)
    if (type->shape[d] < 0 && dims[d].value >= 0) {
      type->shape[d] = dims[d].value;
      type->dims[d] = dims[d].expr;
    }
  return type;
}

/* ct.mma(x, y, acc, *, use_fast_acc=False) */
Node *lower_matrix_mma(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.mma()";
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *y = kmajor_operand(L, require_arg(L, call, &args, 1, what, "y")); /* float8: from a K-major copy */
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
  check_accumulator(L, SRC(args, "acc"), what, at, dims, rank);
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
  L->products++;
  Node *result = T(L, "_1(_2, _3, _4, input_precision=_5, use_fast_acc=_6)", use_helper(L, HELPER_ct_mma), x, y, acc,
                   precision, fast_node);
  result->type = accumulated_type(L, at, dims, rank);
  /* x a tile another load's read, transposed (lower_memory_reuse.c): (yᵀ @ xᵀ + accᵀ)ᵀ, the
     same sums of the same products, where the flag holds; Triton folds the transposes and
     reads the tile from one buffer for both products */
  Node *x_transposed;
  const char *flag = rank == 2 ? reuse_operand(L, x, &x_transposed) : NULL;
  if (flag) {
    Arena *arena = &L->ctx->arena;
    if (!x_transposed)
      x_transposed = T(L, "tl.trans(_1)", node_copy_tree(arena, x));
    Node *swapped = T(L, "tl.trans(_1(tl.trans(_2), _3, tl.trans(_4), input_precision=_5, use_fast_acc=_6))",
                      use_helper(L, HELPER_ct_mma), node_copy_tree(arena, y), x_transposed,
                      node_copy_tree(arena, acc), node_copy_tree(arena, precision), node_copy_tree(arena, fast_node));
    swapped->type = result->type;
    result = reuse_choice(L, flag, swapped, result);
  }
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
  L->products++;
  if (yt->rank == 2)
    y = kmajor_operand(L, y); /* float8: from a K-major copy */
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

/* ------------------------------------------------------------ mma_scaled */

/* The block sizes B cuTile's table (cuda/tile/_datatype.py) allows for operands
 * of `data` with scales of `scale`, into out; 0 when it has no such pair. Its
 * float8_e5m3fnu scales have no dtype in the converter, so they never come. */
static int scaled_block_sizes(DType data, DType scale, int out[2]) {
  if ((data == DT_FLOAT8_E4M3FN || data == DT_FLOAT8_E5M2) && scale == DT_FLOAT8_E8M0FNU) {
    out[0] = 32;
    return 1;
  }
  if (data == DT_FLOAT4_E2M1FN && scale == DT_FLOAT8_E8M0FNU) {
    out[0] = 16, out[1] = 32;
    return 2;
  }
  if (data == DT_FLOAT4_E2M1FN && scale == DT_FLOAT8_E4M3FN) {
    out[0] = 16;
    return 1;
  }
  return 0;
}

static const char *scaled_scale_dtypes(DType data) {
  return data == DT_FLOAT4_E2M1FN ? "float8_e8m0fnu, float8_e4m3fn, float8_e5m3fnu" : "float8_e8m0fnu";
}

/* "(64, 2)", "?" where a dimension is known only at launch */
static const char *shape_text(Lowerer *L, const TypeInfo *type) {
  const char *text = "(";
  for (int d = 0; d < type->rank; d++)
    text = type->shape[d] >= 0 ? arena_printf(&L->ctx->arena, "%s%s%d", text, d ? ", " : "", type->shape[d])
                               : arena_printf(&L->ctx->arena, "%s%s?", text, d ? ", " : "");
  return arena_printf(&L->ctx->arena, "%s%s)", text, type->rank == 1 ? "," : "");
}

/* cuTile's check of a scale against its operand (_verify_scaling_block_size):
 * the same rank and dimensions except along K (axis k_axis), and K a multiple
 * of K_s by an allowed block size (`blocks`, `count`; count 0: the dtypes are
 * known only at launch, where ct_mma_scaled checks, so any size of the table).
 * Returns K_s (-1 unknown). */
static int check_scale(Lowerer *L, const Node *at, const char *what, const char *name, const char *scale_name,
                       const TypeInfo *v, const TypeInfo *s, int k_axis, const int *blocks, int count) {
  if (s->rank != v->rank)
    lower_error(L, at, "%s: %s must have the rank of %s: %s shape %s is not compatible with %s shape %s", what,
                scale_name, name, scale_name, shape_text(L, s), name, shape_text(L, v));
  int k = v->rank + k_axis;
  for (int d = 0; d < v->rank; d++)
    if (d != k && v->shape[d] >= 0 && s->shape[d] >= 0 && v->shape[d] != s->shape[d])
      lower_error(L, at, "%s: %s shape %s is not compatible with %s shape %s. All dimensions except K axis %d "
                  "must match", what, scale_name, shape_text(L, s), name, shape_text(L, v), k);
  static const int ANY_BLOCK[] = {16, 32}; /* every B of the table */
  if (count == 0)
    blocks = ANY_BLOCK, count = 2;
  int kv = v->shape[k], ks = s->shape[k];
  if (kv >= 0 && ks > 0) {
    bool allowed = false;
    for (int i = 0; i < count; i++)
      allowed |= kv % ks == 0 && kv / ks == blocks[i];
    if (!allowed)
      lower_error(L, at, "%s: %s.shape[%d] must be an exact multiple of %s.shape[%d] with scaling block size B = K "
                  "// K_s in {%d%s%s}, got %s.shape[%d] = %d and %s.shape[%d] = %d", what, name, k, scale_name, k,
                  blocks[0], count > 1 ? ", " : "", count > 1 ? arena_printf(&L->ctx->arena, "%d", blocks[1]) : "",
                  name, k, kv, scale_name, k, ks);
  }
  return ks;
}

/* ct.mma_scaled(x, x_scale, y, y_scale, /, acc): the block-scaled product,
 * with cuTile's checks (cuda/tile/_ir/ops.py mma_scaled_impl) where the dtypes
 * and shapes are known here; ct_mma_scaled checks the rest at Triton compile
 * time and computes it by scaling each operand (see its docstring). */
Node *lower_matrix_mma_scaled(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.mma_scaled()";
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  static const char *const NAMES[] = {"x", "y", "acc", "x_scale", "y_scale"};
  Node *value[5];
  for (int i = 0; i < 5; i++) {
    value[i] = ARG(args, NAMES[i]);
    if (!value[i])
      lower_error(L, call, "%s: missing required argument '%s'", what, NAMES[i]);
    require_tile(L, SRC(args, NAMES[i]), what, NAMES[i], value[i]->type, 2, 3);
  }
  Node *x = value[0], *y = value[1], *acc = value[2], *xs = value[3], *ys = value[4];
  const TypeInfo *xt = x->type, *yt = y->type, *at = acc->type, *xst = xs->type, *yst = ys->type;
  /* the dtypes, as cuTile checks them (_resolve_mma_scaled_supported_dtype) */
  DType dx = xt->dtype, dy = yt->dtype, dxs = xst->dtype, dys = yst->dtype, da = at->dtype;
  bool fp4 = dx == DT_FLOAT4_E2M1FN || dy == DT_FLOAT4_E2M1FN; /* known here: only astype makes FP4 tiles */
  if (fp4 ? dx != dy : dx != DT_UNKNOWN && dy != DT_UNKNOWN && dx != dy)
    lower_error(L, call, "%s: x and y must have the same dtype, got %s and %s%s", what,
                dx == DT_UNKNOWN ? "a dtype of an array" : dtype_name(dx),
                dy == DT_UNKNOWN ? "a dtype of an array" : dtype_name(dy),
                fp4 ? " (arrays have no float4_e2m1fn dtype)" : "");
  if (dxs != DT_UNKNOWN && dys != DT_UNKNOWN && dxs != dys)
    lower_error(L, call, "%s: x_scale and y_scale must have the same dtype, got %s and %s", what, dtype_name(dxs),
                dtype_name(dys));
  DType data = dx != DT_UNKNOWN ? dx : dy, scale = dxs != DT_UNKNOWN ? dxs : dys;
  if (data != DT_UNKNOWN && data != DT_FLOAT8_E4M3FN && data != DT_FLOAT8_E5M2 && data != DT_FLOAT4_E2M1FN)
    lower_error(L, SRC(args, dx != DT_UNKNOWN ? "x" : "y"), "%s: unsupported input dtype %s for mma_scaled, "
                "supported input dtypes are float8_e4m3fn, float8_e5m2, float4_e2m1fn%s", what, dtype_name(data),
                data == DT_UINT8 || data == DT_INT8 ? " (ct.bitcast a tile of their bits first)" : "");
  int blocks[2] = {0, 0}, count = 0;
  if (scale != DT_UNKNOWN) {
    /* operands of an array's dtype are float8 ones at best (arrays have no float4_e2m1fn): float8's row */
    count = scaled_block_sizes(data == DT_UNKNOWN ? DT_FLOAT8_E4M3FN : data, scale, blocks);
    if (count == 0)
      lower_error(L, SRC(args, dxs != DT_UNKNOWN ? "x_scale" : "y_scale"), "%s: unsupported scale dtype %s for "
                  "input dtype %s, supported scale dtypes are %s", what, dtype_name(scale),
                  data == DT_UNKNOWN ? "of an array (float8_e4m3fn or float8_e5m2 at best)" : dtype_name(data),
                  scaled_scale_dtypes(data));
  }
  if (da != DT_UNKNOWN && da != DT_FLOAT32)
    lower_error(L, SRC(args, "acc"), "%s: unsupported acc dtype %s for mma_scaled, expected float32", what,
                dtype_name(da));
  /* the scales against their operands, then the product's shapes (as ct.mma's) */
  int ksx = check_scale(L, SRC(args, "x_scale"), what, "x", "x_scale", xt, xst, -1, blocks, count);
  int ksy = check_scale(L, SRC(args, "y_scale"), what, "y", "y_scale", yt, yst, -2, blocks, count);
  Dim dims[3];
  int rank = product_shape(L, call, what, xt, yt, dims);
  if (ksx >= 0 && ksy >= 0 && ksx != ksy) /* cuTile takes it; tileiras refuses it (one block size) */
    lower_error(L, call, "%s: x_scale and y_scale must have the same K_s (one scaling block size; tileiras refuses "
                "two), got %d and %d", what, ksx, ksy);
  check_accumulator(L, SRC(args, "acc"), what, at, dims, rank);
  L->kernel_has_dot = true;
  L->products++;
  Node *result = T(L, "_1(_2, _3, _4, _5, _6, fp4=_7)", use_helper(L, HELPER_ct_mma_scaled), x, xs, y, ys, acc,
                   T0(L, fp4 ? "True" : "False"));
  TypeInfo *type = accumulated_type(L, at, dims, rank);
  type->dtype = DT_FLOAT32;
  type->dtype_expr = NULL;
  result->type = type;
  return result;
}
