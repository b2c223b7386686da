/*
 * cli.c — the command-line tool, as a library function (c2t_main) so the
 * executable and the Python package (python -m cutile2triton) share it.
 *
 *   cutile2triton IN.py [-o OUT.py]   convert a cuTile module to Triton
 *   cutile2triton roundtrip FILE      print FILE re-emitted from its syntax tree
 *   cutile2triton check FILE          parse FILE, report errors only
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
    "usage: cutile2triton IN.py [-o OUT.py]\n"
    "       cutile2triton roundtrip FILE\n"
    "       cutile2triton check FILE\n"
    "       cutile2triton --version | --help\n"
    "\n"
    "  IN.py            convert the cuTile module IN.py to a Triton module, printed\n"
    "                   to standard output\n"
    "  -o OUT.py        write the Triton module to OUT.py instead (only when the\n"
    "                   conversion succeeds; OUT.py is replaced as a whole)\n"
    "  roundtrip FILE   parse FILE as Python 3.12 and print it re-emitted from its\n"
    "                   syntax tree, comments included\n"
    "  check FILE       parse FILE and report syntax errors only\n"
    "\n"
    "FILE may be - for standard input.\n"
    "Exit status: 0 success, 1 invalid input or a construct that cannot be\n"
    "converted (FILE:LINE:COL: error: ...; nothing is written), 2 usage or I/O error.\n"
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

static int cli_run(const char *command, const char *path, const char *output_path) {
  size_t length = 0;
  char *source = cli_read_file(path, &length);
  if (!source)
    return C2T_ERROR_USAGE;
  c2t_result result;
  const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
  if (strcmp(command, "roundtrip") == 0)
    c2t_roundtrip(name, source, length, &result);
  else if (strcmp(command, "convert") == 0)
    c2t_convert(name, source, length, &result);
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

static int cli_main(int argc, char **argv) {
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(USAGE, stdout);
    return C2T_OK;
  }
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("cutile2triton %s\n", c2t_version());
    return C2T_OK;
  }
  if (argc == 3 && (strcmp(argv[1], "roundtrip") == 0 || strcmp(argv[1], "check") == 0))
    return cli_run(argv[1], argv[2], NULL);
  if (argc == 2 && argv[1][0] != '-')
    return cli_run("convert", argv[1], NULL);
  if (argc == 4 && argv[1][0] != '-' && strcmp(argv[2], "-o") == 0)
    return cli_run("convert", argv[1], argv[3]);
  if (argc == 4 && strcmp(argv[1], "-o") == 0 && argv[3][0] != '-')
    return cli_run("convert", argv[3], argv[2]);
  fputs(USAGE, stderr);
  return C2T_ERROR_USAGE;
}

int c2t_main(int argc, char **argv) {
  int status = cli_main(argc, argv);
  fflush(stdout);
  fflush(stderr);
  return status;
}

