/*
 * unit.h — a minimal unit-test harness for the C core.
 *
 * A test is a function; it passes when none of its CHECKs failed. Each
 * suite file exposes one `void run_<suite>_tests(void)` that calls
 * UNIT_RUN(test) for each of its tests; main.c calls the suites and prints
 * "unit: N passed, M failed".
 */
#ifndef C2T_UNIT_H
#define C2T_UNIT_H

#include <stdio.h>
#include <string.h>

#include "c2t.h"

extern int unit_failures_in_test; /* CHECK failures in the running test */

void unit_run(const char *name, void (*test)(void));
#define UNIT_RUN(test) unit_run(#test, test)

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      unit_failures_in_test++;                                               \
    }                                                                        \
  } while (0)

#define CHECK_STR(actual, expected)                                          \
  do {                                                                       \
    const char *a_ = (actual), *e_ = (expected);                             \
    if (!a_ || strcmp(a_, e_) != 0) {                                        \
      fprintf(stderr, "  %s:%d: expected\n    %s\n  got\n    %s\n", __FILE__, __LINE__, e_, a_ ? a_ : "(null)"); \
      unit_failures_in_test++;                                               \
    }                                                                        \
  } while (0)

/* Helpers shared by the suites (main.c). Returned strings are malloc'd and
 * freed by the next call of the same helper. */

/* Tokenize `source`; return the tokens as "KIND:text KIND:text ..." (NEWLINE,
 * INDENT, DEDENT, EOF without text) or "error: <first diagnostic line>". */
const char *unit_tokens(const char *source);

/* Parse `source`; return dump_node() of the module, or "error: <first line
 * of the diagnostic>" (the FILE:LINE:COL prefix is "<test>:L:C"). */
const char *unit_parse(const char *source);

/* Round-trip `source` through c2t_roundtrip; return the output or
 * "error: <first diagnostic line>". */
const char *unit_roundtrip(const char *source);

/* A parsed source kept alive for tests that look at the tree itself;
 * module is NULL when parsing failed. Free with unit_free_tree. */
typedef struct UnitTree {
  Context *ctx;
  Node *module;
} UnitTree;

UnitTree unit_parse_tree(const char *source);
void unit_free_tree(UnitTree *tree);

void run_tokenize_tests(void);
void run_parse_tests(void);      /* test_parse.c: expressions; calls run_parse_stmt_tests */
void run_parse_stmt_tests(void); /* test_parse_stmt.c: statements, patterns, module */
void run_emit_tests(void);

#endif /* C2T_UNIT_H */
