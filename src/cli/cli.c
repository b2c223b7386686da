/*
 * cli.c — the command-line tool, as a library function (c2t_main) so the
 * executable and the Python package (python -m cutile2triton) share it.
 *
 *   cutile2triton [OPTIONS] IN.py [-o OUT.py|FOLDER|-]  convert a cuTile module
 *   cutile2triton [OPTIONS] DIR [-o OUTDIR]             convert a tree of them
 *   cutile2triton [OPTIONS] IN.py IN2.py... [-o OUTDIR] convert several files
 *   cutile2triton roundtrip FILE      print FILE re-emitted from its syntax tree
 *   cutile2triton check FILE          parse FILE, report errors only
 *   cutile2triton --query NAME        how a cuTile operation is translated
 *   cutile2triton --version | --help
 *
 * Exit status: 0 success, 1 invalid input (a located error was printed; in
 * directory mode or with several files: some file failed; --check: some file
 * would change), 2 usage or I/O error. Reading and writing files: io.c.
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cutile2triton.h"

static const char USAGE[] =
    "usage: cutile2triton [OPTIONS] IN.py [-o OUT.py | -o FOLDER | -o -]\n"
    "       cutile2triton [OPTIONS] DIR [-o OUTDIR]\n"
    "       cutile2triton [OPTIONS] IN.py IN2.py ... [-o OUTDIR]\n"
    "       cutile2triton roundtrip FILE\n"
    "       cutile2triton check FILE\n"
    "       cutile2triton --query NAME\n"
    "       cutile2triton --list-ops [--markdown]\n"
    "       cutile2triton --version | --help\n"
    "\n"
    "  IN.py            convert the cuTile module IN.py to a Triton module, printed\n"
    "                   to standard output\n"
    "  -o OUT.py        write the Triton module to OUT.py instead (only when the\n"
    "                   conversion succeeds; OUT.py is replaced as a whole, through\n"
    "                   a temporary file in its folder, keeping its mode; a\n"
    "                   read-only OUT.py is refused (exit 2); a symbolic link is\n"
    "                   kept and the file it points to is written)\n"
    "  -o FOLDER        with one IN.py: write FOLDER/IN.py (the input's name)\n"
    "  -o -             write to standard output\n"
    "  DIR              convert every .py module under DIR (recursively, in sorted\n"
    "                   order) that imports cuda.tile, each written to its own path\n"
    "                   with the folder /cutile/ replaced by /triton/ (folders are\n"
    "                   created); other .py files are skipped; hidden folders\n"
    "                   (.name) are not entered. One failure does not stop the\n"
    "                   others; a failed file writes nothing. A line per file on\n"
    "                   standard error when it is a terminal, then a summary:\n"
    "                   converted N, failed M, skipped K\n"
    "  -o OUTDIR        with DIR: write a mirrored tree under OUTDIR instead (its\n"
    "                   /cutile/ folders named /triton/ too)\n"
    "  IN.py IN2.py ... several files: each converted as in DIR mode (skipped when\n"
    "                   it does not import cuda.tile; a failure does not stop the\n"
    "                   others; the summary line), to OUTDIR/NAME with -o OUTDIR (a\n"
    "                   folder that exists), else to its /cutile/ -> /triton/ path;\n"
    "                   inputs that are missing or folders: exit 2, nothing done\n"
    "  --stats          after each converted module, print on standard error the\n"
    "                   cuTile operations converted (counts per name), the memory\n"
    "                   operations given TMA (a tensor descriptor path) or the\n"
    "                   pointer path only (with the reason), and the C2Tnnn notes by\n"
    "                   code; with DIR, a total at the end\n"
    "  --diff           write nothing: print a unified diff (3 lines of context) of\n"
    "                   what would be written against what is on disk now (an absent\n"
    "                   file is all added: --- /dev/null); IN.py without -o is\n"
    "                   compared with its /cutile/ -> /triton/ path\n"
    "  --check          write nothing; exit 1 when a file would change or be created\n"
    "                   (\"would change PATH\" on standard error; with --diff, the\n"
    "                   diff too), 0 when all are up to date; compared as --diff\n"
    "  --werror-notes   a C2Tnnn approximation note is an error: a located error at\n"
    "                   the statement (or kernel hint) that carries it, exit 1,\n"
    "                   nothing written\n"
    "  --no-autotune    kernels get fixed launch options (num_warps, num_stages: the\n"
    "                   first candidate of the heuristic) instead of @triton.autotune\n"
    "  --no-loop-split  loops of matrix products stay whole where an `if` on their\n"
    "                   counter turns once (the causal mask of attention)\n"
    "  -q, --quiet      no progress, summary or \"would change\" lines: only errors\n"
    "  --               the arguments after it are inputs, even when they start\n"
    "                   with -\n"
    "  --query NAME     print how the cuTile operation NAME (ct.load, load,\n"
    "                   Tile.astype, ...) is translated, with an example converted\n"
    "                   by this tool; an unknown NAME lists the known ones (exit 2)\n"
    "  --list-ops       print every name of cuda.tile (and the method forms\n"
    "                   Tile.astype, Array.slice, ...), one a line: NAME, family\n"
    "                   and status (converted, converted with a note, not\n"
    "                   supported: why), tab-separated; --markdown prints the\n"
    "                   tables of docs/ops.md instead\n"
    "  roundtrip FILE   parse FILE as Python 3.12 and print it re-emitted from its\n"
    "                   syntax tree, comments included\n"
    "  check FILE       parse FILE and report syntax errors only\n"
    "\n"
    "FILE and IN.py may be - for standard input (the one input). Inputs larger\n"
    "than 64 MiB are refused after reading that much (C2T002). Errors read\n"
    "FILE:LINE:COL: error: C2Tnnn: MESSAGE (codes in docs/diagnostics.md), in\n"
    "colour when standard error is a terminal, unless NO_COLOR is set (non-empty).\n"
    "Exit status: 0 success (--diff: also when there are differences), 1 invalid\n"
    "input or a construct that cannot be converted (nothing is written); with DIR\n"
    "or several files: some file failed; --check: some file would change, 2 usage\n"
    "or I/O error (an output that cannot be written, a read-only one included).\n"
    ;

/* ------------------------------------------------------------ --stats */

