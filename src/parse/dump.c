/*
 * dump.c — a compact S-expression dump of the syntax tree, for tests and
 * debugging, and the CPython class name of each node kind.
 *
 * Format. A node is `(ClassName field field ...)`, fields separated by one
 * space, in CPython's field order unless noted below:
 *
 *   - a child node is dumped recursively; a NULL child is `-`;
 *   - a list of nodes is `[a b c]` (`[]` when empty);
 *   - identifiers, operators and literals are written bare: `(Name a)`,
 *     `(BinOp (Name a) Add (Constant 1))`, `(Constant 'it''s')`;
 *   - the expression context is written only when it is not Load:
 *     `(Name a Store)`, `(Subscript (Name a) (Name i) Del)`;
 *   - booleans (is_async aside) and ints as numbers: `(AnnAssign ... 1)`.
 *
 * Kind by kind (X? = node or `-`, [X] = list):
 *
 *   (Module stmt...)                     the statements, not bracketed
 *   (FunctionDef name (arguments ...) [body] [decorators] returns?)
 *                                        AsyncFunctionDef when is_async;
 *                                        then ` type_params=[...]` if any
 *   (ClassDef name [bases] [keywords] [body] [decorators])  (+ type_params=)
 *   (Return value?)  (Delete [targets])  (Assign target... value)
 *   (TypeAlias name [type_params] value)  (AugAssign target Op value)
 *   (AnnAssign target annotation value? simple)
 *   (For target iter [body] [orelse])    AsyncFor when is_async
 *   (While test [body] [orelse])  (If test [body] [orelse])
 *   (With [withitems] [body])            AsyncWith when is_async
 *   (Match subject [match_cases])  (Raise exc? cause?)
 *   (Try [body] [handlers] [orelse] [finalbody])  TryStar when is_star
 *   (Assert test msg?)  (Import [aliases])  (ImportFrom module? [aliases] level)
 *   (Global name...)  (Nonlocal name...)  (Expr value)  (Pass) (Break) (Continue)
 *   (Comment text)                       a converter-made comment line
 *   (BoolOp Or [values])  (NamedExpr target value)  (BinOp left Op right)
 *   (UnaryOp USub operand)  (Lambda (arguments ...) body)  (IfExp test body orelse)
 *   (Dict [keys] [values])  (Set [elts])  (ListComp elt [comprehensions])
 *   (SetComp ...) (GeneratorExp ...) (DictComp key value [comprehensions])
 *   (Await v) (Yield v?) (YieldFrom v)  (Compare left [Ops] [comparators])
 *   (Call func [args] [keywords])
 *   (Constant 1) (Constant None) (Constant ...)   numbers and singletons as spelled
 *   (Constant 'a' "b")                   a string: its literal tokens as spelled
 *   (JoinedStr part...)                  a string with an f-string among its
 *                                        parts: plain tokens as spelled,
 *                                        f-strings as below
 *   (FString f" part... ")               one f-string: opening, parts, closing
 *   (Text abc)                           f-string literal text as spelled
 *   (FormattedValue value conversion format_spec)   conversion: - s r a;
 *                                        format_spec: - or (FormatSpec part...);
 *                                        then ` debug="x = "` for `{x = }`
 *   (Attribute value attr) (Subscript value slice) (Starred value)
 *   (Name id) (List [elts]) (Tuple [elts]) (Slice lower? upper? step?)
 *   (arguments posonly=[...] args=[...] vararg=X kwonly=[...] kw_defaults=[...]
 *              kwarg=X defaults=[...])   only the fields that are not empty
 *   (arg name) (arg name annotation)  (keyword name value), (keyword - value) for `**v`
 *   (alias name) (alias name asname)  (withitem context_expr optional_vars?)
 *   (ExceptHandler type? name? [body])  (comprehension target iter [ifs] is_async)
 *   (match_case pattern guard? [body])
 *   (TypeVar name) (TypeVar name bound) (ParamSpec name) (TypeVarTuple name)
 *   (MatchValue value) (MatchSingleton None) (MatchSequence [patterns])
 *   (MatchMapping [keys] [patterns] rest?)
 *   (MatchClass cls [patterns] [kwd_attrs] [kwd_patterns])
 *   (MatchStar name?) (MatchAs pattern? name?) (MatchOr [patterns])
 *
 * Identifiers that may be absent (ExceptHandler name, ImportFrom module,
 * MatchMapping rest, MatchStar / MatchAs name) are `-` when absent.
 *
 * `parenthesized` is not shown. Nesting deeper than DUMP_MAX_DEPTH is
 * written as `...` so that a huge tree cannot exhaust the stack.
 */
