/*
 * test_parse_stmt.c — statements, blocks, patterns and the module
 * (parse_stmt.c, parse_pattern.c).
 *
 * Most tests compare the dump of the module (dump.c's S-expressions, the
 * `(Module ...)` wrapper left out) or the first diagnostic line,
 * "<test>:LINE:COL: error: MESSAGE". The expected trees and messages were
 * checked against CPython 3.12's ast.parse: the same acceptance, the same
 * messages and, but for the "invalid syntax at X" detail, the same places.
 * The span tests at the end check CPython's line/column conventions.
 */
#include <stdlib.h>

#include "unit.h"
#include "parse/parser.h"

/* `source` parses to `(Module DUMP)`. */
#define PARSES(source, dump)                                                 \
  do {                                                                       \
    char expected_[4096];                                                    \
    snprintf(expected_, sizeof expected_, "(Module%s%s)", (dump)[0] ? " " : "", (dump)); \
    CHECK_STR(unit_parse(source), expected_);                                \
  } while (0)

/* a = b = c, with tuple, list and starred targets */
static void test_assign_chain(void) {
  PARSES("a = b = 1\n",
         "(Assign (Name a Store) (Name b Store) (Constant 1))");
  PARSES("a, *b = c\n",
         "(Assign (Tuple [(Name a Store) (Starred (Name b Store) Store)] Store) (Name c))");
  PARSES("[a, b] = (c, d) = e\n",
         "(Assign (List [(Name a Store) (Name b Store)] Store) (Tuple [(Name c Store) (Name d Store)] Store) (Name e))");
  PARSES("a.b = c[d] = e\n",
         "(Assign (Attribute (Name a) b Store) (Subscript (Name c) (Name d) Store) (Name e))");
  PARSES("x = *a, 1\n",
         "(Assign (Name x Store) (Tuple [(Starred (Name a)) (Constant 1)]))");
}

/* the value may be a yield expression */
static void test_assign_yield_value(void) {
  PARSES("x = yield\n",
         "(Assign (Name x Store) (Yield -))");
  PARSES("x = yield from g\n",
         "(Assign (Name x Store) (YieldFrom (Name g)))");
  PARSES("x = y = yield a, b\n",
         "(Assign (Name x Store) (Name y Store) (Yield (Tuple [(Name a) (Name b)])))");
}

/* annotated assignment; simple only for a bare name */
static void test_ann_assign(void) {
  PARSES("x: int\n",
         "(AnnAssign (Name x Store) (Name int) - 1)");
  PARSES("x: int = 1\n",
         "(AnnAssign (Name x Store) (Name int) (Constant 1) 1)");
  PARSES("(x): int = 1\n",
         "(AnnAssign (Name x Store) (Name int) (Constant 1) 0)");
  PARSES("a.b: int\n",
         "(AnnAssign (Attribute (Name a) b Store) (Name int) - 0)");
  PARSES("a[i]: list[int] = []\n",
         "(AnnAssign (Subscript (Name a) (Name i) Store) (Subscript (Name list) (Name int)) (List []) 0)");
  PARSES("x: int = yield\n",
         "(AnnAssign (Name x Store) (Name int) (Yield -) 1)");
  PARSES("x: tuple = 1, 2\n",
         "(AnnAssign (Name x Store) (Name tuple) (Tuple [(Constant 1) (Constant 2)]) 1)");
}

/* all 13 augmented operators */
static void test_aug_assign_ops(void) {
  PARSES("a += 1\na -= 1\na *= 1\na @= 1\na /= 1\na %= 1\na &= 1\n",
         "(AugAssign (Name a Store) Add (Constant 1)) (AugAssign (Name a Store) Sub (Constant 1)) (AugAssign (Name a Store) Mult (Constant 1)) (AugAssign (Name a Store) MatMult (Constant 1)) (AugAssign (Name a Store) Div (Constant 1)) (AugAssign (Name a Store) Mod (Constant 1)) (AugAssign (Name a Store) BitAnd (Constant 1))");
  PARSES("a |= 1\na ^= 1\na <<= 1\na >>= 1\na **= 1\na //= 1\n",
         "(AugAssign (Name a Store) BitOr (Constant 1)) (AugAssign (Name a Store) BitXor (Constant 1)) (AugAssign (Name a Store) LShift (Constant 1)) (AugAssign (Name a Store) RShift (Constant 1)) (AugAssign (Name a Store) Pow (Constant 1)) (AugAssign (Name a Store) FloorDiv (Constant 1))");
  PARSES("a.b[c] += yield\n",
         "(AugAssign (Subscript (Attribute (Name a) b) (Name c) Store) Add (Yield -))");
  PARSES("(a) += 1\n",
         "(AugAssign (Name a Store) Add (Constant 1))");
}

/* star_expressions and yield as statements */
static void test_expression_statements(void) {
  PARSES("f(x)\n",
         "(Expr (Call (Name f) [(Name x)] []))");
  PARSES("*a, b\n",
         "(Expr (Tuple [(Starred (Name a)) (Name b)]))");
  PARSES("yield x\n",
         "(Expr (Yield (Name x)))");
  PARSES("await x\n",
         "(Expr (Await (Name x)))");
  PARSES("1, 2,\n",
         "(Expr (Tuple [(Constant 1) (Constant 2)]))");
  PARSES("(yield)\n",
         "(Expr (Yield -))");
}

/* ';'-separated statements, optional trailing ';' */
static void test_simple_statements_on_one_line(void) {
  PARSES("a; b\n",
         "(Expr (Name a)) (Expr (Name b))");
  PARSES("a = 1; b = 2;\n",
         "(Assign (Name a Store) (Constant 1)) (Assign (Name b Store) (Constant 2))");
  PARSES("pass;\n",
         "(Pass)");
}

/* return with nothing, an expression, a tuple with stars */
static void test_return_statements(void) {
  PARSES("return\n",
         "(Return -)");
  PARSES("return x\n",
         "(Return (Name x))");
  PARSES("return *a, b\n",
         "(Return (Tuple [(Starred (Name a)) (Name b)]))");
  PARSES("return 1,\n",
         "(Return (Tuple [(Constant 1)]))");
}

/* raise, raise exc, raise exc from cause */
static void test_raise_statements(void) {
  PARSES("raise\n",
         "(Raise - -)");
  PARSES("raise E\n",
         "(Raise (Name E) -)");
  PARSES("raise E(1) from None\n",
         "(Raise (Call (Name E) [(Constant 1)] []) (Constant None))");
}

static void test_pass_break_continue(void) {
  PARSES("pass\n",
         "(Pass)");
  PARSES("break\n",
         "(Break)");
  PARSES("continue\n",
         "(Continue)");
  PARSES("while x:\n    break\n    continue\n",
         "(While (Name x) [(Break) (Continue)] [])");
}

/* del targets in Del context */
static void test_del_statements(void) {
  PARSES("del a\n",
         "(Delete [(Name a Del)])");
  PARSES("del a, b,\n",
         "(Delete [(Name a Del) (Name b Del)])");
  PARSES("del (a, b), [c]\n",
         "(Delete [(Tuple [(Name a Del) (Name b Del)] Del) (List [(Name c Del)] Del)])");
  PARSES("del a.b, c[1:2]\n",
         "(Delete [(Attribute (Name a) b Del) (Subscript (Name c) (Slice (Constant 1) (Constant 2) -) Del)])");
  PARSES("del ()\n",
         "(Delete [(Tuple [] Del)])");
}

/* global and nonlocal name lists */
static void test_global_nonlocal(void) {
  PARSES("global a\n",
         "(Global a)");
  PARSES("global a, b\n",
         "(Global a b)");
  PARSES("nonlocal x, y\n",
         "(Nonlocal x y)");
}

static void test_assert_statements(void) {
  PARSES("assert x\n",
         "(Assert (Name x) -)");
  PARSES("assert x, 'message'\n",
         "(Assert (Name x) (Constant 'message'))");
}

/* dotted names and as */
static void test_import_statements(void) {
  PARSES("import a\n",
         "(Import [(alias a)])");
  PARSES("import a.b.c\n",
         "(Import [(alias a.b.c)])");
  PARSES("import a.b as c, d\n",
         "(Import [(alias a.b c) (alias d)])");
  PARSES("import a . b\n",
         "(Import [(alias a.b)])");
}

