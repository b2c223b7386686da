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
 *             k[grid](x, tuple(x.shape), tuple(x.stride()), ..., n, BLOCK, ...)
 *
 * so a host call site `ct.launch(stream, grid, k, args)` keeps working
 * however it builds `args` (a literal, a variable, a tuple built in a loop).
 */
#include <string.h>

#include "lower.h"
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
  Buf *text;     /* keyword arguments of the launch, one per line (lower_buf) */
  Buf *notes;    /* comments about hints that have no Triton counterpart (lower_buf) */
  Node *values[9];
  int count;
} LaunchOptions;

/* Launch options from the kernel's decorator: num_ctas (a ct.ByTarget is
 * resolved at launch by _by_target), occupancy and the other compiler hints
 * (no Triton counterpart: a comment says so). */
static void collect_launch_options(Lowerer *L, Function *kernel, LaunchOptions *options) {
  Node *decorator = kernel->kernel_decorator;
  if (!decorator || decorator->kind != N_CALL)
    return;
  NodeList *keywords = &decorator->u.call.keywords;
  for (int i = 0; i < keywords->count; i++) {
    Node *kw = keywords->items[i];
    Str name = kw->u.keyword.arg;
    Node *value = kw->u.keyword.value;
    if (str_eq(name, "num_ctas")) {
      if (value->kind == N_CALL && is_ct_member(L->conv, value->u.call.func, "ByTarget")) {
        value->u.call.func = new_name(L, "_by_target");
        L->needs_by_target = true;
      }
      options->values[options->count++] = value;
      buf_printf(options->text, "            num_ctas=_%d,\n", options->count);
    } else if (str_eq(name, "occupancy") || str_eq(name, "opt_level") || str_eq(name, "num_worker_warps")) {
      Str written = source_text(L, value);
      if (L->conv->notes_fatal) /* C2T_OPTION_NOTES_FATAL (--werror-notes): at the hint */
        diag_error_code(&L->ctx->diag, "C2T101", kw->span.start,
                        "%.*s=%.*s is a cuTile compiler hint with no Triton launch option (an approximation note, an "
                        "error under --werror-notes)",
                        name.len, name.text, written.len, written.text);
      stats_notes(L->conv, "C2T101");
      buf_printf(options->notes,
                 "    # C2T101: %.*s=%.*s is a cuTile compiler hint with no Triton launch option; not used.\n",
                 name.len, name.text, written.len, written.text);
    } else {
      lower_error(L, kw, "kernel hint '%.*s' cannot be converted", name.len, name.text);
    }
  }
}

/* The launch call's arguments: each array as pointer, shape and strides
 * tuples, then the TMA flags the kernel reads (checked on the real tensors).
 * The arrays are torch tensors by then: first_array_param makes them so. */
static void launch_arguments(Lowerer *L, Function *kernel, Buf *unpack, Buf *call) {
  for (int i = 0; i < kernel->param_count; i++) {
    Str param = kernel->param_names[i];
    buf_printf(unpack, "%s%.*s", i ? ", " : "", param.len, param.text);
    if (kernel->param_is_array[i])
      buf_printf(call, "            %.*s, tuple(%.*s.shape), tuple(%.*s.stride()),\n", param.len, param.text,
                 param.len, param.text, param.len, param.text);
    else if (kernel->param_is_array_tuple[i])
      buf_printf(call,
                 "            %.*s,\n"
                 "            tuple(tuple(array.shape) for array in %.*s),\n"
                 "            tuple(tuple(array.stride()) for array in %.*s),\n",
                 param.len, param.text, param.len, param.text, param.len, param.text);
    else
      buf_printf(call, "            %.*s,\n", param.len, param.text);
  }
  for (int i = 0; i < L->tma_array_count; i++) {
    Str array = L->tma_arrays[i];
    buf_printf(call, "            %.*s_tma=_tma_compatible(%.*s),\n", array.len, array.text, array.len, array.text);
  }
}

/* The arguments of the launch's stream context after the stream: each array
 * parameter made a torch tensor, once per launch and zero-copy, as cuTile took
 * CUDA-array-interface and DLPack arrays (`x := _tensor(x, "x")`; a tuple of
 * arrays by _tensors). The first array's device decides the stream's. */