/* Counts by name, parsed back from c2t_report.stats and summed over files. */
typedef struct Tally {
  char **names;
  long *counts;
  int count, capacity;
} Tally;

typedef struct Stats {
  Tally ops, pointer, notes;
  long tma;
  int files;
} Stats;

static void tally_add(Tally *tally, const char *name, size_t length, long count) {
  for (int i = 0; i < tally->count; i++)
    if (strlen(tally->names[i]) == length && memcmp(tally->names[i], name, length) == 0) {
      tally->counts[i] += count;
      return;
    }
  if (tally->count == tally->capacity) {
    int capacity = tally->capacity ? tally->capacity * 2 : 16;
    char **names = realloc(tally->names, sizeof(char *) * (size_t)capacity);
    if (!names)
      return;
    tally->names = names;
    long *counts = realloc(tally->counts, sizeof(long) * (size_t)capacity);
    if (!counts)
      return;
    tally->counts = counts;
    tally->capacity = capacity;
  }
  char *copy = malloc(length + 1);
  if (!copy)
    return;
  memcpy(copy, name, length);
  copy[length] = '\0';
  tally->names[tally->count] = copy;
  tally->counts[tally->count++] = count;
}

static void tally_free(Tally *tally) {
  for (int i = 0; i < tally->count; i++)
    free(tally->names[i]);
  free(tally->names);
  free(tally->counts);
  memset(tally, 0, sizeof *tally);
}

static long tally_total(const Tally *tally) {
  long total = 0;
  for (int i = 0; i < tally->count; i++)
    total += tally->counts[i];
  return total;
}

/* "NAME 3, OTHER 1", names sorted. */
static void tally_print(FILE *out, const Tally *tally) {
  int order[4096];
  int n = tally->count < 4096 ? tally->count : 4096;
  for (int i = 0; i < n; i++) {
    int j = i;
    while (j > 0 && strcmp(tally->names[order[j - 1]], tally->names[i]) > 0) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
  for (int i = 0; i < n; i++)
    fprintf(out, "%s%s %ld", i ? ", " : "", tally->names[order[i]], tally->counts[order[i]]);
  if (n == 0)
    fputs("none", out);
}

/* Add the lines of a report ("op NAME N", "memory tma N",
 * "memory pointer REASON N", "note CODE N") to `stats`. */
static void stats_parse(Stats *stats, const char *text) {
  stats->files++;
  while (text && *text) {
    const char *end = strchr(text, '\n');
    size_t length = end ? (size_t)(end - text) : strlen(text);
    const char *space = length ? memchr(text, ' ', length) : NULL;
    const char *last = text + length;
    while (last > text && last[-1] != ' ')
      last--;
    long count = strtol(last, NULL, 10);
    if (space && last > space + 1) {
      size_t name_length = (size_t)(last - 1 - text);
      if (strncmp(text, "op ", 3) == 0)
        tally_add(&stats->ops, text + 3, name_length - 3, count);
      else if (strncmp(text, "memory tma ", 11) == 0)
        stats->tma += count;
      else if (strncmp(text, "memory pointer ", 15) == 0)
        tally_add(&stats->pointer, text + 15, name_length - 15, count);
      else if (strncmp(text, "note ", 5) == 0)
        tally_add(&stats->notes, text + 5, name_length - 5, count);
    }
    text = end ? end + 1 : text + length;
  }
}

static void stats_print(const Stats *stats, const char *title) {
  fprintf(stderr, "stats: %s\n  operations (%ld): ", title, tally_total(&stats->ops));
  tally_print(stderr, &stats->ops);
  long pointer = tally_total(&stats->pointer);
  fprintf(stderr, "\n  memory operations (%ld): %ld with TMA (descriptor path), %ld pointer path only", stats->tma + pointer,
          stats->tma, pointer);
  if (pointer) {
    fputs(" (", stderr);
    tally_print(stderr, &stats->pointer);
    fputc(')', stderr);
  }
  fprintf(stderr, "\n  notes (%ld): ", tally_total(&stats->notes));
  tally_print(stderr, &stats->notes);
  fputc('\n', stderr);
}

static void stats_merge(Stats *into, const Stats *from) {
  for (int i = 0; i < from->ops.count; i++)
    tally_add(&into->ops, from->ops.names[i], strlen(from->ops.names[i]), from->ops.counts[i]);
  for (int i = 0; i < from->pointer.count; i++)
    tally_add(&into->pointer, from->pointer.names[i], strlen(from->pointer.names[i]), from->pointer.counts[i]);
  for (int i = 0; i < from->notes.count; i++)
    tally_add(&into->notes, from->notes.names[i], strlen(from->notes.names[i]), from->notes.counts[i]);
  into->tma += from->tma;
  into->files += from->files;
}

static void stats_free(Stats *stats) {
  tally_free(&stats->ops);
  tally_free(&stats->pointer);
  tally_free(&stats->notes);
}

/* --------------------------------------------------------------- paths */

#define CLI_MAX_PATH 4096

static char *cli_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *path = malloc(la + lb + 2);
  if (!path)
    return NULL;
  memcpy(path, a, la);
  size_t at = la;
  if (la && a[la - 1] != '/')
    path[at++] = '/';
  memcpy(path + at, b, lb + 1);
  return path;
}

