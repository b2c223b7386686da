/*
 * main.c — runs every unit suite and prints "unit: N passed, M failed".
 */
#include <stdlib.h>

#include "unit.h"
#include "parse/parser.h"

int unit_failures_in_test;
static int unit_passed, unit_failed;

void unit_run(const char *name, void (*test)(void)) {
  unit_failures_in_test = 0;
  test();
  if (unit_failures_in_test == 0) {
    unit_passed++;
  } else {
    unit_failed++;
    fprintf(stderr, "FAIL %s\n", name);
  }
}

/* First line of a diagnostic, "FILE:L:C: error: MESSAGE": the code that
 * follows "error: " (C2Tnnn: ...) is checked to be there and taken out, so
 * the expectations name the message only. A missing code fails the test. */
static char *unit_first_line(const char *messages) {
  const char *end = strchr(messages, '\n');
  size_t length = end ? (size_t)(end - messages) : strlen(messages);
  char *line = malloc(length + 1);
  memcpy(line, messages, length);
  line[length] = '\0';
  char *severity = strstr(line, ": error: ");
  if (severity) {
    char *code = severity + strlen(": error: ");
    if (strncmp(code, "C2T", 3) == 0 && strlen(code) >= 8 && code[6] == ':' && code[7] == ' ')
      memmove(code, code + 8, strlen(code + 8) + 1);
    else
      unit_failures_in_test++;
  }
  return line;
}

static const char *KIND_NAMES[] = {
    [TOK_EOF] = "EOF", [TOK_NEWLINE] = "NEWLINE", [TOK_INDENT] = "INDENT", [TOK_DEDENT] = "DEDENT",
    [TOK_NAME] = "NAME", [TOK_NUMBER] = "NUMBER", [TOK_STRING] = "STRING",
    [TOK_FSTRING_START] = "FSTART", [TOK_FSTRING_MIDDLE] = "FMID", [TOK_FSTRING_END] = "FEND", [TOK_OP] = "OP",
};

typedef enum { UNIT_TOKENS, UNIT_PARSE } UnitStage;

static char *unit_stage(UnitStage stage, const char *source) {
  Context *ctx = calloc(1, sizeof *ctx);
  arena_init(&ctx->arena);
  ctx->source.name = "<test>";
  ctx->source.text = source;
  ctx->source.len = strlen(source);
  ctx->diag.source = &ctx->source;
  Buf out = {0};
  if (setjmp(ctx->diag.on_error) == 0) {
    if (stage == UNIT_TOKENS) {
      TokenList list = tokenize(ctx);
      for (int i = 0; i < list.count; i++) {
        Token *t = &list.tokens[i];
        if (i)
          buf_putc(&out, ' ');
        buf_puts(&out, KIND_NAMES[t->kind]);
        if (t->kind != TOK_NEWLINE && t->kind != TOK_INDENT && t->kind != TOK_DEDENT && t->kind != TOK_EOF) {
          buf_putc(&out, ':');
          buf_put(&out, t->text, (size_t)t->len);
        }
      }
    } else {
      ParseResult parsed = parse_module(ctx);
      dump_node(&out, parsed.module);
    }
  } else {
    char *line = unit_first_line(ctx->diag.messages.data ? ctx->diag.messages.data : "");
    buf_free(&out);
    buf_puts(&out, line);
    free(line);
  }
  buf_put(&out, "", 0);
  buf_free(&ctx->diag.messages);
  arena_free(&ctx->arena);
  free(ctx);
  return out.data;
}

UnitTree unit_parse_tree(const char *source) {
  UnitTree tree = {calloc(1, sizeof(Context)), NULL};
  Context *ctx = tree.ctx;
  arena_init(&ctx->arena);
  ctx->source.name = "<test>";
  ctx->source.text = source;
  ctx->source.len = strlen(source);
  ctx->diag.source = &ctx->source;
  if (setjmp(ctx->diag.on_error) == 0)
    tree.module = parse_module(ctx).module;
  return tree;
}

void unit_free_tree(UnitTree *tree) {
  buf_free(&tree->ctx->diag.messages);
  arena_free(&tree->ctx->arena);
  free(tree->ctx);
}

static char *last_tokens, *last_parse, *last_roundtrip;

const char *unit_tokens(const char *source) {
  free(last_tokens);
  last_tokens = unit_stage(UNIT_TOKENS, source);
  return last_tokens;
}

const char *unit_parse(const char *source) {
  free(last_parse);
  last_parse = unit_stage(UNIT_PARSE, source);
  return last_parse;
}

const char *unit_roundtrip(const char *source) {
  free(last_roundtrip);
  c2t_result result;
  if (c2t_roundtrip("<test>", source, strlen(source), &result) == C2T_OK) {
    last_roundtrip = result.output;
    result.output = NULL;
  } else {
    last_roundtrip = unit_first_line(result.diagnostics);
  }
  c2t_result_free(&result);
  return last_roundtrip;
}

int main(void) {
  run_tokenize_tests();
  run_parse_tests();
  run_emit_tests();
  free(last_tokens);
  free(last_parse);
  free(last_roundtrip);
  printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
  return unit_failed ? 1 : 0;
}
