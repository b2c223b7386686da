/*
 * lower_function.c — kernels and tile functions: parameters, decorators,
 * bodies, and the calls of tile functions (a tile function is lowered at its
 * first call, with that call's argument types, and again, as a copy named
 * NAME_2, ..., for each call whose types it does not fit: the recursion of
 * lower_expr through lower_call reaches lower_stmts here). A kernel or a
 * tile function may be lowered in versions, one per outcome of a constexpr
 * condition (lower_version.c); a tile function no kernel calls that cannot
 * be lowered without a call, and that nothing converted can call, becomes a
 * stub (lower_unused_device_function).
 *
 * A kernel `def k(x, y, n, B: ct.Constant[int])` whose `x`, `y` are arrays
 * becomes
 *
 *     @triton.jit
 *     def k(x, x_shape, x_strides, y, y_shape, y_strides, n, B: tl.constexpr):
 *
 * (an array arrives as its base pointer plus its shape and strides tuples; the
 * generated launcher expands tensors that way). Statements are lowered in
 * order; each expression is typed as it is lowered; cuTile operations are
 * dispatched to their family (lower_*.c) through the op table.
 */
#include <stdio.h>
#include <string.h>

#include "lower_memory.h"
#include "lower_shape.h"

static char *str_dup(Lowerer *L, Str s) { return arena_strndup(&L->ctx->arena, s.text, (size_t)s.len); }

/* ------------------------------------------------------------ parameters */

typedef enum ParamKind {
  PARAM_RUNTIME,
  PARAM_ARRAY,
  PARAM_ARRAY_TUPLE,
  PARAM_ARRAY_LIST,
  PARAM_SCALAR_TUPLE, /* a tuple of numbers given at launch: `addends[0]` */
  PARAM_CONSTEXPR
} ParamKind;

static bool annotation_is(Lowerer *L, Node *annotation, const char *member, int depth);

/* `ct.Constant[int]`, `ct.Constant`, `ConstInt` (an alias of those),
 * `Annotated[int, ct.ConstantAnnotation()]`. */
static bool annotation_is(Lowerer *L, Node *annotation, const char *member, int depth) {
  if (!annotation || depth > 8)
    return false;
  if (annotation->kind == N_SUBSCRIPT) {
    Node *base = annotation->u.subscript.value;
    if (is_ct_member(L->conv, base, member))
      return true;
    if (base->kind == N_NAME && str_eq(base->u.name.id, "Annotated") && annotation->u.subscript.slice->kind == N_TUPLE) {
      NodeList *parts = &annotation->u.subscript.slice->u.list.elts;
      for (int i = 1; i < parts->count; i++) {
        Node *part = parts->items[i];
        Node *callee = part->kind == N_CALL ? part->u.call.func : part;
        char *annotation_member = arena_printf(&L->ctx->arena, "%sAnnotation", member);
        if (is_ct_member(L->conv, callee, annotation_member))
          return true;
      }
    }
    return false;
  }
  if (is_ct_member(L->conv, annotation, member))
    return true;
  if (annotation->kind == N_NAME) {
    const Binding *binding = find_binding(L->conv, annotation->u.name.id);
    if (binding && binding->value)
      return annotation_is(L, binding->value, member, depth + 1);
  }
  return false;
}


/* The call `ct.CLASS(...)` among the metadata of `Annotated[T, ...]` (or of a name bound to
 * that), else NULL. */
static const Node *annotated_call(Lowerer *L, const Node *annotation, const char *class_name, int depth) {
  if (!annotation || depth > 8)
    return NULL;
  if (annotation->kind == N_NAME) {
    const Binding *binding = find_binding(L->conv, annotation->u.name.id);
    return binding && binding->value ? annotated_call(L, binding->value, class_name, depth + 1) : NULL;
  }
  const Node *base = annotation->kind == N_SUBSCRIPT ? annotation->u.subscript.value : NULL;
  if (!base || base->kind != N_NAME || !str_eq(base->u.name.id, "Annotated") ||
      annotation->u.subscript.slice->kind != N_TUPLE)
    return NULL;
  const NodeList *parts = &annotation->u.subscript.slice->u.list.elts;
  for (int i = 1; i < parts->count; i++) {
    const Node *part = parts->items[i];
    if (part->kind == N_CALL && is_ct_member(L->conv, part->u.call.func, class_name))
      return part;
  }
  return NULL;
}

/* The value of keyword `name` of a call, else NULL. */
static Node *keyword_value(const Node *call, const char *name) {
  for (int k = 0; call && k < call->u.call.keywords.count; k++)
    if (str_eq(call->u.call.keywords.items[k]->u.keyword.arg, name))
      return call->u.call.keywords.items[k]->u.keyword.value;
  return NULL;
}

/* Whether a parameter's annotation asks for 64-bit integers: `alias` (ct.IndexedWithInt64,
 * ct.ScalarInt64, `alias[int]`, a name bound to one), or `Annotated[..., ct.CLASS(KEYWORD=ct.int64)]`
 * (ct.ArrayAnnotation(index_dtype=...), ct.ScalarAnnotation(dtype=...)), or a name bound to that. */
static bool annotation_asks_int64(Lowerer *L, Node *annotation, const char *alias, const char *class_name,
                                  const char *keyword) {
  if (annotation_is(L, annotation, alias, 0))
    return true;
  Node *value = keyword_value(annotated_call(L, annotation, class_name, 0), keyword);
  return value && is_ct_member(L->conv, value, "int64");
}

/* ct.IndexedWithInt64 or Annotated[ct.Array, ct.ArrayAnnotation(index_dtype=ct.int64)]. */
static bool indexed_with_int64(Lowerer *L, Node *annotation) {
  return annotation_asks_int64(L, annotation, "IndexedWithInt64", "ArrayAnnotation", "index_dtype");
}

/* static_shape_dims= / static_stride_dims= of a ct.ArrayAnnotation: a tuple of constant
 * dimensions (negative ones count from the last). cuTile makes those dimensions compile-time
 * constants; the converted kernel takes the whole shape (strides) as a tl.constexpr tuple,
 * which specializes it on the other dimensions too (more compiles, the same values). */
static bool static_dims(Lowerer *L, const Node *dims) {
  if (!dims || (dims->kind == N_CONSTANT && dims->u.constant.kind == CONST_NONE))
    return false;
  if (dims->kind != N_TUPLE && dims->kind != N_LIST)
    lower_error(L, dims, "ct.ArrayAnnotation: the static dimensions must be a tuple of constant integers");
  for (int i = 0; i < dims->u.list.elts.count; i++) {
    const Node *dim = dims->u.list.elts.items[i];
    if (dim->kind == N_UNARY_OP && dim->u.unary_op.op == AOP_USUB)
      dim = dim->u.unary_op.operand;
    if (dim->kind != N_CONSTANT || dim->u.constant.kind != CONST_NUMBER)
      lower_error(L, dim, "ct.ArrayAnnotation: the static dimensions must be constant integers");
  }
  return dims->u.list.elts.count > 0;
}

/* Annotated[list, ct.ListAnnotation(element=E)] (or a name bound to it) whose arrays E are
 * indexed with int64 (ct.IndexedWithInt64, ct.ArrayAnnotation(index_dtype=ct.int64)). */
static bool list_indexed_with_int64(Lowerer *L, Node *annotation) {
  Node *element = keyword_value(annotated_call(L, annotation, "ListAnnotation", 0), "element");
  if (!element)
    return false;
  if (indexed_with_int64(L, element))
    return true;
  Node *index_dtype = element->kind == N_CALL && is_ct_member(L->conv, element->u.call.func, "ArrayAnnotation")
                          ? keyword_value(element, "index_dtype")
                          : NULL;
  return index_dtype && is_ct_member(L->conv, index_dtype, "int64");
}

/* `ct.Constant[ct.DType]`, or an alias of it: a constexpr that is a dtype. */
static bool annotation_is_dtype_constant(Lowerer *L, Node *annotation, int depth) {
  if (!annotation || depth > 8)
    return false;
  if (annotation->kind == N_SUBSCRIPT)
    return is_ct_member(L->conv, annotation->u.subscript.value, "Constant") &&
           is_ct_member(L->conv, annotation->u.subscript.slice, "DType");
  if (annotation->kind == N_NAME) {
    const Binding *binding = find_binding(L->conv, annotation->u.name.id);
    if (binding && binding->value)
      return annotation_is_dtype_constant(L, binding->value, depth + 1);
  }
  return false;
}

/* A bare `ct.Constant` parameter that the kernel uses as a dtype (`x.astype(c)`, `c ==
 * ct.float32`): cuTile takes a dtype for it at launch, as for `ct.Constant[ct.DType]`. */
static bool untyped_dtype_constant(Lowerer *L, Node *annotation, const NodeList *body, Str name) {
  return annotation && annotation->kind != N_SUBSCRIPT && is_ct_member(L->conv, annotation, "Constant") &&
         resolve_uses_as_dtype(L->conv, body, name);
}

typedef struct UseScan {
  Lowerer *L;
  Str param;
  bool is_array;
  bool is_array_tuple; /* `param[i]` is used as an array: a tuple of arrays */
  bool in_kernel; /* scanning a kernel's body: `.shape` can only be an array's */
  int depth;      /* tile functions followed through calls */
  bool list_use;  /* `len(param)`, or `param[i]` with an index not known at conversion: a list (cuTile's
                     ListTy), not a tuple (whose length and indices are compile-time) */
  bool item_use;  /* `param[i]` with an index known at conversion: a tuple */
  bool dynamic_item; /* `param[i]` with an index not known at conversion */
  unsigned long long used_items;  /* the items `param[k]` read with a number k < 64, bit k */
  unsigned long long array_items; /* those of them used as arrays */
  bool other_array_item;          /* an item used as an array at another index (a name, k >= 64) */
  const NodeList *body;           /* the body of the function `param` is a parameter of */
  int in_static_iter;             /* scanning the iterable of a ct.static_iter(...): a len() there is
                                     known when cuTile compiles, so `param` is a tuple, not a list */
} UseScan;

/* k of a subscript `[k]` written as a decimal number below 64, else -1. */
static int small_item_index(const Node *index) {
  if (index->kind != N_CONSTANT || index->u.constant.kind != CONST_NUMBER)
    return -1;
  Str text = index->u.constant.text;
  int k = 0;
  for (int i = 0; i < text.len; i++) {
    if (text.text[i] < '0' || text.text[i] > '9' || k >= 64)
      return -1;
    k = k * 10 + (text.text[i] - '0');
  }
  return text.len && k < 64 ? k : -1;
}

/* The item `param[k]` (an N_SUBSCRIPT of the parameter) is used as an array. */
static void note_array_item(UseScan *scan, const Node *item) {
  int k = small_item_index(item->u.subscript.slice);
  if (k >= 0)
    scan->array_items |= 1ULL << k;
  else
    scan->other_array_item = true;
  scan->is_array_tuple = true;
}

/* Tile functions followed through calls to find whether a parameter is used
 * as an array. */
#define C2T_MAX_PARAM_SCAN_DEPTH 8

static bool names_param(const Node *node, Str param) {
  return node && node->kind == N_NAME && str_same(node->u.name.id, param);
}


static const char *const ARRAY_ONLY_ATTRIBUTES[] = {"strides", "slice", "tiled_view", "get_raw_memory", NULL};

static bool in_list(const char *const *list, const char *text) {
  for (int i = 0; list[i]; i++)
    if (strcmp(list[i], text) == 0)
      return true;
  return false;
}

static void scan_array_use(Node *node, void *data);

/* Parameter `index` of a tile function whose parameters are not flattened yet
 * (flatten_parameters): positional-only, plain, then keyword-only ones, the
 * order the flattened list will have; NULL past the last. */
static Node *unflattened_param(const Function *fn, int index) {
  const Node *arguments = fn->def->u.function_def.args;
  const NodeList *lists[] = {&arguments->u.arguments.posonlyargs, &arguments->u.arguments.args,
                             &arguments->u.arguments.kwonlyargs};
  for (int l = 0; l < 3; l++) {
    if (index < lists[l]->count)
      return lists[l]->items[index];
    index -= lists[l]->count;
  }
  return NULL;
}

/* The position of parameter `name` in a tile function's signature as
 * written (before or after its lowering rewrote it); -1 if none. */
static int signature_index(Function *fn, Str name) {
  if (fn->signature_names) {
    for (int i = 0; i < fn->signature_count; i++)
      if (str_same(fn->signature_names[i], name))
        return i;
    return -1;
  }
  Node *param;
  for (int i = 0; (param = unflattened_param(fn, i)); i++)
    if (str_same(param->u.arg.arg, name))
      return i;
  return -1;
}

/* How tile function `fn` uses its parameter `index`: as an array, or as a tuple of arrays (`pair[0]`
 * loaded from: which items, `items` bit k for item k, or every one, `every`). */
typedef struct CalleeUse {
  bool array, array_tuple, every;
  unsigned long long items;
} CalleeUse;

static CalleeUse callee_param_use(Lowerer *L, Function *fn, int index, int depth) {
  CalleeUse use = {0};
  if (fn->lowered || fn->lowering) { /* its parameter list is rewritten: what it was lowered with */
    use.array = fn->param_is_array && index < fn->param_count && fn->param_is_array[index];
    const TypeInfo *type = use.array && fn->param_types ? fn->param_types[index] : NULL;
    use.array_tuple = use.every = type && type->kind == VAL_TUPLE;
    use.array &= !use.array_tuple;
    return use;
  }
  Node *arg = unflattened_param(fn, index); /* a keyword-only parameter too (a nested function's captures) */
  if (!arg)
    return use;
  if (annotation_is(L, arg->u.arg.annotation, "Array", 0) || annotation_is(L, arg->u.arg.annotation, "IndexedWithInt64", 0)) {
    use.array = true;
    return use;
  }
  NodeList *body = &fn->def->u.function_def.body;
  UseScan scan = {.L = L, .param = arg->u.arg.arg, .depth = depth, .body = body};
  for (int i = 0; i < body->count && !scan.is_array; i++)
    scan_array_use(body->items[i], &scan);
  use.array = scan.is_array;
  use.array_tuple = !scan.is_array && scan.is_array_tuple;
  use.items = scan.array_items;
  use.every = scan.other_array_item;
  return use;
}

/* Whether parameter `index` of tile function `fn` is used as an array. */
static bool callee_param_is_array(Lowerer *L, Function *fn, int index, int depth) {
  return callee_param_use(L, fn, index, depth).array;
}

/* `param[i]`: an element of a tuple parameter. */
static bool names_param_item(const Node *node, Str param) {
  return node && node->kind == N_SUBSCRIPT && names_param(node->u.subscript.value, param);
}

/* Whether `index` (in `param[index]`) is known at conversion as written: a
 * number, a negated one, a constant parameter of the kernel, a module-level
 * name, or the variable of a `for ... in ct.static_iter(...)` of the kernel. */
static bool is_static_target(Lowerer *L, NodeList *body, Str name, int depth);

static bool static_index(Lowerer *L, const Node *index) {
  if (index->kind == N_CONSTANT && index->u.constant.kind == CONST_NUMBER)
    return true;
  if (index->kind == N_UNARY_OP && index->u.unary_op.op == AOP_USUB)
    return static_index(L, index->u.unary_op.operand);
  if (index->kind == N_BIN_OP) /* `len(t) - 1`, `N + 1`: arithmetic on known values */
    return static_index(L, index->u.bin_op.left) && static_index(L, index->u.bin_op.right);
  if (index->kind == N_CALL && index->u.call.func->kind == N_NAME && str_eq(index->u.call.func->u.name.id, "len") &&
      !scope_lookup(L, index->u.call.func->u.name.id)) /* len() of a tuple: known when Triton compiles */
    return true;
  if (index->kind != N_NAME)
    return false;
  Node *def = L->function->def;
  NodeList *params = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < params->count; i++) {
    Node *arg = params->items[i];
    if (str_same(arg->u.arg.arg, index->u.name.id))
      return annotation_is(L, arg->u.arg.annotation, "Constant", 0);
  }
  if (is_static_target(L, &def->u.function_def.body, index->u.name.id, 0))
    return true;
  return find_binding(L->conv, index->u.name.id) != NULL;
}

static bool is_static_target(Lowerer *L, NodeList *body, Str name, int depth) {
  if (depth > C2T_MAX_PARAM_SCAN_DEPTH * 4)
    return false;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind == N_FOR) {
      Node *iter = stmt->u.for_.iter;
      if (names_param(stmt->u.for_.target, name) && iter->kind == N_CALL &&
          is_ct_member(L->conv, iter->u.call.func, "static_iter"))
        return true;
      if (is_static_target(L, &stmt->u.for_.body, name, depth + 1))
        return true;
    } else if (stmt->kind == N_WHILE) {
      if (is_static_target(L, &stmt->u.while_.body, name, depth + 1))
        return true;
    } else if (stmt->kind == N_IF) {
      if (is_static_target(L, &stmt->u.if_.body, name, depth + 1) ||
          is_static_target(L, &stmt->u.if_.orelse, name, depth + 1))
        return true;
    }
  }
  return false;
}

/* `value` names the parameter, or chooses it (`x if USE_X else y`, nested too). */
static bool chooses_param(const Node *value, Str param, int depth) {
  if (value->kind == N_IF_EXP && depth < C2T_MAX_PARAM_SCAN_DEPTH)
    return chooses_param(value->u.if_exp.body, param, depth + 1) ||
           chooses_param(value->u.if_exp.orelse, param, depth + 1);
  return names_param(value, param);
}

/* The local an assignment `X = <value>` binds, when `value` names the parameter
 * (and X is another name) or one outcome of a conditional expression names it, or, with
 * `item`, an item of it (`param[i]`); else a zero Str.
 * *from_value: the value it binds (of `a, b = X, Y`, X or Y). */
static Str alias_of(const UseScan *scan, const Node *node, bool item, const Node **from_value) {
  if (node->kind != N_ASSIGN || node->u.assign.targets.count != 1)
    return (Str){NULL, 0};
  const Node *target = node->u.assign.targets.items[0], *value = node->u.assign.value;
  *from_value = value;
  bool unpacked = (target->kind == N_TUPLE || target->kind == N_LIST) &&
                  (value->kind == N_TUPLE || value->kind == N_LIST) &&
                  target->u.list.elts.count == value->u.list.elts.count;
  for (int i = 0; unpacked && i < target->u.list.elts.count; i++) { /* `a, b = X, Y`: each name its item */
    const Node *one = target->u.list.elts.items[i], *from = value->u.list.elts.items[i];
    bool named = item ? names_param_item(from, scan->param) : names_param(from, scan->param);
    if (one->kind == N_NAME && named && !str_same(one->u.name.id, scan->param)) {
      *from_value = from; /* `Ai, Bi = As[g], Bs[g]`: As[g], not the tuple */
      return one->u.name.id;
    }
  }
  if (target->kind != N_NAME)
    return (Str){NULL, 0};
  Str local = target->u.name.id;
  if (item ? !names_param_item(value, scan->param) : !chooses_param(value, scan->param, 0) || str_same(local, scan->param))
    return (Str){NULL, 0};
  return local;
}

/* Whether the local `alias` of the parameter (or of an item of it) is used as an array. */
static bool alias_used_as_array(UseScan *scan, Str alias_name, bool in_kernel) {
  if (!alias_name.len || scan->depth >= C2T_MAX_PARAM_SCAN_DEPTH)
    return false;
  /* the alias is a local of the function the parameter is of, not of the one being lowered */
  UseScan alias = {
      .L = scan->L, .param = alias_name, .in_kernel = in_kernel, .depth = scan->depth + 1, .body = scan->body};
  for (int i = 0; i < scan->body->count && !alias.is_array; i++)
    scan_array_use(scan->body->items[i], &alias);
  return alias.is_array;
}

/* Bit k for each item k < 64 of a tuple display `(a, param, ...)` that names the parameter;
 * 0 when `value` is no display or none of its items does. */
static unsigned long long display_items_naming(const Node *value, Str param) {
  if (!value || (value->kind != N_TUPLE && value->kind != N_LIST))
    return 0;
  unsigned long long at = 0;
  for (int i = 0; i < value->u.list.elts.count && i < 64; i++)
    if (names_param(value->u.list.elts.items[i], param))
      at |= 1ULL << i;
  return at;
}

/* Whether the local `tuple` (bound to a display in the kernel: `arrs = (x, z)`) has an item among
 * `items` (bits) used as an array: `arrs[k]` where an array goes, or every item where the index is
 * a ct.static_iter counter or the tuple is iterated (`for a in ct.static_iter(arrs)`). */
static bool display_items_used_as_array(UseScan *scan, Str tuple, unsigned long long items) {
  /* followed from the kernel's own scan only: a display of a display (`b = (a, a)`, `a = (b, b)`,
     ...) would rescan the body at each level, a count of scans that grows as a power of its length */
  if (!tuple.len || scan->depth > 0)
    return false;
  UseScan held = {.L = scan->L, .param = tuple, .in_kernel = true, .depth = scan->depth + 1, .body = scan->body};
  for (int i = 0; i < scan->body->count; i++)
    scan_array_use(scan->body->items[i], &held);
  return held.is_array || (held.array_items & items) || held.other_array_item;
}

