/*
 * test_emit.c — the emitter: round-trip goldens (statements, expressions,
 * precedence, literals, comments, blank lines) through unit_roundtrip, and
 * synthesized trees without any `parenthesized` flag through the emitter's
 * own API (src/emit/emit.h), as the converter will build them.
 */
#include <stdlib.h>

#include "emit/emit.h"
#include "unit.h"

/* The source comes back unchanged. */
#define CHECK_SAME(source) CHECK_STR(unit_roundtrip(source), source)

/* ------------------------------------------------------------ statements */

static void test_empty_module(void) {
  CHECK_SAME("");
  CHECK_STR(unit_roundtrip("\n\n"), "");
}

static void test_simple_statements(void) {
  CHECK_SAME("pass\nbreak\ncontinue\n");
  CHECK_SAME("del a, b[0], c.d\n");
  CHECK_SAME("assert x, 'message'\n");
  CHECK_SAME("raise E from cause\nraise\n");
  CHECK_SAME("global a, b\nnonlocal c\n");
}

static void test_assignments(void) {
  CHECK_SAME("a = b = c\n");
  CHECK_SAME("a, b = b, a\n");
  CHECK_SAME("x += 1\ny @= z\nw //= 2\nv **= 3\n");
  CHECK_SAME("x: int\ny: list[int] = []\n");
  CHECK_SAME("(x): int = 1\n");
  CHECK_SAME("a.b: int\n");
  CHECK_SAME("[a, *b] = c\n");
}

static void test_imports(void) {
  CHECK_SAME("import os.path as p, sys\n");
  CHECK_SAME("from .. import x\nfrom .mod import a as b, c\nfrom m import *\n");
  CHECK_STR(unit_roundtrip("from . import (a as b,\n    c)\n"), "from . import a as b, c\n");
}

static void test_semicolons_become_lines(void) {
  CHECK_STR(unit_roundtrip("a = 1; b = 2\n"), "a = 1\nb = 2\n");
  CHECK_STR(unit_roundtrip("if x: y; z\n"), "if x:\n    y\n    z\n");
}

static void test_if_elif_else(void) {
  CHECK_SAME("if a:\n    x\nelif b:\n    y\nelif c:\n    z\nelse:\n    w\n");
  CHECK_SAME("if a:\n    x\nelse:\n    if b:\n        y\n");
}

static void test_loops(void) {
  CHECK_SAME("for i, j in pairs:\n    pass\nelse:\n    done()\n");
  CHECK_SAME("while x:\n    x -= 1\nelse:\n    pass\n");
  CHECK_SAME("for x in *a, b:\n    pass\n");
}

static void test_try(void) {
  CHECK_SAME("try:\n    a\n"
             "except (A, B) as e:\n    b\n"
             "except C:\n    c\n"
             "except:\n    d\n"
             "else:\n    e\n"
             "finally:\n    f\n");
  CHECK_SAME("try:\n    a\nexcept* E as group:\n    b\n");
}

static void test_with(void) {
  CHECK_SAME("with a as b, c as (d, e), f:\n    pass\n");
  CHECK_STR(unit_roundtrip("with (\n    a as b,\n    c,\n):\n    pass\n"), "with a as b, c:\n    pass\n");
  CHECK_SAME("with ((a, b)):\n    pass\n");
}

static void test_async(void) {
  CHECK_SAME("async def f():\n    async for x in y:\n        await x\n    async with a as b:\n        pass\n");
}

static void test_def_parameters(void) {
  CHECK_SAME("def f(a, b=1, /, c=2, *args, d, e=3, **kw):\n    pass\n");
  CHECK_SAME("def f(x: int = 1, *, y: str) -> bool:\n    pass\n");
  CHECK_SAME("def f(*args: *Ts):\n    pass\n");
  CHECK_SAME("def f(a, /):\n    pass\n");
}

static void test_decorators_and_classes(void) {
  CHECK_SAME("@dec\n@a.b(c)\n@x[0] or y\nclass C(B, metaclass=M):\n    pass\n");
  CHECK_STR(unit_roundtrip("class C():\n    pass\n"), "class C:\n    pass\n");
}

static void test_type_params(void) {
  CHECK_SAME("def f[T: int, *Ts, **P](x: T) -> T:\n    pass\n");
  CHECK_SAME("class C[T]:\n    pass\n");
  CHECK_SAME("type X[T] = list[T]\n");
}