/* `path` with each folder named `cutile` renamed `triton` (the workflow's
 * /cutile/ -> /triton/), or NULL when it has none. */
static char *cli_triton_path(const char *path) {
  size_t length = strlen(path);
  char *mapped = malloc(length + 1);
  if (!mapped)
    return NULL;
  memcpy(mapped, path, length + 1);
  const char *last_slash = strrchr(path, '/');
  bool found = false;
  for (size_t i = 0; last_slash && i + 6 <= (size_t)(last_slash - path); i++) {
    bool starts = i == 0 || path[i - 1] == '/';
    if (starts && memcmp(path + i, "cutile", 6) == 0 && path[i + 6] == '/') {
      memcpy(mapped + i, "triton", 6);
      found = true;
    }
  }
  if (!found) {
    free(mapped);
    return NULL;
  }
  return mapped;
}

/* mkdir -p of the folder holding `path`. */
static int cli_make_parents(const char *path) {
  char buffer[CLI_MAX_PATH];
  size_t length = strlen(path);
  if (length >= sizeof buffer)
    return -1;
  memcpy(buffer, path, length + 1);
  for (size_t i = 1; i < length; i++) {
    if (buffer[i] != '/')
      continue;
    buffer[i] = '\0';
    if (mkdir(buffer, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "cutile2triton: cannot create folder %s: %s\n", buffer, strerror(errno));
      return -1;
    }
    buffer[i] = '/';
  }
  return 0;
}

static bool cli_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ------------------------------------------------------------- options */

typedef struct CliOptions {
  char **inputs; /* argv entries: files, folders, "-" */
  int input_count;
  const char *output; /* -o */
  bool stats, diff, check, quiet, werror_notes, no_autotune, no_loop_split;
  bool color; /* diagnostics in colour: standard error is a terminal and NO_COLOR is unset or empty */
} CliOptions;

/* ---------------------------------------------------------- diagnostics */

#define CLI_COLOR_LOCATION "\033[1m"
#define CLI_COLOR_ERROR "\033[1;31m"
#define CLI_COLOR_WARNING "\033[1;35m"
#define CLI_COLOR_CARET "\033[1;32m"
#define CLI_COLOR_RESET "\033[0m"

/* Where "FILE:LINE:COL: " ends when `line` starts that way and the word
 * after it is `word` ("error: "); 0 otherwise. */
static size_t diagnostic_head(const char *line, size_t length, const char *word) {
  size_t word_length = strlen(word);
  for (size_t i = 0; i + 2 + word_length <= length; i++) {
    if (line[i] != ':' || line[i + 1] != ' ' || memcmp(line + i + 2, word, word_length) != 0)
      continue;
    size_t j = i, digits = 0; /* back over COL, ':', LINE, ':' */
    while (j > 0 && line[j - 1] >= '0' && line[j - 1] <= '9')
      j--, digits++;
    if (!digits || j == 0 || line[j - 1] != ':')
      continue;
    j--;
    digits = 0;
    while (j > 0 && line[j - 1] >= '0' && line[j - 1] <= '9')
      j--, digits++;
    if (digits && j > 1 && line[j - 1] == ':')
      return i + 1;
  }
  return 0;
}

static bool is_caret_line(const char *line, size_t length) {
  bool caret = false;
  for (size_t i = 0; i < length; i++) {
    if (line[i] == '^')
      caret = true;
    else if (line[i] != ' ' && line[i] != '\t' && line[i] != '~')
      return false;
  }
  return caret;
}

