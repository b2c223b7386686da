/*
 * lower_memory.c — ct.load, ct.store, ct.num_tiles and Array.slice.
 *
 * cuTile indexes loads and stores in tile units: the tile at index (i0, i1)
 * of shape (S0, S1) covers elements [i0*S0, (i0+1)*S0) x [i1*S1, (i1+1)*S1);
 * with `order` (a permutation; "F" reverses) tile axis d walks array axis
 * order[d]. Out-of-bounds elements read the padding value and are not
 * written; shape=() reads one element, a scalar tile writes one.
 *
 * Two paths, chosen per launch:
 *   - TMA: a tensor descriptor (tl.make_tensor_descriptor) made once at the
 *     top of the kernel, for 2-D to 5-D tiles of kernel parameters. TMA
 *     needs the last stride to be 1 and the base and the other strides
 *     16-byte aligned; a misaligned descriptor gives wrong data without an
 *     error on the H200, so the launcher checks the real tensor and passes
 *     a constexpr flag `x_tma`. The prologue names the whole condition once:
 *         x_desc_1_ok: tl.constexpr = x_tma and BN * (bits // 8) >= 16 ...
 *     A descriptor pads with zero or NaN only: other padding values take a
 *     bounds mask and tl.where.
 *   - pointers: the helpers of lower_memory_helpers.c (64-bit offsets, a
 *     bounds mask, `other` = the padding value).
 * The kernel holds both, as `if x_desc_1_ok: ... else: ...`; Triton compiles
 * only the branch its constexpr condition picks.
 */
#include <string.h>

#include "lower_math.h"
#include "lower_memory.h"
#include "lower_shape.h"

/* ------------------------------------------------------------ arguments */

/* The entries of a tuple argument: a tuple written in the call, or one kept
 * in a local (`idx = (ct.bid(0), 0)`: its entries by constant subscripts,
 * a constant entry by its value); any other argument is the 1-D shorthand,
 * its own only entry. `what` names the entries for the limit's message. */
int memory_tuple_items(Lowerer *L, Node *arg, Node **items, int max, const char *what) {
  if (arg->kind == N_TUPLE) {
    int count = arg->u.list.elts.count;
    if (count > max)
      lower_limit(L, arg, what, max);
    for (int i = 0; i < count; i++)
      items[i] = arg->u.list.elts.items[i];
    return count;
  }
  if (arg->type && arg->type->kind == VAL_TUPLE) {
    if (!arg->type->elts)
      lower_error(L, arg, "a tuple whose entries are not known at conversion cannot index a memory operation "
                          "(write the tuple in the call)");
    int count = arg->type->count;
    if (count > max)
      lower_limit(L, arg, what, max);
    for (int i = 0; i < count; i++)
      items[i] = lower_tuple_entry(L, arg, i);
    return count;
  }
  items[0] = arg;
  return 1;
}

/* ... whose entries must be integers: cuTile refuses a float one ("Expected a tuple of signed
 * integers"), which Triton would take as an offset. */
static int tuple_items(Lowerer *L, Node *arg, Node **items, int max) {
  int count = memory_tuple_items(L, arg, items, max, "entries in an index, shape or order tuple of a memory operation");
  for (int i = 0; i < count && i < max; i++) {
    const TypeInfo *type = items[i]->type;
    bool is_float = type && ((type->kind == VAL_CONST && type->is_float) ||
                             (type->kind == VAL_TILE && (type->dtype != DT_UNKNOWN ? math_dtype_is_float(type->dtype)
                                                                                    : type->float_kind)));
    if (is_float)
      lower_error(L, items[i]->span.start.line > 0 ? items[i] : arg,
                  "the entries of a memory operation's index, shape or order must be integers, not %s%s",
                  type_describe(L->ctx, type), type->float_kind ? " of a float dtype (a true division's)" : "");
  }
  return count;
}

/* The entries of a tile shape: a shape kept in a local is read entry by entry; an entry
 * only Triton knows (BM) is read from the local, which must then be a constexpr local (a
 * constexpr read back from a plain local tuple is no constexpr to Triton when it compiles
 * for a GPU: shape_constexpr_item). */
static bool known_int(const Node *node, long long *value);

static int shape_items(Lowerer *L, Node *shape, Node **items, int max) {
  int rank = tuple_items(L, shape, items, max);
  for (int d = 0; shape->kind != N_TUPLE && d < rank; d++)
    if (items[d]->kind == N_SUBSCRIPT && !(items[d] = shape_constexpr_item(L, shape, d, shape)))
      lower_error(L, shape, "a tile shape kept in a local tuple must hold constants, assigned once "
                            "(or write the shape in the call: shape=(BM, BN))");
  long long value;
  for (int d = 0; d < rank; d++) {
    if (items[d]->kind != N_CONSTANT && known_int(items[d], &value) && math_reads_reassigned(L, items[d])) {
      /* known here, a tensor to Triton (bound in both branches of a run-time `if`): the number */
      TypeInfo *type = items[d]->type;
      items[d] = new_int(L, value);
      items[d]->type = type;
    }
    shape_require_constexpr_names(L, items[d], shape);
  }
  return rank;
}

static bool is_constant_expr(const Node *node) { return node->type && node->type->kind == VAL_CONST; }

/* A constant whose value the converter knows (a literal, not a constexpr parameter). */
static bool known_int(const Node *node, long long *value) {
  if (!is_constant_expr(node) || node->type->is_float || node->type->dtype == DT_UNKNOWN)
    return false;
  *value = node->type->int_value;
  return true;
}

bool memory_known_int(const Node *node, long long *value) { return known_int(node, value); }

bool memory_is_constant(const Node *node) { return is_constant_expr(node); }

bool memory_is_false(const Node *flag) {
  return flag && flag->type && flag->type->kind == VAL_CONST && flag->type->dtype == DT_BOOL && !flag->type->int_value;
}

/* allow_tma=FLAG where FLAG is a constexpr whose value Triton knows, not the
 * converter (a ct.Constant[bool] parameter): the descriptor path's condition
 * takes it, as cuTile takes pointers where it is False. NULL otherwise. */
static Node *allow_at_launch(Node *flag) {
  if (!flag || !flag->type || flag->type->kind != VAL_CONST || flag->type->dtype != DT_UNKNOWN)
    return NULL;
  return flag;
}

/* order="C" | "F" | (axes...): tile axis d walks array axis perm[d]. */
static void read_order(Lowerer *L, Node *order, int rank, int *perm) {
  for (int d = 0; d < rank; d++)
    perm[d] = d;
  if (!order)
    return;
  if (order->kind == N_STRING) {
    Node *piece = order->u.string.parts.items[0];
    Str text = piece->u.piece.text;
    char letter = text.len >= 3 ? text.text[text.len - 2] : '?';
    if (text.len != 3 || (letter != 'F' && letter != 'C'))
      lower_error(L, order, "order must be \"C\", \"F\" or a tuple of axes");
    for (int d = 0; letter == 'F' && d < rank; d++)
      perm[d] = rank - 1 - d;
    return;
  }
  Node *items[MAX_TILE_RANK];
  if (order->kind != N_TUPLE || tuple_items(L, order, items, MAX_TILE_RANK) != rank)
    lower_error(L, order, "order must be \"C\", \"F\" or a tuple of %d axes", rank);
  bool seen[MAX_TILE_RANK] = {0};
  for (int d = 0; d < rank; d++) {
    long long axis;
    if (!known_int(items[d], &axis))
      lower_error(L, items[d], "order must hold constant axes");
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank || seen[axis])
      lower_error(L, items[d], "order must be a permutation of the %d axes", rank);
    seen[axis] = true;
    perm[d] = (int)axis;
  }
}

static bool is_identity(const int *perm, int rank) {
  for (int d = 0; d < rank; d++)
    if (perm[d] != d)
      return false;
  return true;
}

/* ------------------------------------------------------------- padding */

typedef enum Padding { PAD_UNDETERMINED, PAD_ZERO, PAD_NEG_ZERO, PAD_NAN, PAD_POS_INF, PAD_NEG_INF } Padding;

static const char *const PADDING_NAMES[] = {"UNDETERMINED", "ZERO", "NEG_ZERO", "NAN", "POS_INF", "NEG_INF"};
/* zero as 0.0: Triton casts a float constant to every element dtype, fp8 included (not an int one) */
static const char *const PADDING_TEXT[] = {"None", "0.0", "ct_negative_zero()", "float(\"nan\")", "float(\"inf\")", "float(\"-inf\")"};

/* The padding value as a Triton expression (`None` for UNDETERMINED). */
static Node *padding_value(Lowerer *L, Padding padding) {
  if (padding == PAD_NEG_ZERO)
    return T(L, "_1()", use_helper(L, HELPER_ct_negative_zero));
  return T0(L, PADDING_TEXT[padding]);
}

static Padding read_padding(Lowerer *L, Node *mode) {
  if (!mode)
    return PAD_UNDETERMINED;
  if (!mode->type || mode->type->kind != VAL_ENUM || strncmp(mode->type->member, "PaddingMode.", 12) != 0)
    lower_error(L, mode, "padding_mode must be a ct.PaddingMode member");
  for (int p = 0; p <= PAD_NEG_INF; p++)
    if (strcmp(mode->type->member + 12, PADDING_NAMES[p]) == 0)
      return (Padding)p;
  lower_error(L, mode, "padding mode %s cannot be converted", mode->type->member);
}

/* -0.0, NaN and infinities exist in float arrays only (cuTile leaves them
 * undefined for integers): an error where the dtype is known, else a
 * static assertion that Triton checks when it compiles the kernel. */
void memory_require_float_array(Lowerer *L, Node *at, const TypeInfo *array, const char *what,
                                const char *assertion) {
  char category = dtype_info(array->dtype)->category;
  if (array->dtype != DT_UNKNOWN && category != 'f')
    lower_error(L, at, "%s needs a float array, not %s", what, dtype_info(array->dtype)->cutile);
  if (array->dtype != DT_UNKNOWN || !L->prologue)
    return;
  const ArrayRef *ref = array->array;
  Node *root = ref->is_view && ref->param.len
                   ? new_name(L, arena_printf(&L->ctx->arena, "%.*s", ref->param.len, ref->param.text))
                   : ref->pointer; /* a view's dtype is its parent's, a parameter of the kernel */
  /* an item of a tuple of arrays indexed by a loop's counter (`(x, z)[a_k]`), an array chosen while the
     kernel runs (its pointer a local set in an `if`): checked where it is used, where those are bound;
     a parameter, once at the top of the kernel */
  bool here = (root->kind != N_NAME || (ref->is_view && !ref->param.len)) && L->pending;
  Buf pointer = {0};
  expr_text(L->ctx, root, &pointer);
  const char *message = arena_printf(&L->ctx->arena, assertion, buf_text(&pointer));
  const char *key = arena_printf(&L->ctx->arena, "float-array|%s", message);
  if (here || memory_first_time(L, key)) {
    const char *text = arena_printf(&L->ctx->arena, "tl.static_assert(_1.dtype.element_ty.is_floating(), \"%s\")\n",
                                    message);
    NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(node_copy_tree(&L->ctx->arena, root)));
    node_list_push(&L->ctx->arena, here ? L->pending : L->prologue, made.items[0]);
  }
  buf_free(&pointer);
}

static void require_float_padding(Lowerer *L, Node *at, const TypeInfo *array, Padding padding) {
  if (padding <= PAD_ZERO)
    return;
  const char *mode = PADDING_NAMES[padding];
  memory_require_float_array(L, at, array, arena_printf(&L->ctx->arena, "padding_mode=%s", mode),
                             arena_printf(&L->ctx->arena, "ct.load(%%s, padding_mode=%s): this padding needs a "
                                                          "float array", mode));
}

Node *memory_padding_other(Lowerer *L, Node *mode, Node *at, const TypeInfo *array) {
  Padding padding = read_padding(L, mode);
  require_float_padding(L, at, array, padding);
  return padding_value(L, padding);
}

/* ------------------------------------------------------ implicit casts */

static bool is_restricted(DType dt) {
  return dt == DT_TFLOAT32 || dt == DT_FLOAT8_E4M3FN || dt == DT_FLOAT8_E5M2 || dt == DT_FLOAT4_E2M1FN ||
         dt == DT_FLOAT8_E8M0FNU;
}

