/*
 * lower_memory_view.c — Array.tiled_view and the methods of a tiled view.
 *
 * A tiled view computes nothing: x.tiled_view(tile_shape, ...) lowers to x itself,
 * whose type keeps the view's tile shape, padding mode and traversal steps as
 * written (TiledViewInfo); each method reads them again where it is called.
 * Without steps (or with steps equal to the tile shape) the view's load, store and
 * num_tiles are ct.load, ct.store and ct.num_tiles of x with that tile shape and
 * padding mode, descriptor paths included. With other steps the tile at index
 * (i, j) starts at element (i * step0, j * step1): tiles overlap where a step is
 * smaller than the tile and leave gaps where it is larger; its load and store go
 * through pointers (ct_load_view_Nd, ct_store_view_Nd), and num_tiles(axis) is
 * cdiv(extent, step), as cuTile counts them. The atomic_store_* methods are
 * ct_atomic_view_Nd: Triton's atomics over the tile's elements (those outside the
 * array are not touched), the update broadcast to the tile shape, with Triton's
 * default order (acq_rel), at least as strong as cuTile's. For example:
 *
 *     tv = x.tiled_view((2, 4), traversal_steps=(1, 4))
 *     t = tv.load((i, 0))   ->   t = ct_load_view_2d(x, x_shape, x_strides, i, 0, 2, 4, 1, 4, None)
 *
 * A 0-d tile shape, (), is the array's elements one by one (a tile of ones,
 * broadcast to the array's rank): its loads and stores are element ones, at the
 * element index times the steps. A view passed to a tile function travels as its
 * array followed by its tile-shape items and steps, constexpr parameters of the
 * function (view_arguments at the call, view_parameters in the function).
 */
#include <stdio.h>
#include <string.h>

#include "lower_memory.h"
#include "lower_shape.h"

/* ------------------------------------------------------------ helpers */

/* The argument of `call` at `position` (-1: keyword only) or given as `keyword`, as written;
 * NULL when absent. */
static Node *call_source(const Node *call, int position, const char *keyword) {
  const NodeList *args = &call->u.call.args;
  if (position >= 0 && position < args->count && args->items[position]->kind != N_STARRED)
    return args->items[position];
  const NodeList *keywords = &call->u.call.keywords;
  for (int k = 0; k < keywords->count; k++)
    if (str_eq(keywords->items[k]->u.keyword.arg, keyword))
      return keywords->items[k]->u.keyword.value;
  return NULL;
}

static Node *new_keyword(Lowerer *L, const char *name, Node *value) {
  Node *kw = arena_alloc(&L->ctx->arena, sizeof(Node));
  kw->kind = N_KEYWORD;
  kw->span = value->span;
  kw->u.keyword.arg = (Str){name, (int)strlen(name)};
  kw->u.keyword.value = value;
  return kw;
}

/* ------------------------------------------------------------ the view */

/* The tile shape, padding mode and traversal steps of a tiled_view call as written
 * (copies: the call's own arguments are lowered in place); `shape_at`: the tile shape's
 * position among its arguments. */
static TiledViewInfo *view_as_written(Lowerer *L, const Node *call, int shape_at) {
  TiledViewInfo *view = arena_alloc(&L->ctx->arena, sizeof(TiledViewInfo));
  Node *shape = call_source(call, shape_at, "tile_shape"), *padding = call_source(call, -1, "padding_mode");
  Node *steps = call_source(call, -1, "traversal_steps");
  view->shape = shape ? node_copy_tree(&L->ctx->arena, shape) : NULL;
  view->padding = padding ? node_copy_tree(&L->ctx->arena, padding) : NULL;
  view->steps = steps && !(steps->kind == N_CONSTANT && steps->u.constant.kind == CONST_NONE)
                    ? node_copy_tree(&L->ctx->arena, steps)
                    : NULL;
  return view;
}

