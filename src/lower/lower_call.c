/*
 * lower_call.c — calls in tile code.
 *
 *   ct.op(...)          the op table (lower_*.c families)
 *   tile.method(...)    the same table with the tile as first argument
 *   helper(...)         a module function: lowered on its first call, with
 *                       the argument kinds of that call (once more per call
 *                       signature it does not fit); arrays expand to
 *                       pointer, shape and strides as for kernels
 *   imported(...)      a function imported from another module: called as
 *                       written (its module, converted too, makes it @triton.jit)
 *   min, max, abs, ...  Python builtins with a tile meaning
 */
#include <string.h>

#include "lower.h"

/* --------------------------------------------------------- the op table */

/* Call the lowering of `row`; a row listed as not supported is a located
 * error giving its reason. While it runs, L->op_row and L->op_call are the
 * row and the call (bind_call reads them); a nested call restores the outer ones. */
static Node *lower_row(Lowerer *L, Node *call, const OpRow *row, const char *shown) {
  if (row->status == OP_UNSUPPORTED)
    lower_error(L, call, "%s is not supported by the converter: %s", shown, row->note);
  const char *dot = strchr(row->name, '.');
  const OpRow *outer = L->op_row;
  const Node *outer_call = L->op_call;
  L->op_row = row;
  L->op_call = call;
  Node *result = row->lower(L, call, dot ? dot + 1 : row->name);
  L->op_row = outer;
  L->op_call = outer_call;
  return result;
}

/* ------------------------------------------------------ argument binding */

/* Its names are pieces of the signature text (a string constant of the
 * lowering), so nothing is copied and no storage outlives the call. */
typedef struct Signature {
  Str names[C2T_MAX_CALL_ARGS];
  int count;
  int positional_only; /* parameters before "/" */
  int keyword_from;    /* index of the first keyword-only parameter ("*") */
} Signature;

static Signature parse_signature(Lowerer *L, const Node *call, const char *text) {
  Signature sig = {.keyword_from = C2T_MAX_CALL_ARGS};
  for (const char *p = text; *p;) {
    Str item = signature_next(&p);
    if (item.len == 1 && *item.text == '/') {
      sig.positional_only = sig.count;
    } else if (item.len == 1 && *item.text == '*') {
      sig.keyword_from = sig.count;
    } else if (item.len > 0) {
      if (sig.count == C2T_MAX_CALL_ARGS)
        lower_limit(L, call, "parameters in a cuTile signature", C2T_MAX_CALL_ARGS);
      sig.names[sig.count++] = item;
    }
  }
  return sig;
}

/* A tile of a coded dtype (its uint8 codes) or that dtype given to `what`,
 * which does not take it: a located error (its codes would be taken for
 * numbers). */
void refuse_coded(Lowerer *L, const Node *at, const char *what, const TypeInfo *type, unsigned flags) {
  DType coded = type_coded_dtype(type);
  if (coded == DT_UNKNOWN || (coded == DT_FLOAT4_E2M1FN && (flags & OPF_FP4)) ||
      (coded == DT_FLOAT8_E8M0FNU && (flags & OPF_E8M0)))
    return;
  if (coded == DT_FLOAT8_E8M0FNU) {
    if (type->kind == VAL_DTYPE)
      lower_error(L, at, "%s with dtype float8_e8m0fnu cannot be converted: Triton has no float8_e8m0fnu dtype, and "
                  "the converter makes float8_e8m0fnu tiles only with ct.bitcast, ct.full, ct.zeros, ct.ones and "
                  "ct.float8_e8m0fnu(constant)", what);
    lower_error(L, at, "%s of a float8_e8m0fnu tile cannot be converted: Triton has no float8_e8m0fnu dtype, so the "
                "converter holds such a tile as its uint8 bits, which only ct.mma_scaled, astype, bitcast, store, "
                "reshape, permute, transpose, expand_dims, broadcast_to, cat and pack_to_bytes take", what);
  }
  int limit;
  if (type_too_deep_to_scan(type, &limit))
    lower_error(L, at, "%s of tuples nested more than %d levels deep cannot be converted (CODED_SCAN_MAX_DEPTH: "
                "the converter does not look deeper for a float4_e2m1fn or float8_e8m0fnu tile, which Triton "
                "holds in another dtype)", what, limit);
  if (type->kind == VAL_DTYPE)
    lower_error(L, at, "%s with dtype float4_e2m1fn cannot be converted: Triton has no FP4 dtype, and the converter "
                "makes float4_e2m1fn tiles only with astype", what);
  lower_error(L, at, "%s of a float4_e2m1fn tile cannot be converted: Triton has no FP4 dtype, so the converter "
              "holds such a tile as uint8 codes, which only astype, reshape, permute, transpose, expand_dims, "
              "pack_to_bytes and ct.mma_scaled take", what);
}

