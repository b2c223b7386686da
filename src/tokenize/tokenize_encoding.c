/*
 * tokenize_encoding.c — what CPython checks before tokenizing: NUL bytes,
 * the UTF-8 byte order mark, the PEP 263 coding cookie and, for UTF-8
 * sources, that every byte sequence is valid UTF-8.
 *
 * Sources in another codec CPython knows (latin-1, cp1252, ...) are accepted
 * byte for byte: the tokenizer then treats bytes >= 0x80 as name characters.
 */
#include <ctype.h>
#include <string.h>

#include "tokenize_internal.h"

#define UTF8_BOM "\xEF\xBB\xBF"

/* Codecs a coding cookie may name, normalized as encodings.normalize_encoding
 * does (lowercase, runs of punctuation -> '_'). The first group is UTF-8. */
static const char *const UTF8_CODEC_NAMES[] = {
    "utf_8", "utf8", "u8", "utf", "utf8_ucs2", "utf8_ucs4", "cp65001", "utf_8_sig",
};

static const char *const OTHER_CODEC_NAMES[] = {
    "ascii", "us_ascii", "646", "us", "latin_1", "latin1", "latin", "l1", "iso8859_1", "iso_8859_1",
    "iso8859", "8859", "cp819", "iso_ir_100", "iso_8859_1_1987", "iso8859_2", "iso8859_3", "iso8859_4",
    "iso8859_5", "iso8859_6", "iso8859_7", "iso8859_8", "iso8859_9", "iso8859_10", "iso8859_11",
    "iso8859_13", "iso8859_14", "iso8859_15", "iso8859_16", "iso_8859_2", "iso_8859_3", "iso_8859_4",
    "iso_8859_5", "iso_8859_6", "iso_8859_7", "iso_8859_8", "iso_8859_9", "iso_8859_10", "iso_8859_11",
    "iso_8859_13", "iso_8859_14", "iso_8859_15", "iso_8859_16", "latin2", "latin3", "latin4", "latin5",
    "latin6", "latin7", "latin8", "latin9", "latin10", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9",
    "l10", "cyrillic", "greek", "hebrew", "arabic", "thai", "cp037", "cp273", "cp424", "cp437", "cp500",
    "cp720", "cp737", "cp775", "cp850", "cp852", "cp855", "cp856", "cp857", "cp858", "cp860", "cp861",
    "cp862", "cp863", "cp864", "cp865", "cp866", "cp869", "cp874", "cp875", "cp932", "cp949", "cp950",
    "cp1006", "cp1026", "cp1125", "cp1140", "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255",
    "cp1256", "cp1257", "cp1258", "windows_1250", "windows_1251", "windows_1252", "windows_1253",
    "windows_1254", "windows_1255", "windows_1256", "windows_1257", "windows_1258", "koi8_r", "koi8_t",
    "koi8_u", "kz1048", "mac_roman", "macroman", "macintosh", "mac_latin2", "maclatin2", "mac_cyrillic",
    "maccyrillic", "mac_greek", "macgreek", "mac_iceland", "maciceland", "mac_turkish", "macturkish",
    "euc_jp", "eucjp", "ujis", "u_jis", "euc_jis_2004", "euc_jisx0213", "euc_kr", "euckr", "ks_c_5601",
    "ksc5601", "shift_jis", "shiftjis", "sjis", "s_jis", "shift_jis_2004", "shift_jisx0213", "gbk",
    "gb2312", "gb18030", "euc_cn", "euccn", "chinese", "big5", "big5_tw", "csbig5", "big5hkscs",
    "hkscs", "hz", "hzgb", "johab", "iso2022_jp", "iso2022_jp_1", "iso2022_jp_2", "iso2022_jp_3",
    "iso2022_kr", "tis_620", "tis620", "ptcp154", "hp_roman8", "roman8", "utf_16", "utf16",
    "utf_16_le", "utf_16_be", "utf_32", "utf32", "utf_32_le", "utf_32_be", "utf_7", "utf7",
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

/* Apply a cookie: error for unknown codecs or a BOM that disagrees. */
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
  if (!name_in(normalized, OTHER_CODEC_NAMES, sizeof OTHER_CODEC_NAMES / sizeof *OTHER_CODEC_NAMES))
    diag_error_code(&lx->ctx->diag, C2T_CODE_ENCODING, at, "unknown encoding: %.200s", name);
  lx->utf8 = false;
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
