/*
 * lower_stmt.c — statements of tile functions.
 *
 * Assignments bind the types of the names they assign; `if` on a constant
 * known at conversion keeps only its live branch (lower_control.c), on a
 * constexpr stays an `if` (Triton folds constexpr conditions as cuTile does); `for`
 * over `range(...)` stays a `for`, over `ct.static_iter(range(...))` becomes
 * `tl.static_range`, over `ct.static_iter(a_tuple)` a `tl.static_range`
 * loop that indexes the tuple; `break` and `continue`, which Triton lacks,
 * are rewritten by lower_control.c.
 *
 * Types flow through control flow: a name that a loop assigns loses a
 * constant value it had before (it is a loop-carried run-time value, in
 * the condition and body as after the loop), each branch of an `if` starts
 * from the types before it, and after it a name keeps a constant only where
 * both branches agree (or the condition is known). A `while` condition that
 * needs statements queued before it (L->pending) is refused: they would run
 * once, not before each test.
 */
#include <string.h>

#include "lower.h"
#include "lower_math.h"
#include "lower_memory.h"

static void lower_stmt(Lowerer *L, Node *stmt, NodeList *out);

static void push_stmt(Lowerer *L, NodeList *out, Node *stmt) { node_list_push(&L->ctx->arena, out, stmt); }

/* Bind the names of an assignment target to the value's type. */
static void bind_target(Lowerer *L, Node *target, TypeInfo *type) {
  if (target->kind == N_NAME) {
    scope_bind(L, target->u.name.id, type);
    return;
  }
  if (target->kind == N_TUPLE || target->kind == N_LIST) {
    NodeList *elts = &target->u.list.elts;
    if (type && type->opaque) { /* `bid_m, bid_n = imported(...)`: as many values as names */
      for (int i = 0; i < elts->count; i++) {
        TypeInfo *item = type_tile(L->ctx, DT_UNKNOWN, -1, NULL);
        item->opaque = true;
        bind_target(L, elts->items[i], item);
      }
      return;
    }
    if (type && type->kind == VAL_TUPLE && type->count < 0 && !type->array) {
      /* `m, n = view.shape` of a rank known only when Triton compiles (or a tuple argument):
         Triton unpacks the tuple then, refusing another length; shape entries are int32 */
      for (int i = 0; i < elts->count; i++) {
        TypeInfo *item = type_tile(L->ctx, type->not_bfloat16 ? DT_UNKNOWN : DT_INT32, 0, NULL);
        item->not_bfloat16 = type->not_bfloat16;
        bind_target(L, elts->items[i], item);
      }
      return;
    }
    if (type && type->kind == VAL_CONST && type->const_tuple && type->dtype == DT_UNKNOWN) {
      /* `a, b = S` of a constant tuple (ct.Constant[tuple], a static shape): its items are
         constants known when Triton compiles (which checks the length) */
      for (int i = 0; i < elts->count; i++)
        bind_target(L, elts->items[i], type_launch_tuple_item(L->ctx));
      return;
    }
    if (!type || type->kind != VAL_TUPLE || type->count != elts->count)
      lower_error(L, target, "cannot unpack %s into %d names", type_describe(L->ctx, type), elts->count);
    for (int i = 0; i < elts->count; i++)
      bind_target(L, elts->items[i], type->elts[i]);
    return;
  }
  lower_error(L, target, "tile code can only assign to names (tiles and arrays are immutable)");
}

/* Whether `type` is a function or a tuple of functions only (`fs = (ct.exp, ct.sin)`). */
static bool only_functions(const TypeInfo *type, int depth) {
  if (!type || depth > C2T_MAX_PARSE_DEPTH)
    return false;
  if (type->kind == VAL_FUNCTION)
    return true;
  if (type->kind != VAL_TUPLE || !type->elts || type->count <= 0)
    return false;
  for (int i = 0; i < type->count; i++)
    if (!only_functions(type->elts[i], depth + 1))
      return false;
  return true;
}

static void lower_assign(Lowerer *L, Node *stmt, NodeList *out) {
  Node *value = lower_expr(L, stmt->u.assign.value);
  Node *first = stmt->u.assign.targets.items[0];
  if (value->type && value->type->kind == VAL_TUPLE && value->type->count < 0 && value->type->dtype == DT_INT64 &&
      (first->kind == N_TUPLE || first->kind == N_LIST)) /* `m, n = x.shape` of an int64-indexed array */
    value = lower_int64_pieces(L, value, first->u.list.elts.count);
  stmt->u.assign.value = value;
  ReuseValue reuse = reuse_value(L, value); /* read before the names are bound again */
  for (int i = 0; i < stmt->u.assign.targets.count; i++) {
    bind_target(L, stmt->u.assign.targets.items[i], value->type);
    if (stmt->u.assign.targets.items[i]->kind == N_NAME)
      reuse_bind(L, stmt->u.assign.targets.items[i]->u.name.id, reuse);
  }
  if (value->type && value->type->kind == VAL_ARRAY && stmt->u.assign.targets.count == 1 &&
      stmt->u.assign.targets.items[0]->kind == N_NAME)
    return; /* an array view (x.slice(...)): its pieces are named already */
  if (value->type && value->type->kind == VAL_TUPLE && value->type->array && value->type->count > 0 &&
      value->type->elts && stmt->u.assign.targets.count == 1 && stmt->u.assign.targets.items[0]->kind == N_NAME)
    return; /* `arrs = (x, z)`: the name's type holds its arrays, which its uses read */
  if (value->type && value->type->kind == VAL_TUPLE && value->type->elts && value->type->count > 0 &&
      stmt->u.assign.targets.count == 1 &&
      (stmt->u.assign.targets.items[0]->kind == N_TUPLE || stmt->u.assign.targets.items[0]->kind == N_LIST)) {
    bool arrays = true; /* `dst, src = Y, X`: each name is another name of its array, nothing to run */
    for (int i = 0; i < value->type->count && arrays; i++)
      arrays = value->type->elts[i] && value->type->elts[i]->kind == VAL_ARRAY;
    if (arrays)
      return;
  }
  if (value->type && (value->type->kind == VAL_ENUM || only_functions(value->type, 0)))
    return; /* `pad = ct.PaddingMode.ZERO`, `f = ct.exp`: the name's type holds the value, which its uses read */
  if (value->type && value->type->python_object && stmt->u.assign.targets.count == 1 &&
      stmt->u.assign.targets.items[0]->kind == N_NAME) {
    /* `mode = Mode.MUL`: Triton makes a tensor of a plain local, which an Enum member cannot be */
    NodeList made = template_stmts(L->ctx, "_1: tl.constexpr = _2\n",
                                   TEMPLATE_NODES(stmt->u.assign.targets.items[0], value));
    made.items[0]->span = stmt->span;
    push_stmt(L, out, made.items[0]);
    return;
  }
  Node *chosen = stmt->u.assign.targets.count == 1 ? memory_choice_stmt(L, stmt->u.assign.targets.items[0], value) : NULL;
  if (chosen)
    chosen->span = stmt->span; /* the comments around the statement stay around its choice */
  push_stmt(L, out, chosen ? chosen : stmt);
}

static void lower_ann_assign(Lowerer *L, Node *stmt, NodeList *out) {
  if (!stmt->u.ann_assign.value)
    return; /* a bare annotation declares nothing at run time */
  Node *value = lower_expr(L, stmt->u.ann_assign.value);
  NodeList made = template_stmts(L->ctx, "_1 = _2", TEMPLATE_NODES(stmt->u.ann_assign.target, value));
  Node *result = made.items[0];
  result->span = stmt->span;
  bind_target(L, stmt->u.ann_assign.target, value->type);
  push_stmt(L, out, result);
}

/* x += y: the operator with cuTile's semantics, written back as `x += y`
 * when it stays a plain operator. */
static void lower_aug_assign(Lowerer *L, Node *stmt, NodeList *out) {
  Node *target = stmt->u.aug_assign.target;
  if (target->kind != N_NAME)
    lower_error(L, target, "tile code can only assign to names (tiles and arrays are immutable)");
  Node *current = T(L, "_1", new_name(L, arena_strndup(&L->ctx->arena, target->u.name.id.text, (size_t)target->u.name.id.len)));
  current = lower_expr(L, current);
  Node *value = lower_expr(L, stmt->u.aug_assign.value);
  Node *combined = lower_binary_operator(L, stmt, stmt->u.aug_assign.op, current, value);
  if (combined->kind == N_BIN_OP && combined->u.bin_op.left == current && combined->u.bin_op.right == value) {
    stmt->u.aug_assign.value = value;
  } else {
    NodeList made = template_stmts(L->ctx, "_1 = _2", TEMPLATE_NODES(target, combined));
    stmt = made.items[0];
  }
  scope_bind(L, target->u.name.id, combined->type);
  push_stmt(L, out, stmt);
}

static void lower_expr_stmt(Lowerer *L, Node *stmt, NodeList *out) {
  Node *value = stmt->u.expr_stmt.value;
  if (value->kind == N_STRING) { /* docstrings and string statements stay */
    push_stmt(L, out, stmt);
    return;
  }
  stmt->u.expr_stmt.value = lower_expr(L, value);
  if (stmt->u.expr_stmt.value->kind == N_CONSTANT && stmt->u.expr_stmt.value->u.constant.kind == CONST_NONE)
    return; /* the operation lowered to nothing (a hint, a static check) */
  Node *chosen = memory_choice_stmt(L, NULL, stmt->u.expr_stmt.value);
  if (chosen)
    chosen->span = stmt->span; /* the comments around the statement stay around its choice */
  push_stmt(L, out, chosen ? chosen : stmt);
}

/* ---------------------------------------- names assigned in a block */

/* No limit of its own: the arrays grow in the arena (names past 256 used
 * to be dropped, their constants then kept across a loop that changes them). */
Assigned *new_assigned(Lowerer *L) {
  Assigned *A = arena_alloc(&L->ctx->arena, sizeof(Assigned));
  A->L = L;
  return A;
}

void add_assigned_target(Assigned *A, const Node *target) {
  if (!target)
    return;
  if (target->kind == N_NAME) {
    for (int i = 0; i < A->count; i++)
      if (str_same(A->names[i], target->u.name.id))
        return;
    if (A->count == A->capacity) {
      A->capacity = A->capacity ? 2 * A->capacity : 16;
      Str *bigger = arena_alloc(&A->L->ctx->arena, sizeof(Str) * (size_t)A->capacity);
      if (A->count)
        memcpy(bigger, A->names, sizeof(Str) * (size_t)A->count);
      A->names = bigger;
    }
    A->names[A->count++] = target->u.name.id;
  } else if (target->kind == N_TUPLE || target->kind == N_LIST) {
    for (int i = 0; i < target->u.list.elts.count; i++)
      add_assigned_target(A, target->u.list.elts.items[i]);
  }
}

/* The names a block assigns (nested blocks included), before lowering.
 * The recursion is as deep as the blocks nest: the tokenizer bounds that
 * (C2T_MAX_INDENT_LEVELS), so no depth is cut off here. */
void collect_assigned(Assigned *A, const NodeList *stmts, int depth) {
  for (int i = 0; i < stmts->count; i++) {
    const Node *stmt = stmts->items[i];
    switch (stmt->kind) {
    case N_ASSIGN:
      for (int t = 0; t < stmt->u.assign.targets.count; t++)
        add_assigned_target(A, stmt->u.assign.targets.items[t]);
      break;
    case N_AUG_ASSIGN: add_assigned_target(A, stmt->u.aug_assign.target); break;
    case N_ANN_ASSIGN: add_assigned_target(A, stmt->u.ann_assign.target); break;
    case N_FOR:
      add_assigned_target(A, stmt->u.for_.target);
      collect_assigned(A, &stmt->u.for_.body, depth + 1);
      collect_assigned(A, &stmt->u.for_.orelse, depth + 1);
      break;
    case N_WHILE:
      collect_assigned(A, &stmt->u.while_.body, depth + 1);
      break;
    case N_IF:
      collect_assigned(A, &stmt->u.if_.body, depth + 1);
      collect_assigned(A, &stmt->u.if_.orelse, depth + 1);
      break;
    default: break;
    }
  }
}

static void save_assigned(Lowerer *L, Assigned *A) {
  if (!A->types && A->count)
    A->types = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)A->count);
  for (int i = 0; i < A->count; i++) {
    Variable *var = scope_lookup(L, A->names[i]);
    A->types[i] = var ? var->type : NULL;
  }
}

/* A constant whose value is no longer fixed (a loop changes it, branches
 * disagree) becomes a run-time scalar (cuTile makes a loop variable of a
 * loose constant: `i = 0` is an int32 loop-carried value). Its dtype is
 * left to Triton (DT_UNKNOWN), which also gives a Python int carried by a
 * loop int32, and the operations on it stay dtype-generic; it is never
 * bfloat16, so an integer beside it needs no bfloat16 conversion. */
