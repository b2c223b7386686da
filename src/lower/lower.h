/*
 * lower.h — shared by the lowering stage (src/lower/).
 *
 * Lowering rewrites the module's tree in place, function by function:
 * kernels and the functions they reach become @triton.jit functions, host
 * code keeps its shape with ct.launch and friends rewritten, and generated
 * pieces (launchers, runtime helpers) are appended. Expressions are typed
 * as they are lowered (analysis and rewriting in one pass, like a compiler's
 * code generator with its type checker): every lowered expression node has
 * node->type set.
 *
 * In layers, each calling only those below it (and lower_expr's recursion):
 *
 *   toolkit (toolkit.h; includes nothing of the lowering above it)
 *     toolkit.c         errors and limits at a node, new names and constants,
 *                       scopes, integer folding, the lowering's Bufs, bound
 *                       arguments read by name, constexpr twins
 *     types.c           dtypes, TypeInfo constructors, promotion
 *     template.c        trees from Python text with placeholders
 *     runtime.c         runtime helpers emitted once per module
 *     stats.c           the counts of --stats
 *   the recursion (expressions, statements and tile functions lower each other)
 *     lower_expr.c      names, attributes, constants, subscripts in tile code
 *     lower_stmt.c      statements of tile code, names assigned in blocks
 *     lower_call.c      calls in tile code: the op table's dispatch, binding
 *                       (and lowering) call arguments, builtins
 *     lower_function.c  kernels' and tile functions' parameters and bodies;
 *                       a tile function lowered at its first call
 *     lower_control.c   break/continue rewritten, short-circuit checks,
 *                       branches decided at conversion
 *     lower_pyvalue.c   Python values evaluated at conversion: math, numpy
 *                       and torch constants and dtypes, math functions,
 *                       float("inf"), len()
 *     lower_tf32.c      tfloat32 right-hand operands staged at launch
 *                       (rounded, K-major copies read by TMA)
 *   the families, reached through the op table (ops.h, ops.c, ops/<family>.def)
 *     lower_*.c         one family of cuTile operations each (index, memory,
 *                       math, reduce, shape, debug), with its own header
 *                       (lower_memory.h, lower_math.h, lower_shape.h)
 *   the driver
 *     driver.c          the module: kernels, unreached tile functions, host
 *                       code, generated pieces; may call everything
 *     launch.c          launchers and host-side rewrites, finishing the module
 */
#ifndef C2T_LOWER_H
#define C2T_LOWER_H

#include "toolkit.h"
#include "ops.h"

/* ---- driver.c */
void lower_module(Converter *conv);

/* ---- lower_expr.c, lower_stmt.c: the recursion every family may call */
Node *lower_expr(Lowerer *L, Node *expr);
void lower_stmts(Lowerer *L, NodeList *stmts);
/* lower_dataclass.c: frozen dataclasses in tile code, held as tuples of their fields */
#define C2T_MAX_DATACLASS_FIELDS 64 /* fields of one dataclass used in tile code */
const Node *lower_dataclass_named(Lowerer *L, Str name); /* the module's @dataclass class `name`, else NULL */
Node *lower_dataclass_construct(Lowerer *L, Node *call, const Node *cls);
/* lower_expr.c: the module's Enum class `name`, else NULL; Mode(value) in tile code */
const Node *lower_enum_named(Lowerer *L, Str name);
Node *lower_enum_construct(Lowerer *L, Node *call, const Node *cls);
Node *lower_dataclass_replace(Lowerer *L, Node *call); /* dataclasses.replace(instance, field=value) */
Node *lower_dataclass_field(Lowerer *L, Node *expr, Node *base, Str attr);
/* instance.method(...) and Cls.method(...) of a module-level dataclass: a call of the method's
 * twin (resolve_methods.c); NULL where `call` is not one */
Node *lower_dataclass_method(Lowerer *L, Node *call);
Node *lower_dataclass_property(Lowerer *L, Node *expr); /* instance.prop of a @property; else NULL */
/* item `index` of the lowered tuple `base` (`expr`: where an error points) (lower_expr.c) */
Node *lower_tuple_item(Lowerer *L, Node *expr, Node *base, int index);
/* Element `index` of a tuple of arrays: pointer `xs[index]`, shape `xs_shape[index]`, strides likewise. */
Node *tuple_array_item(Lowerer *L, const ArrayRef *tuple, Node *index);
/* The first call in `block` of a name cuda.tile lacks, or of an operation with arguments it does not
 * take: why it is not valid cuTile whatever the types (NULL: none). */
