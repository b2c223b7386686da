/*
 * lower_expr.c — expressions of tile functions.
 *
 * Each expression is lowered bottom-up and typed (node->type). Operators go
 * to lower_math.c (cuTile's promotion, floor division, IEEE division),
 * cuTile calls to their family through the op table, calls of other module
 * functions to lower_call.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"

static Node *typed(Node *node, TypeInfo *type) {
  node->type = type;
  return node;
}

/* ------------------------------------------------------------ constants */

/* The value of a number literal as spelled (underscores, any base). */
static Node *lower_number(Lowerer *L, Node *expr) {
  Str text = expr->u.constant.text;
  /* the literal without its underscores: no fixed buffer, a literal of any
   * length is read whole (a 128-byte copy used to cut longer ones) */
  char *digits = arena_alloc_raw(&L->ctx->arena, (size_t)text.len + 1);
  int length = 0;
  bool is_float = false;
  bool is_hex = text.len > 1 && text.text[0] == '0' && (text.text[1] == 'x' || text.text[1] == 'X');
  for (int i = 0; i < text.len; i++) {
    char c = text.text[i];
    if (c == '_')
      continue;
    if (c == 'j' || c == 'J')
      lower_error(L, expr, "complex numbers are not valid in tile code");
    if (!is_hex && (c == '.' || c == 'e' || c == 'E'))
      is_float = true;
    digits[length++] = c;
  }
  digits[length] = '\0';
  if (is_float)
    return typed(expr, type_const_float(L->ctx, strtod(digits, NULL)));
  int base = 10;
  const char *start = digits;
  if (length > 1 && digits[0] == '0' && strchr("xXoObB", digits[1])) {
    base = strchr("xX", digits[1]) ? 16 : strchr("oO", digits[1]) ? 8 : 2;
    start = digits + 2;
  }
  errno = 0;
  unsigned long long value = strtoull(start, NULL, base);
  if (errno == ERANGE)
    lower_error(L, expr, "integer constant %.*s does not fit in 64 bits", text.len, text.text);
  if (value > (unsigned long long)INT64_MAX) /* cuTile types it uint64 */
    lower_error(L, expr, "integer constant %.*s is 2**63 or more, a uint64 constant in cuTile, which cannot be "
                "converted (constants up to 2**63 - 1 can)", text.len, text.text);
  return typed(expr, type_const_int(L->ctx, (long long)value));
}

static Node *lower_constant(Lowerer *L, Node *expr) {
  switch (expr->u.constant.kind) {
  case CONST_NUMBER: return lower_number(L, expr);
  case CONST_TRUE: return typed(expr, type_const_bool(L->ctx, true));
  case CONST_FALSE: return typed(expr, type_const_bool(L->ctx, false));
  case CONST_NONE: return typed(expr, type_new(L->ctx, VAL_NONE));
  case CONST_ELLIPSIS: return typed(expr, type_new(L->ctx, VAL_UNKNOWN));
  }
  return expr;
}

/* ------------------------------------------------------- cuTile members */

/* A cuda.tile name used as a value: a dtype (ct.float16 -> tl.float16) or
 * an enum member (ct.PaddingMode.ZERO, kept for the operation that reads
 * it). */
Node *lower_ct_value(Lowerer *L, Node *expr, const char *member) {
  DType dtype = dtype_from_cutile_name(member);
  if (dtype != DT_UNKNOWN) {
    Node *node = T0(L, dtype_info(dtype)->triton);
    TypeInfo *type = type_new(L->ctx, VAL_DTYPE);
    type->dtype = dtype;
    return typed(node, type);
  }
  static const char *const ENUMS[] = {"PaddingMode.", "RoundingMode.", "MemoryOrder.", "MemoryScope.", NULL};
  for (int i = 0; ENUMS[i]; i++) {
    if (strncmp(member, ENUMS[i], strlen(ENUMS[i])) == 0) {
      TypeInfo *type = type_new(L->ctx, VAL_ENUM);
      type->member = member;
      return typed(expr, type);
    }
  }
  const OpRow *row = op_find(member);
  /* cuTile's static_eval and static_iter are forms used where written ("must be used directly") */
  bool direct_only = strcmp(member, "static_eval") == 0 || strcmp(member, "static_iter") == 0;
  if (row && !strchr(row->name, '.') && !direct_only &&
      !(row->flags & (OPF_TYPE | OPF_DTYPE | OPF_ENUM | OPF_EXCEPTION | OPF_SUBMODULE | OPF_HOST))) {
    /* `f = ct.exp`: a function, which a call through the name calls (lower_call) */
    TypeInfo *type = type_new(L->ctx, VAL_FUNCTION);
    type->member = arena_printf(&L->ctx->arena, "ct.%s", member);
    type->function_expr = node_copy_tree(&L->ctx->arena, expr);
    return typed(expr, type);
  }
  lower_error(L, expr, "ct.%s cannot be used as a value in tile code", member);
}

/* ---------------------------------------------------------------- names */

static Node *arena_dup_node(Lowerer *L, const Node *node) {
  Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
  *copy = *node;
  return copy;
}

/* The value of module constant `name` where module-level code binds it once, else NULL (one
 * bound again is not folded: `BLOCK = 32; SHAPE = (2, BLOCK); BLOCK = 64` keeps SHAPE (2, 32)). */
static Node *module_value_bound_once(Lowerer *L, Str name) {
  const Binding *binding = find_binding(L->conv, name);
  if (!binding || !binding->value || binding->varies || resolve_ct_member(L->conv, binding->value))
    return NULL;
  return module_bindings_of(L, name) == 1 ? binding->value : NULL;
}

/* The type of a module-level tuple of numbers, nested tuples of them too, each item known;
 * NULL for one holding anything else (an opaque constant then). */
static TypeInfo *literal_tuple_type(Lowerer *L, Node *value, int depth) {
  NodeList *elts = &value->u.list.elts;
  if (depth >= C2T_MAX_PARSE_DEPTH) /* the parser nests no deeper */
    return NULL;
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = elts->count;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(elts->count + 1));
  for (int i = 0; i < elts->count; i++) {
    Node *elt = elts->items[i];
    if (elt->kind == N_TUPLE) {
      if (!(type->elts[i] = literal_tuple_type(L, elt, depth + 1)))
        return NULL;
      continue;
    }
    for (int hops = 0; elt->kind == N_NAME && hops < C2T_MAX_PARSE_DEPTH; hops++)
      if (!(elt = module_value_bound_once(L, elt->u.name.id))) /* `SHAPE = (2, BLOCK)`: BLOCK's value */
        return NULL;
    bool negative = elt->kind == N_UNARY_OP && elt->u.unary_op.op == AOP_USUB;
    Node *number = negative ? elt->u.unary_op.operand : elt;
    if (number->kind != N_CONSTANT || number->u.constant.kind == CONST_NONE ||
        number->u.constant.kind == CONST_ELLIPSIS)
      return NULL; /* not only numbers: as before, an opaque constant */
    TypeInfo *e = lower_constant(L, arena_dup_node(L, number))->type;
    if (negative) {
      e->int_value = -e->int_value;
      e->float_value = -e->float_value;
    }
    type->elts[i] = e;
  }
  return type;
}