/* `for a in ct.static_iter(X)` (or `for i, a in ct.static_iter(enumerate(X))`): X, and in *item
 * the name each element is bound to; NULL when `node` is no such loop. */
static const Node *static_iter_items(const UseScan *scan, const Node *node, Str *item) {
  if (node->kind != N_FOR)
    return NULL;
  const Node *iter = node->u.for_.iter, *target = node->u.for_.target;
  if (iter->kind != N_CALL || !is_ct_member(scan->L->conv, iter->u.call.func, "static_iter") ||
      iter->u.call.args.count != 1)
    return NULL;
  iter = iter->u.call.args.items[0];
  if (iter->kind == N_CALL && iter->u.call.func->kind == N_NAME && str_eq(iter->u.call.func->u.name.id, "enumerate") &&
      iter->u.call.args.count >= 1) {
    if ((target->kind != N_TUPLE && target->kind != N_LIST) || target->u.list.elts.count != 2)
      return NULL;
    iter = iter->u.call.args.items[0];
    target = target->u.list.elts.items[1];
  }
  if (target->kind != N_NAME)
    return NULL;
  *item = target->u.name.id;
  return iter;
}

static void scan_array_use(Node *node, void *data) {
  UseScan *scan = data;
  if (scan->is_array)
    return;
  /* a kernel's local tuple of arrays: `arrs = (x, z)` then `ct.load(arrs[0], ...)`, and loops over
     one (`for a in ct.static_iter((x, z))`, or over `arrs`) */
  if (scan->in_kernel && node->kind == N_ASSIGN && node->u.assign.targets.count == 1 &&
      node->u.assign.targets.items[0]->kind == N_NAME) {
    unsigned long long at = display_items_naming(node->u.assign.value, scan->param);
    if (at && display_items_used_as_array(scan, node->u.assign.targets.items[0]->u.name.id, at))
      scan->is_array = true;
  }
  /* `f((x, z), j)`, f loading from the items of its parameter */
  if (scan->in_kernel && node->kind == N_CALL && node->u.call.func->kind == N_NAME) {
    Function *fn = find_function(scan->L->conv, node->u.call.func->u.name.id);
    NodeList *args = &node->u.call.args;
    for (int i = 0; fn && fn->role == ROLE_DEVICE && i < args->count && !scan->is_array; i++) {
      if (args->items[i]->kind == N_STARRED)
        break;
      unsigned long long at = display_items_naming(args->items[i], scan->param);
      if (!at || scan->depth >= C2T_MAX_PARAM_SCAN_DEPTH)
        continue;
      CalleeUse use = callee_param_use(scan->L, fn, i, scan->depth + 1);
      if (use.array_tuple && (use.every || (use.items & at)))
        scan->is_array = true;
    }
  }
  /* `a, b = param`, a or b then used as an array: param holds arrays (a tuple) */
  if (scan->in_kernel && node->kind == N_ASSIGN && node->u.assign.targets.count == 1 &&
      names_param(node->u.assign.value, scan->param)) {
    const Node *target = node->u.assign.targets.items[0];
    for (int k = 0; (target->kind == N_TUPLE || target->kind == N_LIST) && k < target->u.list.elts.count; k++) {
      const Node *one = target->u.list.elts.items[k];
      if (one->kind != N_NAME || str_same(one->u.name.id, scan->param) ||
          !alias_used_as_array(scan, one->u.name.id, true))
        continue;
      scan->is_array_tuple = true;
      if (k < 64)
        scan->array_items |= 1ULL << k;
      else
        scan->other_array_item = true;
    }
  }
  Str element = {NULL, 0};
  const Node *iterated = scan->in_kernel ? static_iter_items(scan, node, &element) : NULL;
  if (iterated && (display_items_naming(iterated, scan->param) || names_param(iterated, scan->param)) &&
      alias_used_as_array(scan, element, true)) {
    if (names_param(iterated, scan->param)) { /* every item of the tuple is an array */
      scan->other_array_item = true;
      scan->is_array_tuple = true;
    } else {
      scan->is_array = true;
    }
  }
  if (node->kind == N_CALL && node->u.call.args.count > 0) {
    const char *member = resolve_ct_member(scan->L->conv, node->u.call.func);
    Node *first = node->u.call.args.items[0];
    if (member && op_has_flags(member, OPF_ARRAY_FIRST) && names_param(first, scan->param))
      scan->is_array = true;
    if (member && op_has_flags(member, OPF_ARRAY_FIRST) && names_param_item(first, scan->param))
      note_array_item(scan, first);
  }
  if (scan->in_kernel && node->kind == N_CALL && node->u.call.func->kind == N_NAME &&
      str_eq(node->u.call.func->u.name.id, "len") && !scope_lookup(scan->L, node->u.call.func->u.name.id) &&
      node->u.call.args.count == 1 && names_param(node->u.call.args.items[0], scan->param)) {
    if (scan->in_static_iter) /* `ct.static_iter(range(len(xs)))`: a length known when compiling */
      scan->item_use = true;
    else
      scan->list_use = true;
  }
  if (node->kind == N_CALL && is_ct_member(scan->L->conv, node->u.call.func, "static_iter")) {
    scan->in_static_iter++;
    node_children(node, scan_array_use, data);
    scan->in_static_iter--;
    return;
  }
  if (scan->in_kernel && names_param_item(node, scan->param)) {
    int k = small_item_index(node->u.subscript.slice);
    if (k >= 0)
      scan->used_items |= 1ULL << k;
    if (static_index(scan->L, node->u.subscript.slice))
      scan->item_use = true;
    else
      scan->list_use = scan->dynamic_item = true;
  }
  /* `X = param[i]` in a kernel, X then used as an array: param holds arrays */
  const Node *from = NULL;
  if (scan->in_kernel && alias_used_as_array(scan, alias_of(scan, node, true, &from), true))
    note_array_item(scan, from);
  /* `X = param`, X then used as an array: param is an array (X another name of it) */
  if (alias_used_as_array(scan, alias_of(scan, node, false, &from), scan->in_kernel))
    scan->is_array = true;
  if (node->kind == N_ATTRIBUTE && scan->in_kernel && names_param_item(node->u.attribute.value, scan->param)) {
    char *attr = str_dup(scan->L, node->u.attribute.attr);
    if (in_list(ARRAY_ONLY_ATTRIBUTES, attr) || strcmp(attr, "shape") == 0 || strcmp(attr, "dtype") == 0)
      note_array_item(scan, node->u.attribute.value);
  }
  /* passed to a tile function that uses that parameter as an array */
  if (node->kind == N_CALL && node->u.call.func->kind == N_NAME) {
    Function *fn = find_function(scan->L->conv, node->u.call.func->u.name.id);
    NodeList *args = &node->u.call.args;
    for (int i = 0; fn && fn->role == ROLE_DEVICE && i < args->count; i++) {
      if (args->items[i]->kind == N_STARRED)
        break;
      bool item = scan->in_kernel && names_param_item(args->items[i], scan->param);
      if (!item && !names_param(args->items[i], scan->param))
        continue;
      if (scan->depth >= C2T_MAX_PARAM_SCAN_DEPTH)
        lower_limit(scan->L, node, "levels of tile-function calls followed to find array parameters", C2T_MAX_PARAM_SCAN_DEPTH);
      CalleeUse use = callee_param_use(scan->L, fn, i, scan->depth + 1);
      if (use.array) {
        if (item) /* `f(param[i])`: an item is the array */
          note_array_item(scan, args->items[i]);
        else
          scan->is_array = true;
      } else if (use.array_tuple && !item) { /* `f(param)`, f loading from its items */
        scan->is_array_tuple = true;
        scan->array_items |= use.items;
        scan->other_array_item |= use.every;
      }
    }
    NodeList *keywords = &node->u.call.keywords;
    for (int k = 0; fn && fn->role == ROLE_DEVICE && k < keywords->count; k++) {
      Node *kw = keywords->items[k];
      if (!names_param(kw->u.keyword.value, scan->param))
        continue;
      int index = signature_index(fn, kw->u.keyword.arg);
      if (scan->depth >= C2T_MAX_PARAM_SCAN_DEPTH)
        lower_limit(scan->L, node, "levels of tile-function calls followed to find array parameters", C2T_MAX_PARAM_SCAN_DEPTH);
      if (index >= 0 && callee_param_is_array(scan->L, fn, index, scan->depth + 1))
        scan->is_array = true;
    }
  }
  if (node->kind == N_ATTRIBUTE && names_param(node->u.attribute.value, scan->param)) {
    char *attr = str_dup(scan->L, node->u.attribute.attr);
    /* in a kernel, `.shape` can only be an array's: kernels take no tiles */
    if (in_list(ARRAY_ONLY_ATTRIBUTES, attr) || (scan->in_kernel && strcmp(attr, "shape") == 0))
      scan->is_array = true;
  }
  node_children(node, scan_array_use, data);
}

/* `ct.Constant[tuple]`, `ct.Constant[tuple[int, int]]`: a Constant parameter holding a tuple. */
static bool annotation_is_tuple_constant(const Node *annotation) {
  if (!annotation || annotation->kind != N_SUBSCRIPT)
    return false;
  const Node *held = annotation->u.subscript.slice;
  if (held->kind == N_SUBSCRIPT)
    held = held->u.subscript.value;
  return held->kind == N_NAME && str_eq(held->u.name.id, "tuple");
}

/* The type of a tuple parameter from its annotation (`tuple[ct.Constant[int], int]`,
 * nested `tuple[tuple[ct.Constant[int], int], int]`): Constant items are constexprs,
 * others scalars as a kernel's scalar arguments are. `mask` gets which items are
 * constants as a Python tuple literal, and *constants whether any is. NULL when the
 * annotation is no `tuple[...]` of known length. */
static TypeInfo *annotated_tuple_type(Lowerer *L, Node *annotation, Buf *mask, bool *constants, int depth) {
  if (!annotation || annotation->kind != N_SUBSCRIPT || annotation->u.subscript.value->kind != N_NAME ||
      !str_eq(annotation->u.subscript.value->u.name.id, "tuple") || depth > C2T_MAX_PARAM_SCAN_DEPTH)
    return NULL;
  Node *held = annotation->u.subscript.slice;
  int count = held->kind == N_TUPLE ? held->u.list.elts.count : 1;
  Node **items = held->kind == N_TUPLE ? held->u.list.elts.items : &held;
  for (int i = 0; i < count; i++)
    if (items[i]->kind == N_CONSTANT && items[i]->u.constant.kind == CONST_ELLIPSIS)
      return NULL; /* tuple[int, ...]: any length */
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = count;
  type->not_bfloat16 = true;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)count);
  buf_puts(mask, "(");
  for (int i = 0; i < count; i++) {
    buf_puts(mask, i ? ", " : "");
    TypeInfo *item = annotated_tuple_type(L, items[i], mask, constants, depth + 1);
    if (item)
      type->elts[i] = item;
    else if (annotation_is(L, items[i], "Constant", 0)) {
      item = type->elts[i] = type_new(L->ctx, VAL_CONST);
      item->dtype = DT_UNKNOWN; /* its value comes with each launch */
      item->const_tuple = annotation_is_tuple_constant(items[i]);
      buf_puts(mask, "True");
      *constants = true;
    } else {
      item = type->elts[i] = type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
      item->not_bfloat16 = true;
      buf_puts(mask, "False");
    }
  }
  buf_puts(mask, count == 1 ? ",)" : ")");
  return type;
}

static ParamKind kernel_param_kind_items(Lowerer *L, Node *arg, unsigned long long *array_items);

static ParamKind kernel_param_kind(Lowerer *L, Node *arg) {
  unsigned long long array_items = 0;
  return kernel_param_kind_items(L, arg, &array_items);
}

/* kernel_param_kind, and of a tuple of arrays and numbers which items are its arrays
 * (*array_items, bit k for item k; left 0 for other parameters). */
static ParamKind kernel_param_kind_items(Lowerer *L, Node *arg, unsigned long long *array_items) {
  Node *annotation = arg->u.arg.annotation;
  if (annotation_is(L, annotation, "Constant", 0))
    return PARAM_CONSTEXPR;
  if (annotation_is(L, annotation, "Array", 0) || annotation_is(L, annotation, "IndexedWithInt64", 0))
    return PARAM_ARRAY;
  if (L->function->role == ROLE_KERNEL && annotation && annotation->kind == N_NAME &&
      lower_dataclass_named(L, annotation->u.name.id))
    lower_error(L, arg, "a kernel parameter that is a dataclass instance ('%.*s: %.*s') is not converted: cuTile 1.7 "
                "launches one only under its development-only calling convention (DataclassConstraint); pass "
                "its fields as parameters", arg->u.arg.arg.len, arg->u.arg.arg.text, annotation->u.name.id.len,
                annotation->u.name.id.text);
  NodeList *body = &L->function->def->u.function_def.body;
  UseScan scan = {.L = L, .param = arg->u.arg.arg, .in_kernel = L->function->role == ROLE_KERNEL, .body = body};
  for (int i = 0; i < body->count; i++)
    scan_array_use(body->items[i], &scan);
  if (scan.is_array)
    return PARAM_ARRAY;
  if (scan.is_array_tuple && scan.in_kernel) {
    /* items read with numbers, some as arrays and others not: a tuple of arrays and numbers */
    if (!scan.list_use && !scan.other_array_item && (scan.used_items & ~scan.array_items)) {
      *array_items = scan.array_items;
      return PARAM_ARRAY_TUPLE;
    }
    return scan.list_use ? PARAM_ARRAY_LIST : PARAM_ARRAY_TUPLE;
  }
  /* indexed with constants, its items not arrays: a tuple of numbers (cuTile's tuple arguments) */
  if (scan.item_use && !scan.dynamic_item && scan.in_kernel)
    return PARAM_SCALAR_TUPLE;
  return PARAM_RUNTIME;
}

Node *new_arg(Lowerer *L, Str name, const char *annotation) {
  Node *arg = arena_alloc(&L->ctx->arena, sizeof(Node));
  arg->kind = N_ARG;
  arg->u.arg.arg = name;
  arg->u.arg.annotation = annotation ? T0(L, annotation) : NULL;
  arg->rewritten = true;
  return arg;
}

Str suffixed(Lowerer *L, Str name, const char *suffix) {
  char *text = arena_printf(&L->ctx->arena, "%.*s%s", name.len, name.text, suffix);
  return (Str){text, (int)strlen(text)};
}

/* Whether a value reaches a tile function as arrays do, its pointer, shape and strides: an array, or a
 * tuple of arrays (a kernel's tuple parameter, a display `(x, z)`), the tuples of those. */
static bool passes_as_arrays(const TypeInfo *type) {
  return type && (type->kind == VAL_ARRAY || (type->kind == VAL_TUPLE && type->array));
}

/* A tile function's parameter `name` given a tuple of arrays: items through pointers (`name[k]`,
 * `name_shape[k]`, `name_strides[k]`), each of the rank and dtype the caller's has. */
static TypeInfo *array_tuple_param_type(Lowerer *L, Str name, const TypeInfo *given) {
  TypeInfo *type = array_param_type(L, name, given->array->int64_index);
  type->kind = VAL_TUPLE;
  type->count = given->count;
  type->array->param = (Str){NULL, 0}; /* its items are no kernel parameters: no TMA flag */
  type->array_items = given->array_items;
  if (given->count > 0 && given->elts) {
    type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)given->count);
    for (int k = 0; k < given->count; k++) {
      const TypeInfo *item = given->elts[k];
      if (!item || item->kind != VAL_ARRAY) {
        type->elts[k] = (TypeInfo *)item;
        continue;
      }
      TypeInfo *array = tuple_array_item(L, type->array, new_int(L, k))->type;
      array->rank = item->rank;
      if (item->dtype != DT_UNKNOWN) {
        array->dtype = item->dtype;
        array->dtype_expr = NULL;
      }
      type->elts[k] = array;
    }
  }
  return type;
}

TypeInfo *array_param_type(Lowerer *L, Str name, bool int64_index) {
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  ArrayRef *array = arena_alloc(&L->ctx->arena, sizeof(ArrayRef));
  array->pointer = new_name(L, str_dup(L, name));
  array->shape = new_name(L, str_dup(L, suffixed(L, name, "_shape")));
  array->strides = new_name(L, str_dup(L, suffixed(L, name, "_strides")));
  array->param = name;
  array->int64_index = int64_index;
  type->array = array;
  type->dtype = DT_UNKNOWN;
  type->dtype_expr = T(L, "_1.dtype.element_ty", new_name(L, str_dup(L, name)));
  return type;
}

/* Rewrite a kernel's parameter list and bind the parameters' types. */
static void lower_kernel_params(Lowerer *L, Node *def) {
  Node *arguments = def->u.function_def.args;
  if (arguments->u.arguments.vararg || arguments->u.arguments.kwarg || arguments->u.arguments.kwonlyargs.count ||
      arguments->u.arguments.posonlyargs.count)
    lower_error(L, def, "kernel '%.*s': only plain positional parameters can be converted",
                def->u.function_def.name.len, def->u.function_def.name.text);
  NodeList params = {0};
  NodeList *original = &arguments->u.arguments.args;
  Function *fn = L->function;
  fn->param_count = original->count;
  fn->param_names = arena_alloc(&L->ctx->arena, sizeof(Str) * (size_t)(original->count + 1));
  fn->param_is_array = arena_alloc(&L->ctx->arena, sizeof(bool) * (size_t)(original->count + 1));
  fn->param_is_array_tuple = arena_alloc(&L->ctx->arena, sizeof(bool) * (size_t)(original->count + 1));
  fn->param_is_dtype = arena_alloc(&L->ctx->arena, sizeof(bool) * (size_t)(original->count + 1));
  fn->param_is_array_list = arena_alloc(&L->ctx->arena, sizeof(bool) * (size_t)(original->count + 1));
  fn->param_read_line = arena_alloc(&L->ctx->arena, sizeof(int) * (size_t)(original->count + 1));
  fn->param_pinned_rank = arena_alloc(&L->ctx->arena, sizeof(int *) * (size_t)(original->count + 1));
  fn->param_constant_items = arena_alloc(&L->ctx->arena, sizeof(const char *) * (size_t)(original->count + 1));
  fn->param_array_items = arena_alloc(&L->ctx->arena, sizeof(unsigned long long) * (size_t)(original->count + 1));
  for (int i = 0; i < original->count; i++) {
    Node *arg = original->items[i];
    Str name = arg->u.arg.arg;
    unsigned long long array_items = 0;
    ParamKind kind = kernel_param_kind_items(L, arg, &array_items);
    fn->param_names[i] = name;
    fn->param_array_items[i] = array_items;
    fn->param_is_array[i] = kind == PARAM_ARRAY;
    fn->param_is_array_tuple[i] = kind == PARAM_ARRAY_TUPLE;
    fn->param_is_array_list[i] = kind == PARAM_ARRAY_LIST;
    int first_param = params.count;
    switch (kind) {
    case PARAM_ARRAY_LIST: {
      /* a list of arrays (one dtype and rank): its first array (the dtype's
       * carrier), the device table of rows (pointer, shape..., strides...),
       * the run-time length, the rank (lower_memory.c: lower_list_item) */
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_table"), NULL));
      Str length = suffixed(L, name, "_len");
      node_list_push(&L->ctx->arena, &params, new_arg(L, length, NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_rank"), "tl.constexpr"));
      node_list_push(&L->ctx->arena, &L->runtime_scalars, new_name(L, str_dup(L, length)));
      TypeInfo *type = array_param_type(L, name, list_indexed_with_int64(L, arg->u.arg.annotation));
      type->kind = VAL_LIST;
      scope_bind(L, name, type);
      break;
    }
    case PARAM_ARRAY_TUPLE: {
      /* a tuple of arrays: the tuple of pointers, of shapes and of strides */
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_shape"), NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_strides"), NULL));
      TypeInfo *type = array_param_type(L, name, false);
      type->kind = VAL_TUPLE;
      type->count = -1;
      type->array->param = (Str){NULL, 0}; /* its elements are no kernel parameters: no TMA flag */
      type->array_items = array_items; /* numbers among its items: (x, 5) */
      scope_bind(L, name, type);
      break;
    }
    case PARAM_ARRAY: {
      bool int64_index = indexed_with_int64(L, arg->u.arg.annotation);
      const Node *annotation = annotated_call(L, arg->u.arg.annotation, "ArrayAnnotation", 0);
      bool static_shape = static_dims(L, keyword_value(annotation, "static_shape_dims"));
      bool static_strides = static_dims(L, keyword_value(annotation, "static_stride_dims"));
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, NULL));
      node_list_push(&L->ctx->arena, &params,
                     new_arg(L, suffixed(L, name, "_shape"), static_shape ? "tl.constexpr" : NULL));
      node_list_push(&L->ctx->arena, &params,
                     new_arg(L, suffixed(L, name, "_strides"), static_strides ? "tl.constexpr" : NULL));
      TypeInfo *type = array_param_type(L, name, int64_index);
      fn->param_pinned_rank[i] = &type->array->pinned_rank;
      type->array->static_shape = static_shape;
      type->array->static_strides = static_strides;
      scope_bind(L, name, type);
      break;
    }
    case PARAM_CONSTEXPR: {
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, "tl.constexpr"));
      if (annotation_is_dtype_constant(L, arg->u.arg.annotation, 0) ||
          untyped_dtype_constant(L, arg->u.arg.annotation, &fn->def->u.function_def.body, name)) {
        /* a dtype: the launcher passes it as Triton's (_tl_dtype) */
        fn->param_is_dtype[i] = true;
        TypeInfo *type = type_new(L->ctx, VAL_DTYPE);
        type->dtype = DT_UNKNOWN;
        type->dtype_expr = new_name(L, str_dup(L, name));
        scope_bind(L, name, type);
        break;
      }
      TypeInfo *type = type_new(L->ctx, VAL_CONST);
      type->rank = 0;
      type->dtype = DT_UNKNOWN; /* its value comes with each launch */
      type->const_tuple = annotation_is_tuple_constant(arg->u.arg.annotation);
      scope_bind(L, name, type);
      break;
    }
    case PARAM_SCALAR_TUPLE: {
      /* Triton takes a tuple argument as it is, its length and items' types part of the
       * compiled signature; its items are scalars as a kernel's scalar arguments are, but
       * for those annotated ct.Constant, which the launcher gives as tl.constexpr items */
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, NULL));
      Buf mask = {0};
      bool constants = false;
      TypeInfo *type = annotated_tuple_type(L, arg->u.arg.annotation, &mask, &constants, 0);
      if (constants)
        fn->param_constant_items[i] = arena_strndup(&L->ctx->arena, mask.data, mask.len);
      buf_free(&mask);
      if (!type) {
        type = type_new(L->ctx, VAL_TUPLE);
        type->count = -1;
        type->not_bfloat16 = true; /* marks its items as a kernel's scalars (lower_tuple_subscript) */
      }
      scope_bind(L, name, type);
      break;
    }
    case PARAM_RUNTIME:
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, NULL));
      TypeInfo *scalar = type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
      scalar->not_bfloat16 = true; /* cuTile passes Python numbers as int32, float32 or bool */
      if (annotation_asks_int64(L, arg->u.arg.annotation, "ScalarInt64", "ScalarAnnotation", "dtype")) {
        /* ct.ScalarInt64: an int64 scalar in cuTile, where Triton takes an int that fits as int32 */
        scalar->dtype = DT_INT64;
        node_list_push(&L->ctx->arena, &L->param_prologue,
                       template_stmts(L->ctx, arena_printf(&L->ctx->arena, "%.*s = tl.cast(%.*s, tl.int64)\n",
                                                           name.len, name.text, name.len, name.text), NULL, 0).items[0]);
      }
      scope_bind(L, name, scalar);
      node_list_push(&L->ctx->arena, &L->runtime_scalars, new_name(L, str_dup(L, name)));
      break;
    }
    params.items[first_param]->span = arg->span; /* its comment stays on the first of its parameters */
  }
  arguments->u.arguments.args = params;
  arguments->u.arguments.defaults = (NodeList){0};
  arguments->rewritten = true;
}

