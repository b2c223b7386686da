/*
 * lower_shape.c — tile creation and shape operations.
 *
 *   ct.arange, ct.full, ct.zeros, ct.ones, ct.astile    creation
 *   reshape, item, permute, transpose, expand_dims,
 *   broadcast_to, cat, extract, insert                  shape
 *
 * Every result is typed with its rank and dims (constant expressions such as
 * `BLOCK`), so later operations (ct.store's descriptors, reductions) see the
 * right shape. Where Triton's operation of the same name means something
 * else (tl.cat is 1-D and may reorder; tl.trans with two axes is an error),
 * the lowering builds cuTile's meaning from join/permute/reshape/split/gather.
 *
 * Triton facts this file relies on (checked in the interpreter and in
 * semantic.py): a 0-d tensor cannot be tl.reshape'd (broadcast_to splats
 * it); tl.broadcast_to needs equal ranks; tl.reshape(x, ()) of a one-element
 * tensor gives a 0-d tensor; tl.gather needs an index of the source's rank,
 * equal to it off the gathered axis.
 */
#include <math.h>
#include <string.h>

#include "lower_math.h"
#include "lower_shape.h"

#define SHAPE_MAX_RANK 4 /* ct.extract / ct.insert tiles: (grid, sub) views double the rank: 8 = C2T_MAX_RANK */
#define SHAPE_MAX_ASTILE_ELEMENTS 256 /* scalars of one ct.astile() nested tuple (one tl.where each) */
#define SHAPE_MAX_SPLIT_RANK (2 * C2T_MAX_RANK) /* axes of ct.extract()'s split view (constant indices) */

/* ------------------------------------------------------------- helpers */

Node *shape_tile_dim(Lowerer *L, const TypeInfo *tile, int d) {
  if (tile->dims[d])
    return tile->dims[d];
  if (tile->shape[d] >= 0)
    return new_int(L, tile->shape[d]);
  return NULL;
}

void shape_require_dims(Lowerer *L, const Node *at, const TypeInfo *tile, const char *what, Node **dims) {
  for (int d = 0; d < tile->rank; d++) {
    dims[d] = shape_tile_dim(L, tile, d);
    if (!dims[d])
      lower_error(L, at, "%s: dimension %d of this tile is not known at conversion time", what, d);
  }
}

/* The dimensions as expressions, NULL where not known at conversion time
 * (the operations that only move axes carry them as they are: Triton
 * knows the real shape). */
static void known_dims(Lowerer *L, const TypeInfo *tile, Node **dims) {
  for (int d = 0; d < tile->rank; d++)
    dims[d] = shape_tile_dim(L, tile, d);
}

TypeInfo *shape_tile_type(Lowerer *L, DType dtype, Node *dtype_expr, int rank, Node **dims) {
  TypeInfo *type = type_tile(L->ctx, dtype, rank, NULL);
  type->dtype_expr = dtype == DT_UNKNOWN ? dtype_expr : NULL;
  for (int d = 0; d < rank; d++) {
    long long value;
    type->dims[d] = dims[d];
    type->shape[d] = dims[d] && shape_known_int(dims[d], &value) ? shape_dim_value(L, dims[d], value) : -1;
  }
  return type;
}

/* A tile shape `(d0, d1, ...)` to Triton. An item of a ct.Constant tuple parameter (`(TS[0],)`)
 * is written tl.constexpr(TS[0]): Triton's code generator gives TS[0] as a bare int, which a
 * tuple display cannot hold ("'int' object has no attribute 'type'"). */
Node *shape_tuple_node(Lowerer *L, Node **dims, int rank) {
  Node *tuple = T0(L, "()");
  for (int d = 0; d < rank; d++) {
    Node *dim = dims[d];
    if (dim && dim->kind == N_SUBSCRIPT && dim->type && dim->type->kind == VAL_CONST && dim->type->const_tuple &&
        dim->type->dtype == DT_UNKNOWN) {
      TypeInfo *type = dim->type;
      dim = T(L, "tl.constexpr(_1)", dim);
      dim->type = type;
    }
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, dim);
  }
  return tuple;
}

Node *shape_product(Lowerer *L, Node **dims, int count) {
  long long known = 1;
  Node *symbolic = NULL;
  for (int d = 0; d < count; d++) {
    long long value;
    if (shape_known_int(dims[d], &value))
      known = fold_int(L, dims[d], '*', known, value);
    else
      symbolic = symbolic ? T(L, "_1 * _2", symbolic, dims[d]) : dims[d];
  }
  if (!symbolic)
    return new_int(L, known);
  Node *product = known == 1 ? symbolic : T(L, "_1 * _2", new_int(L, known), symbolic);
  product->type = type_new(L->ctx, VAL_CONST);
  product->type->rank = 0;
  return product;
}

/* a // b as a constant expression (a number when both are known). */
static Node *shape_quotient(Lowerer *L, Node *a, Node *b) {
  long long x, y;
  if (shape_known_int(a, &x) && shape_known_int(b, &y))
    return new_int(L, fold_int(L, b, '/', x, y)); /* Python's //: floors; 0 is an error */
  if (shape_known_int(b, &y) && y == 1)
    return a;
  Node *quotient = T(L, "_1 // _2", a, b);
  quotient->type = type_new(L->ctx, VAL_CONST);
  quotient->type->rank = 0;
  return quotient;
}

Node *shape_require_tile(Lowerer *L, Node *call, const BoundArgs *args, int index, const char *what) {
  Node *x = args->arg[index];
  if (!x)
    lower_error(L, call, "%s: missing the tile argument", what);
  if (!x->type || x->type->kind != VAL_TILE || x->type->rank < 0)
    lower_error(L, args->source[index], "%s needs a tile of known rank, not %s", what,
                type_describe(L->ctx, x->type));
  return x;
}

int shape_axis(Lowerer *L, const Node *axis, const Node *at, int rank, const char *what) {
  long long value;
  if (!shape_known_int(axis, &value))
    lower_error(L, at, "%s: the axis must be a constant integer", what);
  if (value < -rank || value >= rank)
    lower_error(L, at, "%s: axis %lld is out of range for a %d-d tile", what, value, rank);
  return (int)(value < 0 ? value + rank : value);
}

Node *shape_dtype_node(Lowerer *L, Node *tile) {
  const TypeInfo *type = tile->type;
  if (type->dtype != DT_UNKNOWN)
    return T0(L, dtype_info(type->dtype)->triton);
  if (type->dtype_expr)
    return type->dtype_expr;
  return T(L, "_1.dtype", tile);
}

Node *shape_reshape(Lowerer *L, Node *x, Node **dims, int rank) {
  Node *result;
  if (x->type->rank == 0 && rank == 0)
    result = x;
  else if (x->type->rank == 0) /* a 0-d tensor cannot be reshaped in Triton: splat it */
    result = T(L, "tl.broadcast_to(_1, _2)", x, shape_tuple_node(L, dims, rank));
  else
    result = T(L, "tl.reshape(_1, _2)", x, shape_tuple_node(L, dims, rank));
  TypeInfo *type = shape_tile_type(L, x->type->dtype, x->type->dtype_expr, rank, dims);
  if (result == x) {
    result = T(L, "_1", x);
  }
  result->type = type;
  return result;
}

static bool is_power_of_two(long long value) { return value > 0 && (value & (value - 1)) == 0; }

typedef struct ConstexprNames {
  Lowerer *L;
  const Node *at;
} ConstexprNames;

static void require_names(Node *node, void *data) {
  ConstexprNames *scan = data;
  if (!node)
    return;
  if (node->kind == N_ATTRIBUTE && str_eq(node->u.attribute.attr, "shape"))
    return; /* t.shape[d]: a constexpr in Triton */
  if (node->kind == N_NAME) {
    Variable *var = scope_lookup(scan->L, node->u.name.id);
    if (var && !(var->type && var->type->static_counter))
      require_constexpr_local(scan->L, node->u.name.id, scan->at);
    return;
  }
  node_children(node, require_names, data);
}

void shape_require_constexpr_names(Lowerer *L, Node *dim, const Node *at) {
  ConstexprNames scan = {L, at};
  require_names(dim, &scan);
}

