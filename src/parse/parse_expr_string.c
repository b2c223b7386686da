/*
 * parse_expr_string.c — string atoms: implicit concatenation of string,
 * bytes and f-string literals, and the PEP 701 f-string grammar over the
 * tokens FSTRING_START, FSTRING_MIDDLE, '{' ... '}', FSTRING_END.
 *
 * Literals keep their spelling: a plain literal becomes an N_STRING_TOKEN
 * holding the whole token; f-string text becomes N_FSTRING_TEXT as spelled
 * (`{{` stays `{{`). Escapes are not decoded here.
 */
#include <string.h>

#include "parse_expr_internal.h"

/* Whether a string token's prefix (the letters before the quote) has b/B. */
static bool string_token_is_bytes(const Token *t) {
  for (int i = 0; i < t->len; i++) {
    char c = t->text[i];
    if (c == '\'' || c == '"')
      break;
    if (c == 'b' || c == 'B')
      return true;
  }
  return false;
}

/* Append FSTRING_MIDDLE text, merged with text right before it. */
static void push_fstring_text(Parser *p, NodeList *parts, Token *t) {
  if (parts->count > 0) {
    Node *last = parts->items[parts->count - 1];
    if (last->kind == N_FSTRING_TEXT && last->u.piece.text.text + last->u.piece.text.len == t->text) {
      last->u.piece.text.len += t->len;
      last->span.end = t->span.end;
      return;
    }
  }
  Node *text = parser_new_node(p, N_FSTRING_TEXT, t);
  text->u.piece.text = parser_token_str(t);
  text->span.end = t->span.end;
  parser_push(p, parts, text);
}

static Node *parse_replacement_field(Parser *p);

/* (FSTRING_MIDDLE | fstring_replacement_field)* */
static void parse_fstring_parts(Parser *p, NodeList *parts) {
  for (;;) {
    if (at_kind(p, TOK_FSTRING_MIDDLE))
      push_fstring_text(p, parts, parser_advance(p));
    else if (at_op(p, OP_LBRACE))
      parser_push(p, parts, parse_replacement_field(p));
    else
      return;
  }
}

/* fstring_conversion: '!' NAME, the name right after the '!' and one of
 * s, r, a. Returns the conversion character. */
static int parse_fstring_conversion(Parser *p) {
  Token *bang = parser_expect_op(p, OP_EXCLAIM);
  Token *name = peek(p);
  if (name->kind != TOK_NAME) {
    if (name->kind == TOK_OP && (name->op == OP_RBRACE || name->op == OP_COLON))
      parse_error_at(p, name, "f-string: missing conversion character");
    parse_error_at(p, name, "f-string: invalid conversion character");
  }
  if (name->span.start.offset != bang->span.end.offset)
    parse_error_at(p, bang, "f-string: conversion type must come right after the exclamanation mark");
  if (name->len != 1 || !strchr("sra", name->text[0]))
    parse_error_at(p, name, "f-string: invalid conversion character '%.*s': expected 's', 'r', or 'a'",
                   name->len > 40 ? 40 : name->len, name->text);
  parser_advance(p);
  return name->text[0];
}

/* fstring_full_format_spec: ':' fstring_format_spec*
 * An N_FSTRING without quotes holding the spec's text and fields. */
static Node *parse_fstring_format_spec(Parser *p) {
  Token *colon = parser_expect_op(p, OP_COLON);
  Node *spec = parser_new_node_at(p, N_FSTRING, colon->span.end);
  parse_fstring_parts(p, &spec->u.fstring.parts);
  if (spec->u.fstring.parts.count > 0)
    parser_end_node(p, spec);
  return spec;
}

/* What may not start a replacement field's expression. */
static void reject_missing_field_expression(Parser *p) {
  Token *t = peek(p);
  if (at_keyword(p, KW_LAMBDA))
    parse_error_at(p, t, "f-string: lambda expressions are not allowed without parentheses");
  if (t->kind == TOK_OP && (t->op == OP_RBRACE || t->op == OP_EXCLAIM || t->op == OP_COLON || t->op == OP_EQUAL))
    parse_error_at(p, t, "f-string: valid expression required before '%s'", op_spelling(t->op));
  if (t->kind == TOK_FSTRING_MIDDLE || t->kind == TOK_FSTRING_END)
    parse_error_at(p, t, "f-string: valid expression required before '}'");
  if (!parser_starts_expression(p) && !at_keyword(p, KW_YIELD))
    parse_error_at(p, t, "f-string: expecting a valid expression after '{'");
}