/* ------------------------------------------------------------ functions */

/* @triton.jit, or @triton.jit(do_not_specialize=[...]) for a kernel with
 * run-time scalars: Triton would turn an int argument equal to 1 into a
 * Python constant and widen large ones to int64; cuTile passes int32
 * (float32, bool) scalars, so these are kept as such. */
static Node *jit_decorator(Lowerer *L) {
  if (L->runtime_scalars.count == 0)
    return T0(L, L->needs_debug ? "triton.jit(debug=True)" : "triton.jit");
  Node *names = T0(L, "[]");
  for (int i = 0; i < L->runtime_scalars.count; i++) {
    Str id = L->runtime_scalars.items[i]->u.name.id;
    char *quoted = arena_printf(&L->ctx->arena, "\"%.*s\"", id.len, id.text);
    node_list_push(&L->ctx->arena, &names->u.list.elts, T0(L, quoted));
  }
  if (L->needs_debug) /* ct.assert_: tl.device_assert is compiled only with debug=True */
    return T(L, "triton.jit(do_not_specialize=_1, debug=True)", names);
  return T(L, "triton.jit(do_not_specialize=_1)", names);
}

typedef struct CtMention {
  Lowerer *L;
  Node *found;
} CtMention;

static void find_ct_mention(Node *node, void *data) {
  CtMention *scan = data;
  if (scan->found)
    return;
  if ((node->kind == N_NAME || node->kind == N_ATTRIBUTE) && resolve_ct_member(scan->L->conv, node)) {
    scan->found = node;
    return;
  }
  node_children(node, find_ct_mention, data);
}

/* Whether decorator `index` stands above a @ct.kernel / @ct.function one. */
static bool decorator_above_cutile(Lowerer *L, NodeList *decorators, int index) {
  for (int i = index + 1; i < decorators->count; i++) {
    Node *decorator = decorators->items[i];
    const char *member = resolve_ct_member(L->conv, decorator->kind == N_CALL ? decorator->u.call.func : decorator);
    if (member && (strcmp(member, "kernel") == 0 || strcmp(member, "function") == 0))
      return true;
  }
  return false;
}

/* The decorators of a kernel or tile function: @ct.kernel / @ct.function
 * becomes @triton.jit (always the last decorator, next to the def); the
 * decorators above it stay above it, in their order. Python applies them to
 * what @ct.kernel returned; they get the Triton JITFunction instead, which
 * the launcher and other tile code use under the same global name, so a
 * decorator that tags or registers the kernel keeps its effect (one that
 * wraps it gets no launch: Triton's kernel[grid] fails loudly, as
 * ct.launch would). A decorator below @ct.kernel changes the Python
 * function cuTile compiles, and one on a function without @ct.function
 * does the same: those stay located errors. */
static void replace_decorators(Lowerer *L, Node *def) {
  NodeList kept = {0};
  Node *jit = jit_decorator(L);
  NodeList *decorators = &def->u.function_def.decorator_list;
  bool cutile_seen = false;
  for (int i = 0; i < decorators->count; i++) {
    Node *decorator = decorators->items[i];
    Node *callee = decorator->kind == N_CALL ? decorator->u.call.func : decorator;
    const char *member = resolve_ct_member(L->conv, callee);
    if (member && (strcmp(member, "kernel") == 0 || strcmp(member, "function") == 0)) {
      jit->span = decorator->span; /* where it stood: comments above it stay above */
      cutile_seen = true;
      continue;
    }
    if (cutile_seen)
      lower_error(L, decorator, "a decorator below @ct.%s cannot be converted: it changes the Python function "
                  "cuTile compiles (put it above @ct.%s)", L->function->role == ROLE_KERNEL ? "kernel" : "function",
                  L->function->role == ROLE_KERNEL ? "kernel" : "function");
    if (!decorator_above_cutile(L, decorators, i))
      lower_error(L, decorator, "a decorator on tile function '%.*s' cannot be converted: without @ct.function "
                  "below it, it changes the Python function cuTile compiles", def->u.function_def.name.len,
                  def->u.function_def.name.text);
    CtMention mention = {L, NULL};
    find_ct_mention(decorator, &mention);
    const char *named = mention.found ? resolve_ct_member(L->conv, mention.found) : NULL;
    if (named && !op_starts_with_cutile_name(named))
      lower_error(L, mention.found, "ct.%s is not a name of cuda.tile (cutile2triton --list-ops lists them)",
                  named);
    if (mention.found)
      lower_error(L, mention.found, "a decorator of a kernel that uses cuda.tile names cannot be converted (it stays "
                  "host code, where cuda.tile is gone)");
    node_list_push(&L->ctx->arena, &kept, decorator);
  }
  if (!cutile_seen && decorators->count)
    jit->span = decorators->items[0]->span;
  else if (!cutile_seen) /* a plain function: the comments above its def stay above the decorator */
    jit->span = (Span){def->span.start, def->span.start};
  node_list_push(&L->ctx->arena, &kept, jit);
  def->u.function_def.decorator_list = kept;
  def->u.function_def.returns = NULL;
  def->rewritten = true;
}

/* ------------------------------------------- constexpr locals (Triton 3.6)
 *
 * Triton turns a plain local `F = BLOCK * 2` into a run-time scalar, so
 * `tl.reshape(t, (F,))` or `tl.arange(0, F)` is not valid Triton; only
 * `F: tl.constexpr = BLOCK * 2` keeps it a constant. A local gets the
 * annotation when it is assigned exactly once in the function (Triton
 * refuses to reassign a constexpr), outside any loop, and its value is
 * built of literals, constexpr parameters, module constants' twins and
 * locals promoted before it, by arithmetic, comparisons, `and`/`or`/`not`
 * and `x if c else y`: Triton folds such a value itself, the annotation
 * only keeps it a constant (which cuTile's constants are). */

typedef struct ConstexprLocals {
  Lowerer *L;
  Node *def;
  Str names[C2T_MAX_SCOPE_NAMES]; /* constexpr parameters and promoted locals */
  int count;
  Str assigned[C2T_MAX_SCOPE_NAMES]; /* each name assigned anywhere, with how often */
  int times[C2T_MAX_SCOPE_NAMES];
  int assigned_count;
  bool overflow;
  bool tuples; /* a tuple of constexpr values is one (for a local the lowering requires to be one) */
} ConstexprLocals;

static void count_target(ConstexprLocals *C, Node *target) {
  if (!target)
    return;
  if (target->kind == N_TUPLE || target->kind == N_LIST) {
    for (int i = 0; i < target->u.list.elts.count; i++)
      count_target(C, target->u.list.elts.items[i]);
    return;
  }
  if (target->kind == N_STARRED) {
    count_target(C, target->u.starred.value);
    return;
  }
  if (target->kind != N_NAME)
    return;
  for (int i = 0; i < C->assigned_count; i++)
    if (str_same(C->assigned[i], target->u.name.id)) {
      C->times[i]++;
      return;
    }
  if (C->assigned_count == C2T_MAX_SCOPE_NAMES) {
    C->overflow = true; /* reported by promote_constexpr_locals */
    return;
  }
  C->assigned[C->assigned_count] = target->u.name.id;
  C->times[C->assigned_count++] = 1;
}

static void count_assignments(Node *node, void *data) {
  ConstexprLocals *C = data;
  if (!node)
    return;
  switch (node->kind) {
  case N_ASSIGN:
    for (int i = 0; i < node->u.assign.targets.count; i++)
      count_target(C, node->u.assign.targets.items[i]);
    break;
  case N_AUG_ASSIGN: count_target(C, node->u.aug_assign.target); break;
  case N_ANN_ASSIGN: count_target(C, node->u.ann_assign.target); break;
  case N_FOR: count_target(C, node->u.for_.target); break;
  case N_NAMED_EXPR: count_target(C, node->u.named_expr.target); break;
  default: break;
  }
  node_children(node, count_assignments, data);
}

/* The names a tile function's body assigns (a parameter among them cannot be
 * a tl.constexpr: Triton refuses to reassign one); scanned once per lowering. */
static ConstexprLocals *body_assignments(Lowerer *L, Node *def) {
  ConstexprLocals *C = arena_alloc(&L->ctx->arena, sizeof(ConstexprLocals));
  memset(C, 0, sizeof *C);
  C->L = L;
  for (int i = 0; i < def->u.function_def.body.count; i++)
    count_assignments(def->u.function_def.body.items[i], C);
  return C;
}

static bool body_assigns(const ConstexprLocals *C, Str name) {
  if (C->overflow)
    return true;
  for (int i = 0; i < C->assigned_count; i++)
    if (str_same(C->assigned[i], name))
      return true;
  return false;
}

static bool is_constexpr_name(const ConstexprLocals *C, Str id) {
  for (int i = 0; i < C->count; i++)
    if (str_same(C->names[i], id))
      return true;
  return id.len > 3 && memcmp(id.text + id.len - 3, "_TL", 3) == 0 &&
         find_binding(C->L->conv, (Str){id.text, id.len - 3});
}

static int times_assigned(const ConstexprLocals *C, Str id) {
  for (int i = 0; i < C->assigned_count; i++)
    if (str_same(C->assigned[i], id))
      return C->times[i];
  return 0;
}

static bool constexpr_value(const ConstexprLocals *C, const Node *e);

/* An operand of a comparison Triton decides while it compiles: a constexpr, or a dtype
 * (`t.dtype`, `x.dtype.element_ty`, `tl.float16`: `t.dtype == tl.float16` is a constant there). */
static bool compared_constexpr(const ConstexprLocals *C, const Node *e) {
  if (e->kind == N_ATTRIBUTE)
    return str_eq(e->u.attribute.attr, "dtype") || str_eq(e->u.attribute.attr, "element_ty") ||
           (e->u.attribute.value->kind == N_NAME && str_eq(e->u.attribute.value->u.name.id, "tl")) ||
           constexpr_value(C, e);
  return constexpr_value(C, e);
}

static bool constexpr_value(const ConstexprLocals *C, const Node *e) {
  switch (e->kind) {
  case N_CONSTANT: return e->u.constant.kind != CONST_NONE && e->u.constant.kind != CONST_ELLIPSIS;
  case N_NAME: return is_constexpr_name(C, e->u.name.id);
  case N_SUBSCRIPT: {
    /* `t.shape[0]` of a tile: a constexpr in Triton (an array's dimensions are its
     * NAME_shape parameter, a descriptor's shape is its NAME_desc_N.shape, neither here) */
    const Node *v = e->u.subscript.value, *k = e->u.subscript.slice;
    if (k->kind == N_UNARY_OP && k->u.unary_op.op == AOP_USUB)
      k = k->u.unary_op.operand;
    if (v->kind == N_NAME && is_constexpr_name(C, v->u.name.id)) /* an item of a constexpr tuple: x_shape[-1],
                                                                    SIZES_TL[SZ] */
      return (k->kind == N_CONSTANT && k->u.constant.kind == CONST_NUMBER) || constexpr_value(C, k);
    if (v->kind == N_TUPLE) { /* `(64, 128)[MODE]`: a tuple of constexprs indexed by one */
      for (int i = 0; i < v->u.list.elts.count; i++)
        if (!constexpr_value(C, v->u.list.elts.items[i]))
          return false;
      return constexpr_value(C, k);
    }
    if (v->kind != N_ATTRIBUTE || !str_eq(v->u.attribute.attr, "shape") || v->u.attribute.value->kind != N_NAME ||
        k->kind != N_CONSTANT || k->u.constant.kind != CONST_NUMBER)
      return false;
    Str id = v->u.attribute.value->u.name.id;
    for (int i = 0; i + 5 <= id.len; i++)
      if (memcmp(id.text + i, "_desc", 5) == 0)
        return false;
    return true;
  }
  case N_BIN_OP:
    return e->u.bin_op.op != AOP_MATMULT && constexpr_value(C, e->u.bin_op.left) &&
           constexpr_value(C, e->u.bin_op.right);
  case N_UNARY_OP: return constexpr_value(C, e->u.unary_op.operand);
  case N_BOOL_OP:
    for (int i = 0; i < e->u.bool_op.values.count; i++)
      if (!constexpr_value(C, e->u.bool_op.values.items[i]))
        return false;
    return true;
  case N_COMPARE:
    if (!compared_constexpr(C, e->u.compare.left))
      return false;
    for (int i = 0; i < e->u.compare.count; i++)
      if (!compared_constexpr(C, e->u.compare.comparators[i]))
        return false;
    return true;
  case N_IF_EXP:
    return constexpr_value(C, e->u.if_exp.test) && constexpr_value(C, e->u.if_exp.body) &&
           constexpr_value(C, e->u.if_exp.orelse);
  case N_CALL: {
    /* min(BM, BN), max(...), abs(...) of constexprs: Triton evaluates them when it compiles */
    const Node *func = e->u.call.func;
    if (func->kind != N_NAME || e->u.call.keywords.count || !e->u.call.args.count ||
        !(str_eq(func->u.name.id, "min") || str_eq(func->u.name.id, "max") || str_eq(func->u.name.id, "abs")) ||
        is_constexpr_name(C, func->u.name.id) || times_assigned(C, func->u.name.id))
      return false;
    for (int i = 0; i < e->u.call.args.count; i++)
      if (!constexpr_value(C, e->u.call.args.items[i]))
        return false;
    return true;
  }
  case N_TUPLE:
    if (!C->tuples)
      return false;
    for (int i = 0; i < e->u.list.elts.count; i++)
      if (!constexpr_value(C, e->u.list.elts.items[i]))
        return false;
    return true;
  default: return false;
  }
}

static void add_constexpr_name(ConstexprLocals *C, Str id) {
  if (C->count < C2T_MAX_SCOPE_NAMES)
    C->names[C->count++] = id;
}


static bool annotated_constexpr(Lowerer *L, const Node *annotation) {
  if (!annotation)
    return false;
  Buf text = {0};
  expr_text(L->ctx, annotation, &text);
  bool yes = text.data && strcmp(text.data, "tl.constexpr") == 0;
  buf_free(&text);
  return yes;
}

/* Whether `target` (a name assigned once, not yet a constexpr) may become a
 * constexpr local holding `value`. */
static bool promotable(const ConstexprLocals *C, const Node *target, const Node *value) {
  return target->kind == N_NAME && times_assigned(C, target->u.name.id) == 1 &&
         !is_constexpr_name(C, target->u.name.id) && constexpr_value(C, value) && C->count < C2T_MAX_SCOPE_NAMES;
}

/* `g, d = t.shape[0], t.shape[1]`: each name its own constexpr local (one that cannot be,
 * its own plain assignment), in order
 * (a value naming a target is no constexpr yet, so none reads another); `a, b = S` of a
 * constexpr tuple S as `a, b = S[0], S[1]`, after a compile-time check of its length. */
static bool promote_unpacked(ConstexprLocals *C, NodeList *stmts, int at) {
  Node *stmt = stmts->items[at];
  Node *target = stmt->u.assign.targets.items[0], *value = stmt->u.assign.value;
  Node *whole = NULL; /* a constexpr tuple unpacked: its length checked when Triton compiles */
  if (target->kind == N_TUPLE && value->kind == N_NAME && is_constexpr_name(C, value->u.name.id) &&
      target->u.list.elts.count >= 2 && target->u.list.elts.count <= C2T_MAX_RANK * 2) {
    /* `a, b = S` of a constexpr tuple (a ct.Constant[tuple], a static shape): `a, b = S[0], S[1]` */
    Node *items = arena_alloc(&C->L->ctx->arena, sizeof(Node));
    *items = *target;
    items->u.list.elts = (NodeList){0};
    items->u.list.ctx = CTX_LOAD;
    for (int k = 0; k < target->u.list.elts.count; k++) {
      Node *item = arena_alloc(&C->L->ctx->arena, sizeof(Node));
      item->kind = N_SUBSCRIPT;
      item->span = value->span;
      item->u.subscript.value = node_copy_tree(&C->L->ctx->arena, value);
      item->u.subscript.slice = new_int(C->L, k);
      item->u.subscript.ctx = CTX_LOAD;
      node_list_push(&C->L->ctx->arena, &items->u.list.elts, item);
    }
    whole = value;
    value = items;
  }
  if (target->kind != N_TUPLE || value->kind != N_TUPLE || target->u.list.elts.count != value->u.list.elts.count ||
      target->u.list.elts.count < 2)
    return false;
  int count = target->u.list.elts.count;
  if (C->count + count > C2T_MAX_SCOPE_NAMES)
    return false;
  /* `m0, k0, _, _ = t.shape[0], t.shape[1], 32, 16`: the names that may be constexpr
     locals are, the others (`_`, assigned twice) plain assignments, in order; only where no
     value reads a target (`a, b = b, a` assigns both at once) and some name is promotable */
  bool promote[C2T_MAX_RANK * 2], any = false;
  if (count > C2T_MAX_RANK * 2)
    return false;
  for (int k = 0; k < count; k++) {
    Node *name = target->u.list.elts.items[k];
    if (name->kind != N_NAME)
      return false;
    promote[k] = promotable(C, name, value->u.list.elts.items[k]);
    any |= promote[k];
  }
  Str names[C2T_MAX_RANK * 2];
  for (int k = 0; k < count; k++)
    names[k] = target->u.list.elts.items[k]->u.name.id;
  if (!any || node_reads_any(value, names, count))
    return false;
  for (int k = count - 1; k >= 0; k--) { /* inserted in front of the statement's successors */
    Node *name = target->u.list.elts.items[k];
    NodeList made = template_stmts(C->L->ctx, promote[k] ? "_1: tl.constexpr = _2" : "_1 = _2",
                                   TEMPLATE_NODES(name, value->u.list.elts.items[k]));
    made.items[0]->span = stmt->span;
    made.items[0]->rewritten = true; /* written from the tree, not the source line it stands for */
    if (k == 0) {
      stmts->items[at] = made.items[0];
    } else {
      node_list_push(&C->L->ctx->arena, stmts, NULL);
      memmove(&stmts->items[at + 2], &stmts->items[at + 1], sizeof(Node *) * (size_t)(stmts->count - at - 2));
      stmts->items[at + 1] = made.items[0];
    }
  }
  for (int k = 0; k < count; k++)
    if (promote[k])
      add_constexpr_name(C, target->u.list.elts.items[k]->u.name.id);
  if (whole) { /* Python refuses to unpack a tuple of another length; so does Triton's compile then */
    char *check = arena_printf(&C->L->ctx->arena, "tl.static_assert(len(_1) == %d, \"cannot unpack into %d names\")\n",
                               count, count);
    NodeList made = template_stmts(C->L->ctx, check, TEMPLATE_NODES(whole));
    made.items[0]->span = stmt->span;
    made.items[0]->rewritten = true;
    node_list_push(&C->L->ctx->arena, stmts, NULL);
    memmove(&stmts->items[at + 1], &stmts->items[at], sizeof(Node *) * (size_t)(stmts->count - at - 1));
    stmts->items[at] = made.items[0];
  }
  return true;
}