#include "parser.h"

#define DUMP_MAX_DEPTH 5000

static const char *const NODE_KIND_NAMES[N_KIND_COUNT] = {
    [N_MODULE] = "Module",
    [N_FUNCTION_DEF] = "FunctionDef",
    [N_CLASS_DEF] = "ClassDef",
    [N_RETURN] = "Return",
    [N_DELETE] = "Delete",
    [N_ASSIGN] = "Assign",
    [N_TYPE_ALIAS] = "TypeAlias",
    [N_AUG_ASSIGN] = "AugAssign",
    [N_ANN_ASSIGN] = "AnnAssign",
    [N_FOR] = "For",
    [N_WHILE] = "While",
    [N_IF] = "If",
    [N_WITH] = "With",
    [N_MATCH] = "Match",
    [N_RAISE] = "Raise",
    [N_TRY] = "Try",
    [N_ASSERT] = "Assert",
    [N_IMPORT] = "Import",
    [N_IMPORT_FROM] = "ImportFrom",
    [N_GLOBAL] = "Global",
    [N_NONLOCAL] = "Nonlocal",
    [N_EXPR_STMT] = "Expr",
    [N_PASS] = "Pass",
    [N_BREAK] = "Break",
    [N_CONTINUE] = "Continue",
    [N_BOOL_OP] = "BoolOp",
    [N_NAMED_EXPR] = "NamedExpr",
    [N_BIN_OP] = "BinOp",
    [N_UNARY_OP] = "UnaryOp",
    [N_LAMBDA] = "Lambda",
    [N_IF_EXP] = "IfExp",
    [N_DICT] = "Dict",
    [N_SET] = "Set",
    [N_LIST_COMP] = "ListComp",
    [N_SET_COMP] = "SetComp",
    [N_DICT_COMP] = "DictComp",
    [N_GENERATOR_EXP] = "GeneratorExp",
    [N_AWAIT] = "Await",
    [N_YIELD] = "Yield",
    [N_YIELD_FROM] = "YieldFrom",
    [N_COMPARE] = "Compare",
    [N_CALL] = "Call",
    [N_CONSTANT] = "Constant",
    [N_STRING] = "Constant",        /* JoinedStr when it holds an f-string */
    [N_STRING_TOKEN] = "Constant",  /* one piece of a Constant or JoinedStr */
    [N_FSTRING] = "JoinedStr",
    [N_FSTRING_TEXT] = "Constant",  /* the literal text of a JoinedStr */
    [N_FORMATTED_VALUE] = "FormattedValue",
    [N_ATTRIBUTE] = "Attribute",
    [N_SUBSCRIPT] = "Subscript",
    [N_STARRED] = "Starred",
    [N_NAME] = "Name",
    [N_LIST] = "List",
    [N_TUPLE] = "Tuple",
    [N_SLICE] = "Slice",
    [N_ARGUMENTS] = "arguments",
    [N_ARG] = "arg",
    [N_KEYWORD] = "keyword",
    [N_ALIAS] = "alias",
    [N_WITHITEM] = "withitem",
    [N_EXCEPT_HANDLER] = "ExceptHandler",
    [N_COMPREHENSION] = "comprehension",
    [N_MATCH_CASE] = "match_case",
    [N_TYPE_VAR] = "TypeVar",
    [N_PARAM_SPEC] = "ParamSpec",
    [N_TYPE_VAR_TUPLE] = "TypeVarTuple",
    [N_MATCH_VALUE] = "MatchValue",
    [N_MATCH_SINGLETON] = "MatchSingleton",
    [N_MATCH_SEQUENCE] = "MatchSequence",
    [N_MATCH_MAPPING] = "MatchMapping",
    [N_MATCH_CLASS] = "MatchClass",
    [N_MATCH_STAR] = "MatchStar",
    [N_MATCH_AS] = "MatchAs",
    [N_MATCH_OR] = "MatchOr",
    [N_COMMENT] = "Comment",        /* the converter's comment lines; not in CPython */
};