/* The closing '}' of a replacement field; `expecting` lists what else
 * could have come at this point, for the message. `value_ended`: a '=',
 * conversion or format spec came after the expression. */
static void expect_field_end(Parser *p, const Node *value, const char *expecting, bool value_ended) {
  if (parser_accept_op(p, OP_RBRACE))
    return;
  if (!value_ended && parser_starts_expression(p) && !at_op(p, OP_STAR))
    parse_error_node(p, value, "invalid syntax. Perhaps you forgot a comma?");
  parse_error_at(p, peek(p), "f-string: expecting %s", expecting);
}

/* fstring_replacement_field:
 *     | '{' (yield_expr | star_expressions) '='? [fstring_conversion]
 *       [fstring_full_format_spec] '}' */
static Node *parse_replacement_field(Parser *p) {
  parser_enter_rule(p);
  Token *open = parser_expect_op(p, OP_LBRACE);
  Node *node = parser_new_node(p, N_FORMATTED_VALUE, open);
  node->u.formatted_value.conversion = -1;
  reject_missing_field_expression(p);
  Node *value = at_keyword(p, KW_YIELD) ? parse_yield_expr(p) : parse_star_expressions(p);
  node->u.formatted_value.value = value;
  const char *expecting = "'=', or '!', or ':', or '}'";
  if (parser_accept_op(p, OP_EQUAL)) {
    size_t from = open->span.end.offset, to = peek(p)->span.start.offset;
    node->u.formatted_value.debug_text = (Str){p->ctx->source.text + from, (int)(to - from)};
    expecting = "'!', or ':', or '}'";
  }
  if (at_op(p, OP_EXCLAIM)) {
    node->u.formatted_value.conversion = parse_fstring_conversion(p);
    expecting = "':' or '}'";
  }
  if (at_op(p, OP_COLON)) {
    node->u.formatted_value.format_spec = parse_fstring_format_spec(p);
    expecting = "'}'";
  }
  expect_field_end(p, value, expecting, expecting[1] != '=');
  parser_leave_rule(p);
  return parser_finish_node(p, node);
}

/* fstring: FSTRING_START fstring_middle* FSTRING_END */
static Node *parse_fstring(Parser *p) {
  Token *start = parser_advance(p);
  Node *node = parser_new_node(p, N_FSTRING, start);
  node->u.fstring.prefix_and_quote = parser_token_str(start);
  parse_fstring_parts(p, &node->u.fstring.parts);
  if (!at_kind(p, TOK_FSTRING_END))
    parse_error_at(p, peek(p), "f-string: expecting '}'");
  node->u.fstring.closing_quote = parser_token_str(parser_advance(p));
  return parser_finish_node(p, node);
}

/* strings: (fstring | string)+ */
Node *parse_strings(Parser *p) {
  parser_enter_rule(p);
  Token *start = peek(p);
  Node *node = parser_new_node(p, N_STRING, start);
  bool is_bytes = start->kind == TOK_STRING && string_token_is_bytes(start);
  for (;;) {
    Token *t = peek(p);
    if (t->kind != TOK_STRING && t->kind != TOK_FSTRING_START)
      break;
    bool piece_is_bytes = t->kind == TOK_STRING && string_token_is_bytes(t);
    if (piece_is_bytes != is_bytes)
      parse_error_at(p, t, "cannot mix bytes and nonbytes literals");
    if (t->kind == TOK_FSTRING_START) {
      parser_push(p, &node->u.string.parts, parse_fstring(p));
    } else {
      parser_advance(p);
      Node *piece = parser_new_node(p, N_STRING_TOKEN, t);
      piece->u.piece.text = parser_token_str(t);
      parser_push(p, &node->u.string.parts, parser_finish_node(p, piece));
    }
  }
  node->u.string.is_bytes = is_bytes;
  parser_leave_rule(p);
  return parser_finish_node(p, node);
}
