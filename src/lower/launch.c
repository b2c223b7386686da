/*
 * launch.c — the host side: launchers, host-code rewrites, the module's
 * imports and generated pieces.
 *
 * Each kernel gets a launcher next to it:
 *
 *     def launch_k(stream, grid, args):
 *         """Launch k as ct.launch(stream, grid, k, args) did."""
 *         x, y, n, BLOCK = args
 *         with _kernel_stream(stream, x := _tensor(x, "x"), y := _tensor(y, "y")):
 *             _c2t_launch(k, grid, x, tuple(x.shape), tuple(x.stride()), ..., n, BLOCK, ...)
 *
 *
 *     _host_kernel(k, launch_k, ("x", "y", "n", "BLOCK"))
 *
 * so a host call site `ct.launch(stream, grid, k, args)` keeps working
 * however it builds `args` (a literal, a variable, a tuple built in a loop).
 * _host_kernel gives the kernel object
 * what cuTile host code uses of it: replace_hints (a variant with other
 * hints), _pyfunc (for ct.kernel(k._pyfunc, **hints)) and the launch that
 * ct_launch calls, so a kernel imported from another module, or chosen
 * at run time, launches the same way (host_helpers.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "lower_memory.h" /* MemoryState: the arrays a kernel writes */
#include "../emit/emit.h" /* EMIT_LINE_LIMIT */

static char *str_text(Lowerer *L, Str s) { return arena_strndup(&L->ctx->arena, s.text, (size_t)s.len); }

/* ------------------------------------------------------------- launchers */

/* The text of a node as written in the source. */
static Str source_text(Lowerer *L, const Node *node) {
  size_t begin = node->span.start.offset, end = node->span.end.offset;
  if (!node->span.start.line || end < begin || end > L->ctx->source.len)
    return (Str){"...", 3};
  return (Str){L->ctx->source.text + begin, (int)(end - begin)};
}

typedef struct LaunchOptions {
  Buf *notes;    /* comments about hints that have no Triton counterpart (lower_buf) */
  int worker_warps; /* the decorator's num_worker_warps=N (num_warps=N), else 0 */
} LaunchOptions;

/* The hints with no Triton launch option. num_ctas is Triton's num_ctas in
 * name, but Triton 3.6 computes wrong results with num_ctas > 1 on the H200
 * (TileGym's bmm with a permuted operand; other tile sizes fail to compile),
 * so every program is one CTA, which computes the same tile. */
static bool is_unmapped_hint(Str name) {
  return str_eq(name, "occupancy") || str_eq(name, "opt_level") || str_eq(name, "num_worker_warps") ||
         str_eq(name, "num_ctas");
}

/* Why a hint is not used, for its note. */
static const char *unmapped_reason(Str name) {
  return str_eq(name, "num_ctas") ? "is a cuTile compiler hint that Triton 3.6 does not carry out faithfully "
                                    "(num_ctas > 1 computes wrong results on Hopper), so each program is one CTA"
                                  : "is a cuTile compiler hint with no Triton launch option";
}

/* The C2T101 note of a cuTile compiler hint that has no Triton launch option:
 * counted, and an error at the hint under --werror-notes. */
static void note_unmapped_hint(Lowerer *L, const Node *kw) {
  Str name = kw->u.keyword.arg, written = source_text(L, kw->u.keyword.value);
  if (L->conv->notes_fatal) /* C2T_OPTION_NOTES_FATAL (--werror-notes): at the hint */
    diag_error_code(&L->ctx->diag, "C2T101", kw->span.start,
                    "%.*s=%.*s %s (an approximation note, an error under --werror-notes)", name.len, name.text,
                    written.len, written.text, unmapped_reason(name));
  stats_notes(L->conv, "C2T101");
}

/* A decimal integer literal (`8`). */
static bool is_decimal(const Node *value) {
  if (value->kind != N_CONSTANT || value->u.constant.kind != CONST_NUMBER || value->u.constant.text.len > 6)
    return false;
  for (int i = 0; i < value->u.constant.text.len; i++)
    if (value->u.constant.text.text[i] < '0' || value->u.constant.text.text[i] > '9')
      return false;
  return value->u.constant.text.len > 0;
}


/* A comment in the launcher's body, broken at spaces to fit the line limit. */
static void put_comment(Buf *out, const char *text) {
  const int room = EMIT_LINE_LIMIT - 6; /* "    # " */
  while (*text) {
    int len = (int)strlen(text), cut = len;
    if (len > room) {
      cut = room;
      while (cut > 0 && text[cut] != ' ')
        cut--;
      if (cut == 0) /* one word longer than the line: it stays whole */
        for (cut = room; text[cut] && text[cut] != ' '; cut++) {
        }
    }
    buf_printf(out, "    # %.*s\n", cut, text);
    text += cut;
    while (*text == ' ')
      text++;
  }
}

/* Launch options from the kernel's decorator: num_worker_warps=N (num_warps),
 * and the other compiler hints, which have no Triton counterpart (a comment
 * says so). */
static void collect_launch_options(Lowerer *L, Function *kernel, LaunchOptions *options) {
  Node *decorator = kernel->kernel_decorator;
  if (!decorator || decorator->kind != N_CALL)
    return;
  NodeList *keywords = &decorator->u.call.keywords;
  for (int i = 0; i < keywords->count; i++) {
    Node *kw = keywords->items[i];
    Str name = kw->u.keyword.arg;
    Node *value = kw->u.keyword.value;
    if (str_eq(name, "num_worker_warps") && is_decimal(value)) {
      /* the warps that compute (cuTile may add warps for memory transfers): Triton's num_warps */
      long long warps = strtoll(str_text(L, value->u.constant.text), NULL, 10);
      if (warps < 1 || warps > 32 || (warps & (warps - 1)))
        lower_error(L, value, "num_worker_warps should be a power of 2 in [1, 32], got %lld", warps);
      options->worker_warps = (int)warps;
    } else if (is_unmapped_hint(name)) {
      Str written = source_text(L, value);
      note_unmapped_hint(L, kw);
      put_comment(options->notes,
                  arena_printf(&L->ctx->arena, "C2T101: %.*s=%.*s %s; not used.", name.len, name.text, written.len,
                               written.text, unmapped_reason(name)));
    } else if (!name.len) {
      lower_error(L, kw, "ct.kernel(**hints) cannot be converted where hints is not a dict of the module bound once "
                  "(HINTS = dict(occupancy=2)): write the hints as keywords");
    } else {
      lower_error(L, kw, "kernel hint '%.*s' cannot be converted", name.len, name.text);
    }
  }
}

static bool is_list_param(const Function *kernel, Str name) {
  for (int i = 0; kernel->param_is_array_list && i < kernel->param_count; i++)
    if (kernel->param_is_array_list[i] && str_same(kernel->param_names[i], name))
      return true;
  return false;
}

/* Whether array parameter `p` may be given a number (bool, int, float): the kernel uses it as
 * an array only in constexpr branches (Function.param_needs_array). cuTile types a parameter by the launch's argument, and compiles only the branches taken:
 * `def k(a, b, c, bias, ACT: ct.Constant[int])` launched with bias=0 where `if ACT == 3:`
 * alone loads `bias`. Its shape and strides are then () and its TMA flag False; Triton too
 * compiles only the branches taken (a branch taken that reads it as an array does not
 * compile, as cuTile's does not). */
static bool maybe_number(const Function *kernel, int p) {
  return kernel->param_is_array[p] && kernel->param_needs_array && !kernel->param_needs_array[p];
}

static int param_index(const Function *kernel, Str name) {
  for (int i = 0; i < kernel->param_count; i++)
    if (str_same(kernel->param_names[i], name))
      return i;
  return -1;
}

/* Whether the launcher makes a descriptor of `array` (take_host_descriptors). */
static bool host_descriptor_of(Lowerer *L, Str array) {
  for (int i = 0; i < L->host_descriptors_taken; i++)
    if (str_same(L->host_descriptors[i].array, array))
      return true;
  return false;
}

/* The descriptors the launcher makes: of the whole array with the kernel's
 * block shape, where the array suits TMA (its flag) and, where the kernel
 * learnt its rank under a constexpr `if`, has that rank; else None. */
static void host_descriptor_args(Lowerer *L, Buf *call) {
  for (int i = 0; i < L->host_descriptors_taken; i++) {
    const struct HostDescriptor *host = &L->host_descriptors[i];
    Node *helper = use_helper(L, HELPER__host_descriptor);
    buf_printf(call, "            %s=%.*s(%.*s, [", host->name, helper->u.name.id.len, helper->u.name.id.text,
               host->array.len, host->array.text);
    for (int a = 0; a < host->rank; a++) {
      if (a)
        buf_puts(call, ", ");
      expr_text(L->ctx, host->sizes[a], call);
    }
    buf_printf(call, "]%s) if %.*s_tma", host->nan_padding ? ", \"nan\"" : "", host->array.len, host->array.text);
    if (host->rank_checked) /* a rank learnt under a constexpr `if`: another launch may give another */
      buf_printf(call, " and %.*s.dim() == %d", host->array.len, host->array.text, host->rank);
    buf_puts(call, " else None,\n");
  }
}

/* The launch call's arguments: each array as pointer, shape and strides
 * tuples (a list of arrays as its first array, its device table of rows, its
 * length and rank), then the TMA flags the kernel reads (checked on the real
 * tensors; a list's on every array of it).
 * The arrays are torch tensors by then: first_array_param makes them so. */
static const char *grid_steps_text(Lowerer *L);

static void launch_arguments(Lowerer *L, Function *kernel, Buf *unpack, Buf *call) {
  for (int i = 0; i < kernel->param_count; i++) {
    Str param = kernel->param_names[i];
    buf_printf(unpack, "%s%.*s", i ? ", " : "", param.len, param.text);
    if (kernel->param_is_array[i] && maybe_number(kernel, i)) /* a number: () for its shape and strides */
      buf_printf(call,
                 "            %.*s,\n"
                 "            tuple(%.*s.shape) if isinstance(%.*s, torch.Tensor) else (),\n"
                 "            tuple(%.*s.stride()) if isinstance(%.*s, torch.Tensor) else (),\n",
                 param.len, param.text, param.len, param.text, param.len, param.text, param.len, param.text,
                 param.len, param.text);
    else if (kernel->param_is_array[i])
      buf_printf(call, "            %.*s, tuple(%.*s.shape), tuple(%.*s.stride()),\n", param.len, param.text,
                 param.len, param.text, param.len, param.text);
    else if (kernel->param_is_array_list && kernel->param_is_array_list[i])
      /* a list of arrays: its first array (the dtype), the device table, the length, the rank */
      buf_printf(call, "            %.*s[0], _array_list_table(%.*s), len(%.*s), %.*s[0].dim(),\n", param.len, param.text,
                 param.len, param.text, param.len, param.text, param.len, param.text);
    else if (kernel->param_is_array_tuple[i] && kernel->param_array_items && kernel->param_array_items[i])
      /* a tuple of arrays and numbers: None for a number's shape and strides */
      buf_printf(call,
                 "            %.*s,\n"
                 "            tuple(tuple(item.shape) if isinstance(item, torch.Tensor) else None for item in %.*s),\n"
                 "            tuple(tuple(item.stride()) if isinstance(item, torch.Tensor) else None for item in %.*s),\n",
                 param.len, param.text, param.len, param.text, param.len, param.text);
    else if (kernel->param_is_array_tuple[i])
      buf_printf(call,
                 "            %.*s,\n"
                 "            tuple(tuple(array.shape) for array in %.*s),\n"
                 "            tuple(tuple(array.stride()) for array in %.*s),\n",
                 param.len, param.text, param.len, param.text, param.len, param.text);
    else if (kernel->param_is_dtype && kernel->param_is_dtype[i]) {
      /* a ct.DType constexpr: torch, numpy or cuTile's dtype as Triton's */
      buf_printf(call, "            _tl_dtype(%.*s, \"%.*s\"),\n", param.len, param.text, param.len, param.text);
      use_helper(L, HELPER__tl_dtype);
    } else if (kernel->param_constant_items && kernel->param_constant_items[i]) {
      /* a tuple with items annotated ct.Constant: those items as tl.constexpr */
      Node *helper = use_helper(L, HELPER__constant_items);
      buf_printf(call, "            %.*s(%.*s, %s),\n", helper->u.name.id.len, helper->u.name.id.text, param.len,
                 param.text, kernel->param_constant_items[i]);
    } else
      buf_printf(call, "            %.*s,\n", param.len, param.text);
  }
  for (int i = 0; i < L->tma_array_count; i++) {
    Str array = L->tma_arrays[i];
    if (is_list_param(kernel, array)) {
      buf_printf(call, "            %.*s_tma=_array_list_tma(%.*s),\n", array.len, array.text, array.len, array.text);
      L->uses_list_tma = true;
    } else {
      int p = param_index(kernel, array);
      const char *flag = p >= 0 && maybe_number(kernel, p)
                             ? arena_printf(&L->ctx->arena, "isinstance(%.*s, torch.Tensor) and _tma_compatible(%.*s)",
                                            array.len, array.text, array.len, array.text)
                             : arena_printf(&L->ctx->arena, "_tma_compatible(%.*s)", array.len, array.text);
      if (host_descriptor_of(L, array)) /* the flag is also what its descriptors need */
        buf_printf(call, "            %.*s_tma=(%.*s_tma := %s),\n", array.len, array.text, array.len, array.text, flag);
      else
        buf_printf(call, "            %.*s_tma=%s,\n", array.len, array.text, flag);
    }
  }
  for (int i = 0; i < reuse_pair_count(L); i++) { /* lower_memory_reuse.c: two arrays one? */
    Str first, second;
    const char *flag = reuse_pair(L, i, &first, &second);
    Node *helper = use_helper(L, HELPER__same_array);
    buf_printf(call, "            %s=%.*s(%.*s, %.*s),\n", flag, helper->u.name.id.len, helper->u.name.id.text,
               second.len, second.text, first.len, first.text);
  }
  host_descriptor_args(L, call);
  tf32_launch_args(L, kernel, call);
  kmajor_launch_args(L, kernel, call);
  if (L->spread_step.len) /* lower_spread.c: the loop steps by the program count where this holds */
    buf_printf(call, "            _step_is_grid=%s,\n", grid_steps_text(L));
}

void launch_other_arrays(const Function *kernel, Str array, Buf *call) {
  for (int p = 0; p < kernel->param_count; p++)
    if (kernel->param_is_array[p] && !str_same(kernel->param_names[p], array))
      buf_printf(call, ", %.*s", kernel->param_names[p].len, kernel->param_names[p].text);
}

/* The arguments of the launch's stream context after the stream: each array
 * parameter made a torch tensor, once per launch and zero-copy, as cuTile took
 * CUDA-array-interface and DLPack arrays (`x := _tensor(x, "x")`; a tuple of
 * arrays by _tensors, a list of arrays by _array_list, which checks it as
 * cuTile's launch did). The first array's device decides the stream's. */
static const char *first_array_param(Lowerer *L, const Function *kernel) {
  Buf text = {0};
  for (int i = 0; i < kernel->param_count; i++) {
    Str param = kernel->param_names[i];
    const char *convert = kernel->param_is_array[i]                                         ? "_tensor"
                          : kernel->param_is_array_tuple[i]                                 ? "_tensors"
                          : kernel->param_is_array_list && kernel->param_is_array_list[i] ? "_array_list"
                                                                                            : NULL;
    /* an array whose tiles the kernel reads as numbers: its float8_e8m0fnu arrays are refused (_tensor) */
    int read_line = kernel->param_is_array[i] && kernel->param_read_line ? kernel->param_read_line[i] : 0;
    /* an array its accesses index with a fixed number of entries: another rank is refused (_tensor) */
    int pinned = kernel->param_is_array[i] && kernel->param_pinned_rank && kernel->param_pinned_rank[i]
                     ? *kernel->param_pinned_rank[i]
                     : 0;
    unsigned long long items = kernel->param_array_items ? kernel->param_array_items[i] : 0;
    if (convert && kernel->param_is_array_tuple[i] && items) { /* arrays and numbers: which are arrays */
      Node *helper = use_helper(L, HELPER__tensor_items);
      buf_printf(&text, "%s%.*s := %.*s(%.*s, \"%.*s\", (", text.len ? ", " : "", param.len, param.text,
                 helper->u.name.id.len, helper->u.name.id.text, param.len, param.text, param.len, param.text);
      int last = 63;
      while (last > 0 && !(items >> last & 1))
        last--;
      for (int k = 0; k <= last; k++)
        buf_printf(&text, "%s%s", k ? ", " : "", items >> k & 1 ? "True" : "False");
      buf_puts(&text, last == 0 ? ",))" : "))");
      continue;
    }
    if (convert)
      buf_printf(&text, "%s%.*s := %s(%.*s, \"%.*s\"%s%s%s)", text.len ? ", " : "", param.len, param.text, convert,
                 param.len, param.text, param.len, param.text,
                 pinned ? arena_printf(&L->ctx->arena, ", rank=%d", pinned - 1) : "",
                 read_line ? arena_printf(&L->ctx->arena, ", read_at=%d", read_line) : "",
                 maybe_number(kernel, i) ? ", number=True" : "");
  }
  char *made = str_text(L, (Str){text.data ? text.data : "", (int)text.len});
  buf_free(&text);
  return made;
}

