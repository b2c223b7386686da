/*
 * resolve_nested.c — functions defined inside a kernel or a @ct.function,
 * moved to module level (Triton has no nested @triton.jit functions).
 *
 * A def (or a lambda bound to a name) among the statements of a kernel's body
 * is tile code cuTile compiles with the kernel: it becomes a module-level
 * function named KERNEL_NAME, placed before the kernel, and each call of it
 * passes what it reads of the kernel's names (its parameters and locals) as
 * keyword arguments, at the call, as Python reads a closure's variables when it
 * runs (cuTile's closures do too):
 *
 *     @ct.kernel                          def k_foo(t, *, n):
 *     def k(x, n):                            return t + n
 *         def foo(t):
 *             return t + n      ->        @ct.kernel
 *         ...                             def k(x, n):
 *         y = foo(t)                          ...
 *                                             y = k_foo(t, n=n)
 *
 * A nested function that calls another one reads what that one reads too. One
 * that reads no name of the kernel may also be used as a value (a combine
 * function: ct.reduce(t, 0, add)); one that does may only be called. Defined
 * once, in the body or a block of it (under `if`, in a loop or `with`), with no decorator,
 * *args, **kwargs, nested def, lambda, nonlocal or global of its own, and with
 * defaults that read no name of the kernel; any other stays where it is (and
 * the lowering refuses it, located).
 */
#include <string.h>

#include "resolve.h"

/* Nested functions of one kernel or tile function moved out. */
#define C2T_MAX_NESTED_FUNCTIONS 32
/* NameSet of its enclosing function one nested function reads. */
#define C2T_MAX_NESTED_CAPTURES 32

typedef struct Walk {
  NameSet *names;
  bool stores;      /* the names bound (else the names read) */
  bool blocked;     /* a nested def or lambda, nonlocal, global, yield: not movable */
  Str counted;      /* count the bindings of this name */
  int bindings;
  const Node *skip; /* a statement not walked (the def whose name is counted) */
} Walk;

static void walk_names(Node *node, void *data) {
  Walk *walk = data;
  if (node == walk->skip)
    return;
  switch (node->kind) {
  case N_NAME:
    if ((node->u.name.ctx != CTX_LOAD) == walk->stores)
      resolve_set_add(walk->names, node->u.name.id);
    if (node->u.name.ctx != CTX_LOAD && walk->counted.len && str_same(node->u.name.id, walk->counted))
      walk->bindings++;
    return;
  case N_FUNCTION_DEF:
  case N_CLASS_DEF: {
    Str name = node->kind == N_FUNCTION_DEF ? node->u.function_def.name : node->u.class_def.name;
    if (walk->stores)
      resolve_set_add(walk->names, name);
    if (walk->counted.len && str_same(name, walk->counted))
      walk->bindings++;
    walk->blocked = true;
    return;
  }
  case N_LAMBDA:
  case N_GLOBAL:
  case N_NONLOCAL:
  case N_YIELD:
  case N_YIELD_FROM:
  case N_IMPORT:
  case N_IMPORT_FROM:
    walk->blocked = true;
    return;
  default: break;
  }
  node_children(node, walk_names, data);
}

/* The parameters of a def or lambda. */
static void add_parameters(NameSet *set, const Node *args) {
  const NodeList *lists[] = {&args->u.arguments.posonlyargs, &args->u.arguments.args, &args->u.arguments.kwonlyargs};
  for (int l = 0; l < 3; l++)
    for (int i = 0; i < lists[l]->count; i++)
      resolve_set_add(set, lists[l]->items[i]->u.arg.arg);
}

/* ------------------------------------------------------------ the candidates */

typedef struct Nested {
  Node **slot;     /* its statement in the enclosing body */
  Node *def;       /* the def (a lambda's made into one) */
  Str name, lifted;
  NameSet captures;  /* names of the enclosing function it reads (with those of the ones it calls) */
  NameSet calls;     /* the other nested functions it reads */
  bool movable;
} Nested;

static Node *new_node(Converter *conv, NodeKind kind, Span span) {
  Node *node = arena_alloc(&conv->ctx->arena, sizeof(Node));
  node->kind = kind;
  node->span = span;
  return node;
}

static Node *new_name(Converter *conv, Str id, ExprContext ctx, Span span) {
  Node *node = new_node(conv, N_NAME, span);
  node->u.name.id = id;
  node->u.name.ctx = ctx;
  return node;
}

