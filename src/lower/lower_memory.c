/*
 * lower_memory.c — ct.load and ct.store.
 *
 * cuTile indexes these in tile units: the tile at index (i0, i1) of shape
 * (S0, S1) covers elements [i0*S0, (i0+1)*S0) x [i1*S1, (i1+1)*S1).
 * Out-of-bounds elements read the padding value and are not written.
 *
 * Two paths, chosen per launch:
 *   - TMA: a tensor descriptor made once at the top of the kernel
 *     (tl.make_tensor_descriptor), for 2-D and larger tiles of kernel
 *     parameters. TMA needs the last stride to be 1 and the base and other
 *     strides 16-byte aligned; a misaligned descriptor gives wrong data
 *     without an error on the H200, so the launcher checks the real tensor
 *     and passes a constexpr flag `x_tma`.
 *   - pointers: tl.load/tl.store on base + offsets * strides with a bounds
 *     mask, through the runtime helpers ct_load_Nd / ct_store_Nd.
 * The kernel holds both: `desc.load(...) if x_tma and ... else ct_load_2d(...)`;
 * Triton compiles only the branch its constexpr condition picks.
 */
#include <string.h>

#include "lower.h"

#define MAX_TILE_RANK 5

/* ------------------------------------------------------- runtime helpers */

/* Python text of ct_load_Nd / ct_store_Nd / ct_tile_mask_Nd for rank r. */
static const char *offsets_text(Lowerer *L, int rank) {
  Buf text = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&text, "    o%d = i%d * S%d + tl.arange(0, S%d)\n", a, a, a, a);
  char *result = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return result;
}

/* `o0[:, None]` style broadcasting of axis a in rank r. */
static void broadcast_axis(Buf *text, const char *name, int axis, int rank) {
  if (rank == 1) {
    buf_printf(text, "%s", name);
    return;
  }
  buf_printf(text, "%s[", name);
  for (int d = 0; d < rank; d++)
    buf_printf(text, "%s%s", d ? ", " : "", d == axis ? ":" : "None");
  buf_puts(text, "]");
}

static const char *pointer_and_mask_text(Lowerer *L, int rank) {
  Buf text = {0};
  buf_puts(&text, "    ptrs = base");
  for (int a = 0; a < rank; a++) {
    buf_puts(&text, " + ");
    broadcast_axis(&text, arena_printf(&L->ctx->arena, "o%d", a), a, rank);
    buf_printf(&text, " * strides[%d]", a);
  }
  buf_puts(&text, "\n    mask = ");
  for (int a = 0; a < rank; a++) {
    buf_puts(&text, a ? " & " : "");
    broadcast_axis(&text, arena_printf(&L->ctx->arena, "((o%d >= 0) & (o%d < shape[%d]))", a, a, a), a, rank);
  }
  buf_puts(&text, "\n");
  char *result = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return result;
}

static const char *index_params(Lowerer *L, int rank, bool sizes) {
  Buf text = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&text, ", i%d", a);
  for (int a = 0; sizes && a < rank; a++)
    buf_printf(&text, ", S%d: tl.constexpr", a);
  char *result = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return result;
}

static Node *load_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_load_%dd", rank);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(base, shape, strides%s, other):\n"
      "    \"\"\"ct.load of the tile at tile index (i0, ...) with tile shape (S0, ...), through pointers:\n"
      "    elements outside the array read `other`.\"\"\"\n"
      "%s%s"
      "    return tl.load(ptrs, mask=mask, other=other)\n",
      name, index_params(L, rank, true), offsets_text(L, rank), pointer_and_mask_text(L, rank));
  return use_runtime(L, name, source);
}

static Node *store_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_store_%dd", rank);
  Buf sizes = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&sizes, "    S%d: tl.constexpr = value.shape[%d]\n", a, a);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(base, shape, strides%s, value):\n"
      "    \"\"\"ct.store of `value` as the tile at tile index (i0, ...), through pointers: elements\n"
      "    outside the array are not written.\"\"\"\n"
      "%s%s%s"
      "    tl.store(ptrs, value, mask=mask)\n",
      name, index_params(L, rank, false), sizes.data, offsets_text(L, rank), pointer_and_mask_text(L, rank));
  buf_free(&sizes);
  return use_runtime(L, name, source);
}

