/*
 * query.c — `cutile2triton --query NAME`: how one cuTile operation is
 * translated, with an example.
 *
 * One table: per operation, what the translation is and a tiny cuTile
 * module using it. The Triton side of the example is not written here: the
 * module is converted by the real converter (c2t_convert) each time, and
 * its kernel printed, so the example is always what the tool does today.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutile2triton.h"

/* Every example is a module with one kernel named `example`. */
#define HEAD "import cuda.tile as ct\n\n\n@ct.kernel\n"

typedef struct QueryEntry {
  const char *name;    /* as asked: "ct.load", "Tile.astype" */
  const char *summary; /* what the translation does */
  const char *example; /* cuTile source */
} QueryEntry;

static const QueryEntry QUERIES[] = {
    {"ct.load",
     "Reads the tile at a tile index (index * shape). 2-D to 5-D tiles of kernel parameters get\n"
     "a tensor descriptor (TMA) made once at the top of the kernel, next to a pointer+mask twin\n"
     "(ct_load_Nd); a constexpr flag from the launcher (x_tma, TMA's alignment rules checked on\n"
     "the real tensor) picks the path. 1-D tiles, allow_tma=False, IndexedWithInt64 and views\n"
     "sliced on their last axis take the pointer path only. padding_mode becomes the `other`\n"
     "value of the masked load.",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i, 0), shape=(B, B), padding_mode=ct.PaddingMode.ZERO)\n"
          "    ct.store(y, index=(i, 0), tile=t)\n"},
    {"ct.store",
     "Writes a tile at a tile index; out-of-bounds elements are not written. Same two paths\n"
     "as ct.load (descriptor store, or ct_store_Nd with a bounds mask). A scalar tile writes\n"
     "one element.",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    ct.store(x, index=(i,), tile=ct.zeros((B,), dtype=ct.float32))\n"},
    {"ct.gather",
     "Element-indexed read: tl.load of base + offsets with a bounds mask (and the caller's\n"
     "mask); out-of-bounds elements read padding_value. Always the pointer path (TMA has no\n"
     "gather form here).",
     HEAD "def example(x, idx, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    j = ct.load(idx, index=(i,), shape=(B,))\n"
          "    ct.store(y, index=(i,), tile=ct.gather(x, j))\n"},
    {"ct.scatter",
     "Element-indexed write: tl.store of base + offsets with a bounds mask; out-of-bounds\n"
     "elements are not written.",
     HEAD "def example(x, idx, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    j = ct.load(idx, index=(i,), shape=(B,))\n"
          "    ct.scatter(x, j, ct.full((B,), 1.0, dtype=ct.float32))\n"},
    {"ct.atomic_add",
     "tl.atomic_add on element pointers with a bounds mask; memory_order and memory_scope become\n"
     "sem= and scope=. The other atomics (atomic_max, atomic_min, atomic_and, atomic_or,\n"
     "atomic_xor, atomic_xchg, atomic_cas) go the same way.",
     HEAD "def example(counts, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    ct.atomic_add(counts, (i,), 1)\n"},
    {"ct.bid", "tl.program_id(axis).", HEAD "def example(x):\n    ct.store(x, index=(ct.bid(0),), tile=ct.bid(1))\n"},
    {"ct.num_blocks", "tl.num_programs(axis).",
     HEAD "def example(x):\n    ct.store(x, index=(ct.bid(0),), tile=ct.num_blocks(0))\n"},
    {"ct.cdiv", "In tile code ct_cdiv, exact for negative operands; in host code triton.cdiv.",
     HEAD "def example(x, n: int):\n    ct.store(x, index=(ct.bid(0),), tile=ct.cdiv(n, 64))\n"},
    {"ct.num_tiles", "cdiv of the array's extent along the tile axis by the tile size.",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    ct.store(y, index=(ct.bid(0),), tile=ct.num_tiles(x, axis=0, shape=(B,)))\n"},
    {"ct.sum",
     "tl.sum over the axis, keeping the input dtype as cuTile does (float16 sums stay float16:\n"
     "note C2T302); keepdims is kept. ct.prod, ct.max, ct.min, ct.argmax, ct.argmin likewise.",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i, 0), shape=(1, B))\n"
          "    ct.store(y, index=(i,), tile=ct.sum(t, axis=1))\n"},
    {"ct.max", "tl.max over the axis (NaN handling as cuTile's); keepdims is kept.",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i, 0), shape=(1, B))\n"
          "    ct.store(y, index=(i,), tile=ct.max(t, axis=1))\n"},
    {"ct.cumsum", "tl.cumsum along the axis (reverse= kept), in the input dtype.",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i,), shape=(B,))\n"
          "    ct.store(x, index=(i,), tile=ct.cumsum(t, axis=0))\n"},
    {"ct.where", "tl.where, with cuTile's dtype promotion of the two branches.",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i,), shape=(B,))\n"
          "    ct.store(x, index=(i,), tile=ct.where(t > 0, t, 0))\n"},
    {"ct.exp",
     "An exact exp (libdevice, or tl.exp in float32 under Triton's interpreter); the other\n"
     "unary math functions (exp2, log, sqrt, rsqrt, sin, cos, tanh, ...) go the same way.",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i,), shape=(B,))\n"
          "    ct.store(x, index=(i,), tile=ct.exp(t))\n"},
    {"ct.truediv",
     "ct_truediv: IEEE round-to-nearest division; float16 stays float16 (Triton's `/` would\n"
     "promote). The `/` operator on tiles is the same.",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i,), shape=(B,))\n"
          "    ct.store(x, index=(i,), tile=ct.truediv(t, 3.0))\n"},
    {"ct.floordiv", "ct_floordiv: floor division (Triton's // truncates toward zero).",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i,), shape=(B,))\n"
          "    ct.store(x, index=(i,), tile=t // 3)\n"},
    {"ct.mod", "ct_mod: Python's sign rule (Triton's % takes the dividend's sign).",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i,), shape=(B,))\n"
          "    ct.store(x, index=(i,), tile=t % 3)\n"},
    {"Tile.astype",
     "A cast to the dtype (`.to(tl.DTYPE)`), with cuTile's rounding and float -> int rules;\n"
     "ct.astype(t, dtype) is the same.",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i,), shape=(B,))\n"
          "    ct.store(y, index=(i,), tile=t.astype(ct.float16))\n"},
    {"ct.arange", "tl.arange(0, size) in the requested dtype.",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    ct.store(x, index=(ct.bid(0),), tile=ct.arange(B, dtype=ct.int32))\n"},
    {"ct.full", "tl.full(shape, value, dtype). ct.zeros and ct.ones likewise.",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    ct.store(x, index=(ct.bid(0),), tile=ct.full((B,), 2.5, dtype=ct.float32))\n"},
    {"ct.reshape", "tl.reshape (cuTile's element order kept).",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i, 0), shape=(B, B))\n"
          "    ct.store(y, index=(i,), tile=ct.reshape(t, (B * B,)))\n"},
    {"ct.permute", "tl.permute with the same axes; ct.transpose is tl.trans / tl.permute.",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    t = ct.load(x, index=(i, 0), shape=(B, B))\n"
          "    ct.store(y, index=(0, i), tile=ct.permute(t, (1, 0)))\n"},
    {"Array.slice",
     "A view: new base pointer and shape, same strides. A view sliced on its last (contiguous)\n"
     "axis takes the pointer path only (its base may break TMA's 16-byte alignment).",
     HEAD "def example(x, y, B: ct.Constant[int]):\n"
          "    i = ct.bid(0)\n"
          "    v = x.slice(axis=0, start=i * B, stop=i * B + B)\n"
          "    ct.store(y, index=(i, 0), tile=ct.load(v, index=(0, 0), shape=(B, B)))\n"},
    {"ct.kernel",
     "@triton.jit, array parameters expanded to pointer, shape and strides, ct.Constant\n"
     "parameters to tl.constexpr; a launcher launch_<kernel>(stream, grid, args) is placed\n"
     "after it. occupancy= and the other compiler hints have no Triton counterpart (C2T101).",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    ct.store(x, index=(ct.bid(0),), tile=ct.zeros((B,), dtype=ct.float32))\n"},
    {"ct.launch",
     "Host code: ct.launch(stream, grid, kernel, args) becomes launch_<kernel>(stream, grid,\n"
     "args), the generated launcher (which checks TMA alignment and passes the flags).",
     HEAD "def example(x, B: ct.Constant[int]):\n"
          "    ct.store(x, index=(ct.bid(0),), tile=ct.zeros((B,), dtype=ct.float32))\n"
          "\n\ndef run(x, stream):\n"
          "    ct.launch(stream, (ct.cdiv(x.shape[0], 64), 1, 1), example, (x, 64))\n"},
    {"ct.printf", "tl.device_print with the format's text; ct.print likewise.",
     HEAD "def example(x):\n    ct.printf(\"block %d\\n\", ct.bid(0))\n"},
};