Node *shape_constexpr_item(Lowerer *L, Node *tuple, int i, const Node *at) {
  if (tuple->kind != N_NAME || !tuple->type || tuple->type->kind != VAL_TUPLE || !tuple->type->elts ||
      i >= tuple->type->count)
    return NULL;
  const TypeInfo *elt = tuple->type->elts[i];
  if (!elt || elt->kind != VAL_CONST || elt->is_float)
    return NULL;
  if (!require_constexpr_local(L, tuple->u.name.id, at))
    return NULL;
  Node *item = T(L, "_1[_2]", node_copy_tree(&L->ctx->arena, tuple), new_int(L, i));
  item->type = (TypeInfo *)elt;
  return item;
}

/* A constant shape argument: a tuple of constant ints or one int. With
 * allow_infer, one entry may be -1 (its index goes to *inferred). */
/* A dimension known here (`value`) that reads a local bound more than once (`a = 1` in both
 * branches of a run-time `if`: a tensor to Triton, whose shapes take constexprs only) as the
 * number; other dimensions as written. */
static Node *known_dim(Lowerer *L, Node *dim, long long value) {
  if (dim->kind == N_CONSTANT || !math_reads_reassigned(L, dim))
    return dim;
  Node *number = new_int(L, value);
  number->type = dim->type;
  return number;
}

static int read_shape(Lowerer *L, Node *shape, Node *at, const char *what, Node **dims, bool allow_infer,
                      int *inferred) {
  if (inferred)
    *inferred = -1;
  int rank;
  if (shape->type && shape->type->kind == VAL_CONST) {
    rank = 1;
    dims[0] = shape;
  } else if (shape->kind == N_TUPLE) {
    rank = shape->u.list.elts.count;
    if (rank > C2T_MAX_RANK)
      lower_limit(L, at, arena_printf(&L->ctx->arena, "dimensions in the shape of %s", what), C2T_MAX_RANK);
    for (int d = 0; d < rank; d++)
      dims[d] = shape->u.list.elts.items[d];
  } else if (shape->type && shape->type->kind == VAL_TUPLE) {
    rank = shape->type->count;
    if (rank > C2T_MAX_RANK)
      lower_limit(L, at, arena_printf(&L->ctx->arena, "dimensions in the shape of %s", what), C2T_MAX_RANK);
    for (int d = 0; d < rank; d++) {
      const TypeInfo *elt = shape->type->elts[d];
      if (elt && elt->kind == VAL_CONST && elt->dtype != DT_UNKNOWN && !elt->is_float)
        dims[d] = new_int(L, elt->int_value);
      else if (!(dims[d] = shape_constexpr_item(L, shape, d, at))) /* (BM, BK) kept in a local */
        lower_error(L, at, "%s: the shape must be a tuple of constant integers", what);
    }
  } else {
    lower_error(L, at, "%s: the shape must be a constant integer or a tuple of them", what);
  }
  for (int d = 0; d < rank; d++) {
    long long value;
    if (!dims[d]->type || dims[d]->type->kind != VAL_CONST || dims[d]->type->is_float)
      lower_error(L, at, "%s: the shape must be a tuple of constant integers", what);
    if (!shape_known_int(dims[d], &value)) {
      shape_require_constexpr_names(L, dims[d], at);
      continue;
    }
    dims[d] = known_dim(L, dims[d], value);
    if (value == -1 && allow_infer) {
      if (*inferred >= 0)
        lower_error(L, at, "%s: only one dimension can be -1", what);
      *inferred = d;
    } else if (!is_power_of_two(value)) {
      lower_error(L, at, "%s: dimension %lld is not a power of two (tile dimensions must be)", what, value);
    }
  }
  return rank;
}

/* A constant integer tuple (axes, grid indices) with its values. */
static int read_int_tuple(Lowerer *L, Node *tuple, Node *at, const char *what, long long *values, int max) {
  int count = 0;
  if (tuple->type && tuple->type->kind == VAL_CONST) {
    if (!shape_known_int(tuple, &values[0]))
      lower_error(L, at, "%s needs constant integers", what);
    return 1;
  }
  if (!tuple->type || tuple->type->kind != VAL_TUPLE)
    lower_error(L, at, "%s needs a tuple of constant integers", what);
  count = tuple->type->count;
  if (count > max)
    lower_limit(L, at, arena_printf(&L->ctx->arena, "entries in the tuple of %s", what), max);
  for (int i = 0; i < count; i++) {
    const TypeInfo *elt = tuple->type->elts[i];
    if (!elt || elt->kind != VAL_CONST || elt->dtype == DT_UNKNOWN || elt->is_float)
      lower_error(L, at, "%s needs constant integers", what);
    values[i] = elt->int_value;
  }
  return count;
}

static Node *require_dtype(Lowerer *L, Node *call, const BoundArgs *args, int index, const char *what) {
  Node *dtype = require_arg(L, call, args, index, what, "dtype");
  if (dtype->type->kind != VAL_DTYPE)
    lower_error(L, args->source[index], "%s: dtype must be a dtype, not %s", what, type_describe(L->ctx, dtype->type));
  return dtype;
}

static TypeInfo *typed_like_dtype(Lowerer *L, Node *dtype, int rank, Node **dims) {
  return shape_tile_type(L, dtype->type->dtype, dtype->type->dtype_expr ? dtype->type->dtype_expr : dtype, rank, dims);
}

/* ------------------------------------------------------------ creation */

/* `value` converted to `dtype` as cuTile's astype would, kept as a plain
 * Python number where Triton gives it that dtype anyway (an int for int32,
 * any number for float32). */
static Node *value_as_dtype(Lowerer *L, Node *value, Node *dtype) {
  long long unused;
  DType dt = dtype->type->dtype;
  if (value->type->kind == VAL_CONST && value->type->dtype != DT_UNKNOWN) {
    if (dt == DT_INT32 && shape_known_int(value, &unused) && value->type->dtype != DT_BOOL)
      return value;
    if (dt == DT_FLOAT32 && value->type->dtype != DT_BOOL)
      return value;
  }
  return T(L, "tl.cast(_1, _2)", value, dtype);
}

/* ct.arange(size, /, *, dtype, start=0, step=1): cuTile computes
 * iota(size).astype(dtype) * step.astype(dtype) + start.astype(dtype), with
 * the iota in int32 for float dtypes. */
Node *lower_arange(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.arange()";
  BoundArgs args;
  bind_call(L, call, what, "size, /, *, dtype, start, step", &args);
  Node *size = require_arg(L, call, &args, 0, what, "size");
  Node *dtype = require_dtype(L, call, &args, 1, what);
  long long count;
  if (!size->type || size->type->kind != VAL_CONST || size->type->is_float)
    lower_error(L, args.source[0], "%s: the size must be a constant integer", what);
  if (shape_known_int(size, &count) && !is_power_of_two(count))
    lower_error(L, args.source[0], "%s: the size %lld is not a power of two", what, count);
  if (!shape_known_int(size, &count))
    shape_require_constexpr_names(L, size, args.source[0]);
  else
    size = known_dim(L, size, count);
  Node *start = args.arg[2], *step = args.arg[3];
  long long value;
  Node *result = T(L, "tl.arange(0, _1)", size);
  if (dtype->type->dtype != DT_INT32)
    result = T(L, "_1.to(_2)", result, dtype);
  if (step && !(shape_known_int(step, &value) && value == 1 && step->type->dtype != DT_BOOL))
    result = T(L, "_1 * _2", result, value_as_dtype(L, step, dtype));
  if (start && !(shape_known_int(start, &value) && value == 0 && start->type->dtype != DT_BOOL))
    result = T(L, "_1 + _2", result, value_as_dtype(L, start, dtype));
  result->type = typed_like_dtype(L, dtype, 1, &size);
  return result;
}

/* A known nonzero constant filling a float8_e4m3fn / float8_e5m2 tile: Triton's
 * interpreter builds no such fp8 constant (tl.full fails there), so the value,
 * folded here as cuTile folds it, is a float32 tile cast to the dtype (exact), or,
 * for NaN and infinity (which the cast would saturate), its code's bits.
 * NULL for other fills. */