/* The library's diagnostics on standard error, coloured when options->color. */
static void cli_print_diagnostics(const CliOptions *options, const char *text, size_t length) {
  if (!text)
    return;
  if (!options->color) {
    fwrite(text, 1, length, stderr);
    return;
  }
  const char *end = text + length;
  while (text < end) {
    const char *newline = memchr(text, '\n', (size_t)(end - text));
    size_t line_length = newline ? (size_t)(newline - text) : (size_t)(end - text);
    size_t head = diagnostic_head(text, line_length, "error: ");
    const char *word = "error:", *color = CLI_COLOR_ERROR;
    if (!head) {
      head = diagnostic_head(text, line_length, "warning: ");
      word = "warning:", color = CLI_COLOR_WARNING;
    }
    if (head) {
      size_t skip = head + 1 + strlen(word);
      fprintf(stderr, CLI_COLOR_LOCATION "%.*s" CLI_COLOR_RESET " %s%s" CLI_COLOR_RESET "%.*s", (int)head, text, color,
              word, (int)(line_length - skip), text + skip);
    } else if (is_caret_line(text, line_length)) {
      fprintf(stderr, CLI_COLOR_CARET "%.*s" CLI_COLOR_RESET, (int)line_length, text);
    } else {
      fwrite(text, 1, line_length, stderr);
    }
    if (newline)
      fputc('\n', stderr);
    text += line_length + (newline ? 1 : 0);
  }
}

/* ------------------------------------------------------ diff and check */

/* Compare `text` with the file at `target` (absent: all new). --diff prints
 * the unified diff; --check says "would change/create". *changed is set
 * when the file would change or be created. */
static int cli_compare(const CliOptions *options, const char *target, const char *text, size_t length,
                       bool *changed) {
  struct stat st;
  bool exists = stat(target, &st) == 0;
  size_t old_length = 0;
  char *old = NULL;
  if (exists) {
    int read_status;
    old = cli_read_file(target, target, &old_length, &read_status);
    if (!old)
      return C2T_ERROR_USAGE;
  }
  *changed = !exists || old_length != length || memcmp(old, text, length) != 0;
  int status = C2T_OK;
  if (options->diff && *changed) {
    const char *relative = target;
    while (*relative == '/')
      relative++;
    char *old_label = cli_join("a", relative), *new_label = cli_join("b", relative);
    if (!old_label || !new_label ||
        cli_diff(stdout, exists ? old_label : "/dev/null", new_label, old ? old : "", old_length, text, length) < 0) {
      fprintf(stderr, "cutile2triton: %s: the diff is too large to compute (or memory ran out)\n", target);
      status = C2T_ERROR_USAGE;
    }
    free(old_label);
    free(new_label);
  }
  if (status == C2T_OK && options->check && *changed && !options->quiet)
    fprintf(stderr, "cutile2triton: would %s %s\n", exists ? "change" : "create", target);
  free(old);
  return status;
}

/* ---------------------------------------------------------- one module */

static int cli_run(const CliOptions *options, const char *command, const char *path) {
  const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
  size_t length = 0;
  int read_status;
  char *source = cli_read_file(path, name, &length, &read_status);
  if (!source)
    return read_status;
  c2t_result result;
  if (strcmp(command, "roundtrip") == 0)
    c2t_roundtrip(name, source, length, &result);
  else
    c2t_check_syntax(name, source, length, &result);
  free(source);
  cli_print_diagnostics(options, result.diagnostics, result.diagnostics_len);
  int status = result.status;
  if (status == C2T_OK && result.output)
    status = cli_write_file("-", result.output, result.output_len);
  c2t_result_free(&result);
  return status;
}

/* Convert the module at `path` and send it to `target` ("-": standard
 * output; NULL: there is no target because `path` has no folder named
 * cutile, said when the conversion succeeds). --diff/--check compare with
 * `target` instead of writing. `make_parents`: create target's folders.
 * Returns C2T_OK, C2T_ERROR_INPUT (a located error was printed),
 * C2T_ERROR_USAGE (I/O), or C2T_NOT_CUTILE (under `cutile_only`, not a
 * cuTile module: nothing printed). *changed: --check found a difference. */
static int cli_convert_one(const CliOptions *options, const char *path, const char *target, bool cutile_only,
                           bool make_parents, Stats *total, bool *changed) {
  bool from_stdin = strcmp(path, "-") == 0;
  const char *name = from_stdin ? "<stdin>" : path;
  *changed = false;
  size_t length = 0;
  int read_status;
  char *source = cli_read_file(path, name, &length, &read_status);
  if (!source)
    return read_status;
  c2t_result result;
  c2t_report report;
  c2t_options convert_options = {(cutile_only ? C2T_OPTION_CUTILE_ONLY : 0) | (options->stats ? C2T_OPTION_STATS : 0) |
                                 (options->werror_notes ? C2T_OPTION_NOTES_FATAL : 0) |
                                 (options->no_autotune ? C2T_OPTION_NO_AUTOTUNE : 0) |
                                 (options->no_loop_split ? C2T_OPTION_NO_LOOP_SPLIT : 0)};
  c2t_convert_ex(name, source, length, &convert_options, &result, &report);
  free(source);
  int status = result.status;
  if (status != C2T_NOT_CUTILE)
    cli_print_diagnostics(options, result.diagnostics, result.diagnostics_len);
  if (status == C2T_OK && !target) {
    fprintf(stderr,
            "cutile2triton: %s: no folder named 'cutile' in its path to map to 'triton' (the /cutile/ -> "
            "/triton/ convention); give -o OUTDIR to write elsewhere\n",
            path);
    status = C2T_ERROR_USAGE;
  } else if (status == C2T_OK && (options->diff || options->check)) {
    status = cli_compare(options, target, result.output, result.output_len, changed);
  } else if (status == C2T_OK) {
    if (make_parents && cli_make_parents(target) != 0)
      status = C2T_ERROR_USAGE;
    else
      status = cli_write_file(target, result.output, result.output_len);
  }
  if (status == C2T_OK && options->stats) {
    Stats stats = {0};
    stats_parse(&stats, report.stats);
    stats_print(&stats, name);
    if (total)
      stats_merge(total, &stats);
    stats_free(&stats);
  }
  c2t_report_free(&report);
  c2t_result_free(&result);
  return status;
}

