/*
 * toolkit.h — the lowering's toolkit: what every file of src/lower/ uses and
 * that uses nothing of the lowering above it.
 *
 *   toolkit.c   errors and limits at a node, new names and constants, scopes,
 *               integer folding, the Bufs of the lowering, bound arguments
 *               read by name, module constants' constexpr twins
 *   types.c     dtypes, TypeInfo constructors, promotion
 *   template.c  trees from Python text with placeholders
 *   runtime.c   runtime helpers emitted once per module
 *   stats.c     the counts of --stats (declared in convert.h)
 *
 * The lowering above it (lower.h) is the recursion of expressions,
 * statements and tile functions, the families, and the driver (driver.c).
 */
#ifndef C2T_TOOLKIT_H
#define C2T_TOOLKIT_H

#include "../convert.h"
#include "helper_text.h"

/* Limits of the lowering; past each, a located C2T002 error (lower_limit). */
#define C2T_MAX_RANK 8             /* dimensions of a tile or shape (TypeInfo.shape) */
#define C2T_MAX_SCOPE_NAMES 1024   /* local names of one tile function (Scope) */
#define C2T_MAX_LIVENESS_STEPS 200000 /* statements lower_liveness.c reads, per function (more: values taken as read) */
#define C2T_MAX_STATIC_CHOICES 64  /* names a constexpr `if` chooses a constant for, per function (more: run-time values) */
#define C2T_MAX_CALL_ARGS 16       /* parameters of a cuTile signature (BoundArgs, bind_call) */
#define C2T_MAX_TMA_ARRAYS 64      /* arrays with a TMA flag parameter, per kernel (Lowerer.tma_arrays) */
#define C2T_TMA_MAX_TILE_BYTES 131072 /* bytes of a tile loaded or stored through a descriptor (more: pointers) */
#define C2T_MAX_TF32_SITES 64      /* loads given a staged tfloat32 tile, per kernel version (more: rounded in the kernel) */
#define C2T_MAX_LAUNCHER_TRIES 16  /* names tried for one kernel's launcher: launch_NAME, launch_NAME_kernel, launch_NAME_2, ... */
#define C2T_TF32_WHEN_DEPTH 16     /* constexpr ifs around a staged load whose conditions decide the copy (deeper: ignored, copied) */
#define C2T_TF32_WHEN_PATHS 8      /* ways to the read loads of one staged array the launcher tests (more: copied at every launch) */
/* Versions of one kernel or tile function, one per outcome of the constexpr
 * conditions it is split on (lower_version.c): each version is a full copy
 * of the body in the output. */
#define C2T_MAX_FUNCTION_VERSIONS 8
#define C2T_MAX_SPLIT_NAMES 64 /* constexpr parameters a version split may test, per function */
#define C2T_LIST_ITEM_SLOTS 4      /* descriptors of one list item made where it is read (more: at each use) */
#define C2T_MAX_DESCRIPTORS 64     /* tensor descriptors made in one kernel (Lowerer.descriptor_keys) */
#define C2T_MAX_DESCRIPTOR_RANK 5  /* dimensions of a tensor descriptor (TMA's limit) */
#define C2T_MAX_RUNTIME_HELPERS 64 /* runtime helpers of one module (Lowerer.helpers) */
/* Arrays loaded, and arrays stored, that lower_pipeline.c tracks in one loop; a
 * loop with more is left as it is (not pipelined: an optimization, no error). */
#define C2T_MAX_PIPELINED_ARRAYS 32
/* Constexpr ifs around one access that lower_pipeline.c tells apart (an access
 * under more makes the loop stay as it is: no error). */
#define C2T_MAX_PIPELINE_ARMS 8
/* Members of module-level Enum classes one module's tile code reads (each gets a constexpr twin). */
#define C2T_MAX_ENUM_MEMBERS 256
/* Tuples one zip() of a ct.static_iter loop or tuple comprehension takes. */
#define C2T_MAX_STATIC_ZIP 8
/* Tests joined by `and` that lower_split.c looks through for a comparison of a loop's counter; an
 * `if` with more leaves its loop whole (an optimization, no error). */
#define C2T_MAX_SPLIT_CONJUNCTS 16
/* Names one ct.static_iter loop's target binds, nested ones counted (`for i, (a, b) in ...`). */
#define C2T_MAX_STATIC_TARGETS 16
/* Elements of a tuple built by a comprehension over ct.static_iter(...), which the converter
 * unrolls (lower_pyvalue.c); a longer one is a located error. */
#define C2T_MAX_STATIC_TUPLE 256
/* Loads of one kernel version lower_memory_reuse.c remembers, and the names read by one
 * load's index it follows; past either, a load is not taken from another (no error). */