static TypeInfo *concretized(Lowerer *L, TypeInfo *type) {
  if (type && type->kind == VAL_TUPLE && type->elts && !type->array_items) { /* item by item */
    TypeInfo *tuple = type_new(L->ctx, VAL_TUPLE);
    *tuple = *type;
    tuple->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(type->count + 1));
    for (int i = 0; i < type->count; i++)
      tuple->elts[i] = concretized(L, type->elts[i]);
    return tuple;
  }
  if (!type || type->kind != VAL_CONST)
    return type;
  TypeInfo *scalar = type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
  /* Triton carries a Python number as int32, int64, float32 or int1; a strictly typed
     constant (ct.bfloat16(1.0)) keeps its own dtype */
  scalar->not_bfloat16 = type->loose ? true : type->dtype != DT_UNKNOWN && type->dtype != DT_BFLOAT16;
  return scalar;
}

/* Names that a loop body assigns lose their constant values, before the
 * loop (its condition and body see any iteration's value) and after it. */
static void concretize_assigned(Lowerer *L, const NodeList *body, const Node *target) {
  Assigned *A = new_assigned(L);
  collect_assigned(A, body, 0);
  for (int i = 0; i < A->count; i++) {
    if (target && target->kind == N_NAME && str_same(target->u.name.id, A->names[i]))
      continue;
    Variable *var = scope_lookup(L, A->names[i]);
    if (var && var->type && (var->type->kind == VAL_CONST || var->type->kind == VAL_TUPLE))
      var->type = concretized(L, var->type);
  }
}

static bool same_constant(const TypeInfo *a, const TypeInfo *b) {
  return a == b || (a && b && a->kind == VAL_CONST && b->kind == VAL_CONST && a->dtype != DT_UNKNOWN &&
                    a->dtype == b->dtype && a->is_float == b->is_float &&
                    (a->is_float ? a->float_value == b->float_value : a->int_value == b->int_value));
}

/* A tile after an `if` whose branches give it different types (the
 * condition known only when Triton compiles): what both agree on. A rank,
 * dimension or dtype they disagree on is unknown, so an operation that
 * needs it is a located error rather than code typed for one branch only. */
TypeInfo *merged_tile(Lowerer *L, TypeInfo *a, TypeInfo *b) {
  if (a->kind != VAL_TILE || b->kind != VAL_TILE)
    return b;
  TypeInfo *type = type_new(L->ctx, VAL_TILE);
  *type = *b;
  if (a->dtype != b->dtype) {
    type->dtype = DT_UNKNOWN;
    type->dtype_expr = NULL;
    type->not_bfloat16 = math_never_bfloat16(a) && math_never_bfloat16(b);
  }
  if (a->rank != b->rank) {
    type->rank = -1;
    for (int d = 0; d < C2T_MAX_RANK; d++) {
      type->shape[d] = -1;
      type->dims[d] = NULL;
    }
    return type;
  }
  for (int d = 0; d < b->rank && d < C2T_MAX_RANK; d++)
    if (a->shape[d] != b->shape[d] || a->shape[d] < 0) {
      if (a->shape[d] != b->shape[d])
        type->shape[d] = -1;
      if (a->dims[d] != b->dims[d] && a->shape[d] != b->shape[d])
        type->dims[d] = NULL;
    }
  return type;
}

/* merged_tile for branches a constexpr chooses between: also a dimension they write
 * differently (BM in one, BN in the other) is unknown here (`x.shape[d]` in Triton), where
 * after a run-time `if` both branches' dimensions must be the same (cuTile and Triton
 * require it), whatever they are called. */
TypeInfo *merged_constexpr_tile(Lowerer *L, TypeInfo *a, TypeInfo *b) {
  TypeInfo *type = merged_tile(L, a, b);
  if (type == b || type->rank != a->rank || a->rank != b->rank)
    return type;
  for (int d = 0; d < b->rank && d < C2T_MAX_RANK; d++)
    if (a->shape[d] < 0 && b->shape[d] < 0 && !math_same_dim(L, a->dims[d], b->dims[d]))
      type->dims[d] = NULL;
  return type;
}

/* A value after an `if` whose branches give it different values: what both agree on,
 * item by item for tuples (`shape = (16,)` / `shape = (32,)`: each item a run-time number,
 * not the else branch's); tuples of different lengths are a located error at the `if`. */
static TypeInfo *merged_value(Lowerer *L, Node *at, Str name, TypeInfo *a, TypeInfo *b) {
  if (!a || !b || same_constant(a, b))
    return a ? a : b;
  if (a->kind == VAL_CONST || b->kind == VAL_CONST)
    return a->kind == VAL_CONST && b->kind == VAL_CONST ? concretized(L, a)
                                                        : merged_tile(L, concretized(L, a), concretized(L, b));
  if (a->kind == VAL_TUPLE && b->kind == VAL_TUPLE && a->elts && b->elts && !a->array_items && !b->array_items) {
    if (a->count != b->count)
      lower_error(L, at, "'%.*s' is a tuple of %d items in one branch of this `if` and of %d in the other: "
                  "it must have one length after it", name.len, name.text, a->count, b->count);
    TypeInfo *tuple = type_new(L->ctx, VAL_TUPLE);
    *tuple = *a;
    tuple->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(a->count + 1));
    for (int i = 0; i < a->count; i++)
      tuple->elts[i] = merged_value(L, at, name, a->elts[i], b->elts[i]);
    return tuple;
  }
  if (a->kind == VAL_ENUM && b->kind == VAL_ENUM) { /* a padding mode, a rounding mode: chosen here */
    if (a->member && b->member && strcmp(a->member, b->member) == 0)
      return a;
    lower_error(L, at, "'%.*s' is %s in one branch of this `if` and %s in the other: the converter needs one "
                "value (choose the operation in each branch)", name.len, name.text, a->member ? a->member : "?",
                b->member ? b->member : "?");
  }
  if (a->kind == VAL_FUNCTION || b->kind == VAL_FUNCTION) { /* `f = ct.exp` in one branch, `f = ct.sin` in the other */
    if (a->kind == b->kind && a->member && b->member && strcmp(a->member, b->member) == 0)
      return a;
    lower_error(L, at, "'%.*s' is %s in one branch of this `if` and %s in the other: a function is not a run-time "
                "value in the converted kernel (call each in its own branch, or choose by a constexpr in a "
                "conditional expression)", name.len, name.text, a->kind == VAL_FUNCTION ? a->member : type_describe(L->ctx, a),
                b->kind == VAL_FUNCTION ? b->member : type_describe(L->ctx, b));
  }
  if (a->kind == VAL_DTYPE && b->kind == VAL_DTYPE) {
    if (a->dtype == b->dtype && a->dtype != DT_UNKNOWN && !a->tf32_when && !b->tf32_when)
      return a;
    if (a->dtype == DT_TFLOAT32 || b->dtype == DT_TFLOAT32 || a->tf32_when || b->tf32_when)
      lower_error(L, at, "'%.*s' is tfloat32 in only one branch of this `if`: write it as a conditional "
                  "expression (ct.tfloat32 if ... else ...)", name.len, name.text);
    TypeInfo *type = type_new(L->ctx, VAL_DTYPE); /* the name's value when Triton compiles */
    type->dtype = DT_UNKNOWN;
    type->dtype_expr = new_name(L, arena_strndup(&L->ctx->arena, name.text, (size_t)name.len));
    return type;
  }
  return merged_tile(L, a, b);
}

/* The first call in `block` of a name cuda.tile does not have (ct.sigmoid), or of one of its
 * operations with arguments its signature does not take (ct.arange(0, 16)): the reason. */
typedef struct UnknownCall {
  Lowerer *L;
  const char *reason;
} UnknownCall;

static void find_unknown_call(Node *node, void *data) {
  UnknownCall *scan = data;
  if (scan->reason || !node)
    return;
  if (node->kind == N_CALL) {
    const char *member = resolve_ct_member(scan->L->conv, node->u.call.func);
    const OpRow *row = member ? op_find(member) : NULL;
    if (member && (!row || strchr(row->name, '.'))) {
      scan->reason = arena_printf(&scan->L->ctx->arena, "ct.%s is not a name of cuda.tile", member);
      return;
    }
    const char *mismatch = row && row->signature ? call_signature_mismatch(scan->L, node, row->signature) : NULL;
    if (mismatch) {
      scan->reason = arena_printf(&scan->L->ctx->arena, "ct.%s() %s", member, mismatch);
      return;
    }
  }
  node_children(node, find_unknown_call, data);
}

const char *lower_unknown_call(Lowerer *L, const NodeList *block) {
  UnknownCall scan = {L, NULL};
  for (int i = 0; i < block->count && !scan.reason; i++)
    find_unknown_call(block->items[i], &scan);
  return scan.reason;
}

/* A branch of an `if` on a constexpr that calls a name cuda.tile does not
 * have, or one of its operations with arguments it does not take, is not valid
 * cuTile, but cuTile reports it only when it compiles that branch (a value of
 * the constexpr that takes it). The branch becomes tl.static_assert(False,
 * ...): Triton reports it in the same case. */
static bool invalid_branch_to_static_assert(Lowerer *L, NodeList *block) {
  UnknownCall scan = {L, NULL};
  for (int i = 0; i < block->count && !scan.reason; i++)
    find_unknown_call(block->items[i], &scan);
  if (!scan.reason)
    return false;
  char *text = arena_printf(&L->ctx->arena, "tl.static_assert(False, \"%s: this branch is not valid cuTile\")\n",
                            scan.reason);
  NodeList made = template_stmts(L->ctx, text, NULL, 0);
  made.items[0]->span = block->items[0]->span;
  made.items[0]->rewritten = true;
  *block = made;
  return true;
}

/* Two tuples of one length whose items are all integer constants (known or not). */
static bool constant_tuples(const TypeInfo *a, const TypeInfo *b) {
  if (a->kind != VAL_TUPLE || b->kind != VAL_TUPLE || a->count != b->count || a->count < 1 || !a->elts || !b->elts ||
      a->array_items || b->array_items)
    return false;
  for (int k = 0; k < a->count; k++) {
    const TypeInfo *x = a->elts[k], *y = b->elts[k];
    if (!x || !y || x->kind != VAL_CONST || y->kind != VAL_CONST || x->is_float || y->is_float)
      return false;
  }
  return true;
}

/* The tuple after such a choice: item by item, a constant where both agree, else one only
 * Triton knows. */
static TypeInfo *constant_tuple_choice(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  TypeInfo *tuple = type_new(L->ctx, VAL_TUPLE);
  *tuple = *a;
  tuple->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(a->count + 1));
  for (int k = 0; k < a->count; k++)
    tuple->elts[k] = same_constant(a->elts[k], b->elts[k]) ? a->elts[k] : either_constant(L, a->elts[k], b->elts[k]);
  return tuple;
}

/* `type` for a name that may be unbound where it is read next (a use is a located error). */
static TypeInfo *maybe_unbound(Lowerer *L, const TypeInfo *type) {
  TypeInfo *marked = type_new(L->ctx, type->kind);
  *marked = *type;
  marked->maybe_unbound = true;
  return marked;
}

/* `type` marked as one a use of is refused (TypeInfo.path_dependent). */
static TypeInfo *path_dependent(Lowerer *L, const TypeInfo *type) {
  TypeInfo *marked = type_new(L->ctx, type->kind);
  *marked = *type;
  marked->path_dependent = true;
  return marked;
}

/* Whether two tiles are surely of one type to Triton: one dtype, known, and each dimension the
 * same number or written alike. */
static bool surely_same_tile(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != VAL_TILE || b->kind != VAL_TILE || a->rank < 0 || a->rank != b->rank ||
      a->dtype != b->dtype || a->dtype == DT_UNKNOWN)
    return false;
  for (int d = 0; d < a->rank && d < C2T_MAX_RANK; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] < 0 && !math_same_dim(L, a->dims[d], b->dims[d])))
      return false;
  return true;
}

/* Whether Triton may see two types in a name holding `a` on one path and `b` on another (its
 * scf.if yields one type per name): tiles not surely of one type, an int and a float, a number and
 * a tile of rank > 0, tuples of such. */
static bool may_differ_to_triton(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (a == b || !a || !b)
    return false;
  if (a->kind == VAL_TILE && b->kind == VAL_TILE)
    return !surely_same_tile(L, a, b);
  if (a->kind == VAL_CONST && b->kind == VAL_CONST)
    return a->is_float != b->is_float;
  if ((a->kind == VAL_CONST && b->kind == VAL_TILE) || (a->kind == VAL_TILE && b->kind == VAL_CONST))
    return (a->kind == VAL_TILE ? a : b)->rank != 0;
  if (a->kind == VAL_TUPLE && b->kind == VAL_TUPLE) {
    if (a->count != b->count || !a->elts || !b->elts)
      return true;
    for (int i = 0; i < a->count; i++)
      if (may_differ_to_triton(L, a->elts[i], b->elts[i]))
        return true;
  }
  return false;
}

/* Whether Triton sees two types, as far as the converter can tell, in a name holding `a` on one
 * path and `b` on the other: values it cannot join, tiles of dimensions written differently
 * (`(TILE, TILE)` and `(TILE, 1)`), tuples holding such. A dtype or rank known only at launch is
 * taken to agree. */
