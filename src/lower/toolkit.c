/*
 * toolkit.c — what every part of the lowering uses: errors and limits at a
 * node, new names and integer constants, the scope of a tile function,
 * integer folding, the Bufs of the lowering, bound arguments read by
 * parameter name, module constants' constexpr twins. It calls nothing of
 * the lowering above it (toolkit.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolkit.h"

/* ------------------------------------------------------------- helpers */

/* Where an error at `at` is reported: a node built by the lowering (a
 * folded constant) has no location, the statement being lowered stands for
 * it; 1:1 only outside any statement. */
static Pos error_pos(const Lowerer *L, const Node *at) {
  if (!at || !at->span.start.line)
    at = L->statement;
  return at && at->span.start.line ? at->span.start : (Pos){1, 0, 0};
}

_Noreturn void lower_error(Lowerer *L, const Node *at, const char *fmt, ...) {
  char message[600];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  /* in a function copied from a sibling module, whose nodes stand at the import here */
  const char *copied = L->function && L->function->def ? L->function->def->u.function_def.copied_from : NULL;
  if (copied) {
    Str name = L->function->def->u.function_def.name;
    size_t used = strlen(message);
    snprintf(message + used, sizeof message - used, " (in %.*s, copied from %s)", name.len, name.text, copied);
  }
  /* C2T402 in tile code, C2T403 in host code (docs/diagnostics.md) */
  diag_error_code(&L->ctx->diag, L->function ? C2T_CODE_TILE : C2T_CODE_HOST, error_pos(L, at), "%s", message);
}

_Noreturn void lower_limit(Lowerer *L, const Node *at, const char *what, long long limit) {
  diag_limit(&L->ctx->diag, error_pos(L, at), what, limit);
}

Node *new_name(Lowerer *L, const char *text) {
  Node *node = arena_alloc(&L->ctx->arena, sizeof(Node));
  node->kind = N_NAME;
  node->u.name.id = (Str){arena_strndup(&L->ctx->arena, text, strlen(text)), (int)strlen(text)};
  node->u.name.ctx = CTX_LOAD;
  node->rewritten = true;
  return node;
}

Node *new_int(Lowerer *L, long long value) {
  Node *node = arena_alloc(&L->ctx->arena, sizeof(Node));
  node->kind = N_CONSTANT;
  node->u.constant.kind = CONST_NUMBER;
  /* the magnitude in unsigned arithmetic: -INT64_MIN does not fit a long long */
  unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
  const char *text = arena_printf(&L->ctx->arena, "%llu", magnitude);
  node->u.constant.text = (Str){text, (int)strlen(text)};
  node->type = type_const_int(L->ctx, value);
  node->rewritten = true;
  if (value < 0) {
    Node *negative = T(L, "-_1", node);
    negative->type = type_const_int(L->ctx, value);
    return negative;
  }
  return node;
}

const char *float_literal_text(Lowerer *L, double value) {
  if (isnan(value))
    return "float(\"nan\")";
  if (isinf(value))
    return value > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  /* the fewest significant digits that read back as the same double, as
   * Python's repr picks them */
  char digits[40];
  int precision = 1;
  for (; precision < 17; precision++) {
    snprintf(digits, sizeof digits, "%.*e", precision - 1, value);
    if (strtod(digits, NULL) == value)
      break;
  }
  snprintf(digits, sizeof digits, "%.*e", precision - 1, value);
  int exponent = atoi(strchr(digits, 'e') + 1);
  /* repr: positional for exponents in [-4, 16), else scientific */
  if (exponent < -4 || exponent >= 16) {
    /* "1e+16", "1.5e-07": C's %e spells the exponent as Python does */
    return arena_printf(&L->ctx->arena, "%s", digits);
  }
  int decimals = precision - 1 - exponent;
  const char *text = arena_printf(&L->ctx->arena, "%.*f", decimals > 0 ? decimals : 0, value);
  return decimals > 0 ? text : arena_printf(&L->ctx->arena, "%s.0", text);
}

