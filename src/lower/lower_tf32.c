/* tfloat32 operands staged at launch: the right-hand operand of a matrix
 * product that a kernel loads from a float32 array and converts to tfloat32.
 *
 * sm_90's tf32 wgmma reads its right-hand operand from shared memory in
 * K-major order only, and a tile rounded in registers (ct_to_tfloat32, as
 * cuTile rounds) must be written back to shared memory: Triton 3.6 then
 * waits on every wgmma. Measured on the H200 (4096^3, float32): 75 TFLOP/s
 * with both operands rounded in the kernel and B row-major; 227 TFLOP/s with
 * A rounded in the kernel and B read, already rounded, from a K-major copy;
 * the copy (rounding and transposing B) took 35 us of the 605 us.
 *
 * So, for an array P whose 2-D tiles feed the right-hand side of ct.mma,
 * ct.matmul or `@` through astype(tfloat32) (found in the kernel's source
 * before it is lowered, tf32_scan_kernel), the kernel takes two more
 * parameters, `P_tf32` and `P_tf32_staged: tl.constexpr`, and each 2-D load
 * of P that may take a descriptor also reads the same tile from P_tf32 (the
 * launcher's rounded, transposed copy: `P_tf32[j, i]` holds the rounding of
 * `P[i, j]`), into a local of its own:
 *
 *     if P_tf32_desc_3_ok:
 *         P_tf32_4 = tl.trans(P_tf32_desc_3.load([j * TC, i * TR]))
 *     else:
 *         P_tf32_4 = None
 *     b = ...the load as before...
 *
 * The astype of that very value (its type, the one the load made; a copy of
 * the type into another value is not it) is then `ct_tf32_staged(P_tf32_4, b)`:
 * the staged tile, or b rounded where it is None; the same bits either way.
 * Sites whose tile no astype reads are taken out again, and an array none of
 * whose sites is read gets no parameters and no copy. The launcher (_tf32_stage)
 * makes the copy for a float32 matrix when the other arrays of the launch hold
 * at least half as many elements (a product that reads each tile of P many
 * times), else passes P itself, unstaged. Where every read site stands in a
 * branch of an `if` on the kernel's constexpr parameters (`if TRANSPOSE_B:
 * b = ct.transpose(...) else: b = ct.load(...)`), the launcher makes the copy
 * only for the values that take such a branch (`_tf32_stage(P, ...) if not
 * TRANSPOSE_B else P`): the other launches would copy P for nothing. */

#include <string.h>

#include "lower.h"
#include "lower_memory.h"
#include "../emit/emit.h"

/* How far a right-hand operand is followed back through names, and how many names
 * the scan of one kernel follows in all (names assigned from names assigned from names
 * would otherwise cost exponential time; past it the scan stops: no staging, same code) */
#define C2T_TF32_SCAN_DEPTH 6
#define C2T_TF32_SCAN_STEPS 4096

typedef struct Tf32Scan {
  Lowerer *L;
  Node *def;
  Str name; /* the name whose assignments are collected */
  Node *values[C2T_TF32_SCAN_DEPTH * 4];
  int count;
} Tf32Scan;

static void collect_assignments(Node *node, void *data) {
  Tf32Scan *scan = data;
  if (!node)
    return;
  if (node->kind == N_ASSIGN && node->u.assign.targets.count == 1) {
    Node *target = node->u.assign.targets.items[0];
    if (target->kind == N_NAME && str_same(target->u.name.id, scan->name) &&
        scan->count < (int)(sizeof scan->values / sizeof scan->values[0]))
      scan->values[scan->count++] = node->u.assign.value;
  }
  if (node->kind != N_FUNCTION_DEF || node == scan->def)
    node_children(node, collect_assignments, data);
}

/* `array` added to a list of C2T_MAX_TMA_ARRAYS names unless it is there (or the list is full:
 * the array is then simply not staged) */
