/*
 * diff.c — the unified diff of `cutile2triton --diff`: what would be written
 * against what is on disk now.
 *
 *   --- a/PATH            (--- /dev/null when there is no file yet)
 *   +++ b/PATH
 *   @@ -1,4 +1,5 @@       hunks with 3 lines of context, as diff -u
 *
 * Lines are compared as bytes, their line ending included. The common
 * prefix and suffix are taken off first; the rest is Myers' O(ND) greedy
 * algorithm (the shortest edit script), which keeps the furthest reaching
 * path per diagonal for each edit distance D: O(D^2) memory. Explicit
 * limits: DIFF_MAX_LINES lines per side and DIFF_MAX_EDITS edits; past
 * them the middle part is written as all removed, then all added — a larger
 * diff, but still a correct one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DIFF_MAX_LINES 4000000
#define DIFF_MAX_EDITS 2000
#define DIFF_CONTEXT 3

typedef struct Line {
  const char *text;
  size_t len; /* with its '\n' when it has one */
  uint64_t hash;
} Line;

typedef struct Lines {
  Line *items;
  long count;
} Lines;

static uint64_t diff_hash(const char *text, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
  return h;
}

/* 0 on success, -1 when memory runs out or the text has too many lines. */
static int diff_split(const char *text, size_t len, Lines *out) {
  out->items = NULL;
  out->count = 0;
  long count = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n')
      count++;
  if (len > 0 && text[len - 1] != '\n')
    count++;
  if (count > DIFF_MAX_LINES)
    return -1;
  out->items = malloc(sizeof(Line) * (size_t)(count ? count : 1));
  if (!out->items)
    return -1;
  size_t start = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n' || i + 1 == len) {
      Line *line = &out->items[out->count++];
      line->text = text + start;
      line->len = i + 1 - start;
      line->hash = diff_hash(line->text, line->len);
      start = i + 1;
    }
  return 0;
}

static int line_equal(const Line *a, const Line *b) {
  return a->hash == b->hash && a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

/* The edit script: one op per line of the result, in order. */
typedef enum { OP_KEEP, OP_DELETE, OP_INSERT } OpKind;

typedef struct Script {
  unsigned char *ops;
  long count;
} Script;

/* Myers on a[0..n) and b[0..m), appending ops to `script` (which has room
 * for n + m more). Returns 0, or 1 when the edit distance passes the limit
 * (nothing appended then), -1 when memory runs out. */
static int diff_myers(const Line *a, long n, const Line *b, long m, Script *script) {
  long max = n + m;
  long limit = max < DIFF_MAX_EDITS ? max : DIFF_MAX_EDITS;
  /* trace[d] holds V[-d..d] after step d: (limit+1)^2 longs at most */
  long *trace = malloc(sizeof(long) * (size_t)(limit + 1) * (size_t)(limit + 1));
  long *v = malloc(sizeof(long) * (size_t)(2 * limit + 3));
  if (!trace || !v) {
    free(trace);
    free(v);
    return -1;
  }
  long offset = limit + 1; /* v[offset + k] is V[k] */
  v[offset + 1] = 0;
  long found = -1;
  long trace_at = 0;
  for (long d = 0; d <= limit && found < 0; d++) {
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
        x = v[offset + k + 1]; /* down: an insertion */
      else
        x = v[offset + k - 1] + 1; /* right: a deletion */
      long y = x - k;
      while (x < n && y < m && line_equal(&a[x], &b[y])) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
      }
    }
    for (long k = -d; k <= d; k++)
      trace[trace_at + k + d] = v[offset + k];
    trace_at += 2 * d + 1;
    if (found >= 0)
      break;
  }
  free(v);
  if (found < 0) {
    free(trace);
    return 1;
  }
  /* backtrack from (n, m), writing ops from the end */
  long total = 0;
  unsigned char *reversed = malloc((size_t)(n + m + 1));
  if (!reversed) {
    free(trace);
    return -1;
  }
  long x = n, y = m;
  for (long d = found; d > 0; d--) {
    long base = (d - 1) * (d - 1); /* trace[d - 1] starts there: sum of 2i + 1 for i < d - 1 */
    long k = x - y;
    const long *prev = trace + base + (d - 1); /* prev[j] is V[j] after step d - 1, j in [-(d-1), d-1] */
    long prev_k;
    if (k == -d || (k != d && prev[k - 1] < prev[k + 1]))
      prev_k = k + 1;
    else
      prev_k = k - 1;
    long prev_x = prev[prev_k];
    long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      reversed[total++] = OP_KEEP;
      x--;
      y--;
    }
    if (x == prev_x) {
      reversed[total++] = OP_INSERT;
      y--;
    } else {
      reversed[total++] = OP_DELETE;
      x--;
    }
  }
  while (x > 0 && y > 0) {
    reversed[total++] = OP_KEEP;
    x--;
    y--;
  }
  free(trace);
  for (long i = total - 1; i >= 0; i--)
    script->ops[script->count++] = reversed[i];
  free(reversed);
  return 0;
}

