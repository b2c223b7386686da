/*
 * lower_spread.c — kernels whose programs share one grid-stride loop:
 * the launcher may launch more programs than the host asked for.
 *
 * A persistent kernel is written
 *
 *     bid = ct.bid(0)
 *     num_programs = ct.num_blocks(0)
 *     offsets = ct.arange(TILE, dtype=ct.int32)
 *     for row in range(bid, n_rows, num_programs):
 *         t = ct.gather(x, (row, offsets), ...)
 *         ...
 *         ct.scatter(y, (row, offsets), ...)
 *
 * and launched on the SM count times a small factor (cuTile's occupancy).
 * Translated as it stands, each Triton program walks its rows one after the
 * other, and the grid caps how many rows are in flight: on an H100 the skill's
 * softmax at 32768x1024 (float16) moved 1909 GB/s on 528 programs at best
 * against 2537 on 8448 and 2697 for the hand-written kernel, one program a row
 * (docs/perf/h100_2026-12-06e/spread_probe.txt).
 *
 * Where the program count cannot change what the kernel computes, the
 * launcher lets the autotuner choose it: `_grid_spread`, a constexpr of the
 * kernel that its code does not read, is a candidate's factor on the grid's
 * first axis (_SpreadGrid: at most `stop` programs, where the host can compute
 * the loop's stop as the kernel does (host_stop), at least the host's).
 * That holds when (spread_scan_kernel, on the source before it is lowered):
 *
 *   - the body is statements without effects, then that one `for` (no `else`,
 *     no `break` or `return` in it), then nothing: its start is ct.bid(0) and
 *     its step ct.num_blocks(0) (or names bound once to them before the loop,
 *     read nowhere else), and ct.bid and ct.num_blocks appear nowhere else
 *     (another axis is not spread, but a program reading it would see its
 *     position move); or its step is a parameter read and bound nowhere else
 *     (a persistent kernel's NUM_SMS, the host's program count): the loop then
 *     steps by `tl.num_programs(0) if _step_is_grid else NUM_SMS`, and the
 *     launcher sets _step_is_grid and lets the grid spread only where the
 *     host's grid makes the two one walk (_grid_steps: the parameter is the
 *     program count, or no program reaches a second iteration either way);
 *   - no product of matrices (no candidate spreads such a kernel);
 *   - no name the loop body binds was bound before it (a parameter, a local
 *     of the statements above, the loop's own variable): no value is carried
 *     from one iteration to the next, which a program walking other rows would
 *     see change;
 *   - the body calls only cuTile's operations, Python's builtins and methods
 *     of values (no tile function, whose effects are not followed here, no
 *     atomic operation, whose order would change a result);
 *   - every array it writes is a parameter, written with the loop variable
 *     itself as an item of the index (or, by one ct.store, with items that
 *     give the variable back: its quotient and remainder by one divisor, of
 *     those in turn, `b, v = i // n, i % n` and `h = b % m, b = b // m`, as a
 *     kernel walks (batch, head, block) flattened; i -> (i // n, i % n) is one
 *     to one for any n but 0, so two iterations store two tiles), by one
 *     ct.store, or by ct.scatter calls
 *     all at the same item (an element index: iteration i writes where no other
 *     iteration writes; two ct.store calls could store tiles of two extents),
 *     without order=, and read nowhere (only its .shape, .dtype and .ndim),
 *     but by ct.gather at the item its ct.scatter calls write (an in-place
 *     row: iteration i reads only what it writes): no iteration reads what
 *     another writes. An `if` whose test only constants decide (constexpr
 *     parameters) has one outcome per specialization of the kernel: the rule
 *     holds for each combination of outcomes on its own (an array stored under
 *     one and gathered under the other), up to C2T_MAX_SPREAD_BRANCHES such
 *     tests (more are followed as any `if`, both arms together).
 *
 * The last rule holds for the parameters' names; where two parameters are one
 * tensor at run time, _SpreadGrid keeps the host's grid (_apart: a written
 * array shares its storage with no other array of the launch).
 */

#include <string.h>

#include "lower.h"

