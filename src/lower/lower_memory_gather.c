/*
 * lower_memory_gather.c — ct.gather, ct.scatter and the atomics
 * (ct.atomic_add/max/min/and/or/xor/xchg/cas): element-indexed memory
 * operations.
 *
 * Indices are element indices, one entry per array dimension (a single
 * tile or scalar for a 1-D array); tiles and scalars broadcast together
 * into the shape of the result. Addresses are computed in 64 bits, as
 * cuTile does. With check_bounds (the default) an index is inside when
 * 0 <= i < extent — cuTile compares unsigned, so negative indices are out
 * of bounds — and outside lanes are masked: a gather reads padding_value
 * (cast to the array's dtype), a scatter and the atomics do nothing there.
 * check_bounds= given by a constexpr (a parameter, `not NO_PADDING`) picks
 * the mask at Triton's compile time; the atomics then keep the check (the
 * lanes check_bounds=False promises in bounds are the same either way).
 * For example:
 *
 *     t = tl.load(x + ct_element_offsets_2d(x_strides, rows, cols),
 *                 mask=ct_element_inside_2d(x_shape, rows, cols), other=0)
 *
 * Atomics map memory_order/memory_scope to Triton's sem/scope (cuTile's
 * defaults, ACQ_REL and DEVICE, are Triton's: "acq_rel", "gpu") and return
 * the old values. tl.atomic_cas has no mask: outside lanes compare-and-swap
 * the array's first element with cmp == val (which changes nothing) and
 * return `expected`, as cuTile's CAS does there.
 */
#include <string.h>

#include "lower_memory.h"

/* ---------------------------------------------------------- the helpers */

/* ct_element_offsets_Nd(strides, i0, ...) and ct_element_inside_Nd(shape, i0, ...):
 * src/lower/helpers/memory_templates.py, filled in for the rank. */
static Node *element_helper(Lowerer *L, int rank, bool inside) {
  return use_template(L, inside ? TEMPLATE_ct_element_inside_RANKd : TEMPLATE_ct_element_offsets_RANKd, rank);
}

/* ------------------------------------------------------------ arguments */

static int index_items(Lowerer *L, Node *indices, Node **items, int max) {
  return memory_tuple_items(L, indices, items, max, "entries in the indices of a gather, scatter or atomic");
}

bool memory_is_integer(const TypeInfo *type) {
  if (!type || (type->kind != VAL_TILE && type->kind != VAL_CONST))
    return false;
  if (type->kind == VAL_CONST && type->is_float)
    return false;
  return type->dtype == DT_UNKNOWN || strchr("iu", dtype_info(type->dtype)->category) != NULL;
}

/* The shape the indices broadcast to (numpy rules), as a tile type. */
static TypeInfo *broadcast_shape(Lowerer *L, Node **items, int count, Node *at) {
  int rank = 0;
  for (int i = 0; i < count; i++) {
    const TypeInfo *type = items[i]->type;
    if (type->kind == VAL_TILE && type->rank < 0)
      lower_error(L, items[i], "the rank of this index is not known at conversion time");
    if (type->kind == VAL_TILE && type->rank > rank)
      rank = type->rank;
  }
  TypeInfo *result = type_tile(L->ctx, DT_UNKNOWN, rank, NULL);
  for (int d = 0; d < rank; d++)
    result->shape[d] = 1;
  for (int i = 0; i < count; i++) {
    const TypeInfo *type = items[i]->type;
    if (type->kind != VAL_TILE)
      continue;
    for (int d = 0; d < type->rank; d++) {
      int r = d + rank - type->rank;
      if (type->shape[d] == 1)
        continue;
      if (result->shape[r] != 1 && type->shape[d] != result->shape[r] && type->shape[d] >= 0 && result->shape[r] >= 0)
        lower_error(L, at, "the indices do not broadcast together");
      if (result->shape[r] == 1 || result->dims[r] == NULL) {
        result->shape[r] = type->shape[d];
        result->dims[r] = type->dims[d];
      }
    }
  }
  return result;
}