/* The one statement of `block` (not nested) that assigns `name` a constexpr value (`name =
 * VALUE`, or `name: tl.constexpr = VALUE` already), else -1; into *count the statements
 * of the whole `if` chain (elif) that do. */
static int branch_assignment(ConstexprLocals *C, NodeList *block, Str name, int *count) {
  int found = -1;
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (stmt->kind == N_IF && i == block->count - 1 && block->count == 1 && constexpr_value(C, stmt->u.if_.test)) {
      /* an elif: assigned in each of its branches */
      int body = branch_assignment(C, &stmt->u.if_.body, name, count);
      int orelse = branch_assignment(C, &stmt->u.if_.orelse, name, count);
      return body >= 0 && orelse >= 0 ? i : -1;
    }
    Node *target = stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1 ? stmt->u.assign.targets.items[0]
                   : stmt->kind == N_ANN_ASSIGN                               ? stmt->u.ann_assign.target
                                                                              : NULL;
    if (!target || target->kind != N_NAME || !str_same(target->u.name.id, name))
      continue;
    Node *value = stmt->kind == N_ASSIGN ? stmt->u.assign.value : stmt->u.ann_assign.value;
    if (found >= 0 || !value || !constexpr_value(C, value))
      return -1;
    found = i;
    (*count)++;
  }
  return found;
}

/* `name: tl.constexpr = VALUE` in place of `name = VALUE` in each branch of the chain. */
static void annotate_branches(ConstexprLocals *C, NodeList *block, Str name) {
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (stmt->kind == N_IF && block->count == 1) {
      annotate_branches(C, &stmt->u.if_.body, name);
      annotate_branches(C, &stmt->u.if_.orelse, name);
      return;
    }
    if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1)
      continue;
    Node *target = stmt->u.assign.targets.items[0];
    if (target->kind != N_NAME || !str_same(target->u.name.id, name))
      continue;
    NodeList made = template_stmts(C->L->ctx, "_1: tl.constexpr = _2", TEMPLATE_NODES(target, stmt->u.assign.value));
    made.items[0]->span = stmt->span;
    block->items[i] = made.items[0];
  }
}

/* A name an `if` on a constexpr assigns once in each branch (and nowhere else), each time a
 * constexpr value (lower_if typed it a constant: static_choice_names): a constexpr local in
 * each branch, which Triton compiles one of. */
static void promote_static_choices(ConstexprLocals *C, Node *stmt) {
  Lowerer *L = C->L;
  if (!stmt->u.if_.orelse.count || !constexpr_value(C, stmt->u.if_.test))
    return;
  for (int k = 0; k < L->static_choice_count; k++) {
    if (L->static_choice_at[k] != stmt || is_constexpr_name(C, L->static_choice_names[k]))
      continue;
    Str name = L->static_choice_names[k];
    int count = 0;
    C->tuples = true;
    bool each = branch_assignment(C, &stmt->u.if_.body, name, &count) >= 0 &&
                branch_assignment(C, &stmt->u.if_.orelse, name, &count) >= 0;
    C->tuples = false;
    if (!each || count != times_assigned(C, name))
      continue;
    annotate_branches(C, &stmt->u.if_.body, name);
    annotate_branches(C, &stmt->u.if_.orelse, name);
    add_constexpr_name(C, name);
  }
}

/* Whether the lowering requires `name` to be a constexpr local (static_choice_names). */
static bool required_constexpr(const Lowerer *L, Str name) {
  for (int k = 0; k < L->static_choice_count; k++)
    if (str_same(L->static_choice_names[k], name))
      return true;
  return false;
}

bool require_constexpr_local(Lowerer *L, Str name, const Node *at) {
  /* once per name, and per `if` that chooses it (each if of an elif chain promotes its own) */
  for (int k = 0; k < L->static_choice_count; k++)
    if (str_same(L->static_choice_names[k], name) && (at->kind != N_IF || L->static_choice_at[k] == at))
      return true;
  if (L->static_choice_count == C2T_MAX_STATIC_CHOICES)
    return false;
  L->static_choice_names[L->static_choice_count] = name;
  L->static_choice_at[L->static_choice_count++] = at;
  return true;
}

/* Statements of one block, in order, and the branches of its `if`s (not loops). */
static void promote_in(ConstexprLocals *C, NodeList *stmts) {
  for (int i = 0; i < stmts->count; i++) {
    Node *stmt = stmts->items[i];
    if (stmt->kind == N_IF) {
      promote_in(C, &stmt->u.if_.body);
      promote_in(C, &stmt->u.if_.orelse);
      promote_static_choices(C, stmt);
      continue;
    }
    if (stmt->kind == N_ANN_ASSIGN && stmt->u.ann_assign.target->kind == N_NAME &&
        annotated_constexpr(C->L, stmt->u.ann_assign.annotation)) {
      add_constexpr_name(C, stmt->u.ann_assign.target->u.name.id);
      continue;
    }
    if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1)
      continue;
    if (promote_unpacked(C, stmts, i))
      continue;
    Node *target = stmt->u.assign.targets.items[0];
    if (target->kind != N_NAME || times_assigned(C, target->u.name.id) != 1 || is_constexpr_name(C, target->u.name.id) ||
        C->count == C2T_MAX_SCOPE_NAMES)
      continue;
    C->tuples = required_constexpr(C->L, target->u.name.id); /* (BM, BK) as a tile shape */
    bool constant = constexpr_value(C, stmt->u.assign.value);
    C->tuples = false;
    if (!constant)
      continue;
    NodeList made = template_stmts(C->L->ctx, "_1: tl.constexpr = _2", TEMPLATE_NODES(target, stmt->u.assign.value));
    made.items[0]->span = stmt->span;
    stmts->items[i] = made.items[0];
    add_constexpr_name(C, target->u.name.id);
  }
}

static void promote_constexpr_locals(Lowerer *L, Node *def) {
  ConstexprLocals *C = arena_alloc(&L->ctx->arena, sizeof(ConstexprLocals));
  memset(C, 0, sizeof *C);
  C->L = L;
  C->def = def;
  NodeList *params = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < params->count; i++) {
    Node *arg = params->items[i];
    count_target(C, &(Node){.kind = N_NAME, .u.name.id = arg->u.arg.arg});
    if (annotated_constexpr(L, arg->u.arg.annotation))
      add_constexpr_name(C, arg->u.arg.arg);
  }
  for (int i = 0; i < def->u.function_def.body.count; i++)
    count_assignments(def->u.function_def.body.items[i], C);
  if (C->overflow)
    lower_limit(L, def, "names assigned in one function", C2T_MAX_SCOPE_NAMES);
  promote_in(C, &def->u.function_def.body);
  for (int k = 0; k < L->static_choice_count; k++)
    if (!is_constexpr_name(C, L->static_choice_names[k])) {
      Str name = L->static_choice_names[k];
      bool parameter = false; /* one the body never assigns holds what its caller decided */
      for (int i = 0; i < params->count && !parameter; i++)
        parameter = str_same(params->items[i]->u.arg.arg, name);
      if (parameter && times_assigned(C, name) == 1)
        continue;
      if (L->static_choice_at[k]->kind == N_IF)
        lower_error(L, L->static_choice_at[k],
                    "'%.*s' is a constant chosen by this `if` on a value known at launch, which Triton "
                    "keeps a constant only when each branch assigns it once (and nothing else does), "
                    "from constants: assign it so, or use `x if cond else y`", name.len, name.text);
      lower_error(L, L->static_choice_at[k],
                  "'%.*s' sizes a tile here, which Triton allows only for a constant (or a tuple of them) "
                  "assigned once from literals and constexpr parameters (a tl.constexpr local): assign it "
                  "once so, or write the size in the call (shape=(BM, BN))", name.len, name.text);
    }
}

/* The @triton.jit decorator replace_decorators put last. */
static Node **jit_slot(Node *def) {
  NodeList *decorators = &def->u.function_def.decorator_list;
  return &decorators->items[decorators->count - 1];
}

/* A function as a value (`f = ct.exp`) is known only while converting: calls through it call
 * the function itself, a tile function given it is lowered for it. One left anywhere else in
 * the converted body (`a, f = t, ct.exp`, a dataclass field) would name what the converted
 * module does not have: a located error. */
static void find_function_value(Node *node, void *data) {
  Lowerer *L = data;
  if (!node)
    return;
  if (node->kind == N_CALL) { /* the callee is a function, as written or as converted */
    for (int i = 0; i < node->u.call.args.count; i++)
      find_function_value(node->u.call.args.items[i], L);
    for (int i = 0; i < node->u.call.keywords.count; i++)
      find_function_value(node->u.call.keywords.items[i], L);
    return;
  }
  if (node->type && node->type->kind == VAL_FUNCTION && node->kind != N_FUNCTION_DEF && node->kind != N_LAMBDA)
    lower_error(L, node, "%s here cannot be converted: a function is a value only while cuTile compiles (call it, "
                "bind it to a name, or give it to a tile function or to ct.reduce/ct.scan)",
                node->type->member ? node->type->member : "a function");
  node_children(node, find_function_value, L);
}

static void lower_function_body(Lowerer *L, Node *def) {
  NodeList prologue = L->param_prologue; /* a kernel's parameters made wider first (ct.ScalarInt64) */
  L->param_prologue = (NodeList){0};
  L->static_choice_count = 0;
  L->prologue = &prologue;
  L->loop_depth = 0; /* also after an attempt that stopped inside a loop */
  rename_loop_locals(L, def);
  lower_stmts(L, &def->u.function_def.body);
  for (int i = 0; i < def->u.function_def.body.count; i++)
    find_function_value(def->u.function_def.body.items[i], L);
  tf32_finish_version(L, &def->u.function_def.body, &prologue);
  drop_list_item_slots(L, &def->u.function_def.body);
  insert_memory_barriers(L, &def->u.function_def.body);
  promote_constexpr_locals(L, def);
  hoist_loop_descriptors(L, &def->u.function_def.body);
  if (prologue.count) {
    NodeList body = {0};
    NodeList *old = &def->u.function_def.body;
    int first = 0;
    /* the docstring stays first */
    if (old->count && old->items[0]->kind == N_EXPR_STMT && old->items[0]->u.expr_stmt.value->kind == N_STRING)
      node_list_push(&L->ctx->arena, &body, old->items[first++]);
    for (int i = 0; i < prologue.count; i++)
      node_list_push(&L->ctx->arena, &body, prologue.items[i]);
    for (int i = first; i < old->count; i++)
      node_list_push(&L->ctx->arena, &body, old->items[i]);
    def->u.function_def.body = body;
  }
  L->prologue = NULL;
}

static int assignment_count(const ConstexprLocals *C, Str name) {
  if (C->overflow)
    return 2;
  for (int i = 0; i < C->assigned_count; i++)
    if (str_same(C->assigned[i], name))
      return C->times[i];
  return 0;
}

/* `p.shape` of a tile parameter `p` that no statement assigns: p, else an empty Str. */
static Str tile_param_shape(Lowerer *L, const Node *e, const ConstexprLocals *assigned) {
  Str none = {0};
  if (!e || e->kind != N_ATTRIBUTE || !str_eq(e->u.attribute.attr, "shape") || e->u.attribute.value->kind != N_NAME)
    return none;
  Str param = e->u.attribute.value->u.name.id;
  Variable *var = scope_lookup(L, param);
  if (!var || !var->type || var->type->kind != VAL_TILE || var->type->rank < 0 || assignment_count(assigned, param))
    return none;
  return param;
}

static void add_split_alias(Lowerer *L, Node *target, Str param, int dim, const ConstexprLocals *assigned) {
  Variable *var = scope_lookup(L, param);
  if (target->kind != N_NAME || dim < 0 || dim >= var->type->rank || L->split_alias_count == C2T_MAX_SPLIT_NAMES ||
      assignment_count(assigned, target->u.name.id) != 1)
    return;
  L->split_alias_names[L->split_alias_count] = target->u.name.id;
  L->split_alias_params[L->split_alias_count] = param;
  L->split_alias_dims[L->split_alias_count++] = dim;
}

/* The locals of a tile function's body bound once, by a statement of the
 * body itself, to a dimension of a tile parameter: `N, D = t.shape`,
 * `N = t.shape[0]`. They are constexprs with one value in the whole body
 * (a shape), so a version split may test them as it tests parameters; the
 * condition then reads `t.shape[0]` (lower_version.c). */
static void find_split_aliases(Lowerer *L, Node *def, const ConstexprLocals *assigned) {
  NodeList *body = &def->u.function_def.body;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1)
      continue;
    Node *target = stmt->u.assign.targets.items[0], *value = stmt->u.assign.value;
    Str param = tile_param_shape(L, value, assigned);
    if (param.len && (target->kind == N_TUPLE || target->kind == N_LIST)) {
      if (target->u.list.elts.count == scope_lookup(L, param)->type->rank)
        for (int d = 0; d < target->u.list.elts.count; d++)
          add_split_alias(L, target->u.list.elts.items[d], param, d, assigned);
      continue;
    }
    if (value->kind == N_SUBSCRIPT && value->u.subscript.slice->kind == N_CONSTANT &&
        value->u.subscript.slice->u.constant.kind == CONST_NUMBER) {
      param = tile_param_shape(L, value->u.subscript.value, assigned);
      Str text = value->u.subscript.slice->u.constant.text;
      if (param.len && text.len == 1 && text.text[0] >= '0' && text.text[0] <= '9')
        add_split_alias(L, target, param, text.text[0] - '0', assigned);
    }
  }
}

/* The constexpr parameters of `def` (as written) that no statement assigns:
 * what a condition a version split tests may read (lower_version.c), and
 * for a tile function the locals that stand for its tile parameters' dimensions. */
static void find_split_names(Lowerer *L, Node *def, bool kernel) {
  L->split_name_count = 0;
  L->split_alias_count = 0;
  ConstexprLocals *assigned = NULL;
  NodeList *params = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < params->count; i++) {
    Node *arg = params->items[i];
    if (kernel && !annotation_is(L, arg->u.arg.annotation, "Constant", 0))
      continue;
    if (!kernel) {
      Variable *var = scope_lookup(L, arg->u.arg.arg); /* bound to its call's argument */
      if (!var || !var->type || var->type->kind != VAL_CONST)
        continue;
    }
    if (!assigned)
      assigned = body_assignments(L, def);
    if (body_assigns(assigned, arg->u.arg.arg) || L->split_name_count == C2T_MAX_SPLIT_NAMES)
      continue;
    L->split_names[L->split_name_count++] = arg->u.arg.arg;
  }
  if (!kernel)
    find_split_aliases(L, def, assigned ? assigned : body_assignments(L, def));
}

/* What a failed attempt at a version leaves in the Lowerer and the
 * diagnostics, put back before the versions are lowered. What the module
 * needs (runtime helpers, constexpr twins of module constants, libdevice,
 * the INTERPRETED flag) stays: a tile function lowered in the attempt stays
 * lowered, and the versions reuse it without asking for them again. */
typedef struct Attempt {
  size_t message_len;
  int error_count;
  int tma_array_count, tf32_array_count, reuse_pair_count, kmajor_staged_count;
  bool needs_allocator, needs_by_target, uses_tma;
  unsigned host_enums;
  int depth;                /* lower_error leaves the nesting where it failed */
  const Node *statement;
  int loop_depth;           /* ... and the loops and ifs */
  struct LoopTypes *loop_types;
  int run_time_ifs, constexpr_ifs;
} Attempt;

static Attempt attempt_begin(Lowerer *L) {
  Diag *diag = &L->ctx->diag;
  return (Attempt){diag->messages.len, diag->error_count, L->tma_array_count, L->tf32_array_count,
                   reuse_pair_count(L), kmajor_staged_count(L), L->needs_allocator, L->needs_by_target,
                   L->uses_tma, L->host_enums, L->depth, L->statement, L->loop_depth, L->loop_types,
                   L->run_time_ifs, L->constexpr_ifs};
}

static void attempt_undo(Lowerer *L, const Attempt *a) {
  Diag *diag = &L->ctx->diag;
  diag->messages.len = a->message_len;
  diag->error_count = a->error_count;
  L->tma_array_count = a->tma_array_count;
  L->tf32_array_count = a->tf32_array_count;
  reuse_keep_pairs(L, a->reuse_pair_count);
  kmajor_keep_staged(L, a->kmajor_staged_count);
  L->needs_allocator = a->needs_allocator;
  L->needs_by_target = a->needs_by_target;
  L->uses_tma = a->uses_tma;
  L->host_enums = a->host_enums;
  L->depth = a->depth;
  L->statement = a->statement;
  L->loop_depth = a->loop_depth;
  L->loop_types = a->loop_types;
  L->run_time_ifs = a->run_time_ifs;
  L->constexpr_ifs = a->constexpr_ifs;
}

/* A failed attempt that split on L->split_source becomes two versions: the
 * attempt is undone (past C2T_MAX_FUNCTION_VERSIONS a located error), and
 * each version gets the assumptions so far plus the condition, true in one
 * and false in the other. */
static void split_in_two(Lowerer *L, const Attempt *attempt, const Assumption *assumptions, int count,
                         Assumption **with, Assumption **without) {
  Node *source = L->split_source;
  int leaves = L->version_count ? L->version_count : 1;
  attempt_undo(L, attempt);
  if (leaves + 1 > C2T_MAX_FUNCTION_VERSIONS)
    lower_limit(L, source, "versions of one function, one per outcome of the constexpr conditions that give a "
                "name another type", C2T_MAX_FUNCTION_VERSIONS);
  L->version_count = leaves + 1; /* this version becomes two */
  for (int side = 0; side < 2; side++) {
    Assumption *made = arena_alloc(&L->ctx->arena, sizeof(Assumption) * (size_t)(count + 1));
    if (count)
      memcpy(made, assumptions, sizeof(Assumption) * (size_t)count);
    made[count] = (Assumption){source, side == 0};
    *(side == 0 ? with : without) = made;
  }
}

/* One version of a kernel: `def` (a copy of the kernel as written) lowered
 * under the assumptions. */
static void lower_kernel_version(Lowerer *L, Node *def, const Assumption *assumptions, int count) {
  L->function->def = def; /* what the parameters' uses are read from */
  L->scope = arena_alloc(&L->ctx->arena, sizeof(Scope));
  reuse_start_version(L);
  L->temp_counter = 0;
  L->descriptor_count = 0; /* descriptors are made in each version's own prologue */
  L->tf32_site_count = 0;   /* and its staged tfloat32 tiles (a failed attempt may leave some) */
  L->in_while_test = false;
  L->tf32_when_depth = 0; /* the constexpr branches around the statement (an error may leave some) */
  L->runtime_scalars = (NodeList){0};
  L->param_prologue = (NodeList){0};
  L->needs_debug = false;
  L->assumptions = assumptions;
  L->assumption_count = count;
  L->split_source = L->split_lowered = NULL;
  L->split_priority = 0;
  find_split_names(L, def, true);
  lower_kernel_params(L, def);
  replace_decorators(L, def);
  lower_function_body(L, def);
}

/* The kernel lowered under `assumptions`; when that fails after a constexpr
 * `if` gave a name another type per branch, the versions for each outcome of
 * that condition, joined (lower_version.c). `def` is lowered in place. */
static void lower_kernel_versions(Lowerer *L, Node *def, Node *pristine, const Assumption *assumptions, int count,
                                  bool *needs_debug) {
  Diag *diag = &L->ctx->diag;
  Attempt attempt = attempt_begin(L);
  jmp_buf outer;
  memcpy(&outer, &diag->on_error, sizeof outer);
  if (setjmp(diag->on_error) == 0) {
    lower_kernel_version(L, def, assumptions, count);
    memcpy(&diag->on_error, &outer, sizeof outer);
    *needs_debug = *needs_debug || L->needs_debug;
    return;
  }
  memcpy(&diag->on_error, &outer, sizeof outer);
  Node *split = L->split_lowered;
  if (!split)
    longjmp(diag->on_error, 1); /* the error stands */
  Assumption *with, *without;
  split_in_two(L, &attempt, assumptions, count, &with, &without);
  Node *other = node_copy_tree(&L->ctx->arena, pristine);
  *def = *node_copy_tree(&L->ctx->arena, pristine);
  lower_kernel_versions(L, def, pristine, with, count + 1, needs_debug);
  lower_kernel_versions(L, other, pristine, without, count + 1, needs_debug);
  join_versions(L, split, def, other);
}