/* Whether a step is the tile's size along its axis (a 0-d tile's sizes are 1). */
static bool step_is_size(Lowerer *L, Node *step, Node *size) {
  long long a, b;
  if (!size)
    return memory_known_int(step, &a) && a == 1;
  return memory_known_int(step, &a) && memory_known_int(size, &b) ? a == b : memory_same_text(L, step, size);
}

/* x.tiled_view(tile_shape, *, padding_mode, traversal_steps): x seen as its grid of tiles
 * of tile_shape; the steps are kept only where they differ from it. */
Node *lower_tiled_view(Lowerer *L, Node *call, const char *member) {
  const char *what = "Array.tiled_view()";
  TiledViewInfo *view = view_as_written(L, call, 1); /* the array is the method call's first argument */
  BoundArgs args;
  bind_call(L, call, what, "array, tile_shape, /, *, padding_mode, traversal_steps", &args);
  Node *array_node = memory_require_array(L, call, &args, what, "works on");
  TypeInfo *array = array_node->type;
  Node *shape = require_arg(L, call, &args, 1, what, "tile_shape");
  Node *items[MAX_TILE_RANK], *steps[MAX_TILE_RANK];
  int rank = memory_tuple_items(L, shape, items, MAX_TILE_RANK, "tile dimensions");
  for (int d = 0; d < rank; d++)
    if (!memory_is_constant(items[d]))
      lower_error(L, args.source[1], "%s: the tile shape must be constant", what);
  if (array->rank >= 0 && rank != array->rank && rank != 0)
    lower_error(L, args.source[1], "%s: tile_shape needs one entry per array dimension (or none: a 0-d tile)", what);
  if (args.arg[2])
    memory_padding_other(L, args.arg[2], args.source[2], array);
  if (view->steps) {
    int count = memory_tuple_items(L, args.arg[3], steps, MAX_TILE_RANK, "traversal steps");
    if ((rank && count != rank) || (array->rank >= 0 && count != array->rank))
      lower_error(L, args.source[3], "%s: traversal_steps needs one entry per array dimension", what);
    bool all_sizes = true;
    for (int d = 0; d < count; d++) {
      long long step;
      if (!memory_is_constant(steps[d]))
        lower_error(L, args.source[3], "%s: traversal_steps must be constant", what);
      if (memory_known_int(steps[d], &step) && step <= 0)
        lower_error(L, args.source[3], "%s: step %lld of traversal_steps is not positive", what, step);
      all_sizes = all_sizes && step_is_size(L, steps[d], rank ? items[d] : NULL);
    }
    if (all_sizes) /* the tiles partition the array: the plain view */
      view->steps = NULL;
  }
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  *type = *array;
  type->tiled = view;
  Node *result = node_copy_tree(&L->ctx->arena, array->array->pointer);
  result->type = type;
  return result;
}

/* The view a tiled-view method is called on (`tv` bound to x.tiled_view(...), or the
 * call itself): its tile shape and padding as written. */
static const TiledViewInfo *view_of(Lowerer *L, Node *receiver, const char *what) {
  if (receiver->kind == N_NAME) {
    Variable *var = scope_lookup(L, receiver->u.name.id);
    if (var && var->type && var->type->tiled)
      return var->type->tiled;
  }
  Node *callee = receiver->kind == N_CALL ? receiver->u.call.func : NULL;
  if (callee && callee->kind == N_ATTRIBUTE && str_eq(callee->u.attribute.attr, "tiled_view"))
    return view_as_written(L, receiver, 0); /* x.tiled_view(...): the array is its callee's object */
  lower_error(L, receiver, "%s works on a tiled view (x.tiled_view(tile_shape)), not on an array or tile", what);
}

/* ct.<op>(receiver, ARGS..., shape=tile shape, padding_mode=...) as a call to lower: the
 * method's own arguments and keywords after the receiver. */