const char *lower_unknown_call(Lowerer *L, const NodeList *block);
/* Entry `index` of a tuple whose entries' types are known: the entry written in it, an integer
 * known at conversion as the number, else `tuple[index]` typed as the entry. */
Node *lower_tuple_entry(Lowerer *L, Node *tuple, int index);
/* `raise ct.static_exception(E)` as `tl.static_assert(False, ...)` (lower_debug.c) */
Node *lower_raise_statement(Lowerer *L, Node *stmt);
/* The one type of the elements of a tuple that a constexpr counter walks (ct.static_iter over
 * it, or indexed by the counter of a ct.static_iter(range(...))); `what` names the use in the
 * located error where the elements differ. */
/* (tl.cast(t[0], tl.int64), ...): the `rank` items of an int64-indexed array's shape or strides `t`. */
Node *lower_int64_pieces(Lowerer *L, Node *tuple_expr, int rank);
TypeInfo *lower_static_element_type(Lowerer *L, Node *at, const TypeInfo *tuple, const char *what);
/* Whether `expr` calls the builtin `name` (not a local of that name). */
bool lower_is_builtin_call(Lowerer *L, const Node *expr, const char *name);
/* lower_pipeline.c: whether Triton may start the loads of this (source) loop
 * early, num_stages=_loop_stages */
bool loop_may_pipeline(Lowerer *L, const Node *loop);
/* lower_pipeline.c: whether a loop's body (its source) holds no loop and writes no memory (no
 * store, scatter or atomic, tile function call or array memory method): kept as a loop for its
 * single trip (lower_stmt.c), its loads may be issued early */
bool loop_may_keep_single_trip(Lowerer *L, const Node *loop);
/* lower_split.c: a lowered loop of matrix products whose `if` on its counter turns once, as two
 * loops in a tl.static_range(2), pushed to `out`; false (nothing pushed) where it does not qualify */
bool split_loop_at_turn(Lowerer *L, Node *stmt, NodeList *out);
/* launch.c: how many times module-level code binds `name` (its blocks', and functions' that
 * declare it `global`; a def or class by its name) */
int module_bindings_of(Lowerer *L, Str name);
/* A tile two branches give different types: what both agree on (a rank,
 * dimension or dtype they disagree on becomes unknown); b when either is no tile. */
/* The names a block assigns, nested blocks included (lower_stmt.c): `names[0..count)`. */
typedef struct Assigned {
  Lowerer *L;
  Str *names;
  TypeInfo **types; /* saved types (NULL: not bound), one per name (save_assigned) */
  int count, capacity;
} Assigned;
Assigned *new_assigned(Lowerer *L);
void add_assigned_target(Assigned *A, const Node *target);
void collect_assigned(Assigned *A, const NodeList *stmts, int depth);

/* Whether Triton can join a name holding `a` on one path and `b` on the other (its scf.if yields
 * one type): the same kind, tiles of one rank, shape and dtype where known, numbers both ints or
 * both floats. */
bool joinable(Lowerer *L, const TypeInfo *a, const TypeInfo *b);
/* lower_control.c: `if c:` / `else: S` as `if not (c): S`, without an else */
void negate_if(Lowerer *L, Node *stmt);
TypeInfo *merged_tile(Lowerer *L, TypeInfo *a, TypeInfo *b);
TypeInfo *merged_constexpr_tile(Lowerer *L, TypeInfo *a, TypeInfo *b);
/* lower_control.c: what two values one of which Triton picks when it compiles agree on: two
 * constants, a constant known then (either_constant); two tiles of one rank, their dtype and
 * dimensions where the same (either_tile). */
TypeInfo *either_constant(Lowerer *L, const TypeInfo *a, const TypeInfo *b);
TypeInfo *either_tile(Lowerer *L, const TypeInfo *a, const TypeInfo *b);
/* lower_loop_locals.c: names set afresh in each iteration and not read after the loop get names of their own there */
void rename_loop_locals(Lowerer *L, Node *def);
/* NAME_1, NAME_2, ...: the first that `def` does not mention and the module does not bind. */
Str fresh_local_name(Lowerer *L, Node *def, Str name);
/* Every mention of `from` in the body of `def` becomes `to`. */
void rename_in_body(Node *def, Str from, Str to);
void rename_in_block(NodeList *block, Str from, Str to); /* every `from` in it (nested too) renamed `to` */
/* `name` bound from its first assignment in `block` on (`name = value`, a statement of the block
 * itself; the statements before it and its value read the value before) under a name of its own
 * (`own`: the one given, else a fresh one); false where the block binds it first otherwise (in a
 * nested block, by `+=`, unpacked) */
