/*
 * emit_expr.c — expressions written back as Python source, on one line.
 *
 * Every expression is written in a context that asks for a minimum
 * precedence (Prec, emit.h); a node that binds more loosely, or that the
 * source wrote inside parentheses (Node.parenthesized), is wrapped in (...).
 * The operand rules follow the grammar: binary operators are
 * left-associative, `**` is right-associative with a unary operand allowed
 * on its right, comparisons and boolean operators never nest unparenthesized
 * (the parser flattens them), `await` takes a primary.
 *
 * Also here: f-strings, call and parameter lists, comprehensions, type
 * parameters and match patterns.
 */
#include <string.h>

#include "emit.h"

static void emit_node(Emitter *e, const Node *n);

/* ------------------------------------------------------------- operators */

const char *emit_ast_op_spelling(AstOp op) {
  switch (op) {
  case AOP_ADD: return "+";
  case AOP_SUB: return "-";
  case AOP_MULT: return "*";
  case AOP_MATMULT: return "@";
  case AOP_DIV: return "/";
  case AOP_MOD: return "%";
  case AOP_POW: return "**";
  case AOP_LSHIFT: return "<<";
  case AOP_RSHIFT: return ">>";
  case AOP_BITOR: return "|";
  case AOP_BITXOR: return "^";
  case AOP_BITAND: return "&";
  case AOP_FLOORDIV: return "//";
  case AOP_INVERT: return "~";
  case AOP_NOT: return "not";
  case AOP_UADD: return "+";
  case AOP_USUB: return "-";
  case AOP_AND: return "and";
  case AOP_OR: return "or";
  case AOP_EQ: return "==";
  case AOP_NOTEQ: return "!=";
  case AOP_LT: return "<";
  case AOP_LTE: return "<=";
  case AOP_GT: return ">";
  case AOP_GTE: return ">=";
  case AOP_IS: return "is";
  case AOP_ISNOT: return "is not";
  case AOP_IN: return "in";
  case AOP_NOTIN: return "not in";
  default: return "?";
  }
}

static Prec binary_op_prec(AstOp op) {
  switch (op) {
  case AOP_BITOR: return PREC_BOR;
  case AOP_BITXOR: return PREC_BXOR;
  case AOP_BITAND: return PREC_BAND;
  case AOP_LSHIFT:
  case AOP_RSHIFT: return PREC_SHIFT;
  case AOP_ADD:
  case AOP_SUB: return PREC_ARITH;
  case AOP_POW: return PREC_POWER;
  default: return PREC_TERM; /* * / // % @ */
  }
}

/* How loosely `n` binds when written without parentheses. */
static Prec expr_prec(const Node *n) {
  switch (n->kind) {
  case N_NAMED_EXPR: return PREC_NAMED;
  case N_YIELD:
  case N_YIELD_FROM: return PREC_YIELD;
  case N_TUPLE: return n->u.list.elts.count ? PREC_TUPLE : PREC_ATOM;
  case N_LAMBDA:
  case N_IF_EXP: return PREC_TEST;
  case N_BOOL_OP: return n->u.bool_op.op == AOP_AND ? PREC_AND : PREC_OR;
  case N_UNARY_OP: return n->u.unary_op.op == AOP_NOT ? PREC_NOT : PREC_FACTOR;
  case N_COMPARE: return PREC_CMP;
  case N_BIN_OP: return binary_op_prec(n->u.bin_op.op);
  case N_AWAIT: return PREC_AWAIT;
  default: return PREC_ATOM;
  }
}

/* Nodes that bring their own brackets or never take extra ones. */
static bool expr_has_own_brackets(const Node *n) {
  return n->kind == N_GENERATOR_EXP || (n->kind == N_TUPLE && n->u.list.elts.count == 0) || n->kind == N_STARRED ||
         n->kind == N_SLICE;
}

static void emit_argument_list_broken(Emitter *e, const Node *list, const NodeList *args, const NodeList *keywords);
static bool list_wants_break(Emitter *e, const Node *list, const NodeList *args, const NodeList *keywords);

/* ------------------------------------------------ long operator chains */

/* `a + b - c`, `a and b and c`: the operands of the chain `n` is the last
 * operator of (the left operands of the same precedence, unparenthesized,
 * taken in; `**` is no chain). Returns how many; `operands` and `ops` (the
 * operator before each operand but the first) are arena arrays. */
static int chain_operands(Emitter *e, const Node *n, const Node ***operands, const char ***ops) {
  int count = 0;
  if (n->kind == N_BOOL_OP) {
    count = n->u.bool_op.values.count;
    *operands = arena_alloc(&e->ctx->arena, sizeof(Node *) * (size_t)count);
    *ops = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)count);
    for (int i = 0; i < count; i++) {
      (*operands)[i] = n->u.bool_op.values.items[i];
      (*ops)[i] = n->u.bool_op.op == AOP_AND ? "and" : "or";
    }
    return count;
  }
  Prec prec = binary_op_prec(n->u.bin_op.op);
  count = 2;
  for (const Node *left = n->u.bin_op.left; left->kind == N_BIN_OP && !left->parenthesized &&
                                            left->u.bin_op.op != AOP_POW && binary_op_prec(left->u.bin_op.op) == prec;
       left = left->u.bin_op.left)
    count++;
  *operands = arena_alloc(&e->ctx->arena, sizeof(Node *) * (size_t)count);
  *ops = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)count);
  const Node *at = n;
  for (int i = count - 1; i > 0; i--) {
    (*operands)[i] = at->u.bin_op.right;
    (*ops)[i] = emit_ast_op_spelling(at->u.bin_op.op);
    at = at->u.bin_op.left;
  }
  (*operands)[0] = at;
  (*ops)[0] = NULL;
  return count;
}

static bool is_operator_chain(const Node *n) {
  return n->kind == N_BOOL_OP || (n->kind == N_BIN_OP && n->u.bin_op.op != AOP_POW);
}