static void add_array(Str *arrays, int *count, Str array) {
  for (int i = 0; i < *count; i++)
    if (str_same(arrays[i], array))
      return;
  if (*count < C2T_MAX_TMA_ARRAYS)
    arrays[(*count)++] = array;
}

typedef struct Tf32Mention {
  Lowerer *L;
  Node *def;
  int depth;
  bool found;
} Tf32Mention;

static void find_tf32(Node *node, void *data);

/* Whether a dtype expression may be tfloat32: it reads ct.tfloat32, itself or through the
 * assignments of the names it reads (`dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype`). */
static bool mentions_tf32(Lowerer *L, Node *def, Node *expr, int depth) {
  Tf32Mention mention = {L, def, depth, false};
  find_tf32(expr, &mention);
  return mention.found;
}

static void find_tf32(Node *node, void *data) {
  Tf32Mention *mention = data;
  if (!node || mention->found)
    return;
  if (is_ct_member(mention->L->conv, node, "tfloat32")) {
    mention->found = true;
    return;
  }
  if (node->kind == N_NAME && mention->depth < C2T_TF32_SCAN_DEPTH &&
      ++mention->L->tf32_scan_steps <= C2T_TF32_SCAN_STEPS) {
    Tf32Scan scan = {mention->L, mention->def, node->u.name.id, {0}, 0};
    collect_assignments(mention->def, &scan);
    for (int i = 0; i < scan.count && !mention->found; i++)
      mention->found = mentions_tf32(mention->L, mention->def, scan.values[i], mention->depth + 1);
    return;
  }
  node_children(node, find_tf32, data);
}

/* `x.astype(D)` or `ct.astype(x, D)` where D may be tfloat32: x; else NULL. */
static Node *astype_operand(Lowerer *L, Node *def, Node *expr) {
  if (expr->kind != N_CALL)
    return NULL;
  Node *func = expr->u.call.func;
  Node *x = NULL, *dtype = NULL;
  if (is_ct_member(L->conv, func, "astype")) {
    x = expr->u.call.args.count >= 1 ? expr->u.call.args.items[0] : NULL;
    dtype = expr->u.call.args.count >= 2 ? expr->u.call.args.items[1] : NULL;
  } else if (func->kind == N_ATTRIBUTE && str_eq(func->u.attribute.attr, "astype")) {
    x = func->u.attribute.value;
    dtype = expr->u.call.args.count >= 1 ? expr->u.call.args.items[0] : NULL;
  }
  for (int i = 0; x && !dtype && i < expr->u.call.keywords.count; i++) {
    Node *keyword = expr->u.call.keywords.items[i];
    if (keyword->u.keyword.arg.len && str_eq(keyword->u.keyword.arg, "dtype"))
      dtype = keyword->u.keyword.value;
  }
  return x && dtype && mentions_tf32(L, def, dtype, 0) ? x : NULL;
}

/* The arrays whose loads an operand expression is, followed back through
 * astype and through the assignments of the names it reads. */
static void follow_operand(Lowerer *L, Node *def, Node *expr, bool converted, int depth) {
  if (!expr || depth > C2T_TF32_SCAN_DEPTH)
    return;
  Node *inner = astype_operand(L, def, expr);
  if (inner) {
    follow_operand(L, def, inner, true, depth + 1);
    return;
  }
  if (expr->kind == N_CALL && is_ct_member(L->conv, expr->u.call.func, "load") && expr->u.call.args.count >= 1) {
    Node *array = expr->u.call.args.items[0];
    if (converted && array->kind == N_NAME)
      add_array(L->tf32_candidates, &L->tf32_candidate_count, array->u.name.id);
    return;
  }
  if (expr->kind == N_NAME && ++L->tf32_scan_steps <= C2T_TF32_SCAN_STEPS) {
    Tf32Scan scan = {L, def, expr->u.name.id, {0}, 0};
    collect_assignments(def, &scan);
    for (int i = 0; i < scan.count; i++)
      if (scan.values[i] != expr)
        follow_operand(L, def, scan.values[i], converted, depth + 1);
  }
}

