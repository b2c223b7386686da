/*
 * walk.c — visiting the children of a syntax-tree node.
 *
 * node_child_slots(node, visit, data) calls visit(&child, data) for every
 * direct child of `node`, in source order, so a visitor may replace the
 * child; node_children passes the child itself. Stages build their
 * traversals on these (recursion stays in the caller, which bounds its depth).
 */
#include <string.h>

#include "../c2t.h"

static void copy_slot(Node **slot, void *data);

static void visit_list(NodeList *list, SlotVisitor visit, void *data) {
  if (visit == copy_slot && list->count) {
    /* the copy's list gets its own items before they are replaced */
    Node **items = arena_alloc(data, sizeof(Node *) * (size_t)list->count);
    memcpy(items, list->items, sizeof(Node *) * (size_t)list->count);
    list->items = items;
    list->capacity = list->count;
  }
  for (int i = 0; i < list->count; i++)
    if (list->items[i])
      visit(&list->items[i], data);
}

static void visit_one(Node **slot, SlotVisitor visit, void *data) {
  if (*slot)
    visit(slot, data);
}

/* A copy's own array of `count` items of `size` bytes, before its items are replaced: arrays
 * outside a NodeList (a comparison's operands and operators, a dict's keys) would otherwise
 * stay shared with the original, which copying and later rewriting one would change too. */
static void *own_array(SlotVisitor visit, void *data, void *items, int count, size_t size) {
  if (visit != copy_slot || count <= 0 || !items)
    return items;
  void *copy = arena_alloc(data, size * (size_t)count);
  memcpy(copy, items, size * (size_t)count);
  return copy;
}

static void statement_children(Node *n, SlotVisitor visit, void *data) {
  switch (n->kind) {
  case N_FUNCTION_DEF:
    visit_list(&n->u.function_def.decorator_list, visit, data);
    visit_list(&n->u.function_def.type_params, visit, data);
    visit_one(&n->u.function_def.args, visit, data);
    visit_one(&n->u.function_def.returns, visit, data);
    visit_list(&n->u.function_def.body, visit, data);
    break;
  case N_CLASS_DEF:
    visit_list(&n->u.class_def.decorator_list, visit, data);
    visit_list(&n->u.class_def.type_params, visit, data);
    visit_list(&n->u.class_def.bases, visit, data);
    visit_list(&n->u.class_def.keywords, visit, data);
    visit_list(&n->u.class_def.body, visit, data);
    break;
  case N_RETURN: visit_one(&n->u.return_.value, visit, data); break;
  case N_DELETE: visit_list(&n->u.delete_.targets, visit, data); break;
  case N_ASSIGN:
    visit_list(&n->u.assign.targets, visit, data);
    visit_one(&n->u.assign.value, visit, data);
    break;
  case N_TYPE_ALIAS:
    visit_one(&n->u.type_alias.name, visit, data);
    visit_list(&n->u.type_alias.type_params, visit, data);
    visit_one(&n->u.type_alias.value, visit, data);
    break;
  case N_AUG_ASSIGN:
    visit_one(&n->u.aug_assign.target, visit, data);
    visit_one(&n->u.aug_assign.value, visit, data);
    break;
  case N_ANN_ASSIGN:
    visit_one(&n->u.ann_assign.target, visit, data);
    visit_one(&n->u.ann_assign.annotation, visit, data);
    visit_one(&n->u.ann_assign.value, visit, data);
    break;
  case N_FOR:
    visit_one(&n->u.for_.target, visit, data);
    visit_one(&n->u.for_.iter, visit, data);
    visit_list(&n->u.for_.body, visit, data);
    visit_list(&n->u.for_.orelse, visit, data);
    break;
  case N_WHILE:
    visit_one(&n->u.while_.test, visit, data);
    visit_list(&n->u.while_.body, visit, data);
    visit_list(&n->u.while_.orelse, visit, data);
    break;
  case N_IF:
    visit_one(&n->u.if_.test, visit, data);
    visit_list(&n->u.if_.body, visit, data);
    visit_list(&n->u.if_.orelse, visit, data);
    break;
  case N_WITH:
    visit_list(&n->u.with.items, visit, data);
    visit_list(&n->u.with.body, visit, data);
    break;
  case N_MATCH:
    visit_one(&n->u.match.subject, visit, data);
    visit_list(&n->u.match.cases, visit, data);
    break;
  case N_RAISE:
    visit_one(&n->u.raise.exc, visit, data);
    visit_one(&n->u.raise.cause, visit, data);
    break;
  case N_TRY:
    visit_list(&n->u.try_.body, visit, data);
    visit_list(&n->u.try_.handlers, visit, data);
    visit_list(&n->u.try_.orelse, visit, data);
    visit_list(&n->u.try_.finalbody, visit, data);
    break;
  case N_ASSERT:
    visit_one(&n->u.assert_.test, visit, data);
    visit_one(&n->u.assert_.msg, visit, data);
    break;
  case N_IMPORT: visit_list(&n->u.import.names, visit, data); break;
  case N_IMPORT_FROM: visit_list(&n->u.import_from.names, visit, data); break;
  case N_GLOBAL:
  case N_NONLOCAL: visit_list(&n->u.global.names, visit, data); break;
  case N_EXPR_STMT: visit_one(&n->u.expr_stmt.value, visit, data); break;
  default: break;
  }
}

