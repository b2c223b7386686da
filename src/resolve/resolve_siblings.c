/*
 * resolve_siblings.c — tile functions imported from a sibling module.
 *
 * cuTile compiles a plain function that tile code calls as tile code,
 * wherever it is defined: `from .matmul import swizzle_2d` (or
 * `from kernels.matmul import swizzle_2d` in a folder named kernels) and a
 * kernel calling swizzle_2d. The converter converts one module at a time,
 * so what such a function returns would be unknown here. When the module
 * being converted has a file name and the sibling's file is found next to
 * it, its functions that the imports name (and the functions of that file
 * they call, and the module-level names they read that are simple
 * assignments) are copied into this module, after the import: they become
 * its own tile functions, converted with it, and Triton calls the copies.
 * So is a module-level alias or constant the imports name that this module's tile code
 * reads (`from .consts import ConstInt, BLOCK`, then `T: ConstInt`, `shape=(BLOCK,)`),
 * written as literals, names, attributes, subscripts and arithmetic of them.
 * The copied nodes take the import statement's place in the source (their
 * diagnostics point at the import; no comment of this module moves into
 * them). A sibling that cannot be read or parsed, or names this module
 * binds itself, leave the import as it was (lower_call.c then calls the
 * sibling's own conversion without knowing what it returns).
 *
 * Grammar followed (at module level, also under if/try):
 *     from .M import f [as g], ...       level 1..C2T_MAX_SIBLING_LEVELS
 *     from .M import *                   M's public defs and assignments (M without __all__)
 *     from P.M import f [as g], ...      a folder P holding this file (or above it)
 *     from M import f [as g], ...        M.py beside this file
 */
#include <stdio.h>
#include <string.h>

#include "../convert.h"

#define C2T_MAX_SIBLING_LEVELS 8     /* leading dots of a relative import that are followed */
#define C2T_MAX_SIBLING_MODULES 16   /* sibling modules read for one conversion */
#define C2T_MAX_SIBLING_NAMES 256    /* functions and assignments copied from one sibling */
#define C2T_MAX_SIBLING_PATH 4096    /* bytes of a sibling's path */

/* What the imports of one conversion share: each sibling file parsed once,
 * and each of its statements copied once (two imports of one file). */
typedef struct Loaded {
  const char *paths[C2T_MAX_SIBLING_MODULES];
  Node *modules[C2T_MAX_SIBLING_MODULES];
  int count;
  Node *copied[C2T_MAX_SIBLING_NAMES];
  int copied_count;
} Loaded;

typedef struct Sibling {
  Converter *conv;
  Loaded *loaded;
  Node *module;    /* the sibling's parsed module */
  Node *import;    /* the import statement of this module that names it */
  Node *copied[C2T_MAX_SIBLING_NAMES]; /* its statements to copy, marked */
  int copied_count;
  bool overflow;
  bool clash; /* a name to copy that this module binds itself: nothing is copied */
  Str read[C2T_MAX_SIBLING_NAMES]; /* the names the copied statements read */
  int read_count;
} Sibling;

/* The directory part of `path` (without the slash), "" when it has none. */
static size_t dir_length(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) : 0;
}

/* The file's bytes in the arena (NUL-terminated), or NULL. */
static char *read_file(Converter *conv, const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  Buf buf = {0};
  char chunk[8192];
  size_t got;
  bool too_big = false;
  while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) {
    if (buf.len + got > C2T_MAX_SOURCE_BYTES) {
      too_big = true;
      break;
    }
    buf_put(&buf, chunk, got);
  }
  bool failed = ferror(file) != 0;
  fclose(file);
  if (too_big || failed) {
    buf_free(&buf);
    return NULL;
  }
  char *text = arena_strndup(&conv->ctx->arena, buf.data ? buf.data : "", buf.len);
  *length = buf.len;
  buf_free(&buf);
  return text;
}

/* Parse `text` as the module `path`; NULL when it is not valid Python. The
 * conversion's source and diagnostics are put back as they were. */
static Node *parse_sibling(Converter *conv, const char *path, const char *text, size_t length) {
  Context *ctx = conv->ctx;
  Source saved = ctx->source;
  size_t message_len = ctx->diag.messages.len;
  int error_count = ctx->diag.error_count;
  const char *code = ctx->diag.code;
  jmp_buf outer;
  memcpy(&outer, &ctx->diag.on_error, sizeof outer);
  Node *module = NULL;
  ctx->source = (Source){path, text, length};
  if (setjmp(ctx->diag.on_error) == 0)
    module = parse_module(ctx).module;
  memcpy(&ctx->diag.on_error, &outer, sizeof outer);
  ctx->source = saved;
  ctx->diag.messages.len = message_len;
  if (ctx->diag.messages.data)
    ctx->diag.messages.data[message_len] = '\0';
  ctx->diag.error_count = error_count;
  ctx->diag.code = code;
  return module;
}