static Node *float8_fill(Lowerer *L, const TypeInfo *value, Node *dtype, Node **dims, int rank) {
  DType dt = dtype->type->dtype;
  if ((dt != DT_FLOAT8_E4M3FN && dt != DT_FLOAT8_E5M2) || value->kind != VAL_CONST || value->dtype == DT_UNKNOWN)
    return NULL;
  double number = value->is_float ? value->float_value : (double)value->int_value;
  if (number == 0 && !signbit(number))
    return NULL;
  return math_float8_constant(L, shape_tuple_node(L, dims, rank), number, dt);
}

/* A fill value as a 0-d value of `dtype` spread over `dims`. */
static Node *filled(Lowerer *L, Node *value, Node *at, Node *dtype, Node **dims, int rank, const char *what) {
  Node *fp8 = float8_fill(L, value->type, dtype, dims, rank);
  if (fp8)
    return fp8;
  bool tf32 = dtype->type->dtype == DT_TFLOAT32; /* float32 tiles holding tf32 values */
  const TypeInfo *number = value->type;
  if (tf32 && number->kind == VAL_CONST && number->dtype != DT_UNKNOWN)
    return T(L, "tl.full(_1, _2, tl.float32)", shape_tuple_node(L, dims, rank),
             T0(L, float_literal_text(L, dtype_fold_tfloat32(number->is_float ? number->float_value
                                                                              : (double)number->int_value))));
  if (number->kind == VAL_CONST && !tf32)
    return T(L, "tl.full(_1, _2, _3)", shape_tuple_node(L, dims, rank), value, dtype);
  if (!type_is_scalar(number) && number->kind != VAL_CONST)
    lower_error(L, at, "%s: the fill value must be a scalar, not %s", what, type_describe(L->ctx, number));
  Node *converted = T(L, "tl.cast(_1, _2)", value, dtype);
  if (tf32) /* float32 first, then tf32: as cuTile converts a float64 or integer scalar */
    converted = T(L, "_1(_2)", use_helper(L, HELPER_ct_to_tfloat32), converted);
  if (rank == 0)
    return converted;
  return T(L, "tl.broadcast_to(_1, _2)", converted, shape_tuple_node(L, dims, rank));
}

/* A float4_e2m1fn fill: the tile of its uint8 code (the converter's FP4
 * tiles; see convert_to_float4), a constant folded as astype folds it, a
 * constexpr rounded from its double as astype rounds it. */
static Node *float4_fill(Lowerer *L, Node *value, Node *at, Node **dims, int rank, const char *what) {
  Node *shape = shape_tuple_node(L, dims, rank);
  const TypeInfo *type = value->type;
  if (math_is_number(type) && type->dtype == DT_BOOL)
    lower_error(L, at, "%s: a bool fill value of a float4_e2m1fn tile cannot be converted", what);
  if (math_is_number(type) && type->dtype != DT_UNKNOWN) {
    int code;
    if (!dtype_float4_code(type->is_float ? type->float_value : (double)type->int_value, &code))
      lower_error(L, at, "%s: NaN cannot be represented in float4_e2m1fn (cuTile's error too)", what);
    return T(L, "tl.full(_1, _2, tl.uint8)", shape, new_int(L, code));
  }
  if (!math_is_number(type)) /* tileiras refuses the one-element FP4 tile cuTile converts it to */
    lower_error(L, at, "%s: a run-time fill value of a float4_e2m1fn tile cannot be converted: cuTile converts it "
                "to a one-element float4_e2m1fn tile, which its compiler refuses (\"F4E2M1FN tiles must have an "
                "even number of elements\"); fill a float32 tile and astype it", what);
  /* a constexpr: from its double, as astype of one rounds it */
  return T(L, "_1(tl.full(_2, _3, tl.float64))", use_helper(L, HELPER_ct_to_float4_e2m1fn), shape, value);
}

/* ct.full(shape, fill_value, dtype); the fill value may be a run-time scalar. */
Node *lower_full(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.full()";
  BoundArgs args;
  bind_call(L, call, what, "shape, fill_value, dtype", &args);
  Node *shape = require_arg(L, call, &args, 0, what, "shape");
  Node *value = require_arg(L, call, &args, 1, what, "fill_value");
  Node *dtype = require_dtype(L, call, &args, 2, what);
  Node *dims[C2T_MAX_RANK];
  int rank = read_shape(L, shape, args.source[0], what, dims, false, NULL);
  if (dtype->type->dtype == DT_FLOAT8_E8M0FNU) /* its bits, folded as cuTile folds the constant */
    value = math_float8_e8m0fnu_fill(L, args.source[1], value, what);
  Node *result = dtype->type->dtype == DT_FLOAT4_E2M1FN ? float4_fill(L, value, args.source[1], dims, rank, what)
                                                         : filled(L, value, args.source[1], dtype, dims, rank, what);
  result->type = typed_like_dtype(L, dtype, rank, dims);
  return result;
}

/* ct.zeros(shape, dtype), ct.ones(shape, dtype) */
Node *lower_zeros_ones(Lowerer *L, Node *call, const char *member) {
  const char *what = strcmp(member, "zeros") == 0 ? "ct.zeros()" : "ct.ones()";
  BoundArgs args;
  bind_call(L, call, what, "shape, dtype", &args);
  Node *shape = require_arg(L, call, &args, 0, what, "shape");
  Node *dtype = require_dtype(L, call, &args, 1, what);
  Node *dims[C2T_MAX_RANK];
  int rank = read_shape(L, shape, args.source[0], what, dims, false, NULL);
  bool zeros = strcmp(member, "zeros") == 0;
  Node *result;
  Node *fp8 = zeros ? NULL : float8_fill(L, type_const_int(L->ctx, 1), dtype, dims, rank);
  if (dtype->type->dtype == DT_FLOAT8_E8M0FNU) /* its bits: 0.0 folds to 2**-127 (bits 0), 1.0 to bits 127 */
    result = T(L, "tl.full(_1, _2, tl.uint8)", shape_tuple_node(L, dims, rank), new_int(L, zeros ? 0 : 127));
  else if (dtype->type->dtype == DT_FLOAT4_E2M1FN) /* its code: 0.0 is 0, 1.0 is 2 */
    result = T(L, "tl.full(_1, _2, tl.uint8)", shape_tuple_node(L, dims, rank), new_int(L, zeros ? 0 : 2));
  else if (fp8)
    result = fp8;
  else if (zeros)
    result = T(L, "tl.zeros(_1, _2)", shape_tuple_node(L, dims, rank), dtype);
  else
    result = T(L, "tl.full(_1, 1, _2)", shape_tuple_node(L, dims, rank), dtype);
  result->type = typed_like_dtype(L, dtype, rank, dims);
  return result;
}

/* The scalars of a nested tuple, row-major, and the nesting's shape. */
typedef struct Nested {
  Node *values[SHAPE_MAX_ASTILE_ELEMENTS];
  int count;
  int dims[C2T_MAX_RANK];
  int rank;
} Nested;

static void flatten_nested(Lowerer *L, Node *value, int level, Nested *out, const char *what) {
  if (value->kind != N_TUPLE) {
    if (level != out->rank && out->count > 0)
      lower_error(L, value, "%s: the nested tuples must all have the same depth", what);
    if (!type_is_scalar(value->type))
      lower_error(L, value, "%s: the elements must be scalars, not %s", what, type_describe(L->ctx, value->type));
    if (out->count == SHAPE_MAX_ASTILE_ELEMENTS)
      lower_limit(L, value, arena_printf(&L->ctx->arena, "elements in the tuple of %s", what),
                  SHAPE_MAX_ASTILE_ELEMENTS);
    out->rank = level;
    out->values[out->count++] = value;
    return;
  }
  int length = value->u.list.elts.count;
  if (level >= C2T_MAX_RANK)
    lower_limit(L, value, arena_printf(&L->ctx->arena, "levels of nested tuples in %s", what), C2T_MAX_RANK);
  if (!is_power_of_two(length))
    lower_error(L, value, "%s: a tuple of %d elements (each length must be a power of two)", what, length);
  if (out->count == 0 && (level == 0 || out->dims[level] == 0))
    out->dims[level] = length;
  if (out->dims[level] != length)
    lower_error(L, value, "%s: sibling tuples must have the same length", what);
  for (int i = 0; i < length; i++)
    flatten_nested(L, value->u.list.elts.items[i], level + 1, out, what);
}

