/*
 * emit_python.c — statements and the module entry point.
 *
 * One statement per line, four spaces a level, compound statements as a
 * header line ending in `:` followed by their indented block. Semicolons
 * and one-line bodies (`if x: y`) come out as separate lines. Around each
 * statement and clause header the layout functions (emit_layout.c) put back
 * the source's comments and blank lines; `limit_line` tells a block where
 * what follows it begins, so own-line comments after its last statement go
 * to the right level.
 */
#include <limits.h>
#include <string.h>

#include "emit.h"

/* -------------------------------------------------------------- headers */

/* Comments before a header, then the start of its line. */
static void begin_header(Emitter *e, int first_line, int header_line, bool keep_blank_lines) {
  emit_comments_before(e, first_line, header_line, keep_blank_lines);
  emit_begin_line(e);
}

static void emit_note(Emitter *e, const char *note, size_t start);

/* The `:` closing a header, its trailing comment when the block starts on a later line, a
 * note of the converter about the header written from byte `start` (or NULL), and the line
 * break. */
static void end_noted_header(Emitter *e, int header_line, int body_first_line, const char *note, size_t start) {
  buf_putc(e->out, ':');
  if (header_line > 0 && body_first_line > header_line)
    emit_trailing_comment(e, header_line);
  if (note)
    emit_note(e, note, start);
  emit_end_line(e);
  if (header_line > e->last_line)
    e->last_line = header_line;
  e->block_start = false;
}

/* The same without a note. */
static void end_header(Emitter *e, int header_line, int body_first_line) {
  end_noted_header(e, header_line, body_first_line, NULL, 0);
}

/* The first statement of a body that comes from the source (the converter
 * may put synthesized ones first), or NULL. */
static const Node *first_source_stmt(const NodeList *body) {
  for (int i = 0; i < body->count; i++)
    if (body->items[i]->span.start.line > 0)
      return body->items[i];
  return NULL;
}

static int body_first_line(const NodeList *body) {
  const Node *first = first_source_stmt(body);
  return first ? emit_stmt_first_line(first) : 0;
}

static int body_header_line(Emitter *e, const NodeList *body) {
  const Node *first = first_source_stmt(body);
  return first ? emit_header_last_line(e, first) : 0;
}

/* A clause introduced by a bare keyword: `else:` or `finally:`. */
static void emit_keyword_clause(Emitter *e, const char *keyword, const NodeList *body, int limit_line) {
  int keyword_line = body->count ? emit_clause_keyword_line(e, body->items[0]) : 0;
  int header_line = body_header_line(e, body);
  begin_header(e, keyword_line, header_line, false);
  emit_text(e, keyword);
  end_header(e, header_line, body_first_line(body));
  emit_block(e, body, limit_line);
}

/* The line where a clause begins, for the block before it. */
static int clause_start_line(Emitter *e, const NodeList *body, int otherwise) {
  return body->count ? emit_clause_keyword_line(e, body->items[0]) : otherwise;
}

void emit_block(Emitter *e, const NodeList *body, int limit_line) {
  e->indent++;
  e->block_start = true;
  if (body->count == 0) {
    emit_begin_line(e);
    emit_text(e, "pass");
    emit_end_line(e);
  } else {
    emit_stmts(e, body, limit_line);
    /* comments after a block's last statement belong to it only if it comes from the
     * source; a block the converter wrote has none */
    const Node *first = first_source_stmt(body);
    if (first)
      emit_block_tail_comments(e, limit_line, first->span.start.col);
  }
  e->indent--;
}

static bool is_definition(const Node *stmt) { return stmt->kind == N_FUNCTION_DEF || stmt->kind == N_CLASS_DEF; }

static bool is_import(const Node *stmt) { return stmt->kind == N_IMPORT || stmt->kind == N_IMPORT_FROM; }

