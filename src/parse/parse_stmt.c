/*
 * parse_stmt.c — statements, blocks, decorators, type parameters and the
 * module: the statement half of Python 3.12's Grammar/python.gram.
 *
 * Each function carries the grammar rule it implements as a comment. Most
 * decisions take one token of lookahead; a few take a speculative parse
 * (see `attempt`), as CPython's PEG parser would backtrack: a line starting
 * with the soft keyword `match` (a match statement, or ordinary code such as
 * `match(x)`), the parenthesized item list of `with (a as b, c):` (or a
 * parenthesized expression, `with (a, b) as c:`), and a def's type params
 * (whose failure CPython reports as "expected '('").
 *
 * Spans follow CPython: a statement starts at its first token (a decorated
 * definition at `def`/`class`/`async`; its decorators carry their own
 * spans) and ends at its last token, a compound statement at the end of its
 * last body statement.
 *
 * Rejected is what `ast.parse` rejects, no more: `break` outside a loop,
 * `return` outside a function, a bare `except:` before others, two starred
 * names in one sequence pattern are left to a compiler.
 */
#include <string.h>

#include "parser.h"

static void parse_statement(Parser *p, NodeList *out);
static void parse_simple_statements(Parser *p, NodeList *out);

/* ------------------------------------------------------------ speculation */

typedef bool (*AttemptFn)(Parser *p, void *arg);

/* Run fn(p, arg). When it fails — returns false or reports a syntax
 * error — undo what it did (cursor, depth, the diagnostic) and return
 * false; but an error whose message contains `keep` (when not NULL) stands,
 * as does running out of memory. Nodes built by a failed attempt stay in
 * the arena, unreferenced. */
static bool attempt_keeping(Parser *p, AttemptFn fn, void *arg, const char *keep) {
  Diag *diag = &p->ctx->diag;
  jmp_buf saved;
  memcpy(saved, diag->on_error, sizeof saved);
  int pos = p->pos, depth = p->depth, error_count = diag->error_count;
  size_t message_len = diag->messages.len;
  volatile bool returned = false, ok = false;
  if (setjmp(diag->on_error) == 0) {
    ok = fn(p, arg);
    returned = true;
  }
  memcpy(diag->on_error, saved, sizeof saved);
  if (!returned && diag->error_count == error_count)
    longjmp(diag->on_error, 1); /* out of memory, no syntax error: pass it on */
  if (!returned && keep && diag->messages.data && strstr(diag->messages.data + message_len, keep))
    longjmp(diag->on_error, 1);
  if (ok)
    return true;
  diag->error_count = error_count;
  diag->messages.len = message_len;
  if (diag->messages.data)
    diag->messages.data[message_len] = '\0';
  p->pos = pos;
  p->depth = depth;
  return false;
}

static bool attempt(Parser *p, AttemptFn fn, void *arg) { return attempt_keeping(p, fn, arg, NULL); }

/* ---------------------------------------------------------------- helpers */

static bool at_newline(Parser *p) { return at_kind(p, TOK_NEWLINE); }

/* The end of a simple statement: `;`, NEWLINE (or EOF, defensively). */
static bool at_statement_end(Parser *p) {
  return at_op(p, OP_SEMI) || at_newline(p) || at_kind(p, TOK_EOF);
}

/* Where to report something missing at the current token: there, or at the
 * end of the last line when the file ends here (as CPython does). */
static const Token *missing_at(Parser *p) {
  if (!at_kind(p, TOK_EOF))
    return peek(p);
  for (int i = p->pos - 1; i >= 0; i--)
    if (p->tokens[i].kind == TOK_NEWLINE)
      return &p->tokens[i];
  return peek(p);
}

/* "unexpected indent", at the last blank of the indentation as CPython. */
static _Noreturn void unexpected_indent(Parser *p, const Token *indent) {
  Pos at = indent->span.end;
  if (at.offset > indent->span.start.offset) {
    at.col--;
    at.offset--;
  }
  diag_error(&p->ctx->diag, at, "unexpected indent");
}

/* A compound statement ends where its last body statement ends. */
static void end_at_last(Node *node, const NodeList *body) {
  if (body->count > 0)
    node->span.end = body->items[body->count - 1]->span.end;
}

static Node *new_name_node(Parser *p, const Token *t, ExprContext ctx) {
  Node *name = parser_new_node(p, N_NAME, t);
  name->u.name.id = parser_token_str(t);
  name->u.name.ctx = ctx;
  name->span.end = t->span.end;
  return name;
}

/* Hard keywords that may begin an expression statement. */
static bool keyword_starts_expression(Keyword kw) {
  return kw == KW_NONE || kw == KW_NOT || kw == KW_LAMBDA || kw == KW_AWAIT || kw == KW_NONE_ ||
         kw == KW_TRUE || kw == KW_FALSE || kw == KW_YIELD;
}

/* Can `t` begin an expression (not a yield)? */
static bool starts_expression_token(const Token *t) {
  switch (t->kind) {
  case TOK_NAME: return keyword_starts_expression(t->keyword) && t->keyword != KW_YIELD;
  case TOK_NUMBER: case TOK_STRING: case TOK_FSTRING_START: return true;
  case TOK_OP:
    return t->op == OP_LPAR || t->op == OP_LSQB || t->op == OP_LBRACE || t->op == OP_MINUS || t->op == OP_PLUS || t->op == OP_TILDE ||
           t->op == OP_ELLIPSIS || t->op == OP_STAR;
  default: return false;
  }
}

/* yield_expr | star_expressions */
static Node *parse_yield_or_star_expressions(Parser *p) {
  if (at_keyword(p, KW_YIELD))
    return parse_yield_expr(p);
  return parse_star_expressions(p);
}

