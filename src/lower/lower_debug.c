/*
 * lower_debug.c — ct.printf, ct.print (and builtin print), ct.assert_,
 * ct.static_assert, ct.static_eval, ct.ensure_constant,
 * ct.assume_divisible_by.
 *
 * printf/print -> tl.device_print: Triton prints a prefix string then each
 * value, element by element with the block and element indices; it has no
 * format string. Each printed value becomes one
 * `tl.device_print("text before it", value)`; widths, precisions and
 * format specs are dropped (all-hexadecimal printf conversions set
 * hex=True). The output therefore differs in form from cuTile's (debug
 * output only), not in the values printed.
 *
 * assert_ -> ct_assert (a runtime helper): cuTile always checks the
 * condition; Triton's tl.device_assert is compiled only into kernels with
 * debug=True, so every kernel that reaches an assert_ (itself or through
 * the tile functions it calls) gets @triton.jit(debug=True). Triton's
 * interpreter never runs tl.device_assert, so under the interpreter the
 * helper checks with a Python assert instead.
 *
 * static_assert, static_eval, ensure_constant are evaluated here when the
 * value is known at conversion time; a condition on a launch constant (a
 * tl.constexpr parameter) becomes tl.static_assert, which Triton checks at
 * compile time as cuTile does.
 */
#include <stdio.h>
#include <string.h>

#include "lower.h"

static Node *none_value(Lowerer *L) {
  Node *none = T0(L, "None");
  none->type = type_new(L->ctx, VAL_NONE);
  return none;
}

static bool is_known_constant(const TypeInfo *type) {
  return type && type->kind == VAL_CONST && type->dtype != DT_UNKNOWN;
}

/* --------------------------------------------------------------- strings */

/* tl.device_print takes printable ASCII only */
static void append_char(Buf *out, char c) {
  buf_putc(out, (c >= 32 && c < 127) || c == '\n' || c == '\t' ? c : '?');
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Decode a string body as spelled (escapes unless raw; `{{` `}}` in
 * f-strings). */
static void decode_body(const char *text, int len, bool raw, bool fstring, Buf *out) {
  for (int i = 0; i < len; i++) {
    char c = text[i];
    if (fstring && (c == '{' || c == '}') && i + 1 < len && text[i + 1] == c) {
      append_char(out, c);
      i++;
      continue;
    }
    if (c != '\\' || raw || i + 1 >= len) {
      append_char(out, c);
      continue;
    }
    char next = text[++i];
    switch (next) {
    case 'n': append_char(out, '\n'); break;
    case 't': append_char(out, '\t'); break;
    case '\n': break; /* line continuation */
    case 'x':
      if (i + 2 < len && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
        append_char(out, (char)(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2])));
        i += 2;
      }
      break;
    case '\\': case '\'': case '"': append_char(out, next); break;
    default: append_char(out, '?'); break;
    }
  }
}

static bool prefix_is_raw(const char *text, int len) {
  for (int i = 0; i < len && text[i] != '"' && text[i] != '\''; i++)
    if (text[i] == 'r' || text[i] == 'R')
      return true;
  return false;
}

/* One plain string token, prefix and quotes included. */
static void decode_token(Lowerer *L, const Node *token, Buf *out) {
  Str s = token->u.piece.text;
  int start = 0;
  while (start < s.len && s.text[start] != '"' && s.text[start] != '\'')
    start++;
  bool raw = prefix_is_raw(s.text, start);
  if (start < s.len && memchr("bB", s.text[0], 2) && start <= 2)
    lower_error(L, token, "bytes literals cannot be printed in tile code");
  int quote = start + 2 < s.len && s.text[start + 1] == s.text[start] && s.text[start + 2] == s.text[start] ? 3 : 1;
  int body = start + quote, body_len = s.len - body - quote;
  decode_body(s.text + body, body_len < 0 ? 0 : body_len, raw, false, out);
}

/* A string literal without f-string parts, decoded; NULL if `node` is not one. */
static const char *literal_text(Lowerer *L, const Node *node) {
  if (!node || node->kind != N_STRING || node->u.string.is_bytes)
    return NULL;
  Buf *out = lower_buf(L); /* decoding may stop at an error */
  for (int i = 0; i < node->u.string.parts.count; i++) {
    const Node *part = node->u.string.parts.items[i];
    if (part->kind != N_STRING_TOKEN) {
      buf_free(out);
      return NULL;
    }
    decode_token(L, part, out);
  }
  char *text = arena_strndup(&L->ctx->arena, out->data ? out->data : "", out->len);
  buf_free(out);
  return text;
}