typedef struct SpreadScan {
  Lowerer *L;
  bool ok;
  Str loop_var, bid_name, blocks_name;
  const Node *bid_def, *blocks_def, *range_start, *range_step; /* the uses allowed */
  /* each written array: its name, which index item holds the loop variable, by which operation */
  Str written[C2T_MAX_SPREAD_WRITTEN];
  int written_axis[C2T_MAX_SPREAD_WRITTEN];
  const char *written_by[C2T_MAX_SPREAD_WRITTEN];
  int written_count;
  Str bound_before[C2T_MAX_SPREAD_NAMES];
  int bound_before_count;
  /* quotients and remainders of the loop variable (derived[0] stands for the variable
     itself): of derived[parent], by a divisor bound before the loop or a number, and the
     name a statement of the loop body binds to it once, if any */
  struct {
    int parent;
    AstOp op;
    const Node *divisor;
    Str name;
  } derived[C2T_MAX_SPREAD_DERIVED];
  int derived_count;
  Str counting; /* count_bindings: the name, and how often the loop body binds it */
  int count;
  Str step_param; /* the parameter the loop steps by, where not ct.num_blocks(0) */
  /* the loop body's `if`s whose test only constants decide (constexpr parameters): one
     outcome per specialization of the kernel, so each pass follows one arm of each */
  const Node *const_ifs[C2T_MAX_SPREAD_BRANCHES];
  int const_if_count;
  unsigned arms; /* this pass: bit k set, the body of const_ifs[k]; clear, its orelse */
} SpreadScan;

static const char *member_of(SpreadScan *s, const Node *func) { return resolve_ct_member(s->L->conv, func); }

/* Whether `n` is `ct.<member>(0)` (ct.bid(0), ct.num_blocks(0)). */
static bool is_axis0_call(SpreadScan *s, const Node *n, const char *member) {
  if (!n || n->kind != N_CALL || n->u.call.args.count != 1 || n->u.call.keywords.count != 0)
    return false;
  const char *m = member_of(s, n->u.call.func);
  const Node *a = n->u.call.args.items[0];
  return m && strcmp(m, member) == 0 && a->kind == N_CONSTANT && a->u.constant.kind == CONST_NUMBER &&
         str_eq(a->u.constant.text, "0");
}

static bool name_is(const Node *n, Str name) {
  return n && n->kind == N_NAME && name.len && str_same(n->u.name.id, name);
}

static int written_index(const SpreadScan *s, Str name) {
  for (int i = 0; i < s->written_count; i++)
    if (str_same(s->written[i], name))
      return i;
  return -1;
}

static void note_bound(SpreadScan *s, Str name) {
  if (s->bound_before_count == C2T_MAX_SPREAD_NAMES)
    s->ok = false; /* past the limit: not spread (the kernel converts as before) */
  else
    s->bound_before[s->bound_before_count++] = name;
}

static bool bound_before(const SpreadScan *s, Str name) {
  for (int i = 0; i < s->bound_before_count; i++)
    if (str_same(s->bound_before[i], name))
      return true;
  return false;
}

/* The names a target binds (a name, or the items of a tuple or list), each passed to `each`. */
static void target_names(SpreadScan *s, const Node *target, void (*each)(SpreadScan *, Str)) {
  if (!target)
    return;
  if (target->kind == N_NAME)
    each(s, target->u.name.id);
  else if (target->kind == N_TUPLE || target->kind == N_LIST)
    for (int i = 0; i < target->u.list.elts.count; i++)
      target_names(s, target->u.list.elts.items[i], each);
  else if (target->kind == N_STARRED)
    target_names(s, target->u.starred.value, each);
  else
    s->ok = false; /* an attribute or an item of something: not followed */
}

static void refuse_if_bound_before(SpreadScan *s, Str name) {
  if (bound_before(s, name))
    s->ok = false;
}

/* The array and index arguments of an access, ct.store(A, index, tile),
 * ct.scatter(A, indices, value) or ct.gather(A, indices), positional or by
 * keyword; false where another keyword makes it something the rule does not
 * follow (order=, **options). */
static bool access_args(const Node *call, const Node **array, const Node **index) {
  *array = call->u.call.args.count > 0 ? call->u.call.args.items[0] : NULL;
  *index = call->u.call.args.count > 1 ? call->u.call.args.items[1] : NULL;
  for (int i = 0; i < call->u.call.keywords.count; i++) {
    const Node *k = call->u.call.keywords.items[i];
    Str arg = k->u.keyword.arg;
    if (str_eq(arg, "array"))
      *array = k->u.keyword.value;
    else if (str_eq(arg, "index") || str_eq(arg, "indices"))
      *index = k->u.keyword.value;
    else if (str_eq(arg, "order") || !arg.len)
      return false;
  }
  return *array && (*array)->kind == N_NAME && *index;
}

