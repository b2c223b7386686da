/*
 * resolve.c — what the names of a cuTile module mean.
 *
 * Finds the names bound to cuda.tile (`import cuda.tile as ct`,
 * `from cuda.tile import load, PaddingMode as PM`, `ConstInt = ct.Constant[int]`),
 * the kernels (`@ct.kernel`, bare or with hints, under other decorators too),
 * every module function reachable from a kernel (these become @triton.jit),
 * and the host call sites of ct.launch.
 */
#include <string.h>

#include "../convert.h"
#include "resolve.h"

#define RESOLVE_MAX_ALIAS_DEPTH 16
#define MEMBER_MODULE "<module>" /* the expression is the cuda.tile module itself */

bool str_eq(Str a, const char *text) {
  size_t length = strlen(text);
  return (size_t)a.len == length && memcmp(a.text, text, length) == 0;
}

bool str_same(Str a, Str b) { return a.len == b.len && memcmp(a.text, b.text, (size_t)a.len) == 0; }

int str_order(Str a, Str b) {
  int common = a.len < b.len ? a.len : b.len;
  int by_text = memcmp(a.text, b.text, (size_t)common);
  return by_text ? by_text : (a.len > b.len) - (a.len < b.len);
}

static void push_node(Converter *conv, NodeList *list, Node *node) { node_list_push(&conv->ctx->arena, list, node); }

const Binding *find_binding(Converter *conv, Str name) {
  for (int i = conv->binding_count - 1; i >= 0; i--)
    if (str_same(conv->bindings[i].name, name))
      return &conv->bindings[i];
  return NULL;
}

/* A module function, or one of its specializations (NAME_2, ...). */
Function *find_function(Converter *conv, Str name) {
  for (int i = 0; i < conv->function_count; i++)
    if (str_same(conv->functions[i].def->u.function_def.name, name))
      return &conv->functions[i];
  for (int i = 0; i < conv->function_count; i++)
    for (Function *variant = conv->functions[i].next_variant; variant; variant = variant->next_variant)
      if (str_same(variant->def->u.function_def.name, name))
        return variant;
  return NULL;
}

Function *function_of_def(Converter *conv, const Node *stmt) {
  if (stmt->kind != N_FUNCTION_DEF)
    return NULL;
  Function *fn = find_function(conv, stmt->u.function_def.name);
  return fn && fn->def == stmt ? fn : NULL;
}

static void *grown(Converter *conv, void *items, int count, int *capacity, size_t size) {
  return arena_grown(&conv->ctx->arena, items, count, capacity, size);
}

static void add_binding_python(Converter *conv, Node *at, Str name, Node *value, const char *member,
                               const char *python) {
  if (conv->binding_count == C2T_MAX_ALIASES)
    diag_limit(&conv->ctx->diag, at->span.start, "module-level names", C2T_MAX_ALIASES);
  conv->bindings = grown(conv, conv->bindings, conv->binding_count, &conv->binding_capacity, sizeof(Binding));
  conv->bindings[conv->binding_count++] = (Binding){name, value, member, python, conv->binding_depth > 0};
}

static void add_binding(Converter *conv, Node *at, Str name, Node *value, const char *member) {
  add_binding_python(conv, at, name, value, member, NULL);
}

static void add_ct_module_name(Converter *conv, Node *at, Str name) {
  if (conv->ct_module_count == C2T_MAX_CT_MODULE_NAMES)
    diag_limit(&conv->ctx->diag, at->span.start, "names bound to the cuda.tile module", C2T_MAX_CT_MODULE_NAMES);
  conv->ct_modules[conv->ct_module_count++] = name;
}

static bool is_ct_module_name(Converter *conv, Str name) {
  for (int i = 0; i < conv->ct_module_count; i++)
    if (str_same(conv->ct_modules[i], name))
      return true;
  return false;
}

/* ---------------------------------------------------------- name lookup */

static const char *resolve_depth(Converter *conv, const Node *expr, int depth);

static const char *resolve_name(Converter *conv, Str id, int depth) {
  if (is_ct_module_name(conv, id))
    return MEMBER_MODULE;
  const Binding *binding = find_binding(conv, id);
  if (!binding)
    return NULL;
  const char *member = binding->member ? binding->member
                       : binding->value ? resolve_depth(conv, binding->value, depth + 1)
                                        : NULL;
  /* bound in a branch of an `if` decided at import: the name stands for a cuda.tile value only
     where every binding of it gives that value (else tile code reading it is a located error) */
  for (int i = 0; member && binding->varies && i < conv->binding_count; i++) {
    const Binding *other = &conv->bindings[i];
    if (other == binding || !str_same(other->name, id))
      continue;
    const char *its = other->member ? other->member : other->value ? resolve_depth(conv, other->value, depth + 1) : NULL;
    if (!its || strcmp(its, member) != 0)
      return NULL;
  }
  return member;
}

static const char *resolve_attribute(Converter *conv, const Node *expr, int depth) {
  const Node *base = expr->u.attribute.value;
  Str attr = expr->u.attribute.attr;
  if (base->kind == N_NAME && conv->cuda_package_bound && str_eq(base->u.name.id, "cuda") && str_eq(attr, "tile"))
    return MEMBER_MODULE;
  if (base->kind == N_NAME && conv->cuda_package_bound && str_eq(base->u.name.id, "cuda") &&
      str_eq(attr, "tile_experimental"))
    return "tile_experimental";
  const char *outer = resolve_depth(conv, base, depth + 1);
  if (!outer)
    return NULL;
  if (strcmp(outer, MEMBER_MODULE) == 0)
    return arena_strndup(&conv->ctx->arena, attr.text, (size_t)attr.len);
  return arena_printf(&conv->ctx->arena, "%s.%.*s", outer, attr.len, attr.text);
}

static const char *resolve_depth(Converter *conv, const Node *expr, int depth) {
  if (!expr || depth > RESOLVE_MAX_ALIAS_DEPTH)
    return NULL;
  if (expr->kind == N_NAME)
    return resolve_name(conv, expr->u.name.id, depth);
  if (expr->kind == N_ATTRIBUTE)
    return resolve_attribute(conv, expr, depth);
  return NULL;
}

/* The dtypes cuda.tile re-exports from cuda.tile._datatype. */
static bool dtype_name_is_public(const char *name) {
  static const char *const DTYPES[] = {"bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                       "uint64", "float16", "bfloat16", "float32", "float64", "tfloat32",
                                       "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float8_e5m3fnu",
                                       "float4_e2m1fn", NULL};
  for (int i = 0; DTYPES[i]; i++)
    if (strcmp(name, DTYPES[i]) == 0)
      return true;
  return false;
}

/* The private submodules of cuda.tile whose names cuda.tile re-exports:
 * `cuda.tile._datatype.float16` is ct.float16, `_numeric_semantics.RoundingMode.RN`
 * is ct.RoundingMode.RN, `_stub.pack_to_bytes` is ct.pack_to_bytes (the names
 * _stub has: Converter.stub_name, the op table's answer). Only those
 * re-exported names are read as public ones; anything else keeps its
 * private spelling (and stays an error where it is used). */
static const char *public_member(Converter *conv, const char *member) {
  if (strncmp(member, "_stub.", 6) == 0 && conv->stub_name && conv->stub_name(member + 6))
    return member + 6;
  static const char *const PRIVATE[] = {"_datatype.", "_numeric_semantics.", "_memory_model.", NULL};
  static const char *const ENUMS[] = {"PaddingMode", "RoundingMode", "MemoryOrder", "MemoryScope", NULL};
  for (int i = 0; PRIVATE[i]; i++) {
    size_t length = strlen(PRIVATE[i]);
    if (strncmp(member, PRIVATE[i], length) != 0)
      continue;
    const char *rest = member + length;
    if (dtype_name_is_public(rest))
      return rest;
    for (int k = 0; ENUMS[k]; k++) {
      size_t n = strlen(ENUMS[k]);
      if (strncmp(rest, ENUMS[k], n) == 0 && (rest[n] == '\0' || rest[n] == '.'))
        return rest;
    }
  }
  return member;
}

const char *resolve_ct_member(Converter *conv, const Node *expr) {
  const char *member = resolve_depth(conv, expr, 0);
  if (member && strcmp(member, MEMBER_MODULE) == 0)
    return NULL;
  return member ? public_member(conv, member) : NULL;
}

/* ------------------------------------------------ Python modules of values */

/* The Python modules whose values tile code may read (cuTile evaluates
 * them in Python while compiling). CuPy's dtypes and constants are numpy's
 * own (cupy.float32 is numpy.float32); operator's functions are its operators. */
const char *resolve_python_module(Str name) {
  static const char *const MODULES[] = {"math", "numpy", "torch", "cupy", "operator", NULL};
  for (int i = 0; MODULES[i]; i++)
    if (str_eq(name, MODULES[i]))
      return MODULES[i];
  return NULL;
}

static const char *python_depth(Converter *conv, const Node *expr, int depth) {
  if (!expr || depth > RESOLVE_MAX_ALIAS_DEPTH)
    return NULL;
  if (expr->kind == N_NAME) {
    const Binding *binding = find_binding(conv, expr->u.name.id);
    if (!binding)
      return NULL;
    if (binding->python)
      return binding->python;
    return binding->value ? python_depth(conv, binding->value, depth + 1) : NULL;
  }
  if (expr->kind == N_ATTRIBUTE) {
    const char *outer = python_depth(conv, expr->u.attribute.value, depth + 1);
    Str attr = expr->u.attribute.attr;
    return outer ? arena_printf(&conv->ctx->arena, "%s.%.*s", outer, attr.len, attr.text) : NULL;
  }
  return NULL;
}

const char *resolve_python_name(Converter *conv, const Node *expr) { return python_depth(conv, expr, 0); }

/* import math | import numpy as np | import torch.nn (binds torch) */
static void resolve_python_import(Converter *conv, Node *alias) {
  Str name = alias->u.alias.name, asname = alias->u.alias.asname;
  if (asname.len) {
    const char *module = resolve_python_module(name);
    if (module)
      add_binding_python(conv, alias, asname, NULL, NULL, module);
    return;
  }
  const char *dot = memchr(name.text, '.', (size_t)name.len);
  Str first = {name.text, dot ? (int)(dot - name.text) : name.len};
  const char *module = resolve_python_module(first);
  if (module)
    add_binding_python(conv, alias, first, NULL, NULL, module);
}

/* from math import inf, sqrt as root */
static void resolve_python_import_from(Converter *conv, Node *stmt, const char *module) {
  NodeList *names = &stmt->u.import_from.names;
  for (int i = 0; i < names->count; i++) {
    Node *alias = names->items[i];
    Str name = alias->u.alias.name;
    Str bound = alias->u.alias.asname.len ? alias->u.alias.asname : name;
    if (str_eq(name, "*"))
      continue;
    add_binding_python(conv, alias, bound, NULL, NULL,
                       arena_printf(&conv->ctx->arena, "%s.%.*s", module, name.len, name.text));
  }
}

bool is_ct_member(Converter *conv, const Node *expr, const char *member) {
  const char *found = resolve_ct_member(conv, expr);
  return found && strcmp(found, member) == 0;
}

bool is_rooted_at_ct_import(Converter *conv, const Node *expr) {
  while (expr && expr->kind == N_ATTRIBUTE)
    expr = expr->u.attribute.value;
  if (!expr || expr->kind != N_NAME)
    return false;
  Str id = expr->u.name.id;
  if (is_ct_module_name(conv, id) || (conv->cuda_package_bound && str_eq(id, "cuda")))
    return true;
  const Binding *binding = find_binding(conv, id);
  return binding && binding->member;
}

