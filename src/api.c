/*
 * api.c — the public entry points (include/cutile2triton.h).
 *
 * Each call sets up one Context (arena + diagnostics), runs the pipeline
 * stages under a setjmp that catches the first error, and copies what the
 * caller gets into malloc'd strings before the arena is released.
 */
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "lower/lower.h"
#include "emit/emit.h"

const char *c2t_version(void) { return C2T_VERSION; }

void c2t_result_free(c2t_result *result) {
  if (!result)
    return;
  free(result->output);
  free(result->diagnostics);
  result->output = result->diagnostics = NULL;
  result->output_len = result->diagnostics_len = 0;
}

typedef enum ApiJob { JOB_CHECK, JOB_ROUNDTRIP, JOB_CONVERT } ApiJob;

static char *api_take_string(Buf *buf, size_t *length) {
  if (!buf->data)
    buf_put(buf, "", 0);
  *length = buf->len;
  char *data = buf->data;
  buf->data = NULL;
  buf->len = buf->cap = 0;
  return data;
}

static int api_run(ApiJob job, const char *filename, const char *source, size_t length, c2t_result *result) {
  memset(result, 0, sizeof *result);
  Context *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    abort();
  arena_init(&ctx->arena);
  ctx->arena.on_out_of_memory = &ctx->diag.on_error;
  ctx->source.name = filename ? filename : "<input>";
  ctx->diag.source = &ctx->source;
  Buf output = {0};
  if (setjmp(ctx->diag.on_error) == 0) {
    if (length > C2T_MAX_SOURCE_BYTES) {
      Pos start = {1, 0, 0};
      ctx->source.text = "";
      diag_error(&ctx->diag, start, "input is %zu bytes, more than the limit of %u", length,
                 (unsigned)C2T_MAX_SOURCE_BYTES);
    }
    ctx->source.text = arena_strndup(&ctx->arena, source ? source : "", source ? length : 0);
    ctx->source.len = source ? length : 0;
    ParseResult parsed = parse_module(ctx);
    if (job == JOB_CONVERT) {
      Converter *conv = arena_alloc(&ctx->arena, sizeof(Converter));
      conv->ctx = ctx;
      conv->module = parsed.module;
      resolve_module(conv);
      lower_module(conv);
    }
    if (job == JOB_ROUNDTRIP)
      emit_python_module(ctx, &parsed, &output);
    else if (job == JOB_CONVERT)
      emit_converted_module(ctx, &parsed, &output);
    result->status = C2T_OK;
  } else {
    if (ctx->diag.error_count == 0)
      buf_puts(&ctx->diag.messages, "cutile2triton: out of memory\n");
    result->status = C2T_ERROR_INPUT;
    buf_free(&output);
  }
  if (result->status == C2T_OK && job != JOB_CHECK)
    result->output = api_take_string(&output, &result->output_len);
  result->diagnostics = api_take_string(&ctx->diag.messages, &result->diagnostics_len);
  arena_free(&ctx->arena);
  free(ctx);
  return result->status;
}

int c2t_roundtrip(const char *filename, const char *source, size_t length, c2t_result *result) {
  return api_run(JOB_ROUNDTRIP, filename, source, length, result);
}

int c2t_check_syntax(const char *filename, const char *source, size_t length, c2t_result *result) {
  return api_run(JOB_CHECK, filename, source, length, result);
}

int c2t_convert(const char *filename, const char *source, size_t length, c2t_result *result) {
  return api_run(JOB_CONVERT, filename, source, length, result);
}