static Node *view_call(Lowerer *L, Node *call, const TiledViewInfo *view, bool shape_keyword, bool padding) {
  Node *made = arena_alloc(&L->ctx->arena, sizeof(Node));
  *made = *call;
  made->u.call.args = (NodeList){0};
  made->u.call.keywords = (NodeList){0};
  for (int i = 0; i < call->u.call.args.count; i++)
    node_list_push(&L->ctx->arena, &made->u.call.args, call->u.call.args.items[i]);
  if (!view->shape)
    lower_error(L, call, "a tiled view needs its tile_shape");
  Node *shape = node_copy_tree(&L->ctx->arena, view->shape);
  if (shape_keyword)
    node_list_push(&L->ctx->arena, &made->u.call.keywords, new_keyword(L, "shape", shape));
  else
    node_list_push(&L->ctx->arena, &made->u.call.args, shape);
  for (int k = 0; k < call->u.call.keywords.count; k++)
    node_list_push(&L->ctx->arena, &made->u.call.keywords, call->u.call.keywords.items[k]);
  if (padding && view->padding)
    node_list_push(&L->ctx->arena, &made->u.call.keywords,
                   new_keyword(L, "padding_mode", node_copy_tree(&L->ctx->arena, view->padding)));
  return made;
}

/* What a method of a view with traversal steps needs: the tile index, the tile sizes
 * and the steps, lowered, one per array dimension (`tile_rank` 0: a 0-d tile, whose
 * sizes are 1). */
typedef struct StridedTile {
  Node *index[MAX_TILE_RANK], *size[MAX_TILE_RANK], *step[MAX_TILE_RANK];
  int rank, tile_rank;
} StridedTile;

static StridedTile strided_tile(Lowerer *L, const TiledViewInfo *view, TypeInfo *array, Node *index,
                                const char *what) {
  StridedTile tile = {0};
  Node *shape = lower_expr(L, node_copy_tree(&L->ctx->arena, view->shape));
  tile.tile_rank = memory_tuple_items(L, shape, tile.size, MAX_TILE_RANK, "tile dimensions");
  Node *steps = lower_expr(L, node_copy_tree(&L->ctx->arena, view->steps));
  tile.rank = memory_tuple_items(L, steps, tile.step, MAX_TILE_RANK, "traversal steps");
  if (memory_tuple_items(L, index, tile.index, MAX_TILE_RANK, "index entries") != tile.rank)
    lower_error(L, index, "%s: the index needs one entry per array dimension", what);
  for (int d = 0; d < tile.rank; d++) {
    long long size;
    if (!tile.tile_rank)
      tile.size[d] = new_int(L, 1);
    else if (memory_known_int(tile.size[d], &size) && (size <= 0 || (size & (size - 1))))
      lower_error(L, tile.size[d], "%s: tile dimensions must be powers of two, not %lld", what, size);
  }
  memory_learn_rank(array, tile.rank);
  return tile;
}

/* helper(base, shape, strides, i0, ..., then `sizes` and `steps` when asked). */
static Node *strided_call(Lowerer *L, Node *helper, const ArrayRef *array, const StridedTile *tile, bool sizes,
                          bool steps) {
  Node *call = T(L, "_1(_2, _3, _4)", helper, array->pointer, array->shape, array->strides);
  for (int d = 0; d < tile->rank; d++)
    node_list_push(&L->ctx->arena, &call->u.call.args, tile->index[d]);
  for (int d = 0; sizes && d < tile->rank; d++)
    node_list_push(&L->ctx->arena, &call->u.call.args, tile->size[d]);
  for (int d = 0; steps && d < tile->rank; d++)
    node_list_push(&L->ctx->arena, &call->u.call.args, tile->step[d]);
  return call;
}

/* A 0-d tile's element: the element index times the steps (64-bit). */
static void element_indices(Lowerer *L, StridedTile *tile) {
  for (int d = 0; d < tile->rank; d++) {
    long long index, step;
    if (memory_known_int(tile->index[d], &index) && memory_known_int(tile->step[d], &step) &&
        (index == 0 || (index > 0 && step > 0 && index <= (1LL << 31) && step <= (1LL << 31))))
      tile->index[d] = new_int(L, index * step); /* known here: the product itself */
    else
      tile->index[d] = T(L, "tl.cast(_1, tl.int64) * _2", tile->index[d], tile->step[d]);
  }
}