static bool written_differently(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (a->kind == VAL_TUPLE && b->kind == VAL_TUPLE && a->elts && b->elts) {
    if (a->count != b->count)
      return true;
    for (int i = 0; i < a->count; i++)
      if (a->elts[i] && b->elts[i] && written_differently(L, a->elts[i], b->elts[i]))
        return true;
    return false;
  }
  if (!joinable(L, a, b))
    return true;
  if (a->kind != VAL_TILE || b->kind != VAL_TILE || a->rank != b->rank)
    return false;
  for (int d = 0; d < a->rank && d < C2T_MAX_RANK; d++) {
    bool a_known = a->shape[d] >= 0 || a->dims[d], b_known = b->shape[d] >= 0 || b->dims[d];
    if (a_known && b_known && a->shape[d] != b->shape[d] &&
        !(a->shape[d] < 0 && b->shape[d] < 0 && math_same_dim(L, a->dims[d], b->dims[d])))
      return true;
  }
  return false;
}

/* Tuples of other lengths, or holding values Triton cannot join at some index. */
static bool items_of_other_types(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (!a->elts || !b->elts)
    return false;
  if (a->count != b->count)
    return true;
  for (int i = 0; i < a->count; i++) {
    const TypeInfo *x = a->elts[i], *y = b->elts[i];
    if (x && y && (x->kind == VAL_TUPLE && y->kind == VAL_TUPLE ? items_of_other_types(L, x, y) : !joinable(L, x, y)))
      return true;
  }
  return false;
}

/* `name` in `block` bound under a name of its own: from its first assignment in the block on where
 * that is a plain `name = value` of the block itself (`w = u + 1.0; u_1 = ct.sum(w)`), else all
 * of it, after `name_1 = name` where the block may read the value before (`u_1 = u` ...). */
static void rename_branch_binding(Lowerer *L, NodeList *block, Str name, const TypeInfo *before, TypeInfo *after,
                                  Str given) {
  Str own = given;
  if (rename_binding_in_block(L, block, name, &own)) {
    scope_bind(L, own, after); /* what it holds at the end of the branch (statements moved there read it) */
    return;
  }
  if (!own.len)
    own = fresh_local_name(L, L->function->def, name);
  bool copy = before && read_before_set(L, block, name);
  rename_in_block(block, name, own);
  scope_bind(L, own, after);
  if (!copy)
    return;
  Node *to = new_name(L, arena_strndup(&L->ctx->arena, own.text, (size_t)own.len));
  Node *from = new_name(L, arena_strndup(&L->ctx->arena, name.text, (size_t)name.len));
  to->type = from->type = (TypeInfo *)before;
  Node *set = template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(to, from)).items[0];
  NodeList with = {0};
  node_list_push(&L->ctx->arena, &with, set);
  for (int i = 0; i < block->count; i++)
    node_list_push(&L->ctx->arena, &with, block->items[i]);
  *block = with;
}

/* A name a branch of a run-time `if` binds to a value Triton may see of another type than the
 * name holds on the other path: bound before the `if` and rebound in a branch, or bound in both.
 * Triton refuses the `if` (its scf.if yields one type for each name bound before it or in both
 * branches; "initial value for `u` is of type fp32[16, 16], but the then block redefines it as
 * fp32[16, 1]"), cuTile only a read of the name after it ("Type of `u` depends on path taken").
 * Where nothing reads the value after the `if` (or the branch returns), each such branch binds it
 * under a name of its own, and the name keeps its type before (`kept`). False where it does not
 * apply or cannot: the caller joins the types, and marks a name it cannot join. */
static bool separate_branch_bindings(Lowerer *L, Node *stmt, Str name, TypeInfo *before, TypeInfo *from_body,
                                     TypeInfo *from_else, const bool binds[2], const bool ends[2], TypeInfo **kept) {
  TypeInfo *from[2] = {from_body, from_else};
  NodeList *block[2] = {&stmt->u.if_.body, &stmt->u.if_.orelse};
  bool rename[2] = {false, false};
  if (!L->function)
    return false;
  if (before) {
    for (int b = 0; b < 2; b++)
      rename[b] = binds[b] && may_differ_to_triton(L, from[b], before);
  } else if (binds[0] && binds[1] && written_differently(L, from_body, from_else)) {
    rename[ends[0] ? 0 : 1] = true; /* one of them: a branch that returns first (its value is dead) */
  }
  if (!rename[0] && !rename[1])
    return false;
  if (((rename[0] && !ends[0]) || (rename[1] && !ends[1])) &&
      !value_dead_after(L, L->function->def, stmt, name))
    return false;
  for (int b = 0; b < 2; b++)
    if (rename[b])
      rename_branch_binding(L, block[b], name, before, from[b], (Str){0});
  *kept = before ? before : rename[0] ? from_else : from_body;
  return true;
}

/* A name both branches of a run-time `if` bind (neither returns) to one new type, of other
 * dimensions or kind than the name holds before the `if`, and read after it:
 *     u = t                               u = t
 *     if c > 2:                           if c > 2:
 *         u = u + s         (16, 16)  ->      u_1 = u + s
 *     else:                               else:
 *         u = t * 2.0       (16, 16)          u_1 = t * 2.0
 *     ... u ...                           u = u_1
 * with u of shape (16, 1) before. cuTile takes it: u holds the new value on each path. Triton
 * refuses the `if` ("initial value for `u` is of type fp32[16, 1], but the then block redefines it
 * as fp32[16, 16]"), not a name the branches bind first. So each branch binds one name of its own
 * (`own`), set to the name after the `if`. False where it does not apply: a branch that does not
 * bind the name (its type then depends on the path, for the caller), or types that differ. */
static bool join_branch_bindings(Lowerer *L, Node *stmt, Str name, TypeInfo *before, TypeInfo *from_body,
                                 TypeInfo *from_else, const bool binds[2], const bool ends[2], Str *own,
                                 TypeInfo **joined) {
  TypeInfo *from[2] = {from_body, from_else};
  NodeList *block[2] = {&stmt->u.if_.body, &stmt->u.if_.orelse};
  bool differs = false;
  *joined = NULL;
  if (!L->function || !before || ends[0] || ends[1]) /* one going on: hoist_after_return's */
    return false;
  for (int b = 0; b < 2; b++) {
    if (!binds[b] || !from[b] || (*joined && written_differently(L, *joined, from[b])))
      return false;
    differs |= written_differently(L, from[b], before);
    *joined = from[b];
  }
  if (!*joined || !differs)
    return false;
  *own = fresh_local_name(L, L->function->def, name);
  for (int b = 0; b < 2; b++)
    rename_branch_binding(L, block[b], name, before, from[b], *own);
  return true;
}

/* Whether Triton can join a name holding `a` in one branch of a run-time `if` and `b` in the
 * other (its scf.if yields one type): the same kind, tiles of one rank, shape and dtype,
 * numbers both ints or both floats. */
bool joinable(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (a->kind != b->kind) { /* a number and a tile, a tile and None ... */
    const TypeInfo *number = a->kind == VAL_CONST ? a : b, *tile = a->kind == VAL_CONST ? b : a;
    if (number->kind != VAL_CONST || tile->kind != VAL_TILE || tile->rank != 0)
      return false;
    /* Triton makes the number an int32 (a float: float32) scalar: `s = 2.5` / `s = n` of int32
       ("Mismatched type for s between then block (int32) and else block (fp32)"), `s = 3` / an
       int64 sum; a dtype known only at launch is taken to agree */
    if (number->is_float)
      return tile->dtype == DT_UNKNOWN || tile->dtype == DT_FLOAT32;
    return tile->dtype == DT_UNKNOWN || tile->dtype == DT_INT32 || tile->dtype == DT_BOOL;
  }
  if (a->kind == VAL_TILE) { /* a dimension known in one only (BLOCK, 16) may still be the same */
    if (a->rank != b->rank || (a->dtype != b->dtype && a->dtype != DT_UNKNOWN && b->dtype != DT_UNKNOWN))
      return false;
    for (int d = 0; d < a->rank && d < C2T_MAX_RANK; d++)
      if (a->shape[d] >= 0 && b->shape[d] >= 0 && a->shape[d] != b->shape[d])
        return false;
    return true;
  }
  if (a->kind == VAL_CONST)
    return a->is_float == b->is_float;
  return true;
}

/* Whether a block ends by leaving (return, break, continue, raise): what it binds is not seen
 * after the `if` that holds it. */
static bool block_leaves(const NodeList *block) {
  if (block->count == 0)
    return false;
  NodeKind last = block->items[block->count - 1]->kind;
  return last == N_RETURN || last == N_BREAK || last == N_CONTINUE || last == N_RAISE;
}

/* Whether a block ends the function (return, raise): what it binds is dead after the `if`. */
static bool block_returns(const NodeList *block) {
  if (block->count == 0)
    return false;
  NodeKind last = block->items[block->count - 1]->kind;
  return last == N_RETURN || last == N_RAISE;
}

static bool assigned_has(const Assigned *A, Str name) {
  for (int i = 0; i < A->count; i++)
    if (str_same(A->names[i], name))
      return true;
  return false;
}

/* The statements after an `if` moved into one of its branches: which (-1: none), where they start
 * in it, how many. */
typedef struct TailMove {
  int branch, from, count;
} TailMove;

/* `if c: ...; return` / `else: u = ...` (or the other way round) and the statements after the
 * `if` read u: Triton joins, after an `if`, only the names both branches bind or that exist before
 * it ("u is not defined" after it), of one type. What follows runs only after the branch that goes
 * on, so it moves into that branch (still as written: lowered after the `if` is merged, in the
 * scope the branch leaves), where u needs no join. Done where a name that branch binds is read
 * after the `if` and was not bound before (or bound to another type), and the returning branch
 * does not bind it to the same type. */
static TailMove tail_moved(Lowerer *L, Node *stmt, NodeList *holder, int at, int stays);

static TailMove move_tail_into_branch(Lowerer *L, Node *stmt, NodeList *holder, int at, const Assigned *A,
                                      const Assigned *in_body, const Assigned *in_else, TypeInfo **before,
                                      TypeInfo **after_body, const bool ends[2]) {
  TailMove none = {-1, 0, 0};
  int stays = ends[0] ? 1 : 0;
  NodeList rest = {holder->items + at + 1, holder->count - at - 1, holder->count - at - 1};
  if (rest.count <= 0)
    return none;
  bool needed = false;
  for (int i = 0; i < A->count && !needed; i++) {
    const Assigned *in_stays = stays ? in_else : in_body, *in_other = stays ? in_body : in_else;
    TypeInfo *from_stays = stays ? A->types[i] : after_body[i], *from_other = stays ? after_body[i] : A->types[i];
    if (!assigned_has(in_stays, A->names[i]) || !from_stays || !read_before_set(L, &rest, A->names[i]))
      continue;
    if (before[i])
      needed = may_differ_to_triton(L, from_stays, before[i]);
    else
      needed = !assigned_has(in_other, A->names[i]) || !from_other || written_differently(L, from_stays, from_other);
  }
  if (!needed)
    return none;
  return tail_moved(L, stmt, holder, at, stays);
}

/* In a loop, `if c: ...; continue` (break, or return, which a loop turns into flags) and what
 * follows the `if` in its block rebinds a name bound before it: lower_control.c would run what
 * follows under `if keep_iterating_N:`, built after lowering, where Triton refuses a name rebound
 * to another type ("initial value for `u` is of type fp32[16, 16], but the then block redefines
 * it as fp32[16, 1]"). What follows moves into the other branch instead, before the branches are
 * lowered, so that the `if` sees the types it leaves (and binds another type under a name of its
 * own where that is not read after it). */
static TailMove move_tail_after_jump(Lowerer *L, Node *stmt, NodeList *holder, int at, const bool leaves[2]) {
  TailMove none = {-1, 0, 0};
  if (L->loop_depth == 0 || leaves[0] == leaves[1] || at + 1 >= holder->count)
    return none;
  NodeList rest = {holder->items + at + 1, holder->count - at - 1, holder->count - at - 1};
  Assigned *bound = new_assigned(L);
  collect_assigned(bound, &rest, 0);
  bool rebinds = false;
  for (int i = 0; i < bound->count && !rebinds; i++)
    rebinds = scope_lookup(L, bound->names[i]) != NULL;
  return rebinds ? tail_moved(L, stmt, holder, at, leaves[0] ? 1 : 0) : none;
}

/* The statements after the `if` at `at` in `holder` moved, as written, to the end of its branch
 * `stays` (0: the body, 1: else). */
static TailMove tail_moved(Lowerer *L, Node *stmt, NodeList *holder, int at, int stays) {
  NodeList rest = {holder->items + at + 1, holder->count - at - 1, holder->count - at - 1};
  NodeList *branch = stays ? &stmt->u.if_.orelse : &stmt->u.if_.body, joined = {0};
  TailMove move = {stays, branch->count, rest.count};
  if (branch->count == 1 && branch->items[0]->kind == N_PASS && !branch->items[0]->span.start.line)
    move.from = 0; /* the `pass` an empty lowered branch was given */
  for (int i = 0; i < move.from; i++)
    node_list_push(&L->ctx->arena, &joined, branch->items[i]);
  for (int i = 0; i < rest.count; i++)
    node_list_push(&L->ctx->arena, &joined, rest.items[i]);
  *branch = joined;
  holder->count = at + 1; /* lower_stmts, which lowers the holder, stops after the `if` */
  return move;
}