/* A tuple value held in a name or returned by an expression (`value = (0, 1, 0, 4)`,
 * `ct.astile(value, ...)`) as the tuple display of its items (`value[0]`, ...), nested
 * tuples too, so that ct.astile reads it as it reads a tuple written in the call. */
static Node *astile_items(Lowerer *L, Node *value, int level, const char *what) {
  if (value->kind == N_TUPLE || !value->type || value->type->kind != VAL_TUPLE)
    return value;
  if (!value->type->elts || value->type->count < 0)
    lower_error(L, value, "%s of a tuple whose length is not known at conversion cannot be converted", what);
  if (level >= C2T_MAX_RANK)
    lower_limit(L, value, arena_printf(&L->ctx->arena, "levels of nested tuples in %s", what), C2T_MAX_RANK);
  Node *tuple = T(L, "()");
  tuple->kind = N_TUPLE;
  tuple->u.list.elts = (NodeList){0};
  for (int i = 0; i < value->type->count; i++)
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, astile_items(L, lower_tuple_entry(L, value, i), level + 1, what));
  tuple->type = value->type;
  return tuple;
}

/* ct.astile(value, /, *, dtype): a scalar becomes a 0-d tile; a nested tuple
 * of scalars a tile shaped by its nesting. Triton builds tensors only from
 * ranges and splats, so each element is put in place with tl.where against
 * a flat index, then the row-major vector is reshaped. */
Node *lower_astile(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.astile()";
  BoundArgs args;
  bind_call(L, call, what, "value, /, *, dtype", &args);
  Node *value = astile_items(L, require_arg(L, call, &args, 0, what, "value"), 0, what);
  Node *dtype = require_dtype(L, call, &args, 1, what);
  if (value->kind != N_TUPLE) {
    if (value->type && value->type->kind == VAL_CONST && value->type->const_tuple)
      lower_error(L, args.source[0], "%s of a ct.Constant tuple, whose length and nesting come with the launch, "
                  "cannot be converted (the tile's shape must be known here)", what);
    if (!type_is_scalar(value->type))
      lower_error(L, args.source[0], "%s: the value must be a scalar or a nested tuple of scalars", what);
    Node *result = value->type->kind == VAL_CONST ? T(L, "tl.full((), _1, _2)", value, dtype)
                                                  : T(L, "tl.cast(_1, _2)", value, dtype);
    result->type = typed_like_dtype(L, dtype, 0, NULL);
    return result;
  }
  Nested nested = {0};
  memset(nested.dims, 0, sizeof nested.dims);
  flatten_nested(L, value, 0, &nested, what);
  Str index = new_temp_name(L, "flat_index");
  scope_bind(L, index, type_tile(L->ctx, DT_INT32, 1, NULL));
  const char *index_text = arena_strndup(&L->ctx->arena, index.text, (size_t)index.len);
  NodeList made = template_stmts(L->ctx, "_1 = tl.arange(0, _2)", TEMPLATE_NODES(new_name(L, index_text), new_int(L, nested.count)));
  set_store_context(made.items[0]->u.assign.targets.items[0], CTX_STORE);
  node_list_push(&L->ctx->arena, L->pending, made.items[0]);
  Node *flat = T(L, "tl.zeros(_1, _2)", T(L, "(_1,)", new_int(L, nested.count)), dtype);
  for (int i = 0; i < nested.count; i++)
    flat = T(L, "tl.where(_1 == _2, _3, _4)", new_name(L, index_text), new_int(L, i),
             value_as_dtype(L, nested.values[i], dtype), flat);
  Node *dims[C2T_MAX_RANK];
  for (int d = 0; d < nested.rank; d++)
    dims[d] = new_int(L, nested.dims[d]);
  Node *result = nested.rank == 1 ? flat : T(L, "tl.reshape(_1, _2)", flat, shape_tuple_node(L, dims, nested.rank));
  result->type = typed_like_dtype(L, dtype, nested.rank, dims);
  return result;
}

/* --------------------------------------------------------------- shape */

/* x.reshape(shape) / ct.reshape(x, shape): row-major, one -1 inferred from
 * the element count (a constant expression when the dims are symbolic). */
Node *lower_reshape(Lowerer *L, Node *call, const char *member) {
  const char *what = "reshape()";
  BoundArgs args;
  bind_call(L, call, what, "x, /, shape", &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  Node *shape = require_arg(L, call, &args, 1, what, "shape");
  Node *in_dims[C2T_MAX_RANK], *dims[C2T_MAX_RANK];
  shape_require_dims(L, args.source[0], x->type, what, in_dims);
  int inferred;
  int rank = read_shape(L, shape, args.source[1], what, dims, true, &inferred);
  Node *count = shape_product(L, in_dims, x->type->rank);
  if (inferred >= 0) {
    Node *others[C2T_MAX_RANK];
    int n = 0;
    for (int d = 0; d < rank; d++)
      if (d != inferred)
        others[n++] = dims[d];
    dims[inferred] = shape_quotient(L, count, shape_product(L, others, n));
  }
  long long have, want;
  if (shape_known_int(count, &have) && shape_known_int(shape_product(L, dims, rank), &want) && have != want)
    lower_error(L, call, "%s: a tile of %lld elements cannot be reshaped to %lld elements", what, have, want);
  return shape_reshape(L, x, dims, rank);
}

/* ct.pack_to_bytes(x): the tile flattened row-major and its bytes read as
 * a 1-D uint8 tile (cuda/tile/_ir/ops.py pack_to_bytes_impl: reshape to
 * (-1,), then a bitcast for 8-bit dtypes, else TilePack). The bytes are
 * those of memory, little-endian: element i's byte j is at i * width + j
 * (cuTile's own test compares with torch's x.view(torch.uint8)); a
 * float4_e2m1fn tile puts element 2i in the low nibble (cuTile's test of
 * mma_scaled reads its bytes so). Bool is refused, as cuTile refuses it. */
Node *lower_pack_to_bytes(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.pack_to_bytes()";
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  DType dtype = x->type->dtype;
  if (dtype == DT_BOOL || dtype == DT_TFLOAT32 || (dtype == DT_UNKNOWN && x->type->tf32_when))
    lower_error(L, args.source[0], "%s of %s cannot be converted%s", what, type_describe(L->ctx, x->type),
                dtype == DT_BOOL ? " (cuTile does not pack bool tiles)" : "");
  Node *dims[C2T_MAX_RANK];
  shape_require_dims(L, args.source[0], x->type, what, dims);
  Node *count = shape_product(L, dims, x->type->rank);
  long long elements;
  int bits = dtype_info(dtype)->bits; /* 4, 8, 16, 32 or 64 here: only 4 can leave half a byte */
  if (bits == 4 && shape_known_int(count, &elements) && elements % 2 != 0)
    lower_error(L, call, "%s: the tile's bits (%lld elements of %d bits) are not whole bytes", what, elements, bits);
  Node *flat = shape_reshape(L, x, &count, 1);
  Node *bytes, *result;
  if (dtype == DT_UNKNOWN) { /* an array's dtype: its width is known when Triton compiles (no bool there) */
    Node *width = T(L, "(_1.primitive_bitwidth // 8)", shape_dtype_node(L, x));
    width->type = type_new(L->ctx, VAL_CONST);
    width->type->rank = 0;
    bytes = shape_product(L, (Node *[]){count, width}, 2);
    result = T(L, "_1(_2)", use_helper(L, HELPER_ct_pack_to_bytes), flat);
  } else if (bits == 4) {
    bytes = shape_quotient(L, count, new_int(L, 2));
    result = T(L, "_1(_2)", use_helper(L, HELPER_ct_pack_float4_e2m1fn), flat);
  } else if (bits == 8) {
    bytes = count;
    bool uint8_bits = dtype == DT_UINT8 || dtype == DT_FLOAT8_E8M0FNU; /* float8_e8m0fnu: its uint8 bits */
    result = uint8_bits ? flat : T(L, "_1.to(tl.uint8, bitcast=True)", flat);
  } else {
    Node *width = new_int(L, bits / 8);
    bytes = shape_product(L, (Node *[]){count, width}, 2);
    result = T(L, "_1(_2)", use_helper(L, HELPER_ct_pack_to_bytes), flat);
  }
  result->type = shape_tile_type(L, DT_UINT8, NULL, 1, &bytes);
  return result;
}

/* ct.unpack_from_bytes(x, dtype): a 1-D uint8 tile's bytes as elements of
 * `dtype`, the inverse of pack_to_bytes: a bitcast to an 8-bit dtype (a
 * float8_e8m0fnu tile keeps the bits it is held as), two float4_e2m1fn
 * codes a byte (the low nibble first), least significant byte first for
 * wider dtypes; cuTile's checks with its messages. */
Node *lower_unpack_from_bytes(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.unpack_from_bytes()";
  BoundArgs args;
  bind_op(L, call, what, member, &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  Node *dtype = require_dtype(L, call, &args, 1, what);
  DType to = dtype->type->dtype;
  if (x->type->rank != 1)
    lower_error(L, args.source[0], "unpack_from_bytes requires a 1D tile, got %dD tile", x->type->rank);
  if (x->type->dtype != DT_UINT8 && x->type->dtype != DT_UNKNOWN)
    lower_error(L, args.source[0], "unpack_from_bytes requires uint8 tile, got %s tile",
                dtype_info(x->type->dtype)->cutile);
  if (to == DT_BOOL || to == DT_TFLOAT32 || to == DT_UNKNOWN)
    lower_error(L, args.source[1], "unpack_from_bytes to a %s tile %s", to == DT_UNKNOWN ? "run-time dtype's" : dtype_info(to)->cutile,
                to == DT_UNKNOWN ? "cannot be converted (the dtype must be known when converting)" : "is not supported");
  Node *dims[1];
  shape_require_dims(L, args.source[0], x->type, what, dims);
  int bits = dtype_info(to)->bits;
  long long count;
  if (bits > 8 && shape_known_int(dims[0], &count) && count * 8 % bits != 0)
    lower_error(L, call, "Cannot unpack tile of %lld uint8 elements to %s: total bits (%lld * 8) not divisible by %d",
                count, dtype_info(to)->cutile, count, bits);
  Node *elements, *result;
  if (bits == 4) {
    elements = shape_product(L, (Node *[]){dims[0], new_int(L, 2)}, 2);
    result = T(L, "_1(_2)", use_helper(L, HELPER_ct_unpack_float4_e2m1fn), x);
  } else if (bits == 8) {
    elements = dims[0];
    result = to == DT_UINT8 || to == DT_FLOAT8_E8M0FNU ? x : T(L, "_1.to(_2, bitcast=True)", x, dtype);
  } else {
    elements = shape_quotient(L, dims[0], new_int(L, bits / 8));
    result = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_unpack_from_bytes), x, dtype);
  }
  result->type = typed_like_dtype(L, dtype, 1, &elements);
  return result;
}

