/*
 * lower_split.c — a loop of matrix products split in two where a test of
 * its counter turns.
 *
 * Attention kernels mask the tiles on and past the diagonal only:
 *
 *     for j in range(0, hi):
 *         ...
 *         if j >= mask_start:
 *             qk = ct.where(mask, qk, -1.0e6)
 *
 * Triton builds one loop with a branch in every iteration, between a
 * product and the next. Split where the test turns, the first part does
 * not test it:
 *
 *     # the loop in two parts: the first, where `j >= mask_start` cannot hold, does not test it
 *     j_split = ct_loop_split(mask_start, 0, hi, 1, True)
 *     for part in tl.static_range(2):
 *         for j in range(0 if part == 0 else j_split, j_split if part == 0 else hi):
 *             ...
 *             if part == 1:  # `j >= mask_start` cannot hold in part 0
 *                 if j >= mask_start:
 *                     qk = tl.where(mask, qk, -1.0e6)
 *
 * The iterations run in the same order with the same values, so what the
 * loop computes is unchanged; `tl.static_range` keeps the body written once.
 *
 * `part` is a constexpr: each part is compiled with or without the `if`.
 * The part where the comparison cannot hold leaves the `if` out (its else,
 * if any, stands alone there); the other part keeps it as written, so a
 * turn placed too early costs a test but never changes a result.
 * ct_loop_split finds the turn where Triton compiles: X within the range,
 * the first counter value at or past it for a positive step, in the
 * counter's dtype; a float X, or a step that is not positive, puts every
 * iteration in the part that keeps the test.
 *
 * Split (run on the lowered loop):
 *
 *   - a `for` over range(...) whose body holds a matrix product, no
 *     break, continue, return or `:=`, and assigns no value to its counter;
 *   - at its top level, an `if` whose test is `j >= X`, `j > X` (turning
 *     at X + 1) or `j < X`, either way round, or such a comparison `and`
 *     tests that call nothing (not evaluated where the comparison is
 *     false); `j` the counter, X a scalar the loop does not assign,
 *     written without calls (it is read once, before the loop). `j <= X`
 *     is left: its turn, X + 1, may overflow where the test holds for
 *     every counter.
 *
 * The first such `if` decides the split; others stay as they are.
 */
#include <string.h>

#include "lower.h"

/* -------------------------------------------------------- what qualifies */

/* Whether a node of one of `kinds` stands anywhere in `node`. */
typedef struct {
  const NodeKind *kinds;
  int count;
  bool found;
} KindScan;

static void scan_kinds(Node *node, void *data) {
  KindScan *scan = data;
  if (!node || scan->found)
    return;
  for (int i = 0; i < scan->count; i++)
    scan->found |= node->kind == scan->kinds[i];
  if (!scan->found)
    node_children(node, scan_kinds, data);
}

static bool holds_kind(Node *node, const NodeKind *kinds, int count) {
  KindScan scan = {kinds, count, false};
  scan_kinds(node, &scan);
  return scan.found;
}

/* A test evaluated for nothing but its value. */
static bool calls_nothing(Node *node) {
  static const NodeKind effects[] = {N_CALL, N_NAMED_EXPR, N_LAMBDA};
  return !holds_kind(node, effects, 3);
}

/* A number: a scalar tile or a constant that is not a tuple, dtype or other Python object (whether it is
 * an integer is learnt where Triton compiles, by ct_loop_split). */
static bool is_scalar(const Node *node) {
  const TypeInfo *type = node->type;
  if (!type)
    return false;
  if (type->kind == VAL_TILE)
    return type->rank == 0;
  return type->kind == VAL_CONST && !type->python_object && !type->const_tuple;
}

typedef struct {
  Node *comparison; /* j >= X, ... */
  Node *bound;      /* X */
  bool past;        /* j > X: the test holds from X + 1 on */
  bool from_bound;  /* j >= X, j > X: the test holds from the turn on; j < X: before it */
} Turn;

/* `j >= X`, `X <= j`, `j > X`, `X < j` (holding from the turn on); `j < X`, `X > j` (before it).
 * `j <= X` is left: its turn, X + 1, may overflow where the test holds on every counter. */
static bool counter_turn(Node *test, Str counter, Turn *turn) {
  if (test->kind != N_COMPARE || test->u.compare.count != 1)
    return false;
  Node *left = test->u.compare.left, *right = test->u.compare.comparators[0];
  AstOp op = test->u.compare.ops[0];
  bool counter_left = left->kind == N_NAME && str_same(left->u.name.id, counter);
  bool counter_right = right->kind == N_NAME && str_same(right->u.name.id, counter);
  if (counter_left == counter_right)
    return false;
  if (counter_right) { /* X op j: as j op' X */
    op = op == AOP_LTE ? AOP_GTE : op == AOP_LT ? AOP_GT : op == AOP_GT ? AOP_LT : AOP_EQ;
    right = left;
  }
  if (op != AOP_GTE && op != AOP_GT && op != AOP_LT)
    return false;
  *turn = (Turn){test, right, op == AOP_GT, op != AOP_LT};
  return true;
}