/* The item of an index that is the loop variable itself (0 for the variable
 * alone, a 1-D index), or -1. */
static int loop_item(const SpreadScan *s, const Node *index) {
  if (name_is(index, s->loop_var))
    return 0;
  if (index->kind == N_TUPLE)
    for (int i = 0; i < index->u.list.elts.count; i++)
      if (name_is(index->u.list.elts.items[i], s->loop_var))
        return i;
  return -1;
}

/* Whether `n` is a divisor the loop body cannot change: a number, or a name
 * bound before the loop (the loop rebinds none of those). */
static bool invariant_divisor(const SpreadScan *s, const Node *n) {
  if (n->kind == N_CONSTANT)
    return n->u.constant.kind == CONST_NUMBER;
  return n->kind == N_NAME && !str_same(n->u.name.id, s->loop_var) && bound_before(s, n->u.name.id);
}

static bool same_divisor(const Node *a, const Node *b) {
  if (a->kind != b->kind)
    return false;
  return a->kind == N_NAME ? str_same(a->u.name.id, b->u.name.id) : str_same(a->u.constant.text, b->u.constant.text);
}

/* The derived value that `n` is (0: the loop variable; a quotient or remainder,
 * spelled out or by the name bound to it), entered in s->derived if new; -1 if
 * `n` is none (or past C2T_MAX_SPREAD_DERIVED). */
static int derived_of(SpreadScan *s, const Node *n) {
  if (n->kind == N_NAME) {
    for (int i = 0; i < s->derived_count; i++)
      if (s->derived[i].name.len && str_same(s->derived[i].name, n->u.name.id))
        return i;
    return -1;
  }
  if (n->kind != N_BIN_OP || (n->u.bin_op.op != AOP_FLOORDIV && n->u.bin_op.op != AOP_MOD) ||
      !invariant_divisor(s, n->u.bin_op.right))
    return -1;
  int parent = derived_of(s, n->u.bin_op.left);
  if (parent < 0)
    return -1;
  for (int i = 1; i < s->derived_count; i++)
    if (s->derived[i].parent == parent && s->derived[i].op == n->u.bin_op.op &&
        same_divisor(s->derived[i].divisor, n->u.bin_op.right))
      return i;
  if (s->derived_count == C2T_MAX_SPREAD_DERIVED)
    return -1;
  int at = s->derived_count++;
  s->derived[at].parent = parent;
  s->derived[at].op = n->u.bin_op.op;
  s->derived[at].divisor = n->u.bin_op.right;
  s->derived[at].name = (Str){0};
  return at;
}

/* Whether derived value `id` is given back by the items marked in `held`: one of
 * them, or its quotient and remainder by one divisor, each given back. */
static bool given_back(const SpreadScan *s, int id, const bool *held) {
  if (held[id])
    return true;
  for (int q = 1; q < s->derived_count; q++) {
    if (s->derived[q].parent != id || s->derived[q].op != AOP_FLOORDIV || !given_back(s, q, held))
      continue;
    for (int r = 1; r < s->derived_count; r++)
      if (s->derived[r].parent == id && s->derived[r].op == AOP_MOD &&
          same_divisor(s->derived[r].divisor, s->derived[q].divisor) && given_back(s, r, held))
        return true;
  }
  return false;
}

/* Whether the items of a ct.store's index give the loop variable back. */
static bool index_gives_back(SpreadScan *s, const Node *index) {
  if (index->kind != N_TUPLE)
    return false;
  bool held[C2T_MAX_SPREAD_DERIVED] = {false};
  for (int i = 0; i < index->u.list.elts.count; i++) {
    int id = derived_of(s, index->u.list.elts.items[i]);
    if (id >= 0)
      held[id] = true;
  }
  return given_back(s, 0, held);
}

/* The names statement or expression `n` itself binds (not its children), each passed to `each`. */
static void node_bindings(SpreadScan *s, const Node *n, void (*each)(SpreadScan *, Str)) {
  switch (n->kind) {
  case N_ASSIGN:
    for (int i = 0; i < n->u.assign.targets.count; i++)
      target_names(s, n->u.assign.targets.items[i], each);
    break;
  case N_AUG_ASSIGN: target_names(s, n->u.aug_assign.target, each); break;
  case N_ANN_ASSIGN: target_names(s, n->u.ann_assign.target, each); break;
  case N_NAMED_EXPR: target_names(s, n->u.named_expr.target, each); break;
  case N_FOR: target_names(s, n->u.for_.target, each); break;
  default: break;
  }
}