/* ------------------------------------------------------------------ blocks */

/*
 * block: NEWLINE INDENT statements DEDENT | simple_stmts
 *
 * `owner` is the token that opened the statement (for the line number) and
 * `what` names it in "expected an indented block after WHAT on line N".
 */
static NodeList parse_block_after(Parser *p, const Token *owner, const char *what) {
  NodeList body = {0};
  parser_enter_rule(p);
  if (at_newline(p)) {
    parser_advance(p);
    if (!at_kind(p, TOK_INDENT))
      parse_error_at(p, missing_at(p), "expected an indented block after %s on line %d", what,
                     owner->span.start.line);
    parser_advance(p);
    while (!at_kind(p, TOK_DEDENT) && !at_kind(p, TOK_EOF))
      parse_statement(p, &body);
    if (at_kind(p, TOK_DEDENT))
      parser_advance(p);
  } else {
    parse_simple_statements(p, &body);
  }
  parser_leave_rule(p);
  return body;
}

NodeList parse_block(Parser *p) { return parse_block_after(p, parser_previous(p), "':'"); }

/* `&&':'` in the grammar: a colon, or "expected ':'". */
static void expect_colon(Parser *p) { parser_expect_op(p, OP_COLON); }

/* ':' block, for the statement opened by `owner`. */
static NodeList parse_colon_block(Parser *p, const Token *owner, const char *what) {
  expect_colon(p);
  return parse_block_after(p, owner, what);
}

/* else_block: 'else' &&':' block */
static NodeList parse_else_block(Parser *p) {
  Token *else_token = parser_expect_keyword(p, KW_ELSE);
  return parse_colon_block(p, else_token, "'else' statement");
}

/* ---------------------------------------------------------- type params */

/*
 * type_param:
 *     | NAME [':' expression]      TypeVar (a bound or a tuple of constraints)
 *     | '*' NAME                   TypeVarTuple
 *     | '**' NAME                  ParamSpec
 */
static Node *parse_type_param(Parser *p) {
  Token *start = peek(p);
  NodeKind kind = N_TYPE_VAR;
  const char *what = NULL;
  if (parser_accept_op(p, OP_STAR)) {
    kind = N_TYPE_VAR_TUPLE;
    what = "TypeVarTuple";
  } else if (parser_accept_op(p, OP_DSTAR)) {
    kind = N_PARAM_SPEC;
    what = "ParamSpec";
  }
  Node *param = parser_new_node(p, kind, start);
  param->u.type_param.name = parser_expect_name(p);
  if (at_op(p, OP_COLON)) {
    Token *colon = parser_advance(p);
    Node *bound = parse_expression(p);
    if (kind != N_TYPE_VAR)
      parse_error_at(p, colon, "cannot use %s with %s", bound->kind == N_TUPLE ? "constraints" : "bound", what);
    param->u.type_param.bound = bound;
  }
  parser_end_node(p, param);
  return param;
}

/*
 * type_params: '[' type_param_seq ']'
 * type_param_seq: ','.type_param+ [',']
 *
 * Appends to `out` and returns the last parameter; returns NULL (consuming
 * nothing) when the current token is not '['.
 */
Node *parse_type_params(Parser *p, NodeList *out) {
  if (!at_op(p, OP_LSQB))
    return NULL;
  parser_advance(p);
  Node *last = NULL;
  if (at_op(p, OP_RSQB))
    parse_error_invalid(p);
  while (!at_op(p, OP_RSQB)) {
    last = parse_type_param(p);
    parser_push(p, out, last);
    if (!parser_accept_op(p, OP_COMMA))
      break;
  }
  if (!at_op(p, OP_RSQB))
    parse_error_invalid(p);
  parser_advance(p);
  return last;
}

/* ------------------------------------------------------- simple statements */

/*
 * The annotated form of assignment:
 *     | NAME ':' expression ['=' annotated_rhs]                       simple
 *     | ('(' single_target ')' | single_subscript_attribute_target)
 *       ':' expression ['=' annotated_rhs]
 * annotated_rhs: yield_expr | star_expressions
 */
static Node *finish_annotated_assignment(Parser *p, Node *target, const Token *start) {
  bool single = target->kind == N_NAME || target->kind == N_ATTRIBUTE || target->kind == N_SUBSCRIPT;
  if (!single && (target->kind == N_STARRED || !starts_expression_token(parser_peek_at(p, 1))))
    parse_error_invalid(p); /* at the ':' */
  if (target->kind == N_TUPLE || target->kind == N_LIST)
    parse_error_node(p, target, "only single target (not %s) can be annotated",
                     target->kind == N_TUPLE ? "tuple" : "list");
  if (!single)
    parse_error_node(p, target, "illegal target for annotation");
  parser_expect_op(p, OP_COLON);
  set_target_context(p, target, CTX_STORE);
  Node *node = parser_new_node(p, N_ANN_ASSIGN, start);
  node->u.ann_assign.target = target;
  node->u.ann_assign.simple = target->kind == N_NAME && !target->parenthesized;
  node->u.ann_assign.annotation = parse_expression(p);
  if (parser_accept_op(p, OP_EQUAL))
    node->u.ann_assign.value = parse_yield_or_star_expressions(p);
  parser_end_node(p, node);
  return node;
}