static Node *mask_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_tile_mask_%dd", rank);
  Buf text = {0};
  buf_puts(&text, "    return ");
  for (int a = 0; a < rank; a++) {
    buf_puts(&text, a ? " & " : "");
    broadcast_axis(&text, arena_printf(&L->ctx->arena, "((o%d >= 0) & (o%d < shape[%d]))", a, a, a), a, rank);
  }
  const char *source = arena_printf(&L->ctx->arena,
                                    "@triton.jit\n"
                                    "def %s(shape%s):\n"
                                    "    \"\"\"Which elements of the tile at tile index (i0, ...) lie inside the array.\"\"\"\n"
                                    "%s%s\n",
                                    name, index_params(L, rank, true), offsets_text(L, rank), text.data);
  buf_free(&text);
  return use_runtime(L, name, source);
}

/* ------------------------------------------------------------ arguments */

/* The elements of a constant tuple argument (or the argument itself for a
 * 1-D shorthand). */
static int tuple_items(Node *arg, Node **items, int max) {
  if (arg->kind == N_TUPLE) {
    int count = arg->u.list.elts.count;
    for (int i = 0; i < count && i < max; i++)
      items[i] = arg->u.list.elts.items[i];
    return count;
  }
  items[0] = arg;
  return 1;
}

static bool is_constant_expr(const Node *node) { return node->type && node->type->kind == VAL_CONST; }

/* order="C" | "F" | (perm...): tile axis d walks array axis perm[d]. */
static void read_order(Lowerer *L, Node *call, Node *order, int rank, int *perm) {
  for (int d = 0; d < rank; d++)
    perm[d] = d;
  if (!order)
    return;
  if (order->kind == N_STRING) {
    Node *piece = order->u.string.parts.items[0];
    Str text = piece->u.piece.text;
    char letter = text.len >= 3 ? text.text[text.len - 2] : '?';
    if (letter == 'F') {
      for (int d = 0; d < rank; d++)
        perm[d] = rank - 1 - d;
    } else if (letter != 'C') {
      lower_error(L, order, "order must be \"C\", \"F\" or a tuple of axes");
    }
    return;
  }
  Node *items[MAX_TILE_RANK];
  if (order->kind != N_TUPLE || tuple_items(order, items, MAX_TILE_RANK) != rank)
    lower_error(L, order, "order must be \"C\", \"F\" or a tuple of %d axes", rank);
  bool seen[MAX_TILE_RANK] = {0};
  for (int d = 0; d < rank; d++) {
    if (!is_constant_expr(items[d]) || items[d]->type->is_float)
      lower_error(L, items[d], "order must hold constant axes");
    long long axis = items[d]->type->int_value;
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank || seen[axis])
      lower_error(L, items[d], "order must be a permutation of the axes");
    seen[axis] = true;
    perm[d] = (int)axis;
  }
  (void)call;
}

static bool is_identity(const int *perm, int rank) {
  for (int d = 0; d < rank; d++)
    if (perm[d] != d)
      return false;
  return true;
}

static Node *permutation_tuple(Lowerer *L, const int *perm, int rank) {
  Node *tuple = T0(L, "()");
  tuple->parenthesized = true;
  for (int d = 0; d < rank; d++)
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, new_int(L, perm[d]));
  return tuple;
}

/* The value padding_mode asks for, as Triton text; NULL for UNDETERMINED. */
static const char *padding_value(Lowerer *L, Node *mode) {
  if (!mode)
    return NULL;
  if (!mode->type || mode->type->kind != VAL_ENUM || strncmp(mode->type->member, "PaddingMode.", 12) != 0)
    lower_error(L, mode, "padding_mode must be a ct.PaddingMode member");
  const char *name = mode->type->member + 12;
  if (strcmp(name, "UNDETERMINED") == 0)
    return NULL;
  if (strcmp(name, "ZERO") == 0)
    return "0";
  if (strcmp(name, "NEG_ZERO") == 0)
    return "-0.0";
  if (strcmp(name, "NAN") == 0)
    return "float(\"nan\")";
  if (strcmp(name, "POS_INF") == 0)
    return "float(\"inf\")";
  if (strcmp(name, "NEG_INF") == 0)
    return "float(\"-inf\")";
  lower_error(L, mode, "padding mode %s cannot be converted", name);
}