/* `f = lambda t: ...` as `def f(t): return ...`; NULL for any other statement. */
static Node *lambda_as_def(Converter *conv, Node *stmt) {
  if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1 || stmt->u.assign.targets.items[0]->kind != N_NAME ||
      stmt->u.assign.value->kind != N_LAMBDA)
    return NULL;
  Node *lambda = stmt->u.assign.value;
  Node *def = new_node(conv, N_FUNCTION_DEF, stmt->span);
  def->u.function_def.name = stmt->u.assign.targets.items[0]->u.name.id;
  def->u.function_def.args = lambda->u.lambda.args;
  Node *ret = new_node(conv, N_RETURN, lambda->u.lambda.body->span);
  ret->u.return_.value = lambda->u.lambda.body;
  node_list_push(&conv->ctx->arena, &def->u.function_def.body, ret);
  def->rewritten = true;
  return def;
}

/* Whether a def's own form allows moving it: no decorator, *args, **kwargs; defaults and
 * annotations that read none of `outer`. */
static bool plain_signature(Converter *conv, const Node *def, const NameSet *outer) {
  const Node *args = def->u.function_def.args;
  if (def->u.function_def.decorator_list.count || args->u.arguments.vararg || args->u.arguments.kwarg ||
      def->u.function_def.type_params.count)
    return false;
  NameSet read = {.conv = conv};
  Walk walk = {&read, false, false, {0}, 0, NULL};
  node_children((Node *)args, walk_names, &walk);
  if (def->u.function_def.returns)
    walk_names(def->u.function_def.returns, &walk);
  for (int i = 0; i < read.count; i++)
    if (resolve_set_has(outer, read.names[i]))
      return false;
  return !walk.blocked;
}

/* ------------------------------------------------------------ the rewrite */

typedef struct Rewrite {
  Converter *conv;
  Nested *nested;
  int count;
} Rewrite;

static Nested *nested_named(Rewrite *rw, Str name) {
  for (int i = 0; i < rw->count; i++)
    if (rw->nested[i].movable && str_same(rw->nested[i].name, name))
      return &rw->nested[i];
  return NULL;
}

/* A movable nested function with captures that is read other than as the callee of a call
 * (returned, passed, stored) is not movable after all. */
static void check_reads(Node *node, void *data) {
  Rewrite *rw = data;
  if (node->kind == N_CALL && node->u.call.func->kind == N_NAME) {
    for (int i = 0; i < node->u.call.args.count; i++)
      check_reads(node->u.call.args.items[i], data);
    for (int i = 0; i < node->u.call.keywords.count; i++)
      check_reads(node->u.call.keywords.items[i], data);
    return;
  }
  if (node->kind == N_NAME && node->u.name.ctx == CTX_LOAD) {
    Nested *n = nested_named(rw, node->u.name.id);
    if (n && n->captures.count)
      n->movable = false;
    return;
  }
  node_children(node, check_reads, data);
}

/* Calls of moved functions: the new name, and their captures as keywords `n=n`. */
static void rewrite_calls(Node *node, void *data) {
  Rewrite *rw = data;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_LOAD) {
    Nested *n = nested_named(rw, node->u.name.id);
    if (n)
      node->u.name.id = n->lifted;
    return;
  }
  node_children(node, rewrite_calls, data);
  if (node->kind != N_CALL || node->u.call.func->kind != N_NAME)
    return;
  for (int i = 0; i < rw->count; i++) {
    Nested *n = &rw->nested[i];
    if (!n->movable || !str_same(node->u.call.func->u.name.id, n->lifted))
      continue;
    for (int c = 0; c < n->captures.count; c++) {
      Node *keyword = new_node(rw->conv, N_KEYWORD, node->span);
      keyword->u.keyword.arg = n->captures.names[c];
      keyword->u.keyword.value = new_name(rw->conv, n->captures.names[c], CTX_LOAD, node->span);
      node_list_push(&rw->conv->ctx->arena, &node->u.call.keywords, keyword);
    }
    node->rewritten = true;
  }
}

