/*
 * template.c — building syntax trees from Python text.
 *
 * Lowering rules are written as Python with placeholders, e.g.
 *
 *     template_expr(ctx, "tl.where(_1 != _1, _2, _1)", (Node *[]){x, y}, 2)
 *
 * The text is parsed by the same parser as the input; every name `_1` ..
 * `_9` is then replaced by the given node. Spans of the new nodes are zero,
 * so the emitter knows they are synthesized. A template that does not parse
 * is a bug of ours and reported as an internal error.
 */
#include <stdio.h>
#include <string.h>

#include "toolkit.h"
#include "../emit/emit.h"

typedef struct Substitution {
  Node **nodes;
  int count;
} Substitution;

/* `_1` .. `_9`: the index of the placeholder, or -1. */
static int placeholder_index(const Node *node) {
  if (node->kind != N_NAME || node->u.name.id.len != 2 || node->u.name.id.text[0] != '_')
    return -1;
  char digit = node->u.name.id.text[1];
  return digit >= '1' && digit <= '9' ? digit - '1' : -1;
}

static void substitute_slot(Node **slot, void *data) {
  Substitution *sub = data;
  int index = placeholder_index(*slot);
  if (index >= 0 && index < sub->count) {
    ExprContext ctx = (*slot)->u.name.ctx;
    *slot = sub->nodes[index];
    if (ctx != CTX_LOAD)
      set_store_context(*slot, ctx);
    return; /* the given node is already final */
  }
  (*slot)->span = (Span){{0, 0, 0}, {0, 0, 0}};
  node_child_slots(*slot, substitute_slot, data);
}

/* Store/del context for a substituted assignment target. */
void set_store_context(Node *node, ExprContext ctx) {
  switch (node->kind) {
  case N_NAME: node->u.name.ctx = ctx; break;
  case N_ATTRIBUTE: node->u.attribute.ctx = ctx; break;
  case N_SUBSCRIPT: node->u.subscript.ctx = ctx; break;
  case N_STARRED:
    node->u.starred.ctx = ctx;
    set_store_context(node->u.starred.value, ctx);
    break;
  case N_LIST:
  case N_TUPLE:
    node->u.list.ctx = ctx;
    for (int i = 0; i < node->u.list.elts.count; i++)
      set_store_context(node->u.list.elts.items[i], ctx);
    break;
  default: break;
  }
}

/* ------------------------------------------------- comments in templates */

static int stmt_column(const Node *stmt) { return stmt->span.start.col; }

static NodeList *child_blocks(Node *stmt, int which) {
  switch (stmt->kind) {
  case N_FUNCTION_DEF: return which == 0 ? &stmt->u.function_def.body : NULL;
  case N_CLASS_DEF: return which == 0 ? &stmt->u.class_def.body : NULL;
  case N_IF: return which == 0 ? &stmt->u.if_.body : which == 1 ? &stmt->u.if_.orelse : NULL;
  case N_FOR: return which == 0 ? &stmt->u.for_.body : which == 1 ? &stmt->u.for_.orelse : NULL;
  case N_WHILE: return which == 0 ? &stmt->u.while_.body : which == 1 ? &stmt->u.while_.orelse : NULL;
  case N_WITH: return which == 0 ? &stmt->u.with.body : NULL;
  case N_TRY: return which == 0 ? &stmt->u.try_.body : which == 1 ? &stmt->u.try_.finalbody : NULL;
  default: return NULL;
  }
}

static Node *comment_stmt(Context *ctx, const Comment *comment) {
  Node *node = arena_alloc(&ctx->arena, sizeof(Node));
  node->kind = N_COMMENT;
  const char *text = comment->text + 1; /* without '#' */
  int length = comment->len - 1;
  if (length > 0 && *text == ' ') {
    text++;
    length--;
  }
  node->u.piece.text = (Str){text, length};
  node->span.start = comment->pos; /* for placement; cleared with the others */
  node->span.end = comment->pos;
  return node;
}