static void scan_products(Node *node, void *data) {
  Tf32Scan *scan = data;
  if (!node)
    return;
  Node *rhs = NULL;
  if (node->kind == N_CALL && node->u.call.args.count >= 2 &&
      (is_ct_member(scan->L->conv, node->u.call.func, "mma") ||
       is_ct_member(scan->L->conv, node->u.call.func, "matmul")))
    rhs = node->u.call.args.items[1];
  else if (node->kind == N_BIN_OP && node->u.bin_op.op == AOP_MATMULT)
    rhs = node->u.bin_op.right;
  if (rhs)
    follow_operand(scan->L, scan->def, rhs, false, 0);
  if (node->kind != N_FUNCTION_DEF || node == scan->def)
    node_children(node, scan_products, data);
}

void tf32_scan_kernel(Lowerer *L, Node *def) {
  L->tf32_scan_steps = 0;
  L->tf32_candidate_count = 0;
  L->tf32_array_count = 0;
  Tf32Scan scan = {L, def, {0}, {0}, 0};
  scan_products(def, &scan);
}

static bool is_candidate(Lowerer *L, Str array) {
  for (int i = 0; i < L->tf32_candidate_count; i++)
    if (str_same(L->tf32_candidates[i], array))
      return true;
  return false;
}

/* The constexpr branches a staged load stands in, outermost first (their conjunction) */
typedef struct Tf32Path {
  const Tf32Branch *branches;
  int count;
} Tf32Path;

/* When the launcher makes an array's copy: the paths of its read loads (their disjunction) */
struct Tf32When {
  Tf32Path paths[C2T_TF32_WHEN_PATHS];
  int count;
};

typedef struct Tf32Site {
  Str array;      /* empty for a join */
  Node *stmts[3]; /* a load's: the prologue's condition and descriptor, the load before the statement;
                     a join's: its assignments at the ends of the branches */
  int parents[2]; /* a join's: the sites of the branches' tiles (-1: a branch without one) */
  bool used;      /* an astype read the staged tile */
  Tf32Path path;  /* a load's: the branches around it the launcher can test */
} Tf32Site;

/* A condition as the launcher writes it: `test` standing alone or joined by `and`
 * (PREC_NOT: a boolean operation in parentheses), `negated` after `not` (comparisons too) */
static const char *condition_written(Lowerer *L, const Node *source, Prec context) {
  Buf *written = lower_buf(L);
  Emitter emitter;
  emitter_init_bare(&emitter, L->ctx, written);
  emit_expr(&emitter, source, context);
  return arena_strndup(&L->ctx->arena, written->data, written->len);
}

void tf32_branch_enter(Lowerer *L, const Node *source, bool taken) {
  if (L->tf32_when_depth < C2T_TF32_WHEN_DEPTH) {
    Tf32Branch *branch = &L->tf32_when[L->tf32_when_depth];
    *branch = (Tf32Branch){NULL, NULL, taken};
    if (source && constexpr_param_condition(L, source)) {
      branch->test = condition_written(L, source, PREC_NOT);
      branch->negated = condition_written(L, source, PREC_BOR);
    }
  }
  L->tf32_when_depth++;
}

void tf32_branch_leave(Lowerer *L) {
  if (L->tf32_when_depth > 0)
    L->tf32_when_depth--;
}

/* The branches lowered now that the launcher can test. */
static Tf32Path path_now(Lowerer *L) {
  int depth = L->tf32_when_depth < C2T_TF32_WHEN_DEPTH ? L->tf32_when_depth : C2T_TF32_WHEN_DEPTH;
  Tf32Branch *branches = arena_alloc(&L->ctx->arena, sizeof(Tf32Branch) * (size_t)(depth + 1));
  int count = 0;
  for (int i = 0; i < depth; i++)
    if (L->tf32_when[i].test)
      branches[count++] = L->tf32_when[i];
  return (Tf32Path){branches, count};
}

static bool same_branch(const Tf32Branch *a, const Tf32Branch *b) {
  return a->taken == b->taken && !strcmp(a->test, b->test);
}