/* A module-level constant read in tile code: Triton only reads globals that
 * are tl.constexpr, so kernels read a constexpr twin NAME_TL (emitted next
 * to the original by launch.c). One bound in a branch of an `if` decided at
 * import (`BLOCK = 128` on Hopper, else 64) is not folded: its twin, written
 * after that `if`, holds the value the import chose. */
static Node *lower_module_constant(Lowerer *L, Node *expr, const Binding *binding) {
  Node *value = binding->value;
  const char *member = resolve_ct_member(L->conv, value);
  if (member && binding->varies)
    lower_error(L, expr, "'%.*s' is bound in a branch of a module-level `if` decided at import, and stands for a "
                "cuda.tile value that selects code here: bind it once", expr->u.name.id.len, expr->u.name.id.text);
  if (member)
    return lower_ct_value(L, expr, member);
  TypeInfo *type = NULL;
  if (binding->varies)
    ; /* which branch binds it is known at import: its twin's value, not folded here */
  else if (value->kind == N_CONSTANT)
    type = lower_constant(L, value)->type;
  else if (value->kind == N_UNARY_OP && value->u.unary_op.op == AOP_USUB && value->u.unary_op.operand->kind == N_CONSTANT) {
    type = lower_constant(L, value->u.unary_op.operand)->type;
    type->int_value = -type->int_value;
    type->float_value = -type->float_value;
  }
  else if (value->kind == N_TUPLE) /* a tuple of numbers (nested tuples too): each element known */
    type = literal_tuple_type(L, value, 0);
  if (!type) {
    type = type_new(L->ctx, VAL_CONST);
    type->rank = 0;
  }
  require_constexpr_twin(L, binding);
  Str id = expr->u.name.id;
  return typed(new_name(L, arena_printf(&L->ctx->arena, "%.*s_TL", id.len, id.text)), type);
}

/* The module-level class statement `name` defines when it derives from enum's Enum, IntEnum,
 * Flag, IntFlag or StrEnum (by name, or as enum.X), else NULL. */
static const Node *enum_class(Lowerer *L, Str name) {
  static const char *const BASES[] = {"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum"};
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (stmt->kind != N_CLASS_DEF || !str_same(stmt->u.class_def.name, name))
      continue;
    for (int b = 0; b < stmt->u.class_def.bases.count; b++) {
      const Node *base = stmt->u.class_def.bases.items[b];
      Str base_name = base->kind == N_NAME ? base->u.name.id
                      : base->kind == N_ATTRIBUTE && base->u.attribute.value->kind == N_NAME &&
                              str_eq(base->u.attribute.value->u.name.id, "enum")
                          ? base->u.attribute.attr
                          : (Str){"", 0};
      for (size_t k = 0; k < sizeof BASES / sizeof BASES[0]; k++)
        if (str_eq(base_name, BASES[k]))
          return stmt;
    }
    return NULL;
  }
  return NULL;
}

/* Whether the class body assigns `member` (RED = 0): a member of the enum, not a method. */
static bool enum_has_member(const Node *cls, Str member) {
  const NodeList *body = &cls->u.class_def.body;
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1 &&
        stmt->u.assign.targets.items[0]->kind == N_NAME && str_same(stmt->u.assign.targets.items[0]->u.name.id, member))
      return member.len < 2 || member.text[0] != '_' || member.text[1] != '_';
  }
  return false;
}

/* The constexpr twin of member `member` of Enum class `cls` (an empty name: the class called
 * with a value) is written after the class, once (launch.c: push_enum_twins_of). */
static void note_enum_twin(Lowerer *L, const Node *at, const Node *cls, Str member) {
  for (int i = 0; i < L->enum_member_count; i++)
    if (L->enum_classes[i] == cls && str_same(L->enum_members[i], member))
      return;
  if (L->enum_member_count == C2T_MAX_ENUM_MEMBERS)
    lower_limit(L, at, "members of Enum classes read in tile code", C2T_MAX_ENUM_MEMBERS);
  L->enum_classes[L->enum_member_count] = cls;
  L->enum_members[L->enum_member_count++] = member;
}

/* A member of an Enum: its value only Python knows; Triton compares it while compiling. */
static TypeInfo *enum_member_type(Lowerer *L) {
  TypeInfo *type = type_new(L->ctx, VAL_CONST);
  type->rank = 0;
  type->python_object = true;
  return type;
}

/* Color.RED of a module-level Enum in tile code: Triton reads only tl.constexpr globals, so
 * the kernel reads its twin Color_RED_TL = tl.constexpr(Color.RED), written after the class;
 * the member itself, compared and passed as cuTile does (a constexpr to Triton). */
static Node *lower_enum_member(Lowerer *L, Node *expr, const Node *cls) {
  Str name = cls->u.class_def.name, member = expr->u.attribute.attr;
  if (!enum_has_member(cls, member))
    lower_error(L, expr, "'%.*s' is not a member assigned in enum %.*s", member.len, member.text, name.len, name.text);
  note_enum_twin(L, expr, cls, member);
  return typed(new_name(L, arena_printf(&L->ctx->arena, "%.*s_%.*s_TL", name.len, name.text, member.len,
                                        member.text)), enum_member_type(L));
}

const Node *lower_enum_named(Lowerer *L, Str name) { return enum_class(L, name); }

/* Mode(value) of a module-level Enum class in tile code, value known when it compiles (a
 * literal, a ct.Constant): cuTile calls the class then. Triton calls only constexpr functions
 * while it compiles: Mode_TL(value), `Mode(value)` in a triton.constexpr_function written
 * after the class (an empty member name in the twins table stands for it). */