static bool imports_cuda_tile(const char *text) {
  return strstr(text, "cuda.tile") || strstr(text, "from cuda import tile");
}

/* The sibling module of `stmt` (`from .M import f`), parsed, or NULL. */
static Node *load_sibling(Converter *conv, Loaded *loaded, const Node *stmt) {
  const char *name = conv->ctx->source.name;
  Str module = stmt->u.import_from.module;
  int level = stmt->u.import_from.level;
  if (!name || name[0] == '<' || !module.len || level > C2T_MAX_SIBLING_LEVELS)
    return NULL;
  for (int i = 0; i < module.len; i++)
    if (module.text[i] == '/' || module.text[i] == '\\')
      return NULL;
  size_t dir = dir_length(name);
  /* candidate folders: for `from .M` this file's (and `..` per further dot);
   * for `from P.M` or `from M`, this file's and each folder above it */
  int tries = level ? 1 : C2T_MAX_SIBLING_LEVELS;
  for (int up = 0; up < tries; up++) {
    Buf path = {0};
    buf_put(&path, name, dir);
    if (!dir)
      buf_puts(&path, ".");
    int ups = level ? level - 1 : up;
    for (int u = 0; u < ups; u++)
      buf_puts(&path, "/..");
    buf_puts(&path, "/");
    for (int i = 0; i < module.len; i++)
      buf_putc(&path, module.text[i] == '.' ? '/' : module.text[i]);
    buf_puts(&path, ".py");
    if (path.len >= C2T_MAX_SIBLING_PATH || strcmp(path.data, name) == 0) {
      buf_free(&path);
      continue;
    }
    for (int i = 0; i < loaded->count; i++)
      if (strcmp(loaded->paths[i], path.data) == 0) {
        buf_free(&path);
        return loaded->modules[i];
      }
    size_t length = 0;
    char *text = loaded->count < C2T_MAX_SIBLING_MODULES ? read_file(conv, path.data, &length) : NULL;
    if (text && imports_cuda_tile(text)) {
      char *kept = arena_strndup(&conv->ctx->arena, path.data, path.len);
      buf_free(&path);
      Node *parsed = parse_sibling(conv, kept, text, length);
      loaded->paths[loaded->count] = kept;
      loaded->modules[loaded->count++] = parsed;
      return parsed;
    }
    buf_free(&path);
  }
  return NULL;
}

/* The name an alias of import statement `stmt` binds: `g` of `f as g`,
 * else `f`; `cuda` of `import cuda.tile`. */
static Str alias_bound(const Node *stmt, const Node *alias) {
  if (alias->u.alias.asname.len)
    return alias->u.alias.asname;
  Str bound = alias->u.alias.name;
  const char *dot = stmt->kind == N_IMPORT ? memchr(bound.text, '.', (size_t)bound.len) : NULL;
  if (dot)
    bound.len = (int)(dot - bound.text);
  return bound;
}

/* Whether `stmt` is a def of `name` or an assignment to it. */
static bool defines(const Node *stmt, Str name) {
  if (stmt->kind == N_FUNCTION_DEF)
    return str_same(stmt->u.function_def.name, name);
  if (stmt->kind == N_ASSIGN)
    for (int t = 0; t < stmt->u.assign.targets.count; t++)
      if (stmt->u.assign.targets.items[t]->kind == N_NAME && str_same(stmt->u.assign.targets.items[t]->u.name.id, name))
        return true;
  return false;
}

/* The sibling's top-level statement that binds `name` (a def, or a simple
 * `NAME = value`), or NULL. */
static Node *sibling_binding(const Node *module, Str name) {
  const NodeList *body = &module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if ((stmt->kind == N_FUNCTION_DEF || (stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1)) &&
        defines(stmt, name))
      return stmt;
  }
  return NULL;
}

/* Whether this module binds `name` at its top level (other than by `import`). */
static bool module_binds(const Node *module, Str name, const Node *import) {
  const NodeList *body = &module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (stmt == import)
      continue;
    if (defines(stmt, name))
      return true;
    if (stmt->kind == N_IMPORT_FROM)
      for (int k = 0; k < stmt->u.import_from.names.count; k++)
        if (str_same(alias_bound(stmt, stmt->u.import_from.names.items[k]), name))
          return true;
  }
  return false;
}

