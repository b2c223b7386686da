/*
 * lower_memory_raw.c — Array.get_raw_memory and the methods of the object it
 * returns (cuTile's RawArrayMemory): loads, stores and atomics at element
 * offsets from the array's base pointer, with no shape, stride or bounds
 * arithmetic of cuTile's.
 *
 * A raw memory computes nothing: x.get_raw_memory() lowers to x itself, whose
 * type says it is seen as raw memory (TypeInfo.raw_memory); only its methods and
 * its dtype may be used. Each method is Triton's pointer form of the operation
 * at `x + offset`: the offset is a scalar or an integer tile (int32 offsets
 * stay 32-bit in the code; Triton's pointer arithmetic sign-extends signed
 * offsets and zero-extends unsigned ones, as cuTile's cast of the offset to
 * uint64 does), the result has the offset's shape, and mask, value, update and
 * padding_value broadcast to it. For example:
 *
 *     raw = x.get_raw_memory()
 *     t = raw.load_offset(offs, mask=offs < n, padding_value=-1)
 *         ->  t = tl.load(x + offs, mask=offs < n, other=-1)
 *     raw.atomic_add_offset(offs, t)  ->  tl.atomic_add(x + offs, t)
 *
 * Atomics map memory_order/memory_scope as ct.atomic_* do (lower_memory_gather.c);
 * atomic_cas_offset goes through ct_atomic_cas, whose masked-off lanes return
 * `expected`, as cuTile's do.
 */
#include <string.h>

#include "lower_memory.h"

static const char STATS_REASON[] = "raw memory (element offsets, no TMA form)";

/* x.get_raw_memory() */
Node *memory_lower_get_raw_memory(Lowerer *L, Node *call, const char *member) {
  const char *what = "Array.get_raw_memory()";
  BoundArgs args;
  bind_call(L, call, what, "array, /", &args);
  Node *array = memory_require_array(L, call, &args, what, "works on");
  if (array->type->tiled)
    lower_error(L, args.source[0], "%s works on an array, not on a tiled view", what);
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  *type = *array->type;
  type->raw_memory = true;
  Node *result = node_copy_tree(&L->ctx->arena, array->type->array->pointer);
  result->type = type;
  return result;
}

/* ------------------------------------------------------------- arguments */

/* The raw memory a method is called on (its bound argument 0). */
static TypeInfo *require_raw(Lowerer *L, Node *call, const BoundArgs *args, const char *what) {
  Node *raw = require_arg(L, call, args, 0, what, "self");
  if (raw->type->kind != VAL_ARRAY || !raw->type->raw_memory)
    lower_error(L, args->source[0], "%s works on the raw memory of an array (x.get_raw_memory()), not on %s", what,
                type_describe(L->ctx, raw->type));
  return raw->type;
}

/* The element offsets: a scalar or a tile of integers. */
static Node *require_offset(Lowerer *L, Node *call, const BoundArgs *args, const char *what) {
  Node *offset = require_arg(L, call, args, 1, what, "offset");
  if (!memory_is_integer(offset->type))
    lower_error(L, args->source[1], "%s: the offset must be an integer tile or scalar, not %s", what,
                type_describe(L->ctx, offset->type));
  if (offset->type->kind == VAL_TILE && offset->type->rank < 0)
    lower_error(L, args->source[1], "%s: the rank of the offset is not known at conversion time", what);
  return offset;
}

/* `value` (a mask, a stored value, an update) must broadcast to the offset's shape:
 * Triton broadcasts it to the pointers' shape, never the pointers to it. */
static void require_fits(Lowerer *L, Node *at, const TypeInfo *value, const TypeInfo *offset, const char *what,
                         const char *name) {
  if (value->kind != VAL_TILE || value->rank <= 0)
    return;
  int rank = offset->kind == VAL_TILE ? offset->rank : 0;
  bool fits = value->rank <= rank;
  for (int d = 0; fits && d < value->rank; d++) {
    int target = offset->shape[d + rank - value->rank];
    fits = value->shape[d] == 1 || value->shape[d] < 0 || target < 0 || value->shape[d] == target;
  }
  if (!fits)
    lower_error(L, at, "%s: the %s (%s) does not broadcast to the shape of the offset (%s)", what, name,
                type_describe(L->ctx, value), rank ? type_describe(L->ctx, offset) : "a scalar");
}