Node *lower_enum_construct(Lowerer *L, Node *call, const Node *cls) {
  Str name = cls->u.class_def.name;
  if (call->u.call.args.count != 1 || call->u.call.keywords.count)
    lower_error(L, call, "%.*s(...) in tile code takes one value, the member's", name.len, name.text);
  Node *value = lower_expr(L, call->u.call.args.items[0]);
  if (!value->type || (value->type->kind != VAL_CONST && value->type->kind != VAL_STRING))
    lower_error(L, call->u.call.args.items[0],
                "%.*s(value) in tile code: cuTile calls the class when it compiles, so the value must be known "
                "then (a literal or a ct.Constant parameter), not %s", name.len, name.text,
                type_describe(L->ctx, value->type));
  note_enum_twin(L, call, cls, (Str){"", 0});
  Node *made = T(L, arena_printf(&L->ctx->arena, "%.*s_TL(_1)", name.len, name.text), value);
  made->type = enum_member_type(L);
  return made;
}

/* A kernel's array parameter used outside its constexpr branches (those the
 * launch decides): a launch must give it an array (Function.param_needs_array). */
static void note_array_use(Lowerer *L, const ArrayRef *array) {
  Function *fn = L->function;
  if (!fn || fn->role != ROLE_KERNEL || !fn->param_needs_array || L->tf32_when_depth > 0 || !array->param.len)
    return;
  for (int i = 0; i < fn->param_count; i++)
    if (str_same(fn->param_names[i], array->param))
      fn->param_needs_array[i] = true;
}

static Node *lower_name(Lowerer *L, Node *expr) {
  Str id = expr->u.name.id;
  Variable *var = scope_lookup(L, id);
  if (var && var->type && var->type->maybe_unbound && L->constexpr_ifs > 0 && L->pending) {
    /* in a branch of an `if` Triton decides when it compiles: cuTile refuses the read only where it
       compiles that branch, Triton then the static assertion */
    const char *text = arena_printf(&L->ctx->arena, "tl.static_assert(False, \"'%.*s' may be unbound here: cuTile refuses "
                                    "this use of a potentially undefined variable\")\n", id.len, id.text);
    NodeList made = template_stmts(L->ctx, text, NULL, 0);
    node_list_push(&L->ctx->arena, L->pending, made.items[0]);
    TypeInfo *bound = type_new(L->ctx, var->type->kind);
    *bound = *var->type;
    bound->maybe_unbound = false;
    return typed(expr, bound);
  }
  if (var && var->type && var->type->maybe_unbound)
    lower_error(L, expr, "'%.*s' may be unbound here: it is bound in only one branch of a run-time `if` above, or "
                "first in a loop that may run no iteration; cuTile refuses this use of a potentially undefined "
                "variable (bind it before, or in each branch)", id.len, id.text);
  if (var && var->type && var->type->path_dependent)
    lower_error(L, expr, "the type of '%.*s' depends on the path taken to here: a run-time `if` (or `a if c else b`) "
                "above gives it a value of another type (a tile of another dtype or shape, a number, an int or "
                "a float) on one path than on the other, or a loop from one iteration to the next; cuTile "
                "refuses this use (give it one type on every path)", id.len, id.text);
  if (var && var->type && var->type->none_by_constexpr)
    lower_error(L, expr, "'%.*s' is None for one outcome of a constexpr `if` above and %s for the other: it can be "
                "converted only where the function is lowered once per outcome (a kernel, its condition a "
                "comparison of its constants)", id.len, id.text, type_describe(L->ctx, var->type));
  if (var && var->type && var->type->kind == VAL_ARRAY)
    note_array_use(L, var->type->array);
  if (var && var->type && var->type->kind == VAL_CONST && var->type->value_expr)
    return typed(T(L, "_1", node_copy_tree(&L->ctx->arena, var->type->value_expr)), var->type);
  if (var)
    return typed(expr, var->type);
  Function *fn = find_function(L->conv, id);
  if (fn) {
    TypeInfo *type = type_new(L->ctx, VAL_FUNCTION);
    type->member = arena_strndup(&L->ctx->arena, id.text, (size_t)id.len);
    type->function_expr = node_copy_tree(&L->ctx->arena, expr);
    return typed(expr, type);
  }
  const char *member = resolve_ct_member(L->conv, expr);
  if (member)
    return lower_ct_value(L, expr, member);
  const char *python = resolve_python_name(L->conv, expr);
  if (python)
    return lower_python_value(L, expr, python);
  const Binding *binding = find_binding(L->conv, id);
  if (binding && binding->value)
    return lower_module_constant(L, expr, binding);
  lower_error(L, expr, "name '%.*s' is not defined in tile code (tile code reads only its parameters, its "
                       "locals, module constants and tile functions)", id.len, id.text);
}

/* ----------------------------------------------------------- attributes */

static Node *tuple_of_pieces(Lowerer *L, Node *tuple_expr, int count) {
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = count;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(count > 0 ? count : 1));
  for (int i = 0; i < count; i++)
    type->elts[i] = type_tile(L->ctx, DT_INT32, 0, NULL);
  return typed(tuple_expr, type);
}

/* The shape or strides of an array indexed with int64 (ct.IndexedWithInt64): int64 numbers, as
 * cuTile's, where Triton holds the launcher's ints that fit as int32 (x.shape[0] * x.shape[1]
 * would wrap): `(tl.cast(x_shape[0], tl.int64), ...)`. */
Node *lower_int64_pieces(Lowerer *L, Node *tuple_expr, int rank) {
  Node *tuple = T0(L, "()");
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = rank;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(rank > 0 ? rank : 1));
  for (int i = 0; i < rank; i++) {
    Node *item = T(L, "tl.cast(_1[_2], tl.int64)", node_copy_tree(&L->ctx->arena, tuple_expr), new_int(L, i));
    item->type = type->elts[i] = type_tile(L->ctx, DT_INT64, 0, NULL);
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, item);
  }
  return typed(tuple, type);
}

/* The shape or strides of an array whose ct.ArrayAnnotation makes them static: the
 * parameter is a tl.constexpr tuple, each item a launch constant. */
static Node *static_pieces(Lowerer *L, Node *tuple_expr, int rank) {
  Node *node = node_copy_tree(&L->ctx->arena, tuple_expr);
  if (rank < 0) { /* indexed as a constant tuple (a ct.Constant[tuple] parameter's) */
    TypeInfo *type = type_new(L->ctx, VAL_CONST);
    type->rank = 0;
    type->dtype = DT_UNKNOWN;
    type->const_tuple = true;
    return typed(node, type);
  }
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = rank;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(rank > 0 ? rank : 1));
  for (int i = 0; i < rank; i++) {
    type->elts[i] = type_new(L->ctx, VAL_CONST);
    type->elts[i]->rank = 0;
    type->elts[i]->dtype = DT_UNKNOWN; /* its value comes with each launch */
  }
  return typed(node, type);
}

