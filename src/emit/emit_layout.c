/*
 * emit_layout.c — the emitter's lines: indentation, the source's comments
 * and blank lines put back around the statements.
 *
 * Comments are written strictly in source order through one cursor
 * (next_comment), so each comes out exactly once. Where a comment goes
 * follows from its line: before a statement (own line), at the end of a
 * statement's or header's last line (trailing), or at the end of a block.
 * Blank lines are counted in the source between the last line accounted for
 * and the next thing written, at most two in a row, none at a block's start.
 */
#include <string.h>

#include "emit.h"

enum { MAX_BLANK_LINES = 2, INDENT_WIDTH = EMIT_INDENT_WIDTH };

/* ------------------------------------------------------------------ init */

/* Where the line starting at p ends, past its line break ('\n', "\r\n" or a
 * lone '\r', as the tokenizer counts lines), or NULL on the last line. */
static const char *next_line_start(const char *p, const char *end) {
  for (; p < end; p++) {
    if (*p == '\n')
      return p + 1;
    if (*p == '\r')
      return p + 1 < end && p[1] == '\n' ? p + 2 : p + 1;
  }
  return NULL;
}

/* Byte offset of the start of each line (arena). */
static void emitter_index_lines(Emitter *e) {
  const char *text = e->text, *end = e->text + e->text_len, *next;
  int count = 1;
  for (const char *p = text; (next = next_line_start(p, end)); p = next)
    count++;
  size_t *starts = arena_alloc(&e->ctx->arena, sizeof(size_t) * (size_t)(count + 1));
  int line = 0;
  starts[line++] = 0;
  for (const char *p = text; (next = next_line_start(p, end)); p = next)
    starts[line++] = (size_t)(next - text);
  starts[count] = e->text_len;
  e->line_starts = starts;
  e->line_count = count;
}

void emitter_init_bare(Emitter *e, Context *ctx, Buf *out) {
  memset(e, 0, sizeof *e);
  e->ctx = ctx;
  e->out = out;
  e->block_start = true;
}

void emitter_init(Emitter *e, Context *ctx, Buf *out, const ParseResult *parsed) {
  emitter_init_bare(e, ctx, out);
  e->text = ctx->source.text;
  e->text_len = ctx->source.len;
  e->tokens = parsed->tokens.tokens;
  e->token_count = parsed->tokens.tokens ? parsed->tokens.count : 0;
  e->comments = parsed->tokens.comments;
  e->comment_count = parsed->tokens.comments ? parsed->tokens.comment_count : 0;
  e->module = parsed->module;
  if (e->text)
    emitter_index_lines(e);
  /* The start of the module keeps its blank lines, so that a comment below
   * line 2 never moves up into the coding-cookie lines. */
  e->block_start = false;
}

/* ----------------------------------------------------------------- text */

void emit_text(Emitter *e, const char *text) { buf_puts(e->out, text); }

void emit_str(Emitter *e, Str s) { buf_put(e->out, s.text, (size_t)s.len); }

void emit_begin_line(Emitter *e) {
  static const char spaces[] = "                                                                ";
  int width = (e->indent + e->wrap_depth) * INDENT_WIDTH;
  while (width > 0) {
    int chunk = width < (int)sizeof spaces - 1 ? width : (int)sizeof spaces - 1;
    buf_put(e->out, spaces, (size_t)chunk);
    width -= chunk;
  }
}

void emit_end_line(Emitter *e) { buf_putc(e->out, '\n'); }

/* A blank line, unless two already end the output (never more than two in
 * a row, whatever asks for them). */
void emit_blank_line(Emitter *e) {
  const Buf *out = e->out;
  if (out->len >= 3 && memcmp(out->data + out->len - 3, "\n\n\n", 3) == 0)
    return;
  buf_putc(e->out, '\n');
}