typedef struct {
  Node *stmt; /* the `if` */
  Turn turn;
  NodeList constant; /* the other tests that are constexprs (`not EVEN_N`): no split where one is false */
} Split;

/* The conjuncts of `test`, nested `and`s flattened (the converted code writes `a and b and c` as
 * `(a and b) and c`), in the order Python evaluates them; false past the limit. */
static bool conjuncts(Lowerer *L, Node *test, NodeList *out) {
  if (test->kind != N_BOOL_OP || test->u.bool_op.op != AOP_AND) {
    node_list_push(&L->ctx->arena, out, test);
    return out->count <= C2T_MAX_SPLIT_CONJUNCTS;
  }
  for (int i = 0; i < test->u.bool_op.values.count; i++)
    if (!conjuncts(L, test->u.bool_op.values.items[i], out))
      return false;
  return true;
}

/* An `if` whose test is the counter's comparison, or an `and` of it and tests that call nothing (in the
 * part where the comparison is false they are not evaluated). */
static bool splitting_if(Lowerer *L, Node *stmt, Str counter, const Assigned *assigned, Split *split) {
  if (stmt->kind != N_IF)
    return false;
  NodeList tests = {0};
  if (!conjuncts(L, stmt->u.if_.test, &tests))
    return false;
  Turn turn;
  NodeList constant = {0};
  int at = -1;
  for (int i = 0; i < tests.count; i++) {
    Node *test = tests.items[i];
    if (at < 0 && counter_turn(test, counter, &turn))
      at = i;
    else if (!calls_nothing(test))
      return false;
    else if (test->type && test->type->kind == VAL_CONST)
      node_list_push(&L->ctx->arena, &constant, test);
  }
  if (at < 0 || !is_scalar(turn.bound) || !calls_nothing(turn.bound) ||
      node_reads_any(turn.bound, assigned->names, assigned->count))
    return false;
  *split = (Split){stmt, turn, constant};
  return true;
}

/* ------------------------------------------------------------ the split */

/* `bound` read more than once: a name or constant as it is, another expression through a local. */
static Node *read_once(Lowerer *L, Node *bound, const char *hint, NodeList *out) {
  if (bound->kind == N_NAME || bound->kind == N_CONSTANT)
    return bound;
  Str name = new_temp_name(L, hint);
  Node *local = new_name(L, arena_strndup(&L->ctx->arena, name.text, (size_t)name.len));
  node_list_push(&L->ctx->arena, out, template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(local, bound)).items[0]);
  return local;
}

/* The comparison, as the converted code writes it. */
static const char *comparison_text(Lowerer *L, const Node *comparison) {
  Buf *text = lower_buf(L);
  expr_text(L->ctx, comparison, text);
  return arena_strndup(&L->ctx->arena, text->data, text->len);
}

static Node *comment(Lowerer *L, const char *text) {
  Node *node = arena_alloc(&L->ctx->arena, sizeof(Node));
  node->kind = N_COMMENT;
  node->u.piece.text = (Str){text, (int)strlen(text)};
  node->rewritten = true;
  return node;
}