/* The AstOp of an augmented-assignment operator token, or AOP_NONE. */
static AstOp augassign_op(const Token *t) {
  if (t->kind != TOK_OP)
    return AOP_NONE;
  switch (t->op) {
  case OP_PLUSEQ: return AOP_ADD;
  case OP_MINUSEQ: return AOP_SUB;
  case OP_STAREQ: return AOP_MULT;
  case OP_ATEQ: return AOP_MATMULT;
  case OP_SLASHEQ: return AOP_DIV;
  case OP_PERCENTEQ: return AOP_MOD;
  case OP_AMPEREQ: return AOP_BITAND;
  case OP_VBAREQ: return AOP_BITOR;
  case OP_CIRCUMFLEXEQ: return AOP_BITXOR;
  case OP_LSHIFTEQ: return AOP_LSHIFT;
  case OP_RSHIFTEQ: return AOP_RSHIFT;
  case OP_DSTAREQ: return AOP_POW;
  case OP_DSLASHEQ: return AOP_FLOORDIV;
  default: return AOP_NONE;
  }
}

/* single_target augassign ~ (yield_expr | star_expressions) */
static Node *finish_augmented_assignment(Parser *p, Node *target, const Token *start) {
  if (!is_augassign_target(target))
    parse_error_node(p, target, "'%s' is an illegal expression for augmented assignment", parser_expr_name(target));
  AstOp op = augassign_op(parser_advance(p));
  set_target_context(p, target, CTX_STORE);
  Node *node = parser_new_node(p, N_AUG_ASSIGN, start);
  node->u.aug_assign.target = target;
  node->u.aug_assign.op = op;
  node->u.aug_assign.value = parse_yield_or_star_expressions(p);
  parser_end_node(p, node);
  return node;
}

/* (star_targets '=')+ (yield_expr | star_expressions) !'=' */
static Node *finish_assignment(Parser *p, Node *first, const Token *start) {
  Node *node = parser_new_node(p, N_ASSIGN, start);
  Node *value = first;
  while (parser_accept_op(p, OP_EQUAL)) {
    parser_push(p, &node->u.assign.targets, value);
    value = parse_yield_or_star_expressions(p);
  }
  for (int i = 0; i < node->u.assign.targets.count; i++)
    set_target_context(p, node->u.assign.targets.items[i], CTX_STORE);
  node->u.assign.value = value;
  parser_end_node(p, node);
  return node;
}

/*
 * The statements that begin with an expression:
 *     | assignment              a = b = c, x: int = 1, x += 1
 *     | star_expressions        an expression statement
 *     | yield_expr
 */
static Node *parse_expression_statement(Parser *p) {
  Token *start = peek(p);
  Node *first = parse_yield_or_star_expressions(p);
  if (at_op(p, OP_COLON))
    return finish_annotated_assignment(p, first, start);
  if (augassign_op(peek(p)) != AOP_NONE)
    return finish_augmented_assignment(p, first, start);
  if (at_op(p, OP_EQUAL))
    return finish_assignment(p, first, start);
  Node *node = parser_new_node(p, N_EXPR_STMT, start);
  node->u.expr_stmt.value = first;
  parser_end_node(p, node);
  return node;
}

/* return_stmt: 'return' [star_expressions] */
static Node *parse_return(Parser *p) {
  Node *node = parser_new_node(p, N_RETURN, parser_advance(p));
  if (!at_statement_end(p))
    node->u.return_.value = parse_star_expressions(p);
  parser_end_node(p, node);
  return node;
}

/* raise_stmt: 'raise' expression ['from' expression] | 'raise' */
static Node *parse_raise(Parser *p) {
  Node *node = parser_new_node(p, N_RAISE, parser_advance(p));
  if (!at_statement_end(p)) {
    node->u.raise.exc = parse_expression(p);
    if (parser_accept_keyword(p, KW_FROM))
      node->u.raise.cause = parse_expression(p);
  }
  parser_end_node(p, node);
  return node;
}

/* 'pass' | 'break' | 'continue' */
static Node *parse_keyword_statement(Parser *p, NodeKind kind) {
  Node *node = parser_new_node(p, kind, parser_advance(p));
  parser_end_node(p, node);
  return node;
}

/*
 * del_stmt: 'del' del_targets &(';' | NEWLINE)
 * del_targets: ','.del_target+ [',']
 *
 * Read as star_expressions: an unparenthesized tuple gives the targets,
 * anything else is one target; set_target_context rejects what cannot be
 * deleted ("cannot delete function call").
 */
static Node *parse_del(Parser *p) {
  Node *node = parser_new_node(p, N_DELETE, parser_advance(p));
  if (at_statement_end(p))
    parse_error_invalid(p);
  Node *targets = parse_star_expressions(p);
  if (targets->kind == N_TUPLE && !targets->parenthesized) {
    for (int i = 0; i < targets->u.list.elts.count; i++)
      parser_push(p, &node->u.delete_.targets, targets->u.list.elts.items[i]);
  } else {
    parser_push(p, &node->u.delete_.targets, targets);
  }
  for (int i = 0; i < node->u.delete_.targets.count; i++)
    set_target_context(p, node->u.delete_.targets.items[i], CTX_DEL);
  if (!at_statement_end(p))
    parse_error_invalid(p);
  parser_end_node(p, node);
  return node;
}

/* global_stmt: 'global' ','.NAME+ ; nonlocal_stmt: 'nonlocal' ','.NAME+ */
static Node *parse_global(Parser *p, NodeKind kind) {
  Node *node = parser_new_node(p, kind, parser_advance(p));
  do {
    if (!parser_at_name(p))
      parse_error_invalid(p);
    parser_push(p, &node->u.global.names, new_name_node(p, parser_advance(p), CTX_LOAD));
  } while (parser_accept_op(p, OP_COMMA));
  parser_end_node(p, node);
  return node;
}

