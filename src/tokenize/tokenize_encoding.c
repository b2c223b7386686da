/*
 * tokenize_encoding.c — what CPython checks before tokenizing: NUL bytes,
 * the UTF-8 byte order mark, the PEP 263 coding cookie and, for UTF-8
 * sources, that every byte sequence is valid UTF-8.
 *
 * The output is UTF-8, so a source in another codec is read as CPython reads
 * it (codec_tables.h, generated from Python's codecs):
 *   ascii: a byte >= 0x80 is an error, as in CPython;
 *   one-byte codecs that read ASCII as ASCII (latin-1, cp1252, koi8-r, ...):
 *     a source with bytes >= 0x80 is decoded to UTF-8 (a byte the codec does
 *     not map is an error, as in CPython) and the cookie's name becomes
 *     "utf-8": the text is what the user wrote, and the declaration stays
 *     true of the bytes written; an ASCII-only source is kept as it is (its
 *     cookie is true of it either way);
 *   multi-byte codecs that read ASCII as ASCII (euc-jp, gbk, ...): an
 *     ASCII-only source is kept as it is; other bytes are not supported;
 *   every other codec (utf-16, utf-32, utf-7, iso2022, hz, EBCDIC): not
 *     supported (CPython reads an ASCII cookie line in them as other text).
 * "Not supported" is a located error naming the encoding.
 */
#include <ctype.h>
#include <string.h>

#include "codec_tables.h"
#include "tokenize_internal.h"

#define UTF8_BOM "\xEF\xBB\xBF"

/* Codecs a coding cookie may name, normalized as encodings.normalize_encoding
 * does (lowercase, runs of punctuation -> '_'). The first group is UTF-8. */
static const char *const UTF8_CODEC_NAMES[] = {
    "utf_8", "utf8", "u8", "utf", "utf8_ucs2", "utf8_ucs4", "cp65001", "utf_8_sig",
};


/* Position of an arbitrary byte offset, counting lines from the start. */
static Pos pos_of_offset(const Lexer *lx, size_t offset) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; i++) {
    char c = lx->src[i];
    if (c == '\n' || (c == '\r' && lx->src[i + 1] != '\n')) {
      line++;
      line_start = i + 1;
    }
  }
  Pos pos = {line, (int)(offset - line_start), offset};
  return pos;
}

static void reject_null_bytes(Lexer *lx) {
  const char *nul = memchr(lx->src, '\0', lx->len);
  if (nul)
    diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, pos_of_offset(lx, (size_t)(nul - lx->src)), "source code cannot contain null bytes");
}

/* End of the physical line starting at `begin` (the line break, or len). */
static size_t line_end_from(const Lexer *lx, size_t begin) {
  size_t end = begin;
  while (end < lx->len && !is_newline_char(lx->src[end]))
    end++;
  return end;
}

static bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\f'; }

/* CPython's get_coding_spec: the cookie name in a comment-only line, as a
 * span of the source; false when the line has none. */
static bool find_coding_spec(const Lexer *lx, size_t begin, size_t end, size_t *name_begin, size_t *name_end) {
  size_t i = begin;
  while (i < end && is_blank_char(lx->src[i]))
    i++;
  if (i >= end || lx->src[i] != '#')
    return false;
  for (; i + 6 < end; i++) {
    if (memcmp(lx->src + i, "coding", 6) != 0)
      continue;
    size_t t = i + 6;
    if (lx->src[t] != ':' && lx->src[t] != '=')
      continue;
    t++;
    while (t < end && (lx->src[t] == ' ' || lx->src[t] == '\t'))
      t++;
    size_t first = t;
    while (t < end && (isalnum((unsigned char)lx->src[t]) || lx->src[t] == '-' || lx->src[t] == '_' || lx->src[t] == '.'))
      t++;
    if (t > first) {
      *name_begin = first;
      *name_end = t;
      return true;
    }
  }
  return false;
}

/* True when the line holds only blanks and maybe a comment. */
static bool is_comment_or_blank_line(const Lexer *lx, size_t begin, size_t end) {
  for (size_t i = begin; i < end; i++) {
    if (lx->src[i] == '#')
      return true;
    if (!is_blank_char(lx->src[i]))
      return false;
  }
  return true;
}

/* CPython's get_normal_name: "utf-8" and "iso-8859-1" spellings collapse to
 * those two names; any other name is returned unchanged. */
static const char *normal_codec_name(Arena *arena, const char *name, size_t length) {
  char lowered[13];
  size_t n = 0;
  for (; n < 12 && n < length; n++) {
    char c = name[n];
    lowered[n] = c == '_' ? '-' : (char)tolower((unsigned char)c);
  }
  lowered[n] = '\0';
  if (strcmp(lowered, "utf-8") == 0 || strncmp(lowered, "utf-8-", 6) == 0)
    return "utf-8";
  if (strcmp(lowered, "latin-1") == 0 || strcmp(lowered, "iso-8859-1") == 0 || strcmp(lowered, "iso-latin-1") == 0 ||
      strncmp(lowered, "latin-1-", 8) == 0 || strncmp(lowered, "iso-8859-1-", 11) == 0 ||
      strncmp(lowered, "iso-latin-1-", 12) == 0)
    return "iso-8859-1";
  return arena_strndup(arena, name, length);
}