/* `for a in ct.static_iter(xs):`, xs a kernel parameter not annotated ct.Constant (a tuple
 * given at launch: arrays, numbers): cuTile unrolls it over the tuple's items. Written
 * `for i in ct.static_iter(range(len(xs))):` / `a = xs[i]` / body, the form the parameter
 * scan and the lowering read (len() of a tuple parameter is Triton's, known when it compiles). */
static void static_iter_over_params_in(Lowerer *L, Node *def, NodeList *block, int depth) {
  if (depth > C2T_MAX_PARSE_DEPTH)
    return;
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (stmt->kind == N_IF) {
      static_iter_over_params_in(L, def, &stmt->u.if_.body, depth + 1);
      static_iter_over_params_in(L, def, &stmt->u.if_.orelse, depth + 1);
      continue;
    }
    if (stmt->kind == N_WHILE)
      static_iter_over_params_in(L, def, &stmt->u.while_.body, depth + 1);
    if (stmt->kind != N_FOR)
      continue;
    static_iter_over_params_in(L, def, &stmt->u.for_.body, depth + 1);
    Node *iter = stmt->u.for_.iter;
    if (iter->kind != N_CALL || !is_ct_member(L->conv, iter->u.call.func, "static_iter") ||
        iter->u.call.args.count != 1 || iter->u.call.keywords.count || iter->u.call.args.items[0]->kind != N_NAME ||
        stmt->u.for_.target->kind != N_NAME)
      continue;
    Str name = iter->u.call.args.items[0]->u.name.id;
    NodeList *params = &def->u.function_def.args->u.arguments.args;
    bool plain_param = false;
    for (int p = 0; p < params->count; p++)
      if (str_same(params->items[p]->u.arg.arg, name))
        plain_param = !annotation_is(L, params->items[p]->u.arg.annotation, "Constant", 0);
    if (!plain_param)
      continue;
    Str counter = fresh_local_name(L, def, (Str){"item", 4});
    Str target = stmt->u.for_.target->u.name.id;
    const char *text = arena_printf(&L->ctx->arena, "for %.*s in _1(range(len(%.*s))):\n    %.*s = %.*s[%.*s]\n",
                                    counter.len, counter.text, name.len, name.text, target.len, target.text, name.len,
                                    name.text, counter.len, counter.text);
    NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(iter->u.call.func));
    Node *loop = made.items[0];
    loop->span = stmt->span;
    for (int s = 0; s < stmt->u.for_.body.count; s++)
      node_list_push(&L->ctx->arena, &loop->u.for_.body, stmt->u.for_.body.items[s]);
    loop->u.for_.body.items[0]->span = stmt->u.for_.target->span;
    loop->rewritten = true;
    block->items[i] = loop;
  }
}

void lower_kernel(Lowerer *L, Function *fn) {
  L->function = fn;
  L->tma_array_count = 0;
  reuse_start_kernel(L);
  L->tma_reused = false;
  L->kernel_has_dot = false;
  L->kernel_pipelines_loops = false;
  L->kernel_store_choice = false;
  L->version_count = 0;
  L->host_descriptor_count = 0;
  Node *def = fn->def;
  int declared = def->u.function_def.args->u.arguments.args.count; /* its parameters as written */
  fn->param_needs_array = arena_alloc(&L->ctx->arena, sizeof(bool) * (size_t)(declared + 1));
  rename_launcher_clashing_params(L, def); /* a parameter `grid`: grid_1 */
  rename_generated_like_locals(L, def); /* a local x_shape beside an array x: x_shape_1 */
  static_iter_over_params_in(L, def, &def->u.function_def.body, 0);
  tf32_scan_kernel(L, def); /* on the source, before lowering rewrites it */
  kmajor_scan_kernel(L, def);
  find_split_names(L, def, true); /* the spread scan's constexpr tests (each version finds them again) */
  spread_scan_kernel(L, def);
  Node *pristine = node_copy_tree(&L->ctx->arena, def);
  bool needs_debug = false;
  lower_kernel_versions(L, def, pristine, NULL, 0, &needs_debug);
  fn->def = def;
  /* no launch candidate spreads a kernel that multiplies matrices (_launch_candidates): a
     persistent GEMM's programs are one per SM for its operands' sake; and with fixed launch
     options (--no-autotune) there is no candidate to spread the grid at all */
  if (L->kernel_has_dot || L->conv->no_autotune)
    L->kernel_spreads = false; /* _step_is_grid stays: stepping by the program count holds anyway */
  L->needs_debug = needs_debug;
  L->assumptions = NULL;
  L->assumption_count = 0;
  L->split_name_count = 0;
  L->split_alias_count = 0;
  if (L->needs_debug) {
    Node *with_debug = jit_decorator(L);
    with_debug->span = (*jit_slot(def))->span;
    *jit_slot(def) = with_debug;
  }
  /* one constexpr flag per array read or written through a descriptor:
   * the launcher checks the real tensor (TMA's alignment rules) */
  for (int i = 0; i < L->tma_array_count; i++) {
    Str flag = suffixed(L, L->tma_arrays[i], "_tma");
    node_list_push(&L->ctx->arena, &def->u.function_def.args->u.arguments.args, new_arg(L, flag, "tl.constexpr"));
  }
  /* and one per pair of arrays a load takes the other's tile of (lower_memory_reuse.c):
   * whether the launcher finds them one array */
  for (int i = 0; i < reuse_pair_count(L); i++) {
    Str first, second;
    const char *flag = reuse_pair(L, i, &first, &second);
    node_list_push(&L->ctx->arena, &def->u.function_def.args->u.arguments.args,
                   new_arg(L, (Str){flag, (int)strlen(flag)}, "tl.constexpr"));
  }
  take_host_descriptors(L, def); /* X_desc_N, made by the launcher */
  tf32_add_params(L, def); /* staged tfloat32 copies: P_tf32, P_tf32_staged */
  kmajor_add_params(L, def); /* K-major float8 copies: P_kmajor, P_kmajor_staged */
  /* the stages of its pipelined loops (lower_pipeline.c): each launch candidate's own */
  if (L->kernel_pipelines_loops) {
    Node *arguments = def->u.function_def.args;
    node_list_push(&L->ctx->arena, &arguments->u.arguments.args, new_arg(L, (Str){"_loop_stages", 12}, "tl.constexpr"));
    node_list_push(&L->ctx->arena, &arguments->u.arguments.defaults, T0(L, "1"));
  }
  /* the factor a launch candidate spreads the grid by (lower_spread.c): read only by the launch */
  if (L->kernel_spreads) {
    Node *arguments = def->u.function_def.args;
    node_list_push(&L->ctx->arena, &arguments->u.arguments.args, new_arg(L, (Str){"_grid_spread", 12}, "tl.constexpr"));
    node_list_push(&L->ctx->arena, &arguments->u.arguments.defaults, T0(L, "1"));
  }
  /* whether its loop, stepping by a parameter, may step by the program count (_grid_steps) */
  if (L->spread_step.len) {
    Node *arguments = def->u.function_def.args;
    node_list_push(&L->ctx->arena, &arguments->u.arguments.args, new_arg(L, (Str){"_step_is_grid", 13}, "tl.constexpr"));
    node_list_push(&L->ctx->arena, &arguments->u.arguments.defaults, T0(L, "False"));
  }
  /* and one for the kernel: whether descriptors are used at all (an autotune candidate
   * may take the pointer path, which is faster for tiles that go straight to registers).
   * By default only where a descriptor pays for itself: read or written in a loop, or
   * feeding a matrix product. Each program makes its descriptors (a write to global
   * memory and a fence); one used once costs more than it saves (H200: TileGym's RoPE,
   * a (32, 64) tile per program, 1.5-4x slower through descriptors than through
   * pointers, which took 0.77-1.04x real cuTile's time) */
  if (L->tma_array_count > 0) {
    Node *arguments = def->u.function_def.args;
    node_list_push(&L->ctx->arena, &arguments->u.arguments.args, new_arg(L, (Str){"_use_tma", 8}, "tl.constexpr"));
    node_list_push(&L->ctx->arena, &arguments->u.arguments.defaults,
                   T0(L, L->tma_reused || L->kernel_has_dot ? "True" : "False"));
  }
  /* and, in a kernel that multiplies matrices, whether its stores after the product take
   * their descriptors: an autotune candidate may store through pointers, which leaves the
   * shared memory of the output tile to the operands' pipeline (H200, a float32 GEMM at
   * 4096^3 with 128x128x64 tiles: 0.64 ms at 2 stages storing through pointers, 0.70 at
   * 3 stages through a descriptor, where 3 stages and pointer stores do not fit) */
  if (L->kernel_store_choice) {
    Node *arguments = def->u.function_def.args;
    node_list_push(&L->ctx->arena, &arguments->u.arguments.args, new_arg(L, (Str){"_store_tma", 10}, "tl.constexpr"));
    node_list_push(&L->ctx->arena, &arguments->u.arguments.defaults, T0(L, "True"));
  }
  check_added_params(L, pristine, &def->u.function_def.args->u.arguments.args);
  lower_launcher(L, fn);
  L->function = NULL;
  L->scope = NULL;
}

/* ----------------------------------------------------- tile functions */

/* The type two `return` statements of one function give together: what they agree on.
 * Known constants of different values (`return 1` and `return 0` under a constexpr `if`)
 * make a constant known only when Triton compiles; tiles keep the dtype and dimensions they
 * share; a number and a scalar tile, a scalar tile. Other mixes keep the first (the
 * function's callers see that type). */
static TypeInfo *joined_returns(Lowerer *L, Node *at, TypeInfo *a, TypeInfo *b) {
  if (!a || !b || a == b)
    return a ? a : b;
  if (a->kind == VAL_TUPLE || b->kind == VAL_TUPLE) { /* item by item; tuples of one length */
    if (a->kind != b->kind || a->count != b->count || !a->elts || !b->elts || a->array_items || b->array_items)
      lower_error(L, at, "this return gives %s where another return of the function gives %s: a tile function "
                  "returns tuples of one length", type_describe(L->ctx, b), type_describe(L->ctx, a));
    TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
    *type = *a;
    type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(a->count + 1));
    for (int i = 0; i < a->count; i++)
      type->elts[i] = joined_returns(L, at, a->elts[i], b->elts[i]);
    return type;
  }
  if (a->kind == VAL_CONST && b->kind == VAL_CONST) {
    bool same = a->dtype != DT_UNKNOWN && a->dtype == b->dtype && a->is_float == b->is_float &&
                (a->is_float ? a->float_value == b->float_value : a->int_value == b->int_value);
    if (same || (a->dtype == DT_UNKNOWN && b->dtype == DT_UNKNOWN && !a->const_tuple && !b->const_tuple))
      return a;
    return either_constant(L, a, b);
  }
  if ((a->kind == VAL_CONST && b->kind == VAL_TILE && b->rank == 0) ||
      (b->kind == VAL_CONST && a->kind == VAL_TILE && a->rank == 0))
    return type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
  if (a->kind == VAL_TILE && b->kind == VAL_TILE && a->rank == b->rank)
    return either_tile(L, a, b);
  return a;
}

void note_return_type(Lowerer *L, Node *at, TypeInfo *type) {
  L->return_type = L->return_type ? joined_returns(L, at, L->return_type, type) : type;
}

/* A tuple of integer constants (known or not: (BM, BK)), which a tile function takes as a
 * tl.constexpr parameter, so that its items may size tiles there. */
static bool constant_tuple(const TypeInfo *type) {
  if (type->kind != VAL_TUPLE || type->count < 1 || !type->elts || type->array_items)
    return false;
  for (int k = 0; k < type->count; k++)
    if (!type->elts[k] || type->elts[k]->kind != VAL_CONST || type->elts[k]->is_float)
      return false;
  return true;
}

typedef struct SavedState {
  Function *function;
  Scope *scope;
  NodeList *prologue;
  NodeList *pending;
  TypeInfo *return_type;
  int temp_counter;
  /* the caller's names that must become constexpr locals (a callee's lowering starts afresh) */
  Str static_choice_names[C2T_MAX_STATIC_CHOICES];
  const Node *static_choice_at[C2T_MAX_STATIC_CHOICES];
  int static_choice_count;
  int loop_depth; /* the caller's loops and ifs, which the callee's body is not in */
  struct LoopTypes *loop_types;
  int run_time_ifs, constexpr_ifs;
  bool returned_at_run_time;
} SavedState;

static void save_state(Lowerer *L, SavedState *saved) {
  *saved = (SavedState){L->function, L->scope, L->prologue, L->pending, L->return_type, L->temp_counter, {{0}}, {0},
                        L->static_choice_count, L->loop_depth, L->loop_types, L->run_time_ifs,
                        L->constexpr_ifs, L->returned_at_run_time};
  memcpy(saved->static_choice_names, L->static_choice_names, sizeof saved->static_choice_names);
  memcpy(saved->static_choice_at, L->static_choice_at, sizeof saved->static_choice_at);
}

static void restore_state(Lowerer *L, const SavedState *saved) {
  L->function = saved->function;
  L->scope = saved->scope;
  L->prologue = saved->prologue;
  L->pending = saved->pending;
  L->return_type = saved->return_type;
  L->temp_counter = saved->temp_counter;
  memcpy(L->static_choice_names, saved->static_choice_names, sizeof L->static_choice_names);
  memcpy(L->static_choice_at, saved->static_choice_at, sizeof L->static_choice_at);
  L->static_choice_count = saved->static_choice_count;
  L->loop_depth = saved->loop_depth;
  L->loop_types = saved->loop_types;
  L->run_time_ifs = saved->run_time_ifs;
  L->constexpr_ifs = saved->constexpr_ifs;
  L->returned_at_run_time = saved->returned_at_run_time;
}

/* Tuples nested in one argument of a tile function call (each level is
 * retyped for the callee; deeper ones used to keep the caller's view). */
#define LOWER_MAX_ARG_TUPLE_DEPTH 8

/* A tile function's view of an argument's type: the caller's dimension
 * expressions name the caller's constants, so numeric sizes stay and the
 * others become `param.shape[d]` (a constexpr in Triton, right for every
 * call since Triton specializes the function per argument shape). */
static TypeInfo *param_type_from_argument(Lowerer *L, const TypeInfo *given, Node *value, bool fold, int depth) {
  TypeInfo *type = type_new(L->ctx, given->kind);
  *type = *given;
  for (int d = 0; d < C2T_MAX_RANK; d++) {
    type->dims[d] = type->shape[d] >= 0 ? new_int(L, type->shape[d]) : NULL;
    if (type->kind == VAL_TILE && d < type->rank && type->shape[d] < 0 && value) {
      type->dims[d] = T(L, "_1.shape[_2]", value, new_int(L, d));
      type->dims[d]->type = type_new(L->ctx, VAL_CONST);
      type->dims[d]->type->rank = 0;
    }
  }
  if (type->dtype == DT_UNKNOWN)
    type->dtype_expr = NULL;
  type->value_expr = NULL; /* the caller's expression (`index[i_k]`): the parameter is the callee's name */
  if (type->kind == VAL_CONST && !fold)
    type->dtype = DT_UNKNOWN; /* the value of the first call must not be folded into the function */
  if (type->kind == VAL_TUPLE && type->count > 0 && depth == LOWER_MAX_ARG_TUPLE_DEPTH)
    lower_limit(L, value, "levels of nested tuples in an argument of a tile function", LOWER_MAX_ARG_TUPLE_DEPTH);
  if (type->kind == VAL_TUPLE && type->count > 0) {
    type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)type->count);
    for (int i = 0; i < type->count; i++)
      type->elts[i] = given->elts[i] ? param_type_from_argument(L, given->elts[i],
                                                                value ? T(L, "_1[_2]", value, new_int(L, i)) : NULL,
                                                                fold, depth + 1)
                                     : NULL;
  }
  return type;
}

/* A tile function's positional-only and keyword-only parameters (`def f(t, /, s, *, bias=1.0)`,
 * which cuTile takes) made plain ones, in their order: calls are bound to the signature here
 * and pass every argument by position, so the converted function needs no other kind. The
 * defaults, which may no longer trail, go one per parameter in kw_defaults (NULL: none). */
static void flatten_parameters(Lowerer *L, Node *def) {
  Node *arguments = def->u.function_def.args;
  NodeList *posonly = &arguments->u.arguments.posonlyargs, *args = &arguments->u.arguments.args;
  NodeList *kwonly = &arguments->u.arguments.kwonlyargs;
  if (!posonly->count && !kwonly->count)
    return;
  NodeList params = {0}, defaults = {0};
  int positional = posonly->count + args->count;
  int first_default = positional - arguments->u.arguments.defaults.count;
  for (int i = 0; i < positional; i++) {
    node_list_push(&L->ctx->arena, &params, i < posonly->count ? posonly->items[i] : args->items[i - posonly->count]);
    node_list_push(&L->ctx->arena, &defaults,
                   i >= first_default ? arguments->u.arguments.defaults.items[i - first_default] : NULL);
  }
  for (int i = 0; i < kwonly->count; i++) {
    node_list_push(&L->ctx->arena, &params, kwonly->items[i]);
    node_list_push(&L->ctx->arena, &defaults,
                   i < arguments->u.arguments.kw_defaults.count ? arguments->u.arguments.kw_defaults.items[i] : NULL);
  }
  *args = params;
  *posonly = *kwonly = arguments->u.arguments.defaults = (NodeList){0};
  arguments->u.arguments.kw_defaults = defaults;
}

/* The parameters and defaults of a tile function as written, before its
 * lowering rewrites them (calls bind their arguments to these). */
static void capture_signature(Lowerer *L, Function *fn) {
  if (fn->signature_names)
    return;
  Node *def = fn->def;
  Node *arguments = def->u.function_def.args;
  bool special = arguments->u.arguments.kwonlyargs.count || arguments->u.arguments.posonlyargs.count;
  if (arguments->u.arguments.vararg || arguments->u.arguments.kwarg || (special && fn->host_too))
    lower_error(L, def, "tile function '%.*s': *args and **kwargs parameters cannot be converted, nor keyword-only "
                "or positional-only ones of a function host code calls too", def->u.function_def.name.len,
                def->u.function_def.name.text);
  flatten_parameters(L, def);
  NodeList *params = &arguments->u.arguments.args;
  NodeList *defaults = &arguments->u.arguments.defaults;
  NodeList *each = &arguments->u.arguments.kw_defaults; /* one per parameter once flattened */
  bool flattened = each->count == params->count && !arguments->u.arguments.kwonlyargs.count;
  fn->signature_count = params->count;
  fn->signature_names = arena_alloc(&L->ctx->arena, sizeof(Str) * (size_t)(params->count + 1));
  fn->signature_defaults = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)(params->count + 1));
  int first_default = params->count - defaults->count;
  for (int i = 0; i < params->count; i++) {
    fn->signature_names[i] = params->items[i]->u.arg.arg;
    if (flattened)
      fn->signature_defaults[i] = each->items[i];
    else
      fn->signature_defaults[i] = i >= first_default ? defaults->items[i - first_default] : NULL;
  }
}

/* A default the Triton function can keep as written: a literal number,
 * bool, None or string (other modules' calls may leave it out). */
static bool literal_default(const Node *value) {
  if (value->kind == N_UNARY_OP && value->u.unary_op.operand->kind == N_CONSTANT)
    value = value->u.unary_op.operand;
  return value->kind == N_CONSTANT || value->kind == N_STRING;
}

/* The defaults the converted function keeps: the literal ones at the end
 * of its parameter list, none on a parameter that became an array (three
 * parameters). Calls in this module pass every argument. */
static NodeList kept_defaults(Lowerer *L, Function *fn) {
  NodeList kept = {0};
  int first = fn->signature_count;
  while (first > 0 && fn->signature_defaults[first - 1] && literal_default(fn->signature_defaults[first - 1]) &&
         !fn->param_is_array[first - 1])
    first--;
  for (int i = first; i < fn->signature_count; i++)
    node_list_push(&L->ctx->arena, &kept, fn->signature_defaults[i]);
  return kept;
}

/* The tile function as written, under the name its def has now (a
 * specialization's pristine copy is its original's, named as that one). */
static Node *fresh_def(Lowerer *L, Function *fn) {
  Node *def = node_copy_tree(&L->ctx->arena, fn->pristine);
  def->u.function_def.name = fn->def->u.function_def.name;
  return def;
}

/* One version of a tile function: `def` (fn->def, a copy of it as written)
 * lowered with the kinds of its call's arguments (arg_types may be NULL:
 * nothing known, arrays found by their use) under the assumptions; its
 * return type in fn->return_type. */