/* The CPython ast class of a node kind. Kinds that CPython spells in more
 * than one way are named by their usual form (FunctionDef, not
 * AsyncFunctionDef; Try, not TryStar; Constant for a string); the dump
 * picks the exact one from the node. */
const char *node_kind_name(NodeKind kind) {
  if ((int)kind < 0 || kind >= N_KIND_COUNT || !NODE_KIND_NAMES[kind])
    return "?";
  return NODE_KIND_NAMES[kind];
}

static const char *const AST_OP_NAMES[AOP_COUNT] = {
    [AOP_NONE] = "?",
    [AOP_ADD] = "Add", [AOP_SUB] = "Sub", [AOP_MULT] = "Mult", [AOP_MATMULT] = "MatMult",
    [AOP_DIV] = "Div", [AOP_MOD] = "Mod", [AOP_POW] = "Pow", [AOP_LSHIFT] = "LShift",
    [AOP_RSHIFT] = "RShift", [AOP_BITOR] = "BitOr", [AOP_BITXOR] = "BitXor",
    [AOP_BITAND] = "BitAnd", [AOP_FLOORDIV] = "FloorDiv",
    [AOP_INVERT] = "Invert", [AOP_NOT] = "Not", [AOP_UADD] = "UAdd", [AOP_USUB] = "USub",
    [AOP_AND] = "And", [AOP_OR] = "Or",
    [AOP_EQ] = "Eq", [AOP_NOTEQ] = "NotEq", [AOP_LT] = "Lt", [AOP_LTE] = "LtE", [AOP_GT] = "Gt",
    [AOP_GTE] = "GtE", [AOP_IS] = "Is", [AOP_ISNOT] = "IsNot", [AOP_IN] = "In", [AOP_NOTIN] = "NotIn",
};

static const char *ast_op_name(AstOp op) {
  if ((int)op < 0 || op >= AOP_COUNT || !AST_OP_NAMES[op])
    return "?";
  return AST_OP_NAMES[op];
}

typedef struct Dumper {
  Buf *out;
  int depth;
} Dumper;

static void dump(Dumper *d, const Node *node);

static void put_space(Dumper *d) { buf_putc(d->out, ' '); }

static void put_str(Dumper *d, Str s) {
  if (s.len == 0)
    buf_putc(d->out, '-');
  else
    buf_put(d->out, s.text, (size_t)s.len);
}

/* ` child` */
static void field(Dumper *d, const Node *child) {
  put_space(d);
  dump(d, child);
}

/* ` [a b c]` */
static void list_field(Dumper *d, const NodeList *list) {
  buf_puts(d->out, " [");
  for (int i = 0; i < list->count; i++) {
    if (i)
      put_space(d);
    dump(d, list->items[i]);
  }
  buf_putc(d->out, ']');
}

/* ` a b c` (the items of a list, not bracketed) */
static void inline_items(Dumper *d, const NodeList *list) {
  for (int i = 0; i < list->count; i++)
    field(d, list->items[i]);
}

/* ` name=[...]` when the list is not empty */
static void labeled_list(Dumper *d, const char *name, const NodeList *list) {
  if (list->count == 0)
    return;
  buf_printf(d->out, " %s=[", name);
  for (int i = 0; i < list->count; i++) {
    if (i)
      put_space(d);
    dump(d, list->items[i]);
  }
  buf_putc(d->out, ']');
}

/* ` name=X` when the node is present */
static void labeled_node(Dumper *d, const char *name, const Node *node) {
  if (!node)
    return;
  buf_printf(d->out, " %s=", name);
  dump(d, node);
}

static void str_field(Dumper *d, Str s) {
  put_space(d);
  put_str(d, s);
}

static void context(Dumper *d, ExprContext ctx) {
  if (ctx == CTX_STORE)
    buf_puts(d->out, " Store");
  else if (ctx == CTX_DEL)
    buf_puts(d->out, " Del");
}

static bool string_has_fstring(const Node *node) {
  for (int i = 0; i < node->u.string.parts.count; i++)
    if (node->u.string.parts.items[i]->kind == N_FSTRING)
      return true;
  return false;
}

static const char *constant_spelling(const Node *node) {
  switch (node->u.constant.kind) {
  case CONST_NONE: return "None";
  case CONST_TRUE: return "True";
  case CONST_FALSE: return "False";
  case CONST_ELLIPSIS: return "...";
  default: return NULL;
  }
}

