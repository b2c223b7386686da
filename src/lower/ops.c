/*
 * ops.c — the table of cuTile names, built from the rows of ops/<family>.def
 * (see ops.h), and the lookups every derived list uses: the dispatch
 * (lower_call.c), the array-first set (lower.c), the side-effect set
 * (lower_control.c), the builtins map, --query and --list-ops (src/cli/).
 */
#include <string.h>

#include "lower.h"
#include "lower_math.h"
#include "lower_memory.h"

/* Every lowering a row names, declared here (each is defined in its family's lower_*.c). */
#define OP(NAME, SIGNATURE, LOWERING, FLAGS, STATUS, NOTE, DOC) \
  Node *LOWERING(Lowerer *L, Node *call, const char *member);
#define UNARY(NAME, SIGNATURE, HELPER, GPU, INTERPRETED, HELPER_DOC, REJECTS_INTEGERS, DOC)
#define QUERY(NAME, SUMMARY, EXAMPLE)
#define BUILTIN(PYTHON, NAME)
#include "ops/index.def"
#include "ops/memory.def"
#include "ops/math.def"
#include "ops/reduce.def"
#include "ops/shape.def"
#include "ops/debug.def"
#include "ops/matrix.def"
#include "ops/host.def"
#include "ops/names.def"
#undef OP
#undef UNARY
#undef QUERY
#undef BUILTIN

/* Every example is a module with one kernel named `example`. */
#define HEAD "import cuda.tile as ct\n\n\n@ct.kernel\n"

const OpQuery c2t_op_queries[] = {
#define OP(NAME, SIGNATURE, LOWERING, FLAGS, STATUS, NOTE, DOC)
#define UNARY(NAME, SIGNATURE, HELPER, GPU, INTERPRETED, HELPER_DOC, REJECTS_INTEGERS, DOC)
#define QUERY(NAME, SUMMARY, EXAMPLE) {NAME, SUMMARY, EXAMPLE},
#define BUILTIN(PYTHON, NAME)
#include "ops/index.def"
#include "ops/memory.def"
#include "ops/math.def"
#include "ops/reduce.def"
#include "ops/shape.def"
#include "ops/debug.def"
#include "ops/matrix.def"
#include "ops/host.def"
#include "ops/names.def"
#undef OP
#undef UNARY
#undef QUERY
#undef BUILTIN
};

const int c2t_op_query_count = (int)(sizeof c2t_op_queries / sizeof c2t_op_queries[0]);

