/*
 * lower_liveness.c — whether the value a name holds after a statement is
 * ever read, and giving a branch's bindings of a name a name of their own.
 *
 * Triton's code generator joins, at the end of a run-time `if`, every name
 * a branch binds that exists before the `if` (or that both branches bind),
 * and requires one type for it ("initial value for `u` is of type
 * fp32[16, 16], but the then block redefines it as fp32[16, 1]"; "Mismatched
 * type for u between then block and else block"). cuTile refuses only a
 * read of such a name after the `if` ("Type of `u` depends on path taken").
 * Where nothing reads the value the `if` leaves in the name, a branch that
 * binds it to another type binds it under a name of its own instead, and
 * Triton sees the name unchanged on that path.
 *
 * Read on the function's statements as they stand while it is lowered: what
 * follows the `if` is still source, what precedes it in an enclosing loop
 * already lowered. Either way the reads and bindings of user names are those
 * the source has. The answer is "dead" only where it is sure: a path that
 * may read the value, before every path sets it again, makes it live.
 */
#include <string.h>

#include "lower.h"

/* What a statement (or block) does with a name's value on the way through. */
typedef enum Flow {
  FLOW_PASS, /* leaves it as it was on some path (or does not touch it) */
  FLOW_READ, /* may read it before setting it */
  FLOW_SET,  /* sets it (or ends the function) on every path without reading it first */
} Flow;

typedef struct FlowScan {
  Lowerer *L;
  Str name;
  bool escaped; /* a `break` or `continue` of an enclosing loop left the statements scanned */
} FlowScan;

typedef struct ReadScan {
  Str name;
  bool found;
} ReadScan;

static void find_read(Node *node, void *data) {
  ReadScan *r = data;
  if (r->found || !node)
    return;
  if (node->kind == N_NAME) {
    r->found = node->u.name.ctx != CTX_STORE && str_same(node->u.name.id, r->name);
    return;
  }
  node_children(node, find_read, data);
}

/* Whether `node` reads the name (a target `u[i]` or `u.x` reads it too). */
static bool reads(Node *node, Str name) {
  ReadScan r = {name, false};
  find_read(node, &r);
  return r.found;
}

/* A target that binds the name: `u`, `(u, w)`, `*u`. */
static bool binds(const Node *target, Str name) {
  switch (target->kind) {
  case N_NAME: return str_same(target->u.name.id, name);
  case N_STARRED: return binds(target->u.starred.value, name);
  case N_TUPLE:
  case N_LIST: {
    const NodeList *elts = &target->u.list.elts;
    for (int i = 0; i < elts->count; i++)
      if (binds(elts->items[i], name))
        return true;
    return false;
  }
  default: return false;
  }
}

/* A target's reads: the objects and indices of `a[i]` and `a.x` targets. */
static bool target_reads(Node *target, Str name) {
  switch (target->kind) {
  case N_NAME: return false;
  case N_STARRED: return target_reads(target->u.starred.value, name);
  case N_TUPLE:
  case N_LIST: {
    NodeList *elts = &target->u.list.elts;
    for (int i = 0; i < elts->count; i++)
      if (target_reads(elts->items[i], name))
        return true;
    return false;
  }
  default: return reads(target, name);
  }
}

/* A test whose value is known when the converter reads it: True, False, a module constant, `not`
 * of one (`if DEBUG:` with DEBUG = False at module level; the converter drops the branch). A name
 * the function binds is in its scope from its first binding on, and read as unknown. */
static bool known_test(Lowerer *L, const Node *test, bool *value) {
  if (test->kind == N_CONSTANT && (test->u.constant.kind == CONST_TRUE || test->u.constant.kind == CONST_FALSE)) {
    *value = test->u.constant.kind == CONST_TRUE;
    return true;
  }
  if (test->kind == N_UNARY_OP && test->u.unary_op.op == AOP_NOT && known_test(L, test->u.unary_op.operand, value)) {
    *value = !*value;
    return true;
  }
  if (test->kind != N_NAME || scope_lookup(L, test->u.name.id))
    return false; /* a local: its value where the `if` stands may not be the one it has here */
  const Binding *binding = find_binding(L->conv, test->u.name.id);
  return binding && binding->value && !binding->varies && binding->value->kind == N_CONSTANT &&
         known_test(L, binding->value, value); /* a module's `DEBUG = False` */
}

