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
 * first, then itself; the module imports libdevice / defines INTERPRETED
 * when its text uses them. */
Node *use_helper(Lowerer *L, HelperId id) {
  const HelperSource *helper = &HELPER_SOURCES[id];
  for (int i = 0; i < (int)(sizeof helper->needs / sizeof helper->needs[0]) && helper->needs[i] >= 0; i++)
    use_helper(L, (HelperId)helper->needs[i]);
  L->needs_libdevice |= helper->libdevice;
  L->needs_interpreted_flag |= helper->interpreted;
  return use_runtime(L, helper->name, helper->text);
}

/* The statements of a helper that is not called by name (host code). */
NodeList helper_stmts(Lowerer *L, HelperId id) { return template_stmts(L->ctx, HELPER_SOURCES[id].text, NULL, 0); }

void append_runtime_helpers(Lowerer *L, NodeList *module_body) {
  for (int i = 0; i < L->helper_count; i++) {
    NodeList made = template_stmts(L->ctx, L->helpers[i].source, NULL, 0);
    for (int j = 0; j < made.count; j++)
      node_list_push(&L->ctx->arena, module_body, made.items[j]);
  }
}