#define C2T_MAX_REUSE_LOADS 256
#define C2T_MAX_REUSE_NAMES 8
/* Launch-time conditions one array's K-major copy is made under (lower_memory_kmajor.c: its
 * products' operands each hold the load's tile where one holds); past it, at every launch. */
#define C2T_MAX_KMAJOR_WHENS 4
/* Calls into tile functions followed to find that an array passed to one is only read there
 * (lower_memory_kmajor.c); deeper, it counts as written (no copy, no error). */
#define C2T_MAX_KMAJOR_CALL_DEPTH 4
/* Arrays a kernel's grid-stride loop writes, and names bound before the loop (its parameters
 * included), that lower_spread.c follows to let the launch spread the grid; past either, the
 * grid is the host's (no error). */
#define C2T_MAX_SPREAD_WRITTEN 8
#define C2T_MAX_SPREAD_NAMES 256
#define C2T_MAX_SPREAD_DERIVED 32
#define C2T_MAX_SPREAD_BRANCHES 6
/* Names bound before such a loop that its stop is followed through to compute it on the host
 * (lower_spread.c, host_stop); deeper, the host knows no stop and the spread grid is not capped
 * (no error). */
#define C2T_MAX_SPREAD_STOP_DEPTH 8

/* ------------------------------------------------------------------ dtypes */

typedef enum DType {
  DT_UNKNOWN, /* known only at launch (it comes from an array) */
  DT_BOOL,
  DT_INT8, DT_INT16, DT_INT32, DT_INT64,
  DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64,
  DT_FLOAT16, DT_BFLOAT16, DT_FLOAT32, DT_FLOAT64,
  DT_TFLOAT32, DT_FLOAT8_E4M3FN, DT_FLOAT8_E5M2,
  DT_FLOAT4_E2M1FN, /* Triton has no FP4 dtype: a tile of it holds uint8 codes 0..15 (sign, 2-bit exponent, 1-bit mantissa) */
  DT_FLOAT8_E8M0FNU, /* nor an exponent-only one: a tile of it holds its uint8 bits b, the value 2**(b-127), 255 NaN */
  DT_COUNT
} DType;

typedef struct DTypeInfo {
  const char *cutile;  /* "float16" */
  const char *triton;  /* "tl.float16" */
  const char *torch;   /* "torch.float16"; NULL: no torch dtype (float4_e2m1fn) */
  int bits;
  char category;       /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float */
} DTypeInfo;

const DTypeInfo *dtype_info(DType dtype);
DType dtype_from_cutile_name(const char *name); /* "float16" -> DT_FLOAT16, DT_UNKNOWN if none */
/* The float8_e4m3fn / float8_e5m2 code cuTile folds the Python number `value` to (its front end
 * and tileiras 13.4, read in the Tile IR): float32 first, then the dtype, each to nearest, ties to
 * even, subnormals kept; past the largest finite value, and infinities, e4m3fn's NaN (0x7F) and
 * e5m2's infinity (0x7C), signed; NaN 0x7F / 0x7E. Where the code is a finite value (not
 * dtype_float8_is_special), *finite holds it (exact in float32). */
int dtype_fold_float8(DType dtype, double value, double *finite);
bool dtype_float8_is_special(DType dtype, int code);
/* The tfloat32 value cuTile folds `value` to: float32 first, then 10 mantissa bits, each to
 * nearest, ties to even (past tf32's largest: infinity); infinities and NaN stay. */
double dtype_fold_tfloat32(double value);
/* The float4_e2m1fn code (sign in bit 3) cuTile gives `value`: to nearest,
 * ties to even, saturating at 6 (infinities too), -0.0 kept; false for NaN,
 * which cuTile refuses. */
bool dtype_float4_code(double value, int *code);
/* The float8_e8m0fnu bits cuTile gives the constant `value`
 * (cuda/tile/_bytecode/float.py): 2**e for value in [2**e, 1.5 * 2**e),
 * 2**(e+1) from 1.5 * 2**e (bits e + 127); 0 and values below 2**-127 are
 * 2**-127 (bits 0); NaN, infinities and values from 1.5 * 2**127 are NaN (255).
 * false for negative values (-0.0 too), which cuTile refuses. */
bool dtype_float8_e8m0fnu_bits(double value, int *bits);
/* Whether Triton lacks `dtype`, so a tile of it holds uint8 codes that only the
 * op rows flagged for it take (OPF_FP4, OPF_E8M0): float4_e2m1fn, float8_e8m0fnu. */
bool dtype_is_coded(DType dtype);

/* ------------------------------------------------------------------- types */