static Node *lower_array_attribute(Lowerer *L, Node *expr, TypeInfo *array, Str attr) {
  if ((str_eq(attr, "shape") && array->array->static_shape) || (str_eq(attr, "strides") && array->array->static_strides))
    return static_pieces(L, str_eq(attr, "shape") ? array->array->shape : array->array->strides, array->rank);
  if (array->array->int64_index && (str_eq(attr, "shape") || str_eq(attr, "strides"))) {
    Node *pieces = str_eq(attr, "shape") ? array->array->shape : array->array->strides;
    if (array->rank >= 0)
      return lower_int64_pieces(L, pieces, array->rank);
    Node *tuple = tuple_of_pieces(L, pieces, array->rank);
    tuple->type->dtype = DT_INT64; /* of a rank not known yet: each item cast where it is read */
    return tuple;
  }
  if (array->raw_memory && !str_eq(attr, "dtype"))
    lower_error(L, expr, "the raw memory of an array (x.get_raw_memory()) has no attribute '%.*s' (only dtype and "
                "its methods)", attr.len, attr.text);
  if (array->tiled && array->tiled->shape && str_eq(attr, "traversal_steps"))
    return lower_view_steps(L, array);
  if (array->tiled && array->tiled->shape && str_eq(attr, "tile_shape"))
    return lower_view_tile_shape(L, array);
  if (str_eq(attr, "shape"))
    return tuple_of_pieces(L, array->array->shape, array->rank);
  if (str_eq(attr, "strides"))
    return tuple_of_pieces(L, array->array->strides, array->rank);
  if (str_eq(attr, "dtype")) {
    TypeInfo *type = type_new(L->ctx, VAL_DTYPE);
    type->dtype = array->dtype;
    type->dtype_expr = array->dtype_expr;
    return typed(array->dtype != DT_UNKNOWN ? T0(L, dtype_info(array->dtype)->triton) : array->dtype_expr, type);
  }
  if (str_eq(attr, "ndim") && array->rank >= 0)
    return new_int(L, array->rank);
  if (str_eq(attr, "ndim")) { /* a rank known only at launch: a constexpr of Triton's */
    Node *rank = T(L, "len(_1)", node_copy_tree(&L->ctx->arena, array->array->shape));
    rank->type = type_new(L->ctx, VAL_CONST);
    return rank;
  }
  lower_error(L, expr, "array attribute '%.*s' cannot be converted here", attr.len, attr.text);
}

static Node *lower_tile_attribute(Lowerer *L, Node *expr, Node *base, Str attr) {
  TypeInfo *tile = base->type;
  if (str_eq(attr, "dtype")) {
    TypeInfo *type = type_new(L->ctx, VAL_DTYPE);
    type->dtype = tile->dtype;
    Node *node = tile->dtype != DT_UNKNOWN ? T0(L, dtype_info(tile->dtype)->triton) : T(L, "_1.dtype", base);
    type->dtype_expr = node;
    return typed(node, type);
  }
  if (str_eq(attr, "ndim") && tile->rank >= 0)
    return new_int(L, tile->rank);
  if (str_eq(attr, "shape") && tile->rank >= 0) {
    Node *tuple = T0(L, "()");
    TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
    type->count = tile->rank;
    type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(tile->rank + 1));
    for (int i = 0; i < tile->rank; i++) {
      /* a size known as a number, else its constant expression (`BLOCK`,
       * `x.shape[0]`: constexprs in Triton) */
      Node *dim = tile->shape[i] >= 0 ? new_int(L, tile->shape[i]) : tile->dims[i];
      if (!dim && base->kind == N_NAME) {
        dim = T(L, "_1.shape[_2]", base, new_int(L, i));
        dim->type = type_new(L->ctx, VAL_CONST);
        dim->type->rank = 0;
      }
      if (!dim)
        lower_error(L, expr, "the shape of this tile is not known at conversion time");
      node_list_push(&L->ctx->arena, &tuple->u.list.elts, dim);
      type->elts[i] = dim->type;
    }
    return typed(tuple, type);
  }
  /* of a tile function's parameter, where the function is lowered without a call */
  if ((str_eq(attr, "shape") || str_eq(attr, "ndim")) && tile->rank < 0)
    lower_error(L, expr, "'.%.*s' needs a tile of known rank, not %s", attr.len, attr.text,
                type_describe(L->ctx, tile));
  lower_error(L, expr, "tile attribute '%.*s' cannot be converted here", attr.len, attr.text);
}

/* The Python name of an attribute chain on a module-level name that no
 * local of the tile function hides (`math.inf`, `np.float32`). */
static const char *python_name_here(Lowerer *L, Node *expr) {
  const Node *base = expr;
  while (base->kind == N_ATTRIBUTE)
    base = base->u.attribute.value;
  if (base->kind != N_NAME || scope_lookup(L, base->u.name.id))
    return NULL;
  return resolve_python_name(L->conv, expr);
}

static Node *lower_attribute(Lowerer *L, Node *expr) {
  const char *member = resolve_ct_member(L->conv, expr);
  if (member)
    return lower_ct_value(L, expr, member);
  const char *python = python_name_here(L, expr);
  if (python)
    return lower_python_value(L, expr, python);
  Node *owner = expr->u.attribute.value;
  if (owner->kind == N_NAME && !scope_lookup(L, owner->u.name.id) && !find_function(L->conv, owner->u.name.id)) {
    const Node *cls = enum_class(L, owner->u.name.id);
    if (cls)
      return lower_enum_member(L, expr, cls);
  }
  Node *property = lower_dataclass_property(L, expr);
  if (property)
    return property;
  Node *base = lower_expr(L, expr->u.attribute.value);
  Str attr = expr->u.attribute.attr;
  if (base->type && base->type->kind == VAL_ARRAY)
    return lower_array_attribute(L, expr, base->type, attr);
  if (base->type && (base->type->kind == VAL_TILE || base->type->kind == VAL_CONST))
    return lower_tile_attribute(L, expr, base, attr);
  if (base->type && base->type->kind == VAL_TUPLE && base->type->dataclass)
    return lower_dataclass_field(L, expr, base, attr);
  if (base->type && base->type->kind == VAL_DTYPE) /* cuTile 1.7: "No such attribute 'bitwidth' for object of
                                                      type DTypeConstructor" */
    lower_error(L, expr, "a dtype has no attributes in tile code ('.%.*s' is one on the host): cuTile refuses it too",
                attr.len, attr.text);
  expr->u.attribute.value = base;
  return typed(expr, type_new(L->ctx, VAL_UNKNOWN));
}

/* ----------------------------------------------------------- subscripts */

static bool constant_index(const Node *index, long long *value) {
  if (!index->type || index->type->kind != VAL_CONST || index->type->is_float || index->type->dtype == DT_UNKNOWN)
    return false;
  *value = index->type->int_value;
  return true;
}

