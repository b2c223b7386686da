/*
 * emit_convert.c — writing a converted module.
 *
 * The converter rewrites the tree in place. Statements it did not touch are
 * copied from the source exactly as written (their layout, comments and
 * line breaks included); the others are written from the tree, with long
 * argument lists broken one item per line.
 */
#include <limits.h>
#include <string.h>

#include "emit.h"

/* ------------------------------------------------------ what changed */

/* Mark every node that was synthesized (zero span) or contains one, and
 * return whether `node` is so marked. */
static bool mark_rewritten(Node *node);

typedef struct MarkWalk {
  bool any;
} MarkWalk;

static void mark_child(Node *child, void *data) {
  MarkWalk *walk = data;
  if (mark_rewritten(child))
    walk->any = true;
}

static bool mark_rewritten(Node *node) {
  MarkWalk walk = {false};
  node_children(node, mark_child, &walk);
  if (walk.any || node->span.start.line == 0 || node->note)
    node->rewritten = true;
  return node->rewritten;
}

/* ----------------------------------------------------------- verbatim */

static int column_of(const Emitter *e, int line, size_t *start) {
  size_t at = e->line_starts[line - 1];
  int column = 0;
  while (at < e->text_len && (e->text[at] == ' ' || e->text[at] == '\t' || e->text[at] == '\f')) {
    column += e->text[at] == '\t' ? 8 - column % 8 : 1;
    at++;
  }
  *start = at;
  return column;
}

/* Copy an untouched statement from the source: from the first character of
 * its first line (decorators included) to its end. Only when it stands at
 * the column the output is at, so that its own continuation and block
 * lines keep a consistent indentation, and starts its line (a statement
 * after a `;` is not copied: the copy would start at the line's first). */
bool emit_verbatim_stmt(Emitter *e, const Node *stmt, const Node *next) {
  if (stmt->rewritten || stmt->span.start.line <= 0 || !e->text)
    return false;
  int first_line = emit_stmt_first_line(stmt), last_line = stmt->span.end.line;
  if (first_line <= 0 || first_line > e->line_count)
    return false;
  size_t begin;
  if (column_of(e, first_line, &begin) != (e->indent + e->wrap_depth) * 4)
    return false;
  /* `a = 1; b = 2`: b does not start its line, and is written from the tree */
  if (stmt->span.start.line == first_line && stmt->span.start.offset != begin)
    return false;
  size_t end = stmt->span.end.offset;
  if (end <= begin || end > e->text_len)
    return false;
  emit_comments_before(e, first_line, first_line, true);
  emit_begin_line(e);
  buf_put(e->out, e->text + begin, end - begin);
  /* the comments inside the copied text are written with it */
  while (e->next_comment < e->comment_count && e->comments[e->next_comment].pos.offset < end)
    e->next_comment++;
  bool shares_line = next && next->span.start.line == last_line;
  if (!shares_line)
    emit_trailing_comment(e, last_line);
  emit_end_line(e);
  if (last_line > e->last_line)
    e->last_line = last_line;
  e->block_start = false;
  return true;
}

/* ------------------------------------------------------- line breaking */

int emit_output_column(const Emitter *e) {
  const Buf *out = e->out;
  size_t at = out->len;
  while (at > 0 && out->data[at - 1] != '\n')
    at--;
  return (int)(out->len - at);
}

/* Would the argument list (a call's args/keywords, or a def's
 * `arguments`) run past the line limit if written on this line, followed
 * by its bracket, a character or two and `tail` more? */
bool emit_wants_break(Emitter *e, const NodeList *args, const NodeList *keywords, const Node *arguments,
                      int tail) {
  if (!e->converting || e->no_wrap > 0)
    return false;
  if (args && args->count + (keywords ? keywords->count : 0) < 2)
    return false;
  Buf scratch = {0};
  Emitter inline_emitter = *e;
  inline_emitter.out = &scratch;
  inline_emitter.converting = false;
  if (arguments)
    emit_arguments(&inline_emitter, arguments, false);
  else
    emit_argument_list(&inline_emitter, args, keywords);
  bool too_long = memchr(scratch.data ? scratch.data : "", '\n', scratch.len) == NULL &&
                  emit_output_column(e) + (int)scratch.len + 3 + tail > EMIT_LINE_LIMIT;
  buf_free(&scratch);
  return too_long;
}

/* -------------------------------------------------------------- module */

void emit_converted_module(Context *ctx, const ParseResult *parsed, Buf *out) {
  if (parsed->module)
    mark_rewritten(parsed->module);
  Emitter e;
  emitter_init(&e, ctx, out, parsed);
  e.converting = true;
  EmitDropped frame = {NULL, NULL};
  if (parsed->module && parsed->module->u.module.dropped.count) {
    frame.lines = &parsed->module->u.module.dropped;
    e.dropped = &frame;
  }
  if (parsed->module)
    emit_stmts(&e, &parsed->module->u.module.body, INT_MAX);
  emit_remaining_comments(&e);
  if (out->len > 0 && out->data[out->len - 1] != '\n')
    buf_putc(out, '\n');
}