#define QUERY_COUNT (sizeof QUERIES / sizeof QUERIES[0])

/* "ct.load", "load" and "cuda.tile.load" name the same entry; "Tile.astype",
 * "astype" and "ct.astype" too. Other prefixes must match exactly. */
static const QueryEntry *query_find(const char *name) {
  for (size_t i = 0; i < QUERY_COUNT; i++)
    if (strcmp(QUERIES[i].name, name) == 0)
      return &QUERIES[i];
  const char *bare = name;
  if (strncmp(bare, "cuda.tile.", 10) == 0)
    bare += 10;
  else if (strncmp(bare, "ct.", 3) == 0)
    bare += 3;
  if (strchr(bare, '.') || !*bare)
    return NULL;
  for (size_t i = 0; i < QUERY_COUNT; i++)
    if (strcmp(strrchr(QUERIES[i].name, '.') + 1, bare) == 0)
      return &QUERIES[i];
  return NULL;
}

/* The lines of `text` from "@triton.jit" before `def NAME(` up to the next
 * top-level statement. */
static void query_print_function(const char *text, const char *name) {
  char header[64];
  snprintf(header, sizeof header, "\ndef %s(", name);
  const char *def = strstr(text, header);
  if (!def) {
    fputs(text, stdout);
    return;
  }
  def++;
  const char *start = def;
  /* decorators right above it */
  while (start > text) {
    const char *line = start - 1;
    while (line > text && line[-1] != '\n')
      line--;
    if (*line != '@')
      break;
    start = line;
  }
  const char *end = strchr(def, '\n');
  /* the body is indented; a multi-line signature ends with a line "):" */
  while (end && end[1] && (end[1] == ' ' || end[1] == '\t' || end[1] == '\n' || end[1] == ')')) {
    const char *next = strchr(end + 1, '\n');
    if (!next)
      break;
    end = next;
  }
  size_t length = end ? (size_t)(end - start + 1) : strlen(start);
  while (length > 1 && start[length - 1] == '\n' && start[length - 2] == '\n')
    length--;
  fwrite(start, 1, length, stdout);
}

