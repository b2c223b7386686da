/*
 * test_tokenize.c — unit tests of the tokenizer (src/tokenize).
 *
 * Most tests compare unit_tokens() renderings ("KIND:text ..." or the first
 * diagnostic line, "<test>:LINE:COL: error: ..." with a 1-based column).
 * Expected results were checked against CPython 3.12 (its tokenize module
 * for token streams, compile() for error messages and positions). The
 * helpers below tokenize byte strings with explicit lengths (NUL bytes)
 * and inspect token fields, spans and comments.
 */
#include <stdlib.h>

#include "unit.h"

/* ------------------------------------------------------------- helpers */

/* One tokenizer run over a private copy of the bytes; kept until the next
 * call so tests can look at the tokens. */
typedef struct LexRun {
  Context ctx;
  char *copy;
  TokenList list;
  bool ok;
  char error[512]; /* first diagnostic line when !ok */
} LexRun;

static LexRun *last_run;

static void lex_run_free(void) {
  if (!last_run)
    return;
  buf_free(&last_run->ctx.diag.messages);
  arena_free(&last_run->ctx.arena);
  free(last_run->copy);
  free(last_run);
  last_run = NULL;
}

static LexRun *lex_bytes(const char *source, size_t length) {
  lex_run_free();
  LexRun *run = calloc(1, sizeof *run);
  last_run = run;
  run->copy = malloc(length + 1);
  memcpy(run->copy, source, length);
  run->copy[length] = '\0';
  arena_init(&run->ctx.arena);
  run->ctx.source.name = "<test>";
  run->ctx.source.text = run->copy;
  run->ctx.source.len = length;
  run->ctx.diag.source = &run->ctx.source;
  if (setjmp(run->ctx.diag.on_error) == 0) {
    run->list = tokenize(&run->ctx);
    run->ok = true;
  } else {
    const char *messages = run->ctx.diag.messages.data ? run->ctx.diag.messages.data : "";
    size_t n = strcspn(messages, "\n");
    if (n >= sizeof run->error)
      n = sizeof run->error - 1;
    memcpy(run->error, messages, n);
    run->error[n] = '\0';
  }
  return run;
}

static LexRun *lex(const char *source) { return lex_bytes(source, strlen(source)); }

/* The first diagnostic line for bytes with an explicit length, or "ok". */
static const char *lex_error_of(const char *source, size_t length) {
  LexRun *run = lex_bytes(source, length);
  return run->ok ? "ok" : run->error;
}

static bool span_is(const Token *t, int line, int col, int end_line, int end_col) {
  return t->span.start.line == line && t->span.start.col == col && t->span.end.line == end_line &&
         t->span.end.col == end_col;
}

/* --------------------------------------------------------------- basics */

static void test_simple_statement(void) {
  CHECK_STR(unit_tokens("x = 1\n"), "NAME:x OP:= NUMBER:1 NEWLINE EOF");
  CHECK_STR(unit_tokens("print(a, b)\n"), "NAME:print OP:( NAME:a OP:, NAME:b OP:) NEWLINE EOF");
}

static void test_empty_and_blank_sources(void) {
  CHECK_STR(unit_tokens(""), "EOF");
  CHECK_STR(unit_tokens("\n\n   \n"), "EOF");
  CHECK_STR(unit_tokens("# only a comment"), "EOF");
  CHECK_STR(unit_tokens("x\n\n\n# c\ny\n"), "NAME:x NEWLINE NAME:y NEWLINE EOF");
}

static void test_newline_added_at_eof(void) {
  CHECK_STR(unit_tokens("x"), "NAME:x NEWLINE EOF");
  CHECK_STR(unit_tokens("x  # c"), "NAME:x NEWLINE EOF");
  LexRun *run = lex("x");
  CHECK(run->ok && run->list.count == 3);
  CHECK(run->ok && run->list.tokens[1].len == 0);
}

static void test_line_endings(void) {
  CHECK_STR(unit_tokens("a\r\nb\rc\n"), "NAME:a NEWLINE NAME:b NEWLINE NAME:c NEWLINE EOF");
  LexRun *run = lex("a\r\nb\rc\n");
  CHECK(run->ok && run->list.tokens[2].span.start.line == 2 && run->list.tokens[4].span.start.line == 3);
  CHECK_STR(unit_tokens("if x:\r  y\r"), "NAME:if NAME:x OP:: NEWLINE INDENT NAME:y NEWLINE DEDENT EOF");
}

static void test_keywords(void) {
  LexRun *run = lex("if not x: pass\nmatch case type _ async await None True False\n");
  CHECK(run->ok);
  Token *t = run->list.tokens;
  CHECK(t[0].keyword == KW_IF && t[1].keyword == KW_NOT && t[2].keyword == KW_NONE && t[4].keyword == KW_PASS);
  /* soft keywords stay plain names */
  CHECK(t[6].keyword == KW_NONE && t[7].keyword == KW_NONE && t[8].keyword == KW_NONE && t[9].keyword == KW_NONE);
  CHECK(t[10].keyword == KW_ASYNC && t[11].keyword == KW_AWAIT && t[12].keyword == KW_NONE_);
  CHECK(t[13].keyword == KW_TRUE && t[14].keyword == KW_FALSE);
  for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++) {
    LexRun *one = lex(keyword_spelling((Keyword)kw));
    CHECK(one->ok && one->list.tokens[0].kind == TOK_NAME && one->list.tokens[0].keyword == (Keyword)kw);
  }
  CHECK_STR(keyword_spelling(KW_NONLOCAL), "nonlocal");
  CHECK(lex("iff elsewhere Nonesuch")->list.tokens[0].keyword == KW_NONE);
}

static void test_spans(void) {
  LexRun *run = lex("x = 'ab'\ny = '''a\nbc'''\n");
  CHECK(run->ok);
  Token *t = run->list.tokens;
  CHECK(span_is(&t[0], 1, 0, 1, 1));
  CHECK(span_is(&t[2], 1, 4, 1, 8) && t[2].span.start.offset == 4 && t[2].span.end.offset == 8);
  CHECK(span_is(&t[3], 1, 8, 1, 9)); /* NEWLINE */
  CHECK(span_is(&t[6], 2, 4, 3, 5)); /* the triple-quoted string */
  CHECK(t[8].kind == TOK_EOF && t[8].span.start.line == 4 && t[8].span.start.col == 0);
  run = lex("\xCF\x80 = 1\n"); /* columns count bytes */
  CHECK(run->ok && span_is(&run->list.tokens[1], 1, 3, 1, 4));
}

/* ---------------------------------------------------------- indentation */