static void insert_at(Context *ctx, NodeList *block, int index, Node *node) {
  node_list_push(&ctx->arena, block, node);
  for (int i = block->count - 1; i > index; i--)
    block->items[i] = block->items[i - 1];
  block->items[index] = node;
}

/* Put an own-line comment of a template into the block it belongs to: the
 * one whose statements stand at the comment's column. */
static bool attach_comment(Context *ctx, NodeList *block, const Comment *comment) {
  if (block->count == 0)
    return false;
  int index = 0;
  while (index < block->count && block->items[index]->span.start.line <= comment->pos.line)
    index++;
  if (comment->pos.col == stmt_column(block->items[index < block->count ? index : block->count - 1])) {
    insert_at(ctx, block, index, comment_stmt(ctx, comment));
    return true;
  }
  if (index == 0)
    return false;
  Node *enclosing = block->items[index - 1];
  for (int which = 1; which >= 0; which--) {
    NodeList *inner = child_blocks(enclosing, which);
    if (inner && inner->count && inner->items[0]->span.start.line <= comment->pos.line + 1 &&
        attach_comment(ctx, inner, comment))
      return true;
  }
  for (int which = 0; which <= 1; which++) {
    NodeList *inner = child_blocks(enclosing, which);
    if (inner && attach_comment(ctx, inner, comment))
      return true;
  }
  return false;
}

/* Parse `text` as a module with the caller's arena; errors are internal. */
static Node *parse_template_module(Context *ctx, const char *text) {
  Context sub;
  memset(&sub, 0, sizeof sub);
  sub.arena = ctx->arena;
  sub.source.name = "<template>";
  sub.source.text = text;
  sub.source.len = strlen(text);
  sub.diag.source = &sub.source;
  if (setjmp(sub.diag.on_error) != 0) {
    ctx->arena = sub.arena;
    const char *message = sub.diag.messages.data ? sub.diag.messages.data : "";
    Pos nowhere = {1, 0, 0};
    char copy[512];
    snprintf(copy, sizeof copy, "%s", message);
    buf_free(&sub.diag.messages);
    diag_error_code(&ctx->diag, C2T_CODE_INTERNAL, nowhere, "internal error: a conversion template does not parse: %s", copy);
  }
  ParseResult parsed = parse_module(&sub);
  ctx->arena = sub.arena;
  buf_free(&sub.diag.messages);
  for (int i = 0; i < parsed.tokens.comment_count; i++)
    if (parsed.tokens.comments[i].own_line)
      attach_comment(ctx, &parsed.module->u.module.body, &parsed.tokens.comments[i]);
  return parsed.module;
}

NodeList template_stmts(Context *ctx, const char *text, Node **nodes, int count) {
  Node *module = parse_template_module(ctx, text);
  Substitution sub = {nodes, count};
  NodeList *body = &module->u.module.body;
  for (int i = 0; i < body->count; i++)
    substitute_slot(&body->items[i], &sub);
  return *body;
}

Node *template_expr(Context *ctx, const char *text, Node **nodes, int count) {
  NodeList body = template_stmts(ctx, text, nodes, count);
  if (body.count != 1 || body.items[0]->kind != N_EXPR_STMT) {
    Pos nowhere = {1, 0, 0};
    diag_error_code(&ctx->diag, C2T_CODE_INTERNAL, nowhere, "internal error: template '%s' is not one expression", text);
  }
  Node *value = body.items[0]->u.expr_stmt.value;
  for (int i = 0; i < count; i++)
    if (value == nodes[i]) {
      /* "_1" alone: a node of its own (marked rewritten), so that a call
       * lowered to one of its operands (an identity reshape, a reduction
       * of a 0-d tile) does not leave its statement looking untouched,
       * which the emitter would then copy from the source */
      Node *copy = arena_alloc(&ctx->arena, sizeof(Node));
      *copy = *value;
      copy->rewritten = true;
      value = copy;
      break;
    }
  value->parenthesized = false;
  return value;
}

void expr_text(Context *ctx, const Node *expr, Buf *out) {
  Emitter emitter;
  emitter_init_bare(&emitter, ctx, out);
  emit_expr(&emitter, expr, PREC_TEST);
}
