/*
 * lower_pipeline.c — the loops of a kernel whose loads Triton may start
 * early (software pipelining).
 *
 * cuTile overlaps a loop's loads for the next iterations with the current
 * one's work (its `latency=` hints tune how far ahead). Triton 3.6 does so
 * for loads that feed tl.dot and, for other loads, only in a loop that asks
 * for stages itself:
 *
 *     for i in tl.range(start, stop, step, num_stages=_loop_stages):
 *
 * (measured on the sm_90 code of a persistent row-norm loop: no cp.async
 * with the kernel's num_stages=3 alone, cp.async prefetches with
 * tl.range's). `_loop_stages` is a constexpr parameter of the kernel that
 * each launch candidate sets to its own num_stages (1: no pipelining, the
 * candidate that always fits), and a fixed launch to the stage count it
 * takes.
 *
 * A pipelined loop reads up to num_stages - 1 iterations ahead of its own
 * stores, so a loop qualifies only when that cannot change what it reads:
 *
 *   - it is an innermost `for ... in range(...)` of the kernel's own body
 *     (not ct.static_iter, no nested loop, no break or return) with at
 *     least one ct.load / ct.gather / ct.load_advanced_indexing;
 *   - no array it loads is also stored, scattered or updated in it (cuTile
 *     takes different array parameters not to alias; every array named is
 *     a parameter of the kernel, an item of one, or the loop does not
 *     qualify), except in the other branch of an `if` on constexpr
 *     parameters (`if COMPUTE: ct.store(Mean, ...)` / `else: ct.gather(Mean,
 *     ...)`): one compilation runs one branch of it;
 *   - it has no atomics, no memory_order= or memory_scope= accesses, no
 *     matrix product (tl.dot loops are pipelined by the kernel's
 *     num_stages already) and calls no tile function (which may store), and
 *     nothing reads or writes memory through an array's own methods.
 *
 * Run on the loop's source before it is lowered.
 */
#include <string.h>

#include "lower.h"

/* Where an access sits: the constexpr ifs around it, innermost last, and the
 * branch of each (0: the body, 1: the else). */
typedef struct Arms {
  const Node *ifs[C2T_MAX_PIPELINE_ARMS];
  int branch[C2T_MAX_PIPELINE_ARMS];
  int depth;
} Arms;

typedef struct Access {
  Str array;
  Arms arms;
} Access;

typedef struct LoopScan {
  Lowerer *L;
  Access loaded[C2T_MAX_PIPELINED_ARRAYS], stored[C2T_MAX_PIPELINED_ARRAYS];
  int loaded_count, stored_count;
  Arms arms; /* of the node being scanned */
  bool disqualified;
} LoopScan;

/* The kernel parameter an array argument names: `x` or an item `xs[i]`;
 * a length-0 name for anything else. */
static Str array_parameter(Lowerer *L, const Node *array) {
  if (array && array->kind == N_SUBSCRIPT)
    array = array->u.subscript.value;
  if (!array || array->kind != N_NAME)
    return (Str){NULL, 0};
  const Function *fn = L->function;
  for (int i = 0; i < fn->param_count; i++)
    if (str_same(fn->param_names[i], array->u.name.id))
      return array->u.name.id;
  return (Str){NULL, 0};
}

static bool same_arms(const Arms *a, const Arms *b) {
  if (a->depth != b->depth)
    return false;
  for (int i = 0; i < a->depth; i++)
    if (a->ifs[i] != b->ifs[i] || a->branch[i] != b->branch[i])
      return false;
  return true;
}

/* Whether two accesses sit in different branches of one constexpr if, so
 * that no compilation runs both. */
static bool exclusive(const Arms *a, const Arms *b) {
  for (int i = 0; i < a->depth; i++)
    for (int j = 0; j < b->depth; j++)
      if (a->ifs[i] == b->ifs[j] && a->branch[i] != b->branch[j])
        return true;
  return false;
}

static void remember(LoopScan *scan, Access *accesses, int *count, Str name) {
  if (!name.len) { /* not a parameter: its aliasing is not known */
    scan->disqualified = true;
    return;
  }
  for (int i = 0; i < *count; i++)
    if (str_same(accesses[i].array, name) && same_arms(&accesses[i].arms, &scan->arms))
      return;
  if (*count == C2T_MAX_PIPELINED_ARRAYS) { /* more arrays than tracked: leave the loop as it is */
    scan->disqualified = true;
    return;
  }
  accesses[(*count)++] = (Access){name, scan->arms};
}

/* The array argument of a memory operation (its first positional argument,
 * or `array=`). */
static const Node *array_argument(const Node *call) {
  if (call->u.call.args.count)
    return call->u.call.args.items[0];
  for (int i = 0; i < call->u.call.keywords.count; i++)
    if (str_eq(call->u.call.keywords.items[i]->u.keyword.arg, "array"))
      return call->u.call.keywords.items[i]->u.keyword.value;
  return NULL;
}

static bool has_keyword(const Node *call, const char *name) {
  for (int i = 0; i < call->u.call.keywords.count; i++)
    if (str_eq(call->u.call.keywords.items[i]->u.keyword.arg, name))
      return true;
  return false;
}

/* Array methods that access memory or make views (array.slice(...).load()). */
static bool is_memory_method(Str attr) {
  static const char *const methods[] = {"load", "store", "slice", "tiled_view", "gather", "scatter"};
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
    if (str_eq(attr, methods[i]))
      return true;
  return attr.len >= 6 && strncmp(attr.text, "atomic", 6) == 0;
}

