/*
 * lower_control.c — `break`, `continue` and `return` inside loops, which
 * Triton's code generator refuses ("unsupported AST node type: Break";
 * "Cannot have `return` statements inside `while` or `for` statements").
 *
 * cuTile accepts `break` and `continue` in `for` and `while` loops, and
 * `return` inside `while` loops (not inside `for`: cuTile's own error). They
 * are rewritten with flags on statement lists that are already lowered:
 *
 *   while cond:              keep_looping_1 = True
 *       a                    while keep_looping_1 and cond:
 *       if x:                    a
 *           break      ->        if x:
 *       b                            keep_looping_1 = False
 *                                if keep_looping_1:
 *                                    b
 *
 * - the statements after a possible jump are nested under `if flag:` (nested,
 *   not one guard after another, so names they define stay visible to the
 *   statements after them); statements after a jump in the same block are
 *   unreachable and dropped;
 * - `continue` clears keep_iterating_N, set to True at the top of each
 *   iteration; `break` clears keep_looping_N (and keep_iterating_N);
 * - a `while` condition with calls is not evaluated again after a break
 *   (Triton's `and` evaluates both sides): it moves into the loop,
 *       keep_looping_1 = cond
 *       while keep_looping_1:
 *           ...
 *           if keep_looping_1:
 *               keep_looping_1 = cond
 * - `for i in range(a, b, c)` with a `break` becomes a `while` over an
 *   explicit counter; b and c are evaluated once, before the loop, as
 *   range() does. cuTile requires a constant step to be positive and says a
 *   negative run-time step is undefined behaviour, so the counter runs
 *   upward (`counter < b`); a constant step <= 0 is an error here as there;
 * - `return` inside a `while`: the value goes to return_value_N, the flag
 *   returned_N ends the loop, and after the loop `if returned_N: return ...`
 *   (Triton accepts returns inside `if` outside loops). return_value_N needs
 *   an initial value of the returned type before the loop (Triton's loop
 *   carried variables keep one type): a zero of that type.
 * Each loop owns its jumps: a nested loop is rewritten first (by the
 * lower_stmts call of its own body) and its `if returned_N: return` is then
 * a `return` of the enclosing loop.
 *
 * Also checked here, for every loop: a `while` condition is a scalar; a
 * constant range() step is positive; no jump inside ct.static_iter.
 */
#include <string.h>

#include "lower.h"
#include "lower_math.h"
#include "lower_memory.h"

enum { JUMP_BREAK = 1, JUMP_CONTINUE = 2, JUMP_RETURN = 4 };

/* The flags of one loop being rewritten (a name of length 0: not needed). */
typedef struct LoopFlags {
  Str keep_looping;   /* cleared by break and return */
  Str keep_iterating; /* cleared by continue, break and return; set at each iteration's start */
  Str returned;       /* set by return */
  Str return_value;   /* the value returned (length 0: bare returns) */
} LoopFlags;

/* ------------------------------------------------------------- scanning */

static int jumps_in_block(const NodeList *stmts);

/* The jumps a statement can make out of the loop around it. A nested loop
 * owns its break/continue; its returns were already rewritten into
 * `if returned_N: return` after it, which this scan sees. */
static int jumps_in_stmt(const Node *stmt) {
  switch (stmt->kind) {
  case N_BREAK: return JUMP_BREAK;
  case N_CONTINUE: return JUMP_CONTINUE;
  case N_RETURN: return JUMP_RETURN;
  case N_IF: return jumps_in_block(&stmt->u.if_.body) | jumps_in_block(&stmt->u.if_.orelse);
  default: return 0;
  }
}

static int jumps_in_block(const NodeList *stmts) {
  int jumps = 0;
  for (int i = 0; i < stmts->count; i++)
    jumps |= jumps_in_stmt(stmts->items[i]);
  return jumps;
}

/* The first statement of `kind` reachable through ifs (for error locations). */
static const Node *find_jump(const NodeList *stmts, NodeKind kind) {
  for (int i = 0; i < stmts->count; i++) {
    const Node *stmt = stmts->items[i];
    if (stmt->kind == kind)
      return stmt;
    if (stmt->kind == N_IF) {
      const Node *found = find_jump(&stmt->u.if_.body, kind);
      if (!found)
        found = find_jump(&stmt->u.if_.orelse, kind);
      if (found)
        return found;
    }
  }
  return NULL;
}

typedef struct CallScan {
  bool has_call;
} CallScan;

static void scan_calls(Node *node, void *data) {
  CallScan *scan = data;
  if (node->kind == N_CALL || node->kind == N_NAMED_EXPR)
    scan->has_call = true;
  if (!scan->has_call)
    node_children(node, scan_calls, data);
}

/* Can `expr` be evaluated once more without effect? (No calls: names,
 * constants and operators only.) */
static bool is_plain_expression(Node *expr) {
  CallScan scan = {false};
  scan_calls(expr, &scan);
  return !scan.has_call;
}

static bool is_constant_true(const Node *expr) {
  return expr->kind == N_CONSTANT && expr->u.constant.kind == CONST_TRUE;
}

/* ------------------------------------------------------- building pieces */

static Node *flag(Lowerer *L, Str name) {
  Node *node = new_name(L, arena_strndup(&L->ctx->arena, name.text, (size_t)name.len));
  node->type = type_tile(L->ctx, DT_BOOL, 0, NULL);
  return node;
}

static void push(Lowerer *L, NodeList *out, Node *stmt) { node_list_push(&L->ctx->arena, out, stmt); }