typedef struct ElementAccess {
  TypeInfo *array;
  Node *offsets; /* ct_element_offsets_Nd(strides, ...) */
  Node *inside;  /* ct_element_inside_Nd(shape, ...) */
  TypeInfo *shape;
} ElementAccess;

/* The offsets and the bounds mask of the indices, as calls made in place
 * (not hoisted: the operation may sit in a `while` condition). */
static ElementAccess element_access(Lowerer *L, TypeInfo *array, Node *indices, const char *what) {
  Node *items[MAX_TILE_RANK];
  int rank = index_items(L, indices, items, MAX_TILE_RANK);
  if (array->rank >= 0 && array->rank != rank)
    lower_error(L, indices, "%s: the indices need one entry per array dimension", what);
  for (int i = 0; i < rank; i++)
    if (!memory_is_integer(items[i]->type))
      lower_error(L, items[i], "%s: indices must be integer tiles or scalars, not %s", what,
                  type_describe(L->ctx, items[i]->type));
  memory_learn_rank(array, rank);
  if (rank == 0) /* a 0-d array's one element: at its base, never out of bounds */
    return (ElementAccess){array, NULL, NULL, broadcast_shape(L, items, 0, indices)};
  ArrayRef *ref = array->array;
  Node *offsets = T(L, "_1(_2)", element_helper(L, rank, false), ref->strides);
  Node *inside = T(L, "_1(_2)", element_helper(L, rank, true), ref->shape);
  for (int i = 0; i < rank; i++) {
    node_list_push(&L->ctx->arena, &offsets->u.call.args, items[i]);
    node_list_push(&L->ctx->arena, &inside->u.call.args, items[i]);
  }
  return (ElementAccess){array, offsets, inside, broadcast_shape(L, items, rank, indices)};
}

/* The pointers of the access: the base plus the offsets (the base of a 0-d array). */
static Node *access_pointers(Lowerer *L, const ElementAccess *access) {
  Node *base = access->array->array->pointer;
  return access->offsets ? T(L, "_1 + _2", base, access->offsets) : T(L, "_1", base);
}

static TypeInfo *result_type(Lowerer *L, const ElementAccess *access) {
  TypeInfo *type = access->shape;
  type->dtype = access->array->dtype;
  type->dtype_expr = access->array->dtype_expr;
  return type;
}

void memory_check_mask(Lowerer *L, Node *mask, const char *what) {
  if (mask && !(mask->type && (mask->type->kind == VAL_TILE || mask->type->kind == VAL_CONST)))
    lower_error(L, mask, "%s: mask must be a bool tile or scalar", what);
}

/* The effective mask: bounds and the user's mask, either, or none (NULL).
 * `check` is memory_check_bounds's: NULL checks, False does not, a
 * constexpr flag chooses at Triton's compile time:
 *     mask=(inside & m if FLAG else m)     mask=(inside if FLAG else None) */
static Node *effective_mask(Lowerer *L, const ElementAccess *access, Node *check, Node *mask) {
  if (!access->inside) /* nothing to check */
    return mask;
  Node *checked = mask ? T(L, "_1 & _2", access->inside, mask) : access->inside;
  if (!check)
    return checked;
  if (memory_is_false(check))
    return mask;
  return T(L, "(_1 if _2 else _3)", checked, check, mask ? mask : T0(L, "None"));
}

/* ------------------------------------------------------- gather, scatter */

/* The `other` of a masked element load reading `padding` (NULL: 0). A float: Triton
 * casts it to every element dtype, fp8 too, an int constant not to fp8. */
Node *memory_gather_other(Lowerer *L, Node *padding) {
  long long small = 1LL << 24; /* integers up to 2^24 are exact in float32 */
  if (!padding)
    return T0(L, "0.0");
  if (padding->type && padding->type->kind == VAL_CONST && padding->type->loose && !padding->type->is_float &&
      padding->type->int_value > -small && padding->type->int_value < small)
    return T0(L, arena_printf(&L->ctx->arena, "%lld.0", padding->type->int_value));
  return padding;
}