static void count_binding(SpreadScan *s, Str name) {
  if (str_same(name, s->counting))
    s->count++;
}

static void count_bindings(Node *n, void *data) {
  SpreadScan *s = data;
  if (!n)
    return;
  node_bindings(s, n, count_binding);
  node_children(n, count_bindings, s);
}

/* How often the statements of `body` bind `name` (a parameter rebound, a local bound twice). */
static int bindings_of(SpreadScan *s, NodeList *body, Str name) {
  s->counting = name;
  s->count = 0;
  for (int i = 0; i < body->count; i++)
    count_bindings(body->items[i], s);
  return s->count;
}

/* The names the loop body's own statements bind, once, to a quotient or
 * remainder of the loop variable (idx_b = idx_block // n). */
static void name_derived(SpreadScan *s, NodeList *body) {
  s->derived_count = 1; /* derived[0]: the loop variable */
  s->derived[0].parent = -1;
  s->derived[0].name = s->loop_var;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1 || stmt->u.assign.targets.items[0]->kind != N_NAME ||
        stmt->u.assign.value->kind != N_BIN_OP)
      continue;
    Str name = stmt->u.assign.targets.items[0]->u.name.id;
    int id = bindings_of(s, body, name) == 1 ? derived_of(s, stmt->u.assign.value) : -1;
    if (id > 0 && !s->derived[id].name.len)
      s->derived[id].name = name;
  }
}

/* A write, ct.store or ct.scatter: of a parameter, the loop variable an item
 * of its index (or, for a ct.store, items that give it back), as at the array's
 * other writes. */
static void check_write(SpreadScan *s, const Node *call, const char *member) {
  const Node *array, *index;
  bool found = access_args(call, &array, &index);
  int axis = found ? loop_item(s, index) : -1;
  if (axis < 0 && found && strcmp(member, "store") == 0 && index_gives_back(s, index))
    axis = C2T_MAX_SPREAD_DERIVED; /* no single item: only this one ct.store writes the array */
  if (axis < 0) {
    s->ok = false;
    return;
  }
  int at = written_index(s, array->u.name.id);
  if (at < 0) {
    if (s->written_count == C2T_MAX_SPREAD_WRITTEN) {
      s->ok = false;
      return;
    }
    at = s->written_count++;
    s->written[at] = array->u.name.id;
    s->written_axis[at] = axis;
    s->written_by[at] = member;
  } else if (s->written_axis[at] != axis || strcmp(s->written_by[at], member) != 0 || strcmp(member, "store") == 0) {
    /* at another item, by the other operation, or a second ct.store: its tile may span
       another extent of that axis (a (2, N) tile at row i covers what a (1, N) tile at row
       2i does) */
    s->ok = false;
  }
}

static void collect_constant_ifs(Node *n, void *data) {
  SpreadScan *s = data;
  if (!n)
    return;
  /* past C2T_MAX_SPREAD_BRANCHES an `if` is followed as any other: both arms in one pass */
  if (n->kind == N_IF && s->const_if_count < C2T_MAX_SPREAD_BRANCHES && constexpr_param_condition(s->L, n->u.if_.test))
    s->const_ifs[s->const_if_count++] = n;
  node_children(n, collect_constant_ifs, s);
}

/* The arm of `n` this pass follows, or NULL where `n` is not an `if` of constants. */
static NodeList *constant_arm(SpreadScan *s, Node *n) {
  if (n->kind != N_IF)
    return NULL;
  for (int k = 0; k < s->const_if_count; k++)
    if (s->const_ifs[k] == n)
      return s->arms >> k & 1 ? &n->u.if_.body : &n->u.if_.orelse;
  return NULL;
}

/* Python's builtins a loop body may call (none has an effect on arrays). */
static bool harmless_builtin(Str name) {
  static const char *const NAMES[] = {"range", "min", "max", "int", "float", "bool", "len", "abs", "isinstance",
                                      "print", "tuple", "list", "divmod", "pow", "round", NULL};
  for (int i = 0; NAMES[i]; i++)
    if (str_eq(name, NAMES[i]))
      return true;
  return false;
}