/* relative levels, parentheses, star */
static void test_from_import_statements(void) {
  PARSES("from a import b\n",
         "(ImportFrom a [(alias b)] 0)");
  PARSES("from a.b import c as d, e\n",
         "(ImportFrom a.b [(alias c d) (alias e)] 0)");
  PARSES("from . import a\n",
         "(ImportFrom - [(alias a)] 1)");
  PARSES("from .. import a\n",
         "(ImportFrom - [(alias a)] 2)");
  PARSES("from ... import a\n",
         "(ImportFrom - [(alias a)] 3)");
  PARSES("from .... import a\n",
         "(ImportFrom - [(alias a)] 4)");
  PARSES("from ...a.b import c\n",
         "(ImportFrom a.b [(alias c)] 3)");
  PARSES("from . a import (b, c as d,)\n",
         "(ImportFrom a [(alias b) (alias c d)] 1)");
  PARSES("from a import (b)\n",
         "(ImportFrom a [(alias b)] 0)");
  PARSES("from a import *\n",
         "(ImportFrom a [(alias *)] 0)");
}

/* the type soft keyword */
static void test_type_alias(void) {
  PARSES("type X = int\n",
         "(TypeAlias (Name X Store) [] (Name int))");
  PARSES("type X[T] = list[T]\n",
         "(TypeAlias (Name X Store) [(TypeVar T)] (Subscript (Name list) (Name T)))");
  PARSES("type X[T: int, *Ts, **P] = int\n",
         "(TypeAlias (Name X Store) [(TypeVar T (Name int)) (TypeVarTuple Ts) (ParamSpec P)] (Name int))");
  PARSES("type match = int\n",
         "(TypeAlias (Name match Store) [] (Name int))");
}

/* type without a following NAME is ordinary code */
static void test_type_as_a_name(void) {
  PARSES("type = 1\n",
         "(Assign (Name type Store) (Constant 1))");
  PARSES("type(x)\n",
         "(Expr (Call (Name type) [(Name x)] []))");
  PARSES("type.x = 1\n",
         "(Assign (Attribute (Name type) x Store) (Constant 1))");
  PARSES("type[int]\n",
         "(Expr (Subscript (Name type) (Name int)))");
  PARSES("type: int = 1\n",
         "(AnnAssign (Name type Store) (Name int) (Constant 1) 1)");
  PARSES("print(type)\n",
         "(Expr (Call (Name print) [(Name type)] []))");
}

/* elif is an If alone in orelse */
static void test_if_elif_else(void) {
  PARSES("if a:\n    b\n",
         "(If (Name a) [(Expr (Name b))] [])");
  PARSES("if a:\n    b\nelse:\n    c\n",
         "(If (Name a) [(Expr (Name b))] [(Expr (Name c))])");
  PARSES("if a:\n    b\nelif c:\n    d\nelif e:\n    f\nelse:\n    g\n",
         "(If (Name a) [(Expr (Name b))] [(If (Name c) [(Expr (Name d))] [(If (Name e) [(Expr (Name f))] [(Expr (Name g))])])])");
  PARSES("if (x := f()):\n    pass\n",
         "(If (NamedExpr (Name x Store) (Call (Name f) [] [])) [(Pass)] [])");
}

/* simple statements after the colon */
static void test_one_line_blocks(void) {
  PARSES("if x: a; b\n",
         "(If (Name x) [(Expr (Name a)) (Expr (Name b))] [])");
  PARSES("while x: pass\n",
         "(While (Name x) [(Pass)] [])");
  PARSES("for x in y: a = x;\n",
         "(For (Name x Store) (Name y) [(Assign (Name a Store) (Name x))] [])");
  PARSES("def f(): return 1\n",
         "(FunctionDef f (arguments) [(Return (Constant 1))] [] -)");
  PARSES("class A: pass\n",
         "(ClassDef A [] [] [(Pass)] [])");
}

static void test_while_else(void) {
  PARSES("while x:\n    pass\n",
         "(While (Name x) [(Pass)] [])");
  PARSES("while x:\n    pass\nelse:\n    y\n",
         "(While (Name x) [(Pass)] [(Expr (Name y))])");
  PARSES("while (n := n - 1): pass\n",
         "(While (NamedExpr (Name n Store) (BinOp (Name n) Sub (Constant 1))) [(Pass)] [])");
}

/* targets via star_targets, iterable via star_expressions */
static void test_for_else(void) {
  PARSES("for x in y:\n    pass\n",
         "(For (Name x Store) (Name y) [(Pass)] [])");
  PARSES("for x, in y: pass\n",
         "(For (Tuple [(Name x Store)] Store) (Name y) [(Pass)] [])");
  PARSES("for a, *b in c, *d:\n    pass\nelse:\n    e\n",
         "(For (Tuple [(Name a Store) (Starred (Name b Store) Store)] Store) (Tuple [(Name c) (Starred (Name d))]) [(Pass)] [(Expr (Name e))])");
  PARSES("for a.b, c[0] in d: pass\n",
         "(For (Tuple [(Attribute (Name a) b Store) (Subscript (Name c) (Constant 0) Store)] Store) (Name d) [(Pass)] [])");
  PARSES("for (a, b) in c: pass\n",
         "(For (Tuple [(Name a Store) (Name b Store)] Store) (Name c) [(Pass)] [])");
}

/* async def, async for, async with */
static void test_async_forms(void) {
  PARSES("async def f():\n    async for x in y:\n        pass\n    async with a as b:\n        pass\n    await c\n",
         "(AsyncFunctionDef f (arguments) [(AsyncFor (Name x Store) (Name y) [(Pass)] []) (AsyncWith [(withitem (Name a) (Name b Store))] [(Pass)]) (Expr (Await (Name c)))] [] -)");
}

/* with items with and without targets */
static void test_with_items(void) {
  PARSES("with a: pass\n",
         "(With [(withitem (Name a) -)] [(Pass)])");
  PARSES("with a as b, c as d: pass\n",
         "(With [(withitem (Name a) (Name b Store)) (withitem (Name c) (Name d Store))] [(Pass)])");
  PARSES("with a as (b, c): pass\n",
         "(With [(withitem (Name a) (Tuple [(Name b Store) (Name c Store)] Store))] [(Pass)])");
  PARSES("with a as b.c, d[0] as e: pass\n",
         "(With [(withitem (Name a) (Attribute (Name b) c Store)) (withitem (Subscript (Name d) (Constant 0)) (Name e Store))] [(Pass)])");
  PARSES("with a as *b: pass\n",
         "(With [(withitem (Name a) (Starred (Name b Store) Store))] [(Pass)])");
}

/* the parenthesized item list is tried first */
static void test_with_parenthesized_items(void) {
  PARSES("with (a as b, c as d,): pass\n",
         "(With [(withitem (Name a) (Name b Store)) (withitem (Name c) (Name d Store))] [(Pass)])");
  PARSES("with (a, b): pass\n",
         "(With [(withitem (Name a) -) (withitem (Name b) -)] [(Pass)])");
  PARSES("with (a): pass\n",
         "(With [(withitem (Name a) -)] [(Pass)])");
  PARSES("with (\n    open(x) as f,\n    open(y) as g\n):\n    pass\n",
         "(With [(withitem (Call (Name open) [(Name x)] []) (Name f Store)) (withitem (Call (Name open) [(Name y)] []) (Name g Store))] [(Pass)])");
}

/* when the item form fails, the parentheses belong to an expression */
static void test_with_parenthesized_expression(void) {
  PARSES("with (a, b) as c: pass\n",
         "(With [(withitem (Tuple [(Name a) (Name b)]) (Name c Store))] [(Pass)])");
  PARSES("with (yield): pass\n",
         "(With [(withitem (Yield -) -)] [(Pass)])");
  PARSES("with (a, b), c: pass\n",
         "(With [(withitem (Tuple [(Name a) (Name b)]) -) (withitem (Name c) -)] [(Pass)])");
  PARSES("with (a) as b: pass\n",
         "(With [(withitem (Name a) (Name b Store))] [(Pass)])");
  PARSES("with (a)(b): pass\n",
         "(With [(withitem (Call (Name a) [(Name b)] []) -)] [(Pass)])");
}

