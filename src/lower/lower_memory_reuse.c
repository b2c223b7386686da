/*
 * lower_memory_reuse.c — a load that reads the tile another load of the
 * kernel read, where the launcher finds the two arrays one.
 *
 * A kernel may be given one array as two parameters, and load the same tile
 * from both: MLA decoding passes its latent cache as both K and V, and reads
 * each step's rows once as K and again as V, in another order:
 *
 *     k = ct.load(K, index=(b, j, 0), shape=(1, TN, D))
 *     ...
 *     v = ct.load(V, index=(j, b, 0), shape=(TN, 1, D), order=(1, 0, 2))
 *
 * Both read the array's tile (b, j, 0) of shape (1, TN, D), V's in another
 * axis order. Where the module launches the kernel with one name for both
 * (`ct.launch(stream, grid, kernel, (q, kv, kv, ...))`), the launcher
 * passes a constexpr flag `V_is_K`, true where the two arguments are one
 * array at that launch (one address, dtype, shape and strides), and under
 * it the second load takes the first one's tile, in its own order:
 *
 *     if V_is_K:
 *         v = tl.reshape(k, (TN, 1, D))
 *     elif V_desc_3_ok:
 *         <V's own load: its descriptor, or its pointers below>
 *
 * which saves the second copy (real cuTile hides it behind a producer warp
 * that Triton 3.6 does not build). Where the two loads read the same
 * elements the tile is the same, so this holds whatever the arrays hold:
 *
 *   - the first is a ct.load of a kernel parameter as a whole (no view), its
 *     tile in the array's own axis order, and its value is still held by a
 *     name (assigned from it, or from ct.reshape of such a name);
 *   - the second is a ct.load of another parameter with the same index and
 *     shape in the array's axes (each entry the same expression, no name it
 *     reads bound again since), the same padding and check_bounds;
 *   - both in the same loop body (or both outside loops), with no store,
 *     scatter, atomic or call of a tile function lowered between them: no
 *     write may come between them in any iteration.
 *
 * Triton 3.6 keeps a tile in shared memory for a product only when every
 * product reads it in one orientation; a tile read as `K @ Q` and, through
 * the second load, as `Vᵀ @ P` is read back into registers for both (H100:
 * 1.2-1.4x the time of the kernel that loads twice). So a ct.mma whose
 * left operand is such a reused tile transposed is computed transposed too,
 * under the same flag: `x @ y + acc` as `(yᵀ @ xᵀ + accᵀ)ᵀ`, the same sums
 * of the same products, where Triton folds the transposes and reads the
 * tile from the one buffer (H200, TileGym's MLA decoding at six shapes:
 * 1.11-1.32x real cuTile's speed, where the kernel that loads twice ran at
 * 0.80-0.90x; docs/perf/h200_2026-12-06b/).
 */
#include <string.h>

#include "lower_memory.h"
#include "../emit/emit.h"
#include "lower_shape.h"

_Static_assert(MAX_TILE_RANK <= C2T_MAX_RANK, "TrackedLoad (lower.h) holds C2T_MAX_RANK entries");

/* A load another may take its tile from. */
typedef struct ReuseLoad {
  int id;               /* Variable.reuse_load of the names that hold its tile */
  Str param;            /* the array parameter it reads */
  const Node *node;     /* its value, as load_tile returned it */
  const char *flag;     /* where it took another load's tile: that flag, else NULL */
  int source;           /* ... that load, where what it took is a reshape of it (else 0) */
  Node *index[MAX_TILE_RANK], *size[MAX_TILE_RANK]; /* per array axis */
  int rank;
  int padding;
  const Node *check;
  bool as_stored;       /* its tile in the array's axis order (another may take it) */
  bool followed_only;   /* ReuseSite.rank_in_branch, or a tile function's load: never taken from */
  int loop;             /* the loop body it is in (ReuseState.loop) */
  unsigned writes;      /* stores, scatters and atomics lowered before it */
  Str names[C2T_MAX_REUSE_NAMES]; /* the names its index reads, and their bindings then */
  unsigned serials[C2T_MAX_REUSE_NAMES];
  int name_count;
} ReuseLoad;

/* Two array parameters the launcher compares: flag = `SECOND_is_FIRST`. */
typedef struct ReusePair {
  Str first, second;
  const char *flag;
} ReusePair;

/* Two parameters of the kernel (as declared, by position) that a ct.launch of the module
 * passes one name for: the only pairs a load may take the other's tile for. */