static void scan_call(LoopScan *scan, const Node *call) {
  Lowerer *L = scan->L;
  const Node *func = call->u.call.func;
  const char *member = resolve_ct_member(L->conv, func);
  if (member) {
    if (!strcmp(member, "load") || !strcmp(member, "gather") || !strcmp(member, "load_advanced_indexing")) {
      if (has_keyword(call, "memory_order") || has_keyword(call, "memory_scope"))
        scan->disqualified = true;
      remember(scan, scan->loaded, &scan->loaded_count, array_parameter(L, array_argument(call)));
    } else if (!strcmp(member, "store") || !strcmp(member, "scatter") || !strcmp(member, "store_advanced_indexing")) {
      if (has_keyword(call, "memory_order") || has_keyword(call, "memory_scope"))
        scan->disqualified = true;
      remember(scan, scan->stored, &scan->stored_count, array_parameter(L, array_argument(call)));
    } else if (!strncmp(member, "atomic", 6) || !strcmp(member, "mma") || !strcmp(member, "matmul") ||
               !strcmp(member, "mma_scaled")) {
      scan->disqualified = true;
    }
    return;
  }
  if (func->kind == N_NAME) {
    Function *called = find_function(L->conv, func->u.name.id);
    if (called) /* a tile function: it may store anything */
      scan->disqualified = true;
    return; /* range, min, max, len, int, float, ...: no memory */
  }
  if (func->kind == N_ATTRIBUTE && is_memory_method(func->u.attribute.attr))
    scan->disqualified = true;
}

static void scan_node(Node *node, void *data);

/* The branches of an if on constexpr parameters, each scanned as its own arm. */
static void scan_constexpr_if(LoopScan *scan, Node *node) {
  if (scan->arms.depth == C2T_MAX_PIPELINE_ARMS) { /* more ifs than told apart: leave the loop as it is */
    scan->disqualified = true;
    return;
  }
  scan_node(node->u.if_.test, scan);
  int depth = scan->arms.depth++;
  scan->arms.ifs[depth] = node;
  for (int branch = 0; branch < 2; branch++) {
    NodeList *stmts = branch ? &node->u.if_.orelse : &node->u.if_.body;
    scan->arms.branch[depth] = branch;
    for (int i = 0; i < stmts->count && !scan->disqualified; i++)
      scan_node(stmts->items[i], scan);
  }
  scan->arms.depth = depth;
}

static void scan_node(Node *node, void *data) {
  LoopScan *scan = data;
  if (!node || scan->disqualified)
    return;
  switch (node->kind) {
  case N_IF:
    if (constexpr_param_condition(scan->L, node->u.if_.test)) {
      scan_constexpr_if(scan, node);
      return;
    }
    break;
  case N_FOR:
  case N_WHILE:
  case N_BREAK:
  case N_RETURN:
  case N_FUNCTION_DEF:
  case N_LAMBDA: scan->disqualified = true; return;
  case N_BIN_OP:
    if (node->u.bin_op.op == AOP_MATMULT) /* x @ y */
      scan->disqualified = true;
    break;
  case N_CALL: scan_call(scan, node); break;
  default: break;
  }
  node_children(node, scan_node, data);
}

bool loop_may_pipeline(Lowerer *L, const Node *loop) {
  if (!L->function || L->function->role != ROLE_KERNEL || loop->kind != N_FOR)
    return false;
  LoopScan scan = {.L = L};
  const NodeList *body = &loop->u.for_.body;
  for (int i = 0; i < body->count && !scan.disqualified; i++)
    scan_node(body->items[i], &scan);
  if (scan.disqualified || !scan.loaded_count)
    return false;
  for (int i = 0; i < scan.loaded_count; i++)
    for (int j = 0; j < scan.stored_count; j++)
      if (str_same(scan.loaded[i].array, scan.stored[j].array) &&
          !exclusive(&scan.loaded[i].arms, &scan.stored[j].arms))
        return false;
  return true;
}

/* ------------------------------------- loops kept for their single trip (lower_stmt.c) */

typedef struct KeepScan {
  Lowerer *L;
  bool refused;
} KeepScan;

/* A nested loop (Triton pipelines the innermost only), or what writes memory: a store, scatter
 * or atomic, a tile function (which may store) or an array's memory method. */
static void scan_keep(Node *node, void *data) {
  KeepScan *scan = data;
  if (!node || scan->refused)
    return;
  if (node->kind == N_FOR || node->kind == N_WHILE) {
    scan->refused = true;
    return;
  }
  if (node->kind == N_CALL) {
    const Node *func = node->u.call.func;
    const char *member = resolve_ct_member(scan->L->conv, func);
    if (member)
      scan->refused = !strcmp(member, "store") || !strcmp(member, "scatter") ||
                      !strcmp(member, "store_advanced_indexing") || !strncmp(member, "atomic", 6);
    else if (func->kind == N_NAME)
      scan->refused = find_function(scan->L->conv, func->u.name.id) != NULL;
    else if (func->kind == N_ATTRIBUTE)
      scan->refused = is_memory_method(func->u.attribute.attr);
  }
  node_children(node, scan_keep, data);
}

bool loop_may_keep_single_trip(Lowerer *L, const Node *loop) {
  KeepScan scan = {L, false};
  const NodeList *body = &loop->u.for_.body;
  for (int i = 0; i < body->count && !scan.refused; i++)
    scan_keep(body->items[i], &scan);
  return !scan.refused;
}