/* handlers, else, finally */
static void test_try_except(void) {
  PARSES("try:\n    pass\nexcept:\n    pass\n",
         "(Try [(Pass)] [(ExceptHandler - - [(Pass)])] [] [])");
  PARSES("try:\n    pass\nexcept E as e:\n    pass\nexcept (A, B):\n    pass\nelse:\n    x\nfinally:\n    y\n",
         "(Try [(Pass)] [(ExceptHandler (Name E) e [(Pass)]) (ExceptHandler (Tuple [(Name A) (Name B)]) - [(Pass)])] [(Expr (Name x))] [(Expr (Name y))])");
  PARSES("try:\n    pass\nfinally:\n    pass\n",
         "(Try [(Pass)] [] [] [(Pass)])");
}

/* except* makes a TryStar */
static void test_try_except_star(void) {
  PARSES("try:\n    pass\nexcept* E:\n    pass\nexcept* (A, B) as g:\n    pass\n",
         "(TryStar [(Pass)] [(ExceptHandler (Name E) - [(Pass)]) (ExceptHandler (Tuple [(Name A) (Name B)]) g [(Pass)])] [] [])");
}

/* as by ast.parse: the compiler, not the parser, rejects it */
static void test_bare_except_not_last_is_accepted(void) {
  PARSES("try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass\n",
         "(Try [(Pass)] [(ExceptHandler - - [(Pass)]) (ExceptHandler (Name E) - [(Pass)])] [] [])");
}

/* parameters, defaults, annotations, return annotation */
static void test_function_defs(void) {
  PARSES("def f(): pass\n",
         "(FunctionDef f (arguments) [(Pass)] [] -)");
  PARSES("def f(a, /, b=1, *c, d, e=2, **g) -> int:\n    return a\n",
         "(FunctionDef f (arguments posonly=[(arg a)] args=[(arg b)] vararg=(arg c) kwonly=[(arg d) (arg e)] kw_defaults=[- (Constant 2)] kwarg=(arg g) defaults=[(Constant 1)]) [(Return (Name a))] [] (Name int))");
  PARSES("def f(*, a): pass\n",
         "(FunctionDef f (arguments kwonly=[(arg a)] kw_defaults=[-]) [(Pass)] [] -)");
  PARSES("def f(*a: *Ts): pass\n",
         "(FunctionDef f (arguments vararg=(arg a (Starred (Name Ts)))) [(Pass)] [] -)");
}

/* type params of def and class */
static void test_function_type_params(void) {
  PARSES("def f[T](x: T) -> T: pass\n",
         "(FunctionDef f (arguments args=[(arg x (Name T))]) [(Pass)] [] (Name T) type_params=[(TypeVar T)])");
  PARSES("def f[T: (int, str), *Ts, **P](): pass\n",
         "(FunctionDef f (arguments) [(Pass)] [] - type_params=[(TypeVar T (Tuple [(Name int) (Name str)])) (TypeVarTuple Ts) (ParamSpec P)])");
  PARSES("def f[T,](): pass\n",
         "(FunctionDef f (arguments) [(Pass)] [] - type_params=[(TypeVar T)])");
}

/* bases, keywords, star args */
static void test_class_defs(void) {
  PARSES("class A: pass\n",
         "(ClassDef A [] [] [(Pass)] [])");
  PARSES("class A(): pass\n",
         "(ClassDef A [] [] [(Pass)] [])");
  PARSES("class A(B, C, metaclass=M, **k): pass\n",
         "(ClassDef A [(Name B) (Name C)] [(keyword metaclass (Name M)) (keyword - (Name k))] [(Pass)] [])");
  PARSES("class A(*bases): pass\n",
         "(ClassDef A [(Starred (Name bases))] [] [(Pass)] [])");
  PARSES("class A[T](B[T]): pass\n",
         "(ClassDef A [(Subscript (Name B) (Name T))] [] [(Pass)] [] type_params=[(TypeVar T)])");
}

/* any named_expression; decorators keep their own order */
static void test_decorators(void) {
  PARSES("@a\ndef f(): pass\n",
         "(FunctionDef f (arguments) [(Pass)] [(Name a)] -)");
  PARSES("@a.b(c)\n@d[0]\nclass A: pass\n",
         "(ClassDef A [] [] [(Pass)] [(Call (Attribute (Name a) b) [(Name c)] []) (Subscript (Name d) (Constant 0))])");
  PARSES("@x := y\ndef f(): pass\n",
         "(FunctionDef f (arguments) [(Pass)] [(NamedExpr (Name x Store) (Name y))] -)");
  PARSES("@a\nasync def f(): pass\n",
         "(AsyncFunctionDef f (arguments) [(Pass)] [(Name a)] -)");
  PARSES("@(lambda f: f)\ndef f(): pass\n",
         "(FunctionDef f (arguments) [(Pass)] [(Lambda (arguments args=[(arg f)]) (Name f))] -)");
}

/* subjects: names, tuples with stars, walrus */
static void test_match_subjects(void) {
  PARSES("match x:\n    case 1: pass\n",
         "(Match (Name x) [(match_case (MatchValue (Constant 1)) - [(Pass)])])");
  PARSES("match a, *b:\n    case _: pass\n",
         "(Match (Tuple [(Name a) (Starred (Name b))]) [(match_case (MatchAs - -) - [(Pass)])])");
  PARSES("match x := f():\n    case _: pass\n",
         "(Match (NamedExpr (Name x Store) (Call (Name f) [] [])) [(match_case (MatchAs - -) - [(Pass)])])");
  PARSES("match (x):\n    case _: pass\n",
         "(Match (Name x) [(match_case (MatchAs - -) - [(Pass)])])");
  PARSES("match -x:\n    case _: pass\n",
         "(Match (UnaryOp USub (Name x)) [(match_case (MatchAs - -) - [(Pass)])])");
  PARSES("match x,:\n    case _: pass\n",
         "(Match (Tuple [(Name x)]) [(match_case (MatchAs - -) - [(Pass)])])");
}

/* match is a soft keyword: names and calls stay ordinary */
static void test_match_as_a_name(void) {
  PARSES("match = 1\n",
         "(Assign (Name match Store) (Constant 1))");
  PARSES("match(x)\n",
         "(Expr (Call (Name match) [(Name x)] []))");
  PARSES("match[x]\n",
         "(Expr (Subscript (Name match) (Name x)))");
  PARSES("match[x]: int = 3\n",
         "(AnnAssign (Subscript (Name match) (Name x) Store) (Name int) (Constant 3) 0)");
  PARSES("print(match)\n",
         "(Expr (Call (Name print) [(Name match)] []))");
  PARSES("match.x = 1\n",
         "(Assign (Attribute (Name match) x Store) (Constant 1))");
  PARSES("match, b = c\n",
         "(Assign (Tuple [(Name match Store) (Name b Store)] Store) (Name c))");
  PARSES("match -x\n",
         "(Expr (BinOp (Name match) Sub (Name x)))");
  PARSES("match\n",
         "(Expr (Name match))");
  PARSES("match(x).y: int\n",
         "(AnnAssign (Attribute (Call (Name match) [(Name x)] []) y Store) (Name int) - 0)");
}

/* case and _ are names outside patterns */
static void test_case_and_underscore_as_names(void) {
  PARSES("case = 1\n",
         "(Assign (Name case Store) (Constant 1))");
  PARSES("case(x)\n",
         "(Expr (Call (Name case) [(Name x)] []))");
  PARSES("_ = 1\n",
         "(Assign (Name _ Store) (Constant 1))");
  PARSES("match _:\n    case _: pass\n",
         "(Match (Name _) [(match_case (MatchAs - -) - [(Pass)])])");
  PARSES("match x:\n    case case: pass\n",
         "(Match (Name x) [(match_case (MatchAs - case) - [(Pass)])])");
}