/* ------------------------------------------------------------- methods */

/* tv.load(index) of a view with steps: ct_load_view_Nd (ct_load_element_Nd for a 0-d tile). */
static Node *strided_load(Lowerer *L, Node *call, const TiledViewInfo *view, const char *what) {
  BoundArgs args;
  bind_call(L, call, what, "view, index, /, *, check_bounds, latency, allow_tma", &args);
  TypeInfo *array = memory_require_array(L, call, &args, what, "reads")->type;
  Node *index = require_arg(L, call, &args, 1, what, "index");
  Node *check = memory_check_bounds(L, args.arg[2], what);
  memory_check_latency(L, args.arg[3], what);
  Node *padding = view->padding ? lower_expr(L, node_copy_tree(&L->ctx->arena, view->padding)) : NULL;
  Node *other = memory_padding_other(L, padding, call, array);
  StridedTile tile = strided_tile(L, view, array, index, what);
  stats_memory(L->conv, "tiled view with traversal steps (no TMA form)");
  Node *loaded;
  TypeInfo *type = type_tile(L->ctx, array->dtype, tile.tile_rank, NULL);
  type->dtype_expr = array->dtype_expr;
  if (!tile.tile_rank) {
    element_indices(L, &tile);
    loaded = strided_call(L, load_element_helper(L, tile.rank), array->array, &tile, false, false);
  } else {
    loaded = strided_call(L, load_view_helper(L, tile.rank), array->array, &tile, true, true);
    for (int d = 0; d < tile.rank; d++) {
      long long size;
      type->dims[d] = tile.size[d];
      type->shape[d] = memory_known_int(tile.size[d], &size) ? (int)size : -1;
    }
  }
  node_list_push(&L->ctx->arena, &loaded->u.call.args, other);
  memory_push_unchecked(L, loaded, check);
  loaded->type = type;
  memory_note_access(L, loaded, array->array, MEM_READ);
  return loaded;
}

/* tv.load(index, *, check_bounds, latency, allow_tma): ct.load(x, index, tile_shape,
 * padding_mode=the view's, ...), or the strided load of a view with steps. */
Node *lower_tiled_load(Lowerer *L, Node *call, const char *member) {
  const char *what = "TiledView.load()";
  if (call->u.call.args.count != 2)
    lower_error(L, call, "%s takes one index tuple (and keywords)", what);
  const TiledViewInfo *view = view_of(L, call->u.call.args.items[0], what);
  if (view->steps)
    return strided_load(L, call, view, what);
  return lower_load(L, view_call(L, call, view, false, true), "load");
}

/* tv.store(index, tile) of a view with steps: ct_store_view_Nd (ct_store_element_Nd for a
 * 0-d tile); `tile` is the lowered tile, of the view's tile shape. */
static Node *strided_store(Lowerer *L, Node *call, const TiledViewInfo *view, Node *value, const char *what) {
  BoundArgs args;
  Node *made = arena_alloc(&L->ctx->arena, sizeof(Node));
  *made = *call;
  made->u.call.args = (NodeList){0};
  for (int i = 0; i < 2; i++) /* the view and the index: the tile is lowered */
    node_list_push(&L->ctx->arena, &made->u.call.args, call->u.call.args.items[i]);
  bind_call(L, made, what, "view, index, /, *, check_bounds, latency, allow_tma", &args);
  TypeInfo *array = memory_require_array(L, made, &args, what, "writes")->type;
  Node *index = require_arg(L, made, &args, 1, what, "index");
  Node *check = memory_check_bounds(L, args.arg[2], what);
  memory_check_latency(L, args.arg[3], what);
  memory_check_store_cast(L, call->u.call.args.items[2], value->type, array, what);
  StridedTile tile = strided_tile(L, view, array, index, what);
  stats_memory(L->conv, "tiled view with traversal steps (no TMA form)");
  Node *stored;
  if (!tile.tile_rank) {
    element_indices(L, &tile);
    stored = strided_call(L, store_element_helper(L, tile.rank), array->array, &tile, false, false);
  } else
    stored = strided_call(L, store_view_helper(L, tile.rank), array->array, &tile, false, true);
  node_list_push(&L->ctx->arena, &stored->u.call.args, value);
  memory_push_unchecked(L, stored, check);
  stored->type = type_new(L->ctx, VAL_NONE);
  memory_note_access(L, stored, array->array, MEM_WRITE);
  return stored;
}