/* ------------------------------------------------------------- imports */

/* The cuTile packages: cuda.tile and its experimental companion
 * cuda.tile_experimental (autotune_launch, which cuTile deprecated for
 * cuda.tile.tune.exhaustive_search). */
static const char *const CUTILE_PACKAGES[] = {"cuda.tile", "cuda.tile_experimental"};

/* Which of CUTILE_PACKAGES `module` is or is a submodule of, else -1. */
static int cutile_package(Str module) {
  for (int i = 0; i < 2; i++) {
    int length = (int)strlen(CUTILE_PACKAGES[i]);
    if (module.len >= length && memcmp(module.text, CUTILE_PACKAGES[i], (size_t)length) == 0 &&
        (module.len == length || module.text[length] == '.'))
      return i;
  }
  return -1;
}

static bool is_cutile_package(Str module) { return cutile_package(module) >= 0; }

/* The member a cuTile module name stands for: "" for cuda.tile itself, "tune"
 * for cuda.tile.tune, "tile_experimental" and "tile_experimental._autotuner"
 * for the other package (a name cuda.tile does not have); NULL for any other
 * module. */
static const char *cutile_module_member(Converter *conv, Str module) {
  int package = cutile_package(module);
  if (package < 0)
    return NULL;
  int length = (int)strlen(CUTILE_PACKAGES[package]);
  const char *prefix = package == 0 ? "" : "tile_experimental";
  if (module.len == length)
    return prefix;
  return arena_printf(&conv->ctx->arena, "%s%s%.*s", prefix, *prefix ? "." : "", module.len - length - 1,
                      module.text + length + 1);
}

/* import cuda.tile as ct | import cuda.tile | import cuda.tile.tune as tune |
 * import cuda.tile_experimental as ct_experimental */
static void resolve_import(Converter *conv, Node *stmt) {
  bool touches_cuda_tile = false;
  NodeList *names = &stmt->u.import.names;
  for (int i = 0; i < names->count; i++) {
    Node *alias = names->items[i];
    Str name = alias->u.alias.name, asname = alias->u.alias.asname;
    resolve_python_import(conv, alias);
    const char *member = cutile_module_member(conv, name);
    if (!member)
      continue;
    touches_cuda_tile = true;
    if (!asname.len)
      conv->cuda_package_bound = true; /* binds `cuda` */
    else if (!*member)
      add_ct_module_name(conv, alias, asname);
    else
      add_binding(conv, alias, asname, NULL, member);
  }
  if (touches_cuda_tile) {
    for (int i = 0; i < names->count; i++) {
      Str name = names->items[i]->u.alias.name;
      if (!is_cutile_package(name))
        diag_error(&conv->ctx->diag, names->items[i]->span.start,
                   "import cuda.tile on a line of its own: this import statement also imports '%.*s'", name.len,
                   name.text);
    }
    push_node(conv, &conv->ct_imports, stmt);
  }
}

/* from .config import BLOCK | from mypackage.sizes import TILE: names of
 * another module, whose values are known only when this one is imported;
 * tile code reads such a name as a module constant (its constexpr twin is
 * emitted after the import). The alias node stands for the value. */
static void resolve_other_import_from(Converter *conv, Node *stmt) {
  NodeList *names = &stmt->u.import_from.names;
  for (int i = 0; i < names->count; i++) {
    Node *alias = names->items[i];
    Str name = alias->u.alias.name;
    Str bound = alias->u.alias.asname.len ? alias->u.alias.asname : name;
    if (!str_eq(name, "*"))
      add_binding(conv, alias, bound, alias, NULL);
  }
}

/* from cuda.tile import X as Y | from cuda import tile as ct | from cuda.tile.tune import f |
 * from cuda.tile_experimental import autotune_launch | from cuda import tile_experimental */
static void resolve_import_from(Converter *conv, Node *stmt) {
  Str module = stmt->u.import_from.module;
  const char *python = stmt->u.import_from.level == 0 ? resolve_python_module(module) : NULL;
  if (python) {
    resolve_python_import_from(conv, stmt, python);
    return;
  }
  const char *package = stmt->u.import_from.level == 0 ? cutile_module_member(conv, module) : NULL;
  bool from_cuda = stmt->u.import_from.level == 0 && str_eq(module, "cuda");
  if (!package && !from_cuda) {
    resolve_other_import_from(conv, stmt);
    return;
  }
  NodeList *names = &stmt->u.import_from.names;
  for (int i = 0; i < names->count; i++) {
    Node *alias = names->items[i];
    Str name = alias->u.alias.name;
    Str bound = alias->u.alias.asname.len ? alias->u.alias.asname : name;
    if (str_eq(name, "*"))
      diag_error(&conv->ctx->diag, alias->span.start,
                 "'from %.*s import *' cannot be converted: import the names you use explicitly", module.len,
                 module.text);
    if (from_cuda) {
      if (str_eq(name, "tile"))
        add_ct_module_name(conv, alias, bound);
      else if (str_eq(name, "tile_experimental"))
        add_binding(conv, alias, bound, NULL, "tile_experimental");
      else
        return; /* another cuda package (cuda.bindings, ...): not ours */
    } else {
      add_binding(conv, alias, bound, NULL,
                  arena_printf(&conv->ctx->arena, "%s%s%.*s", package, *package ? "." : "", name.len, name.text));
    }
  }
  push_node(conv, &conv->ct_imports, stmt);
}

/* ----------------------------------------------------------- functions */

/* The decorator's callee: `ct.kernel` in both `@ct.kernel` and `@ct.kernel(...)`. */
static Node *decorator_callee(Node *decorator) {
  return decorator->kind == N_CALL ? decorator->u.call.func : decorator;
}

static bool keyword_is_true(Node *call, const char *name) {
  if (call->kind != N_CALL)
    return false;
  NodeList *keywords = &call->u.call.keywords;
  for (int i = 0; i < keywords->count; i++) {
    Node *kw = keywords->items[i];
    if (str_eq(kw->u.keyword.arg, name) && kw->u.keyword.value->kind == N_CONSTANT &&
        kw->u.keyword.value->u.constant.kind == CONST_TRUE)
      return true;
  }
  return false;
}

static void resolve_function_def(Converter *conv, Node *def) {
  if (conv->function_count == C2T_MAX_FUNCTIONS)
    diag_limit(&conv->ctx->diag, def->span.start, "module-level functions", C2T_MAX_FUNCTIONS);
  conv->functions = grown(conv, conv->functions, conv->function_count, &conv->function_capacity, sizeof(Function));
  Function *fn = &conv->functions[conv->function_count++];
  *fn = (Function){.def = def, .role = ROLE_HOST};
  NodeList *decorators = &def->u.function_def.decorator_list;
  for (int i = 0; i < decorators->count; i++) {
    Node *decorator = decorators->items[i];
    const char *member = resolve_ct_member(conv, decorator_callee(decorator));
    if (!member)
      continue;
    if (strcmp(member, "kernel") == 0) {
      fn->role = ROLE_KERNEL;
      fn->kernel_decorator = decorator;
    } else if (strcmp(member, "function") == 0) {
      fn->role = ROLE_DEVICE;
      fn->host_too = keyword_is_true(decorator, "host");
    }
  }
}

void resolve_register_function(Converter *conv, Node *def) { resolve_function_def(conv, def); }

/* The name NAME of `hasattr(ct, "NAME")`, ct the cuda.tile module and NAME a
 * plain public name (no leading underscore), as a NUL-terminated copy; else NULL. */
static const char *hasattr_of_cutile_name(Converter *conv, const Node *call) {
  if (call->kind != N_CALL || call->u.call.func->kind != N_NAME || !str_eq(call->u.call.func->u.name.id, "hasattr") ||
      call->u.call.args.count != 2 || call->u.call.keywords.count)
    return NULL;
  const Node *module = call->u.call.args.items[0], *string = call->u.call.args.items[1];
  if (module->kind != N_NAME || !is_rooted_at_ct_import(conv, module) || resolve_ct_member(conv, module))
    return NULL;
  if (string->kind != N_STRING || string->u.string.is_bytes || string->u.string.parts.count != 1 ||
      string->u.string.parts.items[0]->kind != N_STRING_TOKEN)
    return NULL;
  Str token = string->u.string.parts.items[0]->u.piece.text; /* quotes included */
  if (token.len < 3 || (token.text[0] != '"' && token.text[0] != '\'') || token.text[token.len - 1] != token.text[0])
    return NULL;
  for (int i = 1; i < token.len - 1; i++)
    if (!(token.text[i] == '_' || (token.text[i] >= 'a' && token.text[i] <= 'z') ||
          (token.text[i] >= 'A' && token.text[i] <= 'Z') || (i > 1 && token.text[i] >= '0' && token.text[i] <= '9')))
      return NULL;
  if (token.text[1] == '_')
    return NULL;
  return arena_strndup(&conv->ctx->arena, token.text + 1, (size_t)token.len - 2);
}

/* A module-level `True`/`False`, directly or through a name bound to one
 * (`_HAS_CUTILE = True` in the try body of the cuda.tile import: the one the
 * converted module runs), or `hasattr(ct, "mma")` (what cuda.tile 1.7 has,
 * which host code rewriting writes in its place): 1 or 0; -1 when not known. */
static int known_flag(Converter *conv, const Node *test) {
  /* `ct`, `ct is not None`, `not ct`: the cuda.tile module the converted module's tile code
     was read with, beside `except ImportError: ct = None` (a module is true) */
  const char *module = resolve_depth(conv, test, 0);
  if (module && strcmp(module, MEMBER_MODULE) == 0)
    return 1;
  if (test->kind == N_UNARY_OP && test->u.unary_op.op == AOP_NOT) {
    int flag = known_flag(conv, test->u.unary_op.operand);
    return flag < 0 ? -1 : !flag;
  }
  if (test->kind == N_COMPARE && test->u.compare.count == 1 &&
      (test->u.compare.ops[0] == AOP_IS || test->u.compare.ops[0] == AOP_ISNOT) &&
      test->u.compare.comparators[0]->kind == N_CONSTANT && test->u.compare.comparators[0]->u.constant.kind == CONST_NONE) {
    const char *left = resolve_depth(conv, test->u.compare.left, 0);
    if (left && strcmp(left, MEMBER_MODULE) == 0)
      return test->u.compare.ops[0] == AOP_ISNOT;
    return -1;
  }
  if (test->kind == N_NAME) {
    const Binding *binding = find_binding(conv, test->u.name.id);
    test = binding && binding->value ? binding->value : NULL;
  }
  const char *attribute = test ? hasattr_of_cutile_name(conv, test) : NULL;
  if (attribute)
    return conv->public_name && conv->public_name(attribute) ? 1 : 0;
  if (!test || test->kind != N_CONSTANT)
    return -1;
  return test->u.constant.kind == CONST_TRUE ? 1 : test->u.constant.kind == CONST_FALSE ? 0 : -1;
}

typedef struct CtSearch {
  Converter *conv;
  bool found;
} CtSearch;

static void find_ct_member(Node *node, void *data) {
  CtSearch *search = data;
  if (!node || search->found)
    return;
  if ((node->kind == N_NAME || node->kind == N_ATTRIBUTE) && resolve_ct_member(search->conv, node)) {
    search->found = true;
    return;
  }
  node_children(node, find_ct_member, data);
}

/* `A if FLAG else B` that names cuda.tile, with FLAG known: the branch taken
 * (ConstInt = ct.Constant[int] if _HAS_CUTILE else int, beside a try/except
 * import of cuda.tile), else the expression itself. The statement is
 * rewritten to that branch, so host code sees what the conversion read. */