typedef struct LaunchedPair {
  Str first, second;
} LaunchedPair;

/* astype(x) of a load's tile x (reuse_note_convert): the value it made, and how. */
typedef struct ReuseConverted {
  const Node *node;
  int load;
  const ReuseWhen *when;
  ReuseConvert how;
} ReuseConverted;

typedef struct ReuseState {
  LaunchedPair launched[C2T_MAX_TMA_ARRAYS]; /* of the kernel lowered now */
  int launched_count;
  ReuseLoad loads[C2T_MAX_REUSE_LOADS]; /* of the kernel version lowered now */
  int load_count;
  ReuseConverted converts[C2T_MAX_REUSE_LOADS]; /* of the kernel version lowered now */
  int convert_count;
  ReusePair pairs[C2T_MAX_TMA_ARRAYS]; /* of the kernel lowered now, all its versions */
  int pair_count;
  int loop, loops;  /* the loop body lowered now (0: none), and loop bodies entered so far */
  unsigned writes;
  NodeList launches; /* the module's ct.launch calls, found once (scan_launches) */
  bool scanned;
} ReuseState;

static ReuseState *state(Lowerer *L) {
  if (!L->reuse)
    L->reuse = arena_alloc(&L->ctx->arena, sizeof(ReuseState));
  return L->reuse;
}

/* ------------------------------------------------------ the launches */

typedef struct LaunchScan {
  Lowerer *L;
  ReuseState *state;
  const Node *def; /* the kernel */
} LaunchScan;

/* Whether `expr` names the kernel: `kernel`, or `kernel.replace_hints(...)`. */
static bool names_kernel(const Node *expr, Str name) {
  if (expr->kind == N_CALL && expr->u.call.func->kind == N_ATTRIBUTE &&
      str_eq(expr->u.call.func->u.attribute.attr, "replace_hints"))
    expr = expr->u.call.func->u.attribute.value;
  return expr->kind == N_NAME && str_same(expr->u.name.id, name);
}

static void add_launched(ReuseState *s, Str first, Str second) {
  for (int i = 0; i < s->launched_count; i++)
    if (str_same(s->launched[i].first, first) && str_same(s->launched[i].second, second))
      return;
  if (s->launched_count < C2T_MAX_TMA_ARRAYS)
    s->launched[s->launched_count++] = (LaunchedPair){first, second};
}

/* The module's calls ct.launch(stream, grid, KERNEL, ARGS), in one walk for all its kernels
 * (a walk per kernel made a module of many kernels take quadratic time). */
static void scan_launches(Node *node, void *data) {
  LaunchScan *scan = data;
  if (node->kind == N_CALL && node->u.call.args.count >= 4) {
    const char *member = resolve_ct_member(scan->L->conv, node->u.call.func);
    if (member && strcmp(member, "launch") == 0)
      node_list_push(&scan->L->ctx->arena, &scan->state->launches, node);
  }
  node_children(node, scan_launches, data);
}

/* ct.launch(stream, grid, KERNEL, (a, b, b, ...)): the parameters given one name. */
static void note_launch(LaunchScan *scan, const Node *launch) {
  const char *member = resolve_ct_member(scan->L->conv, launch->u.call.func);
  if (!member || strcmp(member, "launch") != 0 || launch->u.call.args.count < 4)
    return; /* no longer a ct.launch: the host code rewritten since the walk */
  const Node *kernel = launch->u.call.args.items[2], *args = launch->u.call.args.items[3];
  const NodeList *params = &scan->def->u.function_def.args->u.arguments.args;
  if (!names_kernel(kernel, scan->def->u.function_def.name) || args->kind != N_TUPLE ||
      args->u.list.elts.count != params->count)
    return;
  const NodeList *given = &args->u.list.elts;
  for (int i = 0; i < given->count; i++)
    for (int j = i + 1; j < given->count; j++)
      if (given->items[i]->kind == N_NAME && given->items[j]->kind == N_NAME &&
          str_same(given->items[i]->u.name.id, given->items[j]->u.name.id)) {
        add_launched(scan->state, params->items[i]->u.arg.arg, params->items[j]->u.arg.arg);
        add_launched(scan->state, params->items[j]->u.arg.arg, params->items[i]->u.arg.arg);
      }
}