/* `n` written on one line with no breaks, as the source would have it. */
static int inline_width(Emitter *e, const Node *n, Prec context, bool *one_line) {
  Buf scratch = {0};
  Emitter inline_emitter = *e;
  inline_emitter.out = &scratch;
  inline_emitter.converting = false;
  emit_expr(&inline_emitter, n, context);
  *one_line = memchr(scratch.data ? scratch.data : "", '\n', scratch.len) == NULL;
  int width = (int)scratch.len;
  buf_free(&scratch);
  return width;
}

/* A conditional expression that is the whole value of an assignment, too long for its line,
 * whose three parts each fit a line of their own (`else ` before the last, one indentation
 * deeper): broken there, as an operator chain. Others keep their calls' breaks. */
static bool if_exp_wants_break(Emitter *e, const Node *n, Prec context) {
  bool one_line;
  if (n != e->whole_value || inline_width(e, n, context, &one_line) + emit_output_column(e) <= EMIT_LINE_LIMIT ||
      !one_line)
    return false;
  int column = (e->indent + e->wrap_depth + 1) * EMIT_INDENT_WIDTH + (int)strlen("else ");
  const Node *parts[3] = {n->u.if_exp.body, n->u.if_exp.test, n->u.if_exp.orelse};
  for (int i = 0; i < 3; i++)
    if (inline_width(e, parts[i], i == 2 ? PREC_TEST : PREC_OR, &one_line) + column > EMIT_LINE_LIMIT || !one_line)
      return false;
  return true;
}

/* In a converted module, does the operator chain `n` written on this line
 * run past the line limit (with one more character for a `,`, `)` or `:`
 * after it)? */
static bool chain_wants_break(Emitter *e, const Node *n, Prec context) {
  if (!e->converting || e->no_wrap > 0)
    return false;
  if (n->kind == N_IF_EXP)
    return if_exp_wants_break(e, n, context);
  if (!is_operator_chain(n))
    return false;
  bool one_line;
  int width = inline_width(e, n, context, &one_line);
  return one_line && emit_output_column(e) + width + 1 > EMIT_LINE_LIMIT;
}

/* The chain inside parentheses, one operand a line, each after its operator:
 *
 *     (
 *         a
 *         and b
 *     )
 *
 * and a conditional expression so, `if` and `else` before the test and the other value. */
static void emit_chain_broken(Emitter *e, const Node *n) {
  const Node **operands;
  const char **ops;
  int count;
  Prec prec;
  const Node *parts[3];
  const char *words[3] = {NULL, "if", "else"};
  Prec precs[3] = {PREC_OR, PREC_OR, PREC_TEST};
  if (n->kind == N_IF_EXP) {
    parts[0] = n->u.if_exp.body, parts[1] = n->u.if_exp.test, parts[2] = n->u.if_exp.orelse;
    operands = parts, ops = words, count = 3, prec = PREC_TEST;
  } else {
    count = chain_operands(e, n, &operands, &ops);
    prec = expr_prec(n);
  }
  buf_putc(e->out, '(');
  e->wrap_depth++;
  for (int i = 0; i < count; i++) {
    emit_end_line(e);
    emit_begin_line(e);
    if (i) {
      emit_text(e, ops[i]);
      buf_putc(e->out, ' ');
    }
    /* left-associative: the first operand binds at the chain's level, the others one tighter */
    emit_expr(e, operands[i], n->kind == N_IF_EXP ? precs[i] : i == 0 && n->kind == N_BIN_OP ? prec : prec + 1);
  }
  e->wrap_depth--;
  emit_end_line(e);
  emit_begin_line(e);
  buf_putc(e->out, ')');
}

/* ---------------------------------------------------------- expressions */

void emit_expr(Emitter *e, const Node *n, Prec context) {
  emit_enter(e, n);
  if (chain_wants_break(e, n, context)) {
    emit_chain_broken(e, n);
    emit_leave(e);
    return;
  }
  if (n->kind == N_TUPLE && n->u.list.elts.count >= 2) {
    /* a converted tuple past the line limit: in parentheses, one element a line, as a
     * call's arguments (the same tuple wherever it stands) */
    const NodeList no_keywords = {0};
    if (list_wants_break(e, n, &n->u.list.elts, &no_keywords)) {
      buf_putc(e->out, '(');
      emit_argument_list_broken(e, n, &n->u.list.elts, &no_keywords);
      buf_putc(e->out, ')');
      emit_leave(e);
      return;
    }
  }
  bool parens = !expr_has_own_brackets(n) && (n->parenthesized || expr_prec(n) < context);
  if (parens)
    buf_putc(e->out, '(');
  emit_node(e, n);
  if (parens)
    buf_putc(e->out, ')');
  emit_leave(e);
}

/* named_expression: where the grammar takes `x := y` without parentheses
 * (if and while tests, call arguments, list and set elements, subscripts,
 * comprehension elements, decorators, guards). */
void emit_named_expression(Emitter *e, const Node *n) {
  emit_expr(e, n, n->kind == N_NAMED_EXPR ? PREC_NAMED : PREC_TEST);
}

/* Where a bare lambda would swallow a following `:` (slices, f-string
 * fields), it needs parentheses even though its precedence would do. */
static void emit_expr_no_bare_lambda(Emitter *e, const Node *n, Prec context) {
  if (n->kind == N_LAMBDA && !n->parenthesized) {
    buf_putc(e->out, '(');
    emit_expr(e, n, PREC_NAMED);
    buf_putc(e->out, ')');
  } else {
    emit_expr(e, n, context);
  }
}

static void emit_list(Emitter *e, const NodeList *items, Prec context) {
  for (int i = 0; i < items->count; i++) {
    if (i)
      emit_text(e, ", ");
    emit_expr(e, items->items[i], context);
  }
}

static void emit_named_list(Emitter *e, const NodeList *items) {
  for (int i = 0; i < items->count; i++) {
    if (i)
      emit_text(e, ", ");
    emit_named_expression(e, items->items[i]);
  }
}

