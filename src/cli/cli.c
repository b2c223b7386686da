/*
 * cli.c — the command-line tool, as a library function (c2t_main) so the
 * executable and the Python package (python -m cutile2triton) share it.
 *
 *   cutile2triton [--stats] [--diff] IN.py [-o OUT.py]   convert a cuTile module
 *   cutile2triton [--stats] [--diff] DIR [-o OUTDIR]     convert a tree of them
 *   cutile2triton roundtrip FILE      print FILE re-emitted from its syntax tree
 *   cutile2triton check FILE          parse FILE, report errors only
 *   cutile2triton --query NAME        how a cuTile operation is translated
 *   cutile2triton --version | --help
 *
 * Exit status: 0 success, 1 invalid input (a located error was printed; in
 * directory mode: some file failed), 2 usage or I/O error.
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
    "usage: cutile2triton [--stats] [--diff] IN.py [-o OUT.py]\n"
    "       cutile2triton [--stats] [--diff] DIR [-o OUTDIR]\n"
    "       cutile2triton roundtrip FILE\n"
    "       cutile2triton check FILE\n"
    "       cutile2triton --query NAME\n"
    "       cutile2triton --version | --help\n"
    "\n"
    "  IN.py            convert the cuTile module IN.py to a Triton module, printed\n"
    "                   to standard output\n"
    "  -o OUT.py        write the Triton module to OUT.py instead (only when the\n"
    "                   conversion succeeds; OUT.py is replaced as a whole)\n"
    "  DIR              convert every .py module under DIR (recursively, in sorted\n"
    "                   order) that imports cuda.tile, each written to its own path\n"
    "                   with the folder /cutile/ replaced by /triton/ (folders are\n"
    "                   created); other .py files are skipped; hidden folders\n"
    "                   (.name) are not entered. One failure does not stop the\n"
    "                   others; a failed file writes nothing. A line per file on\n"
    "                   standard error when it is a terminal, then a summary:\n"
    "                   converted N, failed M, skipped K\n"
    "  -o OUTDIR        with DIR: write a mirrored tree under OUTDIR instead\n"
    "  --stats          after each converted module, print on standard error the\n"
    "                   cuTile operations converted (counts per name), the memory\n"
    "                   operations given TMA (a tensor descriptor path) or the\n"
    "                   pointer path only (with the reason), and the C2Tnnn notes by\n"
    "                   code; with DIR, a total at the end\n"
    "  --diff           write nothing: print a unified diff (3 lines of context) of\n"
    "                   what would be written against what is on disk now (an absent\n"
    "                   file is all added: --- /dev/null); IN.py without -o is\n"
    "                   compared with its /cutile/ -> /triton/ path\n"
    "  --query NAME     print how the cuTile operation NAME (ct.load, load,\n"
    "                   Tile.astype, ...) is translated, with an example converted\n"
    "                   by this tool; an unknown NAME lists the known ones (exit 2)\n"
    "  roundtrip FILE   parse FILE as Python 3.12 and print it re-emitted from its\n"
    "                   syntax tree, comments included\n"
    "  check FILE       parse FILE and report syntax errors only\n"
    "\n"
    "FILE and IN.py may be - for standard input. Errors read\n"
    "FILE:LINE:COL: error: C2Tnnn: MESSAGE (codes in docs/diagnostics.md).\n"
    "Exit status: 0 success (--diff: also when there are differences), 1 invalid\n"
    "input or a construct that cannot be converted (nothing is written); with DIR:\n"
    "some file failed, 2 usage or I/O error.\n"
    ;

/* Read a whole file (or stdin for "-") into a malloc'd buffer. */
static char *cli_read_file(const char *path, size_t *length) {
  FILE *file = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "cutile2triton: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t capacity = 1 << 16, used = 0;
  char *data = malloc(capacity);
  while (data) {
    size_t got = fread(data + used, 1, capacity - used, file);
    used += got;
    if (got == 0)
      break;
    if (used == capacity) {
      if (capacity > ((size_t)1 << 30))
        break; /* the library reports the size limit */
      char *bigger = realloc(data, capacity * 2);
      if (!bigger) {
        free(data);
        data = NULL;
        break;
      }
      data = bigger;
      capacity *= 2;
    }
  }
  int failed = ferror(file) || !data;
  if (file != stdin)
    fclose(file);
  if (failed) {
    fprintf(stderr, "cutile2triton: cannot read %s\n", path);
    free(data);
    return NULL;
  }
  *length = used;
  return data;
}

