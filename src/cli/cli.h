/*
 * cli.h — private to the command-line tool (src/cli/).
 *
 *   main.c    the executable's main(): c2t_main (cli.c)
 *   cli.c     options, single files, several files, directory mode, --stats
 *   io.c      reading inputs (bounded), writing outputs (temporary file + rename)
 *   diff.c    the unified diff of --diff
 *   query.c   --query NAME: how a cuTile operation is translated
 */
#ifndef C2T_CLI_H
#define C2T_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Read the file at `path` ("-": standard input) whole; `name` names it in a
 * limit error. At most C2T_MAX_INPUT_BYTES + 1 bytes are read: a larger input
 * is a located C2T002 error as the library gives (status C2T_ERROR_LIMIT).
 * Other failures print "cutile2triton: cannot ..." (C2T_ERROR_USAGE).
 * Returns a malloc'd buffer, or NULL with *status set. */
char *cli_read_file(const char *path, const char *name, size_t *length, int *status);

/* Write `data` to `path` ("-": standard output) as a whole or not at all
 * (io.c says how); prints why on failure. Returns C2T_OK or C2T_ERROR_USAGE. */
int cli_write_file(const char *path, const char *data, size_t length);

/* Write the unified diff turning old_text into new_text (labels in the
 * ---/+++ lines, 3 lines of context) to `out`. Returns 1 when they differ,
 * 0 when they are the same (nothing written), -1 when memory runs out or a
 * text passes the limits (nothing written). */
int cli_diff(FILE *out, const char *old_label, const char *new_label, const char *old_text, size_t old_len,
             const char *new_text, size_t new_len);

/* --query NAME: prints how NAME is translated, with an example converted by
 * the real converter; returns the exit status (2 for an unknown name, with
 * the known names listed on stderr). */
int cli_query(const char *name);

/* --list-ops [--markdown]: every name of cuda.tile and the method forms, each
 * with its status, from the op table (src/lower/ops/); --markdown is
 * docs/ops.md. */
int cli_list_ops(bool markdown);

#endif /* C2T_CLI_H */