void note_read_as_numbers(Lowerer *L, const Node *at, const TypeInfo *type) {
  Function *fn = L->function;
  if (!type || type->kind != VAL_TILE || type->dtype != DT_UNKNOWN || !fn || fn->role != ROLE_KERNEL ||
      !fn->param_read_line || !at || at->span.start.line <= 0)
    return;
  const Node *e = type->dtype_expr; /* `x.dtype.element_ty` of a tile loaded from parameter x */
  if (!e || e->kind != N_ATTRIBUTE || !str_eq(e->u.attribute.attr, "element_ty"))
    return;
  e = e->u.attribute.value;
  if (!e || e->kind != N_ATTRIBUTE || !str_eq(e->u.attribute.attr, "dtype"))
    return;
  e = e->u.attribute.value;
  for (int i = 0; e && e->kind == N_NAME && i < fn->param_count; i++)
    if (fn->param_is_array[i] && str_same(fn->param_names[i], e->u.name.id) && !fn->param_read_line[i])
      fn->param_read_line[i] = at->span.start.line;
}

/* Why `call` cannot bind to `signature` (too many positional arguments, a keyword it does not
 * have), as bind_call would report it, or NULL where it may: a check that reports nothing, for
 * branches that are compiled only for some constexpr values. A signature with *args or
 * **kwargs, a starred argument or **mapping, is taken as fitting. */
const char *call_signature_mismatch(Lowerer *L, const Node *call, const char *signature) {
  if (strstr(signature, "*args") || strstr(signature, "**"))
    return NULL;
  Signature sig = {.keyword_from = C2T_MAX_CALL_ARGS};
  for (const char *p = signature; *p;) {
    Str item = signature_next(&p);
    if (item.len == 1 && *item.text == '/')
      sig.positional_only = sig.count;
    else if (item.len == 1 && *item.text == '*')
      sig.keyword_from = sig.count;
    else if (item.len > 0 && sig.count < C2T_MAX_CALL_ARGS)
      sig.names[sig.count++] = item;
  }
  const NodeList *args = &call->u.call.args, *keywords = &call->u.call.keywords;
  int positional_limit = sig.keyword_from < sig.count ? sig.keyword_from : sig.count;
  for (int i = 0; i < args->count; i++)
    if (args->items[i]->kind == N_STARRED)
      return NULL;
  if (args->count > positional_limit)
    return arena_printf(&L->ctx->arena, "takes at most %d positional arguments", positional_limit);
  for (int k = 0; k < keywords->count; k++) {
    Str name = keywords->items[k]->u.keyword.arg;
    if (name.len == 0)
      return NULL;
    bool found = false;
    for (int i = sig.positional_only; i < sig.count && !found; i++)
      found = str_same(name, sig.names[i]);
    if (!found)
      return arena_printf(&L->ctx->arena, "got an unexpected keyword argument '%.*s'", name.len, name.text);
  }
  return NULL;
}

