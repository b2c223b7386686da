/*
 * tokenize_literal.c — numeric literals, string and bytes literals, and the
 * literal parts of f-strings, with the checks CPython makes on them:
 * CPython 3.12's number scanner (tokenizer.c), and the escape decoding
 * errors its string parser raises (truncated \x, \u, \U escapes, illegal
 * code points, malformed \N{...}, non-ASCII bytes literals).
 */
#include <stdio.h>
#include <string.h>

#include "tokenize_internal.h"

static _Noreturn void literal_error(Lexer *lx, size_t offset, const char *fmt, const char *arg) {
  diag_error(&lx->ctx->diag, lexer_pos_at(lx, offset), fmt, arg);
}

/* ------------------------------------------------------------- numbers */

static bool is_hex_char(char c) {
  return is_digit_char(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool lookahead_is(const Lexer *lx, size_t offset, const char *word) {
  return strncmp(lx->src + offset, word, strlen(word)) == 0;
}

/* CPython's verify_end_of_number: the character at cur may not continue the
 * literal as a name, except for the keywords that may follow a number in
 * valid code (`1if x else 2`, `0x1for`); those are accepted. */
static void verify_end_of_number(Lexer *lx, const char *kind) {
  size_t at = lx->cur;
  char c = lx->src[at];
  bool keyword = false;
  switch (c) {
  case 'a': keyword = lookahead_is(lx, at + 1, "nd"); break;
  case 'e': keyword = lookahead_is(lx, at + 1, "lse"); break;
  case 'f': keyword = lookahead_is(lx, at + 1, "or"); break;
  case 'i': keyword = lx->src[at + 1] == 'f' || lx->src[at + 1] == 'n' || lx->src[at + 1] == 's'; break;
  case 'o': keyword = lookahead_is(lx, at + 1, "r"); break;
  case 'n': keyword = lookahead_is(lx, at + 1, "ot"); break;
  default: break;
  }
  if (!keyword && is_ascii_name_char(c))
    literal_error(lx, at - 1, "invalid %s literal", kind);
}

/* Digits and single underscores between them, from cur (a digit); returns
 * the character after them (CPython's tok_decimal_tail). */
static char scan_decimal_tail(Lexer *lx) {
  for (;;) {
    while (is_digit_char(lx->src[lx->cur]))
      lx->cur++;
    if (lx->src[lx->cur] != '_')
      return lx->src[lx->cur];
    lx->cur++;
    if (!is_digit_char(lx->src[lx->cur]))
      literal_error(lx, lx->cur - 1, "%s", "invalid decimal literal");
  }
}

/* Digits of a base-prefixed literal after `0x`, `0o` or `0b` (cur past the
 * prefix): an underscore may precede each group of digits. */
static void scan_prefixed_digits(Lexer *lx, int base, const char *kind) {
  char c;
  do {
    if (lx->src[lx->cur] == '_')
      lx->cur++;
    c = lx->src[lx->cur];
    bool valid = base == 16 ? is_hex_char(c) : (c >= '0' && c < '0' + base);
    if (!valid) {
      if (base != 16 && is_digit_char(c)) {
        char digit[2] = {c, '\0'};
        diag_error(&lx->ctx->diag, lexer_pos_at(lx, lx->cur), "invalid digit '%s' in %s literal", digit, kind);
      }
      literal_error(lx, lx->cur - 1, "invalid %s literal", kind);
    }
    do {
      c = lx->src[++lx->cur];
    } while (base == 16 ? is_hex_char(c) : (c >= '0' && c < '0' + base));
  } while (c == '_');
  if (base != 16 && is_digit_char(c)) {
    char digit[2] = {c, '\0'};
    diag_error(&lx->ctx->diag, lexer_pos_at(lx, lx->cur), "invalid digit '%s' in %s literal", digit, kind);
  }
  verify_end_of_number(lx, kind);
}

/* The exponent, fraction-less tail and imaginary suffix of a decimal
 * literal; cur at the character after the digits read so far. */
static void scan_float_tail(Lexer *lx, char c) {
  if (c == 'e' || c == 'E') {
    size_t exponent_at = lx->cur;
    c = lx->src[++lx->cur];
    if (c == '+' || c == '-') {
      c = lx->src[++lx->cur];
      if (!is_digit_char(c))
        literal_error(lx, lx->cur - 1, "%s", "invalid decimal literal");
    } else if (!is_digit_char(c)) {
      lx->cur = exponent_at; /* `1else`: the number ends before the `e` */
      verify_end_of_number(lx, "decimal");
      return;
    }
    c = scan_decimal_tail(lx);
  }
  if (c == 'j' || c == 'J') {
    lx->cur++;
    verify_end_of_number(lx, "imaginary");
  } else {
    verify_end_of_number(lx, "decimal");
  }
}

/* After the digits of the integer part (cur past them, c the next char). */
static void scan_after_integer_part(Lexer *lx, char c) {
  if (c == '.') {
    c = lx->src[++lx->cur];
    if (is_digit_char(c))
      c = scan_decimal_tail(lx);
  }
  scan_float_tail(lx, c);
}

/* A literal starting with 0 that has no base prefix: zeros, maybe a float. */
static void scan_zero_literal(Lexer *lx, Pos start) {
  char c = lx->src[lx->cur];
  for (;;) {
    if (c == '_') {
      c = lx->src[++lx->cur];
      if (!is_digit_char(c))
        literal_error(lx, lx->cur - 1, "%s", "invalid decimal literal");
    }
    if (c != '0')
      break;
    c = lx->src[++lx->cur];
  }
  bool nonzero = false;
  if (is_digit_char(c)) {
    nonzero = true;
    c = scan_decimal_tail(lx);
  }
  if (c == '.' || c == 'e' || c == 'E' || c == 'j' || c == 'J') {
    scan_after_integer_part(lx, c);
    return;
  }
  if (nonzero)
    literal_error(lx, start.offset, "%s",
                  "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
  verify_end_of_number(lx, "decimal");
}

/* Decimal integer literals of more digits than this are a SyntaxError in
 * CPython 3.11+ (the int/str conversion limit applies to bases that are not
 * powers of two; leading zeros of "000" literals do not count). */
#define C2T_MAX_INT_DIGITS 4300

static void check_int_digits(Lexer *lx, size_t from) {
  size_t digits = 0;
  for (size_t i = from; i < lx->cur; i++)
    digits += lx->src[i] != '_';
  if (digits > C2T_MAX_INT_DIGITS) {
    char message[200];
    snprintf(message, sizeof message,
             "Exceeds the limit (%d digits) for integer string conversion: value has %zu digits; use "
             "sys.set_int_max_str_digits() to increase the limit",
             C2T_MAX_INT_DIGITS, digits);
    literal_error(lx, from, "%s", message);
  }
}

void lex_number(Lexer *lx, Pos start) {
  char c = lx->src[lx->cur];
  if (c == '.') { /* .5 */
    lx->cur++;
    scan_float_tail(lx, scan_decimal_tail(lx));
  } else if (c == '0') {
    char base = lx->src[++lx->cur];
    if (base == 'x' || base == 'X') {
      lx->cur++;
      scan_prefixed_digits(lx, 16, "hexadecimal");
    } else if (base == 'o' || base == 'O') {
      lx->cur++;
      scan_prefixed_digits(lx, 8, "octal");
    } else if (base == 'b' || base == 'B') {
      lx->cur++;
      scan_prefixed_digits(lx, 2, "binary");
    } else {
      scan_zero_literal(lx, start);
    }
  } else {
    char after = scan_decimal_tail(lx);
    bool integer = after != '.' && after != 'e' && after != 'E' && after != 'j' && after != 'J';
    if (integer) /* CPython's int() of a decimal literal: sys.int_info.default_max_str_digits */
      check_int_digits(lx, start.offset);
    scan_after_integer_part(lx, after);
  }
  lexer_emit(lx, TOK_NUMBER, start);
}

/* ------------------------------------------------------------- escapes */

/* Escape checks on the body of a non-raw literal, as CPython's string
 * parser decodes it. Positions in messages count characters the way
 * CPython's decoder sees its buffer: each non-ASCII character there is a
 * 10-character \UXXXXXXXX escape, and a backslash before one gains "u005c". */
typedef struct EscapeCheck {
  Lexer *lx;
  Pos at;          /* where errors are reported (the token) */
  const char *s;   /* the body */
  size_t end;      /* its length */
  size_t i;        /* index in the body */
  size_t position; /* index in CPython's decode buffer */
  bool bytes;
} EscapeCheck;

static size_t char_length_at(const EscapeCheck *e, size_t i) {
  if (!e->lx->utf8 || (unsigned char)e->s[i] < 0x80)
    return 1;
  int length;
  decode_utf8(e->s + i, &length);
  return (size_t)length;
}

static _Noreturn void escape_error(EscapeCheck *e, size_t first, size_t after, const char *reason) {
  lexer_yield_to_deferred_error(e->lx);
  diag_error(&e->lx->ctx->diag, e->at,
             "(unicode error) 'unicodeescape' codec can't decode bytes in position %zu-%zu: %s", first, after - 1,
             reason);
}

/* \xXX, \uXXXX, \UXXXXXXXX: `digits` hex digits after the letter at e->i. */
static void check_hex_escape(EscapeCheck *e, size_t first, int digits, const char *reason) {
  size_t i = e->i + 1, position = e->position + 1;
  uint32_t value = 0;
  for (int k = 0; k < digits; k++, i++, position++) {
    char c = i < e->end ? e->s[i] : '\0';
    if (!is_hex_char(c)) {
      lexer_yield_to_deferred_error(e->lx);
      if (e->bytes)
        diag_error(&e->lx->ctx->diag, e->at, "(value error) invalid \\x escape at position %zu", e->i - 1);
      escape_error(e, first, position, reason);
    }
    value = value * 16 + (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  if (value > 0x10FFFF)
    escape_error(e, first, position, "illegal Unicode character");
  e->i = i;
  e->position = position;
}

static bool is_unicode_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit_char(c) || c == ' ' || c == '-';
}

/* \N{NAME}: e->i at the N. Names are not looked up (no name database):
 * any non-empty run of letters, digits, spaces and hyphens is accepted. */
static void check_named_escape(EscapeCheck *e, size_t first) {
  size_t i = e->i + 1, position = e->position + 1;
  if (i >= e->end || e->s[i] != '{')
    escape_error(e, first, position, "malformed \\N character escape");
  size_t name_start = ++i;
  bool plausible = true;
  while (i < e->end && e->s[i] != '}') {
    if (!is_unicode_name_char(e->s[i]))
      plausible = false;
    position += char_length_at(e, i) == 1 ? 1 : 10;
    i += char_length_at(e, i);
  }
  position += 1; /* the `{` */
  if (i >= e->end || i == name_start)
    escape_error(e, first, position, "malformed \\N character escape");
  if (!plausible)
    escape_error(e, first, position + 1, "unknown Unicode character name");
  e->i = i + 1;
  e->position = position + 1;
}

/* One escape: e->i at the character after the backslash. */
static void check_escape(EscapeCheck *e) {
  size_t first = e->position - 1;
  char c = e->s[e->i];
  if ((unsigned char)c >= 0x80) { /* "\u005c" then the character */
    e->position += 5 + 10;
    e->i += char_length_at(e, e->i);
    return;
  }
  if (c == 'x') {
    check_hex_escape(e, first, 2, "truncated \\xXX escape");
  } else if (c == 'u' && !e->bytes) {
    check_hex_escape(e, first, 4, "truncated \\uXXXX escape");
  } else if (c == 'U' && !e->bytes) {
    check_hex_escape(e, first, 8, "truncated \\UXXXXXXXX escape");
  } else if (c == 'N' && !e->bytes) {
    check_named_escape(e, first);
  } else {
    e->i++;
    e->position++;
  }
}

static void check_escapes(Lexer *lx, Pos at, const char *body, size_t length, bool bytes) {
  EscapeCheck e = {lx, at, body, length, 0, 0, bytes};
  while (e.i < e.end) {
    unsigned char c = (unsigned char)e.s[e.i];
    if (c == '\\') {
      e.i++;
      e.position++;
      if (e.i < e.end)
        check_escape(&e);
    } else if (c >= 0x80) {
      e.position += 10;
      e.i += char_length_at(&e, e.i);
    } else {
      e.i++;
      e.position++;
    }
  }
}

static void check_bytes_are_ascii(Lexer *lx, Pos at, const char *body, size_t length) {
  for (size_t i = 0; i < length; i++)
    if ((unsigned char)body[i] >= 0x80) {
      lexer_yield_to_deferred_error(lx);
      diag_error(&lx->ctx->diag, at, "bytes can only contain ASCII literal characters");
    }
}

/* ------------------------------------------------------------- strings */

/* The line CPython reports in "detected at line N": at the end of input the
 * line of the last character. */
static int detected_line(const Lexer *lx) {
  if (lx->cur >= lx->len && lx->len > 0 && lx->cur == lx->line_start && is_newline_char(lx->src[lx->len - 1]))
    return lx->line - 1;
  return lx->line;
}

static _Noreturn void unterminated_string(Lexer *lx, Pos start, char quote, int quote_size) {
  int line = detected_line(lx);
  int open = lx->fstring_count - 1;
  if (open >= 0 && lx->fstrings[open].quote == quote && lx->fstrings[open].quote_size == quote_size)
    diag_error(&lx->ctx->diag, start, "f-string: expecting '}'");
  if (quote_size == 3)
    diag_error(&lx->ctx->diag, start, "unterminated triple-quoted string literal (detected at line %d)", line);
  diag_error(&lx->ctx->diag, start, "unterminated string literal (detected at line %d)", line);
}

void lex_string(Lexer *lx, Pos start, bool raw, bool bytes) {
  char quote = lx->src[lx->cur];
  int quote_size = lx->src[lx->cur + 1] == quote && lx->src[lx->cur + 2] == quote ? 3 : 1;
  lx->cur += (size_t)quote_size;
  size_t body = lx->cur;
  size_t body_end;
  for (;;) {
    char c = lx->src[lx->cur];
    if (c == quote) {
      if (quote_size == 1 || (lx->src[lx->cur + 1] == quote && lx->src[lx->cur + 2] == quote)) {
        body_end = lx->cur;
        lx->cur += (size_t)quote_size;
        break;
      }
      lx->cur++;
    } else if (c == '\0') {
      unterminated_string(lx, start, quote, quote_size);
    } else if (is_newline_char(c)) {
      if (quote_size == 1)
        unterminated_string(lx, start, quote, quote_size);
      lexer_skip_newline(lx);
    } else if (c == '\\') {
      lx->cur++;
      if (!lexer_skip_newline(lx) && lx->src[lx->cur] != '\0')
        lx->cur++;
    } else {
      lx->cur++;
    }
  }
  lexer_emit(lx, TOK_STRING, start);
  if (bytes)
    check_bytes_are_ascii(lx, start, lx->src + body, body_end - body);
  if (!raw)
    check_escapes(lx, start, lx->src + body, body_end - body, bytes);
}

/* ----------------------------------------------------------- f-strings */

static void emit_fstring_middle(Lexer *lx, FStringMode *mode, Pos start) {
  if (lx->cur == start.offset)
    return;
  lexer_emit(lx, TOK_FSTRING_MIDDLE, start);
  if (!mode->raw)
    check_escapes(lx, start, lx->src + start.offset, lx->cur - start.offset, false);
}

static _Noreturn void unterminated_fstring(Lexer *lx, FStringMode *mode) {
  int line = detected_line(lx);
  if (mode->quote_size == 3)
    diag_error(&lx->ctx->diag, mode->start, "unterminated triple-quoted f-string literal (detected at line %d)", line);
  diag_error(&lx->ctx->diag, mode->start, "unterminated f-string literal (detected at line %d)", line);
}

static bool at_closing_quote(const Lexer *lx, const FStringMode *mode) {
  const char *s = lx->src + lx->cur;
  return s[0] == mode->quote && (mode->quote_size == 1 || (s[1] == mode->quote && s[2] == mode->quote));
}

/* The f-string ends: FSTRING_END and pop the mode. */
static void end_fstring(Lexer *lx, FStringMode *mode) {
  Pos start = lexer_pos(lx);
  lx->cur += (size_t)mode->quote_size;
  lexer_emit(lx, TOK_FSTRING_END, start);
  lx->fstring_count--;
}

/* A replacement field starts at cur (`{`): hand over to regular mode. */
static void start_field(Lexer *lx, FStringMode *mode) {
  mode->field_depth++;
  if (mode->field_depth >= FSTRING_MAX_FIELD_NESTING) /* as CPython: the constant itself is too deep */
    diag_limit(&lx->ctx->diag, lexer_pos_at(lx, lx->cur - 1), "nested replacement fields in an f-string",
               FSTRING_MAX_FIELD_NESTING - 1);
  mode->part = FSTRING_IN_EXPRESSION;
}

/* Skip the character after a backslash in literal text (cur past the
 * backslash). `\{` and `\}` leave the brace to be read as a brace. Returns
 * true when a non-raw `\N{` began (its `}` is then literal text). */
static bool skip_fstring_escape(Lexer *lx, FStringMode *mode) {
  char c = lx->src[lx->cur];
  if (c == '{' || c == '}' || c == '\0')
    return false;
  if (!mode->raw && c == 'N' && lx->src[lx->cur + 1] == '{') {
    lx->cur += 2;
    return true;
  }
  if (!lexer_skip_newline(lx))
    lx->cur++;
  return false;
}

void lex_fstring_literal(Lexer *lx) {
  FStringMode *mode = &lx->fstrings[lx->fstring_count - 1];
  bool in_format_spec = mode->field_depth >= 0;
  bool in_named_escape = false;
  Pos start = lexer_pos(lx);
  for (;;) {
    char c = lx->src[lx->cur];
    if (c == '\0')
      unterminated_fstring(lx, mode);
    if (is_newline_char(c)) {
      if (mode->quote_size == 1) {
        if (!in_format_spec)
          unterminated_fstring(lx, mode);
        emit_fstring_middle(lx, mode, start); /* the format spec ends at the line end */
        mode->part = FSTRING_IN_EXPRESSION;
        return;
      }
      lexer_skip_newline(lx);
    } else if (c == mode->quote && at_closing_quote(lx, mode)) {
      emit_fstring_middle(lx, mode, start);
      end_fstring(lx, mode);
      return;
    } else if (c == '{') {
      if (lx->src[lx->cur + 1] == '{' && !in_format_spec) {
        lx->cur += 2;
        continue;
      }
      emit_fstring_middle(lx, mode, start);
      start_field(lx, mode);
      return;
    } else if (c == '}') {
      if (in_named_escape) {
        in_named_escape = false;
        lx->cur++;
        continue;
      }
      if (lx->src[lx->cur + 1] == '}' && !in_format_spec && mode->bracket_depth == 0) {
        lx->cur += 2;
        continue;
      }
      emit_fstring_middle(lx, mode, start); /* regular mode reads the `}` */
      mode->part = FSTRING_IN_EXPRESSION;
      return;
    } else if (c == '\\') {
      lx->cur++;
      if (skip_fstring_escape(lx, mode))
        in_named_escape = true;
    } else {
      lx->cur++;
    }
  }
}
