/*
 * c2t.h — the internal header of cutile2triton, shared by every stage.
 *
 * Sections, in pipeline order: limits, base (arena, buffer, diagnostics),
 * tokenize, syntax tree, parse, emit. Each stage lives in its own folder under
 * src/; the front end (tokenize, parse) and emit declare their entry points
 * here, the conversion stages (resolve, lower) in convert.h and
 * lower/lower.h. The public API is in include/cutile2triton.h.
 */
#ifndef C2T_INTERNAL_H
#define C2T_INTERNAL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cutile2triton.h"

/* ---------------------------------------------------------------- limits */

/* Explicit limits of the front end and the emitter (README.md, "Explicit
 * limits", has them all). Each one ends in a located C2T002 error
 * (diag_limit), never in a crash. */
#define C2T_MAX_SOURCE_BYTES   C2T_MAX_INPUT_BYTES /* one input file (include/cutile2triton.h) */
#define C2T_MAX_INDENT_LEVELS  100  /* as CPython's tokenizer (MAXINDENT) */
#define C2T_MAX_PAREN_LEVELS   200  /* as CPython's tokenizer (MAXLEVEL) */
#define C2T_MAX_FSTRING_LEVELS 150  /* nested f-strings (CPython: MAXFSTRINGLEVEL) */
#define C2T_MAX_PARSE_DEPTH    1000 /* nested rule calls in the parser */
#define C2T_MAX_EMIT_DEPTH     2000 /* nested nodes in the emitter */

/* ------------------------------------------------------------------ base */

/* Arena: every object of one run (tokens, nodes, strings) is allocated here
 * and released at once by arena_free. Allocation never returns NULL: when
 * memory runs out the run ends through the diagnostics jump. */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  ArenaBlock *head;
  jmp_buf *on_out_of_memory; /* where to jump when malloc fails; may be NULL (then abort) */
} Arena;

void arena_init(Arena *arena);
void *arena_alloc(Arena *arena, size_t size); /* zeroed, 16-byte aligned */
void *arena_alloc_raw(Arena *arena, size_t size); /* not cleared: for arrays filled before use */
/* Room for one more item in an arena table of `count` items of `size` bytes: `items` where it
 * has room, else a copy with twice the capacity (64 at first; the old block stays in the arena) */
