/*
 * lower_shape.h — tile-shape helpers shared by lower_shape.c (creation and
 * shape operations) and lower_reduce.c (reductions and scans).
 *
 * A tile's dimensions are kept two ways in its TypeInfo: shape[d], the
 * number when the converter knows it (-1 otherwise), and dims[d], a
 * constant Triton expression of it (`64`, `BLOCK`, `BLOCK * 2`). Triton
 * folds products and quotients of constexprs, so shapes built from dims
 * are compile-time constants in the generated kernel too.
 */
#ifndef C2T_LOWER_SHAPE_H
#define C2T_LOWER_SHAPE_H

#include "lower.h"

/* Dimension d of a tile as a constant expression; NULL if unknown. */
Node *shape_tile_dim(Lowerer *L, const TypeInfo *tile, int d);

/* All dimensions of a tile, or a located error naming `what`. */
void shape_require_dims(Lowerer *L, const Node *at, const TypeInfo *tile, const char *what, Node **dims);

/* A tile type of `dtype` (dtype_expr when unknown) with the given dims. */
TypeInfo *shape_tile_type(Lowerer *L, DType dtype, Node *dtype_expr, int rank, Node **dims);

/* `(d0, d1, ...)` (a 1-tuple keeps its comma). */
Node *shape_tuple_node(Lowerer *L, Node **dims, int rank);
/* tl.permute(x, perm) of a tile of dimensions in_dims, or its 2-D transpose between reshapes
 * where all axes but two are of extent 1 (kept in shared memory for tl.dot); untyped */
Node *shape_permute(Lowerer *L, Node *x, const int *perm, int rank, Node *const *in_dims);

/* The product of dims as a constant expression (a number when known). */
Node *shape_product(Lowerer *L, Node **dims, int count);

/* The tile argument `index` of a bound call, or a located error. */
Node *shape_require_tile(Lowerer *L, Node *call, const BoundArgs *args, int index, const char *what);

/* A constant integer axis in [-rank, rank) normalized to [0, rank). */
int shape_axis(Lowerer *L, const Node *axis, const Node *at, int rank, const char *what);

/* The Triton dtype of a tile: `tl.float16`, or its dtype expression. */
Node *shape_dtype_node(Lowerer *L, Node *tile);

/* tl.reshape(x, dims) typed. */
Node *shape_reshape(Lowerer *L, Node *x, Node **dims, int rank);

/* Item `i` of `tuple`, a local tuple of constants some of which only Triton knows ((BM, BK)),
 * as `tuple[i]`, the local then required to be a constexpr local (promote_constexpr_locals);
 * NULL where `tuple` is no such local (or C2T_MAX_STATIC_CHOICES names are required already). */
Node *shape_constexpr_item(Lowerer *L, Node *tuple, int i, const Node *at);

/* The locals (and parameters) a tile size reads (`(S,)`, `(S * 2, BK)`) must be constexprs in
 * Triton, where a plain local is a run-time value: each is noted (require_constexpr_local), and
 * one that cannot become a constexpr local is a located error at `at`. A tile's own shape
 * (`t.shape[0]`) and a ct.static_iter counter are constexprs already. */
void shape_require_constexpr_names(Lowerer *L, Node *dim, const Node *at);

#endif /* C2T_LOWER_SHAPE_H */