/* Whether every branch of `a` is the same in `b` (b's loads run only where a's may) */
static bool path_prefix(const Tf32Path *a, const Tf32Path *b) {
  if (a->count > b->count)
    return false;
  for (int i = 0; i < a->count; i++)
    if (!same_branch(&a->branches[i], &b->branches[i]))
      return false;
  return true;
}

/* `path` added to `when`, kept short: a path another covers is left out, and two that differ
 * only in the way their last branch went become their common part. NULL: every launch. */
static struct Tf32When *when_add(Lowerer *L, struct Tf32When *when, Tf32Path path) {
  for (bool again = true; again;) {
    again = false;
    if (!path.count)
      return NULL;
    for (int i = 0; i < when->count; i++) {
      Tf32Path *other = &when->paths[i];
      if (path_prefix(other, &path))
        return when;
      bool sibling = other->count == path.count &&
                     path_prefix(&(Tf32Path){other->branches, other->count - 1}, &path) &&
                     !strcmp(other->branches[path.count - 1].test, path.branches[path.count - 1].test);
      if (path_prefix(&path, other) || sibling) {
        if (sibling)
          path.count--;
        when->paths[i] = when->paths[--when->count];
        again = true;
        break;
      }
    }
  }
  if (when->count == C2T_TF32_WHEN_PATHS)
    return NULL;
  when->paths[when->count++] = path;
  return when;
}

/* `array` given a staged copy, read on `path`: added to L->tf32_arrays or its paths widened */
static void add_staged(Lowerer *L, Str array, Tf32Path path) {
  for (int i = 0; i < L->tf32_array_count; i++)
    if (str_same(L->tf32_arrays[i], array)) {
      if (L->tf32_array_when[i])
        L->tf32_array_when[i] = when_add(L, L->tf32_array_when[i], path);
      return;
    }
  if (L->tf32_array_count < C2T_MAX_TMA_ARRAYS) {
    struct Tf32When *when = arena_alloc(&L->ctx->arena, sizeof(struct Tf32When));
    when->count = 0;
    L->tf32_array_when[L->tf32_array_count] = when_add(L, when, path);
    L->tf32_arrays[L->tf32_array_count++] = array;
  }
}

/* The launcher's test of `when`: `A and not B or C` (a conjunction in parentheses beside others) */
static void when_text(const struct Tf32When *when, Buf *out) {
  for (int p = 0; p < when->count; p++) {
    const Tf32Path *path = &when->paths[p];
    bool grouped = when->count > 1 && path->count > 1;
    buf_printf(out, "%s%s", p ? " or " : "", grouped ? "(" : "");
    for (int b = 0; b < path->count; b++) {
      const Tf32Branch *branch = &path->branches[b];
      buf_printf(out, "%s%s%s", b ? " and " : "", branch->taken ? "" : "not ",
                 branch->taken ? branch->test : branch->negated);
    }
    buf_printf(out, "%s", grouped ? ")" : "");
  }
}

static const char TF32_UNUSED[] = "staged tfloat32 tile no astype read";