typedef enum ValueKind {
  VAL_UNKNOWN,  /* a value we do not model (host objects); an error where a tile is needed */
  VAL_ARRAY,    /* a global-memory view: pointer + shape + strides */
  VAL_TILE,     /* a run-time tile; rank 0 is a scalar */
  VAL_CONST,    /* a compile-time number or bool (literal, Constant parameter, folded) */
  VAL_DTYPE,    /* a dtype: ct.float16, x.dtype */
  VAL_TUPLE,    /* a tuple of values */
  VAL_ENUM,     /* a cuda.tile enum member: PaddingMode.ZERO, RoundingMode.RN, ... */
  VAL_NONE,
  VAL_FUNCTION, /* a tile function (reduce/scan combine functions) */
  VAL_STRING,
  VAL_SLICE,    /* ct.Slice(start, length): elts[0] start, elts[1] length (lower_memory_advidx.c) */
  VAL_LIST,     /* a kernel's list-of-arrays parameter: run-time length and index (array->param names it) */
} ValueKind;

/* Where an array's pieces are in the generated kernel. */
typedef struct ArrayRef {
  Node *pointer;   /* expression of the base pointer, e.g. `x` */
  Node *shape;     /* expression of the shape tuple, e.g. `x_shape` */
  Node *strides;   /* expression of the strides tuple, e.g. `x_strides` */
  Str param;       /* the kernel parameter it comes from (for TMA flags), len 0 if none */
  bool int64_index;/* ct.IndexedWithInt64 */
  bool static_shape;   /* ct.ArrayAnnotation(static_shape_dims=...): its shape a tl.constexpr tuple, each dimension */
  bool static_strides; /* a launch constant (static_stride_dims: its strides); every dimension, not only those named */
  bool is_view;    /* made in tile code (Array.slice): its pieces are locals, descriptors go next to their use */
  bool tma_unsafe; /* its base may break TMA's 16-byte alignment (Array.slice on the last axis) */
  Node *tma_when;  /* a constexpr name, True where the view suits TMA: the view of a constexpr `if`
                      whose branches slice different axes (memory_merge_arrays); NULL: always */
  Node **descriptor_slots; /* a list item (As[g]): C2T_LIST_ITEM_SLOTS statements after its definition
                              where its descriptors go (made once there, not at each use); NULL otherwise */
  int rank_branches; /* constexpr `if`s being lowered that it entered with an unknown rank (lower_control.c):
                        a descriptor made there checks the rank at compile time */
  int pinned_rank;   /* a kernel's array parameter: 1 + the rank its accesses index it with outside such
                        `if`s (memory_learn_rank), which the launcher checks; 0: none */
} ArrayRef;

/* A tiled view (x.tiled_view(tile_shape, padding_mode=...)): its tile shape and padding
 * mode as written (copies made before lowering, each lowered again where the view is used). */
typedef struct TiledViewInfo {
  Node *shape;
  Node *padding; /* NULL: the default */
  Node *steps;   /* traversal_steps, NULL where they are the tile shape */
  /* a view passed to a tile function: its tile-shape items and steps (0: none), lowered in
     the caller (view_arguments), which the call passes after the array */
  int items, step_items;
  Node **lowered;
} TiledViewInfo;

