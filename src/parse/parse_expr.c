/*
 * parse_expr.c — expressions of Python 3.12 (Grammar/python.gram), from
 * `expression` down to `atom`: conditional expressions, boolean operators,
 * comparison chains, binary and unary operators, `await`, trailers, and the
 * atoms (names, constants, strings, displays). Elsewhere: strings and
 * f-strings in parse_expr_string.c; call arguments and parameter lists in
 * parse_expr_args.c; targets and comprehension clauses in
 * parse_expr_target.c.
 *
 * Left-associative operators are parsed with loops, so long chains such as
 * `a + b + ... + z` never recurse; so is the chain `a if b else c if d
 * else e ...`. The right-recursive forms (unary operators, `not`, `**`,
 * lambda bodies, brackets) go through parser_enter_rule/parser_leave_rule, which bounds
 * the depth.
 *
 * Spans: a node starts at the first token of its rule (so `(a) + b` starts
 * at the `(`) and ends after the last token consumed. The group `(x)`
 * returns x itself with `parenthesized` set and x's own span; a
 * parenthesized tuple, an empty tuple `()`, and a generator expression
 * written as `(x for x in y)` span their parentheses and have
 * `parenthesized` set too. A generator expression that is the sole argument
 * of a call (`f(x for x in y)`) has `parenthesized` false.
 */
#include <string.h>

#include "parse_expr_internal.h"

/* --------------------------------------------------------------- helpers */

static bool at_comprehension(Parser *p) { return at_keyword(p, KW_FOR) || at_keyword(p, KW_ASYNC); }

/* True when the current token can begin an expression (for deciding
 * whether something follows a trailing comma, an optional value, ...). */
bool parser_starts_expression(Parser *p) {
  Token *t = peek(p);
  switch (t->kind) {
  case TOK_NAME:
    switch (t->keyword) {
    case KW_NONE: case KW_TRUE: case KW_FALSE: case KW_NONE_:
    case KW_NOT: case KW_LAMBDA: case KW_AWAIT:
      return true;
    default:
      return false;
    }
  case TOK_NUMBER: case TOK_STRING: case TOK_FSTRING_START:
    return true;
  case TOK_OP:
    switch (t->op) {
    case OP_LPAR: case OP_LSQB: case OP_LBRACE: case OP_MINUS: case OP_PLUS:
    case OP_TILDE: case OP_ELLIPSIS: case OP_STAR:
      return true;
    default:
      return false;
    }
  default:
    return false;
  }
}

/* A closing bracket is expected. Two expressions side by side inside
 * brackets read as a forgotten comma, as CPython says. `last` is the
 * element before the current token, or NULL. */
Token *parser_expect_closing(Parser *p, OpKind closing, const Node *last) {
  if (at_op(p, closing))
    return parser_advance(p);
  bool name_then_string = last && last->kind == N_NAME && (at_kind(p, TOK_STRING) || at_kind(p, TOK_FSTRING_START));
  if (last && parser_starts_expression(p) && !at_op(p, OP_STAR) && !at_op(p, OP_MINUS) && !at_op(p, OP_PLUS) &&
      !name_then_string)
    parse_error_node(p, last, "invalid syntax. Perhaps you forgot a comma?");
  parse_error_invalid(p);
}

Node *parser_finish_node(Parser *p, Node *node) {
  parser_end_node(p, node);
  return node;
}

/* --------------------------------------------------- expression, lambda */

/* expression:
 *     | disjunction 'if' disjunction 'else' expression
 *     | disjunction
 *     | lambdef
 * A chain `a if b else c if d else e` is built with a loop, each IfExp
 * hanging from the orelse of the one before. */
Node *parse_expression(Parser *p) {
  parser_enter_rule(p);
  Node *root = NULL;
  Node **slot = &root;
  for (;;) {
    if (at_keyword(p, KW_LAMBDA)) {
      *slot = parse_lambdef(p);
      break;
    }
    Token *start = peek(p);
    Node *body = parse_disjunction(p);
    if (!at_keyword(p, KW_IF)) {
      *slot = body;
      break;
    }
    parser_advance(p);
    Node *node = parser_new_node(p, N_IF_EXP, start);
    node->u.if_exp.body = body;
    node->u.if_exp.test = parse_disjunction(p);
    if (!parser_accept_keyword(p, KW_ELSE)) {
      if (at_op(p, OP_COLON))
        parse_error_invalid(p);
      parse_error_node(p, node, "expected 'else' after 'if' expression");
    }
    *slot = node;
    slot = &node->u.if_exp.orelse;
  }
  /* Every IfExp of the chain ends where the last orelse ends. */
  for (Node *node = root; node != *slot; node = node->u.if_exp.orelse)
    parser_end_node(p, node);
  parser_leave_rule(p);
  return root;
}