/* `name = value` (value: Python text) appended to out. */
static void push_set(Lowerer *L, NodeList *out, Str name, const char *value) {
  char *text = arena_printf(&L->ctx->arena, "_1 = %s\n", value);
  NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(flag(L, name)));
  push(L, out, made.items[0]);
}

/* `if test:` with the given body. */
static Node *make_if(Lowerer *L, Node *test, NodeList body) {
  Node *stmt = template_stmts(L->ctx, "if _1:\n    pass\n", TEMPLATE_NODES(test)).items[0];
  stmt->u.if_.body = body;
  return stmt;
}

/* A fresh flag name, bound in the scope so that later temporaries differ. */
static Str new_flag(Lowerer *L, const char *hint) {
  Str name = new_temp_name(L, hint);
  scope_bind(L, name, type_tile(L->ctx, DT_BOOL, 0, NULL));
  return name;
}

/* The guard of the statements after a possible jump. */
static Node *guard_test(Lowerer *L, const LoopFlags *F) {
  return flag(L, F->keep_iterating.len ? F->keep_iterating : F->keep_looping);
}

/* ------------------------------------------------------ the jumps, as flags */

static void push_jump(Lowerer *L, const LoopFlags *F, Node *jump, NodeList *out) {
  if (jump->kind == N_RETURN) {
    if (jump->u.return_.value) {
      NodeList made = template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(flag(L, F->return_value), jump->u.return_.value));
      push(L, out, made.items[0]);
    }
    push_set(L, out, F->returned, "True");
  }
  if (jump->kind == N_BREAK || jump->kind == N_RETURN)
    push_set(L, out, F->keep_looping, "False");
  if (F->keep_iterating.len)
    push_set(L, out, F->keep_iterating, "False");
}

static NodeList rewrite_block(Lowerer *L, const LoopFlags *F, NodeList *body, int from);

/* An `if` (and its elif/else chain) with jumps inside. */
static void rewrite_if(Lowerer *L, const LoopFlags *F, Node *stmt) {
  stmt->u.if_.body = rewrite_block(L, F, &stmt->u.if_.body, 0);
  if (stmt->u.if_.orelse.count)
    stmt->u.if_.orelse = rewrite_block(L, F, &stmt->u.if_.orelse, 0);
}

/* body[from:] with this loop's jumps turned into flag assignments: the
 * statements after a statement that may jump run under `if flag:`. */
static NodeList rewrite_block(Lowerer *L, const LoopFlags *F, NodeList *body, int from) {
  NodeList out = {0};
  for (int i = from; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind == N_BREAK || stmt->kind == N_CONTINUE || stmt->kind == N_RETURN) {
      push_jump(L, F, stmt, &out);
      return out; /* what follows in this block is unreachable */
    }
    if (jumps_in_stmt(stmt) == 0) {
      push(L, &out, stmt);
      continue;
    }
    rewrite_if(L, F, stmt);
    push(L, &out, stmt);
    NodeList rest = rewrite_block(L, F, body, i + 1);
    if (rest.count)
      push(L, &out, make_if(L, guard_test(L, F), rest));
    return out;
  }
  return out;
}

/* ------------------------------------------------------------- returns */

typedef struct ParamScan {
  Lowerer *L;
  bool only_params;
} ParamScan;

bool function_has_param(Lowerer *L, Str name) {
  NodeList *params = &L->function->def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < params->count; i++)
    if (str_same(params->items[i]->u.arg.arg, name))
      return true;
  return false;
}

static void scan_names(Node *node, void *data) {
  ParamScan *scan = data;
  if (node->kind == N_NAME && !function_has_param(scan->L, node->u.name.id) && !str_eq(node->u.name.id, "tl"))
    scan->only_params = false;
  node_children(node, scan_names, data);
}

/* The dtype of a value as a Triton expression valid before the loop: a
 * known dtype, or one read from parameters (`x.dtype.element_ty`). */
static Node *dtype_before_loop(Lowerer *L, const TypeInfo *type) {
  if (type->dtype != DT_UNKNOWN)
    return T0(L, dtype_info(type->dtype)->triton);
  if (!type->dtype_expr)
    return NULL;
  ParamScan scan = {L, true};
  scan_names(type->dtype_expr, &scan);
  return scan.only_params ? type->dtype_expr : NULL;
}

/* A zero of the type of `value` (the returned value), as the initial value
 * of return_value_N: Triton's loop-carried variables keep one type. */
static Node *zero_of(Lowerer *L, const Node *value) {
  const TypeInfo *type = value->type;
  if (type && type->kind == VAL_CONST && type->loose && type->dtype != DT_UNKNOWN)
    return T0(L, type->is_float ? "0.0" : type->dtype == DT_BOOL ? "False" : "0");
  if (!type || (type->kind != VAL_TILE && type->kind != VAL_CONST) || type->rank < 0)
    return NULL;
  Node *dtype = dtype_before_loop(L, type);
  if (!dtype)
    return NULL;
  Node *shape = T0(L, "()");
  for (int d = 0; d < type->rank; d++) {
    Node *dim = type->shape[d] >= 0 ? new_int(L, type->shape[d]) : type->dims[d];
    if (!dim)
      return NULL;
    node_list_push(&L->ctx->arena, &shape->u.list.elts, dim);
  }
  return T(L, "tl.full(_1, 0, _2)", shape, dtype);
}

/* Statements before the loop for its returns: returned_N = False and the
 * initial return_value_N. */