static void test_indent_dedent(void) {
  CHECK_STR(unit_tokens("if x:\n    y\nz\n"), "NAME:if NAME:x OP:: NEWLINE INDENT NAME:y NEWLINE DEDENT NAME:z NEWLINE EOF");
  CHECK_STR(unit_tokens("if a:\n if b:\n  c"),
            "NAME:if NAME:a OP:: NEWLINE INDENT NAME:if NAME:b OP:: NEWLINE INDENT NAME:c NEWLINE DEDENT DEDENT EOF");
  CHECK_STR(unit_tokens("if a:\n  if b:\n    c\nd\n"),
            "NAME:if NAME:a OP:: NEWLINE INDENT NAME:if NAME:b OP:: NEWLINE INDENT NAME:c NEWLINE DEDENT DEDENT "
            "NAME:d NEWLINE EOF");
}

static void test_blank_and_comment_lines_keep_indentation(void) {
  CHECK_STR(unit_tokens("if a:\n\n      # deeper comment\n  b\n# c\n  c\n"),
            "NAME:if NAME:a OP:: NEWLINE INDENT NAME:b NEWLINE NAME:c NEWLINE DEDENT EOF");
}

static void test_tabs(void) {
  CHECK_STR(unit_tokens("if a:\n\tb\n\tc\n"), "NAME:if NAME:a OP:: NEWLINE INDENT NAME:b NEWLINE NAME:c NEWLINE DEDENT EOF");
  CHECK_STR(unit_tokens("if a:\n\tb\n        c\n"), "<test>:3:1: error: inconsistent use of tabs and spaces in indentation");
  CHECK_STR(unit_tokens("if a:\n        b\n\tc\n"), "<test>:3:1: error: inconsistent use of tabs and spaces in indentation");
  CHECK_STR(unit_tokens("if a:\n  \tb\n\tc\n"), "<test>:3:1: error: inconsistent use of tabs and spaces in indentation");
}

static void test_form_feed_resets_column(void) {
  CHECK_STR(unit_tokens("if a:\n  \f  b\n"), "NAME:if NAME:a OP:: NEWLINE INDENT NAME:b NEWLINE DEDENT EOF");
  CHECK_STR(unit_tokens("\f\nx\n"), "NAME:x NEWLINE EOF");
}

static void test_dedent_errors(void) {
  CHECK_STR(unit_tokens("if a:\n    b\n  c\n"), "<test>:3:3: error: unindent does not match any outer indentation level");
  CHECK_STR(unit_tokens("if x:\n    pass\n  else:\n"),
            "<test>:3:3: error: unindent does not match any outer indentation level");
}

static void test_too_many_indentation_levels(void) {
  Buf source = {0};
  for (int i = 0; i < C2T_MAX_INDENT_LEVELS - 2; i++) {
    for (int j = 0; j < i; j++)
      buf_putc(&source, ' ');
    buf_puts(&source, "if x:\n");
  }
  for (int j = 0; j < C2T_MAX_INDENT_LEVELS - 2; j++)
    buf_putc(&source, ' ');
  buf_puts(&source, "pass\n");
  CHECK(lex(source.data)->ok); /* 98 levels */
  buf_free(&source);
  for (int i = 0; i < C2T_MAX_INDENT_LEVELS; i++) {
    for (int j = 0; j < i; j++)
      buf_putc(&source, ' ');
    buf_puts(&source, "if x:\n");
  }
  for (int j = 0; j < C2T_MAX_INDENT_LEVELS; j++)
    buf_putc(&source, ' ');
  buf_puts(&source, "pass\n");
  LexRun *run = lex(source.data);
  CHECK(!run->ok && strstr(run->error, "error: C2T002: too many levels of indentation (limit is 99)"));
  buf_free(&source);
}

/* -------------------------------------------------- continuation, brackets */

static void test_line_continuation(void) {
  CHECK_STR(unit_tokens("x = 1 + \\\n  2\n"), "NAME:x OP:= NUMBER:1 OP:+ NUMBER:2 NEWLINE EOF");
  CHECK_STR(unit_tokens("(1,\\\n 2)\n"), "OP:( NUMBER:1 OP:, NUMBER:2 OP:) NEWLINE EOF");
  CHECK_STR(unit_tokens("if a:\n    \\\n  b\n"), "NAME:if NAME:a OP:: NEWLINE INDENT NAME:b NEWLINE DEDENT EOF");
  CHECK_STR(unit_tokens("x = \\\r\n1\n"), "NAME:x OP:= NUMBER:1 NEWLINE EOF");
}

static void test_line_continuation_errors(void) {
  CHECK_STR(unit_tokens("x = \\ 1\n"), "<test>:1:6: error: unexpected character after line continuation character");
  CHECK_STR(unit_tokens("x = 1 \\ # c\n"), "<test>:1:8: error: unexpected character after line continuation character");
  CHECK_STR(unit_tokens("x = \\"), "<test>:1:6: error: unexpected EOF while parsing");
  CHECK_STR(unit_tokens("x = \\\n"), "<test>:1:6: error: unexpected EOF while parsing");
  CHECK_STR(unit_tokens("x = (\\\n"), "<test>:1:5: error: '(' was never closed");
}

static void test_brackets_suppress_newlines(void) {
  CHECK_STR(unit_tokens("f(1,\n  2)\n"), "NAME:f OP:( NUMBER:1 OP:, NUMBER:2 OP:) NEWLINE EOF");
  CHECK_STR(unit_tokens("x = [\n# c\n\n  1,\n]\n"), "NAME:x OP:= OP:[ NUMBER:1 OP:, OP:] NEWLINE EOF");
  CHECK_STR(unit_tokens("if a:\n  x = {\n1: 2}\n  y\n"),
            "NAME:if NAME:a OP:: NEWLINE INDENT NAME:x OP:= OP:{ NUMBER:1 OP:: NUMBER:2 OP:} NEWLINE NAME:y NEWLINE "
            "DEDENT EOF");
}

static void test_bracket_errors(void) {
  CHECK_STR(unit_tokens("(]"), "<test>:1:2: error: closing parenthesis ']' does not match opening parenthesis '('");
  CHECK_STR(unit_tokens("(\n]"), "<test>:2:1: error: closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  CHECK_STR(unit_tokens("x)"), "<test>:1:2: error: unmatched ')'");
  CHECK_STR(unit_tokens("}"), "<test>:1:1: error: unmatched '}'");
  CHECK_STR(unit_tokens("x = (1,\n"), "<test>:1:5: error: '(' was never closed");
  CHECK_STR(unit_tokens("[(\n{"), "<test>:2:1: error: '{' was never closed");
}

static void test_too_many_nested_parentheses(void) {
  char source[C2T_MAX_PAREN_LEVELS + 2];
  memset(source, '(', sizeof source - 1);
  source[sizeof source - 1] = '\0';
  CHECK_STR(unit_tokens(source), "<test>:1:201: error: too many nested parentheses (limit is 200)");
  source[C2T_MAX_PAREN_LEVELS] = '\0';
  CHECK_STR(unit_tokens(source), "<test>:1:200: error: '(' was never closed");
}