/* -------------------------------------------------------------- literals */

static void emit_constant(Emitter *e, const Node *n) {
  switch (n->u.constant.kind) {
  case CONST_NUMBER: emit_str(e, n->u.constant.text); break;
  case CONST_NONE: emit_text(e, "None"); break;
  case CONST_TRUE: emit_text(e, "True"); break;
  case CONST_FALSE: emit_text(e, "False"); break;
  case CONST_ELLIPSIS: emit_text(e, "..."); break;
  }
}

static void emit_fstring_parts(Emitter *e, const NodeList *parts);

/* `{value!r:spec}`, or `{x = }` with the debug text as spelled. */
static void emit_formatted_value_parts(Emitter *e, const Node *n);

/* Inside an f-string field nothing may break a line. */
static void emit_formatted_value(Emitter *e, const Node *n) {
  e->no_wrap++;
  emit_formatted_value_parts(e, n);
  e->no_wrap--;
}

static void emit_formatted_value_parts(Emitter *e, const Node *n) {
  buf_putc(e->out, '{');
  if (n->u.formatted_value.debug_text.len > 0) {
    emit_str(e, n->u.formatted_value.debug_text);
  } else {
    size_t start = e->out->len;
    emit_expr_no_bare_lambda(e, n->u.formatted_value.value, PREC_TEST);
    if (e->out->len > start && e->out->data[start] == '{') {
      /* `{{` would read as an escaped brace: `{ {a: b}}`. */
      buf_putc(e->out, ' ');
      memmove(e->out->data + start + 1, e->out->data + start, e->out->len - start - 1);
      e->out->data[start] = ' ';
    }
  }
  if (n->u.formatted_value.conversion != -1) {
    buf_putc(e->out, '!');
    buf_putc(e->out, (char)n->u.formatted_value.conversion);
  }
  const Node *spec = n->u.formatted_value.format_spec;
  if (spec) {
    buf_putc(e->out, ':');
    emit_fstring_parts(e, &spec->u.fstring.parts);
  }
  buf_putc(e->out, '}');
}

static void emit_fstring_parts(Emitter *e, const NodeList *parts) {
  for (int i = 0; i < parts->count; i++) {
    const Node *part = parts->items[i];
    emit_enter(e, part);
    if (part->kind == N_FORMATTED_VALUE)
      emit_formatted_value(e, part);
    else
      emit_str(e, part->u.piece.text);
    emit_leave(e);
  }
}

static void emit_fstring(Emitter *e, const Node *n) {
  emit_str(e, n->u.fstring.prefix_and_quote);
  emit_fstring_parts(e, &n->u.fstring.parts);
  emit_str(e, n->u.fstring.closing_quote);
}

/* Implicitly concatenated pieces, one space apart. */
static void emit_string(Emitter *e, const Node *n) {
  const NodeList *parts = &n->u.string.parts;
  for (int i = 0; i < parts->count; i++) {
    if (i)
      buf_putc(e->out, ' ');
    const Node *part = parts->items[i];
    if (part->kind == N_FSTRING)
      emit_fstring(e, part);
    else
      emit_str(e, part->u.piece.text);
  }
}

/* ---------------------------------------------------------- compositions */

/* `1 .real`: an integer literal followed by `.` would read as a float. */
static bool needs_space_before_dot(const Node *value) {
  if (value->kind != N_CONSTANT || value->parenthesized || value->u.constant.kind != CONST_NUMBER)
    return false;
  Str text = value->u.constant.text;
  return memchr(text.text, '.', (size_t)text.len) == NULL;
}

static void emit_slice(Emitter *e, const Node *n) {
  if (n->u.slice.lower)
    emit_expr_no_bare_lambda(e, n->u.slice.lower, PREC_TEST);
  buf_putc(e->out, ':');
  if (n->u.slice.upper)
    emit_expr_no_bare_lambda(e, n->u.slice.upper, PREC_TEST);
  if (n->u.slice.step) {
    buf_putc(e->out, ':');
    emit_expr_no_bare_lambda(e, n->u.slice.step, PREC_TEST);
  }
}

/* The text between `[` and `]`: `i`, `a:b`, `1:2, ::3`, `*ts`, `()`. */
static void emit_subscript_slice(Emitter *e, const Node *slice) {
  if (slice->kind == N_TUPLE && !slice->parenthesized && slice->u.list.elts.count > 0) {
    const NodeList *elts = &slice->u.list.elts;
    for (int i = 0; i < elts->count; i++) {
      if (i)
        emit_text(e, ", ");
      emit_expr(e, elts->items[i], PREC_TEST);
    }
    if (elts->count == 1 && elts->items[0]->kind != N_STARRED)
      buf_putc(e->out, ',');
    return;
  }
  if (slice->kind == N_NAMED_EXPR)
    emit_named_expression(e, slice);
  else
    emit_expr(e, slice, PREC_TUPLE);
}

static void emit_dict_item(Emitter *e, const Node *n, int i) {
  const Node *key = n->u.dict.keys.items[i];
  if (key) {
    emit_expr(e, key, PREC_TEST);
    emit_text(e, ": ");
    emit_expr(e, n->u.dict.values.items[i], PREC_TEST);
  } else {
    emit_text(e, "**");
    emit_expr(e, n->u.dict.values.items[i], PREC_BOR);
  }
}

/* Would the dict, written on this line, run past the line limit (with its
 * closing brace and a character after it)? Even a one-item dict then breaks,
 * its item on a line of its own, as a careful engineer (or black) writes it. */