static void test_match(void) {
  CHECK_SAME("match p:\n"
             "    case 0 | -1 | 1 + 2j:\n        pass\n"
             "    case None | True:\n        pass\n"
             "    case [a, *rest]:\n        pass\n"
             "    case (a, b):\n        pass\n"
             "    case {\"k\": v, **rest}:\n        pass\n"
             "    case Point(x, y=0) as pt if pt:\n        pass\n"
             "    case (a | b) as c:\n        pass\n"
             "    case a.b.C:\n        pass\n"
             "    case _:\n        pass\n");
  CHECK_SAME("match a, b:\n    case x, *_:\n        pass\n    case (y,):\n        pass\n");
}

/* ----------------------------------------------------------- expressions */

static void test_precedence_from_source(void) {
  CHECK_SAME("(a + b) * c\n");
  CHECK_SAME("-(x ** 2)\n");
  CHECK_SAME("(-x) ** 2\n");
  CHECK_SAME("a ** -b\n");
  CHECK_SAME("not (a and b)\n");
  CHECK_SAME("a - (b - c)\n");
  CHECK_SAME("x = (yield)\n");
  CHECK_SAME("1 .real\n");
  CHECK_SAME("(1).real\n");
  CHECK_SAME("1.5.real\n");
}

static void test_collections(void) {
  CHECK_SAME("x = (), (1,), [1, 2], {1, 2}, {}, {**a, b: c}\n");
  CHECK_SAME("a[1:2, ::3]\na[()]\na[*b]\na[:]\na[i,]\n");
  CHECK_STR(unit_roundtrip("a[x:=1]\n"), "a[x := 1]\n");
}

static void test_comprehensions(void) {
  CHECK_SAME("[x for x in y if x if not x]\n");
  CHECK_SAME("{k: v async for k, v in items}\n");
  CHECK_SAME("{x for x in y for z in x}\n");
  CHECK_SAME("f(x for x in y)\n");
  CHECK_SAME("f((x for x in y), z)\n");
}

static void test_calls_and_lambda(void) {
  CHECK_SAME("f(a, *b, c=1, **d)\n");
  CHECK_SAME("g = lambda: 0\nh = lambda a, b=1, *c, d, **e: a\n");
  CHECK_SAME("x = a if b else c\n");
  CHECK_SAME("y = (a if b else c) if d else e\n");
}

static void test_yield_and_await(void) {
  CHECK_SAME("def g():\n    yield\n    yield a, b\n    yield from h()\n    x = yield y\n");
  CHECK_SAME("async def f():\n    return await x ** 2\n");
}

static void test_named_expressions(void) {
  CHECK_SAME("if (n := len(a)) > 10:\n    pass\n");
  CHECK_SAME("while chunk := read():\n    pass\n");
  CHECK_SAME("print(x := 1)\n");
}

static void test_strings_as_spelled(void) {
  CHECK_SAME("x = 'a' \"b\" r'\\c' u'd'\ny = b'a' rb\"b\"\n");
  CHECK_STR(unit_roundtrip("x = ('a'\n     'b')\n"), "x = ('a' 'b')\n");
  CHECK_SAME("s = '''one\ntwo'''\n");
  CHECK_SAME("n = 0x_FF + 1_000 + 1e-3 + 2J\n");
}

static void test_fstrings(void) {
  CHECK_SAME("f'{a!r:>{width}} {{literal}}'\n");
  CHECK_SAME("f'{x = }' f\"{y=!s}\"\n");
  CHECK_SAME("f'{ {1: 2}[1]}'\n");
  CHECK_SAME("f'{(lambda: 1)()}'\n");
}

/* --------------------------------------------------------------- comments */

static void test_trailing_comments(void) {
  CHECK_SAME("x = 1  # note\n");
  CHECK_STR(unit_roundtrip("x = 1 # note   \n"), "x = 1  # note\n");
  CHECK_SAME("if x:  # header\n    pass  # body\n");
  CHECK_STR(unit_roundtrip("a = 1; b = 2  # both\n"), "a = 1\nb = 2  # both\n");
}

static void test_comments_inside_statement(void) {
  CHECK_STR(unit_roundtrip("x = [\n    1,  # one\n    2,\n]  # end\n"), "# one\nx = [1, 2]  # end\n");
  CHECK_STR(unit_roundtrip("def f(a,  # first\n      b):  # header\n    pass\n"),
            "# first\ndef f(a, b):  # header\n    pass\n");
}

