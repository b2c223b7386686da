/*
 * parse_expr_internal.h — shared by the expression parser's files
 * (parse_expr.c, parse_expr_string.c, parse_expr_args.c,
 * parse_expr_target.c); the rest of the parser uses parser.h.
 */
#ifndef C2T_PARSE_EXPR_INTERNAL_H
#define C2T_PARSE_EXPR_INTERNAL_H

#include "parser.h"

/* parse_expr.c */
bool parser_starts_expression(Parser *p);
Token *parser_expect_closing(Parser *p, OpKind closing, const Node *last);
Node *parser_finish_node(Parser *p, Node *node);
Node *parse_lambdef(Parser *p);
Node *parse_star_expression(Parser *p);       /* '*' bitwise_or | expression */
Node *parse_star_named_expression(Parser *p); /* '*' bitwise_or | named_expression */
Node *parse_starred_expression(Parser *p);    /* '*' expression */
Node *parse_atom(Parser *p);
Node *parse_named_expression_in_call(Parser *p); /* named_expression that leaves a following '=' alone */
/* element (',' element)* [','], a Tuple when there is a comma */
Node *parse_comma_sequence(Parser *p, Node *(*element)(Parser *));

/* parse_expr_string.c */
Node *parse_strings(Parser *p); /* one or more adjacent string / f-string literals */

/* parse_expr_target.c */
void parse_for_if_clauses(Parser *p, NodeList *generators);
bool may_be_comparison_target(const Node *target);
bool single_bitwise_or_follows(Parser *p, int index);

#endif /* C2T_PARSE_EXPR_INTERNAL_H */