void reuse_start_kernel(Lowerer *L) {
  ReuseState *s = state(L);
  s->pair_count = 0;
  s->launched_count = 0;
  LaunchScan scan = {L, s, L->function->def};
  if (!s->scanned) {
    NodeList *body = &L->conv->module->u.module.body;
    for (int i = 0; i < body->count; i++)
      scan_launches(body->items[i], &scan);
    s->scanned = true;
  }
  for (int i = 0; i < s->launches.count; i++)
    note_launch(&scan, s->launches.items[i]);
}

static bool launched_as_one(const ReuseState *s, Str first, Str second) {
  for (int i = 0; i < s->launched_count; i++)
    if (str_same(s->launched[i].first, first) && str_same(s->launched[i].second, second))
      return true;
  return false;
}

void reuse_start_version(Lowerer *L) {
  ReuseState *s = state(L);
  s->load_count = 0;
  s->convert_count = 0;
  s->loop = 0;
  s->writes = 0;
}

int reuse_enter_loop(Lowerer *L) {
  ReuseState *s = state(L);
  int outer = s->loop;
  s->loop = ++s->loops;
  return outer;
}

void reuse_leave_loop(Lowerer *L, int outer) { state(L)->loop = outer; }

void reuse_note_write(Lowerer *L) { state(L)->writes++; }

int reuse_pair_count(Lowerer *L) { return L->reuse ? L->reuse->pair_count : 0; }

bool reuse_is_flag(Lowerer *L, const Node *condition) {
  for (int i = 0; condition->kind == N_NAME && L->reuse && i < L->reuse->pair_count; i++)
    if (str_eq(condition->u.name.id, L->reuse->pairs[i].flag))
      return true;
  return false;
}

void reuse_keep_pairs(Lowerer *L, int count) {
  if (L->reuse && count < L->reuse->pair_count)
    L->reuse->pair_count = count;
}

const char *reuse_pair(Lowerer *L, int i, Str *first, Str *second) {
  const ReusePair *pair = &L->reuse->pairs[i];
  *first = pair->first;
  *second = pair->second;
  return pair->flag;
}

/* ------------------------------------------------------------ the loads */

typedef struct NameScan {
  Str names[C2T_MAX_REUSE_NAMES];
  int count;
  bool overflow;
} NameScan;

static void scan_names(Node *node, void *data) {
  NameScan *scan = data;
  if (node->kind == N_NAME) {
    for (int i = 0; i < scan->count; i++)
      if (str_same(scan->names[i], node->u.name.id))
        return;
    if (scan->count == C2T_MAX_REUSE_NAMES)
      scan->overflow = true;
    else
      scan->names[scan->count++] = node->u.name.id;
    return;
  }
  node_children(node, scan_names, data);
}

static unsigned serial_of(Lowerer *L, Str name) {
  const Variable *var = scope_lookup(L, name);
  return var ? var->serial : 0; /* a parameter never bound again, or a global */
}

static bool same_node_text(Lowerer *L, const Node *a, const Node *b) {
  if (!a || !b)
    return a == b;
  return memory_same_text(L, a, b);
}

/* Whether `load` reads the tile `index`/`size`/`padding`/`check` would, with nothing between. */
static bool reads_the_same(Lowerer *L, const ReuseLoad *load, Node *const *index, Node *const *size, int rank,
                           int padding, const Node *check) {
  const ReuseState *s = L->reuse;
  if (!load->as_stored || load->rank != rank || load->padding != padding || load->loop != s->loop ||
      load->writes != s->writes || !same_node_text(L, load->check, check))
    return false;
  for (int a = 0; a < rank; a++)
    if (!memory_same_text(L, load->index[a], index[a]) || !memory_same_text(L, load->size[a], size[a]))
      return false;
  for (int i = 0; i < load->name_count; i++)
    if (serial_of(L, load->names[i]) != load->serials[i])
      return false;
  return true;
}

/* A name that holds the tile of load `id` now, or NULL. */
static Variable *holder(Lowerer *L, int id) {
  for (int i = L->scope && id ? L->scope->count - 1 : -1; i >= 0; i--)
    if (L->scope->vars[i].reuse_load == id && !L->scope->vars[i].reuse_convert && !L->scope->vars[i].reuse_when)
      return &L->scope->vars[i];
  return NULL;
}