static void expression_children(Node *n, SlotVisitor visit, void *data) {
  switch (n->kind) {
  case N_BOOL_OP: visit_list(&n->u.bool_op.values, visit, data); break;
  case N_NAMED_EXPR:
    visit_one(&n->u.named_expr.target, visit, data);
    visit_one(&n->u.named_expr.value, visit, data);
    break;
  case N_BIN_OP:
    visit_one(&n->u.bin_op.left, visit, data);
    visit_one(&n->u.bin_op.right, visit, data);
    break;
  case N_UNARY_OP: visit_one(&n->u.unary_op.operand, visit, data); break;
  case N_LAMBDA:
    visit_one(&n->u.lambda.args, visit, data);
    visit_one(&n->u.lambda.body, visit, data);
    break;
  case N_IF_EXP:
    visit_one(&n->u.if_exp.test, visit, data);
    visit_one(&n->u.if_exp.body, visit, data);
    visit_one(&n->u.if_exp.orelse, visit, data);
    break;
  case N_DICT:
    if (visit == copy_slot) { /* its lists are visited item by item (a key may be NULL) */
      n->u.dict.keys.items = own_array(visit, data, n->u.dict.keys.items, n->u.dict.keys.count, sizeof(Node *));
      n->u.dict.values.items = own_array(visit, data, n->u.dict.values.items, n->u.dict.values.count, sizeof(Node *));
      n->u.dict.keys.capacity = n->u.dict.keys.count;
      n->u.dict.values.capacity = n->u.dict.values.count;
    }
    for (int i = 0; i < n->u.dict.values.count; i++) {
      visit_one(&n->u.dict.keys.items[i], visit, data);
      visit_one(&n->u.dict.values.items[i], visit, data);
    }
    break;
  case N_SET: visit_list(&n->u.set.elts, visit, data); break;
  case N_LIST_COMP:
  case N_SET_COMP:
  case N_GENERATOR_EXP:
    visit_list(&n->u.comp.generators, visit, data);
    visit_one(&n->u.comp.elt, visit, data);
    break;
  case N_DICT_COMP:
    visit_list(&n->u.dict_comp.generators, visit, data);
    visit_one(&n->u.dict_comp.key, visit, data);
    visit_one(&n->u.dict_comp.value, visit, data);
    break;
  case N_AWAIT: visit_one(&n->u.await.value, visit, data); break;
  case N_YIELD:
  case N_YIELD_FROM: visit_one(&n->u.yield.value, visit, data); break;
  case N_COMPARE:
    n->u.compare.comparators = own_array(visit, data, n->u.compare.comparators, n->u.compare.count, sizeof(Node *));
    n->u.compare.ops = own_array(visit, data, n->u.compare.ops, n->u.compare.count, sizeof(AstOp));
    visit_one(&n->u.compare.left, visit, data);
    for (int i = 0; i < n->u.compare.count; i++)
      visit_one(&n->u.compare.comparators[i], visit, data);
    break;
  case N_CALL:
    visit_one(&n->u.call.func, visit, data);
    visit_list(&n->u.call.args, visit, data);
    visit_list(&n->u.call.keywords, visit, data);
    break;
  case N_STRING: visit_list(&n->u.string.parts, visit, data); break;
  case N_FSTRING: visit_list(&n->u.fstring.parts, visit, data); break;
  case N_FORMATTED_VALUE:
    visit_one(&n->u.formatted_value.value, visit, data);
    visit_one(&n->u.formatted_value.format_spec, visit, data);
    break;
  case N_ATTRIBUTE: visit_one(&n->u.attribute.value, visit, data); break;
  case N_SUBSCRIPT:
    visit_one(&n->u.subscript.value, visit, data);
    visit_one(&n->u.subscript.slice, visit, data);
    break;
  case N_STARRED: visit_one(&n->u.starred.value, visit, data); break;
  case N_LIST:
  case N_TUPLE: visit_list(&n->u.list.elts, visit, data); break;
  case N_SLICE:
    visit_one(&n->u.slice.lower, visit, data);
    visit_one(&n->u.slice.upper, visit, data);
    visit_one(&n->u.slice.step, visit, data);
    break;
  default: break;
  }
}