static void lower_device_version(Lowerer *L, Function *fn, TypeInfo **arg_types, int arg_count,
                                 const Assumption *assumptions, int assumption_count) {
  SavedState saved;
  save_state(L, &saved);
  fn->lowering = true;
  L->function = fn;
  L->loop_depth = 0;
  L->loop_types = NULL;
  L->run_time_ifs = 0;
  L->constexpr_ifs = 0;
  L->returned_at_run_time = false;
  L->scope = arena_alloc(&L->ctx->arena, sizeof(Scope));
  L->return_type = NULL;
  L->temp_counter = 0;
  L->pending = NULL;
  L->runtime_scalars = (NodeList){0};
  L->assumptions = assumptions;
  L->assumption_count = assumption_count;
  L->split_source = L->split_lowered = NULL;
  L->split_priority = 0;
  Node *def = fn->def;
  rename_generated_like_locals(L, def); /* a local x_shape beside an array x: x_shape_1 */
  Node *arguments = def->u.function_def.args;
  NodeList *original = &arguments->u.arguments.args;
  fn->param_count = original->count;
  fn->param_is_array = arena_alloc(&L->ctx->arena, sizeof(bool) * (size_t)(original->count + 1));
  fn->param_types = arg_types ? arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(original->count + 1)) : NULL;
  NodeList params = {0};
  ConstexprLocals *assigned = NULL; /* made when a parameter is given a constant */
  for (int i = 0; i < original->count; i++) {
    Node *arg = original->items[i];
    Str name = arg->u.arg.arg;
    TypeInfo *given = i < arg_count && arg_types ? arg_types[i] : NULL;
    bool is_array = given ? passes_as_arrays(given) : kernel_param_kind(L, arg) == PARAM_ARRAY;
    fn->param_is_array[i] = is_array;
    int first_param = params.count;
    if (is_array && given && given->kind == VAL_TUPLE) { /* a tuple of arrays: the tuples of pointers, shapes and strides */
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_shape"), NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_strides"), NULL));
      scope_bind(L, name, array_tuple_param_type(L, name, given));
    } else if (is_array) {
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_shape"), NULL));
      node_list_push(&L->ctx->arena, &params, new_arg(L, suffixed(L, name, "_strides"), NULL));
      TypeInfo *type = array_param_type(L, name, given && given->array && given->array->int64_index);
      if (given) {
        type->rank = given->rank;
        type->dtype = given->dtype;
      }
      if (given && given->array) { /* a static shape or strides: constexpr tuples in this function too */
        type->array->static_shape = given->array->static_shape;
        type->array->static_strides = given->array->static_strides;
      }
      if (given && given->tiled) /* a tiled view: its tile shape and steps as constexpr parameters */
        type->tiled = view_parameters(L, name, given->tiled, &params);
      type->raw_memory = given && given->raw_memory; /* its raw memory: the same pieces */
      scope_bind(L, name, type);
    } else if (annotation_is(L, arg->u.arg.annotation, "Constant", 0)) {
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, "tl.constexpr"));
      /* its value is not folded: other calls may pass other values (Triton
       * specializes the function for each) */
      TypeInfo *any = NULL; /* lowered for any arguments: a tuple where annotated so (ct.Constant[tuple[int, ...]]) */
      if (!given) {
        any = type_new(L->ctx, VAL_CONST);
        any->dtype = DT_UNKNOWN; /* its value comes with each call */
        any->const_tuple = annotation_is_tuple_constant(arg->u.arg.annotation);
      }
      scope_bind(L, name, given ? param_type_from_argument(L, given, new_name(L, str_dup(L, name)), fn->fold_constants, 0)
                                : any);
    } else {
      /* a constant argument (a kernel's constexpr, a literal) stays one in the
       * tile function, as in cuTile: `n: tl.constexpr`, so that locals computed
       * from it are constexprs too (shapes, `x if FLAG else None`) */
      bool constant_given = given && (given->kind == VAL_CONST || constant_tuple(given));
      if (constant_given && !assigned)
        assigned = body_assignments(L, def);
      bool constant = constant_given && !body_assigns(assigned, name);
      node_list_push(&L->ctx->arena, &params, new_arg(L, name, constant ? "tl.constexpr" : NULL));
      scope_bind(L, name, given ? param_type_from_argument(L, given, new_name(L, str_dup(L, name)), fn->fold_constants, 0)
                                : type_tile(L->ctx, DT_UNKNOWN, -1, NULL));
    }
    if (fn->param_types && given)
      fn->param_types[i] = scope_lookup(L, name)->type; /* what the body was lowered with */
    params.items[first_param]->span = arg->span; /* its comment stays on the first of its parameters */
  }
  /* the parameters bound to constants (tl.constexpr in Triton) that no
   * statement assigns: what a split of this function may test */
  find_split_names(L, def, false);
  fn->alias_count = L->split_alias_count;
  fn->alias_names = arena_alloc(&L->ctx->arena, sizeof(Str) * (size_t)(fn->alias_count + 1));
  fn->alias_params = arena_alloc(&L->ctx->arena, sizeof(Str) * (size_t)(fn->alias_count + 1));
  fn->alias_dims = arena_alloc(&L->ctx->arena, sizeof(int) * (size_t)(fn->alias_count + 1));
  memcpy(fn->alias_names, L->split_alias_names, sizeof(Str) * (size_t)fn->alias_count);
  memcpy(fn->alias_params, L->split_alias_params, sizeof(Str) * (size_t)fn->alias_count);
  memcpy(fn->alias_dims, L->split_alias_dims, sizeof(int) * (size_t)fn->alias_count);
  check_added_params(L, def, &params); /* def: its body not lowered yet */
  arguments->u.arguments.args = params;
  arguments->u.arguments.defaults = kept_defaults(L, fn);
  arguments->u.arguments.kw_defaults = (NodeList){0}; /* flatten_parameters' */
  arguments->rewritten = true;
  bool caller_needs_debug = L->needs_debug;
  L->needs_debug = false;
  replace_decorators(L, def);
  /* its descriptors are made in its own prologue (the caller's stay the caller's) */
  int descriptor_count = L->descriptor_count;
  const char *descriptor_keys[C2T_MAX_DESCRIPTORS], *descriptor_names[C2T_MAX_DESCRIPTORS];
  memcpy(descriptor_keys, L->descriptor_keys, sizeof descriptor_keys);
  memcpy(descriptor_names, L->descriptor_names, sizeof descriptor_names);
  L->descriptor_count = 0;
  lower_function_body(L, def);
  L->descriptor_count = descriptor_count;
  memcpy(L->descriptor_keys, descriptor_keys, sizeof descriptor_keys);
  memcpy(L->descriptor_names, descriptor_names, sizeof descriptor_names);
  fn->needs_debug = fn->needs_debug || L->needs_debug;
  L->needs_debug = caller_needs_debug || fn->needs_debug;
  fn->return_type = L->return_type ? L->return_type : type_new(L->ctx, VAL_NONE);
  fn->lowering = false;
  fn->lowered = true;
  restore_state(L, &saved);
}

/* Whether a returned value is (or holds) a tile of a rank not known here. */
static bool rank_unknown(const TypeInfo *type, int depth) {
  if (!type || depth > 8)
    return false;
  if (type->kind == VAL_TILE)
    return type->rank < 0;
  if (type->kind == VAL_TUPLE && type->elts)
    for (int i = 0; i < type->count; i++)
      if (rank_unknown(type->elts[i], depth + 1))
        return true;
  return false;
}

/* The tile function lowered under `assumptions`; when that fails after a
 * constexpr `if` on its own constant parameters gave a name another type
 * per branch (`q_pe = None` then `if BLOCK_R > 0: q_pe = ct.load(...)`),
 * the versions for each outcome of that condition, joined under one `if`
 * that Triton decides when it compiles the function for a call, as cuTile
 * compiles the function once per call signature (lower_version.c). fn->def
 * is lowered in place. */
static void lower_device_versions(Lowerer *L, Function *fn, TypeInfo **arg_types, int arg_count,
                                  const Assumption *assumptions, int count) {
  Diag *diag = &L->ctx->diag;
  Attempt attempt = attempt_begin(L);
  SavedState saved;
  save_state(L, &saved);
  bool needs_debug = L->needs_debug;
  jmp_buf outer;
  memcpy(&outer, &diag->on_error, sizeof outer);
  if (setjmp(diag->on_error) == 0) {
    lower_device_version(L, fn, arg_types, arg_count, assumptions, count);
    memcpy(&diag->on_error, &outer, sizeof outer);
    /* lowered, but a constexpr condition left the rank of what it returns
     * unknown, which no caller can use: the versions, each of which knows
     * it (and callers that can tell which one they call) */
    bool split_anyway = L->split_lowered && L->split_priority >= 3 && rank_unknown(fn->return_type, 0) &&
                        (L->version_count ? L->version_count : 1) < C2T_MAX_FUNCTION_VERSIONS;
    if (!split_anyway) {
      if (!fn->versions) /* at most one per version the limit allows */
        fn->versions = arena_alloc(&L->ctx->arena, sizeof(FunctionVersion) * C2T_MAX_FUNCTION_VERSIONS);
      if (fn->version_count < C2T_MAX_FUNCTION_VERSIONS)
        fn->versions[fn->version_count++] = (FunctionVersion){assumptions, count, fn->return_type};
      return;
    }
  }
  memcpy(&diag->on_error, &outer, sizeof outer);
  fn->lowering = false;
  restore_state(L, &saved);
  L->needs_debug = needs_debug;
  Node *source = L->split_source, *split = L->split_lowered;
  if (!split)
    longjmp(diag->on_error, 1); /* the error stands */
  Assumption *with, *without;
  split_in_two(L, &attempt, assumptions, count, &with, &without);
  Node *def = fn->def; /* the node the module holds: the joined function */
  Node *other = fresh_def(L, fn);
  *def = *fresh_def(L, fn);
  lower_device_versions(L, fn, arg_types, arg_count, with, count + 1);
  TypeInfo *with_type = fn->return_type;
  fn->def = other; /* what kernel_param_kind reads the uses of the parameters from */
  lower_device_versions(L, fn, arg_types, arg_count, without, count + 1);
  fn->def = def;
  fn->return_type = joined_return_type(L, source, with_type, fn->return_type);
  join_versions(L, split, def, other);
}

/* What a caller's lowering keeps of its own versions while a tile function
 * it calls is lowered (the callee's splits are about its own parameters). */
typedef struct VersionState {
  const Assumption *assumptions;
  int assumption_count;
  Str split_names[C2T_MAX_SPLIT_NAMES];
  int split_name_count;
  Str split_alias_names[C2T_MAX_SPLIT_NAMES], split_alias_params[C2T_MAX_SPLIT_NAMES];
  int split_alias_dims[C2T_MAX_SPLIT_NAMES];
  int split_alias_count;
  Node *split_source, *split_lowered;
  int split_priority, version_count;
} VersionState;

static void save_versions(Lowerer *L, VersionState *state) {
  state->assumptions = L->assumptions;
  state->assumption_count = L->assumption_count;
  memcpy(state->split_names, L->split_names, sizeof(Str) * (size_t)L->split_name_count);
  state->split_name_count = L->split_name_count;
  memcpy(state->split_alias_names, L->split_alias_names, sizeof(Str) * (size_t)L->split_alias_count);
  memcpy(state->split_alias_params, L->split_alias_params, sizeof(Str) * (size_t)L->split_alias_count);
  memcpy(state->split_alias_dims, L->split_alias_dims, sizeof(int) * (size_t)L->split_alias_count);
  state->split_alias_count = L->split_alias_count;
  state->split_source = L->split_source;
  state->split_lowered = L->split_lowered;
  state->split_priority = L->split_priority;
  state->version_count = L->version_count;
}

static void restore_versions(Lowerer *L, const VersionState *state) {
  L->assumptions = state->assumptions;
  L->assumption_count = state->assumption_count;
  memcpy(L->split_names, state->split_names, sizeof(Str) * (size_t)state->split_name_count);
  L->split_name_count = state->split_name_count;
  memcpy(L->split_alias_names, state->split_alias_names, sizeof(Str) * (size_t)state->split_alias_count);
  memcpy(L->split_alias_params, state->split_alias_params, sizeof(Str) * (size_t)state->split_alias_count);
  memcpy(L->split_alias_dims, state->split_alias_dims, sizeof(int) * (size_t)state->split_alias_count);
  L->split_alias_count = state->split_alias_count;
  L->split_source = state->split_source;
  L->split_lowered = state->split_lowered;
  L->split_priority = state->split_priority;
  L->version_count = state->version_count;
}

/* Remove `stmt` from the list holding it (module level, or an if/try block
 * there); false if not found. */
static bool remove_stmt(NodeList *body, const Node *stmt) {
  for (int i = 0; i < body->count; i++) {
    Node *item = body->items[i];
    if (item == stmt) {
      memmove(&body->items[i], &body->items[i + 1], sizeof(Node *) * (size_t)(body->count - i - 1));
      body->count--;
      return true;
    }
    if (item->kind == N_IF && (remove_stmt(&item->u.if_.body, stmt) || remove_stmt(&item->u.if_.orelse, stmt)))
      return true;
    if (item->kind == N_TRY && (remove_stmt(&item->u.try_.body, stmt) || remove_stmt(&item->u.try_.orelse, stmt)))
      return true;
  }
  return false;
}

/* A tile function whose lowering failed goes back to what it was before:
 * a module-level function to its def as written (a kernel lowered again, a
 * version per outcome of a constexpr condition, lowers it afresh), a
 * specialization (NAME_2, ...), made for the failed call, out of the module
 * and of its original's list (a version that does not call it would leave
 * it behind as cuTile code). */
static void discard_lowering(Lowerer *L, Function *fn) {
  Converter *conv = L->conv;
  fn->lowering = false;
  fn->lowered = false;
  fn->version_count = 0;
  if (fn >= conv->functions && fn < conv->functions + conv->function_count) {
    *fn->def = *fresh_def(L, fn);
    return;
  }
  for (int i = 0; i < conv->function_count; i++)
    for (Function *prev = &conv->functions[i]; prev; prev = prev->next_variant)
      if (prev->next_variant == fn) {
        prev->next_variant = fn->next_variant;
        remove_stmt(&conv->module->u.module.body, fn->def);
        return;
      }
}

/* lower_device_versions for a call (arg_types: its arguments' types) or
 * none; an error in it discards the function's lowering (discard_lowering)
 * and leaves the Lowerer as it was before the call. */
/* The TMA state of the function that calls a tile function being lowered. */
typedef struct CallerTma {
  Str arrays[C2T_MAX_TMA_ARRAYS];
  int count;
  bool device_tma;
  int loop_depth;
  bool tma_reused;
} CallerTma;

static CallerTma *save_caller_tma(Lowerer *L, bool for_a_call) {
  CallerTma *saved = arena_alloc(&L->ctx->arena, sizeof(CallerTma));
  memcpy(saved->arrays, L->tma_arrays, sizeof saved->arrays);
  saved->count = L->tma_array_count;
  saved->device_tma = L->device_tma;
  saved->loop_depth = L->loop_depth;
  saved->tma_reused = L->tma_reused;
  L->tma_array_count = 0;
  L->tma_reused = false;
  L->loop_depth = 0; /* its own loops count in its body */
  L->device_tma = for_a_call; /* one lowered for no call cannot be given flags */
  return saved;
}

static void restore_caller_tma(Lowerer *L, const CallerTma *saved) {
  memcpy(L->tma_arrays, saved->arrays, sizeof saved->arrays);
  L->tma_array_count = saved->count;
  L->device_tma = saved->device_tma;
  L->loop_depth = saved->loop_depth;
  L->tma_reused = saved->tma_reused;
}

/* A tile function that used descriptors on some array parameters (in any of
 * its versions) takes their flags, `NAME_tma: tl.constexpr` in that order,
 * then `_use_tma: tl.constexpr`, after the parameters as written; each call
 * passes its own (lower_device_call). */
static void add_tma_params(Lowerer *L, Function *fn) {
  fn->tma_param_count = L->tma_array_count;
  if (!L->tma_array_count)
    return;
  fn->tma_params = arena_alloc(&L->ctx->arena, sizeof(Str) * (size_t)L->tma_array_count);
  NodeList *args = &fn->def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < L->tma_array_count; i++) {
    fn->tma_params[i] = L->tma_arrays[i];
    node_list_push(&L->ctx->arena, args, new_arg(L, suffixed(L, L->tma_arrays[i], "_tma"), "tl.constexpr"));
  }
  node_list_push(&L->ctx->arena, args, new_arg(L, (Str){"_use_tma", 8}, "tl.constexpr"));
}

static void lower_device_function(Lowerer *L, Function *fn, TypeInfo **arg_types, int arg_count) {
  SavedState saved;
  save_state(L, &saved);
  bool needs_debug = L->needs_debug;
  NodeList runtime_scalars = L->runtime_scalars;
  /* a caller's assumptions and splits are about its own parameters: the
   * tile function, lowered once per call signature for every version of
   * its callers, has its own */
  VersionState *caller = arena_alloc(&L->ctx->arena, sizeof(VersionState));
  save_versions(L, caller);
  L->assumptions = NULL;
  L->assumption_count = L->split_name_count = L->version_count = 0;
  capture_signature(L, fn); /* before the copy: it flattens the parameters */
  if (!fn->pristine)
    fn->pristine = node_copy_tree(&L->ctx->arena, fn->def);
  fn->needs_debug = false;
  fn->version_count = 0;
  Node *module_def = fn->def; /* a second version is lowered in a copy of its own */
  /* the arrays it uses through descriptors are its own parameters (the caller's list waits) */
  CallerTma *tma = save_caller_tma(L, arg_types != NULL);
  struct KmajorState *kmajor = kmajor_enter_function(L, fn->pristine); /* its K-major copies, the caller's wait */
  struct ReuseState *reuse = reuse_enter_function(L);                  /* ... and the loads it follows */
  int host_first = L->host_descriptor_count; /* the caller's candidates stay the caller's */
  bool caller_dot = L->kernel_has_dot;
  L->kernel_has_dot = false; /* whether it multiplies matrices itself */
  Diag *diag = &L->ctx->diag;
  jmp_buf outer;
  memcpy(&outer, &diag->on_error, sizeof outer);
  if (setjmp(diag->on_error) != 0) {
    memcpy(&diag->on_error, &outer, sizeof outer);
    L->host_descriptor_count = host_first;
    L->kernel_has_dot = caller_dot;
    fn->def = module_def;
    discard_lowering(L, fn);
    restore_state(L, &saved);
    restore_caller_tma(L, tma);
    L->kmajor = kmajor; /* the caller's again */
    reuse_leave_function(L, reuse);
    L->needs_debug = needs_debug;
    L->runtime_scalars = runtime_scalars;
    restore_versions(L, caller);
    longjmp(diag->on_error, 1);
  }
  lower_device_versions(L, fn, arg_types, arg_count, NULL, 0);
  add_tma_params(L, fn);
  /* after the flags: X_desc_N, given by a call or None, in a function that multiplies matrices */
  take_device_descriptors(L, fn, host_first, L->kernel_has_dot);
  kmajor_leave_function(L, fn, kmajor); /* after the descriptors: P_kmajor, P_kmajor_staged */
  reuse_leave_function(L, reuse);
  /* a parameter as written named as one added since (V_tma, V_kmajor beside an array V) */
  check_added_params(L, fn->pristine, &fn->def->u.function_def.args->u.arguments.args);
  fn->multiplies = L->kernel_has_dot;
  L->kernel_has_dot = L->kernel_has_dot || caller_dot;
  fn->tma_reused = L->tma_reused;
  restore_caller_tma(L, tma);
  memcpy(&diag->on_error, &outer, sizeof outer);
  L->runtime_scalars = runtime_scalars; /* the kernel's (its decorator is made again at its end) */
  restore_versions(L, caller);
}

/* lower_device_function, where a located error ends it: true if it finished; else false, its
 * report left in the diagnostics and `attempt` what attempt_undo takes back. */
static bool device_lowering_attempt(Lowerer *L, Function *fn, TypeInfo **types, int count, Attempt *attempt) {
  Diag *diag = &L->ctx->diag;
  *attempt = attempt_begin(L);
  jmp_buf outer;
  memcpy(&outer, &diag->on_error, sizeof outer);
  if (setjmp(diag->on_error) == 0) {
    lower_device_function(L, fn, types, count);
    memcpy(&diag->on_error, &outer, sizeof outer);
    return true;
  }
  memcpy(&diag->on_error, &outer, sizeof outer);
  return false;
}

/* Which parameters of tile function `fn`, not lowered yet, are used as
 * arrays (per parameter, in `is_array`); whether any is. */
static bool takes_array(Lowerer *L, Function *fn, bool *is_array) {
  NodeList *params = &fn->def->u.function_def.args->u.arguments.args;
  bool any = false;
  for (int i = 0; i < params->count; i++) {
    is_array[i] = callee_param_is_array(L, fn, i, 0);
    any = any || is_array[i];
  }
  return any;
}

/* The first line of the report made since `from` in the diagnostics,
 * without its file name ("12:5: error: C2T402: ..."). */
static const char *report_line(Lowerer *L, size_t from) {
  Buf *messages = &L->ctx->diag.messages;
  const char *text = messages->data && messages->len > from ? messages->data + from : "";
  size_t len = messages->len > from ? messages->len - from : 0;
  const char *end = memchr(text, '\n', len);
  len = end ? (size_t)(end - text) : len;
  const char *name = L->ctx->diag.source ? L->ctx->diag.source->name : NULL;
  size_t skip = name ? strlen(name) : 0;
  if (name && len > skip && strncmp(text, name, skip) == 0 && text[skip] == ':') {
    text += skip + 1;
    len -= skip + 1;
  }
  return arena_strndup(&L->ctx->arena, text, len);
}