static bool dict_wants_break(Emitter *e, const Node *n) {
  if (!e->converting || e->no_wrap > 0 || n->u.dict.values.count == 0)
    return false;
  Buf scratch = {0};
  Emitter inline_emitter = *e;
  inline_emitter.out = &scratch;
  inline_emitter.converting = false;
  for (int i = 0; i < n->u.dict.values.count; i++) {
    if (i)
      emit_text(&inline_emitter, ", ");
    emit_dict_item(&inline_emitter, n, i);
  }
  bool too_long = memchr(scratch.data ? scratch.data : "", '\n', scratch.len) == NULL &&
                  emit_output_column(e) + (int)scratch.len + 3 > EMIT_LINE_LIMIT;
  buf_free(&scratch);
  return too_long;
}

static void emit_dict(Emitter *e, const Node *n) {
  buf_putc(e->out, '{');
  if (dict_wants_break(e, n)) { /* one item a line, each followed by a comma */
    e->wrap_depth++;
    for (int i = 0; i < n->u.dict.values.count; i++) {
      emit_end_line(e);
      emit_begin_line(e);
      emit_dict_item(e, n, i);
      buf_putc(e->out, ',');
    }
    e->wrap_depth--;
    emit_end_line(e);
    emit_begin_line(e);
  } else {
    for (int i = 0; i < n->u.dict.values.count; i++) {
      if (i)
        emit_text(e, ", ");
      emit_dict_item(e, n, i);
    }
  }
  buf_putc(e->out, '}');
}

static void emit_tuple_elements(Emitter *e, const Node *n) {
  emit_list(e, &n->u.list.elts, PREC_TEST);
  if (n->u.list.elts.count == 1)
    buf_putc(e->out, ',');
}

static void emit_comprehensions(Emitter *e, const NodeList *generators) {
  for (int i = 0; i < generators->count; i++) {
    const Node *g = generators->items[i];
    emit_text(e, g->u.comprehension.is_async ? " async for " : " for ");
    emit_expr(e, g->u.comprehension.target, PREC_TUPLE);
    emit_text(e, " in ");
    emit_expr(e, g->u.comprehension.iter, PREC_OR);
    for (int j = 0; j < g->u.comprehension.ifs.count; j++) {
      emit_text(e, " if ");
      emit_expr(e, g->u.comprehension.ifs.items[j], PREC_OR);
    }
  }
}

/* `x for x in y` without its parentheses. */
static void emit_generator_body(Emitter *e, const Node *n) {
  emit_named_expression(e, n->u.comp.elt);
  emit_comprehensions(e, &n->u.comp.generators);
}

void emit_argument_list(Emitter *e, const NodeList *args, const NodeList *keywords) {
  emit_named_list(e, args);
  for (int i = 0; i < keywords->count; i++) {
    if (i || args->count)
      emit_text(e, ", ");
    const Node *k = keywords->items[i];
    if (k->u.keyword.arg.len) {
      emit_str(e, k->u.keyword.arg);
      buf_putc(e->out, '=');
    } else {
      emit_text(e, "**");
    }
    emit_expr(e, k->u.keyword.value, PREC_TEST);
  }
}

/* Item `i` of a list: of `args`, then of `keywords`; NULL past the last. */
static const Node *list_item(const NodeList *args, const NodeList *keywords, int i) {
  if (i < args->count)
    return args->items[i];
  i -= args->count;
  return i < keywords->count ? keywords->items[i] : NULL;
}

/* Whether `node` (a list, or an item of one) is the source's, within the converted statement
 * whose comments go with the items of its broken lists (emit_simple_stmt). */
static bool within_statement(const Emitter *e, const Node *node) {
  int line = node ? node->span.start.line : 0;
  return e->items_last_line > 0 && line >= e->items_first_line && node->span.end.line <= e->items_last_line;
}

/* The source lines of a list whose items may take the comments there: the list's own, or,
 * for a list the converter made (a launch in place of ct.launch), those of its items from the
 * source, closed on the statement's last line. All 0 where it stands on one line. */
typedef struct {
  int first, last; /* the lines of the list's items */
  int close;       /* the line of its closing bracket: a comment there is not the items' */
} ListLines;

static ListLines list_lines(const Emitter *e, const Node *list, const NodeList *args, const NodeList *keywords) {
  ListLines lines = {0, 0, 0};
  if (within_statement(e, list)) {
    lines = (ListLines){list->span.start.line, list->span.end.line, list->span.end.line};
  } else if (e->items_last_line > 0 && !(list && list->span.start.line > 0)) {
    const Node *item;
    for (int i = 0; (item = list_item(args, keywords, i)); i++) {
      if (!within_statement(e, item))
        continue;
      if (!lines.first || item->span.start.line < lines.first)
        lines.first = item->span.start.line;
      if (item->span.end.line > lines.last)
        lines.last = item->span.end.line;
    }
    lines.close = e->items_last_line;
  }
  if (lines.first >= lines.last)
    lines = (ListLines){0, 0, 0};
  return lines;
}

/* Whether an item of a list the converter made (no source lines of its own) would take a
 * comment not yet written: one on a line of its own among the items, or one ending an item's
 * last line. Not the comments of what the converter left out (a hint's keyword). */
static bool made_list_takes_comment(const Emitter *e, ListLines lines, const NodeList *args,
                                    const NodeList *keywords) {
  for (int c = e->next_comment; c < e->comment_count && e->comments[c].pos.line < lines.close; c++) {
    int line = e->comments[c].pos.line;
    if (line < lines.first || (e->dropped && emit_comment_dropped(e, c)))
      continue;
    if (e->comments[c].own_line && line < lines.last)
      return true;
    const Node *item;
    for (int i = 0; (item = list_item(args, keywords, i)); i++)
      if (within_statement(e, item) && item->span.end.line == line)
        return true;
  }
  return false;
}

/* Whether the list `list` (its items `args` and `keywords`) is written one item a line: past
 * the line limit, or, in a converted statement, over several source lines with comments among
 * its items, which then stay by them. */
