/*
 * lower_memory_helpers.c — the pointer path of ct.load / ct.store as
 * runtime helpers (@triton.jit functions emitted once per module).
 *
 * cuTile indexes tiles in tile units: the tile at index (i0, i1) of shape
 * (S0, S1) covers elements [i0*S0, (i0+1)*S0) x [i1*S1, (i1+1)*S1).
 * Elements outside the array read the padding value and are not written
 * (check_bounds=False promises there are none: no mask). Offsets are
 * computed in 64 bits: a row offset of a large array (row * stride) passes
 * 2**31 long before any one shape or stride value does.
 */
#include <string.h>

#include "lower_memory.h"

/* `name[:, None]` style broadcasting of axis `axis` in rank `rank`. */
static void broadcast_axis(Buf *text, const char *name, int axis, int rank) {
  buf_puts(text, name);
  if (rank == 1)
    return;
  buf_puts(text, "[");
  for (int d = 0; d < rank; d++)
    buf_printf(text, "%s%s", d ? ", " : "", d == axis ? ":" : "None");
  buf_puts(text, "]");
}

static const char *finish(Lowerer *L, Buf *text) {
  char *result = arena_strndup(&L->ctx->arena, text->data ? text->data : "", text->len);
  buf_free(text);
  return result;
}

/* ", i0, i1" and, with sizes, ", S0: tl.constexpr, S1: tl.constexpr". */
static const char *index_params(Lowerer *L, int rank, bool sizes) {
  Buf text = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&text, ", i%d", a);
  for (int a = 0; sizes && a < rank; a++)
    buf_printf(&text, ", S%d: tl.constexpr", a);
  return finish(L, &text);
}

/* "    o0 = tl.cast(i0, tl.int64) * S0 + tl.arange(0, S0)" per axis. */
static const char *offsets_text(Lowerer *L, int rank) {
  Buf text = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&text, "    o%d = tl.cast(i%d, tl.int64) * S%d + tl.arange(0, S%d)\n", a, a, a, a);
  return finish(L, &text);
}

/* The element pointers of the tile: base + o0[:, None] * strides[0] + ... */
static const char *pointers_text(Lowerer *L, int rank) {
  Buf text = {0};
  buf_puts(&text, "base");
  for (int a = 0; a < rank; a++) {
    buf_puts(&text, " + ");
    broadcast_axis(&text, arena_printf(&L->ctx->arena, "o%d", a), a, rank);
    buf_printf(&text, " * strides[%d]", a);
  }
  return finish(L, &text);
}

/* Which elements of the tile lie inside the array. */
static const char *mask_text(Lowerer *L, int rank) {
  Buf text = {0};
  for (int a = 0; a < rank; a++) {
    buf_puts(&text, a ? " & " : "");
    broadcast_axis(&text, arena_printf(&L->ctx->arena, "((o%d >= 0) & (o%d < shape[%d]))", a, a, a), a, rank);
  }
  return finish(L, &text);
}

static const char *axes_text(Lowerer *L, const char *letter, int rank) {
  Buf text = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&text, "%s%s%d", a ? ", " : "", letter, a);
  return finish(L, &text);
}

Node *load_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_load_%dd", rank);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(base, shape, strides%s, other, check_bounds: tl.constexpr = True):\n"
      "    \"\"\"ct.load through pointers: the tile at tile index (%s) of shape (%s).\n"
      "    Elements outside the array read `other` (the padding value); with\n"
      "    check_bounds=False the caller promises there are none.\"\"\"\n"
      "%s"
      "    ptrs = %s\n"
      "    if check_bounds:\n"
      "        tile = tl.load(ptrs, mask=%s, other=other)\n"
      "    else:\n"
      "        tile = tl.load(ptrs)\n"
      "    return tile\n",
      name, index_params(L, rank, true), axes_text(L, "i", rank), axes_text(L, "S", rank), offsets_text(L, rank),
      pointers_text(L, rank), mask_text(L, rank));
  return use_runtime(L, name, source);
}

