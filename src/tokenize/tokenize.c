/*
 * tokenize.c — the Python 3.12 tokenizer (CPython's Parser/tokenizer.c).
 *
 * One pass over the source bytes builds the token array and the comment
 * array in the arena. This file holds the driver and everything of the
 * "regular" mode: line starts and indentation, comments, names and
 * keywords, operators, brackets, line continuations, and the f-string mode
 * stack (PEP 701); literals are in tokenize_literal.c, the encoding checks
 * in tokenize_encoding.c.
 */
#include <stdio.h>
#include <string.h>

#include "tokenize_internal.h"
#include "unicode_xid.h"

#define TAB_SIZE 8
#define ALT_TAB_SIZE 1
#define TOKENS_INITIAL_MAX (1 << 20) /* initial token array: at most 64 MiB */

/* ------------------------------------------------------------ spellings */

static const char *const OP_SPELLINGS[OP_COUNT] = {
    [OP_NONE] = "", [OP_LPAR] = "(", [OP_RPAR] = ")", [OP_LSQB] = "[", [OP_RSQB] = "]",
    [OP_LBRACE] = "{", [OP_RBRACE] = "}", [OP_COMMA] = ",", [OP_COLON] = ":", [OP_SEMI] = ";",
    [OP_DOT] = ".", [OP_ELLIPSIS] = "...", [OP_ARROW] = "->", [OP_EXCLAIM] = "!", [OP_PLUS] = "+",
    [OP_MINUS] = "-", [OP_STAR] = "*", [OP_SLASH] = "/", [OP_DSLASH] = "//", [OP_PERCENT] = "%",
    [OP_DSTAR] = "**", [OP_AT] = "@", [OP_LSHIFT] = "<<", [OP_RSHIFT] = ">>", [OP_AMPER] = "&",
    [OP_VBAR] = "|", [OP_CIRCUMFLEX] = "^", [OP_TILDE] = "~", [OP_LT] = "<", [OP_GT] = ">",
    [OP_LE] = "<=", [OP_GE] = ">=", [OP_EQEQ] = "==", [OP_NE] = "!=", [OP_EQUAL] = "=",
    [OP_COLONEQUAL] = ":=", [OP_PLUSEQ] = "+=", [OP_MINUSEQ] = "-=", [OP_STAREQ] = "*=",
    [OP_SLASHEQ] = "/=", [OP_DSLASHEQ] = "//=", [OP_PERCENTEQ] = "%=", [OP_DSTAREQ] = "**=",
    [OP_ATEQ] = "@=", [OP_LSHIFTEQ] = "<<=", [OP_RSHIFTEQ] = ">>=", [OP_AMPEREQ] = "&=",
    [OP_VBAREQ] = "|=", [OP_CIRCUMFLEXEQ] = "^=",
};

static const char *const KEYWORD_SPELLINGS[KW_COUNT] = {
    [KW_NONE] = "", [KW_FALSE] = "False", [KW_NONE_] = "None", [KW_TRUE] = "True", [KW_AND] = "and",
    [KW_AS] = "as", [KW_ASSERT] = "assert", [KW_ASYNC] = "async", [KW_AWAIT] = "await",
    [KW_BREAK] = "break", [KW_CLASS] = "class", [KW_CONTINUE] = "continue", [KW_DEF] = "def",
    [KW_DEL] = "del", [KW_ELIF] = "elif", [KW_ELSE] = "else", [KW_EXCEPT] = "except",
    [KW_FINALLY] = "finally", [KW_FOR] = "for", [KW_FROM] = "from", [KW_GLOBAL] = "global",
    [KW_IF] = "if", [KW_IMPORT] = "import", [KW_IN] = "in", [KW_IS] = "is", [KW_LAMBDA] = "lambda",
    [KW_NONLOCAL] = "nonlocal", [KW_NOT] = "not", [KW_OR] = "or", [KW_PASS] = "pass",
    [KW_RAISE] = "raise", [KW_RETURN] = "return", [KW_TRY] = "try", [KW_WHILE] = "while",
    [KW_WITH] = "with", [KW_YIELD] = "yield",
};

