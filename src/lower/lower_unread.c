/*
 * lower_unread.c — what the converter would add that nothing reads.
 *
 * finish_module gives every converted module the launch helpers (_tensor,
 * _kernel_stream, ...) and the imports they and Triton code need (contextlib,
 * torch, triton, tl). A module with no launch and no kernel (a package's
 * __init__, a test or benchmark that imports its kernels, a module of host
 * utilities) reads none of them, and a module whose kernels take no tuple of
 * arrays never calls _tensors. Those are left out here: a statement the
 * converter adds stays when a name it binds is read by a statement that
 * stays (the module's own code, the launchers, the constexpr twins, the
 * registrations, a helper that stays), and a statement of the converter's
 * that binds no name (triton.set_allocator(...)) always stays.
 *
 * A read is any name in the statement, read or written (a function's
 * `global _LAUNCHED` keeps _LAUNCHED = {}): more stays than is read, never
 * less. What a def or class binds is its name; an assignment, its targets;
 * an import, the names of its aliases.
 */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

typedef struct MadeName {
  Str name;
  int stmt; /* the index of the droppable statement binding it */
} MadeName;

typedef struct Liveness {
  Lowerer *L;
  const NodeList *droppable; /* what the converter adds and may leave out */
  bool *kept;                /* per droppable statement */
  MadeName *bindings;        /* the names they bind, sorted */
  int binding_count, binding_capacity;
  int *work, work_count; /* kept droppable statements whose reads are not yet followed */
} Liveness;

static int compare_made_names(const void *a, const void *b) {
  const MadeName *x = a, *y = b;
  int by_name = str_order(x->name, y->name);
  return by_name ? by_name : (x->stmt > y->stmt) - (x->stmt < y->stmt);
}

static void bind(Liveness *lv, Str name, int stmt) {
  lv->bindings = arena_grown(&lv->L->ctx->arena, lv->bindings, lv->binding_count, &lv->binding_capacity,
                             sizeof(MadeName));
  lv->bindings[lv->binding_count++] = (MadeName){name, stmt};
}

static void bind_target(Liveness *lv, const Node *target, int stmt) {
  if (target->kind == N_NAME) {
    bind(lv, target->u.name.id, stmt);
  } else if (target->kind == N_TUPLE || target->kind == N_LIST) {
    for (int i = 0; i < target->u.list.elts.count; i++)
      bind_target(lv, target->u.list.elts.items[i], stmt);
  }
}

/* Whether `target` binds names only (not an attribute or a subscript, which a statement
 * assigns for what it does). */
static bool names_only(const Node *target) {
  if (target->kind == N_TUPLE || target->kind == N_LIST) {
    for (int i = 0; i < target->u.list.elts.count; i++)
      if (!names_only(target->u.list.elts.items[i]))
        return false;
    return true;
  }
  return target->kind == N_NAME;
}

/* The names statement `stmt` (droppable statement `index`) binds; false where it binds none
 * or binds something else too, so that it stays for what it does. */
static bool bind_statement(Liveness *lv, const Node *stmt, int index) {
  switch (stmt->kind) {
  case N_FUNCTION_DEF: bind(lv, stmt->u.function_def.name, index); return true;
  case N_CLASS_DEF: bind(lv, stmt->u.class_def.name, index); return true;
  case N_ASSIGN:
    for (int i = 0; i < stmt->u.assign.targets.count; i++)
      if (!names_only(stmt->u.assign.targets.items[i]))
        return false;
    for (int i = 0; i < stmt->u.assign.targets.count; i++)
      bind_target(lv, stmt->u.assign.targets.items[i], index);
    return true;
  case N_ANN_ASSIGN:
    if (!stmt->u.ann_assign.value || !names_only(stmt->u.ann_assign.target)) /* `x: T` alone binds nothing */
      return false;
    bind_target(lv, stmt->u.ann_assign.target, index);
    return true;
  case N_IMPORT:
  case N_IMPORT_FROM: {
    bool from = stmt->kind == N_IMPORT_FROM;
    const NodeList *names = from ? &stmt->u.import_from.names : &stmt->u.import.names;
    for (int i = 0; i < names->count; i++) {
      const Node *alias = names->items[i];
      Str name = alias->u.alias.asname.len ? alias->u.alias.asname : alias->u.alias.name;
      const char *dot = from || alias->u.alias.asname.len ? NULL : memchr(name.text, '.', (size_t)name.len);
      if (dot)
        name.len = (int)(dot - name.text); /* import a.b binds a */
      bind(lv, name, index);
    }
    return names->count > 0;
  }
  default:
    return false; /* a comment (the helpers' banner) is kept or left with the helpers */
  }
}

static void keep(Liveness *lv, int stmt) {
  if (lv->kept[stmt])
    return;
  lv->kept[stmt] = true;
  lv->work[lv->work_count++] = stmt;
}