Node *new_float(Lowerer *L, double value) {
  Node *node = T0(L, float_literal_text(L, value));
  node->type = type_const_float(L->ctx, value);
  node->rewritten = true;
  return node;
}

long long fold_int(Lowerer *L, const Node *at, char op, long long x, long long y) {
  long long result = 0;
  bool overflow = false;
  switch (op) {
  case '+': overflow = __builtin_add_overflow(x, y, &result); break;
  case '-': overflow = __builtin_sub_overflow(x, y, &result); break;
  case '*': overflow = __builtin_mul_overflow(x, y, &result); break;
  case 'n': overflow = __builtin_sub_overflow(0LL, x, &result); break;
  case 'a': overflow = x < 0 ? __builtin_sub_overflow(0LL, x, &result) : (result = x, false); break;
  case '/':
  case '%':
    if (y == 0)
      lower_error(L, at, "integer division or modulo by zero in a constant expression");
    if (x == INT64_MIN && y == -1) { /* the quotient 2**63 overflows; the remainder is 0 */
      overflow = op == '/';
      break;
    }
    result = op == '/' ? x / y : x % y;
    if (x % y != 0 && ((x % y < 0) != (y < 0))) /* Python floors: round toward -inf */
      result = op == '/' ? result - 1 : result + y;
    break;
  default: lower_error(L, at, "internal error: no constant folding for '%c'", op);
  }
  if (overflow)
    lower_error(L, at, "this integer constant expression overflows int64, the type of cuTile's integer constants");
  return result;
}

long long fold_float_to_int(Lowerer *L, const Node *at, double value) {
  /* [-2**63, 2**63): both bounds are exact doubles */
  if (!(value >= -0x1p63 && value < 0x1p63))
    lower_error(L, at, "the float constant %g does not fit int64 as an integer", value);
  return (long long)value;
}

bool shape_known_int(const Node *node, long long *value) {
  if (!node || !node->type || node->type->kind != VAL_CONST || node->type->dtype == DT_UNKNOWN ||
      node->type->is_float)
    return false;
  *value = node->type->int_value;
  return true;
}

int shape_dim_value(Lowerer *L, const Node *at, long long value) {
  if (value > C2T_MAX_TILE_DIM)
    lower_limit(L, at, arena_printf(&L->ctx->arena, "elements in one tile dimension: %lld", value), C2T_MAX_TILE_DIM);
  return (int)value;
}

void drop_placeholders(NodeList *body, const char *note) {
  int kept = 0;
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    if (stmt->kind == N_PASS && stmt->note == note)
      continue;
    if (stmt->kind == N_FOR) {
      drop_placeholders(&stmt->u.for_.body, note);
      drop_placeholders(&stmt->u.for_.orelse, note);
    } else if (stmt->kind == N_WHILE) {
      drop_placeholders(&stmt->u.while_.body, note);
      drop_placeholders(&stmt->u.while_.orelse, note);
    } else if (stmt->kind == N_IF) {
      drop_placeholders(&stmt->u.if_.body, note);
      drop_placeholders(&stmt->u.if_.orelse, note);
    } else if (stmt->kind == N_WITH) {
      drop_placeholders(&stmt->u.with.body, note);
    }
    body->items[kept++] = stmt;
  }
  body->count = kept;
}

Str new_temp_name(Lowerer *L, const char *hint) {
  for (;;) {
    char *text = arena_printf(&L->ctx->arena, "%s_%d", hint, ++L->temp_counter);
    Str name = {text, (int)strlen(text)};
    if (!scope_lookup(L, name))
      return name;
  }
}

/* --------------------------------------------------------------- scope */

typedef struct NamesRead {
  const Str *names;
  int count;
  bool found;
} NamesRead;