bool rename_binding_in_block(Lowerer *L, NodeList *block, Str name, Str *own);
/* lower_liveness.c: whether what `name` holds after `stmt` (of the function `def`, being lowered) is
 * never read: each path from it sets the name again (or ends the function) before any read, the
 * next iterations of the loops around it included */
bool value_dead_after(Lowerer *L, Node *def, Node *stmt, Str name);
/* Whether a path through `block` may read `name` before it sets it. */
bool read_before_set(Lowerer *L, NodeList *block, Str name);

/* ---- lower_tf32.c: tfloat32 right-hand operands staged at launch (K-major, rounded) */
void tf32_scan_kernel(Lowerer *L, Node *def); /* before the kernel is lowered: the candidate arrays */
/* After a 2-D load of `array` that may take a descriptor: the staged copy's tile too, on `type` */
void tf32_twin_for_load(Lowerer *L, const ArrayRef *array, Node **index, Node **size, int rank, bool zero_padded,
                        TypeInfo *type);
Node *tf32_twin_or(Lowerer *L, Node *x, Node *rounded); /* astype(x, tfloat32): the staged tile where there is one */
/* After a version's body: the staged tiles no astype read are taken out, and the arrays of those
 * read get the parameters (tf32_add_params) and the launcher's copy (tf32_launch_args) */
void tf32_finish_version(Lowerer *L, NodeList *body, NodeList *prologue);
/* After an `if` on a constexpr: a name whose tile has a staged twin in a branch keeps one, the
 * branches' twins (or None) assigned to a local of its own at their ends */
void tf32_join(Lowerer *L, Node *stmt, TypeInfo *merged, TypeInfo *from_body, TypeInfo *from_else);
/* Lowering a branch of an `if` of the kernel on a constexpr (`source`, as written; NULL: a
 * condition the launcher cannot evaluate): a staged load inside is read only when it holds
 * (`taken`) or fails; tf32_branch_leave after the branch. */
void tf32_branch_enter(Lowerer *L, const Node *source, bool taken);
void tf32_branch_leave(Lowerer *L);
void tf32_add_params(Lowerer *L, Node *def);
void tf32_launch_args(Lowerer *L, const Function *kernel, Buf *call);

/* ---- lower_memory_reuse.c: a load that takes the tile another load of the kernel read,
 * where the launcher finds the two arrays one (a constexpr flag SECOND_is_FIRST) */
void reuse_start_kernel(Lowerer *L);  /* its pairs of arrays: none yet */
void reuse_start_version(Lowerer *L); /* the loads of a kernel version: none yet */
int reuse_enter_loop(Lowerer *L);     /* lowering a loop body: gives what reuse_leave_loop takes */
void reuse_leave_loop(Lowerer *L, int outer);
void reuse_note_write(Lowerer *L);    /* a store, scatter or atomic was lowered */
int reuse_pair_count(Lowerer *L);     /* the kernel's flags: its pairs of array parameters */
const char *reuse_pair(Lowerer *L, int i, Str *first, Str *second);
void reuse_keep_pairs(Lowerer *L, int count); /* the first `count` pairs (a failed attempt's others go) */
bool reuse_is_flag(Lowerer *L, const Node *condition); /* a choice on one of the flags */
/* A launch-time condition under which a name holds a load's tile: the kernel's `if` on its
 * constexpr parameters, one of whose branches bound it so (reuse_join). */
typedef struct ReuseWhen {
  Node *test;         /* the condition as lowered (the kernel's terms) */
  bool taken;         /* the tile where it holds (else where it does not) */
  const char *launch; /* the launcher's test for that: `TRANSPOSE_B` or `not TRANSPOSE_B` */
} ReuseWhen;
/* What a value holds that lower_memory_reuse.c follows (reuse_value), given to the name it is
 * assigned to after binding it (reuse_bind). */
