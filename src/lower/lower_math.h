/*
 * lower_math.h — shared by the elementwise math family (lower_math*.c).
 *
 *   lower_math.c          cuTile's dtype promotion, Python operators, the
 *                         binary ct functions (add ... maximum, where), the
 *                         family's op table
 *   lower_math_basics.c   what the family shares: dtype categories, notes,
 *                         result tile types, rounding-mode and flag arguments
 *   lower_math_unary.c    unary math functions, astype, bitcast, dtype
 *                         constructors, int()/float()/bool()
 *   lower_math_runtime.c  ct_<name>(x) of the float functions (the fixed helpers
 *                         are src/lower/helpers/math_helpers.py)
 */
#ifndef C2T_LOWER_MATH_H
#define C2T_LOWER_MATH_H

#include "lower.h"

/* ---- lower_math_basics.c */
bool math_is_number(const TypeInfo *type);      /* a Python number in Triton (literal, constexpr) */
bool math_never_bfloat16(const TypeInfo *type); /* its dtype cannot be bfloat16 */
bool math_dtype_is_float(DType dtype);
bool math_dtype_is_restricted(DType dtype);     /* tf32, float8, float4, e8m0: not arithmetic in cuTile */
char math_category(DType dtype);                /* 'b', 'i' (also unsigned), 'f', '?' */
void math_note(Lowerer *L, const char *text);   /* a `# C2T2nn: ...` note on the current statement */
TypeInfo *math_tile_type(Lowerer *L, const TypeInfo *like, DType dtype); /* like's shape, `dtype` */
/* a RoundingMode argument: "RN", "RZ", ... or NULL when absent/None */
const char *math_rounding_mode(Lowerer *L, Node *arg, Node *source, const char *what);
bool math_true_constant(Lowerer *L, Node *arg, Node *source, const char *what); /* a constant bool flag */
Node *math_flushed(Lowerer *L, Node *x); /* flush_to_zero=True: x's float32 subnormals as signed zeros */

/* ---- lower_math_unary.c */
Node *lower_math_unary_function(Lowerer *L, Node *call, const char *member);
Node *lower_math_astype(Lowerer *L, Node *call, const char *member);
/* astype of a lowered x to a lowered dtype (call `at` locates errors) */
Node *math_astype_value(Lowerer *L, Node *at, Node *x, Node *dtype, const char *mode, Node *mode_source);
Node *lower_math_bitcast(Lowerer *L, Node *call, const char *member);
Node *lower_math_dtype_constructor(Lowerer *L, Node *call, const char *member);
Node *lower_math_python_conversion(Lowerer *L, Node *call, const char *member); /* int() float() bool() */
Node *lower_math_negative(Lowerer *L, Node *expr, Node *operand);
Node *lower_math_bitwise_not(Lowerer *L, Node *expr, Node *operand);
Node *lower_math_isnan(Lowerer *L, Node *call, const char *member);
Node *lower_math_abs(Lowerer *L, Node *call, const char *member);
/* A fill value of float8_e8m0fnu (ct.full, ct.float8_e8m0fnu(v)): its bits, as
 * cuTile folds the constant, as an int literal (ct_float8_e8m0fnu_bits(v), which
 * folds it when Triton compiles, for a constant known only then); a located
 * error for a run-time value (cuTile converts it on the GPU) and a negative
 * constant (cuTile's error). */
Node *math_float8_e8m0fnu_fill(Lowerer *L, const Node *at, const Node *value, const char *what);
/* A float8_e4m3fn / float8_e5m2 constant of `shape` (a tuple node) holding what cuTile folds the
 * number `value` to: a float32 tile cast to the dtype (exact; Triton's interpreter builds no fp8
 * constant), or the bits of NaN and infinity, which that cast would saturate. */
Node *math_float8_constant(Lowerer *L, Node *shape, double value, DType dtype);

/* ---- lower_math.c */
DType math_promote(Lowerer *L, const Node *at, const char *what, DType a, DType b); /* cuTile's promotion of two dtypes */
/* the type of `left op right` by the operator's dtype and broadcast rules */
TypeInfo *math_binary_type(Lowerer *L, const Node *at, const char *what, AstOp op, const TypeInfo *lt,
                           const TypeInfo *rt);

/* ---- lower_matrix.c: x @ y and ct.matmul (operands lowered; the sources locate errors) */
Node *lower_matrix_product(Lowerer *L, Node *at, const char *what, Node *x, Node *y, Node *x_source, Node *y_source);

/* Whether two dimension expressions are written alike (NULL: unknown). */
bool math_same_dim(Lowerer *L, const Node *a, const Node *b);
/* Whether `expr` reads a name the function being lowered binds more than once (no tl.constexpr
 * local in Triton, which holds a run-time value there whatever the converter knows of it). */
bool math_reads_reassigned(Lowerer *L, Node *expr);

/* ---- lower_math_runtime.c: helpers of the generated module */
Node *math_unary_helper(Lowerer *L, const char *name, const char *gpu_expr, const char *interpreted_expr,
                        const char *doc, bool float32_only); /* ct_<name>(x) for a float math function */

#endif /* C2T_LOWER_MATH_H */
