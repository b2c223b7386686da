/*
 * query.c — `cutile2triton --query NAME`: how one cuTile operation is
 * translated, with an example.
 *
 * Per operation (the QUERY lines of the src/lower/ops/ tables), what the
 * translation is and a tiny cuTile module using it. The Triton side of the
 * example is not written here: the module is converted by the real converter (c2t_convert) each time, and
 * its kernel printed, so the example is always what the tool does today.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutile2triton.h"
#include "lower/lower.h"

/* The entries: the QUERY lines of src/lower/ops/<family>.def, next to
 * their operation's row. */
typedef OpQuery QueryEntry;
#define QUERIES c2t_op_queries
#define QUERY_COUNT ((size_t)c2t_op_query_count)

/* "ct.load", "load" and "cuda.tile.load" name the same entry; "Tile.astype",
 * "astype" and "ct.astype" too. Other prefixes must match exactly. */
static const QueryEntry *query_find(const char *name) {
  for (size_t i = 0; i < QUERY_COUNT; i++)
    if (strcmp(QUERIES[i].name, name) == 0)
      return &QUERIES[i];
  const char *bare = name;
  if (strncmp(bare, "cuda.tile.", 10) == 0)
    bare += 10;
  else if (strncmp(bare, "ct.", 3) == 0)
    bare += 3;
  if (strchr(bare, '.') || !*bare)
    return NULL;
  for (size_t i = 0; i < QUERY_COUNT; i++)
    if (strcmp(strrchr(QUERIES[i].name, '.') + 1, bare) == 0)
      return &QUERIES[i];
  return NULL;
}

/* The lines of `text` from "@triton.jit" before `def NAME(` up to the next
 * top-level statement. */
static void query_print_function(const char *text, const char *name) {
  char header[64];
  snprintf(header, sizeof header, "\ndef %s(", name);
  const char *def = strstr(text, header);
  if (!def) {
    fputs(text, stdout);
    return;
  }
  def++;
  const char *start = def;
  /* decorators right above it */
  while (start > text) {
    const char *line = start - 1;
    while (line > text && line[-1] != '\n')
      line--;
    if (*line != '@')
      break;
    start = line;
  }
  const char *end = strchr(def, '\n');
  /* the body is indented; a multi-line signature ends with a line "):" */
  while (end && end[1] && (end[1] == ' ' || end[1] == '\t' || end[1] == '\n' || end[1] == ')')) {
    const char *next = strchr(end + 1, '\n');
    if (!next)
      break;
    end = next;
  }
  size_t length = end ? (size_t)(end - start + 1) : strlen(start);
  while (length > 1 && start[length - 1] == '\n' && start[length - 2] == '\n')
    length--;
  fwrite(start, 1, length, stdout);
}

static void query_print_helpers(const char *text) {
  /* the runtime helpers the example uses: `def ct_...(` at top level */
  int printed = 0;
  for (const char *p = strstr(text, "\ndef ct_"); p; p = strstr(p + 1, "\ndef ct_")) {
    const char *name = p + 5;
    size_t length = strcspn(name, "(");
    printf("%s%.*s", printed++ ? ", " : "helpers in the generated module: ", (int)length, name);
  }
  if (printed)
    putchar('\n');
}

int cli_query(const char *name) {
  const QueryEntry *entry = query_find(name);
  if (!entry) {
    fprintf(stderr, "cutile2triton: no entry for '%s'; known names:\n", name);
    for (size_t i = 0; i < QUERY_COUNT; i++)
      fprintf(stderr, "  %s\n", QUERIES[i].name);
    return C2T_ERROR_USAGE;
  }
  printf("%s\n\n%s\n\ncuTile:\n\n", entry->name, entry->summary);
  fputs(entry->example, stdout);
  c2t_result result;
  c2t_convert("<example>", entry->example, strlen(entry->example), &result);
  if (result.status != C2T_OK) {
    /* the table and the converter disagree: say so, never print a made-up example */
    fprintf(stderr, "cutile2triton: the example of %s does not convert:\n", entry->name);
    fwrite(result.diagnostics, 1, result.diagnostics_len, stderr);
    c2t_result_free(&result);
    return C2T_ERROR_INPUT;
  }
  printf("\nTriton (converted now by this tool):\n\n");
  query_print_function(result.output, "example");
  if (strstr(entry->example, "\ndef run(")) {
    putchar('\n');
    query_print_function(result.output, "launch_example");
    putchar('\n');
    query_print_function(result.output, "run");
  }
  putchar('\n');
  query_print_helpers(result.output);
  c2t_result_free(&result);
  return C2T_OK;
}