/* Element i of a tuple of arrays `xs`: pointer xs[i], shape xs_shape[i],
 * strides xs_strides[i]. */
Node *tuple_array_item(Lowerer *L, const ArrayRef *tuple, Node *index) {
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  ArrayRef *array = arena_alloc(&L->ctx->arena, sizeof(ArrayRef));
  array->pointer = T(L, "_1[_2]", tuple->pointer, index);
  array->shape = T(L, "_1[_2]", tuple->shape, index);
  array->strides = T(L, "_1[_2]", tuple->strides, index);
  type->array = array;
  type->dtype = DT_UNKNOWN;
  type->dtype_expr = T(L, "_1.dtype.element_ty", array->pointer);
  Node *node = T(L, "_1[_2]", tuple->pointer, index);
  node->type = type;
  return node;
}

/* tuple[i] with i the counter of a ct.static_iter(range(...)): a constexpr in Triton's
 * tl.static_range, which indexes a tuple as it is; its elements must be of one type. */
static Node *counter_tuple_subscript(Lowerer *L, Node *expr, Node *base, Node *index) {
  TypeInfo *tuple = base->type;
  if (tuple->array)
    return tuple_array_item(L, tuple->array, index);
  TypeInfo *type = lower_static_element_type(L, expr, tuple, "indexing with a ct.static_iter counter");
  expr->u.subscript.value = base;
  expr->u.subscript.slice = index;
  return typed(expr, type);
}

/* tuple[i] with i known when the kernel compiles, not here (`(ct.float16, ct.float32)[D]`,
 * `(64, 128)[MODE]`, D and MODE ct.Constant parameters): Triton indexes the tuple while it
 * compiles, as cuTile does; the item is a dtype when every item is one (plain dtypes: their
 * Triton dtype is the item), else of the type the items share, as for a loop counter. */
static Node *constexpr_tuple_subscript(Lowerer *L, Node *expr, Node *base, Node *index) {
  TypeInfo *tuple = base->type;
  bool dtypes = true;
  for (int k = 0; k < tuple->count; k++) {
    const TypeInfo *e = tuple->elts[k];
    dtypes &= e && e->kind == VAL_DTYPE;
    if (e && e->kind == VAL_DTYPE && (e->dtype == DT_UNKNOWN || e->dtype == DT_TFLOAT32 || dtype_is_coded(e->dtype)))
      lower_error(L, expr, "a tuple holding the dtype %s indexed by a value known only when the kernel compiles "
                  "cannot be converted (the converted kernel holds such tiles in another Triton dtype, chosen "
                  "where the dtype is known at conversion)",
                  e->dtype == DT_UNKNOWN ? "of an array" : dtype_info(e->dtype)->cutile);
  }
  Node *item = T(L, "_1[_2]", base, index);
  if (dtypes) {
    TypeInfo *type = type_new(L->ctx, VAL_DTYPE);
    type->dtype = DT_UNKNOWN;
    type->dtype_expr = item;
    return typed(item, type);
  }
  return typed(item, lower_static_element_type(L, expr, tuple, "indexing with a value known when the kernel compiles"));
}

static Node *lower_tuple_subscript(Lowerer *L, Node *expr, Node *base, Node *index) {
  long long i;
  if (!constant_index(index, &i) && index->kind == N_NAME && index->type && index->type->static_counter)
    return counter_tuple_subscript(L, expr, base, index);
  TypeInfo *tuple = base->type;
  if (!constant_index(index, &i) && tuple->count < 0 && !tuple->array && tuple->not_bfloat16 && index->type &&
      index->type->kind == VAL_CONST) { /* a tuple argument indexed with a constexpr (`t[len(t) - 1]`) */
    TypeInfo *type = type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
    type->not_bfloat16 = true;
    return typed(T(L, "_1[_2]", base, index), type);
  }
  if (!constant_index(index, &i) && index->type && index->type->kind == VAL_CONST && !index->type->is_float &&
      !index->type->const_tuple && !tuple->array && tuple->count > 0 && tuple->elts)
    return constexpr_tuple_subscript(L, expr, base, index);
  if (!constant_index(index, &i))
    lower_error(L, expr->u.subscript.slice, "a tuple index in tile code must be a constant (or the counter of a "
                "ct.static_iter(range(...)) loop, or a value known when the kernel compiles)");
  if (tuple->count >= 0 && i < 0)
    i += tuple->count;
  if (tuple->count >= 0 && (i < 0 || i >= tuple->count))
    lower_error(L, expr, "tuple index %lld out of range for %d elements", i, tuple->count);
  if (base->kind == N_TUPLE && !base->parenthesized && i < base->u.list.elts.count)
    return base->u.list.elts.items[i];
  if (tuple->array && tuple->array_items && (i < 0 || i >= 64 || !(tuple->array_items >> i & 1))) {
    /* a number of a tuple of arrays and numbers: a kernel scalar */
    TypeInfo *number = type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
    number->not_bfloat16 = true;
    return typed(T(L, "_1[_2]", base, new_int(L, i)), number);
  }
  if (tuple->array && tuple->elts && i < tuple->count && tuple->elts[i] && tuple->elts[i]->kind == VAL_ARRAY)
    return typed(T(L, "_1", node_copy_tree(&L->ctx->arena, tuple->elts[i]->array->pointer)), tuple->elts[i]);
  if (tuple->array) /* an element of a tuple-of-arrays parameter: an array */
    return tuple_array_item(L, tuple->array, new_int(L, i));
  Node *item = T(L, "_1[_2]", base, new_int(L, i));
  TypeInfo *type = tuple->count > i ? tuple->elts[i] : type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
  if (tuple->count <= i && tuple->not_bfloat16) /* a tuple argument of numbers: int32, float32 or bool */
    type->not_bfloat16 = true;
  else if (tuple->count <= i && tuple->dtype == DT_INT64) { /* an int64-indexed array's (int64_pieces) */
    item = T(L, "tl.cast(_1, tl.int64)", item);
    type->dtype = DT_INT64;
  } else if (tuple->count <= i) /* an array's shape or strides */
    type->dtype = DT_INT32;
  return typed(item, type);
}

Node *lower_tuple_item(Lowerer *L, Node *expr, Node *base, int index) {
  if (base->kind == N_TUPLE && index < base->u.list.elts.count) /* written here: the item itself */
    return base->u.list.elts.items[index];
  Node *subscript = arena_alloc(&L->ctx->arena, sizeof(Node));
  subscript->kind = N_SUBSCRIPT;
  subscript->span = expr->span;
  subscript->u.subscript.value = base;
  subscript->u.subscript.slice = new_int(L, index);
  subscript->u.subscript.ctx = CTX_LOAD;
  return lower_tuple_subscript(L, subscript, base, new_int(L, index));
}