/* cuTile's implicit cast (stores, scatters, atomics): allowed when
 * promote(from, to) == to, i.e. only widening. */
static bool widening_cast(DType from, DType to) {
  if (from == to)
    return true;
  if (is_restricted(from) || is_restricted(to))
    return false;
  const DTypeInfo *a = dtype_info(from), *b = dtype_info(to);
  if (a->category == 'b')
    return true;
  if (b->category == 'b')
    return false;
  if (b->category == 'f' && a->category != 'f')
    return true;
  if (a->category == 'f' && b->category != 'f')
    return false;
  if (a->category == 'f') /* float16 <-> bfloat16 is an error in cuTile */
    return b->bits > a->bits;
  return a->category == b->category && b->bits >= a->bits;
}

void memory_check_store_cast(Lowerer *L, Node *at, const TypeInfo *value, const TypeInfo *array, const char *what) {
  /* no array holds tfloat32 (torch has no such dtype), and cuTile casts it to none implicitly */
  if (value && value->kind != VAL_CONST && value->dtype == DT_TFLOAT32)
    lower_error(L, at, "%s: cuTile stores no tfloat32 tile (it casts tfloat32 to no array's dtype implicitly; use "
                ".astype() first)", what);
  if (!value || array->dtype == DT_UNKNOWN || value->dtype == DT_UNKNOWN)
    return;
  if (value->kind == VAL_CONST && value->loose) {
    bool to_int = strchr("iu", dtype_info(array->dtype)->category) != NULL;
    if ((value->is_float && array->dtype != DT_UNKNOWN && dtype_info(array->dtype)->category != 'f') ||
        (to_int && dtype_info(array->dtype)->category == 'u' && value->int_value < 0))
      lower_error(L, at, "%s: the constant does not fit the array's dtype %s", what, dtype_info(array->dtype)->cutile);
    return;
  }
  if (!widening_cast(value->dtype, array->dtype))
    lower_error(L, at, "%s: cuTile casts a %s value to the array's dtype %s only when that widens it; this is "
                "a narrowing cast (use .astype() first)", what, dtype_info(value->dtype)->cutile,
                dtype_info(array->dtype)->cutile);
}

/* ---------------------------------------------------- path choice */

Node *memory_choice(Lowerer *L, Node *condition, Node *by_tma, Node *by_pointers) {
  Node *choice = T(L, "_1 if _2 else _3", by_tma, condition, by_pointers);
  MemoryState *state = memory_state(L);
  if (state->choice_count == state->choice_capacity) {
    int wanted = state->choice_capacity ? state->choice_capacity * 2 : 16;
    const Node **bigger = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)wanted);
    if (state->choice_count)
      memcpy(bigger, state->choices, sizeof(Node *) * (size_t)state->choice_count);
    state->choices = bigger;
    state->choice_capacity = wanted;
  }
  state->choices[state->choice_count++] = choice;
  return choice;
}

static bool is_choice(Lowerer *L, const Node *node) {
  for (int i = 0; L->memory && i < L->memory->choice_count; i++)
    if (L->memory->choices[i] == node)
      return true;
  return false;
}

/* One branch of a choice as a statement: `target = value`, `value` alone,
 * or the if statement of a choice inside it (an order chosen by a constexpr,
 * each order with its TMA and pointer paths). */
static Node *choice_branch_stmt(Lowerer *L, Node *target, Node *value) {
  Node *nested = memory_choice_stmt(L, target, value);
  if (nested)
    return nested;
  return (target ? template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(target, value))
                 : template_stmts(L->ctx, "_1\n", TEMPLATE_NODES(value))).items[0];
}

Node *memory_choice_stmt(Lowerer *L, Node *target, Node *value) {
  if (!value || value->kind != N_IF_EXP || !is_choice(L, value))
    return NULL;
  Node *condition = value->u.if_exp.test, *by_tma = value->u.if_exp.body, *by_pointers = value->u.if_exp.orelse;
  Node *stmt = template_stmts(L->ctx, "if _1:\n    pass\nelse:\n    pass\n", TEMPLATE_NODES(condition)).items[0];
  stmt->u.if_.body.items[0] = choice_branch_stmt(L, target, by_tma);
  stmt->u.if_.orelse.items[0] = choice_branch_stmt(L, target, by_pointers);
  if (reuse_is_flag(L, condition) && stmt->u.if_.orelse.items[0]->kind == N_IF)
    stmt->u.if_.orelse.items[0]->u.if_.is_elif = true; /* `if V_is_K: ... elif V_desc_1_ok: ...` */
  memory_choice(L, condition, by_tma, by_pointers); /* grows the table */
  L->memory->choices[L->memory->choice_count - 1] = stmt; /* the order pass treats it as one statement */
  return stmt;
}

Str memory_temp(Lowerer *L, Str base, const char *what) {
  return new_temp_name(L, arena_printf(&L->ctx->arena, "%.*s_%s", base.len, base.text, what));
}

/* ---------------------------------------------------------------- TMA */

typedef struct TileAccess {
  ArrayRef *array;
  int rank;
  int perm[MAX_TILE_RANK];    /* tile axis d walks array axis perm[d] */
  Node *index[MAX_TILE_RANK]; /* per array axis: tile index */
  Node *size[MAX_TILE_RANK];  /* per array axis: tile size */
  bool allow_tma;
  Node *allow_when; /* allow_tma=FLAG of a constexpr known only when Triton compiles: part of the condition */
  bool check_bounds; /* false only where check_bounds=False: a constexpr flag keeps the TMA path's padding */
} TileAccess;

/* Whether this access may take a descriptor at all. */
static bool tma_possible(Lowerer *L, const TileAccess *access) {
  const ArrayRef *array = access->array;
  if (memory_view_slices_axis(L, array, access->rank - 1))
    return false;
  return access->rank >= 2 && access->rank <= TMA_MAX_RANK && access->allow_tma && array->param.len &&
         !array->tma_unsafe && !array->int64_index && L->prologue &&
         (L->function->role == ROLE_KERNEL || L->device_tma);
}

/* Why an access takes the pointer path only (--stats, lower/stats.c), or
 * NULL when it gets a descriptor; the answer follows tma_possible. */
static const char *tma_refusal(Lowerer *L, const TileAccess *access) {
  const ArrayRef *array = access->array;
  if (tma_possible(L, access))
    return NULL;
  if (!L->prologue || !L->function || (L->function->role != ROLE_KERNEL && !L->device_tma))
    return "in a tile function lowered without a call";
  if (access->rank < 2)
    return "1-D tile";
  if (access->rank > TMA_MAX_RANK)
    return "tile of more than 5 dimensions";
  if (!access->allow_tma)
    return "allow_tma=False";
  if (!array->param.len)
    return "not a kernel parameter";
  if (array->int64_index)
    return "IndexedWithInt64";
  if (array->tma_unsafe || memory_view_slices_axis(L, array, access->rank - 1))
    return "array view sliced on its last axis";
  return "other";
}

/* The expressions of `parts` with repeats (same text) left out. */
static int drop_repeated(Lowerer *L, Node **parts, int count) {
  int kept = 0;
  for (int i = 0; i < count; i++) {
    Buf a = {0};
    expr_text(L->ctx, parts[i], &a);
    bool repeated = false;
    for (int j = 0; j < kept && !repeated; j++) {
      Buf b = {0};
      expr_text(L->ctx, parts[j], &b);
      repeated = strcmp(buf_text(&a), buf_text(&b)) == 0;
      buf_free(&b);
    }
    buf_free(&a);
    if (!repeated)
      parts[kept++] = parts[i];
  }
  return kept;
}

void memory_learn_rank(TypeInfo *array, int rank) {
  if (array->rank >= 0)
    return;
  array->rank = rank;
  ArrayRef *ref = array->array;
  if (ref && ref->param.len && !ref->is_view && !ref->descriptor_slots && !ref->rank_branches && !ref->pinned_rank)
    ref->pinned_rank = rank + 1;
}

/* `_use_tma and x_tma and BN * (x.dtype.element_ty.primitive_bitwidth // 8) >= 16 and ...`:
 * the kernel's choice (an autotune candidate may take pointers), the launcher's flag
 * (alignment), TMA's inner box of at least 16 bytes and the tile's bytes (below). */
static Node *tma_condition(Lowerer *L, const ArrayRef *array, Node **sizes, int rank, Node *allow_when) {
  Node *flag = new_name(L, arena_printf(&L->ctx->arena, "%.*s_tma", array->param.len, array->param.text));
  Node *element = new_name(L, arena_printf(&L->ctx->arena, "%.*s", array->param.len, array->param.text));
  Node *parts[MAX_TILE_RANK + 6] = {new_name(L, "_use_tma"), flag,
                                     T(L, "_1 * (_2.dtype.element_ty.primitive_bitwidth // 8) >= 16", sizes[rank - 1], element)};
  int count = 3;
  if (array->rank_branches > 0 && array->descriptor_slots) /* a list item's rank: the list's constexpr */
    parts[count++] = T(L, "_1 == _2", new_name(L, arena_printf(&L->ctx->arena, "%.*s_rank", array->param.len,
                                                              array->param.text)), new_int(L, rank));
  else if (array->rank_branches > 0) /* its rank was learnt under a constexpr `if`: another launch may give another one */
    parts[count++] = T(L, "len(_1) == _2", array->shape, new_int(L, rank));
  if (array->tma_when)
    parts[count++] = array->tma_when;
  if (allow_when)
    parts[count++] = node_copy_tree(&L->ctx->arena, allow_when);
  /* The tile's bytes, R * W * (element bytes), for two rules. A whole tile of a multiple
   * of 128 bytes: Triton 3.6's pipeliner gives a loop's descriptor loads a ring of tiles
   * in shared memory, and a tile of less (a (1, 16) float32 tile is 64 bytes) leaves the
   * next entry off TMA's 128-byte alignment: "misaligned address" on the H200 at
   * num_stages >= 3 (TileGym's recurrent_gated_delta_rule; fixed after 3.6 by Triton's
   * PR 10898). And at most C2T_TMA_MAX_TILE_BYTES: a descriptor's tile lands in shared
   * memory, and a larger one leaves no room at one stage. A dimension over TMA's box of
   * 256 elements is no reason for pointers: Triton 3.6 copies such a tile in several
   * boxes (a 128 x 512 float16 block: boxes of 128 x 64, compiled for sm_90) */
  long long known = 1;
  Node *unknown[MAX_TILE_RANK];
  int unknown_count = 0;
  for (int a = 0; a < rank; a++) {
    long long size;
    if (known_int(sizes[a], &size))
      known *= size;
    else
      unknown[unknown_count++] = sizes[a];
  }
  bool unaligned = known % 128 != 0;
  bool large = unknown_count > 0 || known * 8 > C2T_TMA_MAX_TILE_BYTES; /* 8: the widest element */
  if (unaligned || large) {
    Node *bytes = known != 1 ? new_int(L, known) : NULL;
    for (int i = 0; i < unknown_count; i++)
      bytes = bytes ? T(L, "_1 * _2", bytes, unknown[i]) : unknown[i];
    Node *element_bytes = T(L, "(_1.dtype.element_ty.primitive_bitwidth // 8)", element);
    bytes = bytes ? T(L, "_1 * _2", bytes, element_bytes) : element_bytes;
    if (unaligned)
      parts[count++] = T(L, "_1 % 128 == 0", bytes);
    if (large)
      parts[count++] = T(L, "_1 <= _2", node_copy_tree(&L->ctx->arena, bytes), new_int(L, C2T_TMA_MAX_TILE_BYTES));
  }
  count = drop_repeated(L, parts, count);
  Buf text = {0};
  for (int i = 0; i < count; i++)
    buf_printf(&text, "%s_%d", i ? " and " : "", i + 1);
  Node *condition = template_expr(L->ctx, text.data, parts, count);
  buf_free(&text);
  return condition;
}