const char *op_spelling(OpKind op) { return op > OP_NONE && op < OP_COUNT ? OP_SPELLINGS[op] : "?"; }

const char *keyword_spelling(Keyword kw) { return kw > KW_NONE && kw < KW_COUNT ? KEYWORD_SPELLINGS[kw] : "?"; }

/* The hard keyword spelled text[0..length), or KW_NONE. Keywords are 2 to 8
 * characters and start with a lowercase letter or F, N, T. */
static Keyword keyword_of(const char *text, int length) {
  if (length < 2 || length > 8)
    return KW_NONE;
  char first = text[0];
  if (!((first >= 'a' && first <= 'y') || first == 'F' || first == 'N' || first == 'T'))
    return KW_NONE;
  for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++) {
    const char *spelling = KEYWORD_SPELLINGS[kw];
    if (spelling[0] == first && (int)strlen(spelling) == length && memcmp(spelling, text, (size_t)length) == 0)
      return (Keyword)kw;
  }
  return KW_NONE;
}

/* ------------------------------------------------------------ positions */

Pos lexer_pos(const Lexer *lx) {
  Pos pos = {lx->line, (int)(lx->cur - lx->line_start), lx->cur};
  return pos;
}

Pos lexer_pos_at(const Lexer *lx, size_t offset) {
  size_t clamped = offset < lx->line_start ? lx->line_start : offset;
  Pos pos = {lx->line, (int)(clamped - lx->line_start), clamped};
  return pos;
}

bool lexer_skip_newline(Lexer *lx) {
  char c = lx->src[lx->cur];
  if (c == '\n') {
    lx->cur++;
  } else if (c == '\r') {
    lx->cur += lx->src[lx->cur + 1] == '\n' ? 2 : 1;
  } else {
    return false;
  }
  lx->line++;
  lx->line_start = lx->cur;
  return true;
}

static _Noreturn void lex_error_at(Lexer *lx, size_t offset, const char *message) {
  diag_error(&lx->ctx->diag, lexer_pos_at(lx, offset), "%s", message);
}

void lexer_yield_to_deferred_error(Lexer *lx) {
  if (lx->has_deferred_error)
    diag_error(&lx->ctx->diag, lx->deferred_error_pos, "invalid syntax");
}

static void defer_invalid_syntax(Lexer *lx, Pos at) {
  if (!lx->has_deferred_error) {
    lx->has_deferred_error = true;
    lx->deferred_error_pos = at;
  }
}

/* At the end of input inside brackets: "'(' was never closed", unless an
 * invalid character came first on a line at or before the bracket's. */
static _Noreturn void unclosed_bracket_error(Lexer *lx) {
  Pos open = lx->paren_pos[lx->level - 1];
  if (lx->has_deferred_error && lx->deferred_error_pos.line <= open.line)
    lexer_yield_to_deferred_error(lx);
  diag_error(&lx->ctx->diag, open, "'%c' was never closed", lx->paren_chars[lx->level - 1]);
}

/* --------------------------------------------------------------- output */

Token *lexer_emit(Lexer *lx, TokenKind kind, Pos start) {
  if (lx->token_count == lx->token_capacity) {
    int capacity = lx->token_capacity * 2;
    Token *tokens = arena_alloc_raw(&lx->ctx->arena, sizeof(Token) * (size_t)capacity);
    memcpy(tokens, lx->tokens, sizeof(Token) * (size_t)lx->token_count);
    lx->tokens = tokens;
    lx->token_capacity = capacity;
  }
  Token *token = &lx->tokens[lx->token_count++];
  token->kind = kind;
  token->op = OP_NONE;
  token->keyword = KW_NONE;
  token->text = lx->src + start.offset;
  token->len = (int)(lx->cur - start.offset);
  token->span.start = start;
  token->span.end = lexer_pos(lx);
  if (kind != TOK_NEWLINE && kind != TOK_INDENT && kind != TOK_DEDENT && kind != TOK_EOF)
    lx->line_has_tokens = true;
  return token;
}