Node *lower_tuple_entry(Lowerer *L, Node *tuple, int index) {
  if (tuple->kind == N_TUPLE && index < tuple->u.list.elts.count)
    return tuple->u.list.elts.items[index];
  TypeInfo *entry = tuple->type->elts[index];
  bool known = entry && entry->kind == VAL_CONST && !entry->is_float && entry->dtype != DT_UNKNOWN;
  Node *item = known ? new_int(L, entry->int_value) : T(L, "_1[_2]", tuple, new_int(L, index));
  item->type = entry;
  return item;
}

/* c[i] of a Constant parameter holding a tuple (`shape: ct.Constant[tuple]`): Triton holds
 * the tuple as a constexpr, and its items (tuples again, for a nested one) as constexprs. */
static Node *lower_constant_tuple_item(Lowerer *L, Node *expr, Node *base) {
  Node *index = lower_expr(L, expr->u.subscript.slice);
  long long i;
  if (!constant_index(index, &i))
    lower_error(L, expr->u.subscript.slice, "an index of a Constant parameter's tuple must be a constant");
  return typed(T(L, "_1[_2]", base, new_int(L, i)), type_launch_tuple_item(L->ctx));
}

/* t[None, :], t[:, None], t[..., None]: expand_dims, same syntax in Triton. */
/* `t[..., None]`: Triton indexes tensors with None and ':' only ("unsupported tensor index:
 * Ellipsis"), so the '...' becomes the ':'s it stands for, one per axis no other item names. */
static void spell_out_ellipsis(Lowerer *L, Node *expr, int rank, int explicit_axes) {
  if (rank < 0)
    lower_error(L, expr, "'...' indexing a tile whose rank is not known at conversion cannot be converted");
  Node *slice = expr->u.subscript.slice;
  int count = slice->kind == N_TUPLE ? slice->u.list.elts.count : 1;
  Node **items = slice->kind == N_TUPLE ? slice->u.list.elts.items : &slice;
  Node *spelled = arena_alloc(&L->ctx->arena, sizeof(Node));
  spelled->kind = N_TUPLE;
  spelled->span = slice->span;
  for (int i = 0; i < count; i++) {
    if (!(items[i]->kind == N_CONSTANT && items[i]->u.constant.kind == CONST_ELLIPSIS)) {
      node_list_push(&L->ctx->arena, &spelled->u.list.elts, items[i]);
      continue;
    }
    for (int k = 0; k < rank - explicit_axes; k++) {
      Node *all = arena_alloc(&L->ctx->arena, sizeof(Node));
      all->kind = N_SLICE;
      all->span = items[i]->span;
      node_list_push(&L->ctx->arena, &spelled->u.list.elts, all);
    }
  }
  if (!spelled->u.list.elts.count) /* t[...] of a 0-d tile: Triton has no empty index */
    lower_error(L, expr, "'...' alone indexing a 0-d tile cannot be converted (it is the tile itself)");
  expr->u.subscript.slice = spelled->u.list.elts.count == 1 ? spelled->u.list.elts.items[0] : spelled;
  expr->rewritten = true;
}

static Node *lower_tile_subscript(Lowerer *L, Node *expr, Node *base) {
  Node *slice = expr->u.subscript.slice;
  int count = slice->kind == N_TUPLE ? slice->u.list.elts.count : 1;
  Node **items = slice->kind == N_TUPLE ? slice->u.list.elts.items : &expr->u.subscript.slice;
  for (int i = 0; i < count; i++) { /* np.newaxis is None (Triton reads no numpy global) */
    const char *python = items[i]->kind == N_ATTRIBUTE ? resolve_python_name(L->conv, items[i]) : NULL;
    if (python && strcmp(python, "numpy.newaxis") == 0) {
      Node *none = T(L, "None");
      none->span = items[i]->span;
      items[i] = none;
      expr->rewritten = true;
    }
  }
  slice = expr->u.subscript.slice;
  int added = 0, ellipses = 0;
  for (int i = 0; i < count; i++) {
    Node *item = items[i];
    bool is_none = item->kind == N_CONSTANT && item->u.constant.kind == CONST_NONE;
    bool is_all = item->kind == N_SLICE && !item->u.slice.lower && !item->u.slice.upper && !item->u.slice.step;
    bool is_ellipsis = item->kind == N_CONSTANT && item->u.constant.kind == CONST_ELLIPSIS;
    if (!is_none && !is_all && !is_ellipsis)
      lower_error(L, item, "tiles cannot be indexed; only None, ':' and '...' may appear (use ct.extract)");
    added += is_none;
    ellipses += is_ellipsis;
  }
  if (ellipses > 1)
    lower_error(L, slice, "at most one '...' may index a tile");
  expr->u.subscript.value = base;
  const TypeInfo *input = base->type;
  if (ellipses)
    spell_out_ellipsis(L, expr, input->rank, count - added - ellipses);
  int rank = input->rank < 0 ? -1 : input->rank + added;
  TypeInfo *type = type_tile(L->ctx, input->dtype, rank, NULL);
  type->dtype_expr = input->dtype_expr;
  if (rank < 0 || rank > C2T_MAX_RANK)
    return typed(expr, type);
  /* the new dimensions: 1 for each None, the input's for ':' and '...' */
  int explicit_axes = count - added - ellipses, out = 0, in = 0;
  for (int i = 0; i < count; i++) {
    Node *item = items[i];
    bool is_none = item->kind == N_CONSTANT && item->u.constant.kind == CONST_NONE;
    bool is_ellipsis = item->kind == N_CONSTANT && item->u.constant.kind == CONST_ELLIPSIS;
    int copy = is_none ? 0 : is_ellipsis ? input->rank - explicit_axes : 1;
    if (is_none) {
      type->shape[out] = 1;
      type->dims[out++] = new_int(L, 1);
    }
    for (int k = 0; k < copy && in < input->rank; k++, in++) {
      type->shape[out] = input->shape[in];
      type->dims[out++] = input->dims[in];
    }
  }
  for (; in < input->rank && out < rank; in++, out++) { /* axes not named keep their place */
    type->shape[out] = input->shape[in];
    type->dims[out] = input->dims[in];
  }
  return typed(expr, type);
}

/* A bound of a tuple slice: absent (None), or an integer known at conversion. */
static bool slice_bound(Lowerer *L, Node *bound, long long *value, bool *given) {
  *given = false;
  if (!bound || (bound->kind == N_CONSTANT && bound->u.constant.kind == CONST_NONE))
    return true;
  Node *lowered = lower_expr(L, bound);
  if (!constant_index(lowered, value))
    return false;
  *given = true;
  return true;
}

