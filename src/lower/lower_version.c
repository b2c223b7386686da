/*
 * lower_version.c — one version of a kernel or tile function per value of a
 * constexpr condition.
 *
 * cuTile compiles a kernel once per set of constexpr values, so a name may
 * be a 1-D tile when `BLOCK_W == 1` and a 2-D one otherwise:
 *
 *     if BLOCK_W == 1:
 *         acc = ct.zeros((BLOCK_C,), dtype=ct.float32)
 *     else:
 *         acc = ct.zeros((BLOCK_C, BLOCK_W), dtype=ct.float32)
 *     total = ct.sum(acc, axis=0)        # the rank decides what this is
 *
 * The converter types a name once per program point; after that `if` the
 * rank of `acc` is not known. When the lowering of a function fails and an
 * `if` (or `a if c else b`) on a constexpr condition C made two branches
 * disagree on a type, lower_function.c lowers the function again from its
 * pristine copy twice, once assuming C and once assuming `not C` (every
 * condition the converter can decide from the assumption is pruned, as
 * cuTile prunes it), and this file joins the two bodies under one
 *
 *     if C:
 *         <version with C>
 *     else:
 *         <version without C>
 *
 * C reads only constexpr parameters, so Triton decides it at compile time
 * and compiles one version. A version may split again (nested conditions),
 * up to C2T_MAX_FUNCTION_VERSIONS versions per function.
 *
 * A tile function splits the same way, per call signature, on its own
 * constant parameters (`ct.Constant` ones and those its call gives a
 * constant, tl.constexpr in Triton); a kernel's assumptions are not its
 * callee's. Its callers see one return type (joined_return_type), or the
 * one version's their arguments decide, and may split on the condition in
 * their own terms where the versions return other ranks (lower_function.c).
 */
#include <string.h>

#include "lower.h"
#include "lower_math.h"

/* ------------------------------------------------ comparing conditions */

static bool same_tree(const Node *a, const Node *b) {
  if (!a || !b)
    return a == b;
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case N_NAME: return str_same(a->u.name.id, b->u.name.id);
  case N_CONSTANT:
    return a->u.constant.kind == b->u.constant.kind &&
           (a->u.constant.kind != CONST_NUMBER || str_same(a->u.constant.text, b->u.constant.text));
  case N_UNARY_OP: return a->u.unary_op.op == b->u.unary_op.op && same_tree(a->u.unary_op.operand, b->u.unary_op.operand);
  case N_BIN_OP:
    return a->u.bin_op.op == b->u.bin_op.op && same_tree(a->u.bin_op.left, b->u.bin_op.left) &&
           same_tree(a->u.bin_op.right, b->u.bin_op.right);
  case N_BOOL_OP:
    if (a->u.bool_op.op != b->u.bool_op.op || a->u.bool_op.values.count != b->u.bool_op.values.count)
      return false;
    for (int i = 0; i < a->u.bool_op.values.count; i++)
      if (!same_tree(a->u.bool_op.values.items[i], b->u.bool_op.values.items[i]))
        return false;
    return true;
  case N_COMPARE:
    if (a->u.compare.count != b->u.compare.count || !same_tree(a->u.compare.left, b->u.compare.left))
      return false;
    for (int i = 0; i < a->u.compare.count; i++)
      if (a->u.compare.ops[i] != b->u.compare.ops[i] ||
          !same_tree(a->u.compare.comparators[i], b->u.compare.comparators[i]))
        return false;
    return true;
  default: return false;
  }
}

/* `a OP b` is `not (a NEGATED b)` */
static AstOp negated(AstOp op) {
  switch (op) {
  case AOP_EQ: return AOP_NOTEQ;
  case AOP_NOTEQ: return AOP_EQ;
  case AOP_LT: return AOP_GTE;
  case AOP_GTE: return AOP_LT;
  case AOP_GT: return AOP_LTE;
  case AOP_LTE: return AOP_GT;
  default: return AOP_NONE;
  }
}

/* `a OP b` is `b MIRRORED a` */
static AstOp mirrored(AstOp op) {
  switch (op) {
  case AOP_EQ: case AOP_NOTEQ: return op;
  case AOP_LT: return AOP_GT;
  case AOP_GT: return AOP_LT;
  case AOP_LTE: return AOP_GTE;
  case AOP_GTE: return AOP_LTE;
  default: return AOP_NONE;
  }
}