static bool flag_is_false(const Node *flag) {
  return flag && flag->type && flag->type->kind == VAL_CONST && flag->type->dtype == DT_BOOL && !flag->type->int_value;
}

static void reject_memory_order(Lowerer *L, Node *order, const char *what) {
  if (order && !(order->type && order->type->kind == VAL_ENUM && strcmp(order->type->member, "MemoryOrder.WEAK") == 0))
    lower_error(L, order, "%s with a memory_order other than WEAK cannot be converted (Triton loads and stores "
                          "have no memory order)", what);
}

/* -------------------------------------------------------------- TMA */

/* The constexpr condition under which a descriptor is used for `array`
 * with block sizes `sizes` (array-axis order). */
static Node *tma_condition(Lowerer *L, const ArrayRef *array, Node **sizes, int rank) {
  Node *flag = new_name(L, arena_printf(&L->ctx->arena, "%.*s_tma", array->param.len, array->param.text));
  Node *condition = T(L, "_1 and _2 * _3.dtype.element_ty.primitive_bitwidth >= 128", flag, sizes[rank - 1],
                      array->pointer);
  for (int a = 0; a < rank; a++) {
    bool small_literal = sizes[a]->type && sizes[a]->type->kind == VAL_CONST && sizes[a]->type->dtype != DT_UNKNOWN &&
                         sizes[a]->type->int_value <= 256;
    if (!small_literal)
      condition = T(L, "_1 and _2 <= 256", condition, sizes[a]);
  }
  return condition;
}

static void note_tma_array(Lowerer *L, const ArrayRef *array) {
  L->uses_tma = true;
  for (int i = 0; i < L->tma_array_count; i++)
    if (str_same(L->tma_arrays[i], array->param))
      return;
  if (L->tma_array_count < 64)
    L->tma_arrays[L->tma_array_count++] = array->param;
}

/* The descriptor of `array` with block `sizes` (and padding), made once at
 * the top of the kernel under the TMA condition. */
static Node *tma_descriptor(Lowerer *L, const ArrayRef *array, Node **sizes, int rank, bool nan_padding,
                            Node *condition) {
  Buf key = {0};
  expr_text(L->ctx, condition, &key);
  buf_printf(&key, "|%d", nan_padding);
  for (int i = 0; i < L->descriptor_count; i++)
    if (strcmp(L->descriptor_keys[i], key.data) == 0) {
      buf_free(&key);
      return new_name(L, L->descriptor_names[i]);
    }
  if (L->descriptor_count == 64)
    lower_error(L, NULL, "more than 64 tensor descriptors in one kernel");
  char *name = arena_printf(&L->ctx->arena, "%.*s_desc_%d", array->param.len, array->param.text, L->descriptor_count + 1);
  Node *shape = T0(L, "[]");
  Node *strides = T0(L, "[]");
  Node *block = T0(L, "[]");
  for (int a = 0; a < rank; a++) {
    node_list_push(&L->ctx->arena, &shape->u.list.elts, T(L, "_1[_2]", array->shape, new_int(L, a)));
    node_list_push(&L->ctx->arena, &strides->u.list.elts,
                   a + 1 < rank ? T(L, "_1[_2]", array->strides, new_int(L, a)) : new_int(L, 1));
    node_list_push(&L->ctx->arena, &block->u.list.elts, sizes[a]);
  }
  char *text = arena_printf(&L->ctx->arena,
                            "if _1:\n    %s = tl.make_tensor_descriptor(_2, shape=_3, strides=_4, block_shape=_5%s)\n",
                            name, nan_padding ? ", padding_option=\"nan\"" : "");
  NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(condition, array->pointer, shape, strides, block));
  node_list_push(&L->ctx->arena, L->prologue, made.items[0]);
  L->descriptor_keys[L->descriptor_count] = arena_strndup(&L->ctx->arena, key.data, key.len);
  L->descriptor_names[L->descriptor_count++] = name;
  buf_free(&key);
  note_tma_array(L, array);
  return new_name(L, name);
}

/* ------------------------------------------------------------- ct.load */