/* t[a:b:c] of a tuple (`x.shape[:2]`), bounds known at conversion: the tuple of the items it
 * selects, as Python selects them; of a tuple whose length is known only when Triton compiles
 * (an array of a rank not known yet), the same slice there. */
static Node *lower_tuple_slice(Lowerer *L, Node *expr, Node *base) {
  Node *slice = expr->u.subscript.slice;
  long long bounds[3];
  bool given[3];
  Node *parts[3] = {slice->u.slice.lower, slice->u.slice.upper, slice->u.slice.step};
  for (int i = 0; i < 3; i++)
    if (!slice_bound(L, parts[i], &bounds[i], &given[i]))
      lower_error(L, parts[i], "a tuple is sliced in tile code only with integers known at conversion");
  long long step = given[2] ? bounds[2] : 1;
  if (step == 0)
    lower_error(L, slice, "slice step cannot be zero");
  TypeInfo *tuple = base->type;
  if (tuple->count < 0 || tuple->array) { /* sliced when Triton compiles */
    if (tuple->array)
      lower_error(L, expr, "a tuple of arrays cannot be sliced in tile code");
    expr->u.subscript.value = base;
    TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
    *type = *tuple;
    return typed(expr, type);
  }
  long long n = tuple->count, start, stop;
  if (step > 0) {
    start = !given[0] ? 0 : bounds[0] < 0 ? (bounds[0] + n < 0 ? 0 : bounds[0] + n) : (bounds[0] > n ? n : bounds[0]);
    stop = !given[1] ? n : bounds[1] < 0 ? (bounds[1] + n < 0 ? 0 : bounds[1] + n) : (bounds[1] > n ? n : bounds[1]);
  } else {
    start = !given[0] ? n - 1 : bounds[0] < 0 ? (bounds[0] + n < 0 ? -1 : bounds[0] + n) : (bounds[0] >= n ? n - 1 : bounds[0]);
    stop = !given[1] ? -1 : bounds[1] < 0 ? (bounds[1] + n < 0 ? -1 : bounds[1] + n) : (bounds[1] >= n ? n - 1 : bounds[1]);
  }
  Node *result = T0(L, "()");
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(n + 1));
  for (long long i = start; step > 0 ? i < stop : i > stop; i += step) {
    Node *item = lower_tuple_item(L, expr, node_copy_tree(&L->ctx->arena, base), (int)i);
    type->elts[type->count++] = item->type;
    node_list_push(&L->ctx->arena, &result->u.list.elts, item);
  }
  return typed(result, type);
}

static Node *lower_subscript(Lowerer *L, Node *expr) {
  Node *base = lower_expr(L, expr->u.subscript.value);
  if (base->type && base->type->kind == VAL_TUPLE && expr->u.subscript.slice->kind == N_SLICE)
    return lower_tuple_slice(L, expr, base);
  if (base->type && base->type->kind == VAL_TUPLE) {
    Node *index = lower_expr(L, expr->u.subscript.slice);
    return lower_tuple_subscript(L, expr, base, index);
  }
  if (base->type && base->type->kind == VAL_LIST)
    return lower_list_item(L, expr, base->type, lower_expr(L, expr->u.subscript.slice));
  Node *slice = expr->u.subscript.slice;
  if (base->type && base->type->kind == VAL_TILE && base->type->rank == 0 && base->type->not_bfloat16 &&
      base->kind == N_SUBSCRIPT && slice->kind == N_CONSTANT && slice->u.constant.kind == CONST_NUMBER) {
    /* cfg[0][1] of a tuple argument: its item cfg[0] is a tuple again (nested), as Triton
       takes the argument; a scalar there fails Triton's compile, as cuTile's */
    TypeInfo *tuple = type_new(L->ctx, VAL_TUPLE);
    tuple->count = -1;
    tuple->not_bfloat16 = true;
    base->type = tuple;
    return lower_tuple_subscript(L, expr, base, lower_expr(L, slice));
  }
  if (base->type && base->type->kind == VAL_TILE)
    return lower_tile_subscript(L, expr, base);
  if (base->type && base->type->kind == VAL_ARRAY)
    lower_error(L, expr, "arrays cannot be indexed in tile code (use ct.load or ct.gather)");
  if (base->type && base->type->kind == VAL_CONST && base->type->dtype == DT_UNKNOWN && base->type->const_tuple)
    return lower_constant_tuple_item(L, expr, base);
  lower_error(L, expr, "%s cannot be indexed here", type_describe(L->ctx, base->type));
}

/* ------------------------------------------------------ other operators */

/* A tuple display whose items are all arrays (`arrs = (x, z)`, `ct.static_iter((x, z))`): its
 * items as one tuple of arrays, as a tuple-of-arrays parameter is, the pointers `(x, z)`, the
 * shapes `(x_shape, z_shape)` and the strides, which a ct.static_iter counter indexes while Triton
 * compiles (tuple_array_item: through pointers); an item indexed by a number is that array itself
 * (lower_tuple_subscript). NULL where an item is no plain array (a tiled view, raw memory). */
static ArrayRef *arrays_of_items(Lowerer *L, const TypeInfo *tuple) {
  if (tuple->count <= 0)
    return NULL;
  Node *pointers = T0(L, "()"), *shapes = T0(L, "()"), *strides = T0(L, "()");
  bool int64_index = false;
  for (int i = 0; i < tuple->count; i++) {
    const TypeInfo *item = tuple->elts[i];
    if (!item || item->kind != VAL_ARRAY || !item->array || item->tiled || item->raw_memory)
      return NULL;
    node_list_push(&L->ctx->arena, &pointers->u.list.elts, node_copy_tree(&L->ctx->arena, item->array->pointer));
    node_list_push(&L->ctx->arena, &shapes->u.list.elts, node_copy_tree(&L->ctx->arena, item->array->shape));
    node_list_push(&L->ctx->arena, &strides->u.list.elts, node_copy_tree(&L->ctx->arena, item->array->strides));
    int64_index |= item->array->int64_index; /* reading every shape as int64 is never wrong */
  }
  ArrayRef *array = arena_alloc(&L->ctx->arena, sizeof(ArrayRef));
  array->pointer = pointers;
  array->shape = shapes;
  array->strides = strides;
  array->int64_index = int64_index;
  return array;
}

/* A tuple display, lowered item by item; a starred item (`(*prefix, i)`) is the items of
 * `prefix`, a tuple of a length known here, each in its place, as cuTile takes them. */