/* A decimal integer literal (`1`, not `1.0` or `0x1`, whose texts differ for one value). */
static bool is_int_literal(const Node *n) {
  if (!n || n->kind != N_CONSTANT || n->u.constant.kind != CONST_NUMBER || !n->u.constant.text.len)
    return false;
  Str text = n->u.constant.text;
  if (text.len > 1 && text.text[0] == '0')
    return false;
  for (int i = 0; i < text.len; i++)
    if (text.text[i] < '0' || text.text[i] > '9')
      return false;
  return true;
}

/* A single comparison `left OP right` in the form `name OP value` where one
 * side is a name (for matching `c == P` against `P == c`). */
static bool compare_parts(const Node *e, const Node **left, AstOp *op, const Node **right) {
  if (!e || e->kind != N_COMPARE || e->u.compare.count != 1)
    return false;
  *left = e->u.compare.left;
  *op = e->u.compare.ops[0];
  *right = e->u.compare.comparators[0];
  if ((*left)->kind != N_NAME && (*right)->kind == N_NAME && mirrored(*op) != AOP_NONE) {
    const Node *t = *left;
    *left = *right;
    *right = t;
    *op = mirrored(*op);
  }
  return true;
}

/* What the assumption `test is value` says of `e`: 1 true, 0 false, -1 nothing. */
static int implied(const Node *test, bool value, const Node *e) {
  if (same_tree(test, e))
    return value;
  if (test->kind == N_UNARY_OP && test->u.unary_op.op == AOP_NOT)
    return implied(test->u.unary_op.operand, !value, e);
  const Node *tl, *tr, *el, *er;
  AstOp top, eop;
  if (!compare_parts(test, &tl, &top, &tr) || !compare_parts(e, &el, &eop, &er))
    return -1;
  if (!same_tree(tl, el))
    return -1;
  if (same_tree(tr, er)) {
    if (eop == top)
      return value;
    if (eop == negated(top))
      return !value;
    return -1;
  }
  /* P == 1 holds: P == 2 does not, P != 2 does (integer literals only) */
  if (value && top == AOP_EQ && is_int_literal(tr) && is_int_literal(er) && !str_same(tr->u.constant.text, er->u.constant.text) &&
      (eop == AOP_EQ || eop == AOP_NOTEQ))
    return eop == AOP_NOTEQ;
  return -1;
}

int assumed_condition(Lowerer *L, const Node *expr) {
  for (int i = L->assumption_count - 1; i >= 0; i--) {
    int known = implied(L->assumptions[i].test, L->assumptions[i].value, expr);
    if (known >= 0)
      return known;
  }
  if (expr->kind == N_UNARY_OP && expr->u.unary_op.op == AOP_NOT) {
    int known = assumed_condition(L, expr->u.unary_op.operand);
    return known < 0 ? -1 : !known;
  }
  return -1;
}

Node *lower_condition(Lowerer *L, Node *expr) {
  int known = L->assumption_count ? assumed_condition(L, expr) : -1;
  if (known < 0) {
    Node *test = lower_expr(L, expr);
    refuse_coded(L, expr, "a condition", test->type, 0);
    return test;
  }
  Node *node = arena_alloc(&L->ctx->arena, sizeof(Node));
  node->kind = N_CONSTANT;
  node->u.constant.kind = known ? CONST_TRUE : CONST_FALSE;
  node->span = expr->span;
  node->rewritten = true;
  node->type = type_const_bool(L->ctx, known);
  return node;
}

/* ------------------------------------------------------- the split */

/* A condition a version may assume: built of literals and constexpr
 * parameters that no statement of the function assigns, so that it has one
 * value in the whole body (as in each cuTile compilation). */
static bool splittable(Lowerer *L, const Node *e) {
  switch (e->kind) {
  case N_NAME:
    for (int i = 0; i < L->split_name_count; i++)
      if (str_same(L->split_names[i], e->u.name.id))
        return true;
    for (int i = 0; i < L->split_alias_count; i++)
      if (str_same(L->split_alias_names[i], e->u.name.id))
        return true;
    return false;
  case N_CONSTANT: return e->u.constant.kind != CONST_ELLIPSIS;
  case N_UNARY_OP: return splittable(L, e->u.unary_op.operand);
  case N_BIN_OP: return splittable(L, e->u.bin_op.left) && splittable(L, e->u.bin_op.right);
  case N_BOOL_OP:
    for (int i = 0; i < e->u.bool_op.values.count; i++)
      if (!splittable(L, e->u.bool_op.values.items[i]))
        return false;
    return true;
  case N_COMPARE:
    if (!splittable(L, e->u.compare.left))
      return false;
    for (int i = 0; i < e->u.compare.count; i++)
      if (negated(e->u.compare.ops[i]) == AOP_NONE || !splittable(L, e->u.compare.comparators[i]))
        return false;
    return true;
  default: return false;
  }
}