/* `if c: ...; return` / `else: u = ...` (or the other way round), with u read after the `if` but
 * not in the statements that follow it in its own block (move_tail_into_branch's case), as in an
 * `elif` that returns or an `if` nested in another: Triton joins, after an `if`, only the names
 * both branches bind or that exist before it, of one type ("u is not defined"). The branch that
 * goes on then runs after the `if` instead, which keeps only the branch that returns:
 *     if c: ...; return           if c: ...; return
 *     else: u = ...        ->     u = ...
 * The branch that goes on (0, 1), or -1 where no name needs it: one it binds that is read after
 * the `if`, not bound before or bound to another type. */
static int hoisted_branch(Lowerer *L, Node *stmt, const Assigned *A, const Assigned *in_body, const Assigned *in_else,
                          TypeInfo **before, TypeInfo **after_body, TypeInfo **after_else, const bool ends[2]) {
  if (!L->function || ends[0] == ends[1])
    return -1;
  int goes_on = ends[0] ? 1 : 0;
  for (int i = 0; i < A->count; i++) {
    TypeInfo *from = goes_on ? after_else[i] : after_body[i];
    if (!assigned_has(goes_on ? in_else : in_body, A->names[i]) || !from)
      continue;
    if ((!before[i] || may_differ_to_triton(L, from, before[i])) &&
        !value_dead_after(L, L->function->def, stmt, A->names[i]))
      return goes_on;
  }
  return -1;
}

/* The `if` of hoisted_branch without the branch that goes on, whose statements follow it. */
static void hoist_branch(Lowerer *L, Node *stmt, int goes_on, NodeList *out) {
  NodeList after = goes_on ? stmt->u.if_.orelse : stmt->u.if_.body;
  if (goes_on)
    stmt->u.if_.orelse = (NodeList){0};
  else
    negate_if(L, stmt); /* the else branch returns: `if not (c):` it */
  push_stmt(L, out, stmt);
  for (int i = 0; i < after.count; i++)
    push_stmt(L, out, after.items[i]);
}

static void note_jump_types(Lowerer *L, const NodeList *block, const Assigned *in_block, const Assigned *A,
                            TypeInfo **types);
static bool holds_array(const TypeInfo *type);
static bool same_arrays(Lowerer *L, const TypeInfo *a, const TypeInfo *b);

static void lower_if(Lowerer *L, Node *stmt, NodeList *out) {
  NodeList *holder = L->stmt_block; /* the block of the `if` as written, for move_tail_into_branch */
  int at = L->stmt_index;
  if (!holder || at < 0 || at >= holder->count || holder->items[at] != stmt)
    holder = NULL;
  bool constexpr_elif = L->constexpr_elif == stmt;
  L->constexpr_elif = NULL;
  /* as written, for a version split on it (lower_version.c) */
  Node *source_test =
      L->split_name_count || L->split_alias_count ? node_copy_tree(&L->ctx->arena, stmt->u.if_.test) : NULL;
  Node *test = lower_condition(L, stmt->u.if_.test);
  if (test->type && test->type->kind == VAL_TILE && test->type->rank > 0)
    lower_error(L, stmt->u.if_.test, "an `if` condition must be a scalar, not %s", type_describe(L->ctx, test->type));
  stmt->u.if_.test = test;
  if (prune_known_if(L, stmt, out))
    return;
  bool body_invalid = false, else_invalid = false;
  bool body_leaves = block_leaves(&stmt->u.if_.body), else_leaves = block_leaves(&stmt->u.if_.orelse);
  bool decided = test->type && test->type->kind == VAL_CONST; /* when Triton compiles */
  if (!decided && holder) { /* before the branches are lowered: what moves is lowered in its branch */
    bool leaves[2] = {body_leaves, else_leaves};
    if (move_tail_after_jump(L, stmt, holder, at, leaves).branch >= 0)
      body_leaves = block_leaves(&stmt->u.if_.body), else_leaves = block_leaves(&stmt->u.if_.orelse);
  }
  if (constexpr_elif && !decided) {
    /* an `elif` decided while the kernel runs, of an `if` decided when it compiles: cuTile
     * compiles all of it where the constexpr takes it, so an invalid call in either branch
     * makes it the static_assert as a whole */
    NodeList whole = {0};
    node_list_push(&L->ctx->arena, &whole, stmt);
    if (invalid_branch_to_static_assert(L, &whole)) {
      node_list_push(&L->ctx->arena, out, whole.items[0]);
      return;
    }
  }
  const Node *elif = NULL;
  if (decided) {
    body_invalid = invalid_branch_to_static_assert(L, &stmt->u.if_.body);
    /* an `elif` is an `if` of its own in the else block: its branches are checked when it is
     * lowered, each alone (the chain after an invalid branch is kept) */
    if (stmt->u.if_.orelse.count == 1 && stmt->u.if_.orelse.items[0]->kind == N_IF)
      elif = stmt->u.if_.orelse.items[0];
    else_invalid = stmt->u.if_.orelse.count && !elif && invalid_branch_to_static_assert(L, &stmt->u.if_.orelse);
  }

  /* each branch starts from the types before the `if`; after it, a name
   * has the taken branch's type when the condition is known, else the
   * branches' types, a constant only where both give the same value */
  Assigned *A = new_assigned(L);
  collect_assigned(A, &stmt->u.if_.body, 0);
  collect_assigned(A, &stmt->u.if_.orelse, 0);
  save_assigned(L, A);
  /* which branch binds each name (read on the source, before lowering) */
  Assigned *in_body = new_assigned(L), *in_else = new_assigned(L);
  collect_assigned(in_body, &stmt->u.if_.body, 0);
  collect_assigned(in_else, &stmt->u.if_.orelse, 0);
  TypeInfo **before = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(A->count + 1));
  TypeInfo **after_body = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(A->count + 1));
  for (int i = 0; i < A->count; i++) /* a name that may be unbound here is unbound for what follows */
    before[i] = A->types[i] && !A->types[i]->maybe_unbound ? A->types[i] : NULL;
  BranchRanks *ranks = branch_ranks_open(L, test);
  /* a kernel's if on a constexpr: which branch runs is known at launch (lower_tf32.c) */
  bool launch_decides = test->type && test->type->kind == VAL_CONST && L->function && L->function->role == ROLE_KERNEL;
  if (launch_decides)
    tf32_branch_enter(L, source_test, true);
  L->run_time_ifs += !decided; /* lower_return: which return runs is decided at run time */
  L->constexpr_ifs += decided;  /* lower_name: a read of a name that may be unbound */
  if (!body_invalid) /* tl.static_assert(False, ...) is Triton already */
    lower_stmts(L, &stmt->u.if_.body);
  /* what each name holds at the end of each branch (lower_memory_reuse.c follows loads' tiles) */
  size_t reuse_bytes = launch_decides ? sizeof(ReuseValue) * (size_t)(A->count + 1) : 0;
  ReuseValue *reuse_body = reuse_bytes ? arena_alloc(&L->ctx->arena, reuse_bytes) : NULL;
  ReuseValue *reuse_else = reuse_bytes ? arena_alloc(&L->ctx->arena, reuse_bytes) : NULL;
  for (int i = 0; launch_decides && i < A->count; i++)
    reuse_body[i] = reuse_of_name(L, A->names[i]);
  if (launch_decides) {
    tf32_branch_leave(L);
    tf32_branch_enter(L, source_test, false);
  }
  branch_ranks_else(L, ranks);
  save_assigned(L, A);
  bool static_test = test->type && test->type->kind == VAL_CONST;
  TypeInfo **unbound = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(A->count + 1));
  if (!static_test)
    note_jump_types(L, &stmt->u.if_.body, in_body, A, A->types);
  for (int i = 0; i < A->count; i++) {
    after_body[i] = A->types[i];
    unbound[i] = NULL;
    if (before[i]) {
      scope_bind(L, A->names[i], before[i]);
    } else if (after_body[i] && !static_test) {
      /* bound by the body only: not bound in the else branch (cuTile: an undefined variable) */
      unbound[i] = maybe_unbound(L, after_body[i]);
      scope_bind(L, A->names[i], unbound[i]);
    }
  }
  if (!else_invalid) {
    L->constexpr_elif = elif; /* read by the `elif`'s lower_if, the block's first statement */
    lower_stmts(L, &stmt->u.if_.orelse);
    L->constexpr_elif = NULL;
  }
  L->run_time_ifs -= !decided;
  L->constexpr_ifs -= decided;
  if (launch_decides)
    tf32_branch_leave(L);
  for (int i = 0; launch_decides && i < A->count; i++)
    reuse_else[i] = reuse_of_name(L, A->names[i]);
  branch_ranks_close(L, ranks);
  save_assigned(L, A);
  if (!static_test)
    note_jump_types(L, &stmt->u.if_.orelse, in_else, A, A->types);
  bool ends[2] = {block_returns(&stmt->u.if_.body), block_returns(&stmt->u.if_.orelse)};
  TailMove tail = {-1, 0, 0};
  NodeList joins = {0}; /* `u = u_1` after the `if`, of join_branch_bindings */
  if (!static_test && holder && ends[0] != ends[1])
    tail = move_tail_into_branch(L, stmt, holder, at, A, in_body, in_else, before, after_body, ends);
  int hoist = -1;
  if (!static_test && tail.branch < 0 && ends[0] != ends[1]) {
    TypeInfo **after_else = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(A->count + 1));
    for (int i = 0; i < A->count; i++)
      after_else[i] = A->types[i] == unbound[i] ? NULL : A->types[i];
    hoist = hoisted_branch(L, stmt, A, in_body, in_else, before, after_body, after_else, ends);
  }
  for (int i = 0; i < A->count; i++) {
    TypeInfo *from_body = after_body[i], *from_else = A->types[i] == unbound[i] ? NULL : A->types[i], *merged;
    bool binds[2] = {assigned_has(in_body, A->names[i]), assigned_has(in_else, A->names[i])};
    TypeInfo *kept = NULL;
    if (!static_test &&
        separate_branch_bindings(L, stmt, A->names[i], before[i], from_body, from_else, binds, ends, &kept)) {
      /* what follows reads neither: bound in one branch only, it is unbound after (as in Triton) */
      scope_bind(L, A->names[i], before[i] || (binds[0] && binds[1]) ? kept : maybe_unbound(L, kept));
      continue;
    }
    Str own = {0};
    TypeInfo *joined = NULL;
    if (!static_test && tail.branch < 0 &&
        join_branch_bindings(L, stmt, A->names[i], before[i], from_body, from_else, binds, ends, &own, &joined)) {
      Node *to = new_name(L, arena_strndup(&L->ctx->arena, A->names[i].text, (size_t)A->names[i].len));
      Node *from = new_name(L, arena_strndup(&L->ctx->arena, own.text, (size_t)own.len));
      to->type = from->type = joined;
      node_list_push(&L->ctx->arena, &joins, template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(to, from)).items[0]);
      scope_bind(L, A->names[i], joined);
      continue;
    }
    TypeInfo *one_side = from_body ? from_body : from_else;
    bool numbers_or_tiles = from_body && from_else && (from_body->kind == VAL_TILE || from_body->kind == VAL_CONST) &&
                            (from_else->kind == VAL_TILE || from_else->kind == VAL_CONST);
    if (!static_test && body_leaves != else_leaves && numbers_or_tiles) {
      /* what a branch that leaves (break, continue, return) binds is not seen after the `if`
         (note_jump_types follows it after the loop and to the next iteration) */
      scope_bind(L, A->names[i], body_leaves ? from_else : from_body);
      continue;
    }
    if ((!from_body || !from_else) && one_side && !before[i] && !static_test &&
        !(from_body ? else_leaves : body_leaves)) {
      merged = maybe_unbound(L, one_side); /* bound on one path only: a use after the `if` is refused */
    } else if (!from_body || !from_else || same_constant(from_body, from_else))
      merged = from_body ? from_body : from_else;
    /* `if F: S = BM` / `else: S = BN` (or tuples of such constants, `s = (BM, BK)` / `(BK,
       BM)`): a constant Triton knows when it compiles, a constexpr local assigned in each branch
       (promote_constexpr_locals checks that it becomes one; noted here only where it fits) */
    else if (static_test && from_body != before[i] && from_else != before[i] &&
             ((from_body->kind == VAL_CONST && from_else->kind == VAL_CONST) || constant_tuples(from_body, from_else)) &&
             require_constexpr_local(L, A->names[i], stmt))
      merged = from_body->kind == VAL_CONST ? either_constant(L, from_body, from_else)
                                            : constant_tuple_choice(L, from_body, from_else);
    else if (from_body->kind == VAL_CONST || from_else->kind == VAL_CONST) {
      const TypeInfo *other = from_body->kind == VAL_CONST ? from_else : from_body;
      merged = concretized(L, from_body->kind == VAL_CONST ? from_body : from_else);
      if (!static_test && !body_leaves && !else_leaves &&
          ((other->kind == VAL_TILE && other->rank > 0) || !joinable(L, from_body, from_else)))
        merged = path_dependent(L, merged); /* a number and a tile, an int and a float */
    }
    else if (from_body->kind == VAL_ARRAY && from_else->kind == VAL_ARRAY && from_body->array && from_else->array) {
      /* two arrays by a constexpr (`if USE_X: src = x` / `else: src = y`): where they cannot be one
         name, a version of the function per outcome, each reading its own array */
      if (static_test && !memory_same_array(L, from_body, from_else))
        note_version_split(L, source_test, test, 3);
      merged = memory_merge_arrays(L, stmt, A->names[i], from_body, from_else,
                                   test->type && test->type->kind == VAL_CONST, &stmt->u.if_.body,
                                   &stmt->u.if_.orelse);
    }
    else if (from_body->kind == VAL_FUNCTION || from_else->kind == VAL_FUNCTION) {
      /* `if FAST: f = ct.exp2` / `else: f = ct.exp`: by a constexpr, a version of the function per
         outcome, each calling its own; by a value known at run time, an error (merged_value) */
      bool same = from_body->kind == from_else->kind && from_body->member && from_else->member &&
                  strcmp(from_body->member, from_else->member) == 0;
      if (static_test && !same)
        note_version_split(L, source_test, test, 3);
      merged = merged_value(L, stmt, A->names[i], from_body, from_else);
    } else if (from_body->kind == from_else->kind &&
               (from_body->kind == VAL_TUPLE || from_body->kind == VAL_ENUM || from_body->kind == VAL_DTYPE)) {
      if (from_body->kind == VAL_TUPLE && (holds_array(from_body) || holds_array(from_else)) &&
          !same_arrays(L, from_body, from_else)) {
        /* `arrs = (x, z)` / `arrs = (z, x)`: by a constexpr, a version per outcome; at run time, not
           converted (each item would have to be a view of its own) */
        if (static_test)
          note_version_split(L, source_test, test, 3);
        lower_error(L, stmt, "`%.*s` is a tuple of other arrays in each branch of this `if`, decided while the "
                    "kernel runs: not converted yet (choose each array on its own: `a = x if c else z`)",
                    A->names[i].len, A->names[i].text);
      }
      merged = merged_value(L, stmt, A->names[i], from_body, from_else);
      if (!static_test && !body_leaves && !else_leaves && from_body->kind == VAL_TUPLE &&
          items_of_other_types(L, from_body, from_else))
        merged = path_dependent(L, merged); /* (t, s) / (s, t) */
    }
    else if (static_test && (from_body->kind == VAL_NONE) != (from_else->kind == VAL_NONE)) {
      /* `bias = None` / `if HAS_BIAS: bias = ct.load(...)`: which one is known only when Triton
         compiles; a use (`bias is not None`, `t + bias`) stops this attempt, and the version split
         noted below lowers the function once per outcome, each knowing */
      merged = type_new(L->ctx, VAL_NONE);
      *merged = *(from_body->kind == VAL_NONE ? from_else : from_body);
      merged->none_by_constexpr = true;
    } else if (static_test)
      merged = merged_constexpr_tile(L, from_body, from_else);
    else {
      merged = merged_tile(L, from_body, from_else);
      if (!body_leaves && !else_leaves && from_body->kind == VAL_TILE && from_else->kind == VAL_TILE &&
          !joinable(L, from_body, from_else))
        merged = path_dependent(L, merged); /* dtypes, shapes */
    }
    if (static_test && from_body && from_else)
      tf32_join(L, stmt, merged, from_body, from_else); /* the constexpr decides: one branch runs */
    if (static_test && from_body && from_else)
      note_version_split(L, source_test, test, type_disagreement(L, from_body, from_else));
    /* a type that depends on the path through an inner `if` depends on it after this one too */
    if (merged && !merged->path_dependent && !static_test &&
        ((from_body && from_body->path_dependent && !body_leaves) ||
         (from_else && from_else->path_dependent && !else_leaves)))
      merged = path_dependent(L, merged);
    bool unbound_in_one = (from_body && from_body->maybe_unbound) || (from_else && from_else->maybe_unbound);
    if (merged && unbound_in_one && !merged->maybe_unbound) /* unbound on a path through an inner `if` */
      merged = maybe_unbound(L, merged);
    if (merged)
      scope_bind(L, A->names[i], merged);
    if (merged && launch_decides && !body_leaves && !else_leaves)
      reuse_join(L, A->names[i], test, source_test, reuse_body[i], reuse_else[i]);
  }
  if (tail.branch >= 0) { /* the statements moved, lowered where the branch that goes on left the names */
    NodeList *branch = tail.branch ? &stmt->u.if_.orelse : &stmt->u.if_.body;
    NodeList moved = {branch->items + tail.from, tail.count, tail.count}, joined = {0};
    lower_stmts(L, &moved);
    for (int i = 0; i < tail.from; i++)
      node_list_push(&L->ctx->arena, &joined, branch->items[i]);
    for (int i = 0; i < moved.count; i++)
      node_list_push(&L->ctx->arena, &joined, moved.items[i]);
    *branch = joined;
  }
  if (hoist >= 0) {
    hoist_branch(L, stmt, hoist, out);
    return;
  }
  push_stmt(L, out, stmt);
  for (int i = 0; i < joins.count; i++)
    push_stmt(L, out, joins.items[i]);
}