/* ct.gather(array, indices, /, *, mask=None, padding_value=0, check_bounds=True, latency=None) */
Node *memory_lower_gather(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.gather()";
  BoundArgs args;
  bind_call(L, call, what, "array, indices, /, *, mask, padding_value, check_bounds, latency", &args);
  Node *array = memory_require_array(L, call, &args, what, "reads");
  Node *indices = require_arg(L, call, &args, 1, what, "indices");
  stats_memory(L->conv, "gather/scatter (no TMA form)");
  Node *mask = args.arg[2], *padding = args.arg[3];
  memory_check_mask(L, mask, what);
  Node *check = memory_check_bounds(L, args.arg[4], what);
  memory_check_latency(L, args.arg[5], what);
  if (padding)
    memory_check_store_cast(L, args.source[3], padding->type, array->type, "ct.gather() padding_value");
  ElementAccess access = element_access(L, array->type, indices, what);
  Node *pointers = access_pointers(L, &access);
  Node *effective = effective_mask(L, &access, check, mask);
  Node *loaded;
  Node *other = memory_gather_other(L, padding);
  if (effective && check && !mask && !memory_is_false(check)) /* Triton refuses `other` without a mask */
    loaded = T(L, "tl.load(_1, mask=_2, other=(_3 if _4 else None))", pointers, effective, other, check);
  else if (effective)
    loaded = T(L, "tl.load(_1, mask=_2, other=_3)", pointers, effective, other);
  else
    loaded = T(L, "tl.load(_1)", pointers);
  loaded->type = result_type(L, &access);
  memory_note_access(L, loaded, array->type->array, MEM_READ);
  return loaded;
}

/* ct.scatter(array, indices, value, /, *, mask=None, check_bounds=True, latency=None) */
Node *memory_lower_scatter(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.scatter()";
  BoundArgs args;
  bind_call(L, call, what, "array, indices, value, /, *, mask, check_bounds, latency", &args);
  Node *array = memory_require_array(L, call, &args, what, "writes");
  Node *indices = require_arg(L, call, &args, 1, what, "indices");
  stats_memory(L->conv, "gather/scatter (no TMA form)");
  Node *value = require_arg(L, call, &args, 2, what, "value");
  Node *mask = args.arg[3];
  memory_check_mask(L, mask, what);
  Node *check = memory_check_bounds(L, args.arg[4], what);
  memory_check_latency(L, args.arg[5], what);
  memory_check_store_cast(L, args.source[2], value->type, array->type, what);
  ElementAccess access = element_access(L, array->type, indices, what);
  Node *pointers = access_pointers(L, &access);
  Node *effective = effective_mask(L, &access, check, mask);
  Node *stored = effective ? T(L, "tl.store(_1, _2, mask=_3)", pointers, value, effective)
                           : T(L, "tl.store(_1, _2)", pointers, value);
  stored->type = type_new(L->ctx, VAL_NONE);
  memory_note_access(L, stored, array->type->array, MEM_WRITE);
  return stored;
}

/* ------------------------------------------------------------- atomics */

/* memory_order -> Triton's sem ("acq_rel", the default, gives NULL). */
const char *memory_order_sem(Lowerer *L, Node *order, const char *what, unsigned *effects) {
  *effects |= MEM_ACQUIRE | MEM_RELEASE;
  if (!order)
    return NULL;
  const char *member = order->type && order->type->kind == VAL_ENUM ? order->type->member : "";
  if (strcmp(member, "MemoryOrder.ACQ_REL") == 0)
    return NULL;
  *effects &= ~(unsigned)(MEM_ACQUIRE | MEM_RELEASE);
  if (strcmp(member, "MemoryOrder.RELAXED") == 0)
    return "relaxed";
  if (strcmp(member, "MemoryOrder.ACQUIRE") == 0) {
    *effects |= MEM_ACQUIRE;
    return "acquire";
  }
  if (strcmp(member, "MemoryOrder.RELEASE") == 0) {
    *effects |= MEM_RELEASE;
    return "release";
  }
  lower_error(L, order, "%s: memory_order must be RELAXED, ACQUIRE, RELEASE or ACQ_REL", what);
}