Node *store_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_store_%dd", rank);
  Buf sizes = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&sizes, "    S%d: tl.constexpr = value.shape[%d]\n", a, a);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(base, shape, strides%s, value, check_bounds: tl.constexpr = True):\n"
      "    \"\"\"ct.store through pointers: `value` as the tile at tile index (%s). Elements\n"
      "    outside the array are not written; tl.store casts to the array's dtype (cuTile's\n"
      "    implicit store cast, which only widens).\"\"\"\n"
      "%s%s"
      "    ptrs = %s\n"
      "    if check_bounds:\n"
      "        tl.store(ptrs, value, mask=%s)\n"
      "    else:\n"
      "        tl.store(ptrs, value)\n",
      name, index_params(L, rank, false), axes_text(L, "i", rank), finish(L, &sizes), offsets_text(L, rank),
      pointers_text(L, rank), mask_text(L, rank));
  return use_runtime(L, name, source);
}

Node *tile_mask_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_tile_mask_%dd", rank);
  const char *source = arena_printf(&L->ctx->arena,
                                    "@triton.jit\n"
                                    "def %s(shape%s):\n"
                                    "    \"\"\"Which elements of the tile at tile index (%s) of shape (%s) lie inside\n"
                                    "    the array (a descriptor pads the others with zero; cuTile's padding mode\n"
                                    "    may ask for another value).\"\"\"\n"
                                    "%s"
                                    "    return %s\n",
                                    name, index_params(L, rank, true), axes_text(L, "i", rank),
                                    axes_text(L, "S", rank), offsets_text(L, rank), mask_text(L, rank));
  return use_runtime(L, name, source);
}

/* base + i0 * strides[0] + ... in 64 bits, and `(i0 >= 0) & (i0 < shape[0]) & ...` */
static const char *element_pointer_text(Lowerer *L, int rank) {
  Buf text = {0};
  buf_puts(&text, "base");
  for (int a = 0; a < rank; a++)
    buf_printf(&text, " + tl.cast(i%d, tl.int64) * strides[%d]", a, a);
  return finish(L, &text);
}

static const char *element_inside_text(Lowerer *L, int rank) {
  Buf text = {0};
  for (int a = 0; a < rank; a++)
    buf_printf(&text, "%s(i%d >= 0) & (i%d < shape[%d])", a ? " & " : "", a, a, a);
  return finish(L, &text);
}

Node *load_element_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_load_element_%dd", rank);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(base, shape, strides%s, other, check_bounds: tl.constexpr = True):\n"
      "    \"\"\"ct.load with shape=(): the element at (%s) as a scalar; outside the array it\n"
      "    reads `other` (the padding value).\"\"\"\n"
      "    ptr = %s\n"
      "%s",
      name, index_params(L, rank, false), axes_text(L, "i", rank), element_pointer_text(L, rank),
      rank == 0 ? "    return tl.load(ptr)  # a 0-d array's one element is always inside\n"
                : arena_printf(&L->ctx->arena,
                               "    if check_bounds:\n"
                               "        value = tl.load(ptr, mask=%s, other=other)\n"
                               "    else:\n"
                               "        value = tl.load(ptr)\n"
                               "    return value\n",
                               element_inside_text(L, rank)));
  return use_runtime(L, name, source);
}

Node *store_element_helper(Lowerer *L, int rank) {
  const char *name = arena_printf(&L->ctx->arena, "ct_store_element_%dd", rank);
  const char *source = arena_printf(
      &L->ctx->arena,
      "@triton.jit\n"
      "def %s(base, shape, strides%s, value, check_bounds: tl.constexpr = True):\n"
      "    \"\"\"ct.store of a scalar (a 0-d tile): one element at element index (%s), not\n"
      "    written outside the array.\"\"\"\n"
      "    ptr = %s\n"
      "%s",
      name, index_params(L, rank, false), axes_text(L, "i", rank), element_pointer_text(L, rank),
      rank == 0 ? "    tl.store(ptr, value)  # a 0-d array's one element is always inside\n"
                : arena_printf(&L->ctx->arena,
                               "    if check_bounds:\n"
                               "        tl.store(ptr, value, mask=%s)\n"
                               "    else:\n"
                               "        tl.store(ptr, value)\n",
                               element_inside_text(L, rank)));
  return use_runtime(L, name, source);
}