static bool list_wants_break(Emitter *e, const Node *list, const NodeList *args, const NodeList *keywords) {
  if (emit_wants_break(e, args, keywords, NULL, 0))
    return true;
  if (!e->converting || e->no_wrap > 0 || args->count + keywords->count < 2)
    return false;
  ListLines lines = list_lines(e, list, args, keywords);
  if (!lines.first)
    return false;
  if (within_statement(e, list))
    return emit_comment_within(e, lines.first, lines.close - 1);
  return made_list_takes_comment(e, lines, args, keywords);
}

/* The line break before an item of a broken list, and the comments of the statement's lines
 * above the item: the one ending the line the list opens on (`first`: the list's first item)
 * stays at the end of it, the others stand on lines of their own. */
static void emit_item_break(Emitter *e, ListLines lines, const Node *item, bool first) {
  bool keeps = lines.first && within_statement(e, item);
  if (keeps && first)
    emit_trailing_comment_above(e, item->span.start.line);
  emit_end_line(e);
  if (keeps)
    emit_comments_inside_before(e, e->items_first_line, item->span.start.line);
}

/* After an item and its comma: the comment that ends its last source line, unless the next
 * item (`next`, NULL for none) starts on that line, which then ends with it, or the list
 * closes there (the comment follows the bracket: it is the enclosing code's). */
static void emit_item_trailing_comment(Emitter *e, ListLines lines, const Node *item, const Node *next) {
  int line = item->span.end.line;
  if (!lines.first || !within_statement(e, item) || line >= lines.close)
    return;
  if (next && next->span.start.line == line)
    return;
  emit_trailing_comment(e, line);
}

/* A call's arguments one per line, each followed by a comma (and, in a converted statement,
 * the comments of its lines where they stood). */
static void emit_argument_list_broken(Emitter *e, const Node *list, const NodeList *args, const NodeList *keywords) {
  ListLines lines = list_lines(e, list, args, keywords);
  e->wrap_depth++;
  for (int i = 0; i < args->count; i++) {
    emit_item_break(e, lines, args->items[i], i == 0);
    emit_begin_line(e);
    const Node *outer = e->whole_value; /* an item alone on its line: a conditional past the limit breaks */
    e->whole_value = args->items[i];
    emit_named_expression(e, args->items[i]);
    e->whole_value = outer;
    buf_putc(e->out, ',');
    emit_item_trailing_comment(e, lines, args->items[i], list_item(args, keywords, i + 1));
  }
  for (int i = 0; i < keywords->count; i++) {
    const Node *k = keywords->items[i];
    emit_item_break(e, lines, k, i == 0 && args->count == 0);
    emit_begin_line(e);
    if (k->u.keyword.arg.len) {
      emit_str(e, k->u.keyword.arg);
      buf_putc(e->out, '=');
    } else {
      emit_text(e, "**");
    }
    const Node *outer = e->whole_value;
    e->whole_value = k->u.keyword.value;
    emit_expr(e, k->u.keyword.value, PREC_TEST);
    e->whole_value = outer;
    buf_putc(e->out, ',');
    emit_item_trailing_comment(e, lines, k, list_item(args, keywords, args->count + i + 1));
  }
  e->wrap_depth--;
  emit_end_line(e);
  emit_begin_line(e);
}

/* A def's parameters one per line (the caller writes the line breaks
 * around them). */
void emit_arguments_broken(Emitter *e, const Node *arguments, int header_line) {
  e->breaking_items = true;
  e->params_end_line = header_line;
  emit_arguments(e, arguments, false);
  e->params_end_line = 0;
  e->breaking_items = false;
}

void emit_call_arguments(Emitter *e, const Node *call) {
  const NodeList *args = &call->u.call.args, *keywords = &call->u.call.keywords;
  bool sole_generator = args->count == 1 && keywords->count == 0 && args->items[0]->kind == N_GENERATOR_EXP &&
                        !args->items[0]->parenthesized;
  if (sole_generator) {
    emit_enter(e, args->items[0]);
    emit_generator_body(e, args->items[0]);
    emit_leave(e);
    return;
  }
  if (list_wants_break(e, call, args, keywords)) {
    emit_argument_list_broken(e, call, args, keywords);
    return;
  }
  emit_argument_list(e, args, keywords);
}

static void emit_compare(Emitter *e, const Node *n) {
  emit_expr(e, n->u.compare.left, PREC_CMP + 1);
  for (int i = 0; i < n->u.compare.count; i++) {
    buf_putc(e->out, ' ');
    emit_text(e, emit_ast_op_spelling(n->u.compare.ops[i]));
    buf_putc(e->out, ' ');
    emit_expr(e, n->u.compare.comparators[i], PREC_CMP + 1);
  }
}

static void emit_bool_op(Emitter *e, const Node *n) {
  Prec operand = expr_prec(n) + 1;
  const char *op = n->u.bool_op.op == AOP_AND ? " and " : " or ";
  for (int i = 0; i < n->u.bool_op.values.count; i++) {
    if (i)
      emit_text(e, op);
    emit_expr(e, n->u.bool_op.values.items[i], operand);
  }
}

static void emit_bin_op(Emitter *e, const Node *n) {
  Prec prec = binary_op_prec(n->u.bin_op.op);
  bool is_power = n->u.bin_op.op == AOP_POW;
  /* power: await_primary '**' factor; the others are left-associative. */
  emit_expr(e, n->u.bin_op.left, is_power ? PREC_AWAIT : prec);
  buf_putc(e->out, ' ');
  emit_text(e, emit_ast_op_spelling(n->u.bin_op.op));
  buf_putc(e->out, ' ');
  emit_expr(e, n->u.bin_op.right, is_power ? PREC_FACTOR : prec + 1);
}

static void emit_unary_op(Emitter *e, const Node *n) {
  if (n->u.unary_op.op == AOP_NOT) {
    emit_text(e, "not ");
    emit_expr(e, n->u.unary_op.operand, PREC_NOT);
  } else {
    emit_text(e, emit_ast_op_spelling(n->u.unary_op.op));
    emit_expr(e, n->u.unary_op.operand, PREC_FACTOR);
  }
}