typedef struct SpreadWalk {
  SpreadScan *s;
  bool in_loop; /* inside the loop's body (else the statements before it) */
} SpreadWalk;

static void walk_node(Node *n, void *data);

static void check_call(SpreadWalk *w, Node *call) {
  SpreadScan *s = w->s;
  const Node *func = call->u.call.func;
  const char *member = member_of(s, func);
  if (member) {
    if (strncmp(member, "atomic", 6) == 0 || strncmp(member, "mma", 3) == 0 || strcmp(member, "matmul") == 0)
      s->ok = false; /* an atomic's order would change a result; a product of matrices is not spread */
    else if ((strcmp(member, "bid") == 0 || strcmp(member, "num_blocks") == 0) && call != s->bid_def &&
             call != s->blocks_def && call != s->range_start && call != s->range_step)
      s->ok = false;
    else if (strcmp(member, "store") == 0 || strcmp(member, "scatter") == 0) {
      if (!w->in_loop)
        s->ok = false; /* a write before the loop: each program makes it */
      else
        check_write(s, call, member);
    }
    return;
  }
  if (func->kind == N_NAME) {
    if (!harmless_builtin(func->u.name.id))
      s->ok = false; /* a tile function (or anything else): its effects are not followed */
    return;
  }
  if (func->kind == N_ATTRIBUTE) { /* a method of a value: t.astype(...), t.reshape(...) */
    Str attr = func->u.attribute.attr;
    if (str_eq(attr, "store") || str_eq(attr, "scatter") || strncmp(attr.text, "atomic", 6) == 0 ||
        str_eq(attr, "tiled_view") || str_eq(attr, "slice"))
      s->ok = false;
    return;
  }
  s->ok = false;
}

static void walk_list(SpreadWalk *w, NodeList *list) {
  for (int i = 0; i < list->count && w->s->ok; i++)
    walk_node(list->items[i], w);
}

static void walk_node(Node *n, void *data) {
  SpreadWalk *w = data;
  SpreadScan *s = w->s;
  if (!n || !s->ok)
    return;
  NodeList *arm = w->in_loop ? constant_arm(s, n) : NULL;
  if (arm) { /* one specialization's arm (the test reads only constants) */
    walk_list(w, arm);
    return;
  }
  /* before the loop a binding is noted; in it, one of a name bound before is refused */
  void (*bind)(SpreadScan *, Str) = w->in_loop ? refuse_if_bound_before : note_bound;
  switch (n->kind) {
  case N_BREAK:
  case N_RETURN:
  case N_YIELD:
  case N_YIELD_FROM:
  case N_GLOBAL:
  case N_NONLOCAL:
  case N_DELETE:
  case N_WITH:
  case N_WHILE: /* a while loop's condition may read what the body carries */
  case N_FUNCTION_DEF:
  case N_LAMBDA:
    s->ok = false;
    return;
  case N_ASSIGN:
  case N_AUG_ASSIGN:
  case N_ANN_ASSIGN:
  case N_NAMED_EXPR:
  case N_FOR: node_bindings(s, n, bind); break;
  case N_CALL: check_call(w, n); break;
  case N_BIN_OP: /* a product of matrices: no candidate spreads such a kernel (_launch_candidates) */
    if (n->u.bin_op.op == AOP_MATMULT)
      s->ok = false;
    break;
  default: break;
  }
  if (s->ok)
    node_children(n, walk_node, w);
}

/* Every use of a written array: the first argument of its writes, or .shape, .dtype, .ndim. */
typedef struct ReadWalk {
  SpreadScan *s;
} ReadWalk;