void memory_note_tma_array(Lowerer *L, const ArrayRef *array) {
  L->uses_tma = true;
  for (int i = 0; i < L->tma_array_count; i++)
    if (str_same(L->tma_arrays[i], array->param))
      return;
  if (L->tma_array_count == C2T_MAX_TMA_ARRAYS)
    lower_limit(L, NULL, "arrays loaded through tensor descriptors in one kernel", C2T_MAX_TMA_ARRAYS);
  L->tma_arrays[L->tma_array_count++] = array->param;
}

static Node *list_of(Lowerer *L, Node **items, int count) {
  Node *list = T0(L, "[]");
  for (int i = 0; i < count; i++)
    node_list_push(&L->ctx->arena, &list->u.list.elts, items[i]);
  return list;
}

/* Whether `node` names a local of the function being lowered (bound in its
 * scope, not one of its parameters): `total` of `total = N * N`. */
typedef struct LocalScan {
  Lowerer *L;
  bool found;
} LocalScan;

static void scan_locals(Node *node, void *data) {
  LocalScan *scan = data;
  if (!node || scan->found)
    return;
  if (node->kind == N_NAME && scope_lookup(scan->L, node->u.name.id)) {
    NodeList *params = &scan->L->function->def->u.function_def.args->u.arguments.args;
    bool parameter = false;
    for (int i = 0; i < params->count && !parameter; i++)
      parameter = str_same(params->items[i]->u.arg.arg, node->u.name.id);
    scan->found = !parameter;
  }
  node_children(node, scan_locals, data);
}

/* Whether a block shape reads a local (`shape=(1, total)`): its descriptor
 * cannot be made at the top of the kernel, before the local is set. */
bool memory_sizes_read_locals(Lowerer *L, Node **sizes, int rank) {
  LocalScan scan = {L, false};
  for (int a = 0; a < rank && !scan.found; a++)
    scan_locals(sizes[a], &scan);
  return scan.found;
}

/* ------------------------------------------------ descriptors the launcher makes
 *
 * tl.make_tensor_descriptor has each program write its descriptor to global
 * memory and fence before the first TMA load: about 3 us that a short program
 * pays in full (H200, a decode step of 128 programs: 7.3 us through such
 * descriptors, 4.1 through descriptors made on the host, 3.9 through
 * pointers). A descriptor of a whole kernel parameter whose block shape the
 * launcher knows (constants and constexpr parameters) can instead be made by
 * the launcher (triton.tools.tensor_descriptor.TensorDescriptor) and passed
 * as an argument, as cuTile passes its kernels theirs: Triton puts it in the
 * kernel's parameters. A tile function's descriptor of a whole array parameter
 * may likewise be given by its caller (a parameter; None: it makes its own),
 * which a kernel's call passes on from its launcher. Such descriptors are
 * candidates while a function is lowered; take_host_descriptors (a kernel's)
 * and take_device_descriptors (a tile function's) decide once it is. */

/* Whether `name` is a constexpr parameter of the function being lowered (of a
 * kernel, one its launcher has as a local of that name: not a dtype, not a
 * tuple of constants). */
static bool constexpr_param(Lowerer *L, Str name) {
  Function *fn = L->function;
  bool kernel = fn->role == ROLE_KERNEL;
  int count = kernel ? fn->param_count : fn->signature_count;
  bool found = false;
  for (int i = 0; i < count && !found; i++) {
    if (!str_same(kernel ? fn->param_names[i] : fn->signature_names[i], name))
      continue;
    if (kernel && (fn->param_is_dtype[i] || fn->param_constant_items[i]))
      return false;
    found = true;
  }
  const NodeList *args = &fn->def->u.function_def.args->u.arguments.args;
  for (int k = 0; found && k < args->count; k++) {
    const Node *annotation = args->items[k]->u.arg.annotation;
    if (str_same(args->items[k]->u.arg.arg, name))
      return annotation && annotation->kind == N_ATTRIBUTE && str_eq(annotation->u.attribute.attr, "constexpr");
  }
  return false;
}

/* Block size `size` as the function's launcher or caller computes it, or NULL
 * where it cannot: a constant (written as its value: a module constant is a
 * tl.constexpr there), a constexpr parameter, or + - * // of such. */
static Node *launcher_size(Lowerer *L, Node *size) {
  long long value;
  if (known_int(size, &value))
    return new_int(L, value);
  if (size->kind == N_NAME)
    return constexpr_param(L, size->u.name.id) ? node_copy_tree(&L->ctx->arena, size) : NULL;
  if (size->kind != N_BIN_OP)
    return NULL;
  AstOp op = size->u.bin_op.op;
  if (op != AOP_ADD && op != AOP_SUB && op != AOP_MULT && op != AOP_FLOORDIV)
    return NULL;
  Node *left = launcher_size(L, size->u.bin_op.left), *right = launcher_size(L, size->u.bin_op.right);
  if (!left || !right)
    return NULL;
  Node *made = node_copy_tree(&L->ctx->arena, size);
  made->u.bin_op.left = left;
  made->u.bin_op.right = right;
  return made;
}

static bool names_param(const Node *node, Str param, const char *suffix) {
  size_t length = strlen(suffix);
  return node && node->kind == N_NAME && node->u.name.id.len == param.len + (int)length &&
         memcmp(node->u.name.id.text, param.text, (size_t)param.len) == 0 &&
         memcmp(node->u.name.id.text + param.len, suffix, length) == 0;
}

/* Whether `array` is a whole array parameter (its pointer, shape and strides the
 * parameter's own), whatever its rank (one learnt under a constexpr `if` is
 * checked by the launcher: HostDescriptor.rank_checked). */
static bool whole_param(const ArrayRef *array) {
  return array->param.len && !array->is_view && !array->descriptor_slots &&
         names_param(array->pointer, array->param, "") && names_param(array->shape, array->param, "_shape") &&
         names_param(array->strides, array->param, "_strides");
}

/* Adds a candidate, where the list has room (else the descriptor is made in the function, as before). */
static HostDescriptor *add_candidate(Lowerer *L, const char *name, Str array, Node **block, int rank,
                                     bool nan_padding) {
  if (L->host_descriptor_count == C2T_MAX_DESCRIPTORS)
    return NULL;
  HostDescriptor *host = &L->host_descriptors[L->host_descriptor_count++];
  *host = (HostDescriptor){name, array, {NULL}, rank, nan_padding, false, NULL, NULL, {0}};
  memcpy(host->sizes, block, sizeof(Node *) * (size_t)rank);
  return host;
}

/* A descriptor made at the top of a kernel, or of a tile function lowered for
 * a call (`condition`, then `made`), that the launcher or the caller could
 * make: of a whole array parameter, with a block shape it knows. */
static void host_descriptor_candidate(Lowerer *L, const ArrayRef *array, Node **sizes, int rank, bool nan_padding,
                                      const char *name, Node *condition, Node *made) {
  if ((L->function->role != ROLE_KERNEL && !L->device_tma) || rank > C2T_MAX_DESCRIPTOR_RANK ||
      !whole_param(array))
    return;
  Node *block[C2T_MAX_DESCRIPTOR_RANK];
  for (int a = 0; a < rank; a++)
    if (!(block[a] = launcher_size(L, sizes[a])))
      return;
  HostDescriptor *host = add_candidate(L, name, array->param, block, rank, nan_padding);
  if (host) {
    host->rank_checked = array->rank_branches > 0; /* another launch may give another rank */
    host->condition = condition;
    host->made = made;
  }
}

/* Removes `stmt` from the kernel's top-level statements (the prologue's place). */
static void remove_statement(NodeList *body, const Node *stmt) {
  for (int i = 0; i < body->count; i++)
    if (body->items[i] == stmt) {
      memmove(&body->items[i], &body->items[i + 1], sizeof(Node *) * (size_t)(body->count - i - 1));
      body->count--;
      return;
    }
}

static void add_param(Lowerer *L, Node *def, const char *name) {
  node_list_push(&L->ctx->arena, &def->u.function_def.args->u.arguments.args,
                 new_arg(L, (Str){name, (int)strlen(name)}, NULL));
}

/* The candidates the launcher makes: those of a kernel that multiplies
 * matrices (whose descriptors are taken by default, _use_tma) and was lowered
 * as one version (versions may name different descriptors alike). Each
 * becomes a parameter; a descriptor the kernel made, its condition now also
 * asking that the launcher gave it (None where the array breaks TMA's
 * rules); one it passes to tile functions, their argument. Otherwise those
 * arguments are None. */
void take_host_descriptors(Lowerer *L, Node *def) {
  L->host_descriptors_taken = 0;
  bool take = L->kernel_has_dot && L->version_count == 0;
  for (int i = 0; i < L->host_descriptor_count; i++) {
    HostDescriptor *host = &L->host_descriptors[i];
    for (int k = 0; !take && k < host->passed.count; k++)
      *host->passed.items[k] = *T0(L, "None");
    if (!take || !host->made) {
      if (take)
        add_param(L, def, host->name);
      continue;
    }
    remove_statement(&def->u.function_def.body, host->made);
    Node **value = &host->condition->u.ann_assign.value;
    Node *given = T(L, "_1 is not None", new_name(L, host->name));
    if ((*value)->kind == N_BOOL_OP && (*value)->u.bool_op.op == AOP_AND) { /* first of the `and`s */
      NodeList *parts = &(*value)->u.bool_op.values;
      node_list_push(&L->ctx->arena, parts, NULL);
      memmove(&parts->items[1], &parts->items[0], sizeof(Node *) * (size_t)(parts->count - 1));
      parts->items[0] = given;
    } else {
      *value = T(L, "_1 and _2", given, *value);
    }
    add_param(L, def, host->name);
  }
  L->host_descriptors_taken = take ? L->host_descriptor_count : 0;
}

/* A tile function's candidates (those from `first` on), where it multiplies
 * matrices (`dot`: its descriptors are taken by default, as a kernel's) and
 * was lowered as one version (fn->versions): each becomes a parameter after
 * its flags, and the function makes the descriptor only where its caller
 * gave None. They are kept on the function for its calls
 * (pass_device_descriptors) and leave the list. */
void take_device_descriptors(Lowerer *L, Function *fn, int first, bool dot) {
  int count = L->host_descriptor_count - first;
  L->host_descriptor_count = first;
  fn->host_descriptor_count = 0;
  if (count <= 0 || !dot || fn->version_count > 1)
    return;
  fn->host_descriptors = arena_alloc(&L->ctx->arena, sizeof(HostDescriptor) * (size_t)count);
  for (int i = 0; i < count; i++) {
    HostDescriptor *host = &fn->host_descriptors[i];
    *host = L->host_descriptors[first + i];
    Node **test = &host->made->u.if_.test;
    *test = T(L, "_1 and _2 is None", *test, new_name(L, host->name));
    add_param(L, fn->def, host->name);
  }
  fn->host_descriptor_count = count;
}

/* `size`, a block size of tile function `fn`, in the caller's terms: each
 * parameter of fn it reads becomes the call's argument for it. */
static Node *at_call(Lowerer *L, const Function *fn, Node *size, Node **args, int count) {
  if (size->kind == N_NAME) {
    for (int i = 0; i < count && i < fn->signature_count; i++)
      if (str_same(fn->signature_names[i], size->u.name.id))
        return node_copy_tree(&L->ctx->arena, args[i]);
    return node_copy_tree(&L->ctx->arena, size);
  }
  Node *made = node_copy_tree(&L->ctx->arena, size);
  if (size->kind == N_BIN_OP) {
    made->u.bin_op.left = at_call(L, fn, size->u.bin_op.left, args, count);
    made->u.bin_op.right = at_call(L, fn, size->u.bin_op.right, args, count);
  }
  return made;
}

/* The arguments of a call of tile function `fn` for its descriptor parameters,
 * pushed onto `expanded`: in a kernel, outside loops, for a whole array
 * parameter of the kernel whose flag the call passes and a block shape the
 * launcher knows in the kernel's terms, the kernel's own (a candidate of the
 * kernel, shared by the calls that need the same); else None. */