/* `text` as a Python string literal. */
static Node *string_node(Lowerer *L, const char *text) {
  Buf quoted = {0};
  buf_putc(&quoted, '"');
  for (const char *p = text; *p; p++) {
    if (*p == '%')
      continue; /* a '%' in the prefix would reach the device printf's format string */
    if (*p == '"' || *p == '\\')
      buf_putc(&quoted, '\\');
    if (*p == '\n')
      buf_puts(&quoted, "\\n");
    else if (*p == '\t')
      buf_puts(&quoted, "\\t");
    else
      buf_putc(&quoted, *p);
  }
  buf_putc(&quoted, '"');
  Node *node = T0(L, arena_strndup(&L->ctx->arena, quoted.data, quoted.len));
  buf_free(&quoted);
  node->type = type_new(L->ctx, VAL_STRING);
  return node;
}

/* ------------------------------------------------------ device printing */

/* Printing: the text seen since the last printed value, and the prints. */
typedef struct Printer {
  Lowerer *L;
  Buf *text; /* lower_buf: printing may stop at an error */
  int printed;
  bool hex;
} Printer;

/* `text` without leading and trailing blanks and newlines, in the arena. */
static const char *trimmed(Lowerer *L, const Buf *text) {
  const char *s = text->data ? text->data : "";
  size_t len = text->len;
  while (len && strchr(" \t\n", *s)) {
    s++;
    len--;
  }
  while (len && strchr(" \t\n", s[len - 1]))
    len--;
  return arena_strndup(&L->ctx->arena, s, len);
}

static void emit_print(Printer *P, Node *value) {
  Lowerer *L = P->L;
  if (!L->pending)
    lower_error(L, value, "printing cannot be converted here");
  Node *prefix = string_node(L, trimmed(L, P->text));
  Node *call = value ? (P->hex ? T(L, "tl.device_print(_1, _2, hex=True)", prefix, value)
                               : T(L, "tl.device_print(_1, _2)", prefix, value))
                     : T(L, "tl.device_print(_1)", prefix);
  node_list_push(&L->ctx->arena, L->pending, template_stmts(L->ctx, "_1\n", TEMPLATE_NODES(call)).items[0]);
  P->text->len = 0;
  P->printed++;
}

/* A lowered value to print (print_value); a tuple known at conversion is printed
 * as Python writes it, its items one by one: `(nx, ny)` as "(", nx, ", ", ny, ")". */
static void print_lowered(Printer *P, Node *source, Node *value, int depth) {
  Lowerer *L = P->L;
  const TypeInfo *type = value->type;
  if (type && type->kind == VAL_TUPLE && type->count >= 0 && type->elts && !type->array) {
    if (depth >= C2T_MAX_RANK * 2)
      lower_limit(L, source, "levels of tuples inside a printed tuple", C2T_MAX_RANK * 2);
    buf_puts(P->text, "(");
    for (int i = 0; i < type->count; i++) {
      buf_puts(P->text, i ? ", " : "");
      Node *item = value->kind == N_TUPLE && i < value->u.list.elts.count
                       ? value->u.list.elts.items[i]
                       : T(L, "_1[_2]", node_copy_tree(&L->ctx->arena, value), new_int(L, i));
      if (!item->type)
        item->type = type->elts[i];
      print_lowered(P, source, item, depth + 1);
    }
    buf_puts(P->text, type->count == 1 ? ",)" : ")");
    return;
  }
  if (type && type->kind == VAL_TUPLE && type->count < 0)
    lower_error(L, source, "a tuple whose length is not known at conversion (the shape of an array of a rank known "
                "only at launch: no load or store of it fixes the rank) cannot be printed in tile code");
  refuse_coded(L, source, "print()", type, 0);
  if (is_known_constant(type) && type->loose) {
    char number[64];
    if (type->dtype == DT_BOOL)
      snprintf(number, sizeof number, "%s", type->int_value ? "True" : "False");
    else if (type->is_float)
      snprintf(number, sizeof number, "%g", type->float_value);
    else
      snprintf(number, sizeof number, "%lld", type->int_value);
    buf_puts(P->text, number);
    return;
  }
  if (!type || (type->kind != VAL_TILE && type->kind != VAL_CONST))
    lower_error(L, source, "only tiles, constants and tuples of them can be printed in tile code, not %s",
                type_describe(L->ctx, type));
  emit_print(P, value);
}