/* assert_stmt: 'assert' expression [',' expression] */
static Node *parse_assert(Parser *p) {
  Node *node = parser_new_node(p, N_ASSERT, parser_advance(p));
  node->u.assert_.test = parse_expression(p);
  if (parser_accept_op(p, OP_COMMA))
    node->u.assert_.msg = parse_expression(p);
  parser_end_node(p, node);
  return node;
}

/* A Str covering `first` through `last` with the blanks between tokens
 * dropped: the dotted name `a . b` reads "a.b". */
static Str join_dotted(Parser *p, const Token *first, const Token *last) {
  int length = 0;
  for (const Token *t = first; t <= last; t++)
    length += t->len;
  if (last->span.end.offset - first->span.start.offset == (size_t)length)
    return (Str){first->text, length};
  char *text = arena_alloc(&p->ctx->arena, (size_t)length + 1);
  int at = 0;
  for (const Token *t = first; t <= last; t++) {
    memcpy(text + at, t->text, (size_t)t->len);
    at += t->len;
  }
  return (Str){text, length};
}

/* dotted_name: dotted_name '.' NAME | NAME */
static Str parse_dotted_name(Parser *p) {
  if (!parser_at_name(p))
    parse_error_invalid(p);
  Token *first = parser_advance(p);
  while (at_op(p, OP_DOT)) {
    parser_advance(p);
    if (!parser_at_name(p))
      parse_error_invalid(p);
    parser_advance(p);
  }
  return join_dotted(p, first, parser_previous(p));
}

/* ['as' NAME] after an imported name */
static void parse_optional_asname(Parser *p, Node *alias) {
  if (!parser_accept_keyword(p, KW_AS))
    return;
  if (!parser_at_name(p))
    parse_error_invalid(p);
  alias->u.alias.asname = parser_token_str(parser_advance(p));
}

/*
 * import_name: 'import' dotted_as_names
 * dotted_as_names: ','.dotted_as_name+
 * dotted_as_name: dotted_name ['as' NAME]
 */
static Node *parse_import(Parser *p) {
  Node *node = parser_new_node(p, N_IMPORT, parser_advance(p));
  do {
    Node *alias = parser_new_node(p, N_ALIAS, peek(p));
    alias->u.alias.name = parse_dotted_name(p);
    parse_optional_asname(p, alias);
    parser_end_node(p, alias);
    parser_push(p, &node->u.import.names, alias);
  } while (parser_accept_op(p, OP_COMMA));
  parser_end_node(p, node);
  return node;
}

/* import_from_as_name: NAME ['as' NAME] */
static Node *parse_import_from_as_name(Parser *p) {
  if (!parser_at_name(p))
    parse_error_invalid(p);
  Token *name = parser_advance(p);
  Node *alias = parser_new_node(p, N_ALIAS, name);
  alias->u.alias.name = parser_token_str(name);
  parse_optional_asname(p, alias);
  parser_end_node(p, alias);
  return alias;
}

/*
 * import_from_targets:
 *     | '(' import_from_as_names [','] ')'
 *     | import_from_as_names !','
 *     | '*'
 * import_from_as_names: ','.import_from_as_name+
 */
static void parse_import_from_targets(Parser *p, NodeList *names) {
  if (at_op(p, OP_STAR)) {
    Token *star = parser_advance(p);
    Node *alias = parser_new_node(p, N_ALIAS, star);
    alias->u.alias.name = parser_token_str(star);
    parser_end_node(p, alias);
    parser_push(p, names, alias);
    return;
  }
  if (parser_accept_op(p, OP_LPAR)) {
    do {
      if (at_op(p, OP_RPAR) && names->count > 0)
        break;
      parser_push(p, names, parse_import_from_as_name(p));
    } while (parser_accept_op(p, OP_COMMA));
    if (!at_op(p, OP_RPAR))
      parse_error_invalid(p);
    parser_advance(p);
    return;
  }
  parser_push(p, names, parse_import_from_as_name(p));
  while (parser_accept_op(p, OP_COMMA)) {
    if (at_statement_end(p))
      parse_error_at(p, peek(p), "trailing comma not allowed without surrounding parentheses");
    parser_push(p, names, parse_import_from_as_name(p));
  }
}

/*
 * import_from:
 *     | 'from' ('.' | '...')* dotted_name 'import' import_from_targets
 *     | 'from' ('.' | '...')+ 'import' import_from_targets
 */
static Node *parse_import_from(Parser *p) {
  Node *node = parser_new_node(p, N_IMPORT_FROM, parser_advance(p));
  int level = 0;
  for (;;) {
    if (parser_accept_op(p, OP_DOT))
      level += 1;
    else if (parser_accept_op(p, OP_ELLIPSIS))
      level += 3;
    else
      break;
  }
  node->u.import_from.level = level;
  if (level == 0 || !at_keyword(p, KW_IMPORT))
    node->u.import_from.module = parse_dotted_name(p);
  if (!at_keyword(p, KW_IMPORT))
    parse_error_invalid(p);
  parser_advance(p);
  parse_import_from_targets(p, &node->u.import_from.names);
  parser_end_node(p, node);
  return node;
}

/* type_alias: "type" NAME [type_params] '=' expression */
static Node *parse_type_alias(Parser *p) {
  Node *node = parser_new_node(p, N_TYPE_ALIAS, parser_advance(p));
  node->u.type_alias.name = new_name_node(p, parser_advance(p), CTX_STORE);
  if (at_op(p, OP_LSQB))
    parse_type_params(p, &node->u.type_alias.type_params);
  if (!at_op(p, OP_EQUAL))
    parse_error_invalid(p);
  parser_advance(p);
  node->u.type_alias.value = parse_expression(p);
  parser_end_node(p, node);
  return node;
}