static Node *taken_branch(Converter *conv, Node *value) {
  if (value->kind != N_IF_EXP)
    return value;
  CtSearch search = {conv, false};
  find_ct_member(value, &search);
  int flag = search.found ? known_flag(conv, value->u.if_exp.test) : -1;
  return flag < 0 ? value : flag ? value->u.if_exp.body : value->u.if_exp.orelse;
}

/* NAME = value at module level: an alias (ConstInt = ct.Constant[int]) or a
 * constant that kernels may read. */
static void resolve_assign(Converter *conv, Node *stmt) {
  stmt->u.assign.value = taken_branch(conv, stmt->u.assign.value);
  if (stmt->u.assign.targets.count > 1) { /* TM = TN = TK = 64: each name bound to the value */
    for (int i = 0; i < stmt->u.assign.targets.count; i++)
      if (stmt->u.assign.targets.items[i]->kind != N_NAME)
        return;
    for (int i = 0; i < stmt->u.assign.targets.count; i++)
      add_binding(conv, stmt, stmt->u.assign.targets.items[i]->u.name.id, stmt->u.assign.value, NULL);
    return;
  }
  if (stmt->u.assign.targets.count != 1)
    return;
  Node *target = stmt->u.assign.targets.items[0];
  Node *value = stmt->u.assign.value;
  /* TM, TN = 64, 32: each name bound to its element (a starred target or
   * a count that differs is left alone: Python itself refuses the latter) */
  bool is_sequence = target->kind == N_TUPLE || target->kind == N_LIST;
  if (is_sequence && (value->kind == N_TUPLE || value->kind == N_LIST) &&
      target->u.list.elts.count == value->u.list.elts.count) {
    for (int i = 0; i < target->u.list.elts.count; i++) {
      Node *name = target->u.list.elts.items[i];
      if (name->kind == N_NAME)
        add_binding(conv, name, name->u.name.id, value->u.list.elts.items[i], NULL);
    }
    return;
  }
  if (target->kind != N_NAME)
    return;
  add_binding(conv, stmt, target->u.name.id, value, NULL);
}

static void resolve_statements(Converter *conv, NodeList *body, int depth);

/* Whether `body` imports cuda.tile (or a name of it) at its top. */
static bool body_imports_cuda_tile(const NodeList *body) {
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (stmt->kind == N_IMPORT_FROM && stmt->u.import_from.level == 0 &&
        (is_cutile_package(stmt->u.import_from.module) || str_eq(stmt->u.import_from.module, "cuda")))
      return true;
    if (stmt->kind == N_IMPORT)
      for (int k = 0; k < stmt->u.import.names.count; k++) {
        Str name = stmt->u.import.names.items[k]->u.alias.name;
        if (is_cutile_package(name))
          return true;
      }
  }
  return false;
}

/* `except ImportError:` (ModuleNotFoundError, Exception, BaseException, a
 * bare except, or a tuple holding one): a handler that runs where an
 * import failed. */
static bool catches_import_error(const Node *type) {
  if (!type)
    return true;
  if (type->kind == N_TUPLE) {
    for (int i = 0; i < type->u.list.elts.count; i++)
      if (catches_import_error(type->u.list.elts.items[i]))
        return true;
    return false;
  }
  if (type->kind != N_NAME)
    return false;
  Str name = type->u.name.id;
  return str_eq(name, "ImportError") || str_eq(name, "ModuleNotFoundError") || str_eq(name, "Exception") ||
         str_eq(name, "BaseException");
}

/* Calls `fn` on each block of statements a compound statement holds
 * (if/else, loops and their else, with, try with its handlers, else and
 * finally, match cases); none for a simple statement or a def or class,
 * whose body is a scope of its own. */
typedef void BlockFn(NodeList *block, void *data);

static void each_block(Node *stmt, BlockFn *fn, void *data) {
  switch (stmt->kind) {
  case N_IF: fn(&stmt->u.if_.body, data); fn(&stmt->u.if_.orelse, data); break;
  case N_FOR: fn(&stmt->u.for_.body, data); fn(&stmt->u.for_.orelse, data); break;
  case N_WHILE: fn(&stmt->u.while_.body, data); fn(&stmt->u.while_.orelse, data); break;
  case N_WITH: fn(&stmt->u.with.body, data); break;
  case N_TRY:
    fn(&stmt->u.try_.body, data);
    for (int i = 0; i < stmt->u.try_.handlers.count; i++)
      fn(&stmt->u.try_.handlers.items[i]->u.except_handler.body, data);
    fn(&stmt->u.try_.orelse, data);
    fn(&stmt->u.try_.finalbody, data);
    break;
  case N_MATCH:
    for (int i = 0; i < stmt->u.match.cases.count; i++)
      fn(&stmt->u.match.cases.items[i]->u.match_case.body, data);
    break;
  default: break;
  }
}

/* Whether a statement of a block, or of a block inside one of them (an if,
 * a loop, a with, a try), is a def decorated @ct.kernel (or, with
 * `functions_too`, @ct.function). */
typedef struct DefSearch {
  Converter *conv;
  bool functions_too;
  bool found;
} DefSearch;

static bool is_ct_def(Converter *conv, const Node *stmt, bool functions_too) {
  if (stmt->kind != N_FUNCTION_DEF)
    return false;
  const NodeList *decorators = &stmt->u.function_def.decorator_list;
  for (int i = 0; i < decorators->count; i++) {
    const char *member = resolve_ct_member(conv, decorator_callee(decorators->items[i]));
    if (member && (!strcmp(member, "kernel") || (functions_too && !strcmp(member, "function"))))
      return true;
  }
  return false;
}

static void find_ct_def(NodeList *block, void *data) {
  DefSearch *search = data;
  for (int k = 0; k < block->count && !search->found; k++) {
    search->found = is_ct_def(search->conv, block->items[k], search->functions_too);
    each_block(block->items[k], find_ct_def, search);
  }
}

static bool block_defines_tile_code(Converter *conv, NodeList *block) {
  DefSearch search = {conv, true, false};
  find_ct_def(block, &search);
  return search.found;
}

static void resolve_statement(Converter *conv, Node *stmt, int depth) {
  switch (stmt->kind) {
  case N_IMPORT: resolve_import(conv, stmt); break;
  case N_IMPORT_FROM: resolve_import_from(conv, stmt); break;
  case N_ASSIGN: resolve_assign(conv, stmt); break;
  case N_ANN_ASSIGN:
    if (stmt->u.ann_assign.target->kind == N_NAME && stmt->u.ann_assign.value)
      add_binding(conv, stmt, stmt->u.ann_assign.target->u.name.id, stmt->u.ann_assign.value, NULL);
    break;
  case N_FUNCTION_DEF: resolve_function_def(conv, stmt); break;
  /* imports guarded by if/try (optional dependencies) count as well */
  case N_IF: {
    /* `if _HAS_MMA:` (a flag known here) with a tile function or kernel in the
       branch not taken: that branch is dead in the converted module, and goes
       (two versions of one tile function, one per branch: Triton calls the
       one the condition picks, as Python would) */
    int flag = known_flag(conv, stmt->u.if_.test);
    NodeList *dead = flag == 1 ? &stmt->u.if_.orelse : flag == 0 ? &stmt->u.if_.body : NULL;
    if (dead && block_defines_tile_code(conv, dead)) {
      if (flag == 1) {
        dead->count = 0;
      } else {
        Node *placeholder = arena_alloc(&conv->ctx->arena, sizeof(Node));
        placeholder->kind = N_PASS;
        placeholder->span = dead->count ? dead->items[0]->span : stmt->span;
        placeholder->rewritten = true;
        dead->count = 0;
        push_node(conv, dead, placeholder);
      }
      stmt->rewritten = true;
    }
    /* a branch decided here binds as the module level does; another binds what the import decides */
    conv->binding_depth += flag < 0;
    resolve_statements(conv, &stmt->u.if_.body, depth + 1);
    resolve_statements(conv, &stmt->u.if_.orelse, depth + 1);
    conv->binding_depth -= flag < 0;
    break;
  }
  case N_TRY: {
    /* `try: import cuda.tile as ct; from cuda.tile import RoundingMode as RM` with
     * `except ImportError: RM = None`: the handler runs only where cuda.tile is missing,
     * which the converted module never imports (its try body loses those imports), so its
     * bindings do not hide the try body's */
    bool fallback = body_imports_cuda_tile(&stmt->u.try_.body);
    resolve_statements(conv, &stmt->u.try_.body, depth + 1);
    for (int i = 0; i < stmt->u.try_.handlers.count; i++) {
      Node *handler = stmt->u.try_.handlers.items[i];
      if (!fallback || !catches_import_error(handler->u.except_handler.type))
        resolve_statements(conv, &handler->u.except_handler.body, depth + 1);
    }
    resolve_statements(conv, &stmt->u.try_.orelse, depth + 1);
    resolve_statements(conv, &stmt->u.try_.finalbody, depth + 1);
    break;
  }
  default: break;
  }
}

/* Nesting needs no cap of its own: the parser bounds it (C2T_MAX_PARSE_DEPTH). */
/* `import cuda.core as cc, cuda.tile as ct`: the other modules' names move to
 * an import statement of their own, written from the tree just before this
 * one, which imports cuda.tile only (and is removed from the output). */
static void split_mixed_import(Converter *conv, NodeList *body, int at) {
  Node *stmt = body->items[at];
  NodeList *names = &stmt->u.import.names;
  NodeList others = {0}, ours = {0};
  for (int i = 0; i < names->count; i++) {
    Str name = names->items[i]->u.alias.name;
    node_list_push(&conv->ctx->arena, is_cutile_package(name) ? &ours : &others,
                   names->items[i]);
  }
  if (!others.count || !ours.count)
    return;
  Node *rest = arena_alloc(&conv->ctx->arena, sizeof(Node));
  *rest = *stmt;
  rest->u.import.names = others;
  rest->rewritten = true;
  stmt->u.import.names = ours;
  stmt->rewritten = true;
  node_list_push(&conv->ctx->arena, body, NULL);
  memmove(&body->items[at + 1], &body->items[at], sizeof(Node *) * (size_t)(body->count - 1 - at));
  body->items[at] = rest;
}

static void resolve_statements(Converter *conv, NodeList *body, int depth) {
  for (int i = 0; i < body->count; i++) {
    if (body->items[i]->kind == N_IMPORT) {
      int before = body->count;
      split_mixed_import(conv, body, i);
      i += body->count - before; /* the other modules' statement, now before it */
    }
    resolve_statement(conv, body->items[i], depth);
  }
}

/* ---------------------------------------- kernels defined in host functions */

/* A kernel defined inside a host function (a factory: `def make(occupancy):
 * @ct.kernel(occupancy=occupancy) def k(...): ...; return k`) becomes a
 * module-level kernel, its def moved before the function: a Triton kernel
 * is a global function. That keeps its meaning when its body and signature
 * read no local of the function (a closure): then each call of the function
 * made the same kernel with the hints (and other decorators) it computed,
 * which host code rewriting gives the moved kernel in its place (launch.c).
 * Only defs that are statements of the function's own body are moved; a
 * closure, a name the module already has, or @ct.kernel under another
 * decorator are located errors. */

bool resolve_set_has(const NameSet *set, Str name) {
  for (int i = 0; i < set->count; i++)
    if (str_same(set->names[i], name))
      return true;
  return false;
}

void resolve_set_add(NameSet *set, Str name) {
  if (resolve_set_has(set, name))
    return;
  set->names = grown(set->conv, set->names, set->count, &set->capacity, sizeof(Str));
  set->names[set->count++] = name;
}