static const char *first_array_param(Lowerer *L, const Function *kernel) {
  Buf text = {0};
  for (int i = 0; i < kernel->param_count; i++) {
    Str param = kernel->param_names[i];
    const char *convert = kernel->param_is_array[i] ? "_tensor" : kernel->param_is_array_tuple[i] ? "_tensors" : NULL;
    if (convert)
      buf_printf(&text, "%s%.*s := %s(%.*s, \"%.*s\")", text.len ? ", " : "", param.len, param.text, convert, param.len,
                 param.text, param.len, param.text);
  }
  char *made = str_text(L, (Str){text.data ? text.data : "", (int)text.len});
  buf_free(&text);
  return made;
}

void lower_launcher(Lowerer *L, Function *kernel) {
  Node *def = kernel->def;
  Str name = def->u.function_def.name;
  /* lower_buf: a hint that cannot be converted ends the lowering with an error */
  Buf text = {0}, *unpack = lower_buf(L), *call = lower_buf(L);
  launch_arguments(L, kernel, unpack, call);
  LaunchOptions options = {lower_buf(L), lower_buf(L), {0}, 0};
  collect_launch_options(L, kernel, &options);
  /* the docstring on one line, or broken before ct.launch where that runs past the line limit */
  const char *docstring_break = 4 + 53 + 2 * name.len > EMIT_LINE_LIMIT ? "\n    " : " ";
  buf_printf(&text,
             "def launch_%.*s(stream, grid, args):\n"
             "    \"\"\"Launch %.*s as%sct.launch(stream, grid, %.*s, args) did.\"\"\"\n"
             "%s"
             "    %s%s = args\n"
             "    with _kernel_stream(stream, %s):\n"
             "        %.*s[tuple(grid)](\n%s%s        )\n",
             name.len, name.text, name.len, name.text, docstring_break, name.len, name.text,
             options.notes->data ? options.notes->data : "", unpack->data ? unpack->data : "_",
             kernel->param_count == 1 ? "," : "", first_array_param(L, kernel), name.len, name.text,
             call->data ? call->data : "", options.text->data ? options.text->data : "");
  NodeList made = template_stmts(L->ctx, arena_strndup(&L->ctx->arena, text.data, text.len), options.values,
                                 options.count);
  buf_free(options.text);
  buf_free(options.notes);
  buf_free(&text);
  buf_free(unpack);
  buf_free(call);
  if (L->launcher_count == C2T_MAX_KERNELS)
    diag_limit(&L->ctx->diag, def->span.start, "kernels in one module", C2T_MAX_KERNELS);
  L->launchers[L->launcher_count] = made.items[0];
  L->launcher_of[L->launcher_count++] = kernel;
}

/* ------------------------------------------------------------ host code */

typedef struct HostRewrite {
  Lowerer *L;
} HostRewrite;

static Function *kernel_named(Lowerer *L, const Node *expr) {
  if (expr->kind != N_NAME)
    return NULL;
  Function *fn = find_function(L->conv, expr->u.name.id);
  return fn && fn->role == ROLE_KERNEL ? fn : NULL;
}

/* ct.launch(stream, grid, kernel, args) -> launch_kernel(stream, grid, args) */
static Node *rewrite_launch(Lowerer *L, Node *call) {
  NodeList *args = &call->u.call.args;
  if (args->count != 4 || call->u.call.keywords.count)
    lower_error(L, call, "ct.launch takes (stream, grid, kernel, args) as four positional arguments");
  Function *kernel = kernel_named(L, args->items[2]);
  if (!kernel) {
    /* a kernel chosen at run time: dispatch on the kernel object */
    L->needs_generic_launch = true;
    return T(L, "launch_kernel(_1, _2, _3, _4)", args->items[0], args->items[1], args->items[2], args->items[3]);
  }
  Str name = kernel->def->u.function_def.name;
  Node *launcher = new_name(L, arena_printf(&L->ctx->arena, "launch_%.*s", name.len, name.text));
  return T(L, "_1(_2, _3, _4)", launcher, args->items[0], args->items[1], args->items[3]);
}