typedef struct TypeInfo TypeInfo;
struct TypeInfo {
  ValueKind kind;
  DType dtype;        /* tiles, constants, arrays, dtypes; DT_UNKNOWN: from an array at launch */
  Node *dtype_expr;   /* when dtype is DT_UNKNOWN: a Triton expression of it (`x.dtype.element_ty`) */
  int rank;           /* tiles and arrays; -1 when unknown */
  int shape[C2T_MAX_RANK]; /* tiles: dimensions, -1 where unknown */
  Node *dims[C2T_MAX_RANK]; /* tiles: each dimension as a constant expression (`BLOCK`, `64`), NULL where unknown */
  bool loose;         /* constants: loosely typed (a Python literal) */
  bool not_bfloat16;  /* dtype unknown at conversion, but never bfloat16 (a kernel's scalar
                         argument is int32, float32 or bool, and what is computed from those) */
  bool is_float;      /* constants: a float value */
  bool float_kind;    /* tiles of a dtype known only at launch that is a float one all the same (x / y) */
  bool const_tuple;   /* constants: a Constant parameter annotated as a tuple (ct.Constant[tuple]),
                         or an item of one: indexed and measured (len) as a constexpr tuple */
  bool python_object;  /* constants: a Python object Triton holds only as a constexpr (an Enum
                          member): a local bound to it is a `tl.constexpr` local */
  bool static_counter; /* the variable of a `for ... in ct.static_iter(range(...))`: a constexpr
                          to Triton (tl.static_range), so a tuple may be indexed with it */
  Node *value_expr;   /* constants: what each use of a name bound to it is written as, a constexpr
                         Triton evaluates while compiling (`index[i_k]`, the item of a constant tuple
                         a ct.static_iter loop takes), where a local would hold a tensor */
  bool interpreted_int; /* a range loop's counter, or + - * of it and numbers: a Python int in
                           Triton's interpreter (no .to; tl.cast takes it) */
  bool opaque;        /* what a tile function imported from another module returns: a tile
                         of unknown rank to this module, or a tuple of them (it unpacks) */
  Node *tf32_when;    /* tiles and dtypes whose dtype is known only at launch: a constexpr Triton
                         expression true when the value is cuTile's tfloat32 (float32 to Triton;
                         `ct.tfloat32 if A.dtype == ct.float32 else A.dtype`); NULL: never
                         (a known DT_TFLOAT32 says so itself). Only matrix products read it. */
  /* a float32 tile a kernel loaded (lower_tf32.c): the local tf32_twin holds the same tile, rounded
   * to tfloat32, read from the launcher's staged copy (None where there is none); valid for this
   * TypeInfo only (tf32_twin_owner), not for copies of it */
  Node *tf32_twin;
  const TypeInfo *tf32_twin_owner;
  int tf32_site;      /* its load's index in Lowerer.tf32_sites */
  long long int_value;
  double float_value;
  ArrayRef *array;    /* arrays */
  const TiledViewInfo *tiled; /* arrays: the array seen as a tiled view, or NULL */
  bool raw_memory;    /* arrays: the array seen as raw memory (x.get_raw_memory(), lower_memory_raw.c):
                         only its methods and dtype may be used */
  bool maybe_unbound; /* arrays, modes, dtypes: bound in one branch only of the run-time `if` above
                         (cuTile refuses a use: "potentially undefined variable") */
  bool path_dependent; /* another type on another path to here: a run-time `if` above gave it a tile of
                          another dtype or dimensions, or a number, on its other path, or a loop
                          another from one iteration to the next (cuTile refuses a use: "Type of `x`
                          depends on path taken") */
  bool none_by_constexpr; /* None in one branch of the constexpr `if` above, a value in the other:
                             a use is an error, which makes a version of the function per outcome */
  TypeInfo **elts;    /* tuples */
  unsigned long long array_items; /* a tuple parameter of arrays and numbers: its arrays (bit k
                                     for item k); 0 for one of arrays only */
  const Node *dataclass; /* tuples: an instance of this frozen dataclass (its class def), whose fields
                            are the items in order (lower_dataclass.c); NULL for a plain tuple */
  int count;
  const char *member; /* enums: "PaddingMode.ZERO"; functions: the name ("helper", "ct.exp") */
  Node *function_expr; /* functions: the expression naming it as written (`helper`, `ct.exp`), which a
                          call through a local bound to it calls (lower_call) */
};

TypeInfo *type_new(Context *ctx, ValueKind kind);
TypeInfo *type_tile(Context *ctx, DType dtype, int rank, const int *shape);
/* An item of a Constant parameter's tuple (`t: ct.Constant[tuple]`): a constant known at each
 * launch, or a tuple again. */
TypeInfo *type_launch_tuple_item(Context *ctx);
TypeInfo *type_const_int(Context *ctx, long long value);
TypeInfo *type_const_float(Context *ctx, double value);
TypeInfo *type_const_bool(Context *ctx, bool value);
bool type_is_scalar(const TypeInfo *type); /* a rank-0 tile or a constant */
const char *type_describe(Context *ctx, const TypeInfo *type); /* "tile of float16 (64, 64)" */
/* Why what a tile function of another module returns (TypeInfo.opaque) is unknown here. */
extern const char *const TYPE_OPAQUE_WHY;
/* The coded dtype (dtype_is_coded) of `type` when it is a tile of one or that
 * dtype, or a tuple holding one (the first found); DT_UNKNOWN when none. */
DType type_coded_dtype(const TypeInfo *type);
/* Whether tuples nest in `type` deeper than type_coded_dtype looks (*limit: how deep it looks). */
bool type_too_deep_to_scan(const TypeInfo *type, int *limit);

/* --------------------------------------------------------------- lowering */