void tf32_twin_for_load(Lowerer *L, const ArrayRef *array, Node **index, Node **size, int rank, bool zero_padded,
                        TypeInfo *type) {
  if (rank != 2 || !zero_padded || !array->param.len || array->is_view || array->descriptor_slots ||
      !L->function || L->function->role != ROLE_KERNEL || !L->prologue || !L->pending || L->in_while_test ||
      (type->dtype != DT_UNKNOWN && type->dtype != DT_FLOAT32) || !is_candidate(L, array->param) ||
      L->tf32_site_count >= C2T_MAX_TF32_SITES ||
      memory_sizes_read_locals(L, size, 2)) /* its descriptor is made at the top, before such a local */
    return;
  if (!L->tf32_sites)
    L->tf32_sites = arena_alloc(&L->ctx->arena, sizeof(Tf32Site) * C2T_MAX_TF32_SITES);
  Str P = array->param;
  Tf32Site *site = &L->tf32_sites[L->tf32_site_count];
  *site = (Tf32Site){P, {NULL, NULL, NULL}, {-1, -1}, false, path_now(L)};
  int number = ++L->temp_counter;
  char *desc = arena_printf(&L->ctx->arena, "%.*s_tf32_desc_%d", P.len, P.text, number);
  /* the copy is P transposed: rows of P.shape[0] float32 elements, block (size[1], size[0]) */
  NodeList made = template_stmts(
      L->ctx,
      arena_printf(&L->ctx->arena,
                   "%s_ok: tl.constexpr = (\n"
                   "    _use_tma and %.*s_tf32_staged and _1 * 4 >= 16\n"
                   "    and _1 * _2 * 4 %% 128 == 0 and _1 * _2 * 4 <= %d\n"
                   ")\n"
                   "if %s_ok:\n"
                   "    %s = tl.make_tensor_descriptor(\n"
                   "        %.*s_tf32, shape=[_3[1], _3[0]], strides=[_3[0], 1], block_shape=[_2, _1]\n"
                   "    )\n",
                   desc, P.len, P.text, C2T_TMA_MAX_TILE_BYTES, desc, desc, P.len, P.text),
      TEMPLATE_NODES(size[0], size[1], array->shape));
  for (int i = 0; i < made.count && i < 2; i++) {
    node_list_push(&L->ctx->arena, L->prologue, made.items[i]);
    site->stmts[i] = made.items[i];
  }
  Str twin = new_temp_name(L, arena_printf(&L->ctx->arena, "%.*s_tf32", P.len, P.text));
  Node *offsets[2];
  for (int a = 0; a < 2; a++)
    offsets[a] = memory_descriptor_offset(L, T(L, "_1 * _2", index[1 - a], size[1 - a]), index[1 - a]->type);
  made = template_stmts(L->ctx,
                        arena_printf(&L->ctx->arena,
                                     "if %s_ok:\n    %.*s = tl.trans(%s.load([_1, _2]))\nelse:\n    %.*s = None\n",
                                     desc, twin.len, twin.text, desc, twin.len, twin.text),
                        TEMPLATE_NODES(offsets[0], offsets[1]));
  node_list_push(&L->ctx->arena, L->pending, made.items[0]);
  site->stmts[2] = made.items[0];
  type->tf32_twin = new_name(L, twin.text); /* new_temp_name's text ends in NUL */
  type->tf32_twin_owner = type;
  type->tf32_site = L->tf32_site_count++;
}

Node *tf32_twin_or(Lowerer *L, Node *x, Node *rounded) {
  const TypeInfo *type = x->type;
  if (!type || !type->tf32_twin || type->tf32_twin_owner != type || type->tf32_site >= L->tf32_site_count)
    return rounded;
  L->tf32_sites[type->tf32_site].used = true;
  return T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_tf32_staged), node_copy_tree(&L->ctx->arena, type->tf32_twin),
           x);
}

static bool valid_twin(const TypeInfo *type, const Lowerer *L) {
  return type && type->kind == VAL_TILE && type->tf32_twin && type->tf32_twin_owner == type &&
         type->tf32_site < L->tf32_site_count;
}

/* Whether a block ends so that nothing after its last statement runs. */
static bool ends_early(const NodeList *block) {
  if (!block->count)
    return false;
  NodeKind kind = block->items[block->count - 1]->kind;
  return kind == N_RETURN || kind == N_BREAK || kind == N_CONTINUE || kind == N_RAISE;
}