/* The class name and the fields of statements. Returns false for kinds
 * that are not statements. */
static bool dump_statement(Dumper *d, const Node *n) {
  Buf *out = d->out;
  switch (n->kind) {
  case N_MODULE:
    buf_puts(out, "Module");
    inline_items(d, &n->u.module.body);
    return true;
  case N_FUNCTION_DEF:
    buf_puts(out, n->u.function_def.is_async ? "AsyncFunctionDef" : "FunctionDef");
    str_field(d, n->u.function_def.name);
    field(d, n->u.function_def.args);
    list_field(d, &n->u.function_def.body);
    list_field(d, &n->u.function_def.decorator_list);
    field(d, n->u.function_def.returns);
    labeled_list(d, "type_params", &n->u.function_def.type_params);
    return true;
  case N_CLASS_DEF:
    buf_puts(out, "ClassDef");
    str_field(d, n->u.class_def.name);
    list_field(d, &n->u.class_def.bases);
    list_field(d, &n->u.class_def.keywords);
    list_field(d, &n->u.class_def.body);
    list_field(d, &n->u.class_def.decorator_list);
    labeled_list(d, "type_params", &n->u.class_def.type_params);
    return true;
  case N_RETURN:
    buf_puts(out, "Return");
    field(d, n->u.return_.value);
    return true;
  case N_DELETE:
    buf_puts(out, "Delete");
    list_field(d, &n->u.delete_.targets);
    return true;
  case N_ASSIGN:
    buf_puts(out, "Assign");
    inline_items(d, &n->u.assign.targets);
    field(d, n->u.assign.value);
    return true;
  case N_TYPE_ALIAS:
    buf_puts(out, "TypeAlias");
    field(d, n->u.type_alias.name);
    list_field(d, &n->u.type_alias.type_params);
    field(d, n->u.type_alias.value);
    return true;
  case N_AUG_ASSIGN:
    buf_puts(out, "AugAssign");
    field(d, n->u.aug_assign.target);
    buf_printf(out, " %s", ast_op_name(n->u.aug_assign.op));
    field(d, n->u.aug_assign.value);
    return true;
  case N_ANN_ASSIGN:
    buf_puts(out, "AnnAssign");
    field(d, n->u.ann_assign.target);
    field(d, n->u.ann_assign.annotation);
    field(d, n->u.ann_assign.value);
    buf_printf(out, " %d", n->u.ann_assign.simple ? 1 : 0);
    return true;
  case N_FOR:
    buf_puts(out, n->u.for_.is_async ? "AsyncFor" : "For");
    field(d, n->u.for_.target);
    field(d, n->u.for_.iter);
    list_field(d, &n->u.for_.body);
    list_field(d, &n->u.for_.orelse);
    return true;
  case N_WHILE:
    buf_puts(out, "While");
    field(d, n->u.while_.test);
    list_field(d, &n->u.while_.body);
    list_field(d, &n->u.while_.orelse);
    return true;
  case N_IF:
    buf_puts(out, "If");
    field(d, n->u.if_.test);
    list_field(d, &n->u.if_.body);
    list_field(d, &n->u.if_.orelse);
    return true;
  case N_WITH:
    buf_puts(out, n->u.with.is_async ? "AsyncWith" : "With");
    list_field(d, &n->u.with.items);
    list_field(d, &n->u.with.body);
    return true;
  case N_MATCH:
    buf_puts(out, "Match");
    field(d, n->u.match.subject);
    list_field(d, &n->u.match.cases);
    return true;
  case N_RAISE:
    buf_puts(out, "Raise");
    field(d, n->u.raise.exc);
    field(d, n->u.raise.cause);
    return true;
  case N_TRY:
    buf_puts(out, n->u.try_.is_star ? "TryStar" : "Try");
    list_field(d, &n->u.try_.body);
    list_field(d, &n->u.try_.handlers);
    list_field(d, &n->u.try_.orelse);
    list_field(d, &n->u.try_.finalbody);
    return true;
  case N_ASSERT:
    buf_puts(out, "Assert");
    field(d, n->u.assert_.test);
    field(d, n->u.assert_.msg);
    return true;
  case N_IMPORT:
    buf_puts(out, "Import");
    list_field(d, &n->u.import.names);
    return true;
  case N_IMPORT_FROM:
    buf_puts(out, "ImportFrom");
    str_field(d, n->u.import_from.module);
    list_field(d, &n->u.import_from.names);
    buf_printf(out, " %d", n->u.import_from.level);
    return true;
  case N_GLOBAL:
  case N_NONLOCAL:
    buf_puts(out, n->kind == N_GLOBAL ? "Global" : "Nonlocal");
    for (int i = 0; i < n->u.global.names.count; i++) {
      const Node *name = n->u.global.names.items[i];
      if (name && name->kind == N_NAME)
        str_field(d, name->u.name.id);
      else
        field(d, name);
    }
    return true;
  case N_EXPR_STMT:
    buf_puts(out, "Expr");
    field(d, n->u.expr_stmt.value);
    return true;
  case N_PASS: buf_puts(out, "Pass"); return true;
  case N_COMMENT:
    buf_puts(out, "Comment ");
    put_str(d, n->u.piece.text);
    return true;
  case N_BREAK: buf_puts(out, "Break"); return true;
  case N_CONTINUE: buf_puts(out, "Continue"); return true;
  default: return false;
  }
}