void *arena_grown(Arena *arena, void *items, int count, int *capacity, size_t size);
char *arena_strndup(Arena *arena, const char *text, size_t length);
char *arena_printf(Arena *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(Arena *arena);

/* Buf: a growable byte buffer (malloc'd; the caller frees data or takes it). */
typedef struct Buf {
  char *data;
  size_t len;
  size_t cap;
} Buf;

void buf_put(Buf *buf, const char *text, size_t length);
void buf_puts(Buf *buf, const char *text);
void buf_putc(Buf *buf, char c);
void buf_printf(Buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(Buf *buf);
const char *buf_text(const Buf *buf); /* its text, "" while nothing was put (data NULL) */

/* A span of source text: 1-based lines, 0-based byte columns (as CPython's
 * col_offset), and byte offsets into the source. */
typedef struct Pos {
  int line;
  int col;
  size_t offset;
} Pos;

typedef struct Span {
  Pos start;
  Pos end;
} Span;

/* Source lines [first, last] whose comments a converted module leaves out: the lines of a
 * branch the converter dropped (a condition it decided), kept per function or per version. */
typedef struct DroppedLines {
  int (*ranges)[2];
  int count;
} DroppedLines;

typedef struct Source {
  const char *name; /* file name used in diagnostics */
  const char *text; /* the bytes, NUL-terminated copy owned by the arena */
  size_t len;
} Source;

/* Diagnostics. A stage reports an error with diag_error, which formats
 * "FILE:LINE:COL: error: C2Tnnn: MESSAGE", the source line and a caret into
 * `messages`, then longjmps to `on_error`. Columns printed are 1-based and
 * count characters, not bytes.
 *
 * Every error and warning carries a stable code (docs/diagnostics.md). The
 * code of plain diag_error calls is `code`, which the driver (api.c) sets per
 * stage; NULL means C2T_CODE_SYNTAX (the front end). Sites with a code of
 * their own (limits, encoding) use diag_error_code, or set `code` just
 * before calling a reporting wrapper (the error ends the run). */
#define C2T_CODE_SYNTAX   "C2T001" /* tokenizer and parser: invalid Python 3.12 */
#define C2T_CODE_LIMIT    "C2T002" /* an explicit limit was exceeded */
#define C2T_CODE_ENCODING "C2T003" /* encoding: BOM, coding cookie, UTF-8, NUL bytes */
#define C2T_CODE_NOT_CUTILE "C2T400" /* the module does not import cuda.tile */
#define C2T_CODE_MODULE   "C2T401" /* module level: cuda.tile imports the converter cannot follow */
#define C2T_CODE_TILE     "C2T402" /* tile code (kernels, tile functions): not convertible faithfully */
#define C2T_CODE_HOST     "C2T403" /* host code: launches, kernel options */
#define C2T_CODE_INTERNAL "C2T900" /* internal error of the converter */

typedef struct Diag {
  const Source *source;
  Buf messages;
  int error_count;
  jmp_buf on_error;
  const char *code; /* code of diag_error reports; NULL: C2T_CODE_SYNTAX */
} Diag;

_Noreturn void diag_error(Diag *diag, Pos at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
_Noreturn void diag_error_code(Diag *diag, const char *code, Pos at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_warning(Diag *diag, Pos at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The one report of an explicit limit (every C2T_MAX_* / *_MAX_* of the
 * sources): "too many WHAT (limit is LIMIT)", code C2T002, at the construct
 * that goes past it. `what` is plural: "kernels in one module". */
_Noreturn void diag_limit(Diag *diag, Pos at, const char *what, long long limit);

/* Everything one run needs; the stages receive a pointer to it. */
typedef struct Context {
  Arena arena;
  Diag diag;
  Source source;
} Context;

/* -------------------------------------------------------------- tokenize */

typedef enum TokenKind {
  TOK_EOF,
  TOK_NEWLINE,        /* end of a logical line */
  TOK_INDENT,
  TOK_DEDENT,
  TOK_NAME,           /* identifiers and keywords (see Token.keyword) */
  TOK_NUMBER,         /* every numeric literal form; text is the source spelling */
  TOK_STRING,         /* one string or bytes literal, prefix and quotes included */
  TOK_FSTRING_START,  /* f-string prefix and opening quote, e.g. `rf"""` */
  TOK_FSTRING_MIDDLE, /* literal text of an f-string, as spelled (`{{` stays `{{`) */
  TOK_FSTRING_END,    /* the closing quote of an f-string */
  TOK_OP,             /* operators and delimiters (see Token.op) */
} TokenKind;

/* Operators and delimiters. OP_EXCLAIM only occurs inside f-string fields. */
typedef enum OpKind {
  OP_NONE,
  OP_LPAR, OP_RPAR, OP_LSQB, OP_RSQB, OP_LBRACE, OP_RBRACE,
  OP_COMMA, OP_COLON, OP_SEMI, OP_DOT, OP_ELLIPSIS, OP_ARROW, OP_EXCLAIM,
  OP_PLUS, OP_MINUS, OP_STAR, OP_SLASH, OP_DSLASH, OP_PERCENT, OP_DSTAR, OP_AT,
  OP_LSHIFT, OP_RSHIFT, OP_AMPER, OP_VBAR, OP_CIRCUMFLEX, OP_TILDE,
  OP_LT, OP_GT, OP_LE, OP_GE, OP_EQEQ, OP_NE,
  OP_EQUAL, OP_COLONEQUAL,
  OP_PLUSEQ, OP_MINUSEQ, OP_STAREQ, OP_SLASHEQ, OP_DSLASHEQ, OP_PERCENTEQ,
  OP_DSTAREQ, OP_ATEQ, OP_LSHIFTEQ, OP_RSHIFTEQ, OP_AMPEREQ, OP_VBAREQ, OP_CIRCUMFLEXEQ,
  OP_COUNT
} OpKind;

/* Hard keywords. Soft keywords (match, case, type, _) are plain names. */
typedef enum Keyword {
  KW_NONE,
  KW_FALSE, KW_NONE_, KW_TRUE, KW_AND, KW_AS, KW_ASSERT, KW_ASYNC, KW_AWAIT,
  KW_BREAK, KW_CLASS, KW_CONTINUE, KW_DEF, KW_DEL, KW_ELIF, KW_ELSE, KW_EXCEPT,
  KW_FINALLY, KW_FOR, KW_FROM, KW_GLOBAL, KW_IF, KW_IMPORT, KW_IN, KW_IS,
  KW_LAMBDA, KW_NONLOCAL, KW_NOT, KW_OR, KW_PASS, KW_RAISE, KW_RETURN, KW_TRY,
  KW_WHILE, KW_WITH, KW_YIELD,
  KW_COUNT
} Keyword;

typedef struct Token {
  TokenKind kind;
  OpKind op;       /* TOK_OP: which operator */
  Keyword keyword; /* TOK_NAME: which hard keyword, KW_NONE for identifiers */
  const char *text; /* points into the source (or the arena) */
  int len;
  Span span;
} Token;

/* A comment, `#` included, without the line break. `own_line` is true when
 * only whitespace precedes it on its line. */
typedef struct Comment {
  const char *text;
  int len;
  Pos pos;
  bool own_line;
} Comment;

typedef struct TokenList {
  Token *tokens; /* ends with TOK_EOF */
  int count;
  Comment *comments; /* in source order */
  int comment_count;
} TokenList;

/* Tokenize the whole source. Checks the encoding (BOM, coding cookie, UTF-8
 * validity), indentation, bracket balance, literals; reports errors through
 * ctx->diag. */
TokenList tokenize(Context *ctx);

const char *op_spelling(OpKind op);
const char *keyword_spelling(Keyword kw);

/* ------------------------------------------------------------ syntax tree */

/* The tree mirrors CPython's `ast` module (3.12): one NodeKind per ast
 * class, fields named as there. Literals keep their source spelling, so
 * emitting a node writes back exactly what was read. */

typedef struct Node Node;

typedef struct NodeList {
  Node **items;
  int count;
  int capacity;
} NodeList;

/* Append to a list whose storage lives in the arena (grows by doubling). */
void node_list_push(Arena *arena, NodeList *list, Node *node);
/* Lines [first, last] added to `dropped` (their comments are not written with the function). */
void dropped_lines_add(Arena *arena, DroppedLines *dropped, int first, int last);

/* An identifier or a piece of source text. */
typedef struct Str {
  const char *text;
  int len;
} Str;

typedef enum NodeKind {
  N_MODULE,
  /* statements */
  N_FUNCTION_DEF, /* also async def: see is_async */
  N_CLASS_DEF,
  N_RETURN,
  N_DELETE,
  N_ASSIGN,
  N_TYPE_ALIAS,
  N_AUG_ASSIGN,
  N_ANN_ASSIGN,
  N_FOR,          /* also async for */
  N_WHILE,
  N_IF,           /* elif chains: orelse holds a single N_IF with is_elif set */
  N_WITH,         /* also async with */
  N_MATCH,
  N_RAISE,
  N_TRY,          /* also try/except* : see is_star */
  N_ASSERT,
  N_IMPORT,
  N_IMPORT_FROM,
  N_GLOBAL,
  N_NONLOCAL,
  N_EXPR_STMT,
  N_PASS,
  N_BREAK,
  N_CONTINUE,
  N_COMMENT,      /* converter only: a comment line `# text` (u.piece.text, without '#') */
  /* expressions */
  N_BOOL_OP,
  N_NAMED_EXPR,
  N_BIN_OP,
  N_UNARY_OP,
  N_LAMBDA,
  N_IF_EXP,
  N_DICT,
  N_SET,
  N_LIST_COMP,
  N_SET_COMP,
  N_DICT_COMP,
  N_GENERATOR_EXP,
  N_AWAIT,
  N_YIELD,
  N_YIELD_FROM,
  N_COMPARE,
  N_CALL,
  N_CONSTANT,     /* number, None, True, False, `...` (see constant_kind) */
  N_STRING,       /* implicitly concatenated pieces: N_STRING_TOKEN and N_FSTRING */
  N_STRING_TOKEN, /* one plain string/bytes literal token, prefix and quotes included */
  N_FSTRING,      /* one f-string literal: parts are N_FSTRING_TEXT / N_FORMATTED_VALUE */
  N_FSTRING_TEXT, /* literal text inside an f-string, as spelled */
  N_FORMATTED_VALUE,
  N_ATTRIBUTE,
  N_SUBSCRIPT,
  N_STARRED,
  N_NAME,
  N_LIST,
  N_TUPLE,
  N_SLICE,
  /* auxiliary */
  N_ARGUMENTS,
  N_ARG,
  N_KEYWORD,
  N_ALIAS,
  N_WITHITEM,
  N_EXCEPT_HANDLER,
  N_COMPREHENSION,
  N_MATCH_CASE,
  N_TYPE_VAR,
  N_PARAM_SPEC,
  N_TYPE_VAR_TUPLE,
  /* patterns */
  N_MATCH_VALUE,
  N_MATCH_SINGLETON,
  N_MATCH_SEQUENCE,
  N_MATCH_MAPPING,
  N_MATCH_CLASS,
  N_MATCH_STAR,
  N_MATCH_AS,
  N_MATCH_OR,
  N_KIND_COUNT
} NodeKind;

/* Operators of BinOp, AugAssign, UnaryOp, BoolOp and Compare. */
typedef enum AstOp {
  AOP_NONE,
  /* binary */
  AOP_ADD, AOP_SUB, AOP_MULT, AOP_MATMULT, AOP_DIV, AOP_MOD, AOP_POW,
  AOP_LSHIFT, AOP_RSHIFT, AOP_BITOR, AOP_BITXOR, AOP_BITAND, AOP_FLOORDIV,
  /* unary */
  AOP_INVERT, AOP_NOT, AOP_UADD, AOP_USUB,
  /* boolean */
  AOP_AND, AOP_OR,
  /* comparison */
  AOP_EQ, AOP_NOTEQ, AOP_LT, AOP_LTE, AOP_GT, AOP_GTE, AOP_IS, AOP_ISNOT, AOP_IN, AOP_NOTIN,
  AOP_COUNT
} AstOp;

typedef enum ConstantKind {
  CONST_NUMBER,   /* spelling in `text` (int, float, imaginary, any base, underscores) */
  CONST_NONE,
  CONST_TRUE,
  CONST_FALSE,
  CONST_ELLIPSIS,
} ConstantKind;

typedef enum ExprContext { CTX_LOAD, CTX_STORE, CTX_DEL } ExprContext;

struct Node {
  NodeKind kind;
  Span span;          /* all zero for nodes the converter synthesizes */
  bool parenthesized; /* expressions: written inside (...) in the source */
  bool rewritten;      /* the converter replaced or changed this node or something inside it */
  const char *note;    /* statements: a comment the converter puts at the end of the line, or NULL */
  struct TypeInfo *type; /* analyze: what an expression holds in a kernel (NULL before analysis) */
  union {
    struct { NodeList body; DroppedLines dropped; } module;     /* dropped: converted, module level */

    /* statements */
    struct {
      Str name;
      NodeList type_params; /* N_TYPE_VAR / N_PARAM_SPEC / N_TYPE_VAR_TUPLE */
      Node *args;           /* N_ARGUMENTS */
      NodeList body;
      NodeList decorator_list;
      Node *returns;        /* or NULL */
      bool is_async;
      bool replayed;        /* a copy of a def that stands elsewhere in the source (a dataclass
                               method's twin): written with that def's comments again */
      int comments_from;    /* a def moved before where it stood (a kernel's nested function):
                               the first line of its comments (those just above it too), which
                               the function it left does not write; 0 for any other def */
      DroppedLines dropped; /* converted: the lines of branches dropped in its body */
      const char *copied_from; /* a def copied from a sibling module (resolve_siblings.c): "PATH:LINE"
                                  where it stands there, which its errors name; NULL otherwise */
    } function_def;
    struct {
      Str name;
      NodeList type_params;
      NodeList bases;
      NodeList keywords;    /* N_KEYWORD */
      NodeList body;
      NodeList decorator_list;
    } class_def;
    struct { Node *value; } return_;       /* value may be NULL */
    struct { NodeList targets; } delete_;
    struct { NodeList targets; Node *value; } assign; /* a = b = value */
    struct { Node *name; NodeList type_params; Node *value; } type_alias;
    struct { Node *target; AstOp op; Node *value; } aug_assign;
    struct { Node *target; Node *annotation; Node *value; bool simple; } ann_assign;
    struct { Node *target; Node *iter; NodeList body; NodeList orelse; bool is_async; } for_;
    struct { Node *test; NodeList body; NodeList orelse; } while_;
    struct {
      Node *test;
      NodeList body;
      NodeList orelse;
      bool is_elif;
      bool versions;          /* converted: a function's versions per outcome of `test` */
      DroppedLines dropped[2]; /* versions: the lines each one dropped (body, orelse) */
    } if_;
    struct { NodeList items; NodeList body; bool is_async; } with; /* items: N_WITHITEM */
    struct { Node *subject; NodeList cases; } match;              /* cases: N_MATCH_CASE */
    struct { Node *exc; Node *cause; } raise;                     /* both may be NULL */
    struct {
      NodeList body;
      NodeList handlers; /* N_EXCEPT_HANDLER */
      NodeList orelse;
      NodeList finalbody;
      bool is_star;      /* except* */
    } try_;
    struct { Node *test; Node *msg; } assert_;
    struct { NodeList names; } import;                      /* N_ALIAS */
    struct { Str module; NodeList names; int level; } import_from; /* module.len == 0: none */
    struct { NodeList names; } global;                      /* N_NAME nodes (names only) */
    struct { Node *value; } expr_stmt;

    /* expressions */
    struct { AstOp op; NodeList values; } bool_op;
    struct { Node *target; Node *value; } named_expr;
    struct { Node *left; AstOp op; Node *right; } bin_op;
    struct { AstOp op; Node *operand; } unary_op;
    struct { Node *args; Node *body; } lambda;              /* args: N_ARGUMENTS */
    struct { Node *test; Node *body; Node *orelse; } if_exp;
    struct { NodeList keys; NodeList values; } dict;        /* key NULL: `**value` */
    struct { NodeList elts; } set;
    struct { Node *elt; NodeList generators; } comp;        /* list/set comp, genexp */
    struct { Node *key; Node *value; NodeList generators; } dict_comp;
    struct { Node *value; } await;
    struct { Node *value; } yield;                          /* N_YIELD (value may be NULL), N_YIELD_FROM */
    struct { Node *left; int count; AstOp *ops; Node **comparators; } compare;
    struct { Node *func; NodeList args; NodeList keywords; } call;
    struct { ConstantKind kind; Str text; } constant;
    struct {
      NodeList parts;   /* N_STRING_TOKEN and N_FSTRING, in source order */
      bool is_bytes;
    } string;
    struct { Str prefix_and_quote; NodeList parts; Str closing_quote; } fstring;
    struct { Str text; } piece; /* N_STRING_TOKEN (whole token) and N_FSTRING_TEXT (as spelled) */
    struct {
      Node *value;
      Str debug_text;    /* `{x = !r}`: the source text from after `{` through the `=` and the
                            blanks after it ("x = "), emitted verbatim in place of `value`;
                            len 0 when there is no `=` */
      int conversion;    /* -1, 's', 'r' or 'a' */
      Node *format_spec; /* N_FSTRING with no quotes (only parts), or NULL */
    } formatted_value;
    struct { Node *value; Str attr; ExprContext ctx; } attribute;
    struct { Node *value; Node *slice; ExprContext ctx; } subscript;
    struct { Node *value; ExprContext ctx; } starred;
    struct { Str id; ExprContext ctx; } name;
    struct { NodeList elts; ExprContext ctx; } list;        /* N_LIST and N_TUPLE */
    struct { Node *lower; Node *upper; Node *step; } slice;

    /* auxiliary */
    struct {
      NodeList posonlyargs; /* N_ARG */
      NodeList args;
      Node *vararg;         /* N_ARG or NULL */
      NodeList kwonlyargs;
      NodeList kw_defaults; /* parallel to kwonlyargs; items may be NULL */
      Node *kwarg;
      NodeList defaults;    /* for the last len(defaults) of posonlyargs + args */
    } arguments;
    struct { Str arg; Node *annotation; } arg;              /* annotation may be NULL */
    struct { Str arg; Node *value; } keyword;               /* arg.len == 0: `**value` */
    struct { Str name; Str asname; } alias;                 /* dotted name; asname.len 0: none */
    struct { Node *context_expr; Node *optional_vars; } withitem;
    struct { Node *type; Str name; NodeList body; } except_handler;
    struct { Node *target; Node *iter; NodeList ifs; bool is_async; } comprehension;
    struct { Node *pattern; Node *guard; NodeList body; } match_case;
    struct { Str name; Node *bound; } type_param;           /* TypeVar (bound may be NULL), ParamSpec, TypeVarTuple */

    /* patterns */
    struct { Node *value; } match_value;
    struct { ConstantKind value; } match_singleton;
    struct { NodeList patterns; } match_sequence;
    struct { NodeList keys; NodeList patterns; Str rest; } match_mapping;
    struct { Node *cls; NodeList patterns; NodeList kwd_attrs_nodes; NodeList kwd_patterns; } match_class; /* kwd_attrs_nodes: N_NAME */
    struct { Str name; } match_star;                        /* name.len 0: `*_` */
    struct { Node *pattern; Str name; } match_as;           /* pattern NULL and name 0: `_` */
    struct { NodeList patterns; } match_or;
  } u;
};

/* Call visit(child, data) for each direct child of node, in source order
 * (base/walk.c). */
typedef void (*NodeVisitor)(Node *child, void *data);
void node_children(Node *node, NodeVisitor visit, void *data);
/* The same with the address of each child, so that a visitor can replace it. */
typedef void (*SlotVisitor)(Node **slot, void *data);
void node_child_slots(Node *node, SlotVisitor visit, void *data);
/* A deep copy of a tree in the arena (its lists copied too): a tile
 * function lowered once per call signature starts from a copy each time. */
Node *node_copy_tree(Arena *arena, Node *node);
/* The text of a plain one-piece string literal ('name', "inf": no prefix, no triple quotes, no
 * escapes), a view into the token; an empty Str (len 0, text NULL) otherwise. */
Str node_plain_string(const Node *string);

/* Parse a whole module. Reports syntax errors through ctx->diag. The
 * returned N_MODULE and the token list (for comments) live in the arena. */
typedef struct ParseResult {
  Node *module;
  TokenList tokens;
} ParseResult;

ParseResult parse_module(Context *ctx);

const char *node_kind_name(NodeKind kind);

/* ------------------------------------------------------------------ emit */

/* Write a module back as Python source: statements one per line with
 * four-space indentation, comments at their places, literals as spelled,
 * parentheses where the source had them or precedence needs them. */
void emit_python_module(Context *ctx, const ParseResult *parsed, Buf *out);

#endif /* C2T_INTERNAL_H */