/* `tile` (lowered) as a tile of the view's tile shape `items`: as it is where it has that
 * shape, else broadcast to it (a tile whose dimensions are 1 or the tile's, aligned on the
 * right, or a number, made a tile of the array's dtype); a scalar stays one for a 0-d tile
 * shape. Any other shape is a located error at the store's tile. */
static Node *broadcast_to_tile(Lowerer *L, Node *call, Node *tile, Node **items, int rank, const char *what) {
  Node *source = call->u.call.args.items[2];
  const TypeInfo *type = tile->type;
  bool same = type && type->kind == VAL_TILE && type->rank == rank;
  bool fits = type && (type->kind == VAL_CONST || (type->kind == VAL_TILE && type->rank >= 0 && type->rank <= rank));
  for (int d = 0; fits && type->kind == VAL_TILE && d < type->rank; d++) {
    long long size;
    int axis = d + rank - type->rank;
    bool known = memory_known_int(items[axis], &size) && type->shape[d] >= 0;
    bool equal = known ? type->shape[d] == size : type->dims[d] && memory_same_text(L, type->dims[d], items[axis]);
    same = same && equal;
    /* sizes not both known here (constexprs, a tile function's result): Triton checks the broadcast */
    fits = equal || type->shape[d] == 1 || !known;
  }
  if (same || (fits && rank == 0))
    return tile;
  if (!fits)
    lower_error(L, source, "%s: a tile of %s does not broadcast to the view's tile shape", what,
                type_describe(L->ctx, type));
  Node *shape = shape_tuple_node(L, items, rank);
  TypeInfo *made = type_tile(L->ctx, type->dtype, rank, NULL);
  made->dtype_expr = type->dtype_expr;
  for (int d = 0; d < rank; d++) {
    long long size;
    made->dims[d] = items[d];
    made->shape[d] = memory_known_int(items[d], &size) ? (int)size : -1;
  }
  Node *result;
  if (type->kind == VAL_CONST) { /* a number: a tile of the array's dtype */
    TypeInfo *array = lower_expr(L, node_copy_tree(&L->ctx->arena, call->u.call.args.items[0]))->type;
    result = T(L, "tl.full(_1, _2, _3.dtype.element_ty)", shape, tile, node_copy_tree(&L->ctx->arena, array->array->pointer));
    made->dtype = array->dtype;
    made->dtype_expr = array->dtype_expr;
  } else
    result = T(L, "tl.broadcast_to(_1, _2)", tile, shape);
  result->type = made;
  return result;
}

/* tv.store(index, tile, *, check_bounds, latency, allow_tma): ct.store(x, index, tile, ...),
 * the tile of the view's tile shape (the strided store of a view with steps). */