/* Whether `type` is an array or a tuple holding one. */
static bool holds_array(const TypeInfo *type) {
  if (!type)
    return false;
  if (type->kind == VAL_ARRAY)
    return true;
  for (int i = 0; type->kind == VAL_TUPLE && type->elts && i < type->count; i++)
    if (holds_array(type->elts[i]))
      return true;
  return false;
}

/* Whether two values hold the same arrays in the same places. */
static bool same_arrays(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (a == b || (!holds_array(a) && !holds_array(b)))
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  if (a->kind == VAL_ARRAY)
    return memory_same_array(L, a, b);
  if (!a->elts || !b->elts || a->count != b->count)
    return false;
  for (int i = 0; i < a->count; i++)
    if (!same_arrays(L, a->elts[i], b->elts[i]))
      return false;
  return true;
}

/* The first statement of `stmts` (nested ones too) that assigns `name`. */
static Node *assignment_of(Lowerer *L, NodeList *stmts, Str name) {
  for (int i = 0; i < stmts->count; i++) {
    Node *stmt = stmts->items[i];
    if (stmt->kind == N_ASSIGN || stmt->kind == N_AUG_ASSIGN || stmt->kind == N_ANN_ASSIGN) {
      Assigned *one = new_assigned(L);
      NodeList single = {&stmt, 1, 1};
      collect_assigned(one, &single, 0);
      for (int n = 0; n < one->count; n++)
        if (str_same(one->names[n], name))
          return stmt;
    }
    NodeList *inner[2] = {NULL, NULL};
    if (stmt->kind == N_FOR)
      inner[0] = &stmt->u.for_.body;
    else if (stmt->kind == N_WHILE)
      inner[0] = &stmt->u.while_.body;
    else if (stmt->kind == N_IF)
      inner[0] = &stmt->u.if_.body, inner[1] = &stmt->u.if_.orelse;
    for (int k = 0; k < 2; k++) {
      Node *found = inner[k] ? assignment_of(L, inner[k], name) : NULL;
      if (found)
        return found;
    }
  }
  return NULL;
}

/* The arrays of the names a loop body assigns, before the loop (loop_arrays_open),
 * and after one pass over the body (loop_arrays_close): an array is no run-time
 * value in the converted kernel (its pieces are named where it is used), so a
 * name bound to another array in the loop (`dst = Y`, the swap `src, dst = dst,
 * src`) would hold, in the converted loop, the array of the last assignment from
 * the first iteration on, and after it also where the loop ran no iteration:
 * cuTile's loop-carried array, another array than the one used. Refused, located
 * at the assignment; a name first bound in the loop (each iteration binds it
 * before its uses) is not carried. */
typedef struct LoopArrays {
  Assigned *assigned; /* the names the body assigns, with their types before the loop */
  Node **at;          /* the first assignment of each, as written (lowering removes an array's) */
} LoopArrays;

static LoopArrays loop_arrays_open(Lowerer *L, NodeList *body) {
  LoopArrays loop = {new_assigned(L), NULL};
  collect_assigned(loop.assigned, body, 0);
  save_assigned(L, loop.assigned);
  for (int i = 0; i < loop.assigned->count; i++) /* one that may be unbound is not bound before the loop */
    if (loop.assigned->types[i] && loop.assigned->types[i]->maybe_unbound)
      loop.assigned->types[i] = NULL;
  loop.at = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)(loop.assigned->count + 1));
  for (int i = 0; i < loop.assigned->count; i++)
    loop.at[i] = assignment_of(L, body, loop.assigned->names[i]);
  return loop;
}

/* Whether `a` and `b` hold the same functions in the same places (true where neither holds
 * one): a function is known only while converting, so a loop may not change one. */
static bool same_functions(const TypeInfo *a, const TypeInfo *b, int depth) {
  if (a == b || depth > C2T_MAX_PARSE_DEPTH)
    return true;
  if (!a || !b)
    return !(a && a->kind == VAL_FUNCTION) && !(b && b->kind == VAL_FUNCTION);
  if (a->kind == VAL_FUNCTION || b->kind == VAL_FUNCTION)
    return a->kind == b->kind && a->member && b->member && strcmp(a->member, b->member) == 0;
  if (a->kind != VAL_TUPLE || b->kind != VAL_TUPLE || !a->elts || !b->elts)
    return true;
  for (int i = 0; i < a->count || i < b->count; i++)
    if (!same_functions(i < a->count ? a->elts[i] : NULL, i < b->count ? b->elts[i] : NULL, depth + 1))
      return false;
  return true;
}

/* Whether a padding or rounding mode, or a dtype, is the same value in `a` as in `b`
 * (true where neither is one, or a dtype is known only when Triton compiles). */
static bool same_choice(const TypeInfo *a, const TypeInfo *b) {
  if (!same_functions(a, b, 0))
    return false;
  bool enums = a->kind == VAL_ENUM || b->kind == VAL_ENUM || a->kind == VAL_FUNCTION || b->kind == VAL_FUNCTION,
       dtypes = a->kind == VAL_DTYPE || b->kind == VAL_DTYPE;
  if (!enums && !dtypes)
    return true;
  if (a->kind != b->kind)
    return false;
  if (enums) /* modes and functions: by name */
    return a == b || (a->member && b->member && strcmp(a->member, b->member) == 0);
  return a->dtype == b->dtype || a->dtype == DT_UNKNOWN || b->dtype == DT_UNKNOWN;
}

static void loop_arrays_close(Lowerer *L, const LoopArrays *loop, Node *stmt) {
  const Assigned *A = loop->assigned;
  for (int i = 0; i < A->count; i++) {
    TypeInfo *before = A->types[i];
    Variable *var = scope_lookup(L, A->names[i]);
    TypeInfo *after = var ? var->type : NULL;
    if (before && after && !same_choice(before, after)) /* cuTile: "not constant", "depends on path taken" */
      lower_error(L, loop->at[i] ? loop->at[i] : stmt,
                  "`%.*s` is given another %s in this loop than before it: cuTile needs one value at compile "
                  "time (its type would depend on the iteration)", A->names[i].len, A->names[i].text,
                  before->kind == VAL_ENUM       ? "mode"
                  : before->kind == VAL_DTYPE    ? "dtype"
                  : before->kind == VAL_FUNCTION ? "function"
                                                 : "kind of value");
    if (!before || !(holds_array(before) || holds_array(after)) || same_arrays(L, before, after))
      continue;
    lower_error(L, loop->at[i] ? loop->at[i] : stmt,
                "`%.*s` is bound to another array in this loop than before it: which array it is would "
                "depend on the iteration, and an array is not a run-time value in the converted kernel; "
                "name the arrays themselves in the loop (or choose them with a constexpr)",
                A->names[i].len, A->names[i].text);
  }
}

/* The names a loop's body binds first (unbound before it): after a loop that may run no
 * iteration, a use is refused, as cuTile refuses a potentially undefined variable. */
static void mark_first_bound(Lowerer *L, const LoopArrays *loop) {
  const Assigned *A = loop->assigned;
  for (int i = 0; i < A->count; i++) {
    Variable *var = A->types[i] ? NULL : scope_lookup(L, A->names[i]);
    if (!var || !var->type || var->type->maybe_unbound)
      continue;
    var->type = maybe_unbound(L, var->type);
  }
}

/* A tuple a ct.static_iter loop grows (`cols += (c,)` in its body): Triton unrolls the
 * tl.static_range loop as cuTile does, so after it the tuple holds what each iteration
 * appended. The body is lowered once, which leaves the tuple's type as after one iteration;
 * static_tuples_open notes the tuples before the loop and static_tuples_close gives each one
 * that grew by m items its `trips` * m items (each iteration's the same type), or, where the
 * trip count is known only at launch, a located error (`len(cols)` and its unpacking would
 * have been wrong). */