/* ------------------------------------------------- launch configuration
 *
 * cuTile picks a kernel's warps and pipelining itself; Triton takes
 * num_warps and num_stages per launch (4 and 3 unless told). A kernel gets
 *
 *     @triton.autotune(configs=[... num_warps in (4, 8, 16) ...],
 *                      key=[the arrays' shapes and strides, the constexpr parameters],
 *                      prune_configs_by={"early_config_prune": ... _launch_candidates ...},
 *                      restore_value=[the arrays it reads and writes], do_bench=... _time_launch ...)
 *
 * above its @triton.jit: at the first launch of each key Triton times at
 * most 8 candidates, ordered by the size of the kernel's largest tile (the
 * first is the pick by hand: more warps for bigger tiles; tune_helpers.py)
 * and keeps the fastest. Timing runs the kernel several times, so every
 * array it stores into (store, scatter, atomics) and also reads is in
 * restore_value: Triton copies it before each timed run and puts it back
 * after (one copy of those arrays per timed run, during tuning only). An
 * array it only writes is not copied (each run writes it the same) unless it
 * shares memory with another argument (_tuning_copies, the hooks that then
 * replace restore_value): copies of outputs made every candidate of a
 * 20 us layer norm time as 60 us on the H200. Under TRITON_INTERPRET=1 (and
 * with CUTILE2TRITON_AUTOTUNE=0 at run time) nothing is timed and the first
 * candidate runs. The launch options are fixed instead (num_warps of the
 * first candidate, 3 stages, written into the launch) under --no-autotune,
 * in a module that tunes with cuda.tile.tune.exhaustive_search (timed with
 * these launches already), for a kernel that stores through a tuple of
 * arrays or a tile function's array (what restore_value cannot name), and
 * for num_worker_warps=N (num_warps=N). */

#define TUNE_MAX_PRODUCTS 8 /* distinct tile sizes of constexpr parameters in the heuristic;
                               more are left out of it (only the order of the candidates changes) */

typedef struct TileProduct {
  long long factor;           /* the product of the known dimensions */
  Str names[C2T_MAX_RANK];    /* the dimensions that are constexpr parameters */
  long long items[C2T_MAX_RANK]; /* of each, the item when it is a Constant tuple's (`tiles[0]`), else -1 */
  int count;
} TileProduct;

typedef struct TileSizes {
  const Node *def;            /* the lowered kernel */
  long long known;            /* elements of the largest tile of known dimensions */
  TileProduct products[TUNE_MAX_PRODUCTS];
  int product_count;
} TileSizes;

static bool is_constexpr_param(const Node *def, Str name) {
  const NodeList *args = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < args->count; i++) {
    const Node *arg = args->items[i];
    const Node *annotation = arg->u.arg.annotation;
    if (str_same(arg->u.arg.arg, name))
      return annotation && annotation->kind == N_ATTRIBUTE && str_eq(annotation->u.attribute.attr, "constexpr");
  }
  return false;
}

static bool same_product(const TileProduct *a, const TileProduct *b) {
  if (a->factor != b->factor || a->count != b->count)
    return false;
  for (int i = 0; i < a->count; i++)
    if (!str_same(a->names[i], b->names[i]) || a->items[i] != b->items[i])
      return false;
  return true;
}

/* `tiles[i]`, a constant item of a Constant parameter's tuple: its parameter and item. */
static bool constant_tuple_dim(const Node *def, const Node *dim, Str *param, long long *item) {
  if (!dim || dim->kind != N_SUBSCRIPT || dim->u.subscript.value->kind != N_NAME)
    return false;
  const Node *index = dim->u.subscript.slice;
  if (index->kind != N_CONSTANT || index->u.constant.kind != CONST_NUMBER || !is_decimal(index))
    return false;
  *param = dim->u.subscript.value->u.name.id;
  *item = strtoll(index->u.constant.text.text, NULL, 10);
  return is_constexpr_param(def, *param);
}

/* Each tile the lowered kernel computes: its element count, known or as a
 * product of constexpr parameters (a tile of other dimensions is left out). */
static void collect_tile_sizes(Node *node, void *data) {
  TileSizes *sizes = data;
  const TypeInfo *type = node->type;
  if (type && type->kind == VAL_TILE && type->rank > 0 && type->rank <= C2T_MAX_RANK) {
    TileProduct product = {1, {{0}}, {0}, 0};
    bool usable = true;
    for (int d = 0; d < type->rank && usable; d++) {
      Str param;
      long long item;
      if (type->shape[d] >= 0)
        product.factor = product.factor > (1LL << 40) ? product.factor : product.factor * (type->shape[d] ? type->shape[d] : 1);
      else if (type->dims[d] && type->dims[d]->kind == N_NAME && is_constexpr_param(sizes->def, type->dims[d]->u.name.id)) {
        product.items[product.count] = -1;
        product.names[product.count++] = type->dims[d]->u.name.id;
      } else if (constant_tuple_dim(sizes->def, type->dims[d], &param, &item)) {
        product.items[product.count] = item;
        product.names[product.count++] = param;
      } else
        usable = false;
    }
    if (usable && product.count == 0 && product.factor > sizes->known)
      sizes->known = product.factor;
    if (usable && product.count) {
      bool seen = false;
      for (int i = 0; i < sizes->product_count && !seen; i++)
        seen = same_product(&sizes->products[i], &product);
      if (!seen && sizes->product_count < TUNE_MAX_PRODUCTS)
        sizes->products[sizes->product_count++] = product;
    }
  }
  node_children(node, collect_tile_sizes, data);
}

/* The element count of the kernel's largest tile as a Python expression,
 * each constexpr parameter written as `format` makes it (`%.*s`: the name
 * itself in the launcher, `nargs["%.*s"]` in the autotuner's prune).
 * *constant is set when it is a number. */
static const char *tile_elements(Lowerer *L, const TileSizes *sizes, const char *format, bool *constant) {
  Buf text = {0};
  long long known = sizes->known ? sizes->known : 1;
  *constant = sizes->product_count == 0;
  if (sizes->product_count == 0)
    buf_printf(&text, "%lld", known);
  else {
    bool several = sizes->product_count > 1 || sizes->known;
    if (several)
      buf_puts(&text, "max(");
    if (sizes->known)
      buf_printf(&text, "%lld, ", sizes->known);
    for (int i = 0; i < sizes->product_count; i++) {
      const TileProduct *product = &sizes->products[i];
      if (i)
        buf_puts(&text, ", ");
      for (int k = 0; k < product->count; k++) {
        if (k)
          buf_puts(&text, " * ");
        buf_printf(&text, format, product->names[k].len, product->names[k].text);
        if (product->items[k] >= 0) /* an item of a Constant tuple */
          buf_printf(&text, "[%lld]", product->items[k]);
      }
      if (product->factor != 1)
        buf_printf(&text, " * %lld", product->factor);
    }
    if (several)
      buf_puts(&text, ")");
  }
  char *made = arena_strndup(&L->ctx->arena, text.data, text.len);
  buf_free(&text);
  return made;
}

/* A search of the module for a call of cuda.tile's `member` (with keyword `keyword`, where
 * one is given). */
typedef struct CtCallSearch {
  Lowerer *L;
  const char *member;
  const char *keyword;
  bool found;
} CtCallSearch;

static void find_ct_call(Node *node, void *data) {
  CtCallSearch *search = data;
  if (search->found)
    return;
  if (node->kind == N_CALL) {
    const char *member = resolve_ct_member(search->L->conv, node->u.call.func);
    bool named = member && strcmp(member, search->member) == 0;
    for (int k = 0; named && search->keyword && k < node->u.call.keywords.count; k++)
      search->found |= str_eq(node->u.call.keywords.items[k]->u.keyword.arg, search->keyword);
    if (named && !search->keyword)
      search->found = true;
  }
  node_children(node, find_ct_call, data);
}

static bool module_calls(Lowerer *L, const char *member, const char *keyword) {
  CtCallSearch search = {L, member, keyword, false};
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count && !search.found; i++)
    find_ct_call(body->items[i], &search);
  return search.found;
}

static const char PDL_KEYWORD[] = "programmatic_dependent_launch";

/* The search the module times its kernels with, as the note on their fixed options names
 * it (cuda.tile.tune.exhaustive_search, or cuda.tile_experimental.autotune_launch before
 * it), else NULL. */
static const char *module_search(Lowerer *L) {
  if (module_calls(L, "tune.exhaustive_search", NULL))
    return "cuda.tile.tune.exhaustive_search";
  if (module_calls(L, "tile_experimental.autotune_launch", NULL))
    return "cuda.tile_experimental.autotune_launch";
  return NULL;
}

/* Whether a ct.launch of the module passes programmatic_dependent_launch=. */
static bool module_launches_dependent(Lowerer *L) { return module_calls(L, "launch", PDL_KEYWORD); }

static bool is_device_param(Lowerer *L, Str name) {
  for (int i = 0; i < L->conv->function_count; i++) {
    const Function *fn = &L->conv->functions[i];
    if (fn->role != ROLE_DEVICE)
      continue;
    for (int k = 0; k < fn->signature_count; k++)
      if (str_same(fn->signature_names[k], name))
        return true;
  }
  return false;
}

typedef struct Tuning {
  bool fixed;          /* fixed launch options, no @triton.autotune */
  const char *why;     /* a comment in the launcher on why they are fixed, or NULL */
  int worker_warps;    /* num_worker_warps=N of the decorator, else 0 */
  bool searched;       /* fixed options that exhaustive_search may replace (_searched_launch) */
  const char *candidates; /* out, when searched: `lambda configs: _launch_candidates(configs, ...)` */
} Tuning;

static void find_device_call(Node *node, void *data) {
  void **scan = data;
  Lowerer *L = scan[0];
  bool *found = scan[1];
  if (*found)
    return;
  if (node->kind == N_CALL && node->u.call.func->kind == N_NAME)
    for (int i = 0; i < L->conv->function_count && !*found; i++) {
      const Function *fn = &L->conv->functions[i];
      Str name = fn->def->u.function_def.name, callee = node->u.call.func->u.name.id;
      /* a specialization is NAME_2, NAME_3, ... */
      *found = fn->role == ROLE_DEVICE && callee.len >= name.len && strncmp(callee.text, name.text, (size_t)name.len) == 0;
    }
  node_children(node, find_device_call, data);
}

/* Whether the lowered kernel calls a tile function of the module. */
static bool calls_device_function(Lowerer *L, Function *kernel) {
  bool found = false;
  void *scan[2] = {L, &found};
  for (int i = 0; i < kernel->def->u.function_def.body.count && !found; i++)
    find_device_call(kernel->def->u.function_def.body.items[i], scan);
  return found;
}

/* What the kernel's own accesses do to array parameter `p` (MEM_* bits). */
static unsigned own_effects(Lowerer *L, const Function *kernel, int p) {
  MemoryState *memory = L->memory;
  unsigned effects = 0;
  for (int i = L->kernel_accesses_from; memory && i < memory->access_count; i++)
    if (str_same(memory->accesses[i].array, kernel->param_names[p]))
      effects |= memory->accesses[i].effects;
  return effects;
}

/* The arrays the kernel writes (store, scatter, atomics), as the autotuner
 * names them: into `kept` those it also reads (a load, or an atomic: a timed
 * run changes what the next one reads, so Triton copies them before each
 * timed run and puts them back after), into `written` those it only writes
 * (a timed run writes the same values again; they are copied only when they
 * share memory with another argument at run time: _tuning_copies). False
 * when one cannot be named (a tuple of arrays, or an array written in a tile
 * function under its own name: then every array parameter is kept, and a
 * tuple cannot be). */
static bool written_arrays(Lowerer *L, Function *kernel, Buf *kept, Buf *written, bool *all) {
  MemoryState *memory = L->memory;
  *all = false;
  /* the kernel's own accesses, and those of the tile functions lowered with it, come after
     kernel_accesses_from; a tile function lowered with an earlier kernel may write too */
  bool earlier_writes = false;
  for (int i = 0; memory && i < L->kernel_accesses_from; i++)
    earlier_writes |= (memory->accesses[i].effects & (MEM_WRITE | MEM_ATOMIC)) != 0;
  if (earlier_writes && calls_device_function(L, kernel))
    *all = true;
  /* an array reached under another name (a tile function's parameter) may be one the kernel
     writes: a read of one keeps every written array */
  bool unnamed_read = false;
  for (int i = L->kernel_accesses_from; memory && i < memory->access_count; i++) {
    const MemoryAccess *access = &memory->accesses[i];
    bool kernel_array = false;
    for (int p = 0; p < kernel->param_count; p++)
      if (str_same(kernel->param_names[p], access->array)) {
        if (kernel->param_is_array_tuple[p] && (access->effects & (MEM_WRITE | MEM_ATOMIC)))
          return false;
        kernel_array |= kernel->param_is_array[p] || kernel->param_is_array_tuple[p];
      }
    if (kernel_array)
      continue;
    if (access->effects & (MEM_WRITE | MEM_ATOMIC)) {
      if (str_eq(access->array, "?") || is_device_param(L, access->array))
        *all = true;
    } else {
      unnamed_read = true;
    }
  }
  bool any_tuple = false;
  for (int p = 0; p < kernel->param_count; p++)
    any_tuple |= kernel->param_is_array_tuple[p];
  if (*all && any_tuple)
    return false;
  for (int p = 0; p < kernel->param_count; p++) {
    if (!kernel->param_is_array[p])
      continue;
    unsigned effects = own_effects(L, kernel, p);
    bool writes = *all || (effects & (MEM_WRITE | MEM_ATOMIC));
    if (!writes)
      continue;
    bool keep = *all || unnamed_read || (effects & (MEM_READ | MEM_ATOMIC));
    Buf *names = keep ? kept : written;
    buf_printf(names, "%s\"%.*s\"", names->len ? ", " : "", kernel->param_names[p].len, kernel->param_names[p].text);
  }
  return true;
}

/* Whether the kernel's launch spreads its grid (lower_spread.c): its programs share one
 * grid-stride loop whose iterations are apart, and no parameter is a tuple or list of arrays
 * (whose storage _SpreadGrid would not see). */
static bool spread_grid(const Lowerer *L, const Function *kernel) {
  if (!L->kernel_spreads)
    return false;
  for (int p = 0; p < kernel->param_count; p++)
    if (kernel->param_is_array_tuple[p] || (kernel->param_is_array_list && kernel->param_is_array_list[p]))
      return false;
  return true;
}

/* `_grid_steps(grid, n_rows, NUM_SMS)`: whether the launch lets a loop that steps by a
 * parameter step by the program count (lower_spread.c); NULL for a loop stepping by
 * ct.num_blocks(0). */
static const char *grid_steps_text(Lowerer *L) {
  if (!L->spread_step.len)
    return NULL;
  Node *helper = use_helper(L, HELPER__grid_steps);
  return arena_printf(&L->ctx->arena, "%.*s(grid, %.*s, %.*s)", helper->u.name.id.len, helper->u.name.id.text,
                      L->spread_stop.len ? L->spread_stop.len : 4, L->spread_stop.len ? L->spread_stop.text : "None",
                      L->spread_step.len, L->spread_step.text);
}

/* `_SpreadGrid(grid, n_rows, (y,), (x,))`: the launch's grid, spread by the autotuner's
 * candidate, at most the loop's stop (a parameter, else None), given the arrays the kernel
 * writes and its other arrays (and, where the loop steps by a parameter, whether it steps
 * by the program count). */
static void spread_grid_text(Lowerer *L, const Function *kernel, Buf *text) {
  Node *helper = use_helper(L, HELPER__SpreadGrid);
  buf_printf(text, "%.*s(grid, ", helper->u.name.id.len, helper->u.name.id.text);
  if (L->spread_stop.len)
    buf_printf(text, "%.*s, (", L->spread_stop.len, L->spread_stop.text);
  else
    buf_puts(text, "None, (");
  for (int i = 0; i < L->spread_written_count; i++)
    buf_printf(text, "%.*s, ", L->spread_written[i].len, L->spread_written[i].text);
  buf_puts(text, "), (");
  for (int p = 0; p < kernel->param_count; p++) {
    bool written = false;
    for (int i = 0; i < L->spread_written_count && !written; i++)
      written = str_same(L->spread_written[i], kernel->param_names[p]);
    if (kernel->param_is_array[p] && !written)
      buf_printf(text, "%.*s, ", kernel->param_names[p].len, kernel->param_names[p].text);
  }
  buf_puts(text, ")");
  if (L->spread_step.len)
    buf_printf(text, ", %s", grid_steps_text(L));
  buf_puts(text, ")");
}