static void collect_parameters(NameSet *set, const Node *args) {
  if (!args)
    return;
  const NodeList *lists[] = {&args->u.arguments.posonlyargs, &args->u.arguments.args, &args->u.arguments.kwonlyargs};
  for (int l = 0; l < 3; l++)
    for (int i = 0; i < lists[l]->count; i++)
      resolve_set_add(set, lists[l]->items[i]->u.arg.arg);
  if (args->u.arguments.vararg)
    resolve_set_add(set, args->u.arguments.vararg->u.arg.arg);
  if (args->u.arguments.kwarg)
    resolve_set_add(set, args->u.arguments.kwarg->u.arg.arg);
}

/* The names a statement binds (stores, defs, classes, imports, except-as;
 * not inside nested functions, lambdas and classes, whose own names it
 * binds), or the names it reads, nested scopes included (what they read
 * comes from here or further out). More than Python's scoping (a
 * comprehension's own targets count) errs toward refusing. Recursion is
 * bounded by the parser's nesting limit. */
static void collect_names(Node *node, void *data) {
  NameSet *set = data;
  switch (node->kind) {
  case N_NAME:
    if ((node->u.name.ctx != CTX_LOAD) == set->stores)
      resolve_set_add(set, node->u.name.id);
    return;
  case N_FUNCTION_DEF:
  case N_CLASS_DEF:
    if (set->stores) {
      resolve_set_add(set, node->kind == N_FUNCTION_DEF ? node->u.function_def.name : node->u.class_def.name);
      return;
    }
    break;
  case N_LAMBDA:
    if (set->stores)
      return;
    break;
  case N_IMPORT:
  case N_IMPORT_FROM: {
    NodeList *names = node->kind == N_IMPORT ? &node->u.import.names : &node->u.import_from.names;
    for (int i = 0; set->stores && i < names->count; i++) {
      Node *alias = names->items[i];
      Str bound = alias->u.alias.asname.len ? alias->u.alias.asname : alias->u.alias.name;
      const char *dot = memchr(bound.text, '.', (size_t)bound.len);
      resolve_set_add(set, dot ? (Str){bound.text, (int)(dot - bound.text)} : bound);
    }
    return;
  }
  case N_EXCEPT_HANDLER:
    if (set->stores && node->u.except_handler.name.len)
      resolve_set_add(set, node->u.except_handler.name);
    break;
  case N_COMPREHENSION:
    if (set->stores && set->comprehension_scopes) { /* `for n in ...` of a comprehension binds its own n */
      collect_names(node->u.comprehension.iter, data);
      for (int i = 0; i < node->u.comprehension.ifs.count; i++)
        collect_names(node->u.comprehension.ifs.items[i], data);
      return;
    }
    break;
  default: break;
  }
  node_children(node, collect_names, data);
}

typedef struct NameSearch {
  Str name;
  const Node *found; /* the first N_NAME reading it */
} NameSearch;

static void find_read(Node *node, void *data) {
  NameSearch *search = data;
  if (search->found)
    return;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_LOAD && str_same(node->u.name.id, search->name)) {
    search->found = node;
    return;
  }
  node_children(node, find_read, data);
}

/* The names `def` reads that `outer`, the names its host function binds, has and `def`
 * does not bind itself (its closure), in its body, annotations and defaults (not its
 * decorators, which run where it is defined), into `names` (at most `limit`; the count is
 * returned, `first` the first read of the first). */
static int closure_reads(Converter *conv, Node *def, const NameSet *outer, Str *names, int limit, const Node **first) {
  /* a name a comprehension of the kernel binds may be read outside it too: the closure's then */
  NameSet own = {.conv = conv, .stores = true, .comprehension_scopes = true}, read = {.conv = conv, .stores = false};
  collect_parameters(&own, def->u.function_def.args);
  NodeList *body = &def->u.function_def.body;
  for (int i = 0; i < body->count; i++) {
    collect_names(body->items[i], &own);
    collect_names(body->items[i], &read);
  }
  if (def->u.function_def.args)
    collect_names(def->u.function_def.args, &read);
  if (def->u.function_def.returns)
    collect_names(def->u.function_def.returns, &read);
  int count = 0;
  *first = NULL;
  for (int i = 0; i < read.count; i++) {
    if (!resolve_set_has(outer, read.names[i]) || resolve_set_has(&own, read.names[i]))
      continue;
    if (!count) {
      NameSearch search = {read.names[i], NULL};
      node_children(def, find_read, &search);
      *first = search.found ? search.found : def;
    }
    if (count < limit)
      names[count] = read.names[i];
    count++;
  }
  return count;
}

/* The names a host function's own statements bind by def, class or import (not values a
 * kernel can take as a constexpr). */
static void collect_definitions(NodeList *body, void *data) {
  NameSet *set = data;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind == N_FUNCTION_DEF)
      resolve_set_add(set, stmt->u.function_def.name);
    else if (stmt->kind == N_CLASS_DEF)
      resolve_set_add(set, stmt->u.class_def.name);
    else if (stmt->kind == N_IMPORT || stmt->kind == N_IMPORT_FROM)
      collect_names(stmt, set);
    each_block(stmt, collect_definitions, set);
  }
}

typedef struct DtypeUse {
  Converter *conv;
  Str name;
  bool found;
} DtypeUse;

static bool names_it(const Node *node, Str name) {
  return node && node->kind == N_NAME && str_same(node->u.name.id, name);
}

/* Whether `expr` names one of cuTile's dtypes (ct.float32, ct.bool_...). */
static bool names_ct_dtype(Converter *conv, const Node *expr) {
  const char *member = resolve_ct_member(conv, expr);
  return member && dtype_name_is_public(member);
}

/* Whether the kernel uses `name` where cuTile takes a dtype: the dtype argument of astype,
 * bitcast, full, zeros, ones (or any `dtype=`), or compared with an array's or tile's .dtype
 * or with a dtype written out (`c == ct.float32`). */
static void find_dtype_use(Node *node, void *data) {
  DtypeUse *use = data;
  if (!node || use->found)
    return;
  if (node->kind == N_CALL) {
    const NodeList *args = &node->u.call.args;
    Node *func = node->u.call.func;
    const char *member = resolve_ct_member(use->conv, func);
    int slot = !member                                                                    ? -1
               : !strcmp(member, "astype") || !strcmp(member, "bitcast")                   ? 1
               : !strcmp(member, "zeros") || !strcmp(member, "ones") || !strcmp(member, "empty") ? 1
               : !strcmp(member, "full")                                                   ? 2
                                                                                           : -1;
    if (!member && func->kind == N_ATTRIBUTE &&
        (str_eq(func->u.attribute.attr, "astype") || str_eq(func->u.attribute.attr, "bitcast")))
      slot = 0;
    if (slot >= 0 && slot < args->count && names_it(args->items[slot], use->name))
      use->found = true;
    for (int i = 0; i < node->u.call.keywords.count; i++) {
      Node *keyword = node->u.call.keywords.items[i];
      if (keyword->u.keyword.arg.len && str_eq(keyword->u.keyword.arg, "dtype") &&
          names_it(keyword->u.keyword.value, use->name))
        use->found = true;
    }
  } else if (node->kind == N_COMPARE && node->u.compare.count == 1) {
    Node *a = node->u.compare.left, *b = node->u.compare.comparators[0];
    bool a_dtype = (a->kind == N_ATTRIBUTE && str_eq(a->u.attribute.attr, "dtype")) || names_ct_dtype(use->conv, a);
    bool b_dtype = (b->kind == N_ATTRIBUTE && str_eq(b->u.attribute.attr, "dtype")) || names_ct_dtype(use->conv, b);
    if ((a_dtype && names_it(b, use->name)) || (b_dtype && names_it(a, use->name)))
      use->found = true;
  }
  node_children(node, find_dtype_use, data);
}

bool resolve_uses_as_dtype(Converter *conv, const NodeList *body, Str name) {
  DtypeUse use = {conv, name, false};
  for (int s = 0; s < body->count && !use.found; s++)
    find_dtype_use(body->items[s], &use);
  return use.found;
}

/* How a host function binds one name: the statements storing it (not in nested
 * functions, lambdas and classes, which bind their own), the value of `name = value`
 * when that is one, and whether anything else might (a def, import, except-as,
 * match, global or nonlocal of it, nested scopes too). */
typedef struct Binds {
  Str name;
  int stores;
  Node *value;
  bool tuple; /* some `name = (...)` binds a tuple display */
  bool other;
} Binds;

static void count_binds(Node *node, void *data) {
  Binds *b = data;
  switch (node->kind) {
  case N_NAME:
    if (node->u.name.ctx != CTX_LOAD && str_same(node->u.name.id, b->name))
      b->stores++;
    return;
  case N_ASSIGN:
    if (node->u.assign.targets.count == 1 && node->u.assign.targets.items[0]->kind == N_NAME &&
        str_same(node->u.assign.targets.items[0]->u.name.id, b->name)) {
      b->value = node->u.assign.value;
      b->tuple |= b->value->kind == N_TUPLE;
    }
    break;
  case N_FUNCTION_DEF:
  case N_CLASS_DEF:
  case N_IMPORT:
  case N_IMPORT_FROM:
  case N_EXCEPT_HANDLER:
  case N_MATCH:
  case N_GLOBAL:
  case N_NONLOCAL:
    b->other = true; /* what they bind is not looked into: the value is not taken as known */
    return;
  default: break;
  }
  node_children(node, count_binds, data);
}

typedef struct NonlocalScan {
  Str name;
  bool found;
} NonlocalScan;

/* `nonlocal name` (or `global name`) anywhere in a nested def: it may rebind the host's name. */
static void find_nonlocal(Node *node, void *data) {
  NonlocalScan *scan = data;
  if (scan->found)
    return;
  if (node->kind == N_NONLOCAL || node->kind == N_GLOBAL) {
    for (int i = 0; i < node->u.global.names.count; i++) {
      const Node *declared = node->u.global.names.items[i];
      scan->found |= declared && declared->kind == N_NAME && str_same(declared->u.name.id, scan->name);
    }
    return;
  }
  node_children(node, find_nonlocal, data);
}

/* A tuple of numbers and bools, nested tuples too, written out. */
static bool is_literal_tuple(const Node *node, int depth) {
  if (depth > C2T_MAX_PARSE_DEPTH) /* the parser nests no deeper */
    return false;
  if (node->kind == N_UNARY_OP && node->u.unary_op.op == AOP_USUB)
    node = node->u.unary_op.operand;
  if (node->kind == N_CONSTANT)
    return depth > 0 && node->u.constant.kind != CONST_NONE && node->u.constant.kind != CONST_ELLIPSIS;
  if (node->kind != N_TUPLE)
    return false;
  for (int i = 0; i < node->u.list.elts.count; i++)
    if (!is_literal_tuple(node->u.list.elts.items[i], depth + 1))
      return false;
  return true;
}

/* The tuple of numbers a host function binds `name` to in its one `name = (...)`,
 * no other statement binding it, or NULL; *tuple: whether a `name = (...)` binds
 * a tuple display to it (a constexpr tuple parameter then). A kernel it defines reads that tuple
 * whenever it runs (or nothing: a NameError), so the tuple is the kernel's own
 * local: all tuple operations take it there, where a constexpr parameter would
 * be typed a number (cuTile's tests ct.astile such a closure value). */