/* lambdef: 'lambda' [lambda_params] ':' expression */
Node *parse_lambdef(Parser *p) {
  parser_enter_rule(p);
  Token *start = parser_expect_keyword(p, KW_LAMBDA);
  Node *node = parser_new_node(p, N_LAMBDA, start);
  node->u.lambda.args = parse_parameters(p, true, OP_COLON);
  parser_expect_op(p, OP_COLON);
  node->u.lambda.body = parse_expression(p);
  parser_leave_rule(p);
  return parser_finish_node(p, node);
}

/* named_expression:
 *     | NAME ':=' ~ expression
 *     | expression !':='
 * A '=' after it is left to the caller. */
Node *parse_named_expression_in_call(Parser *p) {
  Token *start = peek(p);
  Node *target = parse_expression(p);
  if (!at_op(p, OP_COLONEQUAL))
    return target;
  if (target->kind != N_NAME || target->parenthesized)
    parse_error_node(p, target, "cannot use assignment expressions with %s", parser_expr_name(target));
  parser_advance(p);
  Node *node = parser_new_node(p, N_NAMED_EXPR, start);
  target->u.name.ctx = CTX_STORE;
  node->u.named_expr.target = target;
  node->u.named_expr.value = parse_expression(p);
  return parser_finish_node(p, node);
}

/* named_expression, with CPython's invalid_named_expression messages for a
 * '=' that was likely meant as '==' or ':=' (`if x = 1:`, `[a=1]`). */