/* @triton.autotune above the kernel's @triton.jit (see above). */
static void add_autotune(Lowerer *L, Function *kernel, const TileSizes *sizes, const char *kept, const char *written,
                         int worker_warps) {
  Node *def = kernel->def;
  Buf key = {0}, text = {0};
  const NodeList *args = &def->u.function_def.args->u.arguments.args;
  for (int i = 0; i < args->count; i++) {
    Str name = args->items[i]->u.arg.arg;
    bool keyed = is_constexpr_param(def, name) && !str_eq(name, "_use_tma") && !str_eq(name, "_store_tma") &&
                 !str_eq(name, "_loop_stages") && !str_eq(name, "_grid_spread"); /* a candidate's choice */
    for (int p = 0; p < kernel->param_count && !keyed; p++)
      if (kernel->param_is_array[p] || kernel->param_is_array_tuple[p]) {
        Str param = kernel->param_names[p];
        keyed = name.len > param.len && strncmp(name.text, param.text, (size_t)param.len) == 0 &&
                (str_eq((Str){name.text + param.len, name.len - param.len}, "_shape") ||
                 str_eq((Str){name.text + param.len, name.len - param.len}, "_strides"));
      }
    if (keyed)
      buf_printf(&key, "%s\"%.*s\"", key.len ? ", " : "", name.len, name.text);
  }
  bool constant;
  const char *elements = tile_elements(L, sizes, "nargs[\"%.*s\"]", &constant);
  /* the warp counts _launch_candidates may choose from (it adds the stages) */
  char configs[160];
  if (worker_warps)
    snprintf(configs, sizeof configs,
             "triton.Config({}, num_warps=%d, num_stages=s, num_ctas=None) for s in (2, 3, 4)", worker_warps);
  else
    snprintf(configs, sizeof configs, "triton.Config({}, num_warps=w, num_ctas=None) for w in (4, 8, 16)");
  Node *candidates = use_helper(L, HELPER__launch_candidates);
  Node *timing = use_helper(L, HELPER__time_launch);
  /* restore_value for the arrays it reads and writes; _tuning_copies when it only writes some,
     or when one of those it reads and writes may be a number (which it leaves) */
  bool numbers = false;
  for (int p = 0; kept && kept[0] && p < kernel->param_count; p++)
    numbers |= maybe_number(kernel, p);
  Buf copies = {0};
  if ((written && written[0]) || numbers) {
    Node *pre = use_helper(L, HELPER__tuning_copies), *post = use_helper(L, HELPER__restore_copies);
    buf_printf(&copies,
               "pre_hook=lambda nargs, reset_only=False: %.*s(nargs, reset_only, kept=[%s], written=[%s]), "
               "post_hook=lambda nargs, exception: %.*s(nargs), ",
               pre->u.name.id.len, pre->u.name.id.text, kept, written, post->u.name.id.len,
               post->u.name.id.text);
  } else if (kept && kept[0]) {
    buf_printf(&copies, "restore_value=[%s], ", kept);
  }
  buf_printf(&text,
             "triton.autotune("
             "configs=[%s], "
             "key=[%s], "
             "prune_configs_by={\"early_config_prune\": lambda configs, nargs, **launch: %.*s(configs, %s%s%s%s%s%s)}, "
             "%s"
             "do_bench=lambda launch, quantiles: %.*s(launch, quantiles))",
             configs, key.data ? key.data : "", candidates->u.name.id.len, candidates->u.name.id.text, elements,
             L->kernel_has_dot ? ", dot=True" : "", L->tma_array_count > 0 ? ", tma=True" : "",
             L->kernel_pipelines_loops ? ", loops=True" : "", L->kernel_store_choice ? ", stores=True" : "",
             !spread_grid(L, kernel) ? ""
             : L->spread_step.len    ? ", spread=launch.get(\"_step_is_grid\", False)"
                                     : ", spread=True",
             copies.data ? copies.data : "", timing->u.name.id.len,
             timing->u.name.id.text);
  buf_free(&copies);
  Node *decorator = T0(L, arena_strndup(&L->ctx->arena, text.data, text.len));
  buf_free(&key);
  buf_free(&text);
  NodeList *decorators = &def->u.function_def.decorator_list;
  Node *jit = decorators->items[decorators->count - 1];
  decorator->span = jit->span; /* comments above the decorator stay above both */
  jit->span = (Span){0};
  node_list_push(&L->ctx->arena, decorators, jit);
  decorators->items[decorators->count - 2] = decorator;
  /* the source's own decorators above it take a kernel object, which cuTile's are callable;
     @triton.autotune's is not (_callable_kernel) */
  if (decorators->count > 2) {
    Node *callable = use_helper(L, HELPER__callable_kernel);
    node_list_push(&L->ctx->arena, decorators, jit);
    decorators->items[decorators->count - 2] = decorator;
    decorators->items[decorators->count - 3] = callable;
  }
}

/* The launch options of the kernel: @triton.autotune, or fixed options
 * written into `call` (the launch's keyword arguments; then the launcher
 * takes num_worker_warps, a host variant's hint, as its num_warps).
 * Returns whether they are fixed. */
static bool launch_configuration(Lowerer *L, Function *kernel, Tuning *tuning, Buf *call, Buf *notes) {
  TileSizes sizes = {.def = kernel->def};
  for (int i = 0; i < kernel->def->u.function_def.body.count; i++)
    collect_tile_sizes(kernel->def->u.function_def.body.items[i], &sizes);
  Buf kept = {0}, written = {0};
  bool all = false, nameable = written_arrays(L, kernel, &kept, &written, &all);
  L->kernel_accesses_from = L->memory ? L->memory->access_count : 0; /* the next kernel's start here */
  const char *why = tuning->why;
  if (!why && !nameable)
    why = "it writes a tuple of arrays, which the autotuner cannot restore between timed runs";
  if (!why && !tuning->fixed) {
    add_autotune(L, kernel, &sizes, buf_text(&kept), buf_text(&written), tuning->worker_warps);
    buf_free(&kept);
    buf_free(&written);
    return false;
  }
  buf_free(&kept);
  buf_free(&written);
  if (why)
    buf_printf(notes, "    # fixed launch options, not autotuned: %s\n", why);
  /* a searched launch takes the search's num_warps first (_searched_launch) */
  const char *chosen = tuning->searched ? "num_warps or " : "";
  bool constant;
  const char *elements = tile_elements(L, &sizes, "%.*s", &constant);
  if (tuning->worker_warps)
    buf_printf(call, "            num_warps=%snum_worker_warps or %d,\n", chosen, tuning->worker_warps);
  else if (constant) { /* _launch_warps, decided here */
    long long count = sizes.known ? sizes.known : 1;
    int warps = L->kernel_has_dot ? (count >= 128 * 128 ? 8 : 4) : count < 2048 ? 4 : count < 8192 ? 8 : 16;
    buf_printf(call, "            num_warps=%snum_worker_warps or %d,\n", chosen, warps);
  } else {
    Node *warps = use_helper(L, HELPER__launch_warps);
    buf_printf(call, "            num_warps=%snum_worker_warps or %.*s(%s%s),\n", chosen, warps->u.name.id.len,
               warps->u.name.id.text, elements, L->kernel_has_dot ? ", dot=True" : "");
  }
  if (L->kernel_pipelines_loops) /* its loops take as many stages (lower_pipeline.c) */
    buf_puts(call, "            _loop_stages=num_stages,\n");
  buf_puts(call, "            num_stages=num_stages,\n"); /* _fitting_stages: 3 or what fits */
  if (tuning->searched || L->tma_array_count > 0) /* _fitting_stages: _use_tma=False where TMA does not fit */
    buf_puts(call, "            **choice,\n");
  if (tuning->searched) {
    Node *candidates = use_helper(L, HELPER__launch_candidates);
    tuning->candidates =
        arena_printf(&L->ctx->arena, "lambda configs: %.*s(configs, %s%s%s%s%s%s)", candidates->u.name.id.len,
                     candidates->u.name.id.text, elements, L->kernel_has_dot ? ", dot=True" : "",
                     L->tma_array_count > 0 ? ", tma=True" : "",
                     L->kernel_pipelines_loops ? ", loops=True" : "", L->kernel_store_choice ? ", stores=True" : "",
                     !spread_grid(L, kernel) ? ""
                     : L->spread_step.len    ? arena_printf(&L->ctx->arena, ", spread=%s", grid_steps_text(L))
                                             : ", spread=True");
  }
  return true;
}

/* `(x.shape, y.shape)`: the arrays' shapes, with the fitting key the key of a searched launch's options. */
static void array_shapes(Function *kernel, Buf *shapes) {
  int count = 0;
  buf_puts(shapes, "(");
  for (int i = 0; i < kernel->param_count; i++)
    if (kernel->param_is_array[i] && maybe_number(kernel, i)) /* a number's: () */
      buf_printf(shapes, "%s%.*s.shape if isinstance(%.*s, torch.Tensor) else ()", count++ ? ", " : "",
                 kernel->param_names[i].len, kernel->param_names[i].text, kernel->param_names[i].len,
                 kernel->param_names[i].text);
    else if (kernel->param_is_array[i])
      buf_printf(shapes, "%s%.*s.shape", count++ ? ", " : "", kernel->param_names[i].len, kernel->param_names[i].text);
  buf_puts(shapes, count == 1 ? ",)" : ")");
}

/* `(BM, BN, x.dtype, y.dtype)`: what decides a fixed-option launch's shared memory,
 * the key under which _fitting_stages remembers the stage count that fits. */
static void fitting_key(Lowerer *L, Function *kernel, Buf *key) {
  int count = 0;
  buf_puts(key, "(");
  for (int i = 0; i < kernel->param_count; i++) {
    Str param = kernel->param_names[i];
    if (kernel->param_is_array[i] && maybe_number(kernel, i)) /* a number's: its type */
      buf_printf(key, "%s%.*s.dtype if isinstance(%.*s, torch.Tensor) else type(%.*s)", count++ ? ", " : "",
                 param.len, param.text, param.len, param.text, param.len, param.text);
    else if (kernel->param_is_array[i])
      buf_printf(key, "%s%.*s.dtype", count++ ? ", " : "", param.len, param.text);
    else if (is_constexpr_param(kernel->def, param))
      buf_printf(key, "%s%.*s", count++ ? ", " : "", param.len, param.text);
  }
  if (L->spread_step.len) /* _step_is_grid: another kernel, options of their own */
    buf_printf(key, "%s%s", count++ ? ", " : "", grid_steps_text(L));
  buf_puts(key, count == 1 ? ",)" : ")");
}

static bool module_rebinds(Lowerer *L, const Function *kernel);

/* The name a launcher reads its kernel by: the kernel's own, or where module-level code binds
 * that name again (`k = k.replace_hints(...)`, `relu_kernel = leaky_kernel`, `del k`), a
 * parameter whose default is the kernel, evaluated where the launcher is defined. */
static Str launched_kernel_name(Lowerer *L, Function *kernel, bool *captured) {
  *captured = module_rebinds(L, kernel);
  if (!*captured)
    return kernel->def->u.function_def.name;
  for (int attempt = 0;; attempt++) { /* a name no parameter of the kernel has */
    char *text = attempt ? arena_printf(&L->ctx->arena, "_kernel_%d", attempt) : "_kernel";
    Str candidate = {text, (int)strlen(text)};
    bool taken = false;
    for (int i = 0; i < kernel->param_count && !taken; i++)
      taken = str_same(kernel->param_names[i], candidate);
    if (!taken)
      return candidate;
  }
}

void lower_launcher(Lowerer *L, Function *kernel) {
  Node *def = kernel->def;
  Str name = def->u.function_def.name, launcher_name = kernel_launcher_name(L, kernel);
  bool captured;
  Str launched = launched_kernel_name(L, kernel, &captured);
  const char *capture = captured ? arena_printf(&L->ctx->arena, ", %.*s=%.*s", launched.len, launched.text, name.len,
                                                name.text)
                                 : "";
  /* lower_buf: a hint that cannot be converted ends the lowering with an error */
  Buf text = {0}, *unpack = lower_buf(L), *call = lower_buf(L);
  launch_arguments(L, kernel, unpack, call);
  LaunchOptions options = {lower_buf(L), 0};
  collect_launch_options(L, kernel, &options);
  Tuning tuning = {L->conv->no_autotune, NULL, options.worker_warps, false, NULL};
  if (!L->launcher_count) { /* once per module, before the host code is rewritten */
    L->tuned_by = module_search(L);
    L->launches_dependent = module_launches_dependent(L);
  }
  if (L->tuned_by) /* timed with these launches: options searched there, no second tuning inside */
    tuning = (Tuning){true, arena_printf(&L->ctx->arena, "the module times its kernels (%s)", L->tuned_by),
                      options.worker_warps, !L->conv->no_autotune, NULL};
  bool fixed = launch_configuration(L, kernel, &tuning, call, options.notes);
  if (L->launches_dependent) /* Triton's launch option of a programmatic dependent launch */
    buf_printf(call, "            launch_pdl=%s,\n", PDL_KEYWORD);
  Buf fitting = {0}, after = {0}; /* a fixed stage count takes fewer stages where it does not fit */
  if (fixed) {
    Node *helper = use_helper(L, tuning.searched ? HELPER__searched_launch : HELPER__fitting_stages);
    buf_printf(&fitting, "        %.*s(%.*s, ", helper->u.name.id.len, helper->u.name.id.text, launched.len,
               launched.text);
    fitting_key(L, kernel, &fitting);
    buf_puts(&fitting, tuning.searched        ? ", lambda num_stages, num_warps=None, **choice: "
                       : L->tma_array_count > 0 ? ", lambda num_stages, **choice: " /* _use_tma=False */
                                                : ", lambda num_stages: ");
    if (tuning.searched) {
      buf_puts(&after, ", shapes=lambda: ");
      array_shapes(kernel, &after);
      buf_printf(&after, ", candidates=%s, warps=num_worker_warps", tuning.candidates);
      if (tuning.worker_warps)
        buf_printf(&after, " or %d", tuning.worker_warps);
    }
    buf_puts(&after, ")");
  }
  Node *launch = use_helper(L, HELPER__c2t_launch); /* kernel[grid](...), with Triton's dispatch once per key */
  Buf grid = {0}; /* the host's grid, or where the autotuner may spread it, a _SpreadGrid of it */
  if ((!fixed || tuning.searched) && spread_grid(L, kernel)) /* a searched candidate may spread it too */
    spread_grid_text(L, kernel, &grid);
  else
    buf_puts(&grid, "grid");
  /* the docstring on one line, or broken before ct.launch where that runs past the line limit */
  const char *docstring_break = 4 + 53 + 2 * name.len > EMIT_LINE_LIMIT ? "\n    " : " ";
  buf_printf(&text,
             "def %.*s(stream, grid, args%s%s%s):\n"
             "    \"\"\"Launch %.*s as%sct.launch(stream, grid, %.*s, args) did.\"\"\"\n"
             "%s"
             "    %s%s = args\n"
             "%s"
             "    with _kernel_stream(stream, %s):\n"
             "%s%.*s(\n            %.*s,\n            %s,\n%s        )%s\n",
             launcher_name.len, launcher_name.text, fixed ? ", num_worker_warps=None" : "",
             L->launches_dependent ? ", programmatic_dependent_launch=False" : "", capture, name.len,
             name.text, docstring_break, name.len,
             name.text, options.notes->data ? options.notes->data : "", unpack->data ? unpack->data : "_",
             kernel->param_count == 1 ? "," : "",
             /* Triton's allocator is per thread (a ContextVar): autograd runs backward
                launches on threads of its own, where the module-level setting is not seen */
             L->tma_array_count ? "    triton.set_allocator(_tma_workspace)  # set per thread (autograd's threads too)\n"
                                : "",
             first_array_param(L, kernel), fixed ? fitting.data : "        ", launch->u.name.id.len,
             launch->u.name.id.text, launched.len, launched.text, grid.data,
             call->data ? call->data : "", after.data ? after.data : "");
  NodeList made = template_stmts(L->ctx, arena_strndup(&L->ctx->arena, text.data, text.len), NULL, 0);
  use_helper(L, HELPER__host_kernel);
  for (int i = 0; kernel->param_is_array_list && i < kernel->param_count; i++)
    L->uses_array_lists |= kernel->param_is_array_list[i];
  buf_free(options.notes);
  buf_free(&fitting);
  buf_free(&grid);
  buf_free(&after);
  buf_free(&text);
  buf_free(unpack);
  buf_free(call);
  if (L->launcher_count == C2T_MAX_KERNELS)
    diag_limit(&L->ctx->diag, def->span.start, "kernels in one module", C2T_MAX_KERNELS);
  /* replayed from its third launch of a key (_replayed), but where the module times its
     kernels: a trial of exhaustive_search launches other options under the same key */
  if (!tuning.searched)
    use_helper(L, HELPER__replayed);
  L->launcher_replayed[L->launcher_count] = !tuning.searched;
  L->launchers[L->launcher_count] = made.items[0];
  L->launcher_of[L->launcher_count++] = kernel;
}

/* ------------------------------------------------------------ host code */

/* Scopes of host code around the node being rewritten (function defs, lambdas, comprehensions)
 * that the rewrite follows; deeper ones are taken to hide every kernel name (no error). */
#define C2T_MAX_HOST_SCOPES 64