void emit_enter(Emitter *e, const Node *node) {
  if (++e->depth > C2T_MAX_EMIT_DEPTH)
    diag_limit(&e->ctx->diag, node->span.start, "nested nodes to write back", C2T_MAX_EMIT_DEPTH);
}

void emit_leave(Emitter *e) { e->depth--; }

/* ----------------------------------------------------------- blank lines */

/* The first character of source line `line` that is not blank, '\n' for a blank line, 0
 * for a line that is not there. */
static char source_line_start(const Emitter *e, int line) {
  if (line < 1 || line > e->line_count)
    return 0;
  for (size_t i = e->line_starts[line - 1]; i < e->line_starts[line]; i++) {
    char c = e->text[i];
    if (c != ' ' && c != '\t' && c != '\f' && c != '\r' && c != '\n')
      return c;
  }
  return '\n';
}

static bool source_line_is_blank(const Emitter *e, int line) { return source_line_start(e, line) == '\n'; }

/* Whether source line `line` holds code (not blank, not only a comment). */
static bool source_line_has_code(const Emitter *e, int line) {
  char c = source_line_start(e, line);
  return c && c != '\n' && c != '#';
}

/* The blank source lines between the last line accounted for and `line`,
 * at most two, unless nothing has been written in this block yet. In a
 * converted module code there (a branch the converter left out) separates
 * runs of blank lines: the longest run counts, not their sum. */
static void emit_blank_lines_before(Emitter *e, int line) {
  if (e->block_start || !e->text)
    return;
  int blank = 0, run = 0;
  for (int l = e->last_line + 1; l < line && blank < MAX_BLANK_LINES; l++) {
    if (source_line_is_blank(e, l))
      run++;
    else if (e->converting && source_line_has_code(e, l))
      run = 0;
    blank = run > blank ? run : blank;
  }
  for (int i = 0; i < blank; i++)
    emit_blank_line(e);
}

/* -------------------------------------------------------------- comments */

bool emit_comment_dropped(const Emitter *e, int index) {
  int line = e->comments[index].pos.line;
  for (const EmitDropped *frame = e->dropped; frame; frame = frame->outer)
    for (int i = 0; i < frame->lines->count; i++)
      if (line >= frame->lines->ranges[i][0] && line <= frame->lines->ranges[i][1])
        return true;
  return false;
}

/* The next comment to write; those of dropped branches are passed over. */
static const Comment *next_comment(Emitter *e) {
  while (e->next_comment < e->comment_count && e->dropped && emit_comment_dropped(e, e->next_comment))
    e->next_comment++;
  return e->next_comment < e->comment_count ? &e->comments[e->next_comment] : NULL;
}

/* The comment text without trailing blanks. */
static void emit_comment_text(Emitter *e, const Comment *c) {
  int length = c->len;
  while (length > 0 && strchr(" \t\f\r\v", c->text[length - 1]))
    length--;
  buf_put(e->out, c->text, (size_t)length);
}

/* A comment that CPython would read as an encoding declaration
 * (`coding[:=]`) if it stood on line 1 or 2. */
static bool comment_declares_coding(const Comment *c) {
  for (int i = 0; i + 7 <= c->len; i++)
    if (memcmp(c->text + i, "coding", 6) == 0 && (c->text[i + 6] == ':' || c->text[i + 6] == '='))
      return true;
  return false;
}

/* Number of lines written so far, counted only while it is below 2. */
static int output_lines_below_two(const Emitter *e) {
  int lines = 0;
  for (size_t i = 0; i < e->out->len && lines < 2; i++)
    if (e->out->data[i] == '\n')
      lines++;
  return lines;
}

/* A coding-like comment moved up onto line 1 or 2 (out of a statement)
 * would change how CPython decodes the file: keep it below them. */
static void keep_off_cookie_lines(Emitter *e, const Comment *c) {
  if (!comment_declares_coding(c))
    return;
  int written = output_lines_below_two(e);
  if (written < 2 && written + 1 != c->pos.line)
    while (written++ < 2)
      emit_blank_line(e);
}