typedef struct StaticTuples {
  Str *names; /* in the arena, as many as the scope holds tuples (not a scope's worth on the stack
                 at each level of nested loops) */
  int *counts;
  int count;
} StaticTuples;

static void static_tuples_open(Lowerer *L, StaticTuples *tuples) {
  int tuple_count = 0;
  for (int i = 0; i < L->scope->count; i++)
    tuple_count += L->scope->vars[i].type && L->scope->vars[i].type->kind == VAL_TUPLE;
  tuples->names = arena_alloc(&L->ctx->arena, sizeof(Str) * (size_t)(tuple_count + 1));
  tuples->counts = arena_alloc(&L->ctx->arena, sizeof(int) * (size_t)(tuple_count + 1));
  tuples->count = 0;
  for (int i = 0; i < L->scope->count; i++) {
    const TypeInfo *type = L->scope->vars[i].type;
    if (type && type->kind == VAL_TUPLE && type->count >= 0 && type->elts && !type->array) {
      tuples->names[tuples->count] = L->scope->vars[i].name;
      tuples->counts[tuples->count++] = type->count;
    }
  }
}

/* A run-time loop (`for` over range(), `while`) whose body changes a tuple's length: its type
 * would depend on the iterations run; cuTile refuses it ("Type of `found` depends on path
 * taken"), and Triton's code generator refuses such a loop-carried value. */
static void run_time_tuples_close(Lowerer *L, const StaticTuples *tuples, const Node *loop) {
  for (int i = 0; i < tuples->count; i++) {
    const Variable *var = scope_lookup(L, tuples->names[i]);
    const TypeInfo *type = var ? var->type : NULL;
    if (type && type->kind == VAL_TUPLE && type->count != tuples->counts[i])
      lower_error(L, loop, "the tuple '%.*s' has %d items before this loop and %d after its body: its type would "
                  "depend on the iterations run, which cuTile refuses (a ct.static_iter loop is unrolled and "
                  "may grow a tuple)", tuples->names[i].len, tuples->names[i].text, tuples->counts[i], type->count);
  }
}

static void static_tuples_close(Lowerer *L, const StaticTuples *tuples, long long trips, const Node *loop) {
  for (int i = 0; i < tuples->count; i++) {
    Variable *var = scope_lookup(L, tuples->names[i]);
    TypeInfo *type = var ? var->type : NULL;
    int before = tuples->counts[i];
    if (!type || type->kind != VAL_TUPLE || type->count <= before || !type->elts)
      continue;
    if (trips < 0)
      lower_error(L, loop, "the tuple '%.*s' grows in this ct.static_iter loop, whose trip count is known only at "
                  "launch: the converter needs it to know the tuple's length after the loop",
                  tuples->names[i].len, tuples->names[i].text);
    long long grown = (long long)(type->count - before);
    if (before + trips * grown > C2T_MAX_STATIC_TUPLE)
      lower_limit(L, loop, "elements of a tuple grown in a ct.static_iter loop", C2T_MAX_STATIC_TUPLE);
    int count = (int)(before + trips * grown);
    TypeInfo *after = type_new(L->ctx, VAL_TUPLE);
    *after = *type;
    after->count = count;
    after->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(count + 1));
    for (int k = 0; k < count; k++)
      after->elts[k] = type->elts[k < before ? k : before + (int)((k - before) % grown)];
    var->type = after;
  }
}

/* The names a loop's body binds that hold tiles before it, with those types (loop_types_open, just
 * before the body is lowered), for loop_types_close. */
typedef struct LoopTypes {
  Assigned *A;
  TypeInfo **before;
  /* what a branch ending in `break` (after the loop) or `continue` (at the next iteration) leaves
     in a name it binds (note_jump_types) */
  struct JumpType {
    Str name;
    TypeInfo *type;
    bool is_break;
  } *jumps;
  int jump_count, jump_capacity;
  struct LoopTypes *outer; /* L->loop_types before this loop */
} LoopTypes;

static void loop_types_open(Lowerer *L, LoopTypes *T, const NodeList *body) {
  *T = (LoopTypes){.A = new_assigned(L), .outer = L->loop_types};
  collect_assigned(T->A, body, 0);
  T->before = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(T->A->count + 1));
  for (int i = 0; i < T->A->count; i++) {
    Variable *var = scope_lookup(L, T->A->names[i]);
    T->before[i] = var && var->type && var->type->kind == VAL_TILE && !var->type->maybe_unbound ? var->type : NULL;
  }
  L->loop_types = T;
}

/* After the loop's body is lowered: the enclosing loop's again. */
static void loop_types_leave(Lowerer *L, LoopTypes *T) { L->loop_types = T->outer; }

/* A branch of an `if` that ends in `break` or `continue` (its last statement, as written): the
 * types it leaves in the names it binds (`types`, by A's index), for loop_types_close. */
static void note_jump_types(Lowerer *L, const NodeList *block, const Assigned *in_block, const Assigned *A,
                            TypeInfo **types) {
  LoopTypes *T = L->loop_types;
  if (!T || block->count == 0)
    return;
  NodeKind last = block->items[block->count - 1]->kind;
  if (last != N_BREAK && last != N_CONTINUE)
    return;
  for (int i = 0; i < A->count; i++) {
    if (!types[i] || !assigned_has(in_block, A->names[i]))
      continue;
    T->jumps = arena_grown(&L->ctx->arena, T->jumps, T->jump_count, &T->jump_capacity, sizeof *T->jumps);
    T->jumps[T->jump_count++] = (struct JumpType){A->names[i], types[i], last == N_BREAK};
  }
}

/* "(16, 16)": a tile's dimensions as numbers, or as written (BLOCK), "?" where unknown. */
static const char *dims_text(Lowerer *L, const TypeInfo *type) {
  if (type->kind != VAL_TILE)
    return type_describe(L->ctx, type);
  Buf text = {0};
  buf_puts(&text, "(");
  for (int d = 0; d < type->rank && d < C2T_MAX_RANK; d++) {
    if (d)
      buf_puts(&text, ", ");
    if (type->shape[d] >= 0)
      buf_printf(&text, "%d", type->shape[d]);
    else if (type->dims[d])
      expr_text(L->ctx, type->dims[d], &text);
    else
      buf_puts(&text, "?");
  }
  buf_puts(&text, type->rank == 1 ? ",)" : ")");
  const char *made = arena_printf(&L->ctx->arena, "a tile%s%s %s", type->dtype == DT_UNKNOWN ? "" : " of ",
                                  type->dtype == DT_UNKNOWN ? "" : dtype_info(type->dtype)->cutile, buf_text(&text));
  buf_free(&text);
  return made;
}

/* After the body: a name whose type surely differs from the one before the loop (tiles of two
 * known shapes or dtypes, a number for a tile) is a located error at the loop, as cuTile's "Type
 * of `x` depends on path taken" (read after the loop or not; Triton refuses a loop-carried value
 * that changes type too). Types known only at launch are decided there, by both. */
static void loop_types_close(Lowerer *L, const LoopTypes *T, const Node *loop, NodeList *body) {
  for (int i = 0; i < T->A->count; i++) {
    Variable *var = scope_lookup(L, T->A->names[i]);
    const TypeInfo *now = var ? var->type : NULL;
    Str name = T->A->names[i];
    if (T->before[i] && now && now->path_dependent && read_before_set(L, body, name))
      lower_error(L, loop, "the type of `%.*s` depends on the path taken through this loop's body (an `if` in it "
                  "gives it another type on one path than on the other), and the next iteration reads it: cuTile "
                  "refuses it (give it one type on every path)", name.len, name.text);
    if (!T->before[i] || !now || now == T->before[i] || (now->kind != VAL_TILE && now->kind != VAL_CONST) ||
        now->path_dependent || joinable(L, T->before[i], now))
      continue;
    lower_error(L, loop, "the type of `%.*s` changes from one iteration of this loop to the next: %s before it, %s "
                "after its body (cuTile refuses it: its type depends on the path taken; give it one type)",
                name.len, name.text, dims_text(L, T->before[i]), dims_text(L, now));
  }
  /* a value of another type left by `break` meets the loop's own after it; one left by `continue`,
     the next iteration (Triton refused both: "initial value for `u` is of type ...") */
  for (int j = 0; j < T->jump_count; j++) {
    Str name = T->jumps[j].name;
    Variable *var = scope_lookup(L, name);
    TypeInfo *now = var ? var->type : NULL;
    if (!now || now->path_dependent || !written_differently(L, now, T->jumps[j].type))
      continue;
    if (!T->jumps[j].is_break && read_before_set(L, body, name))
      lower_error(L, loop, "the type of `%.*s` depends on the path taken through this loop's body (a branch that "
                  "ends in `continue` gives it another type), and the next iteration reads it: cuTile refuses it "
                  "(give it one type on every path)", name.len, name.text);
    if (T->jumps[j].is_break)
      scope_bind(L, name, path_dependent(L, now)); /* a read after the loop is refused */
  }
}

static void lower_while(Lowerer *L, Node *stmt, NodeList *out) {
  if (stmt->u.while_.orelse.count)
    lower_error(L, stmt, "`while ... else` is not valid in tile code");
  concretize_assigned(L, &stmt->u.while_.body, NULL);
  /* statements the condition needs first would run once, before the loop,
   * not before each test */
  NodeList condition_pending = {0};
  NodeList *outer_pending = L->pending;
  L->pending = &condition_pending;
  L->in_while_test = true; /* no optional statements either (a staged tfloat32 tile, lower_tf32.c) */
  Node *test = stmt->u.while_.test;
  stmt->u.while_.test = lower_expr(L, test);
  L->in_while_test = false;
  L->pending = outer_pending;
  if (condition_pending.count)
    lower_error(L, test, "this `while` condition cannot be converted: it needs statements before each test "
                "(assign the value to a name before the loop and again at the end of its body)");
  LoopArrays arrays = loop_arrays_open(L, &stmt->u.while_.body);
  StaticTuples tuples;
  static_tuples_open(L, &tuples);
  LoopTypes types;
  loop_types_open(L, &types, &stmt->u.while_.body);
  L->loop_depth++;
  int outer_loop = reuse_enter_loop(L);
  lower_stmts(L, &stmt->u.while_.body);
  loop_types_leave(L, &types);
  reuse_leave_loop(L, outer_loop);
  L->loop_depth--;
  loop_types_close(L, &types, stmt, &stmt->u.while_.body);
  loop_arrays_close(L, &arrays, stmt);
  run_time_tuples_close(L, &tuples, stmt);
  concretize_assigned(L, &stmt->u.while_.body, NULL);
  mark_first_bound(L, &arrays);
  push_stmt(L, out, stmt);
}

/* The type of the loop variable of a ct.static_iter over a tuple: one type
 * for every element (constants: their kind, the value varies). */
TypeInfo *lower_static_element_type(Lowerer *L, Node *at, const TypeInfo *tuple, const char *what) {
  if (tuple->count == 0)
    lower_error(L, at, "%s over an empty tuple: it has no element to index", what);
  if (tuple->count < 0 || !tuple->elts)
    lower_error(L, at, "%s over a tuple whose length is not known at conversion cannot be converted", what);
  const TypeInfo *first = tuple->elts[0];
  bool all_constants = true, any_float = false;
  for (int i = 0; i < tuple->count; i++) {
    const TypeInfo *e = tuple->elts[i];
    all_constants &= e && e->kind == VAL_CONST;
    any_float |= e && e->kind == VAL_CONST && e->is_float;
  }
  if (all_constants) {
    TypeInfo *type = type_new(L->ctx, VAL_CONST);
    type->rank = 0;
    type->dtype = DT_UNKNOWN; /* differs from one iteration to the next */
    type->is_float = any_float;
    type->loose = true;
    return type;
  }
  /* Triton's unrolled loop gives each iteration its element's own type: the one the body is lowered
     with is what every element agrees on, as for the branches of a constexpr `if` (a dtype or a
     dimension they differ in is unknown: an operation that needs it is a located error) */
  TypeInfo *common = (TypeInfo *)first;
  bool any_tile = false;
  for (int i = 0; i < tuple->count; i++)
    any_tile |= tuple->elts[i] && tuple->elts[i]->kind == VAL_TILE;
  for (int i = 0; i < tuple->count; i++) {
    const TypeInfo *e = tuple->elts[i];
    if ((!e || e->kind != VAL_TILE) && any_tile)
      lower_error(L, at, "%s over a tuple of tiles and %s cannot be converted (the loop body is not unrolled by "
                  "the converter: index the tuple with numbers)", what, type_describe(L->ctx, e));
    if (!e || e->kind != VAL_TILE)
      lower_error(L, at, "%s over a tuple of %s cannot be converted", what, type_describe(L->ctx, e));
    if (i)
      common = merged_constexpr_tile(L, (TypeInfo *)e, common);
  }
  return common;
}

