/*
 * parser.c — the parser's token cursor, node construction, errors and
 * depth limit. The grammar itself is in parse_expr.c, parse_stmt.c and
 * parse_pattern.c.
 */
#include <stdio.h>
#include <string.h>

#include "parser.h"

/* ---------------------------------------------------------------- cursor */

Token *parser_peek_at(Parser *p, int ahead) {
  int index = p->pos + ahead;
  if (index >= p->count)
    index = p->count - 1;
  return &p->tokens[index];
}

Token *parser_previous(Parser *p) { return &p->tokens[p->pos > 0 ? p->pos - 1 : 0]; }

Token *parser_advance(Parser *p) {
  Token *token = &p->tokens[p->pos];
  if (token->kind != TOK_EOF)
    p->pos++;
  return token;
}

bool parser_accept_op(Parser *p, OpKind op) {
  if (!at_op(p, op))
    return false;
  parser_advance(p);
  return true;
}

Token *parser_expect_op(Parser *p, OpKind op) {
  if (!at_op(p, op))
    parse_error_at(p, peek(p), "expected '%s'", op_spelling(op));
  return parser_advance(p);
}

bool parser_accept_keyword(Parser *p, Keyword kw) {
  if (!at_keyword(p, kw))
    return false;
  parser_advance(p);
  return true;
}

Token *parser_expect_keyword(Parser *p, Keyword kw) {
  if (!at_keyword(p, kw))
    parse_error_at(p, peek(p), "expected '%s'", keyword_spelling(kw));
  return parser_advance(p);
}

bool parser_at_name(Parser *p) {
  Token *t = peek(p);
  return t->kind == TOK_NAME && t->keyword == KW_NONE;
}

bool parser_token_is(const Token *t, const char *text) {
  size_t length = strlen(text);
  return (size_t)t->len == length && memcmp(t->text, text, length) == 0;
}

bool parser_at_soft_keyword(Parser *p, const char *word) { return parser_at_name(p) && parser_token_is(peek(p), word); }

Str parser_token_str(const Token *t) { return (Str){t->text, t->len}; }

Str parser_expect_name(Parser *p) {
  if (!parser_at_name(p)) {
    Token *t = peek(p);
    if (t->kind == TOK_NAME)
      parse_error_at(p, t, "expected a name, found keyword '%.*s'", t->len, t->text);
    parse_error_at(p, t, "expected a name");
  }
  return parser_token_str(parser_advance(p));
}

/* ---------------------------------------------------------------- errors */

/* How a token reads in a message: its spelling, or what it stands for. */
static void describe_token(const Token *t, char *out, size_t size) {
  switch (t->kind) {
  case TOK_EOF: snprintf(out, size, "end of file"); break;
  case TOK_NEWLINE: snprintf(out, size, "end of line"); break;
  case TOK_INDENT: snprintf(out, size, "indent"); break;
  case TOK_DEDENT: snprintf(out, size, "dedent"); break;
  default: snprintf(out, size, "'%.*s'", t->len > 40 ? 40 : t->len, t->text); break;
  }
}

_Noreturn void parse_error_at(Parser *p, const Token *at, const char *fmt, ...) {
  char message[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  diag_error(&p->ctx->diag, at->span.start, "%s", message);
}

_Noreturn void parse_error_node(Parser *p, const Node *at, const char *fmt, ...) {
  char message[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  diag_error(&p->ctx->diag, at->span.start, "%s", message);
}

_Noreturn void parse_error_invalid(Parser *p) {
  Token *t = peek(p);
  if (t->kind == TOK_INDENT)
    parse_error_at(p, t, "unexpected indent");
  if (t->kind == TOK_DEDENT)
    parse_error_at(p, t, "unindent does not match any outer indentation level");
  char what[64];
  describe_token(t, what, sizeof what);
  parse_error_at(p, t, "invalid syntax at %s", what);
}

void parser_enter_rule(Parser *p) {
  if (++p->depth > C2T_MAX_PARSE_DEPTH)
    diag_limit(&p->ctx->diag, peek(p)->span.start, "nested expressions or statements", C2T_MAX_PARSE_DEPTH);
}

void parser_leave_rule(Parser *p) { p->depth--; }

/* ----------------------------------------------------------------- nodes */

Node *parser_new_node_at(Parser *p, NodeKind kind, Pos start) {
  Node *node = arena_alloc(&p->ctx->arena, sizeof(Node));
  node->kind = kind;
  node->span.start = start;
  node->span.end = start;
  return node;
}

Node *parser_new_node(Parser *p, NodeKind kind, const Token *start) { return parser_new_node_at(p, kind, start->span.start); }

void parser_end_node(Parser *p, Node *node) {
  if (p->pos > 0)
    node->span.end = parser_previous(p)->span.end;
}

void parser_push(Parser *p, NodeList *list, Node *node) { node_list_push(&p->ctx->arena, list, node); }