void pass_device_descriptors(Lowerer *L, const Function *fn, Node **args, TypeInfo **types, int count,
                             NodeList *expanded) {
  for (int h = 0; h < fn->host_descriptor_count; h++) {
    const HostDescriptor *wanted = &fn->host_descriptors[h];
    const ArrayRef *array = NULL;
    for (int i = 0; i < count && i < fn->signature_count && !array; i++)
      if (str_same(fn->signature_names[i], wanted->array) && types[i] && types[i]->kind == VAL_ARRAY)
        array = types[i]->array;
    Node *block[C2T_MAX_DESCRIPTOR_RANK];
    bool known = array && L->function->role == ROLE_KERNEL && L->loop_depth == 0 &&
                 whole_param(array) && !array->tma_unsafe && !array->int64_index && !array->tma_when;
    bool checked = known && (wanted->rank_checked || array->rank_branches > 0);
    for (int a = 0; known && a < wanted->rank; a++)
      known = (block[a] = launcher_size(L, at_call(L, fn, wanted->sizes[a], args, count))) != NULL;
    HostDescriptor *host = NULL;
    for (int k = 0; known && k < L->host_descriptor_count && !host; k++) {
      HostDescriptor *have = &L->host_descriptors[k];
      bool same = !have->made && str_same(have->array, array->param) && have->rank == wanted->rank &&
                  have->nan_padding == wanted->nan_padding && have->rank_checked == checked;
      for (int a = 0; same && a < wanted->rank; a++)
        same = math_same_dim(L, have->sizes[a], block[a]); /* the same text */
      if (same)
        host = have;
    }
    if (known && !host) {
      const char *name = arena_printf(&L->ctx->arena, "%.*s_host_desc_%d", array->param.len, array->param.text,
                                      L->host_descriptor_count + 1);
      host = add_candidate(L, name, array->param, block, wanted->rank, wanted->nan_padding);
      if (host)
        host->rank_checked = checked;
    }
    Node *given = host ? new_name(L, host->name) : T0(L, "None");
    if (host)
      node_list_push(&L->ctx->arena, &host->passed, given);
    node_list_push(&L->ctx->arena, expanded, given);
  }
}

/* The descriptor of `array` with block `sizes` and a padding (zero or
 * NaN), and the name of its constexpr condition. A parameter's is made once
 * at the top of the kernel; a view's (Array.slice), with its condition, just
 * before its use. */
static Node *tma_descriptor(Lowerer *L, const ArrayRef *array, Node **sizes, int rank, bool nan_padding,
                            Node *allow_when, Node **ok) {
  Buf key = {0};
  expr_text(L->ctx, array->pointer, &key);
  for (int a = 0; a < rank; a++) {
    buf_puts(&key, "|");
    expr_text(L->ctx, sizes[a], &key);
  }
  buf_printf(&key, "|%d|", nan_padding);
  if (allow_when)
    expr_text(L->ctx, allow_when, &key);
  if (L->loop_depth > 0)
    L->tma_reused = true;
  for (int i = 0; i < L->descriptor_count; i++)
    if (strcmp(L->descriptor_keys[i], buf_text(&key)) == 0) {
      buf_free(&key);
      *ok = new_name(L, arena_printf(&L->ctx->arena, "%s_ok", L->descriptor_names[i]));
      return new_name(L, L->descriptor_names[i]);
    }
  if (L->descriptor_count == C2T_MAX_DESCRIPTORS)
    lower_limit(L, NULL, "tensor descriptors in one kernel", C2T_MAX_DESCRIPTORS);
  char *name = arena_printf(&L->ctx->arena, "%.*s_desc_%d", array->param.len, array->param.text, L->descriptor_count + 1);
  Node *shape[MAX_TILE_RANK], *strides[MAX_TILE_RANK];
  for (int a = 0; a < rank; a++) {
    shape[a] = T(L, "_1[_2]", array->shape, new_int(L, a));
    strides[a] = a + 1 < rank ? T(L, "_1[_2]", array->strides, new_int(L, a)) : new_int(L, 1);
  }
  char *text = arena_printf(&L->ctx->arena, "%s_ok: tl.constexpr = _1\n", name);
  NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(tma_condition(L, array, sizes, rank, allow_when)));
  Node *condition = made.items[0];
  /* a view's condition may read its shape (`len(x_slice_1_shape) == 2`), a local
   * made where the view is, and a block shape may read a local constexpr: such a
   * descriptor and its condition go next to the use, made at each use */
  bool at_use = (array->is_view || memory_sizes_read_locals(L, sizes, rank)) && !array->descriptor_slots;
  node_list_push(&L->ctx->arena, at_use ? L->pending : L->prologue, made.items[0]);
  text = arena_printf(&L->ctx->arena,
                      "if %s_ok:\n    %s = tl.make_tensor_descriptor(_1, shape=_2, strides=_3, block_shape=_4%s)\n", name,
                      name, nan_padding ? ", padding_option=\"nan\"" : "");
  made = template_stmts(L->ctx, text,
                        TEMPLATE_NODES(array->pointer, list_of(L, shape, rank), list_of(L, strides, rank),
                                       list_of(L, sizes, rank)));
  bool slotted = false; /* a list item's descriptor: right after the item is read, once */
  for (int i = 0; array->descriptor_slots && i < C2T_LIST_ITEM_SLOTS && !slotted; i++)
    if (array->descriptor_slots[i]->kind == N_PASS) {
      *array->descriptor_slots[i] = *made.items[0];
      L->list_descriptors[L->list_descriptor_count++] = array->descriptor_slots[i]; /* < C2T_MAX_DESCRIPTORS */
      slotted = true;
    }
  if (!slotted)
    node_list_push(&L->ctx->arena, at_use ? L->pending : L->prologue, made.items[0]);
  if (!slotted && !at_use)
    host_descriptor_candidate(L, array, sizes, rank, nan_padding, name, condition, made.items[0]);
  if (!at_use) { /* a view's descriptor is made at each use */
    L->descriptor_keys[L->descriptor_count] = arena_strndup(&L->ctx->arena, key.data, key.len);
    L->descriptor_names[L->descriptor_count++] = name;
  } else {
    L->descriptor_keys[L->descriptor_count] = "";
    L->descriptor_names[L->descriptor_count++] = name;
  }
  buf_free(&key);
  memory_note_tma_array(L, array);
  *ok = new_name(L, arena_printf(&L->ctx->arena, "%s_ok", name));
  return new_name(L, name);
}

/* index * size with the trivial cases folded (0 * S, i * 1). */
static Node *scaled(Lowerer *L, Node *index, Node *size) {
  long long i, s;
  bool index_known = known_int(index, &i), size_known = known_int(size, &s);
  if (index_known && size_known)
    return new_int(L, fold_int(L, index, '*', i, s));
  if (index_known && i == 0)
    return new_int(L, 0);
  if (size_known && s == 1)
    return index;
  return T(L, "_1 * _2", index, size);
}

Node *memory_descriptor_offset(Lowerer *L, Node *offset, const TypeInfo *index) {
  if (!index || index->kind != VAL_TILE ||
      (index->dtype != DT_INT64 && index->dtype != DT_UINT64 && index->dtype != DT_UNKNOWN))
    return offset;
  return T(L, "_1(_2)", use_helper(L, HELPER_ct_descriptor_coordinate), offset);
}

static Node *element_offsets(Lowerer *L, const TileAccess *access) {
  Node *offsets[MAX_TILE_RANK];
  for (int a = 0; a < access->rank; a++)
    offsets[a] = memory_descriptor_offset(L, scaled(L, access->index[a], access->size[a]), access->index[a]->type);
  return list_of(L, offsets, access->rank);
}

/* helper(base, shape, strides, i0, i1, ...) */
static Node *pointer_call(Lowerer *L, Node *helper, const ArrayRef *array, Node **indices, int rank) {
  Node *call = T(L, "_1(_2, _3, _4)", helper, array->pointer, array->shape, array->strides);
  for (int a = 0; a < rank; a++)
    node_list_push(&L->ctx->arena, &call->u.call.args, indices[a]);
  return call;
}

static void push_arg(Lowerer *L, Node *call, Node *arg) { node_list_push(&L->ctx->arena, &call->u.call.args, arg); }

/* check_bounds= to a helper call: nothing when always checked, else
 * `check_bounds=False` or `check_bounds=FLAG` (the helpers' constexpr). */
void memory_push_unchecked(Lowerer *L, Node *call, Node *check) {
  if (!check)
    return;
  Node *keyword = T0(L, "f(check_bounds=False)")->u.call.keywords.items[0];
  keyword->u.keyword.value = check;
  node_list_push(&L->ctx->arena, &call->u.call.keywords, keyword);
}

/* ------------------------------------------------------------- ct.load */

static void reject_memory_order(Lowerer *L, Node *order, const char *what) {
  if (order && !(order->type && order->type->kind == VAL_ENUM && strcmp(order->type->member, "MemoryOrder.WEAK") == 0))
    lower_error(L, order, "%s with a memory_order other than WEAK cannot be converted (Triton's loads and stores "
                          "have no memory order)", what);
}

/* A constant the converter does not know: a constexpr parameter or an
 * expression of them, which Triton's code generator evaluates. */
static bool is_launch_constant(const TypeInfo *type) {
  return type && type->kind == VAL_CONST && type->dtype == DT_UNKNOWN && !type->is_float;
}

void memory_check_latency(Lowerer *L, Node *latency, const char *what) {
  long long value;
  if (!latency || (latency->type && latency->type->kind == VAL_NONE))
    return;
  if (is_launch_constant(latency->type))
    return; /* a hint Triton has no form of: dropped, whatever its value at launch */
  if (!known_int(latency, &value) || value < 1 || value > 10)
    lower_error(L, latency, "%s: latency must be a constant from 1 to 10 (or a constexpr parameter)", what);
}

Node *memory_check_bounds(Lowerer *L, Node *flag, const char *what) {
  if (!flag)
    return NULL;
  const TypeInfo *type = flag->type;
  if (type && type->kind == VAL_CONST && type->dtype == DT_BOOL)
    return type->int_value ? NULL : flag;
  if (is_launch_constant(type))
    return flag;
  lower_error(L, flag, "%s: check_bounds must be True, False or a constexpr parameter (or an expression of "
              "them), not %s", what, type_describe(L->ctx, type));
}

/* The array argument, checked. */
static TypeInfo *array_arg(Lowerer *L, Node *call, const BoundArgs *args, const char *what) {
  return memory_require_array(L, call, args, what, "works on")->type;
}

/* shape=(): one element at element index `index`, a 0-d tile. */
static Node *load_element(Lowerer *L, TypeInfo *array, Node *index, Padding padding, Node *check) {
  Node *items[MAX_TILE_RANK];
  int rank = tuple_items(L, index, items, MAX_TILE_RANK);
  if (rank > MAX_TILE_RANK || (array->rank >= 0 && array->rank != rank))
    lower_error(L, index, "ct.load(): the index needs one entry per array dimension");
  memory_learn_rank(array, rank);
  stats_memory(L->conv, "scalar element (shape=())");
  Node *loaded = pointer_call(L, load_element_helper(L, rank), array->array, items, rank);
  push_arg(L, loaded, padding_value(L, padding));
  memory_push_unchecked(L, loaded, check);
  loaded->type = type_tile(L->ctx, array->dtype, 0, NULL);
  loaded->type->dtype_expr = array->dtype_expr;
  memory_note_access(L, loaded, array->array, MEM_READ);
  return loaded;
}

/* Positions in ct.load's signature. */
enum { LOAD_ARRAY, LOAD_INDEX, LOAD_SHAPE, LOAD_ORDER, LOAD_PADDING_MODE, LOAD_CHECK_BOUNDS, LOAD_LATENCY,
       LOAD_ALLOW_TMA, LOAD_MEMORY_ORDER, LOAD_MEMORY_SCOPE };

/* The TMA branch of a load: desc.load, masked with tl.where when the
 * padding is neither zero nor NaN. */
