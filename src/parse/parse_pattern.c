/*
 * parse_pattern.c — the patterns of `case` clauses (PEP 634), as in
 * Python 3.12's Grammar/python.gram.
 *
 * Patterns need one token of lookahead, except a name, which is a capture,
 * a value (`Color.RED`) or a class (`Point(x=0)`) depending on what follows
 * it. What the compiler rejects later (two starred names in one sequence,
 * f-strings as values, unreachable cases) `ast.parse` accepts, and so does
 * this parser.
 */
#include "parser.h"

static Node *parse_pattern(Parser *p);

/* ---------------------------------------------------------------- helpers */

static bool at_op_token(const Token *t, OpKind op) { return t->kind == TOK_OP && t->op == op; }

/* A pattern's node: span from `start` to the last consumed token. */
static Node *finish(Parser *p, Node *node) {
  parser_end_node(p, node);
  return node;
}

/* Can the current token begin a pattern (after a trailing comma)? */
static bool at_pattern_start(Parser *p) {
  Token *t = peek(p);
  switch (t->kind) {
  case TOK_NAME:
    return t->keyword == KW_NONE || t->keyword == KW_NONE_ || t->keyword == KW_TRUE || t->keyword == KW_FALSE;
  case TOK_NUMBER: case TOK_STRING: case TOK_FSTRING_START: return true;
  case TOK_OP:
    return t->op == OP_MINUS || t->op == OP_LPAR || t->op == OP_LSQB || t->op == OP_LBRACE || t->op == OP_STAR;
  default: return false;
  }
}

/* Does the current token follow a capture or value name legally? A name
 * followed by '.', '(' or '=' is part of something longer. */
static bool at_name_end(Parser *p) { return !at_op(p, OP_DOT) && !at_op(p, OP_LPAR) && !at_op(p, OP_EQUAL); }

/*
 * pattern_capture_target: !"_" NAME !('.' | '(' | '=')
 *
 * Consumes the name and returns it; the caller has checked that the
 * current token is a NAME other than `_`.
 */
static Str parse_capture_target(Parser *p) {
  Str name = parser_token_str(parser_advance(p));
  if (!at_name_end(p))
    parse_error_invalid(p);
  return name;
}

static bool at_capture_target(Parser *p) { return parser_at_name(p) && !parser_at_soft_keyword(p, "_"); }

/* ---------------------------------------------------------------- literals */

static bool is_imaginary(const Token *t) {
  char last = t->text[t->len - 1];
  return last == 'j' || last == 'J';
}

static Node *new_number(Parser *p, const Token *t) {
  Node *node = parser_new_node(p, N_CONSTANT, t);
  node->u.constant.kind = CONST_NUMBER;
  node->u.constant.text = parser_token_str(t);
  node->span.end = t->span.end;
  return node;
}

/* signed_number: NUMBER | '-' NUMBER */
static Node *parse_signed_number(Parser *p) {
  Token *start = peek(p);
  if (!parser_accept_op(p, OP_MINUS)) {
    if (!at_kind(p, TOK_NUMBER))
      parse_error_invalid(p);
    return new_number(p, parser_advance(p));
  }
  if (!at_kind(p, TOK_NUMBER))
    parse_error_invalid(p);
  Node *negative = parser_new_node(p, N_UNARY_OP, start);
  negative->u.unary_op.op = AOP_USUB;
  negative->u.unary_op.operand = new_number(p, parser_advance(p));
  return finish(p, negative);
}

/*
 * literal number: signed_number !('+' | '-') | complex_number
 * complex_number: signed_real_number ('+' | '-') imaginary_number
 */
static Node *parse_number_literal(Parser *p) {
  Token *start = peek(p);
  Node *value = parse_signed_number(p);
  if (!at_op(p, OP_PLUS) && !at_op(p, OP_MINUS))
    return value;
  if (is_imaginary(parser_previous(p)))
    parse_error_node(p, value->kind == N_UNARY_OP ? value->u.unary_op.operand : value,
                     "real number required in complex literal");
  AstOp op = parser_advance(p)->op == OP_PLUS ? AOP_ADD : AOP_SUB;
  if (!at_kind(p, TOK_NUMBER))
    parse_error_invalid(p);
  if (!is_imaginary(peek(p)))
    parse_error_at(p, peek(p), "imaginary number required in complex literal");
  Node *sum = parser_new_node(p, N_BIN_OP, start);
  sum->u.bin_op.left = value;
  sum->u.bin_op.op = op;
  sum->u.bin_op.right = new_number(p, parser_advance(p));
  return finish(p, sum);
}