const OpRow c2t_op_rows[] = {
#define UNARY(NAME, SIGNATURE, HELPER, GPU, INTERPRETED, HELPER_DOC, REJECTS_INTEGERS, DOC) \
  OP(NAME, SIGNATURE, lower_math_unary_function, 0, CONVERTED, NULL, DOC)
#define QUERY(NAME, SUMMARY, EXAMPLE)
#define BUILTIN(PYTHON, NAME)
#define OP(NAME, SIGNATURE, LOWERING, FLAGS, STATUS, NOTE, DOC) \
  {NAME, FAMILY, SIGNATURE, LOWERING, FLAGS, OP_##STATUS, NOTE, DOC},
#define FAMILY "index"
#include "ops/index.def"
#undef FAMILY
#define FAMILY "memory"
#include "ops/memory.def"
#undef FAMILY
#define FAMILY "math"
#include "ops/math.def"
#undef FAMILY
#define FAMILY "reduce"
#include "ops/reduce.def"
#undef FAMILY
#define FAMILY "shape"
#include "ops/shape.def"
#undef FAMILY
#define FAMILY "debug"
#include "ops/debug.def"
#undef FAMILY
#define FAMILY "matrix"
#include "ops/matrix.def"
#undef FAMILY
#define FAMILY "host"
#include "ops/host.def"
#undef FAMILY
#define FAMILY "names"
#include "ops/names.def"
#undef FAMILY
#undef OP
#undef UNARY
#undef QUERY
#undef BUILTIN
};

const int c2t_op_row_count = (int)(sizeof c2t_op_rows / sizeof c2t_op_rows[0]);

const OpFamily c2t_op_families[] = {
    {"index", "Block indices"},
    {"memory", "Memory, atomics and array views"},
    {"math", "Elementwise math and conversions"},
    {"reduce", "Reductions and scans"},
    {"shape", "Tile creation and shapes"},
    {"debug", "Printing, assertions, compile-time evaluation"},
    {"matrix", "Matrix products"},
    {"host", "Host API and submodules"},
    {"names", "Types, dtypes, enums, exceptions"},
};

const int c2t_op_family_count = (int)(sizeof c2t_op_families / sizeof c2t_op_families[0]);

static const struct {
  const char *python;
  const char *name;
} BUILTINS[] = {
#define OP(NAME, SIGNATURE, LOWERING, FLAGS, STATUS, NOTE, DOC)
#define UNARY(NAME, SIGNATURE, HELPER, GPU, INTERPRETED, HELPER_DOC, REJECTS_INTEGERS, DOC)
#define QUERY(NAME, SUMMARY, EXAMPLE)
#define BUILTIN(PYTHON, NAME) {PYTHON, NAME},
#include "ops/index.def"
#include "ops/memory.def"
#include "ops/math.def"
#include "ops/reduce.def"
#include "ops/shape.def"
#include "ops/debug.def"
#include "ops/matrix.def"
#include "ops/host.def"
#include "ops/names.def"
#undef OP
#undef UNARY
#undef QUERY
#undef BUILTIN
};

/* "Array.slice" -> "slice" */
static const char *bare_name(const char *name) {
  const char *dot = strchr(name, '.');
  return dot ? dot + 1 : name;
}

static bool is_method_only(const OpRow *row) { return strchr(row->name, '.') != NULL; }

const OpRow *op_find(const char *name) {
  for (int i = 0; i < c2t_op_row_count; i++) {
    const OpRow *row = &c2t_op_rows[i];
    if (!(row->flags & OPF_BUILTIN_ONLY) && strcmp(bare_name(row->name), name) == 0)
      return row;
  }
  return NULL;
}

const OpRow *op_row(const char *name) {
  for (int i = 0; i < c2t_op_row_count; i++)
    if (strcmp(bare_name(c2t_op_rows[i].name), name) == 0 && !(c2t_op_rows[i].flags & OPF_BUILTIN_ONLY))
      return &c2t_op_rows[i];
  for (int i = 0; i < c2t_op_row_count; i++)
    if (strcmp(bare_name(c2t_op_rows[i].name), name) == 0)
      return &c2t_op_rows[i];
  return NULL;
}

const OpRow *op_row_named(const char *full_name) {
  for (int i = 0; i < c2t_op_row_count; i++)
    if (strcmp(c2t_op_rows[i].name, full_name) == 0)
      return &c2t_op_rows[i];
  return NULL;
}

const OpRow *op_find_method(const char *name, bool on_array) {
  unsigned flag = on_array ? OPF_ARRAY_METHOD : OPF_TILE_METHOD;
  for (int i = 0; i < c2t_op_row_count; i++) {
    const OpRow *row = &c2t_op_rows[i];
    if ((row->flags & flag) && strcmp(bare_name(row->name), name) == 0)
      return row;
  }
  return NULL;
}

const OpRow *op_find_builtin(const char *python_name) {
  for (size_t i = 0; i < sizeof BUILTINS / sizeof BUILTINS[0]; i++) {
    if (strcmp(BUILTINS[i].python, python_name) != 0)
      continue;
    const OpRow *found = NULL; /* the builtin's own row where a cuda.tile name is spelled alike (sum) */
    for (int r = 0; r < c2t_op_row_count; r++)
      if (strcmp(c2t_op_rows[r].name, BUILTINS[i].name) == 0 && (!found || (c2t_op_rows[r].flags & OPF_BUILTIN_ONLY)))
        found = &c2t_op_rows[r];
    return found;
  }
  return NULL;
}

bool op_has_flags(const char *name, unsigned flags) {
  for (int i = 0; i < c2t_op_row_count; i++) {
    const OpRow *row = &c2t_op_rows[i];
    if ((row->flags & flags) == flags && strcmp(bare_name(row->name), name) == 0)
      return true;
  }
  return false;
}

const char *op_status_text(OpStatus status) {
  switch (status) {
  case OP_CONVERTED: return "converted";
  case OP_NOTED: return "converted with a note";
  case OP_UNSUPPORTED: return "not supported";
  }
  return "?";
}

const char *op_display_prefix(const OpRow *row) {
  if (is_method_only(row))
    return "";
  if (row->flags & OPF_BUILTIN_ONLY)
    return "";
  return "ct.";
}

/* A row listed without a lowering: a located error saying why. */
Node *lower_unsupported(Lowerer *L, Node *call, const char *member) {
  const OpRow *row = op_find(member);
  if (row && row->status == OP_UNSUPPORTED)
    lower_error(L, call, "%s%s is not supported by the converter: %s", op_display_prefix(row), row->name, row->note);
  if (row && row->note)
    lower_error(L, call, "%s%s cannot be called here: %s", op_display_prefix(row), row->name, row->note);
  lower_error(L, call, "%s%s cannot be called in tile code", row ? op_display_prefix(row) : "ct.", row ? row->name : member);
}

/* Whether cuda.tile._stub has `name`, one of cuda.tile's names (resolve.c
 * asks through Converter.stub_name): cuda.tile imports its operations and
 * types from _stub, which takes the enums, DType, int32, int64 and
 * `function` from where cuda.tile does; the other dtypes, the exceptions,
 * the submodules and the host names below cuda.tile takes from elsewhere
 * (cuda-tile 1.7's __init__.py and _stub.py). */
bool op_in_stub(const char *name) {
  static const char *const ELSEWHERE[] = {"launch", "kernel", "ByTarget", "compiler_timeout", NULL};
  const OpRow *row = op_find(name);
  if (!row || strchr(row->name, '.') || row->flags & (OPF_EXCEPTION | OPF_SUBMODULE | OPF_BUILTIN_ONLY))
    return false;
  if (row->flags & OPF_DTYPE)
    return strcmp(name, "int32") == 0 || strcmp(name, "int64") == 0;
  for (int i = 0; ELSEWHERE[i]; i++)
    if (strcmp(name, ELSEWHERE[i]) == 0)
      return false;
  return true;
}

/* Whether cuda.tile 1.7 has the public attribute `name` (hasattr(ct, name)):
 * every public name of cuda.tile 1.7 has a row; methods (Tile.x) and the
 * Python builtins the table also holds are not attributes of the module. */
/* Whether the `length` characters at `name` are a public name of cuda.tile: a row without a
 * method's dot, not a builtin-only one. */
static bool is_public_name(const char *name, size_t length) {
  for (int i = 0; i < c2t_op_row_count; i++) {
    const OpRow *row = &c2t_op_rows[i];
    if (!strchr(row->name, '.') && !(row->flags & OPF_BUILTIN_ONLY) && strlen(row->name) == length &&
        strncmp(row->name, name, length) == 0)
      return true;
  }
  return false;
}

bool op_is_public_name(const char *name) { return is_public_name(name, strlen(name)); }

bool op_starts_with_cutile_name(const char *member) {
  /* submodules of the cuda-tile 1.7 package that its __all__ (the table) does not name */
  static const char *const UNLISTED_SUBMODULES[] = {"jax", NULL};
  if (member[0] == '_') /* a private submodule or name, which the table does not list */
    return true;
  size_t length = strcspn(member, ".");
  for (int i = 0; UNLISTED_SUBMODULES[i]; i++)
    if (strlen(UNLISTED_SUBMODULES[i]) == length && strncmp(UNLISTED_SUBMODULES[i], member, length) == 0)
      return true;
  return is_public_name(member, length);
}

/* Whether `member` is a cuTile operation only tile code can call (resolve.c asks
 * through Converter.tile_only_op, to find tile-helper functions no kernel calls). */
bool op_is_tile_only(const char *member) {
  static const char *const HOST_CALLABLE[] = {"cdiv", "static_iter", "static_exception", "ensure_constant", NULL};
  const OpRow *row = op_find(member);
  if (!row || strchr(row->name, '.'))
    return false;
  if (row->flags & (OPF_HOST | OPF_TYPE | OPF_DTYPE | OPF_ENUM | OPF_EXCEPTION | OPF_SUBMODULE | OPF_BUILTIN_ONLY))
    return false;
  for (int i = 0; HOST_CALLABLE[i]; i++)
    if (strcmp(HOST_CALLABLE[i], member) == 0)
      return false;
  return true;
}