/* ------------------------------------------------------------- comments */

static void test_comments(void) {
  LexRun *run = lex("x = 1  # trailing\n  # own line\r\nif a:\n    b # end");
  CHECK(run->ok && run->list.comment_count == 3);
  Comment *c = run->list.comments;
  CHECK(c[0].len == 10 && memcmp(c[0].text, "# trailing", 10) == 0 && !c[0].own_line);
  CHECK(c[0].pos.line == 1 && c[0].pos.col == 7 && c[0].pos.offset == 7);
  CHECK(c[1].len == 10 && memcmp(c[1].text, "# own line", 10) == 0 && c[1].own_line && c[1].pos.line == 2);
  CHECK(c[2].len == 5 && c[2].pos.line == 4 && !c[2].own_line);
  CHECK_STR(unit_tokens("x = 1  # trailing\n  # own line\r\nif a:\n    b # end"),
            "NAME:x OP:= NUMBER:1 NEWLINE NAME:if NAME:a OP:: NEWLINE INDENT NAME:b NEWLINE DEDENT EOF");
  run = lex("f(a,  # first\n  b)  # second\n");
  CHECK(run->ok && run->list.comment_count == 2 && !run->list.comments[0].own_line);
}

/* -------------------------------------------------------------- numbers */

static void test_number_forms(void) {
  CHECK_STR(unit_tokens("0 00 0_0 7 123 1_000 0x_ff 0XAB 0o17 0O_7 0b1_0 0B1"),
            "NUMBER:0 NUMBER:00 NUMBER:0_0 NUMBER:7 NUMBER:123 NUMBER:1_000 NUMBER:0x_ff NUMBER:0XAB NUMBER:0o17 "
            "NUMBER:0O_7 NUMBER:0b1_0 NUMBER:0B1 NEWLINE EOF");
  CHECK_STR(unit_tokens("1. .5 1.5 1e5 1E-5 1e+5 1_0.0_1e+1_0 0e0 09.5 09e1 00.0"),
            "NUMBER:1. NUMBER:.5 NUMBER:1.5 NUMBER:1e5 NUMBER:1E-5 NUMBER:1e+5 NUMBER:1_0.0_1e+1_0 NUMBER:0e0 "
            "NUMBER:09.5 NUMBER:09e1 NUMBER:00.0 NEWLINE EOF");
  CHECK_STR(unit_tokens("1j 1.5J 0j 09j .5j 1e5j 1_0j"),
            "NUMBER:1j NUMBER:1.5J NUMBER:0j NUMBER:09j NUMBER:.5j NUMBER:1e5j NUMBER:1_0j NEWLINE EOF");
  CHECK_STR(unit_tokens("x.y 1 .real ...x"), "NAME:x OP:. NAME:y NUMBER:1 OP:. NAME:real OP:... NAME:x NEWLINE EOF");
}

static void test_number_followed_by_keyword(void) {
  CHECK_STR(unit_tokens("1if x else 2"), "NUMBER:1 NAME:if NAME:x NAME:else NUMBER:2 NEWLINE EOF");
  CHECK_STR(unit_tokens("0o1for"), "NUMBER:0o1 NAME:for NEWLINE EOF");
  CHECK_STR(unit_tokens("0x1for"), "NUMBER:0x1f NAME:or NEWLINE EOF"); /* `f` is a hex digit */
  CHECK_STR(unit_tokens("1else"), "NUMBER:1 NAME:else NEWLINE EOF");
  CHECK_STR(unit_tokens("0b1or 1.0is 0o1in 1jnot 1and"),
            "NUMBER:0b1 NAME:or NUMBER:1.0 NAME:is NUMBER:0o1 NAME:in NUMBER:1j NAME:not NUMBER:1 NAME:and NEWLINE EOF");
}

static void test_decimal_errors(void) {
  CHECK_STR(unit_tokens("1__0"), "<test>:1:2: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1_"), "<test>:1:2: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1e"), "<test>:1:1: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1e+"), "<test>:1:3: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1abc"), "<test>:1:1: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1_e5"), "<test>:1:2: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1.__class__"), "<test>:1:2: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1e1x"), "<test>:1:3: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1jx"), "<test>:1:2: error: invalid imaginary literal");
}

/* CPython 3.11+: a decimal int literal of more than 4300 digits is a
 * SyntaxError (the output would not parse); other bases, floats, imaginary
 * numbers and zeros have no such limit. */
static void test_int_digit_limit(void) {
  static char source[9000];
  memset(source, '7', 4300);
  source[4300] = '\0';
  CHECK(strncmp(unit_tokens(source), "NUMBER:", 7) == 0);
  memset(source, '7', 4301);
  source[4301] = '\0';
  CHECK_STR(unit_tokens(source), "<test>:1:1: error: Exceeds the limit (4300 digits) for integer string conversion: "
                                 "value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit");
  for (int i = 0; i < 4301; i++) /* underscores do not count */
    memcpy(source + 2 * i, i < 4300 ? "7_" : "7", i < 4300 ? 2 : 2);
  CHECK(strncmp(unit_tokens(source), "<test>:1:1: error: Exceeds the limit", 36) == 0);
  memset(source, '7', 5000);
  memcpy(source + 5000, ".5", 3);
  CHECK(strncmp(unit_tokens(source), "NUMBER:", 7) == 0);
  memcpy(source + 5000, "j", 2);
  CHECK(strncmp(unit_tokens(source), "NUMBER:", 7) == 0);
  memcpy(source, "0x", 2);
  memset(source + 2, 'f', 5000);
  source[5002] = '\0';
  CHECK(strncmp(unit_tokens(source), "NUMBER:", 7) == 0);
}

static void test_leading_zeros(void) {
  CHECK_STR(unit_tokens("012"),
            "<test>:1:1: error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
            "integers");
  CHECK_STR(unit_tokens("x = 0_7"),
            "<test>:1:5: error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
            "integers");
}

static void test_prefixed_number_errors(void) {
  CHECK_STR(unit_tokens("0x"), "<test>:1:2: error: invalid hexadecimal literal");
  CHECK_STR(unit_tokens("0x_"), "<test>:1:3: error: invalid hexadecimal literal");
  CHECK_STR(unit_tokens("0x1z"), "<test>:1:3: error: invalid hexadecimal literal");
  CHECK_STR(unit_tokens("0x1and 1"), "<test>:1:4: error: invalid hexadecimal literal"); /* `a` is a hex digit */
  CHECK_STR(unit_tokens("0o"), "<test>:1:2: error: invalid octal literal");
  CHECK_STR(unit_tokens("0o8"), "<test>:1:3: error: invalid digit '8' in octal literal");
  CHECK_STR(unit_tokens("0o19"), "<test>:1:4: error: invalid digit '9' in octal literal");
  CHECK_STR(unit_tokens("0b"), "<test>:1:2: error: invalid binary literal");
  CHECK_STR(unit_tokens("0b2"), "<test>:1:3: error: invalid digit '2' in binary literal");
  CHECK_STR(unit_tokens("0b12"), "<test>:1:4: error: invalid digit '2' in binary literal");
  CHECK_STR(unit_tokens("0b1_"), "<test>:1:4: error: invalid binary literal");
}

