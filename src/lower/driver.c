/*
 * driver.c — the lowering driver: a module's kernels (lower_function.c),
 * the tile functions no kernel reaches, host code and the generated pieces
 * (launch.c); the lowering's Bufs freed on the way out, error or not.
 */
#include <string.h>

#include "lower.h"

static void free_tracked_bufs(Lowerer *L) {
  for (TrackedBuf *tracked = L->bufs; tracked; tracked = tracked->next)
    buf_free(&tracked->buf); /* one already freed has data NULL */
  L->bufs = NULL;
}

/* A kernel's positional-only and keyword-only parameters (`def k(a, /, b, *, TILE)`) as
 * plain ones in their order: ct.launch gives a kernel its arguments by position, all of
 * them, whatever their kind, and so does the converted launcher. A keyword-only parameter
 * with a default stays as written (the kernel's lowering refuses it). */
static void flatten_kernel_params(Lowerer *L, Node *def) {
  Node *arguments = def->u.function_def.args;
  NodeList *posonly = &arguments->u.arguments.posonlyargs, *kwonly = &arguments->u.arguments.kwonlyargs;
  if (!posonly->count && !kwonly->count)
    return;
  for (int i = 0; i < arguments->u.arguments.kw_defaults.count; i++)
    if (arguments->u.arguments.kw_defaults.items[i])
      return;
  if (kwonly->count && arguments->u.arguments.defaults.count)
    return; /* a parameter without a default after one with: not a plain list */
  NodeList params = {0};
  const NodeList *lists[] = {posonly, &arguments->u.arguments.args, kwonly};
  for (int l = 0; l < 3; l++)
    for (int i = 0; i < lists[l]->count; i++)
      node_list_push(&L->ctx->arena, &params, lists[l]->items[i]);
  arguments->u.arguments.args = params;
  *posonly = *kwonly = arguments->u.arguments.kw_defaults = (NodeList){0};
}

static void lower_module_body(Lowerer *L) {
  Converter *conv = L->conv;
  if (conv->ct_imports.count == 0)
    lower_error(L, NULL, "this module does not import cuda.tile: there is nothing to convert");
  for (int i = 0; i < conv->function_count; i++)
    if (conv->functions[i].role == ROLE_KERNEL)
      flatten_kernel_params(L, conv->functions[i].def);
  for (int i = 0; i < conv->function_count; i++)
    if (conv->functions[i].role == ROLE_KERNEL)
      lower_kernel(L, &conv->functions[i]);
  for (int i = 0; i < conv->function_count; i++)
    if (conv->functions[i].role == ROLE_DEVICE && !conv->functions[i].lowered && !conv->functions[i].method_of &&
        !(conv->functions[i].host_too && !conv->functions[i].def->u.function_def.decorator_list.count))
      lower_unused_device_function(L, &conv->functions[i]); /* one host code uses too stays as written; a
                                                               method's twin no call reached is left out */
  lower_host_code(L);
  finish_module(L);
}

/* Any error of the lowering (lower_error, diag errors of the notes) passes
 * through here first: the lowering's Bufs are freed, then the error goes on
 * to the caller's handler. */
void lower_module(Converter *conv) {
  Lowerer *L = arena_alloc(&conv->ctx->arena, sizeof(Lowerer));
  L->conv = conv;
  L->ctx = conv->ctx;
  Diag *diag = &conv->ctx->diag;
  jmp_buf outer;
  memcpy(&outer, &diag->on_error, sizeof outer);
  int status = setjmp(diag->on_error);
  if (status != 0) {
    free_tracked_bufs(L);
    memcpy(&diag->on_error, &outer, sizeof outer);
    longjmp(diag->on_error, status);
  }
  lower_module_body(L);
  free_tracked_bufs(L);
  memcpy(&diag->on_error, &outer, sizeof outer);
}