/* A value to print: constants known now join the text (as cuTile formats
 * constant segments as text); tiles are printed by Triton. */
static void print_value(Printer *P, Node *source) { print_lowered(P, source, lower_expr(P->L, source), 0); }

/* Whether an f-string value's format spec asks for hexadecimal (`{t:#x}`, `{t:08X}`): its
 * last character, the presentation type, is x or X. */
static bool hex_format_spec(const Node *spec) {
  if (!spec || spec->kind != N_FSTRING || !spec->u.fstring.parts.count)
    return false;
  const Node *last = spec->u.fstring.parts.items[spec->u.fstring.parts.count - 1];
  if (last->kind != N_FSTRING_TEXT || !last->u.piece.text.len)
    return false;
  char type = last->u.piece.text.text[last->u.piece.text.len - 1];
  return type == 'x' || type == 'X';
}

/* An f-string: its text parts join the text, its values are printed (in hexadecimal where
 * the format spec asks for it; other specs, widths and precisions are dropped). */
static void print_fstring(Printer *P, const Node *fstring) {
  Str open = fstring->u.fstring.prefix_and_quote;
  bool raw = prefix_is_raw(open.text, open.len);
  for (int i = 0; i < fstring->u.fstring.parts.count; i++) {
    Node *part = fstring->u.fstring.parts.items[i];
    if (part->kind == N_FSTRING_TEXT) {
      decode_body(part->u.piece.text.text, part->u.piece.text.len, raw, true, P->text);
      continue;
    }
    Str debug = part->u.formatted_value.debug_text; /* f"{x = }" prints "x = " first */
    decode_body(debug.text, debug.len, true, false, P->text);
    bool hex = P->hex;
    P->hex = hex || hex_format_spec(part->u.formatted_value.format_spec);
    print_value(P, part->u.formatted_value.value);
    P->hex = hex;
  }
}

/* A string argument of print: plain pieces and f-strings. */
static void print_string(Printer *P, const Node *string) {
  for (int i = 0; i < string->u.string.parts.count; i++) {
    const Node *part = string->u.string.parts.items[i];
    if (part->kind == N_FSTRING)
      print_fstring(P, part);
    else
      decode_token(P->L, part, P->text);
  }
}

static void finish_printing(Printer *P) {
  const char *rest = trimmed(P->L, P->text);
  if (*rest || P->printed == 0)
    emit_print(P, NULL);
  buf_free(P->text);
}

/* ct.print(*args, sep=' ', end='\n') and builtin print: Python-style. */
Node *lower_print(Lowerer *L, Node *call, const char *member) {
  const char *sep = " ";
  NodeList *keywords = &call->u.call.keywords;
  for (int k = 0; k < keywords->count; k++) {
    Node *kw = keywords->items[k];
    const char *text = literal_text(L, kw->u.keyword.value);
    if (!text || !(str_eq(kw->u.keyword.arg, "sep") || str_eq(kw->u.keyword.arg, "end")))
      lower_error(L, kw, "print() in tile code takes only string literals as sep= and end=");
    if (str_eq(kw->u.keyword.arg, "sep"))
      sep = text;
  }
  Printer P = {L, lower_buf(L), 0, false};
  NodeList *args = &call->u.call.args;
  for (int i = 0; i < args->count; i++) {
    Node *arg = args->items[i];
    if (i)
      buf_puts(P.text, sep);
    if (arg->kind == N_STARRED)
      lower_error(L, arg, "print(): starred arguments cannot be converted");
    if (arg->kind == N_STRING && !arg->u.string.is_bytes)
      print_string(&P, arg);
    else
      print_value(&P, arg);
  }
  finish_printing(&P);
  return none_value(L);
}

/* Length of the printf conversion at fmt[0] == '%' ("%-08.3lf" -> 8), its
 * conversion character in *conversion; 0 when malformed. */
