/*
 * parse_expr_target.c — assignment and deletion targets, `for` targets,
 * comprehension clauses, and CPython's names for expressions in messages.
 *
 * Targets are parsed as expressions and then checked: set_target_context
 * walks the tree, sets Store/Del on names, attributes, subscripts, starred
 * items, lists and tuples, and rejects anything else with CPython's message
 * ("cannot assign to function call", "cannot delete literal", ...). What
 * CPython leaves to its compiler (a starred target outside a tuple,
 * `__debug__`) is accepted here, as `ast.parse` does.
 */
#include "parse_expr_internal.h"

/* _PyPegen_get_expr_name: how messages call an expression. */
const char *parser_expr_name(const Node *e) {
  switch (e->kind) {
  case N_ATTRIBUTE: return "attribute";
  case N_SUBSCRIPT: return "subscript";
  case N_STARRED: return "starred";
  case N_NAME: return "name";
  case N_LIST: return "list";
  case N_TUPLE: return "tuple";
  case N_LAMBDA: return "lambda";
  case N_CALL: return "function call";
  case N_BOOL_OP: case N_BIN_OP: case N_UNARY_OP: return "expression";
  case N_GENERATOR_EXP: return "generator expression";
  case N_YIELD: case N_YIELD_FROM: return "yield expression";
  case N_AWAIT: return "await expression";
  case N_LIST_COMP: return "list comprehension";
  case N_SET_COMP: return "set comprehension";
  case N_DICT_COMP: return "dict comprehension";
  case N_DICT: return "dict literal";
  case N_SET: return "set display";
  case N_FSTRING: case N_FORMATTED_VALUE: return "f-string expression";
  case N_STRING:
    for (int i = 0; i < e->u.string.parts.count; i++)
      if (e->u.string.parts.items[i]->kind == N_FSTRING)
        return "f-string expression";
    return "literal";
  case N_CONSTANT:
    switch (e->u.constant.kind) {
    case CONST_NONE: return "None";
    case CONST_TRUE: return "True";
    case CONST_FALSE: return "False";
    case CONST_ELLIPSIS: return "ellipsis";
    default: return "literal";
    }
  case N_COMPARE: return "comparison";
  case N_IF_EXP: return "conditional expression";
  case N_NAMED_EXPR: return "named expression";
  default: return "expression";
  }
}

bool is_augassign_target(const Node *target) {
  return target->kind == N_NAME || target->kind == N_ATTRIBUTE || target->kind == N_SUBSCRIPT;
}

/* The first part of `target` that cannot be assigned (or deleted), or NULL
 * (_PyPegen_get_invalid_target). */
static const Node *find_invalid_target(const Node *target, ExprContext ctx) {
  switch (target->kind) {
  case N_NAME:
  case N_ATTRIBUTE:
  case N_SUBSCRIPT:
    return NULL;
  case N_STARRED:
    return ctx == CTX_DEL ? target : find_invalid_target(target->u.starred.value, ctx);
  case N_LIST:
  case N_TUPLE:
    for (int i = 0; i < target->u.list.elts.count; i++) {
      const Node *invalid = find_invalid_target(target->u.list.elts.items[i], ctx);
      if (invalid)
        return invalid;
    }
    return NULL;
  default:
    return target;
  }
}

/* Set ctx on a valid target, recursively. */
static void apply_context(Node *target, ExprContext ctx) {
  switch (target->kind) {
  case N_NAME: target->u.name.ctx = ctx; break;
  case N_ATTRIBUTE: target->u.attribute.ctx = ctx; break;
  case N_SUBSCRIPT: target->u.subscript.ctx = ctx; break;
  case N_STARRED:
    target->u.starred.ctx = ctx;
    apply_context(target->u.starred.value, ctx);
    break;
  case N_LIST:
  case N_TUPLE:
    target->u.list.ctx = ctx;
    for (int i = 0; i < target->u.list.elts.count; i++)
      apply_context(target->u.list.elts.items[i], ctx);
    break;
  default: break;
  }
}