static bool arguments_empty(const Node *a) {
  return !a || (a->u.arguments.posonlyargs.count == 0 && a->u.arguments.args.count == 0 && !a->u.arguments.vararg &&
                a->u.arguments.kwonlyargs.count == 0 && !a->u.arguments.kwarg);
}

static void emit_lambda(Emitter *e, const Node *n) {
  const Node *args = n->u.lambda.args;
  if (arguments_empty(args)) {
    emit_text(e, "lambda");
  } else {
    emit_text(e, "lambda ");
    emit_arguments(e, args, true);
  }
  emit_text(e, ": ");
  emit_expr(e, n->u.lambda.body, PREC_TEST);
}

static void emit_if_exp(Emitter *e, const Node *n) {
  emit_expr(e, n->u.if_exp.body, PREC_OR);
  emit_text(e, " if ");
  emit_expr(e, n->u.if_exp.test, PREC_OR);
  emit_text(e, " else ");
  emit_expr(e, n->u.if_exp.orelse, PREC_TEST);
}

/* ------------------------------------------------------------ parameters */

static void emit_param(Emitter *e, const Node *arg, const Node *default_value, bool is_lambda) {
  emit_str(e, arg->u.arg.arg);
  bool annotated = arg->u.arg.annotation && !is_lambda;
  if (annotated) {
    emit_text(e, ": ");
    emit_expr(e, arg->u.arg.annotation, PREC_TEST);
  }
  if (default_value) {
    emit_text(e, annotated ? " = " : "=");
    emit_expr(e, default_value, PREC_TEST);
  }
}

/* The source line of a parameter, 0 for one the converter made. */
static int param_line(const Node *param) { return param ? param->span.start.line : 0; }

/* The trailing comment of source line `line` after the last parameter on
 * it (`next_line` is the line of the next parameter from the source, 0 when
 * none follows); the one on the header's last line goes after the `:`. */
static void emit_param_trailing_comment(Emitter *e, int line, int next_line) {
  if (e->params_end_line > 0 && line > 0 && line < e->params_end_line && next_line != line)
    emit_trailing_comment(e, line);
}

/* Before a parameter (`param`, NULL for a bare `*`): the comma after the
 * previous one, and when one per line, the line break with the comments
 * between them. `previous_line` is the source line of the last parameter
 * written that has one, `next_line` that of `param` or of the next one from
 * the source after it. */
static void emit_separator(Emitter *e, bool *first, int *previous_line, const Node *param, int next_line) {
  if (e->breaking_items) { /* one item per line */
    if (!*first)
      buf_putc(e->out, ',');
    emit_param_trailing_comment(e, *previous_line, next_line);
    emit_end_line(e);
    if (e->params_end_line > 0 && param_line(param) > 0)
      emit_comments_before(e, param_line(param), param_line(param), false);
    emit_begin_line(e);
  } else if (!*first) {
    emit_text(e, ", ");
  }
  if (param_line(param) > 0)
    *previous_line = param_line(param);
  *first = false;
}

/* A def's parameters in order, the bare `*` as NULL; `count` gets their number. */
static const Node **flat_params(Emitter *e, const Node *a, int *count) {
  const NodeList *lists[] = {&a->u.arguments.posonlyargs, &a->u.arguments.args, &a->u.arguments.kwonlyargs};
  int total = lists[0]->count + lists[1]->count + lists[2]->count + 2;
  const Node **flat = arena_alloc(&e->ctx->arena, sizeof(Node *) * (size_t)total);
  int n = 0;
  for (int l = 0; l < 2; l++)
    for (int i = 0; i < lists[l]->count; i++)
      flat[n++] = lists[l]->items[i];
  if (a->u.arguments.vararg || lists[2]->count)
    flat[n++] = a->u.arguments.vararg;
  for (int i = 0; i < lists[2]->count; i++)
    flat[n++] = lists[2]->items[i];
  if (a->u.arguments.kwarg)
    flat[n++] = a->u.arguments.kwarg;
  *count = n;
  return flat;
}

/* The source line of the first parameter from the source at or after index `from`, or 0. */
static int next_param_line(const Node **flat, int count, int from) {
  for (int i = from; i < count; i++)
    if (param_line(flat[i]) > 0)
      return param_line(flat[i]);
  return 0;
}

void emit_arguments(Emitter *e, const Node *a, bool is_lambda) {
  const NodeList *posonly = &a->u.arguments.posonlyargs, *args = &a->u.arguments.args;
  const NodeList *defaults = &a->u.arguments.defaults;
  int positional = posonly->count + args->count;
  int first_default = positional - defaults->count;
  bool first = true;
  int previous_line = 0, flat_count = 0, at = 0; /* at: index into flat */
  const Node **flat = e->params_end_line > 0 ? flat_params(e, a, &flat_count) : NULL;
#define NEXT_LINE() (flat ? next_param_line(flat, flat_count, at++) : 0)
  for (int i = 0; i < positional; i++) {
    const Node *arg = i < posonly->count ? posonly->items[i] : args->items[i - posonly->count];
    emit_separator(e, &first, &previous_line, arg, NEXT_LINE());
    emit_param(e, arg, i >= first_default ? defaults->items[i - first_default] : NULL, is_lambda);
    if (i == posonly->count - 1) {
      emit_text(e, ", /");
    }
  }
  const NodeList *kwonly = &a->u.arguments.kwonlyargs;
  if (a->u.arguments.vararg) {
    emit_separator(e, &first, &previous_line, a->u.arguments.vararg, NEXT_LINE());
    buf_putc(e->out, '*');
    emit_param(e, a->u.arguments.vararg, NULL, is_lambda);
  } else if (kwonly->count) {
    emit_separator(e, &first, &previous_line, NULL, NEXT_LINE());
    buf_putc(e->out, '*');
  }
  for (int i = 0; i < kwonly->count; i++) {
    emit_separator(e, &first, &previous_line, kwonly->items[i], NEXT_LINE());
    const NodeList *kw_defaults = &a->u.arguments.kw_defaults;
    emit_param(e, kwonly->items[i], i < kw_defaults->count ? kw_defaults->items[i] : NULL, is_lambda);
  }
  if (a->u.arguments.kwarg) {
    emit_separator(e, &first, &previous_line, a->u.arguments.kwarg, NEXT_LINE());
    emit_text(e, "**");
    emit_param(e, a->u.arguments.kwarg, NULL, is_lambda);
  }
#undef NEXT_LINE
  if (e->breaking_items) { /* the comma after the last one, and its comment */
    buf_putc(e->out, ',');
    emit_param_trailing_comment(e, previous_line, 0);
  }
}

