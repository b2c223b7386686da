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
#include <limits.h>
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

/* The cuTile dtype a numpy, cupy or torch dtype names ("numpy.float16": "float16"), else NULL. */
const char *lower_python_dtype(const char *name) {
  const char *dot = strchr(name, '.');
  if (!dot || strchr(dot + 1, '.'))
    return NULL;
  size_t length = (size_t)(dot - name);
  if ((length == 5 && strncmp(name, "numpy", 5) == 0) || (length == 4 && strncmp(name, "cupy", 4) == 0))
    return dtype_named(NUMPY_DTYPES, dot + 1);
  if (length == 5 && strncmp(name, "torch", 5) == 0)
    return dtype_named(TORCH_DTYPES, dot + 1);
  return NULL;
}

Node *lower_python_value(Lowerer *L, Node *expr, const char *name) {
  const char *dot = strchr(name, '.');
  if (!dot)
    lower_error(L, expr, "the module %s cannot be used as a value in tile code (its constants and dtypes can)", name);
  size_t module_length = (size_t)(dot - name);
  const char *attr = dot + 1;
  double value;
  bool is_math = module_length == 4 && strncmp(name, "math", 4) == 0;
  bool is_numpy = (module_length == 5 && strncmp(name, "numpy", 5) == 0) ||
                  (module_length == 4 && strncmp(name, "cupy", 4) == 0); /* cupy.float32 is numpy.float32 */
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
              "numpy (or cupy) and torch)", name, is_math ? "" : ", numpy, cupy, torch");
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

/* The expression operator's function `name` ("add") stands for ("_1 + _2"), NULL if none;
 * *arity: its operands. */
static const char *operator_template(const char *name, int *arity) {
  static const struct {
    const char *name, *text;
  } BINARY[] = {{"add", "_1 + _2"},      {"sub", "_1 - _2"},     {"mul", "_1 * _2"},       {"truediv", "_1 / _2"},
                {"floordiv", "_1 // _2"}, {"mod", "_1 % _2"},     {"pow", "_1 ** _2"},      {"and_", "_1 & _2"},
                {"or_", "_1 | _2"},       {"xor", "_1 ^ _2"},     {"lshift", "_1 << _2"},   {"rshift", "_1 >> _2"},
                {"lt", "_1 < _2"},        {"le", "_1 <= _2"},     {"eq", "_1 == _2"},       {"ne", "_1 != _2"},
                {"ge", "_1 >= _2"},       {"gt", "_1 > _2"},      {"matmul", "_1 @ _2"},    {NULL, NULL}},
    UNARY[] = {{"neg", "-_1"}, {"pos", "+_1"}, {"invert", "~_1"}, {"not_", "not _1"}, {NULL, NULL}};
  for (int i = 0; BINARY[i].name; i++)
    if (strcmp(BINARY[i].name, name) == 0) {
      *arity = 2;
      return BINARY[i].text;
    }
  for (int i = 0; UNARY[i].name; i++)
    if (strcmp(UNARY[i].name, name) == 0) {
      *arity = 1;
      return UNARY[i].text;
    }
  return NULL;
}

bool lower_is_operator_function(const char *name) {
  int arity;
  return strncmp(name, "operator.", 9) == 0 && operator_template(name + 9, &arity);
}

/* operator.add(a, b): a + b, as cuTile reads it. */
static Node *operator_call(Lowerer *L, Node *call, const char *name) {
  int arity = 0;
  const char *text = operator_template(name + 9, &arity);
  if (!text)
    lower_error(L, call, "%s() cannot be converted (operator's arithmetic, bitwise and comparison functions "
                "can: operator.add, operator.mul, operator.lt, ...)", name);
  NodeList *args = &call->u.call.args;
  if (call->u.call.keywords.count || args->count != arity)
    lower_error(L, call, "%s() takes %d positional argument%s", name, arity, arity == 1 ? "" : "s");
  for (int i = 0; i < arity; i++)
    if (args->items[i]->kind == N_STARRED)
      lower_error(L, args->items[i], "%s(): starred arguments cannot be converted", name);
  Node *expr = arity == 1 ? T(L, text, args->items[0]) : T(L, text, args->items[0], args->items[1]);
  expr->span = call->span;
  return lower_expr(L, expr);
}