static Node *load_by_tma(Lowerer *L, const TileAccess *access, Padding padding, Node **ok) {
  bool nan = padding == PAD_NAN;
  Node *desc = tma_descriptor(L, access->array, (Node **)access->size, access->rank, nan, access->allow_when, ok);
  Node *by_tma = T(L, "_1.load(_2)", desc, element_offsets(L, access));
  if (access->check_bounds && padding != PAD_UNDETERMINED && padding != PAD_ZERO && !nan) {
    Node *mask = T(L, "_1(_2)", tile_mask_helper(L, access->rank), access->array->shape);
    for (int a = 0; a < access->rank; a++)
      push_arg(L, mask, access->index[a]);
    for (int a = 0; a < access->rank; a++)
      push_arg(L, mask, access->size[a]);
    /* the padding as a scalar of the array's dtype: a Python float would
     * be made a bfloat16 constant, which Triton's interpreter cannot
     * build, and a float32 scalar would widen the tile */
    Node *pointer = arena_alloc(&L->ctx->arena, sizeof(Node));
    *pointer = *access->array->pointer;
    Node *element = T(L, "_1.dtype.element_ty", pointer);
    Node *value = padding == PAD_NEG_ZERO ? T(L, "_1.to(_2)", padding_value(L, padding), element)
                                          : T(L, "tl.full((), _1, tl.float32).to(_2)", padding_value(L, padding), element);
    by_tma = T(L, "tl.where(_1, _2, _3)", mask, by_tma, value);
  }
  return by_tma;
}

/* ct.load(array, index, shape, *, order, padding_mode, check_bounds, latency, allow_tma, ...) */
/* What one ct.load reads, whatever its order. */
typedef struct LoadParts {
  TypeInfo *array;
  Padding padding;
  Node *check;
  Node *allow_tma;
  Node *index_items[MAX_TILE_RANK], *shape_items[MAX_TILE_RANK];
  int rank;
} LoadParts;

/* order="F" if TRANSPOSED else "C": a choice of orders by a condition known
 * when Triton compiles (a constexpr). */
static bool is_chosen_order(const Node *order) {
  return order && order->kind == N_IF_EXP && order->u.if_exp.test->type &&
         order->u.if_exp.test->type->kind == VAL_CONST;
}

static Node *load_tile(Lowerer *L, const LoadParts *parts, Node *order);

Node *lower_load(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.load()";
  BoundArgs args;
  bind_call(L, call, what,
            "array, /, index, shape, *, order, padding_mode, check_bounds, latency, allow_tma, memory_order, "
            "memory_scope",
            &args);
  TypeInfo *array = array_arg(L, call, &args, what);
  Node *index = require_arg(L, call, &args, LOAD_INDEX, what, "index");
  Node *shape = require_arg(L, call, &args, LOAD_SHAPE, what, "shape");
  reject_memory_order(L, args.arg[LOAD_MEMORY_ORDER], what);
  memory_check_latency(L, args.arg[LOAD_LATENCY], what);
  Padding padding = read_padding(L, args.arg[LOAD_PADDING_MODE]);
  require_float_padding(L, call, array, padding);
  Node *check = memory_check_bounds(L, args.arg[LOAD_CHECK_BOUNDS], what);
  if (shape->kind == N_TUPLE && shape->u.list.elts.count == 0)
    return load_element(L, array, index, padding, check);
  LoadParts parts = {array, padding, check, args.arg[LOAD_ALLOW_TMA], {0}, {0}, 0};
  if (shape->kind != N_TUPLE && shape->type && shape->type->kind == VAL_CONST && shape->type->const_tuple) {
    /* shape=TILES, a Constant parameter's tuple: one constexpr item per index entry */
    parts.rank = tuple_items(L, index, parts.index_items, MAX_TILE_RANK);
    for (int d = 0; d < parts.rank; d++) {
      parts.shape_items[d] = T(L, "_1[_2]", d ? node_copy_tree(&L->ctx->arena, shape) : shape, new_int(L, d));
      parts.shape_items[d]->type = type_new(L->ctx, VAL_CONST);
      parts.shape_items[d]->type->dtype = DT_UNKNOWN;
    }
  } else
    parts.rank = shape_items(L, shape, parts.shape_items, MAX_TILE_RANK);
  if (tuple_items(L, index, parts.index_items, MAX_TILE_RANK) != parts.rank ||
      (array->rank >= 0 && array->rank != parts.rank))
    lower_error(L, index, "ct.load(): index and shape must have one entry per array dimension");
  return load_tile(L, &parts, args.arg[LOAD_ORDER]);
}

/* The tile load of `parts` in `order`; `order="F" if TRANSPOSED else "C"` (a
 * condition known when Triton compiles) is one load per order, of which
 * Triton keeps the one the condition picks. */
static Node *load_tile(Lowerer *L, const LoadParts *parts, Node *order) {
  if (is_chosen_order(order)) {
    Node *when = load_tile(L, parts, order->u.if_exp.body);
    LoadParts other = *parts; /* the other load's own index nodes: no node stands twice in the tree */
    for (int d = 0; d < other.rank; d++)
      other.index_items[d] = node_copy_tree(&L->ctx->arena, other.index_items[d]);
    Node *chosen = memory_choice(L, order->u.if_exp.test, when, load_tile(L, &other, order->u.if_exp.orelse));
    chosen->type = when->type;
    return chosen;
  }
  TypeInfo *array = parts->array;
  Padding padding = parts->padding;
  Node *check = parts->check;
  int rank = parts->rank;
  Node *const *index_items = parts->index_items, *const *shape_items = parts->shape_items;
  TileAccess access = {.array = array->array, .rank = rank, .allow_tma = !memory_is_false(parts->allow_tma),
                       .allow_when = allow_at_launch(parts->allow_tma), .check_bounds = !memory_is_false(check)};
  read_order(L, order, rank, access.perm);
  for (int d = 0; d < rank; d++) {
    long long size;
    if (!is_constant_expr(shape_items[d]))
      lower_error(L, shape_items[d], "ct.load(): the tile shape must be constant");
    if (known_int(shape_items[d], &size) && (size <= 0 || (size & (size - 1))))
      lower_error(L, shape_items[d], "ct.load(): tile dimensions must be powers of two, not %lld", size);
    access.index[access.perm[d]] = index_items[d];
    access.size[access.perm[d]] = shape_items[d];
  }
  memory_learn_rank(array, rank);
  Node *loaded = pointer_call(L, load_helper(L, rank), access.array, access.index, rank);
  for (int a = 0; a < rank; a++)
    push_arg(L, loaded, access.size[a]);
  push_arg(L, loaded, padding_value(L, padding));
  memory_push_unchecked(L, loaded, check);
  memory_note_access(L, loaded, access.array, MEM_READ);
  stats_memory(L->conv, tma_refusal(L, &access));
  Node *ok = NULL, *by_tma = tma_possible(L, &access) ? load_by_tma(L, &access, padding, &ok) : NULL;
  if (by_tma)
    memory_note_access(L, by_tma, access.array, MEM_READ);
  if (!is_identity(access.perm, rank)) { /* the tile as stored, then in the order asked */
    loaded = shape_permute(L, loaded, access.perm, rank, access.size);
    by_tma = by_tma ? shape_permute(L, by_tma, access.perm, rank, access.size) : NULL;
  }
  if (by_tma)
    loaded = memory_choice(L, ok, by_tma, loaded);
  if (whole_param(access.array)) {
    /* the tile an earlier load of another array read (lower_memory_reuse.c); where the array's
       rank was learnt in a constexpr `if`, only followed (lower_memory_kmajor.c) */
    ReuseSite site = {.param = access.array->param, .rank = rank, .padding = (int)padding, .check = check,
                      .rank_in_branch = access.array->rank_branches > 0};
    for (int a = 0; a < rank; a++) {
      site.index[a] = access.index[a];
      site.size[a] = access.size[a];
      site.perm[a] = access.perm[a];
    }
    loaded = reuse_load(L, &site, loaded);
  }
  TypeInfo *type = type_tile(L->ctx, array->dtype, rank, NULL);
  type->dtype_expr = array->dtype_expr;
  for (int d = 0; d < rank; d++) {
    long long size;
    type->dims[d] = shape_items[d];
    type->shape[d] = known_int(shape_items[d], &size) ? shape_dim_value(L, shape_items[d], size) : -1;
  }
  loaded->type = type;
  if (by_tma && is_identity(access.perm, rank))
    tf32_twin_for_load(L, access.array, access.index, access.size, rank,
                       padding == PAD_ZERO || padding == PAD_UNDETERMINED, type);
  return loaded;
}

/* ------------------------------------------------------------ ct.store */

enum { STORE_ARRAY, STORE_INDEX, STORE_TILE, STORE_ORDER, STORE_CHECK_BOUNDS, STORE_LATENCY, STORE_ALLOW_TMA,
       STORE_MEMORY_ORDER, STORE_MEMORY_SCOPE };

static Node *none_typed(Lowerer *L, Node *node) {
  node->type = type_new(L->ctx, VAL_NONE);
  return node;
}

/* A scalar (0-d tile or constant): one element at element index `index`. */
static Node *store_element(Lowerer *L, TypeInfo *array, Node *index, Node *value, Node *check) {
  Node *items[MAX_TILE_RANK];
  int rank = tuple_items(L, index, items, MAX_TILE_RANK);
  if (rank > MAX_TILE_RANK || (array->rank >= 0 && array->rank != rank))
    lower_error(L, index, "ct.store(): the index needs one entry per array dimension");
  memory_learn_rank(array, rank);
  stats_memory(L->conv, "scalar element (shape=())");
  Node *stored = pointer_call(L, store_element_helper(L, rank), array->array, items, rank);
  push_arg(L, stored, value);
  memory_push_unchecked(L, stored, check);
  memory_note_access(L, stored, array->array, MEM_WRITE);
  return none_typed(L, stored);
}

/* What one ct.store writes, whatever its order. */
typedef struct StoreParts {
  TypeInfo *array;
  Node *tile, *check, *allow_tma;
  Node *index_items[MAX_TILE_RANK];
  int rank;
} StoreParts;

static Node *store_tile(Lowerer *L, const StoreParts *parts, Node *order);

/* ct.store(array, index, tile, *, order, check_bounds, latency, allow_tma, ...) */
Node *lower_store(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.store()";
  BoundArgs args;
  bind_call(L, call, what, "array, /, index, tile, *, order, check_bounds, latency, allow_tma, memory_order, memory_scope",
            &args);
  TypeInfo *array = array_arg(L, call, &args, what);
  Node *index = require_arg(L, call, &args, STORE_INDEX, what, "index");
  Node *tile = require_arg(L, call, &args, STORE_TILE, what, "tile");
  reject_memory_order(L, args.arg[STORE_MEMORY_ORDER], what);
  memory_check_latency(L, args.arg[STORE_LATENCY], what);
  Node *check = memory_check_bounds(L, args.arg[STORE_CHECK_BOUNDS], what);
  if (!tile->type || (tile->type->kind != VAL_TILE && tile->type->kind != VAL_CONST))
    lower_error(L, args.source[STORE_TILE], "ct.store() stores a tile or a scalar, not %s",
                type_describe(L->ctx, tile->type));
  memory_check_store_cast(L, args.source[STORE_TILE], tile->type, array, what);
  if (tile->type->kind == VAL_CONST || tile->type->rank == 0)
    return store_element(L, array, index, tile, check);
  if (tile->type->rank < 0)
    lower_error(L, args.source[STORE_TILE], "ct.store(): the rank of this tile is not known at conversion time%s%s%s",
                tile->type->opaque ? ": it comes from a tile function of another module (" : "",
                tile->type->opaque ? TYPE_OPAQUE_WHY : "", tile->type->opaque ? ")" : "");
  StoreParts parts = {array, tile, check, args.arg[STORE_ALLOW_TMA], {0}, 0};
  parts.rank = tuple_items(L, index, parts.index_items, MAX_TILE_RANK);
  if (parts.rank != tile->type->rank || parts.rank > MAX_TILE_RANK || (array->rank >= 0 && array->rank != parts.rank))
    lower_error(L, index, "ct.store(): the index has %d entries for a %d-d tile", parts.rank, tile->type->rank);
  return store_tile(L, &parts, args.arg[STORE_ORDER]);
}

/* The tile store of `parts` in `order`; a choice of orders by a constexpr
 * condition is one store per order, as for ct.load. */