static void lexer_add_comment(Lexer *lx, Pos start, bool own_line) {
  if (lx->comment_count == lx->comment_capacity) {
    int capacity = lx->comment_capacity ? lx->comment_capacity * 2 : 64;
    Comment *comments = arena_alloc_raw(&lx->ctx->arena, sizeof(Comment) * (size_t)capacity);
    if (lx->comment_count)
      memcpy(comments, lx->comments, sizeof(Comment) * (size_t)lx->comment_count);
    lx->comments = comments;
    lx->comment_capacity = capacity;
  }
  Comment *comment = &lx->comments[lx->comment_count++];
  comment->text = lx->src + start.offset;
  comment->len = (int)(lx->cur - start.offset);
  comment->pos = start;
  comment->own_line = own_line;
}

/* ------------------------------------------------------ line continuation */

/* After a backslash outside strings (cur just past it): consume the line
 * break, as CPython's tok_continuation_line. */
static void skip_line_continuation(Lexer *lx) {
  Pos after_backslash = lexer_pos(lx);
  bool newline = lexer_skip_newline(lx);
  if (lx->cur >= lx->len) {
    if (lx->level > 0)
      unclosed_bracket_error(lx);
    lexer_yield_to_deferred_error(lx);
    diag_error(&lx->ctx->diag, after_backslash, "unexpected EOF while parsing");
  }
  if (!newline) {
    lexer_yield_to_deferred_error(lx);
    lex_error_at(lx, lx->cur, "unexpected character after line continuation character");
  }
}

/* ---------------------------------------------------------- indentation */

static _Noreturn void indentation_error(Lexer *lx, size_t offset, const char *message) {
  lexer_yield_to_deferred_error(lx);
  lex_error_at(lx, offset, message);
}

/* Compare the new line's columns with the indentation stack (CPython's
 * tok_get, atbol part) and record pending INDENT/DEDENT tokens. */
static void apply_indentation(Lexer *lx, int col, int alt_col) {
  size_t content = lx->cur;
  if (col == lx->indent_cols[lx->indent]) {
    if (alt_col != lx->indent_alt_cols[lx->indent])
      indentation_error(lx, lx->line_start, "inconsistent use of tabs and spaces in indentation");
  } else if (col > lx->indent_cols[lx->indent]) {
    if (lx->indent + 1 >= C2T_MAX_INDENT_LEVELS) { /* CPython's count includes the top level */
      lexer_yield_to_deferred_error(lx);
      diag_limit(&lx->ctx->diag, lexer_pos_at(lx, content), "levels of indentation", C2T_MAX_INDENT_LEVELS - 1);
    }
    if (alt_col <= lx->indent_alt_cols[lx->indent])
      indentation_error(lx, lx->line_start, "inconsistent use of tabs and spaces in indentation");
    lx->pending_indents++;
    lx->indent++;
    lx->indent_cols[lx->indent] = col;
    lx->indent_alt_cols[lx->indent] = alt_col;
  } else {
    while (lx->indent > 0 && col < lx->indent_cols[lx->indent]) {
      lx->pending_indents--;
      lx->indent--;
    }
    if (col != lx->indent_cols[lx->indent])
      indentation_error(lx, content, "unindent does not match any outer indentation level");
    if (alt_col != lx->indent_alt_cols[lx->indent])
      indentation_error(lx, lx->line_start, "inconsistent use of tabs and spaces in indentation");
  }
}

/* At the start of a physical line: measure the indentation, decide whether
 * the line is blank (whitespace and comments only), update the stack. */
static void lex_line_start(Lexer *lx) {
  int col = 0, alt_col = 0, continuation_col = 0;
  lx->at_line_start = false;
  for (;;) {
    char c = lx->src[lx->cur];
    if (c == ' ') {
      col++;
      alt_col++;
    } else if (c == '\t') {
      col = (col / TAB_SIZE + 1) * TAB_SIZE;
      alt_col = (alt_col / ALT_TAB_SIZE + 1) * ALT_TAB_SIZE;
    } else if (c == '\f') {
      col = alt_col = 0;
    } else if (c == '\\') {
      continuation_col = continuation_col ? continuation_col : col;
      lx->cur++;
      skip_line_continuation(lx);
      continue;
    } else {
      break;
    }
    lx->cur++;
  }
  char c = lx->src[lx->cur];
  lx->blank_line = c == '#' || is_newline_char(c) || lx->cur >= lx->len;
  if (!lx->blank_line && lx->level == 0) {
    if (continuation_col) {
      col = continuation_col;
      alt_col = continuation_col;
    }
    apply_indentation(lx, col, alt_col);
  }
}

