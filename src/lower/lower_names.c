/*
 * lower_names.c — the module's own top-level names against those the
 * converter adds.
 *
 * The converted module carries the helpers its code calls (ct_launch,
 * _tensor, ct_cdiv, ...), the imports they need (os, operator, torch,
 * triton, tl, ...), the launchers of its kernels and the constexpr twins
 * (NAME_TL) of the module constants tile code reads, all at module level.
 * A name the module binds itself at module level (a def, a class, an
 * assignment, an import of something else) that one of them also binds
 * would be replaced by the other, whichever comes later: the module's
 * callers, the helpers or the kernels would reach the wrong thing. That is
 * refused at the module's binding (C2T403), naming what the converter binds
 * there; renaming the module's name is the fix. An import of the very
 * module the converter imports (`import os`, `import triton.language as
 * tl`) is the same binding.
 */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* The name an alias of `import A.B as C` / `from M import N as C` binds. */
static Str alias_binding(const Node *alias, bool from_import) {
  Str name = alias->u.alias.asname.len ? alias->u.alias.asname : alias->u.alias.name;
  if (!alias->u.alias.asname.len && !from_import) {
    const char *dot = memchr(name.text, '.', (size_t)name.len);
    if (dot)
      name.len = (int)(dot - name.text); /* import a.b binds a */
  }
  return name;
}

/* Whether the module's alias (of `stmt`) imports what the converter's `made` alias of
 * `made_stmt` imports under the same name: the same module or name of the same module. */
static bool same_import(const Node *stmt, const Node *alias, const Node *made_stmt, const Node *made) {
  if (stmt->kind != made_stmt->kind)
    return false;
  if (stmt->kind == N_IMPORT_FROM &&
      (stmt->u.import_from.level || !str_same(stmt->u.import_from.module, made_stmt->u.import_from.module)))
    return false;
  if (str_same(alias->u.alias.name, made->u.alias.name))
    return true;
  /* import os.path binds os, as import os does */
  Str bound = alias_binding(alias, stmt->kind == N_IMPORT_FROM);
  return stmt->kind == N_IMPORT && !alias->u.alias.asname.len && !made->u.alias.asname.len &&
         str_same(bound, made->u.alias.name);
}

/* The names a list of statements binds, sorted for lookups: a module of thousands of kernels
 * has as many launchers, and each name of each function is looked up. */
typedef struct BoundName {
  Str name;
  const Node *stmt;  /* the statement binding it */
  const Node *alias; /* its alias where the statement is an import, else NULL */
  int order;         /* the statement's place: the first binding of a name is the one found */
} BoundName;

typedef struct NameIndex {
  BoundName *names;
  int count, capacity;
} NameIndex;

static void index_add(Lowerer *L, NameIndex *index, Str name, const Node *stmt, const Node *alias, int order) {
  index->names = arena_grown(&L->ctx->arena, index->names, index->count, &index->capacity, sizeof(BoundName));
  index->names[index->count++] = (BoundName){name, stmt, alias, order};
}

static void index_target(Lowerer *L, NameIndex *index, const Node *target, const Node *stmt, int order) {
  switch (target->kind) {
  case N_NAME:
    index_add(L, index, target->u.name.id, stmt, NULL, order);
    break;
  case N_TUPLE:
  case N_LIST:
    for (int i = 0; i < target->u.list.elts.count; i++)
      index_target(L, index, target->u.list.elts.items[i], stmt, order);
    break;
  case N_STARRED:
    index_target(L, index, target->u.starred.value, stmt, order);
    break;
  default:
    break; /* an attribute or a subscript binds no name */
  }
}

static int compare_bound(const void *a, const void *b) {
  const BoundName *x = a, *y = b;
  int by_name = str_order(x->name, y->name);
  return by_name ? by_name : (x->order > y->order) - (x->order < y->order);
}