void tf32_join(Lowerer *L, Node *stmt, TypeInfo *merged, TypeInfo *from_body, TypeInfo *from_else) {
  bool body_twin = valid_twin(from_body, L), else_twin = valid_twin(from_else, L);
  if ((!body_twin && !else_twin) || !merged || merged->kind != VAL_TILE || merged == from_body ||
      merged == from_else || L->tf32_site_count >= C2T_MAX_TF32_SITES || L->in_while_test ||
      ends_early(&stmt->u.if_.body) || ends_early(&stmt->u.if_.orelse))
    return;
  Str twin = new_temp_name(L, "tf32_tile");
  Tf32Site *site = &L->tf32_sites[L->tf32_site_count];
  *site = (Tf32Site){{NULL, 0}, {NULL, NULL, NULL}, {-1, -1}, false, {NULL, 0}};
  NodeList *blocks[2] = {&stmt->u.if_.body, &stmt->u.if_.orelse};
  TypeInfo *from[2] = {from_body, from_else};
  for (int b = 0; b < 2; b++) {
    bool has = b == 0 ? body_twin : else_twin;
    Node *value = has ? node_copy_tree(&L->ctx->arena, from[b]->tf32_twin) : T0(L, "None");
    NodeList made = template_stmts(L->ctx, arena_printf(&L->ctx->arena, "%s = _1\n", twin.text), TEMPLATE_NODES(value));
    node_list_push(&L->ctx->arena, blocks[b], made.items[0]);
    site->stmts[b] = made.items[0];
    site->parents[b] = has ? from[b]->tf32_site : -1;
  }
  merged->tf32_twin = new_name(L, twin.text);
  merged->tf32_twin_owner = merged;
  merged->tf32_site = L->tf32_site_count++;
}

void tf32_finish_version(Lowerer *L, NodeList *body, NodeList *prologue) {
  if (!L->function || L->function->role != ROLE_KERNEL)
    return; /* a tile function lowered for a call of the kernel: the kernel's sites are not done */
  /* a join read is its branches' tiles read (a join comes after the sites it joins) */
  for (int i = L->tf32_site_count - 1; i >= 0; i--)
    for (int b = 0; b < 2; b++)
      if (L->tf32_sites[i].used && L->tf32_sites[i].parents[b] >= 0)
        L->tf32_sites[L->tf32_sites[i].parents[b]].used = true;
  bool dropped = false;
  for (int i = 0; i < L->tf32_site_count; i++) {
    Tf32Site *site = &L->tf32_sites[i];
    if (site->used) {
      if (site->array.len)
        add_staged(L, site->array, site->path);
      continue;
    }
    for (int s = 0; s < 3; s++)
      if (site->stmts[s]) {
        *site->stmts[s] = (Node){.kind = N_PASS, .span = site->stmts[s]->span, .note = TF32_UNUSED};
        dropped = true;
      }
  }
  if (dropped) {
    drop_placeholders(body, TF32_UNUSED);
    drop_placeholders(prologue, TF32_UNUSED);
  }
  L->tf32_site_count = 0;
}

void tf32_add_params(Lowerer *L, Node *def) {
  NodeList *args = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < L->tf32_array_count; i++) {
    Str P = L->tf32_arrays[i];
    node_list_push(&L->ctx->arena, args, new_arg(L, suffixed(L, P, "_tf32"), NULL));
    node_list_push(&L->ctx->arena, args, new_arg(L, suffixed(L, P, "_tf32_staged"), "tl.constexpr"));
  }
}

void tf32_launch_args(Lowerer *L, const Function *kernel, Buf *call) {
  for (int i = 0; i < L->tf32_array_count; i++) {
    Str P = L->tf32_arrays[i];
    Str stage = use_helper(L, HELPER__tf32_stage)->u.name.id;
    buf_printf(call, "            %.*s_tf32=(%.*s_tf32 := %.*s(%.*s", P.len, P.text, P.len, P.text, stage.len,
               stage.text, P.len, P.text);
    launch_other_arrays(kernel, P, call);
    buf_printf(call, ")");
    if (L->tf32_array_when[i]) { /* the kernel reads the copy only for these constexpr values */
      buf_printf(call, " if ");
      when_text(L->tf32_array_when[i], call);
      buf_printf(call, " else %.*s", P.len, P.text);
    }
    buf_printf(call, "),\n            %.*s_tf32_staged=%.*s_tf32 is not %.*s,\n", P.len, P.text, P.len, P.text, P.len,
               P.text);
  }
}