static void push_return_setup(Lowerer *L, LoopFlags *F, const NodeList *body, NodeList *out) {
  const Node *first = find_jump(body, N_RETURN);
  F->returned = new_flag(L, "returned");
  push_set(L, out, F->returned, "False");
  if (!first->u.return_.value)
    return;
  Node *returned = first->u.return_.value;
  Node *zero = zero_of(L, returned);
  Variable *bound = returned->kind == N_NAME ? scope_lookup(L, returned->u.name.id) : NULL;
  if (!zero && bound && bound->type && (bound->type->kind == VAL_TILE || bound->type->kind == VAL_CONST) &&
      bound->type->rank == 0) /* `return i`, i a scalar bound before the loop: its value there, of the type
                                 Triton carries it with */
    zero = new_name(L, arena_strndup(&L->ctx->arena, returned->u.name.id.text, (size_t)returned->u.name.id.len));
  if (!zero)
    lower_error(L, first, "`return` of %s inside a loop cannot be converted (Triton needs a value of "
                "its type before the loop; only scalars and tiles of known dtype and shape can be made)",
                type_describe(L->ctx, first->u.return_.value->type));
  F->return_value = new_temp_name(L, "return_value");
  scope_bind(L, F->return_value, first->u.return_.value->type);
  NodeList made = template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(flag(L, F->return_value), zero));
  push(L, out, made.items[0]);
}

/* After the loop: if returned_N: return return_value_N */
static void push_return_after(Lowerer *L, const LoopFlags *F, const Node *first_return, NodeList *out) {
  NodeList body = {0};
  Node *ret;
  if (F->return_value.len) {
    ret = template_stmts(L->ctx, "return _1\n", TEMPLATE_NODES(flag(L, F->return_value))).items[0];
    ret->u.return_.value->type = first_return->u.return_.value->type;
  } else {
    ret = template_stmts(L->ctx, "return\n", NULL, 0).items[0];
  }
  ret->span = first_return->span; /* errors about it point at the original return */
  push(L, &body, ret);
  push(L, out, make_if(L, flag(L, F->returned), body));
}

/* ----------------------------------------------------------- the loops */

static bool is_static_loop(const Node *loop) {
  const Node *func = loop->u.for_.iter->u.call.func;
  return func->kind == N_ATTRIBUTE && str_eq(func->u.attribute.attr, "static_range");
}

/* range(stop) | range(start, stop) | range(start, stop, step) */
static void range_parts(Lowerer *L, Node *iter, Node **start, Node **stop, Node **step) {
  NodeList *args = &iter->u.call.args;
  *start = args->count > 1 ? args->items[0] : new_int(L, 0);
  *stop = args->count > 1 ? args->items[1] : args->items[0];
  *step = args->count > 2 ? args->items[2] : new_int(L, 1);
}

static void check_range_step(Lowerer *L, Node *loop) {
  Node *start, *stop, *step;
  range_parts(L, loop->u.for_.iter, &start, &stop, &step);
  const TypeInfo *type = step->type;
  if (type && type->kind == VAL_CONST && type->dtype != DT_UNKNOWN && !type->is_float && type->int_value <= 0)
    lower_error(L, step->span.start.line ? step : loop, /* a folded `-1` has no location of its own */
                "the step of range() in tile code must be positive (cuTile rejects a constant step <= 0)");
}

/* A range() bound used by the rewritten loop: constants as they are,
 * anything else evaluated once into a temporary, as range() does. */
static Node *evaluated_once(Lowerer *L, Node *value, const char *hint, NodeList *out) {
  if (value->type && value->type->kind == VAL_CONST)
    return value;
  Str name = new_temp_name(L, hint);
  scope_bind(L, name, value->type);
  NodeList made = template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(flag(L, name), value));
  push(L, out, made.items[0]);
  Node *use = flag(L, name);
  use->type = value->type;
  return use;
}

static NodeList body_with_flags(Lowerer *L, LoopFlags *F, NodeList *body) {
  NodeList out = {0};
  if (F->keep_iterating.len)
    push_set(L, &out, F->keep_iterating, "True");
  NodeList rewritten = rewrite_block(L, F, body, 0);
  for (int i = 0; i < rewritten.count; i++)
    push(L, &out, rewritten.items[i]);
  return out;
}

/* for i in range(a, b, c) with a break:
 *     i_next_N = a; stop_N = b; keep_looping_N = True
 *     while keep_looping_N and i_next_N < stop_N:
 *         i = i_next_N
 *         i_next_N += c
 *         <body> */
static void rewrite_for_as_while(Lowerer *L, Node *loop, LoopFlags *F, NodeList *out) {
  Node *start, *stop, *step;
  range_parts(L, loop->u.for_.iter, &start, &stop, &step);
  Node *target = loop->u.for_.target;
  Str id = target->u.name.id;
  Str counter = new_temp_name(L, arena_printf(&L->ctx->arena, "%.*s_next", id.len, id.text));
  scope_bind(L, counter, type_tile(L->ctx, DT_INT32, 0, NULL));
  NodeList made = template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(flag(L, counter), start));
  push(L, out, made.items[0]);
  stop = evaluated_once(L, stop, "stop", out);
  step = evaluated_once(L, step, "step", out);
  push_set(L, out, F->keep_looping, "True");
  Node *loop_test = T(L, "_1 and _2 < _3", flag(L, F->keep_looping), flag(L, counter), stop);
  Node *loop_stmt = template_stmts(L->ctx, "while _1:\n    pass\n", TEMPLATE_NODES(loop_test)).items[0];
  loop_stmt->span = loop->span;
  NodeList body = {0};
  push(L, &body, template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(target, flag(L, counter))).items[0]);
  push(L, &body, template_stmts(L->ctx, "_1 += _2\n", TEMPLATE_NODES(flag(L, counter), step)).items[0]);
  NodeList rest = body_with_flags(L, F, &loop->u.for_.body);
  for (int i = 0; i < rest.count; i++)
    push(L, &body, rest.items[i]);
  loop_stmt->u.while_.body = body;
  push(L, out, loop_stmt);
}