static Flow flow_block(FlowScan *S, NodeList *block, int depth);

/* A loop in the statements scanned: what it reads on entry or in a pass of its body (which may not
 * run: it sets nothing for sure). Its own `break` and `continue` stay inside it. */
static Flow flow_loop(FlowScan *S, Node *loop, int depth) {
  bool escaped = S->escaped;
  Flow body = FLOW_PASS;
  if (loop->kind == N_FOR) {
    if (reads(loop->u.for_.iter, S->name))
      return FLOW_READ;
    if (!binds(loop->u.for_.target, S->name))
      body = flow_block(S, &loop->u.for_.body, depth + 1);
    if (body != FLOW_READ && flow_block(S, &loop->u.for_.orelse, depth + 1) == FLOW_READ)
      body = FLOW_READ;
  } else {
    if (reads(loop->u.while_.test, S->name))
      return FLOW_READ;
    body = flow_block(S, &loop->u.while_.body, depth + 1);
    if (body != FLOW_READ && flow_block(S, &loop->u.while_.orelse, depth + 1) == FLOW_READ)
      body = FLOW_READ;
  }
  S->escaped = escaped;
  return body == FLOW_READ ? FLOW_READ : FLOW_PASS;
}

/* One more statement read for the function being lowered; false past C2T_MAX_LIVENESS_STEPS (a
 * function of thousands of `if`s each of which asks about what follows it). */
static bool step(Lowerer *L) {
  if (L->liveness_function != L->function) {
    L->liveness_function = L->function;
    L->liveness_steps = 0;
  }
  return ++L->liveness_steps <= C2T_MAX_LIVENESS_STEPS;
}

static Flow flow_stmt(FlowScan *S, Node *stmt, int depth) {
  Str name = S->name;
  if (!step(S->L))
    return FLOW_READ; /* taken as read: no name of its own */
  switch (stmt->kind) {
  case N_ASSIGN: {
    if (reads(stmt->u.assign.value, name))
      return FLOW_READ;
    bool set = false;
    for (int t = 0; t < stmt->u.assign.targets.count; t++) {
      if (target_reads(stmt->u.assign.targets.items[t], name))
        return FLOW_READ;
      set = set || binds(stmt->u.assign.targets.items[t], name);
    }
    return set ? FLOW_SET : FLOW_PASS;
  }
  case N_ANN_ASSIGN:
    if ((stmt->u.ann_assign.value && reads(stmt->u.ann_assign.value, name)) ||
        target_reads(stmt->u.ann_assign.target, name))
      return FLOW_READ;
    return stmt->u.ann_assign.value && binds(stmt->u.ann_assign.target, name) ? FLOW_SET : FLOW_PASS;
  case N_AUG_ASSIGN:
    return reads(stmt, name) || binds(stmt->u.aug_assign.target, name) ? FLOW_READ : FLOW_PASS;
  case N_IF: {
    bool value;
    if (reads(stmt->u.if_.test, name))
      return FLOW_READ;
    if (known_test(S->L, stmt->u.if_.test, &value)) /* only one branch is converted */
      return flow_block(S, value ? &stmt->u.if_.body : &stmt->u.if_.orelse, depth + 1);
    Flow body = flow_block(S, &stmt->u.if_.body, depth + 1);
    Flow orelse = flow_block(S, &stmt->u.if_.orelse, depth + 1);
    if (body == FLOW_READ || orelse == FLOW_READ)
      return FLOW_READ;
    return body == FLOW_SET && orelse == FLOW_SET ? FLOW_SET : FLOW_PASS;
  }
  case N_FOR:
  case N_WHILE: return flow_loop(S, stmt, depth);
  case N_WITH:
    for (int i = 0; i < stmt->u.with.items.count; i++)
      if (reads(stmt->u.with.items.items[i], name))
        return FLOW_READ;
    return flow_block(S, &stmt->u.with.body, depth + 1);
  case N_RETURN: /* the function ends: nothing after reads it */
    return stmt->u.return_.value && reads(stmt->u.return_.value, name) ? FLOW_READ : FLOW_SET;
  case N_RAISE: return reads(stmt, name) ? FLOW_READ : FLOW_SET;
  case N_BREAK:
  case N_CONTINUE: S->escaped = true; return FLOW_PASS;
  case N_FUNCTION_DEF:
  case N_CLASS_DEF:
  case N_COMMENT:
  case N_PASS: return FLOW_PASS;
  default: return reads(stmt, name) ? FLOW_READ : FLOW_PASS;
  }
}