/* Whether this module binds the name `alias` of the sibling's import `stmt`
 * binds, by an import of the same thing (`import cuda.tile as ct` in both,
 * `from math import inf` in both): the name means the same here. */
static bool same_import_here(const Node *module, const Node *stmt, const Node *alias) {
  Str bound = alias_bound(stmt, alias);
  const NodeList *body = &module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    const Node *own = body->items[i];
    if (own->kind != stmt->kind || (own->kind == N_IMPORT_FROM &&
                                    (own->u.import_from.level != stmt->u.import_from.level ||
                                     !str_same(own->u.import_from.module, stmt->u.import_from.module))))
      continue;
    const NodeList *names = own->kind == N_IMPORT ? &own->u.import.names : &own->u.import_from.names;
    for (int k = 0; k < names->count; k++) {
      const Node *other = names->items[k];
      if (str_same(other->u.alias.name, alias->u.alias.name) && str_same(alias_bound(own, other), bound))
        return true;
    }
  }
  return false;
}

/* Whether an `import` of this module binds `name`. */
static bool imported_here(const Node *module, Str name) {
  const NodeList *body = &module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    const Node *own = body->items[i];
    if (own->kind != N_IMPORT)
      continue;
    for (int k = 0; k < own->u.import.names.count; k++)
      if (str_same(alias_bound(own, own->u.import.names.items[k]), name))
        return true;
  }
  return false;
}

static bool already_copied(const Sibling *s, const Node *stmt) {
  for (int i = 0; i < s->copied_count; i++)
    if (s->copied[i] == stmt)
      return true;
  for (int i = 0; i < s->loaded->copied_count; i++) /* by an earlier import of that file */
    if (s->loaded->copied[i] == stmt)
      return true;
  return false;
}

static void copy_with_what_it_reads(Sibling *s, Node *stmt);

/* Whether every binding of `name` in this module, but for defs and
 * assignments, is an import of that very name from the same sibling
 * (`from .gelu import a` and `from .gelu import b`): the same function. */
static bool imported_from_same(const Sibling *s, Str name) {
  const NodeList *body = &s->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (defines(stmt, name))
      return false;
    if (stmt->kind != N_IMPORT_FROM)
      continue;
    for (int k = 0; k < stmt->u.import_from.names.count; k++) {
      const Node *alias = stmt->u.import_from.names.items[k];
      if (str_same(alias_bound(stmt, alias), name) &&
          (!str_same(alias->u.alias.name, name) || stmt->u.import_from.level != s->import->u.import_from.level ||
           !str_same(stmt->u.import_from.module, s->import->u.import_from.module)))
        return false;
    }
  }
  return true;
}

/* Each name a copied statement reads that the sibling binds (a function
 * it calls, a constant or alias it reads) is copied too, unless this module
 * binds it. */
static void follow_names(Node *node, void *data) {
  Sibling *s = data;
  if (!node)
    return;
  if (node->kind == N_NAME) {
    Str id = node->u.name.id;
    bool seen = false;
    for (int i = 0; i < s->read_count && !seen; i++)
      seen = str_same(s->read[i], id);
    if (!seen && s->read_count < C2T_MAX_SIBLING_NAMES)
      s->read[s->read_count++] = id;
    else if (!seen)
      s->overflow = true;
    Node *bound = sibling_binding(s->module, id);
    if (bound && module_binds(s->conv->module, id, s->import) && !imported_from_same(s, id))
      s->clash = true; /* the copy would read this module's NAME, not the sibling's */
    else if (bound)
      copy_with_what_it_reads(s, bound);
  }
  node_children(node, follow_names, data);
}

static void copy_with_what_it_reads(Sibling *s, Node *stmt) {
  if (already_copied(s, stmt))
    return;
  if (s->copied_count == C2T_MAX_SIBLING_NAMES) {
    s->overflow = true;
    return;
  }
  s->copied[s->copied_count++] = stmt;
  node_children(stmt, follow_names, s);
}

/* Every node of a copied statement stands at the import in this module's
 * source (its line and offset): its diagnostics point there, and the
 * comments of this module stay where they are. It keeps its own columns,
 * which tell the emitter a function's body from what follows it, and is
 * written from its nodes (`rewritten`): the source text at its span is
 * this module's import. */