/* The parts of an f-string (or of a format spec). */
static void fstring_parts(Dumper *d, const Node *n) { inline_items(d, &n->u.fstring.parts); }

static bool dump_expression(Dumper *d, const Node *n) {
  Buf *out = d->out;
  switch (n->kind) {
  case N_BOOL_OP:
    buf_printf(out, "BoolOp %s", ast_op_name(n->u.bool_op.op));
    list_field(d, &n->u.bool_op.values);
    return true;
  case N_NAMED_EXPR:
    buf_puts(out, "NamedExpr");
    field(d, n->u.named_expr.target);
    field(d, n->u.named_expr.value);
    return true;
  case N_BIN_OP:
    buf_puts(out, "BinOp");
    field(d, n->u.bin_op.left);
    buf_printf(out, " %s", ast_op_name(n->u.bin_op.op));
    field(d, n->u.bin_op.right);
    return true;
  case N_UNARY_OP:
    buf_printf(out, "UnaryOp %s", ast_op_name(n->u.unary_op.op));
    field(d, n->u.unary_op.operand);
    return true;
  case N_LAMBDA:
    buf_puts(out, "Lambda");
    field(d, n->u.lambda.args);
    field(d, n->u.lambda.body);
    return true;
  case N_IF_EXP:
    buf_puts(out, "IfExp");
    field(d, n->u.if_exp.test);
    field(d, n->u.if_exp.body);
    field(d, n->u.if_exp.orelse);
    return true;
  case N_DICT:
    buf_puts(out, "Dict");
    list_field(d, &n->u.dict.keys);
    list_field(d, &n->u.dict.values);
    return true;
  case N_SET:
    buf_puts(out, "Set");
    list_field(d, &n->u.set.elts);
    return true;
  case N_LIST_COMP:
  case N_SET_COMP:
  case N_GENERATOR_EXP:
    buf_puts(out, node_kind_name(n->kind));
    field(d, n->u.comp.elt);
    list_field(d, &n->u.comp.generators);
    return true;
  case N_DICT_COMP:
    buf_puts(out, "DictComp");
    field(d, n->u.dict_comp.key);
    field(d, n->u.dict_comp.value);
    list_field(d, &n->u.dict_comp.generators);
    return true;
  case N_AWAIT:
    buf_puts(out, "Await");
    field(d, n->u.await.value);
    return true;
  case N_YIELD:
  case N_YIELD_FROM:
    buf_puts(out, n->kind == N_YIELD ? "Yield" : "YieldFrom");
    field(d, n->u.yield.value);
    return true;
  case N_COMPARE:
    buf_puts(out, "Compare");
    field(d, n->u.compare.left);
    buf_puts(out, " [");
    for (int i = 0; i < n->u.compare.count; i++)
      buf_printf(out, "%s%s", i ? " " : "", ast_op_name(n->u.compare.ops[i]));
    buf_puts(out, "] [");
    for (int i = 0; i < n->u.compare.count; i++) {
      if (i)
        put_space(d);
      dump(d, n->u.compare.comparators[i]);
    }
    buf_putc(out, ']');
    return true;
  case N_CALL:
    buf_puts(out, "Call");
    field(d, n->u.call.func);
    list_field(d, &n->u.call.args);
    list_field(d, &n->u.call.keywords);
    return true;
  case N_CONSTANT: {
    const char *spelling = constant_spelling(n);
    buf_puts(out, "Constant ");
    if (spelling)
      buf_puts(out, spelling);
    else
      put_str(d, n->u.constant.text);
    return true;
  }
  case N_STRING:
    buf_puts(out, string_has_fstring(n) ? "JoinedStr" : "Constant");
    inline_items(d, &n->u.string.parts);
    return true;
  case N_FSTRING:
    if (n->u.fstring.prefix_and_quote.len == 0) {
      buf_puts(out, "FormatSpec");
      fstring_parts(d, n);
    } else {
      buf_puts(out, "FString ");
      put_str(d, n->u.fstring.prefix_and_quote);
      fstring_parts(d, n);
      str_field(d, n->u.fstring.closing_quote);
    }
    return true;
  case N_FSTRING_TEXT:
    buf_puts(out, "Text ");
    put_str(d, n->u.piece.text);
    return true;
  case N_FORMATTED_VALUE:
    buf_puts(out, "FormattedValue");
    field(d, n->u.formatted_value.value);
    if (n->u.formatted_value.conversion < 0)
      buf_puts(out, " -");
    else
      buf_printf(out, " %c", n->u.formatted_value.conversion);
    field(d, n->u.formatted_value.format_spec);
    if (n->u.formatted_value.debug_text.len > 0)
      buf_printf(out, " debug=\"%.*s\"", n->u.formatted_value.debug_text.len, n->u.formatted_value.debug_text.text);
    return true;
  case N_ATTRIBUTE:
    buf_puts(out, "Attribute");
    field(d, n->u.attribute.value);
    str_field(d, n->u.attribute.attr);
    context(d, n->u.attribute.ctx);
    return true;
  case N_SUBSCRIPT:
    buf_puts(out, "Subscript");
    field(d, n->u.subscript.value);
    field(d, n->u.subscript.slice);
    context(d, n->u.subscript.ctx);
    return true;
  case N_STARRED:
    buf_puts(out, "Starred");
    field(d, n->u.starred.value);
    context(d, n->u.starred.ctx);
    return true;
  case N_NAME:
    buf_puts(out, "Name");
    str_field(d, n->u.name.id);
    context(d, n->u.name.ctx);
    return true;
  case N_LIST:
  case N_TUPLE:
    buf_puts(out, n->kind == N_LIST ? "List" : "Tuple");
    list_field(d, &n->u.list.elts);
    context(d, n->u.list.ctx);
    return true;
  case N_SLICE:
    buf_puts(out, "Slice");
    field(d, n->u.slice.lower);
    field(d, n->u.slice.upper);
    field(d, n->u.slice.step);
    return true;
  default:
    return false;
  }
}