static const char *cli_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int cli_usage_error(const char *format, const char *argument) {
  fputs("cutile2triton: ", stderr);
  fprintf(stderr, format, argument);
  fputs("\ntry 'cutile2triton --help' for the usage\n", stderr);
  return C2T_ERROR_USAGE;
}

/* One input file: to standard output, -o OUT.py, -o FOLDER/ (under the
 * input's name), or compared (--diff, --check). */
static int cli_convert_file(const CliOptions *options) {
  const char *path = options->inputs[0];
  bool from_stdin = strcmp(path, "-") == 0;
  char *owned = NULL;
  const char *target = options->output;
  const char *comparing = options->check ? "--check" : "--diff";
  if (target && strcmp(target, "-") == 0) {
    if (options->diff || options->check)
      return cli_usage_error("%s compares with a file; -o - is standard output", comparing);
  } else if (target) {
    struct stat st;
    bool folder = stat(target, &st) == 0 && S_ISDIR(st.st_mode);
    if (!folder && target[strlen(target) - 1] == '/') {
      fprintf(stderr, "cutile2triton: -o %s: no such folder\n", target);
      return C2T_ERROR_USAGE;
    }
    if (folder && from_stdin) {
      fprintf(stderr,
              "cutile2triton: -o %s is a folder, and standard input has no name to write under; give -o "
              "FOLDER/NAME.py\n",
              target);
      return C2T_ERROR_USAGE;
    }
    if (folder) {
      owned = cli_join(target, cli_basename(path));
      if (!owned)
        return C2T_ERROR_USAGE;
      target = owned;
    }
  } else if (options->diff || options->check) {
    owned = from_stdin ? NULL : cli_triton_path(path);
    if (!owned) {
      fprintf(stderr, "cutile2triton: %s: %s has no /cutile/ folder to map to /triton/; give -o OUT.py\n", comparing,
              path);
      return C2T_ERROR_USAGE;
    }
    target = owned;
  } else {
    target = "-";
  }
  int status;
  bool changed = false;
  if (strcmp(target, "-") != 0 && !from_stdin && cli_same_file(path, target)) {
    fprintf(stderr, "cutile2triton: %s is the input itself; the input is never modified\n", target);
    status = C2T_ERROR_USAGE;
  } else {
    status = cli_convert_one(options, path, target, false, false, NULL, &changed);
  }
  if (status == C2T_OK && options->check && changed)
    status = C2T_ERROR_INPUT;
  free(owned);
  return status;
}

/* ------------------------------------------------------ directory mode */

/* Explicit limits of the walk: each ends in a message, never a crash. */
#define CLI_MAX_DEPTH 64       /* nested folders below DIR */
#define CLI_MAX_FILES 100000   /* .py files in one run */
#define CLI_MAX_ENTRIES 100000 /* entries in one folder */

typedef struct FolderId {
  dev_t dev;
  ino_t ino;
} FolderId;

typedef struct Walk {
  char **files; /* relative to DIR */
  int count, capacity;
  FolderId stack[CLI_MAX_DEPTH + 2]; /* folders being walked: a repeat is a symlink loop */
  int depth;
  FolderId *seen; /* every folder walked: one reached twice (symlinks) is walked once */
  int seen_count, seen_capacity;
  FolderId skip;  /* -o OUTDIR when it is inside DIR */
  bool has_skip;
  int errors;     /* folders or entries that could not be read: failures */
  bool full;
} Walk;

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with_py(const char *name) {
  size_t length = strlen(name);
  return length > 3 && strcmp(name + length - 3, ".py") == 0;
}