/* Every droppable statement binding `name` stays. */
static void read_name(Liveness *lv, Str name) {
  int lo = 0, hi = lv->binding_count;
  while (lo < hi) { /* the first binding of name */
    int mid = lo + (hi - lo) / 2;
    if (str_order(lv->bindings[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int i = lo; i < lv->binding_count && str_same(lv->bindings[i].name, name); i++)
    keep(lv, lv->bindings[i].stmt);
}

static void read_names(Node *node, void *data) {
  if (node->kind == N_NAME)
    read_name(data, node->u.name.id);
  node_children(node, read_names, data);
}

/* The names droppable statement `stmt` reads: all of it but the names it binds. */
static void read_droppable(Liveness *lv, Node *stmt) {
  if (stmt->kind == N_ASSIGN) {
    read_names(stmt->u.assign.value, lv);
  } else if (stmt->kind == N_ANN_ASSIGN) {
    read_names(stmt->u.ann_assign.annotation, lv);
    read_names(stmt->u.ann_assign.value, lv);
  } else if (stmt->kind != N_IMPORT && stmt->kind != N_IMPORT_FROM) {
    node_children(stmt, read_names, lv);
  }
}

static int droppable_index(const NodeList *droppable, const Node *stmt) {
  for (int i = 0; i < droppable->count; i++)
    if (droppable->items[i] == stmt)
      return i;
  return -1;
}

/* The imports of `droppable` that stay take the source lines of those left out (where the
 * cuda.tile import stood: its comments above and trailing), so the emitter writes them there. */
static void keep_import_lines(Liveness *lv) {
  Node *first = NULL, *last = NULL;
  for (int i = 0; i < lv->droppable->count; i++) {
    Node *stmt = lv->droppable->items[i];
    if ((stmt->kind == N_IMPORT || stmt->kind == N_IMPORT_FROM) && lv->kept[i]) {
      first = first ? first : stmt;
      last = stmt;
    }
  }
  int start = 0, end = 0; /* the lines of the cuda.tile import, where none stays */
  for (int i = 0; i < lv->droppable->count; i++) {
    Node *stmt = lv->droppable->items[i];
    if ((stmt->kind != N_IMPORT && stmt->kind != N_IMPORT_FROM) || lv->kept[i])
      continue;
    if (stmt->span.start.line > 0 && first && first->span.start.line <= 0)
      first->span.start = stmt->span.start;
    if (stmt->span.end.line > 0 && last && last->span.end.line <= 0)
      last->span.end = stmt->span.end;
    start = stmt->span.start.line > 0 ? stmt->span.start.line : start;
    end = stmt->span.end.line > 0 ? stmt->span.end.line : end;
  }
  /* with nothing in its place, the comments on the import's lines (`# noqa: F401`) go with
   * it, as those of a statement the converter leaves out; those above it stay */
  if (!first && start > 0 && end >= start)
    dropped_lines_add(&lv->L->ctx->arena, &lv->L->conv->module->u.module.dropped, start, end);
}

void drop_unread_made(Lowerer *L, NodeList *out, const NodeList *droppable) {
  if (!droppable->count)
    return;
  Arena *arena = &L->ctx->arena;
  Liveness lv = {L, droppable, arena_alloc(arena, sizeof(bool) * (size_t)droppable->count), NULL, 0, 0,
                 arena_alloc(arena, sizeof(int) * (size_t)droppable->count), 0};
  memset(lv.kept, 0, sizeof(bool) * (size_t)droppable->count);
  for (int i = 0; i < droppable->count; i++)
    if (!bind_statement(&lv, droppable->items[i], i) && droppable->items[i]->kind != N_COMMENT)
      keep(&lv, i);
  qsort(lv.bindings, (size_t)lv.binding_count, sizeof(MadeName), compare_made_names);
  int *index = arena_alloc(arena, sizeof(int) * (size_t)(out->count ? out->count : 1));
  for (int i = 0; i < out->count; i++) {
    index[i] = droppable_index(droppable, out->items[i]);
    if (index[i] < 0)
      read_names(out->items[i], &lv);
  }
  while (lv.work_count)
    read_droppable(&lv, droppable->items[lv.work[--lv.work_count]]);
  bool helpers = false; /* the banner stays above the helpers that stay */
  for (int i = 0; i < droppable->count; i++) {
    int kind = droppable->items[i]->kind;
    helpers |= lv.kept[i] && kind != N_IMPORT && kind != N_IMPORT_FROM && kind != N_COMMENT;
  }
  for (int i = 0; i < droppable->count; i++)
    if (droppable->items[i]->kind == N_COMMENT)
      lv.kept[i] = helpers;
  keep_import_lines(&lv);
  NodeList kept = {0};
  for (int i = 0; i < out->count; i++)
    if (index[i] < 0 || lv.kept[index[i]])
      node_list_push(arena, &kept, out->items[i]);
  *out = kept;
}