static void emit_own_line_comment(Emitter *e, const Comment *c) {
  keep_off_cookie_lines(e, c);
  emit_begin_line(e);
  emit_comment_text(e, c);
  emit_end_line(e);
  e->next_comment++;
  if (c->pos.line > e->last_line)
    e->last_line = c->pos.line;
  e->block_start = false;
}

/* ------------------------------------------------ comments in f-strings */

/* Python 3.12 lets a comment sit inside a multi-line f-string field. In a
 * debug field (`f"{x = # note` newline `}"`) it is part of the debug text,
 * which is written verbatim, so it must not be written again. */

static int token_index_at(Emitter *e, size_t offset);

/* Is comment `c`, inside the statement starting on `first_line`, within
 * an f-string? The f-string nesting is tracked by scanning the statement's
 * tokens, resuming where the last scan of the same statement stopped. */
static bool comment_inside_fstring(Emitter *e, const Comment *c, int first_line) {
  if (!e->tokens || first_line < 1 || first_line > e->line_count)
    return false;
  int statement_start = token_index_at(e, e->line_starts[first_line - 1]);
  if (e->scan_token < statement_start) {
    e->scan_token = statement_start;
    e->scan_depth = 0;
  }
  for (; e->scan_token < e->token_count && e->tokens[e->scan_token].span.start.offset < c->pos.offset; e->scan_token++) {
    TokenKind kind = e->tokens[e->scan_token].kind;
    if (kind == TOK_FSTRING_START)
      e->scan_depth++;
    else if (kind == TOK_FSTRING_END && e->scan_depth > 0)
      e->scan_depth--;
  }
  return e->scan_depth > 0;
}