/* numbers, negative, complex, strings, singletons */
static void test_pattern_literals(void) {
  PARSES("match x:\n    case 1: pass\n    case -1: pass\n    case 1.5: pass\n    case 1j: pass\n    case -1j: pass\n",
         "(Match (Name x) [(match_case (MatchValue (Constant 1)) - [(Pass)]) (match_case (MatchValue (UnaryOp USub (Constant 1))) - [(Pass)]) (match_case (MatchValue (Constant 1.5)) - [(Pass)]) (match_case (MatchValue (Constant 1j)) - [(Pass)]) (match_case (MatchValue (UnaryOp USub (Constant 1j))) - [(Pass)])])");
  PARSES("match x:\n    case 1+2j: pass\n    case -1.5-2j: pass\n",
         "(Match (Name x) [(match_case (MatchValue (BinOp (Constant 1) Add (Constant 2j))) - [(Pass)]) (match_case (MatchValue (BinOp (UnaryOp USub (Constant 1.5)) Sub (Constant 2j))) - [(Pass)])])");
  PARSES("match x:\n    case 'a': pass\n    case 'a' 'b': pass\n    case b'x': pass\n",
         "(Match (Name x) [(match_case (MatchValue (Constant 'a')) - [(Pass)]) (match_case (MatchValue (Constant 'a' 'b')) - [(Pass)]) (match_case (MatchValue (Constant b'x')) - [(Pass)])])");
  PARSES("match x:\n    case None: pass\n    case True: pass\n    case False: pass\n",
         "(Match (Name x) [(match_case (MatchSingleton None) - [(Pass)]) (match_case (MatchSingleton True) - [(Pass)]) (match_case (MatchSingleton False) - [(Pass)])])");
}

/* capture names, _, as-patterns */
static void test_pattern_captures_and_wildcard(void) {
  PARSES("match x:\n    case y: pass\n",
         "(Match (Name x) [(match_case (MatchAs - y) - [(Pass)])])");
  PARSES("match x:\n    case _: pass\n",
         "(Match (Name x) [(match_case (MatchAs - -) - [(Pass)])])");
  PARSES("match x:\n    case [a] as b: pass\n",
         "(Match (Name x) [(match_case (MatchAs (MatchSequence [(MatchAs - a)]) b) - [(Pass)])])");
  PARSES("match x:\n    case (1 | 2) as y: pass\n",
         "(Match (Name x) [(match_case (MatchAs (MatchOr [(MatchValue (Constant 1)) (MatchValue (Constant 2))]) y) - [(Pass)])])");
}

/* dotted names are value patterns */
static void test_pattern_values(void) {
  PARSES("match x:\n    case Color.RED: pass\n",
         "(Match (Name x) [(match_case (MatchValue (Attribute (Name Color) RED)) - [(Pass)])])");
  PARSES("match x:\n    case a.b.c: pass\n",
         "(Match (Name x) [(match_case (MatchValue (Attribute (Attribute (Name a) b) c)) - [(Pass)])])");
  PARSES("match x:\n    case a.b(): pass\n",
         "(Match (Name x) [(match_case (MatchClass (Attribute (Name a) b) [] [] []) - [(Pass)])])");
}

/* or-patterns */
static void test_pattern_or(void) {
  PARSES("match x:\n    case 1 | 2 | 3: pass\n",
         "(Match (Name x) [(match_case (MatchOr [(MatchValue (Constant 1)) (MatchValue (Constant 2)) (MatchValue (Constant 3))]) - [(Pass)])])");
  PARSES("match x:\n    case [a] | (b, c) | {}: pass\n",
         "(Match (Name x) [(match_case (MatchOr [(MatchSequence [(MatchAs - a)]) (MatchSequence [(MatchAs - b) (MatchAs - c)]) (MatchMapping [] [] -)]) - [(Pass)])])");
}

/* group (p), sequences [..], (..), open sequences */
static void test_pattern_groups_and_sequences(void) {
  PARSES("match x:\n    case (y): pass\n",
         "(Match (Name x) [(match_case (MatchAs - y) - [(Pass)])])");
  PARSES("match x:\n    case (): pass\n",
         "(Match (Name x) [(match_case (MatchSequence []) - [(Pass)])])");
  PARSES("match x:\n    case []: pass\n",
         "(Match (Name x) [(match_case (MatchSequence []) - [(Pass)])])");
  PARSES("match x:\n    case (a,): pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchAs - a)]) - [(Pass)])])");
  PARSES("match x:\n    case [a, b,]: pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchAs - a) (MatchAs - b)]) - [(Pass)])])");
  PARSES("match x:\n    case a, b: pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchAs - a) (MatchAs - b)]) - [(Pass)])])");
  PARSES("match x:\n    case a, *rest: pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchAs - a) (MatchStar rest)]) - [(Pass)])])");
  PARSES("match x:\n    case *_, last,: pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchStar -) (MatchAs - last)]) - [(Pass)])])");
}

/* star patterns; two stars are for the compiler to reject */
static void test_pattern_star(void) {
  PARSES("match x:\n    case [*a]: pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchStar a)]) - [(Pass)])])");
  PARSES("match x:\n    case [1, *_]: pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchValue (Constant 1)) (MatchStar -)]) - [(Pass)])])");
  PARSES("match x:\n    case [*a, *b]: pass\n",
         "(Match (Name x) [(match_case (MatchSequence [(MatchStar a) (MatchStar b)]) - [(Pass)])])");
}

/* keys: literals and attributes; **rest last */
static void test_pattern_mappings(void) {
  PARSES("match x:\n    case {}: pass\n",
         "(Match (Name x) [(match_case (MatchMapping [] [] -) - [(Pass)])])");
  PARSES("match x:\n    case {'k': v, 1: w, None: n, -1: m, 1+1j: c, Color.RED: r}: pass\n",
         "(Match (Name x) [(match_case (MatchMapping [(Constant 'k') (Constant 1) (Constant None) (UnaryOp USub (Constant 1)) (BinOp (Constant 1) Add (Constant 1j)) (Attribute (Name Color) RED)] [(MatchAs - v) (MatchAs - w) (MatchAs - n) (MatchAs - m) (MatchAs - c) (MatchAs - r)] -) - [(Pass)])])");
  PARSES("match x:\n    case {**rest}: pass\n",
         "(Match (Name x) [(match_case (MatchMapping [] [] rest) - [(Pass)])])");
  PARSES("match x:\n    case {'a': 1, **rest,}: pass\n",
         "(Match (Name x) [(match_case (MatchMapping [(Constant 'a')] [(MatchValue (Constant 1))] rest) - [(Pass)])])");
}

/* positional then keyword patterns */
static void test_pattern_classes(void) {
  PARSES("match x:\n    case Point(): pass\n",
         "(Match (Name x) [(match_case (MatchClass (Name Point) [] [] []) - [(Pass)])])");
  PARSES("match x:\n    case Point(1, y=2): pass\n",
         "(Match (Name x) [(match_case (MatchClass (Name Point) [(MatchValue (Constant 1))] [y] [(MatchValue (Constant 2))]) - [(Pass)])])");
  PARSES("match x:\n    case a.B(x, y,): pass\n",
         "(Match (Name x) [(match_case (MatchClass (Attribute (Name a) B) [(MatchAs - x) (MatchAs - y)] [] []) - [(Pass)])])");
  PARSES("match x:\n    case C(a=[1, 2], b=None,): pass\n",
         "(Match (Name x) [(match_case (MatchClass (Name C) [] [a b] [(MatchSequence [(MatchValue (Constant 1)) (MatchValue (Constant 2))]) (MatchSingleton None)]) - [(Pass)])])");
}

/* guard: 'if' named_expression */
static void test_pattern_guards(void) {
  PARSES("match x:\n    case y if y > 0: pass\n",
         "(Match (Name x) [(match_case (MatchAs - y) (Compare (Name y) [Gt] [(Constant 0)]) [(Pass)])])");
  PARSES("match x:\n    case 1 if (z := 2): pass\n",
         "(Match (Name x) [(match_case (MatchValue (Constant 1)) (NamedExpr (Name z Store) (Constant 2)) [(Pass)])])");
  PARSES("match x:\n    case 1 if z := 2: pass\n",
         "(Match (Name x) [(match_case (MatchValue (Constant 1)) (NamedExpr (Name z Store) (Constant 2)) [(Pass)])])");
}

/* as ast.parse */
static void test_pattern_fstring_is_left_to_the_compiler(void) {
  PARSES("match x:\n    case f'a': pass\n",
         "(Match (Name x) [(match_case (MatchValue (JoinedStr (FString f' (Text a) '))) - [(Pass)])])");
}

/* several cases with block bodies */
static void test_match_block_body(void) {
  PARSES("match command.split():\n    case [action]:\n        pass\n    case [action, obj]:\n        x = 1\n        y = 2\n    case _:\n        pass\n",
         "(Match (Call (Attribute (Name command) split) [] []) [(match_case (MatchSequence [(MatchAs - action)]) - [(Pass)]) (match_case (MatchSequence [(MatchAs - action) (MatchAs - obj)]) - [(Assign (Name x Store) (Constant 1)) (Assign (Name y Store) (Constant 2))]) (match_case (MatchAs - -) - [(Pass)])])");
}

