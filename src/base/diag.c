/*
 * diag.c — located diagnostics.
 *
 *   FILE:LINE:COL: error: C2Tnnn: MESSAGE
 *       the source line
 *       ^
 *
 * COL is 1-based and counts characters (UTF-8 code points), so the caret
 * lines up under the offending character in a terminal.
 */
#include <stdio.h>
#include <string.h>

#include "../c2t.h"

/* Bounds of the source line holding byte `offset`. */
static void diag_line_bounds(const Source *source, size_t offset, size_t *begin, size_t *end) {
  if (offset > source->len)
    offset = source->len;
  size_t b = offset;
  while (b > 0 && source->text[b - 1] != '\n' && source->text[b - 1] != '\r')
    b--;
  size_t e = offset;
  while (e < source->len && source->text[e] != '\n' && source->text[e] != '\r')
    e++;
  *begin = b;
  *end = e;
}

/* Number of characters in text[0..length): bytes that do not continue a
 * UTF-8 sequence. */
static int diag_count_chars(const char *text, size_t length) {
  int count = 0;
  for (size_t i = 0; i < length; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80)
      count++;
  return count;
}

static void diag_report(Diag *diag, Pos at, const char *severity, const char *code, const char *fmt,
                        va_list args) {
  const Source *source = diag->source;
  size_t begin = 0, end = 0;
  int column = at.col + 1;
  if (source && source->text) {
    diag_line_bounds(source, at.offset, &begin, &end);
    size_t caret = at.offset > source->len ? source->len : at.offset;
    if (caret < begin)
      caret = begin;
    column = diag_count_chars(source->text + begin, caret - begin) + 1;
  }
  buf_printf(&diag->messages, "%s:%d:%d: %s: %s: ", source ? source->name : "<input>", at.line, column, severity,
             code ? code : C2T_CODE_SYNTAX);
  char message[1024];
  vsnprintf(message, sizeof message, fmt, args);
  buf_puts(&diag->messages, message);
  buf_putc(&diag->messages, '\n');
  if (!source || !source->text || end - begin > 1000)
    return;
  buf_puts(&diag->messages, "    ");
  for (size_t i = begin; i < end; i++) {
    unsigned char c = (unsigned char)source->text[i];
    buf_putc(&diag->messages, (c < 0x20 && c != '\t') ? ' ' : (char)c);
  }
  buf_puts(&diag->messages, "\n    ");
  /* one blank per character before the caret; tabs stay tabs so it lines up */
  size_t caret = at.offset < begin ? begin : (at.offset > end ? end : at.offset);
  for (size_t i = begin; i < caret; i++) {
    unsigned char c = (unsigned char)source->text[i];
    if ((c & 0xC0) != 0x80)
      buf_putc(&diag->messages, c == '\t' ? '\t' : ' ');
  }
  buf_puts(&diag->messages, "^\n");
}

_Noreturn void diag_error(Diag *diag, Pos at, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  diag_report(diag, at, "error", diag->code, fmt, args);
  va_end(args);
  diag->error_count++;
  longjmp(diag->on_error, 1);
}

_Noreturn void diag_error_code(Diag *diag, const char *code, Pos at, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  diag_report(diag, at, "error", code, fmt, args);
  va_end(args);
  diag->error_count++;
  longjmp(diag->on_error, 1);
}

_Noreturn void diag_limit(Diag *diag, Pos at, const char *what, long long limit) {
  diag_error_code(diag, C2T_CODE_LIMIT, at, "too many %s (limit is %lld)", what, limit);
}

void diag_warning(Diag *diag, Pos at, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  diag_report(diag, at, "warning", diag->code, fmt, args);
  va_end(args);
}