typedef struct ReuseValue {
  int load;          /* the tile of this load (Variable.reuse_load), 0: none */
  const char *flag;  /* a tile taken from another load where this flag holds */
  int source;        /* ... that load's tile reshaped (0: not known to be) */
  bool transposed;   /* ... transposed */
  int convert;       /* the tile of `load` converted by this astype (ReuseState.converts, 1-based), 0: none */
  const ReuseWhen *when; /* the tile of `load` only where this holds (NULL: always) */
} ReuseValue;
ReuseValue reuse_value(Lowerer *L, const Node *value);
void reuse_bind(Lowerer *L, Str name, ReuseValue value);
ReuseValue reuse_of_name(Lowerer *L, Str name); /* what the name holds now */
/* A tile function lowered for a call follows its own loads; the caller's wait in the result. */
struct ReuseState *reuse_enter_function(Lowerer *L);
void reuse_leave_function(Lowerer *L, struct ReuseState *caller);
/* After a kernel's `if` on `test` (`source`: as written) that the launch decides: what `name`
 * holds, from what it held at the end of the body and of the else branch. */
void reuse_join(Lowerer *L, Str name, Node *test, const Node *source, ReuseValue body, ReuseValue orelse);
/* The flag under which the left operand `x` of a 2-D product is a taken tile transposed, or
 * NULL; *transposed: xᵀ read from the name holding the tile it was taken from, else NULL. */
const char *reuse_operand(Lowerer *L, const Node *x, Node **transposed);
Node *reuse_choice(Lowerer *L, const char *flag, Node *when, Node *otherwise); /* `when if flag else otherwise` */
/* The load of a whole array parameter whose tile `value` is (reshaped at most), in this loop
 * body and with the names of its index bound as they were: its array, index and tile sizes
 * per array axis (the nodes as lowered: copy them to use them). */
typedef struct TrackedLoad {
  Str param;
  Node *index[C2T_MAX_RANK], *size[C2T_MAX_RANK]; /* MAX_TILE_RANK of lower_memory.h at most */
  int rank;
  int padding; /* lower_memory.c's Padding */
  const ReuseWhen *when; /* the value is that tile only where this holds (NULL: always) */
} TrackedLoad;
bool reuse_tracked_load(Lowerer *L, const Node *value, TrackedLoad *out);
/* An astype as lower_math_astype bound it: math_astype_value(L, call, x, dtype, mode, mode_source)
 * converts another tile x the same way (the nodes as lowered: copy dtype to use it). */
typedef struct ReuseConvert {
  Node *call, *dtype;
  const char *mode;
  Node *mode_source;
  TypeInfo *from; /* the tile's type before */
} ReuseConvert;
/* `result` is astype(x) as `how` says: where x is a tracked load's tile, a name assigned
 * `result` is followed as that tile converted (reuse_tracked_convert) */
void reuse_note_convert(Lowerer *L, const Node *x, const Node *result, const ReuseConvert *how);
/* The tracked load whose tile `value` holds converted, and how (reuse_tracked_load's rules). */
bool reuse_tracked_convert(Lowerer *L, const Node *value, TrackedLoad *out, ReuseConvert *how);

/* ---- lower_memory_kmajor.c: float8 right-hand operands of products read from a K-major copy */
void kmajor_scan_kernel(Lowerer *L, Node *def); /* before the kernel is lowered: the arrays it only reads */
void spread_scan_kernel(Lowerer *L, Node *def); /* before the kernel is lowered: may its grid be spread */
bool function_has_param(Lowerer *L, Str name); /* a parameter of the function being lowered */
int kmajor_staged_count(Lowerer *L);            /* the arrays staged so far (a failed attempt's go: */
void kmajor_keep_staged(Lowerer *L, int count);  /* kmajor_keep_staged) */
Node *kmajor_operand(Lowerer *L, Node *y); /* y, or `staged if FLAG else y` */
void kmajor_add_params(Lowerer *L, Node *def);
void kmajor_launch_args(Lowerer *L, const Function *kernel, Buf *call);
/* A tile function lowered for a call: its own arrays (the caller's state waits in the result),
 * then its parameters P_kmajor, P_kmajor_staged (fn->kmajor_params), and the caller's again. */
struct KmajorState *kmajor_enter_function(Lowerer *L, Node *def);
void kmajor_leave_function(Lowerer *L, Function *fn, struct KmajorState *caller);
/* A call of tile function fn: its P_kmajor, P_kmajor_staged arguments pushed onto `expanded`: the
 * caller's own copy of an array parameter it only reads and passes whole, else the array, False. */