/* indented blocks nest; dedents close several levels */
static void test_nested_blocks(void) {
  PARSES("if a:\n    if b:\n        c\n    d\ne\n",
         "(If (Name a) [(If (Name b) [(Expr (Name c))] []) (Expr (Name d))] []) (Expr (Name e))");
  PARSES("def f():\n    class A:\n        def g(self):\n            return 1\n",
         "(FunctionDef f (arguments) [(ClassDef A [] [] [(FunctionDef g (arguments args=[(arg self)]) [(Return (Constant 1))] [] -)] [])] [] -)");
}

/* no statements */
static void test_empty_module(void) {
  PARSES("",
         "");
  PARSES("\n\n",
         "");
  PARSES("# just a comment\n",
         "");
}

/* the last line needs no line break */
static void test_no_final_newline(void) {
  PARSES("x = 1",
         "(Assign (Name x Store) (Constant 1))");
  PARSES("if x:\n    pass",
         "(If (Name x) [(Pass)] [])");
}

/* type alias inside a class and a function */
static void test_soft_keyword_type_in_class(void) {
  PARSES("class A:\n    type X = int\n",
         "(ClassDef A [] [] [(TypeAlias (Name X Store) [] (Name int))] [])");
  PARSES("def f():\n    type Y[T] = T\n",
         "(FunctionDef f (arguments) [(TypeAlias (Name Y Store) [(TypeVar T)] (Name T))] [] -)");
}

/* print >>f, x parses (CPython too) */
static void test_legacy_print_is_an_expression(void) {
  PARSES("print >>f, x\n",
         "(Expr (Tuple [(BinOp (Name print) RShift (Name f)) (Name x)]))");
  PARSES("print -1\n",
         "(Expr (BinOp (Name print) Sub (Constant 1)))");
}

/* a missing ':' */
static void test_error_expected_colon(void) {
  CHECK_STR(unit_parse("if x\n    pass\n"),
            "<test>:1:5: error: expected ':'");
  CHECK_STR(unit_parse("while x\n    pass\n"),
            "<test>:1:8: error: expected ':'");
  CHECK_STR(unit_parse("for x in y\n    pass\n"),
            "<test>:1:11: error: expected ':'");
  CHECK_STR(unit_parse("with a\n    pass\n"),
            "<test>:1:7: error: expected ':'");
  CHECK_STR(unit_parse("def f()\n    pass\n"),
            "<test>:1:8: error: expected ':'");
  CHECK_STR(unit_parse("class A\n    pass\n"),
            "<test>:1:8: error: expected ':'");
  CHECK_STR(unit_parse("try\n    pass\n"),
            "<test>:1:4: error: expected ':'");
  CHECK_STR(unit_parse("else_ = 1\nif x: pass\nelse\n    pass\n"),
            "<test>:3:5: error: expected ':'");
}

/* if, elif, else; at the end of the file it points at the line end */
static void test_error_indented_block_after_if(void) {
  CHECK_STR(unit_parse("if x:\npass\n"),
            "<test>:2:1: error: expected an indented block after 'if' statement on line 1");
  CHECK_STR(unit_parse("if x:\n    pass\nelif y:\npass\n"),
            "<test>:4:1: error: expected an indented block after 'elif' statement on line 3");
  CHECK_STR(unit_parse("if x:\n    pass\nelse:\npass\n"),
            "<test>:4:1: error: expected an indented block after 'else' statement on line 3");
  CHECK_STR(unit_parse("if x:\n"),
            "<test>:1:6: error: expected an indented block after 'if' statement on line 1");
}

/* while, for, with */
static void test_error_indented_block_after_loops(void) {
  CHECK_STR(unit_parse("while x:\npass\n"),
            "<test>:2:1: error: expected an indented block after 'while' statement on line 1");
  CHECK_STR(unit_parse("for x in y:\npass\n"),
            "<test>:2:1: error: expected an indented block after 'for' statement on line 1");
  CHECK_STR(unit_parse("with a:\npass\n"),
            "<test>:2:1: error: expected an indented block after 'with' statement on line 1");
  CHECK_STR(unit_parse("async def f():\n    async for x in y:\n    pass\n"),
            "<test>:3:5: error: expected an indented block after 'for' statement on line 2");
}

/* try, except, except*, finally */
static void test_error_indented_block_after_try(void) {
  CHECK_STR(unit_parse("try:\npass\n"),
            "<test>:2:1: error: expected an indented block after 'try' statement on line 1");
  CHECK_STR(unit_parse("try:\n    pass\nexcept:\npass\n"),
            "<test>:4:1: error: expected an indented block after 'except' statement on line 3");
  CHECK_STR(unit_parse("try:\n    pass\nexcept* E:\npass\n"),
            "<test>:4:1: error: expected an indented block after 'except*' statement on line 3");
  CHECK_STR(unit_parse("try:\n    pass\nfinally:\npass\n"),
            "<test>:4:1: error: expected an indented block after 'finally' statement on line 3");
}

/* def and class */
static void test_error_indented_block_after_definitions(void) {
  CHECK_STR(unit_parse("def f():\npass\n"),
            "<test>:2:1: error: expected an indented block after function definition on line 1");
  CHECK_STR(unit_parse("class A:\npass\n"),
            "<test>:2:1: error: expected an indented block after class definition on line 1");
  CHECK_STR(unit_parse("@d\ndef f():\n\nx = 1\n"),
            "<test>:4:1: error: expected an indented block after function definition on line 2");
}

/* unexpected indent and bad dedent */
static void test_error_indentation(void) {
  CHECK_STR(unit_parse("  x = 1\n"),
            "<test>:1:2: error: unexpected indent");
  CHECK_STR(unit_parse("x = 1\n  y = 2\n"),
            "<test>:2:2: error: unexpected indent");
  CHECK_STR(unit_parse("if x:\n    a\n  b\n"),
            "<test>:3:3: error: unindent does not match any outer indentation level");
  CHECK_STR(unit_parse("if x:\n    a\n        b\n"),
            "<test>:3:8: error: unexpected indent");
}

/* statement-level invalid syntax */
static void test_error_invalid_syntax(void) {
  CHECK_STR(unit_parse("x = 1;;\n"),
            "<test>:1:7: error: invalid syntax at ';'");
  CHECK_STR(unit_parse(";\n"),
            "<test>:1:1: error: invalid syntax at ';'");
  CHECK_STR(unit_parse("if x: if y: pass\n"),
            "<test>:1:7: error: invalid syntax at 'if'");
  CHECK_STR(unit_parse("else: pass\n"),
            "<test>:1:1: error: invalid syntax at 'else'");
  CHECK_STR(unit_parse("a b\n"),
            "<test>:1:3: error: invalid syntax at 'b'");
  CHECK_STR(unit_parse("print 'x'\n"),
            "<test>:1:1: error: Missing parentheses in call to 'print'. Did you mean print(...)?");
  CHECK_STR(unit_parse("x = 1 2\n"),
            "<test>:1:7: error: invalid syntax at '2'");
}

static void test_error_annotation_targets(void) {
  CHECK_STR(unit_parse("(a, b): int\n"),
            "<test>:1:1: error: only single target (not tuple) can be annotated");
  CHECK_STR(unit_parse("a, b: int\n"),
            "<test>:1:1: error: only single target (not tuple) can be annotated");
  CHECK_STR(unit_parse("[a]: int\n"),
            "<test>:1:1: error: only single target (not list) can be annotated");
  CHECK_STR(unit_parse("a.b(): int\n"),
            "<test>:1:1: error: illegal target for annotation");
  CHECK_STR(unit_parse("(a, b): (int)\n"),
            "<test>:1:1: error: only single target (not tuple) can be annotated");
  CHECK_STR(unit_parse("a, b:\n"),
            "<test>:1:5: error: invalid syntax at ':'");
  CHECK_STR(unit_parse("*a: int\n"),
            "<test>:1:3: error: invalid syntax at ':'");
  CHECK_STR(unit_parse("x: int, y: int\n"),
            "<test>:1:7: error: invalid syntax at ','");
}