/* In a converted module, what the converter wrote or changed is laid out as
 * PEP 8 asks: two blank lines around definitions and after the imports at
 * module level, one around definitions inside a block it writes (methods),
 * and one after the statements a converted function starts with (its
 * prologue). The source's own layout is kept elsewhere. */
static void separate_converted(Emitter *e, const NodeList *body, int index) {
  if (!e->converting || index == 0)
    return;
  const Node *previous = body->items[index - 1], *stmt = body->items[index];
  bool changed = previous->rewritten || stmt->rewritten;
  if (e->indent == 0 && changed &&
      (is_definition(previous) || is_definition(stmt) || (is_import(previous) && !is_import(stmt)))) {
    emit_blank_line(e);
    emit_blank_line(e);
    return;
  }
  bool written_here = previous->span.start.line == 0 && stmt->span.start.line == 0; /* no source layout */
  if (e->indent > 0 && written_here && (is_definition(previous) || is_definition(stmt))) {
    emit_blank_line(e); /* one blank line around the methods of a class the converter writes */
    return;
  }
  bool prologue_ends = previous->span.start.line == 0 && stmt->span.start.line > 0 && index >= 2;
  for (int i = 0; prologue_ends && i < index; i++)
    prologue_ends = body->items[i]->span.start.line == 0;
  if (e->indent > 0 && prologue_ends)
    emit_blank_line(e);
}

static bool is_replayed(const Node *stmt) { return stmt->kind == N_FUNCTION_DEF && stmt->u.function_def.replayed; }

void emit_stmts(Emitter *e, const NodeList *body, int limit_line) {
  for (int i = 0; i < body->count; i++) {
    const Node *next = i + 1 < body->count ? body->items[i + 1] : NULL;
    /* a def written again (emit_replayed_def) stands elsewhere in the source: where this
       statement's comments end is where the next one from here begins */
    int k = i + 1;
    while (k < body->count && is_replayed(body->items[k]))
      k++;
    separate_converted(e, body, i);
    emit_stmt(e, body->items[i], next, k < body->count ? emit_stmt_first_line(body->items[k]) : limit_line);
  }
}

/* ------------------------------------------------------ simple statements */

static void emit_names(Emitter *e, const char *keyword, const NodeList *names) {
  emit_text(e, keyword);
  for (int i = 0; i < names->count; i++) {
    if (i)
      emit_text(e, ", ");
    emit_str(e, names->items[i]->u.name.id);
  }
}

static void emit_aliases(Emitter *e, const NodeList *aliases) {
  for (int i = 0; i < aliases->count; i++) {
    const Node *alias = aliases->items[i];
    if (i)
      emit_text(e, ", ");
    emit_str(e, alias->u.alias.name);
    if (alias->u.alias.asname.len) {
      emit_text(e, " as ");
      emit_str(e, alias->u.alias.asname);
    }
  }
}

static void emit_import_from(Emitter *e, const Node *s) {
  emit_text(e, "from ");
  for (int i = 0; i < s->u.import_from.level; i++)
    buf_putc(e->out, '.');
  emit_str(e, s->u.import_from.module);
  emit_text(e, " import ");
  emit_aliases(e, &s->u.import_from.names);
}

/* The value a statement writes or returns (a conditional expression there past the line
 * limit breaks at `if` and `else`: Emitter.whole_value). */
static void emit_whole_value(Emitter *e, const Node *value, Prec context) {
  e->whole_value = value;
  emit_expr(e, value, context);
  e->whole_value = NULL;
}

static void emit_assign(Emitter *e, const Node *s) {
  for (int i = 0; i < s->u.assign.targets.count; i++) {
    emit_expr(e, s->u.assign.targets.items[i], PREC_TUPLE);
    emit_text(e, " = ");
  }
  emit_whole_value(e, s->u.assign.value, PREC_YIELD);
}

