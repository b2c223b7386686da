/*
 * lower_loop_locals.c — names a loop only uses within each iteration.
 *
 * Triton carries every name a loop body assigns that exists before the
 * loop, and refuses a carried value whose type changes in the body
 * ("Loop-carried variable t has initial type bf16 but is re-assigned to
 * fp32"). cuTile does not carry a name whose value is set afresh at the
 * top of each iteration and not read after the loop: its old value is
 * dead. Such a name gets a name of its own inside the loop (`t_1`), so
 * Triton does not carry it either. Run on the function's source before it
 * is lowered.
 */
#include <string.h>

#include "lower.h"

typedef struct Mentions {
  Str name;
  size_t skip_begin, skip_end; /* a block whose mentions do not count (the loop body) */
  size_t after;                /* count mentions that start at or after this offset ... */
  size_t within_begin, within_end; /* ... or inside this span (an enclosing loop) */
  bool found;
} Mentions;

static bool names(const Node *node, Str name) { return node->kind == N_NAME && str_same(node->u.name.id, name); }

static void find_mention(Node *node, void *data) {
  Mentions *m = data;
  if (m->found || !node)
    return;
  size_t at = node->span.start.offset;
  if (names(node, m->name) && !(at >= m->skip_begin && at < m->skip_end) &&
      (at >= m->after || (at >= m->within_begin && at < m->within_end))) {
    m->found = true;
    return;
  }
  node_children(node, find_mention, data);
}

static bool mentions(Node *node, Str name) {
  Mentions m = {name, 0, 0, 0, 0, (size_t)-1, false};
  find_mention(node, &m);
  return m.found;
}

/* The first statement of `body` that mentions `name` is `name = value`
 * with no mention of it in `value`: each iteration sets it afresh. */
static bool set_afresh(NodeList *body, Str name) {
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (!mentions(stmt, name))
      continue;
    return stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1 &&
           names(stmt->u.assign.targets.items[0], name) && !mentions(stmt->u.assign.value, name);
  }
  return false;
}

typedef struct Rename {
  Str from, to;
} Rename;

static void rename_slot(Node **slot, void *data) {
  Rename *r = data;
  Node *node = *slot;
  if (names(node, r->from)) {
    node->u.name.id = r->to;
    node->rewritten = true; /* the statement is written from the tree, not copied from the source */
    return;
  }
  node_child_slots(node, rename_slot, data);
}

Str fresh_local_name(Lowerer *L, Node *def, Str name) {
  /* a function renaming one name many times (an `if` after another) would scan it for each number
     taken: quadratic in the number of ifs */
  int from = L->fresh_def == def && str_same(L->fresh_base, name) ? L->fresh_last + 1 : 1;
  for (int n = from;; n++) {
    char *text = arena_printf(&L->ctx->arena, "%.*s_%d", name.len, name.text, n);
    Str candidate = {text, (int)strlen(text)};
    if (!mentions(def, candidate) && !find_binding(L->conv, candidate) && !find_function(L->conv, candidate)) {
      L->fresh_def = def;
      L->fresh_base = (Str){arena_strndup(&L->ctx->arena, name.text, (size_t)name.len), name.len};
      L->fresh_last = n;
      return candidate;
    }
  }
}

static void loop_locals_in(Lowerer *L, Node *def, NodeList *stmts, Node *outermost);

static void rename_loop_locals_of(Lowerer *L, Node *def, Node *loop, Node *outermost) {
  NodeList *body = loop->kind == N_FOR ? &loop->u.for_.body : &loop->u.while_.body;
  if (body->count == 0)
    return;
  size_t body_begin = body->items[0]->span.start.offset, body_end = loop->span.end.offset;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1 || stmt->u.assign.targets.items[0]->kind != N_NAME)
      continue;
    Str name = stmt->u.assign.targets.items[0]->u.name.id;
    if (!set_afresh(body, name))
      continue;
    if (loop->kind == N_FOR ? mentions(loop->u.for_.target, name) : mentions(loop->u.while_.test, name))
      continue;
    /* only a name that exists before the loop is carried */
    Mentions before = {name, body_begin, (size_t)-1, 0, 0, 0, false};
    before.within_end = loop->span.start.offset; /* mentions before the loop */
    find_mention(def, &before);
    if (!before.found)
      continue;
    /* read after the loop, or in an enclosing loop (its next iteration runs after this loop) */
    Mentions later = {name, body_begin, body_end, body_end, 0, 0, false};
    if (outermost != loop) {
      later.within_begin = outermost->span.start.offset;
      later.within_end = outermost->span.end.offset;
    }
    for (int j = 0; j < def->u.function_def.body.count && !later.found; j++)
      find_mention(def->u.function_def.body.items[j], &later);
    if (later.found)
      continue;
    Rename r = {name, fresh_local_name(L, def, name)};
    for (int j = 0; j < body->count; j++)
      rename_slot(&body->items[j], &r);
  }
}

static void loop_locals_in(Lowerer *L, Node *def, NodeList *stmts, Node *outermost) {
  for (int i = 0; i < stmts->count; i++) {
    Node *stmt = stmts->items[i];
    switch (stmt->kind) {
    case N_FOR:
    case N_WHILE: {
      Node *outer = outermost ? outermost : stmt;
      rename_loop_locals_of(L, def, stmt, outer);
      loop_locals_in(L, def, stmt->kind == N_FOR ? &stmt->u.for_.body : &stmt->u.while_.body, outer);
      break;
    }
    case N_IF:
      loop_locals_in(L, def, &stmt->u.if_.body, outermost);
      loop_locals_in(L, def, &stmt->u.if_.orelse, outermost);
      break;
    default: break;
    }
  }
}

void rename_loop_locals(Lowerer *L, Node *def) { loop_locals_in(L, def, &def->u.function_def.body, NULL); }

bool rename_binding_in_block(Lowerer *L, NodeList *block, Str name, Str *own) {
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (!mentions(stmt, name))
      continue;
    bool plain = stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1 && names(stmt->u.assign.targets.items[0], name);
    if (!plain) { /* a read of the value before goes on; another binding of it (nested, `+=`, unpacked) stops */
      Assigned *bound = new_assigned(L);
      NodeList one = {&block->items[i], 1, 1};
      collect_assigned(bound, &one, 0);
      for (int n = 0; n < bound->count; n++)
        if (str_same(bound->names[n], name))
          return false;
      continue;
    }
    if (!own->len)
      *own = fresh_local_name(L, L->function->def, name);
    Rename r = {name, *own};
    rename_slot(&stmt->u.assign.targets.items[0], &r);
    for (int j = i + 1; j < block->count; j++)
      rename_slot(&block->items[j], &r);
    return true;
  }
  return false;
}

/* Every `from` in `block` (its nested blocks too) renamed `to`. */
void rename_in_block(NodeList *block, Str from, Str to) {
  Rename r = {from, to};
  for (int j = 0; j < block->count; j++)
    rename_slot(&block->items[j], &r);
}

void rename_in_body(Node *def, Str from, Str to) {
  Rename r = {from, to};
  for (int j = 0; j < def->u.function_def.body.count; j++)
    rename_slot(&def->u.function_def.body.items[j], &r);
}