static bool is_tile_def(Converter *conv, const Node *stmt) {
  if (stmt->kind != N_FUNCTION_DEF)
    return false;
  const NodeList *decorators = &stmt->u.function_def.decorator_list;
  for (int i = 0; i < decorators->count; i++) {
    const Node *decorator = decorators->items[i];
    const char *member = resolve_ct_member(conv, decorator->kind == N_CALL ? decorator->u.call.func : decorator);
    bool host_too = false; /* @ct.function(host=True): host code calls it as written */
    for (int k = 0; decorator->kind == N_CALL && k < decorator->u.call.keywords.count; k++) {
      const Node *kw = decorator->u.call.keywords.items[k];
      host_too |= str_eq(kw->u.keyword.arg, "host") && !(kw->u.keyword.value->kind == N_CONSTANT &&
                                                          kw->u.keyword.value->u.constant.kind == CONST_FALSE);
    }
    if (member && (strcmp(member, "kernel") == 0 || strcmp(member, "function") == 0))
      return !host_too;
  }
  return false;
}

/* A name no module-level statement binds: OUTER_NAME, then OUTER_NAME_2, ... */
static Str fresh_name(Converter *conv, NameSet *module, Str outer, Str name) {
  for (int k = 1; k < 1000; k++) {
    char *text = k == 1 ? arena_printf(&conv->ctx->arena, "%.*s_%.*s", outer.len, outer.text, name.len, name.text)
                        : arena_printf(&conv->ctx->arena, "%.*s_%.*s_%d", outer.len, outer.text, name.len, name.text, k);
    Str made = {text, (int)strlen(text)};
    if (!resolve_set_has(module, made) && !find_binding(conv, made)) {
      resolve_set_add(module, made);
      return made;
    }
  }
  return (Str){0};
}

/* The statement lists of a compound statement of a function's body a nested def may
 * stand in (an `if` or `else`, a loop's body, a `with`), up to 4; their count. */
static int statement_lists(Node *stmt, NodeList **lists) {
  switch (stmt->kind) {
  case N_IF: lists[0] = &stmt->u.if_.body, lists[1] = &stmt->u.if_.orelse; return 2;
  case N_FOR: lists[0] = &stmt->u.for_.body, lists[1] = &stmt->u.for_.orelse; return 2;
  case N_WHILE: lists[0] = &stmt->u.while_.body, lists[1] = &stmt->u.while_.orelse; return 2;
  case N_WITH: lists[0] = &stmt->u.with.body; return 1;
  default: return 0;
  }
}

/* The defs (and lambdas bound to a name) of a function's body, in its blocks too: a def
 * under an `if` or in a loop moves as one in the body does (the calls pass what it reads
 * when they run, as a closure made there reads it then). */
static void collect_defs(Converter *conv, NodeList *list, Nested *nested, int *count, int depth) {
  if (depth > C2T_MAX_PARSE_DEPTH)
    return;
  for (int i = 0; i < list->count; i++) {
    Node *stmt = list->items[i];
    Node *def = stmt->kind == N_FUNCTION_DEF ? stmt : lambda_as_def(conv, stmt);
    if (def && *count == C2T_MAX_NESTED_FUNCTIONS)
      diag_limit(&conv->ctx->diag, stmt->span.start, "functions defined in one kernel or tile function",
                 C2T_MAX_NESTED_FUNCTIONS);
    if (def) {
      nested[(*count)++] = (Nested){.slot = &list->items[i], .def = def, .name = def->u.function_def.name,
                                    .captures = {.conv = conv}, .calls = {.conv = conv}};
      continue;
    }
    NodeList *lists[4];
    for (int l = statement_lists(stmt, lists) - 1; l >= 0; l--)
      collect_defs(conv, lists[l], nested, count, depth + 1);
  }
}

/* `list` without the statements of `moved`, in its blocks too; a block they leave empty
 * holds `pass` (a body of nested functions only). */
static void drop_moved(Converter *conv, NodeList *list, const NodeList *moved, Span span, int depth) {
  if (depth > C2T_MAX_PARSE_DEPTH)
    return;
  NodeList kept = {0};
  for (int i = 0; i < list->count; i++) {
    Node *stmt = list->items[i];
    bool gone = false;
    for (int m = 0; m < moved->count; m++)
      gone |= moved->items[m] == stmt;
    if (gone)
      continue;
    NodeList *lists[4];
    for (int l = statement_lists(stmt, lists) - 1; l >= 0; l--)
      drop_moved(conv, lists[l], moved, stmt->span, depth + 1);
    node_list_push(&conv->ctx->arena, &kept, stmt);
  }
  if (!kept.count && list->count) {
    Node *pass = new_node(conv, N_PASS, span);
    pass->rewritten = true;
    node_list_push(&conv->ctx->arena, &kept, pass);
  }
  if (kept.count != list->count)
    *list = kept;
}