static Node *host_literal_tuple(Converter *conv, Node *host, Str name, bool *tuple) {
  *tuple = false;
  if (host->kind != N_FUNCTION_DEF)
    return NULL;
  NameSet params = {.conv = conv, .stores = true};
  collect_parameters(&params, host->u.function_def.args);
  Binds binds = {.name = name};
  NodeList *body = &host->u.function_def.body;
  for (int i = 0; i < body->count; i++)
    if (body->items[i]->kind == N_FUNCTION_DEF || body->items[i]->kind == N_CLASS_DEF) {
      Node *def = body->items[i];
      NonlocalScan nonlocal = {name, false};
      node_children(def, find_nonlocal, &nonlocal); /* a helper that rebinds it through nonlocal */
      if (nonlocal.found ||
          str_same(def->kind == N_FUNCTION_DEF ? def->u.function_def.name : def->u.class_def.name, name))
        binds.other = true;
    } else
      count_binds(body->items[i], &binds);
  *tuple = binds.tuple;
  if (resolve_set_has(&params, name) || binds.stores != 1 || binds.other || !binds.value ||
      !is_literal_tuple(binds.value, 0))
    return NULL;
  return binds.value;
}

/* `name: X.Constant[held]` (`held`: "int", "tuple" or "DType", X.DType then), X the module
 * the kernel's decorator names (`ct` of `ct.kernel`), appended to the kernel's parameters. */
static void add_captured_param(Converter *conv, Node *def, Node *kernel_callee, Str name, const char *held) {
  Arena *arena = &conv->ctx->arena;
  Node *module = kernel_callee->u.attribute.value;
  Node *constant = arena_alloc(arena, sizeof(Node));
  *constant = *kernel_callee;
  constant->u.attribute.attr = (Str){"Constant", 8};
  Node *slice = arena_alloc(arena, sizeof(Node));
  if (strcmp(held, "DType") == 0) {
    *slice = *kernel_callee;
    slice->u.attribute.value = module;
    slice->u.attribute.attr = (Str){"DType", 5};
  } else {
    slice->kind = N_NAME;
    slice->span = kernel_callee->span;
    slice->u.name.id = (Str){held, (int)strlen(held)};
    slice->u.name.ctx = CTX_LOAD;
  }
  Node *annotation = arena_alloc(arena, sizeof(Node));
  annotation->kind = N_SUBSCRIPT;
  annotation->span = kernel_callee->span;
  annotation->u.subscript.value = constant;
  annotation->u.subscript.slice = slice;
  annotation->u.subscript.ctx = CTX_LOAD;
  Node *arg = arena_alloc(arena, sizeof(Node));
  arg->kind = N_ARG;
  arg->span = def->span;
  arg->u.arg.arg = name;
  arg->u.arg.annotation = annotation;
  push_node(conv, &def->u.function_def.args->u.arguments.args, arg);
}

static bool is_kernel_def(Converter *conv, const Node *stmt) { return is_ct_def(conv, stmt, false); }

/* The plain functions of one host function moved to module level with its kernels (see
 * move_helper): each one's name there, and the placeholder left where its def stood. */
typedef struct HelperMoves {
  Str from[C2T_MAX_CAPTURED], to[C2T_MAX_CAPTURED];
  Node *placeholder[C2T_MAX_CAPTURED];
  int count;
} HelperMoves;

typedef struct DefFind {
  Str name;
  Node **slot; /* the def's place in its block */
  int count;   /* defs of that name found */
} DefFind;

static void find_def_block(NodeList *block, void *data) {
  DefFind *find = data;
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (stmt->kind == N_FUNCTION_DEF && str_same(stmt->u.function_def.name, find->name)) {
      find->slot = &block->items[i];
      find->count++;
    } else if (stmt->kind != N_FUNCTION_DEF && stmt->kind != N_CLASS_DEF)
      each_block(stmt, find_def_block, data);
  }
}

/* Reads of `from` in `node` (a moved kernel or function) renamed `to`. */
typedef struct Rename {
  Str from, to;
} Rename;

static void rename_reads(Node *node, void *data) {
  Rename *rename = data;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_LOAD && str_same(node->u.name.id, rename->from))
    node->u.name.id = rename->to;
  node_children(node, rename_reads, data);
}

/* `name`, read by a kernel (or by a function moved with it) defined in host function
 * `host`, when it is a plain function that `host` defines once (`def helper(t): ...`):
 * tile code that cuTile compiles with the kernel. Its def moves to module level beside the
 * kernel (under `HOST_NAME` where the module has the name), the plain functions it reads
 * of `host` with it; `*to` is the name it has there. False when `name` is no such function
 * (a value, a class, a decorated or twice-defined function); a located error when it reads
 * another local of `host` (a closure: its values are not constants of the kernel) or the
 * module name it would take is taken. Host code of `host` reading it is checked after all
 * of `host`'s kernels moved (check_moved_helpers). */
static bool move_helper(Converter *conv, Node *host, Str name, const NameSet *locals, NameSet *module_names,
                        NodeList *hoisted, HelperMoves *moves, int depth, Str *to) {
  for (int i = 0; i < moves->count; i++)
    if (str_same(moves->from[i], name)) {
      *to = moves->to[i];
      return true;
    }
  DefFind find = {name, NULL, 0};
  find_def_block(&host->u.function_def.body, &find);
  Node *def = find.count == 1 ? *find.slot : NULL;
  if (!def || def->u.function_def.decorator_list.count)
    return false;
  if (depth == C2T_MAX_HELPER_DEPTH)
    diag_limit(&conv->ctx->diag, def->span.start, "plain functions of a host function calling one another, moved "
               "with its kernel", C2T_MAX_HELPER_DEPTH);
  Str host_name = host->u.function_def.name;
  if (moves->count == C2T_MAX_CAPTURED)
    diag_limit(&conv->ctx->diag, def->span.start, "functions of a host function moved with its kernels",
               C2T_MAX_CAPTURED);
  Str moved = name;
  if (resolve_set_has(module_names, name)) {
    char *renamed = arena_printf(&conv->ctx->arena, "%.*s_%.*s", host_name.len, host_name.text, name.len, name.text);
    moved = (Str){renamed, (int)strlen(renamed)};
    if (resolve_set_has(module_names, moved))
      diag_error_code(&conv->ctx->diag, C2T_CODE_HOST, def->span.start,
                      "the function '%.*s' defined inside '%.*s', which a kernel there calls, has the name of a "
                      "module-level name, and so has '%.*s': it becomes a module-level tile function; rename one "
                      "of them", name.len, name.text, host_name.len, host_name.text, moved.len, moved.text);
  }
  resolve_set_add(module_names, moved);
  Node *placeholder = arena_alloc(&conv->ctx->arena, sizeof(Node));
  placeholder->kind = N_PASS;
  placeholder->span = def->span;
  placeholder->rewritten = true;
  int at = moves->count++;
  moves->from[at] = name;
  moves->to[at] = moved;
  moves->placeholder[at] = placeholder;
  *find.slot = placeholder;
  def->u.function_def.name = moved;
  /* what it reads of the host function: other plain functions, moved too; nothing else */
  Str reads[C2T_MAX_CAPTURED];
  const Node *first = NULL;
  int count = closure_reads(conv, def, locals, reads, C2T_MAX_CAPTURED, &first);
  for (int i = 0; i < count && i < C2T_MAX_CAPTURED; i++) {
    Str callee;
    if (move_helper(conv, host, reads[i], locals, module_names, hoisted, moves, depth + 1, &callee)) {
      Rename rename = {reads[i], callee};
      if (!str_same(callee, reads[i]))
        node_children(def, rename_reads, &rename);
      continue;
    }
    NameSearch search = {reads[i], NULL};
    node_children(def, find_read, &search);
    diag_error_code(&conv->ctx->diag, C2T_CODE_HOST, (search.found ? search.found : def)->span.start,
                    "the function '%.*s' defined inside '%.*s', which a kernel there calls, reads '%.*s', a local "
                    "of '%.*s': it becomes a module-level tile function, which reads no local of a host function; "
                    "pass it as a parameter", name.len, name.text, host_name.len, host_name.text, reads[i].len,
                    reads[i].text, host_name.len, host_name.text);
  }
  push_node(conv, hoisted, def);
  resolve_function_def(conv, def);
  *to = moved;
  return true;
}

static void drop_placeholders_block(NodeList *block, void *data) {
  const HelperMoves *moves = data;
  int kept = 0;
  for (int i = 0; i < block->count; i++) {
    bool moved = false;
    for (int m = 0; m < moves->count; m++)
      moved = moved || block->items[i] == moves->placeholder[m];
    if (!moved)
      block->items[kept++] = block->items[i];
  }
  if (kept == 0 && block->count > 0) /* a block keeps one statement: a placeholder is `pass` */
    kept = 1;
  block->count = kept;
  for (int i = 0; i < block->count; i++)
    each_block(block->items[i], drop_placeholders_block, data);
}

/* After `host`'s kernels moved: the defs of the functions moved with them leave its body
 * (a block they empty keeps a `pass`), and host code of `host` that still reads one of
 * them (calls it, passes it on) is a located error: the function is tile code now. */
static void check_moved_helpers(Converter *conv, Node *host, HelperMoves *moves) {
  if (!moves->count)
    return;
  drop_placeholders_block(&host->u.function_def.body, moves);
  Str host_name = host->u.function_def.name;
  for (int m = 0; m < moves->count; m++) {
    NameSearch search = {moves->from[m], NULL};
    NodeList *body = &host->u.function_def.body;
    for (int i = 0; i < body->count && !search.found; i++)
      find_read(body->items[i], &search);
    if (search.found)
      diag_error_code(&conv->ctx->diag, C2T_CODE_HOST, search.found->span.start,
                      "'%.*s' is a function of '%.*s' that a kernel defined there calls, which makes it tile code "
                      "(a module-level tile function in the converted module); host code cannot use it too: "
                      "define a host copy under another name", moves->from[m].len, moves->from[m].text,
                      host_name.len, host_name.text);
  }
}

/* Move the kernel at `slot`, a statement of host function `host`'s body
 * (whose names are `locals`), to `hoisted`; a placeholder takes its place.
 * `module_names` holds the names the module binds, the moved kernels' too. */