static void test_error_augassign_targets(void) {
  CHECK_STR(unit_parse("(a, b) += 1\n"),
            "<test>:1:1: error: 'tuple' is an illegal expression for augmented assignment");
  CHECK_STR(unit_parse("a, b += 1\n"),
            "<test>:1:1: error: 'tuple' is an illegal expression for augmented assignment");
  CHECK_STR(unit_parse("f() += 1\n"),
            "<test>:1:1: error: 'function call' is an illegal expression for augmented assignment");
  CHECK_STR(unit_parse("[a] += 1\n"),
            "<test>:1:1: error: 'list' is an illegal expression for augmented assignment");
  CHECK_STR(unit_parse("1 += 1\n"),
            "<test>:1:1: error: 'literal' is an illegal expression for augmented assignment");
}

/* set_target_context messages */
static void test_error_assignment_targets(void) {
  CHECK_STR(unit_parse("f() = 1\n"),
            "<test>:1:1: error: cannot assign to function call here. Maybe you meant '==' instead of '='?");
  CHECK_STR(unit_parse("x = yield = 1\n"),
            "<test>:1:5: error: assignment to yield expression not possible");
  CHECK_STR(unit_parse("del f()\n"),
            "<test>:1:5: error: cannot delete function call");
  CHECK_STR(unit_parse("del *a\n"),
            "<test>:1:5: error: cannot delete starred");
  CHECK_STR(unit_parse("for f() in x: pass\n"),
            "<test>:1:5: error: cannot assign to function call");
  CHECK_STR(unit_parse("with a as f(): pass\n"),
            "<test>:1:11: error: cannot assign to function call");
}

/* try needs except or finally */
static void test_error_try_without_handler(void) {
  CHECK_STR(unit_parse("try:\n    pass\n"),
            "<test>:2:9: error: expected 'except' or 'finally' block");
  CHECK_STR(unit_parse("try:\n    pass\nx = 1\n"),
            "<test>:3:1: error: expected 'except' or 'finally' block");
  CHECK_STR(unit_parse("try:\n    pass\nelse:\n    pass\n"),
            "<test>:3:1: error: expected 'except' or 'finally' block");
}

/* no mixing except and except* */
static void test_error_try_mixing_except_star(void) {
  CHECK_STR(unit_parse("try:\n    pass\nexcept E:\n    pass\nexcept* F:\n    pass\n"),
            "<test>:5:1: error: cannot have both 'except' and 'except*' on the same 'try'");
  CHECK_STR(unit_parse("try:\n    pass\nexcept* E:\n    pass\nexcept F:\n    pass\n"),
            "<test>:5:1: error: cannot have both 'except' and 'except*' on the same 'try'");
}

/* except* needs a type; several types need parentheses */
static void test_error_except_clauses(void) {
  CHECK_STR(unit_parse("try:\n    pass\nexcept* :\n    pass\n"),
            "<test>:3:9: error: expected one or more exception types");
  CHECK_STR(unit_parse("try:\n    pass\nexcept A, B:\n    pass\n"),
            "<test>:3:8: error: multiple exception types must be parenthesized");
  CHECK_STR(unit_parse("try:\n    pass\nexcept E as e.f:\n    pass\n"),
            "<test>:3:14: error: expected ':'");
}

static void test_error_imports(void) {
  CHECK_STR(unit_parse("from . import a,\n"),
            "<test>:1:17: error: trailing comma not allowed without surrounding parentheses");
  CHECK_STR(unit_parse("from a import b, c,\n"),
            "<test>:1:20: error: trailing comma not allowed without surrounding parentheses");
  CHECK_STR(unit_parse("from a import ()\n"),
            "<test>:1:16: error: invalid syntax at ')'");
  CHECK_STR(unit_parse("from a import (*)\n"),
            "<test>:1:16: error: invalid syntax at '*'");
  CHECK_STR(unit_parse("import a.b as c.d\n"),
            "<test>:1:16: error: invalid syntax at '.'");
  CHECK_STR(unit_parse("from import a\n"),
            "<test>:1:6: error: invalid syntax at 'import'");
  CHECK_STR(unit_parse("import\n"),
            "<test>:1:7: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("from . import\n"),
            "<test>:1:14: error: invalid syntax at end of line");
}

/* async only before def, for and with */
static void test_error_async(void) {
  CHECK_STR(unit_parse("async x = 1\n"),
            "<test>:1:7: error: invalid syntax at 'x'");
  CHECK_STR(unit_parse("async if x: pass\n"),
            "<test>:1:7: error: invalid syntax at 'if'");
  CHECK_STR(unit_parse("async\n"),
            "<test>:1:6: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("@d\nasync x\n"),
            "<test>:2:7: error: invalid syntax at 'x'");
}

/* a decorator must be followed by def or class */
static void test_error_decorators(void) {
  CHECK_STR(unit_parse("@a\nx = 1\n"),
            "<test>:2:1: error: invalid syntax at 'x'");
  CHECK_STR(unit_parse("@a b\ndef f(): pass\n"),
            "<test>:1:4: error: invalid syntax at 'b'");
}

static void test_error_type_params(void) {
  CHECK_STR(unit_parse("def f[](): pass\n"),
            "<test>:1:6: error: expected '('");
  CHECK_STR(unit_parse("class A[]: pass\n"),
            "<test>:1:9: error: invalid syntax at ']'");
  CHECK_STR(unit_parse("type X[] = int\n"),
            "<test>:1:8: error: invalid syntax at ']'");
  CHECK_STR(unit_parse("def f[*T: int](): pass\n"),
            "<test>:1:9: error: cannot use bound with TypeVarTuple");
  CHECK_STR(unit_parse("def f[*T: (int, str)](): pass\n"),
            "<test>:1:9: error: cannot use constraints with TypeVarTuple");
  CHECK_STR(unit_parse("def f[**P: int](): pass\n"),
            "<test>:1:10: error: cannot use bound with ParamSpec");
  CHECK_STR(unit_parse("def f[T = int](): pass\n"),
            "<test>:1:6: error: expected '('");
  CHECK_STR(unit_parse("type X\n"),
            "<test>:1:7: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("type X[T]\n"),
            "<test>:1:10: error: invalid syntax at end of line");
}

static void test_error_simple_statements(void) {
  CHECK_STR(unit_parse("global\n"),
            "<test>:1:7: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("global x,\n"),
            "<test>:1:10: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("raise from E\n"),
            "<test>:1:7: error: invalid syntax at 'from'");
  CHECK_STR(unit_parse("del\n"),
            "<test>:1:4: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("del x y\n"),
            "<test>:1:7: error: invalid syntax at 'y'");
  CHECK_STR(unit_parse("assert\n"),
            "<test>:1:7: error: invalid syntax at end of line");
  CHECK_STR(unit_parse("return x := 1\n"),
            "<test>:1:10: error: invalid syntax at ':='");
}

static void test_error_match_statement(void) {
  CHECK_STR(unit_parse("match x\n    case 1: pass\n"),
            "<test>:1:8: error: expected ':'");
  CHECK_STR(unit_parse("match x:\ncase 1: pass\n"),
            "<test>:2:1: error: expected an indented block after 'match' statement on line 1");
  CHECK_STR(unit_parse("match x:\n    case 1\n        pass\n"),
            "<test>:2:11: error: expected ':'");
  CHECK_STR(unit_parse("match x:\n    case 1:\n    pass\n"),
            "<test>:3:5: error: expected an indented block after 'case' statement on line 2");
  CHECK_STR(unit_parse("match x:\n    y = 1\n"),
            "<test>:2:5: error: invalid syntax at 'y'");
  CHECK_STR(unit_parse("match *a:\n    case 1: pass\n"),
            "<test>:1:9: error: invalid syntax at ':'");
}

static void test_error_class_pattern_order(void) {
  CHECK_STR(unit_parse("match x:\n    case C(a=1, b): pass\n"),
            "<test>:2:17: error: positional patterns follow keyword patterns");
  CHECK_STR(unit_parse("match x:\n    case C(a=1, *b): pass\n"),
            "<test>:2:17: error: invalid syntax at '*'");
}

/* real + imaginary only */
static void test_error_complex_literals(void) {
  CHECK_STR(unit_parse("match x:\n    case 1 + 2: pass\n"),
            "<test>:2:14: error: imaginary number required in complex literal");
  CHECK_STR(unit_parse("match x:\n    case 1j + 2j: pass\n"),
            "<test>:2:10: error: real number required in complex literal");
  CHECK_STR(unit_parse("match x:\n    case -1 - -2j: pass\n"),
            "<test>:2:15: error: invalid syntax at '-'");
}