typedef struct Variable {
  Str name;
  TypeInfo *type;
  unsigned serial; /* of its last binding (Lowerer.bind_serial): rebinding changes it */
  /* lower_memory_reuse.c: the load whose tile (as stored, reshaped at most) it holds, 0 for
   * none; and where it holds a tile another load's gives where the launcher finds the two
   * arrays one (flag: that constexpr), and whether it holds that tile transposed */
  int reuse_load;
  const char *reuse_flag;
  int reuse_source;      /* ... the load whose tile that is, where the two are reshapes of each other (else 0) */
  bool reuse_transposed;
  int reuse_convert;     /* ... converted by an astype (ReuseValue.convert), not the tile itself */
  const struct ReuseWhen *reuse_when; /* ... only where a launch-time condition holds (ReuseValue.when) */
} Variable;

typedef struct Scope {
  Variable vars[C2T_MAX_SCOPE_NAMES];
  int count;
} Scope;

/* A runtime helper (a @triton.jit function emitted once per module). */
typedef struct RuntimeHelper {
  const char *name;
  const char *source; /* Python text of the helper, with its docstring */
} RuntimeHelper;

/* A Buf of the lowering (lower_buf): freed when the module is done or an
 * error leaves the lowering, so an error between a Buf's first write and its
 * buf_free leaks nothing. */
typedef struct TrackedBuf {
  Buf buf;
  struct TrackedBuf *next;
} TrackedBuf;

/* A branch of an `if` on a kernel's constexpr parameters (lower_tf32.c): its condition as the
 * launcher writes it (NULL: one it cannot test), alone and after `not`, and which way it went */
typedef struct Tf32Branch {
  const char *test;
  const char *negated;
  bool taken;
} Tf32Branch;

/* A tensor descriptor a kernel's launcher makes, or a tile function's caller gives it
 * (lower_memory.c: host_descriptor_candidate, take_host_descriptors). */
typedef struct HostDescriptor {
  const char *name;   /* the descriptor's name in the function: X_desc_N, a parameter if taken */
  Str array;          /* the array parameter it covers, whole */
  Node *sizes[C2T_MAX_DESCRIPTOR_RANK]; /* its block shape: constants and constexpr parameters */
  int rank;
  bool nan_padding;
  bool rank_checked;  /* the array's rank was learnt under a constexpr `if`: made only for that rank */
  Node *condition;    /* `X_desc_N_ok: tl.constexpr = ...`, NULL for one a tile function uses */
  Node *made;         /* `if X_desc_N_ok: X_desc_N = tl.make_tensor_descriptor(...)`, or NULL */
  NodeList passed;    /* a kernel's, for its tile functions: the call arguments that pass it */
} HostDescriptor;

