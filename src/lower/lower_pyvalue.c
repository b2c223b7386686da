/*
 * lower_pyvalue.c — Python values in tile code, evaluated at conversion time.
 *
 * cuTile's front end evaluates some Python in tile code while it compiles:
 * the constants of math, numpy and torch (math.inf, np.pi), their dtypes
 * (np.float32, torch.int32: the cuTile dtype of the same name), float("inf"),
 * len() of a tuple. Each becomes the literal or Triton dtype of its value.
 * The functions of math on values known at conversion (math.log(2),
 * math.sqrt(2.0)) are folded to Python's own result (the C library's
 * function CPython's math calls, with Python's domain and range errors);
 * on a constant parameter (known only at launch) the call stays as written
 * and Triton evaluates it in Python while compiling, as constexprs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lower.h"
#include "lower_math.h"

/* ------------------------------------------------------------- values */

typedef struct NamedDType {
  const char *name;   /* without the module: "float32" */
  const char *cutile; /* the cuTile dtype of that name */
} NamedDType;

static const NamedDType NUMPY_DTYPES[] = {
    {"bool_", "bool_"},     {"bool", "bool_"},       {"int8", "int8"},       {"int16", "int16"},
    {"int32", "int32"},     {"int64", "int64"},      {"uint8", "uint8"},     {"uint16", "uint16"},
    {"uint32", "uint32"},   {"uint64", "uint64"},    {"float16", "float16"}, {"float32", "float32"},
    {"float64", "float64"}, {"half", "float16"},     {"single", "float32"},  {"double", "float64"},
    {NULL, NULL}};

static const NamedDType TORCH_DTYPES[] = {
    {"bool", "bool_"},       {"int8", "int8"},        {"int16", "int16"},
    {"int32", "int32"},      {"int64", "int64"},      {"uint8", "uint8"},
    {"uint16", "uint16"},    {"uint32", "uint32"},    {"uint64", "uint64"},
    {"float16", "float16"},  {"bfloat16", "bfloat16"}, {"float32", "float32"},
    {"float64", "float64"},  {"half", "float16"},     {"float", "float32"},
    {"double", "float64"},   {"short", "int16"},      {"int", "int32"},
    {"long", "int64"},       {"float8_e4m3fn", "float8_e4m3fn"}, {"float8_e5m2", "float8_e5m2"},
    {NULL, NULL}};

static const char *dtype_named(const NamedDType *table, const char *name) {
  for (int i = 0; table[i].name; i++)
    if (strcmp(table[i].name, name) == 0)
      return table[i].cutile;
  return NULL;
}

/* The float constants of math, numpy and torch (all three spell these the same). */
static bool float_constant(const char *name, double *value) {
  static const struct {
    const char *name;
    double value;
  } CONSTANTS[] = {{"pi", 3.141592653589793}, {"e", 2.718281828459045}, {"tau", 6.283185307179586}, {NULL, 0}};
  if (strcmp(name, "inf") == 0) {
    *value = INFINITY;
    return true;
  }
  if (strcmp(name, "nan") == 0) {
    *value = NAN;
    return true;
  }
  for (int i = 0; CONSTANTS[i].name; i++)
    if (strcmp(CONSTANTS[i].name, name) == 0) {
      *value = CONSTANTS[i].value;
      return true;
    }
  return false;
}

Node *lower_python_value(Lowerer *L, Node *expr, const char *name) {
  const char *dot = strchr(name, '.');
  if (!dot)
    lower_error(L, expr, "the module %s cannot be used as a value in tile code (its constants and dtypes can)", name);
  size_t module_length = (size_t)(dot - name);
  const char *attr = dot + 1;
  double value;
  bool is_math = module_length == 4 && strncmp(name, "math", 4) == 0;
  bool is_numpy = module_length == 5 && strncmp(name, "numpy", 5) == 0;
  bool is_torch = module_length == 5 && strncmp(name, "torch", 5) == 0;
  if (strchr(attr, '.') == NULL) {
    if (float_constant(attr, &value) && (strcmp(attr, "tau") != 0 || is_math)) {
      Node *node = new_float(L, value);
      node->span = expr->span;
      return node;
    }
    const char *cutile = is_numpy ? dtype_named(NUMPY_DTYPES, attr) : is_torch ? dtype_named(TORCH_DTYPES, attr) : NULL;
    if (cutile)
      return lower_ct_value(L, expr, cutile);
  }
  lower_error(L, expr, "%s cannot be used in tile code (tile code reads the constants of math%s and the dtypes of "
              "numpy and torch)", name, is_math ? "" : ", numpy, torch");
}