static void emit_pending_indentation(Lexer *lx) {
  Pos here = lexer_pos(lx);
  while (lx->pending_indents < 0) {
    lexer_emit(lx, TOK_DEDENT, here);
    lx->pending_indents++;
  }
  if (lx->pending_indents > 0) {
    Pos line_start = lexer_pos_at(lx, lx->line_start);
    lexer_emit(lx, TOK_INDENT, line_start);
    lx->pending_indents = 0;
  }
}

/* ---------------------------------------------------------------- names */

static bool in_ranges(const UnicodeRange *table, size_t count, uint32_t c) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c < table[mid].first)
      hi = mid;
    else if (c > table[mid].last)
      lo = mid + 1;
    else
      return true;
  }
  return false;
}

#define TABLE_SIZE(t) (sizeof(t) / sizeof((t)[0]))

static _Noreturn void invalid_character(Lexer *lx, size_t offset, uint32_t c, int length) {
  Pos at = lexer_pos_at(lx, offset);
  bool printable = c >= 0x80 ? !in_ranges(UNICODE_NOT_PRINTABLE, TABLE_SIZE(UNICODE_NOT_PRINTABLE), c)
                             : (c >= 0x20 && c < 0x7F);
  if (printable)
    diag_error(&lx->ctx->diag, at, "invalid character '%.*s' (U+%04X)", length, lx->src + offset, (unsigned)c);
  diag_error(&lx->ctx->diag, at, "invalid non-printable character U+%04X", (unsigned)c);
}

/* Consume one non-ASCII character of a name at cur; error when it may not
 * stand there (CPython's verify_identifier). */
static void lex_unicode_name_char(Lexer *lx, bool first) {
  if (!lx->utf8) { /* another codec: accept the byte as it is */
    lx->cur++;
    return;
  }
  int length;
  uint32_t c = decode_utf8(lx->src + lx->cur, &length);
  bool ok = first ? in_ranges(UNICODE_XID_START, TABLE_SIZE(UNICODE_XID_START), c)
                  : in_ranges(UNICODE_XID_CONTINUE, TABLE_SIZE(UNICODE_XID_CONTINUE), c);
  if (!ok)
    invalid_character(lx, lx->cur, c, length);
  lx->cur += (size_t)length;
}

static void lex_name(Lexer *lx, Pos start) {
  for (;;) {
    char c = lx->src[lx->cur];
    if (is_ascii_name_char(c))
      lx->cur++;
    else if ((unsigned char)c >= 0x80)
      lex_unicode_name_char(lx, lx->cur == start.offset);
    else
      break;
  }
  Token *token = lexer_emit(lx, TOK_NAME, start);
  token->keyword = keyword_of(token->text, token->len);
}

/* ------------------------------------------------------------- f-strings */

static FStringMode *current_fstring(Lexer *lx) {
  return lx->fstring_count > 0 ? &lx->fstrings[lx->fstring_count - 1] : NULL;
}

/* FSTRING_START: prefix in src[start.offset, cur), cur at the quote. */
static void lex_fstring_start(Lexer *lx, Pos start, bool raw) {
  char quote = lx->src[lx->cur];
  int quote_size = lx->src[lx->cur + 1] == quote && lx->src[lx->cur + 2] == quote ? 3 : 1;
  lx->cur += (size_t)quote_size;
  if (lx->fstring_count + 1 >= C2T_MAX_FSTRING_LEVELS) /* as CPython: one level fewer than the constant */
    diag_limit(&lx->ctx->diag, lexer_pos_at(lx, lx->cur - 1), "nested f-strings", C2T_MAX_FSTRING_LEVELS - 1);
  lexer_emit(lx, TOK_FSTRING_START, start);
  FStringMode *mode = &lx->fstrings[lx->fstring_count++];
  mode->part = FSTRING_IN_LITERAL;
  mode->quote = quote;
  mode->quote_size = quote_size;
  mode->raw = raw;
  mode->bracket_depth = 0;
  mode->field_depth = -1;
  mode->start = start;
}