static void query_print_helpers(const char *text) {
  /* the runtime helpers the example uses: `def ct_...(` at top level */
  int printed = 0;
  for (const char *p = strstr(text, "\ndef ct_"); p; p = strstr(p + 1, "\ndef ct_")) {
    const char *name = p + 5;
    size_t length = strcspn(name, "(");
    printf("%s%.*s", printed++ ? ", " : "helpers in the generated module: ", (int)length, name);
  }
  if (printed)
    putchar('\n');
}

int cli_query(const char *name) {
  const QueryEntry *entry = query_find(name);
  if (!entry) {
    fprintf(stderr, "cutile2triton: no entry for '%s'; known names:\n", name);
    for (size_t i = 0; i < QUERY_COUNT; i++)
      fprintf(stderr, "  %s\n", QUERIES[i].name);
    return C2T_ERROR_USAGE;
  }
  printf("%s\n\n%s\n\ncuTile:\n\n", entry->name, entry->summary);
  fputs(entry->example, stdout);
  c2t_result result;
  c2t_convert("<example>", entry->example, strlen(entry->example), &result);
  if (result.status != C2T_OK) {
    /* the table and the converter disagree: say so, never print a made-up example */
    fprintf(stderr, "cutile2triton: the example of %s does not convert:\n", entry->name);
    fwrite(result.diagnostics, 1, result.diagnostics_len, stderr);
    c2t_result_free(&result);
    return C2T_ERROR_INPUT;
  }
  printf("\nTriton (converted now by this tool):\n\n");
  query_print_function(result.output, "example");
  if (strstr(entry->example, "\ndef run(")) {
    putchar('\n');
    query_print_function(result.output, "launch_example");
    putchar('\n');
    query_print_function(result.output, "run");
  }
  putchar('\n');
  query_print_helpers(result.output);
  c2t_result_free(&result);
  return C2T_OK;
}