/* tile.item(): the one element as a 0-d tile, reshape(x, ()). */
Node *lower_item(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "item()", "x, /", &args);
  Node *x = shape_require_tile(L, call, &args, 0, "item()");
  for (int d = 0; d < x->type->rank; d++)
    if (x->type->shape[d] > 1)
      lower_error(L, call, "item(): the tile has more than one element");
  return shape_reshape(L, x, NULL, 0);
}

/* tl.permute(x, perm) for a tile of dimensions `in_dims` (result dimension d is in_dims[perm[d]]).
 * A tile whose axes are all of extent 1 but two (or fewer) is the two swapped (or kept in order)
 * with the unit axes dropped and put back, `tl.reshape(tl.trans(tl.reshape(x, (a, b))), dims)`:
 * the same elements in the same order. Triton keeps such a transpose of a loaded tile in shared
 * memory, where tl.permute of the N-d tile passes it through registers: a batched GEMM's
 * `permute(load(B, shape=(1, TN, TK)), (0, 2, 1))` feeding ct.mma, or an attention's key tile
 * loaded with order=(0, 1, 3, 2), took a round trip per step of the loop. */
Node *shape_permute(Lowerer *L, Node *x, const int *perm, int rank, Node *const *in_dims) {
  Node *axes[C2T_MAX_RANK], *dims[C2T_MAX_RANK];
  int kept[2], count = 0;
  for (int d = 0; d < rank; d++) {
    axes[d] = new_int(L, perm[d]);
    dims[d] = in_dims[perm[d]];
    long long extent;
    if (in_dims[d] && shape_known_int(in_dims[d], &extent) && extent == 1)
      continue;
    if (count < 2)
      kept[count] = d;
    count++;
  }
  if (rank == 2 && perm[0] == 1)
    return T(L, "tl.trans(_1)", x);
  if (rank <= 2 || count > 2)
    return T(L, "tl.permute(_1, _2)", x, shape_tuple_node(L, axes, rank));
  Node *result = x;
  if (count == 2) {
    bool swapped = false;
    for (int d = 0; d < rank; d++)
      if (perm[d] == kept[0] || perm[d] == kept[1]) {
        swapped = perm[d] == kept[1];
        break;
      }
    Node *plane[2] = {in_dims[kept[0]], in_dims[kept[1]]};
    result = T(L, "tl.reshape(_1, _2)", x, shape_tuple_node(L, plane, 2));
    if (swapped)
      result = T(L, "tl.trans(_1)", result);
  }
  return T(L, "tl.reshape(_1, _2)", result, shape_tuple_node(L, dims, rank));
}

static Node *permuted(Lowerer *L, Node *x, const int *perm, Node **in_dims) {
  int rank = x->type->rank;
  Node *dims[C2T_MAX_RANK];
  for (int d = 0; d < rank; d++)
    dims[d] = in_dims[perm[d]];
  Node *result = shape_permute(L, x, perm, rank, in_dims);
  result->type = shape_tile_type(L, x->type->dtype, x->type->dtype_expr, rank, dims);
  return result;
}