typedef struct TileAccess {
  ArrayRef *array;
  int rank;
  int perm[MAX_TILE_RANK];    /* tile axis d walks array axis perm[d] */
  Node *index[MAX_TILE_RANK]; /* per array axis: tile index */
  Node *size[MAX_TILE_RANK];  /* per array axis: tile size */
  bool allow_tma;
} TileAccess;

static Node *element_offsets(Lowerer *L, const TileAccess *access) {
  Node *list = T0(L, "[]");
  for (int a = 0; a < access->rank; a++)
    node_list_push(&L->ctx->arena, &list->u.list.elts, T(L, "_1 * _2", access->index[a], access->size[a]));
  return list;
}

static Node *pointer_call(Lowerer *L, Node *helper, const TileAccess *access, Node *last) {
  Node *call = T(L, "_1(_2, _3, _4)", helper, access->array->pointer, access->array->shape, access->array->strides);
  for (int a = 0; a < access->rank; a++)
    node_list_push(&L->ctx->arena, &call->u.call.args, access->index[a]);
  return call;
  (void)last;
}

/* Positions in ct.load's signature. */
enum { LOAD_ARRAY, LOAD_INDEX, LOAD_SHAPE, LOAD_ORDER, LOAD_PADDING_MODE, LOAD_CHECK_BOUNDS, LOAD_LATENCY,
       LOAD_ALLOW_TMA, LOAD_MEMORY_ORDER, LOAD_MEMORY_SCOPE };

static Node *lower_load(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.load()";
  BoundArgs args;
  bind_call(L, call, what,
            "array, /, index, shape, *, order, padding_mode, check_bounds, latency, allow_tma, memory_order, "
            "memory_scope",
            &args);
  Node *array = require_arg(L, call, &args, 0, what, "array");
  if (array->type->kind != VAL_ARRAY)
    lower_error(L, args.source[0], "ct.load() reads an array, not %s", type_describe(L->ctx, array->type));
  Node *index = require_arg(L, call, &args, 1, what, "index");
  Node *shape = require_arg(L, call, &args, 2, what, "shape");
  reject_memory_order(L, args.arg[LOAD_MEMORY_ORDER], what);
  Node *index_items[MAX_TILE_RANK], *shape_items[MAX_TILE_RANK];
  int rank = tuple_items(shape, shape_items, MAX_TILE_RANK);
  if (shape->kind == N_TUPLE && rank == 0)
    lower_error(L, shape, "ct.load() with shape=() cannot be converted yet");
  if (rank > MAX_TILE_RANK)
    lower_error(L, shape, "tiles of more than %d dimensions cannot be converted", MAX_TILE_RANK);
  if (tuple_items(index, index_items, MAX_TILE_RANK) != rank)
    lower_error(L, index, "ct.load(): index and shape must have one entry per array dimension (%d)", rank);
  TileAccess access = {.array = array->type->array, .rank = rank, .allow_tma = !flag_is_false(args.arg[LOAD_ALLOW_TMA])};
  read_order(L, call, args.arg[LOAD_ORDER], rank, access.perm);
  for (int d = 0; d < rank; d++) {
    if (!is_constant_expr(shape_items[d]))
      lower_error(L, shape_items[d], "ct.load(): the tile shape must be constant");
    access.index[access.perm[d]] = index_items[d];
    access.size[access.perm[d]] = shape_items[d];
  }
  if (array->type->rank < 0)
    array->type->rank = rank;
  const char *pad = padding_value(L, args.arg[LOAD_PADDING_MODE]);
  Node *other = pad ? T0(L, pad) : T0(L, "None");
  Node *loaded = pointer_call(L, load_helper(L, rank), &access, NULL);
  for (int a = 0; a < rank; a++)
    node_list_push(&L->ctx->arena, &loaded->u.call.args, access.size[a]);
  node_list_push(&L->ctx->arena, &loaded->u.call.args, other);
  if (rank >= 2 && access.allow_tma && access.array->param.len && L->prologue && L->function->role == ROLE_KERNEL) {
    Node *condition = tma_condition(L, access.array, access.size, rank);
    bool nan = pad && strcmp(pad, "float(\"nan\")") == 0;
    Node *desc = tma_descriptor(L, access.array, access.size, rank, nan, condition);
    Node *by_tma = T(L, "_1.load(_2)", desc, element_offsets(L, &access));
    if (pad && strcmp(pad, "0") != 0 && !nan) {
      Node *mask = pointer_call(L, mask_helper(L, rank), &access, NULL);
      mask->u.call.args.items[0] = access.array->shape;
      mask->u.call.args.count = 1;
      for (int a = 0; a < rank; a++)
        node_list_push(&L->ctx->arena, &mask->u.call.args, access.index[a]);
      for (int a = 0; a < rank; a++)
        node_list_push(&L->ctx->arena, &mask->u.call.args, access.size[a]);
      by_tma = T(L, "tl.where(_1, _2, _3)", mask, by_tma, T0(L, pad));
    }
    loaded = T(L, "_1 if _2 else _3", by_tma, condition, loaded);
  }
  if (!is_identity(access.perm, rank))
    loaded = T(L, "tl.permute(_1, _2)", loaded, permutation_tuple(L, access.perm, rank));
  TypeInfo *type = type_tile(L->ctx, array->type->dtype, rank, NULL);
  type->dtype_expr = array->type->dtype_expr;
  for (int d = 0; d < rank; d++) {
    type->dims[d] = shape_items[d];
    type->shape[d] = shape_items[d]->type->dtype != DT_UNKNOWN ? (int)shape_items[d]->type->int_value : -1;
  }
  loaded->type = type;
  return loaded;
}