/* -------------------------------------------------------------- strings */

static void test_string_prefixes(void) {
  CHECK_STR(unit_tokens("'a' \"b\" r'c' u'd' R'e' U'f' b'g' B'h'"),
            "STRING:'a' STRING:\"b\" STRING:r'c' STRING:u'd' STRING:R'e' STRING:U'f' STRING:b'g' STRING:B'h' NEWLINE EOF");
  CHECK_STR(unit_tokens("br'i' rb'j' Br'k' bR'l' RB'm' rB'n'"),
            "STRING:br'i' STRING:rb'j' STRING:Br'k' STRING:bR'l' STRING:RB'm' STRING:rB'n' NEWLINE EOF");
  /* u combines with nothing; other letters make a name */
  CHECK_STR(unit_tokens("ub'x' bu'x' ur'x' xr'a'"),
            "NAME:ub STRING:'x' NAME:bu STRING:'x' NAME:ur STRING:'x' NAME:xr STRING:'a' NEWLINE EOF");
}

static void test_string_quotes(void) {
  CHECK_STR(unit_tokens("'' \"\" '''a\nb''' \"\"\"c\"\"\" ''''''"),
            "STRING:'' STRING:\"\" STRING:'''a\nb''' STRING:\"\"\"c\"\"\" STRING:'''''' NEWLINE EOF");
  CHECK_STR(unit_tokens("'a\\'b' \"\\\"\" '''a\\'''b'''"), "STRING:'a\\'b' STRING:\"\\\"\" STRING:'''a\\'''b''' NEWLINE EOF");
  CHECK_STR(unit_tokens("'a\\\nb'"), "STRING:'a\\\nb' NEWLINE EOF");
  CHECK_STR(unit_tokens("'''a''''"), "<test>:1:8: error: unterminated string literal (detected at line 1)");
}

static void test_unterminated_strings(void) {
  CHECK_STR(unit_tokens("'abc\n"), "<test>:1:1: error: unterminated string literal (detected at line 1)");
  CHECK_STR(unit_tokens("x = b'abc"), "<test>:1:5: error: unterminated string literal (detected at line 1)");
  CHECK_STR(unit_tokens("'a\rb'"), "<test>:1:1: error: unterminated string literal (detected at line 1)");
  CHECK_STR(unit_tokens("x = '''abc\n\n"), "<test>:1:5: error: unterminated triple-quoted string literal (detected at line 2)");
  CHECK_STR(unit_tokens("\"\"\"\n\n\nx"), "<test>:1:1: error: unterminated triple-quoted string literal (detected at line 4)");
}

static void test_string_escape_errors(void) {
  CHECK_STR(unit_tokens("'\\x4'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape");
  CHECK_STR(unit_tokens("'a\\x4g'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 1-3: truncated \\xXX escape");
  CHECK_STR(unit_tokens("'\\u12'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-3: truncated \\uXXXX escape");
  CHECK_STR(unit_tokens("'\\U0001F60'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: truncated "
            "\\UXXXXXXXX escape");
  CHECK_STR(unit_tokens("'\\U00110000'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode character");
  CHECK_STR(unit_tokens("'\\N'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: malformed \\N character escape");
  CHECK_STR(unit_tokens("'\\N{}'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: malformed \\N character escape");
  CHECK_STR(unit_tokens("'\\N{abc'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: malformed \\N character escape");
  CHECK_STR(unit_tokens("'\\N{a_b}'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: unknown Unicode character name");
  /* non-ASCII characters count as 10-character \U escapes in CPython's buffer */
  CHECK_STR(unit_tokens("'\xC3\xA9\\u12'"),
            "<test>:1:1: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 10-13: truncated \\uXXXX escape");
}

static void test_valid_escapes_and_raw_strings(void) {
  CHECK_STR(unit_tokens("'\\xe9\\u00e9\\U0001F600\\N{EM DASH}\\d\\\xC3\xA9'"),
            "STRING:'\\xe9\\u00e9\\U0001F600\\N{EM DASH}\\d\\\xC3\xA9' NEWLINE EOF");
  CHECK_STR(unit_tokens("r'\\x' rb'\\x' R'\\N' b'\\u12' b'\\N'"),
            "STRING:r'\\x' STRING:rb'\\x' STRING:R'\\N' STRING:b'\\u12' STRING:b'\\N' NEWLINE EOF");
}

static void test_bytes_errors(void) {
  CHECK_STR(unit_tokens("b'\\x4'"), "<test>:1:1: error: (value error) invalid \\x escape at position 0");
  CHECK_STR(unit_tokens("b'ab\\xzz'"), "<test>:1:1: error: (value error) invalid \\x escape at position 2");
  CHECK_STR(unit_tokens("x = b'\xC3\xA9'"), "<test>:1:5: error: bytes can only contain ASCII literal characters");
  CHECK_STR(unit_tokens("rb'\xC3\xA9'"), "<test>:1:1: error: bytes can only contain ASCII literal characters");
}

/* ------------------------------------------------------------ f-strings */

static void test_fstring_simple(void) {
  CHECK_STR(unit_tokens("f'a{b}c'"), "FSTART:f' FMID:a OP:{ NAME:b OP:} FMID:c FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("F\"{x}{y}\""), "FSTART:F\" OP:{ NAME:x OP:} OP:{ NAME:y OP:} FEND:\" NEWLINE EOF");
  CHECK_STR(unit_tokens("f'' f'''''' f\"\""), "FSTART:f' FEND:' FSTART:f''' FEND:''' FSTART:f\" FEND:\" NEWLINE EOF");
  CHECK_STR(unit_tokens("fr'a' Rf'b' FR'c' rF'd'"),
            "FSTART:fr' FMID:a FEND:' FSTART:Rf' FMID:b FEND:' FSTART:FR' FMID:c FEND:' FSTART:rF' FMID:d FEND:' NEWLINE EOF");
}

static void test_fstring_doubled_braces(void) {
  CHECK_STR(unit_tokens("f'{{a}}'"), "FSTART:f' FMID:{{a}} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{{{x}}}'"), "FSTART:f' FMID:{{ OP:{ NAME:x OP:} FMID:}} FEND:' NEWLINE EOF");
}

static void test_fstring_nested_quotes(void) {
  CHECK_STR(unit_tokens("f'{'a'}'"), "FSTART:f' OP:{ STRING:'a' OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f\"{d[\"k\"]}\""), "FSTART:f\" OP:{ NAME:d OP:[ STRING:\"k\" OP:] OP:} FEND:\" NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{f'{x}'}'"), "FSTART:f' OP:{ FSTART:f' OP:{ NAME:x OP:} FEND:' OP:} FEND:' NEWLINE EOF");
}

static void test_fstring_format_spec(void) {
  CHECK_STR(unit_tokens("f'{x:>{w}.2f}'"),
            "FSTART:f' OP:{ NAME:x OP:: FMID:> OP:{ NAME:w OP:} FMID:.2f OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{x:{y:{z}}}'"),
            "FSTART:f' OP:{ NAME:x OP:: OP:{ NAME:y OP:: OP:{ NAME:z OP:} OP:} OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{x:}'"), "FSTART:f' OP:{ NAME:x OP:: OP:} FEND:' NEWLINE EOF");
  /* a format spec ends at a line end in single-quoted f-strings */
  CHECK_STR(unit_tokens("f'{x:\n}'"), "FSTART:f' OP:{ NAME:x OP:: OP:} FEND:' NEWLINE EOF");
}

static void test_fstring_conversion_and_debug(void) {
  CHECK_STR(unit_tokens("f'{x!r}'"), "FSTART:f' OP:{ NAME:x OP:! NAME:r OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{x = !r:>10}'"),
            "FSTART:f' OP:{ NAME:x OP:= OP:! NAME:r OP:: FMID:>10 OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{a!=b}'"), "FSTART:f' OP:{ NAME:a OP:!= NAME:b OP:} FEND:' NEWLINE EOF");
  LexRun *run = lex("f'{x!s}'");
  CHECK(run->ok && run->list.tokens[3].op == OP_EXCLAIM);
}

static void test_fstring_colons_in_brackets(void) {
  CHECK_STR(unit_tokens("f'{a[1:2]}'"), "FSTART:f' OP:{ NAME:a OP:[ NUMBER:1 OP:: NUMBER:2 OP:] OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{(x:=1)}'"), "FSTART:f' OP:{ OP:( NAME:x OP::= NUMBER:1 OP:) OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{x:=1}'"), "FSTART:f' OP:{ NAME:x OP:: FMID:=1 OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{(lambda: 1)()}'"),
            "FSTART:f' OP:{ OP:( NAME:lambda OP:: NUMBER:1 OP:) OP:( OP:) OP:} FEND:' NEWLINE EOF");
}