static void test_own_line_comments(void) {
  CHECK_SAME("# top\n\nimport os\n\n\n# before f\ndef f():\n    # first\n    pass\n");
  CHECK_SAME("def f():\n    pass\n    # end of f\n\n# module level\nx = 1\n# the end\n");
}

static void test_comments_in_clauses(void) {
  CHECK_SAME("if a:\n    x\n    # still in if\n# before else\nelse:  # else header\n    y\n");
  CHECK_SAME("try:\n    a\n# before except\nexcept E:  # handler\n    b\nfinally:  # last\n    c\n");
}

static void test_comments_around_decorators(void) {
  CHECK_SAME("# lead\n@dec  # on dec\n# between\ndef f():  # on def\n    pass\n");
}

static void test_comment_block_levels(void) {
  CHECK_SAME("class A:\n    def f(self):\n        pass\n        # in f\n    # in A\n# outside\n");
}

static void test_coding_cookie_stays(void) {
  CHECK_SAME("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n");
  CHECK_STR(unit_roundtrip("\n# -*- coding: utf-8 -*-\nx = 1\n"), "\n# -*- coding: utf-8 -*-\nx = 1\n");
}

static void test_every_comment_once(void) {
  const char *source = "# a\nx = (1,  # b\n     2)  # c\n# d\nif x:  # e\n    # f\n    y = [  # g\n    ]  # h\n# i\n";
  const char *out = unit_roundtrip(source);
  int hashes = 0;
  for (const char *p = out; *p; p++)
    hashes += *p == '#';
  CHECK(hashes == 9);
}

/* ------------------------------------------------------------ blank lines */

static void test_blank_lines(void) {
  CHECK_SAME("a = 1\n\nb = 2\n\n\nc = 3\n");
  CHECK_STR(unit_roundtrip("a = 1\n\n\n\n\nb = 2\n"), "a = 1\n\n\nb = 2\n");
  CHECK_STR(unit_roundtrip("def f():\n\n    x = 1\n"), "def f():\n    x = 1\n");
  CHECK_STR(unit_roundtrip("x = 1   \n\t\n"), "x = 1\n");
}

static void test_blank_line_before_commented_statement(void) {
  CHECK_STR(unit_roundtrip("x = 1\n\ny = [  # c\n    1]\n"), "x = 1\n\n# c\ny = [1]\n");
}

static void test_block_one_line_body(void) {
  CHECK_STR(unit_roundtrip("class E(Exception): pass\n"), "class E(Exception):\n    pass\n");
  CHECK_STR(unit_roundtrip("if x: y = 1  # c\n"), "if x:\n    y = 1  # c\n");
}

static void test_indentation_normalized(void) {
  CHECK_STR(unit_roundtrip("if x:\n  if y:\n         z\n"), "if x:\n    if y:\n        z\n");
  CHECK_STR(unit_roundtrip("if x:\n\ty\n"), "if x:\n    y\n");
}

static void test_backslash_continuation(void) {
  CHECK_STR(unit_roundtrip("x = 1 + \\\n    2  # c\n"), "x = 1 + 2  # c\n");
}

/* ---------------------------------------------------- synthesized trees */

typedef struct Builder {
  Context ctx;
} Builder;

static Node *make(Builder *b, NodeKind kind) {
  Node *n = arena_alloc(&b->ctx.arena, sizeof(Node));
  n->kind = kind;
  return n;
}

static Node *name(Builder *b, const char *id) {
  Node *n = make(b, N_NAME);
  n->u.name.id = (Str){id, (int)strlen(id)};
  return n;
}

static Node *number(Builder *b, const char *text) {
  Node *n = make(b, N_CONSTANT);
  n->u.constant.kind = CONST_NUMBER;
  n->u.constant.text = (Str){text, (int)strlen(text)};
  return n;
}

static Node *bin_op(Builder *b, Node *left, AstOp op, Node *right) {
  Node *n = make(b, N_BIN_OP);
  n->u.bin_op.left = left;
  n->u.bin_op.op = op;
  n->u.bin_op.right = right;
  return n;
}