/* A string prefix at cur followed by a quote: its letters and kind, as
 * CPython accepts them (b, r, u, f, br, rb, fr, rf in any case). */
typedef struct StringPrefix {
  int length; /* 0: not a string prefix */
  bool bytes, raw, fstring;
} StringPrefix;

static StringPrefix string_prefix_at(const Lexer *lx) {
  StringPrefix prefix = {0, false, false, false};
  bool saw_u = false;
  for (int i = 0; i < 3; i++) {
    char c = lx->src[lx->cur + (size_t)i];
    if (c == '"' || c == '\'') {
      prefix.length = i;
      return prefix;
    }
    if ((c == 'b' || c == 'B') && !(prefix.bytes || saw_u || prefix.fstring))
      prefix.bytes = true;
    else if ((c == 'u' || c == 'U') && !(prefix.bytes || saw_u || prefix.raw || prefix.fstring))
      saw_u = true;
    else if ((c == 'r' || c == 'R') && !(prefix.raw || saw_u))
      prefix.raw = true;
    else if ((c == 'f' || c == 'F') && !(prefix.fstring || prefix.bytes || saw_u))
      prefix.fstring = true;
    else
      break;
  }
  prefix.length = 0;
  return prefix;
}

/* ------------------------------------------------------ operators, brackets */

static void open_bracket(Lexer *lx, char c, Pos start) {
  if (lx->level >= C2T_MAX_PAREN_LEVELS)
    diag_limit(&lx->ctx->diag, lexer_pos_at(lx, start.offset), "nested parentheses", C2T_MAX_PAREN_LEVELS);
  lx->paren_chars[lx->level] = c;
  lx->paren_pos[lx->level] = start;
  lx->level++;
  FStringMode *mode = current_fstring(lx);
  if (mode)
    mode->bracket_depth++;
}

static char opening_for(char closing) { return closing == ')' ? '(' : closing == ']' ? '[' : '{'; }

static void close_bracket(Lexer *lx, char c, Pos start) {
  Diag *diag = &lx->ctx->diag;
  FStringMode *mode = current_fstring(lx);
  if (mode && mode->bracket_depth == 0 && c == '}')
    diag_error(diag, start, "f-string: single '}' is not allowed");
  if (lx->level == 0)
    diag_error(diag, start, "unmatched '%c'", c);
  lx->level--;
  char opening = lx->paren_chars[lx->level];
  if (opening != opening_for(c)) {
    if (mode && opening == '{' && mode->bracket_depth - 1 == mode->field_depth)
      diag_error(diag, start, "f-string: unmatched '%c'", c);
    Pos open = lx->paren_pos[lx->level];
    if (open.line != lx->line)
      diag_error(diag, start, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", c,
                 opening, open.line);
    diag_error(diag, start, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, opening);
  }
  if (mode) {
    mode->bracket_depth--;
    if (c == '}' && mode->bracket_depth == mode->field_depth) { /* the field ends */
      mode->field_depth--;
      mode->part = FSTRING_IN_LITERAL;
    }
  }
}