/* `type` as a soft keyword: "type" followed by a NAME. `type = 1`,
 * `type(x)` and `type.x` are ordinary expressions. */
static bool at_type_alias(Parser *p) {
  if (!parser_at_soft_keyword(p, "type"))
    return false;
  Token *next = parser_peek_at(p, 1);
  return next->kind == TOK_NAME && next->keyword == KW_NONE;
}

/*
 * simple_stmt:
 *     | assignment | &"type" type_alias | star_expressions
 *     | &'return' return_stmt | &('import' | 'from') import_stmt
 *     | &'raise' raise_stmt | 'pass' | &'del' del_stmt | &'yield' yield_stmt
 *     | &'assert' assert_stmt | 'break' | 'continue'
 *     | &'global' global_stmt | &'nonlocal' nonlocal_stmt
 */
static Node *parse_simple_statement(Parser *p) {
  Token *t = peek(p);
  if (t->kind == TOK_NAME) {
    switch (t->keyword) {
    case KW_RETURN: return parse_return(p);
    case KW_IMPORT: return parse_import(p);
    case KW_FROM: return parse_import_from(p);
    case KW_RAISE: return parse_raise(p);
    case KW_PASS: return parse_keyword_statement(p, N_PASS);
    case KW_BREAK: return parse_keyword_statement(p, N_BREAK);
    case KW_CONTINUE: return parse_keyword_statement(p, N_CONTINUE);
    case KW_DEL: return parse_del(p);
    case KW_ASSERT: return parse_assert(p);
    case KW_GLOBAL: return parse_global(p, N_GLOBAL);
    case KW_NONLOCAL: return parse_global(p, N_NONLOCAL);
    default:
      if (!keyword_starts_expression(t->keyword))
        parse_error_invalid(p);
      break;
    }
    if (at_type_alias(p))
      return parse_type_alias(p);
  }
  if (t->kind == TOK_INDENT || t->kind == TOK_DEDENT || t->kind == TOK_NEWLINE || t->kind == TOK_EOF ||
      (t->kind == TOK_OP && t->op == OP_SEMI))
    parse_error_invalid(p);
  return parse_expression_statement(p);
}

/* `print x` / `exec code`: Python 2 statements, named as CPython does. */
static void reject_legacy_print(Parser *p, const Node *statement) {
  if (statement->kind != N_EXPR_STMT || at_op(p, OP_LPAR))
    return;
  const Node *name = statement->u.expr_stmt.value;
  if (name->kind != N_NAME || name->parenthesized)
    return;
  Str id = name->u.name.id;
  bool is_print = id.len == 5 && memcmp(id.text, "print", 5) == 0;
  bool is_exec = id.len == 4 && memcmp(id.text, "exec", 4) == 0;
  if ((is_print || is_exec) && (starts_expression_token(peek(p))))
    parse_error_node(p, name, "Missing parentheses in call to '%.*s'. Did you mean %.*s(...)?", id.len, id.text,
                     id.len, id.text);
}

/*
 * simple_stmts:
 *     | simple_stmt !';' NEWLINE
 *     | ';'.simple_stmt+ [';'] NEWLINE
 */
static void parse_simple_statements(Parser *p, NodeList *out) {
  for (;;) {
    parser_push(p, out, parse_simple_statement(p));
    if (!parser_accept_op(p, OP_SEMI))
      break;
    if (at_newline(p))
      break;
  }
  if (!at_newline(p)) {
    if (at_kind(p, TOK_EOF))
      return;
    reject_legacy_print(p, out->items[out->count - 1]);
    parse_error_invalid(p);
  }
  parser_advance(p);
}

/* ------------------------------------------------------ compound statements */

/* 'if' named_expression ':' block — or the same with 'elif' */
static Node *parse_if_clause(Parser *p) {
  Token *keyword = parser_advance(p);
  bool is_elif = keyword->keyword == KW_ELIF;
  Node *node = parser_new_node(p, N_IF, keyword);
  node->u.if_.is_elif = is_elif;
  node->u.if_.test = parse_named_expression(p);
  node->u.if_.body = parse_colon_block(p, keyword, is_elif ? "'elif' statement" : "'if' statement");
  end_at_last(node, &node->u.if_.body);
  return node;
}

/*
 * if_stmt:
 *     | 'if' named_expression ':' block elif_stmt
 *     | 'if' named_expression ':' block [else_block]
 * elif_stmt: the same with 'elif'
 *
 * Each elif is an If alone in the orelse of the one before; the chain is
 * read in a loop, so long chains cost no recursion. Every If of the chain
 * ends where the last clause ends.
 */
static Node *parse_if(Parser *p) {
  Node *head = parse_if_clause(p);
  Node *tail = head;
  while (at_keyword(p, KW_ELIF)) {
    Node *elif = parse_if_clause(p);
    parser_push(p, &tail->u.if_.orelse, elif);
    tail = elif;
  }
  if (at_keyword(p, KW_ELSE)) {
    tail->u.if_.orelse = parse_else_block(p);
    end_at_last(tail, &tail->u.if_.orelse);
  }
  for (Node *node = head; node != tail; node = node->u.if_.orelse.items[0])
    node->span.end = tail->span.end;
  return head;
}

/* while_stmt: 'while' named_expression ':' block [else_block] */
static Node *parse_while(Parser *p) {
  Token *keyword = parser_advance(p);
  Node *node = parser_new_node(p, N_WHILE, keyword);
  node->u.while_.test = parse_named_expression(p);
  node->u.while_.body = parse_colon_block(p, keyword, "'while' statement");
  end_at_last(node, &node->u.while_.body);
  if (at_keyword(p, KW_ELSE)) {
    node->u.while_.orelse = parse_else_block(p);
    end_at_last(node, &node->u.while_.orelse);
  }
  return node;
}