static bool dump_auxiliary(Dumper *d, const Node *n) {
  Buf *out = d->out;
  switch (n->kind) {
  case N_STRING_TOKEN:
    put_str(d, n->u.piece.text);
    return true;
  case N_ARGUMENTS:
    buf_puts(out, "arguments");
    labeled_list(d, "posonly", &n->u.arguments.posonlyargs);
    labeled_list(d, "args", &n->u.arguments.args);
    labeled_node(d, "vararg", n->u.arguments.vararg);
    labeled_list(d, "kwonly", &n->u.arguments.kwonlyargs);
    labeled_list(d, "kw_defaults", &n->u.arguments.kw_defaults);
    labeled_node(d, "kwarg", n->u.arguments.kwarg);
    labeled_list(d, "defaults", &n->u.arguments.defaults);
    return true;
  case N_ARG:
    buf_puts(out, "arg");
    str_field(d, n->u.arg.arg);
    if (n->u.arg.annotation)
      field(d, n->u.arg.annotation);
    return true;
  case N_KEYWORD:
    buf_puts(out, "keyword");
    str_field(d, n->u.keyword.arg);
    field(d, n->u.keyword.value);
    return true;
  case N_ALIAS:
    buf_puts(out, "alias");
    str_field(d, n->u.alias.name);
    if (n->u.alias.asname.len)
      str_field(d, n->u.alias.asname);
    return true;
  case N_WITHITEM:
    buf_puts(out, "withitem");
    field(d, n->u.withitem.context_expr);
    field(d, n->u.withitem.optional_vars);
    return true;
  case N_EXCEPT_HANDLER:
    buf_puts(out, "ExceptHandler");
    field(d, n->u.except_handler.type);
    str_field(d, n->u.except_handler.name);
    list_field(d, &n->u.except_handler.body);
    return true;
  case N_COMPREHENSION:
    buf_puts(out, "comprehension");
    field(d, n->u.comprehension.target);
    field(d, n->u.comprehension.iter);
    list_field(d, &n->u.comprehension.ifs);
    buf_printf(out, " %d", n->u.comprehension.is_async ? 1 : 0);
    return true;
  case N_MATCH_CASE:
    buf_puts(out, "match_case");
    field(d, n->u.match_case.pattern);
    field(d, n->u.match_case.guard);
    list_field(d, &n->u.match_case.body);
    return true;
  case N_TYPE_VAR:
  case N_PARAM_SPEC:
  case N_TYPE_VAR_TUPLE:
    buf_puts(out, node_kind_name(n->kind));
    str_field(d, n->u.type_param.name);
    if (n->u.type_param.bound)
      field(d, n->u.type_param.bound);
    return true;
  default:
    return false;
  }
}