/* The index of what `stmts` bind: defs, classes, assignment targets and, with `imports_only`
 * (the module's own statements), only imports. */
static NameIndex index_names(Lowerer *L, const NodeList *stmts, bool imports_only) {
  NameIndex index = {0};
  for (int i = 0; i < stmts->count; i++) {
    const Node *stmt = stmts->items[i];
    if (stmt->kind == N_IMPORT || stmt->kind == N_IMPORT_FROM) {
      const NodeList *names = stmt->kind == N_IMPORT ? &stmt->u.import.names : &stmt->u.import_from.names;
      for (int a = 0; a < names->count; a++)
        index_add(L, &index, alias_binding(names->items[a], stmt->kind == N_IMPORT_FROM), stmt, names->items[a], i);
    } else if (imports_only) {
      continue;
    } else if (stmt->kind == N_FUNCTION_DEF) {
      index_add(L, &index, stmt->u.function_def.name, stmt, NULL, i);
    } else if (stmt->kind == N_CLASS_DEF) {
      index_add(L, &index, stmt->u.class_def.name, stmt, NULL, i);
    } else if (stmt->kind == N_ASSIGN) {
      for (int t = 0; t < stmt->u.assign.targets.count; t++)
        index_target(L, &index, stmt->u.assign.targets.items[t], stmt, i);
    } else if (stmt->kind == N_ANN_ASSIGN) {
      index_target(L, &index, stmt->u.ann_assign.target, stmt, i);
    }
  }
  if (index.count)
    qsort(index.names, (size_t)index.count, sizeof(BoundName), compare_bound);
  return index;
}

/* The first statement of the index binding `name`, or NULL; *alias: its alias where it is an import. */
static const Node *bound_by(const NameIndex *index, Str name, const Node **alias) {
  int low = 0, high = index->count; /* the first entry not below `name` */
  while (low < high) {
    int middle = low + (high - low) / 2;
    if (str_order(index->names[middle].name, name) < 0)
      low = middle + 1;
    else
      high = middle;
  }
  bool found = low < index->count && str_same(index->names[low].name, name);
  if (alias)
    *alias = found ? index->names[low].alias : NULL;
  return found ? index->names[low].stmt : NULL;
}

static void refuse(Lowerer *L, const Node *at, Str name, const Node *made) {
  bool twin = made->kind == N_ASSIGN && name.len > 3 && memcmp(name.text + name.len - 3, "_TL", 3) == 0;
  const char *what = made->kind == N_IMPORT || made->kind == N_IMPORT_FROM ? "an import its helpers use"
                     : twin ? "the constexpr twin tile code reads of the module's constant of that name without _TL"
                     : made->kind == N_ASSIGN || made->kind == N_ANN_ASSIGN ? "a value its helpers use"
                                                                              : "a function of the code it adds";
  lower_error(L, at,
              "the module binds '%.*s' at module level, which the converted module also binds (%s): one would "
              "replace the other; rename the module's '%.*s'",
              name.len, name.text, what, name.len, name.text);
}

/* A name the module binds at `at` (a target, a def): refused where the converter binds it too. */
static void check_name(Lowerer *L, const NameIndex *made, const Node *at, Str name) {
  const Node *made_alias;
  const Node *stmt = bound_by(made, name, &made_alias);
  if (stmt)
    refuse(L, at, name, stmt);
}

static void check_target(Lowerer *L, const NameIndex *made, const Node *target) {
  switch (target->kind) {
  case N_NAME:
    check_name(L, made, target, target->u.name.id);
    break;
  case N_TUPLE:
  case N_LIST:
    for (int i = 0; i < target->u.list.elts.count; i++)
      check_target(L, made, target->u.list.elts.items[i]);
    break;
  case N_STARRED:
    check_target(L, made, target->u.starred.value);
    break;
  default:
    break;
  }
}

static void check_block(Lowerer *L, const NameIndex *made, const NodeList *block);