/* strings: one or more adjacent string literals (f-strings included: the
 * compiler, not the parser, rejects those) */
static Node *parse_pattern_strings(Parser *p) {
  Node *value = parse_primary_expression(p);
  if (value->kind == N_STRING)
    return value;
  /* `'a'.b`, `'a'[0]`, `'a'()`: the strings are followed by a trailer */
  const Node *strings = value;
  while (strings->kind != N_STRING) {
    if (strings->kind == N_ATTRIBUTE)
      strings = strings->u.attribute.value;
    else if (strings->kind == N_SUBSCRIPT)
      strings = strings->u.subscript.value;
    else if (strings->kind == N_CALL)
      strings = strings->u.call.func;
    else
      parse_error_node(p, value, "patterns may only match literals and attribute lookups");
  }
  while (p->pos > 0 && parser_previous(p)->span.start.offset >= strings->span.end.offset)
    p->pos--;
  parse_error_invalid(p);
}

static ConstantKind singleton_kind(const Token *t) {
  return t->keyword == KW_NONE_ ? CONST_NONE : t->keyword == KW_TRUE ? CONST_TRUE : CONST_FALSE;
}

static bool at_singleton(Parser *p) {
  return at_keyword(p, KW_NONE_) || at_keyword(p, KW_TRUE) || at_keyword(p, KW_FALSE);
}

/* ------------------------------------------------------- names and values */

/*
 * name_or_attr: attr | NAME
 * attr: name_or_attr '.' NAME
 */
static Node *parse_name_or_attr(Parser *p) {
  Token *start = peek(p);
  Node *node = parser_new_node(p, N_NAME, start);
  node->u.name.id = parser_expect_name(p);
  parser_end_node(p, node);
  while (parser_accept_op(p, OP_DOT)) {
    Node *attribute = parser_new_node(p, N_ATTRIBUTE, start);
    attribute->u.attribute.value = node;
    attribute->u.attribute.attr = parser_expect_name(p);
    node = finish(p, attribute);
  }
  return node;
}

/*
 * literal_expr (a mapping key):
 *     | signed_number !('+' | '-') | complex_number | strings
 *     | 'None' | 'True' | 'False'
 * or attr (a dotted name).
 */
static Node *parse_mapping_key(Parser *p) {
  Token *t = peek(p);
  if (t->kind == TOK_NUMBER || at_op(p, OP_MINUS))
    return parse_number_literal(p);
  if (t->kind == TOK_STRING || t->kind == TOK_FSTRING_START)
    return parse_pattern_strings(p);
  if (at_singleton(p)) {
    Node *constant = parser_new_node(p, N_CONSTANT, t);
    constant->u.constant.kind = singleton_kind(t);
    constant->u.constant.text = parser_token_str(t);
    parser_advance(p);
    return finish(p, constant);
  }
  if (!parser_at_name(p))
    parse_error_invalid(p);
  if (!at_op_token(parser_peek_at(p, 1), OP_DOT)) {
    parser_advance(p); /* a plain name is no key; CPython points after it */
    parse_error_invalid(p);
  }
  return parse_name_or_attr(p);
}

/* --------------------------------------------------------------- sequences */

/*
 * star_pattern: '*' pattern_capture_target | '*' wildcard_pattern
 * maybe_star_pattern: star_pattern | pattern
 */
static Node *parse_maybe_star_pattern(Parser *p) {
  Token *start = peek(p);
  if (!parser_accept_op(p, OP_STAR))
    return parse_pattern(p);
  Node *star = parser_new_node(p, N_MATCH_STAR, start);
  if (parser_at_soft_keyword(p, "_"))
    parser_advance(p);
  else if (parser_at_name(p))
    star->u.match_star.name = parse_capture_target(p);
  else
    parse_error_invalid(p);
  return finish(p, star);
}

/*
 * maybe_sequence_pattern: ','.maybe_star_pattern+ ','?
 *
 * Appends to `out` up to (not including) `closing`.
 */
static void parse_sequence_items(Parser *p, NodeList *out, OpKind closing) {
  while (!at_op(p, closing)) {
    parser_push(p, out, parse_maybe_star_pattern(p));
    if (!parser_accept_op(p, OP_COMMA))
      break;
  }
  if (!at_op(p, closing))
    parse_error_invalid(p);
  parser_advance(p);
}

/*
 * sequence_pattern: '[' maybe_sequence_pattern? ']' | '(' open_sequence_pattern? ')'
 * group_pattern: '(' pattern ')'
 */
