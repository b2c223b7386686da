/*
 * test_parse.c — unit tests of the expression parser (parse_expr*.c) and
 * of the tree dump (dump.c): every expression form, precedence and
 * associativity, literals and f-strings, comprehensions, parameters and
 * call arguments, targets, CPython's error messages, the nesting limits,
 * long chains, spans and the `parenthesized` flag.
 *
 * Most tests compare unit_parse(source) with the dump of the module or
 * with the first diagnostic line "<test>:L:C: error: ..." (format in
 * dump.c). The trees were checked against CPython 3.12's ast module.
 */
#include <stdlib.h>

#include "unit.h"
#include "parse/parser.h"

/* ------------------------------------------------------------ helpers */

/* The value of the first statement (an expression statement), or NULL. */
static Node *first_expression(const UnitTree *parsed) {
  if (!parsed->module || parsed->module->u.module.body.count == 0)
    return NULL;
  Node *statement = parsed->module->u.module.body.items[0];
  if (statement->kind == N_EXPR_STMT)
    return statement->u.expr_stmt.value;
  if (statement->kind == N_ASSIGN)
    return statement->u.assign.value;
  return NULL;
}

/* `prefix` + `unit` * count + `suffix`, malloc'd. */
static char *repeat(const char *prefix, const char *unit, int count, const char *suffix) {
  size_t prefix_len = strlen(prefix), unit_len = strlen(unit), suffix_len = strlen(suffix);
  char *text = malloc(prefix_len + unit_len * (size_t)count + suffix_len + 1);
  char *at = text;
  memcpy(at, prefix, prefix_len);
  at += prefix_len;
  for (int i = 0; i < count; i++, at += unit_len)
    memcpy(at, unit, unit_len);
  memcpy(at, suffix, suffix_len + 1);
  return text;
}

/* `count` opening brackets, `middle`, `count` closing ones, malloc'd. */
static char *nested(const char *open, const char *middle, const char *close, int count) {
  char *inner = repeat("", open, count, middle);
  char *text = repeat(inner, close, count, "\n");
  free(inner);
  return text;
}

static bool starts_with(const char *text, const char *prefix) { return strncmp(text, prefix, strlen(prefix)) == 0; }

/* Whether unit_parse's result is an error line containing `text`. */
static bool is_error_with(const char *result, const char *text) {
  return strncmp(result, "<test>:", 7) == 0 && strstr(result, text) != NULL;
}

/* -------------------------------------------------- dumps and messages */

static void test_names_and_constants_1(void) {
  CHECK_STR(unit_parse("a"),
            "(Module (Expr (Name a)))");
  CHECK_STR(unit_parse("_x1"),
            "(Module (Expr (Name _x1)))");
  CHECK_STR(unit_parse("True"),
            "(Module (Expr (Constant True)))");
  CHECK_STR(unit_parse("False"),
            "(Module (Expr (Constant False)))");
  CHECK_STR(unit_parse("None"),
            "(Module (Expr (Constant None)))");
  CHECK_STR(unit_parse("..."),
            "(Module (Expr (Constant ...)))");
  CHECK_STR(unit_parse("1"),
            "(Module (Expr (Constant 1)))");
}

static void test_names_and_constants_2(void) {
  CHECK_STR(unit_parse("0x1F"),
            "(Module (Expr (Constant 0x1F)))");
  CHECK_STR(unit_parse("1_000"),
            "(Module (Expr (Constant 1_000)))");
  CHECK_STR(unit_parse("1.5e3"),
            "(Module (Expr (Constant 1.5e3)))");
  CHECK_STR(unit_parse("2j"),
            "(Module (Expr (Constant 2j)))");
  CHECK_STR(unit_parse("0o17 + 0b1"),
            "(Module (Expr (BinOp (Constant 0o17) Add (Constant 0b1))))");
}

static void test_plain_strings(void) {
  CHECK_STR(unit_parse("'a'"),
            "(Module (Expr (Constant 'a')))");
  CHECK_STR(unit_parse("b\"x\""),
            "(Module (Expr (Constant b\"x\")))");
  CHECK_STR(unit_parse("'a' \"b\""),
            "(Module (Expr (Constant 'a' \"b\")))");
  CHECK_STR(unit_parse("r'\\\\d' u'x'"),
            "(Module (Expr (Constant r'\\\\d' u'x')))");
  CHECK_STR(unit_parse("'''tri\\nple'''"),
            "(Module (Expr (Constant '''tri\\nple''')))");
  CHECK_STR(unit_parse("Rb'raw'"),
            "(Module (Expr (Constant Rb'raw')))");
}

static void test_implicit_concatenation_with_fstrings(void) {
  CHECK_STR(unit_parse("'a' f'{b}' 'c'"),
            "(Module (Expr (JoinedStr 'a' (FString f' (FormattedValue (Name b) - -) ') 'c')))");
  CHECK_STR(unit_parse("f'x' f'y'"),
            "(Module (Expr (JoinedStr (FString f' (Text x) ') (FString f' (Text y) '))))");
  CHECK_STR(unit_parse("'a' 'b' 'c' 'd'"),
            "(Module (Expr (Constant 'a' 'b' 'c' 'd')))");
}

static void test_bytes_mixing_errors(void) {
  CHECK_STR(unit_parse("'a' b'b'"),
            "<test>:1:5: error: cannot mix bytes and nonbytes literals");
  CHECK_STR(unit_parse("b'a' f'b'"),
            "<test>:1:6: error: cannot mix bytes and nonbytes literals");
  CHECK_STR(unit_parse("f'a' b'b'"),
            "<test>:1:6: error: cannot mix bytes and nonbytes literals");
  CHECK_STR(unit_parse("b'a' 'b'"),
            "<test>:1:6: error: cannot mix bytes and nonbytes literals");
  CHECK_STR(unit_parse("x = b'a' b'b'"),
            "(Module (Assign (Name x Store) (Constant b'a' b'b')))");
}