static Node *lower_tuple(Lowerer *L, Node *expr) {
  NodeList *elts = &expr->u.list.elts, lowered = {0};
  for (int i = 0; i < elts->count; i++) {
    Node *item = elts->items[i];
    if (item->kind != N_STARRED) {
      node_list_push(&L->ctx->arena, &lowered, lower_expr(L, item));
      continue;
    }
    Node *value = lower_expr(L, item->u.starred.value);
    if (!value->type || value->type->kind != VAL_TUPLE || !value->type->elts || value->type->count < 0)
      lower_error(L, item, "a starred item of a tuple must be a tuple whose length is known when converting, not %s",
                  type_describe(L->ctx, value->type));
    for (int k = 0; k < value->type->count; k++)
      node_list_push(&L->ctx->arena, &lowered,
                     lower_tuple_item(L, item, k ? node_copy_tree(&L->ctx->arena, value) : value, k));
  }
  *elts = lowered;
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = elts->count;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(elts->count + 1));
  for (int i = 0; i < elts->count; i++)
    type->elts[i] = elts->items[i]->type;
  type->array = arrays_of_items(L, type);
  return typed(expr, type);
}

static bool is_scalar_value(const TypeInfo *type) {
  return type && (type->kind == VAL_CONST || (type->kind == VAL_TILE && type->rank == 0));
}

/* a and b and c: Triton takes two operands at a time. Where every operand is a scalar, a
 * bool known here decides as a condition reads it: True drops out of an `and` (False out
 * of an `or`), False decides an `and` (True an `or`) — `t.shape == (16,) and (B, 2) !=
 * (B, 3)` is `B == 16`, not `B == 16 and True`. Of constexprs it is a constexpr, so that
 * an `if` on it is one Triton decides when it compiles: each branch then learns the ranks
 * of its own arrays (`if A.ndim == 1 and MODE == 0:` must not fix A's rank for the rest). */
static Node *lower_bool_op(Lowerer *L, Node *expr) {
  NodeList *values = &expr->u.bool_op.values;
  check_short_circuit(L, expr);
  bool is_and = expr->u.bool_op.op == AOP_AND, all_scalar = true;
  Node **lowered = values->items; /* each operand lowered in its place */
  for (int i = 0; i < values->count; i++) {
    Node *source = values->items[i];
    lowered[i] = lower_expr(L, source);
    refuse_coded(L, source, is_and ? "`and`" : "`or`", lowered[i]->type, 0);
    all_scalar = all_scalar && is_scalar_value(lowered[i]->type);
  }
  Node *result = NULL;
  for (int i = 0; i < values->count; i++) {
    const TypeInfo *type = lowered[i]->type;
    if (all_scalar && type->kind == VAL_CONST && type->dtype == DT_BOOL) {
      if ((type->int_value != 0) == is_and)
        continue; /* True in an `and`, False in an `or`: no effect */
      Node *decided = T0(L, is_and ? "False" : "True");
      decided->type = type_const_bool(L->ctx, !is_and);
      return decided;
    }
    if (!result) {
      result = lowered[i];
      continue;
    }
    bool constant = result->type && result->type->kind == VAL_CONST && lowered[i]->type->kind == VAL_CONST;
    result = is_and ? T(L, "_1 and _2", result, lowered[i]) : T(L, "_1 or _2", result, lowered[i]);
    if (constant) { /* constexprs: a constexpr, which Triton decides when it compiles (an `if` on it too) */
      result->type = type_new(L->ctx, VAL_CONST);
      result->type->dtype = DT_UNKNOWN;
      result->type->loose = true;
    } else
      result->type = type_tile(L->ctx, DT_BOOL, 0, NULL);
  }
  if (!result) { /* every operand known and without effect */
    result = T0(L, is_and ? "True" : "False");
    result->type = type_const_bool(L->ctx, is_and);
  }
  return result;
}

/* a < b < c -> (a < b) & (b < c) */
static Node *lower_compare(Lowerer *L, Node *expr) {
  Node *left = lower_expr(L, expr->u.compare.left);
  Node *result = NULL;
  for (int i = 0; i < expr->u.compare.count; i++) {
    Node *right = lower_expr(L, expr->u.compare.comparators[i]);
    Node *pair = lower_comparison(L, expr, expr->u.compare.ops[i], left, right);
    if (result) {
      TypeInfo *type = pair->type;
      result = T(L, "_1 & _2", result, pair);
      result->type = type;
    } else {
      result = pair;
    }
    left = right;
  }
  return result;
}

Node *lower_expr(Lowerer *L, Node *expr) {
  if (++L->depth > C2T_MAX_PARSE_DEPTH)
    lower_limit(L, expr, "nested expressions in tile code", C2T_MAX_PARSE_DEPTH);
  Node *result;
  if (L->assumption_count && (expr->kind == N_COMPARE || (expr->kind == N_UNARY_OP && expr->u.unary_op.op == AOP_NOT)) &&
      assumed_condition(L, expr) >= 0) { /* decided in this version of the function (lower_version.c) */
    L->depth--;
    return lower_condition(L, expr);
  }
  switch (expr->kind) {
  case N_CONSTANT: result = lower_constant(L, expr); break;
  case N_STRING: result = typed(expr, type_new(L->ctx, VAL_STRING)); break;
  case N_NAME: result = lower_name(L, expr); break;
  case N_ATTRIBUTE: result = lower_attribute(L, expr); break;
  case N_SUBSCRIPT: result = lower_subscript(L, expr); break;
  case N_CALL: result = lower_call(L, expr); break;
  case N_TUPLE: result = lower_tuple(L, expr); break;
  case N_BOOL_OP: result = lower_bool_op(L, expr); break;
  case N_COMPARE: result = lower_compare(L, expr); break;
  case N_IF_EXP: result = lower_conditional_expr(L, expr); break;
  case N_BIN_OP: {
    Node *left = lower_expr(L, expr->u.bin_op.left);
    Node *right = lower_expr(L, expr->u.bin_op.right);
    result = lower_binary_operator(L, expr, expr->u.bin_op.op, left, right);
    break;
  }
  case N_UNARY_OP:
    result = lower_unary_operator(L, expr, expr->u.unary_op.op, lower_expr(L, expr->u.unary_op.operand));
    break;
  default: lower_error(L, expr, "this expression is not valid in tile code");
  }
  L->depth--;
  if (result->parenthesized && result != expr)
    result->parenthesized = false;
  if (result != expr) /* a node of the source in another place (`ct.transpose(t, 0, 0)` is t): the */
    result->rewritten = true; /* statement is written from the tree, not copied from the source */
  return result;
}