static void walk_folder(Walk *walk, const char *root, const char *relative) {
  char *folder = relative[0] ? cli_join(root, relative) : cli_join(root, "");
  if (!folder)
    return;
  DIR *dir = opendir(folder);
  if (!dir) {
    fprintf(stderr, "cutile2triton: cannot open folder %s: %s\n", folder, strerror(errno));
    walk->errors++;
    free(folder);
    return;
  }
  char **names = NULL;
  int count = 0, capacity = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.')
      continue; /* ".", "..", hidden files and folders */
    if (count == CLI_MAX_ENTRIES) {
      fprintf(stderr, "cutile2triton: %s: too many entries in one folder (limit is %d); the rest are not read\n", folder,
              CLI_MAX_ENTRIES);
      walk->errors++;
      break;
    }
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 32;
      char **bigger = realloc(names, sizeof(char *) * (size_t)capacity);
      if (!bigger) {
        fprintf(stderr, "cutile2triton: %s: out of memory; the rest is not read\n", folder);
        walk->errors++;
        break;
      }
      names = bigger;
    }
    names[count] = strdup(entry->d_name);
    if (!names[count]) {
      fprintf(stderr, "cutile2triton: %s: out of memory; the rest is not read\n", folder);
      walk->errors++;
      break;
    }
    count++;
  }
  closedir(dir);
  if (count > 1)
    qsort(names, (size_t)count, sizeof(char *), compare_names);
  for (int i = 0; i < count; i++) {
    char *child_relative = relative[0] ? cli_join(relative, names[i]) : strdup(names[i]);
    char *child = child_relative ? cli_join(root, child_relative) : NULL;
    struct stat st;
    if (!child || walk->full) {
      /* nothing */
    } else if (strlen(child) >= CLI_MAX_PATH) {
      fprintf(stderr, "cutile2triton: %s: too many bytes in one path (limit is %d); not read\n", child, CLI_MAX_PATH - 1);
      walk->errors++;
    } else if (stat(child, &st) != 0) {
      if (ends_with_py(names[i])) { /* a dangling link, a file gone meanwhile */
        fprintf(stderr, "cutile2triton: cannot open %s: %s\n", child, strerror(errno));
        walk->errors++;
      }
    } else if (S_ISDIR(st.st_mode)) {
      FolderId id = {st.st_dev, st.st_ino};
      bool loop = false, seen = false;
      for (int d = 0; d < walk->depth; d++)
        loop |= walk->stack[d].dev == id.dev && walk->stack[d].ino == id.ino;
      for (int s = 0; s < walk->seen_count; s++)
        seen |= walk->seen[s].dev == id.dev && walk->seen[s].ino == id.ino;
      if (walk->has_skip && walk->skip.dev == id.dev && walk->skip.ino == id.ino) {
        /* the output tree: not an input */
      } else if (loop) {
        fprintf(stderr, "cutile2triton: %s: a symbolic link loop; not followed\n", child);
      } else if (seen) {
        /* reached again through a link: walked once */
      } else if (walk->depth >= CLI_MAX_DEPTH) {
        fprintf(stderr, "cutile2triton: %s: too many nested folders (limit is %d); not entered\n", child, CLI_MAX_DEPTH);
        walk->errors++;
      } else {
        if (walk->seen_count == walk->seen_capacity) {
          int bigger_capacity = walk->seen_capacity ? walk->seen_capacity * 2 : 64;
          FolderId *bigger = realloc(walk->seen, sizeof(FolderId) * (size_t)bigger_capacity);
          if (bigger) {
            walk->seen = bigger;
            walk->seen_capacity = bigger_capacity;
          }
        }
        if (walk->seen_count < walk->seen_capacity)
          walk->seen[walk->seen_count++] = id;
        walk->stack[walk->depth++] = id;
        walk_folder(walk, root, child_relative);
        walk->depth--;
      }
    } else if (S_ISREG(st.st_mode) && ends_with_py(names[i])) {
      if (walk->count == CLI_MAX_FILES) {
        fprintf(stderr, "cutile2triton: too many .py files in one run (limit is %d); the rest are not converted\n",
                CLI_MAX_FILES);
        walk->errors++;
        walk->full = true;
      } else {
        if (walk->count == walk->capacity) {
          int bigger_capacity = walk->capacity ? walk->capacity * 2 : 64;
          char **bigger = realloc(walk->files, sizeof(char *) * (size_t)bigger_capacity);
          if (bigger) {
            walk->files = bigger;
            walk->capacity = bigger_capacity;
          }
        }
        if (walk->count < walk->capacity) {
          walk->files[walk->count++] = child_relative;
          child_relative = NULL;
        } else {
          fprintf(stderr, "cutile2triton: %s: out of memory; not converted\n", child);
          walk->errors++;
        }
      }
    }
    free(child);
    free(child_relative);
    free(names[i]);
  }
  free(names);
  free(folder);
}

/* Counts of a run over several modules (DIR, or several input files). */
typedef struct Batch {
  int converted, failed, skipped, changed;
  int index, count;
  bool progress; /* a line per file: standard error is a terminal, no --quiet */
  Stats total;
} Batch;

static void batch_file(const CliOptions *options, Batch *batch, const char *path, const char *target) {
  bool changed = false;
  int status = cli_convert_one(options, path, target, true, true, &batch->total, &changed);
  const char *note = "failed";
  if (status == C2T_OK) {
    batch->converted++;
    batch->changed += changed;
    note = options->check ? (changed ? "would change" : "unchanged") : options->diff ? "converted (diff only)"
                                                                                    : "converted";
  } else if (status == C2T_NOT_CUTILE) {
    batch->skipped++;
    note = "skipped (does not import cuda.tile)";
  } else {
    batch->failed++;
  }
  batch->index++;
  if (batch->progress)
    fprintf(stderr, "[%d/%d] %s: %s\n", batch->index, batch->count, path, note);
}