void bind_call(Lowerer *L, Node *call, const char *what, const char *signature, BoundArgs *out) {
  memset(out, 0, sizeof *out);
  Signature sig = parse_signature(L, call, signature);
  out->count = sig.count;
  out->signature = signature;
  NodeList *args = &call->u.call.args;
  int positional_limit = sig.keyword_from < sig.count ? sig.keyword_from : sig.count;
  for (int i = 0; i < args->count; i++) {
    if (args->items[i]->kind == N_STARRED)
      lower_error(L, args->items[i], "%s: starred arguments cannot be converted", what);
    if (i >= positional_limit)
      lower_error(L, args->items[i], "%s takes at most %d positional arguments", what, positional_limit);
    out->source[i] = args->items[i];
  }
  NodeList *keywords = &call->u.call.keywords;
  for (int k = 0; k < keywords->count; k++) {
    Node *kw = keywords->items[k];
    Str name = kw->u.keyword.arg;
    int index = -1;
    for (int i = sig.positional_only; i < sig.count; i++)
      if (str_same(name, sig.names[i]))
        index = i;
    if (name.len == 0)
      lower_error(L, kw, "%s: **arguments cannot be converted", what);
    if (index < 0)
      lower_error(L, kw, "%s got an unexpected keyword argument '%.*s'", what, name.len, name.text);
    if (out->source[index])
      lower_error(L, kw, "%s got multiple values for argument '%.*s'", what, sig.names[index].len,
                  sig.names[index].text);
    out->source[index] = kw->u.keyword.value;
  }
  /* read before the arguments are lowered, which may run other rows */
  unsigned takes = L->op_row && L->op_call == call ? L->op_row->flags & (OPF_FP4 | OPF_E8M0) : 0;
  for (int i = 0; i < sig.count; i++)
    if (out->source[i])
      out->arg[i] = lower_expr(L, out->source[i]);
  for (int i = 0; i < sig.count; i++)
    if (out->arg[i])
      refuse_coded(L, out->source[i], what, out->arg[i]->type, takes);
}

void bind_op(Lowerer *L, Node *call, const char *what, const char *member, BoundArgs *out) {
  const OpRow *row = op_row(member);
  if (!row || !row->signature)
    lower_error(L, call, "internal error: %s has no signature in the op table", what);
  bind_call(L, call, what, row->signature, out);
}

/* ------------------------------------------------------- method calls */

/* tile.astype(dt) -> the `astype` lowering with the tile as first argument
 * (rows flagged OPF_TILE_METHOD; array.slice(...): OPF_ARRAY_METHOD). */
static Node *lower_method_call(Lowerer *L, Node *call) {
  Node *callee = call->u.call.func;
  Str method = callee->u.attribute.attr;
  char *member = arena_strndup(&L->ctx->arena, method.text, (size_t)method.len);
  Node *object = callee->u.attribute.value;
  bool on_array = false;
  if (object->kind == N_NAME) {
    Variable *var = scope_lookup(L, object->u.name.id);
    on_array = var && var->type && var->type->kind == VAL_ARRAY;
  }
  const OpRow *row = op_find_method(member, on_array);
  if (!row)
    row = op_find_method(member, !on_array); /* the object's kind is known only once lowered */
  /* load, store, num_tiles of a tiled view (x.tiled_view(...)): the TiledView rows */
  bool on_view = object->kind == N_CALL && object->u.call.func->kind == N_ATTRIBUTE &&
                 str_eq(object->u.call.func->u.attribute.attr, "tiled_view");
  if (object->kind == N_NAME) {
    Variable *var = scope_lookup(L, object->u.name.id);
    on_view = var && var->type && var->type->tiled;
  }
  if (on_view || (row && strncmp(row->name, "TiledView.", 10) == 0)) {
    const OpRow *method = op_row_named(arena_printf(&L->ctx->arena, "TiledView.%s", member));
    if (method)
      row = method;
  }
  if (!row)
    lower_error(L, call, "method '%s' cannot be converted", member);
  /* a method-only row names its class (TiledView., RawArrayMemory.); the others are ct.* ops */
  const char *dot = strchr(row->name, '.');
  const char *prefix = dot ? arena_strndup(&L->ctx->arena, row->name, (size_t)(dot - row->name + 1))
                       : row->flags & OPF_ARRAY_METHOD ? "Array."
                                                       : "Tile.";
  stats_op(L->conv, prefix, member);
  Node *as_function = arena_alloc(&L->ctx->arena, sizeof(Node));
  *as_function = *call;
  as_function->u.call.args = (NodeList){0};
  node_list_push(&L->ctx->arena, &as_function->u.call.args, object);
  for (int i = 0; i < call->u.call.args.count; i++)
    node_list_push(&L->ctx->arena, &as_function->u.call.args, call->u.call.args.items[i]);
  return lower_row(L, as_function, row, arena_printf(&L->ctx->arena, "%s%s", prefix, member));
}

