/*
 * tokenize_internal.h — shared by the tokenize stage's files:
 *
 *   tokenize.c           the driver: indentation, names, operators, brackets,
 *                        comments, the f-string mode stack, token storage
 *   tokenize_encoding.c  BOM, coding cookie, NUL bytes, UTF-8 validation
 *   tokenize_literal.c   numbers, strings, f-string literal parts, escapes
 *
 * The tokenizer follows CPython 3.12's Parser/tokenizer.c. The source is
 * NUL-terminated and NUL bytes inside it are rejected before tokenizing, so
 * `src[len] == '\0'` is the end-of-input sentinel: every scanning loop stops
 * at a NUL and never advances past it.
 */
#ifndef C2T_TOKENIZE_INTERNAL_H
#define C2T_TOKENIZE_INTERNAL_H

#include "../c2t.h"

/* CPython's MAX_EXPR_NESTING: replacement fields nested in format specs. */
#define FSTRING_MAX_FIELD_NESTING 3

typedef enum FStringPart {
  FSTRING_IN_LITERAL,    /* literal text or a format spec: tokenize_literal.c */
  FSTRING_IN_EXPRESSION, /* inside a replacement field: ordinary tokens */
} FStringPart;

/* One open f-string (CPython's tokenizer_mode). */
typedef struct FStringMode {
  FStringPart part;
  char quote;            /* ' or " */
  int quote_size;        /* 1 or 3 */
  bool raw;
  int bracket_depth;     /* brackets opened inside this f-string (curly_bracket_depth) */
  int field_depth;       /* bracket_depth at the current field's `{`, -1 outside fields
                            (curly_bracket_expr_start_depth) */
  Pos start;             /* of the FSTRING_START token */
} FStringMode;

typedef struct Lexer {
  Context *ctx;
  const char *src; /* NUL-terminated, no NUL inside */
  size_t len;
  size_t cur;        /* offset of the next unread byte */
  int line;          /* line of `cur` */
  size_t line_start; /* offset where that line starts */
  bool utf8;         /* UTF-8 source (validated); false for another codec */

  /* indentation (CPython's indstack / altindstack, tab size 8 and 1) */
  bool at_line_start;
  bool blank_line;
  bool line_has_tokens; /* a token since the last NEWLINE */
  int indent;
  int pending_indents;  /* > 0 INDENTs, < 0 DEDENTs to emit */
  int indent_cols[C2T_MAX_INDENT_LEVELS + 1];
  int indent_alt_cols[C2T_MAX_INDENT_LEVELS + 1];

  /* brackets */
  int level;
  char paren_chars[C2T_MAX_PAREN_LEVELS];
  Pos paren_pos[C2T_MAX_PAREN_LEVELS];

  /* open f-strings, innermost last */
  int fstring_count;
  FStringMode fstrings[C2T_MAX_FSTRING_LEVELS];

  /* The first invalid operator character (`$`, `?`, lone `!`, `<>`): CPython
   * reports "invalid syntax" for it from the parser, after checking the rest
   * of the source for tokenizer errors, which take precedence. So lexing
   * goes on; errors CPython raises outside the tokenizer (indentation, line
   * continuation, literal escapes) give way to this one. */
  bool has_deferred_error;
  Pos deferred_error_pos;

  /* output */
  Token *tokens;
  int token_count, token_capacity;
  Comment *comments;
  int comment_count, comment_capacity;
} Lexer;

/* ---- tokenize.c */
Pos lexer_pos(const Lexer *lx);                    /* position of `cur` */
Pos lexer_pos_at(const Lexer *lx, size_t offset);  /* offset on the current line */
Token *lexer_emit(Lexer *lx, TokenKind kind, Pos start);  /* token from start to cur */
/* Before an error CPython raises outside its tokenizer: report the deferred
 * "invalid syntax" instead, when there is one. */
void lexer_yield_to_deferred_error(Lexer *lx);
/* Consume a line break at `cur` (\n, \r\n or \r); false when none is there. */
bool lexer_skip_newline(Lexer *lx);
static inline bool is_newline_char(char c) { return c == '\n' || c == '\r'; }
static inline bool is_digit_char(char c) { return c >= '0' && c <= '9'; }
static inline bool is_ascii_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static inline bool is_name_char(char c) { return is_ascii_name_char(c) || (unsigned char)c >= 0x80; }

/* ---- tokenize_encoding.c */
/* Check the encoding (BOM, cookie, NUL bytes, UTF-8 validity); set lx->utf8;
 * return the offset where tokens start (after a BOM). */
size_t check_source_encoding(Lexer *lx);
/* Decode the valid UTF-8 sequence at `text`; *length gets its byte count. */
uint32_t decode_utf8(const char *text, int *length);

/* ---- tokenize_literal.c */
void lex_number(Lexer *lx, Pos start); /* cur at the first digit, or at '.' before a digit */
/* A string or bytes literal: prefix in src[start.offset, cur), cur at the quote. */
void lex_string(Lexer *lx, Pos start, bool raw, bool bytes);
/* Literal text / format spec of the innermost f-string (part == FSTRING_IN_LITERAL). */
void lex_fstring_literal(Lexer *lx);

#endif /* C2T_TOKENIZE_INTERNAL_H */