/* for_stmt: ['async'] 'for' star_targets 'in' ~ star_expressions ':' block [else_block] */
static Node *parse_for(Parser *p, const Token *start) {
  Token *keyword = parser_advance(p);
  Node *node = parser_new_node(p, N_FOR, start);
  node->u.for_.is_async = start != keyword;
  Node *target = parse_star_targets(p);
  set_target_context(p, target, CTX_STORE);
  node->u.for_.target = target;
  parser_expect_keyword(p, KW_IN);
  node->u.for_.iter = parse_star_expressions(p);
  node->u.for_.body = parse_colon_block(p, keyword, "'for' statement");
  end_at_last(node, &node->u.for_.body);
  if (at_keyword(p, KW_ELSE)) {
    node->u.for_.orelse = parse_else_block(p);
    end_at_last(node, &node->u.for_.orelse);
  }
  return node;
}

/*
 * with_item:
 *     | expression 'as' star_target &(',' | ')' | ':')
 *     | expression
 */
static Node *parse_with_item(Parser *p) {
  Token *start = peek(p);
  Node *item = parser_new_node(p, N_WITHITEM, start);
  item->u.withitem.context_expr = parse_expression(p);
  if (parser_accept_keyword(p, KW_AS)) {
    Token *target_start = peek(p);
    Node *target;
    if (parser_accept_op(p, OP_STAR)) {
      target = parser_new_node(p, N_STARRED, target_start);
      target->u.starred.value = parse_primary_expression(p);
      parser_end_node(p, target);
    } else {
      target = parse_primary_expression(p);
    }
    set_target_context(p, target, CTX_STORE);
    if (!at_op(p, OP_COMMA) && !at_op(p, OP_RPAR) && !at_op(p, OP_COLON))
      parse_error_invalid(p);
    item->u.withitem.optional_vars = target;
  }
  parser_end_node(p, item);
  return item;
}

/* '(' ','.with_item+ ','? ')' &':'  — the parenthesized item list, tried first */
static bool parse_parenthesized_with_items(Parser *p, void *arg) {
  NodeList *items = arg;
  items->count = 0;
  if (!parser_accept_op(p, OP_LPAR))
    return false;
  do {
    if (at_op(p, OP_RPAR) && items->count > 0)
      break;
    parser_push(p, items, parse_with_item(p));
  } while (parser_accept_op(p, OP_COMMA));
  return parser_accept_op(p, OP_RPAR) && at_op(p, OP_COLON);
}

/*
 * with_stmt:
 *     | ['async'] 'with' '(' ','.with_item+ ','? ')' ':' block
 *     | ['async'] 'with' ','.with_item+ ':' block
 *
 * `with (a, b):` reads as two items, `with (a, b) as c:` as one tuple.
 */
static Node *parse_with(Parser *p, const Token *start) {
  Token *keyword = parser_advance(p);
  Node *node = parser_new_node(p, N_WITH, start);
  node->u.with.is_async = start != keyword;
  NodeList items = {0};
  if (!at_op(p, OP_LPAR) || !attempt(p, parse_parenthesized_with_items, &items)) {
    items = (NodeList){0};
    do
      parser_push(p, &items, parse_with_item(p));
    while (parser_accept_op(p, OP_COMMA));
  }
  node->u.with.items = items;
  node->u.with.body = parse_colon_block(p, keyword, "'with' statement");
  end_at_last(node, &node->u.with.body);
  return node;
}

/*
 * except_block:
 *     | 'except' expression ['as' NAME] ':' block
 *     | 'except' ':' block
 * except_star_block:
 *     | 'except' '*' expression ['as' NAME] ':' block
 */
static Node *parse_except_handler(Parser *p, bool *is_star) {
  Token *keyword = parser_advance(p);
  Node *handler = parser_new_node(p, N_EXCEPT_HANDLER, keyword);
  *is_star = parser_accept_op(p, OP_STAR);
  if (*is_star && at_op(p, OP_COLON))
    parse_error_at(p, peek(p), "expected one or more exception types");
  if (!at_op(p, OP_COLON)) {
    Node *type = parse_expression(p);
    if (at_op(p, OP_COMMA))
      parse_error_node(p, type, "multiple exception types must be parenthesized");
    handler->u.except_handler.type = type;
    if (parser_accept_keyword(p, KW_AS)) {
      if (!parser_at_name(p))
        parse_error_invalid(p);
      handler->u.except_handler.name = parser_token_str(parser_advance(p));
    }
  }
  handler->u.except_handler.body =
      parse_colon_block(p, keyword, *is_star ? "'except*' statement" : "'except' statement");
  end_at_last(handler, &handler->u.except_handler.body);
  return handler;
}

/*
 * try_stmt:
 *     | 'try' &&':' block finally_block
 *     | 'try' &&':' block except_block+ [else_block] [finally_block]
 *     | 'try' &&':' block except_star_block+ [else_block] [finally_block]
 * finally_block: 'finally' &&':' block
 */