static bool is_method_call(Lowerer *L, Node *call) {
  Node *callee = call->u.call.func;
  if (callee->kind != N_ATTRIBUTE || resolve_ct_member(L->conv, callee))
    return false;
  Node *base = callee->u.attribute.value;
  if (base->kind == N_NAME) {
    Variable *var = scope_lookup(L, base->u.name.id);
    return var && var->type && (var->type->kind == VAL_TILE || var->type->kind == VAL_ARRAY);
  }
  return base->kind != N_NAME; /* (a + b).astype(...), ct.load(...).reshape(...) */
}

/* ------------------------------------------------------------ builtins */

/* The builtins map: BUILTIN lines of the .def files. */
static Node *lower_builtin(Lowerer *L, Node *call, Str name) {
  const char *text = arena_strndup(&L->ctx->arena, name.text, (size_t)name.len);
  const OpRow *row = op_find_builtin(text);
  if (!row)
    lower_error(L, call, "'%s' cannot be called in tile code", text);
  stats_op(L->conv, "builtin ", text);
  return lower_row(L, call, row, arena_printf(&L->ctx->arena, "%s()", text));
}

/* ------------------------------------------- imported tile functions */

/* Whether a from-import of another module (not cuda.*) binds `name`, at
 * module level or in its if/try blocks. Nesting needs no cap of its own:
 * the parser bounds it (C2T_MAX_PARSE_DEPTH). */
static bool imports_name(NodeList *body, Str name, int depth) {
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind == N_IMPORT_FROM) {
      Str module = stmt->u.import_from.module;
      bool cuda = module.len >= 4 && memcmp(module.text, "cuda", 4) == 0 && (module.len == 4 || module.text[4] == '.');
      for (int k = 0; !(cuda && stmt->u.import_from.level == 0) && k < stmt->u.import_from.names.count; k++) {
        Node *alias = stmt->u.import_from.names.items[k];
        Str bound = alias->u.alias.asname.len ? alias->u.alias.asname : alias->u.alias.name;
        if (str_same(bound, name))
          return true;
      }
    } else if (stmt->kind == N_IF) {
      if (imports_name(&stmt->u.if_.body, name, depth + 1) || imports_name(&stmt->u.if_.orelse, name, depth + 1))
        return true;
    } else if (stmt->kind == N_TRY) {
      if (imports_name(&stmt->u.try_.body, name, depth + 1) || imports_name(&stmt->u.try_.orelse, name, depth + 1))
        return true;
    }
  }
  return false;
}

static bool holds_array(const TypeInfo *type, int depth) {
  if (!type || depth > 16)
    return false;
  if (type->kind == VAL_ARRAY)
    return true;
  for (int i = 0; type->kind == VAL_TUPLE && type->elts && i < type->count; i++)
    if (holds_array(type->elts[i], depth + 1))
      return true;
  return type->kind == VAL_TUPLE && type->array; /* a tuple of array parameters */
}