/* Write `data` to `path` through a temporary file in the same folder and a
 * rename, so that OUT is either the whole new module or untouched. */
static int cli_write_file(const char *path, const char *data, size_t length) {
  size_t path_length = strlen(path);
  char *temporary = malloc(path_length + 16);
  if (!temporary)
    return C2T_ERROR_USAGE;
  snprintf(temporary, path_length + 16, "%s.c2t-tmp", path);
  FILE *file = fopen(temporary, "wb");
  int status = C2T_OK;
  if (!file || fwrite(data, 1, length, file) != length || fflush(file) != 0) {
    fprintf(stderr, "cutile2triton: cannot write %s: %s\n", path, strerror(errno));
    status = C2T_ERROR_USAGE;
  }
  if (file && fclose(file) != 0 && status == C2T_OK) {
    fprintf(stderr, "cutile2triton: cannot write %s: %s\n", path, strerror(errno));
    status = C2T_ERROR_USAGE;
  }
  if (status == C2T_OK && rename(temporary, path) != 0) {
    fprintf(stderr, "cutile2triton: cannot write %s: %s\n", path, strerror(errno));
    status = C2T_ERROR_USAGE;
  }
  if (status != C2T_OK)
    remove(temporary);
  free(temporary);
  return status;
}

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

/* ---------------------------------------------------------------- diff */

/* The diff of `text` against the file at `target` (absent: all added). */
static int cli_print_diff(const char *target, const char *text, size_t length) {
  struct stat st;
  bool exists = stat(target, &st) == 0;
  size_t old_length = 0;
  char *old = NULL;
  if (exists) {
    old = cli_read_file(target, &old_length);
    if (!old)
      return C2T_ERROR_USAGE;
  }
  const char *relative = target;
  while (*relative == '/')
    relative++;
  char *old_label = cli_join("a", relative), *new_label = cli_join("b", relative);
  int status = C2T_OK;
  if (!old_label || !new_label ||
      cli_diff(stdout, exists ? old_label : "/dev/null", new_label, old ? old : "", old_length, text, length) < 0) {
    fprintf(stderr, "cutile2triton: %s: the diff is too large to compute (or memory ran out)\n", target);
    status = C2T_ERROR_USAGE;
  }
  free(old_label);
  free(new_label);
  free(old);
  return status;
}

/* ---------------------------------------------------------- one module */

typedef struct CliOptions {
  const char *input;
  const char *output;
  bool stats;
  bool diff;
} CliOptions;

static int cli_run(const char *command, const char *path, const char *output_path) {
  size_t length = 0;
  char *source = cli_read_file(path, &length);
  if (!source)
    return C2T_ERROR_USAGE;
  c2t_result result;
  const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
  if (strcmp(command, "roundtrip") == 0)
    c2t_roundtrip(name, source, length, &result);
  else
    c2t_check_syntax(name, source, length, &result);
  free(source);
  fwrite(result.diagnostics, 1, result.diagnostics_len, stderr);
  int status = result.status;
  if (status == C2T_OK && result.output && output_path) {
    status = cli_write_file(output_path, result.output, result.output_len);
  } else if (status == C2T_OK && result.output) {
    if (fwrite(result.output, 1, result.output_len, stdout) != result.output_len || fflush(stdout) != 0) {
      fprintf(stderr, "cutile2triton: cannot write output: %s\n", strerror(errno));
      status = C2T_ERROR_USAGE;
    }
  }
  c2t_result_free(&result);
  return status;
}