static void read_walk(Node *n, void *data) {
  ReadWalk *r = data;
  SpreadScan *s = r->s;
  if (!n || !s->ok)
    return;
  NodeList *arm = constant_arm(s, n);
  if (arm) {
    for (int i = 0; i < arm->count; i++)
      read_walk(arm->items[i], r);
    return;
  }
  if (n->kind == N_ATTRIBUTE && n->u.attribute.value->kind == N_NAME &&
      written_index(s, n->u.attribute.value->u.name.id) >= 0) {
    Str attr = n->u.attribute.attr;
    if (!str_eq(attr, "shape") && !str_eq(attr, "dtype") && !str_eq(attr, "ndim"))
      s->ok = false;
    return; /* the name itself is not walked */
  }
  if (n->kind == N_CALL) {
    const char *member = member_of(s, n->u.call.func);
    const Node *array, *index;
    bool own_row = false; /* a gather of an array the loop scatters to, at the same item: its own row */
    if (member && strcmp(member, "gather") == 0 && access_args(n, &array, &index)) {
      int at = written_index(s, array->u.name.id);
      own_row = at >= 0 && strcmp(s->written_by[at], "scatter") == 0 && loop_item(s, index) == s->written_axis[at];
    }
    if (member && (strcmp(member, "store") == 0 || strcmp(member, "scatter") == 0 || own_row)) {
      for (int i = 0; i < n->u.call.args.count; i++)
        if (i > 0 || n->u.call.args.items[i]->kind != N_NAME)
          read_walk(n->u.call.args.items[i], r);
      for (int i = 0; i < n->u.call.keywords.count; i++)
        if (!str_eq(n->u.call.keywords.items[i]->u.keyword.arg, "array"))
          read_walk(n->u.call.keywords.items[i]->u.keyword.value, r);
      return;
    }
  }
  if (n->kind == N_NAME && written_index(s, n->u.name.id) >= 0) {
    s->ok = false;
    return;
  }
  node_children(n, read_walk, r);
}

static bool is_docstring(const Node *stmt) {
  return stmt->kind == N_EXPR_STMT && stmt->u.expr_stmt.value->kind == N_STRING;
}

/* The statement `name = ct.<member>(0)` before the loop that binds `name`, if it is one. */
static const Node *binding_call(SpreadScan *s, NodeList *body, int before, Str name, const char *member) {
  const Node *found = NULL;
  for (int i = 0; i < before; i++) {
    const Node *stmt = body->items[i];
    if (stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1 && name_is(stmt->u.assign.targets.items[0], name)) {
      if (found || !is_axis0_call(s, stmt->u.assign.value, member))
        return NULL; /* bound twice, or to something else */
      found = stmt->u.assign.value;
    }
  }
  return found;
}

static bool is_whole_number(const Node *n) {
  if (n->kind != N_CONSTANT || n->u.constant.kind != CONST_NUMBER)
    return false;
  for (int i = 0; i < n->u.constant.text.len; i++)
    if (strchr(".eEjJxXoObB", n->u.constant.text.text[i]))
      return false; /* a float, a complex number, or another base (declined, not wrong) */
  return true;
}

/* A copy of `n` the emitter writes from its children, not from the source. */
static Node *rewritten_copy(SpreadScan *s, const Node *n) {
  Node *copy = arena_alloc(&s->L->ctx->arena, sizeof(Node));
  *copy = *n;
  copy->rewritten = true;
  return copy;
}

/* The loop's stop as the host computes it from the launch's arguments (for _loop_stop: the
 * spread grid's cap, and _grid_steps): a parameter the body does not rebind, a whole number,
 * an array parameter's .shape[k], ct.cdiv (-(-x // y), cuTile's exact ceiling), min and max,
 * + - * // % and unary minus of those (Python's integer arithmetic is the kernel's), and a
 * name bound once, before the loop, to such an expression, followed at most
 * C2T_MAX_SPREAD_STOP_DEPTH names deep. NULL for anything else: the host knows no stop. */