static Node *parse_parenthesized_pattern(Parser *p) {
  Token *open = parser_advance(p);
  if (open->op == OP_LSQB) {
    Node *sequence = parser_new_node(p, N_MATCH_SEQUENCE, open);
    parse_sequence_items(p, &sequence->u.match_sequence.patterns, OP_RSQB);
    return finish(p, sequence);
  }
  if (at_op(p, OP_RPAR)) {
    Node *empty = parser_new_node(p, N_MATCH_SEQUENCE, open);
    parser_advance(p);
    return finish(p, empty);
  }
  Node *first = parse_maybe_star_pattern(p);
  if (at_op(p, OP_RPAR) && first->kind != N_MATCH_STAR) {
    parser_advance(p);
    first->parenthesized = true; /* a group: the pattern itself */
    return first;
  }
  if (!at_op(p, OP_COMMA))
    parse_error_invalid(p);
  parser_advance(p);
  Node *sequence = parser_new_node(p, N_MATCH_SEQUENCE, open);
  parser_push(p, &sequence->u.match_sequence.patterns, first);
  parse_sequence_items(p, &sequence->u.match_sequence.patterns, OP_RPAR);
  return finish(p, sequence);
}

/*
 * mapping_pattern:
 *     | '{' '}'
 *     | '{' double_star_pattern ','? '}'
 *     | '{' items_pattern ',' double_star_pattern ','? '}'
 *     | '{' items_pattern ','? '}'
 * items_pattern: ','.key_value_pattern+
 * key_value_pattern: (literal_expr | attr) ':' pattern
 * double_star_pattern: '**' pattern_capture_target
 */
static Node *parse_mapping_pattern(Parser *p) {
  Node *mapping = parser_new_node(p, N_MATCH_MAPPING, parser_advance(p));
  while (!at_op(p, OP_RBRACE)) {
    if (parser_accept_op(p, OP_DSTAR)) {
      if (!at_capture_target(p))
        parse_error_invalid(p);
      mapping->u.match_mapping.rest = parse_capture_target(p);
      parser_accept_op(p, OP_COMMA);
      break;
    }
    parser_push(p, &mapping->u.match_mapping.keys, parse_mapping_key(p));
    parser_expect_op(p, OP_COLON);
    parser_push(p, &mapping->u.match_mapping.patterns, parse_pattern(p));
    if (!parser_accept_op(p, OP_COMMA))
      break;
  }
  if (!at_op(p, OP_RBRACE))
    parse_error_invalid(p);
  parser_advance(p);
  return finish(p, mapping);
}

/*
 * class_pattern:
 *     | name_or_attr '(' ')'
 *     | name_or_attr '(' positional_patterns ','? ')'
 *     | name_or_attr '(' keyword_patterns ','? ')'
 *     | name_or_attr '(' positional_patterns ',' keyword_patterns ','? ')'
 * keyword_pattern: NAME '=' pattern
 */
static Node *parse_class_pattern(Parser *p, Node *cls) {
  Node *node = parser_new_node_at(p, N_MATCH_CLASS, cls->span.start);
  node->u.match_class.cls = cls;
  parser_expect_op(p, OP_LPAR);
  while (!at_op(p, OP_RPAR)) {
    if (parser_at_name(p) && at_op_token(parser_peek_at(p, 1), OP_EQUAL)) {
      Token *name = parser_advance(p);
      Node *attr = parser_new_node(p, N_NAME, name);
      attr->u.name.id = parser_token_str(name);
      attr->span.end = name->span.end;
      parser_advance(p); /* = */
      parser_push(p, &node->u.match_class.kwd_attrs_nodes, attr);
      parser_push(p, &node->u.match_class.kwd_patterns, parse_pattern(p));
    } else {
      Token *start = peek(p);
      Node *positional = parse_pattern(p);
      if (node->u.match_class.kwd_patterns.count > 0)
        parse_error_at(p, start, "positional patterns follow keyword patterns");
      parser_push(p, &node->u.match_class.patterns, positional);
    }
    if (!parser_accept_op(p, OP_COMMA))
      break;
  }
  if (!at_op(p, OP_RPAR))
    parse_error_invalid(p);
  parser_advance(p);
  return finish(p, node);
}

/*
 * The patterns that begin with a name:
 *     | wildcard_pattern: "_"          (always: `_.x` and `_()` are errors)
 *     | capture_pattern: pattern_capture_target
 *     | value_pattern: attr !('.' | '(' | '=')
 *     | class_pattern
 */