static void check_import(Lowerer *L, const NameIndex *made, const Node *stmt) {
  const NodeList *names = stmt->kind == N_IMPORT ? &stmt->u.import.names : &stmt->u.import_from.names;
  for (int a = 0; a < names->count; a++) {
    const Node *alias = names->items[a];
    if (str_eq(alias->u.alias.name, "*"))
      continue;
    Str name = alias_binding(alias, stmt->kind == N_IMPORT_FROM);
    const Node *made_alias;
    const Node *made_stmt = bound_by(made, name, &made_alias);
    if (made_stmt && !(made_alias && same_import(stmt, alias, made_stmt, made_alias)))
      refuse(L, alias->span.start.line ? alias : stmt, name, made_stmt);
  }
}

/* The names a module-level statement binds, in it and in the blocks of a module-level
 * if, for, while, with or try (a def's or a class's body binds its own names). */
static void check_stmt(Lowerer *L, const NameIndex *made, const Node *stmt) {
  switch (stmt->kind) {
  case N_FUNCTION_DEF:
    check_name(L, made, stmt, stmt->u.function_def.name);
    break;
  case N_CLASS_DEF:
    check_name(L, made, stmt, stmt->u.class_def.name);
    break;
  case N_ASSIGN:
    for (int i = 0; i < stmt->u.assign.targets.count; i++)
      check_target(L, made, stmt->u.assign.targets.items[i]);
    break;
  case N_ANN_ASSIGN:
    check_target(L, made, stmt->u.ann_assign.target);
    break;
  case N_AUG_ASSIGN:
    check_target(L, made, stmt->u.aug_assign.target);
    break;
  case N_IMPORT:
  case N_IMPORT_FROM:
    check_import(L, made, stmt);
    break;
  case N_FOR:
    check_target(L, made, stmt->u.for_.target);
    check_block(L, made, &stmt->u.for_.body);
    check_block(L, made, &stmt->u.for_.orelse);
    break;
  case N_WHILE:
    check_block(L, made, &stmt->u.while_.body);
    check_block(L, made, &stmt->u.while_.orelse);
    break;
  case N_IF:
    check_block(L, made, &stmt->u.if_.body);
    check_block(L, made, &stmt->u.if_.orelse);
    break;
  case N_WITH:
    for (int i = 0; i < stmt->u.with.items.count; i++) {
      const Node *item = stmt->u.with.items.items[i];
      if (item->u.withitem.optional_vars)
        check_target(L, made, item->u.withitem.optional_vars);
    }
    check_block(L, made, &stmt->u.with.body);
    break;
  case N_TRY:
    check_block(L, made, &stmt->u.try_.body);
    for (int i = 0; i < stmt->u.try_.handlers.count; i++) {
      const Node *handler = stmt->u.try_.handlers.items[i];
      if (handler->u.except_handler.name.len)
        check_name(L, made, handler, handler->u.except_handler.name);
      check_block(L, made, &handler->u.except_handler.body);
    }
    check_block(L, made, &stmt->u.try_.orelse);
    check_block(L, made, &stmt->u.try_.finalbody);
    break;
  default:
    break;
  }
}

static void check_block(Lowerer *L, const NameIndex *made, const NodeList *block) {
  for (int i = 0; i < block->count; i++)
    check_stmt(L, made, block->items[i]);
}

/* A function's parameters and locals (and those of the functions and classes it holds)
 * against the module-level names its converted code reads: a helper the converted module
 * defines (`ct_launch = kernel` in a host function whose ct.launch became a call of the
 * helper ct_launch would call the local), or a module it imports, the converter or the
 * module itself (`torch = ...` in a host function where `ct.float16` became `torch.float16`
 * would read the local's attribute; a tile function's parameter `tl` would hide Triton's
 * language from its whole body). */