typedef struct HostRewrite {
  Lowerer *L;
  Node *statement; /* the innermost statement being rewritten: where a note goes */
  Node *function;  /* the innermost host function being rewritten, or NULL at module level */
  const Node *scopes[C2T_MAX_HOST_SCOPES]; /* around it, innermost last */
  int scope_depth;                         /* how many: past C2T_MAX_HOST_SCOPES, not all held */
} HostRewrite;

/* A note at the host statement being rewritten (the first one it gets is
 * written); under --werror-notes an error at `at`. */
static void host_note(HostRewrite *rw, const Node *at, const char *note) {
  Lowerer *L = rw->L;
  if (L->conv->notes_fatal) /* C2T_OPTION_NOTES_FATAL (--werror-notes) */
    diag_error_code(&L->ctx->diag, arena_strndup(&L->ctx->arena, note, 6), at->span.start,
                    "%s (an approximation note, an error under --werror-notes)", note + 8);
  stats_notes(L->conv, note);
  Node *carrier = rw->statement;
  if (carrier && carrier->kind == N_WITH && carrier->u.with.body.count) /* notes end simple lines only */
    carrier = carrier->u.with.body.items[0];
  if (carrier && !carrier->note)
    carrier->note = note;
}

/* The hints of a kernel variant made on the host (k.replace_hints(...),
 * ct.kernel(f, ...)): noted (C2T101) where they are written as keywords. */
static void note_host_hints(HostRewrite *rw, Node *call) {
  Lowerer *L = rw->L;
  NodeList *keywords = &call->u.call.keywords;
  for (int i = 0; i < keywords->count; i++) {
    Node *kw = keywords->items[i];
    Str name = kw->u.keyword.arg, written = source_text(L, kw->u.keyword.value);
    if (!name.len || !is_unmapped_hint(name))
      continue;
    /* a launcher with fixed options takes it as num_warps (launch_configuration) */
    if (str_eq(name, "num_worker_warps") && (L->conv->no_autotune || L->tuned_by))
      continue;
    host_note(rw, kw,
              arena_printf(&L->ctx->arena,
                           "C2T101: %.*s=%.*s %s; not used", name.len, name.text, written.len, written.text,
                           unmapped_reason(name)));
  }
}

typedef struct LocalSearch {
  Str name;
  bool found;
} LocalSearch;

static bool binds_locally(const Node *def, Str name);

/* ------------------------------------------------ names host code binds, made once */

typedef struct NameList {
  Lowerer *L;
  Str *items;
  int count, capacity;
} NameList;

static void name_list_add(NameList *list, Str name) {
  if (!name.len)
    return;
  list->items = arena_grown(&list->L->ctx->arena, list->items, list->count, &list->capacity, sizeof(Str));
  list->items[list->count++] = name;
}

/* The name a node binds where it stands (a stored or deleted name, a parameter, a def, a class,
 * an import, a `case` capture, `except E as name`), or an empty Str. */
static Str bound_name(const Node *node) {
  Str none = {0};
  switch (node->kind) {
  case N_NAME: return node->u.name.ctx == CTX_STORE || node->u.name.ctx == CTX_DEL ? node->u.name.id : none;
  case N_ARG: return node->u.arg.arg;
  case N_FUNCTION_DEF: return node->u.function_def.name;
  case N_CLASS_DEF: return node->u.class_def.name;
  case N_ALIAS: return node->u.alias.asname.len ? node->u.alias.asname : node->u.alias.name;
  case N_MATCH_AS: return node->u.match_as.name;
  case N_MATCH_STAR: return node->u.match_star.name;
  case N_MATCH_MAPPING: return node->u.match_mapping.rest;
  case N_EXCEPT_HANDLER: return node->u.except_handler.name;
  default: return none;
  }
}

/* Whether `node` itself binds `name` where a statement of a scope stands: a name stored or
 * deleted, a `case` capture, `except E as name`, an import (not a parameter, def or class). */
static bool node_binds(const Node *node, Str name) {
  return node->kind != N_ARG && node->kind != N_FUNCTION_DEF && node->kind != N_CLASS_DEF &&
         str_same(bound_name(node), name);
}

static void collect_bound_anywhere(Node *node, void *data) {
  if (!node)
    return;
  name_list_add(data, bound_name(node));
  node_children(node, collect_bound_anywhere, data);
}

/* What a function declared `global` and binds: module-level names it binds again. */
static void collect_global_bindings(Node *node, void *data) {
  NameList *list = data;
  if (!node)
    return;
  if (node->kind == N_FUNCTION_DEF) {
    const NodeList *body = &node->u.function_def.body;
    for (int i = 0; i < body->count; i++)
      if (body->items[i]->kind == N_GLOBAL)
        for (int k = 0; k < body->items[i]->u.global.names.count; k++) {
          Str name = body->items[i]->u.global.names.items[k]->u.name.id;
          if (binds_locally(node, name))
            name_list_add(list, name);
        }
  }
  node_children(node, collect_global_bindings, data);
}

/* Module-level code's bindings: in its if, for, while, with, try and match blocks, not in the
 * bodies of defs, classes, lambdas and comprehensions (scopes of their own), a def or class
 * counted by its name; and the names functions declare `global` and bind. */
static void collect_module_bindings(Node *node, void *data) {
  NameList *list = data;
  if (!node)
    return;
  if (node->kind == N_FUNCTION_DEF || node->kind == N_CLASS_DEF) {
    name_list_add(list, bound_name(node));
    collect_global_bindings(node, data);
    return;
  }
  if (node->kind == N_LAMBDA || node->kind == N_LIST_COMP || node->kind == N_SET_COMP ||
      node->kind == N_GENERATOR_EXP || node->kind == N_DICT_COMP)
    return;
  if (node->kind != N_ARG)
    name_list_add(list, bound_name(node));
  node_children(node, collect_module_bindings, data);
}

static int name_compare(const void *a, const void *b) { return str_order(*(const Str *)a, *(const Str *)b); }

/* How many times `name` is in the module's names: any scope's (module_level false: 0 or more
 * than 0 is what counts) or module-level code's (a kernel's def is one). */
static int host_names_count(Lowerer *L, Str name, bool module_level) {
  if (!L->bound_anywhere) {
    NameList anywhere = {L, NULL, 0, 0}, module = {L, NULL, 0, 0};
    collect_bound_anywhere(L->conv->module, &anywhere);
    NodeList *body = &L->conv->module->u.module.body;
    for (int i = 0; i < body->count; i++)
      collect_module_bindings(body->items[i], &module);
    if (anywhere.count)
      qsort(anywhere.items, (size_t)anywhere.count, sizeof(Str), name_compare);
    if (module.count)
      qsort(module.items, (size_t)module.count, sizeof(Str), name_compare);
    Str *none = arena_alloc(&L->ctx->arena, sizeof(Str)); /* made, and empty */
    L->bound_anywhere = anywhere.count ? anywhere.items : none;
    L->bound_anywhere_count = anywhere.count;
    L->module_bound = module.count ? module.items : none;
    L->module_bound_count = module.count;
  }
  const Str *items = module_level ? L->module_bound : L->bound_anywhere;
  int count = module_level ? L->module_bound_count : L->bound_anywhere_count;
  int low = 0, high = count; /* the first item not before name */
  while (low < high) {
    int mid = low + (high - low) / 2;
    if (str_order(items[mid], name) < 0)
      low = mid + 1;
    else
      high = mid;
  }
  int found = 0;
  while (low + found < count && str_same(items[low + found], name))
    found++;
  return found;
}

int module_bindings_of(Lowerer *L, Str name) { return host_names_count(L, name, true); }

static bool launcher_name_taken(Lowerer *L, Str name) {
  if (find_function(L->conv, name) || find_binding(L->conv, name) || is_helper_name(name) ||
      host_names_count(L, name, false))
    return true;
  for (int i = 0; i < L->conv->function_count; i++)
    if (L->conv->functions[i].launcher_name.len && str_same(L->conv->functions[i].launcher_name, name))
      return true;
  return false;
}

/* The name of a kernel's launcher: `launch_NAME`, else (a module-level name or a runtime
 * helper has it) `launch_NAME_kernel`, then `launch_NAME_2`, ... up to C2T_MAX_LAUNCHER_TRIES. */
Str kernel_launcher_name(Lowerer *L, Function *kernel) {
  if (kernel->launcher_name.len)
    return kernel->launcher_name;
  Str name = kernel->def->u.function_def.name;
  for (int attempt = 0; attempt < C2T_MAX_LAUNCHER_TRIES; attempt++) {
    char *text = attempt == 0   ? arena_printf(&L->ctx->arena, "launch_%.*s", name.len, name.text)
                 : attempt == 1 ? arena_printf(&L->ctx->arena, "launch_%.*s_kernel", name.len, name.text)
                                : arena_printf(&L->ctx->arena, "launch_%.*s_%d", name.len, name.text, attempt);
    Str candidate = {text, (int)strlen(text)};
    if (!launcher_name_taken(L, candidate)) {
      kernel->launcher_name = candidate;
      return candidate;
    }
  }
  lower_error(L, kernel->def, "no name is left for the launcher of kernel '%.*s' (launch_%.*s ... are taken)",
              name.len, name.text, name.len, name.text);
}

static void find_local_store(Node *node, void *data) {
  LocalSearch *search = data;
  if (!node || search->found)
    return;
  if (node_binds(node, search->name))
    search->found = true;
  else if ((node->kind == N_FUNCTION_DEF && str_same(node->u.function_def.name, search->name)) ||
           (node->kind == N_CLASS_DEF && str_same(node->u.class_def.name, search->name)))
    search->found = true;
  if (node->kind != N_FUNCTION_DEF && node->kind != N_CLASS_DEF && node->kind != N_LAMBDA)
    node_children(node, find_local_store, data); /* their bodies are scopes of their own */
}

/* Whether host function `def` binds `name` itself (a parameter, an assignment, a def): a
 * local that hides the module-level name. */
static bool binds_locally(const Node *def, Str name) {
  const Node *args = def->u.function_def.args;
  if (args) {
    const NodeList *lists[] = {&args->u.arguments.posonlyargs, &args->u.arguments.args,
                               &args->u.arguments.kwonlyargs};
    for (int l = 0; l < 3; l++)
      for (int i = 0; i < lists[l]->count; i++)
        if (str_same(lists[l]->items[i]->u.arg.arg, name))
          return true;
    if ((args->u.arguments.vararg && str_same(args->u.arguments.vararg->u.arg.arg, name)) ||
        (args->u.arguments.kwarg && str_same(args->u.arguments.kwarg->u.arg.arg, name)))
      return true;
  }
  LocalSearch search = {name, false};
  const NodeList *body = &def->u.function_def.body;
  for (int i = 0; i < body->count && !search.found; i++)
    find_local_store(body->items[i], &search);
  return search.found;
}

static bool arguments_bind(const Node *args, Str name) {
  const NodeList *lists[] = {&args->u.arguments.posonlyargs, &args->u.arguments.args, &args->u.arguments.kwonlyargs};
  for (int l = 0; l < 3; l++)
    for (int i = 0; i < lists[l]->count; i++)
      if (str_same(lists[l]->items[i]->u.arg.arg, name))
        return true;
  return (args->u.arguments.vararg && str_same(args->u.arguments.vararg->u.arg.arg, name)) ||
         (args->u.arguments.kwarg && str_same(args->u.arguments.kwarg->u.arg.arg, name));
}

/* Whether scope `scope` (a def, a lambda, a comprehension) binds `name`. */
static bool scope_binds(const Node *scope, Str name) {
  if (scope->kind == N_FUNCTION_DEF)
    return binds_locally(scope, name);
  if (scope->kind == N_LAMBDA)
    return scope->u.lambda.args && arguments_bind(scope->u.lambda.args, name);
  const NodeList *generators = scope->kind == N_DICT_COMP ? &scope->u.dict_comp.generators : &scope->u.comp.generators;
  LocalSearch search = {name, false};
  for (int i = 0; i < generators->count && !search.found; i++)
    find_local_store(generators->items[i]->u.comprehension.target, &search);
  return search.found;
}

/* Whether module-level code binds the kernel's name other than by its def: an assignment, a
 * `for`, `del`, an import, another def or class at module level (in its if, for, while, with
 * and try blocks too), or an assignment in a function that declares it `global`. Then the name
 * may hold another object where it is read (`k = k.replace_hints(...)`, `del k`). */
static bool module_rebinds(Lowerer *L, const Function *kernel) {
  return host_names_count(L, kernel->def->u.function_def.name, true) > 1; /* its def, at module level */
}

/* The kernel of this module that `expr` names where it is read, else NULL: not where a scope
 * around it binds the name (a factory's parameter, a lambda's, a closure's, a `case` capture),
 * nor where module-level code binds the name again (then it is read at run time). */
static Function *kernel_named(HostRewrite *rw, const Node *expr) {
  if (expr->kind != N_NAME || rw->scope_depth > C2T_MAX_HOST_SCOPES)
    return NULL;
  for (int i = 0; i < rw->scope_depth; i++)
    if (scope_binds(rw->scopes[i], expr->u.name.id))
      return NULL;
  Function *fn = find_function(rw->L->conv, expr->u.name.id);
  return fn && fn->role == ROLE_KERNEL && !module_rebinds(rw->L, fn) ? fn : NULL;
}

/* ct.launch(stream, grid, k, args) -> launch_k(stream, grid, args) for a kernel
 * of this module named directly, else ct_launch(stream, grid, kernel, args);
 * programmatic_dependent_launch=X (a kernel of this module only) -> the launcher's
 * keyword of that name (launch_pdl=X to Triton) */
static Node *rewrite_launch(HostRewrite *rw, Node *call) {
  Lowerer *L = rw->L;
  NodeList *args = &call->u.call.args, *keywords = &call->u.call.keywords;
  bool dependent = keywords->count == 1 && str_eq(keywords->items[0]->u.keyword.arg, PDL_KEYWORD);
  bool starred = false;
  for (int i = 0; i < args->count; i++)
    starred |= args->items[i]->kind == N_STARRED;
  if (starred && !keywords->count) { /* ct.launch(*launch_args): the kernel is known when it runs */
    Node *result = T0(L, "f()");
    result->u.call.func = use_helper(L, HELPER_ct_launch);
    result->u.call.args = *args;
    return result;
  }
  if (args->count != 4 || (keywords->count && !dependent))
    lower_error(L, call, "ct.launch takes (stream, grid, kernel, args) as four positional arguments, and "
                "programmatic_dependent_launch= alone as a keyword");
  Function *kernel = kernel_named(rw, args->items[2]);
  if (!kernel && dependent)
    lower_error(L, keywords->items[0], "ct.launch(..., programmatic_dependent_launch=) of a kernel chosen at run "
                "time or imported cannot be converted: launch a kernel of this module by its name");
  if (!kernel) /* a kernel chosen at run time, a variant, or one of another module: its own launch */
    return T(L, "_1(_2, _3, _4, _5)", use_helper(L, HELPER_ct_launch), args->items[0], args->items[1],
             args->items[2], args->items[3]);
  Str name = kernel_launcher_name(L, kernel);
  Node *launcher = new_name(L, arena_strndup(&L->ctx->arena, name.text, (size_t)name.len));
  Node *result = T(L, "_1(_2, _3, _4)", launcher, args->items[0], args->items[1], args->items[3]);
  if (dependent)
    node_list_push(&L->ctx->arena, &result->u.call.keywords, keywords->items[0]);
  return result;
}

/* ct.kernel(f, **hints) on the host -> _ct_kernel(f, **hints): f is a
 * converted kernel's function (k._pyfunc); a function of this module that is
 * not a kernel was not converted to tile code, so it cannot become one. */
static Node *rewrite_host_kernel(HostRewrite *rw, Node *call) {
  Lowerer *L = rw->L;
  NodeList *args = &call->u.call.args;
  if (args->count == 0)
    lower_error(L, call,
                "ct.kernel(...) without a function on the host: a kernel defined inside a function is converted "
                "only in a module-level function's body and its if, for, while, with and try blocks (not in a "
                "class or a nested function); define it there or at module level");
  if (args->count != 1)
    lower_error(L, call, "ct.kernel on the host takes one positional argument, a kernel's function (k._pyfunc)");
  Node *function = args->items[0];
  if (function->kind == N_NAME) {
    Function *fn = find_function(L->conv, function->u.name.id);
    if (fn && fn->role != ROLE_KERNEL)
      lower_error(L, function,
                  "ct.kernel(%.*s) on the host: %.*s is not a @ct.kernel, so it was not converted to tile code; "
                  "decorate it with @ct.kernel",
                  function->u.name.id.len, function->u.name.id.text, function->u.name.id.len,
                  function->u.name.id.text);
  }
  for (int i = 0; i < call->u.call.keywords.count; i++) {
    Str name = call->u.call.keywords.items[i]->u.keyword.arg;
    if (name.len && !is_unmapped_hint(name))
      lower_error(L, call->u.call.keywords.items[i], "'%.*s' is not a cuTile kernel hint", name.len, name.text);
  }
  note_host_hints(rw, call);
  call->u.call.func = use_helper(L, HELPER__ct_kernel);
  return call;
}

static const char COMPILER_TIMEOUT_NOTE[] =
    "C2T102: ct.compiler_timeout: Triton has no time limit on compilation; the block runs without one";

