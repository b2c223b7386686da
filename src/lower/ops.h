/*
 * ops.h — the table of cuTile names: one row per public name of cuda.tile
 * (operations, host API, types, dtypes, enums, exceptions, submodules) and
 * per method form (Tile.astype, Array.slice).
 *
 * The rows are X-macros in src/lower/ops/<family>.def, one file per family:
 *
 *   OP(NAME, SIGNATURE, LOWERING, FLAGS, STATUS, NOTE, DOC)
 *       NAME       the cuda.tile name ("load"); a method-only form is written
 *                  with its class ("Array.slice")
 *       SIGNATURE  Python's, bound by name (bind_op): "x, /, axis, *, keepdims";
 *                  NULL for a name that is not called
 *       LOWERING   its lowering (an OpLowering), NULL when there is none
 *       FLAGS      OPF_* below
 *       STATUS     CONVERTED, NOTED (converted, with NOTE), UNSUPPORTED (NOTE is why)
 *       DOC        one line: what the translation is, with an example
 *   BUILTIN(PYTHON, NAME)  the Python builtin PYTHON in tile code is the row NAME
 *   QUERY(NAME, SUMMARY, EXAMPLE)  the `--query NAME` text of a row and its cuTile
 *                  example (a module with one kernel `example`, converted live)
 *   UNARY(NAME, SIGNATURE, HELPER, GPU, INTERPRETED, DOC, REJECTS_INTEGERS)
 *                  (ops/math_unary.def) a float function: one row, the generic
 *                  unary lowering does the rest (lower_math_unary.c)
 *
 * Every list derived from names is built from these rows (ops.c): the
 * dispatch, the array-first and side-effect sets, the builtins map,
 * --query, --list-ops and docs/ops.md.
 */
#ifndef C2T_OPS_H
#define C2T_OPS_H

#include <stdbool.h>

struct Lowerer;
struct Node;

/* One cuTile operation's lowering: gets the call as written (arguments not
 * yet lowered; use bind_op) and returns the lowered expression with its
 * type set. `member` is the row's name ("load", "sum", ...). Method calls
 * (`t.astype(dt)`) arrive as calls with the object as first argument. */
typedef struct Node *(*OpLowering)(struct Lowerer *L, struct Node *call, const char *member);

enum {
  OPF_ARRAY_FIRST = 1 << 0,  /* the first argument is an array (a parameter so used is an array) */
  OPF_SIDE_EFFECT = 1 << 1,  /* writes memory, prints or asserts (`a and b` must not skip it) */
  OPF_TILE_METHOD = 1 << 2,  /* also tile.NAME(...) */
  OPF_ARRAY_METHOD = 1 << 3, /* also array.NAME(...) */
  OPF_BUILTIN_ONLY = 1 << 4, /* a Python builtin (int(x)), not a cuda.tile name */
  OPF_HOST = 1 << 5,         /* host API: used outside tile code (launch, kernel) */
  OPF_FP4 = 1 << 6,          /* takes float4_e2m1fn tiles (uint8 codes) and that dtype; other rows refuse them */
  OPF_E8M0 = 1 << 7,         /* takes float8_e8m0fnu tiles (uint8 bits) and that dtype; other rows refuse them */
  /* what a name is, for --list-ops (none of these: an operation) */
  OPF_TYPE = 1 << 8,
  OPF_DTYPE = 1 << 9,
  OPF_ENUM = 1 << 10,
  OPF_EXCEPTION = 1 << 11,
  OPF_SUBMODULE = 1 << 12,
};

typedef enum OpStatus { OP_CONVERTED, OP_NOTED, OP_UNSUPPORTED } OpStatus;

typedef struct OpRow {
  const char *name;
  const char *family; /* the .def file: "memory", "math", ... */
  const char *signature;
  OpLowering lower;
  unsigned flags;
  OpStatus status;
  const char *note;
  const char *doc;
} OpRow;

/* The --query text of a row (QUERY lines of the .def files). */
typedef struct OpQuery {
  const char *name;    /* as asked: "ct.load", "Tile.astype" */
  const char *summary; /* what the translation does */
  const char *example; /* cuTile source: a module with one kernel `example` */
} OpQuery;

typedef struct OpFamily {
  const char *name;  /* "memory" */
  const char *title; /* "Memory and atomics" */
} OpFamily;

extern const OpRow c2t_op_rows[];
extern const int c2t_op_row_count;
extern const OpQuery c2t_op_queries[];
extern const int c2t_op_query_count;
extern const OpFamily c2t_op_families[];
extern const int c2t_op_family_count;

/* The row of cuda.tile name `name` ("load"; "slice" finds "Array.slice"),
 * NULL if none. Builtin-only rows are not found here. */
const OpRow *op_find(const char *name);
/* A cuTile operation only tile code can call (not a host name, type, dtype, enum). */
bool op_is_tile_only(const char *member);
/* A name cuda.tile takes from cuda.tile._stub (`_stub.pack_to_bytes` is ct.pack_to_bytes). */
bool op_in_stub(const char *name);
bool op_is_public_name(const char *name); /* hasattr(ct, name) in cuda.tile 1.7 */
/* Whether ct.`member` ("tune.exhaustive_search", "_ir.ops") starts with a name cuda.tile 1.7 has:
 * a public one of the table, or any private one (a leading underscore). */
bool op_starts_with_cutile_name(const char *member);
/* Any row whose name (or bare method name) is `name`, builtin-only rows included. */
const OpRow *op_row(const char *name);
/* The row that `object.name(...)` calls for a tile or array object, NULL if none. */
const OpRow *op_find_method(const char *name, bool on_array);
const OpRow *op_row_named(const char *full_name); /* by its full name: "TiledView.load" */
/* The row a Python builtin in tile code stands for ("min" -> minimum), NULL if none. */
const OpRow *op_find_builtin(const char *python_name);
/* Whether `name` is a row with every flag of `flags`. */
bool op_has_flags(const char *name, unsigned flags);
/* "converted", "converted with a note", "not supported". */
const char *op_status_text(OpStatus status);
/* The name as a user writes it: "ct.load", "Array.slice". */
const char *op_display_prefix(const OpRow *row);

#endif /* C2T_OPS_H */
