/*
 * convert.h — shared by the conversion stages (cuTile module -> Triton module):
 *
 *   resolve/   which names mean cuda.tile, which functions are kernels or
 *              reachable from them, module constants, launch sites
 *   lower/     per kernel: what each parameter and expression holds (typed as
 *              it is lowered), cuTile operations -> Triton operations
 *   emit/      the module written back (emit_python.c) with the lowered parts
 *
 * The stages share one Converter. Errors go through ctx->diag (longjmp).
 */
#ifndef C2T_CONVERT_H
#define C2T_CONVERT_H

#include "c2t.h"

/* Explicit limits of the conversion (README.md, "Explicit limits"); each
 * ends in a located C2T002 error "too many ... (limit is N)" (diag_limit). The tables of
 * bindings and functions grow in the arena up to their limit; the limits
 * bound the linear name lookups of resolve.c, not memory. */
#define C2T_MAX_KERNELS      4096   /* @ct.kernel functions in one module (launch.c) */
#define C2T_MAX_FUNCTIONS    16384  /* module-level functions, any role (resolve.c) */
#define C2T_MAX_CAPTURED     32     /* locals of its host function one nested kernel reads (resolve.c) */
#define C2T_MAX_HELPER_DEPTH 8      /* functions of a host function calling one another, moved with its kernel */
#define C2T_MAX_ALIASES      16384  /* module-level names: imports from cuda.tile, aliases, constants */
#define C2T_MAX_CT_MODULE_NAMES 64  /* names bound to the cuda.tile module itself (`import cuda.tile as ct`) */

/* A module-level name and what it is bound to. */
typedef struct Binding {
  Str name;
  Node *value;     /* the assigned expression (aliases, constants) or NULL */
  const char *member; /* cuda.tile member it stands for ("load", "PaddingMode.ZERO"), or NULL */
  const char *python; /* a Python module of values (math, numpy, torch) or one of its names it
                         stands for ("math", "numpy.float32", "math.inf"), or NULL */
  bool varies;        /* bound in a branch of a module-level `if` on a condition known only at
                         import (the GPU's capability): which value holds is known then */
} Binding;

typedef enum FunctionRole {
  ROLE_HOST,       /* stays Python */
  ROLE_KERNEL,     /* @ct.kernel: becomes @triton.jit with a launcher */
  ROLE_DEVICE,     /* called from a kernel (or @ct.function): becomes @triton.jit */
} FunctionRole;

typedef enum MethodKind {
  METHOD_PLAIN,    /* def m(self, ...): instance.m(...), Cls.m(instance, ...) */
  METHOD_PROPERTY, /* @property: instance.m */
  METHOD_STATIC,   /* @staticmethod: Cls.m(...) */
} MethodKind;

