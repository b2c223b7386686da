/*
 * parser.h — shared by the parse stage's files:
 *
 *   parser.c        token cursor, node construction, errors, depth limit
 *   parse_expr.c    expressions, f-strings, targets, call arguments, slices,
 *                   comprehensions, lambda and def parameter lists
 *   parse_stmt.c    statements, blocks, decorators, type parameters, the module
 *   parse_pattern.c match-statement patterns
 *   dump.c          a compact S-expression dump of the tree (tests, debugging)
 *
 * The parser is recursive descent over the token array that tokenize()
 * built, with the grammar of Python 3.12 (Grammar/python.gram). Each parse
 * function carries its grammar rule as a comment. Backtracking is explicit:
 * save `p->pos`, try, restore. The first syntax error ends the run through
 * diag_error (longjmp); no recovery is attempted.
 *
 * Functions shared between these files are named parse_* (grammar rules) or
 * parser_* (cursor, nodes, limits): libcutile2triton.a is linked into other
 * programs, where a bare `advance` or `push` would collide.
 */
#ifndef C2T_PARSER_H
#define C2T_PARSER_H

#include "../c2t.h"

typedef struct Parser {
  Context *ctx;
  Token *tokens; /* ends with TOK_EOF */
  int count;
  int pos;       /* index of the current token */
  int depth;     /* nested rule calls, bounded by C2T_MAX_PARSE_DEPTH */
} Parser;

/* ---- token cursor (the hottest few inline, the rest in parser.c) */
static inline Token *peek(Parser *p) { return &p->tokens[p->pos]; } /* current token */
static inline bool at_op(Parser *p, OpKind op) {
  Token *t = &p->tokens[p->pos];
  return t->kind == TOK_OP && t->op == op;
}
static inline bool at_keyword(Parser *p, Keyword kw) {
  Token *t = &p->tokens[p->pos];
  return t->kind == TOK_NAME && t->keyword == kw;
}
static inline bool at_kind(Parser *p, TokenKind kind) { return p->tokens[p->pos].kind == kind; }
Token *parser_peek_at(Parser *p, int ahead);  /* token `ahead` after the current (clamped to EOF) */
Token *parser_previous(Parser *p);            /* last consumed token */
Token *parser_advance(Parser *p);             /* consume and return the current token */
bool parser_accept_op(Parser *p, OpKind op);
Token *parser_expect_op(Parser *p, OpKind op); /* error "expected 'X'" */
bool parser_accept_keyword(Parser *p, Keyword kw);
Token *parser_expect_keyword(Parser *p, Keyword kw);
bool parser_at_name(Parser *p);                    /* an identifier (not a hard keyword) */
bool parser_at_soft_keyword(Parser *p, const char *word); /* NAME with this spelling */
Str parser_expect_name(Parser *p);                 /* an identifier, error otherwise */
bool parser_token_is(const Token *t, const char *text); /* spelling equals text */

/* ---- parser.c: errors and limits */
_Noreturn void parse_error_at(Parser *p, const Token *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
_Noreturn void parse_error_node(Parser *p, const Node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
_Noreturn void parse_error_invalid(Parser *p); /* "invalid syntax" at the current token */
void parser_enter_rule(Parser *p);  /* depth + 1; error "too many nested expressions" past the limit */
void parser_leave_rule(Parser *p);

/* ---- parser.c: nodes */
Node *parser_new_node(Parser *p, NodeKind kind, const Token *start); /* span starts at `start` */
Node *parser_new_node_at(Parser *p, NodeKind kind, Pos start);
void parser_end_node(Parser *p, Node *node);       /* span ends at the end of parser_previous(p) */
void parser_push(Parser *p, NodeList *list, Node *node);
Str parser_token_str(const Token *t);

/* ---- parse_expr.c */
Node *parse_expression(Parser *p);          /* expression (with if-else, lambda) */
Node *parse_named_expression(Parser *p);    /* named_expression (walrus allowed) */
Node *parse_star_expressions(Parser *p);    /* star_expressions: maybe an unparenthesized tuple */
Node *parse_star_named_expressions_tuple(Parser *p); /* a, *b, c := 1 ... in `for`/`return` contexts */
Node *parse_yield_expr(Parser *p);          /* yield_expr (current token is `yield`) */
Node *parse_disjunction(Parser *p);
Node *parse_bitwise_or(Parser *p);
Node *parse_star_targets(Parser *p);        /* star_targets (for `for` and comprehension targets) */
Node *parse_primary_expression(Parser *p);  /* atom with trailers (.x, [i], (args)) */
Node *parse_parameters(Parser *p, bool is_lambda, OpKind closing); /* N_ARGUMENTS up to `closing` (OP_RPAR, or OP_COLON for lambda) */
void parse_call_arguments(Parser *p, Node *call); /* after `(`, up to and including `)` */
Node *parse_annotation(Parser *p);          /* expression, or star_expression where the grammar allows */
/* Mark `target` as an assignment (CTX_STORE) or del (CTX_DEL) target,
 * recursively, and reject what cannot be assigned:
 * "cannot assign to function call here", ... `what` is "assign to" or "delete". */
void set_target_context(Parser *p, Node *target, ExprContext ctx);
bool is_augassign_target(const Node *target); /* Name, Attribute, Subscript (not parenthesized tuples) */
/* What CPython calls an expression in messages: "function call", "literal",
 * "tuple", "conditional expression", ... (added by the expression parser, for
 * "'%s' is an illegal expression for augmented assignment" and the like). */
const char *parser_expr_name(const Node *node);

/* ---- parse_stmt.c */
NodeList parse_block(Parser *p);            /* block: NEWLINE INDENT statements DEDENT | simple_stmts */
Node *parse_type_params(Parser *p, NodeList *out); /* `[T, *Ts, **P]` after a def/class/type name */

/* ---- parse_pattern.c */
Node *parse_patterns(Parser *p);            /* patterns: open_sequence_pattern | pattern */

/* ---- dump.c */
void dump_node(Buf *out, const Node *node);

#endif /* C2T_PARSER_H */