typedef struct HelperShadow {
  Lowerer *L;
  const NameIndex *made;
  const NameIndex *own; /* the module's own imports */
  Node *function;      /* the innermost function around the node visited, or NULL */
} HelperShadow;

typedef struct ConvertedRead {
  Str name;
  bool found;
} ConvertedRead;

/* A read of `name` that the converter wrote (a rewritten node, or one a template made,
 * which has no place in the source), not one of the source. */
static void find_converted_read(Node *node, void *data) {
  ConvertedRead *read = data;
  if (read->found)
    return;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_LOAD && (node->rewritten || node->span.start.line == 0) &&
      str_same(node->u.name.id, read->name)) {
    read->found = true;
    return;
  }
  node_children(node, find_converted_read, data);
}

static void check_local(Node *node, void *data) {
  HelperShadow *h = data;
  if (node->kind == N_FUNCTION_DEF || node->kind == N_CLASS_DEF) { /* a scope of its own */
    Node *around = h->function;
    h->function = node->kind == N_FUNCTION_DEF ? node : NULL;
    node_children(node, check_local, data);
    h->function = around;
    return;
  }
  if (node->kind == N_GLOBAL && h->function) { /* `global X` then `X = ...` rebinds the module's X */
    for (int i = 0; i < node->u.global.names.count; i++) {
      const Node *global = node->u.global.names.items[i];
      const Node *made_alias;
      const Node *made = bound_by(h->made, global->u.name.id, &made_alias);
      if (made && !(made_alias && bound_by(h->own, global->u.name.id, NULL)))
        lower_error(h->L, global,
                    "the function declares '%.*s' global, which the converted module binds at module level "
                    "(%s): an assignment to it would replace that; rename the function's '%.*s'",
                    global->u.name.id.len, global->u.name.id.text,
                    made->kind == N_FUNCTION_DEF || made->kind == N_CLASS_DEF ? "a function of the code it adds"
                    : made_alias                                          ? "an import its code uses"
                                                                          : "a name its code reads",
                    global->u.name.id.len, global->u.name.id.text);
    }
    return;
  }
  Str name = node->kind == N_NAME && node->u.name.ctx == CTX_STORE ? node->u.name.id
             : node->kind == N_ARG                                 ? node->u.arg.arg
                                                                   : (Str){NULL, 0};
  const Node *made_alias;
  const Node *made = name.len && h->function ? bound_by(h->made, name, &made_alias) : NULL;
  bool helper = made && (made->kind == N_FUNCTION_DEF || made->kind == N_CLASS_DEF);
  bool module = (made && (made->kind == N_IMPORT || made->kind == N_IMPORT_FROM)) ||
                (name.len && h->function && !made && bound_by(h->own, name, NULL));
  if (helper || module) {
    ConvertedRead read = {name, false};
    find_converted_read(h->function, &read);
    if (read.found && helper)
      lower_error(h->L, node,
                  "the function binds '%.*s', a helper of the converted module that its converted code "
                  "calls: the local would hide it; rename the function's '%.*s'",
                  name.len, name.text, name.len, name.text);
    if (read.found)
      lower_error(h->L, node,
                  "the function binds '%.*s', the name of a module the converted module imports, which "
                  "its converted code reads: the local would hide the module; rename the function's '%.*s'",
                  name.len, name.text, name.len, name.text);
  }
  node_children(node, check_local, data);
}

void check_module_names(Lowerer *L, const NodeList *module_stmts, NodeList made_stmts) {
  NameIndex made_index = index_names(L, &made_stmts, false), own = index_names(L, module_stmts, true);
  const NameIndex *made = &made_index;
  for (int i = 0; i < module_stmts->count; i++)
    check_stmt(L, made, module_stmts->items[i]);
  HelperShadow shadow = {L, made, &own, NULL};
  for (int i = 0; i < module_stmts->count; i++)
    check_local(module_stmts->items[i], &shadow);
}

/* ---- a tile function's own names against the parameters the converter adds */