static void emit_ann_assign(Emitter *e, const Node *s) {
  const Node *target = s->u.ann_assign.target;
  /* `(x): int` is not simple; only the parentheses say so. */
  if (target->kind == N_NAME && !s->u.ann_assign.simple && !target->parenthesized) {
    buf_putc(e->out, '(');
    emit_expr(e, target, PREC_TEST);
    buf_putc(e->out, ')');
  } else {
    emit_expr(e, target, PREC_TEST);
  }
  emit_text(e, ": ");
  emit_expr(e, s->u.ann_assign.annotation, PREC_TEST);
  if (s->u.ann_assign.value) {
    emit_text(e, " = ");
    emit_whole_value(e, s->u.ann_assign.value, PREC_YIELD);
  }
}

static void emit_raise(Emitter *e, const Node *s) {
  emit_text(e, "raise");
  if (s->u.raise.exc) {
    buf_putc(e->out, ' ');
    emit_expr(e, s->u.raise.exc, PREC_TEST);
    if (s->u.raise.cause) {
      emit_text(e, " from ");
      emit_expr(e, s->u.raise.cause, PREC_TEST);
    }
  }
}

/* The text of a statement that fits on one line. */
static void emit_simple_stmt_text(Emitter *e, const Node *s) {
  switch (s->kind) {
  case N_EXPR_STMT: emit_expr(e, s->u.expr_stmt.value, PREC_YIELD); break;
  case N_ASSIGN: emit_assign(e, s); break;
  case N_AUG_ASSIGN:
    emit_expr(e, s->u.aug_assign.target, PREC_TEST);
    buf_putc(e->out, ' ');
    emit_text(e, emit_ast_op_spelling(s->u.aug_assign.op));
    emit_text(e, "= ");
    emit_whole_value(e, s->u.aug_assign.value, PREC_YIELD);
    break;
  case N_ANN_ASSIGN: emit_ann_assign(e, s); break;
  case N_RETURN:
    emit_text(e, "return");
    if (s->u.return_.value) {
      buf_putc(e->out, ' ');
      emit_whole_value(e, s->u.return_.value, PREC_TUPLE);
    }
    break;
  case N_DELETE:
    emit_text(e, "del ");
    for (int i = 0; i < s->u.delete_.targets.count; i++) {
      if (i)
        emit_text(e, ", ");
      emit_expr(e, s->u.delete_.targets.items[i], PREC_TEST);
    }
    break;
  case N_TYPE_ALIAS:
    emit_text(e, "type ");
    emit_expr(e, s->u.type_alias.name, PREC_ATOM);
    emit_type_params(e, &s->u.type_alias.type_params);
    emit_text(e, " = ");
    emit_expr(e, s->u.type_alias.value, PREC_TEST);
    break;
  case N_RAISE: emit_raise(e, s); break;
  case N_ASSERT:
    emit_text(e, "assert ");
    emit_expr(e, s->u.assert_.test, PREC_TEST);
    if (s->u.assert_.msg) {
      emit_text(e, ", ");
      emit_expr(e, s->u.assert_.msg, PREC_TEST);
    }
    break;
  case N_IMPORT:
    emit_text(e, "import ");
    emit_aliases(e, &s->u.import.names);
    break;
  case N_IMPORT_FROM: emit_import_from(e, s); break;
  case N_GLOBAL: emit_names(e, "global ", &s->u.global.names); break;
  case N_NONLOCAL: emit_names(e, "nonlocal ", &s->u.global.names); break;
  case N_PASS: emit_text(e, "pass"); break;
  case N_BREAK: emit_text(e, "break"); break;
  case N_CONTINUE: emit_text(e, "continue"); break;
  case N_COMMENT: /* written by the converter */
    emit_text(e, "# ");
    emit_str(e, s->u.piece.text);
    break;
  default:
    diag_error_code(&e->ctx->diag, C2T_CODE_INTERNAL, s->span.start, "cannot write a %s node as a statement", node_kind_name(s->kind));
  }
}

/* A note of the converter about the statement written from byte `start` of
 * the output: at the end of its line, or when that would run past the
 * line limit, on lines of its own above it. */