static void find_names_read(Node *node, void *data) {
  NamesRead *scan = data;
  if (!node || scan->found)
    return;
  if (node->kind == N_NAME)
    for (int i = 0; i < scan->count && !scan->found; i++)
      scan->found = str_same(scan->names[i], node->u.name.id);
  node_children(node, find_names_read, data);
}

bool node_reads_any(Node *node, const Str *names, int count) {
  NamesRead scan = {names, count, false};
  find_names_read(node, &scan);
  return scan.found;
}

Variable *scope_lookup(Lowerer *L, Str name) {
  if (!L->scope)
    return NULL;
  for (int i = L->scope->count - 1; i >= 0; i--)
    if (str_same(L->scope->vars[i].name, name))
      return &L->scope->vars[i];
  return NULL;
}

void scope_bind(Lowerer *L, Str name, TypeInfo *type) {
  Variable *existing = scope_lookup(L, name);
  unsigned serial = ++L->bind_serial;
  if (existing) {
    /* a new value: what lower_memory_reuse.c knew of the old one is gone */
    *existing = (Variable){existing->name, type, serial, 0, NULL, 0, false, 0, NULL};
    return;
  }
  if (L->scope->count == C2T_MAX_SCOPE_NAMES)
    lower_limit(L, NULL, "local names in one function", C2T_MAX_SCOPE_NAMES);
  L->scope->vars[L->scope->count++] = (Variable){name, type, serial, 0, NULL, 0, false, 0, NULL};
}

/* ------------------------------------------------------------- buffers */

Buf *lower_buf(Lowerer *L) {
  TrackedBuf *tracked = arena_alloc(&L->ctx->arena, sizeof(TrackedBuf));
  tracked->next = L->bufs;
  L->bufs = tracked;
  return &tracked->buf;
}

/* ---------------------------------------------------- bound arguments */

/* Parameter names of a signature are read from its text each time (no
 * storage to share between threads or nested calls). */
Str signature_next(const char **cursor) {
  const char *p = *cursor;
  while (*p == ' ' || *p == ',')
    p++;
  const char *start = p;
  while (*p && *p != ',')
    p++;
  const char *end = p;
  while (end > start && end[-1] == ' ')
    end--;
  *cursor = p;
  return (Str){start, (int)(end - start)};
}

int bound_slot(const BoundArgs *args, const char *name) {
  if (!args->signature)
    return -1;
  size_t length = strlen(name);
  int slot = 0;
  for (const char *p = args->signature; *p;) {
    Str item = signature_next(&p);
    if (item.len == 0 || (item.len == 1 && (*item.text == '/' || *item.text == '*')))
      continue;
    if ((size_t)item.len == length && memcmp(item.text, name, length) == 0)
      return slot;
    slot++;
  }
  return -1;
}

int bound_slot_required(Lowerer *L, const BoundArgs *args, const char *name) {
  int slot = bound_slot(args, name);
  if (slot < 0)
    lower_error(L, NULL, "internal error: the signature \"%s\" has no parameter '%s'", args->signature, name);
  return slot;
}

Node *require_arg(Lowerer *L, Node *call, const BoundArgs *args, int index, const char *what, const char *name) {
  if (!args->arg[index])
    lower_error(L, call, "%s: missing required argument '%s'", what, name);
  return args->arg[index];
}

/* --------------------------------------------------------- module twins */

void require_constexpr_twin(Lowerer *L, const Binding *binding) {
  for (int i = 0; i < L->twin_count; i++)
    if (L->twins[i] == binding)
      return;
  L->twins[L->twin_count++] = binding;
}
unsigned long long range_length(long long start, long long stop, long long step) {
  unsigned long long a = (unsigned long long)start, b = (unsigned long long)stop;
  if (step > 0 && stop > start)
    return (b - a - 1) / (unsigned long long)step + 1;
  if (step < 0 && start > stop)
    return (a - b - 1) / (0ULL - (unsigned long long)step) + 1;
  return 0;
}