typedef struct NameSearch {
  Str name;
  const Node *found;
} NameSearch;

static void find_binding_node(Node *node, void *data) {
  NameSearch *search = data;
  if (search->found)
    return;
  if ((node->kind == N_NAME && node->u.name.ctx == CTX_STORE && str_same(node->u.name.id, search->name)) ||
      (node->kind == N_ARG && str_same(node->u.arg.arg, search->name))) {
    search->found = node;
    return;
  }
  node_children(node, find_binding_node, search);
}

/* The `index`-th parameter `def` declares (positional-only, positional, keyword-only, in
 * that order), or NULL past the last. */
static Node *declared_param_at(const Node *def, int index) {
  const Node *arguments = def->u.function_def.args;
  const NodeList *lists[] = {&arguments->u.arguments.posonlyargs, &arguments->u.arguments.args,
                             &arguments->u.arguments.kwonlyargs};
  for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
    if (index < lists[l]->count)
      return lists[l]->items[index];
    index -= lists[l]->count;
  }
  return NULL;
}

static bool declared_param(const Node *def, Str name) {
  const Node *arg;
  for (int i = 0; (arg = declared_param_at(def, i)); i++)
    if (str_same(arg->u.arg.arg, name))
      return true;
  return false;
}

void check_added_params(Lowerer *L, const Node *pristine, const NodeList *params) {
  for (int i = 0; i < params->count; i++) {
    Str name = params->items[i]->u.arg.arg;
    bool twice = false; /* a declared parameter x_shape beside an array x */
    for (int j = 0; j < i && !twice; j++)
      twice = str_same(params->items[j]->u.arg.arg, name);
    if (declared_param(pristine, name) && !twice)
      continue;
    NameSearch search = {name, NULL};
    find_binding_node((Node *)pristine, &search);
    if (search.found)
      lower_error(L, search.found,
                  "'%.*s' is the name of a parameter the converter adds to the Triton function (an array's "
                  "shape or strides, a TMA flag, a descriptor, ...): the two would be one name; rename the "
                  "function's '%.*s'",
                  name.len, name.text, name.len, name.text);
  }
}

/* Whether `text` (of `len` bytes) is one or more decimal digits. */
static bool all_digits(const char *text, int len) {
  if (len <= 0)
    return false;
  for (int i = 0; i < len; i++)
    if (text[i] < '0' || text[i] > '9')
      return false;
  return true;
}

/* Whether the converter may name something it adds for parameter `param` `name`:
 * PARAM_shape, _strides, _tma, _table, _len, _rank, _tf32, _tf32_staged, _kmajor, _kmajor_staged,
 * and PARAM_desc_N (_ok), PARAM_host_desc_N, PARAM_tf32_desc_N, PARAM_kmajor_desc_N. */
static bool named_for_param(Str name, Str param) {
  static const char *const SUFFIXES[] = {"_shape", "_strides", "_tma", "_table", "_len", "_rank", "_tf32", "_tf32_staged",
                                         "_kmajor", "_kmajor_staged"};
  static const char *const NUMBERED[] = {"_desc_", "_host_desc_", "_tf32_desc_", "_kmajor_desc_"};
  if (name.len <= param.len || memcmp(name.text, param.text, (size_t)param.len) != 0)
    return false;
  const char *rest = name.text + param.len;
  int len = name.len - param.len;
  for (size_t i = 0; i < sizeof SUFFIXES / sizeof SUFFIXES[0]; i++)
    if ((size_t)len == strlen(SUFFIXES[i]) && memcmp(rest, SUFFIXES[i], (size_t)len) == 0)
      return true;
  for (size_t i = 0; i < sizeof NUMBERED / sizeof NUMBERED[0]; i++) {
    int prefix = (int)strlen(NUMBERED[i]);
    if (len <= prefix || memcmp(rest, NUMBERED[i], (size_t)prefix) != 0)
      continue;
    int tail = len - prefix;
    if (tail > 3 && memcmp(rest + len - 3, "_ok", 3) == 0)
      tail -= 3;
    if (all_digits(rest + prefix, tail))
      return true;
  }
  return false;
}