/* A `continue` after which the iteration does nothing (the body's last statement, or the last of a
 * branch of an `if` that is, as where lower_stmt.c moved what followed an `if c: continue` into
 * its other branch) is dropped: it needs no flag. */
static void drop_final_continues(Lowerer *L, NodeList *block) {
  if (block->count == 0)
    return;
  Node *last = block->items[block->count - 1];
  if (last->kind == N_CONTINUE) {
    block->count--;
  } else if (last->kind == N_IF) {
    drop_final_continues(L, &last->u.if_.body);
    drop_final_continues(L, &last->u.if_.orelse);
    if (last->u.if_.body.count == 0 && last->u.if_.orelse.count) /* `if c: pass` / `else: ...` */
      negate_if(L, last);
  }
}

void negate_if(Lowerer *L, Node *stmt) {
  stmt->u.if_.test = T(L, "not (_1)", stmt->u.if_.test);
  stmt->u.if_.body = stmt->u.if_.orelse;
  stmt->u.if_.orelse = (NodeList){0};
}

static void rewrite_for(Lowerer *L, Node *loop, NodeList *out) {
  NodeList *body = &loop->u.for_.body;
  if (!is_static_loop(loop)) /* in ct.static_iter, a jump is an error (below) */
    drop_final_continues(L, body);
  int jumps = jumps_in_block(body);
  if (is_static_loop(loop) && jumps) {
    const Node *at = find_jump(body, N_BREAK);
    at = at ? at : find_jump(body, N_CONTINUE);
    at = at ? at : find_jump(body, N_RETURN);
    lower_error(L, at, "break, continue and return are not allowed inside a ct.static_iter loop");
  }
  check_range_step(L, loop);
  LoopFlags F = {0};
  if (jumps & JUMP_CONTINUE)
    F.keep_iterating = new_flag(L, "keep_iterating");
  const Node *first_return = find_jump(body, N_RETURN);
  if (jumps & JUMP_RETURN) /* as a `while` loop's: the value kept, the loop left, returned after it */
    push_return_setup(L, &F, body, out);
  if (jumps & (JUMP_BREAK | JUMP_RETURN)) {
    F.keep_looping = new_flag(L, "keep_looping");
    rewrite_for_as_while(L, loop, &F, out);
    if (first_return)
      push_return_after(L, &F, first_return, out);
    return;
  }
  if (jumps & JUMP_CONTINUE)
    loop->u.for_.body = body_with_flags(L, &F, body);
  push(L, out, loop);
}

static void rewrite_while(Lowerer *L, Node *loop, NodeList *out) {
  Node *test = loop->u.while_.test;
  refuse_coded(L, test, "a `while` condition", test->type, 0);
  if (test->type && test->type->kind == VAL_TILE && test->type->rank > 0)
    lower_error(L, test, "a `while` condition must be a scalar, not %s", type_describe(L->ctx, test->type));
  NodeList *body = &loop->u.while_.body;
  drop_final_continues(L, body);
  int jumps = jumps_in_block(body);
  if (!jumps) {
    push(L, out, loop);
    return;
  }
  const Node *first_return = find_jump(body, N_RETURN);
  LoopFlags F = {0};
  if (jumps & JUMP_CONTINUE)
    F.keep_iterating = new_flag(L, "keep_iterating");
  if (jumps & JUMP_RETURN)
    push_return_setup(L, &F, body, out);
  if (!(jumps & (JUMP_BREAK | JUMP_RETURN))) {
    loop->u.while_.body = body_with_flags(L, &F, body);
    push(L, out, loop);
    return;
  }
  F.keep_looping = new_flag(L, "keep_looping");
  NodeList new_body = body_with_flags(L, &F, body);
  if (is_plain_expression(test)) {
    push_set(L, out, F.keep_looping, "True");
    loop->u.while_.test = is_constant_true(test) ? flag(L, F.keep_looping) : T(L, "_1 and _2", flag(L, F.keep_looping), test);
  } else {
    /* the condition is evaluated only while the loop goes on; the flag
     * stays a bool (Triton's loop-carried variables keep one type) */
    if (!test->type || test->type->dtype != DT_BOOL)
      test = T(L, "_1 != 0", test);
    push(L, out, template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(flag(L, F.keep_looping), test)).items[0]);
    NodeList again = template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(flag(L, F.keep_looping), test));
    push(L, &new_body, make_if(L, flag(L, F.keep_looping), again));
    loop->u.while_.test = flag(L, F.keep_looping);
  }
  loop->u.while_.body = new_body;
  push(L, out, loop);
  if (first_return)
    push_return_after(L, &F, first_return, out);
}

void rewrite_break_continue(Lowerer *L, NodeList *stmts) {
  NodeList out = {0};
  bool changed = false;
  for (int i = 0; i < stmts->count; i++) {
    Node *stmt = stmts->items[i];
    int before = out.count;
    if (stmt->kind == N_FOR)
      rewrite_for(L, stmt, &out);
    else if (stmt->kind == N_WHILE)
      rewrite_while(L, stmt, &out);
    else
      push(L, &out, stmt);
    changed |= out.count != before + 1 || out.items[before] != stmt;
  }
  if (changed)
    *stmts = out;
}

