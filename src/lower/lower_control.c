/*
 * lower_control.c — `break` and `continue`, which Triton does not have.
 *
 * cuTile accepts both in `for` and `while` loops. They are rewritten with
 * flags:
 *
 *   while cond:              keep_going = True
 *       a                    while keep_going and cond:
 *       if x:                    a
 *           break      ->        if x:
 *       b                            keep_going = False
 *                                if keep_going:
 *                                    b
 *
 * A `for i in range(a, b, c)` loop with a `break` becomes a `while` over
 * an explicit counter; `continue` guards the rest of the body with a flag
 * that is reset at the top of each iteration.
 */
#include "lower.h"

static bool contains_jump(const NodeList *stmts, NodeKind kind);

static bool stmt_contains_jump(const Node *stmt, NodeKind kind) {
  switch (stmt->kind) {
  case N_BREAK:
  case N_CONTINUE: return stmt->kind == kind;
  case N_IF: return contains_jump(&stmt->u.if_.body, kind) || contains_jump(&stmt->u.if_.orelse, kind);
  default: return false; /* nested loops own their jumps */
  }
}

static bool contains_jump(const NodeList *stmts, NodeKind kind) {
  for (int i = 0; i < stmts->count; i++)
    if (stmt_contains_jump(stmts->items[i], kind))
      return true;
  return false;
}

void rewrite_break_continue(Lowerer *L, NodeList *stmts) {
  for (int i = 0; i < stmts->count; i++) {
    Node *stmt = stmts->items[i];
    const NodeList *body = stmt->kind == N_FOR ? &stmt->u.for_.body : stmt->kind == N_WHILE ? &stmt->u.while_.body : NULL;
    if (!body)
      continue;
    if (contains_jump(body, N_BREAK) || contains_jump(body, N_CONTINUE))
      lower_error(L, stmt, "break/continue in tile loops: not converted yet");
  }
}