static Node *unary(Builder *b, AstOp op, Node *operand) {
  Node *n = make(b, N_UNARY_OP);
  n->u.unary_op.op = op;
  n->u.unary_op.operand = operand;
  return n;
}

static Node *bool_op(Builder *b, AstOp op, Node *x, Node *y) {
  Node *n = make(b, N_BOOL_OP);
  n->u.bool_op.op = op;
  node_list_push(&b->ctx.arena, &n->u.bool_op.values, x);
  node_list_push(&b->ctx.arena, &n->u.bool_op.values, y);
  return n;
}

static Node *tuple(Builder *b, Node *x, Node *y) {
  Node *n = make(b, N_TUPLE);
  if (x)
    node_list_push(&b->ctx.arena, &n->u.list.elts, x);
  if (y)
    node_list_push(&b->ctx.arena, &n->u.list.elts, y);
  return n;
}

static Node *attribute(Builder *b, Node *value, const char *attr) {
  Node *n = make(b, N_ATTRIBUTE);
  n->u.attribute.value = value;
  n->u.attribute.attr = (Str){attr, (int)strlen(attr)};
  return n;
}

static char emitted[256];

/* Emit `expr` with a bare emitter in `context`; the text in `emitted`. */
static const char *emit_synthesized(Builder *b, const Node *expr, Prec context) {
  Buf out = {0};
  Emitter e;
  emitter_init_bare(&e, &b->ctx, &out);
  emit_expr(&e, expr, context);
  snprintf(emitted, sizeof emitted, "%s", out.data ? out.data : "");
  buf_free(&out);
  return emitted;
}

static void test_synthesized_precedence(void) {
  Builder b = {0};
  arena_init(&b.ctx.arena);
  Node *a = name(&b, "a"), *x = name(&b, "x"), *c = name(&b, "c");
  CHECK_STR(emit_synthesized(&b, bin_op(&b, bin_op(&b, a, AOP_ADD, x), AOP_MULT, c), PREC_TEST), "(a + x) * c");
  CHECK_STR(emit_synthesized(&b, bin_op(&b, a, AOP_SUB, bin_op(&b, x, AOP_SUB, c)), PREC_TEST), "a - (x - c)");
  CHECK_STR(emit_synthesized(&b, bin_op(&b, bin_op(&b, a, AOP_SUB, x), AOP_SUB, c), PREC_TEST), "a - x - c");
  CHECK_STR(emit_synthesized(&b, unary(&b, AOP_USUB, bin_op(&b, x, AOP_POW, number(&b, "2"))), PREC_TEST), "-x ** 2");
  CHECK_STR(emit_synthesized(&b, bin_op(&b, unary(&b, AOP_USUB, x), AOP_POW, number(&b, "2")), PREC_TEST), "(-x) ** 2");
  CHECK_STR(emit_synthesized(&b, bin_op(&b, a, AOP_POW, unary(&b, AOP_USUB, x)), PREC_TEST), "a ** -x");
  CHECK_STR(emit_synthesized(&b, bin_op(&b, bin_op(&b, a, AOP_POW, x), AOP_POW, c), PREC_TEST), "(a ** x) ** c");
  CHECK_STR(emit_synthesized(&b, unary(&b, AOP_NOT, bool_op(&b, AOP_AND, a, x)), PREC_TEST), "not (a and x)");
  CHECK_STR(emit_synthesized(&b, bool_op(&b, AOP_OR, bool_op(&b, AOP_AND, a, x), c), PREC_TEST), "a and x or c");
  CHECK_STR(emit_synthesized(&b, bool_op(&b, AOP_AND, bool_op(&b, AOP_AND, a, x), c), PREC_TEST), "(a and x) and c");
  arena_free(&b.ctx.arena);
}

static void test_synthesized_tuples_and_atoms(void) {
  Builder b = {0};
  arena_init(&b.ctx.arena);
  Node *a = name(&b, "a"), *x = name(&b, "x");
  CHECK_STR(emit_synthesized(&b, tuple(&b, a, x), PREC_TUPLE), "a, x");
  CHECK_STR(emit_synthesized(&b, tuple(&b, a, x), PREC_TEST), "(a, x)");
  CHECK_STR(emit_synthesized(&b, tuple(&b, a, NULL), PREC_TUPLE), "a,");
  CHECK_STR(emit_synthesized(&b, tuple(&b, NULL, NULL), PREC_ATOM), "()");
  CHECK_STR(emit_synthesized(&b, attribute(&b, number(&b, "1"), "real"), PREC_TEST), "1 .real");
  CHECK_STR(emit_synthesized(&b, attribute(&b, bin_op(&b, a, AOP_ADD, x), "y"), PREC_TEST), "(a + x).y");
  arena_free(&b.ctx.arena);
}