/* The module-level names converted tile code reads: a local of one of these names would
 * hide it from the whole function (`tl = ct.load(...)`: tl.program_id then reads the local). */
static bool tile_code_global(Str name) {
  return str_eq(name, "tl") || str_eq(name, "triton") || str_eq(name, "libdevice") ||
         str_eq(name, "INTERPRETED") || is_helper_name(name);
}

/* Whether `name` is SECOND_is_FIRST for two parameters of `def` (lower_memory_reuse.c). */
static bool named_for_pair(const Node *def, Str name) {
  const Node *first, *second;
  for (int i = 0; (second = declared_param_at(def, i)); i++) {
    Str head = second->u.arg.arg;
    if (name.len <= head.len + 4 || memcmp(name.text, head.text, (size_t)head.len) != 0 ||
        memcmp(name.text + head.len, "_is_", 4) != 0)
      continue;
    Str tail = {name.text + head.len + 4, name.len - head.len - 4};
    for (int j = 0; (first = declared_param_at(def, j)); j++)
      if (j != i && str_same(first->u.arg.arg, tail))
        return true;
  }
  return false;
}

/* Whether the converter may add a parameter or local `name` to function `def`, or its tile
 * code read a module-level `name`. */
static bool converter_name(const Node *def, Str name) {
  if (str_eq(name, "_use_tma") || str_eq(name, "_store_tma") || str_eq(name, "_loop_stages") ||
      str_eq(name, "_grid_spread") ||
      tile_code_global(name) || named_for_pair(def, name))
    return true;
  const Node *arg;
  for (int i = 0; (arg = declared_param_at(def, i)); i++)
    if (named_for_param(name, arg->u.arg.arg))
      return true;
  return false;
}

typedef struct LocalRenames {
  Lowerer *L;
  Node *def;
} LocalRenames;

static void rename_stores(Node *node, void *data) {
  LocalRenames *r = data;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_STORE && !declared_param(r->def, node->u.name.id) &&
      converter_name(r->def, node->u.name.id)) {
    Str name = node->u.name.id;
    rename_in_body(r->def, name, fresh_local_name(r->L, r->def, name)); /* this node too */
    return;
  }
  node_children(node, rename_stores, data);
}

void rename_generated_like_locals(Lowerer *L, Node *def) {
  LocalRenames r = {L, def};
  for (int i = 0; i < def->u.function_def.body.count; i++)
    rename_stores(def->u.function_def.body.items[i], &r);
}

/* The names a kernel's launcher (launch.c: lower_launcher) binds or reads besides the
 * kernel's parameters, which it unpacks into locals of the same names. */
static const char *const LAUNCHER_NAMES[] = {
    "stream", "grid", "args", "num_worker_warps", "programmatic_dependent_launch", "num_stages", "num_warps",
    "choice", "configs", "torch", "triton", "tuple", "max", "isinstance", "type",
};

static bool launcher_name(Str name) {
  for (size_t i = 0; i < sizeof LAUNCHER_NAMES / sizeof LAUNCHER_NAMES[0]; i++)
    if (str_eq(name, LAUNCHER_NAMES[i]))
      return true;
  return tile_code_global(name); /* the kernel's own code reads them too */
}

void rename_launcher_clashing_params(Lowerer *L, Node *def) {
  Node *arg;
  for (int i = 0; (arg = declared_param_at(def, i)); i++) {
    Str name = arg->u.arg.arg;
    if (!launcher_name(name))
      continue;
    Str fresh = fresh_local_name(L, def, name);
    rename_in_body(def, name, fresh);
    arg->u.arg.arg = fresh;
    arg->rewritten = true;
  }
}