/* The first line of the comment lines right above `stmt` (lines holding only a comment, no
 * blank line between), else its own first line. */
static int comment_block_start(Converter *conv, const Node *stmt) {
  const char *text = conv->ctx->source.text;
  size_t at = stmt->span.start.offset;
  int line = stmt->span.start.line;
  while (at > 0 && text[at - 1] != '\n') /* back to the start of its line */
    at--;
  while (at > 0 && line > 1) {
    size_t end = at - 1, begin = end; /* the line above: [begin, end) */
    while (begin > 0 && text[begin - 1] != '\n')
      begin--;
    size_t k = begin;
    while (k < end && (text[k] == ' ' || text[k] == '\t'))
      k++;
    if (k == end || text[k] != '#')
      break;
    at = begin;
    line--;
  }
  return line;
}

/* The nested functions of `outer` moved out, into `lifted` (defs to put before it). */
static void lift_from(Converter *conv, Node *outer, NameSet *module, NodeList *lifted) {
  NodeList *body = &outer->u.function_def.body;
  Nested *nested = arena_alloc(&conv->ctx->arena, sizeof(Nested) * C2T_MAX_NESTED_FUNCTIONS);
  int count = 0;
  collect_defs(conv, body, nested, &count, 0);
  if (!count)
    return;
  /* the names the enclosing function binds: its parameters, its statements' targets */
  NameSet bound = {.conv = conv};
  add_parameters(&bound, outer->u.function_def.args);
  for (int i = 0; i < body->count; i++) {
    Walk walk = {&bound, true, false, {0}, 0, NULL};
    walk_names(body->items[i], &walk);
  }
  for (int i = 0; i < count; i++)
    resolve_set_add(&bound, nested[i].name);
  for (int i = 0; i < count; i++) {
    Nested *n = &nested[i];
    Node *def = n->def;
    /* bound once in the enclosing function: by this statement */
    NameSet ignored = {.conv = conv};
    Walk once = {&ignored, true, false, n->name, 0, NULL};
    once.skip = *n->slot;
    for (int s = 0; s < body->count; s++)
      walk_names(body->items[s], &once);
    NameSet own = {.conv = conv}, read = {.conv = conv};
    add_parameters(&own, def->u.function_def.args);
    Walk stores = {&own, true, false, {0}, 0, NULL}, reads = {&read, false, false, {0}, 0, NULL};
    for (int s = 0; s < def->u.function_def.body.count; s++) {
      walk_names(def->u.function_def.body.items[s], &stores);
      walk_names(def->u.function_def.body.items[s], &reads);
    }
    n->movable = !once.bindings && !stores.blocked && !reads.blocked &&
                 !resolve_set_has(&own, n->name) && plain_signature(conv, def, &bound);
    for (int r = 0; n->movable && r < read.count; r++) {
      Str name = read.names[r];
      if (resolve_set_has(&own, name) || !resolve_set_has(&bound, name))
        continue;
      bool is_nested = false;
      for (int k = 0; k < count; k++)
        is_nested |= str_same(nested[k].name, name);
      if (str_same(name, n->name))
        n->movable = false; /* recursive */
      else if (is_nested)
        resolve_set_add(&n->calls, name);
      else
        resolve_set_add(&n->captures, name);
    }
  }
  /* what the functions it calls read, it passes on: to a fixed point */
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < count; i++)
      for (int c = 0; c < nested[i].calls.count; c++)
        for (int k = 0; k < count; k++) {
          if (!str_same(nested[k].name, nested[i].calls.names[c]))
            continue;
          if (!nested[k].movable && nested[i].movable) {
            nested[i].movable = false; /* it calls one that stays: it stays too */
            grew = true;
          }
          for (int x = 0; x < nested[k].captures.count; x++)
            if (!resolve_set_has(&nested[i].captures, nested[k].captures.names[x])) {
              resolve_set_add(&nested[i].captures, nested[k].captures.names[x]);
              grew = true;
            }
        }
  }
  Rewrite rw = {conv, nested, count};
  for (int i = 0; i < count; i++)
    if (nested[i].movable && nested[i].captures.count > C2T_MAX_NESTED_CAPTURES)
      diag_limit(&conv->ctx->diag, nested[i].def->span.start, "names of its enclosing function a nested function "
                 "reads", C2T_MAX_NESTED_CAPTURES);
  for (int s = 0; s < body->count; s++)
    check_reads(body->items[s], &rw);
  /* a function reading one that cannot move cannot move either (it would read a name
     the module does not have); repeat until nothing changes */
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < count; i++)
      for (int c = 0; nested[i].movable && c < nested[i].calls.count; c++)
        if (!nested_named(&rw, nested[i].calls.names[c])) {
          nested[i].movable = false;
          changed = true;
        }
  }
  bool any = false;
  for (int i = 0; i < count; i++) {
    Nested *n = &nested[i];
    if (!n->movable)
      continue;
    n->lifted = fresh_name(conv, module, outer->u.function_def.name, n->name);
    if (!n->lifted.len)
      n->movable = false;
    any |= n->movable;
  }
  if (!any)
    return;
  for (int s = 0; s < body->count; s++)
    rewrite_calls(body->items[s], &rw);
  NodeList moved = {0}; /* the statements that go (a lambda's assignment, not the def made of it) */
  for (int i = 0; i < count; i++)
    if (nested[i].movable)
      node_list_push(&conv->ctx->arena, &moved, *nested[i].slot);
  drop_moved(conv, body, &moved, outer->span, 0);
  for (int i = 0; i < count; i++) {
    Nested *n = &nested[i];
    if (!n->movable)
      continue;
    Node *def = n->def;
    def->u.function_def.name = n->lifted;
    for (int c = 0; c < n->captures.count; c++) { /* keyword-only: after any defaults */
      Node *arg = new_node(conv, N_ARG, def->span);
      arg->u.arg.arg = n->captures.names[c];
      node_list_push(&conv->ctx->arena, &def->u.function_def.args->u.arguments.kwonlyargs, arg);
      node_list_push(&conv->ctx->arena, &def->u.function_def.args->u.arguments.kw_defaults, NULL);
    }
    def->rewritten = true;
    /* written before the function it leaves, with its comments (those just above it too),
       which that function then leaves out */
    def->u.function_def.replayed = true;
    def->u.function_def.comments_from = comment_block_start(conv, *n->slot);
    dropped_lines_add(&conv->ctx->arena, &outer->u.function_def.dropped, def->u.function_def.comments_from,
                      (*n->slot)->span.end.line);
    node_list_push(&conv->ctx->arena, lifted, def);
  }
  outer->rewritten = true;
}