/* Longest operator at cur: its kind and length (0 when none). */
static OpKind match_operator(const char *s, int *length) {
  char c = s[0], c2 = s[1], c3 = c2 ? s[2] : '\0';
  *length = 1;
#define OP2(second, kind) if (c2 == (second)) { *length = 2; return kind; }
#define OP3(second, third, kind) if (c2 == (second) && c3 == (third)) { *length = 3; return kind; }
  switch (c) {
  case '(': return OP_LPAR;
  case ')': return OP_RPAR;
  case '[': return OP_LSQB;
  case ']': return OP_RSQB;
  case '{': return OP_LBRACE;
  case '}': return OP_RBRACE;
  case ',': return OP_COMMA;
  case ';': return OP_SEMI;
  case '~': return OP_TILDE;
  case ':': OP2('=', OP_COLONEQUAL) return OP_COLON;
  case '.': OP3('.', '.', OP_ELLIPSIS) return OP_DOT;
  case '-': OP2('>', OP_ARROW) OP2('=', OP_MINUSEQ) return OP_MINUS;
  case '!': OP2('=', OP_NE) return OP_EXCLAIM;
  case '+': OP2('=', OP_PLUSEQ) return OP_PLUS;
  case '*': OP3('*', '=', OP_DSTAREQ) OP2('*', OP_DSTAR) OP2('=', OP_STAREQ) return OP_STAR;
  case '/': OP3('/', '=', OP_DSLASHEQ) OP2('/', OP_DSLASH) OP2('=', OP_SLASHEQ) return OP_SLASH;
  case '%': OP2('=', OP_PERCENTEQ) return OP_PERCENT;
  case '@': OP2('=', OP_ATEQ) return OP_AT;
  case '<': OP3('<', '=', OP_LSHIFTEQ) OP2('<', OP_LSHIFT) OP2('=', OP_LE) return OP_LT;
  case '>': OP3('>', '=', OP_RSHIFTEQ) OP2('>', OP_RSHIFT) OP2('=', OP_GE) return OP_GT;
  case '=': OP2('=', OP_EQEQ) return OP_EQUAL;
  case '&': OP2('=', OP_AMPEREQ) return OP_AMPER;
  case '|': OP2('=', OP_VBAREQ) return OP_VBAR;
  case '^': OP2('=', OP_CIRCUMFLEXEQ) return OP_CIRCUMFLEX;
  default: break;
  }
#undef OP2
#undef OP3
  *length = 0;
  return OP_NONE;
}

static Token *emit_op(Lexer *lx, OpKind op, int length, Pos start) {
  lx->cur += (size_t)length;
  Token *token = lexer_emit(lx, TOK_OP, start);
  token->op = op;
  return token;
}

/* A `:` ending a replacement field's expression starts its format spec
 * (CPython: the punctuation check before two-character tokens). */
static bool starts_format_spec(Lexer *lx) {
  FStringMode *mode = current_fstring(lx);
  return mode && mode->field_depth >= 0 && mode->bracket_depth - 1 == mode->field_depth;
}

static void lex_operator(Lexer *lx, Pos start) {
  char c = lx->src[lx->cur];
  if (c == ':' && starts_format_spec(lx)) {
    emit_op(lx, OP_COLON, 1, start);
    current_fstring(lx)->part = FSTRING_IN_LITERAL;
    return;
  }
  int length;
  OpKind op = match_operator(lx->src + lx->cur, &length);
  bool invalid = op == OP_NONE || (op == OP_EXCLAIM && lx->fstring_count == 0);
  if (op == OP_NONE) {
    unsigned char u = (unsigned char)c;
    if (u < 0x20 || u == 0x7F)
      invalid_character(lx, lx->cur, u, 1);
    length = 1;
  } else if (op == OP_LT && lx->src[lx->cur + 1] == '>') { /* `<>` (PEP 401) */
    invalid = true;
    length = 2;
  }
  if (invalid) {
    defer_invalid_syntax(lx, start);
    lx->cur += (size_t)length;
    return;
  }
  if (c == '(' || c == '[' || c == '{')
    open_bracket(lx, c, start);
  else if (c == ')' || c == ']' || c == '}')
    close_bracket(lx, c, start);
  emit_op(lx, op, length, start);
}

/* ------------------------------------------------------------ main loop */

static void lex_comment(Lexer *lx) {
  Pos start = lexer_pos(lx);
  bool own_line = true;
  for (size_t i = lx->line_start; i < lx->cur; i++)
    if (lx->src[i] != ' ' && lx->src[i] != '\t' && lx->src[i] != '\f')
      own_line = false;
  while (lx->src[lx->cur] != '\0' && !is_newline_char(lx->src[lx->cur]))
    lx->cur++;
  lexer_add_comment(lx, start, own_line);
}