static Node *parse_try(Parser *p) {
  Token *keyword = parser_advance(p);
  Node *node = parser_new_node(p, N_TRY, keyword);
  node->u.try_.body = parse_colon_block(p, keyword, "'try' statement");
  end_at_last(node, &node->u.try_.body);
  if (!at_keyword(p, KW_EXCEPT) && !at_keyword(p, KW_FINALLY))
    parse_error_at(p, missing_at(p), "expected 'except' or 'finally' block");
  while (at_keyword(p, KW_EXCEPT)) {
    Token *except = peek(p);
    bool is_star = false;
    Node *handler = parse_except_handler(p, &is_star);
    if (node->u.try_.handlers.count > 0 && is_star != node->u.try_.is_star)
      parse_error_at(p, except, "cannot have both 'except' and 'except*' on the same 'try'");
    node->u.try_.is_star = is_star;
    parser_push(p, &node->u.try_.handlers, handler);
    node->span.end = handler->span.end;
  }
  if (node->u.try_.handlers.count > 0 && at_keyword(p, KW_ELSE)) {
    node->u.try_.orelse = parse_else_block(p);
    end_at_last(node, &node->u.try_.orelse);
  }
  if (at_keyword(p, KW_FINALLY)) {
    Token *finally = parser_advance(p);
    node->u.try_.finalbody = parse_colon_block(p, finally, "'finally' statement");
    end_at_last(node, &node->u.try_.finalbody);
  }
  return node;
}

/* decorators: ('@' named_expression NEWLINE)+ */
static void parse_decorators(Parser *p, NodeList *out) {
  while (parser_accept_op(p, OP_AT)) {
    parser_push(p, out, parse_named_expression(p));
    if (!at_newline(p))
      parse_error_invalid(p);
    parser_advance(p);
  }
}

static bool parse_type_params_attempt(Parser *p, void *arg) {
  parse_type_params(p, arg);
  return true;
}

/* A def's type params. When they do not parse, CPython's message is about
 * the '(' that should have come instead ("expected '('"), except for the
 * errors it reports on its own ("cannot use bound with TypeVarTuple"). */
static void parse_function_type_params(Parser *p, NodeList *out) {
  if (!at_op(p, OP_LSQB))
    return;
  Token *open = peek(p);
  if (attempt_keeping(p, parse_type_params_attempt, out, "cannot use "))
    return;
  parse_error_at(p, open, "expected '('");
}

/*
 * function_def_raw:
 *     | ['async'] 'def' NAME [type_params] &&'(' [params] ')' ['->' expression] &&':' block
 */
static Node *parse_function_def(Parser *p, const Token *start, NodeList decorators) {
  Token *keyword = parser_expect_keyword(p, KW_DEF);
  Node *node = parser_new_node(p, N_FUNCTION_DEF, start);
  node->u.function_def.is_async = start != keyword;
  node->u.function_def.decorator_list = decorators;
  node->u.function_def.name = parser_expect_name(p);
  parse_function_type_params(p, &node->u.function_def.type_params);
  parser_expect_op(p, OP_LPAR);
  node->u.function_def.args = parse_parameters(p, false, OP_RPAR);
  parser_expect_op(p, OP_RPAR);
  if (parser_accept_op(p, OP_ARROW))
    node->u.function_def.returns = parse_expression(p);
  node->u.function_def.body = parse_colon_block(p, keyword, "function definition");
  end_at_last(node, &node->u.function_def.body);
  return node;
}

/* `class C(x for x in y):` — a call takes a bare generator expression as
 * its sole argument, a class does not. */
static void reject_generator_base(Parser *p, const NodeList *bases) {
  if (bases->count != 1)
    return;
  const Node *base = bases->items[0];
  if (base->kind == N_GENERATOR_EXP && !base->parenthesized && base->u.comp.generators.count > 0)
    parse_error_node(p, base->u.comp.generators.items[0], "invalid syntax");
}

/* class_def_raw: 'class' NAME [type_params] ['(' [arguments] ')'] &&':' block */
static Node *parse_class_def(Parser *p, NodeList decorators) {
  Token *keyword = parser_advance(p);
  Node *node = parser_new_node(p, N_CLASS_DEF, keyword);
  node->u.class_def.decorator_list = decorators;
  node->u.class_def.name = parser_expect_name(p);
  parse_type_params(p, &node->u.class_def.type_params);
  if (at_op(p, OP_LPAR)) {
    Node *call = parser_new_node(p, N_CALL, parser_advance(p));
    parse_call_arguments(p, call);
    reject_generator_base(p, &call->u.call.args);
    node->u.class_def.bases = call->u.call.args;
    node->u.class_def.keywords = call->u.call.keywords;
  }
  node->u.class_def.body = parse_colon_block(p, keyword, "class definition");
  end_at_last(node, &node->u.class_def.body);
  return node;
}

/* A definition after its decorators: ['async'] 'def' ... | 'class' ... */
static Node *parse_definition(Parser *p, NodeList decorators) {
  if (at_keyword(p, KW_CLASS))
    return parse_class_def(p, decorators);
  Token *start = peek(p);
  if (parser_accept_keyword(p, KW_ASYNC) && !at_keyword(p, KW_DEF))
    parse_error_invalid(p);
  if (!at_keyword(p, KW_DEF))
    parse_error_invalid(p);
  return parse_function_def(p, start, decorators);
}

/* 'async' ('def' | 'with' | 'for') ... */
static Node *parse_async_statement(Parser *p) {
  Token *start = parser_advance(p);
  if (at_keyword(p, KW_DEF))
    return parse_function_def(p, start, (NodeList){0});
  if (at_keyword(p, KW_WITH))
    return parse_with(p, start);
  if (at_keyword(p, KW_FOR))
    return parse_for(p, start);
  parse_error_invalid(p);
}

/* ------------------------------------------------------------------ match */

/* guard: 'if' named_expression */
static Node *parse_guard(Parser *p) {
  if (!parser_accept_keyword(p, KW_IF))
    return NULL;
  return parse_named_expression(p);
}