static void place_at(Node *node, void *data) {
  if (!node)
    return;
  const Span *at = data;
  node->span.start.line = at->start.line;
  node->span.start.offset = at->start.offset;
  node->span.end.line = at->end.line;
  node->span.end.offset = at->end.offset;
  node->rewritten = true;
  node_children(node, place_at, data);
}

/* A sibling's statement the conversion cannot take as copied: a decorated
 * def (a kernel, or a decorator of its own), an f-string (the emitter copies
 * their text from the source), a nested function or class. */
static bool copyable(const Node *node, int depth);

static void check_copyable(Node *node, void *data) {
  bool *ok = data;
  if (node && *ok && !copyable(node, 1))
    *ok = false;
}

/* `@ct.function` alone, bare (by its last name, as decorated_as_tile_code reads it): a tile
 * function, which this module's kernels call as the sibling's would; the decorator's module
 * name is read, so its import comes with the copy. */
static bool only_tile_function_decorator(const Node *def) {
  const NodeList *decorators = &def->u.function_def.decorator_list;
  if (decorators->count != 1)
    return false;
  const Node *d = decorators->items[0];
  return d->kind == N_ATTRIBUTE && d->u.attribute.value->kind == N_NAME && str_eq(d->u.attribute.attr, "function");
}

static bool copyable(const Node *node, int depth) {
  if (node->kind == N_FSTRING || node->kind == N_CLASS_DEF || (node->kind == N_FUNCTION_DEF && depth > 0))
    return false;
  if (node->kind == N_FUNCTION_DEF && node->u.function_def.decorator_list.count && !only_tile_function_decorator(node))
    return false;
  bool ok = true;
  node_children((Node *)node, check_copyable, &ok);
  return ok;
}

static bool was_read(const Sibling *s, Str name) {
  for (int i = 0; i < s->read_count; i++)
    if (str_same(s->read[i], name))
      return true;
  return false;
}

/* The sibling's `import X` / `from X import y` statements (cuda.tile's
 * among them: `import cuda.tile as ct`) that bind a name the copied
 * statements read: placed before the copies when this module binds none
 * of their names itself. When it does, it must bind them to the same
 * module (a copy reading `ct` with this module's `ct` another thing would
 * compute something else): else nothing is copied. */
static void copy_needed_imports(Sibling *s, NodeList *out, const Span *at) {
  const NodeList *body = &s->module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_IMPORT && (stmt->kind != N_IMPORT_FROM || stmt->u.import_from.level != 0))
      continue;
    NodeList *names = stmt->kind == N_IMPORT ? &stmt->u.import.names : &stmt->u.import_from.names;
    bool needed = false, all_here = true;
    for (int k = 0; k < names->count; k++) {
      const Node *alias = names->items[k];
      Str bound = alias_bound(stmt, alias);
      if (!was_read(s, bound))
        continue;
      needed = true;
      if (same_import_here(s->conv->module, stmt, alias))
        continue;
      all_here = false;
      if (module_binds(s->conv->module, bound, NULL) || imported_here(s->conv->module, bound))
        s->clash = true; /* this module's name is another thing */
    }
    if (!needed || all_here)
      continue;
    place_at(stmt, (void *)at);
    node_list_push(&s->conv->ctx->arena, out, stmt);
  }
}

/* Whether a call of `name` stands in a def of this module decorated as tile
 * code (`@ct.kernel`, `@ct.function`, by the decorator's last name: the
 * imports are not resolved yet), or in a plain def such a def calls: what
 * is worth copying (a host helper such as next_power_of_2 stays imported). */
typedef struct NameFind {
  Str name;
  bool calls_only; /* only a call of it counts (`name(...)`), else any mention */
  bool found;
} NameFind;

static void find_name(Node *node, void *data) {
  NameFind *find = data;
  if (!node || find->found)
    return;
  const Node *named = find->calls_only ? (node->kind == N_CALL ? node->u.call.func : NULL) : node;
  if (named && named->kind == N_NAME && str_same(named->u.name.id, find->name))
    find->found = true;
  node_children(node, find_name, data);
}

static bool decorated_as_tile_code(const Node *def) {
  const NodeList *decorators = &def->u.function_def.decorator_list;
  for (int i = 0; i < decorators->count; i++) {
    const Node *d = decorators->items[i];
    if (d->kind == N_CALL)
      d = d->u.call.func;
    Str last = d->kind == N_ATTRIBUTE ? d->u.attribute.attr : d->kind == N_NAME ? d->u.name.id : (Str){0};
    if (str_eq(last, "kernel") || str_eq(last, "function"))
      return true;
  }
  return false;
}