static void emit_note(Emitter *e, const char *note, size_t start) {
  if (emit_output_column(e) + 4 + (int)strlen(note) <= EMIT_LINE_LIMIT) {
    emit_text(e, "  # ");
    emit_text(e, note);
    return;
  }
  Buf statement = {0};
  buf_put(&statement, e->out->data + start, e->out->len - start);
  e->out->len = start;
  emit_comment_lines(e, note);
  buf_put(e->out, statement.data, statement.len);
  buf_free(&statement);
}

/* A converted statement's comments that no item of its broken lists took
 * (emit_argument_list_broken), moved above it: those of its lines before `last_line`. */
static void emit_comments_left_inside(Emitter *e, int first_line, int last_line, size_t start) {
  Buf statement = {0};
  buf_put(&statement, e->out->data + start, e->out->len - start);
  e->out->len = start;
  emit_comments_inside_before(e, first_line, last_line);
  buf_put(e->out, statement.data, statement.len);
  buf_free(&statement);
}

static void emit_simple_stmt(Emitter *e, const Node *s, const Node *next) {
  int first_line = s->span.start.line, last_line = s->span.end.line;
  /* a converted statement's comments go with the items of its broken lists where they can */
  bool items = e->converting && first_line > 0 && last_line > first_line;
  emit_comments_before(e, first_line, items ? first_line : last_line, true);
  size_t start = e->out->len;
  if (items) {
    e->items_first_line = first_line;
    e->items_last_line = last_line;
  }
  emit_begin_line(e);
  emit_simple_stmt_text(e, s);
  if (items) {
    e->items_first_line = e->items_last_line = 0;
    emit_comments_left_inside(e, first_line, last_line, start);
  }
  /* With `a; b  # c` the comment belongs to the last statement of the line. */
  bool shares_line = next && last_line > 0 && next->span.start.line == last_line;
  if (!shares_line && last_line > 0)
    emit_trailing_comment(e, last_line);
  if (s->note) /* a note of the converter about this line */
    emit_note(e, s->note, start);
  emit_end_line(e);
  if (last_line > e->last_line)
    e->last_line = last_line;
  e->block_start = false;
}

/* ---------------------------------------------------- compound statements */

static void emit_decorators(Emitter *e, const NodeList *decorators) {
  for (int i = 0; i < decorators->count; i++) {
    const Node *d = decorators->items[i];
    int first_line = d->span.start.line, last_line = d->span.end.line;
    emit_comments_before(e, first_line, last_line, i == 0);
    emit_begin_line(e);
    buf_putc(e->out, '@');
    emit_named_expression(e, d);
    if (last_line > 0)
      emit_trailing_comment(e, last_line);
    emit_end_line(e);
    if (last_line > e->last_line)
      e->last_line = last_line;
    e->block_start = false;
  }
}

/* Comments and blank lines before a def or class line that may follow
 * decorators, then the start of the line; the comments of the header's
 * lines before `comments_until` go there too. */
static void begin_definition(Emitter *e, const Node *s, const NodeList *decorators, int comments_until) {
  emit_decorators(e, decorators);
  if (decorators->count)
    begin_header(e, 0, comments_until, false);
  else
    begin_header(e, s->span.start.line, comments_until, true);
}

/* The width of ` -> annotation` (0 without one). */
static int returns_width(Emitter *e, const Node *returns) {
  if (!returns)
    return 0;
  Buf scratch = {0};
  Emitter inline_emitter = *e;
  inline_emitter.out = &scratch;
  inline_emitter.converting = false;
  emit_expr(&inline_emitter, returns, PREC_TEST);
  int width = 4 + (int)scratch.len;
  buf_free(&scratch);
  return width;
}

/* Does a comment not written yet lie on the lines [from, to) ? */
static bool comment_on_lines(const Emitter *e, int from, int to) {
  for (int i = e->next_comment; i < e->comment_count && e->comments[i].pos.line < to; i++)
    if (e->comments[i].pos.line >= from && !emit_comment_dropped(e, i))
      return true;
  return false;
}