Node *parse_named_expression(Parser *p) {
  Node *node = parse_named_expression_in_call(p);
  if (!at_op(p, OP_EQUAL) || !single_bitwise_or_follows(p, p->pos + 1))
    return node;
  if (node->kind == N_NAME && !node->parenthesized)
    parse_error_node(p, node, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  if (may_be_comparison_target(node))
    parse_error_node(p, node, "cannot assign to %s here. Maybe you meant '==' instead of '='?", parser_expr_name(node));
  return node;
}

/* '*' bitwise_or, the starred element of star_expression and
 * star_named_expression. */
static Node *parse_starred_bitwise_or(Parser *p) {
  Token *star = parser_expect_op(p, OP_STAR);
  Node *node = parser_new_node(p, N_STARRED, star);
  if (at_op(p, OP_STAR))
    parse_error_invalid(p);
  node->u.starred.value = parse_bitwise_or(p);
  return parser_finish_node(p, node);
}

/* star_expression: '*' bitwise_or | expression */
Node *parse_star_expression(Parser *p) {
  if (at_op(p, OP_STAR))
    return parse_starred_bitwise_or(p);
  return parse_expression(p);
}

/* star_named_expression: '*' bitwise_or | named_expression */
Node *parse_star_named_expression(Parser *p) {
  if (at_op(p, OP_STAR))
    return parse_starred_bitwise_or(p);
  return parse_named_expression(p);
}

/* A comma-separated sequence of `element`, an unparenthesized tuple when
 * there is a comma (a trailing one included), the element alone otherwise. */
Node *parse_comma_sequence(Parser *p, Node *(*element)(Parser *)) {
  Token *start = peek(p);
  Node *first = element(p);
  if (!at_op(p, OP_COMMA))
    return first;
  Node *tuple = parser_new_node(p, N_TUPLE, start);
  parser_push(p, &tuple->u.list.elts, first);
  while (parser_accept_op(p, OP_COMMA)) {
    if (!parser_starts_expression(p))
      break;
    parser_push(p, &tuple->u.list.elts, element(p));
  }
  return parser_finish_node(p, tuple);
}

/* star_expressions:
 *     | star_expression (',' star_expression )+ [',']
 *     | star_expression ','
 *     | star_expression */
Node *parse_star_expressions(Parser *p) { return parse_comma_sequence(p, parse_star_expression); }

/* star_named_expressions as an unparenthesized tuple (the `match` subject):
 *     star_named_expression (',' star_named_expression)* [','] */
Node *parse_star_named_expressions_tuple(Parser *p) { return parse_comma_sequence(p, parse_star_named_expression); }

/* annotation: expression */
Node *parse_annotation(Parser *p) { return parse_expression(p); }

/* yield_expr:
 *     | 'yield' 'from' expression
 *     | 'yield' [star_expressions] */
Node *parse_yield_expr(Parser *p) {
  Token *start = parser_expect_keyword(p, KW_YIELD);
  if (parser_accept_keyword(p, KW_FROM)) {
    Node *node = parser_new_node(p, N_YIELD_FROM, start);
    node->u.yield.value = parse_expression(p);
    return parser_finish_node(p, node);
  }
  Node *node = parser_new_node(p, N_YIELD, start);
  if (parser_starts_expression(p))
    node->u.yield.value = parse_star_expressions(p);
  return parser_finish_node(p, node);
}

/* ------------------------------------------------------ boolean operators */

/* One level of BoolOp: operand (keyword operand)*, flattened into one node
 * as CPython does (`a or b or c` has three values). */
static Node *parse_bool_op(Parser *p, Keyword keyword, AstOp op, Node *(*operand)(Parser *)) {
  Token *start = peek(p);
  Node *first = operand(p);
  if (!at_keyword(p, keyword))
    return first;
  Node *node = parser_new_node(p, N_BOOL_OP, start);
  node->u.bool_op.op = op;
  parser_push(p, &node->u.bool_op.values, first);
  while (parser_accept_keyword(p, keyword))
    parser_push(p, &node->u.bool_op.values, operand(p));
  return parser_finish_node(p, node);
}

static Node *parse_inversion(Parser *p);
static Node *parse_conjunction(Parser *p);

/* disjunction: conjunction ('or' conjunction )+ | conjunction */
Node *parse_disjunction(Parser *p) { return parse_bool_op(p, KW_OR, AOP_OR, parse_conjunction); }

/* conjunction: inversion ('and' inversion )+ | inversion */
static Node *parse_conjunction(Parser *p) { return parse_bool_op(p, KW_AND, AOP_AND, parse_inversion); }

static Node *parse_comparison(Parser *p);

/* inversion: 'not' inversion | comparison */
static Node *parse_inversion(Parser *p) {
  if (!at_keyword(p, KW_NOT))
    return parse_comparison(p);
  parser_enter_rule(p);
  Token *start = parser_advance(p);
  Node *node = parser_new_node(p, N_UNARY_OP, start);
  node->u.unary_op.op = AOP_NOT;
  node->u.unary_op.operand = parse_inversion(p);
  parser_leave_rule(p);
  return parser_finish_node(p, node);
}

/* --------------------------------------------------------------- compare */

/* The comparison operator at the current token, and how many tokens it
 * takes (`not in`, `is not` take two); AOP_NONE when there is none. */
static AstOp comparison_op_at(Parser *p, int *width) {
  Token *t = peek(p);
  *width = 1;
  if (t->kind == TOK_OP) {
    switch (t->op) {
    case OP_EQEQ: return AOP_EQ;
    case OP_NE: return AOP_NOTEQ;
    case OP_LT: return AOP_LT;
    case OP_LE: return AOP_LTE;
    case OP_GT: return AOP_GT;
    case OP_GE: return AOP_GTE;
    default: return AOP_NONE;
    }
  }
  if (t->kind != TOK_NAME)
    return AOP_NONE;
  if (t->keyword == KW_IN)
    return AOP_IN;
  if (t->keyword == KW_IS) {
    Token *next = parser_peek_at(p, 1);
    if (next->kind == TOK_NAME && next->keyword == KW_NOT) {
      *width = 2;
      return AOP_ISNOT;
    }
    return AOP_IS;
  }
  if (t->keyword == KW_NOT) {
    Token *next = parser_peek_at(p, 1);
    if (next->kind == TOK_NAME && next->keyword == KW_IN) {
      *width = 2;
      return AOP_NOTIN;
    }
  }
  return AOP_NONE;
}

/* comparison: bitwise_or compare_op_bitwise_or_pair+ | bitwise_or
 * compare_op_bitwise_or_pair: ('==' | '!=' | '<=' | '<' | '>=' | '>'
 *                              | 'not' 'in' | 'in' | 'is' 'not' | 'is') bitwise_or */
static Node *parse_comparison(Parser *p) {
  Token *start = peek(p);
  Node *left = parse_bitwise_or(p);
  int width;
  AstOp op = comparison_op_at(p, &width);
  if (op == AOP_NONE)
    return left;
  Node *node = parser_new_node(p, N_COMPARE, start);
  node->u.compare.left = left;
  int capacity = 0, count = 0;
  AstOp *ops = NULL;
  Node **comparators = NULL;
  while (op != AOP_NONE) {
    if (count == capacity) {
      int bigger = capacity ? capacity * 2 : 4;
      AstOp *more_ops = arena_alloc(&p->ctx->arena, sizeof(AstOp) * (size_t)bigger);
      Node **more_nodes = arena_alloc(&p->ctx->arena, sizeof(Node *) * (size_t)bigger);
      if (count) {
        memcpy(more_ops, ops, sizeof(AstOp) * (size_t)count);
        memcpy(more_nodes, comparators, sizeof(Node *) * (size_t)count);
      }
      ops = more_ops;
      comparators = more_nodes;
      capacity = bigger;
    }
    p->pos += width;
    ops[count] = op;
    comparators[count] = parse_bitwise_or(p);
    count++;
    op = comparison_op_at(p, &width);
  }
  node->u.compare.count = count;
  node->u.compare.ops = ops;
  node->u.compare.comparators = comparators;
  return parser_finish_node(p, node);
}

/* ------------------------------------------------------ binary operators */

/* The binary operator of one precedence level at the current token. */
typedef AstOp (*BinaryOpAt)(const Token *t);

static AstOp op_bitwise_or(const Token *t) { return t->kind == TOK_OP && t->op == OP_VBAR ? AOP_BITOR : AOP_NONE; }
static AstOp op_bitwise_xor(const Token *t) { return t->kind == TOK_OP && t->op == OP_CIRCUMFLEX ? AOP_BITXOR : AOP_NONE; }
static AstOp op_bitwise_and(const Token *t) { return t->kind == TOK_OP && t->op == OP_AMPER ? AOP_BITAND : AOP_NONE; }

static AstOp op_shift(const Token *t) {
  if (t->kind != TOK_OP)
    return AOP_NONE;
  return t->op == OP_LSHIFT ? AOP_LSHIFT : t->op == OP_RSHIFT ? AOP_RSHIFT : AOP_NONE;
}

static AstOp op_sum(const Token *t) {
  if (t->kind != TOK_OP)
    return AOP_NONE;
  return t->op == OP_PLUS ? AOP_ADD : t->op == OP_MINUS ? AOP_SUB : AOP_NONE;
}

static AstOp op_term(const Token *t) {
  if (t->kind != TOK_OP)
    return AOP_NONE;
  switch (t->op) {
  case OP_STAR: return AOP_MULT;
  case OP_SLASH: return AOP_DIV;
  case OP_DSLASH: return AOP_FLOORDIV;
  case OP_PERCENT: return AOP_MOD;
  case OP_AT: return AOP_MATMULT;
  default: return AOP_NONE;
  }
}

/* One left-associative level: operand (op operand)*, as a loop. */
static Node *parse_binary_level(Parser *p, BinaryOpAt op_at, Node *(*operand)(Parser *)) {
  Token *start = peek(p);
  Node *left = operand(p);
  for (AstOp op = op_at(peek(p)); op != AOP_NONE; op = op_at(peek(p))) {
    parser_advance(p);
    Node *node = parser_new_node(p, N_BIN_OP, start);
    node->u.bin_op.left = left;
    node->u.bin_op.op = op;
    node->u.bin_op.right = operand(p);
    left = parser_finish_node(p, node);
  }
  return left;
}

static Node *parse_bitwise_xor(Parser *p);
static Node *parse_bitwise_and(Parser *p);
static Node *parse_shift_expr(Parser *p);
static Node *parse_sum(Parser *p);
static Node *parse_term(Parser *p);
static Node *parse_factor(Parser *p);

/* bitwise_or: bitwise_or '|' bitwise_xor | bitwise_xor */
Node *parse_bitwise_or(Parser *p) { return parse_binary_level(p, op_bitwise_or, parse_bitwise_xor); }

/* bitwise_xor: bitwise_xor '^' bitwise_and | bitwise_and */
static Node *parse_bitwise_xor(Parser *p) { return parse_binary_level(p, op_bitwise_xor, parse_bitwise_and); }

/* bitwise_and: bitwise_and '&' shift_expr | shift_expr */
static Node *parse_bitwise_and(Parser *p) { return parse_binary_level(p, op_bitwise_and, parse_shift_expr); }

/* shift_expr: shift_expr ('<<' | '>>') sum | sum */
static Node *parse_shift_expr(Parser *p) { return parse_binary_level(p, op_shift, parse_sum); }

/* sum: sum ('+' | '-') term | term */
static Node *parse_sum(Parser *p) { return parse_binary_level(p, op_sum, parse_term); }

/* term: term ('*' | '/' | '//' | '%' | '@') factor | factor */
static Node *parse_term(Parser *p) { return parse_binary_level(p, op_term, parse_factor); }

static Node *parse_power(Parser *p);

/* factor: '+' factor | '-' factor | '~' factor | power */
static Node *parse_factor(Parser *p) {
  Token *t = peek(p);
  AstOp op = AOP_NONE;
  if (t->kind == TOK_OP)
    op = t->op == OP_PLUS ? AOP_UADD : t->op == OP_MINUS ? AOP_USUB : t->op == OP_TILDE ? AOP_INVERT : AOP_NONE;
  if (op == AOP_NONE)
    return parse_power(p);
  parser_enter_rule(p);
  parser_advance(p);
  Node *node = parser_new_node(p, N_UNARY_OP, t);
  node->u.unary_op.op = op;
  node->u.unary_op.operand = parse_factor(p);
  parser_leave_rule(p);
  return parser_finish_node(p, node);
}

static Node *parse_await_primary(Parser *p);

/* power: await_primary '**' factor | await_primary */
static Node *parse_power(Parser *p) {
  Token *start = peek(p);
  Node *left = parse_await_primary(p);
  if (!at_op(p, OP_DSTAR))
    return left;
  parser_enter_rule(p);
  parser_advance(p);
  Node *node = parser_new_node(p, N_BIN_OP, start);
  node->u.bin_op.left = left;
  node->u.bin_op.op = AOP_POW;
  node->u.bin_op.right = parse_factor(p);
  parser_leave_rule(p);
  return parser_finish_node(p, node);
}

/* await_primary: AWAIT primary | primary */
static Node *parse_await_primary(Parser *p) {
  if (!at_keyword(p, KW_AWAIT))
    return parse_primary_expression(p);
  Token *start = parser_advance(p);
  Node *node = parser_new_node(p, N_AWAIT, start);
  node->u.await.value = parse_primary_expression(p);
  return parser_finish_node(p, node);
}

/* ---------------------------------------------------------------- primary */

/* slice:
 *     | [expression] ':' [expression] [':' [expression] ]
 *     | named_expression */
static Node *parse_slice(Parser *p) {
  Token *start = peek(p);
  Node *lower = NULL;
  if (!at_op(p, OP_COLON)) {
    lower = parse_named_expression(p);
    if (!at_op(p, OP_COLON))
      return lower;
    if (lower->kind == N_NAMED_EXPR && !lower->parenthesized)
      parse_error_invalid(p);
  }
  parser_advance(p);
  Node *node = parser_new_node(p, N_SLICE, start);
  node->u.slice.lower = lower;
  if (parser_starts_expression(p) && !at_op(p, OP_STAR))
    node->u.slice.upper = parse_expression(p);
  if (parser_accept_op(p, OP_COLON) && parser_starts_expression(p) && !at_op(p, OP_STAR))
    node->u.slice.step = parse_expression(p);
  return parser_finish_node(p, node);
}

/* starred_expression: '*' expression */
Node *parse_starred_expression(Parser *p) {
  Token *star = parser_expect_op(p, OP_STAR);
  Node *node = parser_new_node(p, N_STARRED, star);
  node->u.starred.value = parse_expression(p);
  return parser_finish_node(p, node);
}

/* slices:
 *     | slice !','
 *     | ','.(slice | starred_expression)+ [','] */
static Node *parse_slices(Parser *p) {
  Token *start = peek(p);
  if (at_op(p, OP_RSQB) || at_op(p, OP_COMMA))
    parse_error_invalid(p);
  Node *first = at_op(p, OP_STAR) ? parse_starred_expression(p) : parse_slice(p);
  if (!at_op(p, OP_COMMA) && first->kind != N_STARRED)
    return first;
  Node *tuple = parser_new_node(p, N_TUPLE, start);
  parser_push(p, &tuple->u.list.elts, first);
  while (parser_accept_op(p, OP_COMMA)) {
    if (at_op(p, OP_RSQB))
      break;
    parser_push(p, &tuple->u.list.elts, at_op(p, OP_STAR) ? parse_starred_expression(p) : parse_slice(p));
  }
  return parser_finish_node(p, tuple);
}

/* primary:
 *     | primary '.' NAME
 *     | primary genexp
 *     | primary '(' [arguments] ')'
 *     | primary '[' slices ']'
 *     | atom */
Node *parse_primary_expression(Parser *p) {
  parser_enter_rule(p);
  Token *start = peek(p);
  Node *node = parse_atom(p);
  for (;;) {
    if (parser_accept_op(p, OP_DOT)) {
      Node *attribute = parser_new_node(p, N_ATTRIBUTE, start);
      attribute->u.attribute.value = node;
      if (!parser_at_name(p))
        parse_error_invalid(p);
      attribute->u.attribute.attr = parser_token_str(parser_advance(p));
      node = parser_finish_node(p, attribute);
    } else if (parser_accept_op(p, OP_LPAR)) {
      Node *call = parser_new_node(p, N_CALL, start);
      call->u.call.func = node;
      parse_call_arguments(p, call);
      node = parser_finish_node(p, call);
    } else if (parser_accept_op(p, OP_LSQB)) {
      Node *subscript = parser_new_node(p, N_SUBSCRIPT, start);
      subscript->u.subscript.value = node;
      subscript->u.subscript.slice = parse_slices(p);
      parser_expect_closing(p, OP_RSQB, subscript->u.subscript.slice);
      node = parser_finish_node(p, subscript);
    } else {
      break;
    }
  }
  parser_leave_rule(p);
  return node;
}

/* ------------------------------------------------------------------ atoms */

static Node *parse_paren_form(Parser *p);
static Node *parse_list_form(Parser *p);
static Node *parse_brace_form(Parser *p);

static Node *new_constant(Parser *p, Token *t, ConstantKind kind) {
  Node *node = parser_new_node(p, N_CONSTANT, t);
  node->u.constant.kind = kind;
  node->u.constant.text = parser_token_str(t);
  return parser_finish_node(p, node);
}

/* atom:
 *     | NAME | 'True' | 'False' | 'None' | strings | NUMBER
 *     | (tuple | group | genexp) | (list | listcomp) | (dict | set | dictcomp | setcomp)
 *     | '...' */
Node *parse_atom(Parser *p) {
  Token *t = peek(p);
  switch (t->kind) {
  case TOK_NAME:
    switch (t->keyword) {
    case KW_NONE: {
      parser_advance(p);
      Node *node = parser_new_node(p, N_NAME, t);
      node->u.name.id = parser_token_str(t);
      return parser_finish_node(p, node);
    }
    case KW_TRUE: parser_advance(p); return new_constant(p, t, CONST_TRUE);
    case KW_FALSE: parser_advance(p); return new_constant(p, t, CONST_FALSE);
    case KW_NONE_: parser_advance(p); return new_constant(p, t, CONST_NONE);
    default: parse_error_invalid(p);
    }
  case TOK_NUMBER:
    parser_advance(p);
    return new_constant(p, t, CONST_NUMBER);
  case TOK_STRING:
  case TOK_FSTRING_START:
    return parse_strings(p);
  case TOK_OP:
    switch (t->op) {
    case OP_LPAR: return parse_paren_form(p);
    case OP_LSQB: return parse_list_form(p);
    case OP_LBRACE: return parse_brace_form(p);
    case OP_ELLIPSIS: parser_advance(p); return new_constant(p, t, CONST_ELLIPSIS);
    default: parse_error_invalid(p);
    }
  default:
    parse_error_invalid(p);
  }
}

/* A starred element where a comprehension begins. */
static void reject_starred_comprehension_element(Parser *p, const Node *element) {
  if (element->kind == N_STARRED)
    parse_error_node(p, element, "iterable unpacking cannot be used in comprehension");
}

/* The rest of a list, tuple or set display after its first element: (','
 * star_named_expression)* [','], up to (not including) `closing`. */
static void parse_display_rest(Parser *p, NodeList *elts, OpKind closing) {
  while (parser_accept_op(p, OP_COMMA)) {
    if (at_op(p, closing))
      break;
    if (closing != OP_RPAR && at_comprehension(p))
      parse_error_node(p, elts->items[0], "did you forget parentheses around the comprehension target?");
    parser_push(p, elts, parse_star_named_expression(p));
  }
  if (closing != OP_RPAR && at_comprehension(p))
    parse_error_node(p, elts->items[0], "did you forget parentheses around the comprehension target?");
}

/* tuple: '(' [star_named_expression ',' [star_named_expressions] ] ')'
 * group: '(' (yield_expr | named_expression) ')'
 * genexp: '(' ( assignment_expression | expression !':=') for_if_clauses ')' */
static Node *parse_paren_form(Parser *p) {
  parser_enter_rule(p);
  Token *open = parser_expect_op(p, OP_LPAR);
  Node *result;
  if (parser_accept_op(p, OP_RPAR)) {
    result = parser_finish_node(p, parser_new_node(p, N_TUPLE, open));
  } else if (at_keyword(p, KW_YIELD)) {
    result = parse_yield_expr(p);
    parser_expect_closing(p, OP_RPAR, result);
  } else {
    if (at_op(p, OP_DSTAR))
      parse_error_at(p, peek(p), "cannot use double starred expression here");
    Node *first = parse_star_named_expression(p);
    if (at_comprehension(p)) {
      reject_starred_comprehension_element(p, first);
      result = parser_new_node(p, N_GENERATOR_EXP, open);
      result->u.comp.elt = first;
      parse_for_if_clauses(p, &result->u.comp.generators);
      parser_expect_closing(p, OP_RPAR, NULL);
      parser_finish_node(p, result);
    } else if (at_op(p, OP_COMMA)) {
      result = parser_new_node(p, N_TUPLE, open);
      parser_push(p, &result->u.list.elts, first);
      parse_display_rest(p, &result->u.list.elts, OP_RPAR);
      Node *last = result->u.list.elts.items[result->u.list.elts.count - 1];
      parser_expect_closing(p, OP_RPAR, last);
      parser_finish_node(p, result);
    } else {
      parser_expect_closing(p, OP_RPAR, first);
      if (first->kind == N_STARRED)
        parse_error_node(p, first, "cannot use starred expression here");
      result = first;
    }
  }
  result->parenthesized = true;
  parser_leave_rule(p);
  return result;
}

/* list: '[' [star_named_expressions] ']'
 * listcomp: '[' named_expression for_if_clauses ']' */
static Node *parse_list_form(Parser *p) {
  parser_enter_rule(p);
  Token *open = parser_expect_op(p, OP_LSQB);
  Node *result;
  if (parser_accept_op(p, OP_RSQB)) {
    result = parser_finish_node(p, parser_new_node(p, N_LIST, open));
  } else {
    Node *first = parse_star_named_expression(p);
    if (at_comprehension(p)) {
      reject_starred_comprehension_element(p, first);
      result = parser_new_node(p, N_LIST_COMP, open);
      result->u.comp.elt = first;
      parse_for_if_clauses(p, &result->u.comp.generators);
      parser_expect_closing(p, OP_RSQB, NULL);
    } else {
      result = parser_new_node(p, N_LIST, open);
      parser_push(p, &result->u.list.elts, first);
      parse_display_rest(p, &result->u.list.elts, OP_RSQB);
      parser_expect_closing(p, OP_RSQB, result->u.list.elts.items[result->u.list.elts.count - 1]);
    }
    parser_finish_node(p, result);
  }
  parser_leave_rule(p);
  return result;
}

/* The value after `key:` in a dict display or comprehension. */
static Node *parse_dict_value(Parser *p) {
  if (at_op(p, OP_STAR))
    parse_error_at(p, peek(p), "cannot use a starred expression in a dictionary value");
  if (at_op(p, OP_DSTAR) || at_op(p, OP_COMMA) || at_op(p, OP_RBRACE))
    parse_error_invalid(p);
  return parse_expression(p);
}

/* The rest of a dict display after its first entry:
 *     (',' (kvpair | '**' bitwise_or))* [','] */
static void parse_dict_rest(Parser *p, Node *dict) {
  while (parser_accept_op(p, OP_COMMA)) {
    if (at_op(p, OP_RBRACE))
      break;
    if (parser_accept_op(p, OP_DSTAR)) {
      parser_push(p, &dict->u.dict.keys, NULL);
      parser_push(p, &dict->u.dict.values, parse_bitwise_or(p));
      continue;
    }
    if (at_op(p, OP_STAR))
      parse_error_invalid(p);
    Node *key = parse_expression(p);
    if (!at_op(p, OP_COLON))
      parse_error_node(p, key, "':' expected after dictionary key");
    parser_advance(p);
    parser_push(p, &dict->u.dict.keys, key);
    parser_push(p, &dict->u.dict.values, parse_dict_value(p));
  }
}

/* dict: '{' [double_starred_kvpairs] '}'
 * dictcomp: '{' kvpair for_if_clauses '}'
 * set: '{' star_named_expressions '}'
 * setcomp: '{' named_expression for_if_clauses '}' */
static Node *parse_brace_form(Parser *p) {
  parser_enter_rule(p);
  Token *open = parser_expect_op(p, OP_LBRACE);
  Node *result;
  if (parser_accept_op(p, OP_RBRACE)) {
    result = parser_finish_node(p, parser_new_node(p, N_DICT, open));
    parser_leave_rule(p);
    return result;
  }
  if (at_op(p, OP_DSTAR)) {
    /* A dict that starts with `**mapping`. */
    Token *double_star = parser_advance(p);
    result = parser_new_node(p, N_DICT, open);
    parser_push(p, &result->u.dict.keys, NULL);
    Node *value = parse_bitwise_or(p);
    parser_push(p, &result->u.dict.values, value);
    if (at_comprehension(p))
      parse_error_at(p, double_star, "dict unpacking cannot be used in dict comprehension");
    parse_dict_rest(p, result);
    parser_expect_closing(p, OP_RBRACE, NULL);
  } else {
    Node *first = parse_star_named_expression(p);
    if (at_op(p, OP_COLON) && first->kind != N_STARRED) {
      if (first->kind == N_NAMED_EXPR && !first->parenthesized)
        parse_error_invalid(p);
      parser_advance(p);
      Node *value = parse_dict_value(p);
      if (at_comprehension(p)) {
        result = parser_new_node(p, N_DICT_COMP, open);
        result->u.dict_comp.key = first;
        result->u.dict_comp.value = value;
        parse_for_if_clauses(p, &result->u.dict_comp.generators);
        parser_expect_closing(p, OP_RBRACE, NULL);
      } else {
        result = parser_new_node(p, N_DICT, open);
        parser_push(p, &result->u.dict.keys, first);
        parser_push(p, &result->u.dict.values, value);
        parse_dict_rest(p, result);
        parser_expect_closing(p, OP_RBRACE, NULL);
      }
    } else if (at_comprehension(p)) {
      reject_starred_comprehension_element(p, first);
      result = parser_new_node(p, N_SET_COMP, open);
      result->u.comp.elt = first;
      parse_for_if_clauses(p, &result->u.comp.generators);
      parser_expect_closing(p, OP_RBRACE, NULL);
    } else {
      result = parser_new_node(p, N_SET, open);
      parser_push(p, &result->u.set.elts, first);
      parse_display_rest(p, &result->u.set.elts, OP_RBRACE);
      parser_expect_closing(p, OP_RBRACE, result->u.set.elts.items[result->u.set.elts.count - 1]);
    }
  }
  parser_finish_node(p, result);
  parser_leave_rule(p);
  return result;
}