/* encodings.normalize_encoding, lowercased: "ISO-8859-15" -> "iso_8859_15". */
static void normalize_codec_name(const char *name, char *out, size_t out_size) {
  size_t n = 0;
  bool punct = false;
  for (const char *p = name; *p && n + 2 < out_size; p++) {
    unsigned char c = (unsigned char)*p;
    if (isalnum(c) || c == '.') {
      if (punct && n > 0)
        out[n++] = '_';
      out[n++] = (char)tolower(c);
      punct = false;
    } else {
      punct = true;
    }
  }
  out[n] = '\0';
  for (size_t i = 0; i < n; i++) /* aliases are looked up with '.' as '_' too */
    if (out[i] == '.')
      out[i] = '_';
}

static bool name_in(const char *name, const char *const *names, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(name, names[i]) == 0)
      return true;
  return false;
}

static const CodecName *find_codec(const char *normalized) {
  for (size_t i = 0; i < sizeof CODEC_NAMES / sizeof *CODEC_NAMES; i++)
    if (strcmp(normalized, CODEC_NAMES[i].name) == 0)
      return &CODEC_NAMES[i];
  return NULL;
}

/* Offset of the first byte >= 0x80 from `begin`, or len. */
static size_t first_non_ascii(const Lexer *lx, size_t begin) {
  size_t i = begin;
  while (i < lx->len && (unsigned char)lx->src[i] < 0x80)
    i++;
  return i;
}

static size_t put_utf8(char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  out[0] = (char)(0xE0 | (cp >> 12)); /* one-byte codecs map into the BMP */
  out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[2] = (char)(0x80 | (cp & 0x3F));
  return 3;
}

/* Decode the source through a one-byte codec's table into a UTF-8 copy,
 * the cookie's name [name_begin, name_end) replaced by "utf-8", and make
 * the copy the source every later stage reads. */
static void transcode_source(Lexer *lx, const char *codec, const uint16_t *upper, size_t name_begin, size_t name_end) {
  size_t undefined = first_non_ascii(lx, 0);
  for (; undefined < lx->len; undefined++) {
    unsigned char c = (unsigned char)lx->src[undefined];
    if (c >= 0x80 && upper[c - 0x80] == CODEC_UNDEFINED)
      diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, pos_of_offset(lx, undefined),
                      "(unicode error) '%s' codec can't decode byte 0x%02x: character maps to <undefined>", codec, c);
  }
  /* each byte becomes at most 3 bytes; "utf-8" is at most 5 more than the name */
  char *out = arena_alloc_raw(&lx->ctx->arena, lx->len * 3 + 6);
  size_t n = 0;
  for (size_t i = 0; i < lx->len; i++) {
    if (i == name_begin) {
      memcpy(out + n, "utf-8", 5);
      n += 5;
      i = name_end - 1;
      continue;
    }
    unsigned char c = (unsigned char)lx->src[i];
    n += put_utf8(out + n, c < 0x80 ? c : upper[c - 0x80]);
  }
  out[n] = '\0';
  lx->ctx->source.text = lx->src = out;
  lx->ctx->source.len = lx->len = n;
}

/* Apply a cookie: error for unknown or unsupported codecs, a BOM that
 * disagrees or bytes the codec cannot read; decode one-byte codecs. */
static void apply_coding_cookie(Lexer *lx, bool has_bom, size_t line_begin, size_t name_begin, size_t name_end) {
  Pos at = pos_of_offset(lx, line_begin);
  const char *name = normal_codec_name(&lx->ctx->arena, lx->src + name_begin, name_end - name_begin);
  if (has_bom) {
    if (strcmp(name, "utf-8") != 0)
      diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, at, "encoding problem: %.200s with BOM", name);
    return;
  }
  char normalized[64];
  normalize_codec_name(name, normalized, sizeof normalized);
  if (strcmp(name, "utf-8") == 0 || name_in(normalized, UTF8_CODEC_NAMES, sizeof UTF8_CODEC_NAMES / sizeof *UTF8_CODEC_NAMES))
    return;
  const CodecName *codec = find_codec(normalized);
  if (!codec)
    diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, at, "unknown encoding: %.200s", name);
  size_t high = first_non_ascii(lx, 0);
  switch (codec->kind) {
  case CODEC_ASCII:
    if (high < lx->len)
      diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, pos_of_offset(lx, high),
                      "(unicode error) 'ascii' codec can't decode byte 0x%02x: ordinal not in range(128)",
                      (unsigned char)lx->src[high]);
    return;
  case CODEC_TABLE:
    if (high < lx->len)
      transcode_source(lx, codec->name, CODEC_UPPER_HALVES[codec->table], name_begin, name_end);
    return;
  case CODEC_ASCII_ONLY:
    if (high < lx->len)
      diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, pos_of_offset(lx, high),
                      "encoding not supported: %.200s (only its ASCII bytes can be read; byte 0x%02x is not ASCII: "
                      "write the source in UTF-8)",
                      name, (unsigned char)lx->src[high]);
    return;
  case CODEC_UNSUPPORTED:
    diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, at,
                    "encoding not supported: %.200s (it does not read ASCII as ASCII: write the source in UTF-8)", name);
  }
}