static void emit_function_def(Emitter *e, const Node *s, int limit_line) {
  const NodeList *body = &s->u.function_def.body;
  int def_line = s->span.start.line, header_line = body_header_line(e, body);
  /* In a converted module, comments among the parameters stay with them,
   * one parameter per line; elsewhere they go above the def. */
  bool commented_params = e->converting && s->u.function_def.args && def_line > 0 && header_line > def_line &&
                          comment_on_lines(e, def_line, header_line);
  begin_definition(e, s, &s->u.function_def.decorator_list, commented_params ? def_line : header_line);
  emit_text(e, s->u.function_def.is_async ? "async def " : "def ");
  emit_str(e, s->u.function_def.name);
  emit_type_params(e, &s->u.function_def.type_params);
  buf_putc(e->out, '(');
  if (commented_params) {
    const Node *a = s->u.function_def.args;
    const NodeList *positional = a->u.arguments.posonlyargs.count ? &a->u.arguments.posonlyargs : &a->u.arguments.args;
    if (positional->count == 0 || positional->items[0]->span.start.line != def_line)
      emit_trailing_comment(e, def_line); /* `def f(  # ...` */
    e->wrap_depth++;
    emit_arguments_broken(e, s->u.function_def.args, header_line);
    emit_end_line(e);
    emit_comments_before(e, header_line, header_line, false); /* those after the last parameter */
    e->wrap_depth--;
    emit_begin_line(e);
  } else if (s->u.function_def.args &&
             emit_wants_break(e, NULL, NULL, s->u.function_def.args, returns_width(e, s->u.function_def.returns))) {
    /* one parameter per line */
    e->wrap_depth++;
    emit_arguments_broken(e, s->u.function_def.args, 0);
    e->wrap_depth--;
    emit_end_line(e);
    emit_begin_line(e);
  } else if (s->u.function_def.args) {
    emit_arguments(e, s->u.function_def.args, false);
  }
  buf_putc(e->out, ')');
  if (s->u.function_def.returns) {
    emit_text(e, " -> ");
    emit_expr(e, s->u.function_def.returns, PREC_TEST);
  }
  end_header(e, body_header_line(e, body), body_first_line(body));
  EmitDropped frame = {&s->u.function_def.dropped, e->dropped};
  if (frame.lines->count)
    e->dropped = &frame;
  emit_block(e, body, limit_line);
  e->dropped = frame.outer;
}

static void emit_class_def(Emitter *e, const Node *s, int limit_line) {
  const NodeList *body = &s->u.class_def.body;
  begin_definition(e, s, &s->u.class_def.decorator_list, body_header_line(e, body));
  emit_text(e, "class ");
  emit_str(e, s->u.class_def.name);
  emit_type_params(e, &s->u.class_def.type_params);
  if (s->u.class_def.bases.count || s->u.class_def.keywords.count) {
    buf_putc(e->out, '(');
    emit_argument_list(e, &s->u.class_def.bases, &s->u.class_def.keywords);
    buf_putc(e->out, ')');
  }
  end_header(e, body_header_line(e, body), body_first_line(body));
  emit_block(e, body, limit_line);
}

/* A def copied from elsewhere in the source, written again after what comes before it: the
 * comment cursor goes back to its first line for it, and on to where it was after it. */
