/*
 * stats.c — counting what a conversion did, for `cutile2triton --stats`.
 *
 * The lowering calls these where it decides: the op dispatch (lower_call.c)
 * for each cuTile operation, the memory family (lower_memory*.c) for each
 * TMA / pointer-path choice, lower_stmt.c (and launch.c) where a C2Tnnn note
 * is attached. Each call is a no-op unless the caller asked for statistics.
 */
#include <ctype.h>
#include <string.h>

#include "../convert.h"

/* Add one to `name` in a table (names compared as text). A table that is
 * full counts the rest under "(other)", its last slot. */
static void stats_add(Converter *conv, StatCount *table, int *count, const char *name) {
  for (int i = 0; i < *count; i++)
    if (strcmp(table[i].name, name) == 0) {
      table[i].count++;
      return;
    }
  if (*count == C2T_STATS_MAX_NAMES - 1) {
    table[*count].name = "(other)";
    table[(*count)++].count = 0;
  }
  if (*count == C2T_STATS_MAX_NAMES) {
    table[C2T_STATS_MAX_NAMES - 1].count++;
    return;
  }
  table[*count].name = arena_strndup(&conv->ctx->arena, name, strlen(name));
  table[(*count)++].count = 1;
}

void stats_op(Converter *conv, const char *prefix, const char *name) {
  if (!conv->stats || !name)
    return;
  const char *text = arena_printf(&conv->ctx->arena, "%s%s", prefix, name); /* whole: no truncated names */
  stats_add(conv, conv->stats->ops, &conv->stats->op_count, text);
}

void stats_memory(Converter *conv, const char *pointer_reason) {
  if (!conv->stats)
    return;
  if (!pointer_reason)
    conv->stats->tma++;
  else
    stats_add(conv, conv->stats->pointer_only, &conv->stats->pointer_reason_count, pointer_reason);
}

void stats_notes(Converter *conv, const char *note_text) {
  if (!conv->stats || !note_text)
    return;
  for (const char *p = strstr(note_text, "C2T"); p; p = strstr(p + 3, "C2T")) {
    if (!isdigit((unsigned char)p[3]) || !isdigit((unsigned char)p[4]) || !isdigit((unsigned char)p[5]) ||
        isdigit((unsigned char)p[6]))
      continue;
    char code[7];
    memcpy(code, p, 6);
    code[6] = '\0';
    stats_add(conv, conv->stats->notes, &conv->stats->note_count, code);
  }
}

/* Sorted by name, so the text does not depend on lowering order. */
static void stats_put_sorted(Buf *out, const char *prefix, const StatCount *table, int count) {
  const StatCount *order[C2T_STATS_MAX_NAMES];
  for (int i = 0; i < count; i++) {
    int j = i;
    while (j > 0 && strcmp(order[j - 1]->name, table[i].name) > 0) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = &table[i];
  }
  for (int i = 0; i < count; i++)
    if (order[i]->count > 0)
      buf_printf(out, "%s %s %d\n", prefix, order[i]->name, order[i]->count);
}

void stats_format(const ConvertStats *stats, Buf *out) {
  stats_put_sorted(out, "op", stats->ops, stats->op_count);
  buf_printf(out, "memory tma %d\n", stats->tma);
  stats_put_sorted(out, "memory pointer", stats->pointer_only, stats->pointer_reason_count);
  stats_put_sorted(out, "note", stats->notes, stats->note_count);
}