/* `helper(x, B)` where `from .sibling import helper`: in cuTile a plain
 * function called from tile code is tile code, wherever it is defined. The
 * sibling module, converted too, defines it as a @triton.jit function
 * (kernels' helpers and tile-helper functions alike), and Triton calls a
 * JITFunction global of another module. The call stays as written; what
 * the converter cannot see is the callee: it returns a tile of unknown
 * shape and dtype here (an operation that needs them is a located error),
 * and an array argument (which a converted function takes as three
 * parameters) is refused. */
static Node *lower_imported_call(Lowerer *L, Node *call) {
  Str name = call->u.call.func->u.name.id;
  NodeList *args = &call->u.call.args;
  for (int i = 0; i < args->count; i++) {
    if (args->items[i]->kind == N_STARRED)
      lower_error(L, args->items[i], "starred arguments to tile functions cannot be converted");
    args->items[i] = lower_expr(L, args->items[i]);
  }
  NodeList *keywords = &call->u.call.keywords;
  for (int k = 0; k < keywords->count; k++) {
    Node *kw = keywords->items[k];
    if (kw->u.keyword.arg.len == 0)
      lower_error(L, kw, "**arguments to tile functions cannot be converted");
    kw->u.keyword.value = lower_expr(L, kw->u.keyword.value);
  }
  for (int i = 0; i < args->count + keywords->count; i++) {
    Node *value = i < args->count ? args->items[i] : keywords->items[i - args->count]->u.keyword.value;
    if (holds_array(value->type, 0))
      lower_error(L, value, "an array passed to '%.*s', a tile function imported from another module, cannot be "
                  "converted: its converted form takes an array as three parameters, which this module cannot "
                  "check; load a tile here and pass that", name.len, name.text);
  }
  stats_op(L->conv, "imported ", arena_strndup(&L->ctx->arena, name.text, (size_t)name.len));
  call->rewritten = true;
  call->type = type_tile(L->ctx, DT_UNKNOWN, -1, NULL);
  call->type->opaque = true;
  return call;
}

/* ------------------------------------------------------------- the call */

/* math.sqrt, or sqrt after `from math import sqrt`: the Python name of a
 * callee from math, numpy or torch that no local hides. */
/* `dataclasses.replace`, or `replace` imported from dataclasses at module level. */
static bool is_dataclasses_replace(Lowerer *L, const Node *callee) {
  if (callee->kind == N_ATTRIBUTE)
    return str_eq(callee->u.attribute.attr, "replace") && callee->u.attribute.value->kind == N_NAME &&
           str_eq(callee->u.attribute.value->u.name.id, "dataclasses") &&
           !scope_lookup(L, callee->u.attribute.value->u.name.id);
  if (callee->kind != N_NAME || scope_lookup(L, callee->u.name.id))
    return false;
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (stmt->kind != N_IMPORT_FROM || !str_eq(stmt->u.import_from.module, "dataclasses"))
      continue;
    for (int k = 0; k < stmt->u.import_from.names.count; k++) {
      const Node *alias = stmt->u.import_from.names.items[k];
      Str bound = alias->u.alias.asname.len ? alias->u.alias.asname : alias->u.alias.name;
      if (str_eq(alias->u.alias.name, "replace") && str_same(bound, callee->u.name.id))
        return true;
    }
  }
  return false;
}

static const char *python_callee(Lowerer *L, Node *callee) {
  const Node *base = callee;
  while (base->kind == N_ATTRIBUTE)
    base = base->u.attribute.value;
  if (base->kind != N_NAME || scope_lookup(L, base->u.name.id) || find_function(L->conv, base->u.name.id))
    return NULL;
  return resolve_python_name(L->conv, callee);
}

