/*
 * lower_memory_kmajor.c — float8 right-hand operands of products read from
 * a K-major copy the launcher makes.
 *
 * sm_90's float8 wgmma reads its right-hand operand from shared memory in
 * K-major order only. A (K, N) tile loaded from an array whose last axis is
 * N (attention's `p @ v`, V of shape (..., S, D) read in (TILE_N, D) tiles;
 * a GEMM's row-major B) is stored N-major, and Triton 3.6 reads it back
 * into registers and writes it transposed at every step. Measured on an
 * H100 (TileGym's MLA prefill, float8_e5m2, B4 H32 S8192 D128): 7267 us;
 * 4258 us with V read from a (..., D, S) copy, where real cuTile takes 4586
 * (docs/perf/h100_2026-12-06c/).
 *
 * So for an array P that the kernel only reads, by ct.load (found in its
 * source before it is lowered: every mention is a ct.load's array, or its
 * shape, dtype or ndim), a ct.mma, ct.matmul or `@` whose 2-D right-hand operand is the tile of
 * such a load (reshaped at most, its leading tile dimensions 1, the tile's
 * last axis the product's N, padded with zeros or undetermined padding)
 * takes the same tile from the launcher's copy of P with its last two axes
 * swapped (`P_kmajor`, contiguous), through a descriptor the kernel makes:
 *
 *     P_kmajor_desc_3_ok: tl.constexpr = P_kmajor_staged and ...box rules...
 *     if P_kmajor_desc_3_ok:
 *         P_kmajor_desc_3 = tl.make_tensor_descriptor(P_kmajor, ...)
 *     ...
 *     if P_kmajor_desc_3_ok:
 *         P_kmajor_tile_4 = tl.trans(tl.reshape(P_kmajor_desc_3.load([b, h, 0, j * TN]), (D, TN)))
 *     else:
 *         P_kmajor_tile_4 = v
 *     acc = ct_mma(p, P_kmajor_tile_4, acc, ...)
 *
 * The operand may also be such a tile converted by astype to a dtype that may leave it
 * float8 (the array's own, or one chosen from the operands' dtypes, as TileGym's GEMMs write
 * `ct.load(B, ...).astype(dtype)`): the copy's tile is converted the same way
 * (math_astype_value). And it may be a name bound to such a tile in one branch of an `if` on
 * the kernel's constexpr parameters and to something else in the other (`if TRANSPOSE_B: b =
 * ct.transpose(ct.load(B, (n, k), ...)) else: b = ct.load(B, (k, n), ...)`, the product after
 * the `if`; lower_memory_reuse.c, reuse_join): the copy's tile is read where that branch runs
 * (`P_kmajor_desc_3_ok` holds `and not TRANSPOSE_B`), and the launcher makes the copy only for
 * those launches (`_kmajor_stage(B, A, C) if not TRANSPOSE_B else B`). H100, TileGym's float8
 * matmul at 2048^3-8192^3: 2.3-2.4x real cuTile's speed, where reading B as stored ran at 0.83x.
 *
 * The launcher (_kmajor_stage) makes the copy for float8 arrays only, when the
 * launch's other arrays hold at least half as many elements (a product that
 * reads each tile many times); otherwise it passes P itself and
 * `P_kmajor_staged=False`, and the kernel reads `v` as before. The copy is
 * made at each launch (a launch that reads it is not replayed: _owned_arrays),
 * since the kernel never writes P, it holds what the loads would read.
 */
#include <string.h>

#include "lower_math.h"
#include "lower_memory.h"
#include "lower_shape.h"

/* The launches that read an array's copy: the conditions of its products' operands (one of
 * them holds), or all launches (`always`). */
typedef struct KmajorWhen {
  bool always;
  const char *launch[C2T_MAX_KMAJOR_WHENS];
  int count;
} KmajorWhen;

typedef struct KmajorState {
  Str readonly[C2T_MAX_TMA_ARRAYS]; /* array parameters the kernel only reads through ct.load */
  int readonly_count;
  Str staged[C2T_MAX_TMA_ARRAYS];   /* those a product reads from the copy: P_kmajor, P_kmajor_staged */
  KmajorWhen when[C2T_MAX_TMA_ARRAYS];
  int staged_count;
} KmajorState;

static KmajorState *state(Lowerer *L) {
  if (!L->kmajor)
    L->kmajor = arena_alloc(&L->ctx->arena, sizeof(KmajorState));
  return L->kmajor;
}

static bool has(const Str *names, int count, Str name) {
  for (int i = 0; i < count; i++)
    if (str_same(names[i], name))
      return true;
  return false;
}