/* ------------------------------------------------------ and / or operands */

/* cuTile's `and`/`or` short-circuit at run time; Triton's evaluate every
 * operand that is not a constant (and pair chains of 3+ operands
 * themselves). For operands without side effects this is the same result,
 * so they stay `a and b and c`. An operand after the first that stores,
 * prints, asserts, does atomics or calls a tile function that does any of
 * these would run where cuTile skips it: a located error. Which
 * operations have side effects: the OPF_SIDE_EFFECT rows of ops/FAMILY.def. */

/* How deep the scan follows tile functions that call tile functions; a chain
 * deeper than this counts as having side effects (kept as the error). */
#define LOWER_EFFECT_SCAN_DEPTH 16

typedef struct EffectScan {
  Lowerer *L;
  const Node *found;
  int depth;            /* tile functions entered */
  const Node *function; /* the innermost of them (its def as written), or NULL */
} EffectScan;

static void scan_effects(Node *node, void *data);

/* A tile function of the module has side effects when its body as written, or
 * one it calls, stores, prints, asserts or does atomics; one that only loads
 * and computes gives the same value evaluated where cuTile would skip it
 * (loads out of bounds are padded, never faults). */
static bool function_has_side_effect(Lowerer *L, Function *fn, int depth) {
  if (depth >= LOWER_EFFECT_SCAN_DEPTH)
    return true;
  Node *def = fn->pristine ? fn->pristine : fn->def; /* as written */
  EffectScan scan = {L, NULL, depth + 1, def};
  for (int i = 0; i < def->u.function_def.body.count && !scan.found; i++)
    scan_effects(def->u.function_def.body.items[i], &scan);
  return scan.found != NULL;
}

/* A parameter of the function scanned, which a call may give any function. */
static bool is_parameter(const Node *def, Str name) {
  const NodeList *args = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < args->count; i++)
    if (str_same(args->items[i]->u.arg.arg, name))
      return true;
  return false;
}

static bool has_side_effect(Lowerer *L, const Node *call, const EffectScan *scan) {
  const char *member = resolve_ct_member(L->conv, call->u.call.func);
  if (!member && call->u.call.func->kind == N_ATTRIBUTE) /* tile.method(...) / array.method(...) */
    member = arena_strndup(&L->ctx->arena, call->u.call.func->u.attribute.attr.text,
                           (size_t)call->u.call.func->u.attribute.attr.len);
  if (member) {
    if (strncmp(member, "store", 5) == 0 || strncmp(member, "atomic_", 7) == 0)
      return true; /* also TiledView.store, RawArrayMemory.store_offset, ... */
    return op_has_flags(member, OPF_SIDE_EFFECT); /* the rows flagged so (ops/FAMILY.def) */
  }
  const Node *callee = call->u.call.func;
  if (callee->kind != N_NAME || str_eq(callee->u.name.id, "print"))
    return true;
  if (scan->function && is_parameter(scan->function, callee->u.name.id))
    return true;
  Function *fn = find_function(L->conv, callee->u.name.id);
  return fn && function_has_side_effect(L, fn, scan->depth);
}

static void scan_effects(Node *node, void *data) {
  EffectScan *scan = data;
  if (scan->found)
    return;
  if (node->kind == N_CALL && has_side_effect(scan->L, node, scan)) {
    scan->found = node;
    return;
  }
  node_children(node, scan_effects, data);
}

void check_short_circuit(Lowerer *L, Node *bool_op) {
  NodeList *values = &bool_op->u.bool_op.values;
  for (int i = 1; i < values->count; i++) {
    EffectScan scan = {L, NULL, 0, NULL};
    scan_effects(values->items[i], &scan);
    if (scan.found)
      lower_error(L, scan.found, "this call may have side effects, and cuTile skips it when the `%s` is decided "
                  "by the operands before it (Triton evaluates every operand): assign it under an `if` first",
                  bool_op->u.bool_op.op == AOP_AND ? "and" : "or");
  }
}

/* ------------------------------------- branches decided at conversion */

/* Known at conversion: a constant whose value the converter has (a
 * literal, a folded comparison such as ct.float16 == ct.float32); a
 * constexpr parameter's value comes with the launch (dtype unknown). */
static bool known_condition(const Node *test, bool *value) {
  const TypeInfo *type = test->type;
  if (!type || type->kind != VAL_CONST || type->dtype == DT_UNKNOWN)
    return false;
  *value = type->is_float ? type->float_value != 0 : type->int_value != 0;
  return true;
}

/* The source lines of the branch of `stmt` that `value` leaves out, on the function being
 * lowered (its comments are left out with it: a version of a function read the other
 * outcome's comments). True: from the line after the body to the end of the chain (elif and
 * else clauses); false: from the `if` line to the body's last line. */
static void note_dropped_lines(Lowerer *L, const Node *stmt, bool value) {
  const NodeList *body = &stmt->u.if_.body;
  if (!L->function || !L->function->def || stmt->span.start.line <= 0 || !body->count)
    return;
  int body_end = body->items[body->count - 1]->span.end.line;
  int first = value ? body_end + 1 : stmt->span.start.line, last = value ? stmt->span.end.line : body_end;
  if (first <= 0 || last < first)
    return;
  dropped_lines_add(&L->ctx->arena, &L->function->def->u.function_def.dropped, first, last);
}