/* ct.cdiv(x, y) on the host: cuTile computes -((-x) // y), exact ceiling. */
static Node *rewrite_host_cdiv(Lowerer *L, Node *call) {
  NodeList *args = &call->u.call.args;
  for (int i = 0; i < args->count; i++)
    if (args->items[i]->kind == N_STARRED) /* `-(-n // *a)` is not Python */
      lower_error(L, args->items[i], "ct.cdiv on the host with an unpacked argument cannot be converted: it becomes "
                  "-(-x // y), which needs x and y written out");
  if (args->count != 2 || call->u.call.keywords.count)
    lower_error(L, call, "ct.cdiv takes two positional arguments");
  return T(L, "-(-_1 // _2)", args->items[0], args->items[1]);
}

static void rewrite_host_slot(Node **slot, void *data);

/* The arguments of a call, not its callee. */
static void rewrite_call_arguments(Node *call, void *data) {
  for (int i = 0; i < call->u.call.args.count; i++)
    rewrite_host_slot(&call->u.call.args.items[i], data);
  for (int i = 0; i < call->u.call.keywords.count; i++)
    rewrite_host_slot(&call->u.call.keywords.items[i]->u.keyword.value, data);
}

/* cuTile's enums on the host: a helper enum of the same name, members and
 * values (host_helpers.py). */
static const struct {
  const char *name;
  HelperId helper;
} HOST_ENUMS[] = {
    {"PaddingMode", HELPER__PaddingMode},
    {"RoundingMode", HELPER__RoundingMode},
    {"MemoryOrder", HELPER__MemoryOrder},
    {"MemoryScope", HELPER__MemoryScope},
};
#define HOST_ENUM_COUNT ((int)(sizeof HOST_ENUMS / sizeof HOST_ENUMS[0]))

/* `member` is an enum (PaddingMode) or something inside it (PaddingMode.ZERO,
 * PaddingMode.ZERO.value): the helper's spelling of it, else NULL. */
static Node *host_enum_value(Lowerer *L, const char *member) {
  for (int i = 0; i < HOST_ENUM_COUNT; i++) {
    size_t length = strlen(HOST_ENUMS[i].name);
    if (strncmp(member, HOST_ENUMS[i].name, length) != 0 || (member[length] && member[length] != '.'))
      continue;
    L->host_enums |= 1u << i;
    return T0(L, arena_printf(&L->ctx->arena, "_%s", member));
  }
  return NULL;
}

/* The prefix of `member` that names a cuda.tile submodule with no Triton
 * counterpart (ahead-of-time export), else NULL. */
static const char *unconvertible_submodule(const char *member) {
  if (strncmp(member, "compilation", 11) == 0 && (member[11] == '\0' || member[11] == '.'))
    return "compilation";
  return NULL;
}

static Node *rewrite_host_member(Lowerer *L, Node *node, const char *member) {
  if (strcmp(member, "tile_experimental") == 0)
    lower_error(L, node,
                "host code uses the cuda.tile_experimental module itself, not a name in it: the converted module "
                "does not import it (its autotune_launch and clear_autotune_cache are converted where called)");
  if (strncmp(member, "tile_experimental.", 18) == 0)
    lower_error(L, node,
                "host code uses cuda.%s, which has no conversion on the host (of cuda.tile_experimental, "
                "autotune_launch and clear_autotune_cache are converted where called)",
                member);
  const char *dot = strchr(member, '.');
  if (dot && (!strcmp(dot, ".bitwidth") || !strcmp(dot, ".name"))) { /* ct.float16.bitwidth: known here */
    char dtype_name[32];
    size_t length = (size_t)(dot - member);
    DType of = DT_UNKNOWN;
    if (length < sizeof dtype_name) {
      memcpy(dtype_name, member, length);
      dtype_name[length] = '\0';
      of = dtype_from_cutile_name(dtype_name);
    }
    if (of != DT_UNKNOWN && !strcmp(dot, ".name"))
      return T0(L, arena_printf(&L->ctx->arena, "\"%s\"", dtype_info(of)->cutile));
    if (of != DT_UNKNOWN) /* cuTile's bitwidth: float4_e2m1fn's 4, bool_'s 8 */
      return new_int(L, of == DT_BOOL ? 8 : dtype_info(of)->bits);
  }
  DType dtype = dtype_from_cutile_name(member);
  if (dtype == DT_TFLOAT32) /* torch.float32 would multiply in full float32 where a kernel takes it */
    lower_error(L, node, "host code uses ct.tfloat32, which has no torch dtype: as torch.float32 a kernel "
                "given it (a ct.Constant dtype its operands are cast to) would multiply in full float32, "
                "and a dict keyed by it would meet ct.float32's key; cast to ct.tfloat32 in the kernel");
  if (dtype != DT_UNKNOWN && !dtype_info(dtype)->torch)
    lower_error(L, node, "host code uses ct.%s, which has no torch dtype (torch has none for one %s element)",
                member, member);
  if (dtype != DT_UNKNOWN)
    return T0(L, dtype_info(dtype)->torch);
  if (strcmp(member, "DType") == 0) /* host dtypes are torch dtypes */
    return T0(L, "torch.dtype");
  if (strcmp(member, "__version__") == 0) /* the cuTile whose semantics the converted code keeps */
    return use_helper(L, HELPER__CUTILE_VERSION);
  if (strcmp(member, "launch") == 0) /* ct.launch as a value (passed to a timer): the same signature */
    return use_helper(L, HELPER_ct_launch);
  if (strcmp(member, "cdiv") == 0) /* ct.cdiv as a value (map(ct.cdiv, ...)); a call is rewritten in place */
    return use_helper(L, HELPER__cdiv);
  /* what host code asks cuTile's internals about the machine and its compiler */
  if (strcmp(member, "_cext.get_compute_capability") == 0)
    return T0(L, "torch.cuda.get_device_capability");
  if (strcmp(member, "_cext.dev_features_enabled") == 0)
    return use_helper(L, HELPER__dev_features_enabled);
  if (strcmp(member, "_compile._get_max_supported_bytecode_version") == 0) {
    L->needs_enum = true;
    return use_helper(L, HELPER__max_bytecode_version);
  }
  /* cuTile names a helper stands for, with what follows them (`BytecodeVersion.V_13_1`): the
   * Tile IR versions host code compares with (a helper enum of the same members), cuTile's
   * exceptions and kernel class, and its compiler settings, for host code that names them (an
   * autotuner that catches a configuration's compile failure) */
  static const struct {
    const char *member;
    HelperId helper;
    bool needs_enum;
  } HOST_NAMES[] = {
      {"_bytecode.version.BytecodeVersion", HELPER__BytecodeVersion, true},
      {"_bytecode.BytecodeVersion", HELPER__BytecodeVersion, true},
      {"TileCompilerTimeoutError", HELPER__TileCompilerTimeoutError, false},
      {"_exception.TileCompilerTimeoutError", HELPER__TileCompilerTimeoutError, false},
      {"TileCompilerExecutionError", HELPER__TileCompilerExecutionError, false},
      {"_exception.TileCompilerExecutionError", HELPER__TileCompilerExecutionError, false},
      {"TileError", HELPER__TileError, false},
      {"_exception.TileError", HELPER__TileError, false},
      {"_execution.TileDispatcher", HELPER__TileDispatcher, false},
      {"_cext.default_tile_context", HELPER__default_tile_context, false},
  };
  for (size_t i = 0; i < sizeof HOST_NAMES / sizeof HOST_NAMES[0]; i++) {
    size_t length = strlen(HOST_NAMES[i].member);
    if (strncmp(member, HOST_NAMES[i].member, length) != 0 || (member[length] && member[length] != '.'))
      continue;
    L->needs_enum |= HOST_NAMES[i].needs_enum;
    Node *helper = use_helper(L, HOST_NAMES[i].helper);
    if (!member[length])
      return helper;
    return T0(L, arena_printf(&L->ctx->arena, "%.*s%s", helper->u.name.id.len, helper->u.name.id.text,
                              member + length));
  }
  Node *value = host_enum_value(L, member);
  if (value)
    return value;
  const char *submodule = unconvertible_submodule(member);
  if (submodule)
    lower_error(L, node,
                "host code uses cuda.tile.%s (ct.%s): ahead-of-time kernel export has no Triton counterpart; "
                "Triton compiles kernels when they are first launched",
                submodule, member);
  if (!op_starts_with_cutile_name(member))
    lower_error(L, node, "ct.%s is not a name of cuda.tile (cutile2triton --list-ops lists them)", member);
  lower_error(L, node, "host code uses ct.%s, which has no conversion on the host", member);
}

/* ----------------------------------------------------- host annotations */

#define HOST_ANNOTATION_MAX_DEPTH 16 /* type aliases followed inside one annotation */

/* `ConstInt = ct.Constant[int]` (or `= ct.Constant`): a cuTile type alias, gone with cuda.tile. */
/* The value of `NAME = value` or `NAME: T = value` (ConstInt: TypeAlias =
 * ct.Constant[int]) at module level, else NULL. */
static const Node *single_assigned_value(const Node *stmt) {
  if (stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1)
    return stmt->u.assign.value;
  if (stmt->kind == N_ANN_ASSIGN && stmt->u.ann_assign.target->kind == N_NAME)
    return stmt->u.ann_assign.value;
  return NULL;
}

static void find_ct_name(Node *node, void *data) {
  void **scan = data;
  Lowerer *L = scan[0];
  if (scan[1])
    return;
  if ((node->kind == N_NAME || node->kind == N_ATTRIBUTE) && resolve_ct_member(L->conv, node)) {
    scan[1] = node;
    return;
  }
  node_children(node, find_ct_name, data);
}

/* The parameter annotations of cuTile that a type alias may stand for, written bare. */
static const char *const CT_PARAMETER_TYPES[] = {"Constant", "Array", "IndexedWithInt64", "Scalar", "ScalarInt64",
                                                 NULL};

/* Whether `NAME = value` defines a cuTile type alias: `ct.Constant[int]` (a cuTile name
 * subscripted), a bare parameter type (`ct.Constant`, `ct.IndexedWithInt64`), or
 * `Annotated[T, ...]` whose pieces name cuda.tile (`Annotated[ct.Array,
 * ct.ArrayAnnotation(index_dtype=ct.int64)]`, `Annotated[list, ct.ListAnnotation(...)]`). */
static bool is_ct_type_alias(Lowerer *L, const Node *stmt) {
  const Node *value = single_assigned_value(stmt);
  if (!value)
    return false;
  if (value->kind == N_SUBSCRIPT && resolve_ct_member(L->conv, value) == NULL) {
    const Node *base = value->u.subscript.value;
    bool annotated = (base->kind == N_NAME && str_eq(base->u.name.id, "Annotated")) ||
                     (base->kind == N_ATTRIBUTE && str_eq(base->u.attribute.attr, "Annotated"));
    if (annotated) {
      void *scan[2] = {L, NULL};
      find_ct_name(value->u.subscript.slice, scan);
      return scan[1] != NULL;
    }
    return resolve_ct_member(L->conv, base) != NULL;
  }
  for (int i = 0; CT_PARAMETER_TYPES[i]; i++)
    if (is_ct_member(L->conv, value, CT_PARAMETER_TYPES[i]))
      return true;
  return false;
}

/* The module-level type alias a name stands for (ConstInt), else NULL. */
static Node *type_alias_value(Lowerer *L, const Node *name) {
  if (name->kind != N_NAME || is_rooted_at_ct_import(L->conv, name))
    return NULL;
  const Binding *binding = find_binding(L->conv, name->u.name.id);
  if (!binding || !binding->value)
    return NULL;
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++)
    if (single_assigned_value(body->items[i]) == binding->value)
      return is_ct_type_alias(L, body->items[i]) ? binding->value : NULL;
  for (int i = 0; i < L->block_aliases.count; i++)
    if (single_assigned_value(L->block_aliases.items[i]) == binding->value)
      return binding->value;
  return NULL;
}

/* T of `ct.Constant[T]` or of a module-level alias of it (ConstInt), else NULL. */
static Node *constant_annotation_type(Lowerer *L, Node *expr) {
  Node *alias = type_alias_value(L, expr);
  Node *subscript = alias ? alias : expr;
  if (subscript->kind != N_SUBSCRIPT)
    return NULL;
  const char *member = resolve_ct_member(L->conv, subscript->u.subscript.value);
  return member && strcmp(member, "Constant") == 0 ? subscript->u.subscript.slice : NULL;
}

/* Type aliases of cuTile types in the blocks of a module-level if or try
 * (`try: import cuda.tile as ct; ConstInt = ct.Constant[int]; ... except
 * ImportError: ...`) go away as module-level ones do, kept in
 * L->block_aliases for the annotations that name them; a block left empty
 * gets `pass`. */
static bool drop_block_type_aliases(Lowerer *L, NodeList *block);

static bool drop_type_aliases_in(Lowerer *L, Node *stmt) {
  bool dropped = false;
  if (stmt->kind == N_IF) {
    dropped |= drop_block_type_aliases(L, &stmt->u.if_.body);
    dropped |= drop_block_type_aliases(L, &stmt->u.if_.orelse);
  } else if (stmt->kind == N_TRY) {
    dropped |= drop_block_type_aliases(L, &stmt->u.try_.body);
    for (int i = 0; i < stmt->u.try_.handlers.count; i++)
      dropped |= drop_block_type_aliases(L, &stmt->u.try_.handlers.items[i]->u.except_handler.body);
    dropped |= drop_block_type_aliases(L, &stmt->u.try_.orelse);
    dropped |= drop_block_type_aliases(L, &stmt->u.try_.finalbody);
  }
  if (dropped)
    stmt->rewritten = true; /* written from the tree, without the alias */
  return dropped;
}

static bool drop_block_type_aliases(Lowerer *L, NodeList *block) {
  bool dropped = false;
  int kept = 0;
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (is_ct_type_alias(L, stmt)) {
      node_list_push(&L->ctx->arena, &L->block_aliases, stmt);
      dropped = true;
      continue;
    }
    dropped |= drop_type_aliases_in(L, stmt);
    block->items[kept++] = stmt;
  }
  if (dropped && kept == 0)
    block->items[kept++] = template_stmts(L->ctx, "pass\n", NULL, 0).items[0];
  block->count = kept;
  return dropped;
}

typedef struct AnnotationScan {
  Lowerer *L;
  bool cutile; /* the annotation names cuda.tile (directly or through a type alias) */
} AnnotationScan;

static void scan_annotation(Node *node, void *data) {
  AnnotationScan *scan = data;
  if ((node->kind == N_NAME || node->kind == N_ATTRIBUTE) &&
      (resolve_ct_member(scan->L->conv, node) || type_alias_value(scan->L, node)))
    scan->cutile = true;
  else
    node_children(node, scan_annotation, data);
}