/* ------------------------------------------------------------ the scan */

typedef struct Mentions {
  Lowerer *L;
  int depth; /* tile functions entered to get here */
  const Node *allowed[256]; /* Name nodes that only read the array: ct.load's array, x.shape */
  int allowed_count;
  bool overflow;
  Str params[C2T_MAX_TMA_ARRAYS];
  bool other[C2T_MAX_TMA_ARRAYS]; /* mentioned otherwise (stored, passed, ...) */
  int param_count;
} Mentions;

static void allow(Mentions *m, const Node *name) {
  if (name->kind != N_NAME)
    return;
  if (m->allowed_count == (int)(sizeof m->allowed / sizeof m->allowed[0]))
    m->overflow = true;
  else
    m->allowed[m->allowed_count++] = name;
}

static bool only_read(Lowerer *L, Node *def, Str param, int depth);

/* An argument of a call of tile function `fn` for its parameter `param`: allowed where fn only reads it. */
static void allow_argument(Mentions *m, Function *fn, Str param, Node *arg) {
  Node *def = fn->pristine ? fn->pristine : fn->def; /* as written */
  if (arg->kind == N_NAME && m->depth < C2T_MAX_KMAJOR_CALL_DEPTH && only_read(m->L, def, param, m->depth + 1))
    allow(m, arg);
}

static void find_reads(Node *node, void *data) {
  Mentions *m = data;
  if (node->kind == N_CALL && node->u.call.args.count >= 1 &&
      (is_ct_member(m->L->conv, node->u.call.func, "load") || is_ct_member(m->L->conv, node->u.call.func, "num_tiles")))
    allow(m, node->u.call.args.items[0]);
  Function *fn = node->kind == N_CALL && node->u.call.func->kind == N_NAME
                     ? find_function(m->L->conv, node->u.call.func->u.name.id)
                     : NULL;
  if (fn && fn->role == ROLE_DEVICE) { /* an array passed to a tile function that only reads it */
    const NodeList *params = &(fn->pristine ? fn->pristine : fn->def)->u.function_def.args->u.arguments.args;
    for (int i = 0; i < node->u.call.args.count && i < params->count; i++)
      allow_argument(m, fn, params->items[i]->u.arg.arg, node->u.call.args.items[i]);
    for (int i = 0; i < node->u.call.keywords.count; i++) {
      Node *keyword = node->u.call.keywords.items[i];
      if (keyword->u.keyword.arg.len)
        allow_argument(m, fn, keyword->u.keyword.arg, keyword->u.keyword.value);
    }
  }
  if (node->kind == N_ATTRIBUTE && (str_eq(node->u.attribute.attr, "shape") || str_eq(node->u.attribute.attr, "dtype") ||
                                    str_eq(node->u.attribute.attr, "ndim")))
    allow(m, node->u.attribute.value);
  node_children(node, find_reads, data);
}

static void find_mentions(Node *node, void *data) {
  Mentions *m = data;
  if (node->kind == N_NAME) {
    bool allowed = false;
    for (int i = 0; i < m->allowed_count && !allowed; i++)
      allowed = m->allowed[i] == node;
    for (int i = 0; i < m->param_count; i++)
      if (str_same(m->params[i], node->u.name.id) && !allowed)
        m->other[i] = true;
    return;
  }
  node_children(node, find_mentions, data);
}

/* Whether function `def` only reads its parameter `param` (ct.load, its shape, dtype, ndim,
 * or a tile function that only reads it, `depth` calls deep). */
static bool only_read(Lowerer *L, Node *def, Str param, int depth) {
  Mentions *m = arena_alloc(&L->ctx->arena, sizeof(Mentions));
  *m = (Mentions){.L = L, .depth = depth, .param_count = 1};
  m->params[0] = param;
  for (int i = 0; i < def->u.function_def.body.count; i++)
    find_reads(def->u.function_def.body.items[i], m);
  for (int i = 0; i < def->u.function_def.body.count && !m->overflow; i++)
    find_mentions(def->u.function_def.body.items[i], m);
  return !m->overflow && !m->other[0];
}