static void hoist_kernel(Converter *conv, Node *host, Node **slot, const NameSet *locals, NameSet *module_names,
                         NodeList *hoisted, HelperMoves *moves) {
  Node *inner = *slot;
  Str name = inner->u.function_def.name;
  Str host_name = host->kind == N_CLASS_DEF ? host->u.class_def.name : host->u.function_def.name;
  NodeList *decorators = &inner->u.function_def.decorator_list;
  Node *innermost = decorators->items[decorators->count - 1];
  if (!is_ct_member(conv, decorator_callee(innermost), "kernel"))
    diag_error_code(&conv->ctx->diag, C2T_CODE_HOST, innermost->span.start,
                    "the kernel '%.*s' defined inside '%.*s' has a decorator under @ct.kernel, which would apply to "
                    "its Python function: put @ct.kernel last", name.len, name.text, host_name.len, host_name.text);
  /* what it reads of the host function's locals (a closure) becomes constexpr parameters
     after its own: cuTile compiles a closure's values in, as constants */
  Str captured[C2T_MAX_CAPTURED];
  bool captured_tuple[C2T_MAX_CAPTURED];
  const Node *first = NULL;
  int count = closure_reads(conv, inner, locals, captured, C2T_MAX_CAPTURED, &first);
  NameSet defined = {.conv = conv, .stores = true};
  if (host->kind == N_FUNCTION_DEF) /* a class's names are no closure of its functions */
    collect_definitions(&host->u.function_def.body, &defined);
  Node *callee = decorator_callee(innermost);
  int values = 0; /* the captured names that are values (constexpr parameters), after the functions moved */
  int inlined = 0; /* tuples of numbers bound first in its body, in the order read */
  for (int i = 0; i < count && i < C2T_MAX_CAPTURED; i++) {
    Str read = captured[i], to;
    if (resolve_set_has(&defined, read) && callee->kind == N_ATTRIBUTE &&
        move_helper(conv, host, read, locals, module_names, hoisted, moves, 0, &to)) {
      Rename rename = {read, to};
      if (!str_same(to, read))
        node_children(inner, rename_reads, &rename);
      continue;
    }
    bool tuple_bound;
    Node *tuple = host_literal_tuple(conv, host, read, &tuple_bound);
    if (tuple) { /* `read = (...)` first in the kernel's body */
      Node *assign = arena_alloc(&conv->ctx->arena, sizeof(Node));
      assign->kind = N_ASSIGN;
      assign->span = tuple->span;
      Node *target = arena_alloc(&conv->ctx->arena, sizeof(Node));
      target->kind = N_NAME;
      target->span = tuple->span;
      target->u.name.id = read;
      target->u.name.ctx = CTX_STORE;
      push_node(conv, &assign->u.assign.targets, target);
      assign->u.assign.value = node_copy_tree(&conv->ctx->arena, tuple);
      NodeList *inner_body = &inner->u.function_def.body;
      int at = inlined++;
      if (inner_body->count && inner_body->items[0]->kind == N_EXPR_STMT &&
          inner_body->items[0]->u.expr_stmt.value->kind == N_STRING)
        at++; /* after its docstring, which stays one */
      push_node(conv, inner_body, assign);
      memmove(inner_body->items + at + 1, inner_body->items + at, sizeof(Node *) * (size_t)(inner_body->count - 1 - at));
      inner_body->items[at] = assign;
      continue;
    }
    captured_tuple[values] = tuple_bound;
    captured[values++] = read;
    NameSearch search = {read, NULL};
    node_children(inner, find_read, &search);
    Pos at = (search.found ? search.found : inner)->span.start;
    if (resolve_set_has(&defined, read) || callee->kind != N_ATTRIBUTE)
      diag_error_code(&conv->ctx->diag, C2T_CODE_HOST, at,
                      "the kernel '%.*s' defined inside '%.*s' reads '%.*s', %s of '%.*s': a converted kernel is a "
                      "module-level Triton function, which takes a closure's values only as constexpr parameters; "
                      "pass it as a parameter",
                      name.len, name.text, host_name.len, host_name.text, read.len, read.text,
                      callee->kind != N_ATTRIBUTE ? "a local" : "a function, class or module defined inside",
                      host_name.len, host_name.text);
  }
  if (count > C2T_MAX_CAPTURED)
    diag_limit(&conv->ctx->diag, first->span.start, "locals of its host function a nested kernel reads",
               C2T_MAX_CAPTURED);
  count = values;
  for (int i = 0; i < count; i++) {
    bool dtype = resolve_uses_as_dtype(conv, &inner->u.function_def.body, captured[i]);
    add_captured_param(conv, inner, callee, captured[i], dtype ? "DType" : captured_tuple[i] ? "tuple" : "int");
  }
  /* at module level under its own name, or `HOST_NAME` where another module-level name has it
     (factories often name their kernels alike) */
  Str local = name;
  if (resolve_set_has(module_names, name)) {
    char *renamed = arena_printf(&conv->ctx->arena, "%.*s_%.*s", host_name.len, host_name.text, name.len, name.text);
    name = (Str){renamed, (int)strlen(renamed)};
    if (resolve_set_has(module_names, name))
      diag_error_code(&conv->ctx->diag, C2T_CODE_HOST, inner->span.start,
                      "the kernel '%.*s' defined inside '%.*s' has the name of a module-level name, and so has "
                      "'%.*s': a converted kernel is a module-level Triton function; rename one of them",
                      local.len, local.text, host_name.len, host_name.text, name.len, name.text);
    inner->u.function_def.name = name;
  }
  resolve_set_add(module_names, name);
  Node *placeholder = arena_alloc(&conv->ctx->arena, sizeof(Node));
  placeholder->kind = N_PASS;
  placeholder->rewritten = true;
  NodeList written = *decorators;
  Node *bare = arena_alloc(&conv->ctx->arena, sizeof(Node)); /* plain @ct.kernel: the hints go to the placeholder */
  *bare = *decorator_callee(innermost);
  inner->u.function_def.decorator_list = (NodeList){0};
  push_node(conv, &inner->u.function_def.decorator_list, bare);
  resolve_function_def(conv, inner);
  Function *fn = &conv->functions[conv->function_count - 1];
  fn->nested_in = host;
  fn->nested_placeholder = placeholder;
  fn->nested_decorators = written;
  fn->nested_name = local;
  if (count) {
    fn->captured_names = arena_alloc(&conv->ctx->arena, sizeof(Str) * (size_t)count);
    memcpy(fn->captured_names, captured, sizeof(Str) * (size_t)count);
    fn->captured_count = count;
  }
  *slot = placeholder;
  push_node(conv, hoisted, inner);
}

/* Hoist the kernel defs of a block and of the blocks inside it: a kernel
 * defined under `if`, in a loop or in `try:` (probe scripts wrap each kernel
 * in one) is the same kernel wherever it is made; its placeholder stays where
 * the def stood, so the name is bound when and where Python bound it. */
typedef struct Hoisting {
  Converter *conv;
  Node *host;
  const NameSet *locals;
  NameSet *module_names;
  NodeList *hoisted;
  HelperMoves *moves;
} Hoisting;

static void hoist_block_kernels(NodeList *block, void *data) {
  Hoisting *h = data;
  for (int k = 0; k < block->count; k++) {
    if (is_kernel_def(h->conv, block->items[k]))
      hoist_kernel(h->conv, h->host, &block->items[k], h->locals, h->module_names, h->hoisted, h->moves);
    else
      each_block(block->items[k], hoist_block_kernels, h);
  }
}

/* ------------------------------------ cuda.tile imported in host functions */

/* `def run(x): import cuda.tile as ct; ...`: an import of cuda.tile (or of its
 * names) inside a function binds the same module wherever it is made, so it
 * is taken as the module's own: its names resolve everywhere, the statement
 * leaves the function (the converted module imports Triton at its top), and
 * the block that held it is written from the tree (`pass` where it empties).
 * A name it binds that the module binds to something else is a located
 * error: tile code there would read another value. */
typedef struct LocalImports {
  Converter *conv;
  NameSet *module_names; /* the names module-level statements bind */
} LocalImports;

static bool imports_cuda_tile(const Node *stmt) {
  NodeList one = {.items = (Node **)&stmt, .count = 1};
  return (stmt->kind == N_IMPORT || stmt->kind == N_IMPORT_FROM) && body_imports_cuda_tile(&one);
}

/* Whether the module binds `name` to a name of cuda.tile (from cuda.tile import launch). */
static bool binds_ct_member(Converter *conv, Str name) {
  const Binding *binding = find_binding(conv, name);
  return binding && binding->member && !binding->value;
}

static void check_local_import_names(LocalImports *li, const Node *stmt) {
  NameSet bound = {.conv = li->conv, .stores = true};
  collect_names((Node *)stmt, &bound);
  for (int i = 0; i < bound.count; i++)
    if (resolve_set_has(li->module_names, bound.names[i]) && !is_ct_module_name(li->conv, bound.names[i]) &&
        !(str_eq(bound.names[i], "cuda") && li->conv->cuda_package_bound) && !binds_ct_member(li->conv, bound.names[i]))
      diag_error(&li->conv->ctx->diag, stmt->span.start,
                 "this import of cuda.tile inside a function binds '%.*s', which the module binds to something "
                 "else: import cuda.tile at module level, or under another name",
                 bound.names[i].len, bound.names[i].text);
}

static void hoist_local_imports_in(LocalImports *li, NodeList *block, Node *owner);

static void hoist_local_imports_block(NodeList *block, void *data) {
  LocalImports *li = data;
  hoist_local_imports_in(li, block, NULL);
}

static void hoist_local_imports_in(LocalImports *li, NodeList *block, Node *owner) {
  int kept = 0;
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (imports_cuda_tile(stmt)) {
      check_local_import_names(li, stmt);
      resolve_statement(li->conv, stmt, 0);
      li->conv->ct_imported_in_functions = true;
      continue;
    }
    if (stmt->kind == N_FUNCTION_DEF) {
      hoist_local_imports_in(li, &stmt->u.function_def.body, stmt);
    } else {
      /* the blocks of an if, a loop, a with, a try: their statement is marked if one changes */
      int before = li->conv->ct_imports.count;
      each_block(stmt, hoist_local_imports_block, li);
      if (li->conv->ct_imports.count != before)
        stmt->rewritten = true;
    }
    block->items[kept++] = stmt;
  }
  if (kept == block->count)
    return;
  if (kept == 0) {
    Node *placeholder = arena_alloc(&li->conv->ctx->arena, sizeof(Node));
    placeholder->kind = N_PASS;
    placeholder->span = block->items[0]->span;
    placeholder->rewritten = true;
    block->items[kept++] = placeholder;
  }
  block->count = kept;
  if (owner)
    owner->rewritten = true;
}

/* The methods of a module-level class (and of the classes in it): their imports of cuda.tile
 * are a function's. */
static void hoist_local_imports_in_class(LocalImports *li, Node *cls) {
  NodeList *body = &cls->u.class_def.body;
  for (int i = 0; i < body->count; i++)
    if (body->items[i]->kind == N_FUNCTION_DEF)
      hoist_local_imports_in(li, &body->items[i]->u.function_def.body, body->items[i]);
    else if (body->items[i]->kind == N_CLASS_DEF)
      hoist_local_imports_in_class(li, body->items[i]);
}

static void hoist_local_imports(Converter *conv) {
  NodeList *body = &conv->module->u.module.body;
  NameSet module_names = {.conv = conv, .stores = true};
  for (int i = 0; i < body->count; i++)
    if (!imports_cuda_tile(body->items[i]))
      collect_names(body->items[i], &module_names);
  LocalImports li = {conv, &module_names};
  for (int i = 0; i < body->count; i++)
    if (body->items[i]->kind == N_FUNCTION_DEF)
      hoist_local_imports_in(&li, &body->items[i]->u.function_def.body, body->items[i]);
    else if (body->items[i]->kind == N_CLASS_DEF)
      hoist_local_imports_in_class(&li, body->items[i]);
}

/* ------------------------------------------------------ kernel factories */

/* `def make(latency): def kernel(x, ...): <tile code>; return kernel` and, in
 * host code, `ct.kernel(make(2))` (or `k = make(2)` ... `ct.kernel(k)`): the
 * factory returns a plain function that ct.kernel makes a kernel of where it
 * is called (cuTile's tests of hints and memory assumptions do so). The def is
 * taken as the kernel `@ct.kernel def kernel` would be in that factory: moved
 * to module level with what it reads of the factory as constexpr parameters,
 * and the factory returns the kernel object, whose function ct.kernel takes. */
#define RESOLVE_MAX_FACTORIES 64 /* functions whose result host code gives ct.kernel, and names it gives it */

typedef struct FactoryScan {
  Converter *conv;
  Str names[RESOLVE_MAX_FACTORIES];
  Node *callee[RESOLVE_MAX_FACTORIES]; /* the ct.kernel of its call */
  int count;
  Str given[RESOLVE_MAX_FACTORIES]; /* names given to ct.kernel, and the ct.kernel of each */
  Node *given_callee[RESOLVE_MAX_FACTORIES];
  int given_count;
} FactoryScan;