/* The annotation as a string, which Python keeps without evaluating it. */
static Node *annotation_as_text(Lowerer *L, const Node *annotation) {
  Str text = source_text(L, annotation);
  Buf quoted = {0};
  buf_putc(&quoted, '"');
  for (int i = 0; i < text.len; i++) {
    char c = text.text[i];
    if (c == '"' || c == '\\')
      buf_putc(&quoted, '\\');
    buf_putc(&quoted, c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
  }
  buf_putc(&quoted, '"');
  Node *made = T0(L, arena_strndup(&L->ctx->arena, quoted.data, quoted.len));
  buf_free(&quoted);
  return made;
}

/* A cuTile type as a host annotation: what a converted module's host code
 * holds there (ct.Constant[T] is T; a dtype is a torch dtype; a kernel is a
 * Triton JITFunction), else NULL. */
static Node *host_type(Lowerer *L, Node *annotation, int depth);

static Node *host_type_slots(Lowerer *L, Node *annotation, int depth);

typedef struct TypeRewrite {
  Lowerer *L;
  int depth;
  bool failed;
} TypeRewrite;

static void rewrite_type_slot(Node **slot, void *data) {
  TypeRewrite *rw = data;
  if (rw->failed)
    return;
  Node *made = host_type(rw->L, *slot, rw->depth);
  if (made)
    *slot = made;
  else
    rw->failed = true;
}

static Node *host_type_slots(Lowerer *L, Node *annotation, int depth) {
  TypeRewrite rw = {L, depth, false};
  node_child_slots(annotation, rewrite_type_slot, &rw);
  return rw.failed ? NULL : annotation;
}

static Node *host_type(Lowerer *L, Node *annotation, int depth) {
  AnnotationScan scan = {L, false};
  scan_annotation(annotation, &scan);
  if (!scan.cutile)
    return annotation;
  if (depth > HOST_ANNOTATION_MAX_DEPTH)
    return NULL;
  Node *alias = type_alias_value(L, annotation);
  if (alias)
    return host_type(L, alias, depth + 1);
  if (annotation->kind == N_SUBSCRIPT && is_ct_member(L->conv, annotation->u.subscript.value, "Constant")) {
    Node *inner = host_type(L, annotation->u.subscript.slice, depth + 1);
    if (inner)
      inner->rewritten = true; /* the statement is written from the tree */
    return inner;
  }
  const char *member = resolve_ct_member(L->conv, annotation);
  if (!member)
    return host_type_slots(L, annotation, depth + 1);
  if (strcmp(member, "DType") == 0 || dtype_from_cutile_name(member) != DT_UNKNOWN)
    return T0(L, "torch.dtype");
  if (strcmp(member, "Array") == 0)
    return T0(L, "torch.Tensor");
  if (strcmp(member, "kernel") == 0)
    return T0(L, "triton.JITFunction");
  if (strcmp(member, "Constant") == 0)
    return T0(L, "object");
  return host_enum_value(L, member);
}

/* An annotation in host code (a parameter, a return, a variable or a
 * dataclass field) that names cuda.tile: its host type, or else its text as
 * a string. Annotations do not change what the code does; the converted
 * module must only not need cuda.tile to evaluate them. */
static void rewrite_host_annotation(Lowerer *L, Node **slot) {
  if (!*slot)
    return;
  AnnotationScan scan = {L, false};
  scan_annotation(*slot, &scan);
  if (!scan.cutile)
    return;
  Node *made = host_type(L, *slot, 0);
  *slot = made ? made : annotation_as_text(L, *slot);
  (*slot)->rewritten = true;
}

static void rewrite_host_annotations(Node *node, void *data) {
  Lowerer *L = ((HostRewrite *)data)->L;
  if (node->kind == N_FUNCTION_DEF) {
    Function *fn = function_of_def(L->conv, node);
    /* tile code is lowered already; a plain function host code uses too stays as written, but
       for its annotations, which the module evaluates when it defines it */
    if (fn && fn->role != ROLE_HOST &&
        !(fn->host_too && !node->u.function_def.decorator_list.count))
      return;
    rewrite_host_annotation(L, &node->u.function_def.returns);
  } else if (node->kind == N_ARG) {
    rewrite_host_annotation(L, &node->u.arg.annotation);
  } else if (node->kind == N_ANN_ASSIGN) {
    rewrite_host_annotation(L, &node->u.ann_assign.annotation);
  }
  node_children(node, rewrite_host_annotations, data);
}

/* ------------------------------------------------------ host values */

/* The cuda.tile name that `stmt` assigns (`ct.pack_to_bytes = ...`: the
 * name its single target reaches through a cuda.tile import), else NULL. */
static const char *assigned_ct_member(Lowerer *L, const Node *stmt) {
  if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1)
    return NULL;
  const Node *target = stmt->u.assign.targets.items[0];
  if (target->kind != N_ATTRIBUTE || !is_rooted_at_ct_import(L->conv, target))
    return NULL;
  const char *member = resolve_ct_member(L->conv, target);
  /* a compiler setting (default_tile_context.config.compiler_timeout_sec = 30) patches no
   * name of cuda.tile: it goes to the helper that stands for the settings */
  if (member && strncmp(member, "_cext.default_tile_context.", 27) == 0)
    return NULL;
  return member;
}

/* `ct.NAME = VALUE` where VALUE is cuda.tile's own NAME under another
 * spelling (`ct.pack_to_bytes = pack_to_bytes` after `from cuda.tile._stub
 * import pack_to_bytes`, which older cuda.tile releases needed): a no-op the
 * converted module, which has no cuda.tile, drops, saying so in a comment
 * (module level) or in the note of a `pass` (in a block). Assigning anything
 * else to a cuda.tile name patches cuda.tile: a located error, since tile code
 * is converted with cuda.tile's own meaning of the name. */
static Node *dropped_self_binding(Lowerer *L, Node *stmt, const char *member, bool module_level) {
  const char *value = resolve_ct_member(L->conv, stmt->u.assign.value);
  if (!value || strcmp(value, member) != 0)
    lower_error(L, stmt, "host code assigns to ct.%s: the converted module has no cuda.tile to patch, and tile code "
                "is converted with cuda.tile's own ct.%s", member, member);
  Str written = source_text(L, stmt);
  const char *text = arena_printf(&L->ctx->arena, "%.*s: cuda.tile's own name bound to itself; dropped (cutile2triton)",
                                  written.len, written.text);
  Node *made = arena_alloc(&L->ctx->arena, sizeof(Node));
  made->rewritten = true;
  if (module_level) {
    made->span = stmt->span; /* in the statement's place: its blank lines and comments stay around it */
    made->kind = N_COMMENT;
    made->u.piece.text = (Str){text, (int)strlen(text)};
  } else {
    made->kind = N_PASS;
    made->note = text;
  }
  return made;
}

static void rewrite_host_node(Node **slot, HostRewrite *rw);

static void rewrite_host_slot(Node **slot, void *data) {
  HostRewrite *rw = data;
  Node *node = *slot, *outer = rw->statement;
  bool statement = node->kind >= N_FUNCTION_DEF && node->kind <= N_CONTINUE;
  if (statement)
    rw->statement = node;
  rewrite_host_node(slot, rw);
  if (statement)
    rw->statement = outer;
}

/* The kernel whose def stood where `node`, a placeholder, stands (resolve.c
 * moved it to module level), else NULL. */
static Function *nested_kernel_at(Lowerer *L, const Node *node) {
  if (node->kind != N_PASS)
    return NULL;
  for (int i = 0; i < L->conv->function_count; i++)
    if (L->conv->functions[i].nested_placeholder == node)
      return &L->conv->functions[i];
  return NULL;
}

/* In a host function, where the def of `kernel` stood: NAME = the kernel
 * object its decorators made there, `_nested_kernel(launch_NAME, **hints)`
 * with the hints of its @ct.kernel(...) (noted as elsewhere, C2T101) under
 * its other decorators, outermost first. The statement is rewritten as host
 * code afterwards (the hints' and decorators' expressions). */
static Node *nested_kernel_object(HostRewrite *rw, Function *kernel) {
  Lowerer *L = rw->L;
  NodeList *decorators = &kernel->nested_decorators;
  Node *decorator = decorators->items[decorators->count - 1];
  Str name = kernel->def->u.function_def.name, local = kernel->nested_name.len ? kernel->nested_name : name;
  Str launcher_name = kernel_launcher_name(L, kernel);
  Node *launcher = new_name(L, arena_strndup(&L->ctx->arena, launcher_name.text, (size_t)launcher_name.len));
  Node *made = T(L, "_1(_2)", use_helper(L, HELPER__nested_kernel), launcher);
  bool renamed = !str_same(local, name) || launcher_name.len != name.len + 7;
  if (kernel->captured_count) { /* its closure's values, read at each launch as Python reads a closure */
    Buf *values = lower_buf(L);
    for (int i = 0; i < kernel->captured_count; i++)
      buf_printf(values, "%.*s, ", kernel->captured_names[i].len, kernel->captured_names[i].text);
    node_list_push(&L->ctx->arena, &made->u.call.args,
                   T0(L, arena_printf(&L->ctx->arena, "lambda: (%.*s)", (int)values->len, values->data)));
  } else if (renamed)
    node_list_push(&L->ctx->arena, &made->u.call.args, T0(L, "None"));
  if (renamed) /* the kernel object's name, as the host function named it */
    node_list_push(&L->ctx->arena, &made->u.call.args,
                   T0(L, arena_printf(&L->ctx->arena, "\"%.*s\"", local.len, local.text)));
  if (decorator->kind == N_CALL) {
    if (decorator->u.call.args.count)
      lower_error(L, decorator->u.call.args.items[0], "@ct.kernel(...) takes its hints as keywords");
    for (int i = 0; i < decorator->u.call.keywords.count; i++) {
      Node *kw = decorator->u.call.keywords.items[i];
      /* `**hints` goes through as it is: the helper checks its names when the host runs */
      if (kw->u.keyword.arg.len && !is_unmapped_hint(kw->u.keyword.arg))
        lower_error(L, kw, "'%.*s' is not a cuTile kernel hint", kw->u.keyword.arg.len, kw->u.keyword.arg.text);
      node_list_push(&L->ctx->arena, &made->u.call.keywords, kw);
    }
  }
  Node *value = made;
  for (int i = decorators->count - 2; i >= 0; i--)
    value = T(L, "_1(_2)", decorators->items[i], value);
  Node *stmt = template_stmts(L->ctx, "_1 = _2\n", (Node *[]){new_name(L, arena_strndup(&L->ctx->arena, local.text,
                                                                                       (size_t)local.len)),
                                                             value},
                              2).items[0];
  Node *outer = rw->statement;
  rw->statement = stmt;
  note_host_hints(rw, made);
  rw->statement = outer;
  return stmt;
}

/* hasattr(ct, "NAME") on the host, NAME a plain public name: whether
 * cuda.tile 1.7 has it, which the operation table knows (every public name
 * of cuda.tile 1.7 has a row: --list-ops), as a constant; the converted
 * module has no cuda.tile to ask (`_HAS_MMA = hasattr(ct, "mma")` guarding
 * two versions of a tile function). */
static bool is_hasattr_of_cutile(Lowerer *L, const Node *call) {
  const Node *callee = call->u.call.func;
  const NodeList *args = &call->u.call.args;
  if (callee->kind != N_NAME || !str_eq(callee->u.name.id, "hasattr") || args->count != 2 ||
      call->u.call.keywords.count)
    return false;
  const Node *module = args->items[0];
  if (module->kind != N_NAME || !is_rooted_at_ct_import(L->conv, module) || resolve_ct_member(L->conv, module))
    return false;
  const char *name = plain_string_text(L, args->items[1]);
  return name && name[0] && name[0] != '_';
}

static Node *hasattr_of_cutile(Lowerer *L, Node *call) {
  bool has = op_is_public_name(plain_string_text(L, call->u.call.args.items[1]));
  return T0(L, has ? "True" : "False"); /* a new node: written as it is, not as the source spelled it */
}

/* A name bound by `import cuda.tile as ct` or `import cuda.tile_experimental as X` itself, not
 * a name in it: an optional import (`except ImportError: X = None`) tests it against None. */
static bool is_package_alias(Lowerer *L, const Node *node) {
  if (node->kind != N_NAME || str_eq(node->u.name.id, "cuda") || !is_rooted_at_ct_import(L->conv, node))
    return false;
  const char *member = resolve_ct_member(L->conv, node);
  return !member || strcmp(member, "tile_experimental") == 0;
}

/* The value of a test of whether an optional cuTile import succeeded (`X is None`, `X is not
 * None`, `==`/`!=`, `not X`, and with `is_test` X itself): 1 or 0, else -1. The converted module has what
 * X stood for (its kernels, autotune_launch), so the import counts as made. */
static int package_presence_test(Lowerer *L, const Node *node, bool is_test) {
  if (is_test && is_package_alias(L, node))
    return 1;
  if (node->kind == N_UNARY_OP && node->u.unary_op.op == AOP_NOT && is_package_alias(L, node->u.unary_op.operand))
    return 0;
  if (node->kind != N_COMPARE || node->u.compare.count != 1)
    return -1;
  const Node *left = node->u.compare.left, *right = node->u.compare.comparators[0];
  const Node *alias = is_package_alias(L, left) ? left : is_package_alias(L, right) ? right : NULL;
  const Node *other = alias == left ? right : left;
  if (!alias || other->kind != N_CONSTANT || other->u.constant.kind != CONST_NONE)
    return -1;
  AstOp op = node->u.compare.ops[0];
  if (op == AOP_IS || op == AOP_EQ)
    return 0;
  return op == AOP_ISNOT || op == AOP_NOTEQ ? 1 : -1;
}

/* `if X is None:` where X is an optional cuTile import: the test becomes the constant it is,
 * with a comment saying why (at the statement, as a note). */
static bool fold_presence_test(HostRewrite *rw, Node **test, bool is_test) {
  int present = package_presence_test(rw->L, *test, is_test);
  if (present < 0)
    return false;
  Str written = source_text(rw->L, *test);
  *test = T0(rw->L, present ? "True" : "False");
  if (rw->statement && !rw->statement->note)
    rw->statement->note = arena_printf(&rw->L->ctx->arena, "was `%.*s`: the converted module has what the import gave",
                                       written.len, written.text);
  return true;
}

static void host_scope_enter(HostRewrite *rw, const Node *scope) {
  if (rw->scope_depth < C2T_MAX_HOST_SCOPES)
    rw->scopes[rw->scope_depth] = scope;
  rw->scope_depth++;
}

static void rewrite_host_node(Node **slot, HostRewrite *rw) {
  void *data = rw;
  Lowerer *L = rw->L;
  Node *node = *slot;
  Function *nested = nested_kernel_at(L, node);
  if (nested) {
    *slot = nested_kernel_object(rw, nested);
    rewrite_host_slot(slot, rw);
    return;
  }
  if (node->kind == N_FUNCTION_DEF) {
    Function *fn = function_of_def(L->conv, node);
    if (fn && fn->role != ROLE_HOST)
      return; /* tile code: lowered already */
    Node *outer = rw->function;
    rw->function = node;
    host_scope_enter(rw, node);
    node_child_slots(node, rewrite_host_slot, data);
    rw->scope_depth--;
    rw->function = outer;
    return;
  }
  if (node->kind == N_LAMBDA || node->kind == N_LIST_COMP || node->kind == N_SET_COMP ||
      node->kind == N_GENERATOR_EXP || node->kind == N_DICT_COMP) {
    host_scope_enter(rw, node);
    node_child_slots(node, rewrite_host_slot, data);
    rw->scope_depth--;
    return;
  }
  if (node->kind == N_IMPORT || node->kind == N_IMPORT_FROM)
    return;
  if (node->kind == N_ATTRIBUTE && node->u.attribute.ctx == CTX_LOAD && str_eq(node->u.attribute.attr, "bitwidth") &&
      !resolve_ct_member(L->conv, node)) {
    /* a cuTile dtype's bitwidth, of a torch dtype on the host (its itemsize in bits) */
    Node *value = node->u.attribute.value;
    rewrite_host_slot(&value, data);
    *slot = T(L, "_1(_2)", use_helper(L, HELPER__bitwidth), value);
    return;
  }
  const char *assigned = assigned_ct_member(L, node);
  if (assigned) {
    *slot = dropped_self_binding(L, node, assigned, false);
    return;
  }
  if ((node->kind == N_COMPARE || node->kind == N_UNARY_OP) && fold_presence_test(rw, slot, false))
    return;
  if (node->kind == N_IF)
    fold_presence_test(rw, &node->u.if_.test, true);
  else if (node->kind == N_IF_EXP)
    fold_presence_test(rw, &node->u.if_exp.test, true);
  if (node->kind == N_CALL && is_hasattr_of_cutile(L, node)) {
    *slot = hasattr_of_cutile(L, node);
    return;
  }
  Node *constant_type = node->kind == N_CALL ? constant_annotation_type(L, node->u.call.func) : NULL;
  if (constant_type) { /* ct.Constant[float](v) is typing.Annotated[float, ...](v), float(v) */
    node->u.call.func = node_copy_tree(&L->ctx->arena, constant_type);
    node->rewritten = true;
    rewrite_call_arguments(node, data);
    rewrite_host_slot(&node->u.call.func, data);
    return;
  }
  if (node->kind == N_CALL) {
    const char *member = resolve_ct_member(L->conv, node->u.call.func);
    if (member && strcmp(member, "launch") == 0) {
      rewrite_call_arguments(node, data);
      *slot = rewrite_launch(rw, node);
      return;
    }
    if (member && strcmp(member, "cdiv") == 0) {
      rewrite_call_arguments(node, data);
      *slot = rewrite_host_cdiv(L, node);
      return;
    }
    if (member && (strcmp(member, "TileCompilerExecutionError") == 0 ||
                   strcmp(member, "_exception.TileCompilerExecutionError") == 0 || strcmp(member, "TileError") == 0 ||
                   strcmp(member, "_exception.TileError") == 0))
      lower_error(L, node, "ct.%s(...) on the host cannot be converted: the converted module catches what Triton "
                  "raises for it (a tuple of Triton's error classes), which it cannot make an instance of",
                  strncmp(member, "_exception.", 11) == 0 ? member + 11 : member);
    if (member && strcmp(member, "kernel") == 0) {
      rewrite_call_arguments(node, data);
      *slot = rewrite_host_kernel(rw, node);
      return;
    }
    if (member && strcmp(member, "tune.exhaustive_search") == 0) {
      /* the converted kernels' own search: timed with Triton (tune_helpers.py) */
      rewrite_call_arguments(node, data);
      node->u.call.func = use_helper(L, HELPER__exhaustive_search);
      return;
    }
    if (member && strcmp(member, "tile_experimental.autotune_launch") == 0) {
      /* its predecessor in cuda.tile_experimental, the same way */
      rewrite_call_arguments(node, data);
      node->u.call.func = use_helper(L, HELPER__autotune_launch);
      return;
    }
    if (member && strcmp(member, "tile_experimental.clear_autotune_cache") == 0) {
      rewrite_call_arguments(node, data);
      node->u.call.func = use_helper(L, HELPER__clear_autotune_cache);
      return;
    }
    if (member && strcmp(member, "ByTarget") == 0) {
      /* a hint given on the host (k.replace_hints(occupancy=ct.ByTarget(...))): this GPU's value */
      rewrite_call_arguments(node, data);
      node->u.call.func = new_name(L, "_by_target");
      L->needs_by_target = true;
      return;
    }
    if (member && strcmp(member, "compiler_timeout") == 0) {
      host_note(rw, node, COMPILER_TIMEOUT_NOTE);
      *slot = T0(L, "contextlib.nullcontext()");
      return;
    }
    Node *callee = node->u.call.func;
    Function *called_on = callee->kind == N_ATTRIBUTE ? kernel_named(rw, callee->u.attribute.value) : NULL;
    Str method = called_on ? callee->u.attribute.attr : (Str){NULL, 0};
    if (called_on && str_eq(method, "replace_hints"))
      note_host_hints(rw, node);
    else if (called_on && !(method.len > 1 && method.text[0] == '_' && method.text[1] == '_'))
      /* cuda.tile 1.7's kernel objects (_execution.py: kernel) have replace_hints and the
         private _pyfunc and _compile; another method is an AttributeError there too */
      lower_error(L, callee, "kernel '%.*s' has no method '%.*s' in cuda.tile 1.7 (a kernel object has "
                  "replace_hints(**hints), the variant with other hints)", called_on->def->u.function_def.name.len,
                  called_on->def->u.function_def.name.text, method.len, method.text);
  }
  /* A cuTile name reached through an import becomes its host value; one
   * reached through a module-level alias (PAD = ct.PaddingMode.ZERO) stays
   * that name, whose assignment is converted (and which a local may shadow). */
  if ((node->kind == N_NAME && node->u.name.ctx == CTX_LOAD) || node->kind == N_ATTRIBUTE) {
    bool through_import = is_rooted_at_ct_import(L->conv, node);
    const char *member = through_import ? resolve_ct_member(L->conv, node) : NULL;
    if (member) {
      *slot = rewrite_host_member(L, node, member);
      return;
    }
    bool module_itself = node->kind == N_NAME ? !str_eq(node->u.name.id, "cuda")
                                              : str_eq(node->u.attribute.attr, "tile") &&
                                                    node->u.attribute.value->kind == N_NAME &&
                                                    str_eq(node->u.attribute.value->u.name.id, "cuda");
    if (through_import && module_itself) {
      Str written = source_text(L, node);
      lower_error(L, node,
                  "host code uses the cuda.tile module itself ('%.*s'), not a name in it: the converted module "
                  "does not import cuda.tile",
                  written.len, written.text);
    }
  }
  node_child_slots(node, rewrite_host_slot, data);
}