static void batch_failed(Batch *batch, const char *path) {
  batch->failed++;
  batch->index++;
  if (batch->progress)
    fprintf(stderr, "[%d/%d] %s: failed\n", batch->index, batch->count, path);
}

static int batch_end(const CliOptions *options, Batch *batch) {
  if (options->stats)
    stats_print(&batch->total, batch->converted == 1 ? "total (1 module)" : "total");
  if (!options->quiet) {
    fprintf(stderr, "converted %d, failed %d, skipped %d", batch->converted, batch->failed, batch->skipped);
    if (options->check)
      fprintf(stderr, ", would change %d", batch->changed);
    fputc('\n', stderr);
  }
  stats_free(&batch->total);
  return batch->failed || (options->check && batch->changed) ? C2T_ERROR_INPUT : C2T_OK;
}

/* `path` mapped /cutile/ -> /triton/, or through its real path (DIR given
 * as "." inside a cutile folder); NULL when neither has such a folder. */
static char *cli_triton_target(const char *path) {
  char *target = cli_triton_path(path);
  if (!target) {
    char *real = realpath(path, NULL);
    target = real ? cli_triton_path(real) : NULL;
    free(real);
  }
  return target;
}

static int cli_convert_tree(const CliOptions *options) {
  const char *root = options->inputs[0];
  struct stat root_stat;
  if (stat(root, &root_stat) != 0) {
    fprintf(stderr, "cutile2triton: cannot open %s: %s\n", root, strerror(errno));
    return C2T_ERROR_USAGE;
  }
  Walk walk = {0};
  walk.stack[walk.depth++] = (FolderId){root_stat.st_dev, root_stat.st_ino};
  if (options->output) {
    if (strcmp(options->output, "-") == 0)
      return cli_usage_error("-o - (standard output) takes one input file; %s is a folder", root);
    struct stat out_stat;
    if (stat(options->output, &out_stat) == 0) {
      if (!S_ISDIR(out_stat.st_mode)) {
        fprintf(stderr, "cutile2triton: -o %s: not a folder\n", options->output);
        return C2T_ERROR_USAGE;
      }
      if (out_stat.st_dev == root_stat.st_dev && out_stat.st_ino == root_stat.st_ino) {
        fprintf(stderr, "cutile2triton: -o %s is DIR itself; the inputs are never modified\n", options->output);
        return C2T_ERROR_USAGE;
      }
      walk.skip = (FolderId){out_stat.st_dev, out_stat.st_ino};
      walk.has_skip = true;
    }
  }
  char *root_real = realpath(root, NULL);
  walk_folder(&walk, root, "");
  Batch batch = {0};
  batch.failed = walk.errors;
  batch.count = walk.count;
  batch.progress = isatty(STDERR_FILENO) && !options->quiet;
  for (int i = 0; i < walk.count; i++) {
    const char *relative = walk.files[i];
    char *path = cli_join(root, relative);
    char *target = NULL;
    if (path && options->output) {
      /* OUTDIR/RELATIVE with RELATIVE's cutile folders named triton */
      char *mapped = cli_triton_path(relative);
      target = cli_join(options->output, mapped ? mapped : relative);
      free(mapped);
    } else if (path) {
      target = cli_triton_path(path);
      if (!target && root_real) {
        char *real = cli_join(root_real, relative);
        target = real ? cli_triton_path(real) : NULL;
        free(real);
      }
    }
    if (path)
      batch_file(options, &batch, path, target);
    else
      batch_failed(&batch, relative);
    free(target);
    free(path);
    free(walk.files[i]);
  }
  free(walk.files);
  free(walk.seen);
  free(root_real);
  return batch_end(options, &batch);
}

/* Several input files: each to its own output, OUTDIR/NAME (-o OUTDIR) or
 * its /cutile/ -> /triton/ path; as in directory mode a failure does not
 * stop the others, modules that do not import cuda.tile are skipped. */
static int cli_convert_files(const CliOptions *options) {
  for (int i = 0; i < options->input_count; i++) {
    const char *path = options->inputs[i];
    struct stat st;
    if (strcmp(path, "-") == 0)
      return cli_usage_error("%s", "standard input (-) can only be the one input");
    if (stat(path, &st) != 0) {
      fprintf(stderr, "cutile2triton: cannot open %s: %s\n", path, strerror(errno));
      return C2T_ERROR_USAGE;
    }
    if (S_ISDIR(st.st_mode))
      return cli_usage_error("%s is a folder: give a folder as the only input", path);
  }
  if (options->output) {
    struct stat st;
    if (strcmp(options->output, "-") == 0 || stat(options->output, &st) != 0 || !S_ISDIR(st.st_mode))
      return cli_usage_error("with several inputs, -o must be a folder that exists (-o %s is not)", options->output);
  }
  char **targets = calloc((size_t)options->input_count, sizeof(char *));
  if (!targets)
    return C2T_ERROR_USAGE;
  Batch batch = {0};
  batch.count = options->input_count;
  batch.progress = isatty(STDERR_FILENO) && !options->quiet;
  for (int i = 0; i < options->input_count; i++) {
    const char *path = options->inputs[i];
    char *target = options->output ? cli_join(options->output, cli_basename(path)) : cli_triton_target(path);
    const char *clash = NULL;
    for (int j = 0; j < i && target && !clash; j++)
      if (targets[j] && strcmp(targets[j], target) == 0)
        clash = options->inputs[j];
    if (clash) {
      fprintf(stderr, "cutile2triton: %s: its output %s is the output of %s too; not converted\n", path, target, clash);
      batch_failed(&batch, path);
      free(target);
      continue;
    }
    targets[i] = target;
    if (target && cli_same_file(path, target)) {
      fprintf(stderr, "cutile2triton: %s is the input itself; the input is never modified\n", target);
      batch_failed(&batch, path);
      continue;
    }
    batch_file(options, &batch, path, target);
  }
  for (int i = 0; i < options->input_count; i++)
    free(targets[i]);
  free(targets);
  return batch_end(options, &batch);
}