Node *lower_tiled_store(Lowerer *L, Node *call, const char *member) {
  const char *what = "TiledView.store()";
  if (call->u.call.args.count != 3)
    lower_error(L, call, "%s takes an index tuple and a tile (and keywords)", what);
  const TiledViewInfo *view = view_of(L, call->u.call.args.items[0], what);
  Node *tile_source = call->u.call.args.items[2];
  Node *tile = lower_expr(L, tile_source);
  Node *shape = lower_expr(L, node_copy_tree(&L->ctx->arena, view->shape));
  Node *items[MAX_TILE_RANK];
  int rank = memory_tuple_items(L, shape, items, MAX_TILE_RANK, "tile dimensions");
  tile = broadcast_to_tile(L, call, tile, items, rank, what);
  if (view->steps)
    return strided_store(L, call, view, tile, what);
  /* the lowered tile, under a name ct.store lowers again */
  Node *name;
  if (tile->kind == N_NAME && scope_lookup(L, tile->u.name.id))
    name = new_name(L, arena_strndup(&L->ctx->arena, tile->u.name.id.text, (size_t)tile->u.name.id.len));
  else {
    Str temp = memory_temp(L, (Str){"tile", 4}, "view");
    char *text = arena_printf(&L->ctx->arena, "%.*s = _1\n", temp.len, temp.text);
    NodeList made = template_stmts(L->ctx, text, TEMPLATE_NODES(tile));
    for (int i = 0; i < made.count; i++)
      node_list_push(&L->ctx->arena, L->pending, made.items[i]);
    TypeInfo *bound = type_new(L->ctx, VAL_TILE);
    *bound = *tile->type;
    scope_bind(L, temp, bound);
    name = new_name(L, arena_strndup(&L->ctx->arena, temp.text, (size_t)temp.len));
  }
  name->span = tile_source->span;
  Node *made = arena_alloc(&L->ctx->arena, sizeof(Node));
  *made = *call;
  made->u.call.args = (NodeList){0};
  for (int i = 0; i < 2; i++)
    node_list_push(&L->ctx->arena, &made->u.call.args, call->u.call.args.items[i]);
  node_list_push(&L->ctx->arena, &made->u.call.args, name);
  return lower_store(L, made, "store");
}

/* tv.num_tiles(axis): ct.num_tiles(x, axis, shape=tile_shape); with steps, the tile
 * origins inside the array along the axis: cdiv(extent, step). */
Node *lower_tiled_num_tiles(Lowerer *L, Node *call, const char *member) {
  const char *what = "TiledView.num_tiles()";
  if (call->u.call.args.count != 2)
    lower_error(L, call, "%s takes one axis", what);
  const TiledViewInfo *view = view_of(L, call->u.call.args.items[0], what);
  if (!view->steps)
    return lower_num_tiles(L, view_call(L, call, view, true, false), "num_tiles");
  BoundArgs args;
  bind_call(L, call, what, "view, axis", &args);
  TypeInfo *array = memory_require_array(L, call, &args, what, "works on")->type;
  Node *axis_arg = require_arg(L, call, &args, 1, what, "axis");
  Node *steps[MAX_TILE_RANK];
  Node *lowered = lower_expr(L, node_copy_tree(&L->ctx->arena, view->steps));
  int rank = memory_tuple_items(L, lowered, steps, MAX_TILE_RANK, "traversal steps");
  long long axis;
  if (!memory_known_int(axis_arg, &axis))
    lower_error(L, axis_arg, "%s: axis must be a constant", what);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    lower_error(L, axis_arg, "%s: axis %lld is out of range for a %d-d view", what, axis, rank);
  Node *result = T(L, "tl.cdiv(_1[_2], _3)", array->array->shape, new_int(L, axis), steps[axis]);
  result->type = type_tile(L->ctx, DT_INT32, 0, NULL);
  return result;
}

/* A copy of `source` (a tile shape or steps as written) as a tuple: the 1-D shorthand
 * (an int) made a tuple of one. */
static Node *tuple_source(Lowerer *L, Node *source) {
  Node *copy = node_copy_tree(&L->ctx->arena, source);
  if (copy->kind == N_TUPLE)
    return copy;
  Node *tuple = arena_alloc(&L->ctx->arena, sizeof(Node));
  tuple->kind = N_TUPLE;
  tuple->span = copy->span;
  node_list_push(&L->ctx->arena, &tuple->u.list.elts, copy);
  return tuple;
}