bool prune_known_if(Lowerer *L, Node *stmt, NodeList *out) {
  bool value;
  if (!known_condition(stmt->u.if_.test, &value))
    return false;
  note_dropped_lines(L, stmt, value);
  /* cuTile compiles only the live branch: the other one may hold code that
   * converts nowhere (another rank, an op valid only for other dtypes) */
  NodeList *live = value ? &stmt->u.if_.body : &stmt->u.if_.orelse;
  lower_stmts(L, live);
  /* a live branch that converts to nothing (`if USE_X: src = x`, an array's other name) leaves
     nothing: the `pass` its block was given would stand among the statements around it */
  if (live->count == 1 && live->items[0]->kind == N_PASS && !live->items[0]->span.start.line &&
      !live->items[0]->note)
    return true;
  for (int i = 0; i < live->count; i++)
    push(L, out, live->items[i]);
  return true;
}

static bool same_type(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || a->dtype != b->dtype || a->rank != b->rank)
    return false;
  if (a->dtype == DT_UNKNOWN && (a->kind == VAL_TILE || a->kind == VAL_DTYPE) && a->dtype_expr != b->dtype_expr)
    return false;
  if (a->kind == VAL_ENUM && (!a->member || !b->member || strcmp(a->member, b->member) != 0))
    return false; /* PaddingMode.ZERO if F else PaddingMode.NEG_INF: two values */
  if (a->kind == VAL_TUPLE) { /* item by item (`(16,) if F else (32,)` is not (16,)) */
    if (a->count != b->count || !a->elts || !b->elts)
      return false;
    for (int i = 0; i < a->count; i++)
      if (!same_type(L, a->elts[i], b->elts[i]))
        return false;
  }
  /* constants known here are the same only with the same value (`1 if FLAG else 0` is not 1) */
  if (a->kind == VAL_CONST && a->dtype != DT_UNKNOWN &&
      (a->is_float != b->is_float || (a->is_float ? a->float_value != b->float_value : a->int_value != b->int_value)))
    return false;
  for (int d = 0; d < a->rank && d < C2T_MAX_RANK; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] < 0 && !math_same_dim(L, a->dims[d], b->dims[d])))
      return false;
  return true;
}

/* When `a if cond else b` (cond a constexpr) is tfloat32: a constexpr
 * expression, NULL when never (tfloat32 is float32 to Triton). */
static Node *tf32_text(Lowerer *L, const TypeInfo *type) {
  if (type->dtype == DT_TFLOAT32)
    return T0(L, "True");
  return type->tf32_when ? node_copy_tree(&L->ctx->arena, type->tf32_when) : NULL;
}

static Node *either_tf32(Lowerer *L, const Node *expr, const TypeInfo *a, const TypeInfo *b) {
  Node *when_a = tf32_text(L, a), *when_b = tf32_text(L, b);
  if (!when_a && !when_b)
    return NULL;
  Node *test = node_copy_tree(&L->ctx->arena, expr->u.if_exp.test);
  if (!when_b)
    return a->dtype == DT_TFLOAT32 ? T(L, "(_1)", test) : T(L, "(_1 and _2)", test, when_a);
  if (!when_a)
    return T(L, "(not _1 and _2)", test, when_b);
  return T(L, "(_1 if _2 else _3)", when_a, test, when_b);
}

TypeInfo *either_constant(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  TypeInfo *type = type_new(L->ctx, VAL_CONST);
  type->rank = 0;
  type->dtype = DT_UNKNOWN;
  type->is_float = a->is_float || b->is_float;
  type->loose = a->loose && b->loose;
  return type;
}

TypeInfo *either_tile(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  TypeInfo *type = type_new(L->ctx, VAL_TILE);
  *type = *a;
  if (a->dtype != b->dtype || a->dtype_expr != b->dtype_expr) {
    type->dtype = DT_UNKNOWN;
    type->dtype_expr = NULL; /* read from the value: `name.dtype` */
    type->not_bfloat16 = false;
  }
  for (int d = 0; d < a->rank && d < C2T_MAX_RANK; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] < 0 && !math_same_dim(L, a->dims[d], b->dims[d]))) {
      type->shape[d] = -1;
      type->dims[d] = NULL;
    }
  return type;
}

/* The type of `a if cond else b` with cond a constexpr: Triton keeps one
 * operand at compile time, so the two may differ in dtype (cuTile's
 * `ct.astype(t, ct.tfloat32) if t.dtype == ct.float32 else t`); the dtype
 * is then known only at launch. */