static Node *host_stop(SpreadScan *s, NodeList *body, int before, const Node *n, int depth) {
  switch (n->kind) {
  case N_CONSTANT:
    return is_whole_number(n) ? node_copy_tree(&s->L->ctx->arena, (Node *)n) : NULL;
  case N_NAME: {
    Str name = n->u.name.id;
    if (function_has_param(s->L, name))
      return bindings_of(s, body, name) == 0 ? node_copy_tree(&s->L->ctx->arena, (Node *)n) : NULL;
    if (depth >= C2T_MAX_SPREAD_STOP_DEPTH || bindings_of(s, body, name) != 1)
      return NULL;
    for (int i = 0; i < before; i++) {
      const Node *stmt = body->items[i];
      if (stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1 && name_is(stmt->u.assign.targets.items[0], name))
        return host_stop(s, body, i, stmt->u.assign.value, depth + 1);
    }
    return NULL;
  }
  case N_UNARY_OP: {
    if (n->u.unary_op.op != AOP_USUB)
      return NULL;
    Node *operand = host_stop(s, body, before, n->u.unary_op.operand, depth);
    Node *copy = operand ? rewritten_copy(s, n) : NULL;
    if (copy)
      copy->u.unary_op.operand = operand;
    return copy;
  }
  case N_BIN_OP: {
    AstOp op = n->u.bin_op.op;
    if (op != AOP_ADD && op != AOP_SUB && op != AOP_MULT && op != AOP_FLOORDIV && op != AOP_MOD)
      return NULL;
    Node *left = host_stop(s, body, before, n->u.bin_op.left, depth);
    Node *right = left ? host_stop(s, body, before, n->u.bin_op.right, depth) : NULL;
    if (!right)
      return NULL;
    Node *copy = rewritten_copy(s, n);
    copy->u.bin_op.left = left;
    copy->u.bin_op.right = right;
    return copy;
  }
  case N_SUBSCRIPT: { /* X.shape[k] of an array parameter */
    const Node *value = n->u.subscript.value;
    if (value->kind != N_ATTRIBUTE || !str_eq(value->u.attribute.attr, "shape") ||
        value->u.attribute.value->kind != N_NAME || !function_has_param(s->L, value->u.attribute.value->u.name.id) ||
        bindings_of(s, body, value->u.attribute.value->u.name.id) != 0 || !is_whole_number(n->u.subscript.slice))
      return NULL;
    return node_copy_tree(&s->L->ctx->arena, (Node *)n);
  }
  case N_CALL: {
    const NodeList *args = &n->u.call.args;
    if (n->u.call.keywords.count || args->count < 2)
      return NULL;
    const char *member = member_of(s, n->u.call.func);
    bool cdiv = member && strcmp(member, "cdiv") == 0 && args->count == 2;
    bool builtin = !member && n->u.call.func->kind == N_NAME &&
                   (str_eq(n->u.call.func->u.name.id, "min") || str_eq(n->u.call.func->u.name.id, "max")) &&
                   !function_has_param(s->L, n->u.call.func->u.name.id) && !bindings_of(s, body, n->u.call.func->u.name.id);
    if (!cdiv && !builtin)
      return NULL;
    Node *copy = rewritten_copy(s, n);
    copy->u.call.args = (NodeList){0};
    for (int i = 0; i < args->count; i++) {
      Node *arg = host_stop(s, body, before, args->items[i], depth);
      if (!arg)
        return NULL;
      node_list_push(&s->L->ctx->arena, &copy->u.call.args, arg);
    }
    return cdiv ? T(s->L, "-(-_1 // _2)", copy->u.call.args.items[0], copy->u.call.args.items[1]) : copy;
  }
  default:
    return NULL;
  }
}

/* Each array some pass found written, once (false past C2T_MAX_SPREAD_WRITTEN). */
static bool merge_written(const SpreadScan *s, Str *all, int *count) {
  for (int i = 0; i < s->written_count; i++) {
    bool seen = false;
    for (int j = 0; j < *count && !seen; j++)
      seen = str_same(all[j], s->written[i]);
    if (seen)
      continue;
    if (*count == C2T_MAX_SPREAD_WRITTEN)
      return false;
    all[(*count)++] = s->written[i];
  }
  return true;
}