/* for x in ct.static_iter(tuple): Triton unrolls tl.static_range loops, and
 * a tuple indexed by its constexpr counter gives each element:
 *     for x_k in tl.static_range(n):
 *         x = tuple[x_k]
 * and, as cuTile evaluates the iterable with Python, over enumerate(tuple,
 * start) and zip(tuple, ...) (static_iter(enumerate(tiles, 1))):
 *     for i_k in tl.static_range(n):
 *         i = i_k + start
 *         x = tiles[i_k]
 * A target that unpacks an element of tuples (`for a, b in ct.static_iter(PAIRS)`, or
 * `for i, (a, b) in ct.static_iter(enumerate(PAIRS))`) takes each item by its position:
 *         a = PAIRS[a_k][0]
 *         b = PAIRS[a_k][1]                                                  */
bool lower_is_builtin_call(Lowerer *L, const Node *expr, const char *name) {
  return expr->kind == N_CALL && expr->u.call.func->kind == N_NAME && str_eq(expr->u.call.func->u.name.id, name) &&
         !scope_lookup(L, expr->u.call.func->u.name.id);
}

static bool is_launch_tuple(const TypeInfo *type) {
  return type && type->kind == VAL_CONST && type->dtype == DT_UNKNOWN && type->const_tuple;
}

/* The names a ct.static_iter loop binds: each a name of the target, the tuple it
 * iterates over and, where the target unpacks the element, its position there (-1: the
 * whole element). */
typedef struct StaticTarget {
  Node *name;
  Node *tuple;
  int item;
} StaticTarget;

/* Adds the names `target` binds from `tuple`: a name, or a tuple of names unpacking each
 * element (one level; every element a tuple of that length). */
static void static_targets_add(Lowerer *L, StaticTarget *targets, int *count, Node *target, Node *tuple) {
  if (target->kind == N_NAME) {
    if (*count >= C2T_MAX_STATIC_TARGETS)
      lower_error(L, target, "a ct.static_iter loop's target binds more than %d names", C2T_MAX_STATIC_TARGETS);
    targets[(*count)++] = (StaticTarget){target, tuple, -1};
    return;
  }
  if (target->kind != N_TUPLE && target->kind != N_LIST)
    lower_error(L, target, "a loop over ct.static_iter needs names, or a tuple of names, as its target");
  const NodeList *names = &target->u.list.elts;
  const TypeInfo *type = tuple->type;
  if (!is_launch_tuple(type)) {
    if (!type || type->kind != VAL_TUPLE || type->count < 0 || !type->elts)
      lower_error(L, target, "this ct.static_iter target unpacks each element, but the elements are not known "
                  "at conversion to be tuples");
    for (int e = 0; e < type->count; e++)
      if (!type->elts[e] || type->elts[e]->kind != VAL_TUPLE || type->elts[e]->count != names->count)
        lower_error(L, target, "this ct.static_iter target unpacks %d items, but element %d of the tuple is %s",
                    names->count, e, type_describe(L->ctx, type->elts[e]));
  }
  for (int j = 0; j < names->count; j++) {
    if (names->items[j]->kind != N_NAME)
      lower_error(L, names->items[j], "a ct.static_iter target unpacks into names (one level of parentheses)");
    if (*count >= C2T_MAX_STATIC_TARGETS)
      lower_error(L, names->items[j], "a ct.static_iter loop's target binds more than %d names",
                  C2T_MAX_STATIC_TARGETS);
    targets[(*count)++] = (StaticTarget){names->items[j], tuple, j};
  }
}

/* Whether the target name takes each element of a tuple of arrays (`for a in ct.static_iter((x, z))`):
 * an array, indexed by the counter where it is used, with nothing to run at each iteration. */
static bool static_target_is_array(const StaticTarget *target) {
  const TypeInfo *type = target->tuple->type;
  return target->item < 0 && type && type->kind == VAL_TUPLE && type->array && !is_launch_tuple(type);
}

/* The type of one target name: of the whole element, or of its item `item` in every element
 * (`counter`: the loop's own). */
static TypeInfo *static_target_type(Lowerer *L, Node *at, const StaticTarget *target, Node *counter) {
  const TypeInfo *type = target->tuple->type;
  if (is_launch_tuple(type))
    return type_launch_tuple_item(L->ctx);
  if (static_target_is_array(target)) {
    if (type->array_items)
      lower_error(L, at, "ct.static_iter over a tuple of arrays and numbers cannot be converted (index its items "
                  "with numbers)");
    return tuple_array_item(L, type->array, node_copy_tree(&L->ctx->arena, counter))->type;
  }
  if (target->item < 0)
    return lower_static_element_type(L, at, type, "ct.static_iter");
  TypeInfo *column = type_new(L->ctx, VAL_TUPLE);
  column->count = type->count;
  column->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)type->count);
  for (int e = 0; e < type->count; e++)
    column->elts[e] = type->elts[e]->elts[target->item];
  return lower_static_element_type(L, at, column, "ct.static_iter");
}

/* A ct.static_iter loop's name that takes a constant at each iteration (an int of a tuple, enumerate()'s
 * counter), the body not binding it again: each use is written as `value` (`index[i_k]`), a constexpr to
 * Triton, as cuTile's constant is (a local would hold a tensor, which indexes no tuple and sizes no tile). */
static bool constant_in_each_use(Lowerer *L, Node *name, const Assigned *in_body, Node *value) {
  Variable *var = scope_lookup(L, name->u.name.id);
  if (!var || !var->type || var->type->kind != VAL_CONST || assigned_has(in_body, name->u.name.id))
    return false;
  TypeInfo *type = type_new(L->ctx, VAL_CONST);
  *type = *var->type;
  type->value_expr = value;
  scope_bind(L, name->u.name.id, type);
  return true;
}

static void lower_static_tuple_loop(Lowerer *L, Node *stmt, Node *iter, NodeList *out) {
  Node *targets[C2T_MAX_STATIC_ZIP], *tuples[C2T_MAX_STATIC_ZIP];
  Node *index = NULL, *start = NULL;
  int count = 0;
  Node *target = stmt->u.for_.target;
  bool enumerated = lower_is_builtin_call(L, iter, "enumerate"), zipped = lower_is_builtin_call(L, iter, "zip");
  if (enumerated || zipped) {
    NodeList *args = &iter->u.call.args;
    if (iter->u.call.keywords.count || (enumerated && (args->count < 1 || args->count > 2)) ||
        (zipped && (args->count < 1 || args->count > C2T_MAX_STATIC_ZIP)))
      lower_error(L, iter, "ct.static_iter over %s takes %s", enumerated ? "enumerate()" : "zip()",
                  enumerated ? "a tuple and a constant start" : "1 to 8 tuples");
    int names = enumerated ? 2 : args->count;
    if ((target->kind != N_TUPLE && target->kind != N_LIST) || target->u.list.elts.count != names)
      lower_error(L, target, "a loop over ct.static_iter(%s(...)) needs %d names as its target",
                  enumerated ? "enumerate" : "zip", names);
    if (enumerated && target->u.list.elts.items[0]->kind != N_NAME)
      lower_error(L, target->u.list.elts.items[0], "enumerate()'s counter in a ct.static_iter loop must be a name");
    if (enumerated) {
      index = target->u.list.elts.items[0];
      targets[0] = target->u.list.elts.items[1];
      tuples[0] = lower_expr(L, args->items[0]);
      count = 1;
      start = args->count == 2 ? lower_expr(L, args->items[1]) : new_int(L, 0);
      long long value;
      if (!shape_known_int(start, &value))
        lower_error(L, args->items[1], "enumerate()'s start in a ct.static_iter loop must be an integer known at "
                    "conversion");
    } else {
      for (int i = 0; i < args->count; i++) {
        targets[i] = target->u.list.elts.items[i];
        tuples[i] = lower_expr(L, args->items[i]);
      }
      count = args->count;
    }
  } else {
    targets[0] = target;
    tuples[0] = lower_expr(L, iter);
    count = 1;
  }
  int length = -1;
  /* a Constant parameter's tuple (`layout: ct.Constant[tuple]`): a constexpr to Triton, of a
   * length known at each launch, indexed by the constexpr counter as a tuple is */
  bool launch_tuple = count == 1 && is_launch_tuple(tuples[0]->type);
  for (int i = 0; i < count && !launch_tuple; i++) {
    if (!tuples[i]->type || tuples[i]->type->kind != VAL_TUPLE)
      lower_error(L, iter, "ct.static_iter can only be converted over range(...), a tuple, a Constant parameter's "
                  "tuple, or enumerate() of one or zip() of tuples, not %s", type_describe(L->ctx, tuples[i]->type));
    if (length < 0 || tuples[i]->type->count < length) /* zip stops at the shortest */
      length = tuples[i]->type->count;
  }
  if (length == 0) /* nothing to run */
    return;
  StaticTarget bound[C2T_MAX_STATIC_TARGETS];
  int bound_count = 0;
  for (int i = 0; i < count; i++)
    static_targets_add(L, bound, &bound_count, targets[i], tuples[i]);
  Str first = (index ? index : bound[0].name)->u.name.id;
  Str counter = new_temp_name(L, arena_printf(&L->ctx->arena, "%.*s_k", first.len, first.text));
  Node *counter_name = new_name(L, arena_strndup(&L->ctx->arena, counter.text, (size_t)counter.len));
  scope_bind(L, counter, type_tile(L->ctx, DT_INT32, 0, NULL));
  if (index) { /* enumerate()'s counter: a Python int to cuTile, each iteration its own */
    TypeInfo *number = type_new(L->ctx, VAL_CONST);
    number->dtype = DT_UNKNOWN;
    number->loose = true;
    scope_bind(L, index->u.name.id, number);
  }
  for (int i = 0; i < bound_count; i++)
    scope_bind(L, bound[i].name->u.name.id, static_target_type(L, iter, &bound[i], counter_name));
  concretize_assigned(L, &stmt->u.for_.body, NULL);
  NodeList body = {0};
  Assigned *in_body = new_assigned(L);
  collect_assigned(in_body, &stmt->u.for_.body, 0);
  if (index) { /* enumerate()'s counter: the loop's own, plus the start where it is not 0 */
    long long from = 0;
    Node *counted = node_copy_tree(&L->ctx->arena, counter_name);
    if (!shape_known_int(start, &from) || from != 0)
      counted = T(L, "(_1 + _2)", counted, node_copy_tree(&L->ctx->arena, start));
    if (!constant_in_each_use(L, index, in_body, counted))
      push_stmt(L, &body, template_stmts(L->ctx, "_1 = _2 + _3\n", TEMPLATE_NODES(index, counter_name, start)).items[0]);
  }
  for (int i = 0; i < bound_count; i++) {
    if (static_target_is_array(&bound[i]))
      continue; /* its uses index the tuple's pointers, shapes and strides */
    Node *tuple = node_copy_tree(&L->ctx->arena, bound[i].tuple);
    Node *item = bound[i].item < 0 ? T(L, "_1[_2]", tuple, node_copy_tree(&L->ctx->arena, counter_name))
                                   : T(L, "_1[_2][_3]", tuple, node_copy_tree(&L->ctx->arena, counter_name),
                                       new_int(L, bound[i].item));
    if (!constant_in_each_use(L, bound[i].name, in_body, item))
      push_stmt(L, &body, template_stmts(L->ctx, "_1 = _2\n", TEMPLATE_NODES(bound[i].name, item)).items[0]);
  }
  LoopArrays arrays = loop_arrays_open(L, &stmt->u.for_.body);
  StaticTuples grown;
  static_tuples_open(L, &grown);
  L->loop_depth++;
  int outer_loop = reuse_enter_loop(L);
  lower_stmts(L, &stmt->u.for_.body);
  reuse_leave_loop(L, outer_loop);
  L->loop_depth--;
  loop_arrays_close(L, &arrays, stmt);
  static_tuples_close(L, &grown, launch_tuple ? -1 : length, iter);
  for (int i = 0; i < stmt->u.for_.body.count; i++)
    push_stmt(L, &body, stmt->u.for_.body.items[i]);
  concretize_assigned(L, &stmt->u.for_.body, NULL);
  stmt->u.for_.body = body;
  stmt->u.for_.target = new_name(L, arena_strndup(&L->ctx->arena, counter.text, (size_t)counter.len));
  stmt->u.for_.iter = launch_tuple ? T(L, "tl.static_range(len(_1))", node_copy_tree(&L->ctx->arena, tuples[0]))
                                   : T(L, "tl.static_range(_1)", new_int(L, length));
  push_stmt(L, out, stmt);
}

/* The trip count of range(args) (lowered), -1 where a bound is known only at launch. */
static long long static_range_trips(const NodeList *args) {
  long long bounds[3] = {0, 0, 1};
  for (int i = 0; i < args->count; i++)
    if (!shape_known_int(args->items[i], &bounds[args->count == 1 ? 1 : i]))
      return -1;
  if (bounds[2] == 0)
    return -1;
  unsigned long long length = range_length(bounds[0], bounds[1], bounds[2]);
  return length > C2T_MAX_STATIC_TUPLE ? C2T_MAX_STATIC_TUPLE + 1 : (long long)length; /* past the limit: refused */
}