static int printf_conversion(const char *fmt, char *conversion) {
  int i = 1;
  while (fmt[i] && strchr("-+ #0", fmt[i]))
    i++;
  while (fmt[i] >= '0' && fmt[i] <= '9')
    i++;
  if (fmt[i] == '.') {
    i++;
    while (fmt[i] >= '0' && fmt[i] <= '9')
      i++;
  }
  while (fmt[i] && strchr("hlLqjzt", fmt[i]))
    i++;
  if (!fmt[i] || !strchr("diuoxXeEfFgGaA", fmt[i]))
    return 0;
  *conversion = fmt[i];
  return i + 1;
}

/* ct.printf(format, *tiles): C format; the text before each conversion
 * becomes the prefix of that value's tl.device_print. */
Node *lower_printf(Lowerer *L, Node *call, const char *member) {
  NodeList *args = &call->u.call.args;
  if (call->u.call.keywords.count)
    lower_error(L, call, "ct.printf() takes no keyword arguments");
  const char *format = args->count ? literal_text(L, args->items[0]) : NULL;
  if (!format)
    lower_error(L, call, "ct.printf() needs a string literal as its format");
  int conversions = 0;
  bool all_hex = true;
  for (const char *p = format; *p; p++) {
    if (*p != '%')
      continue;
    if (p[1] == '%') {
      p++;
      continue;
    }
    char conversion;
    int length = printf_conversion(p, &conversion);
    if (!length)
      lower_error(L, args->items[0], "ct.printf(): unsupported conversion in the format (only %%[flags][width]"
                  "[.precision][length] with one of diuoxXeEfFgGaA)");
    all_hex &= conversion == 'x' || conversion == 'X';
    conversions++;
    p += length - 1;
  }
  if (conversions != args->count - 1)
    lower_error(L, call, "ct.printf(): the format has %d conversions for %d values", conversions, args->count - 1);
  Printer P = {L, lower_buf(L), 0, all_hex && conversions > 0};
  int next = 1;
  for (const char *p = format; *p; p++) {
    char conversion;
    if (*p == '%' && p[1] == '%') {
      p++;
      continue;
    }
    if (*p != '%') {
      append_char(P.text, *p);
      continue;
    }
    p += printf_conversion(p, &conversion) - 1;
    Node *source = args->items[next++];
    if (source->kind == N_STARRED)
      lower_error(L, source, "ct.printf(): starred arguments cannot be converted");
    Node *value = lower_expr(L, source);
    refuse_coded(L, source, "ct.printf()", value->type, 0);
    if (!value->type || (value->type->kind != VAL_TILE && value->type->kind != VAL_CONST))
      lower_error(L, source, "ct.printf() prints tiles, not %s", type_describe(L->ctx, value->type));
    emit_print(&P, value);
  }
  finish_printing(&P);
  return none_value(L);
}

/* ------------------------------------------------------------ assertions */

/* The message argument: a string literal or None (or absent). */
static const char *message_text(Lowerer *L, const Node *source, const char *what) {
  if (!source || (source->kind == N_CONSTANT && source->u.constant.kind == CONST_NONE))
    return "";
  const char *text = literal_text(L, source);
  if (!text)
    lower_error(L, source, "%s: the message must be a string literal", what);
  return text;
}

/* ct.assert_(cond, message=None) */
Node *lower_assert(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.assert_()", "cond, /, message", &args);
  Node *cond = require_arg(L, call, &args, 0, "ct.assert_()", "cond");
  const char *message = message_text(L, args.source[1], "ct.assert_()");
  const TypeInfo *type = cond->type;
  if (!type || (type->kind != VAL_TILE && type->kind != VAL_CONST))
    lower_error(L, args.source[0], "ct.assert_() needs a boolean tile, not %s", type_describe(L->ctx, type));
  if (type->dtype != DT_UNKNOWN && type->dtype != DT_BOOL)
    lower_error(L, args.source[0], "ct.assert_() needs a boolean tile, not a tile of %s", dtype_info(type->dtype)->cutile);
  if (is_known_constant(type) && type->int_value)
    return none_value(L); /* always true */
  L->needs_debug = true;
  L->needs_interpreted_flag = true;
  Node *helper = use_helper(L, HELPER_ct_assert);
  Node *checked = T(L, "_1(_2, _3)", helper, cond, string_node(L, message));
  checked->type = type_new(L->ctx, VAL_NONE);
  return checked;
}