typedef struct Function {
  Node *def;       /* N_FUNCTION_DEF at module level */
  FunctionRole role;
  Node *kernel_decorator; /* the @ct.kernel(...) decorator, for hints */
  bool host_too;   /* @ct.function(host=True), or a plain function host code uses too: kept as a host function */
  bool tile_helper; /* called by no kernel of the module, but tile code by what it uses (resolve.c) */
  /* lowering state of tile functions */
  bool lowered;
  bool lowering;   /* on the stack: a recursive call cannot be converted */
  bool needs_debug; /* reaches ct.assert_ (itself or through its calls): kernels need debug=True */
  bool *param_is_array; /* per original positional parameter */
  Str *param_names;     /* the original positional parameters (kernels) */
  bool *param_is_array_tuple; /* kernels: a parameter that is a tuple of arrays */
  unsigned long long *param_array_items; /* kernels: of a tuple of arrays and numbers, its arrays
                                            (bit k for item k); 0: arrays only, or no such tuple */
  bool *param_is_dtype;       /* kernels: a ct.Constant[ct.DType] parameter */
  bool *param_is_array_list;  /* kernels: a parameter that is a list of arrays (len() and index at run time) */
  const char **param_constant_items; /* kernels: of a tuple parameter annotated with ct.Constant items
                                        (`tuple[ct.Constant[int], int]`), which items are constants, as a
                                        Python tuple literal (`(True, False)`, nested for nested tuples) */
  /* kernels: per array parameter, the first source line where the kernel reads one of its tiles, of a dtype
   * known only at launch, as numbers (astype, arithmetic, a math function); 0: none seen. The launcher
   * refuses an array of torch.float8_e8m0fnu there, which the kernel gets as its uint8 bits (lower_call.c) */
  int *param_read_line;
  /* kernels: per array parameter, 1 + the rank its accesses pin (ArrayRef.pinned_rank, read once
   * the kernel is lowered), which the launcher checks; NULL items for other parameters */
  int **param_pinned_rank;
  /* kernels: per parameter, whether the kernel uses it as an array outside its constexpr
     branches (lower_expr.c) or writes through it (launch.c); one it does not may be given a
     number, as cuTile types a parameter by the launch's argument (a scalar where only a
     branch not taken uses it) */
  bool *param_needs_array;
  struct TypeInfo **param_types; /* the first call's argument types (NULL: lowered without a call) */
  bool fold_constants; /* tile functions: lowered with the values of the constant arguments folded in
                          (its body needs them when converting: one specialization per value) */
  int param_count;
  struct TypeInfo *return_type;
  /* tile functions: the signature as written, kept before the lowering
   * rewrites the parameter list (lower_function.c) */
  Str *signature_names;   /* positional parameters */
  Node **signature_defaults; /* per parameter, its default or NULL */
  int signature_count;
  /* one specialization per call signature (lower_function.c): the def as
   * written, copied before its first lowering, and the further copies,
   * each its own Function named NAME_2, NAME_3, ... */
  Node *pristine;
  struct Function *next_variant;
  /* a tile function no kernel calls that could not be lowered without a
   * call (lower_function.c: lower_unused_device_function): the report of
   * why, and its def a stub that fails when Triton compiles it */
  const char *stub_reason;
  /* a tile function lowered in versions (lower_version.c): each version's
   * assumptions and return type, for the calls that can tell which one runs */
  struct FunctionVersion *versions;
  int version_count;
  /* ... and the locals its conditions may read that stand for a dimension
   * of a tile parameter (`N, D = t.shape`): name, parameter, dimension */
  Str *alias_names;
  Str *alias_params;
  int *alias_dims;
  int alias_count;
  /* a tile function that reads or writes a parameter through a tensor
   * descriptor: those parameters (their `NAME_tma` constexpr flags come
   * after the parameters as written, then `_use_tma`), given by each call */
  Str *tma_params;
  int tma_param_count;
  bool tma_reused; /* one of its descriptors is read or written in a loop (lower_memory.c) */
  bool multiplies; /* a tile function: it multiplies matrices (tl.dot), itself or in a call */
  /* a tile function: the descriptors of its array parameters a caller may give it (each a
     parameter after _use_tma; None: it makes its own), lower_memory.c */
  struct HostDescriptor *host_descriptors;
  int host_descriptor_count;
  /* a tile function: the array parameters whose products read a K-major copy (lower_memory_kmajor.c),
     each taking P_kmajor and P_kmajor_staged after its descriptors, given by each call */
  Str *kmajor_params;
  int kmajor_param_count;
  /* a kernel defined inside a host function (resolve.c moved its def to
   * module level, before that function): where it stood, a placeholder
   * statement that host code rewriting makes the kernel object, built with
   * the decorators as written (@ct.kernel(...) the innermost) */
  Node *nested_in;          /* the host function's def, or NULL */
  Node *nested_placeholder; /* an N_PASS in its body */
  NodeList nested_decorators;
  Str nested_name;          /* its name there (the module-level def may be renamed: host_name) */
  /* the locals of the host function it reads (a closure): constexpr parameters appended
   * to its own, given by the kernel object at each launch */
  Str *captured_names;
  int captured_count;
  Str launcher_name;        /* kernels: `launch_NAME`, or another name where that one is taken (launch.c) */
  /* the twin of a method of a module-level dataclass that tile code names (resolve_methods.c):
   * the class, the method's name there, and how it is decorated */
  const Node *method_of;
  Str method_name;
  MethodKind method_kind;
} Function;

/* What a conversion did, counted where the lowering decides it (--stats):
 * cuTile operations by name, memory operations by path (a tensor
 * descriptor, i.e. TMA, or pointers only, with the reason), C2Tnnn notes by
 * code. Names are static strings or arena strings of the run. */
#define C2T_STATS_MAX_NAMES 256
typedef struct StatCount {
  const char *name;
  int count;
} StatCount;

typedef struct ConvertStats {
  StatCount ops[C2T_STATS_MAX_NAMES];          /* "ct.load", "Tile.astype", "builtin min" */
  int op_count;
  int tma;                                     /* memory operations with a TMA (descriptor) path */
  StatCount pointer_only[C2T_STATS_MAX_NAMES]; /* memory operations on the pointer path only, by reason */
  int pointer_reason_count;
  StatCount notes[C2T_STATS_MAX_NAMES];        /* "C2T302" */
  int note_count;
} ConvertStats;