/* An innermost loop of matrix products over range(N) or range(A, B) of constants and constexpr parameters
 * (lowered: `iter`), writing no memory, that may run once: where it does, it starts at ct_run_time_zero() (plus A),
 * so Triton keeps it a loop, whose software pipeliner issues the iteration's loads together;
 * a loop Triton knows runs once becomes straight-line code that waits for each load where it
 * stands (the helper's doc). Where it runs more often it is as written. */
static void keep_single_trip_loop(Lowerer *L, Node *iter) {
  NodeList *args = &iter->u.call.args;
  if (args->count > 2)
    return;
  for (int i = 0; i < args->count; i++)
    if (!args->items[i]->type || args->items[i]->type->kind != VAL_CONST)
      return;
  Node *start = args->count == 2 ? args->items[0] : new_int(L, 0), *stop = args->items[args->count - 1];
  long long a, b;
  bool known = shape_known_int(start, &a) && shape_known_int(stop, &b);
  if (known && b - a != 1)
    return;
  bool from_zero = shape_known_int(start, &a) && a == 0;
  Node *zero = T(L, "_1()", use_helper(L, HELPER_ct_run_time_zero));
  Node *first = from_zero ? zero : T(L, "_1 + _2", node_copy_tree(&L->ctx->arena, start), zero);
  if (!known && from_zero)
    first = T(L, "0 if _1 > 1 else _2", node_copy_tree(&L->ctx->arena, stop), first);
  else if (!known)
    first = T(L, "_1 if _2 - _3 > 1 else _4", node_copy_tree(&L->ctx->arena, start),
              node_copy_tree(&L->ctx->arena, stop), node_copy_tree(&L->ctx->arena, start), first);
  if (args->count == 2) {
    args->items[0] = first;
  } else {
    node_list_push(&L->ctx->arena, args, stop);
    args->items[0] = first;
  }
}

/* for i in range(...) | for i in ct.static_iter(range(...)) */
static void lower_for(Lowerer *L, Node *stmt, NodeList *out) {
  if (stmt->u.for_.orelse.count)
    lower_error(L, stmt, "`for ... else` is not valid in tile code");
  if (stmt->u.for_.is_async)
    lower_error(L, stmt, "`async for` is not valid in tile code");
  Node *iter = stmt->u.for_.iter;
  bool is_static = false;
  if (iter->kind == N_CALL && is_ct_member(L->conv, iter->u.call.func, "static_iter")) {
    if (iter->u.call.args.count != 1)
      lower_error(L, iter, "ct.static_iter takes one iterable");
    iter = iter->u.call.args.items[0];
    is_static = true;
  }
  if (is_static && !(iter->kind == N_CALL && iter->u.call.func->kind == N_NAME && str_eq(iter->u.call.func->u.name.id, "range"))) {
    lower_static_tuple_loop(L, stmt, iter, out);
    return;
  }
  if (iter->kind != N_CALL || iter->u.call.func->kind != N_NAME || !str_eq(iter->u.call.func->u.name.id, "range"))
    lower_error(L, iter, "only loops over range(...) can be converted (found another iterable)");
  NodeList *args = &iter->u.call.args;
  if (args->count < 1 || args->count > 3 || iter->u.call.keywords.count)
    lower_error(L, iter, "range() takes 1 to 3 positional arguments");
  bool pipelined = !is_static && loop_may_pipeline(L, stmt); /* decided on the source body */
  /* the persistent loop that steps by a parameter holding the host's program count
     (lower_spread.c): by the program count itself where the launcher found it is one */
  bool steps_by_grid = !is_static && L->spread_step.len && L->function == L->spread_kernel && L->loop_depth == 0 &&
                       args->count == 3 &&
                       args->items[2]->kind == N_NAME && str_same(args->items[2]->u.name.id, L->spread_step) &&
                       stmt->u.for_.target->kind == N_NAME && str_same(stmt->u.for_.target->u.name.id, L->spread_loop_var);
  for (int i = 0; i < args->count; i++)
    args->items[i] = lower_expr(L, args->items[i]);
  if (steps_by_grid)
    args->items[2] = template_expr(L->ctx, "tl.num_programs(0) if _step_is_grid else _1", &args->items[2], 1);
  if (is_static)
    iter->u.call.func = T0(L, "tl.static_range");
  if (pipelined) { /* lower_pipeline.c: Triton starts the loop's loads early */
    static const char *const ranges[] = {"tl.range(_1, num_stages=_loop_stages)",
                                         "tl.range(_1, _2, num_stages=_loop_stages)",
                                         "tl.range(_1, _2, _3, num_stages=_loop_stages)"};
    Node *range = template_expr(L->ctx, ranges[args->count - 1], args->items, args->count);
    range->span = iter->span;
    iter = range;
    L->kernel_pipelines_loops = true;
  }
  stmt->u.for_.iter = iter;
  if (stmt->u.for_.target->kind != N_NAME)
    lower_error(L, stmt->u.for_.target, "a loop over range() needs a single name as its target");
  TypeInfo *counter = type_tile(L->ctx, DT_INT32, 0, NULL);
  counter->static_counter = is_static;
  counter->interpreted_int = !is_static;
  scope_bind(L, stmt->u.for_.target->u.name.id, counter);
  concretize_assigned(L, &stmt->u.for_.body, stmt->u.for_.target);
  LoopArrays arrays = loop_arrays_open(L, &stmt->u.for_.body);
  StaticTuples grown;
  static_tuples_open(L, &grown);
  bool may_keep = !is_static && loop_may_keep_single_trip(L, stmt); /* decided on the source body */
  LoopTypes types;
  loop_types_open(L, &types, &stmt->u.for_.body);
  L->loop_depth++;
  int outer_loop = reuse_enter_loop(L), products = L->products;
  lower_stmts(L, &stmt->u.for_.body);
  loop_types_leave(L, &types);
  reuse_leave_loop(L, outer_loop);
  L->loop_depth--;
  if (!is_static) /* ct.static_iter is unrolled: each iteration has its own types */
    loop_types_close(L, &types, stmt, &stmt->u.for_.body);
  if (may_keep && !pipelined && !steps_by_grid && L->products > products)
    keep_single_trip_loop(L, iter);
  loop_arrays_close(L, &arrays, stmt);
  if (is_static)
    static_tuples_close(L, &grown, static_range_trips(args), iter);
  else
    run_time_tuples_close(L, &grown, stmt);
  concretize_assigned(L, &stmt->u.for_.body, stmt->u.for_.target);
  if (!is_static) /* ct.static_iter(range(...)) is unrolled: what it binds is bound after it */
    mark_first_bound(L, &arrays);
  if (!is_static && !pipelined && !steps_by_grid && L->products > products && split_loop_at_turn(L, stmt, out))
    return;
  push_stmt(L, out, stmt);
}

static bool holds_array(const TypeInfo *type);

static void lower_return(Lowerer *L, Node *stmt, NodeList *out) {
  if (stmt->u.return_.value) {
    if (L->function->role == ROLE_KERNEL)
      lower_error(L, stmt, "a kernel cannot return a value");
    stmt->u.return_.value = lower_expr(L, stmt->u.return_.value);
    if (holds_array(stmt->u.return_.value->type))
      lower_error(L, stmt->u.return_.value, "a tile function returning an array (or a view of one) cannot be "
                  "converted: an array is its pointer, shape and strides, parameters of the function that uses "
                  "it, not a value it can return; make the view (or choose the array) where it is used");
    /* Triton refuses returns of two types ("Inconsistent return types"), cuTile where the path
       decides which one runs ("Type of return value depends on path taken") */
    TypeInfo *type = stmt->u.return_.value->type;
    bool run_time = L->run_time_ifs > 0 || L->loop_depth > 0;
    if (type && L->return_type && (run_time || L->returned_at_run_time) &&
        written_differently(L, L->return_type, type))
      lower_error(L, stmt, "the type of what this tile function returns depends on the path taken: %s here, %s at "
                  "another return; cuTile refuses it (give every return one type)", dims_text(L, type),
                  dims_text(L, L->return_type));
    L->returned_at_run_time |= run_time;
    note_return_type(L, stmt, type);
  }
  push_stmt(L, out, stmt);
}

/* A source statement the converter replaced by statements it wrote (an Array.slice view's
 * pointer and shape, a dropped local's uses): the first of them takes the statement's place in
 * the source (its span), so the comments above it and at the end of its line, and the blank
 * lines before it, stay there (they went to the next source statement). It stays marked as
 * rewritten: it is written from the tree, never copied from the source. */
static void stand_in_place(const Node *stmt, NodeList *pending, NodeList *lowered) {
  if (stmt->span.start.line <= 0)
    return;
  for (int i = 0; i < pending->count; i++)
    if (pending->items[i]->span.start.line > 0)
      return;
  for (int i = 0; i < lowered->count; i++)
    if (lowered->items[i]->span.start.line > 0)
      return;
  Node *first = pending->count ? pending->items[0] : lowered->count ? lowered->items[0] : NULL;
  if (!first)
    return;
  first->span = stmt->span;
  first->rewritten = true;
}

static void lower_stmt(Lowerer *L, Node *stmt, NodeList *out) {
  NodeList pending = {0};
  NodeList *outer_pending = L->pending;
  L->pending = &pending;
  const char *outer_note = L->statement_note;
  L->statement_note = NULL;
  const Node *outer_statement = L->statement;
  L->statement = stmt; /* where lower_error reports when its node has no location */
  NodeList lowered = {0};
  switch (stmt->kind) {
  case N_ASSIGN: lower_assign(L, stmt, &lowered); break;
  case N_ANN_ASSIGN: lower_ann_assign(L, stmt, &lowered); break;
  case N_AUG_ASSIGN: lower_aug_assign(L, stmt, &lowered); break;
  case N_EXPR_STMT: lower_expr_stmt(L, stmt, &lowered); break;
  case N_IF: lower_if(L, stmt, &lowered); break;
  case N_WHILE: lower_while(L, stmt, &lowered); break;
  case N_FOR: lower_for(L, stmt, &lowered); break;
  case N_RETURN: lower_return(L, stmt, &lowered); break;
  case N_PASS:
  case N_BREAK:
  case N_CONTINUE: push_stmt(L, &lowered, stmt); break;
  case N_RAISE: push_stmt(L, &lowered, lower_raise_statement(L, stmt)); break;
  case N_FUNCTION_DEF:
    lower_error(L, stmt, "the function '%.*s' defined here cannot be converted: a function defined in tile code "
                "moves to module level only when defined once in the kernel's (or tile function's) body or its blocks, "
                "with no decorator, *args or **kwargs, defaults that read none of its names, and no def, lambda, "
                "nonlocal or global of its own; and, where it reads the kernel's names, only called (not returned "
                "or passed); never in a function host code calls too (@ct.function(host=True), or a plain "
                "function host code names), which runs there as written",
                stmt->u.function_def.name.len, stmt->u.function_def.name.text);
  default: lower_error(L, stmt, "this statement is not valid in tile code");
  }
  L->pending = outer_pending;
  if (L->statement_note && lowered.count > 0) {
    if (L->conv->notes_fatal) { /* C2T_OPTION_NOTES_FATAL (--werror-notes): the note's code, at the statement */
      const char *note = L->statement_note;
      diag_error_code(&L->ctx->diag, arena_strndup(&L->ctx->arena, note, 6), stmt->span.start,
                      "%s (an approximation note, an error under --werror-notes)", strlen(note) > 8 ? note + 8 : note);
    }
    lowered.items[0]->note = L->statement_note;
    stats_notes(L->conv, L->statement_note); /* --stats: notes by code */
  }
  L->statement_note = outer_note;
  L->statement = outer_statement;
  stand_in_place(stmt, &pending, &lowered);
  for (int i = 0; i < pending.count; i++)
    push_stmt(L, out, pending.items[i]);
  for (int i = 0; i < lowered.count; i++)
    push_stmt(L, out, lowered.items[i]);
}

void lower_stmts(Lowerer *L, NodeList *stmts) {
  if (++L->depth > C2T_MAX_PARSE_DEPTH)
    lower_limit(L, stmts->count ? stmts->items[0] : NULL, "nested blocks in tile code", C2T_MAX_PARSE_DEPTH);
  NodeList out = {0};
  NodeList *outer_block = L->stmt_block;
  int outer_index = L->stmt_index;
  for (int i = 0; i < stmts->count; i++) {
    L->stmt_block = stmts, L->stmt_index = i;
    lower_stmt(L, stmts->items[i], &out);
    if (out.count && out.items[out.count - 1]->kind == N_RETURN)
      break; /* what follows a return (one a pruned `if` left here too) never runs: not converted */
  }
  L->stmt_block = outer_block, L->stmt_index = outer_index;
  if (out.count == 0 && stmts->count > 0) {
    Node *pass = template_stmts(L->ctx, "pass", NULL, 0).items[0];
    push_stmt(L, &out, pass);
  }
  *stmts = out;
  L->depth--;
  rewrite_break_continue(L, stmts);
}