static void test_fstring_multiline_fields(void) {
  CHECK_STR(unit_tokens("f'''a\n{x # c\n}b'''"), "FSTART:f''' FMID:a\n OP:{ NAME:x OP:} FMID:b FEND:''' NEWLINE EOF");
  CHECK_STR(unit_tokens("f\"{1 +\n 2}\""), "FSTART:f\" OP:{ NUMBER:1 OP:+ NUMBER:2 OP:} FEND:\" NEWLINE EOF");
  LexRun *run = lex("f'''{x # c\n}'''");
  CHECK(run->ok && run->list.comment_count == 1);
}

static void test_fstring_escapes(void) {
  CHECK_STR(unit_tokens("f'\\N{BULLET} {x}'"), "FSTART:f' FMID:\\N{BULLET}  OP:{ NAME:x OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("rf'\\{x}'"), "FSTART:rf' FMID:\\ OP:{ NAME:x OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'\\'{x}'"), "FSTART:f' FMID:\\' OP:{ NAME:x OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{x}\\x4'"),
            "<test>:1:6: error: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape");
  CHECK_STR(unit_tokens("rf'\\x4 \\N'"), "FSTART:rf' FMID:\\x4 \\N FEND:' NEWLINE EOF");
}

static void test_fstring_errors(void) {
  CHECK_STR(unit_tokens("f'a}b'"), "<test>:1:4: error: f-string: single '}' is not allowed");
  CHECK_STR(unit_tokens("f'{x}}'"), "<test>:1:6: error: f-string: single '}' is not allowed");
  CHECK_STR(unit_tokens("f'{'"), "<test>:1:4: error: f-string: expecting '}'");
  CHECK_STR(unit_tokens("f'{x'"), "<test>:1:5: error: f-string: expecting '}'");
  CHECK_STR(unit_tokens("f'{)}'"), "<test>:1:4: error: f-string: unmatched ')'");
  CHECK_STR(unit_tokens("f'{x]}'"), "<test>:1:5: error: f-string: unmatched ']'");
  CHECK_STR(unit_tokens("f'abc\n"), "<test>:1:1: error: unterminated f-string literal (detected at line 1)");
  CHECK_STR(unit_tokens("x = f'''abc\n"), "<test>:1:5: error: unterminated triple-quoted f-string literal (detected at line 1)");
  CHECK_STR(unit_tokens("f\"{x"), "<test>:1:3: error: '{' was never closed");
  CHECK_STR(unit_tokens("f'{x:{y:{z:{w}}}}'"), "<test>:1:11: error: too many nested replacement fields in an f-string (limit is 2)");
}

static void test_too_many_nested_fstrings(void) {
  Buf source = {0};
  int depth = C2T_MAX_FSTRING_LEVELS - 1;
  for (int i = 0; i < depth; i++)
    buf_puts(&source, "f'{");
  buf_puts(&source, "1");
  for (int i = 0; i < depth; i++)
    buf_puts(&source, "}'");
  LexRun *run = lex(source.data);
  CHECK(run->ok);
  buf_free(&source);
  for (int i = 0; i <= depth; i++)
    buf_puts(&source, "f'{");
  buf_puts(&source, "1");
  for (int i = 0; i <= depth; i++)
    buf_puts(&source, "}'");
  run = lex(source.data);
  CHECK(!run->ok && strstr(run->error, "error: C2T002: too many nested f-strings (limit is 149)"));
  buf_free(&source);
}

/* ------------------------------------------------------------ operators */

static void test_operators(void) {
  const char *source = "( ) [ ] { } , : ; . ... -> + - * / // % ** @ << >> & | ^ ~ < > <= >= == != = := "
                       "+= -= *= /= //= %= **= @= <<= >>= &= |= ^=";
  LexRun *run = lex(source);
  CHECK(run->ok);
  int ops = 0;
  for (int i = 0; run->ok && i < run->list.count; i++) {
    Token *t = &run->list.tokens[i];
    if (t->kind != TOK_OP)
      continue;
    ops++;
    const char *spelling = op_spelling(t->op);
    CHECK((int)strlen(spelling) == t->len && memcmp(spelling, t->text, (size_t)t->len) == 0);
  }
  CHECK(ops == OP_COUNT - 2); /* every operator but OP_NONE and OP_EXCLAIM */
  CHECK_STR(unit_tokens("a**=b//c->d...e"), "NAME:a OP:**= NAME:b OP:// NAME:c OP:-> NAME:d OP:... NAME:e NEWLINE EOF");
  CHECK_STR(unit_tokens("x<<=1>>2..3"), "NAME:x OP:<<= NUMBER:1 OP:>> NUMBER:2. NUMBER:.3 NEWLINE EOF");
}

static void test_invalid_operator_characters(void) {
  CHECK_STR(unit_tokens("$"), "<test>:1:1: error: invalid syntax");
  CHECK_STR(unit_tokens("a ? b"), "<test>:1:3: error: invalid syntax");
  CHECK_STR(unit_tokens("`x`"), "<test>:1:1: error: invalid syntax");
  CHECK_STR(unit_tokens("!x"), "<test>:1:1: error: invalid syntax");
  CHECK_STR(unit_tokens("1 <> 2"), "<test>:1:3: error: invalid syntax");
  /* as in CPython, a later tokenizer error takes precedence */
  CHECK_STR(unit_tokens("x = $ 1abc"), "<test>:1:7: error: invalid decimal literal");
  CHECK_STR(unit_tokens("x ! y\n)"), "<test>:2:1: error: unmatched ')'");
  CHECK_STR(unit_tokens("x = $\n  y"), "<test>:1:5: error: invalid syntax");
  CHECK_STR(unit_tokens("x = $ ("), "<test>:1:5: error: invalid syntax");
  CHECK_STR(unit_tokens("(\n$"), "<test>:1:1: error: '(' was never closed");
}

static void test_non_printable_characters(void) {
  CHECK_STR(unit_tokens("\x01"), "<test>:1:1: error: invalid non-printable character U+0001");
  CHECK_STR(unit_tokens("x\x0b"), "<test>:1:2: error: invalid non-printable character U+000B");
  CHECK_STR(unit_tokens("\x7f"), "<test>:1:1: error: invalid non-printable character U+007F");
}

/* ------------------------------------------------------ unicode, encodings */

static void test_unicode_identifiers(void) {
  CHECK_STR(unit_tokens("\xCF\x80 = 1\n"), "NAME:\xCF\x80 OP:= NUMBER:1 NEWLINE EOF");
  CHECK_STR(unit_tokens("a\xCC\x80 \xE5\x90\x8D\xE5\x89\x8D _\xC2\xB7x"),
            "NAME:a\xCC\x80 NAME:\xE5\x90\x8D\xE5\x89\x8D NAME:_\xC2\xB7x NEWLINE EOF");
  CHECK_STR(unit_tokens("\xF0\x9D\x90\x80 = 1"), "NAME:\xF0\x9D\x90\x80 OP:= NUMBER:1 NEWLINE EOF");
  CHECK_STR(unit_tokens("s = '\xE2\x82\xAC' # \xE2\x82\xAC"), "NAME:s OP:= STRING:'\xE2\x82\xAC' NEWLINE EOF");
}

static void test_invalid_unicode_characters(void) {
  CHECK_STR(unit_tokens("\xE2\x82\xAC"), "<test>:1:1: error: invalid character '\xE2\x82\xAC' (U+20AC)");
  CHECK_STR(unit_tokens("a\xE2\x82\xAC" "b"), "<test>:1:2: error: invalid character '\xE2\x82\xAC' (U+20AC)");
  CHECK_STR(unit_tokens("\xCC\x80 = 1"), "<test>:1:1: error: invalid character '\xCC\x80' (U+0300)");
  CHECK_STR(unit_tokens("a\xC2\xA0" "b"), "<test>:1:2: error: invalid non-printable character U+00A0");
  CHECK_STR(unit_tokens("x\xE2\x80\x8B = 1"), "<test>:1:2: error: invalid non-printable character U+200B");
}

static void test_bom(void) {
  CHECK_STR(unit_tokens("\xEF\xBB\xBFx = 1\n"), "NAME:x OP:= NUMBER:1 NEWLINE EOF");
  LexRun *run = lex("\xEF\xBB\xBFx = 1\n");
  CHECK(run->ok && run->list.tokens[0].span.start.col == 0 && run->list.tokens[0].span.start.offset == 3);
  CHECK_STR(unit_tokens("\xEF\xBB\xBF# coding: utf-8\nx\n"), "NAME:x NEWLINE EOF");
  CHECK_STR(unit_tokens("\xEF\xBB\xBF# coding: latin-1\n"), "<test>:1:2: error: encoding problem: iso-8859-1 with BOM");
  CHECK_STR(unit_tokens("\xEF\xBB\xBF# coding: utf8\n"), "<test>:1:2: error: encoding problem: utf8 with BOM");
}

static void test_coding_cookie(void) {
  /* one-byte codecs are decoded to UTF-8 (the output is UTF-8) */
  CHECK_STR(unit_tokens("# -*- coding: latin-1 -*-\nx = '\xE9' + \xE9t\xE9\n"),
            "NAME:x OP:= STRING:'\xC3\xA9' OP:+ NAME:\xC3\xA9t\xC3\xA9 NEWLINE EOF");
  CHECK_STR(unit_tokens("#!/usr/bin/env python\n# vim: set fileencoding=koi8-r :\nx = '\xF0'\n"),
            "NAME:x OP:= STRING:'\xD0\x9F' NEWLINE EOF");
  CHECK_STR(unit_tokens("# coding: cp1252\nx = '\x80'\n"), "NAME:x OP:= STRING:'\xE2\x82\xAC' NEWLINE EOF");
  CHECK_STR(unit_tokens("# coding: cp1252\nx = '\x81'\n"),
            "<test>:2:6: error: (unicode error) 'cp1252' codec can't decode byte 0x81: character maps to <undefined>");
  CHECK_STR(unit_tokens("# coding: ascii\nx = 1\n"), "NAME:x OP:= NUMBER:1 NEWLINE EOF");
  CHECK_STR(unit_tokens("# coding: ascii\n\nx = '\xE9'\n"),
            "<test>:3:6: error: (unicode error) 'ascii' codec can't decode byte 0xe9: ordinal not in range(128)");
  CHECK_STR(unit_tokens("# coding: utf-16\nx = 1\n"),
            "<test>:1:1: error: encoding not supported: utf-16 (it does not read ASCII as ASCII: write the source in UTF-8)");
  CHECK_STR(unit_tokens("# coding: euc-jp\nx = 1\n"), "NAME:x OP:= NUMBER:1 NEWLINE EOF");
  CHECK_STR(unit_tokens("# coding=UTF_8-unix\nx\n"), "NAME:x NEWLINE EOF");
  CHECK_STR(unit_tokens("# coding: utf8\nx = '\xFF'\n"),
            "<test>:2:6: error: (unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte");
  CHECK_STR(unit_tokens("# coding: foo\n"), "<test>:1:1: error: unknown encoding: foo");
  CHECK_STR(unit_tokens("#!python\n# coding: foo\n"), "<test>:2:1: error: unknown encoding: foo");
  /* only lines 1 and 2, and line 2 only after a comment or blank line 1 */
  CHECK_STR(unit_tokens("x = 1\n# coding: foo\n"), "NAME:x OP:= NUMBER:1 NEWLINE EOF");
  CHECK_STR(unit_tokens("\n\n# coding: foo\n"), "EOF");
  CHECK_STR(unit_tokens("x = 1 # coding: foo\n"), "NAME:x OP:= NUMBER:1 NEWLINE EOF");
}

static void test_invalid_utf8(void) {
  CHECK_STR(unit_tokens("x = 1\xFF\n"),
            "<test>:1:6: error: (unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte");
  CHECK_STR(unit_tokens("# \xE4\xB8 c\n"),
            "<test>:1:3: error: (unicode error) 'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte");
  CHECK_STR(unit_tokens("'\xE4\xB8"),
            "<test>:1:2: error: (unicode error) 'utf-8' codec can't decode bytes in position 0-1: unexpected end of data");
  CHECK_STR(unit_tokens("'\xED\xA0\x80'"), /* a surrogate */
            "<test>:1:2: error: (unicode error) 'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte");
  CHECK_STR(unit_tokens("'\xC0\x80'"), /* overlong */
            "<test>:1:2: error: (unicode error) 'utf-8' codec can't decode byte 0xc0 in position 0: invalid start byte");
  CHECK_STR(unit_tokens("'\xF4\x90\x80\x80'"), /* above U+10FFFF */
            "<test>:1:2: error: (unicode error) 'utf-8' codec can't decode byte 0xf4 in position 0: invalid continuation byte");
}

static void test_null_bytes(void) {
  CHECK_STR(lex_error_of("x\0y", 3), "<test>:1:2: error: C2T003: source code cannot contain null bytes");
  CHECK_STR(lex_error_of("x = 1\n'a\0'", 10), "<test>:2:3: error: C2T003: source code cannot contain null bytes");
  CHECK_STR(lex_error_of("\0", 1), "<test>:1:1: error: C2T003: source code cannot contain null bytes");
  CHECK_STR(lex_error_of("x = 1\n", 6), "ok");
}

/* ---------------------------------------------------------- extra checks */

static void test_token_text_points_into_source(void) {
  LexRun *run = lex("abc = 'x'\n");
  CHECK(run->ok);
  for (int i = 0; run->ok && i < run->list.count; i++) {
    Token *t = &run->list.tokens[i];
    CHECK(t->text == run->copy + t->span.start.offset);
    CHECK((size_t)t->len == t->span.end.offset - t->span.start.offset);
  }
}

static void test_indentation_token_spans(void) {
  LexRun *run = lex("if a:\n    b\nc\n");
  CHECK(run->ok);
  Token *t = run->list.tokens;
  CHECK(t[4].kind == TOK_INDENT && span_is(&t[4], 2, 0, 2, 4));
  CHECK(t[7].kind == TOK_DEDENT && span_is(&t[7], 3, 0, 3, 0));
  run = lex("if a:\n  b");
  CHECK(run->ok && run->list.count == 9);
  t = run->list.tokens;
  CHECK(t[6].kind == TOK_NEWLINE && t[7].kind == TOK_DEDENT && t[8].kind == TOK_EOF);
  CHECK(span_is(&t[8], 2, 3, 2, 3));
}

static void test_fstring_token_spans(void) {
  LexRun *run = lex("x = rf'a{b:>3}c'\n");
  CHECK(run->ok);
  Token *t = run->list.tokens;
  CHECK(t[2].kind == TOK_FSTRING_START && span_is(&t[2], 1, 4, 1, 7));
  CHECK(t[3].kind == TOK_FSTRING_MIDDLE && span_is(&t[3], 1, 7, 1, 8));
  CHECK(t[7].kind == TOK_FSTRING_MIDDLE && t[7].len == 2 && span_is(&t[7], 1, 11, 1, 13));
  CHECK(t[10].kind == TOK_FSTRING_END && span_is(&t[10], 1, 15, 1, 16));
  run = lex("f'''a\nb{x}'''");
  CHECK(run->ok && span_is(&run->list.tokens[1], 1, 4, 2, 1));
}

static void test_crlf_inside_strings(void) {
  LexRun *run = lex("x = '''a\r\nb'''\r\ny\r\n");
  CHECK(run->ok);
  Token *t = run->list.tokens;
  CHECK(t[2].kind == TOK_STRING && span_is(&t[2], 1, 4, 2, 4));
  CHECK(t[4].kind == TOK_NAME && t[4].span.start.line == 3);
  CHECK_STR(unit_tokens("f'''{\r\nx\r\n}'''"), "FSTART:f''' OP:{ NAME:x OP:} FEND:''' NEWLINE EOF");
}

static void test_number_attribute(void) {
  CHECK_STR(unit_tokens("1.real"), "<test>:1:2: error: invalid decimal literal");
  CHECK_STR(unit_tokens("1 .real 1..real 0x1.real"),
            "NUMBER:1 OP:. NAME:real NUMBER:1. OP:. NAME:real NUMBER:0x1 OP:. NAME:real NEWLINE EOF");
}

static void test_dots_and_ellipsis(void) {
  CHECK_STR(unit_tokens(".. ... .... x[...]"), "OP:. OP:. OP:... OP:... OP:. NAME:x OP:[ OP:... OP:] NEWLINE EOF");
}

static void test_comment_after_continuation(void) {
  CHECK_STR(unit_tokens("x = 1 + \\\n  2  # c\ny\n"), "NAME:x OP:= NUMBER:1 OP:+ NUMBER:2 NEWLINE NAME:y NEWLINE EOF");
  LexRun *run = lex("x = \\\n  # c\n");
  CHECK(run->ok && run->list.comment_count == 1 && run->list.comments[0].own_line);
}

static void test_fstring_format_spec_with_set(void) {
  /* `{{` in a format spec opens a field holding a set/dict display */
  CHECK_STR(unit_tokens("f'{x:{{}}}'"), "FSTART:f' OP:{ NAME:x OP:: OP:{ OP:{ OP:} OP:} OP:} FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'{x:}}'"), "<test>:1:7: error: f-string: single '}' is not allowed");
}