void kmajor_call_args(Lowerer *L, const Function *fn, TypeInfo **types, int count, NodeList *expanded);
/* launch.c: `, A, B` for the kernel's array parameters other than `array` (what a staging
 * helper weighs the copy against: the launch's other arrays) */
void launch_other_arrays(const Function *kernel, Str array, Buf *call);

/* ---- lower_function.c */
Node *new_arg(Lowerer *L, Str name, const char *annotation); /* a parameter, annotated or not */
void take_host_descriptors(Lowerer *L, Node *def); /* lower_memory.c: descriptors the launcher makes */
void take_device_descriptors(Lowerer *L, Function *fn, int first, bool dot); /* ... and a tile function's caller gives */
void pass_device_descriptors(Lowerer *L, const Function *fn, Node **args, TypeInfo **types, int count,
                             NodeList *expanded);
Str suffixed(Lowerer *L, Str name, const char *suffix);
void lower_kernel(Lowerer *L, Function *kernel); /* parameters, decorator, body, launcher */
TypeInfo *array_param_type(Lowerer *L, Str name, bool int64_index);
Node *lower_device_call(Lowerer *L, Node *call, Function *fn);
void expand_starred_arguments(Lowerer *L, Node *call); /* f(*t): the items of a tuple of known length */
void lower_unused_device_function(Lowerer *L, Function *fn);
void note_return_type(Lowerer *L, Node *at, TypeInfo *type);

/* ---- lower_expr.c, lower_call.c */
Node *lower_ct_value(Lowerer *L, Node *expr, const char *member);

/* ---- lower_pyvalue.c: Python values in tile code, evaluated at conversion
 * (`name` as resolve_python_name spells it: "math.inf", "numpy.float32") */
Node *lower_python_value(Lowerer *L, Node *expr, const char *name);
Node *lower_python_call(Lowerer *L, Node *call, const char *name); /* math.sqrt(2.0), math.sqrt(D) */
bool lower_is_operator_function(const char *name); /* "operator.add" */
/* `f` with `f = ct.exp` bound in tile code, `fs[1]`: the function as written where bound; else NULL */
Node *lower_bound_function(Lowerer *L, Node *callee);
const char *lower_python_dtype(const char *name); /* "numpy.float16": "float16"; NULL if no dtype */
Node *lower_python_float(Lowerer *L, Node *call, const char *member); /* float("inf"), else float(x) */
Node *lower_number_of_string(Lowerer *L, Node *string, DType dtype, const char *what); /* ct.float32("nan") */
Node *lower_python_len(Lowerer *L, Node *call, const char *member);   /* len(tuple) */
Node *lower_python_sum(Lowerer *L, Node *call, const char *member);   /* sum(tuple) */
Node *lower_python_tuple(Lowerer *L, Node *call, const char *member); /* tuple(e for i in static_iter(range)) */
const char *plain_string_text(Lowerer *L, const Node *string);       /* "abc" -> abc, else NULL */
Node *lower_call(Lowerer *L, Node *call);

/* ---- lower_control.c: break/continue in the loops of `stmts` (Triton has neither) */
void rewrite_break_continue(Lowerer *L, NodeList *stmts);
/* `if` on a condition known at conversion (already lowered in stmt->u.if_.test):
 * only the live branch is lowered, its statements appended to out (cuTile
 * compiles only that branch); false when the condition is not known. */
bool prune_known_if(Lowerer *L, Node *stmt, NodeList *out);
/* Source lines [first, last] whose comments the converted module leaves out with the code. */
/* `a if cond else b`: a condition known at conversion lowers only the live
 * operand; one known at launch (a constexpr) keeps both, typed as both agree. */
Node *lower_conditional_expr(Lowerer *L, Node *expr);
/* Arrays of unknown rank under an `if` on a constexpr: each branch learns
 * its own rank (Triton compiles only the taken one); open after lowering
 * the test, _else between the branches, _close after them (NULL: a run-time `if`). */
typedef struct BranchRanks BranchRanks;
BranchRanks *branch_ranks_open(Lowerer *L, const Node *test);
void branch_ranks_else(Lowerer *L, BranchRanks *ranks);
void branch_ranks_close(Lowerer *L, BranchRanks *ranks);
/* `a and b`: an operand after the first with side effects is an error (cuTile short-circuits) */
void check_short_circuit(Lowerer *L, Node *bool_op);