typedef struct Lowerer {
  Converter *conv;
  Context *ctx;
  TrackedBuf *bufs;   /* every lower_buf of the run */
  Function *function; /* being lowered */
  Scope *scope;
  TypeInfo *return_type; /* of the tile function being lowered */
  NodeList *prologue; /* statements to put at the top of the current kernel */
  NodeList *pending;  /* statements to put before the statement being lowered */
  int depth;
  int temp_counter;
  /* what the module needs */
  bool needs_libdevice;
  bool needs_allocator;
  bool needs_by_target;
  bool needs_interpreted_flag; /* INTERPRETED: running under TRITON_INTERPRET=1 (no libdevice, no device asserts) */
  unsigned helper_imports;     /* bit i: a helper needs helper_import(i) (random, TensorDescriptor) */
  bool needs_debug;   /* the function being lowered reaches ct.assert_: its kernel needs debug=True */
  unsigned host_enums; /* bit i: host code uses the cuTile enum HOST_ENUMS[i] (launch.c) */
  bool needs_enum;    /* a helper made with the enum module (_BytecodeVersion): the module imports enum */
  NodeList generated; /* launchers and helpers to append to the module */
  NodeList block_aliases; /* type aliases taken out of module-level if/try blocks (launch.c) */
  bool uses_tma;      /* some kernel builds tensor descriptors: the module sets an allocator */
  bool uses_array_lists; /* a kernel takes a list of arrays: the launch helpers of lists */
  bool uses_list_tma;    /* a launch checks a list of arrays for TMA (_array_list_tma) */
  /* per kernel: arrays with a TMA flag parameter, descriptors made in the prologue */
  Str tma_arrays[C2T_MAX_TMA_ARRAYS];
  int tma_array_count;
  /* per kernel (lower_tf32.c): arrays whose tiles feed a product's right-hand side as tfloat32
   * (found in the source), and those given a staged copy (parameters P_tf32, P_tf32_staged) */
  Str tf32_candidates[C2T_MAX_TMA_ARRAYS];
  int tf32_candidate_count;
  int tf32_scan_steps; /* names the scan followed (lower_tf32.c bounds them) */
  Str tf32_arrays[C2T_MAX_TMA_ARRAYS];
  struct Tf32When *tf32_array_when[C2T_MAX_TMA_ARRAYS]; /* when the launcher copies it (NULL: every launch) */
  int tf32_array_count;
  /* the constexpr ifs lowered now around the statement (body or else): their conditions as the
   * launcher can evaluate them, NULL for one it cannot (lower_tf32.c) */
  Tf32Branch tf32_when[C2T_TF32_WHEN_DEPTH];
  int tf32_when_depth;
  struct Tf32Site *tf32_sites; /* the loads given a staged tile in the version lowered now */
  bool in_while_test;          /* lowering a while condition: L->pending must stay empty */
  /* names a constexpr `if` gave a constant in each branch (lower_if), with the `if`: constexpr
     locals in Triton, which promote_constexpr_locals (lower_function.c) must make them */
  Str static_choice_names[C2T_MAX_STATIC_CHOICES];
  const Node *static_choice_at[C2T_MAX_STATIC_CHOICES];
  int static_choice_count;
  int tf32_site_count;
  bool kernel_has_dot; /* the kernel lowered now multiplies matrices (tl.dot): its launch candidates differ */
  bool kernel_pipelines_loops; /* a loop of the kernel is tl.range(..., num_stages=_loop_stages) */
  bool kernel_store_choice; /* a store of the kernel after a tl.dot takes its descriptor only if _store_tma */
  /* the kernel's programs share one grid-stride loop whose iterations are apart (lower_spread.c):
     its launch may spread the grid; the arrays it writes and the loop's stop, a parameter's name */
  bool kernel_spreads;
  Str spread_written[C2T_MAX_SPREAD_WRITTEN];
  int spread_written_count;
  Str spread_stop;
  Str spread_step, spread_loop_var; /* a parameter the loop steps by (else ct.num_blocks(0)), and its variable */
  const struct Function *spread_kernel; /* the kernel whose loop that is (not a tile function lowered later) */
  int loop_depth;     /* loops of the function being lowered around the statement lowered now */
  int products;       /* matrix products lowered so far (lower_for: whether a loop body holds one) */
  bool tma_reused;    /* a descriptor of the function lowered now (or of a tile function it calls
                         with flags) is read or written in a loop: made once, used at each iteration */
  bool device_tma;    /* the tile function being lowered, for a call, may use descriptors on its
                         array parameters (each with its flag parameter, given by the call) */
  const char *descriptor_keys[C2T_MAX_DESCRIPTORS];
  const char *descriptor_names[C2T_MAX_DESCRIPTORS];
  int descriptor_count;
  Node *list_descriptors[C2T_MAX_DESCRIPTORS]; /* the `if X_ok: X = make...` a list item's slot took */
  /* the descriptors of the function lowered now that its launcher (a kernel's) or its caller
     (a tile function's) may make instead (lower_memory.c: host_descriptor_candidate) */
  HostDescriptor host_descriptors[C2T_MAX_DESCRIPTORS];
  int host_descriptor_count;
  int host_descriptors_taken; /* of them, the first ones the launcher makes (take_host_descriptors) */
  int list_descriptor_count;
  NodeList runtime_scalars; /* kernel parameters passed as run-time scalars */
  NodeList param_prologue;  /* statements the kernel being lowered starts with (`n = tl.cast(n, tl.int64)`) */
  const char *statement_note; /* a `# C2Tnnn: ...` comment for the statement being lowered (lower_stmt.c) */
  const Node *statement;      /* the tile statement being lowered: lower_error's location when its node has none */
  const Node *constexpr_elif; /* an `elif` of an `if` decided when Triton compiles (lower_stmt.c: lower_if) */
  const void *liveness_function; /* lower_liveness.c: the function liveness_steps counts for */
  long liveness_steps;
  NodeList *stmt_block; /* lower_stmts: the block (as written) whose statement stmt_index is being lowered */
  int stmt_index;
  /* host code (launch.c), made once: the names any scope of the module binds, and the names
   * module-level code binds (a name once per binding), each sorted (str_order); NULL: not made */
  Str *bound_anywhere;
  int bound_anywhere_count;
  Str *module_bound;
  int module_bound_count;
  struct MemoryState *memory; /* lower_memory*.c: memory accesses, path choices, barriers */
  RuntimeHelper helpers[C2T_MAX_RUNTIME_HELPERS]; /* runtime helpers used, in order */
  int helper_count;
  const Binding *twins[C2T_MAX_ALIASES]; /* module constants read in tile code */
  int twin_count;
  /* members of module-level Enum classes read in tile code: class statement and member name
   * (Color.RED -> the constexpr twin Color_RED_TL, written after the class) */
  const Node *enum_classes[C2T_MAX_ENUM_MEMBERS];
  Str enum_members[C2T_MAX_ENUM_MEMBERS];
  int enum_member_count;
  Node *launchers[C2T_MAX_KERNELS];      /* per kernel, to place after it */
  Function *launcher_of[C2T_MAX_KERNELS];
  bool launcher_replayed[C2T_MAX_KERNELS]; /* its registration rebinds it to _replayed(launcher) */
  int launcher_count;
  /* versions per constexpr value (lower_version.c), of the function being lowered */
  const struct Assumption *assumptions; /* the conditions this version takes as decided */
  int assumption_count;
  Str split_names[C2T_MAX_SPLIT_NAMES]; /* constexpr parameters no statement assigns */
  int split_name_count;
  /* tile functions: locals bound once to a dimension of a tile parameter
   * (`N, D = t.shape`, `N = t.shape[0]`), which a split may test too */
  Str split_alias_names[C2T_MAX_SPLIT_NAMES];
  Str split_alias_params[C2T_MAX_SPLIT_NAMES];
  int split_alias_dims[C2T_MAX_SPLIT_NAMES];
  int split_alias_count;
  Node *split_source;  /* the first condition whose branches disagreed on a type, as written */
  Node *split_lowered; /* ... and as lowered */
  int split_priority;  /* 3 rank, 2 shape, 1 other type: the strongest disagreement wins */
  int version_count;   /* versions made so far */
  int kernel_accesses_from; /* launch.c: the first MemoryState access of the kernel being lowered */
  const char *tuned_by;      /* launch.c: the search the module times its kernels with (found before host code is rewritten) */
  bool launches_dependent;   /* launch.c: a ct.launch of the module passes programmatic_dependent_launch= (found
                                then too): its launchers take it */
  const struct OpRow *op_row; /* the op table row being lowered (lower_row) and its call: bind_call */
  const Node *op_call;        /* lets coded arguments through for that call only (OPF_FP4, OPF_E8M0) */
  unsigned bind_serial;        /* bindings of names so far (Variable.serial) */
  struct ReuseState *reuse;    /* lower_memory_reuse.c: loads a later load may take its tile from */
  struct KmajorState *kmajor;  /* lower_memory_kmajor.c: arrays read from a K-major copy */
  /* fresh_local_name: the function and name it last gave a number to, and that number (the ones
     before are taken: a name it gives is written into the function at once) */
  const Node *fresh_def;
  Str fresh_base;
  int fresh_last;
  struct LoopTypes *loop_types; /* lower_stmt.c: of the innermost loop being lowered (NULL: none) */
  int run_time_ifs;             /* lower_stmt.c: `if`s decided at run time around the statement lowered now */
  int constexpr_ifs;            /* ... and those Triton decides when it compiles (a branch it may never compile) */
  bool returned_at_run_time;    /* ... and whether a return of the function so far was under one or in a loop */
} Lowerer;