/* tv.tile_shape: the view's tile shape, a tuple. */
Node *lower_view_tile_shape(Lowerer *L, const TypeInfo *array) {
  return lower_expr(L, tuple_source(L, array->tiled->shape));
}

/* tv.traversal_steps: the view's steps, else its tile shape ((1, ...) for a 0-d tile shape),
 * a tuple. */
Node *lower_view_steps(Lowerer *L, const TypeInfo *array) {
  const TiledViewInfo *view = array->tiled;
  if (view->steps)
    return lower_expr(L, tuple_source(L, view->steps));
  Node *shape = lower_view_tile_shape(L, array);
  Node *items[MAX_TILE_RANK];
  if (memory_tuple_items(L, shape, items, MAX_TILE_RANK, "tile dimensions") || array->rank <= 0)
    return shape;
  Node *ones = T0(L, "()");
  for (int d = 0; d < array->rank; d++)
    node_list_push(&L->ctx->arena, &ones->u.list.elts, T0(L, "1"));
  return lower_expr(L, ones);
}

/* tv.atomic_store_OP(index, update): ct_atomic_view_Nd over the tile at `index` (its origin
 * the index times the steps, the tile shape without them), `update` broadcast to the tile
 * shape; the dtypes as ct.atomic_OP takes them. */
Node *lower_tiled_atomic(Lowerer *L, Node *call, const char *member) {
  const char *op = strrchr(member, '_') + 1; /* "TiledView.atomic_store_add": "add" */
  const char *what = arena_printf(&L->ctx->arena, "TiledView.atomic_store_%s()", op);
  if (call->u.call.args.count != 3 || call->u.call.keywords.count)
    lower_error(L, call, "%s takes an index and an update", what);
  const TiledViewInfo *view = view_of(L, call->u.call.args.items[0], what);
  BoundArgs args;
  bind_call(L, call, what, "view, index, update, /", &args);
  TypeInfo *array = memory_require_array(L, call, &args, what, "works on")->type;
  Node *index = require_arg(L, call, &args, 1, what, "index");
  Node *update = require_arg(L, call, &args, 2, what, "update");
  if (!update->type || (update->type->kind != VAL_TILE && update->type->kind != VAL_CONST))
    lower_error(L, args.source[2], "%s: the update must be a tile or a scalar, not %s", what,
                type_describe(L->ctx, update->type));
  memory_check_atomic(L, op, array, update, args.source[2], what);
  TiledViewInfo stepped = *view;
  if (!stepped.steps) /* tiles side by side: the steps are the tile shape */
    stepped.steps = stepped.shape;
  StridedTile tile = strided_tile(L, &stepped, array, index, what);
  const TypeInfo *type = update->type;
  for (int d = 0; type->kind == VAL_TILE && d < type->rank; d++) {
    int axis = d + tile.rank - type->rank;
    long long size;
    bool fits = type->rank <= tile.rank && (type->shape[d] == 1 || type->shape[d] < 0 ||
                                            !memory_known_int(tile.size[axis], &size) || size == type->shape[d]);
    if (!fits)
      lower_error(L, args.source[2], "%s: an update of %s does not broadcast to the view's tile shape", what,
                  type_describe(L->ctx, type));
  }
  if (type->kind == VAL_CONST && type->is_float) { /* a float number casts only to a float array */
    if (strcmp(op, "and") == 0 || strcmp(op, "or") == 0 || strcmp(op, "xor") == 0)
      lower_error(L, args.source[2], "%s: the update must have the array's integer dtype, not a float", what);
    const char *by = arena_printf(&L->ctx->arena, "%s of a float number", what);
    memory_require_float_array(L, args.source[2], array, by,
                               arena_printf(&L->ctx->arena, "%s (%%s) needs a float array", by));
  }
  if (type->kind == VAL_CONST) /* a tile of the array's dtype, as Triton's atomics take one */
    update = T(L, "tl.full((), _1, _2.dtype.element_ty)", update, node_copy_tree(&L->ctx->arena, array->array->pointer));
  stats_memory(L->conv, "atomic (no TMA form)");
  Node *result = strided_call(L, atomic_view_helper(L, tile.rank), array->array, &tile, true, true);
  node_list_push(&L->ctx->arena, &result->u.call.args, update);
  node_list_push(&L->ctx->arena, &result->u.call.args, T0(L, arena_printf(&L->ctx->arena, "\"%s\"", op)));
  result->type = type_new(L->ctx, VAL_NONE);
  memory_note_access(L, result, array->array, MEM_READ | MEM_WRITE | MEM_ATOMIC | MEM_ACQUIRE | MEM_RELEASE);
  return result;
}