/* The name a plain one-token string literal spells ('PaddingMode', "ct"), else a zero Str. */
static Str literal_name(const Node *value) {
  if (value->kind != N_STRING || value->u.string.parts.count != 1)
    return (Str){NULL, 0};
  const Node *token = value->u.string.parts.items[0];
  Str text = token->kind == N_STRING_TOKEN ? token->u.piece.text : (Str){NULL, 0};
  if (text.len < 2 || (text.text[0] != '"' && text.text[0] != '\'') || text.text[text.len - 1] != text.text[0])
    return (Str){NULL, 0};
  return (Str){text.text + 1, text.len - 2};
}

/* Whether `name` is one the converted module no longer binds: a name of cuda.tile it imported
 * (`from cuda.tile import PaddingMode`), or the module itself (`ct`). */
static bool names_dropped_import(Lowerer *L, Str name) {
  if (!name.len)
    return false;
  for (int i = 0; i < L->conv->ct_module_count; i++)
    if (str_same(L->conv->ct_modules[i], name))
      return true;
  const Binding *binding = find_binding(L->conv, name);
  return binding && binding->member && !binding->value;
}

/* `__all__ = [...]` naming what the module re-exports of cuda.tile: those items go with the import
 * (a star import of the converted module would fail on a name it does not bind). */
static void drop_dropped_exports(Lowerer *L, Node *stmt) {
  if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1 ||
      stmt->u.assign.targets.items[0]->kind != N_NAME || !str_eq(stmt->u.assign.targets.items[0]->u.name.id, "__all__"))
    return;
  Node *value = stmt->u.assign.value;
  if (value->kind != N_LIST && value->kind != N_TUPLE)
    return;
  NodeList *items = &value->u.list.elts, kept = {0};
  for (int i = 0; i < items->count; i++)
    if (!names_dropped_import(L, literal_name(items->items[i])))
      node_list_push(&L->ctx->arena, &kept, items->items[i]);
  if (kept.count == items->count)
    return;
  *items = kept;
  value->rewritten = stmt->rewritten = true; /* written from the tree */
}

void lower_host_code(Lowerer *L) {
  HostRewrite rw = {L, NULL, NULL, {0}, 0};
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    /* module-level aliases of cuTile types (ConstInt = ct.Constant[int]) go away with the import */
    if (is_ct_type_alias(L, stmt))
      continue;
    drop_type_aliases_in(L, stmt);
    drop_dropped_exports(L, stmt);
    const char *member = assigned_ct_member(L, stmt);
    if (member) {
      body->items[i] = dropped_self_binding(L, stmt, member, true);
      continue;
    }
    rewrite_host_annotations(stmt, &rw);
    rewrite_host_slot(&body->items[i], &rw);
  }
}

/* ------------------------------------------------------------ the module */

static bool is_ct_import(Lowerer *L, const Node *stmt) {
  for (int i = 0; i < L->conv->ct_imports.count; i++)
    if (L->conv->ct_imports.items[i] == stmt)
      return true;
  return false;
}

/* Whether the module imports `module` (as `as`, where not NULL) by one of its first `before`
 * statements (those before the converter's helpers, which need the name when they are
 * defined: an `import os` at the end of a tutorial comes too late for them). */
static bool module_imports_as(Lowerer *L, const char *module, const char *as, int before) {
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count && i < before; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_IMPORT)
      continue;
    for (int j = 0; j < stmt->u.import.names.count; j++) {
      Node *alias = stmt->u.import.names.items[j];
      if (str_eq(alias->u.alias.name, module) &&
          (as ? str_eq(alias->u.alias.asname, as) : alias->u.alias.asname.len == 0))
        return true;
    }
  }
  return false;
}

static bool module_imports(Lowerer *L, const char *module, int before) {
  return module_imports_as(L, module, NULL, before);
}

static void push_all(Lowerer *L, NodeList *out, NodeList stmts) {
  for (int i = 0; i < stmts.count; i++)
    node_list_push(&L->ctx->arena, out, stmts.items[i]);
}

/* The imports the converted module needs, where the cuda.tile import
 * `replaced` stood: the comments and blank lines above it (a licence
 * header, say) stay above the first of them and its trailing comment goes
 * to the last, so the emitter is given those source lines through the
 * spans (the statements stay marked as written by the converter). Those the module imports
 * itself before the helpers (statement `helpers_at`) are not repeated. */
static void push_imports(Lowerer *L, NodeList *out, NodeList *droppable, const Node *replaced, int helpers_at) {
  Buf text = {0};
  if (!module_imports(L, "contextlib", helpers_at))
    buf_puts(&text, "import contextlib\n");
  if ((L->host_enums || L->needs_enum) && !module_imports(L, "enum", helpers_at))
    buf_puts(&text, "import enum\n");
  if (L->uses_array_lists && !module_imports(L, "operator", helpers_at)) /* _array_list_key */
    buf_puts(&text, "import operator\n");
  if (L->needs_interpreted_flag && !module_imports(L, "os", helpers_at))
    buf_puts(&text, "import os\n");
  for (int i = 0; helper_import(i); i++) /* a helper's own: import random */
    if (L->helper_imports >> i & 1 && strncmp(helper_import(i), "import ", 7) == 0 &&
        !module_imports(L, helper_import(i) + 7, helpers_at))
      buf_printf(&text, "%s\n", helper_import(i));
  if (!module_imports(L, "torch", helpers_at))
    buf_puts(&text, "import torch\n");
  if (!module_imports(L, "triton", helpers_at))
    buf_puts(&text, "import triton\n");
  if (!module_imports_as(L, "triton.language", "tl", helpers_at))
    buf_puts(&text, "import triton.language as tl\n");
  if (L->needs_libdevice)
    buf_puts(&text, "from triton.language.extra import libdevice\n");
  for (int i = 0; helper_import(i); i++) /* from triton.tools.tensor_descriptor import TensorDescriptor */
    if (L->helper_imports >> i & 1 && strncmp(helper_import(i), "import ", 7) != 0)
      buf_printf(&text, "%s\n", helper_import(i));
  if (!text.len) { /* the module imports all of them itself */
    if (replaced) /* the comments on the cuda.tile import's lines go with it; those above stay */
      dropped_lines_add(&L->ctx->arena, &L->conv->module->u.module.dropped, replaced->span.start.line,
                        replaced->span.end.line);
    return;
  }
  NodeList imports = template_stmts(L->ctx, arena_strndup(&L->ctx->arena, text.data, text.len), NULL, 0);
  buf_free(&text);
  if (replaced) {
    Node *first = imports.items[0], *last = imports.items[imports.count - 1];
    first->span.start = replaced->span.start;
    last->span.end = replaced->span.end;
    first->rewritten = last->rewritten = true;
  }
  push_all(L, out, imports);
  push_all(L, droppable, imports);
}

/* A cuda.tile import guarded by a module-level if/try (`try: import
 * cuda.tile as ct` / `except ImportError:`, `if TYPE_CHECKING:`) goes away
 * from its block: the converted module has what it guarded, without
 * cuda.tile. A block left empty gets `pass`. Returns whether `block` held one. */
static bool drop_guarded_imports(Lowerer *L, NodeList *block, bool guarded);

static bool drop_guarded_imports_in(Lowerer *L, Node *stmt) {
  bool dropped = false;
  if (stmt->kind == N_IF) {
    dropped |= drop_guarded_imports(L, &stmt->u.if_.body, true);
    dropped |= drop_guarded_imports(L, &stmt->u.if_.orelse, true);
  } else if (stmt->kind == N_TRY) {
    dropped |= drop_guarded_imports(L, &stmt->u.try_.body, true);
    for (int i = 0; i < stmt->u.try_.handlers.count; i++)
      dropped |= drop_guarded_imports(L, &stmt->u.try_.handlers.items[i]->u.except_handler.body, true);
    dropped |= drop_guarded_imports(L, &stmt->u.try_.orelse, true);
    dropped |= drop_guarded_imports(L, &stmt->u.try_.finalbody, true);
  }
  if (dropped)
    stmt->rewritten = true; /* written from the tree, without the import */
  return dropped;
}

/* A `try` that only imports cuda.tile (or cuda.tile_experimental): with the imports gone
 * nothing in it can raise, so its handlers never run. */
static bool is_import_only_try(Lowerer *L, const Node *stmt) {
  if (stmt->kind != N_TRY || !stmt->u.try_.body.count)
    return false;
  for (int i = 0; i < stmt->u.try_.body.count; i++)
    if (!is_ct_import(L, stmt->u.try_.body.items[i]))
      return false;
  return true;
}

/* The lines of such a `try` that go (their comments with them): all but its else and
 * finally blocks. */
static void drop_try_lines(Lowerer *L, const Node *stmt) {
  DroppedLines *dropped = &L->conv->module->u.module.dropped;
  const NodeList *orelse = &stmt->u.try_.orelse, *finalbody = &stmt->u.try_.finalbody;
  int first = stmt->span.start.line, end = stmt->span.end.line;
  if (first <= 0)
    return;
  const NodeList *kept = orelse->count ? orelse : finalbody;
  dropped_lines_add(&L->ctx->arena, dropped, first, kept->count ? kept->items[0]->span.start.line - 1 : end);
  if (orelse->count && finalbody->count) /* the `finally:` line */
    dropped_lines_add(&L->ctx->arena, dropped, orelse->items[orelse->count - 1]->span.end.line + 1,
                      finalbody->items[0]->span.start.line - 1);
}

/* The statements of `block` without its guarded imports, appended to `kept`. */
static bool keep_unguarded(Lowerer *L, NodeList *kept, const NodeList *block, bool guarded) {
  bool dropped = false;
  for (int i = 0; i < block->count; i++) {
    Node *stmt = block->items[i];
    if (guarded && is_ct_import(L, stmt)) {
      dropped = true;
    } else if (is_import_only_try(L, stmt)) { /* what runs of it: its else and finally blocks */
      drop_try_lines(L, stmt);
      keep_unguarded(L, kept, &stmt->u.try_.orelse, guarded);
      keep_unguarded(L, kept, &stmt->u.try_.finalbody, guarded);
      dropped = true;
    } else {
      dropped |= drop_guarded_imports_in(L, stmt);
      node_list_push(&L->ctx->arena, kept, stmt);
    }
  }
  return dropped;
}

static bool drop_guarded_imports(Lowerer *L, NodeList *block, bool guarded) {
  NodeList kept = {0};
  bool dropped = keep_unguarded(L, &kept, block, guarded);
  if (guarded && dropped && kept.count == 0)
    node_list_push(&L->ctx->arena, &kept, template_stmts(L->ctx, "pass\n", NULL, 0).items[0]);
  *block = kept;
  return dropped && guarded;
}

static void push_helpers(Lowerer *L, NodeList *out) {
  if (L->needs_interpreted_flag) {
    NodeList flag = helper_stmts(L, HELPER_INTERPRETED);
    flag.items[0]->note = "TRITON_INTERPRET=1: Triton's CPU interpreter, where libdevice and device asserts are unavailable";
    push_all(L, out, flag);
  }
  push_all(L, out, helper_stmts(L, HELPER__tensor));
  push_all(L, out, helper_stmts(L, HELPER__tensors));
  if (L->uses_array_lists) {
    push_all(L, out, helper_stmts(L, HELPER__ArrayList));
    push_all(L, out, helper_stmts(L, HELPER__array_list_key));
    push_all(L, out, helper_stmts(L, HELPER__array_list));
    push_all(L, out, helper_stmts(L, HELPER__array_list_table));
  }
  push_all(L, out, helper_stmts(L, HELPER__torch_stream));
  push_all(L, out, helper_stmts(L, HELPER__kernel_stream));
  if (L->uses_tma) {
    push_all(L, out, helper_stmts(L, HELPER__tma_compatible));
    if (L->uses_list_tma)
      push_all(L, out, helper_stmts(L, HELPER__array_list_tma));
    push_all(L, out, helper_stmts(L, HELPER__tma_workspace));
  }
  if (L->needs_by_target)
    push_all(L, out, helper_stmts(L, HELPER__by_target));
  for (int i = 0; i < HOST_ENUM_COUNT; i++)
    if (L->host_enums & (1u << i))
      push_all(L, out, helper_stmts(L, HOST_ENUMS[i].helper));
  append_runtime_helpers(L, out);
}

/* Whether `stmt` binds a module constant whose value (as resolve.c keeps
 * it) is `value`: NAME = value, NAME: T = value, an element of
 * `A, B = a, b`, a name of `from .config import BLOCK`. */
static bool binds_value(const Node *stmt, const Node *value) {
  if (stmt->kind == N_ANN_ASSIGN)
    return stmt->u.ann_assign.value == value;
  if (stmt->kind == N_IMPORT_FROM) {
    for (int i = 0; i < stmt->u.import_from.names.count; i++)
      if (stmt->u.import_from.names.items[i] == value)
        return true;
    return false;
  }
  if (stmt->kind != N_ASSIGN)
    return false;
  const Node *assigned = stmt->u.assign.value;
  if (assigned == value)
    return true;
  if (assigned->kind == N_TUPLE || assigned->kind == N_LIST)
    for (int i = 0; i < assigned->u.list.elts.count; i++)
      if (assigned->u.list.elts.items[i] == value)
        return true;
  return false;
}

/* Whether module-level statement `stmt` assigns `name`, itself or in the blocks of its
 * `if`s and `try`s, where the resolver finds module-level bindings (not in the functions and
 * classes it defines). */
static bool assigns_name(const Node *stmt, Str name);

static bool block_assigns_name(const NodeList *block, Str name) {
  for (int i = 0; i < block->count; i++)
    if (assigns_name(block->items[i], name))
      return true;
  return false;
}

static bool assigns_name(const Node *stmt, Str name) {
  if (stmt->kind == N_ASSIGN) {
    for (int t = 0; t < stmt->u.assign.targets.count; t++) {
      const Node *target = stmt->u.assign.targets.items[t];
      if (target->kind == N_NAME && str_same(target->u.name.id, name))
        return true;
      if (target->kind == N_TUPLE || target->kind == N_LIST)
        for (int e = 0; e < target->u.list.elts.count; e++)
          if (target->u.list.elts.items[e]->kind == N_NAME && str_same(target->u.list.elts.items[e]->u.name.id, name))
            return true;
    }
    return false;
  }
  if (stmt->kind == N_ANN_ASSIGN)
    return stmt->u.ann_assign.target->kind == N_NAME && str_same(stmt->u.ann_assign.target->u.name.id, name);
  if (stmt->kind == N_IF)
    return block_assigns_name(&stmt->u.if_.body, name) || block_assigns_name(&stmt->u.if_.orelse, name);
  if (stmt->kind == N_TRY) {
    for (int h = 0; h < stmt->u.try_.handlers.count; h++)
      if (block_assigns_name(&stmt->u.try_.handlers.items[h]->u.except_handler.body, name))
        return true;
    return block_assigns_name(&stmt->u.try_.body, name) || block_assigns_name(&stmt->u.try_.orelse, name) ||
           block_assigns_name(&stmt->u.try_.finalbody, name);
  }
  return false;
}