/* ---- toolkit.c */
Variable *scope_lookup(Lowerer *L, Str name);
/* Whether `node` (any expression or statement) reads a name among names[0..count). */
bool node_reads_any(Node *node, const Str *names, int count);
void scope_bind(Lowerer *L, Str name, TypeInfo *type);
Node *new_name(Lowerer *L, const char *text);
Node *new_int(Lowerer *L, long long value);
/* A float as Python's repr spells it ("0.1", "1e+16", "-0.0"); infinities
 * and NaN as float("inf"), float("-inf"), float("nan") (Triton reads
 * these as constants). */
const char *float_literal_text(Lowerer *L, double value);
Node *new_float(Lowerer *L, double value); /* that literal, typed a float constant */
/* Folding of known integer constants in cuTile's int64 (Python's semantics:
 * '/' is floor division, '%' floor modulo, 'n' is -x, 'a' is abs(x)); a
 * result outside int64 or a division by zero is a located error at `at`. */
long long fold_int(Lowerer *L, const Node *at, char op, long long x, long long y);
/* The number of values of range(start, stop, step), step not 0 (unsigned: a range over the whole
 * of int64 has more values than a long long holds). */
unsigned long long range_length(long long start, long long stop, long long step);
/* A float constant's value truncated to an int64, as int(x): a located
 * error where Python's int(x) does not fit int64 (inf, nan, |x| >= 2**63). */
long long fold_float_to_int(Lowerer *L, const Node *at, double value);

/* The largest tile dimension: the largest power of two an int holds
 * (TypeInfo.shape is int); a larger known dimension is a located error. */
#define C2T_MAX_TILE_DIM (1LL << 30)

