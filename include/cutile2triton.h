/*
 * cutile2triton.h — the one public header of libcutile2triton.
 *
 * The library reads a Python module (cuTile kernels and their host code) and
 * writes Python back: c2t_convert gives the Triton module (kernels as
 * @triton.jit functions, a launcher per kernel, the host code rewritten);
 * c2t_roundtrip the module re-emitted from its syntax tree; c2t_check_syntax
 * only parses; c2t_main is the command-line tool. The pipeline:
 *
 *   source - tokenize - parse - resolve - lower - emit
 *
 * (src/tokenize, src/parse, src/resolve, src/lower, src/emit; src/api.c).
 *
 * Every entry point takes the whole source text in memory, never touches the
 * file system, never exits the process and never prints: output and
 * diagnostics come back in a c2t_result that the caller frees.
 */
#ifndef CUTILE2TRITON_H
#define CUTILE2TRITON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define C2T_VERSION "0.1.0"

/* C2T_API marks the public entry points: the shared library exports these
 * c2t_* functions and nothing else (the library is built with
 * -fvisibility=hidden, so internal functions never clash with, or get
 * replaced by, symbols of the process that loads it). */
#if defined(__GNUC__) || defined(__clang__)
#define C2T_API __attribute__((visibility("default")))
#else
#define C2T_API
#endif

/* The largest input the library accepts, in bytes: a larger source is a
 * located C2T002 error ("input is N bytes, more than the limit of ...").
 * The command-line tool reads no more than this (and one byte). */
#define C2T_MAX_INPUT_BYTES (64u * 1024u * 1024u)

/* Exit statuses of the command-line tool, and statuses of c2t_result. */
enum {
  C2T_OK = 0,          /* output produced */
  C2T_ERROR_INPUT = 1, /* the input is not valid (syntax, unsupported construct) */
  C2T_ERROR_USAGE = 2, /* bad usage or an I/O error (the command-line tool only) */
  C2T_ERROR_LIMIT = 1  /* an explicit limit was hit: reported like an input error */
};

/* What one call produced. `output` holds the emitted module when status is
 * C2T_OK; `diagnostics` holds formatted messages (errors and warnings), each
 * "FILE:LINE:COL: error: C2Tnnn: MESSAGE" followed by the source line and a
 * caret; C2Tnnn is a stable code (docs/diagnostics.md).
 * Both strings are NUL-terminated and owned by the result. */
typedef struct c2t_result {
  int status;
  char *output;
  size_t output_len;
  char *diagnostics;
  size_t diagnostics_len;
} c2t_result;

/* Parse `source` (`length` bytes, need not be NUL-terminated) as a Python
 * 3.12 module named `filename` in diagnostics, and write it back from its
 * syntax tree, comments included. Returns result->status. */
C2T_API int c2t_roundtrip(const char *filename, const char *source, size_t length, c2t_result *result);

/* Convert a cuTile module (`import cuda.tile as ct`, @ct.kernel functions
 * and the host code that launches them) into a Triton module: @triton.jit
 * kernels, one launcher per kernel, the host code rewritten, everything else
 * kept. What cannot be converted faithfully is an error, and then there is
 * no output. Returns result->status. */
C2T_API int c2t_convert(const char *filename, const char *source, size_t length, c2t_result *result);

/* c2t_convert with options. `options` may be NULL (then it is c2t_convert);
 * `report` may be NULL; when given it is filled in and the caller releases
 * it with c2t_report_free. (c2t_result keeps its layout: language bindings
 * mirror it.) */
enum {
  C2T_OPTION_STATS = 1,       /* count what the conversion did: report->stats */
  C2T_OPTION_CUTILE_ONLY = 2, /* a module that does not import cuda.tile is not an error:
                                 status C2T_NOT_CUTILE, no output, no diagnostics */
  C2T_OPTION_NOTES_FATAL = 4, /* an approximation note (# C2Tnnn: ... in the output) is an
                                 error instead: located at the statement (or kernel hint)
                                 that would carry it, code C2Tnnn of the note, no output */
  C2T_OPTION_NO_AUTOTUNE = 8, /* kernels get fixed launch options (num_warps, num_stages: the
                                 first of the candidates they would be tuned over) instead of
                                 @triton.autotune */
  C2T_OPTION_NO_LOOP_SPLIT = 16, /* loops of matrix products stay whole where an `if` on their
                                    counter turns once (no tl.static_range(2) of two parts) */
};

enum { C2T_NOT_CUTILE = 3 }; /* c2t_result.status under C2T_OPTION_CUTILE_ONLY */

typedef struct c2t_options {
  unsigned flags; /* C2T_OPTION_* */
} c2t_options;

/* What c2t_convert_ex found besides the output. `stats` (C2T_OPTION_STATS,
 * NUL-terminated, NULL otherwise) holds one fact a line, names sorted:
 *   op ct.load 2                  a cuTile operation converted, and how often
 *                                 ("ct.NAME", "Tile.METHOD", "Array.slice",
 *                                 "builtin NAME")
 *   memory tma 3                  memory operations given a TMA (tensor
 *                                 descriptor) path
 *   memory pointer REASON 1       memory operations on the pointer path only,
 *                                 by reason ("1-D tile", "allow_tma=False", ...)
 *   note C2T302 1                 notes put in the output, by code
 * `stats` stays NULL when the conversion does not succeed. */
typedef struct c2t_report {
  int imports_cuda_tile; /* 1 when the module imports cuda.tile (0 also when it does not parse) */
  char *stats;
  size_t stats_len;
} c2t_report;

C2T_API int c2t_convert_ex(const char *filename, const char *source, size_t length, const c2t_options *options,
                           c2t_result *result, c2t_report *report);
C2T_API void c2t_report_free(c2t_report *report);

/* Parse only: status and diagnostics, no output. */
C2T_API int c2t_check_syntax(const char *filename, const char *source, size_t length, c2t_result *result);

/* Release what a result holds; the struct itself belongs to the caller. */
C2T_API void c2t_result_free(c2t_result *result);

/* The command-line tool itself: argv as for `cutile2triton`; prints to
 * stdout/stderr and returns the exit status (0, 1 or 2). */
C2T_API int c2t_main(int argc, char **argv);

/* The library version, C2T_VERSION. */
C2T_API const char *c2t_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CUTILE2TRITON_H */