/* ct.permute(x, axes): result dim i is input dim axes[i]. */
Node *lower_permute(Lowerer *L, Node *call, const char *member) {
  const char *what = "permute()";
  BoundArgs args;
  bind_call(L, call, what, "x, /, axes", &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  Node *axes = require_arg(L, call, &args, 1, what, "axes");
  long long values[C2T_MAX_RANK];
  int rank = x->type->rank;
  if (read_int_tuple(L, axes, args.source[1], what, values, C2T_MAX_RANK) != rank)
    lower_error(L, args.source[1], "%s: the axes must name each of the %d dimensions once", what, rank);
  int perm[C2T_MAX_RANK];
  bool seen[C2T_MAX_RANK] = {false};
  for (int d = 0; d < rank; d++) {
    if (values[d] < -rank || values[d] >= rank)
      lower_error(L, args.source[1], "%s: axis %lld is out of range for a %d-d tile", what, values[d], rank);
    perm[d] = (int)(values[d] < 0 ? values[d] + rank : values[d]);
    if (seen[perm[d]])
      lower_error(L, args.source[1], "%s: axis %d appears twice", what, perm[d]);
    seen[perm[d]] = true;
  }
  Node *dims[C2T_MAX_RANK];
  known_dims(L, x->type, dims);
  bool identity = true;
  for (int d = 0; d < rank; d++)
    identity &= perm[d] == d;
  if (identity)
    return x;
  return permuted(L, x, perm, dims);
}

/* ct.transpose(x, axis0=None, axis1=None): swaps two axes (both may be
 * omitted only for 2-D tiles). tl.trans(x, a, b) would need a full
 * permutation, so N-D goes through tl.permute. */
Node *lower_transpose(Lowerer *L, Node *call, const char *member) {
  const char *what = "transpose()";
  BoundArgs args;
  bind_call(L, call, what, "x, /, axis0, axis1", &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  int rank = x->type->rank;
  if (rank < 2)
    lower_error(L, call, "%s needs a tile of at least 2 dimensions, not %s", what, type_describe(L->ctx, x->type));
  bool given0 = args.arg[1] && args.arg[1]->type->kind != VAL_NONE;
  bool given1 = args.arg[2] && args.arg[2]->type->kind != VAL_NONE;
  if (given0 != given1)
    lower_error(L, call, "%s: give both axes or neither", what);
  if (!given0 && rank != 2)
    lower_error(L, call, "%s: a %d-d tile needs both axes", what, rank);
  int a = given0 ? shape_axis(L, args.arg[1], args.source[1], rank, what) : 0;
  int b = given0 ? shape_axis(L, args.arg[2], args.source[2], rank, what) : 1;
  Node *dims[C2T_MAX_RANK];
  known_dims(L, x->type, dims);
  if (a == b)
    return x;
  int perm[C2T_MAX_RANK];
  for (int d = 0; d < rank; d++)
    perm[d] = d == a ? b : d == b ? a : d;
  return permuted(L, x, perm, dims);
}

/* ct.expand_dims(x, axis): a new size-1 axis at `axis` (in [-(r+1), r]). */
Node *lower_expand_dims(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.expand_dims()";
  BoundArgs args;
  bind_call(L, call, what, "x, /, axis", &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  Node *axis_arg = require_arg(L, call, &args, 1, what, "axis");
  int rank = x->type->rank;
  int axis = shape_axis(L, axis_arg, args.source[1], rank + 1, what);
  Node *in_dims[C2T_MAX_RANK], *dims[C2T_MAX_RANK];
  if (rank + 1 > C2T_MAX_RANK)
    lower_limit(L, call, arena_printf(&L->ctx->arena, "dimensions in the result of %s", what), C2T_MAX_RANK);
  known_dims(L, x->type, in_dims);
  for (int d = 0, s = 0; d <= rank; d++)
    dims[d] = d == axis ? new_int(L, 1) : in_dims[s++];
  Node *result = T(L, "tl.expand_dims(_1, _2)", x, new_int(L, axis));
  result->type = shape_tile_type(L, x->type->dtype, x->type->dtype_expr, rank + 1, dims);
  return result;
}

/* ct.broadcast_to(x, shape), numpy rules: missing leading dims are 1, size-1
 * dims expand. Triton's broadcast_to needs equal ranks: pad first. */
Node *lower_broadcast_to(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.broadcast_to()";
  BoundArgs args;
  bind_call(L, call, what, "x, /, shape", &args);
  Node *x = require_arg(L, call, &args, 0, what, "x");
  Node *shape = require_arg(L, call, &args, 1, what, "shape");
  Node *dims[C2T_MAX_RANK];
  int rank = read_shape(L, shape, args.source[1], what, dims, false, NULL);
  if (x->type->kind == VAL_CONST) {
    if (x->type->dtype == DT_UNKNOWN)
      lower_error(L, args.source[0], "%s: a constant of unknown dtype cannot be broadcast", what);
    DType dt = x->type->is_float ? DT_FLOAT32 : x->type->dtype == DT_BOOL ? DT_BOOL : DT_INT32;
    Node *result = T(L, "tl.full(_1, _2, _3)", shape_tuple_node(L, dims, rank), x, T0(L, dtype_info(dt)->triton));
    result->type = shape_tile_type(L, dt, NULL, rank, dims);
    return result;
  }
  if (!x->type || x->type->kind != VAL_TILE || x->type->rank < 0)
    lower_error(L, args.source[0], "%s needs a tile, not %s", what, type_describe(L->ctx, x->type));
  int in_rank = x->type->rank;
  if (in_rank > rank)
    lower_error(L, call, "%s: a %d-d tile cannot be broadcast to %d dimensions", what, in_rank, rank);
  Node *padded[C2T_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    int s = d - (rank - in_rank);
    padded[d] = s < 0 ? new_int(L, 1) : shape_tile_dim(L, x->type, s);
    long long from, to;
    if (s >= 0 && padded[d] && shape_known_int(padded[d], &from) && shape_known_int(dims[d], &to) && from != 1 &&
        from != to)
      lower_error(L, call, "%s: dimension %d of size %lld cannot be broadcast to %lld", what, s, from, to);
  }
  Node *source = x;
  if (in_rank > 0 && in_rank < rank) {
    for (int d = 0; d < rank; d++)
      if (!padded[d])
        lower_error(L, args.source[0], "%s: dimension %d of this tile is not known at conversion time", what, d);
    source = T(L, "tl.reshape(_1, _2)", x, shape_tuple_node(L, padded, rank));
  }
  Node *result = T(L, "tl.broadcast_to(_1, _2)", source, shape_tuple_node(L, dims, rank));
  result->type = shape_tile_type(L, x->type->dtype, x->type->dtype_expr, rank, dims);
  return result;
}

/* ------------------------------------------------------------------ cat */

/* ct_cat_<r>d_axis<a>: ct.cat((a, b), axis) for one rank and axis. */
static Node *cat_helper(Lowerer *L, int rank, int axis) {
  const char *name = arena_printf(&L->ctx->arena, "ct_cat_%dd_axis%d", rank, axis);
  Buf perm = {0}, shape = {0};
  for (int d = 0; d < axis; d++)
    buf_printf(&perm, "%d, ", d);
  buf_printf(&perm, "%d", rank);
  for (int d = axis; d < rank; d++)
    buf_printf(&perm, ", %d", d);
  for (int d = 0; d < rank; d++)
    buf_printf(&shape, d == axis ? "%s2 * a.shape[%d]" : "%sa.shape[%d]", d ? ", " : "", d);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(a, b):\n"
      "    \"\"\"ct.cat((a, b), axis=%d): b follows a along axis %d. tl.cat is not this (it is 1-D\n"
      "    only and may reorder elements): join the pair on a new last axis, move that axis in\n"
      "    front of axis %d and merge the two.\"\"\"\n"
      "    pair = tl.permute(tl.join(a, b), (%s))\n"
      "    return tl.reshape(pair, (%s%s))\n",
      name, axis, axis, axis, buf_text(&perm), buf_text(&shape), rank == 1 ? "," : "");
  buf_free(&perm);
  buf_free(&shape);
  return use_runtime(L, name, source);
}

/* ct_cat_<r>d: ct.cat((a, b), axis) with an axis known only when Triton compiles (a
 * ct.Constant parameter): the helper of that axis, chosen there. */
static Node *cat_any_axis_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_cat_%dd", rank);
  Buf text = {0};
  buf_printf(&text,
             "@triton.jit\n"
             "def %s(a, b, axis: tl.constexpr):\n"
             "    \"\"\"ct.cat((a, b), axis) with the axis a constexpr: the helper of that axis.\"\"\"\n"
             "    tl.static_assert(-%d <= axis and axis < %d, \"ct.cat(): the axis is out of range for a %d-d tile\")\n",
             name, rank, rank, rank);
  for (int d = 0; d < rank; d++) {
    Node *helper = cat_helper(L, rank, d);
    if (d < rank - 1)
      buf_printf(&text, "    %s axis %% %d == %d:\n", d ? "elif" : "if", rank, d);
    else
      buf_printf(&text, "    else:\n");
    buf_printf(&text, "        return %.*s(a, b)\n", helper->u.name.id.len, helper->u.name.id.text);
  }
  char *source = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return use_runtime(L, name, source);
}

Node *lower_cat(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.cat()";
  BoundArgs args;
  bind_call(L, call, what, "tiles, /, axis", &args);
  Node *tiles = require_arg(L, call, &args, 0, what, "tiles");
  Node *axis_arg = require_arg(L, call, &args, 1, what, "axis");
  if (!tiles->type || tiles->type->kind != VAL_TUPLE || tiles->kind != N_TUPLE || tiles->type->count < 1 ||
      tiles->type->count > 2)
    lower_error(L, args.source[0], "%s concatenates a tuple of one or two tiles written in the call", what);
  Node *a = tiles->u.list.elts.items[0];
  if (tiles->type->count == 1) { /* one tile: itself (cuTile checks the axis all the same) */
    if (a->type->kind != VAL_TILE || a->type->rank < 1)
      lower_error(L, args.source[0], "%s needs tiles of at least 1 dimension", what);
    long long known;
    if (shape_known_int(axis_arg, &known))
      shape_axis(L, axis_arg, args.source[1], a->type->rank, what);
    Node *same = T(L, "_1", a); /* a new node: the statement is written from the tree */
    same->type = a->type;
    return same;
  }
  Node *b = tiles->u.list.elts.items[1];
  if (a->type->kind != VAL_TILE || b->type->kind != VAL_TILE || a->type->rank < 1 || a->type->rank != b->type->rank)
    lower_error(L, args.source[0], "%s needs two tiles of the same rank (at least 1)", what);
  if (a->type->dtype != b->type->dtype || (a->type->dtype == DT_UNKNOWN && a->type->dtype_expr != b->type->dtype_expr))
    if (a->type->dtype != DT_UNKNOWN && b->type->dtype != DT_UNKNOWN)
      lower_error(L, args.source[0], "%s: the two tiles have different dtypes (%s, %s)", what,
                  dtype_info(a->type->dtype)->cutile, dtype_info(b->type->dtype)->cutile);
  int rank = a->type->rank;
  long long known;
  /* an axis Triton knows when it compiles: each dimension doubles where it is the axis */
  bool at_compile = !shape_known_int(axis_arg, &known) && axis_arg->type && axis_arg->type->kind == VAL_CONST &&
                    !axis_arg->type->is_float;
  int axis = at_compile ? 0 : shape_axis(L, axis_arg, args.source[1], rank, what);
  Node *dims[C2T_MAX_RANK], *other[C2T_MAX_RANK];
  shape_require_dims(L, args.source[0], a->type, what, dims);
  shape_require_dims(L, args.source[0], b->type, what, other);
  for (int d = 0; d < rank; d++) {
    long long x, y;
    if (shape_known_int(dims[d], &x) && shape_known_int(other[d], &y) && x != y)
      lower_error(L, args.source[0], "%s: the two tiles must have the same shape (dimension %d: %lld and %lld)", what,
                  d, x, y);
  }
  if (at_compile) {
    Node *result = T(L, "_1(_2, _3, _4)", cat_any_axis_helper(L, rank), a, b, axis_arg);
    for (int d = 0; d < rank; d++) {
      Node *factor = T(L, arena_printf(&L->ctx->arena, "(2 if _1 %% %d == %d else 1)", rank, d),
                       node_copy_tree(&L->ctx->arena, axis_arg));
      dims[d] = shape_product(L, (Node *[]){factor, dims[d]}, 2);
    }
    result->type = shape_tile_type(L, a->type->dtype, a->type->dtype_expr, rank, dims);
    return result;
  }
  Node *result = T(L, "_1(_2, _3)", cat_helper(L, rank, axis), a, b);
  dims[axis] = shape_product(L, (Node *[]){new_int(L, 2), dims[axis]}, 2);
  result->type = shape_tile_type(L, a->type->dtype, a->type->dtype_expr, rank, dims);
  return result;
}

/* ------------------------------------------------------- extract, insert */

/* `name[:, None, ...]`: a 1-D range laid along `axis` of `rank`. */
static void along_axis(Buf *text, const char *name, int axis, int rank) {
  buf_printf(text, "%s[", name);
  for (int d = 0; d < rank; d++)
    buf_printf(text, "%s%s", d ? ", " : "", d == axis ? ":" : "None");
  buf_puts(text, "]");
}

/* Python text "(G0, S0, G1, S1, ...)" with the first `unit_grids` G's as 1. */
static void grid_shape_text(Buf *text, int rank, int unit_grids) {
  buf_puts(text, "(");
  for (int d = 0; d < rank; d++) {
    if (d < unit_grids)
      buf_printf(text, "%s1, S%d", d ? ", " : "", d);
    else
      buf_printf(text, "%sG%d, S%d", d ? ", " : "", d, d);
  }
  buf_puts(text, ")");
}

static const char *sizes_text(Lowerer *L, int rank, const char *source_shape) {
  Buf text = {0};
  for (int d = 0; d < rank; d++)
    buf_printf(&text, "    G%d: tl.constexpr = %s[%d] // S%d\n", d, source_shape, d, d);
  char *result = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return result;
}

/* ct_extract_<r>d(x, i0.., S0..): sub-tile (i0, ...) of the grid of
 * (S0, ...) sub-tiles, for run-time grid indices. */
static Node *extract_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_extract_%dd", rank);
  Buf params = {0}, body = {0};
  for (int d = 0; d < rank; d++)
    buf_printf(&params, ", i%d", d);
  for (int d = 0; d < rank; d++)
    buf_printf(&params, ", S%d: tl.constexpr", d);
  buf_puts(&body, "    t = tl.reshape(x, ");
  grid_shape_text(&body, rank, 0);
  buf_puts(&body, ")\n");
  for (int d = 0; d < rank; d++) {
    buf_puts(&body, "    t = tl.gather(t, tl.full(");
    grid_shape_text(&body, rank, d + 1);
    buf_printf(&body, ", i%d, tl.int32), %d)\n", d, 2 * d);
  }
  buf_puts(&body, "    return tl.reshape(t, (");
  for (int d = 0; d < rank; d++)
    buf_printf(&body, "%sS%d", d ? ", " : "", d);
  buf_puts(&body, rank == 1 ? ",))\n" : "))\n");
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(x%s):\n"
      "    \"\"\"ct.extract(x, index, shape) with run-time grid indices: view x as a grid of\n"
      "    (S0, ...)-shaped sub-tiles and take sub-tile (i0, ...). Triton has no tensor slicing:\n"
      "    reshape into (grid, sub) axes and tl.gather one grid entry along each grid axis.\"\"\"\n"
      "%s%s",
      name, buf_text(&params), sizes_text(L, rank, "x.shape"), buf_text(&body));
  buf_free(&params);
  buf_free(&body);
  return use_runtime(L, name, source);
}

