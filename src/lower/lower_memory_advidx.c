/*
 * lower_memory_advidx.c — ct.load_advanced_indexing, ct.store_advanced_indexing
 * and the ct.Slice entries of their indices.
 *
 * The indices are a tuple with one entry per array dimension (2-D and up):
 * exactly one entry is a 1-D integer tile, the sparse dimension (element
 * indices along that axis), every other one a ct.Slice(start, length), a
 * dense range [start, start + length) with a run-time start and a constant
 * power-of-two length. The tile has shape (len_0, ..., len_n-1). cuTile
 * makes a gather/scatter view of the array (gather-TMA on Blackwell; Triton's
 * tensor-descriptor gather exists for sm_100 only), so the conversion takes
 * the pointer path: each axis gets a 1-D tile of element indices (the index
 * tile, or ct_slice_range(start, length)) and the helper lays them along
 * their axes:
 *
 *     t = ct_load_advanced_3d(kv, kv_shape, kv_strides, pages,
 *                             ct_slice_range(token, BN), ct_slice_range(0, D), 0)
 *
 *     ptrs = kv + o0[:, None, None] * s0 + o1[None, :, None] * s1 + o2[None, None, :] * s2
 *
 * Offsets are 64-bit. Every element is bounds-checked on every axis
 * (0 <= index < extent, so negative indices are outside): a load reads the
 * padding_mode value there (None for UNDETERMINED, as ct.load), a store
 * does not write. cuTile leaves a tile wholly outside the array undefined;
 * reading the padding there is one of its outcomes.
 *
 * ct.Slice(start, length) lowers to the tuple `(start, length)` typed
 * VAL_SLICE, which nothing but these two operations accepts; it must be
 * written inside their indices tuple (a Slice kept in a variable is a
 * located error: its length has to reach Triton as a constexpr).
 */
#include <string.h>

#include "lower_memory.h"

/* ------------------------------------------------------------- ct.Slice */

static bool is_integer_dtype(DType dt, bool signed_only) {
  if (dt == DT_UNKNOWN)
    return true;
  char category = dtype_info(dt)->category;
  return category == 'i' || (!signed_only && category == 'u');
}

/* A slice length known at conversion: the toolkit's known integer, not a bool. */
static bool known_int(const Node *node, long long *value) {
  return shape_known_int(node, value) && node->type->dtype != DT_BOOL;
}

/* ct.Slice(start, length, /) */
Node *memory_lower_slice(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.Slice()";
  BoundArgs args;
  bind_call(L, call, what, "start, length, /", &args);
  Node *start = require_arg(L, call, &args, 0, what, "start");
  Node *length = require_arg(L, call, &args, 1, what, "length");
  const TypeInfo *st = start->type;
  bool start_ok = st && ((st->kind == VAL_CONST && !st->is_float && st->dtype != DT_BOOL) ||
                         (st->kind == VAL_TILE && st->rank == 0 && is_integer_dtype(st->dtype, true)));
  if (!start_ok)
    lower_error(L, args.source[0], "%s: start must be a signed integer scalar, not %s", what,
                type_describe(L->ctx, st));
  const TypeInfo *lt = length->type;
  if (!lt || lt->kind != VAL_CONST || lt->is_float || lt->dtype == DT_BOOL)
    lower_error(L, args.source[1], "%s: length must be a compile-time constant integer (a literal or a "
                "ct.Constant parameter), not %s", what, type_describe(L->ctx, lt));
  long long size;
  if (known_int(length, &size) && (size <= 0 || (size & (size - 1))))
    lower_error(L, args.source[1], "%s: length must be a positive power of two, not %lld", what, size);
  Node *pair = T(L, "(_1, _2)", start, length);
  pair->parenthesized = true;
  TypeInfo *type = type_new(L->ctx, VAL_SLICE);
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * 2);
  type->elts[0] = start->type;
  type->elts[1] = length->type;
  type->count = 2;
  pair->type = type;
  return pair;
}

/* ------------------------------------------------------ the indices */