static void test_fstring_triple_quotes_nested(void) {
  CHECK_STR(unit_tokens("f'''{f'''{x}'''}'''"),
            "FSTART:f''' OP:{ FSTART:f''' OP:{ NAME:x OP:} FEND:''' OP:} FEND:''' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'''{x'''"), "<test>:1:7: error: f-string: expecting '}'");
  CHECK_STR(unit_tokens("f\"a'b\" f'a\"b'"), "FSTART:f\" FMID:a'b FEND:\" FSTART:f' FMID:a\"b FEND:' NEWLINE EOF");
}

static void test_fstring_line_continuation(void) {
  CHECK_STR(unit_tokens("f'a\\\nb'"), "FSTART:f' FMID:a\\\nb FEND:' NEWLINE EOF");
  CHECK_STR(unit_tokens("f'a\nb'"), "<test>:1:1: error: unterminated f-string literal (detected at line 1)");
}

static void test_latin1_source(void) {
  LexRun *run = lex("# coding: latin-1\n\xE9 = '\xE9\xE8'\n");
  CHECK(run->ok);
  Token *t = run->list.tokens; /* decoded: each latin-1 letter is 2 UTF-8 bytes */
  CHECK(run->ok && t[0].kind == TOK_NAME && t[0].len == 2 && t[2].kind == TOK_STRING && t[2].len == 6);
}