static void emit_replayed_def(Emitter *e, const Node *s, int limit_line) {
  /* the indented comments after the block before it (a class's last ones) go first */
  int pending = e->next_comment;
  emit_block_tail_comments(e, limit_line, 1);
  if (e->next_comment > pending && e->indent == 0) {
    emit_blank_line(e);
    emit_blank_line(e);
  }
  int saved = e->next_comment, saved_line = e->last_line;
  int first = s->u.function_def.comments_from ? s->u.function_def.comments_from : s->span.start.line;
  e->next_comment = 0;
  while (e->next_comment < e->comment_count && e->comments[e->next_comment].pos.line < first)
    e->next_comment++;
  e->last_line = first - 1;
  emit_function_def(e, s, s->span.end.line + 1);
  /* a def moved before its place: what comes after it here stands before it in the source
     (its own lines' comments are left out there) */
  if (e->next_comment < saved || s->u.function_def.comments_from)
    e->next_comment = saved;
  e->last_line = saved_line;
}

/* The versions of a converted function, `if C:` <one> `else:` <other>: each is written with
 * the comments of the source lines it holds (the comment cursor goes back to where the
 * first began for the second), less those of the branches it dropped. */
static void emit_versions(Emitter *e, const Node *s, int limit_line) {
  begin_header(e, 0, body_header_line(e, &s->u.if_.body), true);
  emit_text(e, "if ");
  emit_named_expression(e, s->u.if_.test);
  end_header(e, 0, 0);
  int start = e->next_comment, start_line = e->last_line;
  const EmitDropped *outer = e->dropped;
  for (int clause = 0; clause < 2; clause++) {
    if (clause == 1) {
      emit_begin_line(e);
      emit_text(e, "else");
      end_header(e, 0, 0);
    }
    EmitDropped frame = {&s->u.if_.dropped[clause], outer};
    e->dropped = frame.lines->count ? &frame : outer;
    int end = e->next_comment;
    e->next_comment = start;
    e->last_line = start_line;
    emit_block(e, clause ? &s->u.if_.orelse : &s->u.if_.body, limit_line);
    if (e->next_comment < end)
      e->next_comment = end;
  }
  e->dropped = outer;
}

/* `if`, then each `elif` of the chain, then `else`. */
static void emit_if(Emitter *e, const Node *s, int limit_line) {
  if (s->u.if_.versions && s->u.if_.orelse.count) {
    emit_versions(e, s, limit_line);
    return;
  }
  const char *keyword = "if ";
  bool keep_blank_lines = true;
  for (;;) {
    const NodeList *body = &s->u.if_.body, *orelse = &s->u.if_.orelse;
    int header_line = body_header_line(e, body), colon_line = header_line ? emit_header_colon_line(e, s) : 0;
    if (colon_line && colon_line < header_line)
      header_line = colon_line; /* the body's first statement was dropped: the colon is before it */
    /* an `if` the converter made of one source statement (a choice between a descriptor
       and pointers): the comments inside that statement and after it on its last line go
       above it */
    int comments_until = header_line || s->u.if_.is_elif || !s->span.end.line ? header_line : s->span.end.line + 1;
    begin_header(e, s->span.start.line, comments_until, keep_blank_lines);
    size_t start = e->out->len - (size_t)emit_output_column(e);
    emit_text(e, keyword);
    emit_named_expression(e, s->u.if_.test);
    end_noted_header(e, header_line, body_first_line(body), s->note, start);
    bool has_elif = orelse->count == 1 && orelse->items[0]->kind == N_IF && orelse->items[0]->u.if_.is_elif;
    int next_clause = has_elif ? orelse->items[0]->span.start.line : clause_start_line(e, orelse, limit_line);
    emit_block(e, body, next_clause);
    if (!has_elif) {
      if (orelse->count)
        emit_keyword_clause(e, "else", orelse, limit_line);
      return;
    }
    s = orelse->items[0];
    keyword = "elif ";
    keep_blank_lines = false;
  }
}

static void emit_loop_else(Emitter *e, const NodeList *body, const NodeList *orelse, int limit_line) {
  emit_block(e, body, clause_start_line(e, orelse, limit_line));
  if (orelse->count)
    emit_keyword_clause(e, "else", orelse, limit_line);
}