/* Index of the first comment at or after byte `offset`. */
static int comment_index_at(const Emitter *e, size_t offset) {
  int low = 0, high = e->comment_count;
  while (low < high) {
    int mid = low + (high - low) / 2;
    if (e->comments[mid].pos.offset < offset)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

typedef struct DebugTextMarks {
  const Emitter *e;
  bool *in_debug_text; /* per comment */
} DebugTextMarks;

/* Mark the comments inside the debug text of each f-string field below `n`. */
static void mark_debug_text_comments(Node *n, void *data) {
  DebugTextMarks *marks = data;
  const Emitter *e = marks->e;
  Str debug = n->kind == N_FORMATTED_VALUE ? n->u.formatted_value.debug_text : (Str){NULL, 0};
  uintptr_t text = (uintptr_t)e->text, at = (uintptr_t)debug.text;
  if (debug.len > 0 && at >= text && at - text < e->text_len) {
    size_t from = at - text, to = from + (size_t)debug.len;
    for (int i = comment_index_at(e, from); i < e->comment_count && e->comments[i].pos.offset < to; i++)
      marks->in_debug_text[i] = true;
  }
  node_children(n, mark_debug_text_comments, data);
}

/* The first time a comment turns up inside an f-string, one walk over the
 * tree marks every comment that lies in a debug text. */
static bool comment_in_debug_text(Emitter *e, const Comment *c, int first_line) {
  if (!comment_inside_fstring(e, c, first_line) || !e->module)
    return false;
  if (!e->in_debug_text) {
    DebugTextMarks marks = {e, arena_alloc(&e->ctx->arena, (size_t)e->comment_count)};
    mark_debug_text_comments(e->module, &marks);
    e->in_debug_text = marks.in_debug_text;
  }
  return e->in_debug_text[c - e->comments];
}

void emit_comments_before(Emitter *e, int first_line, int last_line, bool keep_blank_lines) {
  const Comment *c;
  while ((c = next_comment(e)) && c->pos.line < first_line) {
    if (keep_blank_lines)
      emit_blank_lines_before(e, c->pos.line);
    emit_own_line_comment(e, c);
  }
  if (keep_blank_lines)
    emit_blank_lines_before(e, first_line);
  emit_comments_inside_before(e, first_line, last_line);
}

void emit_trailing_comment_above(Emitter *e, int line) {
  const Comment *c = next_comment(e);
  if (c && !c->own_line && c->pos.line < line)
    emit_trailing_comment(e, c->pos.line);
}

bool emit_comment_within(const Emitter *e, int first_line, int last_line) {
  for (int i = e->next_comment; i < e->comment_count && e->comments[i].pos.line <= last_line; i++)
    if (e->comments[i].pos.line >= first_line && !(e->dropped && emit_comment_dropped(e, i)))
      return true;
  return false;
}

void emit_comments_inside_before(Emitter *e, int first_line, int line) {
  const Comment *c;
  while ((c = next_comment(e)) && c->pos.line < line) {
    if (comment_in_debug_text(e, c, first_line))
      e->next_comment++; /* already part of the f-string's verbatim text */
    else
      emit_own_line_comment(e, c);
  }
}

void emit_comment_lines(Emitter *e, const char *text) {
  const char *word = text;
  while (*word) {
    emit_begin_line(e);
    buf_putc(e->out, '#');
    int column = emit_output_column(e);
    bool first = true;
    while (*word == ' ')
      word++;
    while (*word) {
      size_t length = strcspn(word, " ");
      if (!first && column + 1 + (int)length > EMIT_LINE_LIMIT)
        break;
      buf_putc(e->out, ' ');
      buf_put(e->out, word, length);
      column += 1 + (int)length;
      first = false;
      word += length;
      while (*word == ' ')
        word++;
    }
    emit_end_line(e);
  }
}

void emit_trailing_comment(Emitter *e, int line) {
  const Comment *c = next_comment(e);
  if (!c || c->own_line || c->pos.line != line)
    return;
  buf_put(e->out, "  ", 2);
  emit_comment_text(e, c);
  e->next_comment++;
}

/* Whether code stands between the last line written and `line`: a statement the converter
 * left out (the header of a branch it decided), whose comments are not the block's tail. */
static bool code_before(const Emitter *e, int line) {
  for (int l = e->last_line + 1; l < line; l++)
    if (source_line_has_code(e, l))
      return true;
  return false;
}

void emit_block_tail_comments(Emitter *e, int limit_line, int block_col) {
  const Comment *c;
  while ((c = next_comment(e)) && c->own_line && c->pos.line < limit_line && c->pos.col >= block_col &&
         !code_before(e, c->pos.line)) {
    emit_blank_lines_before(e, c->pos.line);
    emit_own_line_comment(e, c);
  }
}

void emit_remaining_comments(Emitter *e) {
  const Comment *c;
  while ((c = next_comment(e))) {
    emit_blank_lines_before(e, c->pos.line);
    emit_own_line_comment(e, c);
  }
}

/* ---------------------------------------------------------------- tokens */

/* Index of the first token that starts at or after byte `offset`. The
 * emitter asks in source order, so the search gallops forward from the
 * previous answer and stays within a few nearby tokens. */
static int token_index_at(Emitter *e, size_t offset) {
  int low = 0, high = e->token_count;
  if (high == 0)
    return 0;
  int hint = e->token_hint < e->token_count ? e->token_hint : 0;
  if (e->tokens[hint].span.start.offset < offset) {
    low = hint + 1;
    for (int step = 1; low + step < high; step *= 2) {
      if (e->tokens[low + step].span.start.offset >= offset) {
        high = low + step;
        break;
      }
      low += step + 1;
    }
  }
  while (low < high) {
    int mid = low + (high - low) / 2;
    if (e->tokens[mid].span.start.offset < offset)
      low = mid + 1;
    else
      high = mid;
  }
  e->token_hint = low;
  return low;
}

static bool token_is_layout(const Token *t) {
  return t->kind == TOK_NEWLINE || t->kind == TOK_INDENT || t->kind == TOK_DEDENT;
}

/* Opening brackets and `@` that may precede a statement's first node. */
static bool token_opens_statement(const Token *t) {
  return t->kind == TOK_OP && (t->op == OP_LPAR || t->op == OP_LSQB || t->op == OP_LBRACE || t->op == OP_AT);
}

static size_t stmt_first_offset(const Node *stmt) {
  size_t offset = stmt->span.start.offset;
  if (stmt->kind == N_FUNCTION_DEF && stmt->u.function_def.decorator_list.count > 0)
    offset = stmt->u.function_def.decorator_list.items[0]->span.start.offset;
  else if (stmt->kind == N_CLASS_DEF && stmt->u.class_def.decorator_list.count > 0)
    offset = stmt->u.class_def.decorator_list.items[0]->span.start.offset;
  return offset < stmt->span.start.offset ? offset : stmt->span.start.offset;
}

/* Index of the last token of the header before `body_first`, or -1. */
static int header_last_token(Emitter *e, const Node *body_first) {
  if (!e->tokens || !body_first)
    return -1;
  int i = token_index_at(e, stmt_first_offset(body_first)) - 1;
  while (i >= 0 && (token_is_layout(&e->tokens[i]) || token_opens_statement(&e->tokens[i])))
    i--;
  /* statements the converter left out (`a = x`, an array's other name) may stand between the
     header and the block's first statement: the header ends at the colon that ends a line */
  if (i < 0 || (e->tokens[i].kind == TOK_OP && e->tokens[i].op == OP_COLON))
    return i;
  int colon = i;
  while (colon >= 0 && !(e->tokens[colon].kind == TOK_OP && e->tokens[colon].op == OP_COLON &&
                         colon + 1 < e->token_count && e->tokens[colon + 1].kind == TOK_NEWLINE))
    colon--;
  return colon >= 0 && e->tokens[colon].span.end.line < e->tokens[i].span.end.line ? colon : i;
}

int emit_header_last_line(Emitter *e, const Node *body_first) {
  int i = header_last_token(e, body_first);
  return i >= 0 ? e->tokens[i].span.end.line : 0;
}

int emit_header_colon_line(Emitter *e, const Node *stmt) {
  if (!e->tokens || stmt->span.start.line <= 0)
    return 0;
  int depth = 0, lambdas = 0;
  for (int i = token_index_at(e, stmt->span.start.offset); i < e->token_count; i++) {
    const Token *t = &e->tokens[i];
    if (t->kind == TOK_NEWLINE)
      return 0;
    if (t->kind == TOK_NAME && t->keyword == KW_LAMBDA)
      lambdas++; /* its parameters end at a colon of their own */
    if (t->kind != TOK_OP)
      continue;
    if (t->op == OP_LPAR || t->op == OP_LSQB || t->op == OP_LBRACE)
      depth++;
    else if (t->op == OP_RPAR || t->op == OP_RSQB || t->op == OP_RBRACE)
      depth--;
    else if (t->op == OP_COLON && depth <= 0 && lambdas-- == 0)
      return t->span.end.line;
  }
  return 0;
}

int emit_clause_keyword_line(Emitter *e, const Node *body_first) {
  int i = header_last_token(e, body_first);
  if (i > 0 && e->tokens[i].kind == TOK_OP && e->tokens[i].op == OP_COLON)
    i--;
  return i >= 0 ? e->tokens[i].span.start.line : 0;
}

int emit_stmt_first_line(const Node *stmt) {
  int line = stmt->span.start.line;
  const NodeList *decorators = NULL;
  if (stmt->kind == N_FUNCTION_DEF)
    decorators = &stmt->u.function_def.decorator_list;
  else if (stmt->kind == N_CLASS_DEF)
    decorators = &stmt->u.class_def.decorator_list;
  if (decorators && decorators->count > 0 && decorators->items[0]->span.start.line < line)
    line = decorators->items[0]->span.start.line;
  return line;
}