/* `f(t)` with `f = ct.exp` (or `f = helper`) bound in tile code, `fs[1](t)` with `fs = (ct.exp,
 * ct.sin)`: what the name or item was bound to, as written there; NULL for anything else. */
Node *lower_bound_function(Lowerer *L, Node *callee) {
  if (callee->kind == N_SUBSCRIPT) { /* of a tuple name or literal only: nothing else is lowered twice */
    const Node *held = callee->u.subscript.value;
    Variable *tuple = held->kind == N_NAME ? scope_lookup(L, held->u.name.id) : NULL;
    if (held->kind != N_TUPLE && !(tuple && tuple->type && tuple->type->kind == VAL_TUPLE))
      return NULL;
    Node *item = lower_expr(L, node_copy_tree(&L->ctx->arena, callee));
    return item->type && item->type->kind == VAL_FUNCTION && item->type->function_expr
               ? node_copy_tree(&L->ctx->arena, item->type->function_expr)
               : NULL;
  }
  if (callee->kind != N_NAME)
    return NULL;
  Variable *var = scope_lookup(L, callee->u.name.id);
  Node *named = var && var->type && var->type->kind == VAL_FUNCTION ? var->type->function_expr : NULL;
  if (!named || (named->kind == N_NAME && str_same(named->u.name.id, callee->u.name.id)))
    return NULL; /* `helper = helper`: the module's function, found by name below */
  return node_copy_tree(&L->ctx->arena, named);
}

Node *lower_call(Lowerer *L, Node *call) {
  Node *callee = call->u.call.func;
  Node *bound = lower_bound_function(L, callee);
  if (bound) {
    call->u.call.func = bound;
    return lower_call(L, call);
  }
  const char *member = resolve_ct_member(L->conv, callee);
  if (member) {
    expand_starred_arguments(L, call);
    const OpRow *row = op_find(member);
    if (!row || strchr(row->name, '.'))
      lower_error(L, call, "ct.%s is not a name of cuda.tile (cutile2triton --list-ops lists them)", member);
    stats_op(L->conv, "ct.", member);
    return lower_row(L, call, row, arena_printf(&L->ctx->arena, "ct.%s", member));
  }
  Node *method = lower_dataclass_method(L, call);
  if (method)
    return method;
  if (is_method_call(L, call))
    return lower_method_call(L, call);
  if (is_dataclasses_replace(L, callee))
    return lower_dataclass_replace(L, call);
  const char *python = python_callee(L, callee);
  const char *dtype = python ? lower_python_dtype(python) : NULL;
  if (dtype) { /* np.float16(1.5), torch.float32(1.0): cuTile reads them as ct.float16(1.5) */
    expand_starred_arguments(L, call);
    stats_op(L->conv, "ct.", dtype);
    return lower_row(L, call, op_find(dtype), arena_printf(&L->ctx->arena, "ct.%s", dtype));
  }
  if (python)
    return lower_python_call(L, call, python);
  if (callee->kind == N_NAME) {
    Function *fn = find_function(L->conv, callee->u.name.id);
    if (fn)
      return lower_device_call(L, call, fn);
    const Node *cls = lower_dataclass_named(L, callee->u.name.id);
    if (cls)
      return lower_dataclass_construct(L, call, cls);
    const Node *enumeration = scope_lookup(L, callee->u.name.id) ? NULL : lower_enum_named(L, callee->u.name.id);
    if (enumeration)
      return lower_enum_construct(L, call, enumeration);
    if (!scope_lookup(L, callee->u.name.id) && imports_name(&L->conv->module->u.module.body, callee->u.name.id, 0))
      return lower_imported_call(L, call);
    if (!scope_lookup(L, callee->u.name.id))
      return lower_builtin(L, call, callee->u.name.id);
  }
  lower_error(L, call, "this call cannot be converted (only cuTile operations, tile functions of this module "
                       "and a few builtins can be called in tile code)");
}
