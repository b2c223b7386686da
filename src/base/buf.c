/*
 * buf.c — a growable byte buffer for emitted text and messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c2t.h"

static void buf_reserve(Buf *buf, size_t extra) {
  if (buf->cap - buf->len > extra)
    return;
  size_t capacity = buf->cap ? buf->cap : 256;
  while (capacity - buf->len <= extra)
    capacity *= 2;
  char *data = realloc(buf->data, capacity);
  if (!data) {
    fputs("cutile2triton: out of memory\n", stderr);
    abort();
  }
  buf->data = data;
  buf->cap = capacity;
}

void buf_put(Buf *buf, const char *text, size_t length) {
  buf_reserve(buf, length);
  if (length)
    memcpy(buf->data + buf->len, text, length);
  buf->len += length;
  buf->data[buf->len] = '\0';
}

const char *buf_text(const Buf *buf) { return buf->data ? buf->data : ""; }

void buf_puts(Buf *buf, const char *text) { buf_put(buf, text, strlen(text)); }

void buf_putc(Buf *buf, char c) { buf_put(buf, &c, 1); }

void buf_printf(Buf *buf, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int length = vsnprintf(NULL, 0, fmt, args);
  va_end(args);
  if (length <= 0)
    return;
  buf_reserve(buf, (size_t)length);
  va_start(args, fmt);
  vsnprintf(buf->data + buf->len, (size_t)length + 1, fmt, args);
  va_end(args);
  buf->len += (size_t)length;
}

void buf_free(Buf *buf) {
  free(buf->data);
  buf->data = NULL;
  buf->len = buf->cap = 0;
}