typedef struct AdvancedIndex {
  int rank;
  int sparse;                /* the axis of the index tile */
  Node *axes[MAX_TILE_RANK]; /* per axis: a 1-D tile of element indices */
  Node *dims[MAX_TILE_RANK]; /* per axis: its length as an expression */
  int shape[MAX_TILE_RANK];  /* per axis: its length, -1 when known only at launch */
} AdvancedIndex;

static void advanced_index(Lowerer *L, TypeInfo *array, Node *indices, Node *source, const char *what,
                           AdvancedIndex *out) {
  if (indices->kind != N_TUPLE || indices->type->kind == VAL_SLICE)
    lower_error(L, source, "%s: indices must be a tuple written in the call, one entry per array dimension "
                "(a 1-D integer tile for the sparse dimension, ct.Slice(start, length) for the others)", what);
  int count = indices->u.list.elts.count;
  Node **sources = source->kind == N_TUPLE && source->u.list.elts.count == count ? source->u.list.elts.items : NULL;
  if (count > MAX_TILE_RANK)
    lower_limit(L, source, "entries in the indices of an advanced-indexing load or store", MAX_TILE_RANK);
  if (array->rank >= 0 && array->rank != count)
    lower_error(L, source, "%s: the indices have %d entries but the array has %d dimensions", what, count,
                array->rank);
  if (count < 2)
    lower_error(L, source, "%s needs a 2-D or higher-rank array; use ct.gather() / ct.scatter() for 1-D arrays",
                what);
  memory_learn_rank(array, count);
  out->rank = count;
  out->sparse = -1;
  for (int d = 0; d < count; d++) {
    Node *item = indices->u.list.elts.items[d];
    Node *at = sources ? sources[d] : source;
    const TypeInfo *type = item->type;
    if (type && type->kind == VAL_SLICE) {
      if (item->kind != N_TUPLE)
        lower_error(L, at, "%s: write ct.Slice(start, length) inside the indices tuple (a ct.Slice kept in a "
                    "variable cannot be converted)", what);
      Node *start = item->u.list.elts.items[0], *length = item->u.list.elts.items[1];
      long long size;
      out->axes[d] = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_slice_range), start, length);
      out->dims[d] = length;
      out->shape[d] = known_int(length, &size) ? shape_dim_value(L, at, size) : -1;
      continue;
    }
    if (!type || type->kind != VAL_TILE)
      lower_error(L, at, "%s: index %d must be a 1-D integer tile (the sparse dimension) or ct.Slice(start, "
                  "length), not %s", what, d, type_describe(L->ctx, type));
    if (type->rank != 1)
      lower_error(L, at, "%s: the sparse index at dimension %d must be a 1-D integer tile, not %s", what, d,
                  type_describe(L->ctx, type));
    if (!is_integer_dtype(type->dtype, false))
      lower_error(L, at, "%s: the sparse index at dimension %d must be an integer tile, not %s", what, d,
                  type_describe(L->ctx, type));
    if (out->sparse >= 0)
      lower_error(L, at, "%s: exactly one index must be a 1-D integer tile (the sparse dimension); dimensions %d "
                  "and %d both are", what, out->sparse, d);
    out->sparse = d;
    out->axes[d] = item;
    out->dims[d] = type->dims[0];
    out->shape[d] = type->shape[0];
    if (out->shape[d] > 0 && (out->shape[d] & (out->shape[d] - 1)))
      lower_error(L, at, "%s: the sparse index tile has %d elements; tile dimensions must be powers of two", what,
                  out->shape[d]);
  }
  if (out->sparse < 0)
    lower_error(L, source, "%s: exactly one index must be a 1-D integer tile (the sparse dimension); all are "
                "ct.Slice", what);
}

static void check_allow_tma(Lowerer *L, Node *flag, Node *at, const char *what) {
  if (flag && !(flag->type && (flag->type->kind == VAL_NONE ||
                               (flag->type->kind == VAL_CONST && flag->type->dtype == DT_BOOL))))
    lower_error(L, at, "%s: allow_tma must be True, False or None", what);
}