static void auxiliary_children(Node *n, SlotVisitor visit, void *data) {
  switch (n->kind) {
  case N_MODULE: visit_list(&n->u.module.body, visit, data); break;
  case N_ARGUMENTS:
    visit_list(&n->u.arguments.posonlyargs, visit, data);
    visit_list(&n->u.arguments.args, visit, data);
    visit_one(&n->u.arguments.vararg, visit, data);
    visit_list(&n->u.arguments.kwonlyargs, visit, data);
    visit_list(&n->u.arguments.kw_defaults, visit, data);
    visit_one(&n->u.arguments.kwarg, visit, data);
    visit_list(&n->u.arguments.defaults, visit, data);
    break;
  case N_ARG: visit_one(&n->u.arg.annotation, visit, data); break;
  case N_KEYWORD: visit_one(&n->u.keyword.value, visit, data); break;
  case N_WITHITEM:
    visit_one(&n->u.withitem.context_expr, visit, data);
    visit_one(&n->u.withitem.optional_vars, visit, data);
    break;
  case N_EXCEPT_HANDLER:
    visit_one(&n->u.except_handler.type, visit, data);
    visit_list(&n->u.except_handler.body, visit, data);
    break;
  case N_COMPREHENSION:
    visit_one(&n->u.comprehension.target, visit, data);
    visit_one(&n->u.comprehension.iter, visit, data);
    visit_list(&n->u.comprehension.ifs, visit, data);
    break;
  case N_MATCH_CASE:
    visit_one(&n->u.match_case.pattern, visit, data);
    visit_one(&n->u.match_case.guard, visit, data);
    visit_list(&n->u.match_case.body, visit, data);
    break;
  case N_TYPE_VAR: visit_one(&n->u.type_param.bound, visit, data); break;
  case N_MATCH_VALUE: visit_one(&n->u.match_value.value, visit, data); break;
  case N_MATCH_SEQUENCE: visit_list(&n->u.match_sequence.patterns, visit, data); break;
  case N_MATCH_MAPPING:
    visit_list(&n->u.match_mapping.keys, visit, data);
    visit_list(&n->u.match_mapping.patterns, visit, data);
    break;
  case N_MATCH_CLASS:
    visit_one(&n->u.match_class.cls, visit, data);
    visit_list(&n->u.match_class.patterns, visit, data);
    visit_list(&n->u.match_class.kwd_attrs_nodes, visit, data);
    visit_list(&n->u.match_class.kwd_patterns, visit, data);
    break;
  case N_MATCH_AS: visit_one(&n->u.match_as.pattern, visit, data); break;
  case N_MATCH_OR: visit_list(&n->u.match_or.patterns, visit, data); break;
  default: break;
  }
}

void node_child_slots(Node *node, SlotVisitor visit, void *data) {
  if (!node)
    return;
  if (node->kind >= N_FUNCTION_DEF && node->kind <= N_CONTINUE)
    statement_children(node, visit, data);
  else if (node->kind >= N_BOOL_OP && node->kind <= N_SLICE)
    expression_children(node, visit, data);
  else
    auxiliary_children(node, visit, data);
}

typedef struct ChildVisit {
  NodeVisitor visit;
  void *data;
} ChildVisit;

static void visit_slot_child(Node **slot, void *data) {
  ChildVisit *outer = data;
  outer->visit(*slot, outer->data);
}

void node_children(Node *node, NodeVisitor visit, void *data) {
  ChildVisit outer = {visit, data};
  node_child_slots(node, visit_slot_child, &outer);
}

/* node_copy_tree: every node reached by node_child_slots is copied, with
 * its lists; names and texts (spans into the source) are shared. Depth
 * needs no cap of its own: the parser bounds it (C2T_MAX_PARSE_DEPTH). */
static void copy_slot(Node **slot, void *data) {
  Node *copy = arena_alloc(data, sizeof(Node));
  *copy = **slot;
  *slot = copy;
  node_child_slots(copy, copy_slot, data);
}

Node *node_copy_tree(Arena *arena, Node *node) {
  Node *root = node;
  copy_slot(&root, arena);
  return root;
}

Str node_plain_string(const Node *string) {
  Str none = {0};
  if (string->kind != N_STRING || string->u.string.is_bytes || string->u.string.parts.count != 1)
    return none;
  const Node *piece = string->u.string.parts.items[0];
  if (piece->kind != N_STRING_TOKEN)
    return none;
  Str token = piece->u.piece.text;
  /* no prefix, one quote character each side ("..." or '...'), no escapes */
  if (token.len < 2 || (token.text[0] != '"' && token.text[0] != '\'') || token.text[token.len - 1] != token.text[0])
    return none;
  if (token.len >= 6 && token.text[1] == token.text[0] && token.text[2] == token.text[0])
    return none; /* a triple-quoted literal */
  if (memchr(token.text, '\\', (size_t)token.len))
    return none;
  return (Str){token.text + 1, token.len - 2};
}