/* `text` escaped for a Python string literal between double quotes. */
static const char *python_escaped(Lowerer *L, const char *text) {
  Buf *out = lower_buf(L);
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      buf_putc(out, '\\');
    buf_putc(out, (unsigned char)*p < 0x20 ? ' ' : *p);
  }
  char *result = arena_strndup(&L->ctx->arena, out->data ? out->data : "", out->len);
  buf_free(out);
  return result;
}

/* A tile function no kernel of this module calls is lowered for any
 * argument types, for the kernels of other modules that import it. One that
 * takes an array can be called by none of them: a converted module refuses
 * to pass an array to an imported tile function (lower_call.c). cuTile
 * compiles a function only for a call, so where such a function cannot be
 * lowered without one (its body needs a rank, a dtype, that only a call
 * gives), nothing converted could reach it, and it becomes
 *
 *     @triton.jit
 *     def NAME(params as written):
 *         """its docstring"""
 *         tl.static_assert(False, "cutile2triton: NAME was not converted: ...")
 *
 * which names the reason if Triton is ever asked to compile it. So does one
 * whose tile parameters need a call for their rank or dtype (a report that
 * something "is not known at conversion": a bitonic sort helper no kernel
 * calls, reshaping its tile argument); the kernels of other modules that
 * import it convert copies of it (resolve_siblings.c). Any other function
 * keeps its located error. */
typedef struct ParamCall {
  const NodeList *params;
  Str found; /* the first parameter the body calls (`f(t)`): a function only a call gives */
} ParamCall;

static void find_param_call(Node *node, void *data) {
  ParamCall *scan = data;
  if (!node || scan->found.len)
    return;
  if (node->kind == N_CALL && node->u.call.func->kind == N_NAME)
    for (int i = 0; i < scan->params->count; i++)
      if (str_same(scan->params->items[i]->u.arg.arg, node->u.call.func->u.name.id))
        scan->found = node->u.call.func->u.name.id;
  node_children(node, find_param_call, data);
}

/* The statement a report ("12:5: error: ...") points into, and whether it reads a parameter: what
 * the body does with a value only a call types (`ret += (original[i],)` of a tuple parameter, which
 * lowered for any arguments is a tile of unknown rank); of a loop or `if`, its header. */
typedef struct ErrorSite {
  int line, col; /* col 1-based, as reported */
  const NodeList *params;
  Node *statement; /* the innermost statement holding the site */
  bool reads_param;
} ErrorSite;

static void find_param_read(Node *node, void *data) {
  ErrorSite *site = data;
  if (!node || site->reads_param)
    return;
  for (int i = 0; node->kind == N_NAME && i < site->params->count; i++)
    site->reads_param |= str_same(site->params->items[i]->u.arg.arg, node->u.name.id);
  node_children(node, find_param_read, data);
}

static bool holds_site(const Node *node, const ErrorSite *site) {
  Pos a = node->span.start, b = node->span.end;
  bool after_start = a.line < site->line || (a.line == site->line && a.col + 1 <= site->col);
  bool before_end = b.line > site->line || (b.line == site->line && b.col + 1 > site->col);
  return a.line > 0 && after_start && before_end;
}

static void find_error_statement(Node *node, void *data) {
  ErrorSite *site = data;
  if (!node || !holds_site(node, site))
    return;
  if (node->kind >= N_RETURN && node->kind <= N_CONTINUE)
    site->statement = node;
  node_children(node, find_error_statement, data);
}

static bool error_reads_param(Function *fn, const char *report) {
  ErrorSite site = {0, 0, &fn->def->u.function_def.args->u.arguments.args, NULL, false};
  if (sscanf(report, "%d:%d:", &site.line, &site.col) != 2)
    return false;
  NodeList *body = &fn->def->u.function_def.body;
  for (int i = 0; i < body->count; i++)
    find_error_statement(body->items[i], &site);
  Node *at = site.statement;
  if (!at)
    return false;
  if (at->kind == N_FOR) {
    find_param_read(at->u.for_.iter, &site);
    find_param_read(at->u.for_.target, &site);
  } else if (at->kind == N_IF) {
    find_param_read(at->u.if_.test, &site);
  } else if (at->kind == N_WHILE) {
    find_param_read(at->u.while_.test, &site);
  } else if (at->kind != N_WITH && at->kind != N_TRY && at->kind != N_MATCH) {
    find_param_read(at, &site);
  }
  return site.reads_param;
}

void lower_unused_device_function(Lowerer *L, Function *fn) {
  NodeList *written = &fn->def->u.function_def.args->u.arguments.args;
  bool *is_array = arena_alloc(&L->ctx->arena, sizeof(bool) * (size_t)(written->count + 1));
  const volatile bool arrays = takes_array(L, fn, is_array); /* read after a longjmp */
  if (!arrays && !written->count) {
    lower_device_function(L, fn, NULL, 0);
    return;
  }
  Attempt attempt;
  if (device_lowering_attempt(L, fn, NULL, 0, &attempt))
    return;
  const char *report = report_line(L, attempt.message_len);
  attempt_undo(L, &attempt);
  ParamCall called = {written, {0}};
  for (int i = 0; i < fn->def->u.function_def.body.count; i++)
    find_param_call(fn->def->u.function_def.body.items[i], &called);
  bool untyped = !arrays && !called.found.len && !strstr(report, "not known at conversion") &&
                 error_reads_param(fn, report) && !lower_unknown_call(L, &fn->def->u.function_def.body);
  if (!arrays && !called.found.len && !strstr(report, "not known at conversion") && !untyped) {
    lower_device_function(L, fn, NULL, 0); /* the same located error, reported again */
    return;
  }
  Node *def = fn->def; /* as written again (discard_lowering) */
  Str name = def->u.function_def.name;
  Function *caller = L->function;
  L->function = fn;
  L->runtime_scalars = (NodeList){0};
  bool needs_debug = L->needs_debug;
  L->needs_debug = false;
  replace_decorators(L, def);
  L->needs_debug = needs_debug;
  L->function = caller;
  NodeList *params = &def->u.function_def.args->u.arguments.args;
  NodeList stub_params = {0};
  for (int i = 0; i < params->count; i++) {
    Node *param = new_arg(L, params->items[i]->u.arg.arg, NULL);
    param->span = params->items[i]->span;
    node_list_push(&L->ctx->arena, &stub_params, param);
  }
  def->u.function_def.args->u.arguments.args = stub_params;
  def->u.function_def.args->u.arguments.defaults = (NodeList){0};
  def->u.function_def.args->rewritten = true;
  const char *why = arrays            ? "it takes an array, which no other module's converted code can pass to it"
                    : called.found.len ? arena_printf(&L->ctx->arena, "it calls its parameter '%.*s', a function that "
                                                      "only a call gives", called.found.len, called.found.text)
                    : untyped ? "what its parameters are (tiles, tuples, constants) comes only with a call"
                              : "its tiles' ranks or dtypes come only with a call";
  const char *text = arena_printf(&L->ctx->arena,
                                  "tl.static_assert(False, \"cutile2triton: %.*s was not converted: no kernel of its "
                                  "module calls it, and %s; lowered without a call, it stops at %s\")\n",
                                  name.len, name.text, why, python_escaped(L, report));
  NodeList body = {0};
  NodeList *old = &def->u.function_def.body;
  if (old->count && old->items[0]->kind == N_EXPR_STMT && old->items[0]->u.expr_stmt.value->kind == N_STRING)
    node_list_push(&L->ctx->arena, &body, old->items[0]);
  NodeList made = template_stmts(L->ctx, text, NULL, 0);
  made.items[0]->span = old->count > body.count ? old->items[body.count]->span : def->span;
  made.items[0]->rewritten = true;
  node_list_push(&L->ctx->arena, &body, made.items[0]);
  def->u.function_def.body = body;
  fn->lowered = true;
  fn->stub_reason = report;
  fn->param_types = NULL;
  fn->param_count = params->count;
  fn->param_is_array = is_array; /* for the scans of the functions that call it */
  fn->return_type = type_new(L->ctx, VAL_NONE);
}

/* A fresh copy of a Name node (array pieces are used in many places). */
static Node *copy_node(Lowerer *L, Node *node) {
  Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
  *copy = *node;
  return copy;
}

/* ----------------------------------------------- calls of tile functions */

/* A tile function is lowered once per call signature: what its body depends
 * on must be the same at every call that shares a lowering: the kind, rank,
 * the dtype and sizes the body knew, constant values it folded. NULL when
 * this call's types fit `fn`'s lowering; else why not (and *which). */
static const char *param_mismatch(Lowerer *L, Function *fn, TypeInfo **types, int count, int *which) {
  if (!fn->param_types)
    return NULL; /* lowered without a call: for any argument types */
  for (int i = 0; i < count && i < fn->param_count; i++) {
    const TypeInfo *seen = fn->param_types[i], *now = types[i];
    bool now_array = passes_as_arrays(now);
    const char *why = NULL;
    *which = i;
    if (now_array != fn->param_is_array[i])
      return "a different kind of value";
    if (!seen || !now)
      continue;
    if (seen->kind != now->kind)
      why = "a different kind of value";
    else if (seen->kind == VAL_TUPLE && now_array &&
             (seen->count != now->count || seen->array_items != now->array_items))
      why = "another tuple of arrays";
    else if (seen->kind == VAL_TILE && seen->rank >= 0 && seen->rank != now->rank)
      why = "a different rank";
    else if (seen->kind == VAL_ARRAY && seen->rank >= 0 && now->rank >= 0 && seen->rank != now->rank)
      why = "a different rank"; /* an array's rank may be learnt from its first use */
    else if (seen->kind == VAL_ARRAY && !views_alike(L, seen->tiled, now->tiled))
      why = "a different tiled view";
    else if (seen->kind == VAL_ARRAY && seen->raw_memory != now->raw_memory)
      why = "an array in one call and raw memory (x.get_raw_memory()) in the other";
    else if (seen->kind == VAL_ARRAY && seen->array && now->array &&
             (seen->array->static_shape != now->array->static_shape ||
              seen->array->static_strides != now->array->static_strides))
      why = "an array with a static shape or strides (ct.ArrayAnnotation) in one call only";
    else if (seen->kind == VAL_TILE && seen->dtype != DT_UNKNOWN && seen->dtype != now->dtype)
      why = "a different dtype";
    else if (seen->kind == VAL_DTYPE && seen->dtype != now->dtype)
      why = "a different dtype"; /* ct.float16 and ct.bfloat16: the body was typed for one */
    else if (seen->kind == VAL_ENUM && (!seen->member || !now->member || strcmp(seen->member, now->member) != 0))
      why = "a different constant value"; /* PaddingMode.ZERO and NEG_INF: the body was lowered for one */
    else if (seen->kind == VAL_FUNCTION && (!seen->member || !now->member || strcmp(seen->member, now->member) != 0))
      why = "a different function"; /* apply(ct.exp, t) and apply(ct.sin, t): the body calls one */
    else if (seen->kind == VAL_ARRAY && seen->dtype != DT_UNKNOWN && now->dtype != DT_UNKNOWN &&
             seen->dtype != now->dtype)
      why = "a different dtype";
    else if (seen->kind == VAL_CONST && seen->dtype != DT_UNKNOWN &&
             (now->dtype == DT_UNKNOWN || now->is_float != seen->is_float ||
              (seen->is_float ? now->float_value != seen->float_value : now->int_value != seen->int_value)))
      why = "a different constant value";
    for (int d = 0; !why && seen->kind == VAL_TILE && d < seen->rank && d < C2T_MAX_RANK; d++)
      if (seen->shape[d] >= 0 && now->shape[d] != seen->shape[d])
        why = "a different tile shape";
    if (why)
      return why;
  }
  return NULL;
}

/* Specializations of one tile function (NAME_2 ... NAME_N). */
#define C2T_MAX_SPECIALIZATIONS 64

/* A name for specialization `number` that no module name or local of the
 * caller takes. */
static Str variant_name(Lowerer *L, Str base, int *number) {
  for (;; (*number)++) {
    char *text = arena_printf(&L->ctx->arena, "%.*s_%d", base.len, base.text, *number);
    Str name = {text, (int)strlen(text)};
    if (!find_function(L->conv, name) && !find_binding(L->conv, name) && !scope_lookup(L, name))
      return name;
  }
}

/* Insert `added` after `anchor` in the list holding it (module level, or an
 * if/try block there); false if not found. */
static bool insert_after(Lowerer *L, NodeList *body, Node *anchor, Node *added) {
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt == anchor) {
      node_list_push(&L->ctx->arena, body, NULL);
      memmove(&body->items[i + 2], &body->items[i + 1], sizeof(Node *) * (size_t)(body->count - i - 2));
      body->items[i + 1] = added;
      return true;
    }
    if (stmt->kind == N_IF && (insert_after(L, &stmt->u.if_.body, anchor, added) ||
                               insert_after(L, &stmt->u.if_.orelse, anchor, added)))
      return true;
    if (stmt->kind == N_TRY && (insert_after(L, &stmt->u.try_.body, anchor, added) ||
                                insert_after(L, &stmt->u.try_.orelse, anchor, added)))
      return true;
  }
  return false;
}

/* The lowering of `fn` this call uses: one whose argument types fit, else a
 * new specialization, a copy of the function as written under a new name,
 * placed after the last one (Triton then compiles each for its own types,
 * as cuTile compiles the function per call signature). */
static Function *specialization_for(Lowerer *L, Node *call, Function *fn, TypeInfo **types, int count) {
  int which = 0, number = 2, made = 1;
  capture_signature(L, fn); /* not lowered itself when host code uses it too */
  if (!fn->pristine)
    fn->pristine = node_copy_tree(&L->ctx->arena, fn->def);
  Function *last = fn;
  const char *why = NULL;
  /* a function host code uses too stays as written; tile code calls copies */
  for (Function *variant = fn->host_too && !fn->def->u.function_def.decorator_list.count ? fn->next_variant : fn; variant;
       variant = variant->next_variant, made++) {
    const char *mismatch = param_mismatch(L, variant, types, count, &which);
    if (!mismatch && variant->lowering) /* the same arguments again: it would never end */
      lower_error(L, call, "recursive tile functions cannot be converted where a call passes the same argument "
                  "types and constants as the one it is in (cuTile unrolls a recursion whose constant arguments "
                  "change at each call)");
    if (!mismatch)
      return variant;
    if (!why)
      why = mismatch;
    last = variant;
  }
  Str fname = fn->def->u.function_def.name;
  if (made > C2T_MAX_SPECIALIZATIONS)
    lower_limit(L, call->u.call.args.count > which ? call->u.call.args.items[which] : call,
                "specializations of one tile function (calls with different argument types)", C2T_MAX_SPECIALIZATIONS);
  Function *variant = arena_alloc(&L->ctx->arena, sizeof(Function));
  variant->role = ROLE_DEVICE;
  variant->signature_names = fn->signature_names;
  variant->signature_defaults = fn->signature_defaults;
  variant->signature_count = fn->signature_count;
  variant->pristine = fn->pristine;
  variant->fold_constants = fn->fold_constants;
  variant->def = node_copy_tree(&L->ctx->arena, fn->pristine);
  number = made;
  variant->def->u.function_def.name = variant_name(L, fname, &number);
  if (!insert_after(L, &L->conv->module->u.module.body, last->def, variant->def))
    lower_error(L, call, "internal error: tile function '%.*s' not found at module level", fname.len, fname.text);
  last->next_variant = variant;
  return variant;
}

static int param_index(Function *fn, Str name) {
  NodeList *params = &fn->def->u.function_def.args->u.arguments.args;
  /* the rewritten parameter list: arrays expanded to three names */
  int original = 0;
  for (int i = 0; i < params->count && original < fn->param_count; i++) {
    if (str_same(params->items[i]->u.arg.arg, name))
      return original;
    if (fn->param_is_array[original])
      i += 2;
    original++;
  }
  return -1;
}

/* The type of a parameter path `p`, `p[k]` at this call; NULL if not one. */
static TypeInfo *argument_type_of(Function *fn, Node *path, Node **args, TypeInfo **types, int count, Node **arg) {
  if (path->kind == N_NAME) {
    int i = param_index(fn, path->u.name.id);
    if (i < 0 || i >= count)
      return NULL;
    if (arg)
      *arg = args[i];
    return types[i];
  }
  if (path->kind == N_SUBSCRIPT && path->u.subscript.slice->kind == N_CONSTANT) {
    TypeInfo *tuple = argument_type_of(fn, path->u.subscript.value, args, types, count, NULL);
    long long k = path->u.subscript.slice->type ? path->u.subscript.slice->type->int_value : -1;
    if (arg)
      *arg = NULL;
    if (tuple && tuple->kind == VAL_TUPLE && k >= 0 && k < tuple->count)
      return tuple->elts[k];
  }
  return NULL;
}

/* An argument a condition may be read in (lowering it again has no effect
 * but its value): names and literals, by operators. */
static bool plain_value(const Node *e, int depth) {
  if (depth > C2T_MAX_PARSE_DEPTH)
    return false;
  switch (e->kind) {
  case N_NAME: return true;
  case N_CONSTANT: return e->u.constant.kind != CONST_ELLIPSIS;
  case N_UNARY_OP: return plain_value(e->u.unary_op.operand, depth + 1);
  case N_BIN_OP: return plain_value(e->u.bin_op.left, depth + 1) && plain_value(e->u.bin_op.right, depth + 1);
  case N_BOOL_OP:
    for (int i = 0; i < e->u.bool_op.values.count; i++)
      if (!plain_value(e->u.bool_op.values.items[i], depth + 1))
        return false;
    return true;
  case N_COMPARE:
    for (int i = 0; i < e->u.compare.count; i++)
      if (!plain_value(e->u.compare.comparators[i], depth + 1))
        return false;
    return plain_value(e->u.compare.left, depth + 1);
  default: return false;
  }
}

/* A local of `fn` bound to its parameter's dimension (`N` of `N, D =
 * t.shape`), in the caller's terms: that dimension of the tile this call
 * passes, a number or a plain expression (the caller's constexprs); NULL
 * where it is neither. */
static Node *alias_at_call(Lowerer *L, Function *fn, int alias, TypeInfo **types, int count) {
  for (int i = 0; i < fn->signature_count && i < count; i++) {
    if (!str_same(fn->signature_names[i], fn->alias_params[alias]))
      continue;
    TypeInfo *tile = types ? types[i] : NULL;
    int d = fn->alias_dims[alias];
    if (!tile || tile->kind != VAL_TILE || d >= tile->rank || d >= C2T_MAX_RANK)
      return NULL;
    if (tile->shape[d] >= 0)
      return new_int(L, tile->shape[d]);
    return tile->dims[d] && plain_value(tile->dims[d], 0) ? node_copy_tree(&L->ctx->arena, tile->dims[d]) : NULL;
  }
  return NULL;
}

/* `P_tile_D` (`P_step_D`), the constexpr parameter of item D of the tile shape (steps) of a
 * tiled view passed as parameter P: that item as this call passed it; else NULL. */
static Node *view_item_at_call(Lowerer *L, Function *fn, Str id, Node **args, TypeInfo **types, int count) {
  for (int k = id.len - 1; k > 0; k--) {
    bool tile = k + 6 <= id.len && memcmp(id.text + k, "_tile_", 6) == 0;
    bool step = k + 6 <= id.len && memcmp(id.text + k, "_step_", 6) == 0;
    if (!tile && !step)
      continue;
    int d = 0, digits = 0;
    for (int j = k + 6; j < id.len && id.text[j] >= '0' && id.text[j] <= '9' && digits < 3; j++, digits++)
      d = d * 10 + (id.text[j] - '0');
    if (!digits || k + 6 + digits != id.len)
      return NULL;
    Node *param = new_name(L, arena_strndup(&L->ctx->arena, id.text, (size_t)k));
    TypeInfo *type = argument_type_of(fn, param, args, types, count, NULL);
    const TiledViewInfo *view = type && type->kind == VAL_ARRAY ? type->tiled : NULL;
    if (!view || !view->lowered || d >= (tile ? view->items : view->step_items))
      return NULL;
    return node_copy_tree(&L->ctx->arena, view->lowered[tile ? d : view->items + d]);
  }
  return NULL;
}

/* A dimension expression of the tile function, in the caller's terms: its
 * `p.shape[d]` and constant parameters become what this call passed,
 * module constants stay; NULL when it names the function's locals. */