static int log2_of(long long value) {
  int bits = 0;
  while (value > 1) {
    value >>= 1;
    bits++;
  }
  return bits;
}

/* Constant grid index, known dims: no gather. Each grid axis of size 2^k is
 * split into k axes of size 2 (most significant bit first), those axes are
 * moved last, and tl.split picks one half per bit. */
static Node *extract_by_split(Lowerer *L, Node *x, const long long *index, const long long *whole,
                              const long long *sub, int rank) {
  Node *view[SHAPE_MAX_SPLIT_RANK];
  int bit_axis[SHAPE_MAX_SPLIT_RANK], bit_value[SHAPE_MAX_SPLIT_RANK], kept_axis[C2T_MAX_RANK];
  int view_rank = 0, bits = 0, kept = 0;
  for (int d = 0; d < rank; d++) {
    int k = log2_of(whole[d] / sub[d]);
    if (view_rank + k + 1 > SHAPE_MAX_SPLIT_RANK) /* checked before any write: k is up to 30 per axis */
      lower_limit(L, x, "axes in the split view of ct.extract() with constant indices", SHAPE_MAX_SPLIT_RANK);
    for (int j = 0; j < k; j++) {
      bit_axis[bits] = view_rank;
      bit_value[bits++] = (int)((index[d] >> (k - 1 - j)) & 1);
      view[view_rank++] = new_int(L, 2);
    }
    kept_axis[kept++] = view_rank;
    view[view_rank++] = new_int(L, sub[d]);
  }
  if (bits == 0)
    return x;
  Node *perm[SHAPE_MAX_SPLIT_RANK];
  for (int d = 0; d < kept; d++)
    perm[d] = new_int(L, kept_axis[d]);
  for (int b = 0; b < bits; b++)
    perm[kept + b] = new_int(L, bit_axis[b]);
  Node *t = T(L, "tl.permute(tl.reshape(_1, _2), _3)", x, shape_tuple_node(L, view, view_rank),
              shape_tuple_node(L, perm, view_rank));
  for (int b = bits - 1; b >= 0; b--)
    t = T(L, "tl.split(_1)[_2]", t, new_int(L, bit_value[b]));
  return t;
}

/* ct.extract(x, index, shape): sub-tile `index` of the grid of `shape`
 * sub-tiles; shape () picks one element as a 0-d tile. */