static const char *pair_flag(Lowerer *L, Str first, Str second) {
  ReuseState *s = state(L);
  for (int i = 0; i < s->pair_count; i++)
    if (str_same(s->pairs[i].first, first) && str_same(s->pairs[i].second, second))
      return s->pairs[i].flag;
  if (s->pair_count == C2T_MAX_TMA_ARRAYS)
    return NULL; /* more pairs: the loads stay as they are */
  const char *flag = arena_printf(&L->ctx->arena, "%.*s_is_%.*s", second.len, second.text, first.len, first.text);
  const NodeList *params = &L->function->def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < params->count; i++)
    if (str_eq(params->items[i]->u.arg.arg, flag))
      return NULL; /* a parameter of that name (locals of it are renamed: lower_names.c) */
  s->pairs[s->pair_count++] = (ReusePair){first, second, flag};
  return flag;
}

static bool identity(const int *perm, int rank) {
  for (int d = 0; d < rank; d++)
    if (perm[d] != d)
      return false;
  return true;
}

static bool is_tl_call(const Node *node, const char *name, int args) {
  if (node->kind != N_CALL || node->u.call.args.count != args || node->u.call.keywords.count)
    return false;
  const Node *func = node->u.call.func;
  return func->kind == N_ATTRIBUTE && func->u.attribute.value->kind == N_NAME &&
         str_eq(func->u.attribute.value->u.name.id, "tl") && str_eq(func->u.attribute.attr, name);
}

/* Whether the tile `var` holds has the dimensions of the tuple node `shape`. */
static bool has_shape(Lowerer *L, const Variable *var, const Node *shape) {
  bool own = var->type && var->type->kind == VAL_TILE && shape->kind == N_TUPLE &&
             shape->u.list.elts.count == var->type->rank;
  for (int d = 0; own && d < var->type->rank; d++)
    own = var->type->dims[d] && memory_same_text(L, var->type->dims[d], shape->u.list.elts.items[d]);
  return own;
}

/* tl.reshape(tl.reshape(k, A), B) as tl.reshape(k, B) (a reshape keeps the elements' order),
 * and as k where B is k's own shape; *reshaped: whether `taken` is such a chain (else it
 * permutes, and stays as it is). */
static Node *reshaped_once(Lowerer *L, Node *taken, const Variable *var, bool *reshaped) {
  Node *inner = taken;
  while (is_tl_call(inner, "reshape", 2))
    inner = inner->u.call.args.items[0];
  *reshaped = inner->kind == N_NAME;
  if (inner == taken || inner->kind != N_NAME)
    return taken;
  Node *shape = taken->u.call.args.items[1];
  return has_shape(L, var, shape) ? inner : T(L, "tl.reshape(_1, _2)", inner, shape);
}

Node *reuse_load(Lowerer *L, const ReuseSite *site, Node *loaded) {
  if (!L->function || (L->function->role != ROLE_KERNEL && !L->device_tma) || !L->scope)
    return loaded;
  /* a tile function lowered for a call: its loads are followed (lower_memory_kmajor.c), never
     taken from one another (the flags are a kernel's, compared by its launcher) */
  bool takes = L->function->role == ROLE_KERNEL && !site->rank_in_branch;
  ReuseState *s = state(L);
  int rank = site->rank;
  NameScan scan = {0};
  for (int a = 0; a < rank; a++)
    scan_names(site->index[a], &scan);
  if (scan.overflow)
    return loaded;
  const char *flag = NULL;
  int source = 0;
  for (int i = takes ? s->load_count - 1 : -1; i >= 0 && !flag; i--) {
    const ReuseLoad *earlier = &s->loads[i];
    if (earlier->followed_only || str_same(earlier->param, site->param) ||
        !launched_as_one(s, earlier->param, site->param) ||
        !reads_the_same(L, earlier, site->index, site->size, rank, site->padding, site->check))
      continue;
    Variable *var = holder(L, earlier->id);
    if (!var || !(flag = pair_flag(L, earlier->param, site->param)))
      continue;
    Node *sizes[MAX_TILE_RANK];
    for (int a = 0; a < rank; a++)
      sizes[a] = node_copy_tree(&L->ctx->arena, site->size[a]);
    /* the tile as stored, then in this load's order (reshaped_once drops what is not needed) */
    Node *holder_name = new_name(L, arena_strndup(&L->ctx->arena, var->name.text, (size_t)var->name.len));
    Node *taken = T(L, "tl.reshape(_1, _2)", holder_name, shape_tuple_node(L, sizes, rank));
    if (!identity(site->perm, rank)) {
      for (int a = 0; a < rank; a++)
        sizes[a] = node_copy_tree(&L->ctx->arena, site->size[a]);
      taken = shape_permute(L, taken, site->perm, rank, sizes);
    }
    bool reshaped;
    taken = reshaped_once(L, taken, var, &reshaped);
    source = reshaped ? earlier->id : 0;
    loaded = memory_choice(L, new_name(L, flag), taken, loaded);
  }
  if (s->load_count == C2T_MAX_REUSE_LOADS)
    return loaded; /* remembered no more: later loads read their own */
  ReuseLoad *load = &s->loads[s->load_count++];
  *load = (ReuseLoad){.id = s->load_count, .param = site->param, .node = loaded, .flag = flag, .source = source,
                      .rank = rank, .padding = site->padding, .check = site->check,
                      .as_stored = identity(site->perm, rank), .followed_only = !takes,
                      .loop = s->loop, .writes = s->writes,
                      .name_count = scan.count};
  for (int a = 0; a < rank; a++) {
    load->index[a] = site->index[a];
    load->size[a] = site->size[a];
  }
  for (int i = 0; i < scan.count; i++) {
    load->names[i] = scan.names[i];
    load->serials[i] = serial_of(L, scan.names[i]);
  }
  return loaded;
}