/* The constexpr twins of the constants `stmt` binds: after the statement that binds one;
 * for one bound in a branch of an `if` decided at import, after that module-level
 * statement (`top_level`), so that the twin holds the branch taken. */
static void push_twins_of(Lowerer *L, NodeList *out, const Node *stmt, bool top_level) {
  for (int i = 0; i < L->twin_count; i++) {
    const Binding *binding = L->twins[i];
    bool defined_here = binding->varies ? top_level && assigns_name(stmt, binding->name)
                                        : binds_value(stmt, binding->value);
    if (!defined_here)
      continue;
    Str name = binding->name;
    char *text = arena_printf(&L->ctx->arena, "%.*s_TL = tl.constexpr(%.*s)  # the value as tile code reads it\n",
                              name.len, name.text, name.len, name.text);
    NodeList made = template_stmts(L->ctx, text, NULL, 0);
    made.items[0]->note = "Triton kernels read only tl.constexpr globals";
    push_all(L, out, made);
  }
}

/* The constexpr twins of the members of the Enum class `stmt` defines that tile code reads. */
static void push_enum_twins_of(Lowerer *L, NodeList *out, const Node *stmt) {
  for (int i = 0; i < L->enum_member_count; i++) {
    if (L->enum_classes[i] != stmt)
      continue;
    Str name = stmt->u.class_def.name, member = L->enum_members[i];
    if (!member.len) { /* the class called in tile code: Mode(value) while Triton compiles */
      char *text = arena_printf(&L->ctx->arena,
                                "@triton.constexpr_function\n"
                                "def %.*s_TL(value):\n"
                                "    \"\"\"%.*s(value) in tile code (Triton calls only constexpr functions while "
                                "it compiles).\"\"\"\n"
                                "    return %.*s(value)\n",
                                name.len, name.text, name.len, name.text, name.len, name.text);
      push_all(L, out, template_stmts(L->ctx, text, NULL, 0));
      continue;
    }
    char *text = arena_printf(&L->ctx->arena, "%.*s_%.*s_TL = tl.constexpr(%.*s.%.*s)\n", name.len, name.text,
                              member.len, member.text, name.len, name.text, member.len, member.text);
    NodeList made = template_stmts(L->ctx, text, NULL, 0);
    made.items[0]->note = "Triton kernels read only tl.constexpr globals";
    push_all(L, out, made);
  }
}

/* The kernel's parameters as the cuTile source names them, a Python tuple: ("x", "out", "TILE"). */
static const char *source_params(Lowerer *L, const Function *kernel) {
  Buf *text = lower_buf(L);
  buf_putc(text, '(');
  for (int p = 0; p < kernel->param_count; p++)
    buf_printf(text, "%s\"%.*s\"", p ? ", " : "", kernel->param_names[p].len, kernel->param_names[p].text);
  buf_puts(text, kernel->param_count == 1 ? ",)" : ")");
  const char *result = arena_strndup(&L->ctx->arena, text->data, text->len);
  buf_free(text);
  return result;
}

/* The launcher of the kernel `stmt` defines, after it; its _host_kernel
 * line goes to `registrations` while the helpers are still to come (they
 * are then written after the helpers), else right after the launcher. */
static void push_launcher_of(Lowerer *L, NodeList *out, const Node *stmt, NodeList *registrations) {
  for (int i = 0; i < L->launcher_count; i++) {
    if (L->launcher_of[i]->def != stmt)
      continue;
    node_list_push(&L->ctx->arena, out, L->launchers[i]);
    Str name = L->launcher_of[i]->def->u.function_def.name, launcher = kernel_launcher_name(L, L->launcher_of[i]);
    const char *text = arena_printf(&L->ctx->arena, "_host_kernel(%.*s, %.*s, %s)\n", name.len, name.text,
                                    launcher.len, launcher.text, source_params(L, L->launcher_of[i]));
    if (L->launcher_replayed[i]) /* the module's calls of the launcher name the replaying one */
      text = arena_printf(&L->ctx->arena, "%.*s = _replayed(%.*s)\n%s", launcher.len, launcher.text,
                          launcher.len, launcher.text, text);
    push_all(L, registrations ? registrations : out, template_stmts(L->ctx, text, NULL, 0));
  }
}

/* A kernel defined in a block of a module-level statement (`if
 * CUTILE_AVAILABLE:` around the kernels, a try): its launcher and
 * _host_kernel line go right after it in that block, under the same
 * condition (the helpers are then written before the statement). */
static bool is_launched_kernel_def(Lowerer *L, const Node *stmt) {
  for (int i = 0; i < L->launcher_count; i++)
    if (L->launcher_of[i]->def == stmt)
      return true;
  return false;
}

static bool block_defines_launched_kernel(Lowerer *L, const NodeList *block);

static bool statement_defines_launched_kernel(Lowerer *L, const Node *stmt) {
  switch (stmt->kind) {
  case N_IF:
    return block_defines_launched_kernel(L, &stmt->u.if_.body) ||
           block_defines_launched_kernel(L, &stmt->u.if_.orelse);
  case N_TRY:
    if (block_defines_launched_kernel(L, &stmt->u.try_.body) ||
        block_defines_launched_kernel(L, &stmt->u.try_.orelse) ||
        block_defines_launched_kernel(L, &stmt->u.try_.finalbody))
      return true;
    for (int i = 0; i < stmt->u.try_.handlers.count; i++)
      if (block_defines_launched_kernel(L, &stmt->u.try_.handlers.items[i]->u.except_handler.body))
        return true;
    return false;
  case N_WITH: return block_defines_launched_kernel(L, &stmt->u.with.body);
  default: return false;
  }
}

static bool block_defines_launched_kernel(Lowerer *L, const NodeList *block) {
  for (int i = 0; i < block->count; i++)
    if (is_launched_kernel_def(L, block->items[i]) || statement_defines_launched_kernel(L, block->items[i]))
      return true;
  return false;
}

static void push_block_launchers(Lowerer *L, NodeList *block);

static void push_statement_launchers(Lowerer *L, Node *stmt) {
  switch (stmt->kind) {
  case N_IF:
    push_block_launchers(L, &stmt->u.if_.body);
    push_block_launchers(L, &stmt->u.if_.orelse);
    break;
  case N_TRY:
    push_block_launchers(L, &stmt->u.try_.body);
    for (int i = 0; i < stmt->u.try_.handlers.count; i++)
      push_block_launchers(L, &stmt->u.try_.handlers.items[i]->u.except_handler.body);
    push_block_launchers(L, &stmt->u.try_.orelse);
    push_block_launchers(L, &stmt->u.try_.finalbody);
    break;
  case N_WITH: push_block_launchers(L, &stmt->u.with.body); break;
  default: break;
  }
}

/* A block of a module-level statement: each kernel's launcher after it, and
 * each constant's (or Enum member's) constexpr twin after the statement that
 * binds it (`try: import cuda.tile as ct; SCALE = ...`), as at module level. */
static void push_block_launchers(Lowerer *L, NodeList *block) {
  NodeList out = {0};
  for (int i = 0; i < block->count; i++) {
    node_list_push(&L->ctx->arena, &out, block->items[i]);
    push_twins_of(L, &out, block->items[i], false);
    push_enum_twins_of(L, &out, block->items[i]);
    push_statement_launchers(L, block->items[i]);
    push_launcher_of(L, &out, block->items[i], NULL);
  }
  *block = out;
}

/* ----------------------------------------------- where the helpers go */

/* The generated helpers stand in one marked block after the user's code,
 * unless a statement runs code at import that may need one: then the block
 * goes just before that statement. Such a statement names a helper outside
 * a function body (decorators, defaults and class bodies run at import), or
 * calls a function of this module (a host function, a launcher), whose body
 * may reach the helpers. */
typedef struct ImportTimeUse {
  Lowerer *L;
  const NodeList *helpers;
  bool found;
} ImportTimeUse;

static bool defines_name(const Node *stmt, Str name) {
  if (stmt->kind == N_FUNCTION_DEF)
    return str_same(stmt->u.function_def.name, name);
  if (stmt->kind == N_CLASS_DEF)
    return str_same(stmt->u.class_def.name, name);
  if (stmt->kind == N_ASSIGN)
    for (int i = 0; i < stmt->u.assign.targets.count; i++) {
      const Node *target = stmt->u.assign.targets.items[i];
      if (target->kind == N_NAME && str_same(target->u.name.id, name))
        return true;
    }
  return false;
}

static bool names_helper(const ImportTimeUse *use, Str name) {
  for (int i = 0; i < use->helpers->count; i++)
    if (defines_name(use->helpers->items[i], name))
      return true;
  return false;
}

/* A kernel object used at import (k.replace_hints(...), a table of kernels)
 * needs what _host_kernel gives it, written with the helpers. */
static bool names_kernel(const ImportTimeUse *use, Str name) {
  Function *fn = find_function(use->L->conv, name);
  return fn && fn->role == ROLE_KERNEL;
}

static bool calls_module_function(const ImportTimeUse *use, const Node *call) {
  const Node *callee = call->u.call.func;
  if (callee->kind != N_NAME)
    return false;
  NodeList *body = &use->L->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++)
    if (body->items[i]->kind == N_FUNCTION_DEF && str_same(body->items[i]->u.function_def.name, callee->u.name.id))
      return true;
  /* a ct.launch at module level (a script), now a call of the kernel's launcher */
  for (int i = 0; i < use->L->launcher_count; i++)
    if (str_same(kernel_launcher_name(use->L, use->L->launcher_of[i]), callee->u.name.id))
      return true;
  return false;
}

static void find_import_time_use(Node **slot, void *data) {
  ImportTimeUse *use = data;
  Node *node = *slot;
  if (use->found)
    return;
  if (node->kind == N_NAME && (names_helper(use, node->u.name.id) || names_kernel(use, node->u.name.id))) {
    use->found = true;
    return;
  }
  if (node->kind == N_CALL && calls_module_function(use, node)) {
    use->found = true;
    return;
  }
  if (node->kind == N_FUNCTION_DEF) { /* its body runs when called; the rest now */
    for (int i = 0; i < node->u.function_def.decorator_list.count; i++)
      find_import_time_use(&node->u.function_def.decorator_list.items[i], data);
    if (node->u.function_def.args)
      node_child_slots(node->u.function_def.args, find_import_time_use, data);
    return;
  }
  if (node->kind == N_LAMBDA) {
    if (node->u.lambda.args)
      node_child_slots(node->u.lambda.args, find_import_time_use, data);
    return;
  }
  node_child_slots(node, find_import_time_use, data);
}

/* The start of the module's code: the end of the leading block of
 * docstring, __future__ imports and imports. */
static int import_block_end(Lowerer *L) {
  NodeList *body = &L->conv->module->u.module.body;
  int end = 0;
  for (int i = 0; i < body->count; i++) {
    NodeKind kind = body->items[i]->kind;
    if (kind == N_IMPORT || kind == N_IMPORT_FROM || (i == 0 && kind == N_EXPR_STMT))
      end = i + 1;
    else if (kind == N_FUNCTION_DEF || kind == N_CLASS_DEF)
      break;
  }
  return end;
}

/* `if __name__ == "__main__":`: a script's code, which runs at import when
 * the module is run (and may reach a launch through names it binds). */
static bool is_main_block(const Node *stmt) {
  if (stmt->kind != N_IF)
    return false;
  const Node *test = stmt->u.if_.test;
  if (test->kind != N_COMPARE || test->u.compare.count != 1 || test->u.compare.ops[0] != AOP_EQ)
    return false;
  const Node *left = test->u.compare.left, *right = test->u.compare.comparators[0];
  return left->kind == N_NAME && str_eq(left->u.name.id, "__name__") && right->kind == N_STRING;
}

/* Index of the statement the helpers go before (body->count: at the end).
 * Never inside the leading block of docstring and imports. */
static int helpers_index(Lowerer *L, const NodeList *helpers) {
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = import_block_end(L); i < body->count; i++) {
    if (is_main_block(body->items[i]))
      return i;
    ImportTimeUse use = {L, helpers, false};
    find_import_time_use(&body->items[i], &use);
    /* the launcher written after a kernel: its defaults run at import */
    for (int k = 0; k < L->launcher_count && !use.found; k++)
      if (L->launcher_of[k]->def == body->items[i])
        find_import_time_use(&L->launchers[k], &use);
    /* a kernel in a block: its _host_kernel line runs there */
    if (use.found || statement_defines_launched_kernel(L, body->items[i]))
      return i;
  }
  return body->count;
}

/* The banner above the block, so a reader knows where the user's code ends. */
static void push_helpers_banner(Lowerer *L, NodeList *out, NodeList *droppable) {
  static const char *const lines[] = {
      "----------------------------------------------------------------------------",
      "Written by cutile2triton: the helpers the converted code above calls.",
      "----------------------------------------------------------------------------",
  };
  for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
    Node *comment = arena_alloc(&L->ctx->arena, sizeof(Node));
    comment->kind = N_COMMENT;
    comment->u.piece.text = (Str){lines[i], (int)strlen(lines[i])};
    comment->rewritten = true;
    node_list_push(&L->ctx->arena, out, comment);
    node_list_push(&L->ctx->arena, droppable, comment);
  }
}

/* Whether a converted def (@triton.jit) stands before the module's cuda.tile import: the
 * converter's imports (triton) must then come before it, at the end of the leading imports. */
static bool tile_code_before_import(Lowerer *L) {
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count && !is_ct_import(L, body->items[i]); i++) {
    const Node *stmt = body->items[i];
    Function *fn = function_of_def(L->conv, stmt);
    if (fn && fn->role != ROLE_HOST && !(fn->host_too && !stmt->u.function_def.decorator_list.count))
      return true;
  }
  return false;
}

/* The twin of a dataclass's method (resolve_methods.c) that no call in tile code reached: a
 * method of the same name as one that was (t.reshape(...) beside a dataclass's reshape). */
static bool is_unused_method_twin(Lowerer *L, const Node *stmt) {
  Function *fn = function_of_def(L->conv, stmt);
  return fn && fn->method_of && !fn->lowered;
}

void finish_module(Lowerer *L) {
  NodeList *body = &L->conv->module->u.module.body;
  /* only module-level imports and those in module-level if/try blocks are ct_imports (resolve.c) */
  drop_guarded_imports(L, body, false);
  bool top_level_import = false;
  for (int i = 0; i < body->count; i++)
    top_level_import |= is_ct_import(L, body->items[i]);
  /* a guarded cuda.tile import left its block, or one in a host function left it (kernels
   * defined in functions now stand before the module's own import): the converter's imports
   * go after the module's leading imports */
  int imports_at = top_level_import && !L->conv->ct_imported_in_functions && !tile_code_before_import(L)
                       ? -1
                       : import_block_end(L);
  NodeList helpers = {0};
  push_helpers(L, &helpers);
  int helpers_at = helpers_index(L, &helpers);
  NodeList out = {0}, registrations = {0}, own = {0};
  NodeList droppable = {0}; /* what the converter adds that may go unread: drop_unread_made */
  push_all(L, &droppable, helpers);
  /* the constexpr twins of constants bound before the converter's imports
   * (`from .config import BLOCK` above `import cuda.tile`) follow them: they call tl */
  NodeList early_twins = {0};
  bool imports_done = false;
  for (int i = 0; i <= body->count; i++) {
    if (i == imports_at && !imports_done) {
      push_imports(L, &out, &droppable, NULL, helpers_at);
      imports_done = true;
      push_all(L, &out, early_twins);
    }
    if (i == helpers_at && helpers.count) {
      push_helpers_banner(L, &out, &droppable);
      push_all(L, &out, helpers);
      push_all(L, &out, registrations);
    }
    if (i == body->count)
      break;
    Node *stmt = body->items[i];
    if (is_ct_import(L, stmt)) {
      if (!imports_done) {
        push_imports(L, &out, &droppable, stmt, helpers_at);
        push_all(L, &out, early_twins);
      }
      imports_done = true;
    } else if (!is_ct_type_alias(L, stmt) && !is_unused_method_twin(L, stmt)) {
      node_list_push(&L->ctx->arena, &out, stmt);
      node_list_push(&L->ctx->arena, &own, stmt);
      push_twins_of(L, imports_done ? &out : &early_twins, stmt, true);
      push_enum_twins_of(L, imports_done ? &out : &early_twins, stmt);
      push_launcher_of(L, &out, stmt, i < helpers_at ? &registrations : NULL);
      push_statement_launchers(L, stmt);
    }
  }
  drop_unread_made(L, &out, &droppable);
  /* what the converter added: the statements of `out` that are not the module's own (in
   * the same order in both) */
  NodeList made = {0};
  for (int i = 0, j = 0; i < out.count; i++) {
    if (j < own.count && out.items[i] == own.items[j])
      j++;
    else
      node_list_push(&L->ctx->arena, &made, out.items[i]);
  }
  check_module_names(L, &own, made);
  *body = out;
}
