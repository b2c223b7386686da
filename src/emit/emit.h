/*
 * emit.h — the emitter's internal API, shared by its files and by later
 * stages that write Python (the Triton converter):
 *
 *   emit_layout.c  lines, indentation, comments and blank lines
 *   emit_expr.c    expressions with their precedence, f-strings, call and
 *                  parameter lists, comprehensions, match patterns
 *   emit_python.c  statements, blocks, clauses, the module entry point
 *   emit_convert.c a converted module: untouched statements copied from the
 *                  source as written, rewritten ones from the tree
 *
 * An Emitter writes into a Buf. Built with emitter_init over a parsed module
 * it also re-inserts the source's comments and blank lines; built with
 * emitter_init_bare it writes synthesized trees (spans all zero) without any.
 */
#ifndef C2T_EMIT_H
#define C2T_EMIT_H

#include "../c2t.h"

/* How tightly an expression binds, loosest first. A context asks for a
 * minimum level; a node below it is written inside parentheses. */
typedef enum Prec {
  PREC_NAMED,  /* x := y */
  PREC_YIELD,  /* yield x: the whole of an expression statement or assigned value */
  PREC_TUPLE,  /* a, b: return values, for targets and iterables, subscripts */
  PREC_TEST,   /* lambda, a if b else c: most single-expression contexts */
  PREC_OR,
  PREC_AND,
  PREC_NOT,
  PREC_CMP,    /* < > == >= <= != in, not in, is, is not */
  PREC_BOR,    /* | ; also the operand of * and ** unpacking in displays */
  PREC_BXOR,
  PREC_BAND,
  PREC_SHIFT,
  PREC_ARITH,  /* + - */
  PREC_TERM,   /* * / // % @ */
  PREC_FACTOR, /* unary + - ~ */
  PREC_POWER,  /* ** */
  PREC_AWAIT,
  PREC_ATOM,   /* names, literals, displays, calls, attributes, subscripts */
} Prec;

/* The lines of dropped branches (DroppedLines) in force while a function, or one version of
 * it, is written: a frame on the C stack, linked to the enclosing one. */
typedef struct EmitDropped {
  const DroppedLines *lines;
  const struct EmitDropped *outer;
} EmitDropped;

typedef struct Emitter {
  Context *ctx;       /* arena and diagnostics (depth errors) */
  Buf *out;
  int indent;         /* block depth; a level is four spaces */
  int depth;          /* nested emit calls, bounded by C2T_MAX_EMIT_DEPTH */

  /* Source layout, all empty for a bare emitter. */
  const char *text;   /* the source bytes */
  size_t text_len;
  const size_t *line_starts; /* byte offset of each line, index 0 is line 1 */
  int line_count;
  const Token *tokens;
  int token_count;
  const Comment *comments;
  int comment_count;
  int next_comment;   /* comments before this index have been written */
  const struct EmitDropped *dropped; /* converted: lines whose comments are left out here */
  Node *module;       /* the parsed module, or NULL */
  bool *in_debug_text; /* per comment, computed on first need (emit_layout.c) */
  int scan_token;     /* f-string nesting scan: next token, and depth there */
  int scan_depth;
  int token_hint;     /* last token looked up by offset */
  int last_line;      /* last source line the output has accounted for */
  bool block_start;   /* nothing written yet in the current block */

  /* Converted modules (emit_converted_module): statements the converter did
   * not touch are copied from the source as written; long argument lists of
   * the rest are broken one item per line. */
  bool converting;
  int wrap_depth;     /* extra indentation inside broken argument lists */
  int no_wrap;        /* > 0 inside f-strings, where lines cannot break */
  const Node *whole_value; /* the value an assignment writes or a return returns now, or an item
                            * alone on its line in a broken list: a conditional expression there
                            * past the line limit is broken at `if` and `else` */
  bool breaking_items;/* emit_arguments: one parameter per line */
  int params_end_line;/* while breaking a def's parameters: the source line of its
                       * `:`; the comments of the lines before it go with the
                       * parameters (0: no comments are written there) */
  int items_first_line;/* while writing a converted simple statement: its source lines; */
  int items_last_line; /* the comments of those lines go with the items of its broken
                       * lists (0: none, they stand above the statement) */
} Emitter;

/* The longest line the emitter writes before breaking an argument list. */
#define EMIT_LINE_LIMIT 100
/* Spaces per indentation level. */
#define EMIT_INDENT_WIDTH 4

/* ---- emit_layout.c */
void emitter_init(Emitter *e, Context *ctx, Buf *out, const ParseResult *parsed);
void emitter_init_bare(Emitter *e, Context *ctx, Buf *out);
void emit_text(Emitter *e, const char *text);
void emit_str(Emitter *e, Str s);
void emit_begin_line(Emitter *e); /* the current indentation */
void emit_end_line(Emitter *e);   /* a line break */
void emit_blank_line(Emitter *e);
void emit_enter(Emitter *e, const Node *node); /* depth + 1, error past the limit */
void emit_leave(Emitter *e);