/* ------------------------------------------------------------ --list-ops */

/* `text` for a markdown table cell: | escaped, no line breaks. */
static void markdown_cell(const char *text) {
  for (const char *p = text ? text : ""; *p; p++) {
    if (*p == '|')
      fputs("\\|", stdout);
    else if (*p == '\n')
      putchar(' ');
    else
      putchar(*p);
  }
}

static void list_status(const OpRow *row, bool markdown) {
  if (markdown)
    markdown_cell(op_status_text(row->status));
  else
    fputs(op_status_text(row->status), stdout);
  if (row->note) {
    fputs(": ", stdout);
    if (markdown)
      markdown_cell(row->note);
    else
      fputs(row->note, stdout);
  }
}

/* One line (or table row) per name a user writes: the cuda.tile name, and
 * the method form of a row that has one. */
static void list_row(const OpRow *row, const char *shown, bool markdown) {
  if (!markdown) {
    printf("%s\t%s\t", shown, row->family);
    list_status(row, false);
    putchar('\n');
    return;
  }
  printf("| `%s` | ", shown);
  list_status(row, true);
  fputs(" | ", stdout);
  if (row->signature) {
    fputs("`(", stdout);
    markdown_cell(row->signature);
    fputs(")`", stdout);
  }
  fputs(" | ", stdout);
  markdown_cell(row->doc);
  fputs(" |\n", stdout);
}

static void list_family(const OpFamily *family, bool markdown, int *counts) {
  if (markdown)
    printf("\n## %s\n\n| Name | Status | Signature | Translation |\n|---|---|---|---|\n", family->title);
  for (int i = 0; i < c2t_op_row_count; i++) {
    const OpRow *row = &c2t_op_rows[i];
    if (strcmp(row->family, family->name) != 0 || (row->flags & OPF_BUILTIN_ONLY))
      continue;
    char shown[96];
    snprintf(shown, sizeof shown, "%s%s", op_display_prefix(row), row->name);
    list_row(row, shown, markdown);
    counts[row->status]++;
    if (row->flags & (OPF_TILE_METHOD | OPF_ARRAY_METHOD) && !strchr(row->name, '.')) {
      snprintf(shown, sizeof shown, "%s.%s", row->flags & OPF_TILE_METHOD ? "Tile" : "Array", row->name);
      list_row(row, shown, markdown);
      counts[row->status]++;
    }
  }
}

int cli_list_ops(bool markdown) {
  int counts[3] = {0};
  if (markdown)
    printf("# cuTile names and their translation\n\n"
           "<!-- generated by `cutile2triton --list-ops --markdown > docs/ops.md` from the rows of\n"
           "     src/lower/ops/*.def; tests/cli/test_cli.py fails when this file is stale. -->\n\n"
           "Every public name of `cuda.tile` (cuda-tile 1.7's `__all__`) and the method forms\n"
           "(`Tile.astype`, `Array.slice`, ...), with what cutile2triton does with it. `--query NAME`\n"
           "shows the translation of an operation with an example converted live.\n");
  for (int f = 0; f < c2t_op_family_count; f++)
    list_family(&c2t_op_families[f], markdown, counts);
  if (markdown)
    printf("\n%d names: %d converted, %d converted with a note, %d not supported.\n", counts[0] + counts[1] + counts[2],
           counts[OP_CONVERTED], counts[OP_NOTED], counts[OP_UNSUPPORTED]);
  return C2T_OK;
}