void kmajor_scan_kernel(Lowerer *L, Node *def) {
  KmajorState *s = state(L);
  s->readonly_count = s->staged_count = 0;
  Mentions *m = arena_alloc(&L->ctx->arena, sizeof(Mentions));
  m->L = L;
  const NodeList *params = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < params->count && m->param_count < C2T_MAX_TMA_ARRAYS; i++)
    m->params[m->param_count++] = params->items[i]->u.arg.arg;
  for (int i = 0; i < def->u.function_def.body.count; i++)
    find_reads(def->u.function_def.body.items[i], m);
  if (m->overflow)
    return; /* too many to tell: none is staged */
  for (int i = 0; i < def->u.function_def.body.count; i++)
    find_mentions(def->u.function_def.body.items[i], m);
  for (int i = 0; i < m->param_count; i++)
    if (!m->other[i])
      s->readonly[s->readonly_count++] = m->params[i];
}

/* ------------------------------------------------------------ the product */

static bool known_one(const Node *size) {
  long long value;
  return shape_known_int(size, &value) && value == 1;
}

/* `array` read from its copy where `when` holds (NULL: at every launch) */
static void add_staged(KmajorState *s, Str array, const ReuseWhen *when) {
  int i = 0;
  while (i < s->staged_count && !str_same(s->staged[i], array))
    i++;
  if (i == s->staged_count) {
    if (s->staged_count == C2T_MAX_TMA_ARRAYS)
      return;
    s->staged[s->staged_count++] = array;
    s->when[i] = (KmajorWhen){0};
  }
  KmajorWhen *w = &s->when[i];
  for (int j = 0; when && j < w->count; j++)
    if (!strcmp(w->launch[j], when->launch))
      return;
  if (!when || w->count == C2T_MAX_KMAJOR_WHENS)
    w->always = true;
  else
    w->launch[w->count++] = when->launch;
}

/* Whether an astype to `dtype` may leave a float8 tile float8: a product of the copy's tile
 * converted so may read it K-major (to a wider dtype it is read through registers anyway). */
static bool may_stay_float8(const Node *dtype) {
  DType to = dtype->type->dtype;
  return to == DT_UNKNOWN || to == DT_FLOAT8_E4M3FN || to == DT_FLOAT8_E5M2;
}

/* The condition of `when` for the kernel's `and` (`not (A == 1)` written so), or NULL. */
static Node *when_test(Lowerer *L, const ReuseWhen *when) {
  if (!when)
    return NULL;
  Node *test = node_copy_tree(&L->ctx->arena, when->test);
  if (!when->taken && test->kind != N_NAME)
    test->parenthesized = true;
  return test;
}