/* -------------------------------------------------------------- options */

static int cli_main(int argc, char **argv) {
  CliOptions options = {0};
  const char *no_color = getenv("NO_COLOR");
  options.color = isatty(STDERR_FILENO) && !(no_color && no_color[0]);
  if (argc < 2) {
    fputs(USAGE, stderr);
    return C2T_ERROR_USAGE;
  }
  if (strcmp(argv[1], "--query") == 0) {
    if (argc != 3)
      return cli_usage_error("%s needs one NAME (ct.load, Tile.astype, ...)", argv[1]);
    return cli_query(argv[2]);
  }
  if (strcmp(argv[1], "--list-ops") == 0) {
    bool markdown = argc == 3 && strcmp(argv[2], "--markdown") == 0;
    if (argc > 3 || (argc == 3 && !markdown))
      return cli_usage_error("%s takes no argument but --markdown", argv[1]);
    return cli_list_ops(markdown);
  }
  if (strcmp(argv[1], "roundtrip") == 0 || strcmp(argv[1], "check") == 0) {
    const char *file = NULL;
    bool options_end = false;
    for (int i = 2; i < argc; i++) {
      const char *arg = argv[i];
      if (!options_end && strcmp(arg, "--") == 0)
        options_end = true;
      else if (!options_end && arg[0] == '-' && arg[1] != '\0')
        return cli_usage_error("unknown option '%s'", arg);
      else if (file)
        return cli_usage_error("%s takes one FILE", argv[1]);
      else
        file = arg;
    }
    if (!file)
      return cli_usage_error("%s needs a FILE (- for standard input)", argv[1]);
    return cli_run(&options, argv[1], file);
  }
  options.inputs = malloc(sizeof(char *) * (size_t)argc);
  if (!options.inputs)
    return C2T_ERROR_USAGE;
  int status = -1;
  bool options_end = false;
  for (int i = 1; i < argc && status < 0; i++) {
    const char *arg = argv[i];
    if (options_end || arg[0] != '-' || arg[1] == '\0') {
      options.inputs[options.input_count++] = argv[i];
    } else if (strcmp(arg, "--") == 0) {
      options_end = true;
    } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(USAGE, stdout);
      status = C2T_OK;
    } else if (strcmp(arg, "--version") == 0) {
      printf("cutile2triton %s\n", c2t_version());
      status = C2T_OK;
    } else if (strcmp(arg, "--stats") == 0) {
      options.stats = true;
    } else if (strcmp(arg, "--diff") == 0) {
      options.diff = true;
    } else if (strcmp(arg, "--check") == 0) {
      options.check = true;
    } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
      options.quiet = true;
    } else if (strcmp(arg, "--werror-notes") == 0) {
      options.werror_notes = true;
    } else if (strcmp(arg, "--no-autotune") == 0) {
      options.no_autotune = true;
    } else if (strcmp(arg, "--no-loop-split") == 0) {
      options.no_loop_split = true;
    } else if (strcmp(arg, "-o") == 0) {
      if (i + 1 == argc || !argv[i + 1][0])
        status = cli_usage_error("%s needs a path (- for standard output)", arg);
      else if (options.output)
        status = cli_usage_error("%s is given twice", arg);
      else
        options.output = argv[++i];
    } else if (strcmp(arg, "--query") == 0 || strcmp(arg, "--list-ops") == 0) {
      status = cli_usage_error("%s takes no other arguments", arg);
    } else {
      status = cli_usage_error("unknown option '%s'", arg);
    }
  }
  if (status < 0 && options.input_count == 0)
    status = cli_usage_error("%s", "no input: give IN.py, DIR or - (standard input)");
  if (status < 0 && options.input_count > 1) {
    status = cli_convert_files(&options);
  } else if (status < 0) {
    struct stat st;
    const char *input = options.inputs[0];
    if (strcmp(input, "-") != 0 && stat(input, &st) == 0 && S_ISDIR(st.st_mode))
      status = cli_convert_tree(&options);
    else
      status = cli_convert_file(&options);
  }
  free(options.inputs);
  return status;
}

int c2t_main(int argc, char **argv) {
  int status = cli_main(argc, argv);
  fflush(stdout);
  fflush(stderr);
  return status;
}