static int cli_convert_file(const CliOptions *options) {
  const char *path = options->input;
  bool from_stdin = strcmp(path, "-") == 0;
  char *target = NULL;
  if (options->diff && !options->output) {
    target = from_stdin ? NULL : cli_triton_path(path);
    if (!target) {
      fprintf(stderr, "cutile2triton: --diff: %s has no /cutile/ folder to map to /triton/; give -o OUT.py\n", path);
      return C2T_ERROR_USAGE;
    }
  }
  if (options->output && !from_stdin && cli_same_file(path, options->output)) {
    fprintf(stderr, "cutile2triton: %s is the input itself; the input is never modified\n", options->output);
    return C2T_ERROR_USAGE;
  }
  size_t length = 0;
  char *source = cli_read_file(path, &length);
  if (!source) {
    free(target);
    return C2T_ERROR_USAGE;
  }
  c2t_result result;
  c2t_report report;
  c2t_options convert_options = {options->stats ? C2T_OPTION_STATS : 0};
  c2t_convert_ex(from_stdin ? "<stdin>" : path, source, length, &convert_options, &result, &report);
  free(source);
  fwrite(result.diagnostics, 1, result.diagnostics_len, stderr);
  int status = result.status;
  if (status == C2T_OK && options->diff) {
    status = cli_print_diff(target ? target : options->output, result.output, result.output_len);
  } else if (status == C2T_OK && options->output) {
    status = cli_write_file(options->output, result.output, result.output_len);
  } else if (status == C2T_OK) {
    if (fwrite(result.output, 1, result.output_len, stdout) != result.output_len || fflush(stdout) != 0) {
      fprintf(stderr, "cutile2triton: cannot write output: %s\n", strerror(errno));
      status = C2T_ERROR_USAGE;
    }
  }
  if (result.status == C2T_OK && options->stats) {
    Stats stats = {0};
    stats_parse(&stats, report.stats);
    stats_print(&stats, from_stdin ? "<stdin>" : path);
    stats_free(&stats);
  }
  c2t_report_free(&report);
  c2t_result_free(&result);
  free(target);
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
      fprintf(stderr, "cutile2triton: %s has more than %d entries; the rest are not read\n", folder, CLI_MAX_ENTRIES);
      walk->errors++;
      break;
    }
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 32;
      char **bigger = realloc(names, sizeof(char *) * (size_t)capacity);
      if (!bigger)
        break;
      names = bigger;
    }
    names[count] = strdup(entry->d_name);
    if (names[count])
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
      fprintf(stderr, "cutile2triton: %s: path longer than %d bytes; not read\n", child, CLI_MAX_PATH);
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
        fprintf(stderr, "cutile2triton: %s: more than %d nested folders; not entered\n", child, CLI_MAX_DEPTH);
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
        fprintf(stderr, "cutile2triton: more than %d .py files; the rest are not converted\n", CLI_MAX_FILES);
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

typedef enum FileOutcome { FILE_CONVERTED, FILE_FAILED, FILE_SKIPPED } FileOutcome;

static FileOutcome convert_tree_file(const CliOptions *options, const char *path, const char *relative,
                                     const char *root_real, Stats *total, const char **note) {
  size_t length = 0;
  char *source = cli_read_file(path, &length);
  if (!source)
    return FILE_FAILED;
  c2t_result result;
  c2t_report report;
  c2t_options convert_options = {C2T_OPTION_CUTILE_ONLY | (options->stats ? C2T_OPTION_STATS : 0)};
  c2t_convert_ex(path, source, length, &convert_options, &result, &report);
  free(source);
  FileOutcome outcome = FILE_FAILED;
  char *target = NULL;
  if (result.status == C2T_NOT_CUTILE) {
    outcome = FILE_SKIPPED;
    *note = "skipped (does not import cuda.tile)";
  } else if (result.status != C2T_OK) {
    fwrite(result.diagnostics, 1, result.diagnostics_len, stderr);
    *note = "failed";
  } else {
    fwrite(result.diagnostics, 1, result.diagnostics_len, stderr);
    if (options->output) {
      target = cli_join(options->output, relative);
    } else {
      target = cli_triton_path(path);
      if (!target && root_real) {
        char *real = cli_join(root_real, relative);
        target = real ? cli_triton_path(real) : NULL;
        free(real);
      }
      if (!target)
        fprintf(stderr,
                "cutile2triton: %s: no folder named 'cutile' in its path to map to 'triton' (the /cutile/ -> "
                "/triton/ convention); give -o OUTDIR to write a mirrored tree instead\n",
                path);
    }
    *note = "failed";
    if (target && options->diff) {
      if (cli_print_diff(target, result.output, result.output_len) == C2T_OK) {
        outcome = FILE_CONVERTED;
        *note = "converted (diff only)";
      }
    } else if (target && cli_make_parents(target) == 0 &&
               cli_write_file(target, result.output, result.output_len) == C2T_OK) {
      outcome = FILE_CONVERTED;
      *note = "converted";
    }
    if (outcome == FILE_CONVERTED && options->stats) {
      Stats stats = {0};
      stats_parse(&stats, report.stats);
      stats_print(&stats, path);
      stats_merge(total, &stats);
      stats_free(&stats);
    }
  }
  free(target);
  c2t_report_free(&report);
  c2t_result_free(&result);
  return outcome;
}

