/*
 * runtime.c — helpers the generated module carries.
 *
 * Where a cuTile operation has no one-line Triton form (floor division,
 * Python modulo, exact ceiling division, ...), the lowering calls a small
 * @triton.jit helper and the module gets that helper once, after its
 * imports. The generated module stays self-contained: it needs triton and
 * torch, not this project.
 */
#include <string.h>

#define C2T_HELPER_TEXT /* HELPER_SOURCES is defined here */
#include "toolkit.h"

Node *use_runtime(Lowerer *L, const char *name, const char *source) {
  bool known = false;
  for (int i = 0; i < L->helper_count; i++)
    known |= strcmp(L->helpers[i].name, name) == 0;
  if (!known) {
    if (L->helper_count == C2T_MAX_RUNTIME_HELPERS)
      lower_limit(L, NULL, "runtime helpers in one module", C2T_MAX_RUNTIME_HELPERS);
    L->helpers[L->helper_count++] = (RuntimeHelper){name, source};
  }
  return new_name(L, name);
}

/* A helper of src/lower/helpers/ (helper_text.h): the helpers it calls
 * first, then itself; the module imports libdevice or what else its text
 * uses (HELPER_IMPORTS) / defines INTERPRETED when its text uses them. */
Node *use_helper(Lowerer *L, HelperId id) {
  const HelperSource *helper = &HELPER_SOURCES[id];
  for (int i = 0; i < (int)(sizeof helper->needs / sizeof helper->needs[0]) && helper->needs[i] >= 0; i++)
    use_helper(L, (HelperId)helper->needs[i]);
  L->needs_libdevice |= helper->libdevice;
  L->needs_interpreted_flag |= helper->interpreted;
  L->helper_imports |= helper->imports;
  return use_runtime(L, helper->name, helper->text);
}

/* The text of a template of src/lower/helpers/ (a *_templates.py file) for `rank`:
 * RANK is the rank, {ITEM|SEP} is ITEM once per axis with SEP between, and
 * in ITEM `$` is the axis and `[^]` the subscript that lays a 1-D range along
 * it ("[:, None]" at rank 2, nothing at rank 1). tools/gen_helpers.py has
 * the format and fill(), this function's twin for the tests. */
static const char *fill_template(Lowerer *L, const char *text, int rank) {
  Buf out = {0};
  for (const char *p = text; *p;) {
    if (strncmp(p, "RANK", 4) == 0) {
      buf_printf(&out, "%d", rank);
      p += 4;
      continue;
    }
    if (*p != '{') {
      buf_putc(&out, *p++);
      continue;
    }
    const char *end = strchr(p, '}');
    const char *bar = memchr(p, '|', (size_t)(end - p));
    const char *item_end = bar ? bar : end;
    for (int a = 0; a < rank; a++) {
      if (a && bar)
        buf_put(&out, bar + 1, (size_t)(end - bar - 1));
      for (const char *q = p + 1; q < item_end; q++) {
        if (*q == '$')
          buf_printf(&out, "%d", a);
        else if (strncmp(q, "[^]", 3) == 0) {
          for (int d = 0; rank > 1 && d < rank; d++)
            buf_printf(&out, "%s%s", d ? ", " : "[", d == a ? ":" : "None");
          buf_puts(&out, rank > 1 ? "]" : "");
          q += 2;
        } else
          buf_putc(&out, *q);
      }
    }
    p = end + 1;
  }
  char *result = arena_strndup(&L->ctx->arena, out.data ? out.data : "", out.len);
  buf_free(&out);
  return result;
}

/* A rank-parameterized helper (helper_text.h's TEMPLATE_SOURCES), filled in
 * for `rank`. */
Node *use_template(Lowerer *L, TemplateId id, int rank) {
  const TemplateSource *source = &TEMPLATE_SOURCES[id];
  if (rank < source->min_rank)
    lower_error(L, NULL, "internal error: %s is not made for rank %d", source->name, rank);
  return use_runtime(L, fill_template(L, source->name, rank), fill_template(L, source->text, rank));
}

/* The statements of a helper that is not called by name (host code). */
bool is_helper_name(Str name) {
  for (int i = 0; i < HELPER_COUNT; i++)
    if (str_eq(name, HELPER_SOURCES[i].name))
      return true;
  return false;
}

const char *helper_import(int index) { return HELPER_IMPORTS[index]; }

NodeList helper_stmts(Lowerer *L, HelperId id) { return template_stmts(L->ctx, HELPER_SOURCES[id].text, NULL, 0); }

void append_runtime_helpers(Lowerer *L, NodeList *module_body) {
  for (int i = 0; i < L->helper_count; i++) {
    NodeList made = template_stmts(L->ctx, L->helpers[i].source, NULL, 0);
    for (int j = 0; j < made.count; j++)
      node_list_push(&L->ctx->arena, module_body, made.items[j]);
  }
}