/* A plain module-level function that tile code calls (and host code does not): tile code. */
static bool is_plain_helper(Converter *conv, const Node *stmt) {
  if (stmt->kind != N_FUNCTION_DEF || stmt->u.function_def.decorator_list.count)
    return false;
  Function *fn = function_of_def(conv, stmt);
  return fn && fn->role == ROLE_DEVICE && !fn->host_too && !fn->nested_in;
}

/* The nested functions of the module-level defs `chosen` picks moved out, before each; the
 * moved ones registered with `role`. */
static void lift_in_module(Converter *conv, bool (*chosen)(Converter *, const Node *), FunctionRole role) {
  NodeList *body = &conv->module->u.module.body;
  NameSet module = {.conv = conv};
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    NodeList *aliases = stmt->kind == N_IMPORT ? &stmt->u.import.names
                        : stmt->kind == N_IMPORT_FROM ? &stmt->u.import_from.names
                                                      : NULL;
    for (int k = 0; aliases && k < aliases->count; k++) {
      Node *alias = aliases->items[k];
      resolve_set_add(&module, alias->u.alias.asname.len ? alias->u.alias.asname : alias->u.alias.name);
    }
    Walk walk = {&module, true, false, {0}, 0, NULL};
    if (!aliases)
      walk_names(stmt, &walk);
  }
  NodeList out = {0};
  bool changed = false;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (chosen(conv, stmt)) {
      NodeList lifted = {0};
      lift_from(conv, stmt, &module, &lifted);
      for (int k = 0; k < lifted.count; k++) {
        node_list_push(&conv->ctx->arena, &out, lifted.items[k]);
        resolve_register_function(conv, lifted.items[k]);
        conv->functions[conv->function_count - 1].role = role;
      }
      changed |= lifted.count > 0;
    }
    node_list_push(&conv->ctx->arena, &out, stmt);
  }
  if (changed)
    *body = out;
}

void resolve_nested_functions(Converter *conv) { lift_in_module(conv, is_tile_def, ROLE_HOST); }

void resolve_nested_in_helpers(Converter *conv) { lift_in_module(conv, is_plain_helper, ROLE_DEVICE); }