Node *kmajor_operand(Lowerer *L, Node *y) {
  TrackedLoad load;
  ReuseConvert convert = {0}; /* y is the load's tile converted so (astype), where convert.call is set */
  if (!L->function || (L->function->role != ROLE_KERNEL && !L->device_tma) || !L->prologue || !L->pending ||
      L->in_while_test ||
      !L->kmajor || y->kind != N_NAME || !y->type || y->type->rank != 2 || !y->type->dims[0] || !y->type->dims[1] ||
      !(reuse_tracked_load(L, y, &load) ||
        (reuse_tracked_convert(L, y, &load, &convert) && may_stay_float8(convert.dtype))) ||
      load.rank < 2 || (load.padding != 0 && load.padding != 1) /* undetermined or zero: a descriptor's */ ||
      !has(L->kmajor->readonly, L->kmajor->readonly_count, load.param))
    return y;
  if (!has(L->tma_arrays, L->tma_array_count, load.param))
    return y; /* its loads take no descriptors: the launcher sets Triton's allocator, which the copy's needs */
  int r = load.rank;
  for (int a = 0; a < r - 2; a++)
    if (!known_one(load.size[a]))
      return y;
  if (!memory_same_text(L, y->type->dims[0], load.size[r - 2]) || !memory_same_text(L, y->type->dims[1], load.size[r - 1]))
    return y; /* not the (K, N) tile as stored: the product reads it another way */
  if (memory_sizes_read_locals(L, load.size, r))
    return y; /* the copy's descriptor is made at the top of the kernel, before such a local */
  Arena *arena = &L->ctx->arena;
  Str P = load.param;
  int number = ++L->temp_counter;
  char *desc = arena_printf(arena, "%.*s_kmajor_desc_%d", P.len, P.text, number);
  /* the copy: P's shape with its last two axes swapped, contiguous */
  Buf *shape = lower_buf(L), *strides = lower_buf(L), *block = lower_buf(L); /* freed with the lowering */
  for (int a = 0; a < r; a++) {
    int from = a < r - 2 ? a : 2 * r - 3 - a; /* axis a of the copy is axis `from` of P */
    buf_printf(shape, "%s%.*s_shape[%d]", a ? ", " : "", P.len, P.text, from);
    buf_printf(block, "%s%s", a ? ", " : "", a < r - 2 ? "1" : a == r - 2 ? "_2" : "_1");
  }
  for (int a = 0; a < r; a++) { /* the stride of axis a: the product of the copy's later dimensions */
    buf_printf(strides, "%s", a ? ", " : "");
    if (a == r - 1) {
      buf_printf(strides, "1");
      continue;
    }
    for (int b = a + 1; b < r; b++) {
      int from = b < r - 2 ? b : 2 * r - 3 - b;
      buf_printf(strides, "%s%.*s_shape[%d]", b > a + 1 ? " * " : "", P.len, P.text, from);
    }
  }
  const char *bytes = arena_printf(arena, "(%.*s.dtype.element_ty.primitive_bitwidth // 8)", P.len, P.text);
  /* where y is the tile only on one branch of an `if` on constexpr parameters: there only */
  const char *when = !load.when ? "" : load.when->taken ? " and _3" : " and not _3";
  NodeList made = template_stmts(
      L->ctx,
      arena_printf(arena,
                   "%s_ok: tl.constexpr = (\n"
                   "    %.*s_kmajor_staged%s and _1 * %s >= 16\n"
                   "    and _1 * _2 * %s %% 128 == 0 and _1 * _2 * %s <= %d\n"
                   ")\n"
                   "if %s_ok:\n"
                   "    %s = tl.make_tensor_descriptor(\n"
                   "        %.*s_kmajor, shape=[%s], strides=[%s], block_shape=[%s]\n"
                   "    )\n",
                   desc, P.len, P.text, when, bytes, bytes, bytes, C2T_TMA_MAX_TILE_BYTES, desc, desc, P.len, P.text,
                   buf_text(shape), buf_text(strides), buf_text(block)),
      TEMPLATE_NODES(node_copy_tree(arena, load.size[r - 2]), node_copy_tree(arena, load.size[r - 1]),
                     when_test(L, load.when)));
  for (int i = 0; i < made.count; i++)
    node_list_push(arena, L->prologue, made.items[i]);
  /* the tile at the same index: element offsets, the last two swapped */
  Node *offsets = T0(L, "[]");
  for (int a = 0; a < r; a++) {
    int from = a < r - 2 ? a : 2 * r - 3 - a;
    Node *index = node_copy_tree(arena, load.index[from]);
    long long value;
    bool zero = shape_known_int(index, &value) && value == 0;
    Node *offset = a < r - 2 || zero ? index : T(L, "_1 * _2", index, node_copy_tree(arena, load.size[from]));
    node_list_push(arena, &offsets->u.list.elts, memory_descriptor_offset(L, offset, load.index[from]->type));
  }
  /* before the statement: the operand, from the copy where it was made, else y itself */
  Str operand = new_temp_name(L, arena_printf(arena, "%.*s_kmajor_tile", P.len, P.text));
  Node *converted = NULL; /* the copy's tile converted as y was, else the tile as read */
  if (convert.call) {
    Node *tile = new_name(L, operand.text);
    tile->type = type_new(L->ctx, VAL_TILE);
    *tile->type = *convert.from; /* a copy: not the load's own (lower_tf32.c follows that one) */
    converted = math_astype_value(L, convert.call, tile, node_copy_tree(arena, convert.dtype), convert.mode,
                                  convert.mode_source);
  }
  made = template_stmts(L->ctx,
                        arena_printf(arena,
                                     "if %s_ok:\n    %s = tl.trans(tl.reshape(%s.load(_1), (_2, _3)))\n%s"
                                     "else:\n    %s = _4\n",
                                     desc, operand.text, desc,
                                     converted ? arena_printf(arena, "    %s = _5\n", operand.text) : "",
                                     operand.text),
                        TEMPLATE_NODES(offsets, node_copy_tree(arena, load.size[r - 1]),
                                       node_copy_tree(arena, load.size[r - 2]), node_copy_tree(arena, y), converted));
  node_list_push(arena, L->pending, made.items[0]);
  add_staged(L->kmajor, P, load.when);
  Node *chosen = new_name(L, operand.text); /* new_temp_name's text ends in NUL */
  chosen->type = y->type;
  return chosen;
}

int kmajor_staged_count(Lowerer *L) { return L->kmajor ? L->kmajor->staged_count : 0; }

void kmajor_keep_staged(Lowerer *L, int count) {
  if (L->kmajor && count < L->kmajor->staged_count)
    L->kmajor->staged_count = count;
}

/* ------------------------------------------------------------ params, launch */