static Node *store_tile(Lowerer *L, const StoreParts *parts, Node *order) {
  if (is_chosen_order(order)) {
    Node *when = store_tile(L, parts, order->u.if_exp.body);
    StoreParts other = *parts; /* the other store's own nodes: no node stands twice in the tree */
    other.tile = node_copy_tree(&L->ctx->arena, other.tile);
    for (int d = 0; d < other.rank; d++)
      other.index_items[d] = node_copy_tree(&L->ctx->arena, other.index_items[d]);
    return none_typed(L, memory_choice(L, order->u.if_exp.test, when, store_tile(L, &other, order->u.if_exp.orelse)));
  }
  TypeInfo *array = parts->array;
  Node *tile = parts->tile, *check = parts->check;
  int rank = parts->rank;
  Node *const *index_items = parts->index_items;
  TileAccess access = {.array = array->array, .rank = rank, .allow_tma = !memory_is_false(parts->allow_tma),
                       .allow_when = allow_at_launch(parts->allow_tma), .check_bounds = !memory_is_false(check)};
  read_order(L, order, rank, access.perm);
  bool sizes_known = true;
  for (int d = 0; d < rank; d++) {
    access.index[access.perm[d]] = index_items[d];
    access.size[access.perm[d]] = tile->type->dims[d];
    sizes_known &= tile->type->dims[d] != NULL;
  }
  memory_learn_rank(array, rank);
  Node *value = tile;
  if (!is_identity(access.perm, rank)) {
    int inverse[MAX_TILE_RANK];
    for (int d = 0; d < rank; d++)
      inverse[access.perm[d]] = d;
    value = shape_permute(L, value, inverse, rank, tile->type->dims);
  }
  Node *stored = pointer_call(L, store_helper(L, rank), access.array, access.index, rank);
  push_arg(L, stored, value);
  memory_push_unchecked(L, stored, check);
  memory_note_access(L, stored, access.array, MEM_WRITE);
  stats_memory(L->conv, sizes_known ? tma_refusal(L, &access) : "tile dims unknown");
  if (sizes_known && tma_possible(L, &access)) {
    if (L->kernel_has_dot && L->function->role == ROLE_KERNEL) { /* an autotune candidate's choice */
      Node *choice = new_name(L, "_store_tma");
      access.allow_when = access.allow_when ? T(L, "_1 and _2", access.allow_when, choice) : choice;
      L->kernel_store_choice = true;
    }
    Node *ok;
    Node *desc = tma_descriptor(L, access.array, access.size, rank, false, access.allow_when, &ok);
    Node *by_tma = T(L, "_1.store(_2, _3)", desc, element_offsets(L, &access), value);
    memory_note_access(L, by_tma, access.array, MEM_WRITE);
    stored = memory_choice(L, ok, by_tma, stored);
  }
  return none_typed(L, stored);
}

/* ---------------------------------------------------------- ct.num_tiles */

/* ct.num_tiles(array, axis, shape, order="C"): tiles along tile axis
 * `axis`, which walks array axis order[axis]: cdiv(extent, shape[axis]);
 * an order chosen by a constexpr condition, the count under each order. */
static Node *tiles_along(Lowerer *L, TypeInfo *array, int rank, int axis, Node *size, Node *order) {
  Node *result;
  if (is_chosen_order(order)) {
    Node *when = tiles_along(L, array, rank, axis, size, order->u.if_exp.body);
    result = T(L, "_1 if _2 else _3", when, order->u.if_exp.test,
               tiles_along(L, array, rank, axis, node_copy_tree(&L->ctx->arena, size), order->u.if_exp.orelse));
  } else {
    int perm[MAX_TILE_RANK];
    read_order(L, order, rank, perm);
    long long one;
    result = known_int(size, &one) && one == 1 ? T(L, "_1[_2]", array->array->shape, new_int(L, perm[axis]))
                                                : T(L, "tl.cdiv(_1[_2], _3)", array->array->shape, new_int(L, perm[axis]), size);
  }
  result->type = type_tile(L->ctx, DT_INT32, 0, NULL);
  return result;
}

/* The slot of argument `index` (positional) or keyword `name` of a call as written, or NULL. */
static Node **written_arg(Node *call, int index, const char *name) {
  if (call->u.call.args.count > index)
    return &call->u.call.args.items[index];
  for (int k = 0; k < call->u.call.keywords.count; k++)
    if (str_eq(call->u.call.keywords.items[k]->u.keyword.arg, name))
      return &call->u.call.keywords.items[k]->u.keyword.value;
  return NULL;
}

/* ct.num_tiles(B, 0 if TRANS else 1, (TN, TK) if TRANS else (TK, TN)) with TRANS a constant
 * (a public MoE grouped GEMM): the count along each outcome's axis, chosen by the condition
 * as Triton compiles, `(num_0 if TRANS else num_1)`; a shape chosen by the same condition
 * follows it. NULL when the axis is no such conditional. */
static Node *num_tiles_by_condition(Lowerer *L, Node *call) {
  Node **axis = written_arg(call, 1, "axis");
  if (!axis || (*axis)->kind != N_IF_EXP)
    return NULL;
  Node *test_source = (*axis)->u.if_exp.test;
  Node *test = lower_condition(L, node_copy_tree(&L->ctx->arena, test_source));
  if (!test->type || test->type->kind != VAL_CONST)
    return NULL; /* a run-time choice of axis: refused below */
  Node *made[2];
  for (int side = 0; side < 2; side++) {
    Node *copy = node_copy_tree(&L->ctx->arena, call);
    Node **slot = written_arg(copy, 1, "axis");
    *slot = side ? (*slot)->u.if_exp.orelse : (*slot)->u.if_exp.body;
    Node **shape = written_arg(copy, 2, "shape");
    if (shape && (*shape)->kind == N_IF_EXP && memory_same_text(L, (*shape)->u.if_exp.test, test_source))
      *shape = side ? (*shape)->u.if_exp.orelse : (*shape)->u.if_exp.body;
    made[side] = lower_num_tiles(L, copy, "num_tiles");
  }
  long long value;
  if (shape_known_int(test, &value))
    return made[value ? 0 : 1];
  Node *chosen = T(L, "(_1 if _2 else _3)", made[0], test, made[1]);
  chosen->type = made[0]->type;
  return chosen;
}

Node *lower_num_tiles(Lowerer *L, Node *call, const char *member) {
  const char *what = "ct.num_tiles()";
  Node *chosen = num_tiles_by_condition(L, call);
  if (chosen)
    return chosen;
  BoundArgs args;
  bind_call(L, call, what, "array, /, axis, shape, order", &args);
  TypeInfo *array = array_arg(L, call, &args, what);
  Node *axis_arg = require_arg(L, call, &args, 1, what, "axis");
  Node *shape = require_arg(L, call, &args, 2, what, "shape");
  long long axis;
  if (!known_int(axis_arg, &axis))
    lower_error(L, axis_arg, "%s: axis must be a constant", what);
  const TypeInfo *held = shape->type;
  if (held && held->kind == VAL_CONST && held->const_tuple && held->dtype == DT_UNKNOWN) {
    /* shape=TS, a ct.Constant tuple: its item along the axis, TS[axis], known when Triton compiles */
    int array_rank = array->rank;
    if (axis < 0 && array_rank < 0)
      lower_error(L, axis_arg, "%s: a negative axis with a ct.Constant tuple shape needs the array's rank, not "
                  "known here (load from the array first)", what);
    if (axis < 0)
      axis += array_rank;
    if (axis < 0 || axis >= MAX_TILE_RANK || (array_rank >= 0 && axis >= array_rank))
      lower_error(L, axis_arg, "%s: axis %lld is out of range for the array", what, axis);
    Node *size = T(L, "_1[_2]", shape, new_int(L, axis));
    size->type = type_launch_tuple_item(L->ctx);
    return tiles_along(L, array, array_rank >= 0 ? array_rank : (int)axis + 1, (int)axis, size, args.arg[3]);
  }
  Node *items[MAX_TILE_RANK];
  int rank = tuple_items(L, shape, items, MAX_TILE_RANK);
  if (rank == 0) { /* shape=(): a tile of one element along each of the array's axes (cuTile's 0-d shape) */
    int array_rank = array->rank;
    if (array_rank < 0 && (axis < 0 || args.arg[3]))
      lower_error(L, axis_arg, "%s: a 0-d tile shape with %s needs the array's rank, not known here (load from "
                  "the array first)", what, axis < 0 ? "a negative axis" : "an order");
    if (array_rank < 0)
      array_rank = (int)axis + 1; /* only its axis is read: Triton checks the rank when it compiles */
    if (axis < 0)
      axis += array_rank;
    if (array_rank > MAX_TILE_RANK)
      lower_limit(L, call, "dimensions of a tile", MAX_TILE_RANK);
    if (axis < 0 || axis >= array_rank)
      lower_error(L, axis_arg, "%s: axis %lld is out of range for a %d-d array", what, axis, array_rank);
    return tiles_along(L, array, array_rank, (int)axis, new_int(L, 1), args.arg[3]);
  }
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    lower_error(L, axis_arg, "%s: axis %lld is out of range for a %d-d tile", what, axis, rank);
  if (!is_constant_expr(items[axis]))
    lower_error(L, items[axis], "%s: the tile shape must be constant", what);
  return tiles_along(L, array, rank, (int)axis, items[axis], args.arg[3]);
}

/* --------------------------------------------------------- Array.slice */

/* x.slice(axis, start, stop): a view whose base moves by start * stride
 * and whose extent on `axis` is stop - start (later loads pad relative to
 * it). Its pieces become locals:
 *     x_slice_1 = x + tl.cast(start, tl.int64) * x_strides[axis]
 *     x_slice_1_shape = x_shape[:axis] + (stop - start,) + x_shape[axis + 1:]
 * A slice on another axis than the last keeps the parent's TMA flag: the
 * base moves by whole rows of an aligned stride. */
Node *lower_slice(Lowerer *L, Node *call, const char *member) {
  const char *what = "Array.slice()";
  BoundArgs args;
  bind_call(L, call, what, "array, axis, start, stop", &args);
  TypeInfo *array = array_arg(L, call, &args, what);
  Node *axis_arg = require_arg(L, call, &args, 1, what, "axis");
  Node *start = require_arg(L, call, &args, 2, what, "start");
  Node *stop = require_arg(L, call, &args, 3, what, "stop");
  long long axis;
  if (!known_int(axis_arg, &axis))
    lower_error(L, axis_arg, "%s: axis must be a constant", what);
  if (array->rank >= 0 && axis < 0)
    axis += array->rank;
  if (array->rank >= 0 && (axis < 0 || axis >= array->rank))
    lower_error(L, axis_arg, "%s: axis is out of range for a %d-d array", what, array->rank);
  if (axis < -1)
    lower_error(L, axis_arg, "%s: a negative axis other than -1 needs the array's rank, not known here", what);
  if (axis >= C2T_MAX_RANK) /* rank unknown here, but no array has more dimensions */
    lower_error(L, axis_arg, "%s: axis %lld is out of range (arrays have at most %d dimensions)", what, axis,
                C2T_MAX_RANK);
  long long first, last;
  if (known_int(start, &first) && known_int(stop, &last) && (first < 0 || last < first))
    lower_error(L, call, "%s: needs 0 <= start <= stop", what);
  ArrayRef *parent = array->array;
  Str base = memory_temp(L, parent->param.len ? parent->param : (Str){"array", 5}, "slice");
  char *pointer = arena_strndup(&L->ctx->arena, base.text, (size_t)base.len);
  char *shape = arena_printf(&L->ctx->arena, "%s_shape", pointer);
  Node *stride = axis >= 0 ? T(L, "_1[_2]", parent->strides, new_int(L, axis)) : T(L, "_1[-1]", parent->strides);
  Node *extent = T(L, "_1 - _2", stop, start);
  Node *new_shape = axis == -1  ? T(L, "_1[:-1] + (_2,)", parent->shape, extent)
                   : axis == 0 ? T(L, "(_1,) + _2[1:]", extent, parent->shape)
                               : T(L, "_1[:_2] + (_3,) + _1[_4:]", parent->shape, new_int(L, axis), extent,
                                   new_int(L, axis + 1));
  const char *text = arena_printf(&L->ctx->arena, "%s = _1 + tl.cast(_2, tl.int64) * _3\n%s = _4\n", pointer, shape);
  NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(parent->pointer, start, stride, new_shape));
  for (int i = 0; i < made.count; i++)
    node_list_push(&L->ctx->arena, L->pending, made.items[i]);
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  *type = *array;
  ArrayRef *view = arena_alloc(&L->ctx->arena, sizeof(ArrayRef));
  *view = *parent;
  view->pointer = new_name(L, pointer);
  view->shape = new_name(L, shape);
  view->is_view = true;
  view->descriptor_slots = NULL; /* the parent's slots come before this view's pieces */
  view->tma_unsafe = parent->tma_unsafe || axis == -1 || (array->rank >= 0 && axis == array->rank - 1);
  if (array->rank < 0) /* the rank comes with the first load: a slice on the last axis then takes no TMA */
    memory_note_view_axis(L, view, (int)axis);
  type->array = view;
  Node *result = new_name(L, pointer);
  result->type = type;
  return result;
}

