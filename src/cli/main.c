/*
 * main.c — the command-line tool.
 *
 *   cutile2triton roundtrip FILE   print FILE re-emitted from its syntax tree
 *   cutile2triton check FILE       parse FILE, report errors only
 *   cutile2triton --version | --help
 *
 * Exit status: 0 success, 1 invalid input (a located error was printed),
 * 2 usage or I/O error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutile2triton.h"

static const char USAGE[] =
    "usage: cutile2triton roundtrip FILE\n"
    "       cutile2triton check FILE\n"
    "       cutile2triton --version | --help\n"
    "\n"
    "  roundtrip FILE   parse FILE as Python 3.12 and print it re-emitted from its\n"
    "                   syntax tree, comments included\n"
    "  check FILE       parse FILE and report syntax errors only\n"
    "\n"
    "FILE may be - for standard input.\n"
    "Exit status: 0 success, 1 invalid input (FILE:LINE:COL: error: ...),\n"
    "2 usage or I/O error.\n";

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

static int cli_run(const char *command, const char *path) {
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
  if (status == C2T_OK && result.output) {
    if (fwrite(result.output, 1, result.output_len, stdout) != result.output_len || fflush(stdout) != 0) {
      fprintf(stderr, "cutile2triton: cannot write output: %s\n", strerror(errno));
      status = C2T_ERROR_USAGE;
    }
  }
  c2t_result_free(&result);
  return status;
}

int main(int argc, char **argv) {
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(USAGE, stdout);
    return C2T_OK;
  }
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("cutile2triton %s\n", c2t_version());
    return C2T_OK;
  }
  if (argc == 3 && (strcmp(argv[1], "roundtrip") == 0 || strcmp(argv[1], "check") == 0))
    return cli_run(argv[1], argv[2]);
  fputs(USAGE, stderr);
  return C2T_ERROR_USAGE;
}
