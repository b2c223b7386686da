/*
 * api.c — the public entry points (include/cutile2triton.h).
 *
 * Each call sets up one Context (arena + diagnostics), runs the pipeline
 * stages under a setjmp that catches the first error, and copies what the
 * caller gets into malloc'd strings before the arena is released.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "lower/lower.h"
#include "lower/ops.h"
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

void c2t_report_free(c2t_report *report) {
  if (!report)
    return;
  free(report->stats);
  report->stats = NULL;
  report->stats_len = 0;
}

static int api_run(ApiJob job, const char *filename, const char *source, size_t length, c2t_result *result,
                   const c2t_options *options, c2t_report *report) {
  memset(result, 0, sizeof *result);
  if (report)
    memset(report, 0, sizeof *report);
  unsigned flags = options ? options->flags : 0;
  Buf stats_text = {0};
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
      char what[80];
      snprintf(what, sizeof what, "bytes in one input: %zu", length);
      diag_limit(&ctx->diag, start, what, C2T_MAX_SOURCE_BYTES);
    }
    ctx->source.text = arena_strndup(&ctx->arena, source ? source : "", source ? length : 0);
    ctx->source.len = source ? length : 0;
    ParseResult parsed = parse_module(ctx);
    if (job == JOB_CONVERT) {
      Converter *conv = arena_alloc(&ctx->arena, sizeof(Converter));
      conv->ctx = ctx;
      conv->module = parsed.module;
      if (flags & C2T_OPTION_STATS)
        conv->stats = arena_alloc(&ctx->arena, sizeof(ConvertStats));
      conv->notes_fatal = (flags & C2T_OPTION_NOTES_FATAL) != 0;
      conv->no_autotune = (flags & C2T_OPTION_NO_AUTOTUNE) != 0;
      conv->no_loop_split = (flags & C2T_OPTION_NO_LOOP_SPLIT) != 0;
      conv->tile_only_op = op_is_tile_only;
      conv->stub_name = op_in_stub;
      conv->public_name = op_is_public_name;
      ctx->diag.code = C2T_CODE_MODULE;
      resolve_module(conv);
      if (report)
        report->imports_cuda_tile = conv->ct_imports.count > 0;
      if (conv->ct_imports.count == 0 && (flags & C2T_OPTION_CUTILE_ONLY)) {
        result->status = C2T_NOT_CUTILE;
        goto done;
      }
      if (conv->ct_imports.count == 0)
        diag_error_code(&ctx->diag, C2T_CODE_NOT_CUTILE, (Pos){1, 0, 0},
                        "this module does not import cuda.tile: there is nothing to convert");
      ctx->diag.code = C2T_CODE_TILE;
      lower_module(conv);
      ctx->diag.code = C2T_CODE_INTERNAL;
      if (conv->stats)
        stats_format(conv->stats, &stats_text);
    }
    if (job == JOB_ROUNDTRIP)
      emit_python_module(ctx, &parsed, &output);
    else if (job == JOB_CONVERT)
      emit_converted_module(ctx, &parsed, &output);
    result->status = C2T_OK;
  done:;
  } else {
    if (ctx->diag.error_count == 0)
      buf_puts(&ctx->diag.messages, "cutile2triton: out of memory\n");
    result->status = C2T_ERROR_INPUT;
    buf_free(&output);
  }
  if (result->status == C2T_OK && job != JOB_CHECK)
    result->output = api_take_string(&output, &result->output_len);
  buf_free(&output);
  if (result->status == C2T_OK && report && (flags & C2T_OPTION_STATS))
    report->stats = api_take_string(&stats_text, &report->stats_len);
  buf_free(&stats_text);
  result->diagnostics = api_take_string(&ctx->diag.messages, &result->diagnostics_len);
  arena_free(&ctx->arena);
  free(ctx);
  return result->status;
}

int c2t_roundtrip(const char *filename, const char *source, size_t length, c2t_result *result) {
  return api_run(JOB_ROUNDTRIP, filename, source, length, result, NULL, NULL);
}

int c2t_check_syntax(const char *filename, const char *source, size_t length, c2t_result *result) {
  return api_run(JOB_CHECK, filename, source, length, result, NULL, NULL);
}

int c2t_convert(const char *filename, const char *source, size_t length, c2t_result *result) {
  return api_run(JOB_CONVERT, filename, source, length, result, NULL, NULL);
}

int c2t_convert_ex(const char *filename, const char *source, size_t length, const c2t_options *options,
                   c2t_result *result, c2t_report *report) {
  return api_run(JOB_CONVERT, filename, source, length, result, options, report);
}