/* memory_scope -> Triton's scope ("gpu", the default, gives NULL). */
const char *memory_scope_text(Lowerer *L, Node *scope, const char *what) {
  if (!scope)
    return NULL;
  const char *member = scope->type && scope->type->kind == VAL_ENUM ? scope->type->member : "";
  if (strcmp(member, "MemoryScope.DEVICE") == 0)
    return NULL;
  if (strcmp(member, "MemoryScope.BLOCK") == 0)
    return "cta";
  if (strcmp(member, "MemoryScope.SYS") == 0)
    return "sys";
  lower_error(L, scope, "%s: memory_scope must be BLOCK, DEVICE or SYS", what);
}

/* `, sem="acquire", scope="cta"` for the non-default ones. */
void memory_push_sem_scope(Lowerer *L, Node *call, const char *sem, const char *scope) {
  const char *text = arena_printf(&L->ctx->arena, "f(sem=\"%s\", scope=\"%s\")", sem ? sem : "acq_rel",
                                  scope ? scope : "gpu");
  Node *keywords = T0(L, text);
  if (sem)
    node_list_push(&L->ctx->arena, &call->u.call.keywords, keywords->u.call.keywords.items[0]);
  if (scope)
    node_list_push(&L->ctx->arena, &call->u.call.keywords, keywords->u.call.keywords.items[1]);
}

typedef struct AtomicSpec {
  const char *member;
  const char *triton;
  bool floats;      /* float arrays allowed */
  bool exact_dtype; /* the update must have the array's dtype (and/or/xor) */
} AtomicSpec;

static const AtomicSpec ATOMICS[] = {
    {"atomic_add", "tl.atomic_add", true, false}, {"atomic_max", "tl.atomic_max", false, false},
    {"atomic_min", "tl.atomic_min", false, false}, {"atomic_and", "tl.atomic_and", false, true},
    {"atomic_or", "tl.atomic_or", false, true},   {"atomic_xor", "tl.atomic_xor", false, true},
    {"atomic_xchg", "tl.atomic_xchg", true, false},
};

static void check_atomic_dtypes(Lowerer *L, const AtomicSpec *spec, TypeInfo *array, Node *update, Node *at,
                                const char *what) {
  DType dt = array->dtype;
  if (dt != DT_UNKNOWN) {
    char category = dtype_info(dt)->category;
    bool ok = (category == 'i' || category == 'u') ? dtype_info(dt)->bits >= 32
                                                   : category == 'f' && spec->floats &&
                                                         (dt == DT_FLOAT32 || dt == DT_FLOAT64 ||
                                                          (strcmp(spec->member, "atomic_add") == 0 &&
                                                           (dt == DT_FLOAT16 || dt == DT_BFLOAT16)));
    if (!ok)
      lower_error(L, at, "%s does not support arrays of %s", what, dtype_info(dt)->cutile);
  }
  if (spec->exact_dtype && update->type->kind == VAL_TILE && update->type->dtype != DT_UNKNOWN && dt != DT_UNKNOWN &&
      update->type->dtype != dt)
    lower_error(L, at, "%s: the update must have the array's dtype %s, not %s", what, dtype_info(dt)->cutile,
                dtype_info(update->type->dtype)->cutile);
  memory_check_store_cast(L, at, update->type, array, what);
}

static const AtomicSpec CAS = {"atomic_cas", "tl.atomic_cas", true, false};

void memory_check_atomic(Lowerer *L, const char *op, TypeInfo *array, Node *update, Node *at, const char *what) {
  if (strcmp(op, "cas") == 0)
    check_atomic_dtypes(L, &CAS, array, update, at, what);
  for (size_t i = 0; i < sizeof ATOMICS / sizeof ATOMICS[0]; i++)
    if (strcmp(ATOMICS[i].member + strlen("atomic_"), op) == 0)
      check_atomic_dtypes(L, &ATOMICS[i], array, update, at, what);
}