static void test_many_tokens(void) {
  Buf source = {0};
  for (int i = 0; i < 50000; i++)
    buf_puts(&source, "a=(b,c)\n");
  LexRun *run = lex(source.data);
  CHECK(run->ok && run->list.count == 50000 * 8 + 1);
  CHECK(run->ok && run->list.tokens[run->list.count - 2].span.start.line == 50000);
  buf_free(&source);
}

/* ----------------------------------------------------------- robustness */

/* Every prefix of some tricky sources must tokenize or fail cleanly (run
 * the suite under ASan/UBSan to make this meaningful). */
static void test_truncated_sources(void) {
  static const char *const sources[] = {
      "\xEF\xBB\xBF# coding: utf-8\nif x:\n\tf(a, b'\\x41', r'\\\\', '''x\ny''')\\\n + 0x_1f_2 + 1_0j\n",
      "def f():\n  return f'{x!r:>{w}.{p}}' f\"{'a' if b else f'{c}'}\" rf'\\{{}}'\n",
      "x = [1.5e-3, 0o17, 0b1_0, .5j, 1if y else 2]  # c\n\r\n  \f\n",
      "s = '\\N{EM DASH}\\U0001F600\\u00e9\\xff' + \"\"\"a\\\nb\"\"\" \xCF\x80 = '\xE2\x82\xAC'\n",
      "f'''{\n  x # comment\n  :{y}\n}''' + f'{a[1:2]=}' + f'{{}}'",
      "class A:\n    @d\n    async def m(self) -> None:\n        await x ** 2 // 3 @ y\n",
  };
  for (size_t s = 0; s < sizeof sources / sizeof *sources; s++) {
    size_t length = strlen(sources[s]);
    for (size_t n = 0; n <= length; n++)
      lex_bytes(sources[s], n);
    CHECK(lex(sources[s])->ok);
  }
}