bool constexpr_param_condition(Lowerer *L, const Node *e) { return splittable(L, e); }

/* The lowered condition with each local that stands for a tile parameter's
 * dimension (`N` of `N, D = t.shape`) read from the parameter instead
 * (`t.shape[0]`, a constexpr in Triton): the joined `if` stands before the
 * statement that binds the local. */
static Node *with_shapes(Lowerer *L, Node *e, int depth) {
  if (!e || !L->split_alias_count || depth > C2T_MAX_PARSE_DEPTH)
    return e;
  switch (e->kind) {
  case N_NAME:
    for (int i = 0; i < L->split_alias_count; i++)
      if (str_same(L->split_alias_names[i], e->u.name.id))
        return T(L, "_1.shape[_2]", new_name(L, arena_strndup(&L->ctx->arena, L->split_alias_params[i].text, (size_t)L->split_alias_params[i].len)),
                 new_int(L, L->split_alias_dims[i]));
    return e;
  case N_UNARY_OP: {
    Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
    *copy = *e;
    copy->u.unary_op.operand = with_shapes(L, e->u.unary_op.operand, depth + 1);
    return copy;
  }
  case N_BIN_OP: {
    Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
    *copy = *e;
    copy->u.bin_op.left = with_shapes(L, e->u.bin_op.left, depth + 1);
    copy->u.bin_op.right = with_shapes(L, e->u.bin_op.right, depth + 1);
    return copy;
  }
  case N_BOOL_OP: {
    Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
    *copy = *e;
    copy->u.bool_op.values = (NodeList){0};
    for (int i = 0; i < e->u.bool_op.values.count; i++)
      node_list_push(&L->ctx->arena, &copy->u.bool_op.values, with_shapes(L, e->u.bool_op.values.items[i], depth + 1));
    return copy;
  }
  case N_COMPARE: {
    Node *copy = arena_alloc(&L->ctx->arena, sizeof(Node));
    *copy = *e;
    copy->u.compare.left = with_shapes(L, e->u.compare.left, depth + 1);
    copy->u.compare.comparators = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)(e->u.compare.count + 1));
    for (int i = 0; i < e->u.compare.count; i++)
      copy->u.compare.comparators[i] = with_shapes(L, e->u.compare.comparators[i], depth + 1);
    return copy;
  }
  default: return e;
  }
}

void note_version_split(Lowerer *L, Node *source, Node *lowered, int priority) {
  if (!source || !lowered || priority <= L->split_priority || !splittable(L, source))
    return;
  L->split_source = source;
  L->split_lowered = with_shapes(L, lowered, 0);
  L->split_priority = priority;
}

int type_disagreement(Lowerer *L, const TypeInfo *a, const TypeInfo *b) {
  if (!a || !b || a == b)
    return 0;
  /* `q_pe = None` then `if BLOCK_R > 0: q_pe = ct.load(...)`: a tile in one version only */
  if ((a->kind == VAL_NONE && b->kind == VAL_TILE) || (a->kind == VAL_TILE && b->kind == VAL_NONE))
    return 3;
  if (a->kind != VAL_TILE || b->kind != VAL_TILE)
    return 0;
  if (a->rank != b->rank)
    return 3;
  for (int d = 0; d < a->rank && d < C2T_MAX_RANK; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] < 0 && !math_same_dim(L, a->dims[d], b->dims[d])))
      return 2; /* 16 and 32, or BM and BN */
  return a->dtype != b->dtype ? 1 : 0;
}

/* ------------------------------------------------------- the join */

static bool is_docstring(const Node *stmt) {
  return stmt->kind == N_EXPR_STMT && stmt->u.expr_stmt.value->kind == N_STRING;
}