static Node *parse_name_pattern(Parser *p) {
  Token *start = peek(p);
  Token *next = parser_peek_at(p, 1);
  bool longer = at_op_token(next, OP_DOT) || at_op_token(next, OP_LPAR);
  if (!longer || parser_token_is(start, "_")) {
    Node *capture = parser_new_node(p, N_MATCH_AS, start);
    if (parser_at_soft_keyword(p, "_"))
      parser_advance(p);
    else
      capture->u.match_as.name = parse_capture_target(p);
    if (!at_name_end(p))
      parse_error_invalid(p);
    return finish(p, capture);
  }
  Node *name = parse_name_or_attr(p);
  if (at_op(p, OP_LPAR))
    return parse_class_pattern(p, name);
  if (!at_name_end(p))
    parse_error_invalid(p);
  Node *value = parser_new_node(p, N_MATCH_VALUE, start);
  value->u.match_value.value = name;
  return finish(p, value);
}

/*
 * closed_pattern:
 *     | literal_pattern | capture_pattern | wildcard_pattern | value_pattern
 *     | group_pattern | sequence_pattern | mapping_pattern | class_pattern
 * literal_pattern:
 *     | signed_number !('+' | '-') | complex_number | strings
 *     | 'None' | 'True' | 'False'
 */
static Node *parse_closed_pattern(Parser *p) {
  Token *t = peek(p);
  if (t->kind == TOK_NUMBER || at_op(p, OP_MINUS) || t->kind == TOK_STRING || t->kind == TOK_FSTRING_START) {
    Node *value = parser_new_node(p, N_MATCH_VALUE, t);
    value->u.match_value.value =
        (t->kind == TOK_STRING || t->kind == TOK_FSTRING_START) ? parse_pattern_strings(p) : parse_number_literal(p);
    return finish(p, value);
  }
  if (at_singleton(p)) {
    Node *singleton = parser_new_node(p, N_MATCH_SINGLETON, t);
    singleton->u.match_singleton.value = singleton_kind(t);
    parser_advance(p);
    return finish(p, singleton);
  }
  if (parser_at_name(p))
    return parse_name_pattern(p);
  if (at_op(p, OP_LPAR) || at_op(p, OP_LSQB))
    return parse_parenthesized_pattern(p);
  if (at_op(p, OP_LBRACE))
    return parse_mapping_pattern(p);
  parse_error_invalid(p);
}

/* or_pattern: '|'.closed_pattern+ */
static Node *parse_or_pattern(Parser *p) {
  Token *start = peek(p);
  Node *first = parse_closed_pattern(p);
  if (!at_op(p, OP_VBAR))
    return first;
  Node *alternatives = parser_new_node(p, N_MATCH_OR, start);
  parser_push(p, &alternatives->u.match_or.patterns, first);
  while (parser_accept_op(p, OP_VBAR))
    parser_push(p, &alternatives->u.match_or.patterns, parse_closed_pattern(p));
  return finish(p, alternatives);
}

/*
 * pattern: as_pattern | or_pattern
 * as_pattern: or_pattern 'as' pattern_capture_target
 */
static Node *parse_pattern(Parser *p) {
  parser_enter_rule(p);
  Token *start = peek(p);
  Node *pattern = parse_or_pattern(p);
  if (parser_accept_keyword(p, KW_AS)) {
    if (parser_at_soft_keyword(p, "_"))
      parse_error_at(p, peek(p), "cannot use '_' as a target");
    if (!parser_at_name(p))
      parse_error_at(p, peek(p), "invalid pattern target");
    Node *as = parser_new_node(p, N_MATCH_AS, start);
    as->u.match_as.pattern = pattern;
    as->u.match_as.name = parse_capture_target(p);
    pattern = finish(p, as);
  }
  parser_leave_rule(p);
  return pattern;
}

/*
 * patterns: open_sequence_pattern | pattern
 * open_sequence_pattern: maybe_star_pattern ',' maybe_sequence_pattern?
 */
Node *parse_patterns(Parser *p) {
  Token *start = peek(p);
  Node *first = parse_maybe_star_pattern(p);
  if (!at_op(p, OP_COMMA)) {
    if (first->kind == N_MATCH_STAR)
      parse_error_invalid(p);
    return first;
  }
  Node *sequence = parser_new_node(p, N_MATCH_SEQUENCE, start);
  parser_push(p, &sequence->u.match_sequence.patterns, first);
  while (parser_accept_op(p, OP_COMMA) && at_pattern_start(p))
    parser_push(p, &sequence->u.match_sequence.patterns, parse_maybe_star_pattern(p));
  return finish(p, sequence);
}