static bool dump_pattern(Dumper *d, const Node *n) {
  Buf *out = d->out;
  switch (n->kind) {
  case N_MATCH_VALUE:
    buf_puts(out, "MatchValue");
    field(d, n->u.match_value.value);
    return true;
  case N_MATCH_SINGLETON: {
    ConstantKind value = n->u.match_singleton.value;
    buf_printf(out, "MatchSingleton %s",
               value == CONST_NONE ? "None" : value == CONST_TRUE ? "True" : value == CONST_FALSE ? "False" : "?");
    return true;
  }
  case N_MATCH_SEQUENCE:
    buf_puts(out, "MatchSequence");
    list_field(d, &n->u.match_sequence.patterns);
    return true;
  case N_MATCH_MAPPING:
    buf_puts(out, "MatchMapping");
    list_field(d, &n->u.match_mapping.keys);
    list_field(d, &n->u.match_mapping.patterns);
    str_field(d, n->u.match_mapping.rest);
    return true;
  case N_MATCH_CLASS:
    buf_puts(out, "MatchClass");
    field(d, n->u.match_class.cls);
    list_field(d, &n->u.match_class.patterns);
    buf_puts(out, " [");
    for (int i = 0; i < n->u.match_class.kwd_attrs_nodes.count; i++) {
      const Node *name = n->u.match_class.kwd_attrs_nodes.items[i];
      if (i)
        put_space(d);
      if (name && name->kind == N_NAME)
        put_str(d, name->u.name.id);
      else
        dump(d, name);
    }
    buf_putc(out, ']');
    list_field(d, &n->u.match_class.kwd_patterns);
    return true;
  case N_MATCH_STAR:
    buf_puts(out, "MatchStar");
    str_field(d, n->u.match_star.name);
    return true;
  case N_MATCH_AS:
    buf_puts(out, "MatchAs");
    field(d, n->u.match_as.pattern);
    str_field(d, n->u.match_as.name);
    return true;
  case N_MATCH_OR:
    buf_puts(out, "MatchOr");
    list_field(d, &n->u.match_or.patterns);
    return true;
  default:
    return false;
  }
}

static void dump(Dumper *d, const Node *node) {
  if (!node) {
    buf_putc(d->out, '-');
    return;
  }
  if (d->depth >= DUMP_MAX_DEPTH) {
    buf_puts(d->out, "...");
    return;
  }
  d->depth++;
  if (node->kind == N_STRING_TOKEN) {
    dump_auxiliary(d, node);
  } else {
    buf_putc(d->out, '(');
    if (!dump_statement(d, node) && !dump_expression(d, node) && !dump_auxiliary(d, node) && !dump_pattern(d, node))
      buf_printf(d->out, "? kind=%d", (int)node->kind);
    buf_putc(d->out, ')');
  }
  d->depth--;
}

void dump_node(Buf *out, const Node *node) {
  Dumper d = {out, 0};
  dump(&d, node);
}