static void add_factory(FactoryScan *scan, Str name, Node *callee, const Node *at) {
  for (int i = 0; i < scan->count; i++)
    if (str_same(scan->names[i], name))
      return;
  if (scan->count == RESOLVE_MAX_FACTORIES) {
    diag_limit(&scan->conv->ctx->diag, at->span.start, "functions whose result host code gives ct.kernel",
               RESOLVE_MAX_FACTORIES);
    return;
  }
  scan->names[scan->count] = name;
  scan->callee[scan->count++] = callee;
}

/* ct.kernel(F(...)) and ct.kernel(NAME) */
static void find_factory_calls(Node *node, void *data) {
  FactoryScan *scan = data;
  if (node->kind == N_CALL && node->u.call.args.count && is_ct_member(scan->conv, node->u.call.func, "kernel")) {
    Node *made = node->u.call.args.items[0];
    if (made->kind == N_CALL && made->u.call.func->kind == N_NAME)
      add_factory(scan, made->u.call.func->u.name.id, node->u.call.func, made);
    else if (made->kind == N_NAME) {
      bool seen = false;
      for (int i = 0; i < scan->given_count && !seen; i++)
        seen = str_same(scan->given[i], made->u.name.id);
      if (!seen && scan->given_count == RESOLVE_MAX_FACTORIES)
        diag_limit(&scan->conv->ctx->diag, made->span.start, "names host code gives ct.kernel", RESOLVE_MAX_FACTORIES);
      else if (!seen) {
        scan->given[scan->given_count] = made->u.name.id;
        scan->given_callee[scan->given_count++] = node->u.call.func;
      }
    }
  }
  node_children(node, find_factory_calls, data);
}

/* NAME = F(...) for a NAME given to ct.kernel */
static void find_factory_assignments(Node *node, void *data) {
  FactoryScan *scan = data;
  if (node->kind == N_ASSIGN && node->u.assign.targets.count == 1 &&
      node->u.assign.targets.items[0]->kind == N_NAME && node->u.assign.value->kind == N_CALL &&
      node->u.assign.value->u.call.func->kind == N_NAME) {
    Str target = node->u.assign.targets.items[0]->u.name.id;
    for (int i = 0; i < scan->given_count; i++)
      if (str_same(scan->given[i], target))
        add_factory(scan, node->u.assign.value->u.call.func->u.name.id, scan->given_callee[i], node->u.assign.value);
  }
  node_children(node, find_factory_assignments, data);
}

/* Whether `def` (not a nested tile def's own body) calls a tile-only cuTile operation. */
static bool def_uses_tile_ops(Converter *conv, Node *def);

/* `@ct.kernel` on `def`: a copy of `callee`, the ct.kernel host code calls. */
static void add_kernel_decorator(Converter *conv, Node *def, const Node *callee) {
  Node *decorator = arena_alloc(&conv->ctx->arena, sizeof(Node));
  *decorator = *callee;
  decorator->span = def->span;
  if (callee->kind == N_ATTRIBUTE) {
    Node *module = arena_alloc(&conv->ctx->arena, sizeof(Node));
    *module = *callee->u.attribute.value;
    decorator->u.attribute.value = module;
  }
  push_node(conv, &def->u.function_def.decorator_list, decorator);
}

/* The one def of `name` among the first `before` statements of `body`, when it has no
 * decorator and its body uses tile operations; else NULL. */
static Node *plain_tile_def(Converter *conv, NodeList *body, int before, Str name) {
  Node *def = NULL;
  int defs = 0;
  for (int k = 0; k < before; k++)
    if (body->items[k]->kind == N_FUNCTION_DEF && str_same(body->items[k]->u.function_def.name, name)) {
      def = body->items[k];
      defs++;
    }
  return defs == 1 && !def->u.function_def.decorator_list.count && def_uses_tile_ops(conv, def) ? def : NULL;
}

/* Give the def a factory returns the decorator `@ct.kernel` (the `callee` host code calls). */
static void decorate_returned_kernel(Converter *conv, Node *factory, Node *callee) {
  NodeList *body = &factory->u.function_def.body;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_RETURN || !stmt->u.return_.value || stmt->u.return_.value->kind != N_NAME)
      continue;
    Node *def = plain_tile_def(conv, body, i, stmt->u.return_.value->u.name.id);
    if (def)
      add_kernel_decorator(conv, def, callee);
  }
}

/* `def add_one(x, ...): <tile code>` in a host function that gives it ct.kernel itself
 * (`ct.kernel(add_one)`): taken as `@ct.kernel def add_one`, as for a factory's def. */
static void decorate_local_kernels(Converter *conv, Node *host) {
  NodeList *body = &host->u.function_def.body;
  FactoryScan own = {.conv = conv};
  for (int i = 0; i < body->count; i++)
    if (body->items[i]->kind != N_FUNCTION_DEF)
      find_factory_calls(body->items[i], &own);
  for (int g = 0; g < own.given_count; g++) {
    Node *def = plain_tile_def(conv, body, body->count, own.given[g]);
    if (def)
      add_kernel_decorator(conv, def, own.given_callee[g]);
  }
}

static void mark_kernel_factories(Converter *conv) {
  FactoryScan scan = {.conv = conv};
  find_factory_calls(conv->module, &scan);
  if (scan.given_count)
    find_factory_assignments(conv->module, &scan);
  NodeList *body = &conv->module->u.module.body;
  for (int i = 0; scan.given_count && i < body->count; i++)
    if (body->items[i]->kind == N_FUNCTION_DEF && !is_ct_def(conv, body->items[i], true))
      decorate_local_kernels(conv, body->items[i]);
  for (int f = 0; f < scan.count; f++)
    for (int i = 0; i < body->count; i++) {
      Node *stmt = body->items[i];
      if (stmt->kind == N_FUNCTION_DEF && str_same(stmt->u.function_def.name, scan.names[f]) &&
          !is_ct_def(conv, stmt, true))
        decorate_returned_kernel(conv, stmt, scan.callee[f]);
    }
}

/* The kernels defined by statements of module-level host functions (in
 * their blocks too), moved before those functions (see above). */
static void hoist_nested_kernels(Converter *conv) {
  NodeList *body = &conv->module->u.module.body;
  NameSet module_names = {.conv = conv, .stores = true};
  for (int i = 0; i < body->count; i++)
    collect_names(body->items[i], &module_names);
  NodeList out = {0};
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    /* a kernel defined in a host function, or in a class's body (`@staticmethod @ct.kernel`) */
    NodeList *inner = stmt->kind == N_FUNCTION_DEF && !is_kernel_def(conv, stmt) ? &stmt->u.function_def.body
                      : stmt->kind == N_CLASS_DEF                                ? &stmt->u.class_def.body
                                                                                 : NULL;
    DefSearch search = {conv, false, false};
    if (inner)
      find_ct_def(inner, &search);
    if (search.found) {
      /* a comprehension's targets are its own (not the host's); a class's names: none its functions read */
      NameSet locals = {.conv = conv, .stores = true, .comprehension_scopes = true};
      if (stmt->kind == N_FUNCTION_DEF) {
        collect_parameters(&locals, stmt->u.function_def.args);
        for (int k = 0; k < inner->count; k++)
          collect_names(inner->items[k], &locals);
      }
      HelperMoves *moves = arena_alloc(&conv->ctx->arena, sizeof(HelperMoves));
      Hoisting hoisting = {conv, stmt, &locals, &module_names, &out, moves};
      hoist_block_kernels(inner, &hoisting);
      check_moved_helpers(conv, stmt, moves);
    }
    push_node(conv, &out, stmt);
  }
  *body = out;
}

/* -------------------------------------------------------- reachability */

typedef struct CallScan {
  Converter *conv;
  Function *worklist[C2T_MAX_FUNCTIONS];
  int pending;
  const NameSet *locals; /* of the function scanned: its parameters and the names it binds */
} CallScan;

static void mark_device(CallScan *scan, Function *fn) {
  if (fn->role != ROLE_HOST)
    return;
  fn->role = ROLE_DEVICE;
  scan->worklist[scan->pending++] = fn;
}

/* Any module function named inside tile code is tile code too: called
 * directly, or passed along (ct.reduce combine functions); not a local of
 * the same name (`emb = ct.gather(...)` in a kernel beside a host function
 * `emb`), which Python's scoping makes local in the whole function. */
static void scan_for_callees(Node *node, void *data) {
  CallScan *scan = data;
  if (node->kind == N_NAME && node->u.name.ctx == CTX_LOAD && !resolve_set_has(scan->locals, node->u.name.id)) {
    Function *fn = find_function(scan->conv, node->u.name.id);
    if (fn)
      mark_device(scan, fn);
  }
  node_children(node, scan_for_callees, data);
}

static void resolve_reachable(Converter *conv) {
  CallScan *scan = arena_alloc(&conv->ctx->arena, sizeof(CallScan));
  scan->conv = conv;
  for (int i = 0; i < conv->function_count; i++)
    if (conv->functions[i].role != ROLE_HOST)
      scan->worklist[scan->pending++] = &conv->functions[i];
  while (scan->pending > 0) {
    Function *fn = scan->worklist[--scan->pending];
    NodeList *body = &fn->def->u.function_def.body;
    NameSet locals = {.conv = conv, .stores = true};
    collect_parameters(&locals, fn->def->u.function_def.args);
    for (int i = 0; i < body->count; i++)
      collect_names(body->items[i], &locals);
    scan->locals = &locals;
    for (int i = 0; i < body->count; i++)
      scan_for_callees(body->items[i], scan);
  }
}

/* ------------------------------------------------- tile-helper libraries */

/* A module function no kernel of its module calls is still tile code when it
 * can be nothing else: it calls a cuTile operation that exists only in tile
 * code (ct.exp, ct.full, ct.where: host code cannot call them) or has a
 * ct.Constant parameter. Such helpers are what library modules without a
 * kernel (and kernels of other modules, through imports) use; as in cuTile,
 * the plain functions they call are tile code too. The names cuTile lets
 * host code call (launch, cdiv, the static_* helpers, types, dtypes, enums,
 * submodules) do not count. */

typedef struct TileUse {
  Converter *conv;
  bool found;
} TileUse;

/* A def nested in a function that its decorator makes tile code (@ct.function, @ct.kernel): what
 * it calls says nothing of the function around it (a host factory defining a tile function). */
static bool is_nested_tile_def(Converter *conv, const Node *node) {
  if (node->kind != N_FUNCTION_DEF)
    return false;
  const NodeList *decorators = &node->u.function_def.decorator_list;
  for (int i = 0; i < decorators->count; i++) {
    const char *member = resolve_ct_member(conv, decorator_callee(decorators->items[i]));
    if (member && (strcmp(member, "function") == 0 || strcmp(member, "kernel") == 0))
      return true;
  }
  return false;
}

static void scan_for_tile_use(Node *node, void *data) {
  TileUse *scan = data;
  if (scan->found || is_nested_tile_def(scan->conv, node))
    return;
  if (node->kind == N_CALL) {
    const char *member = resolve_ct_member(scan->conv, node->u.call.func);
    if (member && scan->conv->tile_only_op && scan->conv->tile_only_op(member)) {
      scan->found = true;
      return;
    }
  }
  node_children(node, scan_for_tile_use, data);
}

static bool def_uses_tile_ops(Converter *conv, Node *def) {
  TileUse scan = {conv, false};
  NodeList *body = &def->u.function_def.body;
  for (int i = 0; i < body->count && !scan.found; i++)
    scan_for_tile_use(body->items[i], &scan);
  return scan.found;
}