/* ------------------------------------------------ views and tile functions */

TypeInfo *view_arguments(Lowerer *L, TypeInfo *array, Node *at) {
  const TiledViewInfo *view = array->tiled;
  TiledViewInfo *copy = arena_alloc(&L->ctx->arena, sizeof(TiledViewInfo));
  *copy = *view;
  Node *shape[MAX_TILE_RANK], *steps[MAX_TILE_RANK];
  copy->items = memory_tuple_items(L, lower_view_tile_shape(L, array), shape, MAX_TILE_RANK, "tile dimensions");
  copy->step_items = view->steps ? memory_tuple_items(L, lower_expr(L, tuple_source(L, view->steps)), steps,
                                                      MAX_TILE_RANK, "traversal steps")
                                 : 0;
  copy->lowered = arena_alloc(&L->ctx->arena, sizeof(Node *) * (size_t)(copy->items + copy->step_items + 1));
  for (int d = 0; d < copy->items + copy->step_items; d++) {
    Node *item = d < copy->items ? shape[d] : steps[d - copy->items];
    if (!memory_is_constant(item))
      lower_error(L, at, "a tiled view passed to a tile function needs a constant tile shape and steps");
    copy->lowered[d] = item;
  }
  TypeInfo *type = type_new(L->ctx, VAL_ARRAY);
  *type = *array;
  type->tiled = copy;
  return type;
}

/* `NAME_tile_0, NAME_tile_1` (or `_step_`) as a tuple of names to lower in the tile function,
 * each a constexpr parameter appended to `params` and bound. */
static Node *item_parameters(Lowerer *L, Str name, const char *what, int count, NodeList *params) {
  Node *tuple = T0(L, "()");
  for (int d = 0; d < count; d++) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, "_%s_%d", what, d);
    Str param = suffixed(L, name, suffix);
    node_list_push(&L->ctx->arena, params, new_arg(L, param, "tl.constexpr"));
    TypeInfo *type = type_new(L->ctx, VAL_CONST);
    type->dtype = DT_UNKNOWN;
    scope_bind(L, param, type);
    node_list_push(&L->ctx->arena, &tuple->u.list.elts,
                   new_name(L, arena_strndup(&L->ctx->arena, param.text, (size_t)param.len)));
  }
  return tuple;
}

TiledViewInfo *view_parameters(Lowerer *L, Str name, const TiledViewInfo *given, NodeList *params) {
  TiledViewInfo *view = arena_alloc(&L->ctx->arena, sizeof(TiledViewInfo));
  view->shape = item_parameters(L, name, "tile", given->items, params);
  view->steps = given->step_items ? item_parameters(L, name, "step", given->step_items, params) : NULL;
  view->padding = given->padding ? node_copy_tree(&L->ctx->arena, given->padding) : NULL;
  view->items = given->items;
  view->step_items = given->step_items;
  return view;
}

bool views_alike(Lowerer *L, const TiledViewInfo *a, const TiledViewInfo *b) {
  if (!a || !b)
    return a == b;
  if (a->items != b->items || a->step_items != b->step_items || (a->padding == NULL) != (b->padding == NULL))
    return false;
  return !a->padding || memory_same_text(L, a->padding, b->padding);
}