/* case_block: "case" patterns guard? ':' block */
static Node *parse_case_block(Parser *p) {
  if (!parser_at_soft_keyword(p, "case"))
    parse_error_invalid(p);
  Token *keyword = parser_advance(p);
  Node *node = parser_new_node(p, N_MATCH_CASE, keyword);
  node->u.match_case.pattern = parse_patterns(p);
  node->u.match_case.guard = parse_guard(p);
  node->u.match_case.body = parse_colon_block(p, keyword, "'case' statement");
  end_at_last(node, &node->u.match_case.body);
  return node;
}

/*
 * subject_expr:
 *     | star_named_expression ',' star_named_expressions?
 *     | named_expression
 */
static Node *parse_subject(Parser *p) {
  Node *subject = parse_star_named_expressions_tuple(p);
  if (subject->kind == N_STARRED)
    parse_error_invalid(p);
  return subject;
}

/* The speculative part of a match statement: "match" subject_expr ':' NEWLINE */
static bool parse_match_head(Parser *p, void *arg) {
  Node **subject = arg;
  parser_advance(p); /* match */
  *subject = parse_subject(p);
  return at_op(p, OP_COLON) && parser_peek_at(p, 1)->kind == TOK_NEWLINE;
}

/* "match" subject_expr NEWLINE, when the line is no valid simple statement */
static bool parse_match_missing_colon(Parser *p, void *arg) {
  parser_advance(p); /* match */
  parse_subject(p);
  return at_newline(p);
}

static bool parse_simple_statements_attempt(Parser *p, void *arg) {
  parse_simple_statements(p, arg);
  return true;
}

/*
 * match_stmt: "match" subject_expr ':' NEWLINE INDENT case_block+ DEDENT
 *
 * Returns false, consuming nothing, when the line is no match statement
 * (`match = 1`, `match(x)`). A line `match SUBJECT` NEWLINE that is no
 * valid simple statement either is a match statement missing its colon:
 * its simple statements go to `out` when they are valid (returns true).
 */
static bool parse_match(Parser *p, NodeList *out) {
  Token *keyword = peek(p);
  Node *subject = NULL;
  if (!attempt(p, parse_match_head, &subject)) {
    int pos = p->pos;
    if (!attempt(p, parse_match_missing_colon, NULL))
      return false;
    p->pos = pos;
    NodeList line = {0};
    if (attempt(p, parse_simple_statements_attempt, &line)) {
      for (int i = 0; i < line.count; i++)
        parser_push(p, out, line.items[i]);
      return true;
    }
    attempt(p, parse_match_missing_colon, NULL);
    parse_error_at(p, peek(p), "expected ':'");
  }
  Node *node = parser_new_node(p, N_MATCH, keyword);
  node->u.match.subject = subject;
  parser_advance(p); /* : */
  parser_advance(p); /* NEWLINE */
  if (!at_kind(p, TOK_INDENT))
    parse_error_at(p, missing_at(p), "expected an indented block after 'match' statement on line %d",
                   keyword->span.start.line);
  parser_advance(p);
  parser_enter_rule(p);
  do
    parser_push(p, &node->u.match.cases, parse_case_block(p));
  while (!at_kind(p, TOK_DEDENT) && !at_kind(p, TOK_EOF));
  parser_leave_rule(p);
  if (at_kind(p, TOK_DEDENT))
    parser_advance(p);
  end_at_last(node, &node->u.match.cases);
  parser_push(p, out, node);
  return true;
}

/* -------------------------------------------------------------- statements */

/*
 * statement: compound_stmt | simple_stmts
 * compound_stmt:
 *     | &('def' | '@' | 'async') function_def | &'if' if_stmt
 *     | &('class' | '@') class_def | &('with' | 'async') with_stmt
 *     | &('for' | 'async') for_stmt | &'try' try_stmt | &'while' while_stmt
 *     | match_stmt
 *
 * Appends the statement (or the simple statements of the line) to `out`.
 */
static void parse_statement(Parser *p, NodeList *out) {
  parser_enter_rule(p);
  Token *t = peek(p);
  Node *node = NULL;
  if (t->kind == TOK_INDENT)
    unexpected_indent(p, t);
  if (t->kind == TOK_OP && t->op == OP_AT) {
    NodeList decorators = {0};
    parse_decorators(p, &decorators);
    node = parse_definition(p, decorators);
  } else if (t->kind == TOK_NAME) {
    switch (t->keyword) {
    case KW_DEF: node = parse_function_def(p, t, (NodeList){0}); break;
    case KW_CLASS: node = parse_class_def(p, (NodeList){0}); break;
    case KW_IF: node = parse_if(p); break;
    case KW_WHILE: node = parse_while(p); break;
    case KW_FOR: node = parse_for(p, t); break;
    case KW_WITH: node = parse_with(p, t); break;
    case KW_TRY: node = parse_try(p); break;
    case KW_ASYNC: node = parse_async_statement(p); break;
    case KW_NONE:
      if (parser_token_is(t, "match") && parse_match(p, out)) {
        parser_leave_rule(p);
        return;
      }
      break;
    default: break;
    }
  }
  if (node)
    parser_push(p, out, node);
  else
    parse_simple_statements(p, out);
  parser_leave_rule(p);
}

/* file: [statements] ENDMARKER */
ParseResult parse_module(Context *ctx) {
  ParseResult result = {0};
  result.tokens = tokenize(ctx);
  Parser parser = {ctx, result.tokens.tokens, result.tokens.count, 0, 0};
  Parser *p = &parser;
  Node *module = parser_new_node_at(p, N_MODULE, (Pos){1, 0, 0});
  while (!at_kind(p, TOK_EOF))
    parse_statement(p, &module->u.module.body);
  parser_end_node(p, module);
  result.module = module;
  return result;
}