/* The statements of `block` in order: the first that reads or sets the name decides. A jump out
 * of a loop ends the block (what follows it does not run on that path). */
static Flow flow_block(FlowScan *S, NodeList *block, int depth) {
  if (depth > C2T_MAX_PARSE_DEPTH)
    return FLOW_READ;
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    Flow flow = flow_stmt(S, stmt, depth);
    if (flow != FLOW_PASS)
      return flow;
    if (stmt->kind == N_BREAK || stmt->kind == N_CONTINUE)
      return FLOW_PASS;
  }
  return FLOW_PASS;
}

/* One step of the way from a function's body down to a statement. */
typedef struct Frame {
  NodeList *block;
  int index; /* of the statement (or of the one holding it) in block */
  Node *owner; /* the statement whose block this is; NULL for the function's body */
} Frame;

static bool find_path(Lowerer *L, NodeList *block, Node *owner, const Node *stmt, Frame *path, int *depth) {
  if (*depth >= C2T_MAX_PARSE_DEPTH)
    return false;
  int at = (*depth)++;
  for (int i = 0; i < block->count; i++) {
    Node *s = block->items[i];
    if (!step(L))
      break;
    path[at] = (Frame){block, i, owner};
    if (s == stmt)
      return true;
    NodeList *inner[3] = {NULL, NULL, NULL};
    switch (s->kind) {
    case N_IF: inner[0] = &s->u.if_.body, inner[1] = &s->u.if_.orelse; break;
    case N_FOR: inner[0] = &s->u.for_.body, inner[1] = &s->u.for_.orelse; break;
    case N_WHILE: inner[0] = &s->u.while_.body, inner[1] = &s->u.while_.orelse; break;
    case N_WITH: inner[0] = &s->u.with.body; break;
    default: break;
    }
    for (int k = 0; k < 3 && inner[k]; k++)
      if (find_path(L, inner[k], s, stmt, path, depth))
        return true;
  }
  (*depth)--;
  return false;
}

bool value_dead_after(Lowerer *L, Node *def, Node *stmt, Str name) {
  Frame *path = arena_alloc(&L->ctx->arena, sizeof(Frame) * (C2T_MAX_PARSE_DEPTH + 1));
  int depth = 0;
  if (!find_path(L, &def->u.function_def.body, NULL, stmt, path, &depth))
    return false;
  FlowScan S = {L, name, false};
  for (int f = depth - 1; f >= 0; f--) {
    Frame *frame = &path[f];
    NodeList tail = {frame->block->items + frame->index + 1, frame->block->count - frame->index - 1,
                     frame->block->count - frame->index - 1};
    Flow flow = flow_block(&S, &tail, f);
    if (flow == FLOW_READ)
      return false;
    if (flow == FLOW_SET && !S.escaped)
      return true;
    Node *loop = frame->owner;
    bool body_of_loop = loop && ((loop->kind == N_FOR && frame->block == &loop->u.for_.body) ||
                                 (loop->kind == N_WHILE && frame->block == &loop->u.while_.body));
    if (body_of_loop) { /* the next iteration, then what follows the loop */
      FlowScan again = {L, name, false};
      if (loop->kind == N_WHILE && reads(loop->u.while_.test, name))
        return false;
      if (!(loop->kind == N_FOR && binds(loop->u.for_.target, name)) &&
          flow_block(&again, frame->block, f) == FLOW_READ)
        return false;
      S.escaped = false; /* its jumps lead to its next iteration or after it, both looked at */
    }
  }
  return !S.escaped;
}

bool read_before_set(Lowerer *L, NodeList *block, Str name) {
  FlowScan S = {L, name, false};
  return flow_block(&S, block, 0) == FLOW_READ;
}