Node *lower_extract(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.extract()";
  BoundArgs args;
  bind_call(L, call, what, "x, /, index, shape", &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  Node *index = require_arg(L, call, &args, 1, what, "index");
  Node *shape = require_arg(L, call, &args, 2, what, "shape");
  int rank = x->type->rank;
  if (rank > SHAPE_MAX_RANK)
    lower_limit(L, args.source[0], arena_printf(&L->ctx->arena, "dimensions in the tile of %s", what), SHAPE_MAX_RANK);
  if (rank < 1)
    lower_error(L, args.source[0], "%s: tiles of 1 to %d dimensions can be converted", what, SHAPE_MAX_RANK);
  Node *whole[C2T_MAX_RANK], *sub[C2T_MAX_RANK], *idx[C2T_MAX_RANK];
  shape_require_dims(L, args.source[0], x->type, what, whole);
  int sub_rank = read_shape(L, shape, args.source[2], what, sub, false, NULL);
  bool scalar = sub_rank == 0;
  if (scalar)
    for (int d = 0; d < rank; d++)
      sub[d] = new_int(L, 1);
  else if (sub_rank != rank)
    lower_error(L, args.source[2], "%s: the shape has %d entries for a %d-d tile", what, sub_rank, rank);
  int index_count = 0;
  if (index->kind == N_TUPLE) {
    index_count = index->u.list.elts.count;
    for (int d = 0; d < index_count && d < C2T_MAX_RANK; d++)
      idx[d] = index->u.list.elts.items[d];
  } else if (type_is_scalar(index->type)) {
    index_count = 1;
    idx[0] = index;
  }
  if (index_count != rank)
    lower_error(L, args.source[1], "%s: the index needs one grid coordinate per dimension (%d)", what, rank);
  bool constant = true;
  long long index_value[C2T_MAX_RANK], whole_value[C2T_MAX_RANK], sub_value[C2T_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    bool known_sizes = shape_known_int(whole[d], &whole_value[d]) && shape_known_int(sub[d], &sub_value[d]);
    if (known_sizes && whole_value[d] % sub_value[d] != 0)
      lower_error(L, args.source[2], "%s: dimension %d of size %lld is not divisible by %lld", what, d,
                  whole_value[d], sub_value[d]);
    bool known_index = shape_known_int(idx[d], &index_value[d]);
    if (known_index && known_sizes && (index_value[d] < 0 || index_value[d] >= whole_value[d] / sub_value[d]))
      lower_error(L, args.source[1], "%s: grid index %lld is out of range [0, %lld) in dimension %d", what,
                  index_value[d], whole_value[d] / sub_value[d], d);
    constant &= known_index && known_sizes;
    if (!type_is_scalar(idx[d]->type))
      lower_error(L, args.source[1], "%s: grid indices must be integer scalars", what);
  }
  Node *result;
  if (constant) {
    result = extract_by_split(L, x, index_value, whole_value, sub_value, rank);
  } else {
    result = T(L, "_1(_2)", extract_helper(L, rank), x);
    for (int d = 0; d < rank; d++)
      node_list_push(&L->ctx->arena, &result->u.call.args, idx[d]);
    for (int d = 0; d < rank; d++)
      node_list_push(&L->ctx->arena, &result->u.call.args, sub[d]);
  }
  if (result == x)
    result = T(L, "_1", x);
  result->type = shape_tile_type(L, x->type->dtype, x->type->dtype_expr, rank, sub);
  if (scalar)
    return shape_reshape(L, result, NULL, 0);
  return result;
}

/* ct_insert_<r>d(x, i0.., value): x with sub-tile (i0, ...) replaced. */
static Node *insert_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_insert_%dd", rank);
  Buf params = {0}, body = {0};
  for (int d = 0; d < rank; d++)
    buf_printf(&params, ", i%d", d);
  for (int d = 0; d < rank; d++)
    buf_printf(&body, "    S%d: tl.constexpr = value.shape[%d]\n", d, d);
  buf_puts(&body, sizes_text(L, rank, "x.shape"));
  buf_puts(&body, "    t = tl.reshape(x, ");
  grid_shape_text(&body, rank, 0);
  buf_puts(&body, ")\n    v = tl.reshape(value, ");
  grid_shape_text(&body, rank, rank);
  buf_puts(&body, ")\n    selected = ");
  for (int d = 0; d < rank; d++) {
    buf_puts(&body, d ? " & " : "");
    buf_puts(&body, "(");
    along_axis(&body, arena_printf(&L->ctx->arena, "tl.arange(0, G%d)", d), 2 * d, 2 * rank);
    buf_printf(&body, " == i%d)", d);
  }
  buf_puts(&body, "\n    return tl.reshape(tl.where(selected, v, t), x.shape)\n");
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(x%s, value):\n"
      "    \"\"\"ct.insert(x, index, value): x with sub-tile (i0, ...) of its grid of value-shaped\n"
      "    sub-tiles replaced by value. Triton tensors have no slice assignment: view x as (grid,\n"
      "    sub) axes and select with tl.where against the grid coordinates.\"\"\"\n"
      "%s",
      name, buf_text(&params), buf_text(&body));
  buf_free(&params);
  buf_free(&body);
  return use_runtime(L, name, source);
}

/* ct.insert(x, index, value): the inverse of extract; a 0-d value replaces
 * one element. */
Node *lower_insert(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.insert()";
  BoundArgs args;
  bind_call(L, call, what, "x, /, index, value", &args);
  Node *x = shape_require_tile(L, call, &args, 0, what);
  Node *index = require_arg(L, call, &args, 1, what, "index");
  Node *value = require_arg(L, call, &args, 2, what, "value");
  int rank = x->type->rank;
  if (rank > SHAPE_MAX_RANK)
    lower_limit(L, args.source[0], arena_printf(&L->ctx->arena, "dimensions in the tile of %s", what), SHAPE_MAX_RANK);
  if (rank < 1)
    lower_error(L, args.source[0], "%s: tiles of 1 to %d dimensions can be converted", what, SHAPE_MAX_RANK);
  if (!value->type || value->type->kind != VAL_TILE || (value->type->rank != 0 && value->type->rank != rank))
    lower_error(L, args.source[2], "%s: the value must be a tile of the same rank as x, or 0-d", what);
  if (value->type->dtype != x->type->dtype && value->type->dtype != DT_UNKNOWN && x->type->dtype != DT_UNKNOWN)
    lower_error(L, args.source[2], "%s: the value's dtype %s differs from the tile's %s", what,
                dtype_info(value->type->dtype)->cutile, dtype_info(x->type->dtype)->cutile);
  Node *whole[C2T_MAX_RANK], *sub[C2T_MAX_RANK], *idx[C2T_MAX_RANK];
  shape_require_dims(L, args.source[0], x->type, what, whole);
  if (value->type->rank == 0) {
    for (int d = 0; d < rank; d++)
      sub[d] = new_int(L, 1);
    value = shape_reshape(L, value, sub, rank);
  } else {
    shape_require_dims(L, args.source[2], value->type, what, sub);
  }
  int index_count = 0;
  if (index->kind == N_TUPLE) {
    index_count = index->u.list.elts.count;
    for (int d = 0; d < index_count && d < C2T_MAX_RANK; d++)
      idx[d] = index->u.list.elts.items[d];
  } else if (type_is_scalar(index->type)) {
    index_count = 1;
    idx[0] = index;
  }
  if (index_count != rank)
    lower_error(L, args.source[1], "%s: the index needs one grid coordinate per dimension (%d)", what, rank);
  for (int d = 0; d < rank; d++) {
    long long w, s, i;
    if (!type_is_scalar(idx[d]->type))
      lower_error(L, args.source[1], "%s: grid indices must be integer scalars", what);
    if (shape_known_int(whole[d], &w) && shape_known_int(sub[d], &s)) {
      if (w % s != 0)
        lower_error(L, args.source[2], "%s: dimension %d of size %lld is not divisible by %lld", what, d, w, s);
      if (shape_known_int(idx[d], &i) && (i < 0 || i >= w / s))
        lower_error(L, args.source[1], "%s: grid index %lld is out of range [0, %lld) in dimension %d", what, i,
                    w / s, d);
    }
  }
  Node *result = T(L, "_1(_2)", insert_helper(L, rank), x);
  for (int d = 0; d < rank; d++)
    node_list_push(&L->ctx->arena, &result->u.call.args, idx[d]);
  node_list_push(&L->ctx->arena, &result->u.call.args, value);
  result->type = shape_tile_type(L, x->type->dtype, x->type->dtype_expr, rank, whole);
  return result;
}