static void test_error_as_pattern_targets(void) {
  CHECK_STR(unit_parse("match x:\n    case a as _: pass\n"),
            "<test>:2:15: error: cannot use '_' as a target");
  CHECK_STR(unit_parse("match x:\n    case a as 1: pass\n"),
            "<test>:2:15: error: invalid pattern target");
  CHECK_STR(unit_parse("match x:\n    case a as b.c: pass\n"),
            "<test>:2:16: error: invalid syntax at '.'");
}

/* `_` is always the wildcard: no `_.x`, no `_()` */
static void test_error_wildcard_is_no_name(void) {
  CHECK_STR(unit_parse("match x:\n    case _.x: pass\n"),
            "<test>:2:11: error: invalid syntax at '.'");
  CHECK_STR(unit_parse("match x:\n    case _(): pass\n"),
            "<test>:2:11: error: invalid syntax at '('");
}

static void test_error_patterns(void) {
  CHECK_STR(unit_parse("match x:\n    case {**_}: pass\n"),
            "<test>:2:13: error: invalid syntax at '_'");
  CHECK_STR(unit_parse("match x:\n    case {x: 1}: pass\n"),
            "<test>:2:12: error: invalid syntax at ':'");
  CHECK_STR(unit_parse("match x:\n    case *a: pass\n"),
            "<test>:2:12: error: invalid syntax at ':'");
  CHECK_STR(unit_parse("match x:\n    case (*a): pass\n"),
            "<test>:2:13: error: invalid syntax at ')'");
  CHECK_STR(unit_parse("match x:\n    case C(*a): pass\n"),
            "<test>:2:12: error: invalid syntax at '*'");
  CHECK_STR(unit_parse("match x:\n    case a.b=1: pass\n"),
            "<test>:2:13: error: invalid syntax at '='");
  CHECK_STR(unit_parse("match x:\n    case -a: pass\n"),
            "<test>:2:11: error: invalid syntax at 'a'");
  CHECK_STR(unit_parse("match x:\n    case {**r, 'a': 1}: pass\n"),
            "<test>:2:16: error: invalid syntax at ''a''");
  CHECK_STR(unit_parse("match x:\n    case 'a' b'b': pass\n"),
            "<test>:2:14: error: cannot mix bytes and nonbytes literals");
  CHECK_STR(unit_parse("match x:\n    case 'a'.b: pass\n"),
            "<test>:2:13: error: invalid syntax at '.'");
  CHECK_STR(unit_parse("match x:\n    case [a, b: pass\n"),
            "<test>:2:10: error: '[' was never closed");
}

/* a bare generator expression is no base */
static void test_error_class_bases(void) {
  CHECK_STR(unit_parse("class C(x for x in L):\n    pass\n"),
            "<test>:1:11: error: invalid syntax");
}

/* ------------------------------------------------------------------ spans */

static Node *statement(const UnitTree *parse, int index) {
  if (!parse->module || index >= parse->module->u.module.body.count)
    return NULL;
  return parse->module->u.module.body.items[index];
}

/* Lines 1-based, columns 0-based bytes: CPython's lineno/col_offset/
 * end_lineno/end_col_offset. */
#define CHECK_SPAN(node, l1, c1, l2, c2)                                     \
  do {                                                                       \
    const Node *n_ = (node);                                                 \
    CHECK(n_ != NULL);                                                       \
    if (n_) {                                                                \
      CHECK(n_->span.start.line == (l1) && n_->span.start.col == (c1));      \
      CHECK(n_->span.end.line == (l2) && n_->span.end.col == (c2));          \
      if (n_->span.start.line != (l1) || n_->span.start.col != (c1) ||       \
          n_->span.end.line != (l2) || n_->span.end.col != (c2))             \
        fprintf(stderr, "    span %d:%d-%d:%d\n", n_->span.start.line, n_->span.start.col, \
                n_->span.end.line, n_->span.end.col);                       \
    }                                                                        \
  } while (0)

/* Simple statements: from the first token to the last, `;` and comments
 * left out. */
static void test_span_simple_statements(void) {
  UnitTree parse = unit_parse_tree("x = 1  # c\na; b = 2;\n(a)\nimport a.b as c\nglobal a, b\n");
  CHECK_SPAN(statement(&parse, 0), 1, 0, 1, 5);
  CHECK_SPAN(statement(&parse, 1), 2, 0, 2, 1);
  CHECK_SPAN(statement(&parse, 2), 2, 3, 2, 8);
  CHECK_SPAN(statement(&parse, 3), 3, 0, 3, 3);
  Node *import = statement(&parse, 4);
  CHECK_SPAN(import, 4, 0, 4, 15);
  if (import)
    CHECK_SPAN(import->u.import.names.items[0], 4, 7, 4, 15);
  CHECK_SPAN(statement(&parse, 5), 5, 0, 5, 11);
  unit_free_tree(&parse);
}

/* Compound statements end with their last body statement; an elif chain
 * ends with the else body, each of its Ifs too. */
static void test_span_compound_statements(void) {
  UnitTree parse = unit_parse_tree("if a:\n    b\nelif c:\n    d\nelse:\n    e\n"
                               "for x in y:\n    pass\nelse:\n    z\n"
                               "try:\n    a\nexcept E:\n    b\nfinally:\n    c\n"
                               "class A(B):\n    x: int = 1\n");
  Node *if_ = statement(&parse, 0);
  CHECK_SPAN(if_, 1, 0, 6, 5);
  if (if_)
    CHECK_SPAN(if_->u.if_.orelse.items[0], 3, 0, 6, 5);
  CHECK_SPAN(statement(&parse, 1), 7, 0, 10, 5);
  Node *try_ = statement(&parse, 2);
  CHECK_SPAN(try_, 11, 0, 16, 5);
  if (try_)
    CHECK_SPAN(try_->u.try_.handlers.items[0], 13, 0, 14, 5);
  Node *class_ = statement(&parse, 3);
  CHECK_SPAN(class_, 17, 0, 18, 14);
  if (class_)
    CHECK_SPAN(class_->u.class_def.body.items[0], 18, 4, 18, 14);
  unit_free_tree(&parse);
}

/* A decorated definition starts at `def` (or `async`); the decorators have
 * their own spans. */
static void test_span_decorated_and_async(void) {
  UnitTree parse = unit_parse_tree("@d\ndef f():\n    pass\n@e\nasync def g():\n    async with a:\n        pass\n");
  Node *f = statement(&parse, 0);
  CHECK_SPAN(f, 2, 0, 3, 8);
  if (f)
    CHECK_SPAN(f->u.function_def.decorator_list.items[0], 1, 1, 1, 2);
  Node *g = statement(&parse, 1);
  CHECK_SPAN(g, 5, 0, 7, 12);
  if (g)
    CHECK_SPAN(g->u.function_def.body.items[0], 6, 4, 7, 12);
  unit_free_tree(&parse);
}

/* Patterns: an as-pattern starts at the group's '(' as in CPython, an open
 * sequence spans its items. */
static void test_span_patterns(void) {
  UnitTree parse = unit_parse_tree("match x:\n    case [a, *b] if a:\n        pass\n"
                               "match x:\n    case (a | b) as c, -1+2j:\n        pass\n");
  Node *match = statement(&parse, 0);
  CHECK_SPAN(match, 1, 0, 3, 12);
  if (match) {
    Node *pattern = match->u.match.cases.items[0]->u.match_case.pattern;
    CHECK_SPAN(pattern, 2, 9, 2, 16);
    CHECK_SPAN(pattern->u.match_sequence.patterns.items[1], 2, 13, 2, 15);
  }
  Node *second = statement(&parse, 1);
  if (second) {
    Node *sequence = second->u.match.cases.items[0]->u.match_case.pattern;
    CHECK_SPAN(sequence, 5, 9, 5, 28);
    Node *as = sequence->u.match_sequence.patterns.items[0];
    CHECK_SPAN(as, 5, 9, 5, 21);
    CHECK_SPAN(as->u.match_as.pattern, 5, 10, 5, 15);
    Node *value = sequence->u.match_sequence.patterns.items[1];
    CHECK_SPAN(value, 5, 23, 5, 28);
    CHECK_SPAN(value->u.match_value.value, 5, 23, 5, 28);
  }
  unit_free_tree(&parse);
}