static bool def_calls(Node *def, Str name) {
  NameFind find = {name, true, false};
  for (int i = 0; i < def->u.function_def.body.count && !find.found; i++)
    find_name(def->u.function_def.body.items[i], &find);
  return find.found;
}

static bool called_in_tile_code(const Node *module, Str name) {
  const NodeList *body = &module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    Node *def = body->items[i];
    if (def->kind != N_FUNCTION_DEF || !decorated_as_tile_code(def))
      continue;
    if (def_calls(def, name))
      return true;
    for (int j = 0; j < body->count; j++) { /* through a plain function of this module */
      Node *helper = body->items[j];
      if (helper->kind == N_FUNCTION_DEF && !helper->u.function_def.decorator_list.count &&
          def_calls(def, helper->u.function_def.name) && def_calls(helper, name))
        return true;
    }
  }
  return false;
}

/* Whether tile code of this module (a kernel or a @ct.function: its parameters' annotations,
 * its body) reads `name`: `T: ConstInt`, `shape=(BLOCK,)`. */
static bool read_in_tile_code(const Node *module, Str name) {
  const NodeList *body = &module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    Node *def = body->items[i];
    if (def->kind != N_FUNCTION_DEF || !decorated_as_tile_code(def))
      continue;
    NameFind find = {name, false, false};
    find_name(def->u.function_def.args, &find);
    for (int s = 0; s < def->u.function_def.body.count && !find.found; s++)
      find_name(def->u.function_def.body.items[s], &find);
    if (find.found)
      return true;
  }
  return false;
}

/* A value a module-level alias or constant is written as: literals, names, attributes,
 * subscripts and arithmetic of them (`ct.Constant[int]`, `128`, `(64, 64)`, `2 * BLOCK`). */
static bool plain_alias_value(const Node *node, int depth) {
  if (!node || depth > C2T_MAX_PARSE_DEPTH)
    return false;
  switch (node->kind) {
  case N_CONSTANT:
  case N_NAME: return true;
  case N_ATTRIBUTE: return plain_alias_value(node->u.attribute.value, depth + 1);
  case N_SUBSCRIPT:
    return plain_alias_value(node->u.subscript.value, depth + 1) && plain_alias_value(node->u.subscript.slice, depth + 1);
  case N_BIN_OP:
    return plain_alias_value(node->u.bin_op.left, depth + 1) && plain_alias_value(node->u.bin_op.right, depth + 1);
  case N_UNARY_OP: return plain_alias_value(node->u.unary_op.operand, depth + 1);
  case N_TUPLE:
    for (int i = 0; i < node->u.list.elts.count; i++)
      if (!plain_alias_value(node->u.list.elts.items[i], depth + 1))
        return false;
    return true;
  default: return false;
  }
}

/* For `from M import a, b` at `index` of this module's body: the copies to
 * insert after it, in the sibling's order (empty when nothing is copied). */
/* Copies `bound`, the sibling's statement binding `name`, where this module's tile code calls it
 * (a def) or reads it (a plain alias or constant: `from .consts import ConstInt, BLOCK`; cuTile
 * reads it in the kernel's globals, where it is the sibling's value). */
static void copy_if_tile_code_reads(Sibling *s, Node *bound, Str name) {
  if (bound && bound->kind == N_FUNCTION_DEF && called_in_tile_code(s->conv->module, name))
    copy_with_what_it_reads(s, bound);
  else if (bound && bound->kind == N_ASSIGN && plain_alias_value(bound->u.assign.value, 0) &&
           read_in_tile_code(s->conv->module, name))
    copy_with_what_it_reads(s, bound);
}