/* ------------------------------------------------------------ ct.store */

static Node *lower_store(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.store()";
  BoundArgs args;
  bind_call(L, call, what, "array, /, index, tile, *, order, check_bounds, latency, allow_tma, memory_order, memory_scope",
            &args);
  Node *array = require_arg(L, call, &args, 0, what, "array");
  if (array->type->kind != VAL_ARRAY)
    lower_error(L, args.source[0], "ct.store() writes an array, not %s", type_describe(L->ctx, array->type));
  Node *index = require_arg(L, call, &args, 1, what, "index");
  Node *tile = require_arg(L, call, &args, 2, what, "tile");
  reject_memory_order(L, args.arg[7], what);
  Node *index_items[MAX_TILE_RANK];
  int rank = tuple_items(index, index_items, MAX_TILE_RANK);
  int tile_rank = tile->type && tile->type->kind == VAL_TILE ? tile->type->rank : 0;
  if (tile_rank == 0)
    lower_error(L, args.source[2], "ct.store() of a scalar cannot be converted yet");
  if (tile_rank != rank)
    lower_error(L, index, "ct.store(): the index has %d entries for a %d-d tile", rank, tile_rank);
  TileAccess access = {.array = array->type->array, .rank = rank, .allow_tma = !flag_is_false(args.arg[6])};
  read_order(L, call, args.arg[3], rank, access.perm);
  bool sizes_known = true;
  for (int d = 0; d < rank; d++) {
    access.index[access.perm[d]] = index_items[d];
    access.size[access.perm[d]] = tile->type->dims[d];
    sizes_known &= tile->type->dims[d] != NULL;
  }
  if (array->type->rank < 0)
    array->type->rank = rank;
  Node *value = T(L, "_1.to(_2.dtype.element_ty)", tile, access.array->pointer);
  if (!is_identity(access.perm, rank)) {
    int inverse[MAX_TILE_RANK];
    for (int d = 0; d < rank; d++)
      inverse[access.perm[d]] = d;
    value = T(L, "tl.permute(_1, _2)", value, permutation_tuple(L, inverse, rank));
  }
  Node *stored = pointer_call(L, store_helper(L, rank), &access, NULL);
  node_list_push(&L->ctx->arena, &stored->u.call.args, value);
  if (rank >= 2 && sizes_known && access.allow_tma && access.array->param.len && L->prologue && L->function->role == ROLE_KERNEL) {
    Node *condition = tma_condition(L, access.array, access.size, rank);
    Node *desc = tma_descriptor(L, access.array, access.size, rank, false, condition);
    Node *by_tma = T(L, "_1.store(_2, _3)", desc, element_offsets(L, &access), value);
    stored = T(L, "_1 if _2 else _3", by_tma, condition, stored);
  }
  stored->type = type_new(L->ctx, VAL_NONE);
  return stored;
}

const OpEntry lower_memory_ops[] = {
    {"load", lower_load},
    {"store", lower_store},
    {NULL, NULL},
};