/* Garbage input: every byte value alone and in pseudo-random strings. */
static void test_garbage_input(void) {
  for (int b = 0; b < 256; b++) {
    char one = (char)b;
    lex_bytes(&one, 1);
  }
  static const char alphabet[] = "'\"{}()[]\\\n\r\t #fFrRbBuU0x1e_.:=!<>\xC3\xA9\xFF\xE2\x82";
  uint32_t seed = 12345;
  char text[64];
  for (int round = 0; round < 20000; round++) {
    size_t length = 0;
    seed = seed * 1103515245u + 12345u;
    size_t want = (seed >> 16) % sizeof text;
    for (; length < want; length++) {
      seed = seed * 1103515245u + 12345u;
      text[length] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    LexRun *run = lex_bytes(text, length);
    if (run->ok)
      CHECK(run->list.count > 0 && run->list.tokens[run->list.count - 1].kind == TOK_EOF);
  }
}

/* ---------------------------------------------------------------- suite */

void run_tokenize_tests(void) {
  UNIT_RUN(test_simple_statement);
  UNIT_RUN(test_empty_and_blank_sources);
  UNIT_RUN(test_newline_added_at_eof);
  UNIT_RUN(test_line_endings);
  UNIT_RUN(test_keywords);
  UNIT_RUN(test_int_digit_limit);
  UNIT_RUN(test_spans);
  UNIT_RUN(test_indent_dedent);
  UNIT_RUN(test_blank_and_comment_lines_keep_indentation);
  UNIT_RUN(test_tabs);
  UNIT_RUN(test_form_feed_resets_column);
  UNIT_RUN(test_dedent_errors);
  UNIT_RUN(test_too_many_indentation_levels);
  UNIT_RUN(test_line_continuation);
  UNIT_RUN(test_line_continuation_errors);
  UNIT_RUN(test_brackets_suppress_newlines);
  UNIT_RUN(test_bracket_errors);
  UNIT_RUN(test_too_many_nested_parentheses);
  UNIT_RUN(test_comments);
  UNIT_RUN(test_number_forms);
  UNIT_RUN(test_number_followed_by_keyword);
  UNIT_RUN(test_decimal_errors);
  UNIT_RUN(test_leading_zeros);
  UNIT_RUN(test_prefixed_number_errors);
  UNIT_RUN(test_string_prefixes);
  UNIT_RUN(test_string_quotes);
  UNIT_RUN(test_unterminated_strings);
  UNIT_RUN(test_string_escape_errors);
  UNIT_RUN(test_valid_escapes_and_raw_strings);
  UNIT_RUN(test_bytes_errors);
  UNIT_RUN(test_fstring_simple);
  UNIT_RUN(test_fstring_doubled_braces);
  UNIT_RUN(test_fstring_nested_quotes);
  UNIT_RUN(test_fstring_format_spec);
  UNIT_RUN(test_fstring_conversion_and_debug);
  UNIT_RUN(test_fstring_colons_in_brackets);
  UNIT_RUN(test_fstring_multiline_fields);
  UNIT_RUN(test_fstring_escapes);
  UNIT_RUN(test_fstring_errors);
  UNIT_RUN(test_too_many_nested_fstrings);
  UNIT_RUN(test_operators);
  UNIT_RUN(test_invalid_operator_characters);
  UNIT_RUN(test_non_printable_characters);
  UNIT_RUN(test_unicode_identifiers);
  UNIT_RUN(test_invalid_unicode_characters);
  UNIT_RUN(test_bom);
  UNIT_RUN(test_coding_cookie);
  UNIT_RUN(test_invalid_utf8);
  UNIT_RUN(test_null_bytes);
  UNIT_RUN(test_token_text_points_into_source);
  UNIT_RUN(test_indentation_token_spans);
  UNIT_RUN(test_fstring_token_spans);
  UNIT_RUN(test_crlf_inside_strings);
  UNIT_RUN(test_number_attribute);
  UNIT_RUN(test_dots_and_ellipsis);
  UNIT_RUN(test_comment_after_continuation);
  UNIT_RUN(test_fstring_format_spec_with_set);
  UNIT_RUN(test_fstring_triple_quotes_nested);
  UNIT_RUN(test_fstring_line_continuation);
  UNIT_RUN(test_latin1_source);
  UNIT_RUN(test_many_tokens);
  UNIT_RUN(test_truncated_sources);
  UNIT_RUN(test_garbage_input);
  lex_run_free();
}