typedef struct Converter {
  Context *ctx;
  Node *module;
  ConvertStats *stats;    /* NULL unless the caller asked for statistics */
  bool notes_fatal;       /* C2T_OPTION_NOTES_FATAL: a note is a located error (lower_stmt.c, launch.c) */
  bool no_autotune;       /* C2T_OPTION_NO_AUTOTUNE: fixed launch options, no @triton.autotune (launch.c) */
  bool no_loop_split;     /* C2T_OPTION_NO_LOOP_SPLIT: no loop split at an `if` on its counter (lower_split.c) */
  /* Whether a ct member is an operation only tile code can call: the op
   * table's answer (op_is_tile_only), given by the caller so that resolve.c,
   * a stage below the lowering, does not read the lowering's table itself. */
  bool (*tile_only_op)(const char *member);
  /* Whether cuda.tile._stub has `member`, a name cuda.tile takes from it
   * (`_stub.pack_to_bytes` is ct.pack_to_bytes): op_in_stub, given likewise. */
  bool (*stub_name)(const char *member);
  /* Whether cuda.tile 1.7 has the public name `name` (hasattr(ct, "mma")):
   * op_is_public_name, given likewise. */
  bool (*public_name)(const char *name);

  /* resolve */
  Str ct_modules[C2T_MAX_CT_MODULE_NAMES]; /* names bound to the cuda.tile module (`ct`) */
  int ct_module_count;
  bool cuda_package_bound;/* `import cuda.tile`: cuda.tile.X chains */
  bool ct_imported_in_functions; /* a host function imports cuda.tile (resolve.c hoists it) */
  Binding *bindings;      /* from-imports and module-level aliases/constants (arena, grows) */
  int binding_count, binding_capacity;
  int binding_depth; /* module-level `if`s whose condition is known only at import, around the statement resolved */
  Function *functions;    /* module-level functions (arena, grows; stable once resolved) */
  int function_count, function_capacity;
  NodeList launch_sites;  /* N_CALL nodes of ct.launch in host code */
  NodeList ct_imports;    /* import statements of cuda.tile, removed from the output */
} Converter;

/* ---- resolve/resolve.c */
void resolve_module(Converter *conv);
/* ---- resolve/resolve_siblings.c: tile functions imported from a sibling module, copied in */
void resolve_sibling_imports(Converter *conv);
/* resolve_nested.c: functions defined in a kernel's or tile function's body, moved to module level */
void resolve_nested_functions(Converter *conv);
/* the same for plain functions that tile code calls (and host code does not), once those are known */
void resolve_nested_in_helpers(Converter *conv);
/* resolve_methods.c: methods of module-level dataclasses that tile code names, as module-level twins */
bool resolve_dataclass_methods(Converter *conv); /* whether it made twins */
Function *resolve_method_twin(Converter *conv, const Node *cls, Str method); /* NULL: none */
bool resolve_is_dataclass(const Node *cls, bool *frozen); /* decorated @dataclass; *frozen: frozen=True */
const Node *resolve_method_def(const Node *cls, Str method); /* the def of that name in the class body */
/* a module-level def made by the resolver, registered as the module's own are (resolve.c) */
void resolve_register_function(Converter *conv, Node *def);
/* The cuda.tile member an expression names ("load", "float16",
 * "PaddingMode.ZERO", "Constant"), following imports and module-level
 * aliases; NULL when it names something else. */
const char *resolve_ct_member(Converter *conv, const Node *expr);
/* whether tile code `body` uses `name` where cuTile takes a dtype (astype's, `dtype=`, compared
 * with a .dtype or a dtype written out) */
bool resolve_uses_as_dtype(Converter *conv, const NodeList *body, Str name);
bool is_ct_member(Converter *conv, const Node *expr, const char *member);
/* The Python name an expression stands for when it names math, numpy or
 * torch or something in them (`math.inf` -> "math.inf", `np.float32` with
 * `import numpy as np` -> "numpy.float32"), NULL otherwise. */
const char *resolve_python_name(Converter *conv, const Node *expr);
/* The Python module tile code may read values of (math, numpy, torch, cupy) that `name` names,
 * else NULL. */
const char *resolve_python_module(Str name);
/* Whether the root name of `expr` (ct in ct.PaddingMode.ZERO) is bound by a
 * cuda.tile import, not by a module-level assignment. */
bool is_rooted_at_ct_import(Converter *conv, const Node *expr);
Function *find_function(Converter *conv, Str name);
Function *function_of_def(Converter *conv, const Node *stmt); /* the function `stmt` (a def) defines, else NULL */
const Binding *find_binding(Converter *conv, Str name);
bool str_eq(Str a, const char *text);

/* ---- lower/stats.c: counting for --stats (no-ops when conv->stats is NULL) */
void stats_op(Converter *conv, const char *prefix, const char *name); /* "ct.", "load" */
void stats_memory(Converter *conv, const char *pointer_reason);        /* NULL: a TMA path */
void stats_notes(Converter *conv, const char *note_text);              /* counts each C2Tnnn in it */
/* The counts as text, one fact a line ("op ct.load 2", "memory tma 1",
 * "memory pointer 1-D tile 1", "note C2T302 1"): the format of
 * c2t_report.stats (include/cutile2triton.h). */
void stats_format(const ConvertStats *stats, Buf *out);
bool str_same(Str a, Str b);
int str_order(Str a, Str b); /* <0, 0, >0: a before, equal to or after b (bytes, then length) */

#endif /* C2T_CONVERT_H */