/* ---------------------------------------------------------- math calls */

typedef enum MathKind { MK_FLOAT, MK_INT, MK_BOOL } MathKind;

typedef struct MathFunction {
  const char *name;
  int arity;     /* 1 or 2; log takes 1 or 2 */
  MathKind kind; /* what Python returns */
} MathFunction;

static const MathFunction MATH_FUNCTIONS[] = {
    {"sqrt", 1, MK_FLOAT},  {"exp", 1, MK_FLOAT},      {"expm1", 1, MK_FLOAT},    {"log", 1, MK_FLOAT},
    {"log2", 1, MK_FLOAT},  {"log10", 1, MK_FLOAT},    {"log1p", 1, MK_FLOAT},    {"sin", 1, MK_FLOAT},
    {"cos", 1, MK_FLOAT},   {"tan", 1, MK_FLOAT},      {"asin", 1, MK_FLOAT},     {"acos", 1, MK_FLOAT},
    {"atan", 1, MK_FLOAT},  {"sinh", 1, MK_FLOAT},     {"cosh", 1, MK_FLOAT},     {"tanh", 1, MK_FLOAT},
    {"asinh", 1, MK_FLOAT}, {"acosh", 1, MK_FLOAT},    {"atanh", 1, MK_FLOAT},    {"fabs", 1, MK_FLOAT},
    {"pow", 2, MK_FLOAT},   {"atan2", 2, MK_FLOAT},    {"copysign", 2, MK_FLOAT}, {"fmod", 2, MK_FLOAT},
    {"floor", 1, MK_INT},   {"ceil", 1, MK_INT},       {"trunc", 1, MK_INT},      {"isnan", 1, MK_BOOL},
    {"isinf", 1, MK_BOOL},  {"isfinite", 1, MK_BOOL},  {NULL, 0, MK_FLOAT}};

static const MathFunction *math_function(const char *name) {
  for (int i = 0; MATH_FUNCTIONS[i].name; i++)
    if (strcmp(MATH_FUNCTIONS[i].name, name) == 0)
      return &MATH_FUNCTIONS[i];
  return NULL;
}

static double number_value(const TypeInfo *type) { return type->is_float ? type->float_value : (double)type->int_value; }

/* f(x) or f(x, y) as the C library computes it (what CPython's math calls). */
static double apply_math(const char *name, double x, double y, bool two) {
  static const struct {
    const char *name;
    double (*fn)(double);
  } UNARY[] = {{"sqrt", sqrt},   {"exp", exp},     {"expm1", expm1}, {"log", log},     {"log2", log2},
               {"log10", log10}, {"log1p", log1p}, {"sin", sin},     {"cos", cos},     {"tan", tan},
               {"asin", asin},   {"acos", acos},   {"atan", atan},   {"sinh", sinh},   {"cosh", cosh},
               {"tanh", tanh},   {"asinh", asinh}, {"acosh", acosh}, {"atanh", atanh}, {"fabs", fabs},
               {"floor", floor}, {"ceil", ceil},   {"trunc", trunc}, {NULL, NULL}};
  if (strcmp(name, "log") == 0 && two)
    return log(x) / log(y);
  if (strcmp(name, "pow") == 0)
    return pow(x, y);
  if (strcmp(name, "atan2") == 0)
    return atan2(x, y);
  if (strcmp(name, "copysign") == 0)
    return copysign(x, y);
  if (strcmp(name, "fmod") == 0)
    return fmod(x, y);
  for (int i = 0; UNARY[i].name; i++)
    if (strcmp(UNARY[i].name, name) == 0)
      return UNARY[i].fn(x);
  return NAN;
}

/* The call as written with its arguments lowered: Triton calls math's
 * function on constexpr arguments while compiling. Only through a name
 * bound to the module (`import math`): Triton refuses other globals. */
static Node *deferred_math_call(Lowerer *L, Node *call, const char *name, const MathFunction *fn, Node **args,
                                int count) {
  Node *callee = call->u.call.func;
  bool through_module = callee->kind == N_ATTRIBUTE && callee->u.attribute.value->kind == N_NAME;
  if (through_module) {
    Str module = callee->u.attribute.value->u.name.id;
    const Binding *binding = find_binding(L->conv, module);
    through_module = binding && binding->python && strcmp(binding->python, "math") == 0 && !scope_lookup(L, module);
  }
  if (!through_module)
    lower_error(L, call, "%s() of a value known only at launch can only be converted when called as an attribute "
                "of the math module (`import math`, then math.%s(...))", name, fn->name);
  call->u.call.args = (NodeList){0};
  for (int i = 0; i < count; i++)
    node_list_push(&L->ctx->arena, &call->u.call.args, args[i]);
  TypeInfo *type = type_new(L->ctx, VAL_CONST);
  type->rank = 0;
  type->dtype = DT_UNKNOWN; /* the value: only at launch */
  type->is_float = fn->kind == MK_FLOAT;
  call->type = type;
  return call;
}