/* mask=: a bool tile or scalar that broadcasts to the offset's shape; NULL when absent. */
static Node *optional_mask(Lowerer *L, const BoundArgs *args, int index, const Node *offset, const char *what) {
  Node *mask = args->arg[index];
  if (!mask)
    return NULL;
  memory_check_mask(L, mask, what);
  if (mask->type->kind == VAL_TILE && mask->type->dtype != DT_UNKNOWN && mask->type->dtype != DT_BOOL)
    lower_error(L, args->source[index], "%s: mask must have dtype bool_, not %s", what,
                dtype_info(mask->type->dtype)->cutile);
  require_fits(L, args->source[index], mask->type, offset->type, what, "mask");
  return mask;
}

/* The pointers `x + offset` and the type of what they read: the offset's shape, the array's dtype. */
static Node *raw_pointers(Lowerer *L, const TypeInfo *raw, Node *offset) {
  return T(L, "_1 + _2", node_copy_tree(&L->ctx->arena, raw->array->pointer), offset);
}

static TypeInfo *result_type(Lowerer *L, const TypeInfo *raw, const Node *offset) {
  const TypeInfo *shape = offset->type;
  TypeInfo *type = type_tile(L->ctx, raw->dtype, shape->kind == VAL_TILE ? shape->rank : 0,
                             shape->kind == VAL_TILE ? shape->shape : NULL);
  for (int d = 0; shape->kind == VAL_TILE && d < shape->rank; d++)
    type->dims[d] = shape->dims[d];
  type->dtype_expr = raw->dtype_expr;
  return type;
}

/* A method call's common part: its arguments bound, the raw memory, the offset, and
 * mask= after the `values` operands (the operands at 2, 3, ...). */
typedef struct RawCall {
  BoundArgs args;
  TypeInfo *raw;
  Node *offset, *mask;
} RawCall;

static RawCall raw_call(Lowerer *L, Node *call, const char *what, const char *signature, int values) {
  RawCall rc;
  bind_call(L, call, what, signature, &rc.args);
  rc.raw = require_raw(L, call, &rc.args, what);
  rc.offset = require_offset(L, call, &rc.args, what);
  rc.mask = optional_mask(L, &rc.args, 2 + values, rc.offset, what);
  stats_memory(L->conv, STATS_REASON);
  return rc;
}

/* An operand at `at` that broadcasts to the offset's shape. */
static Node *raw_operand(Lowerer *L, Node *call, const RawCall *rc, int at, const char *what, const char *name) {
  Node *operand = require_arg(L, call, &rc->args, at, what, name);
  require_fits(L, rc->args.source[at], operand->type, rc->offset->type, what, name);
  return operand;
}

/* ------------------------------------------------------- loads, stores */

/* raw.load_offset(offset, /, *, mask=None, padding_value=0, latency=None) */
Node *memory_lower_raw_load(Lowerer *L, Node *call, const char *member) {
  const char *what = "RawArrayMemory.load_offset()";
  RawCall rc = raw_call(L, call, what, "self, offset, /, *, mask, padding_value, latency", 0);
  Node *padding = rc.args.arg[3];
  if (padding) {
    memory_check_store_cast(L, rc.args.source[3], padding->type, rc.raw, "RawArrayMemory.load_offset() padding_value");
    require_fits(L, rc.args.source[3], padding->type, rc.offset->type, what, "padding_value");
  }
  memory_check_latency(L, rc.args.arg[4], what);
  Node *pointers = raw_pointers(L, rc.raw, rc.offset);
  /* without a mask every lane is read: the padding value is never used (Triton refuses `other` there) */
  Node *loaded = rc.mask ? T(L, "tl.load(_1, mask=_2, other=_3)", pointers, rc.mask, memory_gather_other(L, padding))
                         : T(L, "tl.load(_1)", pointers);
  loaded->type = result_type(L, rc.raw, rc.offset);
  memory_note_access(L, loaded, rc.raw->array, MEM_READ);
  return loaded;
}