Node *lower_python_call(Lowerer *L, Node *call, const char *name) {
  if (strncmp(name, "operator.", 9) == 0 && !strchr(name + 9, '.'))
    return operator_call(L, call, name);
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
  Str text = node_plain_string(string);
  return text.text ? arena_strndup(&L->ctx->arena, text.text, (size_t)text.len) : NULL;
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

/* The number a dtype call of a string makes (`ct.float32("nan")`, `np.int32("7")`): cuTile
 * applies Python's float(), int() or bool() for the dtype's kind while it compiles. */
Node *lower_number_of_string(Lowerer *L, Node *string, DType dtype, const char *what) {
  const char *text = plain_string_text(L, string);
  if (!text)
    lower_error(L, string, "%s of this string cannot be converted (a plain literal such as \"inf\", \"-inf\", "
                "\"nan\" or \"1.5\" can)", what);
  Node *node;
  if (dtype == DT_BOOL) { /* bool("False") is True: any string but "" */
    node = T0(L, text[0] ? "True" : "False");
    TypeInfo *type = type_new(L->ctx, VAL_CONST);
    type->rank = 0;
    type->dtype = DT_BOOL;
    type->int_value = text[0] != '\0';
    type->float_value = (double)type->int_value;
    type->loose = true;
    node->type = type;
  } else if (dtype_info(dtype)->category == 'f') {
    double value;
    if (!float_of_text(L, text, &value))
      lower_error(L, string, "%s cannot read \"%s\" as a number, as Python's float() raises", what, text);
    node = new_float(L, value);
  } else {
    /* int(): optional blanks and sign, then decimal digits */
    const char *p = text;
    while (*p == ' ' || *p == '\t')
      p++;
    bool negative = *p == '-';
    if (*p == '-' || *p == '+')
      p++;
    long long value = 0;
    const char *digits = p;
    while (*p >= '0' && *p <= '9') {
      if (value > (LLONG_MAX - (*p - '0')) / 10)
        lower_error(L, string, "%s: \"%s\" does not fit in 64 bits", what, text);
      value = value * 10 + (*p++ - '0');
    }
    while (*p == ' ' || *p == '\t')
      p++;
    if (p == digits || *p)
      lower_error(L, string, "%s cannot read \"%s\" as an integer, as Python's int() raises", what, text);
    node = new_int(L, negative ? -value : value);
  }
  node->span = string->span;
  return node;
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
  if (type && type->kind == VAL_TUPLE && type->count < 0 && (!type->array || obj->kind == N_NAME)) {
    /* an array's shape of a rank known only at launch (`len(A.shape) == 2`), a tuple of arrays
     * given to the kernel (`len(xs)`): Triton's len() of the tuple is a constexpr, so a
     * condition on it picks a branch, and a loop over range() of it unrolls, at compile time */
    Node *length = T(L, "len(_1)", obj);
    length->type = type_new(L->ctx, VAL_CONST);
    return length;
  }
  if (type && type->kind == VAL_CONST && type->dtype == DT_UNKNOWN && type->const_tuple) {
    /* a Constant parameter holding a tuple: Triton's len() of it is a constexpr */
    Node *length = T(L, "len(_1)", obj);
    length->type = type_new(L->ctx, VAL_CONST);
    return length;
  }
  lower_error(L, call, "len() of %s cannot be converted (len() of a tuple known at conversion can)",
              type_describe(L->ctx, type));
}

/* sum(iterable, /, start=0) of a tuple known at conversion: Python's, which cuTile runs
 * while it compiles (ct.static_eval(sum(t)), its tests): start + t[0] + t[1] + ..., each `+`
 * as cuTile computes it (constants fold; without start, from t[0]: 0 + x is x). A generator
 * over ct.static_iter(...) is summed as the tuple it makes. */
Node *lower_python_sum(Lowerer *L, Node *call, const char *member) {
  (void)member;
  NodeList *raw = &call->u.call.args;
  if (raw->count >= 1 && raw->items[0]->kind == N_GENERATOR_EXP)
    raw->items[0] = T(L, "tuple(_1)", raw->items[0]);
  BoundArgs args;
  bind_call(L, call, "sum()", "iterable, /, start", &args);
  Node *items = require_arg(L, call, &args, 0, "sum()", "iterable");
  const TypeInfo *type = items->type;
  if (!type || type->kind != VAL_TUPLE || type->count < 0 || type->array || (!type->elts && type->count))
    lower_error(L, args.source[0], "sum() of %s cannot be converted (sum() of a tuple known at conversion can)",
                type_describe(L->ctx, type));
  Node *total = args.arg[1];
  for (int i = 0; i < type->count; i++) {
    Node *item = lower_tuple_entry(L, items, i);
    total = total ? lower_binary_operator(L, call, AOP_ADD, total, item) : item;
  }
  return total ? total : new_int(L, 0);
}

/* ------------------------------------------------ tuple comprehensions */

/* tuple(e for ... in ct.static_iter(...) ...): cuTile runs the generator while it compiles; the
 * converter does, into the tuple of its elements, each written as the source wrote it with the
 * loop names replaced by their values: an integer of a range() with bounds known at conversion,
 * `t[k]` of a tuple named t (an expression of names, subscripts and attributes: it is written
 * again for each element, so it makes no call), a tuple written out, and pairs of enumerate()
 * and zip() of those.
 * Targets may be nested tuples of names; several `for`s nest; an `if` must be known at
 * conversion once the names have their values. tuple(t) of a tuple is t. */

#define C2T_MAX_COMP_NAMES 32 /* names bound by the loops of one tuple comprehension */

typedef struct CompNames {
  Lowerer *L;
  Str names[C2T_MAX_COMP_NAMES];
  Node *values[C2T_MAX_COMP_NAMES];
  int count;
  const Node *rebound; /* a nested generator or lambda that binds one of the names again */
} CompNames;

/* A value a loop gives its target: an expression (leaf) or the parts of a pair (enumerate, zip). */
typedef struct CompValue {
  Node *leaf;
  struct CompValue *parts;
  int count;
} CompValue;

static bool binds_any(const Node *node, const CompNames *names) {
  if (node->kind == N_LAMBDA)
    return true; /* a lambda's own parameters are not followed: refused whatever they are */
  if (node->kind != N_GENERATOR_EXP && node->kind != N_LIST_COMP && node->kind != N_SET_COMP)
    return false;
  for (int i = 0; i < node->u.comp.generators.count; i++) {
    const Node *target = node->u.comp.generators.items[i]->u.comprehension.target;
    if (target->kind != N_NAME)
      return true;
    for (int n = 0; n < names->count; n++)
      if (str_same(target->u.name.id, names->names[n]))
        return true;
  }
  return false;
}

/* Each use of a bound name in `*slot` becomes (a copy of) its value, at the name's location. */
static void put_values(Node **slot, void *data) {
  CompNames *names = data;
  Node *node = *slot;
  if (!node || names->rebound)
    return;
  if (binds_any(node, names)) {
    names->rebound = node;
    return;
  }
  if (node->kind == N_NAME)
    for (int n = names->count - 1; n >= 0; n--) /* the innermost binding of a name wins */
      if (str_same(node->u.name.id, names->names[n])) {
        Node *value = node_copy_tree(&names->L->ctx->arena, names->values[n]);
        value->span = node->span;
        value->parenthesized = value->kind != N_NAME && value->kind != N_CONSTANT;
        *slot = value;
        return;
      }
  node_child_slots(node, put_values, data);
}

static Node *with_values(CompNames *names, Node *source) {
  Node *copy = node_copy_tree(&names->L->ctx->arena, source);
  put_values(&copy, names);
  if (names->rebound)
    lower_error(names->L, names->rebound, "a tuple comprehension whose element or condition binds one of its "
                "loop names again (or holds a lambda) cannot be converted");
  return copy;
}

/* Whether an iterable may be written once per element: names, subscripts, attributes, constants. */
static bool rewritable(const Node *node) {
  switch (node->kind) {
  case N_NAME:
  case N_CONSTANT: return true;
  case N_ATTRIBUTE: return rewritable(node->u.attribute.value);
  case N_SUBSCRIPT: return rewritable(node->u.subscript.value) && rewritable(node->u.subscript.slice);
  case N_UNARY_OP: return rewritable(node->u.unary_op.operand);
  default: return false;
  }
}

static bool is_builtin_named(Lowerer *L, const Node *call, const char *name) {
  return lower_is_builtin_call(L, call, name) && !call->u.call.keywords.count;
}

static long long known_int_of(Lowerer *L, Node *expr, const char *what) {
  long long value;
  if (!shape_known_int(lower_expr(L, expr), &value))
    lower_error(L, expr, "%s of a tuple comprehension must be an integer known at conversion (the converter "
                "unrolls it)", what);
  return value;
}

/* The values of one loop's iterable (its names' values put in): *count of them in *values. */
static void iterable_values(Lowerer *L, CompNames *names, Node *iterable, CompValue **values, int *count) {
  const char *form = "a tuple comprehension converts over range() with bounds known at conversion, a tuple "
                     "named in tile code or written out, or enumerate() and zip() of those";
  if (is_builtin_named(L, iterable, "range")) {
    NodeList *args = &iterable->u.call.args;
    if (args->count < 1 || args->count > 3)
      lower_error(L, iterable, "range() takes 1 to 3 arguments");
    long long bounds[3] = {0, 0, 1};
    for (int i = 0; i < args->count; i++)
      bounds[args->count == 1 ? 1 : i] = known_int_of(L, with_values(names, args->items[i]), "a range() bound");
    long long start = bounds[0], stop = bounds[1], step = bounds[2];
    if (step == 0)
      lower_error(L, iterable, "range() arg 3 must not be zero");
    unsigned long long length = range_length(start, stop, step);
    if (length > C2T_MAX_STATIC_TUPLE)
      lower_limit(L, iterable, "elements of a tuple comprehension", C2T_MAX_STATIC_TUPLE);
    *count = (int)length;
    *values = arena_alloc(&L->ctx->arena, sizeof(CompValue) * (size_t)(length ? length : 1));
    for (int k = 0; k < (int)length; k++)
      (*values)[k] = (CompValue){new_int(L, start + k * step), NULL, 0};
    return;
  }
  bool enumerated = is_builtin_named(L, iterable, "enumerate"), zipped = is_builtin_named(L, iterable, "zip");
  if (enumerated || zipped) {
    NodeList *args = &iterable->u.call.args;
    if ((enumerated && (args->count < 1 || args->count > 2)) || (zipped && (args->count < 1 || args->count > C2T_MAX_STATIC_ZIP)))
      lower_error(L, iterable, "%s", form);
    int parts = enumerated ? 2 : args->count, length = -1;
    CompValue *columns[C2T_MAX_STATIC_ZIP];
    int lengths[C2T_MAX_STATIC_ZIP];
    long long start = enumerated && args->count == 2 ? known_int_of(L, with_values(names, args->items[1]),
                                                                    "enumerate()'s start") : 0;
    for (int p = 0; p < (enumerated ? 1 : parts); p++) {
      iterable_values(L, names, args->items[p], &columns[p], &lengths[p]);
      if (length < 0 || lengths[p] < length) /* zip stops at the shortest */
        length = lengths[p];
    }
    *count = length;
    *values = arena_alloc(&L->ctx->arena, sizeof(CompValue) * (size_t)(length > 0 ? length : 1));
    for (int k = 0; k < length; k++) {
      CompValue *pair = arena_alloc(&L->ctx->arena, sizeof(CompValue) * (size_t)parts);
      for (int p = 0; p < parts; p++)
        pair[p] = enumerated ? (p == 0 ? (CompValue){new_int(L, start + k), NULL, 0} : columns[0][k]) : columns[p][k];
      (*values)[k] = (CompValue){NULL, pair, parts};
    }
    return;
  }
  Node *source = with_values(names, iterable);
  if (source->kind == N_TUPLE) { /* written out: each element once */
    int length = source->u.list.elts.count;
    *count = length;
    *values = arena_alloc(&L->ctx->arena, sizeof(CompValue) * (size_t)(length ? length : 1));
    for (int k = 0; k < length; k++)
      (*values)[k] = (CompValue){source->u.list.elts.items[k], NULL, 0};
    return;
  }
  if (!rewritable(source))
    lower_error(L, iterable, "%s (an iterable with a call would be written again for each element)", form);
  Node *tuple = lower_expr(L, node_copy_tree(&L->ctx->arena, source));
  if (!tuple->type || tuple->type->kind != VAL_TUPLE || tuple->type->count < 0)
    lower_error(L, iterable, "%s, not %s", form, type_describe(L->ctx, tuple->type));
  int length = tuple->type->count;
  if (length > C2T_MAX_STATIC_TUPLE)
    lower_limit(L, iterable, "elements of a tuple comprehension", C2T_MAX_STATIC_TUPLE);
  *count = length;
  *values = arena_alloc(&L->ctx->arena, sizeof(CompValue) * (size_t)(length ? length : 1));
  for (int k = 0; k < length; k++) {
    Node *item = arena_alloc(&L->ctx->arena, sizeof(Node));
    item->kind = N_SUBSCRIPT;
    item->span = iterable->span;
    item->u.subscript.value = node_copy_tree(&L->ctx->arena, source);
    item->u.subscript.value->parenthesized = source->kind != N_NAME && source->kind != N_SUBSCRIPT &&
                                             source->kind != N_ATTRIBUTE;
    item->u.subscript.slice = new_int(L, k);
    (*values)[k] = (CompValue){item, NULL, 0};
  }
}

/* Binds the names of `target` to `value`: a name takes the whole value (the pair as a tuple),
 * a tuple of names the parts of a pair, or the items of a tuple value. */
static void bind_comp_target(Lowerer *L, CompNames *names, Node *target, CompValue value) {
  if (target->kind == N_NAME) {
    Node *whole = value.leaf;
    if (!whole) {
      whole = arena_alloc(&L->ctx->arena, sizeof(Node));
      whole->kind = N_TUPLE;
      whole->span = target->span;
      for (int p = 0; p < value.count; p++) {
        CompValue part = value.parts[p];
        if (!part.leaf)
          lower_error(L, target, "a tuple comprehension's name bound to a nested pair cannot be converted; unpack it");
        node_list_push(&L->ctx->arena, &whole->u.list.elts, part.leaf);
      }
    }
    if (names->count == C2T_MAX_COMP_NAMES)
      lower_limit(L, target, "names bound by the loops of one tuple comprehension", C2T_MAX_COMP_NAMES);
    names->names[names->count] = target->u.name.id;
    names->values[names->count++] = whole;
    return;
  }
  if (target->kind != N_TUPLE && target->kind != N_LIST)
    lower_error(L, target, "a tuple comprehension's loop target must be names or tuples of names");
  int wanted = target->u.list.elts.count;
  if (!value.leaf) {
    if (value.count != wanted)
      lower_error(L, target, "cannot unpack %d values into %d names", value.count, wanted);
    for (int p = 0; p < wanted; p++)
      bind_comp_target(L, names, target->u.list.elts.items[p], value.parts[p]);
    return;
  }
  Node *tuple = lower_expr(L, node_copy_tree(&L->ctx->arena, value.leaf));
  if (!tuple->type || tuple->type->kind != VAL_TUPLE || tuple->type->count != wanted)
    lower_error(L, target, "cannot unpack %s into %d names", type_describe(L->ctx, tuple->type), wanted);
  for (int p = 0; p < wanted; p++) {
    Node *item = arena_alloc(&L->ctx->arena, sizeof(Node));
    item->kind = N_SUBSCRIPT;
    item->span = target->span;
    item->u.subscript.value = node_copy_tree(&L->ctx->arena, value.leaf);
    item->u.subscript.slice = new_int(L, p);
    bind_comp_target(L, names, target->u.list.elts.items[p], (CompValue){item, NULL, 0});
  }
}

static bool condition_holds(Lowerer *L, Node *condition) {
  Node *value = lower_expr(L, condition);
  const TypeInfo *type = value->type;
  if (!type || type->kind != VAL_CONST || type->dtype == DT_UNKNOWN)
    lower_error(L, condition, "the `if` of a tuple comprehension must be known at conversion (the converter "
                "unrolls it)");
  return type->is_float ? type->float_value != 0 : type->int_value != 0;
}

/* The elements of loops g.. of `comp` under the names bound so far, appended to `tuple`. */
static void unroll_loops(Lowerer *L, Node *comp, int g, CompNames *names, Node *tuple) {
  if (g == comp->u.comp.generators.count) {
    if (tuple->u.list.elts.count == C2T_MAX_STATIC_TUPLE)
      lower_limit(L, comp, "elements of a tuple comprehension", C2T_MAX_STATIC_TUPLE);
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, with_values(names, comp->u.comp.elt));
    return;
  }
  Node *loop = comp->u.comp.generators.items[g];
  Node *iter = loop->u.comprehension.iter;
  if (loop->u.comprehension.is_async || iter->kind != N_CALL || !is_ct_member(L->conv, iter->u.call.func, "static_iter") ||
      iter->u.call.args.count != 1 || iter->u.call.keywords.count)
    lower_error(L, loop, "tuple() of a generator converts where each `for` walks ct.static_iter(...)");
  CompValue *values;
  int count;
  iterable_values(L, names, iter->u.call.args.items[0], &values, &count);
  int bound = names->count;
  for (int k = 0; k < count; k++) {
    names->count = bound;
    bind_comp_target(L, names, loop->u.comprehension.target, values[k]);
    bool kept = true;
    for (int c = 0; c < loop->u.comprehension.ifs.count && kept; c++)
      kept = condition_holds(L, with_values(names, loop->u.comprehension.ifs.items[c]));
    if (kept)
      unroll_loops(L, comp, g + 1, names, tuple);
  }
  names->count = bound;
}

Node *lower_python_tuple(Lowerer *L, Node *call, const char *member) {
  (void)member;
  if (call->u.call.args.count != 1 || call->u.call.keywords.count)
    lower_error(L, call, "tuple() in tile code takes one iterable");
  Node *arg = call->u.call.args.items[0];
  if (arg->kind != N_GENERATOR_EXP) {
    Node *value = lower_expr(L, arg);
    if (value->type && value->type->kind == VAL_TUPLE) {
      value->rewritten = true; /* written as the tuple, not as the call of the source */
      return value;
    }
    lower_error(L, arg, "tuple() of %s cannot be converted (tuple() of a tuple or of a generator over "
                "ct.static_iter(...) can)", type_describe(L->ctx, value->type));
  }
  Node *tuple = arena_alloc(&L->ctx->arena, sizeof(Node));
  tuple->kind = N_TUPLE;
  tuple->span = call->span;
  tuple->parenthesized = true;
  CompNames names = {.L = L};
  unroll_loops(L, arg, 0, &names, tuple);
  return lower_expr(L, tuple);
}