/* Index of the first token at or after byte offset `offset`. */
static int token_index_at(Parser *p, size_t offset) {
  int low = 0, high = p->count - 1;
  while (low < high) {
    int mid = low + (high - low) / 2;
    if (p->tokens[mid].span.start.offset < offset)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

/* Whether a token can continue a bitwise_or at bracket depth 0. */
static bool continues_bitwise_or(const Token *t) {
  switch (t->kind) {
  case TOK_NAME:
    return t->keyword == KW_NONE || t->keyword == KW_TRUE || t->keyword == KW_FALSE || t->keyword == KW_NONE_ ||
           t->keyword == KW_AWAIT;
  case TOK_NUMBER: case TOK_STRING: case TOK_FSTRING_START: case TOK_FSTRING_MIDDLE: case TOK_FSTRING_END:
    return true;
  case TOK_OP:
    switch (t->op) {
    case OP_DOT: case OP_VBAR: case OP_CIRCUMFLEX: case OP_AMPER: case OP_LSHIFT: case OP_RSHIFT:
    case OP_PLUS: case OP_MINUS: case OP_STAR: case OP_SLASH: case OP_DSLASH: case OP_PERCENT:
    case OP_AT: case OP_DSTAR: case OP_TILDE: case OP_ELLIPSIS:
      return true;
    default:
      return false;
    }
  default:
    return false;
  }
}

static bool is_open_bracket(const Token *t) {
  return t->kind == TOK_OP && (t->op == OP_LPAR || t->op == OP_LSQB || t->op == OP_LBRACE);
}

static bool is_close_bracket(const Token *t) {
  return t->kind == TOK_OP && (t->op == OP_RPAR || t->op == OP_RSQB || t->op == OP_RBRACE);
}

static bool is_token_op(const Token *t, OpKind op) { return t->kind == TOK_OP && t->op == op; }

/* Whether `target` (with its parentheses) begins a simple statement. */
static bool starts_statement(Parser *p, const Node *target) {
  int i = token_index_at(p, target->span.start.offset);
  while (target->parenthesized && i > 0 && is_token_op(&p->tokens[i - 1], OP_LPAR))
    i--;
  if (i == 0)
    return true;
  const Token *before = &p->tokens[i - 1];
  return before->kind == TOK_NEWLINE || before->kind == TOK_INDENT || before->kind == TOK_DEDENT ||
         is_token_op(before, OP_SEMI) || is_token_op(before, OP_COLON);
}

static int token_after(Parser *p, const Node *node);

/* Whether an invalid target could be a mistyped comparison, the left side
 * of CPython's invalid_named_expression:
 *     !(list|tuple|genexp|'True'|'None'|'False') a=bitwise_or '=' ... */
bool may_be_comparison_target(const Node *target) {
  switch (target->kind) {
  case N_LIST: case N_TUPLE: case N_GENERATOR_EXP:
    return false;
  case N_CONSTANT:
    return target->parenthesized || target->u.constant.kind == CONST_NUMBER ||
           target->u.constant.kind == CONST_ELLIPSIS;
  case N_COMPARE: case N_BOOL_OP: case N_IF_EXP: case N_LAMBDA: case N_NAMED_EXPR: case N_YIELD:
  case N_YIELD_FROM: case N_STARRED:
    return target->parenthesized;
  case N_UNARY_OP:
    return target->u.unary_op.op != AOP_NOT || target->parenthesized;
  default:
    return true;
  }
}

/* The right side of invalid_named_expression: at token `index` (just after
 * the '='), a bitwise_or not followed by '=' or ':='. The bitwise_or is
 * skipped over tokens, brackets balanced. */
bool single_bitwise_or_follows(Parser *p, int index) {
  int i = index;
  if (i >= p->count || (!continues_bitwise_or(&p->tokens[i]) && !is_open_bracket(&p->tokens[i])))
    return false;
  int depth = 0;
  for (; i < p->count - 1; i++) {
    Token *t = &p->tokens[i];
    if (is_open_bracket(t)) {
      depth++;
    } else if (is_close_bracket(t)) {
      if (depth == 0)
        break;
      depth--;
    } else if (depth == 0 && !continues_bitwise_or(t)) {
      break;
    }
  }
  return !is_token_op(&p->tokens[i], OP_EQUAL) && !is_token_op(&p->tokens[i], OP_COLONEQUAL);
}

/* Whether the error for an invalid assignment target should read as a
 * likely comparison ("... here. Maybe you meant '==' instead of '='?"): in
 * CPython that is the first target of a statement, followed by `=` and a
 * single bitwise_or. */
static bool looks_like_comparison(Parser *p, const Node *target) {
  if (!may_be_comparison_target(target) || !starts_statement(p, target))
    return false;
  int i = token_after(p, target);
  return is_token_op(&p->tokens[i], OP_EQUAL) && single_bitwise_or_follows(p, i + 1);
}

/* The index of the token after `node` and its own closing parentheses. */
static int token_after(Parser *p, const Node *node) {
  int i = token_index_at(p, node->span.end.offset);
  while (i < p->count - 1 && is_token_op(&p->tokens[i], OP_RPAR) && node->parenthesized)
    i++;
  return i;
}

/* An invalid unparenthesized tuple target `a, b = c`: CPython words the
 * error by its last item, which reads as `b = c` (invalid_named_expression). */
static void reject_tuple_as_comparison(Parser *p, const Node *tuple) {
  if (tuple->kind != N_TUPLE || tuple->parenthesized || tuple->u.list.elts.count == 0)
    return;
  const Node *last = tuple->u.list.elts.items[tuple->u.list.elts.count - 1];
  int i = token_after(p, last);
  if (!is_token_op(&p->tokens[i], OP_EQUAL) || !single_bitwise_or_follows(p, i + 1))
    return;
  if (last->kind == N_NAME && !last->parenthesized)
    parse_error_node(p, last, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  if (may_be_comparison_target(last))
    parse_error_node(p, last, "cannot assign to %s here. Maybe you meant '==' instead of '='?", parser_expr_name(last));
}

static void check_and_apply(Parser *p, Node *target, ExprContext ctx, bool is_assignment) {
  const Node *invalid = find_invalid_target(target, ctx);
  if (invalid) {
    if (is_assignment && ctx == CTX_STORE)
      reject_tuple_as_comparison(p, target);
    if (ctx == CTX_DEL)
      parse_error_node(p, invalid, "cannot delete %s", parser_expr_name(invalid));
    if (is_assignment && invalid == target && (target->kind == N_YIELD || target->kind == N_YIELD_FROM) &&
        !target->parenthesized)
      parse_error_node(p, invalid, "assignment to yield expression not possible");
    if (is_assignment && invalid == target && looks_like_comparison(p, target))
      parse_error_node(p, invalid, "cannot assign to %s here. Maybe you meant '==' instead of '='?", parser_expr_name(invalid));
    parse_error_node(p, invalid, "cannot assign to %s", parser_expr_name(invalid));
  }
  apply_context(target, ctx);
}

void set_target_context(Parser *p, Node *target, ExprContext ctx) { check_and_apply(p, target, ctx, true); }

/* star_target: '*' (!'*' star_target) | target_with_star_atom
 * Parsed as a bitwise_or (which stops before `in`) and checked afterwards. */
static Node *parse_star_target(Parser *p) {
  if (!at_op(p, OP_STAR))
    return parse_bitwise_or(p);
  Token *star = parser_advance(p);
  if (at_op(p, OP_STAR))
    parse_error_invalid(p);
  Node *node = parser_new_node(p, N_STARRED, star);
  node->u.starred.value = parse_bitwise_or(p);
  return parser_finish_node(p, node);
}

/* star_targets:
 *     | star_target !','
 *     | star_target (',' star_target )* [','] */
Node *parse_star_targets(Parser *p) {
  Node *target = parse_comma_sequence(p, parse_star_target);
  check_and_apply(p, target, CTX_STORE, false);
  return target;
}

/* for_if_clauses: for_if_clause+
 * for_if_clause:
 *     | ['async'] 'for' star_targets 'in' ~ disjunction ('if' disjunction )* */
void parse_for_if_clauses(Parser *p, NodeList *generators) {
  while (at_keyword(p, KW_FOR) || at_keyword(p, KW_ASYNC)) {
    Token *start = peek(p);
    Node *clause = parser_new_node(p, N_COMPREHENSION, start);
    clause->u.comprehension.is_async = parser_accept_keyword(p, KW_ASYNC);
    parser_expect_keyword(p, KW_FOR);
    clause->u.comprehension.target = parse_star_targets(p);
    parser_expect_keyword(p, KW_IN);
    clause->u.comprehension.iter = parse_disjunction(p);
    while (parser_accept_keyword(p, KW_IF))
      parser_push(p, &clause->u.comprehension.ifs, parse_disjunction(p));
    parser_push(p, generators, parser_finish_node(p, clause));
  }
}