static void test_fstring_fields(void) {
  CHECK_STR(unit_parse("f\"hi {x}!\""),
            "(Module (Expr (JoinedStr (FString f\" (Text hi ) (FormattedValue (Name x) - -) (Text !) \"))))");
  CHECK_STR(unit_parse("f\"{x!r}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) r -) \"))))");
  CHECK_STR(unit_parse("f\"{x!s} {y!a}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) s -) (Text  ) (FormattedValue (Name y) a -) \"))))");
  CHECK_STR(unit_parse("f\"{x:>10}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) - (FormatSpec (Text >10))) \"))))");
  CHECK_STR(unit_parse("f\"{x:{w}.{p}f}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) - (FormatSpec (FormattedValue (Name w) - -) (Text .) (FormattedValue (Name p) - -) (Text f))) \"))))");
  CHECK_STR(unit_parse("f\"{{literal}} {x}\""),
            "(Module (Expr (JoinedStr (FString f\" (Text {{literal}} ) (FormattedValue (Name x) - -) \"))))");
  CHECK_STR(unit_parse("f\"\""),
            "(Module (Expr (JoinedStr (FString f\" \"))))");
  CHECK_STR(unit_parse("f'''{\nx\n}'''"),
            "(Module (Expr (JoinedStr (FString f''' (FormattedValue (Name x) - -) '''))))");
}

static void test_fstring_nested_quotes(void) {
  CHECK_STR(unit_parse("f\"{x[\"a\"]}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Subscript (Name x) (Constant \"a\")) - -) \"))))");
  CHECK_STR(unit_parse("f\"{f\"{y}\"}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (JoinedStr (FString f\" (FormattedValue (Name y) - -) \")) - -) \"))))");
  CHECK_STR(unit_parse("f'{x['a']!r:>{w}}'"),
            "(Module (Expr (JoinedStr (FString f' (FormattedValue (Subscript (Name x) (Constant 'a')) r (FormatSpec (Text >) (FormattedValue (Name w) - -))) '))))");
  CHECK_STR(unit_parse("f\"{\"\\n\".join(a)}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Call (Attribute (Constant \"\\n\") join) [(Name a)] []) - -) \"))))");
}

static void test_fstring_debug(void) {
  CHECK_STR(unit_parse("f\"{x=}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) - - debug=\"x=\") \"))))");
  CHECK_STR(unit_parse("f\"{x = }\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) - - debug=\"x = \") \"))))");
  CHECK_STR(unit_parse("f\"{x = !r:>5}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) r (FormatSpec (Text >5)) debug=\"x = \") \"))))");
  CHECK_STR(unit_parse("f\"{a + b=:{w}}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (BinOp (Name a) Add (Name b)) - (FormatSpec (FormattedValue (Name w) - -)) debug=\"a + b=\") \"))))");
}

static void test_fstring_field_expressions_1(void) {
  CHECK_STR(unit_parse("f\"{yield}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Yield -) - -) \"))))");
  CHECK_STR(unit_parse("f\"{*a, b}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Tuple [(Starred (Name a)) (Name b)]) - -) \"))))");
  CHECK_STR(unit_parse("f\"{a, b}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Tuple [(Name a) (Name b)]) - -) \"))))");
  CHECK_STR(unit_parse("f\"{ {1: 2} }\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Dict [(Constant 1)] [(Constant 2)]) - -) \"))))");
  CHECK_STR(unit_parse("f\"{(lambda: 1)()}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Call (Lambda (arguments) (Constant 1)) [] []) - -) \"))))");
  CHECK_STR(unit_parse("f\"{(x:=1)}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (NamedExpr (Name x Store) (Constant 1)) - -) \"))))");
  CHECK_STR(unit_parse("f\"{x:=10}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) - (FormatSpec (Text =10))) \"))))");
}

static void test_fstring_field_expressions_2(void) {
  CHECK_STR(unit_parse("f\"{x if y else z}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (IfExp (Name y) (Name x) (Name z)) - -) \"))))");
  CHECK_STR(unit_parse("f\"{x!r:{y:{z}}}\""),
            "(Module (Expr (JoinedStr (FString f\" (FormattedValue (Name x) r (FormatSpec (FormattedValue (Name y) - (FormatSpec (FormattedValue (Name z) - -))))) \"))))");
}

static void test_fstring_errors_1(void) {
  CHECK_STR(unit_parse("f\"{}\""),
            "<test>:1:4: error: f-string: valid expression required before '}'");
  CHECK_STR(unit_parse("f\"{!r}\""),
            "<test>:1:4: error: f-string: valid expression required before '!'");
  CHECK_STR(unit_parse("f\"{:x}\""),
            "<test>:1:4: error: f-string: valid expression required before ':'");
  CHECK_STR(unit_parse("f\"{=}\""),
            "<test>:1:4: error: f-string: valid expression required before '='");
  CHECK_STR(unit_parse("f\"{x!z}\""),
            "<test>:1:6: error: f-string: invalid conversion character 'z': expected 's', 'r', or 'a'");
  CHECK_STR(unit_parse("f\"{x!}\""),
            "<test>:1:6: error: f-string: missing conversion character");
  CHECK_STR(unit_parse("f\"{x!:}\""),
            "<test>:1:6: error: f-string: missing conversion character");
}

static void test_fstring_errors_2(void) {
  CHECK_STR(unit_parse("f\"{x!1}\""),
            "<test>:1:6: error: f-string: invalid conversion character");
  CHECK_STR(unit_parse("f\"{x!{y}}\""),
            "<test>:1:6: error: f-string: invalid conversion character");
  CHECK_STR(unit_parse("f\"{x! r}\""),
            "<test>:1:5: error: f-string: conversion type must come right after the exclamanation mark");
  CHECK_STR(unit_parse("f\"{x!r=}\""),
            "<test>:1:7: error: f-string: expecting ':' or '}'");
  CHECK_STR(unit_parse("f\"{x=y}\""),
            "<test>:1:6: error: f-string: expecting '!', or ':', or '}'");
  CHECK_STR(unit_parse("f\"{x y}\""),
            "<test>:1:4: error: invalid syntax. Perhaps you forgot a comma?");
  CHECK_STR(unit_parse("f\"{lambda x: 1}\""),
            "<test>:1:4: error: f-string: lambda expressions are not allowed without parentheses");
}

static void test_fstring_errors_3(void) {
  CHECK_STR(unit_parse("f\"{lambda: 1}\""),
            "<test>:1:4: error: f-string: lambda expressions are not allowed without parentheses");
  CHECK_STR(unit_parse("f\"{.}\""),
            "<test>:1:4: error: f-string: expecting a valid expression after '{'");
  CHECK_STR(unit_parse("f\"{x!rr}\""),
            "<test>:1:6: error: f-string: invalid conversion character 'rr': expected 's', 'r', or 'a'");
  CHECK_STR(unit_parse("f\"{x:{y:{z:{w}}}}\""),
            "<test>:1:11: error: too many nested replacement fields in an f-string (limit is 2)");
}

static void test_arithmetic_precedence(void) {
  CHECK_STR(unit_parse("a + b * c"),
            "(Module (Expr (BinOp (Name a) Add (BinOp (Name b) Mult (Name c)))))");
  CHECK_STR(unit_parse("(a + b) * c"),
            "(Module (Expr (BinOp (BinOp (Name a) Add (Name b)) Mult (Name c))))");
  CHECK_STR(unit_parse("a - b - c"),
            "(Module (Expr (BinOp (BinOp (Name a) Sub (Name b)) Sub (Name c))))");
  CHECK_STR(unit_parse("a / b // c % d @ e"),
            "(Module (Expr (BinOp (BinOp (BinOp (BinOp (Name a) Div (Name b)) FloorDiv (Name c)) Mod (Name d)) MatMult (Name e))))");
  CHECK_STR(unit_parse("a * b + c * d"),
            "(Module (Expr (BinOp (BinOp (Name a) Mult (Name b)) Add (BinOp (Name c) Mult (Name d)))))");
  CHECK_STR(unit_parse("a + -b"),
            "(Module (Expr (BinOp (Name a) Add (UnaryOp USub (Name b)))))");
}

static void test_power_and_unary_1(void) {
  CHECK_STR(unit_parse("-x**2"),
            "(Module (Expr (UnaryOp USub (BinOp (Name x) Pow (Constant 2)))))");
  CHECK_STR(unit_parse("2**-1"),
            "(Module (Expr (BinOp (Constant 2) Pow (UnaryOp USub (Constant 1)))))");
  CHECK_STR(unit_parse("a**b**c"),
            "(Module (Expr (BinOp (Name a) Pow (BinOp (Name b) Pow (Name c)))))");
  CHECK_STR(unit_parse("(-a)**b"),
            "(Module (Expr (BinOp (UnaryOp USub (Name a)) Pow (Name b))))");
  CHECK_STR(unit_parse("-a**-b"),
            "(Module (Expr (UnaryOp USub (BinOp (Name a) Pow (UnaryOp USub (Name b))))))");
  CHECK_STR(unit_parse("~a**b"),
            "(Module (Expr (UnaryOp Invert (BinOp (Name a) Pow (Name b)))))");
  CHECK_STR(unit_parse("a ** -b ** c"),
            "(Module (Expr (BinOp (Name a) Pow (UnaryOp USub (BinOp (Name b) Pow (Name c))))))");
}

static void test_power_and_unary_2(void) {
  CHECK_STR(unit_parse("await a ** b"),
            "(Module (Expr (BinOp (Await (Name a)) Pow (Name b))))");
  CHECK_STR(unit_parse("-await a"),
            "(Module (Expr (UnaryOp USub (Await (Name a)))))");
}

static void test_unary_chains(void) {
  CHECK_STR(unit_parse("-+~a"),
            "(Module (Expr (UnaryOp USub (UnaryOp UAdd (UnaryOp Invert (Name a))))))");
  CHECK_STR(unit_parse("not a"),
            "(Module (Expr (UnaryOp Not (Name a))))");
  CHECK_STR(unit_parse("not not a"),
            "(Module (Expr (UnaryOp Not (UnaryOp Not (Name a)))))");
  CHECK_STR(unit_parse("- - 1"),
            "(Module (Expr (UnaryOp USub (UnaryOp USub (Constant 1)))))");
  CHECK_STR(unit_parse("not -a"),
            "(Module (Expr (UnaryOp Not (UnaryOp USub (Name a)))))");
}

static void test_shifts_and_bitwise(void) {
  CHECK_STR(unit_parse("a << b | c & d ^ e"),
            "(Module (Expr (BinOp (BinOp (Name a) LShift (Name b)) BitOr (BinOp (BinOp (Name c) BitAnd (Name d)) BitXor (Name e)))))");
  CHECK_STR(unit_parse("a | b | c"),
            "(Module (Expr (BinOp (BinOp (Name a) BitOr (Name b)) BitOr (Name c))))");
  CHECK_STR(unit_parse("a & b << c"),
            "(Module (Expr (BinOp (Name a) BitAnd (BinOp (Name b) LShift (Name c)))))");
  CHECK_STR(unit_parse("a ^ b | c ^ d"),
            "(Module (Expr (BinOp (BinOp (Name a) BitXor (Name b)) BitOr (BinOp (Name c) BitXor (Name d)))))");
  CHECK_STR(unit_parse("a >> b + c"),
            "(Module (Expr (BinOp (Name a) RShift (BinOp (Name b) Add (Name c)))))");
}

static void test_comparison_chains(void) {
  CHECK_STR(unit_parse("a < b <= c"),
            "(Module (Expr (Compare (Name a) [Lt LtE] [(Name b) (Name c)])))");
  CHECK_STR(unit_parse("a == b != c"),
            "(Module (Expr (Compare (Name a) [Eq NotEq] [(Name b) (Name c)])))");
  CHECK_STR(unit_parse("a is not b"),
            "(Module (Expr (Compare (Name a) [IsNot] [(Name b)])))");
  CHECK_STR(unit_parse("a not in b"),
            "(Module (Expr (Compare (Name a) [NotIn] [(Name b)])))");
  CHECK_STR(unit_parse("a in b is c"),
            "(Module (Expr (Compare (Name a) [In Is] [(Name b) (Name c)])))");
  CHECK_STR(unit_parse("a > b >= c < d"),
            "(Module (Expr (Compare (Name a) [Gt GtE Lt] [(Name b) (Name c) (Name d)])))");
  CHECK_STR(unit_parse("not a == b"),
            "(Module (Expr (UnaryOp Not (Compare (Name a) [Eq] [(Name b)]))))");
  CHECK_STR(unit_parse("a < b == c in d is not e not in f"),
            "(Module (Expr (Compare (Name a) [Lt Eq In IsNot NotIn] [(Name b) (Name c) (Name d) (Name e) (Name f)])))");
}

static void test_boolean_operators(void) {
  CHECK_STR(unit_parse("a or b or c"),
            "(Module (Expr (BoolOp Or [(Name a) (Name b) (Name c)])))");
  CHECK_STR(unit_parse("a and b and c"),
            "(Module (Expr (BoolOp And [(Name a) (Name b) (Name c)])))");
  CHECK_STR(unit_parse("a and b or c and d"),
            "(Module (Expr (BoolOp Or [(BoolOp And [(Name a) (Name b)]) (BoolOp And [(Name c) (Name d)])])))");
  CHECK_STR(unit_parse("not a and b"),
            "(Module (Expr (BoolOp And [(UnaryOp Not (Name a)) (Name b)])))");
  CHECK_STR(unit_parse("a or (b or c)"),
            "(Module (Expr (BoolOp Or [(Name a) (BoolOp Or [(Name b) (Name c)])])))");
  CHECK_STR(unit_parse("a or not b and c"),
            "(Module (Expr (BoolOp Or [(Name a) (BoolOp And [(UnaryOp Not (Name b)) (Name c)])])))");
}

static void test_conditional_expressions(void) {
  CHECK_STR(unit_parse("a if b else c"),
            "(Module (Expr (IfExp (Name b) (Name a) (Name c))))");
  CHECK_STR(unit_parse("a if b else c if d else e"),
            "(Module (Expr (IfExp (Name b) (Name a) (IfExp (Name d) (Name c) (Name e)))))");
  CHECK_STR(unit_parse("(a if b else c) if d else e"),
            "(Module (Expr (IfExp (Name d) (IfExp (Name b) (Name a) (Name c)) (Name e))))");
  CHECK_STR(unit_parse("x = a if b else lambda: c"),
            "(Module (Assign (Name x Store) (IfExp (Name b) (Name a) (Lambda (arguments) (Name c)))))");
  CHECK_STR(unit_parse("x = lambda: a if b else c"),
            "(Module (Assign (Name x Store) (Lambda (arguments) (IfExp (Name b) (Name a) (Name c)))))");
  CHECK_STR(unit_parse("a or b if c and d else e"),
            "(Module (Expr (IfExp (BoolOp And [(Name c) (Name d)]) (BoolOp Or [(Name a) (Name b)]) (Name e))))");
}

static void test_conditional_expression_errors(void) {
  CHECK_STR(unit_parse("a if b"),
            "<test>:1:1: error: expected 'else' after 'if' expression");
  CHECK_STR(unit_parse("x = 1 if y"),
            "<test>:1:5: error: expected 'else' after 'if' expression");
  CHECK_STR(unit_parse("a if b else"),
            "<test>:1:12: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("x = 1 if 2 else yield"),
            "<test>:1:17: error: invalid syntax at 'yield'");
}

static void test_walrus_1(void) {
  CHECK_STR(unit_parse("(x := 1)"),
            "(Module (Expr (NamedExpr (Name x Store) (Constant 1))))");
  CHECK_STR(unit_parse("[y := f(x), y**2]"),
            "(Module (Expr (List [(NamedExpr (Name y Store) (Call (Name f) [(Name x)] [])) (BinOp (Name y) Pow (Constant 2))])))");
  CHECK_STR(unit_parse("f(x := 1)"),
            "(Module (Expr (Call (Name f) [(NamedExpr (Name x Store) (Constant 1))] [])))");
  CHECK_STR(unit_parse("a[b := 1]"),
            "(Module (Expr (Subscript (Name a) (NamedExpr (Name b Store) (Constant 1)))))");
  CHECK_STR(unit_parse("a[b:=1, c]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(NamedExpr (Name b Store) (Constant 1)) (Name c)]))))");
  CHECK_STR(unit_parse("{x := 1}"),
            "(Module (Expr (Set [(NamedExpr (Name x Store) (Constant 1))])))");
  CHECK_STR(unit_parse("(x := 1, y := 2)"),
            "(Module (Expr (Tuple [(NamedExpr (Name x Store) (Constant 1)) (NamedExpr (Name y Store) (Constant 2))])))");
}

static void test_walrus_2(void) {
  CHECK_STR(unit_parse("if (n := len(a)) > 10: pass"),
            "(Module (If (Compare (NamedExpr (Name n Store) (Call (Name len) [(Name a)] [])) [Gt] [(Constant 10)]) [(Pass)] []))");
  CHECK_STR(unit_parse("while chunk := read(): pass"),
            "(Module (While (NamedExpr (Name chunk Store) (Call (Name read) [] [])) [(Pass)] []))");
  CHECK_STR(unit_parse("[x := 1 for y in z]"),
            "(Module (Expr (ListComp (NamedExpr (Name x Store) (Constant 1)) [(comprehension (Name y Store) (Name z) [] 0)])))");
}

static void test_walrus_errors(void) {
  CHECK_STR(unit_parse("(a.b := 1)"),
            "<test>:1:2: error: cannot use assignment expressions with attribute");
  CHECK_STR(unit_parse("(a[1] := 1)"),
            "<test>:1:2: error: cannot use assignment expressions with subscript");
  CHECK_STR(unit_parse("((a) := 1)"),
            "<test>:1:3: error: cannot use assignment expressions with name");
  CHECK_STR(unit_parse("(f() := 1)"),
            "<test>:1:2: error: cannot use assignment expressions with function call");
  CHECK_STR(unit_parse("x := 1"),
            "<test>:1:3: error: invalid syntax at ':='");
  CHECK_STR(unit_parse("{a := 1: 2}"),
            "<test>:1:8: error: invalid syntax at ':'");
  CHECK_STR(unit_parse("a[x:=1:2]"),
            "<test>:1:7: error: invalid syntax at ':'");
}

static void test_trailers(void) {
  CHECK_STR(unit_parse("a.b.c"),
            "(Module (Expr (Attribute (Attribute (Name a) b) c)))");
  CHECK_STR(unit_parse("f()()"),
            "(Module (Expr (Call (Call (Name f) [] []) [] [])))");
  CHECK_STR(unit_parse("a[1][2]"),
            "(Module (Expr (Subscript (Subscript (Name a) (Constant 1)) (Constant 2))))");
  CHECK_STR(unit_parse("f(x).y[z]"),
            "(Module (Expr (Subscript (Attribute (Call (Name f) [(Name x)] []) y) (Name z))))");
  CHECK_STR(unit_parse("a.b(c).d[e](f)"),
            "(Module (Expr (Call (Subscript (Attribute (Call (Attribute (Name a) b) [(Name c)] []) d) (Name e)) [(Name f)] [])))");
  CHECK_STR(unit_parse("None.x"),
            "(Module (Expr (Attribute (Constant None) x)))");
  CHECK_STR(unit_parse("1 .real"),
            "(Module (Expr (Attribute (Constant 1) real)))");
  CHECK_STR(unit_parse("'abc'.upper()"),
            "(Module (Expr (Call (Attribute (Constant 'abc') upper) [] [])))");
}

static void test_slices_1(void) {
  CHECK_STR(unit_parse("a[1:2]"),
            "(Module (Expr (Subscript (Name a) (Slice (Constant 1) (Constant 2) -))))");
  CHECK_STR(unit_parse("a[:]"),
            "(Module (Expr (Subscript (Name a) (Slice - - -))))");
  CHECK_STR(unit_parse("a[::]"),
            "(Module (Expr (Subscript (Name a) (Slice - - -))))");
  CHECK_STR(unit_parse("a[::2]"),
            "(Module (Expr (Subscript (Name a) (Slice - - (Constant 2)))))");
  CHECK_STR(unit_parse("a[1:2:3]"),
            "(Module (Expr (Subscript (Name a) (Slice (Constant 1) (Constant 2) (Constant 3)))))");
  CHECK_STR(unit_parse("a[:b]"),
            "(Module (Expr (Subscript (Name a) (Slice - (Name b) -))))");
  CHECK_STR(unit_parse("a[1:2, 3]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(Slice (Constant 1) (Constant 2) -) (Constant 3)]))))");
}

static void test_slices_2(void) {
  CHECK_STR(unit_parse("a[:, None]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(Slice - - -) (Constant None)]))))");
  CHECK_STR(unit_parse("a[*b]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(Starred (Name b))]))))");
  CHECK_STR(unit_parse("a[*b, c]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(Starred (Name b)) (Name c)]))))");
  CHECK_STR(unit_parse("a[1:2, *b]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(Slice (Constant 1) (Constant 2) -) (Starred (Name b))]))))");
  CHECK_STR(unit_parse("a[1,]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(Constant 1)]))))");
  CHECK_STR(unit_parse("a[()]"),
            "(Module (Expr (Subscript (Name a) (Tuple []))))");
  CHECK_STR(unit_parse("a[b, c:d]"),
            "(Module (Expr (Subscript (Name a) (Tuple [(Name b) (Slice (Name c) (Name d) -)]))))");
}

static void test_slice_errors(void) {
  CHECK_STR(unit_parse("a[]"),
            "<test>:1:3: error: invalid syntax at ']'");
  CHECK_STR(unit_parse("a[,]"),
            "<test>:1:3: error: invalid syntax at ','");
  CHECK_STR(unit_parse("a[1:*b]"),
            "<test>:1:5: error: invalid syntax at '*'");
  CHECK_STR(unit_parse("a[1:2:3:4]"),
            "<test>:1:8: error: invalid syntax at ':'");
}

static void test_call_arguments_1(void) {
  CHECK_STR(unit_parse("f()"),
            "(Module (Expr (Call (Name f) [] [])))");
  CHECK_STR(unit_parse("f(a, *b, c=1, **d)"),
            "(Module (Expr (Call (Name f) [(Name a) (Starred (Name b))] [(keyword c (Constant 1)) (keyword - (Name d))])))");
  CHECK_STR(unit_parse("f(*a, *b)"),
            "(Module (Expr (Call (Name f) [(Starred (Name a)) (Starred (Name b))] [])))");
  CHECK_STR(unit_parse("f(**a, b=1)"),
            "(Module (Expr (Call (Name f) [] [(keyword - (Name a)) (keyword b (Constant 1))])))");
  CHECK_STR(unit_parse("f(a, b=1, *c, d=2, **e)"),
            "(Module (Expr (Call (Name f) [(Name a) (Starred (Name c))] [(keyword b (Constant 1)) (keyword d (Constant 2)) (keyword - (Name e))])))");
  CHECK_STR(unit_parse("f(*a, b, c=1, *d, **e, f=2)"),
            "(Module (Expr (Call (Name f) [(Starred (Name a)) (Name b) (Starred (Name d))] [(keyword c (Constant 1)) (keyword - (Name e)) (keyword f (Constant 2))])))");
  CHECK_STR(unit_parse("f(a=1, a=2)"),
            "(Module (Expr (Call (Name f) [] [(keyword a (Constant 1)) (keyword a (Constant 2))])))");
}

static void test_call_arguments_2(void) {
  CHECK_STR(unit_parse("f(a,)"),
            "(Module (Expr (Call (Name f) [(Name a)] [])))");
  CHECK_STR(unit_parse("f(*a or b)"),
            "(Module (Expr (Call (Name f) [(Starred (BoolOp Or [(Name a) (Name b)]))] [])))");
  CHECK_STR(unit_parse("f(**a if b else c)"),
            "(Module (Expr (Call (Name f) [] [(keyword - (IfExp (Name b) (Name a) (Name c)))])))");
}

static void test_call_generator_argument(void) {
  CHECK_STR(unit_parse("f(x for x in y)"),
            "(Module (Expr (Call (Name f) [(GeneratorExp (Name x) [(comprehension (Name x Store) (Name y) [] 0)])] [])))");
  CHECK_STR(unit_parse("f((x for x in y), 1)"),
            "(Module (Expr (Call (Name f) [(GeneratorExp (Name x) [(comprehension (Name x Store) (Name y) [] 0)]) (Constant 1)] [])))");
  CHECK_STR(unit_parse("f(x for x in y)(1)"),
            "(Module (Expr (Call (Call (Name f) [(GeneratorExp (Name x) [(comprehension (Name x Store) (Name y) [] 0)])] []) [(Constant 1)] [])))");
  CHECK_STR(unit_parse("f(1, (x for x in y))"),
            "(Module (Expr (Call (Name f) [(Constant 1) (GeneratorExp (Name x) [(comprehension (Name x Store) (Name y) [] 0)])] [])))");
}

static void test_call_argument_errors_1(void) {
  CHECK_STR(unit_parse("f(x for x in y, 1)"),
            "<test>:1:3: error: Generator expression must be parenthesized");
  CHECK_STR(unit_parse("f(1, x for x in y)"),
            "<test>:1:6: error: Generator expression must be parenthesized");
  CHECK_STR(unit_parse("f(x for x in y,)"),
            "<test>:1:3: error: Generator expression must be parenthesized");
  CHECK_STR(unit_parse("f(a=1, x for x in y)"),
            "<test>:1:8: error: Generator expression must be parenthesized");
  CHECK_STR(unit_parse("f(**a, *b)"),
            "<test>:1:8: error: iterable argument unpacking follows keyword argument unpacking");
  CHECK_STR(unit_parse("f(a=1, b)"),
            "<test>:1:8: error: positional argument follows keyword argument");
  CHECK_STR(unit_parse("f(**a, b)"),
            "<test>:1:8: error: positional argument follows keyword argument unpacking");
}

static void test_call_argument_errors_2(void) {
  CHECK_STR(unit_parse("f(**a, e=1, *b)"),
            "<test>:1:13: error: iterable argument unpacking follows keyword argument unpacking");
  CHECK_STR(unit_parse("f(a.b=1)"),
            "<test>:1:3: error: expression cannot contain assignment, perhaps you meant \"==\"?");
  CHECK_STR(unit_parse("f((a)=1)"),
            "<test>:1:4: error: expression cannot contain assignment, perhaps you meant \"==\"?");
  CHECK_STR(unit_parse("f(True=1)"),
            "<test>:1:3: error: cannot assign to True");
  CHECK_STR(unit_parse("f(None=1)"),
            "<test>:1:3: error: cannot assign to None");
  CHECK_STR(unit_parse("f(a=b := 1)"),
            "<test>:1:7: error: invalid syntax at ':='");
  CHECK_STR(unit_parse("f(*)"),
            "<test>:1:4: error: invalid syntax at ')'");
}

static void test_call_argument_errors_3(void) {
  CHECK_STR(unit_parse("f(**)"),
            "<test>:1:5: error: invalid syntax at ')'");
  CHECK_STR(unit_parse("f(,)"),
            "<test>:1:3: error: invalid syntax at ','");
  CHECK_STR(unit_parse("f(a,,b)"),
            "<test>:1:5: error: invalid syntax at ','");
  CHECK_STR(unit_parse("f(if=1)"),
            "<test>:1:3: error: invalid syntax at 'if'");
}

static void test_tuples(void) {
  CHECK_STR(unit_parse("()"),
            "(Module (Expr (Tuple [])))");
  CHECK_STR(unit_parse("(1,)"),
            "(Module (Expr (Tuple [(Constant 1)])))");
  CHECK_STR(unit_parse("(1, 2)"),
            "(Module (Expr (Tuple [(Constant 1) (Constant 2)])))");
  CHECK_STR(unit_parse("x = 1, 2"),
            "(Module (Assign (Name x Store) (Tuple [(Constant 1) (Constant 2)])))");
  CHECK_STR(unit_parse("x = 1,"),
            "(Module (Assign (Name x Store) (Tuple [(Constant 1)])))");
  CHECK_STR(unit_parse("(1, 2,)"),
            "(Module (Expr (Tuple [(Constant 1) (Constant 2)])))");
  CHECK_STR(unit_parse("((a, b), c)"),
            "(Module (Expr (Tuple [(Tuple [(Name a) (Name b)]) (Name c)])))");
  CHECK_STR(unit_parse("x = (yield)"),
            "(Module (Assign (Name x Store) (Yield -)))");
}

static void test_lists(void) {
  CHECK_STR(unit_parse("[]"),
            "(Module (Expr (List [])))");
  CHECK_STR(unit_parse("[1]"),
            "(Module (Expr (List [(Constant 1)])))");
  CHECK_STR(unit_parse("[1, 2,]"),
            "(Module (Expr (List [(Constant 1) (Constant 2)])))");
  CHECK_STR(unit_parse("[*a, b]"),
            "(Module (Expr (List [(Starred (Name a)) (Name b)])))");
  CHECK_STR(unit_parse("[[a], [b, c]]"),
            "(Module (Expr (List [(List [(Name a)]) (List [(Name b) (Name c)])])))");
}

static void test_dicts(void) {
  CHECK_STR(unit_parse("{}"),
            "(Module (Expr (Dict [] [])))");
  CHECK_STR(unit_parse("{1: 2}"),
            "(Module (Expr (Dict [(Constant 1)] [(Constant 2)])))");
  CHECK_STR(unit_parse("{**a, 'b': c}"),
            "(Module (Expr (Dict [- (Constant 'b')] [(Name a) (Name c)])))");
  CHECK_STR(unit_parse("{1: 2, **a,}"),
            "(Module (Expr (Dict [(Constant 1) -] [(Constant 2) (Name a)])))");
  CHECK_STR(unit_parse("{a: b for a, b in c}"),
            "(Module (Expr (DictComp (Name a) (Name b) [(comprehension (Tuple [(Name a Store) (Name b Store)] Store) (Name c) [] 0)])))");
  CHECK_STR(unit_parse("{1: 2, 3: 4}"),
            "(Module (Expr (Dict [(Constant 1) (Constant 3)] [(Constant 2) (Constant 4)])))");
  CHECK_STR(unit_parse("{**a, **b}"),
            "(Module (Expr (Dict [- -] [(Name a) (Name b)])))");
  CHECK_STR(unit_parse("{a: (yield)}"),
            "(Module (Expr (Dict [(Name a)] [(Yield -)])))");
}

static void test_sets(void) {
  CHECK_STR(unit_parse("{1}"),
            "(Module (Expr (Set [(Constant 1)])))");
  CHECK_STR(unit_parse("{1, 2,}"),
            "(Module (Expr (Set [(Constant 1) (Constant 2)])))");
  CHECK_STR(unit_parse("{*a, b}"),
            "(Module (Expr (Set [(Starred (Name a)) (Name b)])))");
  CHECK_STR(unit_parse("{x := 1}"),
            "(Module (Expr (Set [(NamedExpr (Name x Store) (Constant 1))])))");
  CHECK_STR(unit_parse("{a for a in b}"),
            "(Module (Expr (SetComp (Name a) [(comprehension (Name a Store) (Name b) [] 0)])))");
}

static void test_display_errors_1(void) {
  CHECK_STR(unit_parse("{**a, 1}"),
            "<test>:1:7: error: ':' expected after dictionary key");
  CHECK_STR(unit_parse("{1, **a}"),
            "<test>:1:5: error: invalid syntax at '**'");
  CHECK_STR(unit_parse("{1: *a}"),
            "<test>:1:5: error: cannot use a starred expression in a dictionary value");
  CHECK_STR(unit_parse("{*a: 1}"),
            "<test>:1:4: error: invalid syntax at ':'");
  CHECK_STR(unit_parse("{**a for a in b}"),
            "<test>:1:2: error: dict unpacking cannot be used in dict comprehension");
  CHECK_STR(unit_parse("(**a)"),
            "<test>:1:2: error: cannot use double starred expression here");
  CHECK_STR(unit_parse("(*a)"),
            "<test>:1:2: error: cannot use starred expression here");
}

static void test_display_errors_2(void) {
  CHECK_STR(unit_parse("x = (*a)"),
            "<test>:1:6: error: cannot use starred expression here");
  CHECK_STR(unit_parse("[yield]"),
            "<test>:1:2: error: invalid syntax at 'yield'");
  CHECK_STR(unit_parse("(,)"),
            "<test>:1:2: error: invalid syntax at ','");
  CHECK_STR(unit_parse("[,]"),
            "<test>:1:2: error: invalid syntax at ','");
  CHECK_STR(unit_parse("{1: 2, 3}"),
            "<test>:1:8: error: ':' expected after dictionary key");
  CHECK_STR(unit_parse("{1: **a}"),
            "<test>:1:5: error: invalid syntax at '**'");
}

static void test_comprehensions_1(void) {
  CHECK_STR(unit_parse("[x for x in y]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Name x Store) (Name y) [] 0)])))");
  CHECK_STR(unit_parse("{x for x in y}"),
            "(Module (Expr (SetComp (Name x) [(comprehension (Name x Store) (Name y) [] 0)])))");
  CHECK_STR(unit_parse("{k: v for k, v in y}"),
            "(Module (Expr (DictComp (Name k) (Name v) [(comprehension (Tuple [(Name k Store) (Name v Store)] Store) (Name y) [] 0)])))");
  CHECK_STR(unit_parse("(x for x in y)"),
            "(Module (Expr (GeneratorExp (Name x) [(comprehension (Name x Store) (Name y) [] 0)])))");
  CHECK_STR(unit_parse("[x for x in y for z in x]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Name x Store) (Name y) [] 0) (comprehension (Name z Store) (Name x) [] 0)])))");
  CHECK_STR(unit_parse("[x for x in y if a if b]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Name x Store) (Name y) [(Name a) (Name b)] 0)])))");
  CHECK_STR(unit_parse("[x async for x in y]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Name x Store) (Name y) [] 1)])))");
}

static void test_comprehensions_2(void) {
  CHECK_STR(unit_parse("[x for x in y async for z in x]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Name x Store) (Name y) [] 0) (comprehension (Name z Store) (Name x) [] 1)])))");
  CHECK_STR(unit_parse("[[y for y in x] for x in z]"),
            "(Module (Expr (ListComp (ListComp (Name y) [(comprehension (Name y Store) (Name x) [] 0)]) [(comprehension (Name x Store) (Name z) [] 0)])))");
  CHECK_STR(unit_parse("[x for x in a or b]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Name x Store) (BoolOp Or [(Name a) (Name b)]) [] 0)])))");
  CHECK_STR(unit_parse("[x for x in y if not z]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Name x Store) (Name y) [(UnaryOp Not (Name z))] 0)])))");
  CHECK_STR(unit_parse("[x if c else d for x in y]"),
            "(Module (Expr (ListComp (IfExp (Name c) (Name x) (Name d)) [(comprehension (Name x Store) (Name y) [] 0)])))");
  CHECK_STR(unit_parse("[(yield) for x in y]"),
            "(Module (Expr (ListComp (Yield -) [(comprehension (Name x Store) (Name y) [] 0)])))");
}

static void test_comprehension_targets(void) {
  CHECK_STR(unit_parse("[x for x, in z]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Tuple [(Name x Store)] Store) (Name z) [] 0)])))");
  CHECK_STR(unit_parse("[x for x, y in z]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Tuple [(Name x Store) (Name y Store)] Store) (Name z) [] 0)])))");
  CHECK_STR(unit_parse("[x for (x, y) in z]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Tuple [(Name x Store) (Name y Store)] Store) (Name z) [] 0)])))");
  CHECK_STR(unit_parse("[x for [x, *y] in z]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (List [(Name x Store) (Starred (Name y Store) Store)] Store) (Name z) [] 0)])))");
  CHECK_STR(unit_parse("[x for a.b in c]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Attribute (Name a) b Store) (Name c) [] 0)])))");
  CHECK_STR(unit_parse("[x for a[0] in b]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Subscript (Name a) (Constant 0) Store) (Name b) [] 0)])))");
  CHECK_STR(unit_parse("[x for *x, in a]"),
            "(Module (Expr (ListComp (Name x) [(comprehension (Tuple [(Starred (Name x Store) Store)] Store) (Name a) [] 0)])))");
}

static void test_comprehension_errors_1(void) {
  CHECK_STR(unit_parse("[*a for a in b]"),
            "<test>:1:2: error: iterable unpacking cannot be used in comprehension");
  CHECK_STR(unit_parse("{*a for a in b}"),
            "<test>:1:2: error: iterable unpacking cannot be used in comprehension");
  CHECK_STR(unit_parse("(*a for a in b)"),
            "<test>:1:2: error: iterable unpacking cannot be used in comprehension");
  CHECK_STR(unit_parse("[a, b for a, b in c]"),
            "<test>:1:2: error: did you forget parentheses around the comprehension target?");
  CHECK_STR(unit_parse("{a, b for a, b in c}"),
            "<test>:1:2: error: did you forget parentheses around the comprehension target?");
  CHECK_STR(unit_parse("[x for f() in y]"),
            "<test>:1:8: error: cannot assign to function call");
  CHECK_STR(unit_parse("[x for a + b in y]"),
            "<test>:1:8: error: cannot assign to expression");
}

static void test_comprehension_errors_2(void) {
  CHECK_STR(unit_parse("[x for x in *a]"),
            "<test>:1:13: error: invalid syntax at '*'");
  CHECK_STR(unit_parse("[x for x in lambda: y]"),
            "<test>:1:13: error: invalid syntax at 'lambda'");
  CHECK_STR(unit_parse("[x for x in y if lambda: z]"),
            "<test>:1:18: error: invalid syntax at 'lambda'");
  CHECK_STR(unit_parse("[x for x y]"),
            "<test>:1:10: error: expected 'in'");
  CHECK_STR(unit_parse("[x async x in y]"),
            "<test>:1:10: error: expected 'for'");
}

static void test_lambda_parameters_1(void) {
  CHECK_STR(unit_parse("lambda: 0"),
            "(Module (Expr (Lambda (arguments) (Constant 0))))");
  CHECK_STR(unit_parse("lambda a: 0"),
            "(Module (Expr (Lambda (arguments args=[(arg a)]) (Constant 0))))");
  CHECK_STR(unit_parse("lambda a, b=1: 0"),
            "(Module (Expr (Lambda (arguments args=[(arg a) (arg b)] defaults=[(Constant 1)]) (Constant 0))))");
  CHECK_STR(unit_parse("lambda *a, **k: 0"),
            "(Module (Expr (Lambda (arguments vararg=(arg a) kwarg=(arg k)) (Constant 0))))");
  CHECK_STR(unit_parse("lambda a, /, b, *, c, d=1, **e: 0"),
            "(Module (Expr (Lambda (arguments posonly=[(arg a)] args=[(arg b)] kwonly=[(arg c) (arg d)] kw_defaults=[- (Constant 1)] kwarg=(arg e)) (Constant 0))))");
  CHECK_STR(unit_parse("lambda *, a: 0"),
            "(Module (Expr (Lambda (arguments kwonly=[(arg a)] kw_defaults=[-]) (Constant 0))))");
  CHECK_STR(unit_parse("lambda a=1, /, b=2: 0"),
            "(Module (Expr (Lambda (arguments posonly=[(arg a)] args=[(arg b)] defaults=[(Constant 1) (Constant 2)]) (Constant 0))))");
}

static void test_lambda_parameters_2(void) {
  CHECK_STR(unit_parse("lambda a, *b, : 0"),
            "(Module (Expr (Lambda (arguments args=[(arg a)] vararg=(arg b)) (Constant 0))))");
  CHECK_STR(unit_parse("lambda a, **b, : 0"),
            "(Module (Expr (Lambda (arguments args=[(arg a)] kwarg=(arg b)) (Constant 0))))");
  CHECK_STR(unit_parse("lambda: (yield)"),
            "(Module (Expr (Lambda (arguments) (Yield -))))");
  CHECK_STR(unit_parse("lambda x: lambda y: x + y"),
            "(Module (Expr (Lambda (arguments args=[(arg x)]) (Lambda (arguments args=[(arg y)]) (BinOp (Name x) Add (Name y))))))");
}

static void test_lambda_parameter_errors_1(void) {
  CHECK_STR(unit_parse("lambda a=1, b: 0"),
            "<test>:1:13: error: parameter without a default follows parameter with a default");
  CHECK_STR(unit_parse("lambda *: 0"),
            "<test>:1:8: error: named arguments must follow bare *");
  CHECK_STR(unit_parse("lambda *, : 0"),
            "<test>:1:8: error: named arguments must follow bare *");
  CHECK_STR(unit_parse("lambda **a, b: 0"),
            "<test>:1:13: error: arguments cannot follow var-keyword argument");
  CHECK_STR(unit_parse("lambda /: 0"),
            "<test>:1:8: error: invalid syntax");
  CHECK_STR(unit_parse("lambda /, a: 0"),
            "<test>:1:8: error: at least one argument must precede /");
  CHECK_STR(unit_parse("lambda a, /, /: 0"),
            "<test>:1:14: error: / may appear only once");
}

static void test_lambda_parameter_errors_2(void) {
  CHECK_STR(unit_parse("lambda *a, /: 0"),
            "<test>:1:12: error: / must be ahead of *");
  CHECK_STR(unit_parse("lambda *a, *b: 0"),
            "<test>:1:12: error: * argument may appear only once");
  CHECK_STR(unit_parse("lambda *a=1: 0"),
            "<test>:1:10: error: var-positional argument cannot have default value");
  CHECK_STR(unit_parse("lambda **a=1: 0"),
            "<test>:1:11: error: var-keyword argument cannot have default value");
  CHECK_STR(unit_parse("lambda a, (b): 0"),
            "<test>:1:11: error: Lambda expression parameters cannot be parenthesized");
  CHECK_STR(unit_parse("lambda a: int: 0"),
            "<test>:1:1: error: illegal target for annotation");
  CHECK_STR(unit_parse("lambda x=yield: 0"),
            "<test>:1:10: error: invalid syntax at 'yield'");
}

static void test_def_parameters(void) {
  CHECK_STR(unit_parse("def f(a: int, b: str = 'x', /, c=1, *args: int, d, e: int = 2, **kw: dict) -> None: pass"),
            "(Module (FunctionDef f (arguments posonly=[(arg a (Name int)) (arg b (Name str))] args=[(arg c)] vararg=(arg args (Name int)) kwonly=[(arg d) (arg e (Name int))] kw_defaults=[- (Constant 2)] kwarg=(arg kw (Name dict)) defaults=[(Constant 'x') (Constant 1)]) [(Pass)] [] (Constant None)))");
  CHECK_STR(unit_parse("def f(*args: *Ts): pass"),
            "(Module (FunctionDef f (arguments vararg=(arg args (Starred (Name Ts)))) [(Pass)] [] -))");
  CHECK_STR(unit_parse("def f(a, a): pass"),
            "(Module (FunctionDef f (arguments args=[(arg a) (arg a)]) [(Pass)] [] -))");
  CHECK_STR(unit_parse("def f(*, a=1, b): pass"),
            "(Module (FunctionDef f (arguments kwonly=[(arg a) (arg b)] kw_defaults=[(Constant 1) -]) [(Pass)] [] -))");
  CHECK_STR(unit_parse("def f(a, /): pass"),
            "(Module (FunctionDef f (arguments posonly=[(arg a)]) [(Pass)] [] -))");
  CHECK_STR(unit_parse("def f(**kw,): pass"),
            "(Module (FunctionDef f (arguments kwarg=(arg kw)) [(Pass)] [] -))");
}

static void test_def_parameter_errors_1(void) {
  CHECK_STR(unit_parse("def f(a, b=1, /, c): pass"),
            "<test>:1:18: error: parameter without a default follows parameter with a default");
  CHECK_STR(unit_parse("def f(a=1, b): pass"),
            "<test>:1:12: error: parameter without a default follows parameter with a default");
  CHECK_STR(unit_parse("def f(*, **k): pass"),
            "<test>:1:7: error: named arguments must follow bare *");
  CHECK_STR(unit_parse("def f(a, *): pass"),
            "<test>:1:10: error: named arguments must follow bare *");
  CHECK_STR(unit_parse("def f(**k, a): pass"),
            "<test>:1:12: error: arguments cannot follow var-keyword argument");
  CHECK_STR(unit_parse("def f(*a, *b): pass"),
            "<test>:1:11: error: * argument may appear only once");
  CHECK_STR(unit_parse("def f(*a=1): pass"),
            "<test>:1:9: error: var-positional argument cannot have default value");
}

static void test_def_parameter_errors_2(void) {
  CHECK_STR(unit_parse("def f(**a=1): pass"),
            "<test>:1:10: error: var-keyword argument cannot have default value");
  CHECK_STR(unit_parse("def f(/): pass"),
            "<test>:1:7: error: invalid syntax");
  CHECK_STR(unit_parse("def f(/, a): pass"),
            "<test>:1:7: error: at least one argument must precede /");
  CHECK_STR(unit_parse("def f(a, /, b, /): pass"),
            "<test>:1:16: error: / may appear only once");
  CHECK_STR(unit_parse("def f(*a, /): pass"),
            "<test>:1:11: error: / must be ahead of *");
  CHECK_STR(unit_parse("def f(a, (b)): pass"),
            "<test>:1:10: error: Function parameters cannot be parenthesized");
  CHECK_STR(unit_parse("def f(**a: *b): pass"),
            "<test>:1:12: error: invalid syntax at '*'");
}

static void test_def_parameter_errors_3(void) {
  CHECK_STR(unit_parse("def f(a: *b): pass"),
            "<test>:1:10: error: invalid syntax at '*'");
}

static void test_yield_and_await_1(void) {
  CHECK_STR(unit_parse("def f(): yield"),
            "(Module (FunctionDef f (arguments) [(Expr (Yield -))] [] -))");
  CHECK_STR(unit_parse("def f(): yield x"),
            "(Module (FunctionDef f (arguments) [(Expr (Yield (Name x)))] [] -))");
  CHECK_STR(unit_parse("def f(): yield x, y"),
            "(Module (FunctionDef f (arguments) [(Expr (Yield (Tuple [(Name x) (Name y)])))] [] -))");
  CHECK_STR(unit_parse("def f(): yield *a, b"),
            "(Module (FunctionDef f (arguments) [(Expr (Yield (Tuple [(Starred (Name a)) (Name b)])))] [] -))");
  CHECK_STR(unit_parse("def f(): yield from x"),
            "(Module (FunctionDef f (arguments) [(Expr (YieldFrom (Name x)))] [] -))");
  CHECK_STR(unit_parse("def f(): x = yield"),
            "(Module (FunctionDef f (arguments) [(Assign (Name x Store) (Yield -))] [] -))");
  CHECK_STR(unit_parse("def f(): x = yield from y"),
            "(Module (FunctionDef f (arguments) [(Assign (Name x Store) (YieldFrom (Name y)))] [] -))");
}

static void test_yield_and_await_2(void) {
  CHECK_STR(unit_parse("def f(): return (yield)"),
            "(Module (FunctionDef f (arguments) [(Return (Yield -))] [] -))");
  CHECK_STR(unit_parse("async def f(): await x"),
            "(Module (AsyncFunctionDef f (arguments) [(Expr (Await (Name x)))] [] -))");
  CHECK_STR(unit_parse("async def f(): return await x.y()"),
            "(Module (AsyncFunctionDef f (arguments) [(Return (Await (Call (Attribute (Name x) y) [] [])))] [] -))");
  CHECK_STR(unit_parse("async def f(): [await x for x in y]"),
            "(Module (AsyncFunctionDef f (arguments) [(Expr (ListComp (Await (Name x)) [(comprehension (Name x Store) (Name y) [] 0)]))] [] -))");
}

static void test_yield_and_await_errors(void) {
  CHECK_STR(unit_parse("await"),
            "<test>:1:6: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("await await x"),
            "<test>:1:7: error: invalid syntax at 'await'");
  CHECK_STR(unit_parse("def f(): yield from"),
            "<test>:1:20: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("def f(): x = yield = 1"),
            "<test>:1:14: error: assignment to yield expression not possible");
}

static void test_starred_expressions_1(void) {
  CHECK_STR(unit_parse("*a, b = c"),
            "(Module (Assign (Tuple [(Starred (Name a Store) Store) (Name b Store)] Store) (Name c)))");
  CHECK_STR(unit_parse("a = *b, c"),
            "(Module (Assign (Name a Store) (Tuple [(Starred (Name b)) (Name c)])))");
  CHECK_STR(unit_parse("def f(): return *a, b"),
            "(Module (FunctionDef f (arguments) [(Return (Tuple [(Starred (Name a)) (Name b)]))] [] -))");
  CHECK_STR(unit_parse("for x in *a, *b: pass"),
            "(Module (For (Name x Store) (Tuple [(Starred (Name a)) (Starred (Name b))]) [(Pass)] []))");
  CHECK_STR(unit_parse("*a"),
            "(Module (Expr (Starred (Name a))))");
  CHECK_STR(unit_parse("x = *a"),
            "(Module (Assign (Name x Store) (Starred (Name a))))");
  CHECK_STR(unit_parse("print(*a, *b)"),
            "(Module (Expr (Call (Name print) [(Starred (Name a)) (Starred (Name b))] [])))");
}

static void test_starred_expressions_2(void) {
  CHECK_STR(unit_parse("[*a, *b]"),
            "(Module (Expr (List [(Starred (Name a)) (Starred (Name b))])))");
  CHECK_STR(unit_parse("a[*b] = c"),
            "(Module (Assign (Subscript (Name a) (Tuple [(Starred (Name b))]) Store) (Name c)))");
}

static void test_assignment_targets_1(void) {
  CHECK_STR(unit_parse("a = 1"),
            "(Module (Assign (Name a Store) (Constant 1)))");
  CHECK_STR(unit_parse("a, b = 1"),
            "(Module (Assign (Tuple [(Name a Store) (Name b Store)] Store) (Constant 1)))");
  CHECK_STR(unit_parse("(a, b) = 1"),
            "(Module (Assign (Tuple [(Name a Store) (Name b Store)] Store) (Constant 1)))");
  CHECK_STR(unit_parse("[a, *b] = 1"),
            "(Module (Assign (List [(Name a Store) (Starred (Name b Store) Store)] Store) (Constant 1)))");
  CHECK_STR(unit_parse("a.b = 1"),
            "(Module (Assign (Attribute (Name a) b Store) (Constant 1)))");
  CHECK_STR(unit_parse("a[1] = 1"),
            "(Module (Assign (Subscript (Name a) (Constant 1) Store) (Constant 1)))");
  CHECK_STR(unit_parse("a[1:2] = 1"),
            "(Module (Assign (Subscript (Name a) (Slice (Constant 1) (Constant 2) -) Store) (Constant 1)))");
}

static void test_assignment_targets_2(void) {
  CHECK_STR(unit_parse("a = b = c"),
            "(Module (Assign (Name a Store) (Name b Store) (Name c)))");
  CHECK_STR(unit_parse("() = x"),
            "(Module (Assign (Tuple [] Store) (Name x)))");
  CHECK_STR(unit_parse("[] = x"),
            "(Module (Assign (List [] Store) (Name x)))");
  CHECK_STR(unit_parse("(a) = 1"),
            "(Module (Assign (Name a Store) (Constant 1)))");
  CHECK_STR(unit_parse("((a, b), [c, d]) = x"),
            "(Module (Assign (Tuple [(Tuple [(Name a Store) (Name b Store)] Store) (List [(Name c Store) (Name d Store)] Store)] Store) (Name x)))");
  CHECK_STR(unit_parse("for a, (b, c) in d: pass"),
            "(Module (For (Tuple [(Name a Store) (Tuple [(Name b Store) (Name c Store)] Store)] Store) (Name d) [(Pass)] []))");
  CHECK_STR(unit_parse("with a as (b, c): pass"),
            "(Module (With [(withitem (Name a) (Tuple [(Name b Store) (Name c Store)] Store))] [(Pass)]))");
}

static void test_delete_targets(void) {
  CHECK_STR(unit_parse("del a"),
            "(Module (Delete [(Name a Del)]))");
  CHECK_STR(unit_parse("del a, b,"),
            "(Module (Delete [(Name a Del) (Name b Del)]))");
  CHECK_STR(unit_parse("del (a), [b]"),
            "(Module (Delete [(Name a Del) (List [(Name b Del)] Del)]))");
  CHECK_STR(unit_parse("del a.b, a[1]"),
            "(Module (Delete [(Attribute (Name a) b Del) (Subscript (Name a) (Constant 1) Del)]))");
  CHECK_STR(unit_parse("del (a, b)"),
            "(Module (Delete [(Tuple [(Name a Del) (Name b Del)] Del)]))");
  CHECK_STR(unit_parse("del [a, [b]]"),
            "(Module (Delete [(List [(Name a Del) (List [(Name b Del)] Del)] Del)]))");
}

static void test_assignment_target_errors_1(void) {
  CHECK_STR(unit_parse("f() = 1"),
            "<test>:1:1: error: cannot assign to function call here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("f() = 1 = 2"),
            "<test>:1:1: error: cannot assign to function call");
  CHECK_STR(unit_parse("f() = a, b"),
            "<test>:1:1: error: cannot assign to function call here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("f() = yield x"),
            "<test>:1:1: error: cannot assign to function call");
  CHECK_STR(unit_parse("(a, f()) = 1"),
            "<test>:1:5: error: cannot assign to function call");
  CHECK_STR(unit_parse("1 = x"),
            "<test>:1:1: error: cannot assign to literal here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("True = 1"),
            "<test>:1:1: error: cannot assign to True");
}

static void test_assignment_target_errors_2(void) {
  CHECK_STR(unit_parse("(True) = 1"),
            "<test>:1:2: error: cannot assign to True here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("a + b = 1"),
            "<test>:1:1: error: cannot assign to expression here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("-a = 1"),
            "<test>:1:1: error: cannot assign to expression here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("... = 1"),
            "<test>:1:1: error: cannot assign to ellipsis here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("'a' = 1"),
            "<test>:1:1: error: cannot assign to literal here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("f'{a}' = 1"),
            "<test>:1:1: error: cannot assign to f-string expression here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("(lambda: 1) = 2"),
            "<test>:1:2: error: cannot assign to lambda here. Maybe you meant '==' instead of '='?");
}

static void test_assignment_target_errors_3(void) {
  CHECK_STR(unit_parse("x if y else z = 1"),
            "<test>:1:1: error: cannot assign to conditional expression");
  CHECK_STR(unit_parse("a < b = 1"),
            "<test>:1:1: error: cannot assign to comparison");
  CHECK_STR(unit_parse("a and b = 1"),
            "<test>:1:1: error: cannot assign to expression");
  CHECK_STR(unit_parse("not a = 1"),
            "<test>:1:1: error: cannot assign to expression");
  CHECK_STR(unit_parse("await x = 1"),
            "<test>:1:1: error: cannot assign to await expression here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("(yield x) = 1"),
            "<test>:1:2: error: cannot assign to yield expression here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("x = yield = 1"),
            "<test>:1:5: error: assignment to yield expression not possible");
}

static void test_assignment_target_errors_4(void) {
  CHECK_STR(unit_parse("[x for x in y] = 1"),
            "<test>:1:1: error: cannot assign to list comprehension here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("x = [a for a in b] = 1"),
            "<test>:1:5: error: cannot assign to list comprehension");
  CHECK_STR(unit_parse("a, b = 1 = 2"),
            "<test>:1:8: error: cannot assign to literal");
  CHECK_STR(unit_parse("(x for x in y) = 1"),
            "<test>:1:1: error: cannot assign to generator expression");
  CHECK_STR(unit_parse("{a: b} = c"),
            "<test>:1:1: error: cannot assign to dict literal here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("{a} = c"),
            "<test>:1:1: error: cannot assign to set display here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("a, b + 1 = c"),
            "<test>:1:4: error: cannot assign to expression here. Maybe you meant '==' instead of '='?");
}

static void test_assignment_target_errors_5(void) {
  CHECK_STR(unit_parse("[a, 1] = c"),
            "<test>:1:5: error: cannot assign to literal");
  CHECK_STR(unit_parse("if x: f() = 1"),
            "<test>:1:7: error: cannot assign to function call here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("1, foo = bar"),
            "<test>:1:4: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  CHECK_STR(unit_parse("f(), a.b = c"),
            "<test>:1:6: error: cannot assign to attribute here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("1, foo = bar = baz"),
            "<test>:1:1: error: cannot assign to literal");
  CHECK_STR(unit_parse("for f() in x: pass"),
            "<test>:1:5: error: cannot assign to function call");
  CHECK_STR(unit_parse("for a + b in c: pass"),
            "<test>:1:5: error: cannot assign to expression");
}

static void test_assignment_target_errors_6(void) {
  CHECK_STR(unit_parse("with a as f(): pass"),
            "<test>:1:11: error: cannot assign to function call");
}

static void test_delete_target_errors(void) {
  CHECK_STR(unit_parse("del f()"),
            "<test>:1:5: error: cannot delete function call");
  CHECK_STR(unit_parse("del a + b"),
            "<test>:1:5: error: cannot delete expression");
  CHECK_STR(unit_parse("del *a"),
            "<test>:1:5: error: cannot delete starred");
  CHECK_STR(unit_parse("del (*a,)"),
            "<test>:1:6: error: cannot delete starred");
  CHECK_STR(unit_parse("del [a, *b]"),
            "<test>:1:9: error: cannot delete starred");
  CHECK_STR(unit_parse("del (a for a in b)"),
            "<test>:1:5: error: cannot delete generator expression");
  CHECK_STR(unit_parse("del 1"),
            "<test>:1:5: error: cannot delete literal");
  CHECK_STR(unit_parse("del a, f()"),
            "<test>:1:8: error: cannot delete function call");
}

static void test_augmented_assignment_targets(void) {
  CHECK_STR(unit_parse("a += 1"),
            "(Module (AugAssign (Name a Store) Add (Constant 1)))");
  CHECK_STR(unit_parse("(a) -= 1"),
            "(Module (AugAssign (Name a Store) Sub (Constant 1)))");
  CHECK_STR(unit_parse("a.b *= 1"),
            "(Module (AugAssign (Attribute (Name a) b Store) Mult (Constant 1)))");
  CHECK_STR(unit_parse("a[1] //= 2"),
            "(Module (AugAssign (Subscript (Name a) (Constant 1) Store) FloorDiv (Constant 2)))");
  CHECK_STR(unit_parse("(a, b) += 1"),
            "<test>:1:1: error: 'tuple' is an illegal expression for augmented assignment");
  CHECK_STR(unit_parse("f() += 1"),
            "<test>:1:1: error: 'function call' is an illegal expression for augmented assignment");
  CHECK_STR(unit_parse("[a] += 1"),
            "<test>:1:1: error: 'list' is an illegal expression for augmented assignment");
  CHECK_STR(unit_parse("a, b += 1"),
            "<test>:1:1: error: 'tuple' is an illegal expression for augmented assignment");
}

static void test_likely_comparison_errors_1(void) {
  CHECK_STR(unit_parse("if x = 1: pass"),
            "<test>:1:4: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  CHECK_STR(unit_parse("if x.y = 1: pass"),
            "<test>:1:4: error: cannot assign to attribute here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("if (x) = 1: pass"),
            "<test>:1:5: error: cannot assign to name here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("while x = 1: pass"),
            "<test>:1:7: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  CHECK_STR(unit_parse("[x=1]"),
            "<test>:1:2: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  CHECK_STR(unit_parse("a[x=1]"),
            "<test>:1:3: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  CHECK_STR(unit_parse("{x=1}"),
            "<test>:1:2: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
}

static void test_likely_comparison_errors_2(void) {
  CHECK_STR(unit_parse("(0, 0, tz=utc)"),
            "<test>:1:8: error: invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  CHECK_STR(unit_parse("f(a, x.y=1)"),
            "<test>:1:6: error: expression cannot contain assignment, perhaps you meant \"==\"?");
}

static void test_forgotten_comma(void) {
  CHECK_STR(unit_parse("(a b)"),
            "<test>:1:2: error: invalid syntax. Perhaps you forgot a comma?");
  CHECK_STR(unit_parse("[a 1]"),
            "<test>:1:2: error: invalid syntax. Perhaps you forgot a comma?");
  CHECK_STR(unit_parse("{a b}"),
            "<test>:1:2: error: invalid syntax. Perhaps you forgot a comma?");
  CHECK_STR(unit_parse("f(a b)"),
            "<test>:1:3: error: invalid syntax. Perhaps you forgot a comma?");
  CHECK_STR(unit_parse("f(a, b c)"),
            "<test>:1:6: error: invalid syntax. Perhaps you forgot a comma?");
  CHECK_STR(unit_parse("[x 'y']"),
            "<test>:1:4: error: invalid syntax at ''y''");
  CHECK_STR(unit_parse("(i[3-6]86|x86)"),
            "<test>:1:2: error: invalid syntax. Perhaps you forgot a comma?");
}

static void test_keywords_where_expressions_go(void) {
  CHECK_STR(unit_parse("x = if"),
            "<test>:1:5: error: invalid syntax at 'if'");
  CHECK_STR(unit_parse("x = class"),
            "<test>:1:5: error: invalid syntax at 'class'");
  CHECK_STR(unit_parse("x = def"),
            "<test>:1:5: error: invalid syntax at 'def'");
  CHECK_STR(unit_parse("a + import"),
            "<test>:1:5: error: invalid syntax at 'import'");
  CHECK_STR(unit_parse("f(pass)"),
            "<test>:1:3: error: invalid syntax at 'pass'");
  CHECK_STR(unit_parse("x = (yield from)"),
            "<test>:1:16: error: invalid syntax at ')'");
}

static void test_parenthesized_yield(void) {
  CHECK_STR(unit_parse("(yield)"),
            "(Module (Expr (Yield -)))");
  CHECK_STR(unit_parse("(yield x)"),
            "(Module (Expr (Yield (Name x))))");
  CHECK_STR(unit_parse("x = (yield from y)"),
            "(Module (Assign (Name x Store) (YieldFrom (Name y))))");
  CHECK_STR(unit_parse("f((yield))"),
            "(Module (Expr (Call (Name f) [(Yield -)] [])))");
  CHECK_STR(unit_parse("lambda: (yield)"),
            "(Module (Expr (Lambda (arguments) (Yield -))))");
}

static void test_dump_of_statement_forms_1(void) {
  CHECK_STR(unit_parse("@d\nasync def f[T: int, *Ts, **P](a) -> r: pass"),
            "(Module (AsyncFunctionDef f (arguments args=[(arg a)]) [(Pass)] [(Name d)] (Name r) type_params=[(TypeVar T (Name int)) (TypeVarTuple Ts) (ParamSpec P)]))");
  CHECK_STR(unit_parse("class C[T](B, metaclass=M):\n    x: int = 1"),
            "(Module (ClassDef C [(Name B)] [(keyword metaclass (Name M))] [(AnnAssign (Name x Store) (Name int) (Constant 1) 1)] [] type_params=[(TypeVar T)]))");
  CHECK_STR(unit_parse("try:\n    pass\nexcept* E as e:\n    raise X from Y\nelse:\n    pass\nfinally:\n    pass"),
            "(Module (TryStar [(Pass)] [(ExceptHandler (Name E) e [(Raise (Name X) (Name Y))])] [(Pass)] [(Pass)]))");
  CHECK_STR(unit_parse("from ..a import b as c, d"),
            "(Module (ImportFrom a [(alias b c) (alias d)] 2))");
  CHECK_STR(unit_parse("import a.b as c, d"),
            "(Module (Import [(alias a.b c) (alias d)]))");
  CHECK_STR(unit_parse("def f():\n    global a, b\n    nonlocal c"),
            "(Module (FunctionDef f (arguments) [(Global a b) (Nonlocal c)] [] -))");
  CHECK_STR(unit_parse("type X[T] = list[T]"),
            "(Module (TypeAlias (Name X Store) [(TypeVar T)] (Subscript (Name list) (Name T))))");
}

static void test_dump_of_statement_forms_2(void) {
  CHECK_STR(unit_parse("async def f():\n    async with a as b, c: pass\n    async for x in y: continue\n    else: break"),
            "(Module (AsyncFunctionDef f (arguments) [(AsyncWith [(withitem (Name a) (Name b Store)) (withitem (Name c) -)] [(Pass)]) (AsyncFor (Name x Store) (Name y) [(Continue)] [(Break)])] [] -))");
  CHECK_STR(unit_parse("if a: pass\nelif b: pass\nelse: pass"),
            "(Module (If (Name a) [(Pass)] [(If (Name b) [(Pass)] [(Pass)])]))");
  CHECK_STR(unit_parse("assert x, 'msg'"),
            "(Module (Assert (Name x) (Constant 'msg')))");
  CHECK_STR(unit_parse("while 1:\n    x += 1"),
            "(Module (While (Constant 1) [(AugAssign (Name x Store) Add (Constant 1))] []))");
}

static void test_dump_of_pattern_forms(void) {
  CHECK_STR(unit_parse("match x:\n    case 1 | -2 | 3+4j: pass\n    case None: pass\n    case [a, *rest]: pass\n    case {'k': v, **kw}: pass\n    case P(a, b=c): pass\n    case (x as y) if y: pass\n    case _: pass\n    case [*_]: pass"),
            "(Module (Match (Name x) [(match_case (MatchOr [(MatchValue (Constant 1)) (MatchValue (UnaryOp USub (Constant 2))) (MatchValue (BinOp (Constant 3) Add (Constant 4j)))]) - [(Pass)]) (match_case (MatchSingleton None) - [(Pass)]) (match_case (MatchSequence [(MatchAs - a) (MatchStar rest)]) - [(Pass)]) (match_case (MatchMapping [(Constant 'k')] [(MatchAs - v)] kw) - [(Pass)]) (match_case (MatchClass (Name P) [(MatchAs - a)] [b] [(MatchAs - c)]) - [(Pass)]) (match_case (MatchAs (MatchAs - x) y) (Name y) [(Pass)]) (match_case (MatchAs - -) - [(Pass)]) (match_case (MatchSequence [(MatchStar -)]) - [(Pass)])]))");
}

/* ------------------------------------------------- trees looked at directly */

static void test_parenthesized_flag(void) {
  static const struct {
    const char *source;
    bool parenthesized;
  } cases[] = {
      {"a\n", false},        {"(a)\n", true},          {"((a))\n", true},
      {"a, b\n", false},     {"(a, b)\n", true},       {"()\n", true},
      {"[a]\n", false},      {"(x for x in y)\n", true}, {"(a + b)\n", true},
      {"x = (yield)\n", true}, {"x = yield\n", false}, {"'a' 'b'\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    UnitTree parsed = unit_parse_tree(cases[i].source);
    Node *value = first_expression(&parsed);
    CHECK(value != NULL);
    if (value && value->parenthesized != cases[i].parenthesized)
      fprintf(stderr, "  parenthesized wrong for %s", cases[i].source);
    CHECK(value && value->parenthesized == cases[i].parenthesized);
    unit_free_tree(&parsed);
  }
  /* The sole generator argument of a call has no parentheses of its own. */
  UnitTree call = unit_parse_tree("f(x for x in y)\n");
  Node *value = first_expression(&call);
  CHECK(value && value->kind == N_CALL && value->u.call.args.count == 1);
  if (value && value->kind == N_CALL && value->u.call.args.count == 1)
    CHECK(!value->u.call.args.items[0]->parenthesized);
  unit_free_tree(&call);
  /* (a + b) * c: the inner BinOp is parenthesized, the outer is not. */
  UnitTree product = unit_parse_tree("(a + b) * c\n");
  value = first_expression(&product);
  CHECK(value && value->kind == N_BIN_OP && !value->parenthesized);
  if (value && value->kind == N_BIN_OP)
    CHECK(value->u.bin_op.left->parenthesized && !value->u.bin_op.right->parenthesized);
  unit_free_tree(&product);
}

/* The columns [start, end) of a node on line 1. */
static bool has_columns(const Node *node, int start, int end) {
  return node && node->span.start.line == 1 && node->span.start.col == start && node->span.end.col == end;
}

static void test_spans(void) {
  UnitTree parsed = unit_parse_tree("(a) + b.c(d)[e]\n");
  Node *sum = first_expression(&parsed);
  CHECK(has_columns(sum, 0, 15));
  if (sum && sum->kind == N_BIN_OP) {
    CHECK(has_columns(sum->u.bin_op.left, 1, 2));
    Node *subscript = sum->u.bin_op.right;
    CHECK(has_columns(subscript, 6, 15));
    CHECK(subscript->kind == N_SUBSCRIPT && has_columns(subscript->u.subscript.value, 6, 12));
    CHECK(subscript->kind == N_SUBSCRIPT && has_columns(subscript->u.subscript.value->u.call.func, 6, 9));
  }
  unit_free_tree(&parsed);

  parsed = unit_parse_tree("f(x for x in y)\n"); /* the sole generator takes the call's parentheses */
  Node *call = first_expression(&parsed);
  CHECK(call && call->kind == N_CALL && has_columns(call->u.call.args.items[0], 1, 15));
  unit_free_tree(&parsed);

  parsed = unit_parse_tree("x = 1, 2\n");
  CHECK(has_columns(first_expression(&parsed), 4, 8));
  unit_free_tree(&parsed);

  parsed = unit_parse_tree("'a' f'{b!r}' 'c'\n");
  Node *string = first_expression(&parsed);
  CHECK(has_columns(string, 0, 16));
  if (string && string->kind == N_STRING && string->u.string.parts.count == 3) {
    Node *fstring = string->u.string.parts.items[1];
    CHECK(has_columns(fstring, 4, 12));
    CHECK(fstring->u.fstring.parts.count == 1 && has_columns(fstring->u.fstring.parts.items[0], 6, 11));
  }
  unit_free_tree(&parsed);

  parsed = unit_parse_tree("lambda: 0\n");
  Node *lambda = first_expression(&parsed);
  CHECK(lambda && lambda->kind == N_LAMBDA && has_columns(lambda, 0, 9));
  if (lambda && lambda->kind == N_LAMBDA) /* no parameters: an empty span at the ':' */
    CHECK(has_columns(lambda->u.lambda.args, 6, 6));
  unit_free_tree(&parsed);

  parsed = unit_parse_tree("a if b else c\nnot x\n");
  CHECK(has_columns(first_expression(&parsed), 0, 13));
  CHECK(parsed.module && parsed.module->u.module.body.items[1]->span.start.line == 2);
  unit_free_tree(&parsed);
}

static void test_fstring_fields_in_tree(void) {
  UnitTree parsed = unit_parse_tree("f'{x = !r:>{w}}'\n");
  Node *string = first_expression(&parsed);
  CHECK(string && string->kind == N_STRING && !string->u.string.is_bytes);
  if (string && string->kind == N_STRING) {
    Node *fstring = string->u.string.parts.items[0];
    CHECK(fstring->u.fstring.prefix_and_quote.len == 2 && fstring->u.fstring.closing_quote.len == 1);
    Node *field = fstring->u.fstring.parts.items[0];
    CHECK(field->kind == N_FORMATTED_VALUE);
    CHECK(field->u.formatted_value.debug_text.len == 4 &&
          memcmp(field->u.formatted_value.debug_text.text, "x = ", 4) == 0);
    CHECK(field->u.formatted_value.conversion == 'r');
    Node *spec = field->u.formatted_value.format_spec;
    CHECK(spec && spec->kind == N_FSTRING && spec->u.fstring.prefix_and_quote.len == 0 &&
          spec->u.fstring.parts.count == 2);
  }
  unit_free_tree(&parsed);
  parsed = unit_parse_tree("b'a' B'b'\n");
  string = first_expression(&parsed);
  CHECK(string && string->kind == N_STRING && string->u.string.is_bytes);
  unit_free_tree(&parsed);
}

/* ------------------------------------------------------- limits, chains */

static void test_nesting_limits(void) {
  char *text = nested("(", "a", ")", 1100);
  CHECK_STR(unit_parse(text), "<test>:1:201: error: too many nested parentheses (limit is 200)");
  free(text);
  text = nested("(", "a", ")", 200); /* CPython's limit too */
  CHECK_STR(unit_parse(text), "(Module (Expr (Name a)))");
  free(text);
  text = nested("[", "a", "]", 150);
  CHECK(starts_with(unit_parse(text), "(Module (Expr (List [(List ["));
  free(text);
  text = repeat("", "-", 5000, "a\n");
  CHECK(is_error_with(unit_parse(text), "too many nested expressions"));
  free(text);
  text = repeat("", "not ", 5000, "a\n");
  CHECK(is_error_with(unit_parse(text), "too many nested expressions"));
  free(text);
  text = repeat("a", " ** a", 3000, "\n");
  CHECK(is_error_with(unit_parse(text), "too many nested expressions"));
  free(text);
  text = repeat("", "a if b else ", 20000, "c\n"); /* a loop, as in CPython: no limit */
  CHECK(starts_with(unit_parse(text), "(Module (Expr (IfExp (Name b) (Name a) (IfExp"));
  free(text);
  text = repeat("", "lambda: ", 2000, "a\n");
  CHECK(is_error_with(unit_parse(text), "too many nested expressions"));
  free(text);
  text = repeat("x = ", "~", 900, "a\n"); /* within the limit */
  CHECK(starts_with(unit_parse(text), "(Module (Assign (Name x Store) (UnaryOp Invert"));
  free(text);
  /* 199 parentheses around 390 unary minus signs: near the limit, and within it. */
  char *inner = repeat("", "-", 390, "a");
  text = nested("(", inner, ")", 199);
  CHECK(starts_with(unit_parse(text), "(Module (Expr (UnaryOp USub"));
  free(inner);
  free(text);
  /* f-strings nested in f-strings. */
  text = nested("f'{", "x", "}'", 30); /* PEP 701: the same quotes inside */
  CHECK(starts_with(unit_parse(text), "(Module (Expr (JoinedStr (FString f' (FormattedValue (JoinedStr"));
  free(text);
}

static void test_long_chains_do_not_recurse(void) {
  char *text = repeat("a", " + a", 100000, "\n");
  UnitTree parsed = unit_parse_tree(text);
  Node *node = first_expression(&parsed);
  int depth = 0;
  while (node && node->kind == N_BIN_OP) {
    node = node->u.bin_op.left;
    depth++;
  }
  CHECK(depth == 100000 && node && node->kind == N_NAME);
  unit_free_tree(&parsed);
  free(text);

  text = repeat("a", " or a", 10000, "\n");
  parsed = unit_parse_tree(text);
  node = first_expression(&parsed);
  CHECK(node && node->kind == N_BOOL_OP && node->u.bool_op.values.count == 10001);
  unit_free_tree(&parsed);
  free(text);

  text = repeat("a", " < a", 10000, "\n");
  parsed = unit_parse_tree(text);
  node = first_expression(&parsed);
  CHECK(node && node->kind == N_COMPARE && node->u.compare.count == 10000);
  unit_free_tree(&parsed);
  free(text);

  text = repeat("a", ".b(c)[d]", 10000, "\n");
  parsed = unit_parse_tree(text);
  CHECK(first_expression(&parsed) && first_expression(&parsed)->kind == N_SUBSCRIPT);
  unit_free_tree(&parsed);
  free(text);

  text = repeat("x = [", "a, ", 100000, "]\n");
  parsed = unit_parse_tree(text);
  node = first_expression(&parsed);
  CHECK(node && node->kind == N_LIST && node->u.list.elts.count == 100000);
  unit_free_tree(&parsed);
  free(text);

  text = repeat("x = ", "'a' ", 10000, "\n");
  parsed = unit_parse_tree(text);
  node = first_expression(&parsed);
  CHECK(node && node->kind == N_STRING && node->u.string.parts.count == 10000);
  unit_free_tree(&parsed);
  free(text);

  /* The dump of a very deep tree is cut, not a stack overflow. */
  text = repeat("a", " + a", 100000, "\n");
  CHECK(strstr(unit_parse(text), "...") != NULL);
  free(text);
}

static void test_node_kind_names(void) {
  CHECK_STR(node_kind_name(N_MODULE), "Module");
  CHECK_STR(node_kind_name(N_FUNCTION_DEF), "FunctionDef");
  CHECK_STR(node_kind_name(N_EXPR_STMT), "Expr");
  CHECK_STR(node_kind_name(N_BOOL_OP), "BoolOp");
  CHECK_STR(node_kind_name(N_GENERATOR_EXP), "GeneratorExp");
  CHECK_STR(node_kind_name(N_FSTRING), "JoinedStr");
  CHECK_STR(node_kind_name(N_FORMATTED_VALUE), "FormattedValue");
  CHECK_STR(node_kind_name(N_ARGUMENTS), "arguments");
  CHECK_STR(node_kind_name(N_COMPREHENSION), "comprehension");
  CHECK_STR(node_kind_name(N_TYPE_VAR_TUPLE), "TypeVarTuple");
  CHECK_STR(node_kind_name(N_MATCH_OR), "MatchOr");
  CHECK_STR(node_kind_name(N_KIND_COUNT), "?");
  for (int kind = 0; kind < N_KIND_COUNT; kind++)
    CHECK(strcmp(node_kind_name((NodeKind)kind), "?") != 0);
}

static void test_target_helpers(void) {
  UnitTree parsed = unit_parse_tree("a\n(a)\na.b\na[1]\n(a, b)\n[a]\nf()\n*a\n");
  static const bool augassign[] = {true, true, true, true, false, false, false, false};
  static const char *const names[] = {"name", "name", "attribute", "subscript", "tuple", "list", "function call", "starred"};
  CHECK(parsed.module && parsed.module->u.module.body.count == 8);
  for (int i = 0; parsed.module && i < 8; i++) {
    Node *value = parsed.module->u.module.body.items[i]->u.expr_stmt.value;
    CHECK(is_augassign_target(value) == augassign[i]);
    CHECK_STR(parser_expr_name(value), names[i]);
  }
  unit_free_tree(&parsed);
}

/* ------------------------------------------------------------------ run */

void run_parse_tests(void) {
  UNIT_RUN(test_names_and_constants_1);
  UNIT_RUN(test_names_and_constants_2);
  UNIT_RUN(test_plain_strings);
  UNIT_RUN(test_implicit_concatenation_with_fstrings);
  UNIT_RUN(test_bytes_mixing_errors);
  UNIT_RUN(test_fstring_fields);
  UNIT_RUN(test_fstring_nested_quotes);
  UNIT_RUN(test_fstring_debug);
  UNIT_RUN(test_fstring_field_expressions_1);
  UNIT_RUN(test_fstring_field_expressions_2);
  UNIT_RUN(test_fstring_errors_1);
  UNIT_RUN(test_fstring_errors_2);
  UNIT_RUN(test_fstring_errors_3);
  UNIT_RUN(test_arithmetic_precedence);
  UNIT_RUN(test_power_and_unary_1);
  UNIT_RUN(test_power_and_unary_2);
  UNIT_RUN(test_unary_chains);
  UNIT_RUN(test_shifts_and_bitwise);
  UNIT_RUN(test_comparison_chains);
  UNIT_RUN(test_boolean_operators);
  UNIT_RUN(test_conditional_expressions);
  UNIT_RUN(test_conditional_expression_errors);
  UNIT_RUN(test_walrus_1);
  UNIT_RUN(test_walrus_2);
  UNIT_RUN(test_walrus_errors);
  UNIT_RUN(test_trailers);
  UNIT_RUN(test_slices_1);
  UNIT_RUN(test_slices_2);
  UNIT_RUN(test_slice_errors);
  UNIT_RUN(test_call_arguments_1);
  UNIT_RUN(test_call_arguments_2);
  UNIT_RUN(test_call_generator_argument);
  UNIT_RUN(test_call_argument_errors_1);
  UNIT_RUN(test_call_argument_errors_2);
  UNIT_RUN(test_call_argument_errors_3);
  UNIT_RUN(test_tuples);
  UNIT_RUN(test_lists);
  UNIT_RUN(test_dicts);
  UNIT_RUN(test_sets);
  UNIT_RUN(test_display_errors_1);
  UNIT_RUN(test_display_errors_2);
  UNIT_RUN(test_comprehensions_1);
  UNIT_RUN(test_comprehensions_2);
  UNIT_RUN(test_comprehension_targets);
  UNIT_RUN(test_comprehension_errors_1);
  UNIT_RUN(test_comprehension_errors_2);
  UNIT_RUN(test_lambda_parameters_1);
  UNIT_RUN(test_lambda_parameters_2);
  UNIT_RUN(test_lambda_parameter_errors_1);
  UNIT_RUN(test_lambda_parameter_errors_2);
  UNIT_RUN(test_def_parameters);
  UNIT_RUN(test_def_parameter_errors_1);
  UNIT_RUN(test_def_parameter_errors_2);
  UNIT_RUN(test_def_parameter_errors_3);
  UNIT_RUN(test_yield_and_await_1);
  UNIT_RUN(test_yield_and_await_2);
  UNIT_RUN(test_yield_and_await_errors);
  UNIT_RUN(test_starred_expressions_1);
  UNIT_RUN(test_starred_expressions_2);
  UNIT_RUN(test_assignment_targets_1);
  UNIT_RUN(test_assignment_targets_2);
  UNIT_RUN(test_delete_targets);
  UNIT_RUN(test_assignment_target_errors_1);
  UNIT_RUN(test_assignment_target_errors_2);
  UNIT_RUN(test_assignment_target_errors_3);
  UNIT_RUN(test_assignment_target_errors_4);
  UNIT_RUN(test_assignment_target_errors_5);
  UNIT_RUN(test_assignment_target_errors_6);
  UNIT_RUN(test_delete_target_errors);
  UNIT_RUN(test_augmented_assignment_targets);
  UNIT_RUN(test_likely_comparison_errors_1);
  UNIT_RUN(test_likely_comparison_errors_2);
  UNIT_RUN(test_forgotten_comma);
  UNIT_RUN(test_keywords_where_expressions_go);
  UNIT_RUN(test_parenthesized_yield);
  UNIT_RUN(test_dump_of_statement_forms_1);
  UNIT_RUN(test_dump_of_statement_forms_2);
  UNIT_RUN(test_dump_of_pattern_forms);
  UNIT_RUN(test_parenthesized_flag);
  UNIT_RUN(test_spans);
  UNIT_RUN(test_fstring_fields_in_tree);
  UNIT_RUN(test_nesting_limits);
  UNIT_RUN(test_long_chains_do_not_recurse);
  UNIT_RUN(test_node_kind_names);
  UNIT_RUN(test_target_helpers);
  run_parse_stmt_tests();
}