/* Whether two expressions are written the same. */
bool memory_same_text(Lowerer *L, const Node *a, const Node *b) {
  Buf x = {0}, y = {0};
  expr_text(L->ctx, a, &x);
  expr_text(L->ctx, b, &y);
  bool same = strcmp(buf_text(&x), buf_text(&y)) == 0;
  buf_free(&x);
  buf_free(&y);
  return same;
}

/* A constexpr expression true where `view` suits TMA: False for a slice of its
 * last axis, `len(x_slice_1_shape) != 2` for a slice of axis 1 of an array whose
 * rank is not known yet (the rank comes with its loads), True otherwise. */
static Node *view_tma_ok(Lowerer *L, const ArrayRef *view) {
  if (view->tma_unsafe)
    return new_name(L, "False");
  Node *ok = view->tma_when;
  MemoryState *state = memory_state(L);
  for (int i = 0; i < state->view_count; i++) {
    const ArrayRef *noted = state->views[i];
    if (noted->pointer != view->pointer && !str_same(noted->pointer->u.name.id, view->pointer->u.name.id))
      continue;
    Node *test = T(L, "len(_1) != _2", view->shape, new_int(L, state->view_axes[i] + 1));
    ok = ok ? T(L, "_1 and _2", ok, test) : test;
  }
  return ok ? ok : new_name(L, "True");
}

static bool is_constant_true(const Node *expr) {
  return expr->kind == N_NAME && expr->u.name.id.len == 4 && memcmp(expr->u.name.id.text, "True", 4) == 0;
}

/* The array a name holds after an `if` whose branches bind it to two
 * arrays (`if T: Ai = a.slice(1, s, e)` / `else: Ai = a.slice(0, s, e)`).
 * An array has no run-time value of its own here (its pieces are locals), so
 * without this the name would keep the else branch's pieces in both. Views of
 * one parameter (or the parameter itself) with the same strides get fresh
 * pieces that each branch sets at its end:
 *     a_slice_3 = a_slice_1          (body)    a_slice_3 = a_slice_2         (else)
 *     a_slice_3_shape = a_slice_1_shape        a_slice_3_shape = a_slice_2_shape
 * When only one of them suits TMA and the condition is a constexpr, each branch
 * also says so in a constexpr (`a_slice_3_tma_ok: tl.constexpr = False`) that the
 * view's descriptor condition reads; under a run-time condition neither takes TMA.
 * Two different arrays (their dtypes and TMA flags differ) are a located error. */
static bool same_tiled_view(Lowerer *L, const TiledViewInfo *va, const TiledViewInfo *vb) {
  return va == vb || (va && vb && va->shape && vb->shape && memory_same_text(L, va->shape, vb->shape) &&
                      (va->padding == vb->padding ||
                       (va->padding && vb->padding && memory_same_text(L, va->padding, vb->padding))) &&
                      (va->steps == vb->steps || (va->steps && vb->steps && memory_same_text(L, va->steps, vb->steps))));
}

/* Whether two array values are the same array: its pieces (pointer and shape
 * locals) written the same, and the same tiled view of it, if any. */
bool memory_same_array(Lowerer *L, const TypeInfo *x, const TypeInfo *y) {
  if (x == y)
    return true;
  if (!x->array || !y->array || x->raw_memory != y->raw_memory || !same_tiled_view(L, x->tiled, y->tiled))
    return false;
  const ArrayRef *a = x->array, *b = y->array;
  return a == b || (memory_same_text(L, a->pointer, b->pointer) && memory_same_text(L, a->shape, b->shape));
}

/* Two different arrays chosen by a value known only when the kernel runs (`if flag: src = x` /
 * `else: src = z`, `src = x if flag else z`): cuTile takes either, an array being a run-time value
 * there. Each branch sets the pieces of a fresh view, pointer, shape and strides:
 *     src_1, src_1_shape, src_1_strides = x, x_shape, x_strides        (body)
 *     src_1, src_1_shape, src_1_strides = z, z_shape, z_strides        (else)
 * read through pointers (neither array's TMA flag holds for the other). Triton joins the pieces
 * where their types agree: the same dtype, as cuTile requires, and ranks (its compile fails
 * otherwise, as cuTile's does). */
TypeInfo *memory_chosen_array(Lowerer *L, Str name, const TypeInfo *body, const TypeInfo *orelse, NodeList *body_out,
                              NodeList *else_out) {
  const ArrayRef *a = body->array, *b = orelse->array;
  Str base = new_temp_name(L, arena_printf(&L->ctx->arena, "%.*s", name.len, name.text));
  char *pointer = arena_strndup(&L->ctx->arena, base.text, (size_t)base.len);
  const char *text = arena_printf(&L->ctx->arena, "%s, %s_shape, %s_strides = _1, _2, _3\n", pointer, pointer, pointer);
  for (int side = 0; side < 2; side++) {
    const ArrayRef *from = side ? b : a;
    NodeList *out = side ? else_out : body_out;
    if (out->count == 1 && out->items[0]->kind == N_PASS) /* what stood for the branch's dropped binding */
      out->count = 0;
    if (!side && (body->dtype == DT_UNKNOWN || body->dtype != orelse->dtype)) {
      /* cuTile refuses arrays of two dtypes ("depends on path taken"); compiled Triton refuses the
         join, its interpreter would read each as it is */
      const char *check = arena_printf(&L->ctx->arena, "tl.static_assert(_1.dtype == _2.dtype, \"'%.*s' is an array "
                                       "of another dtype in each branch (cuTile refuses it)\")\n", name.len, name.text);
      node_list_push(&L->ctx->arena, out,
                     template_stmts(L->ctx, check, TEMPLATE_NODES(a->pointer, b->pointer)).items[0]);
    }
    NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(from->pointer, from->shape, from->strides));
    node_list_push(&L->ctx->arena, out, made.items[0]);
  }
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  *type = *orelse;
  if (body->rank != orelse->rank)
    type->rank = -1;
  ArrayRef *view = arena_alloc(&L->ctx->arena, sizeof(ArrayRef));
  view->pointer = new_name(L, pointer);
  view->shape = new_name(L, arena_printf(&L->ctx->arena, "%s_shape", pointer));
  view->strides = new_name(L, arena_printf(&L->ctx->arena, "%s_strides", pointer));
  view->int64_index = a->int64_index;
  view->is_view = true;
  view->tma_unsafe = true;
  type->array = view;
  if (body->dtype != orelse->dtype || orelse->dtype == DT_UNKNOWN) {
    type->dtype = body->dtype == orelse->dtype ? body->dtype : DT_UNKNOWN;
    type->dtype_expr = T(L, "_1.dtype.element_ty", new_name(L, pointer));
  }
  return type;
}

TypeInfo *memory_merge_arrays(Lowerer *L, Node *at, Str name, TypeInfo *body, TypeInfo *orelse, bool constexpr_if,
                              NodeList *body_out, NodeList *else_out) {
  ArrayRef *a = body->array, *b = orelse->array;
  bool same_view = same_tiled_view(L, body->tiled, orelse->tiled);
  if (body->raw_memory != orelse->raw_memory)
    lower_error(L, at, "'%.*s' is the raw memory of an array (x.get_raw_memory()) in one branch and an array in the "
                "other: use it in each branch", name.len, name.text);
  if (!same_view) /* the view's shape, padding and steps are read where it is used: one per name */
    lower_error(L, at, "'%.*s' is a tiled view in one branch and another view or an array in the other: use it in "
                "each branch", name.len, name.text);
  if (memory_same_array(L, body, orelse))
    return orelse;
  bool mergeable = a->param.len && str_same(a->param, b->param) && !a->descriptor_slots && !b->descriptor_slots &&
                   a->int64_index == b->int64_index && memory_same_text(L, a->strides, b->strides);
  if (!mergeable && !constexpr_if && !body->tiled && !a->descriptor_slots && !b->descriptor_slots &&
      a->int64_index == b->int64_index)
    return memory_chosen_array(L, name, body, orelse, body_out, else_out);
  if (!mergeable)
    lower_error(L, at, "`%.*s` is a different array in each branch of this `if`: an array is not a run-time value "
                "in the converted kernel; bind it in one place (or load in each branch)", name.len, name.text);
  Str base = memory_temp(L, a->param, "slice");
  char *pointer = arena_strndup(&L->ctx->arena, base.text, (size_t)base.len);
  char *shape = arena_printf(&L->ctx->arena, "%s_shape", pointer);
  Node *tma_ok[2];
  bool choose_tma = false;
  for (int side = 0; side < 2; side++) {
    tma_ok[side] = view_tma_ok(L, side ? b : a);
    choose_tma |= !is_constant_true(tma_ok[side]);
  }
  choose_tma &= constexpr_if;
  for (int side = 0; side < 2; side++) {
    const ArrayRef *from = side ? b : a;
    const char *text = choose_tma ? arena_printf(&L->ctx->arena, "%s = _1\n%s = _2\n%s_tma_ok: tl.constexpr = _3\n",
                                                 pointer, shape, pointer)
                                  : arena_printf(&L->ctx->arena, "%s = _1\n%s = _2\n", pointer, shape);
    NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(from->pointer, from->shape, tma_ok[side]));
    for (int i = 0; i < made.count; i++)
      node_list_push(&L->ctx->arena, side ? else_out : body_out, made.items[i]);
  }
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  *type = *orelse;
  if (body->rank != orelse->rank)
    type->rank = -1;
  ArrayRef *view = arena_alloc(&L->ctx->arena, sizeof(ArrayRef));
  *view = *b;
  view->pointer = new_name(L, pointer);
  view->shape = new_name(L, shape);
  view->is_view = true;
  view->tma_unsafe = !choose_tma && (a->tma_unsafe || b->tma_unsafe);
  view->tma_when = choose_tma ? new_name(L, arena_printf(&L->ctx->arena, "%s_tma_ok", pointer))
                   : a->tma_when ? a->tma_when : b->tma_when;
  MemoryState *state = memory_state(L);
  int noted = choose_tma ? 0 : state->view_count; /* the axes either view slices, when the rank is not known yet */
  for (int i = 0; i < noted; i++)
    if (memory_view_slices_axis(L, a, state->view_axes[i]) || memory_view_slices_axis(L, b, state->view_axes[i]))
      if (!memory_view_slices_axis(L, view, state->view_axes[i]))
        memory_note_view_axis(L, view, state->view_axes[i]);
  type->array = view;
  return type;
}

/* ------------------------------------------------ lists of arrays */

/* The note that marks a list item's descriptor slot (compared by address). */
static const char LIST_ITEM_SLOT[] = "list item descriptor slot";

/* As[g], As a list-of-arrays parameter of the kernel (cuTile's ListTy,
 * GetArrayListItem): an array whose pieces are locals read from the list's
 * device table,
 *     As_item_1, As_item_1_shape, As_item_1_strides = ct_list_item(As, As_table, g, As_rank)
 * g is a run-time integer (cuTile does not check it against len(As)). It is a
 * view (its descriptor, when every array of the list suits TMA, is made at
 * each use) whose TMA flag and dtype are the list's: As is its first array. */