/* ------------------------------------------------------------ the names */

ReuseValue reuse_value(Lowerer *L, const Node *value) {
  ReuseValue out = {0};
  if (!L->reuse || !L->scope || !value)
    return out;
  for (int i = L->reuse->load_count - 1; i >= 0; i--)
    if (L->reuse->loads[i].node == value) {
      const ReuseLoad *load = &L->reuse->loads[i];
      return (ReuseValue){load->id, load->flag, load->source, false, 0, NULL};
    }
  for (int i = L->reuse->convert_count - 1; i >= 0; i--)
    if (L->reuse->converts[i].node == value)
      return (ReuseValue){L->reuse->converts[i].load, NULL, 0, false, i + 1, L->reuse->converts[i].when};
  if (value->kind == N_NAME) /* another name for what a name holds */
    return reuse_of_name(L, value->u.name.id);
  bool transpose = is_tl_call(value, "trans", 1);
  if (!transpose && !is_tl_call(value, "reshape", 2))
    return out;
  ReuseValue held = reuse_value(L, value->u.call.args.items[0]);
  if (held.transposed || held.convert)
    return out; /* reshaped or transposed again, or a converted tile reshaped: not followed */
  if (transpose) /* a 2-D tile transposed: for the product (reuse_operand) */
    return value->type && value->type->rank == 2 && !held.when ? (ReuseValue){0, held.flag, held.source, true, 0, NULL}
                                                                : out;
  return held; /* reshaped: the same elements in the same order */
}

void reuse_bind(Lowerer *L, Str name, ReuseValue value) {
  Variable *var = scope_lookup(L, name);
  if (!var || (!value.load && !value.flag))
    return;
  var->reuse_load = value.load;
  var->reuse_flag = value.flag;
  var->reuse_source = value.source;
  var->reuse_transposed = value.transposed;
  var->reuse_convert = value.convert;
  var->reuse_when = value.when;
}

struct ReuseState *reuse_enter_function(Lowerer *L) {
  ReuseState *caller = L->reuse;
  L->reuse = NULL; /* its own loads (state() makes the list at its first) */
  return caller;
}

void reuse_leave_function(Lowerer *L, struct ReuseState *caller) { L->reuse = caller; }

ReuseValue reuse_of_name(Lowerer *L, Str name) {
  const Variable *var = L->reuse && L->scope ? scope_lookup(L, name) : NULL;
  if (!var)
    return (ReuseValue){0};
  return (ReuseValue){var->reuse_load, var->reuse_flag, var->reuse_source, var->reuse_transposed, var->reuse_convert,
                      var->reuse_when};
}

/* A load's tile as it was read, held always: no flag, transpose, conversion or condition. */
static bool plain_load(const ReuseValue *value) {
  return value->load && !value->flag && !value->transposed && !value->convert && !value->when;
}

/* The launcher's text of `source` (a condition on constexpr parameters), negated where not `taken`. */
static const char *launch_condition(Lowerer *L, const Node *source, bool taken) {
  Buf *written = lower_buf(L);
  Emitter emitter;
  emitter_init_bare(&emitter, L->ctx, written);
  if (!taken)
    buf_puts(written, "not ");
  emit_expr(&emitter, source, taken ? PREC_NOT : PREC_BOR);
  return arena_strndup(&L->ctx->arena, written->data, written->len);
}