static void emit_for(Emitter *e, const Node *s, int limit_line) {
  const NodeList *body = &s->u.for_.body;
  int header_line = body_header_line(e, body);
  begin_header(e, s->span.start.line, header_line, true);
  emit_text(e, s->u.for_.is_async ? "async for " : "for ");
  emit_expr(e, s->u.for_.target, PREC_TUPLE);
  emit_text(e, " in ");
  emit_expr(e, s->u.for_.iter, PREC_TUPLE);
  end_header(e, header_line, body_first_line(body));
  emit_loop_else(e, body, &s->u.for_.orelse, limit_line);
}

static void emit_while(Emitter *e, const Node *s, int limit_line) {
  const NodeList *body = &s->u.while_.body;
  int header_line = body_header_line(e, body);
  begin_header(e, s->span.start.line, header_line, true);
  emit_text(e, "while ");
  emit_named_expression(e, s->u.while_.test);
  end_header(e, header_line, body_first_line(body));
  emit_loop_else(e, body, &s->u.while_.orelse, limit_line);
}

static void emit_with(Emitter *e, const Node *s, int limit_line) {
  const NodeList *body = &s->u.with.body, *items = &s->u.with.items;
  int header_line = body_header_line(e, body);
  begin_header(e, s->span.start.line, header_line, true);
  emit_text(e, s->u.with.is_async ? "async with " : "with ");
  /* `with (a, b):` reads as two items; one tuple item needs `((a, b))`. */
  bool lone_tuple = items->count == 1 && !items->items[0]->u.withitem.optional_vars &&
                    items->items[0]->u.withitem.context_expr->kind == N_TUPLE;
  if (lone_tuple)
    buf_putc(e->out, '(');
  for (int i = 0; i < items->count; i++) {
    const Node *item = items->items[i];
    if (i)
      emit_text(e, ", ");
    emit_expr(e, item->u.withitem.context_expr, PREC_TEST);
    if (item->u.withitem.optional_vars) {
      emit_text(e, " as ");
      emit_expr(e, item->u.withitem.optional_vars, PREC_TEST);
    }
  }
  if (lone_tuple)
    buf_putc(e->out, ')');
  end_header(e, header_line, body_first_line(body));
  emit_block(e, body, limit_line);
}

static int handler_line(const Node *handler) { return handler->span.start.line; }

static void emit_except_handler(Emitter *e, const Node *h, bool is_star, int limit_line) {
  const NodeList *body = &h->u.except_handler.body;
  int header_line = body_header_line(e, body);
  begin_header(e, handler_line(h), header_line, false);
  emit_text(e, is_star ? "except*" : "except");
  if (h->u.except_handler.type) {
    buf_putc(e->out, ' ');
    emit_expr(e, h->u.except_handler.type, PREC_TEST);
    if (h->u.except_handler.name.len) {
      emit_text(e, " as ");
      emit_str(e, h->u.except_handler.name);
    }
  }
  end_header(e, header_line, body_first_line(body));
  emit_block(e, body, limit_line);
}

static void emit_try(Emitter *e, const Node *s, int limit_line) {
  const NodeList *body = &s->u.try_.body, *handlers = &s->u.try_.handlers;
  const NodeList *orelse = &s->u.try_.orelse, *finalbody = &s->u.try_.finalbody;
  int finally_line = clause_start_line(e, finalbody, limit_line);
  int else_line = clause_start_line(e, orelse, finally_line);
  int header_line = body_header_line(e, body);
  begin_header(e, s->span.start.line, header_line, true);
  emit_text(e, "try");
  end_header(e, header_line, body_first_line(body));
  emit_block(e, body, handlers->count ? handler_line(handlers->items[0]) : else_line);
  for (int i = 0; i < handlers->count; i++) {
    int next = i + 1 < handlers->count ? handler_line(handlers->items[i + 1]) : else_line;
    emit_except_handler(e, handlers->items[i], s->u.try_.is_star, next);
  }
  if (orelse->count)
    emit_keyword_clause(e, "else", orelse, finally_line);
  if (finalbody->count)
    emit_keyword_clause(e, "finally", finalbody, limit_line);
}