Node *lower_python_call(Lowerer *L, Node *call, const char *name) {
  if (strncmp(name, "math.", 5) != 0 || strchr(name + 5, '.'))
    lower_error(L, call, "%s() cannot be called in tile code (use the cuTile operation of the same meaning)", name);
  const MathFunction *fn = math_function(name + 5);
  if (!fn)
    lower_error(L, call, "%s() cannot be converted (the functions of math folded at conversion time are sqrt, exp, "
                "log, log2, log10, trigonometric and hyperbolic functions, pow, floor, ceil, ...)", name);
  NodeList *raw = &call->u.call.args;
  int wanted = fn->arity;
  bool optional_second = strcmp(fn->name, "log") == 0;
  if (call->u.call.keywords.count || raw->count < wanted || raw->count > (optional_second ? 2 : wanted))
    lower_error(L, call, "%s() takes %s%d positional argument%s", name, optional_second ? "1 or " : "",
                optional_second ? 2 : wanted, wanted == 1 && !optional_second ? "" : "s");
  Node *args[2] = {NULL, NULL};
  bool known = true;
  for (int i = 0; i < raw->count; i++) {
    if (raw->items[i]->kind == N_STARRED)
      lower_error(L, raw->items[i], "%s(): starred arguments cannot be converted", name);
    args[i] = lower_expr(L, raw->items[i]);
    const TypeInfo *type = args[i]->type;
    if (!type || type->kind != VAL_CONST)
      lower_error(L, raw->items[i], "%s() takes a number known at conversion or launch, not %s (for tiles use the "
                  "cuTile operation, ct.%s)", name, type_describe(L->ctx, type), fn->name);
    known = known && type->dtype != DT_UNKNOWN;
  }
  if (!known)
    return deferred_math_call(L, call, name, fn, args, raw->count);
  bool two = raw->count == 2;
  double x = number_value(args[0]->type), y = two ? number_value(args[1]->type) : 0;
  if (fn->kind == MK_BOOL) {
    bool value = strcmp(fn->name, "isnan") == 0 ? isnan(x) : strcmp(fn->name, "isinf") == 0 ? isinf(x) : isfinite(x);
    Node *node = T0(L, value ? "True" : "False");
    node->type = type_const_bool(L->ctx, value);
    return node;
  }
  if (fn->kind == MK_INT && !args[0]->type->is_float)
    return new_int(L, args[0]->type->int_value); /* floor/ceil/trunc of an int: itself */
  if (strcmp(fn->name, "log") == 0 && two && log(y) == 0)
    lower_error(L, call, "%s(): division by zero (the base is 1), as Python raises", name);
  double result = apply_math(fn->name, x, y, two);
  bool nan_in = isnan(x) || (two && isnan(y));
  bool finite_in = isfinite(x) && (!two || isfinite(y));
  if (isnan(result) && !nan_in)
    lower_error(L, call, "%s(): math domain error, as Python raises for these arguments", name);
  if (isinf(result) && finite_in)
    lower_error(L, call, "%s(): the result is out of range (Python raises an error for these arguments)", name);
  if (fn->kind == MK_INT) {
    if (!isfinite(result))
      lower_error(L, call, "%s(): cannot convert %s to an integer, as Python raises", name,
                  isnan(result) ? "NaN" : "infinity");
    return new_int(L, fold_float_to_int(L, call, result));
  }
  Node *node = new_float(L, result);
  node->span = call->span;
  return node;
}

/* ------------------------------------------------------------ builtins */

/* The value of float("...") as Python reads the text: an optional sign and
 * inf, infinity or nan in any case, or a decimal number. */