static NodeList without_docstring(Lowerer *L, const NodeList *body) {
  NodeList rest = {0};
  for (int i = 0; i < body->count; i++)
    if (i > 0 || !is_docstring(body->items[i]))
      node_list_push(&L->ctx->arena, &rest, body->items[i]);
  if (!rest.count)
    rest = template_stmts(L->ctx, "pass\n", NULL, 0);
  return rest;
}

static bool same_params(Lowerer *L, const Node *a, const Node *b) {
  const NodeList *pa = &a->u.function_def.args->u.arguments.args, *pb = &b->u.function_def.args->u.arguments.args;
  if (pa->count != pb->count)
    return false;
  for (int i = 0; i < pa->count; i++) {
    const Node *x = pa->items[i], *y = pb->items[i];
    if (!str_same(x->u.arg.arg, y->u.arg.arg) || !x->u.arg.annotation != !y->u.arg.annotation)
      return false;
  }
  return true;
}

void join_versions(Lowerer *L, Node *split, Node *with, Node *without) {
  if (!same_params(L, with, without))
    lower_error(L, split, "the versions of this function for each outcome of this constexpr condition need different "
                "parameters in Triton (an array used with another rank, a parameter that is a constant in one "
                "version only): this cannot be converted");
  NodeList *body = &with->u.function_def.body;
  NodeList joined = {0};
  if (body->count && is_docstring(body->items[0]))
    node_list_push(&L->ctx->arena, &joined, body->items[0]);
  Node *branch = arena_alloc(&L->ctx->arena, sizeof(Node));
  branch->kind = N_IF;
  branch->u.if_.test = split;
  branch->u.if_.body = without_docstring(L, body);
  branch->u.if_.orelse = without_docstring(L, &without->u.function_def.body);
  branch->u.if_.versions = true; /* each version is written with its own comments */
  branch->u.if_.dropped[0] = with->u.function_def.dropped;
  branch->u.if_.dropped[1] = without->u.function_def.dropped;
  with->u.function_def.dropped = (DroppedLines){0};
  branch->rewritten = true;
  node_list_push(&L->ctx->arena, &joined, branch);
  *body = joined;
}

/* ------------------------------------------------- the return type */

static bool same_constant_value(const TypeInfo *a, const TypeInfo *b) {
  return a->dtype != DT_UNKNOWN && a->dtype == b->dtype && a->is_float == b->is_float &&
         (a->is_float ? a->float_value == b->float_value : a->int_value == b->int_value);
}

/* The callers of a split tile function see one return type for both
 * versions (Triton compiles one of them per call), so it keeps what the two
 * agree on: a tile's rank, dimensions and dtype where they are the same
 * (merged_tile), a constant where both return the same value (else a
 * run-time scalar, as after an `if` whose branches disagree), a tuple item
 * by item. The depth of the recursion is that of the tuples the body built,
 * bounded by C2T_MAX_PARSE_DEPTH. */
TypeInfo *joined_return_type(Lowerer *L, Node *split, TypeInfo *with, TypeInfo *without) {
  if (with == without || !with || !without)
    return with ? with : without;
  bool agree = with->kind == without->kind;
  switch (agree ? with->kind : VAL_UNKNOWN) {
  case VAL_NONE: return with;
  case VAL_TILE: return merged_constexpr_tile(L, with, without);
  case VAL_CONST:
    return same_constant_value(with, without) ? with : type_tile(L->ctx, DT_UNKNOWN, 0, NULL);
  case VAL_DTYPE: agree = with->dtype != DT_UNKNOWN && with->dtype == without->dtype; break;
  case VAL_ENUM: agree = with->member && without->member && strcmp(with->member, without->member) == 0; break;
  case VAL_TUPLE:
    agree = with->count == without->count && with->count >= 0 && !with->array && !without->array &&
            (with->count == 0 || (with->elts && without->elts));
    if (!agree)
      break;
    TypeInfo *tuple = type_new(L->ctx, VAL_TUPLE);
    *tuple = *with;
    tuple->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(with->count + 1));
    for (int i = 0; i < with->count; i++)
      tuple->elts[i] = joined_return_type(L, split, with->elts[i], without->elts[i]);
    return tuple;
  default: agree = false; break;
  }
  if (!agree)
    lower_error(L, split, "the versions of this tile function for each outcome of this constexpr condition return "
                "different kinds of values (%s and %s), which its callers cannot tell apart: this cannot be "
                "converted", type_describe(L->ctx, with), type_describe(L->ctx, without));
  return with;
}
