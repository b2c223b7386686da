/*
 * lower_memory_helpers.c — the pointer path of ct.load / ct.store as
 * runtime helpers (@triton.jit functions emitted once per module), one per
 * rank: their text is src/lower/helpers/memory_templates.py, filled in for
 * the rank (use_template); the 0-d element ones are memory_helpers.py's.
 *
 * cuTile indexes tiles in tile units: the tile at index (i0, i1) of shape
 * (S0, S1) covers elements [i0*S0, (i0+1)*S0) x [i1*S1, (i1+1)*S1).
 * Elements outside the array read the padding value and are not written
 * (check_bounds=False promises there are none: no mask). Offsets are
 * computed in 64 bits: a row offset of a large array (row * stride) passes
 * 2**31 long before any one shape or stride value does.
 */
#include "lower_memory.h"

Node *load_helper(Lowerer *L, int rank) { return use_template(L, TEMPLATE_ct_load_RANKd, rank); }

Node *memory_require_array(Lowerer *L, Node *call, const BoundArgs *args, const char *what, const char *verb) {
  Node *array = require_arg(L, call, args, 0, what, "array");
  const TypeInfo *type = array->type;
  if (type->kind == VAL_TILE && type->rank == 0 && type->dtype == DT_UNKNOWN && !type->opaque)
    lower_error(L, args->source[0], "%s %s an array, not %s: the converter could not follow this value to an "
                "array (it follows a kernel's parameter through other names and tile functions' parameters, "
                "not through a tile function's result or a choice made at run time)", what, verb,
                type_describe(L->ctx, type));
  if (type->kind != VAL_ARRAY)
    lower_error(L, args->source[0], "%s %s an array, not %s", what, verb, type_describe(L->ctx, type));
  if (array->type->raw_memory)
    lower_error(L, args->source[0], "%s %s an array, not its raw memory (x.get_raw_memory()): use the raw memory's "
                "load_offset, store_offset and atomic_*_offset, or the array itself", what, verb);
  return array;
}

Node *store_helper(Lowerer *L, int rank) { return use_template(L, TEMPLATE_ct_store_RANKd, rank); }

Node *tile_mask_helper(Lowerer *L, int rank) { return use_template(L, TEMPLATE_ct_tile_mask_RANKd, rank); }

/* A 0-d array's one element is always inside: no mask. */
Node *load_element_helper(Lowerer *L, int rank) {
  return rank == 0 ? use_helper(L, HELPER_ct_load_element_0d) : use_template(L, TEMPLATE_ct_load_element_RANKd, rank);
}

Node *store_element_helper(Lowerer *L, int rank) {
  return rank == 0 ? use_helper(L, HELPER_ct_store_element_0d)
                   : use_template(L, TEMPLATE_ct_store_element_RANKd, rank);
}

Node *load_view_helper(Lowerer *L, int rank) { return use_template(L, TEMPLATE_ct_load_view_RANKd, rank); }

Node *store_view_helper(Lowerer *L, int rank) { return use_template(L, TEMPLATE_ct_store_view_RANKd, rank); }

Node *atomic_view_helper(Lowerer *L, int rank) { return use_template(L, TEMPLATE_ct_atomic_view_RANKd, rank); }