/* Comments and blank lines around a statement or clause header whose text
 * starts on source line `first_line` and whose last line is `last_line`:
 * comments before `first_line` on their own lines (with the blank lines
 * between them when `keep_blank_lines`), the blank lines before the
 * statement, then the comments on its lines before `last_line`. */
void emit_comments_before(Emitter *e, int first_line, int last_line, bool keep_blank_lines);
/* The comments of a statement starting on `first_line` that stand on its lines above `line`,
 * each on a line of its own (those inside an f-string's debug text are the text's). */
void emit_comments_inside_before(Emitter *e, int first_line, int line);
/* The next comment, where it ends a source line above `line`, at the end of the output's line. */
void emit_trailing_comment_above(Emitter *e, int line);
/* Whether a comment not yet written stands on source lines first_line..last_line. */
bool emit_comment_within(const Emitter *e, int first_line, int last_line);
/* The comment at the end of source line `line`, if it is the next one:
 * "  # text". Call before emit_end_line. */
void emit_trailing_comment(Emitter *e, int line);
/* `text` as comment lines of its own, its words wrapped at the line limit. */
void emit_comment_lines(Emitter *e, const char *text);
/* Own-line comments after a block's last statement that belong to the
 * block: before `limit_line` and at column `block_col` or deeper. */
void emit_block_tail_comments(Emitter *e, int limit_line, int block_col);
/* Every comment not written yet, on its own line. */
void emit_remaining_comments(Emitter *e);
/* Line of the last token of the header that introduces `body_first`
 * (normally the `:`), and of the keyword before that `:` (`else`,
 * `finally`); 0 without tokens. */
int emit_header_last_line(Emitter *e, const Node *body_first);
/* The line of the `:` that ends the header of compound statement `stmt` (its first at
 * bracket depth 0 after the keyword, past those of lambdas), found forward: the body's
 * first statement may be one the converter dropped, so the header is not found backward
 * from the body. 0 when the source does not tell. */
int emit_header_colon_line(Emitter *e, const Node *stmt);
/* Whether comment `index` lies on lines a dropped branch held (left out of the output). */
bool emit_comment_dropped(const Emitter *e, int index);
int emit_clause_keyword_line(Emitter *e, const Node *body_first);
int emit_stmt_first_line(const Node *stmt); /* decorators included */

/* ---- emit_expr.c */
void emit_expr(Emitter *e, const Node *expr, Prec context);
void emit_named_expression(Emitter *e, const Node *expr); /* `x := y` bare, else as PREC_TEST */
void emit_arguments(Emitter *e, const Node *arguments, bool is_lambda); /* the text inside (...) */
/* One per line, trailing comma. With `header_line` > 0 (the source line of
 * the def's `:`) each parameter from the source keeps the comments of its
 * lines: those on their own lines above it, the trailing one after it. */
void emit_arguments_broken(Emitter *e, const Node *arguments, int header_line);
/* `a, *b, c=1, **d`: positional arguments first, then keywords. The call
 * form also writes a sole generator argument bare: `f(x for x in y)`. */
void emit_argument_list(Emitter *e, const NodeList *args, const NodeList *keywords);
void emit_call_arguments(Emitter *e, const Node *call); /* a call's args and keywords */
void emit_type_params(Emitter *e, const NodeList *params); /* `[T, *Ts, **P]`, nothing when empty */
void emit_pattern(Emitter *e, const Node *pattern, bool top_level);
const char *emit_ast_op_spelling(AstOp op);

/* ---- emit_python.c */
/* A statement on its own line(s); `next` is the following statement of the
 * same block (or NULL) and `limit_line` the first source line after the
 * statement that belongs to what follows it. */
void emit_stmt(Emitter *e, const Node *stmt, const Node *next, int limit_line);
void emit_stmts(Emitter *e, const NodeList *body, int limit_line);
/* A block one level deeper than the current one. */
void emit_block(Emitter *e, const NodeList *body, int limit_line);

/* ---- emit_convert.c: a converted module (see Emitter.converting) */
void emit_converted_module(Context *ctx, const ParseResult *parsed, Buf *out);
bool emit_verbatim_stmt(Emitter *e, const Node *stmt, const Node *next); /* false: emit from the tree */
bool emit_wants_break(Emitter *e, const NodeList *args, const NodeList *keywords, const Node *arguments,
                      int tail);
int emit_output_column(const Emitter *e); /* characters on the output's last line so far */

#endif /* C2T_EMIT_H */