/* At the end of the input outside strings: close everything. */
static void lex_end_of_input(Lexer *lx) {
  if (lx->level > 0)
    unclosed_bracket_error(lx);
  lexer_yield_to_deferred_error(lx);
  Pos end = lexer_pos(lx);
  if (lx->line_has_tokens)
    lexer_emit(lx, TOK_NEWLINE, end);
  for (; lx->indent > 0; lx->indent--)
    lexer_emit(lx, TOK_DEDENT, end);
  lexer_emit(lx, TOK_EOF, end);
}

static void lex_newline(Lexer *lx) {
  Pos start = lexer_pos(lx);
  bool ends_logical_line = !lx->blank_line && lx->level == 0;
  size_t newline_offset = lx->cur;
  lexer_skip_newline(lx);
  lx->at_line_start = true;
  if (!ends_logical_line)
    return;
  /* the token's end stays on its own line */
  Token *token = lexer_emit(lx, TOK_NEWLINE, start);
  token->span.end = start;
  token->span.end.col += (int)(lx->cur - newline_offset);
  token->span.end.offset = lx->cur;
  lx->line_has_tokens = false;
}

static bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (unsigned char)c >= 0x80;
}

/* Lex the next token in regular mode. Returns false after TOK_EOF. */
static bool lex_regular(Lexer *lx) {
  if (lx->at_line_start)
    lex_line_start(lx);
  if (lx->pending_indents != 0)
    emit_pending_indentation(lx);
  for (;;) {
    char c = lx->src[lx->cur];
    while (c == ' ' || c == '\t' || c == '\f')
      c = lx->src[++lx->cur];
    if (c == '#') {
      lex_comment(lx);
      c = lx->src[lx->cur];
    }
    if (c == '\\') {
      lx->cur++;
      skip_line_continuation(lx);
      continue;
    }
    Pos start = lexer_pos(lx);
    if (c == '\0') {
      lex_end_of_input(lx);
      return false;
    }
    if (is_newline_char(c)) {
      lex_newline(lx);
      return true;
    }
    if (is_name_start(c)) {
      StringPrefix prefix = string_prefix_at(lx);
      if (prefix.length > 0) {
        lx->cur += (size_t)prefix.length;
        if (prefix.fstring)
          lex_fstring_start(lx, start, prefix.raw);
        else
          lex_string(lx, start, prefix.raw, prefix.bytes);
      } else {
        lex_name(lx, start);
      }
      return true;
    }
    if (c == '"' || c == '\'') {
      lex_string(lx, start, false, false);
      return true;
    }
    if (is_digit_char(c) || (c == '.' && is_digit_char(lx->src[lx->cur + 1]))) {
      lex_number(lx, start);
      return true;
    }
    lex_operator(lx, start);
    return true;
  }
}

/* --------------------------------------------------------------- driver */

TokenList tokenize(Context *ctx) {
  Lexer *lx = arena_alloc(&ctx->arena, sizeof(Lexer));
  lx->ctx = ctx;
  lx->src = ctx->source.text ? ctx->source.text : "";
  lx->len = ctx->source.text ? ctx->source.len : 0;
  lx->line = 1;
  lx->cur = lx->line_start = check_source_encoding(lx);
  lx->at_line_start = true;
  /* about one token per 8 bytes to start with; grows by doubling */
  size_t guess = lx->len / 8 + 64;
  lx->token_capacity = guess < TOKENS_INITIAL_MAX ? (int)guess : TOKENS_INITIAL_MAX;
  /* every field of a token is set when it is emitted: no need to clear the array */
  lx->tokens = arena_alloc_raw(&ctx->arena, sizeof(Token) * (size_t)lx->token_capacity);
  for (;;) {
    FStringMode *mode = current_fstring(lx);
    if (mode && mode->part == FSTRING_IN_LITERAL)
      lex_fstring_literal(lx);
    else if (!lex_regular(lx))
      break;
  }
  TokenList list = {lx->tokens, lx->token_count, lx->comments, lx->comment_count};
  return list;
}