/* Type params and type aliases; the parenthesized with items. */
static void test_span_type_params_and_with(void) {
  UnitTree parse = unit_parse_tree("type X[T: int] = list[T]\ndef f[*Ts, **P](): pass\nwith (a as b, c):\n    pass\n");
  Node *alias = statement(&parse, 0);
  CHECK_SPAN(alias, 1, 0, 1, 24);
  if (alias) {
    CHECK_SPAN(alias->u.type_alias.name, 1, 5, 1, 6);
    CHECK_SPAN(alias->u.type_alias.type_params.items[0], 1, 7, 1, 13);
  }
  Node *f = statement(&parse, 1);
  if (f) {
    CHECK_SPAN(f->u.function_def.type_params.items[0], 2, 6, 2, 9);
    CHECK_SPAN(f->u.function_def.type_params.items[1], 2, 11, 2, 14);
  }
  Node *with = statement(&parse, 2);
  CHECK_SPAN(with, 3, 0, 4, 8);
  if (with)
    CHECK_SPAN(with->u.with.items.items[0]->u.withitem.context_expr, 3, 6, 3, 7);
  unit_free_tree(&parse);
}

/* ---------------------------------------------------------------- limits */

/* Source text for `depth` nested blocks: `if x:` lines, one more level of
 * indentation each (malloc'd). */
static char *nested_ifs(int depth) {
  Buf buf = {0};
  for (int i = 0; i < depth; i++) {
    for (int j = 0; j < i; j++)
      buf_putc(&buf, ' ');
    buf_puts(&buf, "if x:\n");
  }
  for (int j = 0; j < depth; j++)
    buf_putc(&buf, ' ');
  buf_puts(&buf, "pass\n");
  return buf.data;
}

/* 99 nested blocks parse; 100 meet the tokenizer's indentation limit, a
 * located error. */
static void test_deep_nesting(void) {
  char *ok = nested_ifs(99);
  CHECK(strncmp(unit_parse(ok), "(Module (If", 11) == 0);
  free(ok);
  char *too_deep = nested_ifs(101);
  CHECK(strncmp(unit_parse(too_deep), "<test>:", 7) == 0 && strstr(unit_parse(too_deep), "error:") != NULL);
  free(too_deep);
}

/* A long elif chain costs no recursion in the parser: 3000 elifs parse
 * (the depth limit is 1000 nested rules). */
static void test_long_elif_chain(void) {
  Buf buf = {0};
  buf_puts(&buf, "if x:\n    pass\n");
  for (int i = 0; i < 3000; i++)
    buf_puts(&buf, "elif x:\n    pass\n");
  buf_puts(&buf, "else:\n    pass\n");
  buf_put(&buf, "", 0);
  UnitTree parse = unit_parse_tree(buf.data);
  Node *if_ = statement(&parse, 0);
  CHECK(if_ != NULL && if_->span.end.line == 6004);
  int chain = 0;
  for (Node *n = if_; n && n->kind == N_IF && n->u.if_.orelse.count == 1 && n->u.if_.orelse.items[0]->kind == N_IF;
       n = n->u.if_.orelse.items[0]) {
    chain++;
    CHECK(n->u.if_.orelse.items[0]->u.if_.is_elif);
  }
  CHECK(chain == 3000);
  unit_free_tree(&parse);
  buf_free(&buf);
}

/* Many statements and many cases in a row are loops, not recursion. */
static void test_many_statements(void) {
  Buf buf = {0};
  buf_puts(&buf, "match x:\n");
  for (int i = 0; i < 2000; i++)
    buf_printf(&buf, "    case %d:\n        y = %d; z = y\n", i, i);
  buf_put(&buf, "", 0);
  UnitTree parse = unit_parse_tree(buf.data);
  Node *match = statement(&parse, 0);
  CHECK(match != NULL && match->u.match.cases.count == 2000);
  unit_free_tree(&parse);
  buf_free(&buf);
}


/* The suite; test_parse.c calls it. */
void run_parse_stmt_tests(void) {
  UNIT_RUN(test_assign_chain);
  UNIT_RUN(test_assign_yield_value);
  UNIT_RUN(test_ann_assign);
  UNIT_RUN(test_aug_assign_ops);
  UNIT_RUN(test_expression_statements);
  UNIT_RUN(test_simple_statements_on_one_line);
  UNIT_RUN(test_return_statements);
  UNIT_RUN(test_raise_statements);
  UNIT_RUN(test_pass_break_continue);
  UNIT_RUN(test_del_statements);
  UNIT_RUN(test_global_nonlocal);
  UNIT_RUN(test_assert_statements);
  UNIT_RUN(test_import_statements);
  UNIT_RUN(test_from_import_statements);
  UNIT_RUN(test_type_alias);
  UNIT_RUN(test_type_as_a_name);
  UNIT_RUN(test_if_elif_else);
  UNIT_RUN(test_one_line_blocks);
  UNIT_RUN(test_while_else);
  UNIT_RUN(test_for_else);
  UNIT_RUN(test_async_forms);
  UNIT_RUN(test_with_items);
  UNIT_RUN(test_with_parenthesized_items);
  UNIT_RUN(test_with_parenthesized_expression);
  UNIT_RUN(test_try_except);
  UNIT_RUN(test_try_except_star);
  UNIT_RUN(test_bare_except_not_last_is_accepted);
  UNIT_RUN(test_function_defs);
  UNIT_RUN(test_function_type_params);
  UNIT_RUN(test_class_defs);
  UNIT_RUN(test_decorators);
  UNIT_RUN(test_match_subjects);
  UNIT_RUN(test_match_as_a_name);
  UNIT_RUN(test_case_and_underscore_as_names);
  UNIT_RUN(test_pattern_literals);
  UNIT_RUN(test_pattern_captures_and_wildcard);
  UNIT_RUN(test_pattern_values);
  UNIT_RUN(test_pattern_or);
  UNIT_RUN(test_pattern_groups_and_sequences);
  UNIT_RUN(test_pattern_star);
  UNIT_RUN(test_pattern_mappings);
  UNIT_RUN(test_pattern_classes);
  UNIT_RUN(test_pattern_guards);
  UNIT_RUN(test_pattern_fstring_is_left_to_the_compiler);
  UNIT_RUN(test_match_block_body);
  UNIT_RUN(test_nested_blocks);
  UNIT_RUN(test_empty_module);
  UNIT_RUN(test_no_final_newline);
  UNIT_RUN(test_soft_keyword_type_in_class);
  UNIT_RUN(test_legacy_print_is_an_expression);
  UNIT_RUN(test_error_expected_colon);
  UNIT_RUN(test_error_indented_block_after_if);
  UNIT_RUN(test_error_indented_block_after_loops);
  UNIT_RUN(test_error_indented_block_after_try);
  UNIT_RUN(test_error_indented_block_after_definitions);
  UNIT_RUN(test_error_indentation);
  UNIT_RUN(test_error_invalid_syntax);
  UNIT_RUN(test_error_annotation_targets);
  UNIT_RUN(test_error_augassign_targets);
  UNIT_RUN(test_error_assignment_targets);
  UNIT_RUN(test_error_try_without_handler);
  UNIT_RUN(test_error_try_mixing_except_star);
  UNIT_RUN(test_error_except_clauses);
  UNIT_RUN(test_error_imports);
  UNIT_RUN(test_error_async);
  UNIT_RUN(test_error_decorators);
  UNIT_RUN(test_error_type_params);
  UNIT_RUN(test_error_simple_statements);
  UNIT_RUN(test_error_match_statement);
  UNIT_RUN(test_error_class_pattern_order);
  UNIT_RUN(test_error_complex_literals);
  UNIT_RUN(test_error_as_pattern_targets);
  UNIT_RUN(test_error_wildcard_is_no_name);
  UNIT_RUN(test_error_patterns);
  UNIT_RUN(test_error_class_bases);
  UNIT_RUN(test_span_simple_statements);
  UNIT_RUN(test_span_compound_statements);
  UNIT_RUN(test_span_decorated_and_async);
  UNIT_RUN(test_span_patterns);
  UNIT_RUN(test_span_type_params_and_with);
  UNIT_RUN(test_deep_nesting);
  UNIT_RUN(test_long_elif_chain);
  UNIT_RUN(test_many_statements);
}