void reuse_join(Lowerer *L, Str name, Node *test, const Node *source, ReuseValue body, ReuseValue orelse) {
  if (!L->reuse || !L->scope || !source || !constexpr_param_condition(L, source))
    return;
  ReuseValue merged = {0};
  if (plain_load(&body) && plain_load(&orelse) && body.load <= L->reuse->load_count &&
      orelse.load <= L->reuse->load_count) {
    /* both branches hold the same tile (the same array, index, shape, padding, check): either's */
    const ReuseLoad *a = &L->reuse->loads[body.load - 1], *b = &L->reuse->loads[orelse.load - 1];
    if (str_same(a->param, b->param) && a->writes == b->writes &&
        reads_the_same(L, a, b->index, b->size, b->rank, b->padding, b->check))
      merged = body;
  } else if (plain_load(&body) != plain_load(&orelse)) {
    /* one branch holds a load's tile, the other something else: that tile where its branch runs */
    bool taken = plain_load(&body);
    ReuseWhen *when = arena_alloc(&L->ctx->arena, sizeof(ReuseWhen));
    *when = (ReuseWhen){node_copy_tree(&L->ctx->arena, test), taken, launch_condition(L, source, taken)};
    merged = taken ? body : orelse;
    merged.when = when;
  }
  reuse_bind(L, name, merged);
}

const char *reuse_operand(Lowerer *L, const Node *x, Node **transposed) {
  *transposed = NULL;
  ReuseValue value = reuse_value(L, x);
  if (!value.transposed || !value.flag || !x->type || x->type->rank != 2 || !x->type->dims[0] || !x->type->dims[1])
    return NULL;
  /* xᵀ is the tile of load `source` reshaped, where a name holds it still */
  Variable *var = holder(L, value.source);
  if (var) {
    Arena *arena = &L->ctx->arena;
    Node *shape = T(L, "(_1, _2)", node_copy_tree(arena, x->type->dims[1]), node_copy_tree(arena, x->type->dims[0]));
    Node *name = new_name(L, arena_strndup(arena, var->name.text, (size_t)var->name.len));
    *transposed = has_shape(L, var, shape) ? name : T(L, "tl.reshape(_1, _2)", name, shape);
  }
  return value.flag;
}

Node *reuse_choice(Lowerer *L, const char *flag, Node *when, Node *otherwise) {
  Node *choice = memory_choice(L, new_name(L, flag), when, otherwise);
  choice->type = otherwise->type;
  return choice;
}

static bool tracked(Lowerer *L, ReuseValue held, TrackedLoad *out) {
  if (!held.load || held.flag || held.transposed || held.load > L->reuse->load_count)
    return false;
  const ReuseLoad *load = &L->reuse->loads[held.load - 1];
  if (!load->as_stored || load->loop != L->reuse->loop)
    return false;
  for (int i = 0; i < load->name_count; i++) /* its index reads the same values now */
    if (serial_of(L, load->names[i]) != load->serials[i])
      return false;
  out->param = load->param;
  out->when = held.when;
  out->rank = load->rank;
  out->padding = load->padding;
  for (int a = 0; a < load->rank; a++) {
    out->index[a] = load->index[a];
    out->size[a] = load->size[a];
  }
  return true;
}

bool reuse_tracked_load(Lowerer *L, const Node *value, TrackedLoad *out) {
  ReuseValue held = reuse_value(L, value);
  return !held.convert && tracked(L, held, out);
}

void reuse_note_convert(Lowerer *L, const Node *x, const Node *result, const ReuseConvert *how) {
  if (!L->function || (L->function->role != ROLE_KERNEL && !L->device_tma) || !L->reuse || result == x ||
      L->reuse->convert_count == C2T_MAX_REUSE_LOADS)
    return;
  ReuseValue held = reuse_value(L, x);
  if (!held.load || held.flag || held.transposed || held.convert)
    return;
  L->reuse->converts[L->reuse->convert_count++] = (ReuseConverted){result, held.load, held.when, *how};
}

bool reuse_tracked_convert(Lowerer *L, const Node *value, TrackedLoad *out, ReuseConvert *how) {
  ReuseValue held = reuse_value(L, value);
  if (!held.convert || held.convert > L->reuse->convert_count || !tracked(L, held, out))
    return false;
  *how = L->reuse->converts[held.convert - 1].how;
  return true;
}