/* ct.atomic_OP(array, indices, update, /, *, check_bounds, memory_order, memory_scope) */
Node *memory_lower_atomic_rmw(Lowerer *L, Node *call, const char *member) {
  const AtomicSpec *spec = NULL;
  for (size_t i = 0; i < sizeof ATOMICS / sizeof ATOMICS[0]; i++)
    if (strcmp(ATOMICS[i].member, member) == 0)
      spec = &ATOMICS[i];
  const char *what = arena_printf(&L->ctx->arena, "ct.%s()", member);
  BoundArgs args;
  bind_call(L, call, what, "array, indices, update, /, *, check_bounds, memory_order, memory_scope", &args);
  Node *array = memory_require_array(L, call, &args, what, "works on");
  Node *indices = require_arg(L, call, &args, 1, what, "indices");
  Node *update = require_arg(L, call, &args, 2, what, "update");
  stats_memory(L->conv, "atomic (no TMA form)");
  bool check_bounds = !memory_is_false(memory_check_bounds(L, args.arg[3], what)); /* a constexpr flag: checked */
  unsigned effects = MEM_READ | MEM_WRITE | MEM_ATOMIC;
  const char *sem = memory_order_sem(L, args.arg[4], what, &effects);
  const char *scope = memory_scope_text(L, args.arg[5], what);
  check_atomic_dtypes(L, spec, array->type, update, args.source[2], what);
  ElementAccess access = element_access(L, array->type, indices, what);
  Node *pointers = access_pointers(L, &access);
  Node *op = new_name(L, spec->triton);
  Node *result = check_bounds && access.inside ? T(L, "_1(_2, _3, mask=_4)", op, pointers, update, access.inside)
                              : T(L, "_1(_2, _3)", op, pointers, update);
  memory_push_sem_scope(L, result, sem, scope);
  result->type = result_type(L, &access);
  memory_note_access(L, result, array->type->array, effects);
  return result;
}

/* ct.atomic_cas(array, indices, expected, desired, /, *, check_bounds, memory_order, memory_scope) */
Node *memory_lower_atomic_cas(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.atomic_cas()";
  BoundArgs args;
  bind_call(L, call, what, "array, indices, expected, desired, /, *, check_bounds, memory_order, memory_scope", &args);
  Node *array = memory_require_array(L, call, &args, what, "works on");
  Node *indices = require_arg(L, call, &args, 1, what, "indices");
  Node *expected = require_arg(L, call, &args, 2, what, "expected");
  stats_memory(L->conv, "atomic (no TMA form)");
  Node *desired = require_arg(L, call, &args, 3, what, "desired");
  bool check_bounds = !memory_is_false(memory_check_bounds(L, args.arg[4], what)); /* a constexpr flag: checked */
  unsigned effects = MEM_READ | MEM_WRITE | MEM_ATOMIC;
  const char *sem = memory_order_sem(L, args.arg[5], what, &effects);
  const char *scope = memory_scope_text(L, args.arg[6], what);
  check_atomic_dtypes(L, &CAS, array->type, expected, args.source[2], what);
  check_atomic_dtypes(L, &CAS, array->type, desired, args.source[3], what);
  ElementAccess access = element_access(L, array->type, indices, what);
  Node *inside = check_bounds && access.inside ? access.inside : T0(L, "True");
  Node *offsets = access.offsets ? access.offsets : new_int(L, 0);
  Node *sem_text = T0(L, arena_printf(&L->ctx->arena, "\"%s\"", sem ? sem : "acq_rel"));
  Node *scope_text = T0(L, arena_printf(&L->ctx->arena, "\"%s\"", scope ? scope : "gpu"));
  Node *result = T(L, "_1(_2, _3, _4, _5, _6, _7, _8)", use_helper(L, HELPER_ct_atomic_cas),
                   array->type->array->pointer, offsets, inside, expected, desired, sem_text, scope_text);
  result->type = result_type(L, &access);
  memory_note_access(L, result, array->type->array, effects);
  return result;
}
