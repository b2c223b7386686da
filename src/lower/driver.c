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

static void lower_module_body(Lowerer *L) {
  Converter *conv = L->conv;
  if (conv->ct_imports.count == 0)
    lower_error(L, NULL, "this module does not import cuda.tile: there is nothing to convert");
  for (int i = 0; i < conv->function_count; i++)
    if (conv->functions[i].role == ROLE_KERNEL)
      lower_kernel(L, &conv->functions[i]);
  for (int i = 0; i < conv->function_count; i++)
    if (conv->functions[i].role == ROLE_DEVICE && !conv->functions[i].lowered &&
        !(conv->functions[i].host_too && !conv->functions[i].def->u.function_def.decorator_list.count))
      lower_unused_device_function(L, &conv->functions[i]); /* one host code uses too stays as written */
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