static Node *dim_at_call(Lowerer *L, Function *fn, Node *dim, Node **args, TypeInfo **types, int count, int depth) {
  long long value;
  if (!dim || depth > 16)
    return NULL;
  if (dim->type && dim->type->kind == VAL_CONST && dim->type->dtype != DT_UNKNOWN && !dim->type->is_float) {
    value = dim->type->int_value;
    return new_int(L, value);
  }
  if (dim->kind == N_SUBSCRIPT && dim->u.subscript.value->kind == N_ATTRIBUTE &&
      str_eq(dim->u.subscript.value->u.attribute.attr, "shape") && dim->u.subscript.slice->kind == N_CONSTANT) {
    TypeInfo *tile = argument_type_of(fn, dim->u.subscript.value->u.attribute.value, args, types, count, NULL);
    long long d = dim->u.subscript.slice->type ? dim->u.subscript.slice->type->int_value : -1;
    if (!tile || tile->kind != VAL_TILE || d < 0 || d >= tile->rank || d >= C2T_MAX_RANK)
      return NULL;
    if (tile->dims[d])
      return tile->dims[d];
    return tile->shape[d] >= 0 ? new_int(L, tile->shape[d]) : NULL;
  }
  if (dim->kind == N_NAME) {
    Node *arg = NULL;
    TypeInfo *type = argument_type_of(fn, dim, args, types, count, &arg);
    if (type)
      return type->kind == VAL_CONST && arg ? arg : NULL;
    for (int a = 0; a < fn->alias_count; a++) /* `D` of `N, D = t.shape` */
      if (str_same(fn->alias_names[a], dim->u.name.id))
        return alias_at_call(L, fn, a, types, count);
    Node *item = view_item_at_call(L, fn, dim->u.name.id, args, types, count);
    if (item)
      return item;
    Str id = dim->u.name.id;
    if (id.len > 3 && memcmp(id.text + id.len - 3, "_TL", 3) == 0 &&
        find_binding(L->conv, (Str){id.text, id.len - 3}))
      return dim; /* a module constant's constexpr twin: global */
    return NULL;
  }
  if (dim->kind == N_BIN_OP) {
    Node *left = dim_at_call(L, fn, dim->u.bin_op.left, args, types, count, depth + 1);
    Node *right = dim_at_call(L, fn, dim->u.bin_op.right, args, types, count, depth + 1);
    if (!left || !right)
      return NULL;
    Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
    *copy = *dim;
    copy->u.bin_op.left = left;
    copy->u.bin_op.right = right;
    copy->type = type_new(L->ctx, VAL_CONST);
    copy->type->rank = 0;
    return copy;
  }
  return NULL;
}

/* The function's return type as seen by this call: dimensions in the
 * caller's terms, dtype expressions (which name the function's locals)
 * dropped. */
static TypeInfo *return_type_at_call(Lowerer *L, Function *fn, TypeInfo *type, Node **args, TypeInfo **types,
                                     int count, int depth) {
  if (!type || depth > 8 || (type->kind != VAL_TILE && type->kind != VAL_TUPLE))
    return type;
  TypeInfo *copy = type_new(L->ctx, type->kind);
  *copy = *type;
  if (type->kind == VAL_TUPLE) {
    copy->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(type->count + 1));
    for (int i = 0; i < type->count; i++)
      copy->elts[i] = return_type_at_call(L, fn, type->elts[i], args, types, count, depth + 1);
    return copy;
  }
  copy->dtype_expr = NULL;
  for (int d = 0; d < type->rank && d < C2T_MAX_RANK; d++) {
    long long value;
    copy->dims[d] = type->shape[d] >= 0 ? new_int(L, type->shape[d])
                                        : dim_at_call(L, fn, type->dims[d], args, types, count, 0);
    if (copy->shape[d] < 0 && copy->dims[d] && shape_known_int(copy->dims[d], &value))
      copy->shape[d] = shape_dim_value(L, copy->dims[d], value);
  }
  return copy;
}

/* A default filled in at a call: a fresh copy, lowered in the caller (a
 * literal, a cuda.tile name such as ct.float32, or a module constant the
 * caller does not shadow: what Python evaluated where the function was
 * defined). */
static Node *default_at_call(Lowerer *L, Node *call, Function *fn, int index) {
  Node *value = fn->signature_defaults[index];
  Str fname = fn->def->u.function_def.name, pname = fn->signature_names[index];
  bool literal = literal_default(value);
  bool ct_name = (value->kind == N_NAME || value->kind == N_ATTRIBUTE) && resolve_ct_member(L->conv, value);
  bool module_constant = value->kind == N_NAME && find_binding(L->conv, value->u.name.id) &&
                         !scope_lookup(L, value->u.name.id);
  if (!literal && !ct_name && !module_constant)
    lower_error(L, value, "tile function '%.*s': the default of parameter '%.*s' cannot be converted (a literal, a "
                "cuda.tile name or a module constant can)", fname.len, fname.text, pname.len, pname.text);
  Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
  *copy = *value;
  if (copy->kind == N_UNARY_OP) {
    Node *operand = arena_alloc(&L->ctx->arena, sizeof(Node));
    *operand = *value->u.unary_op.operand;
    copy->u.unary_op.operand = operand;
  }
  copy->span = call->span; /* an error in it points at the call */
  return copy;
}

/* The call's arguments in parameter order: positional ones, keyword ones
 * by name, then the defaults of the parameters left out. */
static void bind_device_arguments(Lowerer *L, Node *call, Function *fn) {
  capture_signature(L, fn);
  Str fname = fn->def->u.function_def.name;
  NodeList *args = &call->u.call.args;
  NodeList *keywords = &call->u.call.keywords;
  if (keywords->count == 0 && args->count == fn->signature_count)
    return;
  int count = fn->signature_count;
  Node **bound = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)(count + 1));
  for (int i = 0; i < args->count; i++) {
    if (args->items[i]->kind == N_STARRED)
      lower_error(L, args->items[i], "starred arguments to tile functions cannot be converted");
    if (i >= count)
      lower_error(L, args->items[i], "tile function '%.*s' takes %d positional arguments", fname.len, fname.text,
                  count);
    bound[i] = args->items[i];
  }
  for (int k = 0; k < keywords->count; k++) {
    Node *kw = keywords->items[k];
    Str name = kw->u.keyword.arg;
    if (name.len == 0)
      lower_error(L, kw, "**arguments to tile functions cannot be converted");
    int index = -1;
    for (int i = 0; i < count; i++)
      if (str_same(fn->signature_names[i], name))
        index = i;
    if (index < 0)
      lower_error(L, kw, "tile function '%.*s' got an unexpected keyword argument '%.*s'", fname.len, fname.text,
                  name.len, name.text);
    if (bound[index])
      lower_error(L, kw, "tile function '%.*s' got multiple values for argument '%.*s'", fname.len, fname.text,
                  name.len, name.text);
    bound[index] = kw->u.keyword.value;
  }
  NodeList ordered = {0};
  for (int i = 0; i < count; i++) {
    if (!bound[i] && !fn->signature_defaults[i])
      lower_error(L, call, "tile function '%.*s' is missing argument '%.*s'", fname.len, fname.text,
                  fn->signature_names[i].len, fn->signature_names[i].text);
    node_list_push(&L->ctx->arena, &ordered, bound[i] ? bound[i] : default_at_call(L, call, fn, i));
  }
  call->u.call.args = ordered;
  call->u.call.keywords = (NodeList){0};
}


/* A condition a version of tile function `fn` assumed (on its parameters,
 * as written) in the caller's terms: each parameter replaced by what this
 * call passes to it, as written (`written`, in parameter order); NULL where
 * the condition has another form (splittable() allows only these). */
static Node *condition_at_call(Lowerer *L, Function *fn, const Node *test, Node **written, TypeInfo **types, int count,
                               int depth) {
  if (!test || depth > C2T_MAX_PARSE_DEPTH)
    return NULL;
  Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
  *copy = *test;
  switch (test->kind) {
  case N_NAME:
    for (int i = 0; i < fn->signature_count && i < count; i++)
      if (str_same(fn->signature_names[i], test->u.name.id))
        return written[i] && plain_value(written[i], 0) ? node_copy_tree(&L->ctx->arena, written[i]) : NULL;
    for (int a = 0; a < fn->alias_count; a++)
      if (str_same(fn->alias_names[a], test->u.name.id))
        return alias_at_call(L, fn, a, types, count);
    return copy;
  case N_CONSTANT: return copy;
  case N_UNARY_OP:
    copy->u.unary_op.operand = condition_at_call(L, fn, test->u.unary_op.operand, written, types, count, depth + 1);
    return copy->u.unary_op.operand ? copy : NULL;
  case N_BIN_OP:
    copy->u.bin_op.left = condition_at_call(L, fn, test->u.bin_op.left, written, types, count, depth + 1);
    copy->u.bin_op.right = condition_at_call(L, fn, test->u.bin_op.right, written, types, count, depth + 1);
    return copy->u.bin_op.left && copy->u.bin_op.right ? copy : NULL;
  case N_BOOL_OP: {
    NodeList values = {0};
    for (int i = 0; i < test->u.bool_op.values.count; i++) {
      Node *value = condition_at_call(L, fn, test->u.bool_op.values.items[i], written, types, count, depth + 1);
      if (!value)
        return NULL;
      node_list_push(&L->ctx->arena, &values, value);
    }
    copy->u.bool_op.values = values;
    return copy;
  }
  case N_COMPARE: {
    int n = test->u.compare.count;
    copy->u.compare.left = condition_at_call(L, fn, test->u.compare.left, written, types, count, depth + 1);
    copy->u.compare.comparators = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
      copy->u.compare.comparators[i] = condition_at_call(L, fn, test->u.compare.comparators[i], written, types, count,
                                                         depth + 1);
      if (!copy->u.compare.comparators[i])
        return NULL;
    }
    return copy->u.compare.left ? copy : NULL;
  }
  default: return NULL;
  }
}

/* What a call of a tile function split into versions gets: the return type
 * of the version whose conditions all hold for this call (its arguments
 * decide them: literals, or the caller's own assumptions), else the joined
 * one; then, where the versions return different types, the first
 * condition the call leaves open is one the caller may split on (in its
 * terms), so that each of its versions knows which version it calls. */
static TypeInfo *version_return_at_call(Lowerer *L, Function *fn, Node **written, TypeInfo **types, int count) {
  if (fn->version_count < 2)
    return fn->return_type;
  int priority = 0;
  for (int v = 1; v < fn->version_count; v++) {
    int disagreement = type_disagreement(L, fn->versions[0].return_type, fn->versions[v].return_type);
    priority = disagreement > priority ? disagreement : priority;
  }
  if (fn->versions[0].return_type->kind != fn->versions[1].return_type->kind)
    priority = 3;
  Node *open_source = NULL, *open_lowered = NULL;
  for (int v = 0; v < fn->version_count; v++) {
    const FunctionVersion *version = &fn->versions[v];
    bool holds = true;
    for (int a = 0; a < version->assumption_count && holds; a++) {
      Node *source = condition_at_call(L, fn, version->assumptions[a].test, written, types, count, 0);
      if (!source)
        return fn->return_type;
      Node *lowered = lower_condition(L, node_copy_tree(&L->ctx->arena, source));
      const TypeInfo *known = lowered->type;
      if (known && known->kind == VAL_CONST && known->dtype != DT_UNKNOWN) {
        holds = (known->is_float ? known->float_value != 0 : known->int_value != 0) == version->assumptions[a].value;
        continue;
      }
      if (!open_source) {
        open_source = source;
        open_lowered = lowered;
      }
      holds = false;
    }
    if (holds)
      return version->return_type;
  }
  if (open_source && priority)
    note_version_split(L, open_source, open_lowered, priority);
  return fn->return_type;
}

/* A local tuple passed where the tile function takes a tl.constexpr (block = (BM, BK);
 * f(x, block)): the caller's local must be a constexpr local too (Triton passes no plain
 * local to a constexpr parameter). */
static void require_constexpr_arguments(Lowerer *L, Function *fn, NodeList *args) {
  const NodeList *params = &fn->def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < args->count && i < fn->signature_count; i++) {
    Node *arg = args->items[i];
    if (arg->kind != N_NAME || !arg->type || !constant_tuple(arg->type))
      continue;
    for (int p = 0; p < params->count; p++) {
      const Node *param = params->items[p];
      if (str_same(param->u.arg.arg, fn->signature_names[i]) && annotated_constexpr(L, param->u.arg.annotation) &&
          !require_constexpr_local(L, arg->u.name.id, arg))
        lower_limit(L, arg, "names that must be constexpr locals in one function", C2T_MAX_STATIC_CHOICES);
    }
  }
}

/* Whether a call passes a number known when converting (a literal, a constexpr). */
static bool passes_constant(TypeInfo **types, int count) {
  for (int i = 0; i < count; i++)
    if (types[i] && types[i]->kind == VAL_CONST && types[i]->dtype != DT_UNKNOWN)
      return true;
  return false;
}

/* lower_device_function for a call: first with its constant arguments' values left to Triton
 * (one function for every value, a constexpr parameter each); where the body needs a value
 * when converting (`ct.sum(t, axis=axis)`, a shape), again with this call's values folded in,
 * as cuTile compiles a function per call (another value then makes another specialization). */
static void lower_device_function_for(Lowerer *L, Function *fn, TypeInfo **types, int count) {
  if (fn->fold_constants || !passes_constant(types, count)) {
    lower_device_function(L, fn, types, count);
    return;
  }
  Attempt attempt;
  if (device_lowering_attempt(L, fn, types, count, &attempt))
    return;
  attempt_undo(L, &attempt);
  fn->fold_constants = true;
  lower_device_function(L, fn, types, count);
}

/* f(*pair) where `pair` is a tuple display or a local tuple of a length known here: its items
 * as arguments, each in its place (cuTile binds them so), written `pair[k]` to be lowered
 * with the others. Calls of tile functions and of cuTile operations (ct.scatter(*args)). */
void expand_starred_arguments(Lowerer *L, Node *call) {
  NodeList *args = &call->u.call.args, expanded = {0};
  for (int i = 0; i < args->count; i++) {
    Node *arg = args->items[i], *value = arg->kind == N_STARRED ? arg->u.starred.value : NULL;
    Variable *var = value && value->kind == N_NAME ? scope_lookup(L, value->u.name.id) : NULL;
    if (value && value->kind == N_TUPLE) {
      for (int k = 0; k < value->u.list.elts.count; k++)
        node_list_push(&L->ctx->arena, &expanded, value->u.list.elts.items[k]);
    } else if (var && var->type && var->type->kind == VAL_TUPLE && var->type->elts && var->type->count >= 0) {
      for (int k = 0; k < var->type->count; k++) {
        Node *item = arena_alloc(&L->ctx->arena, sizeof(Node));
        item->kind = N_SUBSCRIPT;
        item->span = arg->span;
        item->u.subscript.value = node_copy_tree(&L->ctx->arena, value);
        item->u.subscript.slice = new_int(L, k);
        item->u.subscript.ctx = CTX_LOAD;
        node_list_push(&L->ctx->arena, &expanded, item);
      }
    } else {
      node_list_push(&L->ctx->arena, &expanded, arg);
    }
  }
  *args = expanded;
}

Node *lower_device_call(Lowerer *L, Node *call, Function *fn) {
  reuse_note_write(L); /* it may store (lowered once per signature: its stores are not seen at each call) */
  expand_starred_arguments(L, call);
  if (fn->stub_reason) /* only tile functions no kernel calls call it */
    lower_error(L, call, "tile function '%.*s' cannot be converted without a call from a kernel: it stops at %s",
                fn->def->u.function_def.name.len, fn->def->u.function_def.name.text, fn->stub_reason);
  bind_device_arguments(L, call, fn);
  NodeList *args = &call->u.call.args;
  TypeInfo **types = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(args->count + 1));
  Node **written = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)(args->count + 1));
  for (int i = 0; i < args->count; i++) /* as written, for the conditions of its versions */
    written[i] = node_copy_tree(&L->ctx->arena, args->items[i]);
  for (int i = 0; i < args->count; i++) {
    if (args->items[i]->kind == N_STARRED)
      lower_error(L, args->items[i], "starred arguments to tile functions cannot be converted");
    args->items[i] = lower_expr(L, args->items[i]);
    types[i] = args->items[i]->type;
    if (types[i] && types[i]->kind == VAL_LIST) /* its table, length and rank would have to travel with it */
      lower_error(L, args->items[i], "a list of arrays cannot be passed to a tile function (not converted yet: "
                  "pass its items, As[g])");
    /* whether it is tfloat32 is a condition on the caller's names (`ct.tfloat32 if A.dtype ==
       ct.float32 else A.dtype`), which the tile function's body cannot read */
    if (types[i] && types[i]->kind == VAL_ARRAY && types[i]->tiled)
      types[i] = args->items[i]->type = view_arguments(L, types[i], args->items[i]);
    if (types[i] && types[i]->kind == VAL_TILE && types[i]->tf32_when)
      lower_error(L, args->items[i], "a tile that is tfloat32 only for some dtypes of the launch (astype to a dtype "
                  "chosen by a condition) cannot be passed to a tile function (not converted yet: call ct.mma or "
                  "ct.matmul in the kernel, or astype inside the tile function)");
  }
  /* a recursive call: with this call's constants folded in, a specialization of its own (cuTile
     unrolls the recursion as it compiles: tree_sum(t, n) calling tree_sum(a + b, n // 2)), the
     count of specializations bounding it */
  if (fn->lowering && !fn->fold_constants)
    lower_error(L, call, "recursive tile functions cannot be converted unless each call's constant arguments are "
                "known at conversion (cuTile unrolls the recursion as it compiles)");
  if (fn->lowered || fn->lowering || (fn->host_too && !fn->def->u.function_def.decorator_list.count)) {
    Function *target = specialization_for(L, call, fn, types, args->count);
    if (target != fn) {
      Str name = target->def->u.function_def.name;
      call->u.call.func = new_name(L, arena_printf(&L->ctx->arena, "%.*s", name.len, name.text));
    }
    fn = target;
  }
  if (!fn->lowered)
    lower_device_function_for(L, fn, types, args->count);
  if (fn->needs_debug)
    L->needs_debug = true;
  require_constexpr_arguments(L, fn, args);
  TypeInfo *return_type = return_type_at_call(L, fn, version_return_at_call(L, fn, written, types, args->count), args->items,
                                              types, args->count, 0);
  NodeList expanded = {0};
  for (int i = 0; i < args->count; i++) {
    bool is_array = passes_as_arrays(types[i]);
    if (i < fn->param_count && is_array != fn->param_is_array[i])
      lower_error(L, args->items[i], "internal error: tile function '%.*s' was specialized for another kind of "
                  "argument here", fn->def->u.function_def.name.len, fn->def->u.function_def.name.text);
    if (is_array) {
      ArrayRef *array = types[i]->array;
      node_list_push(&L->ctx->arena, &expanded, copy_node(L, array->pointer));
      node_list_push(&L->ctx->arena, &expanded, copy_node(L, array->shape));
      node_list_push(&L->ctx->arena, &expanded, copy_node(L, array->strides));
      const TiledViewInfo *view = types[i]->tiled;
      for (int d = 0; view && d < view->items + view->step_items; d++)
        node_list_push(&L->ctx->arena, &expanded, view->lowered[d]);
    } else if (types[i] && (types[i]->kind == VAL_ENUM || types[i]->kind == VAL_FUNCTION)) {
      /* a padding or rounding mode, a function: its lowering of the function took it in (one per
         member, one per function) */
      node_list_push(&L->ctx->arena, &expanded, T0(L, "None"));
    } else {
      node_list_push(&L->ctx->arena, &expanded, args->items[i]);
    }
  }
  /* the flags of the arrays it uses through descriptors: the caller's own flag of an array
     parameter it passes (the caller then takes that flag too), False for anything else and
     for a call in a loop (its descriptors would be made again at each iteration) */
  bool any_flag = false;
  for (int t = 0; t < fn->tma_param_count; t++) {
    Node *flag = NULL;
    for (int i = 0; i < args->count && i < fn->signature_count && !flag; i++) {
      if (!str_same(fn->signature_names[i], fn->tma_params[t]))
        continue;
      const ArrayRef *array = types[i] && types[i]->kind == VAL_ARRAY ? types[i]->array : NULL;
      bool passes_flag = array && array->param.len && !array->is_view && !array->tma_unsafe && !array->int64_index &&
                         !array->descriptor_slots && !array->tma_when &&
                         (L->function->role == ROLE_KERNEL || L->device_tma) && L->loop_depth == 0;
      if (passes_flag) {
        memory_note_tma_array(L, array);
        flag = new_name(L, arena_printf(&L->ctx->arena, "%.*s_tma", array->param.len, array->param.text));
        any_flag = true;
      } else {
        flag = T0(L, "False");
      }
    }
    node_list_push(&L->ctx->arena, &expanded, flag ? flag : T0(L, "False"));
  }
  if (fn->tma_param_count)
    node_list_push(&L->ctx->arena, &expanded, any_flag ? new_name(L, "_use_tma") : T0(L, "False"));
  pass_device_descriptors(L, fn, args->items, types, args->count, &expanded);
  kmajor_call_args(L, fn, types, args->count, &expanded);
  if (any_flag && fn->tma_reused)
    L->tma_reused = true;
  if (fn->multiplies) { /* lowered for an earlier call, maybe of another kernel */
    L->kernel_has_dot = true;
    L->products++;
  }
  call->u.call.args = expanded;
  call->rewritten = true;
  call->type = return_type;
  return call;
}