static NodeList sibling_copies(Converter *conv, Loaded *loaded, Node *stmt) {
  NodeList copies = {0};
  Sibling *s = arena_alloc(&conv->ctx->arena, sizeof(Sibling));
  memset(s, 0, sizeof *s);
  s->conv = conv;
  s->loaded = loaded;
  s->import = stmt;
  const NodeList *names = &stmt->u.import_from.names;
  bool star = false;
  for (int k = 0; k < names->count; k++) {
    const Node *alias = names->items[k];
    if (alias->u.alias.asname.len && !str_same(alias->u.alias.asname, alias->u.alias.name))
      return copies; /* `import f as g`: the copy would need another name */
    star |= str_eq(alias->u.alias.name, "*");
  }
  s->module = load_sibling(conv, s->loaded, stmt);
  if (!s->module)
    return copies;
  if (star) { /* `from .helpers import *`: the sibling's public defs and simple assignments */
    if (sibling_binding(s->module, (Str){"__all__", 7}))
      return copies; /* its __all__ chooses them: not followed */
    const NodeList *body = &s->module->u.module.body;
    for (int i = 0; i < body->count; i++) {
      Node *bound = body->items[i];
      Str name = bound->kind == N_FUNCTION_DEF ? bound->u.function_def.name
                 : bound->kind == N_ASSIGN && bound->u.assign.targets.count == 1 &&
                         bound->u.assign.targets.items[0]->kind == N_NAME
                     ? bound->u.assign.targets.items[0]->u.name.id
                     : (Str){"", 0};
      if (name.len && name.text[0] != '_' && !module_binds(conv->module, name, stmt) &&
          sibling_binding(s->module, name) == bound)
        copy_if_tile_code_reads(s, bound, name);
    }
  }
  for (int k = 0; k < names->count && !star; k++)
    copy_if_tile_code_reads(s, sibling_binding(s->module, names->items[k]->u.alias.name),
                            names->items[k]->u.alias.name);
  if (s->overflow || s->clash || !s->copied_count)
    return copies;
  for (int i = 0; i < s->copied_count; i++)
    if (!copyable(s->copied[i], 0))
      return (NodeList){0};
  copy_needed_imports(s, &copies, &stmt->span);
  if (s->clash || s->overflow)
    return (NodeList){0};
  if (loaded->copied_count + s->copied_count > C2T_MAX_SIBLING_NAMES)
    return (NodeList){0};
  const char *path = NULL;
  for (int i = 0; i < loaded->count; i++)
    if (loaded->modules[i] == s->module)
      path = loaded->paths[i];
  const NodeList *body = &s->module->u.module.body;
  for (int i = 0; i < body->count; i++)
    for (int c = 0; c < s->copied_count; c++)
      if (s->copied[c] == body->items[i]) {
        if (body->items[i]->kind == N_FUNCTION_DEF && path) /* its errors name where it stands there */
          body->items[i]->u.function_def.copied_from =
              arena_printf(&conv->ctx->arena, "%s:%d", path, body->items[i]->span.start.line);
        place_at(body->items[i], &stmt->span);
        node_list_push(&conv->ctx->arena, &copies, body->items[i]);
        loaded->copied[loaded->copied_count++] = body->items[i];
      }
  return copies;
}

static bool is_sibling_import(const Node *stmt) {
  if (stmt->kind != N_IMPORT_FROM)
    return false;
  Str module = stmt->u.import_from.module;
  if (stmt->u.import_from.level == 0 &&
      ((module.len >= 4 && memcmp(module.text, "cuda", 4) == 0 && (module.len == 4 || module.text[4] == '.')) ||
       resolve_python_module(module) || str_eq(module, "triton")))
    return false;
  return module.len > 0;
}

/* Whether an import copied the def of `name`, or an assignment to it, in (this one or an
 * earlier one). */
static bool copies_define(const Loaded *loaded, Str name) {
  for (int c = 0; c < loaded->copied_count; c++)
    if (defines(loaded->copied[c], name))
      return true;
  return false;
}

void resolve_sibling_imports(Converter *conv) {
  NodeList *body = &conv->module->u.module.body;
  Loaded *loaded = arena_alloc(&conv->ctx->arena, sizeof(Loaded));
  memset(loaded, 0, sizeof *loaded);
  NodeList out = {0};
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (!is_sibling_import(stmt)) {
      node_list_push(&conv->ctx->arena, &out, stmt);
      continue;
    }
    NodeList copies = sibling_copies(conv, loaded, stmt);
    /* the import keeps the names that were not copied (the module defines the others now) */
    NodeList kept = {0};
    for (int k = 0; k < stmt->u.import_from.names.count; k++)
      if (!copies_define(loaded, stmt->u.import_from.names.items[k]->u.alias.name))
        node_list_push(&conv->ctx->arena, &kept, stmt->u.import_from.names.items[k]);
    if (kept.count != stmt->u.import_from.names.count)
      stmt->rewritten = true; /* written from its names: the source's text names the copied ones too */
    stmt->u.import_from.names = kept;
    if (kept.count)
      node_list_push(&conv->ctx->arena, &out, stmt);
    for (int c = 0; c < copies.count; c++)
      node_list_push(&conv->ctx->arena, &out, copies.items[c]);
  }
  *body = out;
}