bool split_loop_at_turn(Lowerer *L, Node *stmt, NodeList *out) {
  if (L->conv->no_loop_split || stmt->kind != N_FOR)
    return false;
  Node *iter = stmt->u.for_.iter, *target = stmt->u.for_.target;
  if (target->kind != N_NAME || iter->kind != N_CALL || iter->u.call.func->kind != N_NAME ||
      !str_eq(iter->u.call.func->u.name.id, "range") || iter->u.call.keywords.count)
    return false;
  NodeList *args = &iter->u.call.args;
  if (args->count < 1 || args->count > 3)
    return false;
  /* a break, continue or return anywhere in the body (a nested loop's too: kept simple), or a `:=`
     (a name it binds is not among the statements' targets) */
  static const NodeKind exits[] = {N_BREAK, N_CONTINUE, N_RETURN, N_NAMED_EXPR};
  for (int i = 0; i < stmt->u.for_.body.count; i++)
    if (holds_kind(stmt->u.for_.body.items[i], exits, 4))
      return false;
  Str counter = target->u.name.id;
  Assigned *assigned = new_assigned(L);
  collect_assigned(assigned, &stmt->u.for_.body, 0);
  for (int i = 0; i < assigned->count; i++)
    if (str_same(assigned->names[i], counter))
      return false; /* `j = j * 2` before the `if`: it tests another value than the counter's */
  add_assigned_target(assigned, target);
  Split split;
  int at = -1;
  for (int i = 0; i < stmt->u.for_.body.count && at < 0; i++)
    if (splitting_if(L, stmt->u.for_.body.items[i], counter, assigned, &split))
      at = i;
  if (at < 0)
    return false;

  Arena *arena = &L->ctx->arena;
  bool from_bound = split.turn.from_bound;
  const char *written = comparison_text(L, split.turn.comparison);
  NodeList before = {0};
  node_list_push(arena, &before, comment(L, arena_printf(arena, "the loop in two parts: the %s, where `%s` cannot hold, "
                                                                "does not test it", from_bound ? "first" : "second",
                                                         written)));
  char *counter_text = arena_strndup(arena, counter.text, (size_t)counter.len);
  Node *start = args->count == 1 ? new_int(L, 0) : read_once(L, args->items[0], "start", &before);
  Node *stop = read_once(L, args->items[args->count == 1 ? 0 : 1], "stop", &before);
  long long unit;
  Node *step = args->count < 3 ? new_int(L, 1)
               : shape_known_int(args->items[2], &unit) && unit == 1 ? args->items[2]
                                                                     : read_once(L, args->items[2], "step", &before);
  Str at_name = new_temp_name(L, arena_printf(arena, "%s_split", counter_text));
  Str part_name = new_temp_name(L, "part");
  Node *turn_at = new_name(L, arena_strndup(arena, at_name.text, (size_t)at_name.len));
  Node *part = new_name(L, arena_strndup(arena, part_name.text, (size_t)part_name.len));
  Node *bound = node_copy_tree(arena, split.turn.bound);
  if (split.turn.past)
    bound = T(L, "_1 + 1", bound);
  Node *call = T(L, from_bound ? "_1(_2, _3, _4, _5, True)" : "_1(_2, _3, _4, _5, False)",
                 use_helper(L, HELPER_ct_loop_split), bound, node_copy_tree(arena, start), node_copy_tree(arena, stop),
                 node_copy_tree(arena, step));
  if (split.constant.count) { /* split only where the constexpr tests hold: elsewhere the `if` never runs */
    Node *when = node_copy_tree(arena, split.constant.items[0]);
    for (int i = 1; i < split.constant.count; i++)
      when = T(L, "_1 and _2", when, node_copy_tree(arena, split.constant.items[i]));
    node_list_push(arena, &call->u.call.keywords, T(L, "f(SPLIT=_1)", when)->u.call.keywords.items[0]);
  }
  node_list_push(arena, &before, template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(turn_at, call)).items[0]);

  /* the counter's range, by part */
  Node *first = T(L, "_1 if _2 == 0 else _3", node_copy_tree(arena, start), node_copy_tree(arena, part),
                  node_copy_tree(arena, turn_at));
  Node *last = T(L, "_1 if _2 == 0 else _3", node_copy_tree(arena, turn_at), node_copy_tree(arena, part),
                 node_copy_tree(arena, stop));
  NodeList bounds = {0};
  node_list_push(arena, &bounds, first);
  node_list_push(arena, &bounds, last);
  if (args->count == 3)
    node_list_push(arena, &bounds, node_copy_tree(arena, step));
  *args = bounds;

  /* the `if` as written in the part where its comparison may hold; its else alone in the other */
  Node *was = split.stmt;
  Node *kept = arena_alloc(arena, sizeof(Node));
  *kept = *was;
  Node *choice = template_stmts(L->ctx, "if _1 == _2:\n    pass\n",
                                TEMPLATE_NODES(node_copy_tree(arena, part), new_int(L, from_bound ? 1 : 0)))
                     .items[0];
  NodeList taken = {0};
  node_list_push(arena, &taken, kept);
  choice->u.if_.body = taken;
  choice->u.if_.orelse = (NodeList){0};
  for (int i = 0; i < was->u.if_.orelse.count; i++)
    node_list_push(arena, &choice->u.if_.orelse, node_copy_tree(arena, was->u.if_.orelse.items[i]));
  choice->span.start = choice->span.end = was->span.start; /* the comments above the `if` stay above it */
  kept->span = (Span){0};
  choice->note = arena_printf(arena, "`%s` cannot hold in part %d", written, from_bound ? 0 : 1);
  stmt->u.for_.body.items[at] = choice;

  Node *outer = template_stmts(L->ctx, "for _1 in tl.static_range(2):\n    pass\n", TEMPLATE_NODES(part)).items[0];
  NodeList inside = {0};
  node_list_push(arena, &inside, stmt);
  outer->u.for_.body = inside;
  /* the comments above the loop stay above what comes first */
  before.items[0]->span.start = before.items[0]->span.end = stmt->span.start;
  for (int i = 0; i < before.count; i++)
    node_list_push(arena, out, before.items[i]);
  node_list_push(arena, out, outer);
  return true;
}
