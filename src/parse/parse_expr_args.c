/*
 * parse_expr_args.c — call arguments, and the parameter lists of `def` and
 * `lambda`, with CPython's ordering rules and messages.
 */
#include "parse_expr_internal.h"

/* ---------------------------------------------------------- call arguments */

/* Where a call's arguments stand, for the ordering rules. */
typedef struct ArgumentState {
  bool seen_keyword;      /* a `name=value` */
  bool seen_double_star;  /* a `**mapping` */
} ArgumentState;

/* kwarg: NAME '=' expression (the current token is the NAME). */
static Node *parse_keyword_argument(Parser *p) {
  Token *name = parser_advance(p);
  Node *node = parser_new_node(p, N_KEYWORD, name);
  node->u.keyword.arg = parser_token_str(name);
  parser_expect_op(p, OP_EQUAL);
  node->u.keyword.value = parse_expression(p);
  return parser_finish_node(p, node);
}

/* '**' expression, a keyword without a name. */
static Node *parse_double_starred_argument(Parser *p) {
  Token *start = parser_expect_op(p, OP_DSTAR);
  Node *node = parser_new_node(p, N_KEYWORD, start);
  node->u.keyword.value = parse_expression(p);
  return parser_finish_node(p, node);
}

/* A positional argument: (assignment_expression | expression !':=') !'=',
 * or the generator expression that is a call's only argument. */
static Node *parse_positional_argument(Parser *p, Node *call) {
  Token *start = peek(p);
  Node *value = parse_named_expression_in_call(p);
  if (at_op(p, OP_EQUAL)) {
    if (value->kind == N_CONSTANT && !value->parenthesized && value->u.constant.kind != CONST_NUMBER &&
        value->u.constant.kind != CONST_ELLIPSIS)
      parse_error_node(p, value, "cannot assign to %s", parser_expr_name(value));
    parse_error_node(p, value, "expression cannot contain assignment, perhaps you meant \"==\"?");
  }
  if (!at_keyword(p, KW_FOR) && !at_keyword(p, KW_ASYNC))
    return value;
  Node *genexp = parser_new_node(p, N_GENERATOR_EXP, start);
  genexp->u.comp.elt = value;
  parse_for_if_clauses(p, &genexp->u.comp.generators);
  parser_finish_node(p, genexp);
  bool alone = call->u.call.args.count == 0 && call->u.call.keywords.count == 0 && at_op(p, OP_RPAR);
  if (!alone)
    parse_error_node(p, genexp, "Generator expression must be parenthesized");
  return genexp;
}

/* arguments (after the '(' of a call, up to and including ')'):
 *     args [','] &')'
 * args:
 *     | ','.(starred_expression | (assignment_expression | expression !':=') !'=')+
 *       [',' kwargs ]
 *     | kwargs
 * kwargs: kwarg_or_starred (',' kwarg_or_starred)* [',' kwarg_or_double_starred ...]
 * kwarg_or_starred: NAME '=' expression | starred_expression
 * kwarg_or_double_starred: NAME '=' expression | '**' expression */
void parse_call_arguments(Parser *p, Node *call) {
  Token *open = parser_previous(p);
  ArgumentState state = {false, false};
  Node *last = NULL;
  while (!at_op(p, OP_RPAR)) {
    Token *t = peek(p);
    Token *next = parser_peek_at(p, 1);
    bool keyword_form = t->kind == TOK_NAME && next->kind == TOK_OP && next->op == OP_EQUAL;
    if (at_op(p, OP_STAR)) {
      if (state.seen_double_star)
        parse_error_at(p, t, "iterable argument unpacking follows keyword argument unpacking");
      last = parse_starred_expression(p);
      parser_push(p, &call->u.call.args, last);
    } else if (at_op(p, OP_DSTAR)) {
      last = parse_double_starred_argument(p);
      parser_push(p, &call->u.call.keywords, last);
      state.seen_double_star = true;
    } else if (keyword_form && t->keyword == KW_NONE) {
      last = parse_keyword_argument(p);
      parser_push(p, &call->u.call.keywords, last);
      state.seen_keyword = true;
    } else if (keyword_form && (t->keyword == KW_TRUE || t->keyword == KW_FALSE || t->keyword == KW_NONE_)) {
      parse_error_at(p, t, "cannot assign to %.*s", t->len, t->text);
    } else {
      if (!parser_starts_expression(p))
        parse_error_invalid(p);
      last = parse_positional_argument(p, call);
      if (state.seen_double_star)
        parse_error_node(p, last, "positional argument follows keyword argument unpacking");
      if (state.seen_keyword)
        parse_error_node(p, last, "positional argument follows keyword argument");
      parser_push(p, &call->u.call.args, last);
    }
    if (!parser_accept_op(p, OP_COMMA))
      break;
  }
  parser_expect_closing(p, OP_RPAR, last);
  /* `f(x for x in y)`: the generator's span takes the call's parentheses, as in CPython. */
  if (last && last->kind == N_GENERATOR_EXP && !last->parenthesized && call->u.call.args.count == 1) {
    last->span.start = open->span.start;
    last->span.end = parser_previous(p)->span.end;
  }
}

/* ------------------------------------------------------------- parameters */