static int case_line(const Node *c) {
  return c->span.start.line > 0 ? c->span.start.line : c->u.match_case.pattern->span.start.line;
}

static void emit_match_case(Emitter *e, const Node *c, bool keep_blank_lines, int limit_line) {
  const NodeList *body = &c->u.match_case.body;
  int header_line = body_header_line(e, body);
  begin_header(e, case_line(c), header_line, keep_blank_lines);
  emit_text(e, "case ");
  emit_pattern(e, c->u.match_case.pattern, true);
  if (c->u.match_case.guard) {
    emit_text(e, " if ");
    emit_named_expression(e, c->u.match_case.guard);
  }
  end_header(e, header_line, body_first_line(body));
  emit_block(e, body, limit_line);
}

static void emit_match(Emitter *e, const Node *s, int limit_line) {
  const NodeList *cases = &s->u.match.cases;
  int first_case_line = cases->count ? case_line(cases->items[0]) : 0;
  /* The `:` of `match x:` is the last token before the first `case`. */
  int header_line = s->u.match.subject->span.end.line;
  if (cases->count && cases->items[0]->span.start.line > 0) {
    int line = emit_header_last_line(e, cases->items[0]);
    if (line > 0)
      header_line = line;
  }
  begin_header(e, s->span.start.line, header_line, true);
  emit_text(e, "match ");
  if (s->u.match.subject->kind == N_NAMED_EXPR)
    emit_named_expression(e, s->u.match.subject);
  else
    emit_expr(e, s->u.match.subject, PREC_TUPLE);
  end_header(e, header_line, first_case_line);
  e->indent++;
  e->block_start = true;
  for (int i = 0; i < cases->count; i++) {
    int next = i + 1 < cases->count ? case_line(cases->items[i + 1]) : limit_line;
    emit_match_case(e, cases->items[i], i > 0, next);
  }
  if (cases->count)
    emit_block_tail_comments(e, limit_line, cases->items[0]->span.start.col);
  e->indent--;
}

static bool is_compound(NodeKind kind) {
  switch (kind) {
  case N_FUNCTION_DEF:
  case N_CLASS_DEF:
  case N_IF:
  case N_FOR:
  case N_WHILE:
  case N_WITH:
  case N_TRY:
  case N_MATCH: return true;
  default: return false;
  }
}

void emit_stmt(Emitter *e, const Node *s, const Node *next, int limit_line) {
  if (e->converting && emit_verbatim_stmt(e, s, next))
    return;
  emit_enter(e, s);
  if (!is_compound(s->kind)) {
    emit_simple_stmt(e, s, next);
    emit_leave(e);
    return;
  }
  switch (s->kind) {
  case N_FUNCTION_DEF:
    if (s->u.function_def.replayed)
      emit_replayed_def(e, s, limit_line);
    else
      emit_function_def(e, s, limit_line);
    break;
  case N_CLASS_DEF: emit_class_def(e, s, limit_line); break;
  case N_IF: emit_if(e, s, limit_line); break;
  case N_FOR: emit_for(e, s, limit_line); break;
  case N_WHILE: emit_while(e, s, limit_line); break;
  case N_WITH: emit_with(e, s, limit_line); break;
  case N_TRY: emit_try(e, s, limit_line); break;
  case N_MATCH: emit_match(e, s, limit_line); break;
  default: break;
  }
  emit_leave(e);
}

/* ------------------------------------------------------------- the module */

void emit_python_module(Context *ctx, const ParseResult *parsed, Buf *out) {
  Emitter e;
  emitter_init(&e, ctx, out, parsed);
  if (parsed->module)
    emit_stmts(&e, &parsed->module->u.module.body, INT_MAX);
  emit_remaining_comments(&e);
  if (out->len > 0 && out->data[out->len - 1] != '\n')
    buf_putc(out, '\n');
}