/* ct.cdiv(x, y) on the host: cuTile computes -((-x) // y), exact ceiling. */
static Node *rewrite_host_cdiv(Lowerer *L, Node *call) {
  NodeList *args = &call->u.call.args;
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

static Node *rewrite_host_member(Lowerer *L, Node *node, const char *member) {
  DType dtype = dtype_from_cutile_name(member);
  if (dtype != DT_UNKNOWN)
    return T0(L, dtype_info(dtype)->torch);
  lower_error(L, node, "host code uses ct.%s, which has no conversion on the host", member);
}

static void rewrite_host_slot(Node **slot, void *data) {
  HostRewrite *rw = data;
  Lowerer *L = rw->L;
  Node *node = *slot;
  if (node->kind == N_FUNCTION_DEF) {
    Function *fn = find_function(L->conv, node->u.function_def.name);
    if (fn && fn->def == node && fn->role != ROLE_HOST)
      return; /* tile code: lowered already */
  }
  if (node->kind == N_IMPORT || node->kind == N_IMPORT_FROM)
    return;
  if (node->kind == N_CALL) {
    const char *member = resolve_ct_member(L->conv, node->u.call.func);
    if (member && strcmp(member, "launch") == 0) {
      rewrite_call_arguments(node, data);
      *slot = rewrite_launch(L, node);
      return;
    }
    if (member && strcmp(member, "cdiv") == 0) {
      rewrite_call_arguments(node, data);
      *slot = rewrite_host_cdiv(L, node);
      return;
    }
  }
  if (node->kind == N_NAME || node->kind == N_ATTRIBUTE) {
    const char *member = resolve_ct_member(L->conv, node);
    if (member) {
      *slot = rewrite_host_member(L, node, member);
      return;
    }
  }
  node_child_slots(node, rewrite_host_slot, data);
}

void lower_host_code(Lowerer *L) {
  HostRewrite rw = {L};
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    /* module-level aliases of cuTile names (ConstInt = ct.Constant[int]) go away with the import */
    if (stmt->kind == N_ASSIGN && stmt->u.assign.targets.count == 1 && resolve_ct_member(L->conv, stmt->u.assign.value) == NULL &&
        stmt->u.assign.value->kind == N_SUBSCRIPT && resolve_ct_member(L->conv, stmt->u.assign.value->u.subscript.value))
      continue;
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

/* `ConstInt = ct.Constant[int]`: a cuTile type alias, gone with cuda.tile. */
static bool is_ct_type_alias(Lowerer *L, const Node *stmt) {
  if (stmt->kind != N_ASSIGN || stmt->u.assign.targets.count != 1)
    return false;
  const Node *value = stmt->u.assign.value;
  if (value->kind == N_SUBSCRIPT)
    value = value->u.subscript.value;
  const char *member = resolve_ct_member(L->conv, value);
  return member && dtype_from_cutile_name(member) == DT_UNKNOWN;
}

static bool module_imports(Lowerer *L, const char *module) {
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind != N_IMPORT)
      continue;
    for (int j = 0; j < stmt->u.import.names.count; j++) {
      Node *alias = stmt->u.import.names.items[j];
      if (str_eq(alias->u.alias.name, module) && alias->u.alias.asname.len == 0)
        return true;
    }
  }
  return false;
}

static void push_all(Lowerer *L, NodeList *out, NodeList stmts) {
  for (int i = 0; i < stmts.count; i++)
    node_list_push(&L->ctx->arena, out, stmts.items[i]);
}

/* The imports the converted module needs, where the cuda.tile import
 * `replaced` stood: the comments and blank lines above it (a licence
 * header, say) stay above the first of them and its trailing comment goes
 * to the last, so the emitter is given those source lines through the
 * spans (the statements stay marked as written by the converter). */
static void push_imports(Lowerer *L, NodeList *out, const Node *replaced) {
  Buf text = {0};
  if (!module_imports(L, "contextlib"))
    buf_puts(&text, "import contextlib\n");
  if (L->needs_interpreted_flag && !module_imports(L, "os"))
    buf_puts(&text, "import os\n");
  if (!module_imports(L, "torch"))
    buf_puts(&text, "import torch\n");
  buf_puts(&text, "import triton\nimport triton.language as tl\n");
  if (L->needs_libdevice)
    buf_puts(&text, "from triton.language.extra import libdevice\n");
  NodeList imports = template_stmts(L->ctx, arena_strndup(&L->ctx->arena, text.data, text.len), NULL, 0);
  buf_free(&text);
  Node *first = imports.items[0], *last = imports.items[imports.count - 1];
  first->span.start = replaced->span.start;
  last->span.end = replaced->span.end;
  first->rewritten = last->rewritten = true;
  push_all(L, out, imports);
}