/* Look for a cookie on line 1, or on line 2 when line 1 is blank or a comment. */
static void check_coding_cookie(Lexer *lx, size_t begin, bool has_bom) {
  size_t name_begin, name_end;
  size_t end = line_end_from(lx, begin);
  if (find_coding_spec(lx, begin, end, &name_begin, &name_end)) {
    apply_coding_cookie(lx, has_bom, begin, name_begin, name_end);
    return;
  }
  if (!is_comment_or_blank_line(lx, begin, end) || end >= lx->len)
    return;
  size_t second = end + ((lx->src[end] == '\r' && lx->src[end + 1] == '\n') ? 2 : 1);
  size_t second_end = line_end_from(lx, second);
  if (find_coding_spec(lx, second, second_end, &name_begin, &name_end))
    apply_coding_cookie(lx, has_bom, second, name_begin, name_end);
}

/* Length of the UTF-8 sequence a lead byte starts (0: not a lead byte), and
 * the allowed range of its second byte (to reject overlong forms and
 * surrogates, as Python's decoder does). */
static int utf8_sequence_length(unsigned char lead, unsigned char *second_min, unsigned char *second_max) {
  *second_min = 0x80;
  *second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF)
    return 2;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (lead == 0xE0)
      *second_min = 0xA0;
    if (lead == 0xED)
      *second_max = 0x9F;
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (lead == 0xF0)
      *second_min = 0x90;
    if (lead == 0xF4)
      *second_max = 0x8F;
    return 4;
  }
  return 0;
}

static _Noreturn void report_invalid_utf8(Lexer *lx, size_t at, int valid_bytes, const char *reason) {
  Pos pos = pos_of_offset(lx, at);
  if (valid_bytes <= 1)
    diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, pos, "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position 0: %s",
               (unsigned char)lx->src[at], reason);
  diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, pos, "(unicode error) 'utf-8' codec can't decode bytes in position 0-%d: %s",
             valid_bytes - 1, reason);
}

/* Validate one multi-byte sequence at `i`; return its length. */
static size_t check_utf8_sequence(Lexer *lx, size_t i) {
  const unsigned char *s = (const unsigned char *)lx->src;
  unsigned char second_min, second_max;
  int length = utf8_sequence_length(s[i], &second_min, &second_max);
  if (length == 0)
    report_invalid_utf8(lx, i, 1, "invalid start byte");
  for (int k = 1; k < length; k++) {
    if (i + (size_t)k >= lx->len)
      report_invalid_utf8(lx, i, k, "unexpected end of data");
    unsigned char c = s[i + (size_t)k];
    unsigned char lo = k == 1 ? second_min : 0x80, hi = k == 1 ? second_max : 0xBF;
    if (c < lo || c > hi)
      report_invalid_utf8(lx, i, k, "invalid continuation byte");
  }
  return (size_t)length;
}

static void check_utf8(Lexer *lx, size_t begin) {
  const unsigned char *s = (const unsigned char *)lx->src;
  size_t i = begin, n = lx->len;
  while (i < n) {
    while (i + 8 <= n) { /* skip ASCII eight bytes at a time */
      uint64_t word;
      memcpy(&word, s + i, 8);
      if (word & 0x8080808080808080ull)
        break;
      i += 8;
    }
    if (i >= n)
      break;
    if (s[i] < 0x80)
      i++;
    else
      i += check_utf8_sequence(lx, i);
  }
}

size_t check_source_encoding(Lexer *lx) {
  reject_null_bytes(lx);
  bool has_bom = lx->len >= 3 && memcmp(lx->src, UTF8_BOM, 3) == 0;
  size_t begin = has_bom ? 3 : 0;
  lx->utf8 = true;
  check_coding_cookie(lx, begin, has_bom);
  if (lx->utf8)
    check_utf8(lx, begin);
  return begin;
}

uint32_t decode_utf8(const char *text, int *length) {
  const unsigned char *s = (const unsigned char *)text;
  if (s[0] < 0x80) {
    *length = 1;
    return s[0];
  }
  if (s[0] < 0xE0) {
    *length = 2;
    return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
  }
  if (s[0] < 0xF0) {
    *length = 3;
    return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
  }
  *length = 4;
  return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) | ((uint32_t)(s[2] & 0x3F) << 6) |
         (s[3] & 0x3F);
}