/* "-start,count" as diff -u writes it: ",1" left out, and an empty range
 * named by the line before it. */
static void diff_range(FILE *out, char sign, long start, long count) {
  if (count == 1)
    fprintf(out, "%c%ld", sign, start + 1);
  else
    fprintf(out, "%c%ld,%ld", sign, count == 0 ? start : start + 1, count);
}

static void diff_line(FILE *out, char sign, const Line *line) {
  fputc(sign, out);
  fwrite(line->text, 1, line->len, out);
  if (line->len == 0 || line->text[line->len - 1] != '\n')
    fputs("\n\\ No newline at end of file\n", out);
}

int cli_diff(FILE *out, const char *old_label, const char *new_label, const char *old_text, size_t old_len,
             const char *new_text, size_t new_len) {
  Lines a, b;
  if (diff_split(old_text, old_len, &a) != 0 || diff_split(new_text, new_len, &b) != 0) {
    free(a.items);
    return -1;
  }
  Script script = {malloc((size_t)(a.count + b.count + 1)), 0};
  if (!script.ops) {
    free(a.items);
    free(b.items);
    return -1;
  }
  long prefix = 0;
  while (prefix < a.count && prefix < b.count && line_equal(&a.items[prefix], &b.items[prefix]))
    prefix++;
  long suffix = 0;
  while (suffix < a.count - prefix && suffix < b.count - prefix &&
         line_equal(&a.items[a.count - 1 - suffix], &b.items[b.count - 1 - suffix]))
    suffix++;
  for (long i = 0; i < prefix; i++)
    script.ops[script.count++] = OP_KEEP;
  long n = a.count - prefix - suffix, m = b.count - prefix - suffix;
  int found = diff_myers(a.items + prefix, n, b.items + prefix, m, &script);
  if (found < 0) {
    free(script.ops);
    free(a.items);
    free(b.items);
    return -1;
  }
  if (found > 0) { /* past the limit: all removed, then all added */
    for (long i = 0; i < n; i++)
      script.ops[script.count++] = OP_DELETE;
    for (long i = 0; i < m; i++)
      script.ops[script.count++] = OP_INSERT;
  }
  for (long i = 0; i < suffix; i++)
    script.ops[script.count++] = OP_KEEP;

  int changed = 0;
  for (long i = 0; i < script.count && !changed; i++)
    changed = script.ops[i] != OP_KEEP;
  if (changed) {
    fprintf(out, "--- %s\n+++ %s\n", old_label, new_label);
    /* positions (in a and b) where each op starts */
    long i = 0, ai = 0, bi = 0;
    while (i < script.count) {
      /* find the next change */
      long j = i, aj = ai, bj = bi;
      while (j < script.count && script.ops[j] == OP_KEEP) {
        j++;
        aj++;
        bj++;
      }
      if (j == script.count)
        break;
      /* the hunk starts up to DIFF_CONTEXT kept lines before it */
      long back = j - i < DIFF_CONTEXT ? j - i : DIFF_CONTEXT;
      long start = j - back, a_start = aj - back, b_start = bj - back;
      /* it ends where DIFF_CONTEXT * 2 kept lines follow a change (or at the end) */
      long end = j, a_count = back, b_count = back, kept_run = 0;
      long last_change = j;
      while (end < script.count) {
        if (script.ops[end] == OP_KEEP) {
          kept_run++;
          if (kept_run > 2 * DIFF_CONTEXT)
            break;
        } else {
          kept_run = 0;
          last_change = end;
        }
        end++;
      }
      long stop = last_change + 1 + DIFF_CONTEXT;
      if (stop > script.count)
        stop = script.count;
      for (long t = j; t < stop; t++) {
        if (script.ops[t] != OP_INSERT)
          a_count++;
        if (script.ops[t] != OP_DELETE)
          b_count++;
      }
      fputs("@@ ", out);
      diff_range(out, '-', a_start, a_count);
      fputc(' ', out);
      diff_range(out, '+', b_start, b_count);
      fputs(" @@\n", out);
      long pa = a_start, pb = b_start;
      for (long t = start; t < stop; t++) {
        switch (script.ops[t]) {
        case OP_KEEP: diff_line(out, ' ', &a.items[pa++]); pb++; break;
        case OP_DELETE: diff_line(out, '-', &a.items[pa++]); break;
        default: diff_line(out, '+', &b.items[pb++]); break;
        }
      }
      i = stop;
      ai = pa;
      bi = pb;
    }
  }
  free(script.ops);
  free(a.items);
  free(b.items);
  return changed;
}