/* ct.static_assert(condition, message=None): checked now when the value is
 * known; on a launch constant, tl.static_assert checks it when Triton
 * compiles, as cuTile does. */
/* A message written as an f-string of values known when the kernel compiles (`f"got {BLOCK_N}"`,
 * BLOCK_N a Constant parameter): its values lowered, for Triton, which formats an f-string of
 * constexprs while it compiles as cuTile formats it; NULL for any other message. A format spec
 * or `{x=}` is a located error (Triton's f-strings have neither). */
static Node *fstring_message(Lowerer *L, Node *source) {
  if (!source || source->kind != N_STRING || source->u.string.is_bytes)
    return NULL;
  bool any = false;
  for (int i = 0; i < source->u.string.parts.count; i++) {
    Node *part = source->u.string.parts.items[i];
    if (part->kind != N_FSTRING)
      continue;
    any = true;
    for (int k = 0; k < part->u.fstring.parts.count; k++) {
      Node *value = part->u.fstring.parts.items[k];
      if (value->kind != N_FORMATTED_VALUE)
        continue;
      if (value->u.formatted_value.format_spec || value->u.formatted_value.debug_text.len)
        lower_error(L, value, "ct.static_assert(): a format spec or `=` in the message's f-string cannot be converted "
                    "(Triton formats its values plainly)");
      Node *lowered = lower_expr(L, value->u.formatted_value.value);
      if (!lowered->type || lowered->type->kind != VAL_CONST || lowered->type->const_tuple)
        lower_error(L, value->u.formatted_value.value, "ct.static_assert(): the message's f-string can format numbers "
                    "known when the kernel compiles, not %s", type_describe(L->ctx, lowered->type));
      value->u.formatted_value.value = lowered;
      value->rewritten = true;
    }
    part->rewritten = true;
  }
  if (!any)
    return NULL;
  source->rewritten = true;
  return source;
}

Node *lower_static_assert(Lowerer *L, Node *call, const char *member) {
  NodeList *args = &call->u.call.args;
  if (args->count < 1 || args->count > 2 || call->u.call.keywords.count)
    lower_error(L, call, "ct.static_assert() takes a condition and an optional message");
  Node *cond = lower_expr(L, args->items[0]);
  Node *formatted = fstring_message(L, args->count > 1 ? args->items[1] : NULL);
  const char *message =
      formatted ? "(its f-string message)" : message_text(L, args->count > 1 ? args->items[1] : NULL, "ct.static_assert()");
  const TypeInfo *type = cond->type;
  if (is_known_constant(type)) {
    bool holds = type->is_float ? type->float_value != 0 : type->int_value != 0;
    if (!holds)
      lower_error(L, call, "static assertion failed%s%s", *message ? ": " : "", message);
    return none_value(L);
  }
  if (!type || type->kind != VAL_CONST)
    lower_error(L, args->items[0], "ct.static_assert() needs a compile-time condition, not %s",
                type_describe(L->ctx, type));
  Node *checked = T(L, "tl.static_assert(_1, _2)", cond,
                    formatted ? formatted : string_node(L, *message ? message : "static assertion failed"));
  checked->type = type_new(L->ctx, VAL_NONE);
  return checked;
}

/* ct.static_eval(expr): cuTile evaluates expr with Python at compile time,
 * over constants and proxies of dynamic values (shape, dtype, arithmetic).
 * Lowered as an ordinary expression: constants fold here or in Triton
 * (constexpr), and a choice between dynamic values by a constant condition
 * (`x + 1 if N % 2 == 0 else y - 1`) is folded by Triton's constexpr
 * `if`; what lowering does not accept is a located error. */
Node *lower_static_eval(Lowerer *L, Node *call, const char *member) {
  NodeList *args = &call->u.call.args;
  if (args->count != 1 || call->u.call.keywords.count)
    lower_error(L, call, "ct.static_eval() takes one expression");
  return lower_expr(L, args->items[0]);
}

static bool is_constant_kind(const TypeInfo *type) {
  if (!type)
    return false;
  if (type->kind == VAL_TUPLE) {
    for (int i = 0; i < type->count; i++)
      if (!is_constant_kind(type->elts[i]))
        return false;
    return true;
  }
  return type->kind == VAL_CONST || type->kind == VAL_DTYPE || type->kind == VAL_ENUM || type->kind == VAL_NONE ||
         type->kind == VAL_STRING;
}