Node *lower_list_item(Lowerer *L, Node *expr, TypeInfo *list, Node *index) {
  const TypeInfo *it = index->type;
  bool integer = it && (it->kind == VAL_TILE || it->kind == VAL_CONST) && it->rank == 0 && !it->is_float &&
                 (it->dtype == DT_UNKNOWN || strchr("iub", dtype_info(it->dtype)->category));
  if (!integer)
    lower_error(L, expr->u.subscript.slice, "a list of arrays is indexed by an integer scalar, not %s",
                type_describe(L->ctx, it));
  long long constant;
  if (known_int(index, &constant) && constant < 0)
    lower_error(L, expr->u.subscript.slice, "a list of arrays takes no negative index (cuTile does not count from the end)");
  if (!L->pending)
    lower_error(L, expr, "a list of arrays cannot be indexed here");
  Str param = list->array->param;
  Str base = memory_temp(L, param, "item");
  char *pointer = arena_strndup(&L->ctx->arena, base.text, (size_t)base.len);
  bool int64_index = list->array->int64_index;
  const char *text = arena_printf(&L->ctx->arena, "%s, %s_shape, %s_strides = _1(%.*s, %.*s_table, _2, %.*s_rank%s)\n",
                                  pointer, pointer, pointer, param.len, param.text, param.len, param.text, param.len,
                                  param.text, int64_index ? ", INT64=True" : "");
  NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(use_helper(L, HELPER_ct_list_item), index));
  for (int i = 0; i < made.count; i++)
    node_list_push(&L->ctx->arena, L->pending, made.items[i]);
  Node **slots = arena_alloc(&L->ctx->arena, sizeof(Node *) * C2T_LIST_ITEM_SLOTS);
  for (int i = 0; i < C2T_LIST_ITEM_SLOTS; i++) {
    slots[i] = template_stmts(L->ctx, "pass\n", NULL, 0).items[0];
    slots[i]->note = LIST_ITEM_SLOT;
    node_list_push(&L->ctx->arena, L->pending, slots[i]);
  }
  TypeInfo *type = array_param_type(L, param, int64_index);
  ArrayRef *view = type->array;
  view->pointer = new_name(L, pointer);
  view->shape = new_name(L, arena_printf(&L->ctx->arena, "%s_shape", pointer));
  view->strides = new_name(L, arena_printf(&L->ctx->arena, "%s_strides", pointer));
  view->is_view = true;
  view->descriptor_slots = slots;
  Node *result = new_name(L, pointer);
  result->type = type;
  return result;
}

/* The slots lower_list_item left that no descriptor took, taken out. */
void drop_list_item_slots(Lowerer *L, NodeList *body) {
  drop_placeholders(body, LIST_ITEM_SLOT);
  defer_list_descriptors(L, body);
  L->list_descriptor_count = 0;
}

/* -------------------------------- list item descriptors, made where used */

typedef struct NameUse {
  Str name;
  bool found;
} NameUse;

static void find_name_use(Node *node, void *data) {
  NameUse *use = data;
  if (!node || use->found)
    return;
  if (node->kind == N_NAME && str_same(node->u.name.id, use->name)) {
    use->found = true;
    return;
  }
  node_children(node, find_name_use, data);
}

static bool reads_name(Node *stmt, Str name) {
  NameUse use = {name, false};
  find_name_use(stmt, &use);
  return use.found;
}

/* Whether evaluating `expr` once more changes nothing: names, constants,
 * operators and calls of the converter's arithmetic helpers and of tl
 * functions that neither touch memory nor print. */
static void find_effect(Node *node, void *data) {
  bool *effect = data;
  if (!node || *effect)
    return;
  if (node->kind == N_CALL) {
    Node *callee = node->u.call.func;
    Str name = callee->kind == N_NAME ? callee->u.name.id
               : callee->kind == N_ATTRIBUTE && callee->u.attribute.value->kind == N_NAME &&
                       str_eq(callee->u.attribute.value->u.name.id, "tl")
                   ? callee->u.attribute.attr
                   : (Str){NULL, 0};
    static const char *const effects[] = {"atomic", "load", "store", "print", "assert", "gather", "scatter"};
    bool known = name.len > 0;
    for (size_t i = 0; known && i < sizeof effects / sizeof effects[0]; i++)
      for (int at = 0; at + (int)strlen(effects[i]) <= name.len; at++)
        if (!strncmp(name.text + at, effects[i], strlen(effects[i])))
          known = false;
    if (!known) {
      *effect = true;
      return;
    }
  }
  node_children(node, find_effect, data);
}

static bool pure_expression(Node *expr) {
  bool effect = false;
  find_effect(expr, &effect);
  return !effect;
}

static bool is_list_descriptor(const Lowerer *L, const Node *stmt) {
  for (int i = 0; i < L->list_descriptor_count; i++)
    if (L->list_descriptors[i] == stmt)
      return true;
  return false;
}

/* An `if TEST:` made below: list item descriptors, then the while loop. */
static bool is_descriptor_guard(const Lowerer *L, const Node *stmt) {
  if (stmt->kind != N_IF || stmt->u.if_.orelse.count || stmt->u.if_.body.count < 2)
    return false;
  const NodeList *body = &stmt->u.if_.body;
  for (int i = 0; i + 1 < body->count; i++)
    if (!is_list_descriptor(L, body->items[i]))
      return false;
  return body->items[body->count - 1]->kind == N_WHILE;
}

/* The name a list item's descriptor statement `if X_ok: X = ...` makes. */
static Str list_descriptor_name(const Node *stmt) {
  const Node *assign = stmt->u.if_.body.items[0];
  return assign->u.assign.targets.items[0]->u.name.id;
}

/* A list item's descriptors are made right after the item is read (As[g] at
 * the top of a loop over the problems). Where the only statement after them
 * that reads them is a while loop with a test that can be evaluated once more
 * (a persistent block's walk over the tiles of problem g), they move into
 * `if TEST:` around that loop: a block that has no tile of a problem makes
 * none of its descriptors (each costs a global write and a fence; measured on
 * the H200: a grouped GEMM of 64 problems on 132 blocks, where most blocks
 * made 192 descriptors for 15 tiles, 0.59x cuTile's speed). */
void defer_list_descriptors(Lowerer *L, NodeList *body) {
  if (!L->list_descriptor_count)
    return;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind == N_FOR) {
      defer_list_descriptors(L, &stmt->u.for_.body);
      defer_list_descriptors(L, &stmt->u.for_.orelse);
    } else if (stmt->kind == N_WHILE) {
      defer_list_descriptors(L, &stmt->u.while_.body);
      defer_list_descriptors(L, &stmt->u.while_.orelse);
    } else if (stmt->kind == N_IF) {
      defer_list_descriptors(L, &stmt->u.if_.body);
      defer_list_descriptors(L, &stmt->u.if_.orelse);
    } else if (stmt->kind == N_WITH) {
      defer_list_descriptors(L, &stmt->u.with.body);
    }
  }
  for (int i = 0; i < body->count; i++) {
    if (!is_list_descriptor(L, body->items[i]))
      continue;
    Str name = list_descriptor_name(body->items[i]);
    int reader = -1, readers = 0;
    for (int j = i + 1; j < body->count; j++)
      if (reads_name(body->items[j], name)) {
        reader = j;
        readers++;
      }
    Node *loop = readers == 1 ? body->items[reader] : NULL;
    if (loop && is_descriptor_guard(L, loop)) { /* another descriptor of the same loop moved there already */
      NodeList *guarded = &loop->u.if_.body; /* in their order, before the loop */
      node_list_push(&L->ctx->arena, guarded, guarded->items[guarded->count - 1]);
      guarded->items[guarded->count - 2] = body->items[i];
    } else if (loop && loop->kind == N_WHILE && !loop->u.while_.orelse.count && pure_expression(loop->u.while_.test)) {
      /* the test again, as a node of its own (its text parsed anew) */
      Buf text = {0};
      buf_printf(&text, "if ");
      expr_text(L->ctx, loop->u.while_.test, &text);
      buf_printf(&text, ":\n    pass\n");
      /* the nodes point into their text: the arena's copy */
      Node *guard = template_stmts(L->ctx, arena_strndup(&L->ctx->arena, text.data, text.len), NULL, 0).items[0];
      buf_free(&text);
      guard->span = loop->span;
      guard->u.if_.body.count = 0;
      node_list_push(&L->ctx->arena, &guard->u.if_.body, body->items[i]);
      node_list_push(&L->ctx->arena, &guard->u.if_.body, loop);
      body->items[reader] = guard; /* the guard takes the loop's place */
    } else {
      continue;
    }
    /* the descriptor statement leaves its own place */
    memmove(&body->items[i], &body->items[i + 1], sizeof(Node *) * (size_t)(body->count - i - 1));
    body->count--;
    i--;
  }
}

/* ------------------------------------------------ descriptors out of loops
 *
 * A descriptor whose block shape reads a local, or a view's, is made next to
 * its use (tma_descriptor): inside a loop, once per iteration, which costs a
 * descriptor write per iteration and keeps Triton from pipelining the loads.
 * Where the two statements (`X_desc_N_ok: tl.constexpr = ...` and `if
 * X_desc_N_ok: X_desc_N = tl.make_tensor_descriptor(...)`) read no name the
 * loop assigns (its target included), they move before the loop, innermost
 * loops first; never out of an `if` (its condition may be what keeps a
 * descriptor valid). What the loop assigns is collect_assigned's. */

/* `X_ok: tl.constexpr = ...` then `if X_ok: X = tl.make_tensor_descriptor(...)`. */
static bool descriptor_pair(const Node *condition, const Node *made) {
  if (condition->kind != N_ANN_ASSIGN || condition->u.ann_assign.target->kind != N_NAME || made->kind != N_IF ||
      made->u.if_.test->kind != N_NAME || made->u.if_.orelse.count || made->u.if_.body.count != 1 ||
      !str_same(made->u.if_.test->u.name.id, condition->u.ann_assign.target->u.name.id))
    return false;
  const Node *assign = made->u.if_.body.items[0];
  if (assign->kind != N_ASSIGN || !assign->u.assign.value || assign->u.assign.value->kind != N_CALL)
    return false;
  const Node *func = assign->u.assign.value->u.call.func;
  return func->kind == N_ATTRIBUTE && str_eq(func->u.attribute.attr, "make_tensor_descriptor");
}

static void hoist_in(Lowerer *L, NodeList *stmts);

/* The descriptor pairs of `loop`'s body that read nothing it assigns, out into `before`. */
static void hoist_from_loop(Lowerer *L, Node *loop, NodeList *before) {
  NodeList *body = loop->kind == N_FOR ? &loop->u.for_.body : &loop->u.while_.body;
  hoist_in(L, body);
  Assigned *assigned = new_assigned(L);
  if (loop->kind == N_FOR)
    add_assigned_target(assigned, loop->u.for_.target);
  collect_assigned(assigned, body, 0);
  NodeList kept = {0};
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (i + 1 < body->count && descriptor_pair(stmt, body->items[i + 1])) {
      /* the pair's own names aside: its condition and the call */
      Node *call = body->items[i + 1]->u.if_.body.items[0]->u.assign.value;
      if (!node_reads_any(stmt->u.ann_assign.value, assigned->names, assigned->count) &&
          !node_reads_any(call, assigned->names, assigned->count)) {
        node_list_push(&L->ctx->arena, before, stmt);
        node_list_push(&L->ctx->arena, before, body->items[i + 1]);
        i++;
        continue;
      }
    }
    node_list_push(&L->ctx->arena, &kept, stmt);
  }
  if (!kept.count)
    kept = template_stmts(L->ctx, "pass\n", NULL, 0);
  *body = kept;
}

static void hoist_in(Lowerer *L, NodeList *stmts) {
  NodeList out = {0};
  bool moved = false;
  for (int i = 0; i < stmts->count; i++) {
    Node *stmt = stmts->items[i];
    if (stmt->kind == N_FOR || stmt->kind == N_WHILE) {
      int at = out.count;
      hoist_from_loop(L, stmt, &out);
      moved |= out.count > at;
    } else if (stmt->kind == N_IF) {
      hoist_in(L, &stmt->u.if_.body);
      hoist_in(L, &stmt->u.if_.orelse);
    } else if (stmt->kind == N_WITH) {
      hoist_in(L, &stmt->u.with.body);
    }
    node_list_push(&L->ctx->arena, &out, stmt);
  }
  if (moved)
    *stmts = out;
}

void hoist_loop_descriptors(Lowerer *L, NodeList *body) { hoist_in(L, body); }