static TypeInfo *either_type(Lowerer *L, const Node *expr, TypeInfo *a, TypeInfo *b) {
  if (same_type(L, a, b))
    return a;
  if (a && b && a->kind == VAL_CONST && b->kind == VAL_CONST)
    return either_constant(L, a, b);
  if (a && b && a->kind == VAL_TUPLE && b->kind == VAL_TUPLE && a->count == b->count && a->elts && b->elts &&
      !a->array_items && !b->array_items) { /* a tuple of what the items agree on */
    TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
    type->count = a->count;
    type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(a->count + 1));
    for (int i = 0; i < a->count; i++)
      type->elts[i] = either_type(L, expr, a->elts[i], b->elts[i]);
    return type;
  }
  if (a && b && ((a->kind == VAL_CONST && b->kind == VAL_TILE && b->rank == 0) ||
                 (b->kind == VAL_CONST && a->kind == VAL_TILE && a->rank == 0)))
    return type_tile(L->ctx, DT_UNKNOWN, 0, NULL); /* `0 if N == 1 else i`: a number or a scalar, as Triton types it */
  if (a && b && a->kind == VAL_DTYPE && b->kind == VAL_DTYPE) {
    /* the dtype is the expression itself (Triton evaluates it at compile
     * time); tfloat32 is tl.float32 to Triton, and the type says when it
     * is tfloat32 (the matrix product that takes it reads that) */
    TypeInfo *type = type_new(L->ctx, VAL_DTYPE);
    type->dtype = DT_UNKNOWN;
    type->dtype_expr = (Node *)expr;
    type->tf32_when = either_tf32(L, expr, a, b);
    return type;
  }
  if (a && b && a->kind == VAL_TILE && b->kind == VAL_TILE && a->rank == b->rank) {
    TypeInfo *type = either_tile(L, a, b);
    if (type->dtype == DT_UNKNOWN && (a->dtype != b->dtype || a->dtype_expr != b->dtype_expr))
      type->tf32_when = either_tf32(L, expr, a, b);
    return type;
  }
  lower_error(L, expr, "the two operands of this conditional expression have different types (%s and %s): only "
              "tiles of one rank, numbers and scalars, or dtypes can be chosen by a condition known at launch",
              type_describe(L->ctx, a), type_describe(L->ctx, b));
}

/* The type of `a if cond else b` with cond a run-time value: cuTile requires the operands'
 * types to agree, and where they are numbers (or a number and a scalar) the result is a
 * run-time scalar, neither number; tuples item by item (`(0, j) if s > 0 else (1, j)`). */
static TypeInfo *run_time_choice(Lowerer *L, TypeInfo *a, TypeInfo *b) {
  if (!a || !b || same_type(L, a, b))
    return a;
  bool scalar_a = a->kind == VAL_CONST || (a->kind == VAL_TILE && a->rank == 0);
  bool scalar_b = b->kind == VAL_CONST || (b->kind == VAL_TILE && b->rank == 0);
  if (scalar_a && scalar_b && (a->kind == VAL_CONST || b->kind == VAL_CONST))
    return type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
  if (a->kind == VAL_TUPLE && b->kind == VAL_TUPLE && a->count == b->count && a->elts && b->elts &&
      !a->array_items && !b->array_items) {
    TypeInfo *tuple = type_new(L->ctx, VAL_TUPLE);
    *tuple = *a;
    tuple->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(a->count + 1));
    for (int i = 0; i < a->count; i++)
      tuple->elts[i] = run_time_choice(L, a->elts[i], b->elts[i]);
    return tuple;
  }
  if (joinable(L, a, b) || !((a->kind == VAL_TILE || a->kind == VAL_CONST) && (b->kind == VAL_TILE || b->kind == VAL_CONST)))
    return a;
  TypeInfo *marked = type_new(L->ctx, a->kind); /* (16, 16) or (16, 1): cuTile refuses a use of it */
  *marked = *a;
  marked->path_dependent = true;
  return marked;
}

/* Item `i` of a lowered tuple operand: as written in it, else `t[i]`. */
static Node *choice_item(Lowerer *L, Node *tuple, int i) {
  if (tuple->kind == N_TUPLE && i < tuple->u.list.elts.count)
    return tuple->u.list.elts.items[i];
  Node *item = T(L, "_1[_2]", node_copy_tree(&L->ctx->arena, tuple), new_int(L, i));
  item->type = tuple->type->elts[i];
  return item;
}

/* `(a0 if c else b0, a1 if c else b1)` for `(a0, a1) if c else (b0, b1)` on a run-time c:
 * Triton 3.6 compiles a conditional of scalars on a run-time value, not of tuples. */
static Node *tuple_of_choices(Lowerer *L, Node *expr, TypeInfo *type) {
  Node *tuple = T0(L, "()");
  for (int i = 0; i < type->count; i++) {
    Node *a = choice_item(L, expr->u.if_exp.body, i), *b = choice_item(L, expr->u.if_exp.orelse, i);
    bool one = a->type && a->type->kind == VAL_CONST && a->type->dtype != DT_UNKNOWN && same_type(L, a->type, b->type);
    Node *item = one ? a /* the same number either way */
                     : T(L, "(_1 if _2 else _3)", a, node_copy_tree(&L->ctx->arena, expr->u.if_exp.test), b);
    item->type = type->elts[i];
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, item);
  }
  tuple->type = type;
  return tuple;
}