static void test_unpacking(void) {
  CHECK_SAME("def f():\n    return *a, b\n");
  CHECK_STR(unit_roundtrip("print(*a or b)\n"), "print(*(a or b))\n");
  CHECK_SAME("first, *rest = items\n");
  CHECK_SAME("x = [*a, *b], {*c}, {**d, **e}\n");
}

static void test_delete_targets(void) {
  CHECK_SAME("del (a, b)\n");
  CHECK_SAME("del a, b\n");
  CHECK_SAME("del (a), [b]\n");
}

static void test_comparisons(void) {
  CHECK_SAME("a < b <= c != d\n");
  CHECK_SAME("x not in y is not z\n");
  CHECK_SAME("(a < b) < c\n");
  CHECK_SAME("a == (not b)\n");
}

static void test_await_operands(void) {
  CHECK_SAME("async def f():\n    await (a + b)\n    await a.b(c)[d]\n    (await a) ** 2\n");
}

static void test_lambda_placement(void) {
  CHECK_SAME("f = a or (lambda: b)\n");
  CHECK_SAME("g = x if y else lambda: z\n");
  CHECK_SAME("a[(lambda: 1):2]\n");
}

static void test_trailing_comment_on_one_line_clause(void) {
  CHECK_STR(unit_roundtrip("if a: b  # one\nelse: c  # two\n"), "if a:\n    b  # one\nelse:\n    c  # two\n");
}

static void test_comments_at_module_end(void) {
  CHECK_SAME("if x:\n    y\n\n# closing\n");
  CHECK_SAME("# only a comment\n");
}

static void test_coding_comment_kept_off_line_one(void) {
  CHECK_STR(unit_roundtrip("x = (1,\n# coding: latin-1\n2)\n"), "\n\n# coding: latin-1\nx = (1, 2)\n");
}

static void test_debug_field_comment_once(void) {
  const char *out = unit_roundtrip("x = f\"{1+2 = # note\n}\"\n");
  CHECK_STR(out, "x = f\"{1+2 = # note\n}\"\n");
}

static void test_generator_arguments(void) {
  CHECK_SAME("sum(x for x in y)\n");
  CHECK_SAME("f(a, (x for x in y))\n");
  CHECK_SAME("f((x for x in y), key=k)\n");
}

static Node *statement(Builder *b, NodeKind kind) { return make(b, kind); }

/* A synthesized module: if/elif/else with an empty body, emitted with the
 * statement API. */
static void test_synthesized_statements(void) {
  Builder b = {0};
  arena_init(&b.ctx.arena);
  Node *inner = statement(&b, N_IF);
  inner->u.if_.is_elif = true;
  inner->u.if_.test = name(&b, "c");
  Node *pass = statement(&b, N_PASS);
  node_list_push(&b.ctx.arena, &inner->u.if_.body, pass);
  Node *assign = statement(&b, N_ASSIGN);
  node_list_push(&b.ctx.arena, &assign->u.assign.targets, tuple(&b, name(&b, "a"), name(&b, "x")));
  assign->u.assign.value = tuple(&b, name(&b, "x"), name(&b, "a"));
  node_list_push(&b.ctx.arena, &inner->u.if_.orelse, assign);
  Node *outer = statement(&b, N_IF);
  outer->u.if_.test = bool_op(&b, AOP_OR, name(&b, "a"), name(&b, "x"));
  node_list_push(&b.ctx.arena, &outer->u.if_.orelse, inner);
  NodeList body = {0};
  node_list_push(&b.ctx.arena, &body, outer);
  Buf out = {0};
  Emitter e;
  emitter_init_bare(&e, &b.ctx, &out);
  emit_stmts(&e, &body, 0);
  CHECK_STR(out.data, "if a or x:\n    pass\nelif c:\n    pass\nelse:\n    a, x = x, a\n");
  buf_free(&out);
  arena_free(&b.ctx.arena);
}