/* ct.ensure_constant(v): v, which must be a compile-time constant. */
Node *lower_ensure_constant(Lowerer *L, Node *call, const char *member) {
  NodeList *args = &call->u.call.args;
  if (args->count != 1 || call->u.call.keywords.count)
    lower_error(L, call, "ct.ensure_constant() takes one value");
  Node *value = lower_expr(L, args->items[0]);
  if (!is_constant_kind(value->type))
    lower_error(L, args->items[0], "argument of ct.ensure_constant() is not a compile-time constant (it is %s)",
                type_describe(L->ctx, value->type));
  return value;
}

/* ct.assume_divisible_by(x, divisor) -> x with a tl.assume hint; a
 * constant x needs no hint and stays a constant. */
Node *lower_assume_divisible_by(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "ct.assume_divisible_by()", "x, divisor", &args);
  Node *x = require_arg(L, call, &args, 0, "ct.assume_divisible_by()", "x");
  Node *divisor = require_arg(L, call, &args, 1, "ct.assume_divisible_by()", "divisor");
  const TypeInfo *dtype = divisor->type;
  if (!is_known_constant(dtype) || dtype->is_float || dtype->dtype == DT_BOOL || dtype->int_value <= 0)
    lower_error(L, args.source[1], "ct.assume_divisible_by(): the divisor must be a positive integer constant");
  const TypeInfo *type = x->type;
  if (!type_is_scalar(type) || (type->dtype != DT_UNKNOWN && strchr("iu", dtype_info(type->dtype)->category) == NULL) ||
      (type->kind == VAL_CONST && type->is_float))
    lower_error(L, args.source[0], "ct.assume_divisible_by() takes an integer scalar, not %s",
                type_describe(L->ctx, type));
  if (type->kind == VAL_CONST)
    return x;
  Node *hinted = T(L, "_1(_2, _3)", use_helper(L, HELPER_ct_assume_divisible_by), x, divisor);
  hinted->type = x->type;
  return hinted;
}

/* ct.static_exception(...) anywhere but in `raise`: nothing to convert it to. */
Node *lower_static_exception(Lowerer *L, Node *call, const char *member) {
  lower_error(L, call, "ct.static_exception() is converted only as `raise ct.static_exception(...)`");
}

/* `raise ct.static_exception(E)`: cuTile fails the kernel's compile where it compiles this
 * statement (a branch of a constexpr `if` not taken is not compiled); so does Triton's
 * tl.static_assert(False, message). The message is E's type and literal text where E is
 * written `Name("...")`, else the statement's line. Any other `raise` is a located error. */
Node *lower_raise_statement(Lowerer *L, Node *stmt) {
  Node *exc = stmt->u.raise.exc;
  bool static_exception = exc && exc->kind == N_CALL && is_ct_member(L->conv, exc->u.call.func, "static_exception");
  if (!static_exception || stmt->u.raise.cause)
    lower_error(L, stmt, "`raise` in tile code is converted only as `raise ct.static_exception(...)` (a "
                "compile-time error)");
  if (exc->u.call.args.count != 1 || exc->u.call.keywords.count)
    lower_error(L, exc, "ct.static_exception() takes one argument, the exception");
  stats_op(L->conv, "ct.", "static_exception");
  Node *raised = exc->u.call.args.items[0];
  const char *message = NULL;
  if (raised->kind == N_CALL && raised->u.call.func->kind == N_NAME && raised->u.call.args.count >= 1) {
    const char *text = literal_text(L, raised->u.call.args.items[0]);
    Str type = raised->u.call.func->u.name.id;
    if (text)
      message = arena_printf(&L->ctx->arena, "%.*s: %s", type.len, type.text, text);
  }
  if (!message)
    message = arena_printf(&L->ctx->arena, "ct.static_exception raised at line %d of the cuTile source",
                           stmt->span.start.line);
  Node *failed = T(L, "tl.static_assert(False, _1)", string_node(L, message));
  NodeList made = template_stmts(L->ctx, "_1\n", TEMPLATE_NODES(failed));
  made.items[0]->span = stmt->span;
  return made.items[0];
}