/* ---- lower_version.c: versions of a function per outcome of a constexpr condition */
typedef struct Assumption {
  const Node *test; /* the condition as written (a pristine copy) */
  bool value;
} Assumption;
/* One version of a tile function split on constexpr conditions: what it
 * assumed (conditions on its own parameters, as written) and returns. */
typedef struct FunctionVersion {
  const Assumption *assumptions;
  int assumption_count;
  TypeInfo *return_type;
} FunctionVersion;
/* What the current version's assumptions say of the condition `expr` (as
 * written): 1 true, 0 false, -1 nothing. */
int assumed_condition(Lowerer *L, const Node *expr);
/* lower_expr, or a True/False constant where the assumptions decide `expr`. */
Node *lower_condition(Lowerer *L, Node *expr);
/* A constexpr condition (`source` as written, a copy taken before lowering;
 * `lowered`) whose branches disagree on a type (priority: 3 rank, 2 shape,
 * 1 dtype; type_disagreement says which): the function may be split on it. */
void note_version_split(Lowerer *L, Node *source, Node *lowered, int priority);
int type_disagreement(Lowerer *L, const TypeInfo *a, const TypeInfo *b);
/* Whether a condition as written is built of literals and the constexpr parameters no statement
 * of the function assigns (one value in the whole body, and the launcher's value too). */
bool constexpr_param_condition(Lowerer *L, const Node *e);
/* `with`'s body becomes `if split: <with's body> else: <without's body>`
 * (docstring kept first); a located error where their parameters differ. */
void join_versions(Lowerer *L, Node *split, Node *with, Node *without);
/* What a tile function split on `split` returns, seen by its callers: the
 * two versions' return types where they agree, unknown where they do not;
 * a located error at `split` where they are different kinds of values. */
TypeInfo *joined_return_type(Lowerer *L, Node *split, TypeInfo *with, TypeInfo *without);

/* ---- launch.c */
void lower_launcher(Lowerer *L, Function *kernel);   /* the launcher of a kernel */
Str kernel_launcher_name(Lowerer *L, Function *kernel); /* launch_NAME, or the name it takes where that is taken */
void lower_host_code(Lowerer *L);                   /* ct.launch, ct.cdiv, dtypes in host code */
void finish_module(Lowerer *L);                     /* imports, twins, launchers, runtime helpers */

/* ---- lower_unread.c */
/* `out` (the converted module's statements) without the statements of `droppable` (the
 * converter's imports, helpers and the helpers' banner) that no statement staying reads. */
void drop_unread_made(Lowerer *L, NodeList *out, const NodeList *droppable);

/* ---- lower_names.c */
/* A located error (C2T403) where a statement of `module_stmts` binds at module level a
 * name that a statement of `made` (what the converter adds: helpers, imports, launchers,
 * constexpr twins) binds too. */
void check_module_names(Lowerer *L, const NodeList *module_stmts, NodeList made);
/* A located error (C2T402) where the tile function `pristine` (as written) binds, as a
 * parameter or in its body, the name of a parameter of `params` that it does not declare:
 * one the converter adds (x_shape, x_strides, x_tma, x_desc_1, _use_tma, ...). */
void check_added_params(Lowerer *L, const Node *pristine, const NodeList *params);
/* The locals of the tile function `def` (as written) named as the converter names what it
 * adds for a parameter (x_shape, x_strides, x_tma, x_desc_1, ... of a parameter x; _use_tma,
 * ...) or as a module-level name converted tile code reads (tl, triton, libdevice, a helper)
 * get names of their own (x_shape_1, tl_1): a local is the function's alone. */
void rename_generated_like_locals(Lowerer *L, Node *def);
/* The parameters of kernel `def` (as written) named as what its launcher binds or reads
 * besides them (stream, grid, args, num_warps, torch, a helper, ...) get names of their own
 * (grid_1), in its body too: the launcher unpacks the kernel's arguments into locals of the
 * parameters' names, and ct.launch passes them by position. */
void rename_launcher_clashing_params(Lowerer *L, Node *def);