static int cli_convert_tree(const CliOptions *options) {
  const char *root = options->input;
  struct stat root_stat;
  if (stat(root, &root_stat) != 0) {
    fprintf(stderr, "cutile2triton: cannot open %s: %s\n", root, strerror(errno));
    return C2T_ERROR_USAGE;
  }
  Walk walk = {0};
  walk.stack[walk.depth++] = (FolderId){root_stat.st_dev, root_stat.st_ino};
  if (options->output) {
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
  int converted = 0, failed = walk.errors, skipped = 0;
  bool progress = isatty(STDERR_FILENO);
  Stats total = {0};
  for (int i = 0; i < walk.count; i++) {
    char *path = cli_join(root, walk.files[i]);
    const char *note = "failed";
    FileOutcome outcome = path ? convert_tree_file(options, path, walk.files[i], root_real, &total, &note) : FILE_FAILED;
    if (outcome == FILE_CONVERTED)
      converted++;
    else if (outcome == FILE_SKIPPED)
      skipped++;
    else
      failed++;
    if (progress)
      fprintf(stderr, "[%d/%d] %s: %s\n", i + 1, walk.count, path ? path : walk.files[i], note);
    free(path);
    free(walk.files[i]);
  }
  if (options->stats)
    stats_print(&total, converted == 1 ? "total (1 module)" : "total");
  fprintf(stderr, "converted %d, failed %d, skipped %d\n", converted, failed, skipped);
  stats_free(&total);
  free(walk.files);
  free(walk.seen);
  free(root_real);
  return failed ? C2T_ERROR_INPUT : C2T_OK;
}

/* -------------------------------------------------------------- options */

static int cli_usage_error(const char *why) {
  if (why)
    fprintf(stderr, "cutile2triton: %s\n", why);
  fputs(USAGE, stderr);
  return C2T_ERROR_USAGE;
}

static int cli_main(int argc, char **argv) {
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(USAGE, stdout);
    return C2T_OK;
  }
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("cutile2triton %s\n", c2t_version());
    return C2T_OK;
  }
  if (argc == 3 && strcmp(argv[1], "--query") == 0)
    return cli_query(argv[2]);
  if (argc == 3 && (strcmp(argv[1], "roundtrip") == 0 || strcmp(argv[1], "check") == 0))
    return cli_run(argv[1], argv[2], NULL);
  CliOptions options = {0};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--stats") == 0) {
      options.stats = true;
    } else if (strcmp(arg, "--diff") == 0) {
      options.diff = true;
    } else if (strcmp(arg, "-o") == 0) {
      if (i + 1 == argc || options.output)
        return cli_usage_error(i + 1 == argc ? "-o needs a path" : "-o is given twice");
      options.output = argv[++i];
      if (!options.output[0])
        return cli_usage_error("-o needs a path");
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return cli_usage_error(NULL);
    } else if (options.input) {
      return cli_usage_error(NULL);
    } else {
      options.input = arg;
    }
  }
  if (!options.input)
    return cli_usage_error(NULL);
  struct stat st;
  if (strcmp(options.input, "-") != 0 && stat(options.input, &st) == 0 && S_ISDIR(st.st_mode))
    return cli_convert_tree(&options);
  return cli_convert_file(&options);
}

int c2t_main(int argc, char **argv) {
  int status = cli_main(argc, argv);
  fflush(stdout);
  fflush(stderr);
  return status;
}