static void test_synthesized_with_lone_tuple(void) {
  Builder b = {0};
  arena_init(&b.ctx.arena);
  Node *item = make(&b, N_WITHITEM);
  item->u.withitem.context_expr = tuple(&b, name(&b, "a"), name(&b, "x"));
  Node *with = statement(&b, N_WITH);
  node_list_push(&b.ctx.arena, &with->u.with.items, item);
  NodeList body = {0};
  node_list_push(&b.ctx.arena, &body, with);
  Buf out = {0};
  Emitter e;
  emitter_init_bare(&e, &b.ctx, &out);
  emit_stmts(&e, &body, 0);
  CHECK_STR(out.data, "with ((a, x)):\n    pass\n");
  buf_free(&out);
  arena_free(&b.ctx.arena);
}

/* Nesting past C2T_MAX_EMIT_DEPTH ends in a located error, not a crash. */
static void test_emit_depth_limit(void) {
  Builder b = {0};
  arena_init(&b.ctx.arena);
  b.ctx.diag.source = &b.ctx.source;
  Node *expr = name(&b, "x");
  for (int i = 0; i < C2T_MAX_EMIT_DEPTH + 10; i++)
    expr = unary(&b, AOP_USUB, expr);
  Buf out = {0};
  Emitter e;
  emitter_init_bare(&e, &b.ctx, &out);
  bool failed = false;
  if (setjmp(b.ctx.diag.on_error) == 0)
    emit_expr(&e, expr, PREC_TEST);
  else
    failed = true;
  CHECK(failed);
  CHECK(b.ctx.diag.messages.data && strstr(b.ctx.diag.messages.data, "too many nested nodes to write back (limit is 2000)"));
  buf_free(&out);
  buf_free(&b.ctx.diag.messages);
  arena_free(&b.ctx.arena);
}

void run_emit_tests(void) {
  UNIT_RUN(test_empty_module);
  UNIT_RUN(test_simple_statements);
  UNIT_RUN(test_assignments);
  UNIT_RUN(test_imports);
  UNIT_RUN(test_semicolons_become_lines);
  UNIT_RUN(test_if_elif_else);
  UNIT_RUN(test_loops);
  UNIT_RUN(test_try);
  UNIT_RUN(test_with);
  UNIT_RUN(test_async);
  UNIT_RUN(test_def_parameters);
  UNIT_RUN(test_decorators_and_classes);
  UNIT_RUN(test_type_params);
  UNIT_RUN(test_match);
  UNIT_RUN(test_precedence_from_source);
  UNIT_RUN(test_collections);
  UNIT_RUN(test_comprehensions);
  UNIT_RUN(test_calls_and_lambda);
  UNIT_RUN(test_yield_and_await);
  UNIT_RUN(test_named_expressions);
  UNIT_RUN(test_strings_as_spelled);
  UNIT_RUN(test_fstrings);
  UNIT_RUN(test_trailing_comments);
  UNIT_RUN(test_comments_inside_statement);
  UNIT_RUN(test_own_line_comments);
  UNIT_RUN(test_comments_in_clauses);
  UNIT_RUN(test_comments_around_decorators);
  UNIT_RUN(test_comment_block_levels);
  UNIT_RUN(test_coding_cookie_stays);
  UNIT_RUN(test_every_comment_once);
  UNIT_RUN(test_blank_lines);
  UNIT_RUN(test_blank_line_before_commented_statement);
  UNIT_RUN(test_block_one_line_body);
  UNIT_RUN(test_indentation_normalized);
  UNIT_RUN(test_backslash_continuation);
  UNIT_RUN(test_synthesized_precedence);
  UNIT_RUN(test_synthesized_tuples_and_atoms);
  UNIT_RUN(test_unpacking);
  UNIT_RUN(test_delete_targets);
  UNIT_RUN(test_comparisons);
  UNIT_RUN(test_await_operands);
  UNIT_RUN(test_lambda_placement);
  UNIT_RUN(test_trailing_comment_on_one_line_clause);
  UNIT_RUN(test_comments_at_module_end);
  UNIT_RUN(test_coding_comment_kept_off_line_one);
  UNIT_RUN(test_debug_field_comment_once);
  UNIT_RUN(test_generator_arguments);
  UNIT_RUN(test_synthesized_statements);
  UNIT_RUN(test_synthesized_with_lone_tuple);
  UNIT_RUN(test_emit_depth_limit);
}