void spread_scan_kernel(Lowerer *L, Node *def) {
  L->kernel_spreads = false;
  L->spread_written_count = 0;
  L->spread_stop = (Str){0};
  L->spread_step = (Str){0};
  L->spread_loop_var = (Str){0};
  L->spread_kernel = NULL;
  NodeList *body = &def->u.function_def.body;
  int first = body->count > 0 && is_docstring(body->items[0]) ? 1 : 0;
  if (body->count - first < 1)
    return;
  Node *loop = body->items[body->count - 1];
  if (loop->kind != N_FOR || loop->u.for_.is_async || loop->u.for_.orelse.count || loop->u.for_.target->kind != N_NAME)
    return;
  const Node *iter = loop->u.for_.iter;
  if (iter->kind != N_CALL || iter->u.call.func->kind != N_NAME || !str_eq(iter->u.call.func->u.name.id, "range") ||
      iter->u.call.args.count != 3 || iter->u.call.keywords.count)
    return;
  SpreadScan s = {.L = L, .ok = true, .loop_var = loop->u.for_.target->u.name.id};
  const Node *start = iter->u.call.args.items[0], *stop = iter->u.call.args.items[1],
             *step = iter->u.call.args.items[2];
  if (is_axis0_call(&s, start, "bid"))
    s.range_start = start;
  else if (start->kind == N_NAME && (s.bid_def = binding_call(&s, body, body->count - 1, start->u.name.id, "bid")))
    s.bid_name = start->u.name.id;
  else
    return;
  if (is_axis0_call(&s, step, "num_blocks"))
    s.range_step = step;
  else if (step->kind == N_NAME &&
           (s.blocks_def = binding_call(&s, body, body->count - 1, step->u.name.id, "num_blocks")))
    s.blocks_name = step->u.name.id;
  else if (step->kind == N_NAME && function_has_param(L, step->u.name.id) && !str_same(step->u.name.id, s.loop_var))
    s.step_param = step->u.name.id; /* the host's program count, where the launcher finds it is */
  else
    return;
  /* the parameters are bound before the loop */
  const NodeList *params = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < params->count; i++)
    note_bound(&s, params->items[i]->u.arg.arg);
  SpreadWalk walk = {&s, false};
  for (int i = first; i < body->count - 1 && s.ok; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_ASSIGN && stmt->kind != N_ANN_ASSIGN && stmt->kind != N_AUG_ASSIGN && stmt->kind != N_PASS &&
        !is_docstring(stmt) && stmt->kind != N_ASSERT)
      s.ok = false; /* an `if` or a loop before the loop: not followed */
    walk_node(stmt, &walk);
  }
  if (!s.ok)
    return;
  /* the range's own arguments and the loop's target are the loop's, not a carried value */
  walk.in_loop = false;
  walk_node((Node *)stop, &walk);
  note_bound(&s, s.loop_var);
  name_derived(&s, &loop->u.for_.body);
  for (int i = 0; i < loop->u.for_.body.count; i++)
    collect_constant_ifs(loop->u.for_.body.items[i], &s);
  /* one pass per outcome of the constant tests: each specialization of the kernel holds
     the rule on its own (TileGym's persistent layer norm stores Mean under one outcome and
     gathers it under the other) */
  Str written[C2T_MAX_SPREAD_WRITTEN];
  int written_count = 0;
  walk.in_loop = true;
  for (unsigned arms = 0; arms < 1u << s.const_if_count && s.ok; arms++) {
    s.arms = arms;
    s.written_count = 0;
    walk_list(&walk, &loop->u.for_.body);
    for (int i = first; i < body->count && s.ok; i++) {
      ReadWalk r = {&s};
      read_walk(body->items[i], &r);
    }
    if (s.ok && !merge_written(&s, written, &written_count))
      s.ok = false;
  }
  if (!s.ok || written_count == 0)
    return;
  /* the names bound to ct.bid(0) and ct.num_blocks(0), and a step parameter: read only by
     the range (a parameter bound nowhere either) */
  Str own[3];
  int owned = 0;
  if (s.bid_name.len)
    own[owned++] = s.bid_name;
  if (s.blocks_name.len)
    own[owned++] = s.blocks_name;
  if (s.step_param.len) {
    own[owned++] = s.step_param;
    if (bindings_of(&s, body, s.step_param))
      return;
  }
  for (int i = first; i < body->count - 1 && owned; i++) {
    Node *stmt = body->items[i];
    const Node *value = stmt->kind == N_ASSIGN ? stmt->u.assign.value : NULL;
    bool binding = value && (value == s.bid_def || value == s.blocks_def);
    if (!binding && node_reads_any(stmt, own, owned))
      return;
  }
  if (owned && node_reads_any((Node *)stop, own, owned))
    return;
  for (int i = 0; i < loop->u.for_.body.count && owned; i++)
    if (node_reads_any(loop->u.for_.body.items[i], own, owned))
      return;
  Node *host = host_stop(&s, body, body->count - 1, stop, 0);
  if (host && host->kind == N_NAME)
    L->spread_stop = host->u.name.id; /* a parameter: the launch's argument */
  else if (host) { /* computed from the launch's arguments when the launch is made */
    Buf text = {0};
    buf_puts(&text, "lambda: ");
    expr_text(L->ctx, host, &text);
    L->spread_stop = (Str){arena_strndup(&L->ctx->arena, buf_text(&text), text.len), (int)text.len};
    buf_free(&text);
  }
  L->kernel_spreads = true;
  L->spread_step = s.step_param;
  L->spread_loop_var = s.loop_var;
  L->spread_kernel = L->function;
  L->spread_written_count = written_count;
  memcpy(L->spread_written, written, sizeof(Str) * (size_t)written_count);
}