/* Where a parameter list stands, for the ordering rules. */
typedef struct ParameterState {
  bool is_lambda;
  bool seen_slash;
  bool seen_default;   /* a positional parameter with a default */
  Token *star;         /* the `*` or `*args`, NULL before it */
  bool bare_star;      /* the `*` had no name */
} ParameterState;

/* param: NAME annotation?   (lambda_param: NAME)
 * star_annotation (after `*name` in a def): ':' star_expression */
static Node *parse_param(Parser *p, const ParameterState *state, bool allow_star_annotation) {
  if (at_op(p, OP_LPAR))
    parse_error_at(p, peek(p), state->is_lambda ? "Lambda expression parameters cannot be parenthesized"
                                                : "Function parameters cannot be parenthesized");
  if (!parser_at_name(p))
    parse_error_invalid(p);
  Token *name = parser_advance(p);
  Node *node = parser_new_node(p, N_ARG, name);
  node->u.arg.arg = parser_token_str(name);
  if (!state->is_lambda && parser_accept_op(p, OP_COLON))
    node->u.arg.annotation = allow_star_annotation ? parse_star_expression(p) : parse_expression(p);
  return parser_finish_node(p, node);
}

/* '/' after the positional-only parameters. */
static void parse_slash(Parser *p, Node *args, ParameterState *state) {
  Token *slash = parser_advance(p);
  if (args->u.arguments.args.count == 0 && !state->seen_slash && !state->star) {
    if (at_op(p, OP_COMMA))
      parse_error_at(p, slash, "at least one argument must precede /");
    parse_error_at(p, slash, "invalid syntax");
  }
  if (state->seen_slash)
    parse_error_at(p, slash, "/ may appear only once");
  if (state->star)
    parse_error_at(p, slash, "/ must be ahead of *");
  args->u.arguments.posonlyargs = args->u.arguments.args;
  args->u.arguments.args = (NodeList){0};
  state->seen_slash = true;
}

/* '*' [param]: the start of the keyword-only parameters. */
static void parse_star_param(Parser *p, Node *args, ParameterState *state) {
  Token *star = parser_advance(p);
  if (state->star)
    parse_error_at(p, star, "* argument may appear only once");
  state->star = star;
  if (at_op(p, OP_COMMA) || at_op(p, state->is_lambda ? OP_COLON : OP_RPAR)) {
    state->bare_star = true;
    return;
  }
  args->u.arguments.vararg = parse_param(p, state, true);
  if (at_op(p, OP_EQUAL))
    parse_error_at(p, peek(p), "var-positional argument cannot have default value");
}

/* '**' param: the last parameter. */
static void parse_double_star_param(Parser *p, Node *args, ParameterState *state) {
  parser_advance(p);
  args->u.arguments.kwarg = parse_param(p, state, false);
  if (at_op(p, OP_EQUAL))
    parse_error_at(p, peek(p), "var-keyword argument cannot have default value");
}

/* param [default], positional or (after the star) keyword-only. */
static void parse_plain_param(Parser *p, Node *args, ParameterState *state) {
  Node *arg = parse_param(p, state, false);
  Node *value = NULL;
  if (parser_accept_op(p, OP_EQUAL)) {
    if (!parser_starts_expression(p) || at_op(p, OP_STAR))
      parse_error_invalid(p);
    value = parse_expression(p);
  }
  if (state->star) {
    parser_push(p, &args->u.arguments.kwonlyargs, arg);
    parser_push(p, &args->u.arguments.kw_defaults, value);
    return;
  }
  if (value) {
    parser_push(p, &args->u.arguments.defaults, value);
    state->seen_default = true;
  } else if (state->seen_default) {
    parse_error_node(p, arg, "parameter without a default follows parameter with a default");
  }
  parser_push(p, &args->u.arguments.args, arg);
}

/* parameters (def) and lambda_params, up to (not including) `closing`:
 *     slash_no_default param_no_default* param_with_default* [star_etc]
 *   | slash_with_default param_with_default* [star_etc]
 *   | param_no_default+ param_with_default* [star_etc]
 *   | param_with_default+ [star_etc]
 *   | star_etc
 * star_etc:
 *     | '*' param_no_default param_maybe_default* [kwds]
 *     | '*' param_no_default_star_annotation param_maybe_default* [kwds]
 *     | '*' ',' param_maybe_default+ [kwds]
 *     | kwds
 * kwds: '**' param_no_default */
Node *parse_parameters(Parser *p, bool is_lambda, OpKind closing) {
  int start_pos = p->pos;
  Node *args = parser_new_node(p, N_ARGUMENTS, peek(p));
  ParameterState state = {is_lambda, false, false, NULL, false};
  while (!at_op(p, closing)) {
    if (args->u.arguments.kwarg)
      parse_error_at(p, peek(p), "arguments cannot follow var-keyword argument");
    if (at_op(p, OP_SLASH))
      parse_slash(p, args, &state);
    else if (at_op(p, OP_STAR))
      parse_star_param(p, args, &state);
    else if (at_op(p, OP_DSTAR))
      parse_double_star_param(p, args, &state);
    else
      parse_plain_param(p, args, &state);
    if (!parser_accept_op(p, OP_COMMA))
      break;
  }
  if (state.bare_star && args->u.arguments.kwonlyargs.count == 0)
    parse_error_at(p, state.star, "named arguments must follow bare *");
  if (!at_op(p, closing))
    parse_error_invalid(p);
  if (p->pos > start_pos)
    parser_end_node(p, args);
  return args;
}