static Node *advanced_call(Lowerer *L, TemplateId id, const ArrayRef *ref, const AdvancedIndex *index) {
  Node *call = T(L, "_1(_2, _3, _4)", use_template(L, id, index->rank), ref->pointer, ref->shape, ref->strides);
  for (int d = 0; d < index->rank; d++)
    node_list_push(&L->ctx->arena, &call->u.call.args, index->axes[d]);
  return call;
}

static const char *const POINTER_REASON = "advanced indexing (pointer gather; Triton's TMA gather is sm_100 only)";

/* -------------------------------------------------------------- load */

/* ct.load_advanced_indexing(array, indices, /, *, padding_mode, latency, allow_tma) */
Node *memory_lower_load_advanced(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.load_advanced_indexing()";
  BoundArgs args;
  bind_call(L, call, what, "array, indices, /, *, padding_mode, latency, allow_tma", &args);
  Node *array = memory_require_array(L, call, &args, what, "reads");
  Node *indices = require_arg(L, call, &args, 1, what, "indices");
  memory_check_latency(L, args.arg[3], what);
  check_allow_tma(L, args.arg[4], args.source[4], what);
  TypeInfo *type = array->type;
  AdvancedIndex index;
  advanced_index(L, type, indices, args.source[1], what, &index);
  Node *other = memory_padding_other(L, args.arg[2], call, type);
  stats_memory(L->conv, POINTER_REASON);
  Node *loaded = advanced_call(L, TEMPLATE_ct_load_advanced_RANKd, type->array, &index);
  node_list_push(&L->ctx->arena, &loaded->u.call.args, other);
  TypeInfo *result = type_tile(L->ctx, type->dtype, index.rank, NULL);
  result->dtype_expr = type->dtype_expr;
  for (int d = 0; d < index.rank; d++) {
    result->shape[d] = index.shape[d];
    result->dims[d] = index.dims[d];
  }
  loaded->type = result;
  memory_note_access(L, loaded, type->array, MEM_READ);
  return loaded;
}

/* ------------------------------------------------------------- store */

/* ct.store_advanced_indexing(array, indices, tile, /, *, latency, allow_tma) */
Node *memory_lower_store_advanced(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.store_advanced_indexing()";
  BoundArgs args;
  bind_call(L, call, what, "array, indices, tile, /, *, latency, allow_tma", &args);
  Node *array = memory_require_array(L, call, &args, what, "writes");
  Node *indices = require_arg(L, call, &args, 1, what, "indices");
  Node *tile = require_arg(L, call, &args, 2, what, "tile");
  memory_check_latency(L, args.arg[3], what);
  check_allow_tma(L, args.arg[4], args.source[4], what);
  TypeInfo *type = array->type;
  AdvancedIndex index;
  advanced_index(L, type, indices, args.source[1], what, &index);
  const TypeInfo *value = tile->type;
  if (!value || value->kind != VAL_TILE || value->rank != index.rank)
    lower_error(L, args.source[2], "%s: the tile must have the shape the indices give (%d dimensions), not %s",
                what, index.rank, type_describe(L->ctx, value));
  for (int d = 0; d < index.rank; d++)
    if (value->shape[d] >= 0 && index.shape[d] >= 0 && value->shape[d] != index.shape[d])
      lower_error(L, args.source[2], "%s: the tile's dimension %d is %d, the indices give %d (cuTile needs "
                  "the exact shape)", what, d, value->shape[d], index.shape[d]);
  memory_check_store_cast(L, args.source[2], value, type, what);
  stats_memory(L->conv, POINTER_REASON);
  Node *stored = advanced_call(L, TEMPLATE_ct_store_advanced_RANKd, type->array, &index);
  node_list_push(&L->ctx->arena, &stored->u.call.args, tile);
  stored->type = type_new(L->ctx, VAL_NONE);
  memory_note_access(L, stored, type->array, MEM_WRITE);
  return stored;
}