static void push_helpers(Lowerer *L, NodeList *out) {
  if (L->needs_interpreted_flag) {
    NodeList flag = helper_stmts(L, HELPER_INTERPRETED);
    flag.items[0]->note = "TRITON_INTERPRET=1: Triton's CPU interpreter, where libdevice and device asserts are unavailable";
    push_all(L, out, flag);
  }
  push_all(L, out, helper_stmts(L, HELPER__tensor));
  push_all(L, out, helper_stmts(L, HELPER__tensors));
  push_all(L, out, helper_stmts(L, HELPER__torch_stream));
  push_all(L, out, helper_stmts(L, HELPER__kernel_stream));
  if (L->uses_tma) {
    push_all(L, out, helper_stmts(L, HELPER__tma_compatible));
    push_all(L, out, helper_stmts(L, HELPER__tma_workspace));
  }
  if (L->needs_by_target)
    push_all(L, out, helper_stmts(L, HELPER__by_target));
  append_runtime_helpers(L, out);
}

static void push_twins_of(Lowerer *L, NodeList *out, const Node *stmt) {
  for (int i = 0; i < L->twin_count; i++) {
    const Binding *binding = L->twins[i];
    bool defined_here = (stmt->kind == N_ASSIGN && stmt->u.assign.value == binding->value) ||
                        (stmt->kind == N_ANN_ASSIGN && stmt->u.ann_assign.value == binding->value);
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

/* launch_kernel(stream, grid, kernel, args): ct.launch of a kernel chosen
 * at run time, through a table from each converted kernel to its launcher. */
static void push_generic_launcher(Lowerer *L, NodeList *out) {
  Buf text = {0};
  buf_puts(&text, "_LAUNCHERS = {\n");
  for (int i = 0; i < L->launcher_count; i++) {
    Str name = L->launcher_of[i]->def->u.function_def.name;
    buf_printf(&text, "    %.*s: launch_%.*s,\n", name.len, name.text, name.len, name.text);
  }
  buf_puts(&text, "}\n");
  push_all(L, out, template_stmts(L->ctx, arena_strndup(&L->ctx->arena, text.data, text.len), NULL, 0));
  buf_free(&text);
  push_all(L, out, helper_stmts(L, HELPER_launch_kernel));
}

static void push_launcher_of(Lowerer *L, NodeList *out, const Node *stmt) {
  for (int i = 0; i < L->launcher_count; i++) {
    if (L->launcher_of[i]->def != stmt)
      continue;
    node_list_push(&L->ctx->arena, out, L->launchers[i]);
    if (i == L->launcher_count - 1 && L->needs_generic_launch)
      push_generic_launcher(L, out);
  }
}

/* Index after which the imports and helpers go: the end of the leading
 * block of docstring, __future__ imports and imports. */
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

void finish_module(Lowerer *L) {
  NodeList *body = &L->conv->module->u.module.body;
  for (int i = 0; i < L->conv->ct_imports.count; i++) {
    Node *import = L->conv->ct_imports.items[i];
    bool top_level = false;
    for (int j = 0; j < body->count; j++)
      top_level |= body->items[j] == import;
    if (!top_level)
      lower_error(L, import, "cuda.tile is imported inside a block; only module-level imports can be converted");
  }
  int helpers_at = import_block_end(L);
  NodeList out = {0};
  bool imports_done = false;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (is_ct_import(L, stmt)) {
      if (!imports_done)
        push_imports(L, &out, stmt);
      imports_done = true;
    } else if (!is_ct_type_alias(L, stmt)) {
      node_list_push(&L->ctx->arena, &out, stmt);
      push_twins_of(L, &out, stmt);
      push_launcher_of(L, &out, stmt);
    }
    if (i + 1 == helpers_at)
      push_helpers(L, &out);
  }
  if (helpers_at == 0) {
    NodeList with_helpers = {0};
    push_helpers(L, &with_helpers);
    push_all(L, &with_helpers, out);
    out = with_helpers;
  }
  *body = out;
}