void kmajor_add_params(Lowerer *L, Node *def) {
  NodeList *args = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; L->kmajor && i < L->kmajor->staged_count; i++) {
    Str P = L->kmajor->staged[i];
    node_list_push(&L->ctx->arena, args, new_arg(L, suffixed(L, P, "_kmajor"), NULL));
    node_list_push(&L->ctx->arena, args, new_arg(L, suffixed(L, P, "_kmajor_staged"), "tl.constexpr"));
  }
}

void kmajor_launch_args(Lowerer *L, const Function *kernel, Buf *call) {
  for (int i = 0; L->kmajor && i < L->kmajor->staged_count; i++) {
    Str P = L->kmajor->staged[i];
    Str stage = use_helper(L, HELPER__kmajor_stage)->u.name.id;
    buf_printf(call, "            %.*s_kmajor=(%.*s_kmajor := %.*s(%.*s", P.len, P.text, P.len, P.text, stage.len,
               stage.text, P.len, P.text);
    launch_other_arrays(kernel, P, call);
    buf_printf(call, ")");
    const KmajorWhen *when = &L->kmajor->when[i];
    if (!when->always) { /* the copy only for the launches whose products read it (`or` binds loosest) */
      buf_printf(call, " if ");
      for (int j = 0; j < when->count; j++)
        buf_printf(call, "%s%s", j ? " or " : "", when->launch[j]);
      buf_printf(call, " else %.*s", P.len, P.text);
    }
    buf_printf(call, "),\n            %.*s_kmajor_staged=%.*s_kmajor is not %.*s,\n", P.len, P.text, P.len, P.text,
               P.len, P.text);
  }
}

/* ------------------------------------------------------------ tile functions */

struct KmajorState *kmajor_enter_function(Lowerer *L, Node *def) {
  KmajorState *caller = L->kmajor;
  L->kmajor = NULL;
  kmajor_scan_kernel(L, def);
  return caller;
}

void kmajor_leave_function(Lowerer *L, Function *fn, struct KmajorState *caller) {
  KmajorState *own = L->kmajor;
  L->kmajor = caller;
  fn->kmajor_param_count = 0;
  if (!own || !own->staged_count)
    return;
  /* the caller gives the copy where its launch makes one: conditions inside are the function's own */
  fn->kmajor_params = arena_alloc(&L->ctx->arena, sizeof(Str) * (size_t)own->staged_count);
  NodeList *args = &fn->def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < own->staged_count; i++) {
    Str P = own->staged[i];
    fn->kmajor_params[fn->kmajor_param_count++] = P;
    node_list_push(&L->ctx->arena, args, new_arg(L, suffixed(L, P, "_kmajor"), NULL));
    node_list_push(&L->ctx->arena, args, new_arg(L, suffixed(L, P, "_kmajor_staged"), "tl.constexpr"));
  }
}

void kmajor_call_args(Lowerer *L, const Function *fn, TypeInfo **types, int count, NodeList *expanded) {
  Arena *arena = &L->ctx->arena;
  for (int k = 0; k < fn->kmajor_param_count; k++) {
    const ArrayRef *array = NULL;
    for (int i = 0; i < count && i < fn->signature_count && !array; i++)
      if (str_same(fn->signature_names[i], fn->kmajor_params[k]) && types[i] && types[i]->kind == VAL_ARRAY)
        array = types[i]->array;
    /* the caller's own copy: of an array parameter it passes whole, only reads, and reads
       through descriptors (the launcher sets Triton's allocator), outside loops (the function
       makes the copy's descriptor at each call) */
    bool own = array && array->param.len && !array->is_view && !array->descriptor_slots && !array->rank_branches &&
               array->pointer && array->pointer->kind == N_NAME && str_same(array->pointer->u.name.id, array->param) &&
               L->kmajor && has(L->kmajor->readonly, L->kmajor->readonly_count, array->param) &&
               L->loop_depth == 0 && (L->function->role == ROLE_KERNEL || L->device_tma);
    own = own && has(L->tma_arrays, L->tma_array_count, array->param);
    if (own) {
      add_staged(L->kmajor, array->param, NULL);
      node_list_push(arena, expanded, new_name(L, arena_printf(arena, "%.*s_kmajor", array->param.len,
                                                                array->param.text)));
      node_list_push(arena, expanded, new_name(L, arena_printf(arena, "%.*s_kmajor_staged", array->param.len,
                                                                array->param.text)));
    } else {
      node_list_push(arena, expanded, array ? node_copy_tree(arena, array->pointer) : T0(L, "None"));
      node_list_push(arena, expanded, T0(L, "False"));
    }
  }
}