void emit_type_params(Emitter *e, const NodeList *params) {
  if (params->count == 0)
    return;
  buf_putc(e->out, '[');
  for (int i = 0; i < params->count; i++) {
    const Node *p = params->items[i];
    if (i)
      emit_text(e, ", ");
    if (p->kind == N_TYPE_VAR_TUPLE)
      buf_putc(e->out, '*');
    else if (p->kind == N_PARAM_SPEC)
      emit_text(e, "**");
    emit_str(e, p->u.type_param.name);
    if (p->kind == N_TYPE_VAR && p->u.type_param.bound) {
      emit_text(e, ": ");
      emit_expr(e, p->u.type_param.bound, PREC_TEST);
    }
  }
  buf_putc(e->out, ']');
}

/* ----------------------------------------------------------- expressions */

static void emit_node(Emitter *e, const Node *n) {
  switch (n->kind) {
  case N_BOOL_OP: emit_bool_op(e, n); break;
  case N_NAMED_EXPR:
    emit_expr(e, n->u.named_expr.target, PREC_ATOM);
    emit_text(e, " := ");
    emit_expr(e, n->u.named_expr.value, PREC_TEST);
    break;
  case N_BIN_OP: emit_bin_op(e, n); break;
  case N_UNARY_OP: emit_unary_op(e, n); break;
  case N_LAMBDA: emit_lambda(e, n); break;
  case N_IF_EXP: emit_if_exp(e, n); break;
  case N_DICT: emit_dict(e, n); break;
  case N_SET:
    if (n->u.set.elts.count == 0) {
      emit_text(e, "{*()}");
      break;
    }
    buf_putc(e->out, '{');
    emit_named_list(e, &n->u.set.elts);
    buf_putc(e->out, '}');
    break;
  case N_LIST_COMP:
    buf_putc(e->out, '[');
    emit_generator_body(e, n);
    buf_putc(e->out, ']');
    break;
  case N_SET_COMP:
    buf_putc(e->out, '{');
    emit_generator_body(e, n);
    buf_putc(e->out, '}');
    break;
  case N_GENERATOR_EXP:
    buf_putc(e->out, '(');
    emit_generator_body(e, n);
    buf_putc(e->out, ')');
    break;
  case N_DICT_COMP:
    buf_putc(e->out, '{');
    emit_expr(e, n->u.dict_comp.key, PREC_TEST);
    emit_text(e, ": ");
    emit_expr(e, n->u.dict_comp.value, PREC_TEST);
    emit_comprehensions(e, &n->u.dict_comp.generators);
    buf_putc(e->out, '}');
    break;
  case N_AWAIT:
    emit_text(e, "await ");
    emit_expr(e, n->u.await.value, PREC_ATOM);
    break;
  case N_YIELD:
    emit_text(e, "yield");
    if (n->u.yield.value) {
      buf_putc(e->out, ' ');
      emit_expr(e, n->u.yield.value, PREC_TUPLE);
    }
    break;
  case N_YIELD_FROM:
    emit_text(e, "yield from ");
    emit_expr(e, n->u.yield.value, PREC_TEST);
    break;
  case N_COMPARE: emit_compare(e, n); break;
  case N_CALL:
    emit_expr(e, n->u.call.func, PREC_ATOM);
    buf_putc(e->out, '(');
    emit_call_arguments(e, n);
    buf_putc(e->out, ')');
    break;
  case N_CONSTANT: emit_constant(e, n); break;
  case N_STRING: emit_string(e, n); break;
  case N_FSTRING: emit_fstring(e, n); break;
  case N_STRING_TOKEN:
  case N_FSTRING_TEXT: emit_str(e, n->u.piece.text); break;
  case N_FORMATTED_VALUE: emit_formatted_value(e, n); break;
  case N_ATTRIBUTE:
    emit_expr(e, n->u.attribute.value, PREC_ATOM);
    emit_text(e, needs_space_before_dot(n->u.attribute.value) ? " ." : ".");
    emit_str(e, n->u.attribute.attr);
    break;
  case N_SUBSCRIPT:
    emit_expr(e, n->u.subscript.value, PREC_ATOM);
    buf_putc(e->out, '[');
    emit_subscript_slice(e, n->u.subscript.slice);
    buf_putc(e->out, ']');
    break;
  case N_STARRED:
    buf_putc(e->out, '*');
    emit_expr(e, n->u.starred.value, PREC_BOR);
    break;
  case N_NAME: emit_str(e, n->u.name.id); break;
  case N_LIST: {
    /* a converted list past the line limit: one element a line, as a call's arguments */
    const NodeList no_keywords = {0};
    buf_putc(e->out, '[');
    if (list_wants_break(e, n, &n->u.list.elts, &no_keywords))
      emit_argument_list_broken(e, n, &n->u.list.elts, &no_keywords);
    else
      emit_named_list(e, &n->u.list.elts);
    buf_putc(e->out, ']');
    break;
  }
  case N_TUPLE:
    if (n->u.list.elts.count == 0)
      emit_text(e, "()");
    else
      emit_tuple_elements(e, n);
    break;
  case N_SLICE: emit_slice(e, n); break;
  case N_ARGUMENTS: emit_arguments(e, n, false); break;
  default:
    diag_error_code(&e->ctx->diag, C2T_CODE_INTERNAL, n->span.start, "cannot write a %s node as an expression", node_kind_name(n->kind));
  }
}