static bool float_of_text(Lowerer *L, const char *text, double *value) {
  while (*text == ' ' || *text == '\t' || *text == '\n')
    text++;
  size_t length = strlen(text);
  while (length && (text[length - 1] == ' ' || text[length - 1] == '\t' || text[length - 1] == '\n'))
    length--;
  const char *p = text;
  double sign = 1;
  if (length && (*p == '+' || *p == '-')) {
    sign = *p == '-' ? -1 : 1;
    p++;
    length--;
  }
  static const struct {
    const char *word;
    double value;
  } WORDS[] = {{"inf", INFINITY}, {"infinity", INFINITY}, {"nan", NAN}, {NULL, 0}};
  for (int i = 0; WORDS[i].word; i++)
    if (length == strlen(WORDS[i].word) && strncasecmp(p, WORDS[i].word, length) == 0) {
      *value = sign * WORDS[i].value;
      return true;
    }
  /* digits [. digits] [e [sign] digits], with a digit before or after the point */
  size_t i = 0, mantissa_digits = 0;
  while (i < length && p[i] >= '0' && p[i] <= '9')
    i++, mantissa_digits++;
  if (i < length && p[i] == '.') {
    i++;
    while (i < length && p[i] >= '0' && p[i] <= '9')
      i++, mantissa_digits++;
  }
  if (!mantissa_digits)
    return false;
  if (i < length && (p[i] == 'e' || p[i] == 'E')) {
    i++;
    if (i < length && (p[i] == '+' || p[i] == '-'))
      i++;
    size_t exponent_digits = 0;
    while (i < length && p[i] >= '0' && p[i] <= '9')
      i++, exponent_digits++;
    if (!exponent_digits)
      return false;
  }
  if (i != length)
    return false;
  const char *copy_of = arena_strndup(&L->ctx->arena, p, length);
  *value = sign * strtod(copy_of, NULL);
  return true;
}

/* The text of a plain one-piece string literal ("inf", 'nan'), NULL otherwise. */
const char *plain_string_text(Lowerer *L, const Node *string) {
  if (string->kind != N_STRING || string->u.string.is_bytes || string->u.string.parts.count != 1)
    return NULL;
  const Node *piece = string->u.string.parts.items[0];
  if (piece->kind != N_STRING_TOKEN)
    return NULL;
  Str token = piece->u.piece.text;
  /* no prefix, one quote character each side ("..." or '...'), no escapes */
  if (token.len < 2 || (token.text[0] != '"' && token.text[0] != '\'') || token.text[token.len - 1] != token.text[0])
    return NULL;
  if (token.len >= 6 && token.text[1] == token.text[0] && token.text[2] == token.text[0])
    return NULL; /* a triple-quoted literal */
  if (memchr(token.text, '\\', (size_t)token.len))
    return NULL;
  return arena_strndup(&L->ctx->arena, token.text + 1, (size_t)token.len - 2);
}

/* float(x): float("inf"), float("-inf"), float("nan"), float("1.5") read
 * at conversion; anything else as int()/float()/bool() convert. */
Node *lower_python_float(Lowerer *L, Node *call, const char *member) {
  NodeList *args = &call->u.call.args;
  if (args->count == 1 && !call->u.call.keywords.count && args->items[0]->kind == N_STRING) {
    const char *text = plain_string_text(L, args->items[0]);
    double value;
    if (!text)
      lower_error(L, args->items[0], "float() of this string cannot be converted (a plain literal such as "
                  "\"inf\", \"-inf\", \"nan\" or \"1.5\" can)");
    if (!float_of_text(L, text, &value))
      lower_error(L, args->items[0], "float() cannot read \"%s\" as a number, as Python raises", text);
    Node *node = new_float(L, value);
    node->span = call->span;
    return node;
  }
  return lower_math_python_conversion(L, call, member);
}

/* len(t) of a tuple whose length is known at conversion. */
Node *lower_python_len(Lowerer *L, Node *call, const char *member) {
  BoundArgs args;
  bind_call(L, call, "len()", "obj, /", &args);
  Node *obj = require_arg(L, call, &args, 0, "len()", "obj");
  const TypeInfo *type = obj->type;
  if (type && type->kind == VAL_TUPLE && type->count >= 0)
    return new_int(L, type->count);
  if (type && type->kind == VAL_LIST) { /* a list of arrays: its run-time length, an int32 (cuTile's len) */
    Str param = type->array->param;
    Node *length = new_name(L, arena_printf(&L->ctx->arena, "%.*s_len", param.len, param.text));
    length->type = type_tile(L->ctx, DT_INT32, 0, NULL);
    return length;
  }
  if (type && type->kind == VAL_TUPLE && type->count < 0 && !type->array) {
    /* an array's shape of a rank known only at launch (`len(A.shape) == 2`): Triton's
     * len() of the tuple is a constexpr, so a condition on it picks a branch at compile time */
    Node *length = T(L, "len(_1)", obj);
    length->type = type_new(L->ctx, VAL_CONST);
    return length;
  }
  lower_error(L, call, "len() of %s cannot be converted (len() of a tuple known at conversion can)",
              type_describe(L->ctx, type));
}