static bool uses_tile_only_names(Converter *conv, Function *fn) {
  /* a ct.Constant annotation alone does not make tile code: host code may annotate so */
  return def_uses_tile_ops(conv, fn->def);
}

/* @ct.function without host=True: callable from tile code only. */
static bool is_tile_only_function(Converter *conv, Function *fn) {
  NodeList *decorators = &fn->def->u.function_def.decorator_list;
  for (int i = 0; i < decorators->count; i++)
    if (is_ct_member(conv, decorator_callee(decorators->items[i]), "function"))
      return !fn->host_too;
  return false;
}

typedef struct TileCallScan {
  Converter *conv;
  const bool *tile_only; /* per function: can run in tile code only */
  bool found;
} TileCallScan;

static void scan_for_tile_only_calls(Node *node, void *data) {
  TileCallScan *scan = data;
  if (scan->found || is_nested_tile_def(scan->conv, node))
    return;
  if (node->kind == N_CALL && node->u.call.func->kind == N_NAME) {
    Function *fn = find_function(scan->conv, node->u.call.func->u.name.id);
    if (fn && scan->tile_only[fn - scan->conv->functions]) {
      scan->found = true;
      return;
    }
  }
  node_children(node, scan_for_tile_only_calls, data);
}

/* The functions that can run in tile code only: those using tile-only
 * names, @ct.function ones, and, until nothing changes, the plain functions
 * calling one of those (host code cannot call them either). The plain ones
 * no kernel reached become tile code. */
static void resolve_tile_helpers(Converter *conv) {
  bool *tile_only = arena_alloc(&conv->ctx->arena, sizeof(bool) * (size_t)(conv->function_count + 1));
  bool found = false;
  for (int i = 0; i < conv->function_count; i++) {
    Function *fn = &conv->functions[i];
    if (fn->role == ROLE_KERNEL)
      continue;
    bool plain = fn->def->u.function_def.decorator_list.count == 0; /* decorated ones stay host code */
    tile_only[i] = is_tile_only_function(conv, fn) || (plain && uses_tile_only_names(conv, fn));
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < conv->function_count; i++) {
      Function *fn = &conv->functions[i];
      if (tile_only[i] || fn->role == ROLE_KERNEL || fn->def->u.function_def.decorator_list.count)
        continue;
      TileCallScan scan = {conv, tile_only, false};
      NodeList *body = &fn->def->u.function_def.body;
      for (int k = 0; k < body->count && !scan.found; k++)
        scan_for_tile_only_calls(body->items[k], &scan);
      if (scan.found)
        tile_only[i] = changed = true;
    }
  }
  for (int i = 0; i < conv->function_count; i++) {
    Function *fn = &conv->functions[i];
    if (fn->role == ROLE_HOST && tile_only[i]) {
      fn->role = ROLE_DEVICE;
      fn->tile_helper = true;
      found = true;
    }
  }
  if (found)
    resolve_reachable(conv); /* what they call */
}

/* -------------------------------------------------------- launch sites */

static void scan_for_launches(Node *node, void *data) {
  Converter *conv = data;
  Function *fn = function_of_def(conv, node);
  if (fn && fn->role != ROLE_HOST)
    return; /* tile code has no launches */
  if (node->kind == N_CALL && is_ct_member(conv, node->u.call.func, "launch"))
    push_node(conv, &conv->launch_sites, node);
  node_children(node, scan_for_launches, data);
}

/* A plain function that tile code calls and host code uses as well (a `cdiv`
 * helper of both) stays a host function; tile code calls a copy of it. */
static void scan_for_host_uses(Node *node, void *data) {
  Converter *conv = data;
  Function *def = function_of_def(conv, node);
  if (def && def->role != ROLE_HOST)
    return; /* tile code */
  if (node->kind == N_NAME) {
    Function *fn = find_function(conv, node->u.name.id);
    if (fn && fn->role == ROLE_DEVICE && fn->def->u.function_def.decorator_list.count == 0)
      fn->host_too = true;
  }
  node_children(node, scan_for_host_uses, data);
}

/* A plain function that no kernel calls, whose body is tile code (tile
 * operations: it cannot run on the host) returning nothing, and that host code
 * names, in a module whose host code calls ct.kernel(f): the kernel made of it
 * there (`ct.kernel(fn)`, fn chosen at run time, as cuTile allows for any
 * function), so it is converted as a kernel, whose function (_pyfunc)
 * ct.kernel takes. Kept as written it would name cuda.tile, which the
 * converted module does not import. */
typedef struct KernelCallScan {
  Converter *conv;
  bool found;
} KernelCallScan;

/* ct.kernel(f, ...) in host code */
static void find_host_kernel_call(Node *node, void *data) {
  KernelCallScan *scan = data;
  if (scan->found)
    return;
  Function *fn = function_of_def(scan->conv, node);
  if (fn && fn->role != ROLE_HOST)
    return; /* tile code */
  if (node->kind == N_CALL && node->u.call.args.count && is_ct_member(scan->conv, node->u.call.func, "kernel")) {
    scan->found = true;
    return;
  }
  node_children(node, find_host_kernel_call, data);
}

/* A `return` with a value in a function's own body (not in a nested def):
 * a kernel returns nothing. */
static void find_return_value(Node *node, void *data) {
  bool *found = data;
  if (*found || node->kind == N_FUNCTION_DEF || node->kind == N_LAMBDA || node->kind == N_CLASS_DEF)
    return;
  if (node->kind == N_RETURN && node->u.return_.value)
    *found = true;
  else
    node_children(node, find_return_value, data);
}

static void kernels_made_on_the_host(Converter *conv) {
  KernelCallScan scan = {conv, false};
  find_host_kernel_call(conv->module, &scan);
  if (!scan.found)
    return;
  for (int i = 0; i < conv->function_count; i++) {
    Function *fn = &conv->functions[i];
    bool returns = false;
    NodeList *body = &fn->def->u.function_def.body;
    for (int k = 0; k < body->count; k++)
      find_return_value(body->items[k], &returns);
    if (fn->role == ROLE_DEVICE && fn->tile_helper && fn->host_too && !fn->def->u.function_def.decorator_list.count &&
        !fn->nested_in && !returns) {
      fn->role = ROLE_KERNEL;
      fn->host_too = false;
      fn->tile_helper = false;
    }
  }
}

/* A kernel moved out of a function that turned out to be tile code (a
 * kernel calls it, or @ct.function): tile code defines no kernels. */
static void refuse_kernels_in_tile_code(Converter *conv) {
  for (int i = 0; i < conv->function_count; i++) {
    Function *kernel = &conv->functions[i];
    if (!kernel->nested_in)
      continue;
    for (int k = 0; k < conv->function_count; k++) {
      Function *host = &conv->functions[k];
      Str name = kernel->def->u.function_def.name, host_name = host->def->u.function_def.name;
      if (host->def == kernel->nested_in && host->role != ROLE_HOST)
        diag_error_code(&conv->ctx->diag, C2T_CODE_TILE, kernel->def->span.start,
                        "the kernel '%.*s' is defined inside '%.*s', which is tile code: tile code cannot define "
                        "a kernel", name.len, name.text, host_name.len, host_name.text);
    }
  }
}

/* `ct.kernel(occupancy=2)(body)`: cuTile's ct.kernel with hints alone returns a decorator,
 * applied here to a function; written `ct.kernel(body, occupancy=2)`, which the rest reads. */
static void apply_kernel_decorator_calls(Node *node, void *data) {
  Converter *conv = data;
  if (!node)
    return;
  node_children(node, apply_kernel_decorator_calls, data);
  if (node->kind != N_CALL || node->u.call.func->kind != N_CALL || node->u.call.args.count != 1 ||
      node->u.call.keywords.count || node->u.call.args.items[0]->kind == N_STARRED)
    return;
  Node *inner = node->u.call.func;
  if (inner->u.call.args.count || !is_ct_member(conv, inner->u.call.func, "kernel"))
    return;
  node->u.call.func = inner->u.call.func;
  node->u.call.keywords = inner->u.call.keywords;
}

/* `@ct.kernel(**HINTS)`, HINTS a dict of the module bound once (`HINTS = dict(occupancy=2)`,
 * `HINTS = {"occupancy": 2}`): its items as the decorator's keywords, which the launch
 * options read; any other `**` stays, a located error there. */
static void expand_hint_dicts(Converter *conv, Node *decorator) {
  NodeList *keywords = &decorator->u.call.keywords, expanded = {0};
  for (int i = 0; i < keywords->count; i++) {
    Node *kw = keywords->items[i], *value = kw->u.keyword.value;
    int bound = 0;
    for (int b = 0; value->kind == N_NAME && b < conv->binding_count; b++)
      bound += str_same(conv->bindings[b].name, value->u.name.id);
    const Binding *binding = bound == 1 ? find_binding(conv, value->u.name.id) : NULL;
    const Node *dict = binding && !binding->varies ? binding->value : NULL;
    bool call = dict && dict->kind == N_CALL && dict->u.call.func->kind == N_NAME &&
                str_eq(dict->u.call.func->u.name.id, "dict") && !dict->u.call.args.count;
    bool display = dict && dict->kind == N_DICT;
    for (int k = 0; display && k < dict->u.dict.keys.count; k++)
      display = dict->u.dict.keys.items[k] && node_plain_string(dict->u.dict.keys.items[k]).len > 0;
    for (int k = 0; call && k < dict->u.call.keywords.count; k++)
      call = dict->u.call.keywords.items[k]->u.keyword.arg.len > 0;
    if (kw->u.keyword.arg.len || !(call || display)) {
      push_node(conv, &expanded, kw);
      continue;
    }
    int count = call ? dict->u.call.keywords.count : dict->u.dict.keys.count;
    for (int k = 0; k < count; k++) {
      Node *item = arena_alloc(&conv->ctx->arena, sizeof(Node));
      item->kind = N_KEYWORD;
      item->span = kw->span;
      item->u.keyword.arg = call ? dict->u.call.keywords.items[k]->u.keyword.arg : node_plain_string(dict->u.dict.keys.items[k]);
      item->u.keyword.value = node_copy_tree(&conv->ctx->arena, call ? dict->u.call.keywords.items[k]->u.keyword.value
                                                                       : dict->u.dict.values.items[k]);
      push_node(conv, &expanded, item);
    }
  }
  *keywords = expanded;
}

static void expand_kernel_hint_dicts(Converter *conv) {
  for (int i = 0; i < conv->function_count; i++) {
    Node *decorator = conv->functions[i].kernel_decorator;
    if (decorator && decorator->kind == N_CALL)
      expand_hint_dicts(conv, decorator);
  }
}

void resolve_module(Converter *conv) {
  resolve_sibling_imports(conv);
  resolve_statements(conv, &conv->module->u.module.body, 0);
  apply_kernel_decorator_calls(conv->module, conv);
  expand_kernel_hint_dicts(conv);
  hoist_local_imports(conv);
  mark_kernel_factories(conv);
  hoist_nested_kernels(conv);
  resolve_nested_functions(conv);
  if (conv->ct_module_count == 0 && !conv->cuda_package_bound && conv->binding_count == 0)
    return;
  resolve_reachable(conv);
  resolve_tile_helpers(conv);
  while (resolve_dataclass_methods(conv))
    resolve_reachable(conv); /* what the methods call */
  refuse_kernels_in_tile_code(conv);
  scan_for_launches(conv->module, conv);
  scan_for_host_uses(conv->module, conv);
  kernels_made_on_the_host(conv);
  resolve_nested_in_helpers(conv);
}