/* ---- lower_call.c: a call's arguments bound to a cuTile signature (BoundArgs, toolkit.h) and lowered */
void bind_call(Lowerer *L, Node *call, const char *what, const char *signature, BoundArgs *out);
const char *call_signature_mismatch(Lowerer *L, const Node *call, const char *signature);
/* A located error when `type` holds a tile of a coded dtype (float4_e2m1fn,
 * float8_e8m0fnu: uint8 codes here) or that dtype, unless `flags` (a row's
 * OPF_FP4, OPF_E8M0) let that dtype through; bind_call passes the row's flags,
 * the places that are no op row pass 0. */
void refuse_coded(Lowerer *L, const Node *at, const char *what, const TypeInfo *type, unsigned flags);
/* `type`, a tile `at` reads as numbers (astype, arithmetic, a math function): when its dtype is a kernel
 * array parameter's, known only at launch, the kernel's param_read_line records the line (the launcher
 * refuses a float8_e8m0fnu array there, whose tiles are uint8 bits in the kernel). */
void note_read_as_numbers(Lowerer *L, const Node *at, const TypeInfo *type);
/* bind_call with the signature of the row of `member` (ops/<family>.def). */
void bind_op(Lowerer *L, Node *call, const char *what, const char *member, BoundArgs *out);

/* The op table: ops.h (rows in ops/<family>.def, built in ops.c). */

/* lower_memory.c: `target = value` (target NULL: an expression statement)
 * as an if/else statement when `value` is a memory operation that picks
 * its path (TMA or pointers) by a constexpr condition; NULL otherwise. */
Node *memory_choice_stmt(Lowerer *L, Node *target, Node *value);
/* lower_memory.c: As[g], As a list-of-arrays parameter (VAL_LIST), g the lowered index: an array */
Node *lower_list_item(Lowerer *L, Node *expr, TypeInfo *list, Node *index);
/* lower_memory.c: the descriptor slots of list items that no descriptor took, dropped from a function body */
void drop_list_item_slots(Lowerer *L, NodeList *body);
void defer_list_descriptors(Lowerer *L, NodeList *body);
/* lower_memory_view.c: tv.traversal_steps of a tiled view (`array`, whose type has
 * `tiled`): its steps, else its tile shape ((1, ...) for a 0-d tile shape) */
Node *lower_view_steps(Lowerer *L, const TypeInfo *array);
/* lower_memory_view.c: tv.tile_shape, a tuple (the 1-D shorthand too) */
Node *lower_view_tile_shape(Lowerer *L, const TypeInfo *array);
/* lower_memory_view.c: a tiled view passed to a tile function. At the call, the argument's
 * type made a copy whose view holds its tile-shape items and steps lowered in the caller
 * (view_arguments; `at` where an error points); in the tile function, the view of parameter
 * `name`, whose items are its constexpr parameters NAME_tile_D and NAME_step_D, appended to
 * `params` and bound (view_parameters); whether one lowering of the function takes both views
 * (views_alike: as many items, steps or none, the same padding). */
TypeInfo *view_arguments(Lowerer *L, TypeInfo *array, Node *at);
TiledViewInfo *view_parameters(Lowerer *L, Str name, const TiledViewInfo *given, NodeList *params);
bool views_alike(Lowerer *L, const TiledViewInfo *a, const TiledViewInfo *b);
/* lower_memory_order.c: tl.debug_barrier() where cuTile's block-wide memory
 * order needs one (a store then a load of the same array, lock hand-offs). */
void insert_memory_barriers(Lowerer *L, NodeList *body);
/* Tensor descriptors made at their use inside a loop (a block shape that reads a local, a
 * view's) that read nothing the loop assigns: made once, before the loop (lower_memory.c). */
void hoist_loop_descriptors(Lowerer *L, NodeList *body);
/* `name` must become a constexpr local of the function being lowered (checked after its
 * lowering, a located error at `at` where it cannot: an `if` choosing it, or its use); false
 * when C2T_MAX_STATIC_CHOICES names are required already. */
bool require_constexpr_local(Lowerer *L, Str name, const Node *at);

/* Operators written with Python syntax (a + b, a // b, -a, a < b) on tiles:
 * lower_math.c applies cuTile's semantics to operands already lowered. */
Node *lower_binary_operator(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right);
Node *lower_unary_operator(Lowerer *L, Node *expr, AstOp op, Node *operand);
Node *lower_comparison(Lowerer *L, Node *expr, AstOp op, Node *left, Node *right);

#endif /* C2T_LOWER_H */