/* raw.store_offset(offset, value, /, *, mask=None, latency=None) */
Node *memory_lower_raw_store(Lowerer *L, Node *call, const char *member) {
  const char *what = "RawArrayMemory.store_offset()";
  RawCall rc = raw_call(L, call, what, "self, offset, value, /, *, mask, latency", 1);
  Node *value = raw_operand(L, call, &rc, 2, what, "value");
  memory_check_store_cast(L, rc.args.source[2], value->type, rc.raw, what);
  memory_check_latency(L, rc.args.arg[4], what);
  Node *pointers = raw_pointers(L, rc.raw, rc.offset);
  Node *stored = rc.mask ? T(L, "tl.store(_1, _2, mask=_3)", pointers, value, rc.mask)
                         : T(L, "tl.store(_1, _2)", pointers, value);
  stored->type = type_new(L->ctx, VAL_NONE);
  memory_note_access(L, stored, rc.raw->array, MEM_WRITE);
  return stored;
}

/* -------------------------------------------------------------- atomics */

/* memory_order= and memory_scope= at `at` and `at + 1`: Triton's sem and scope (NULL: its
 * defaults) and what the atomic does to the order of memory operations. */
typedef struct RawOrder {
  const char *sem, *scope;
  unsigned effects;
} RawOrder;

static RawOrder raw_order(Lowerer *L, const RawCall *rc, int at, const char *what) {
  RawOrder order = {NULL, NULL, MEM_READ | MEM_WRITE | MEM_ATOMIC};
  order.sem = memory_order_sem(L, rc->args.arg[at], what, &order.effects);
  order.scope = memory_scope_text(L, rc->args.arg[at + 1], what);
  return order;
}

/* raw.atomic_OP_offset(offset, update, /, *, mask, memory_order, memory_scope): OP is
 * add, max, min, and, or, xor or xchg (the member's middle) */
Node *memory_lower_raw_atomic(Lowerer *L, Node *call, const char *member) {
  const char *what = arena_printf(&L->ctx->arena, "RawArrayMemory.%s()", member);
  size_t op_len = strlen(member) - strlen("atomic_") - strlen("_offset");
  const char *op = arena_strndup(&L->ctx->arena, member + strlen("atomic_"), op_len);
  RawCall rc = raw_call(L, call, what, "self, offset, update, /, *, mask, memory_order, memory_scope", 1);
  Node *update = raw_operand(L, call, &rc, 2, what, "update");
  memory_check_atomic(L, op, rc.raw, update, rc.args.source[2], what);
  RawOrder order = raw_order(L, &rc, 4, what);
  Node *pointers = raw_pointers(L, rc.raw, rc.offset);
  Node *function = new_name(L, arena_printf(&L->ctx->arena, "tl.atomic_%s", op));
  Node *result = rc.mask ? T(L, "_1(_2, _3, mask=_4)", function, pointers, update, rc.mask)
                         : T(L, "_1(_2, _3)", function, pointers, update);
  memory_push_sem_scope(L, result, order.sem, order.scope);
  result->type = result_type(L, rc.raw, rc.offset);
  memory_note_access(L, result, rc.raw->array, order.effects);
  return result;
}

/* raw.atomic_cas_offset(offset, expected, desired, /, *, mask, memory_order, memory_scope) */
Node *memory_lower_raw_atomic_cas(Lowerer *L, Node *call, const char *member) {
  const char *what = "RawArrayMemory.atomic_cas_offset()";
  RawCall rc = raw_call(L, call, what, "self, offset, expected, desired, /, *, mask, memory_order, memory_scope", 2);
  Node *expected = raw_operand(L, call, &rc, 2, what, "expected");
  Node *desired = raw_operand(L, call, &rc, 3, what, "desired");
  memory_check_atomic(L, "cas", rc.raw, expected, rc.args.source[2], what);
  memory_check_atomic(L, "cas", rc.raw, desired, rc.args.source[3], what);
  RawOrder order = raw_order(L, &rc, 5, what);
  Node *sem_text = T0(L, arena_printf(&L->ctx->arena, "\"%s\"", order.sem ? order.sem : "acq_rel"));
  Node *scope_text = T0(L, arena_printf(&L->ctx->arena, "\"%s\"", order.scope ? order.scope : "gpu"));
  Node *result = T(L, "_1(_2, _3, _4, _5, _6, _7, _8)", use_helper(L, HELPER_ct_atomic_cas),
                   node_copy_tree(&L->ctx->arena, rc.raw->array->pointer), rc.offset,
                   rc.mask ? rc.mask : T0(L, "True"), expected, desired, sem_text, scope_text);
  result->type = result_type(L, rc.raw, rc.offset);
  memory_note_access(L, result, rc.raw->array, order.effects);
  return result;
}