Node *lower_conditional_expr(Lowerer *L, Node *expr) {
  Node *source_test =
      L->split_name_count || L->split_alias_count ? node_copy_tree(&L->ctx->arena, expr->u.if_exp.test) : NULL;
  Node *test = lower_condition(L, expr->u.if_exp.test);
  bool value;
  if (known_condition(test, &value)) { /* only the live operand is converted, as cuTile compiles only it */
    Node *live = lower_expr(L, value ? expr->u.if_exp.body : expr->u.if_exp.orelse);
    /* a fresh node in the expression's place: an operand left as written (`t`) would let the
       emitter take the statement for untouched and copy the whole conditional from the source */
    Node *made = T(L, "_1", live);
    made->type = live->type;
    return made;
  }
  expr->u.if_exp.test = test;
  expr->u.if_exp.body = lower_expr(L, expr->u.if_exp.body);
  expr->u.if_exp.orelse = lower_expr(L, expr->u.if_exp.orelse);
  TypeInfo *body = expr->u.if_exp.body->type, *orelse = expr->u.if_exp.orelse->type;
  bool arrays = body && orelse && (body->kind == VAL_ARRAY || orelse->kind == VAL_ARRAY);
  if (arrays && !(body->kind == orelse->kind && memory_same_array(L, body, orelse))) {
    if (test->type && test->type->kind == VAL_CONST) /* a constexpr's choice: a version per outcome */
      note_version_split(L, source_test, test, 3);
    else if (body->kind == VAL_ARRAY && orelse->kind == VAL_ARRAY && body->array && orelse->array && L->pending &&
             !body->tiled && !orelse->tiled && !body->raw_memory && !orelse->raw_memory &&
             !body->array->descriptor_slots && !orelse->array->descriptor_slots &&
             body->array->int64_index == orelse->array->int64_index) {
      /* chosen while the kernel runs: `if c:` setting the pieces of one view in each branch */
      Node *choice = template_stmts(L->ctx, "if _1:\n    pass\nelse:\n    pass\n", TEMPLATE_NODES(test)).items[0];
      choice->u.if_.body = choice->u.if_.orelse = (NodeList){0};
      TypeInfo *chosen = memory_chosen_array(L, (Str){"chosen", 6}, body, orelse, &choice->u.if_.body,
                                             &choice->u.if_.orelse);
      node_list_push(&L->ctx->arena, L->pending, choice);
      Node *made = node_copy_tree(&L->ctx->arena, chosen->array->pointer);
      made->type = chosen;
      return made;
    }
    lower_error(L, expr, "this conditional expression chooses between two arrays (or views of them) by a value "
                "known only at launch: an array is not a run-time value in the converted kernel (its pointer, "
                "shape and strides are parameters); load or store through each array in its own branch of an `if`");
  }
  bool functions = body && orelse && (body->kind == VAL_FUNCTION || orelse->kind == VAL_FUNCTION);
  if (functions && !(body->kind == orelse->kind && body->member && orelse->member && !strcmp(body->member, orelse->member))) {
    if (test->type && test->type->kind == VAL_CONST) /* a constexpr's choice: a version per outcome */
      note_version_split(L, source_test, test, 3);
    lower_error(L, expr, "this conditional expression chooses between two functions by a value known only at "
                "launch: a function is not a run-time value in the converted kernel; call each in its own "
                "branch of an `if`");
  }
  if (test->type && test->type->kind == VAL_CONST) {
    /* another rank or kind per outcome: a version of the function per outcome */
    int disagreement = type_disagreement(L, body, orelse);
    if (body && orelse && (body->kind != orelse->kind || disagreement))
      note_version_split(L, source_test, test, body->kind != orelse->kind ? 2 : disagreement);
    expr->type = either_type(L, expr, body, orelse);
  }
  else if (body && orelse && body->kind == VAL_TUPLE && orelse->kind == VAL_TUPLE && !same_type(L, body, orelse) &&
           body->count == orelse->count && body->elts && orelse->elts && !body->array_items && !orelse->array_items)
    return tuple_of_choices(L, expr, run_time_choice(L, body, orelse));
  else
    expr->type = run_time_choice(L, body, orelse);
  return expr;
}

/* ------------------------------ array ranks in branches decided at launch */

/* An array whose rank is learnt from its first use may have another rank
 * at each launch when its uses sit under a constexpr `if` (cuTile's
 * `if MODE == NONE: ct.store(out, (i, j), ...)  else: ct.scatter(out, i, ...)`):
 * Triton compiles only the taken branch, so each branch learns the rank of
 * its own uses, and after the `if` the rank stays learnt only where both
 * branches agree. */
struct BranchRanks {
  TypeInfo **arrays; /* arrays of unknown rank before the `if` */
  int *body_rank;
  int count;
};

BranchRanks *branch_ranks_open(Lowerer *L, const Node *test) {
  if (!test->type || test->type->kind != VAL_CONST) /* a run-time `if`: both branches are compiled */
    return NULL;
  BranchRanks *ranks = arena_alloc(&L->ctx->arena, sizeof(BranchRanks));
  Scope *scope = L->scope;
  ranks->arrays = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(scope->count + 1));
  ranks->body_rank = arena_alloc(&L->ctx->arena, sizeof(int) * (size_t)(scope->count + 1));
  for (int i = 0; i < scope->count; i++) {
    TypeInfo *type = scope->vars[i].type;
    if (!type || type->kind != VAL_ARRAY || type->rank >= 0)
      continue;
    bool seen = false;
    for (int j = 0; j < ranks->count && !seen; j++)
      seen = ranks->arrays[j] == type;
    if (!seen) {
      ranks->arrays[ranks->count++] = type;
      if (type->array)
        type->array->rank_branches++;
    }
  }
  return ranks;
}

void branch_ranks_else(Lowerer *L, BranchRanks *ranks) {
  if (!ranks)
    return;
  for (int i = 0; i < ranks->count; i++) {
    ranks->body_rank[i] = ranks->arrays[i]->rank;
    ranks->arrays[i]->rank = -1;
  }
}

void branch_ranks_close(Lowerer *L, BranchRanks *ranks) {
  if (!ranks)
    return;
  for (int i = 0; i < ranks->count; i++) {
    if (ranks->arrays[i]->rank != ranks->body_rank[i])
      ranks->arrays[i]->rank = -1; /* another rank in each branch: learnt again at the next use */
    if (ranks->arrays[i]->array)
      ranks->arrays[i]->array->rank_branches--;
  }
}