/* A known tile dimension as TypeInfo.shape keeps it, or a located error
 * "tile dimension too large" at `at` past C2T_MAX_TILE_DIM. */
int shape_dim_value(Lowerer *L, const Node *at, long long value);

/* The value of an integer constant known at conversion time. */
bool shape_known_int(const Node *node, long long *value);

Str new_temp_name(Lowerer *L, const char *hint); /* a fresh local: hint_1, hint_2 ... */
/* The `pass` statements marked `note` (placeholders a lowering left unused) taken out of
 * `body` and the blocks of its for, while, if and with statements. */
void drop_placeholders(NodeList *body, const char *note);
/* An empty Buf owned by the lowering: buf_free it when done as usual; one
 * an error leaves behind is freed by lower_module. */
Buf *lower_buf(Lowerer *L);
_Noreturn void lower_error(Lowerer *L, const Node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An explicit limit exceeded at `at` (located as lower_error): C2T002
 * "too many WHAT (limit is LIMIT)" (diag_limit). */
_Noreturn void lower_limit(Lowerer *L, const Node *at, const char *what, long long limit);
void require_constexpr_twin(Lowerer *L, const Binding *binding); /* NAME_TL = tl.constexpr(NAME) */

/* ---- template.c */
Node *template_expr(Context *ctx, const char *text, Node **nodes, int count);
NodeList template_stmts(Context *ctx, const char *text, Node **nodes, int count);
void set_store_context(Node *node, ExprContext ctx);
/* The expression as Python text (a bare emitter), appended to out. */
void expr_text(Context *ctx, const Node *expr, Buf *out);
#define TEMPLATE_NODES(...) (Node *[]){__VA_ARGS__}, (int)(sizeof((Node *[]){__VA_ARGS__}) / sizeof(Node *))
/* T(L, "tl.load(_1, mask=_2)", ptr, mask) */
#define T(L, text, ...) template_expr((L)->ctx, text, TEMPLATE_NODES(__VA_ARGS__))
#define T0(L, text) template_expr((L)->ctx, text, NULL, 0)

/* ---- toolkit.c: arguments bound to a cuTile signature (bind_call, lower_call.c) */
/* Arguments of a call bound to a cuTile signature written like Python's:
 * "array, index, shape, /, *, order, padding_mode" (all parameters optional
 * here; the rule checks what it requires). */
typedef struct BoundArgs {
  Node *arg[C2T_MAX_CALL_ARGS];    /* lowered argument, NULL when absent */
  Node *source[C2T_MAX_CALL_ARGS]; /* the argument as written, NULL when absent */
  int count;
  const char *signature; /* what was bound: arguments are read by parameter name (ARG, SRC) */
} BoundArgs;

/* The next item of a signature text ("a, /, b, *, c"): its name, "/" or "*", or an empty
 * Str at the end; `*cursor` moves past it. */
Str signature_next(const char **cursor);
/* The slot of parameter `name` in the bound signature, -1 when it has none. */
int bound_slot(const BoundArgs *args, const char *name);
/* The slot of `name`; a parameter the signature lacks is an internal error
 * (a lowering reading a name its row does not declare). */
int bound_slot_required(Lowerer *L, const BoundArgs *args, const char *name);
/* The argument bound to parameter NAME (lowered / as written), NULL when absent. */
#define ARG(args, name) ((args).arg[bound_slot_required(L, &(args), name)])
#define SRC(args, name) ((args).source[bound_slot_required(L, &(args), name)])
/* The same for a parameter only some rows sharing the lowering have: NULL when this one has none. */
#define ARG_IF(args, name) (bound_slot(&(args), name) < 0 ? NULL : (args).arg[bound_slot(&(args), name)])
Node *require_arg(Lowerer *L, Node *call, const BoundArgs *args, int index, const char *what, const char *name);

/* ---- runtime.c: helpers (@triton.jit functions) emitted once per module.
 * `source` is the helper's Python text, `name` the function it defines;
 * returns a Name node for it. Helpers appear in the order first used. */
Node *use_runtime(Lowerer *L, const char *name, const char *source);
Node *use_helper(Lowerer *L, HelperId id); /* a helper of src/lower/helpers/, with those it calls */
bool is_helper_name(Str name); /* a name a runtime helper defines (generated modules may hold any) */
Node *use_template(Lowerer *L, TemplateId id, int rank); /* a helper of a templates file, for one rank */
NodeList helper_stmts(Lowerer *L, HelperId id);
const char *helper_import(int index); /* an import a helper may need (HELPER_IMPORTS), NULL past the last */
void append_runtime_helpers(Lowerer *L, NodeList *module_body);

#endif /* C2T_TOOLKIT_H */
