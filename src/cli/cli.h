/*
 * cli.h — private to the command-line tool (src/cli/).
 *
 *   cli.c     options, single files, directory mode, --stats
 *   diff.c    the unified diff of --diff
 *   query.c   --query NAME: how a cuTile operation is translated
 */
#ifndef C2T_CLI_H
#define C2T_CLI_H

#include <stdio.h>

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

#endif /* C2T_CLI_H */