/* -------------------------------------------------------------- patterns */

/* How loosely a pattern binds: `p as x` < `a | b` < everything else. */
typedef enum PatternLevel { PAT_AS, PAT_OR, PAT_CLOSED } PatternLevel;

static PatternLevel pattern_level(const Node *p) {
  if (p->kind == N_MATCH_AS && p->u.match_as.pattern)
    return PAT_AS;
  if (p->kind == N_MATCH_OR)
    return PAT_OR;
  return PAT_CLOSED;
}

static void emit_pattern_at(Emitter *e, const Node *p, PatternLevel context, bool top_level);

static void emit_pattern_list(Emitter *e, const NodeList *patterns) {
  for (int i = 0; i < patterns->count; i++) {
    if (i)
      emit_text(e, ", ");
    emit_pattern_at(e, patterns->items[i], PAT_AS, false);
  }
}

/* The source's first character of a sequence pattern: '(' or '['. */
static char sequence_bracket(const Emitter *e, const Node *p) {
  size_t offset = p->span.start.offset;
  if (e->text && offset < e->text_len && (p->span.start.line > 0))
    return e->text[offset];
  return 0;
}

static void emit_match_sequence(Emitter *e, const Node *p, bool top_level) {
  const NodeList *patterns = &p->u.match_sequence.patterns;
  char bracket = sequence_bracket(e, p);
  if (bracket == '(') {
    buf_putc(e->out, '(');
    emit_pattern_list(e, patterns);
    if (patterns->count == 1)
      buf_putc(e->out, ',');
    buf_putc(e->out, ')');
  } else if (bracket != '[' && top_level && patterns->count > 0) {
    emit_pattern_list(e, patterns);
    if (patterns->count == 1)
      buf_putc(e->out, ',');
  } else {
    buf_putc(e->out, '[');
    emit_pattern_list(e, patterns);
    buf_putc(e->out, ']');
  }
}

static void emit_match_mapping(Emitter *e, const Node *p) {
  buf_putc(e->out, '{');
  const NodeList *keys = &p->u.match_mapping.keys;
  for (int i = 0; i < keys->count; i++) {
    if (i)
      emit_text(e, ", ");
    emit_expr(e, keys->items[i], PREC_TEST);
    emit_text(e, ": ");
    emit_pattern_at(e, p->u.match_mapping.patterns.items[i], PAT_AS, false);
  }
  if (p->u.match_mapping.rest.len) {
    if (keys->count)
      emit_text(e, ", ");
    emit_text(e, "**");
    emit_str(e, p->u.match_mapping.rest);
  }
  buf_putc(e->out, '}');
}

static void emit_match_class(Emitter *e, const Node *p) {
  emit_expr(e, p->u.match_class.cls, PREC_ATOM);
  buf_putc(e->out, '(');
  emit_pattern_list(e, &p->u.match_class.patterns);
  const NodeList *names = &p->u.match_class.kwd_attrs_nodes;
  for (int i = 0; i < names->count; i++) {
    if (i || p->u.match_class.patterns.count)
      emit_text(e, ", ");
    emit_str(e, names->items[i]->u.name.id);
    buf_putc(e->out, '=');
    emit_pattern_at(e, p->u.match_class.kwd_patterns.items[i], PAT_AS, false);
  }
  buf_putc(e->out, ')');
}

static void emit_pattern_node(Emitter *e, const Node *p, bool top_level) {
  switch (p->kind) {
  case N_MATCH_VALUE: emit_expr(e, p->u.match_value.value, PREC_TEST); break;
  case N_MATCH_SINGLETON:
    emit_text(e, p->u.match_singleton.value == CONST_NONE ? "None"
                 : p->u.match_singleton.value == CONST_TRUE ? "True"
                                                             : "False");
    break;
  case N_MATCH_SEQUENCE: emit_match_sequence(e, p, top_level); break;
  case N_MATCH_MAPPING: emit_match_mapping(e, p); break;
  case N_MATCH_CLASS: emit_match_class(e, p); break;
  case N_MATCH_STAR:
    buf_putc(e->out, '*');
    if (p->u.match_star.name.len)
      emit_str(e, p->u.match_star.name);
    else
      buf_putc(e->out, '_');
    break;
  case N_MATCH_AS:
    if (p->u.match_as.pattern) {
      emit_pattern_at(e, p->u.match_as.pattern, PAT_OR, false);
      emit_text(e, " as ");
    }
    if (p->u.match_as.name.len)
      emit_str(e, p->u.match_as.name);
    else
      buf_putc(e->out, '_');
    break;
  case N_MATCH_OR:
    for (int i = 0; i < p->u.match_or.patterns.count; i++) {
      if (i)
        emit_text(e, " | ");
      emit_pattern_at(e, p->u.match_or.patterns.items[i], PAT_CLOSED, false);
    }
    break;
  default:
    diag_error_code(&e->ctx->diag, C2T_CODE_INTERNAL, p->span.start, "cannot write a %s node as a pattern", node_kind_name(p->kind));
  }
}

static void emit_pattern_at(Emitter *e, const Node *p, PatternLevel context, bool top_level) {
  emit_enter(e, p);
  /* A sequence written `(a, b)` brings its own parentheses. */
  bool own_parens = p->kind == N_MATCH_SEQUENCE && sequence_bracket(e, p) == '(';
  bool parens = (p->parenthesized && !own_parens) || pattern_level(p) < context;
  if (parens)
    buf_putc(e->out, '(');
  emit_pattern_node(e, p, top_level && !parens);
  if (parens)
    buf_putc(e->out, ')');
  emit_leave(e);
}

void emit_pattern(Emitter *e, const Node *pattern, bool top_level) { emit_pattern_at(e, pattern, PAT_AS, top_level); }
