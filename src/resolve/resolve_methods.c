/*
 * resolve_methods.c — methods of module-level dataclasses that tile code names.
 *
 * cuTile compiles a method of a dataclass instance used in tile code as a
 * tile function of the instance and the call's arguments. Triton has no
 * methods on the tuple that holds an instance (lower_dataclass.c), so each
 * method tile code may call gets a twin: a copy of its def after the class,
 * under a name of its own, which the lowering calls with the instance first:
 *
 *     @dataclass(frozen=True)                @dataclass(frozen=True)
 *     class Window:                          class Window:
 *         lo: int                                ...            (as written)
 *         scale: float
 *                                            @triton.jit
 *         def apply(self, t):        ->      def Window_apply(self, t):
 *             return t * self.scale              return t * self[1]
 *
 *     w.apply(t)                             Window_apply(w, t)
 *
 * A @property read (`w.area`) is a call of its twin with the instance; a
 * @staticmethod called on the class (`Window.make(...)`) one with the
 * arguments as given. Which methods: those whose names tile code reads as an
 * attribute (`.apply`), found before any type is known; a twin no call
 * reaches is left out of the output (lower/launch.c: finish_module).
 */
#include <string.h>

#include "resolve.h"

/* A decorator `dataclass` or `dataclasses.dataclass`, called or not; *frozen: frozen=True. */
static bool is_dataclass_decorator(const Node *decorator, bool *frozen) {
  const Node *callee = decorator->kind == N_CALL ? decorator->u.call.func : decorator;
  bool named = (callee->kind == N_NAME && str_eq(callee->u.name.id, "dataclass")) ||
               (callee->kind == N_ATTRIBUTE && str_eq(callee->u.attribute.attr, "dataclass") &&
                callee->u.attribute.value->kind == N_NAME &&
                str_eq(callee->u.attribute.value->u.name.id, "dataclasses"));
  for (int i = 0; named && decorator->kind == N_CALL && i < decorator->u.call.keywords.count; i++) {
    const Node *kw = decorator->u.call.keywords.items[i];
    if (str_eq(kw->u.keyword.arg, "frozen") && kw->u.keyword.value->kind == N_CONSTANT &&
        kw->u.keyword.value->u.constant.kind == CONST_TRUE)
      *frozen = true;
  }
  return named;
}

bool resolve_is_dataclass(const Node *cls, bool *frozen) {
  bool is = false, frozen_too = false;
  for (int i = 0; cls->kind == N_CLASS_DEF && i < cls->u.class_def.decorator_list.count; i++)
    is |= is_dataclass_decorator(cls->u.class_def.decorator_list.items[i], &frozen_too);
  if (frozen)
    *frozen = frozen_too;
  return is;
}

const Node *resolve_method_def(const Node *cls, Str method) {
  const NodeList *body = &cls->u.class_def.body;
  const Node *found = NULL;
  for (int i = 0; i < body->count; i++) /* the last def of a name is the method */
    if (body->items[i]->kind == N_FUNCTION_DEF && str_same(body->items[i]->u.function_def.name, method))
      found = body->items[i];
  return found;
}

/* How a method is decorated, where its twin can stand for it; false for another decorator
 * (@classmethod, @functools.cache: no twin, the call is a located error) or a plain method
 * without a parameter for the instance. */
static bool twin_kind(const Node *def, MethodKind *kind) {
  const NodeList *decorators = &def->u.function_def.decorator_list;
  const Node *args = def->u.function_def.args;
  bool has_self = args->u.arguments.posonlyargs.count + args->u.arguments.args.count > 0;
  if (decorators->count == 0) {
    *kind = METHOD_PLAIN;
    return has_self;
  }
  const Node *only = decorators->items[0];
  if (decorators->count != 1 || only->kind != N_NAME)
    return false;
  if (str_eq(only->u.name.id, "property")) {
    *kind = METHOD_PROPERTY;
    return has_self;
  }
  *kind = METHOD_STATIC;
  return str_eq(only->u.name.id, "staticmethod");
}

Function *resolve_method_twin(Converter *conv, const Node *cls, Str method) {
  for (int i = 0; i < conv->function_count; i++)
    if (conv->functions[i].method_of == cls && str_same(conv->functions[i].method_name, method))
      return &conv->functions[i];
  return NULL;
}

/* Whether a module-level statement binds `name` (a def, a class, an assignment, an import). */
static bool module_binds(Converter *conv, Str name) {
  if (find_function(conv, name) || find_binding(conv, name))
    return true;
  const NodeList *body = &conv->module->u.module.body;
  for (int i = 0; i < body->count; i++)
    if (body->items[i]->kind == N_CLASS_DEF && str_same(body->items[i]->u.class_def.name, name))
      return true;
  return false;
}

/* CLASS_METHOD, or CLASS_METHOD_2, ... where that is taken. */
static Str twin_name(Converter *conv, Str cls, Str method) {
  for (int k = 1; k < 1000; k++) {
    char *text = k == 1 ? arena_printf(&conv->ctx->arena, "%.*s_%.*s", cls.len, cls.text, method.len, method.text)
                        : arena_printf(&conv->ctx->arena, "%.*s_%.*s_%d", cls.len, cls.text, method.len,
                                       method.text, k);
    Str made = {text, (int)strlen(text)};
    if (!module_binds(conv, made))
      return made;
  }
  return (Str){0};
}

typedef struct MethodScan {
  Converter *conv;
  bool added;
} MethodScan;

/* The twin of `def`, a method of `cls`, registered as a tile function. */
static void add_twin(Converter *conv, const Node *cls, const Node *def, MethodKind kind) {
  Str name = twin_name(conv, cls->u.class_def.name, def->u.function_def.name);
  if (!name.len)
    return; /* no name left: the call is a located error */
  Node *twin = node_copy_tree(&conv->ctx->arena, (Node *)def);
  twin->u.function_def.name = name;
  twin->u.function_def.decorator_list = (NodeList){0};
  twin->u.function_def.replayed = true;
  resolve_register_function(conv, twin);
  Function *fn = &conv->functions[conv->function_count - 1];
  fn->role = ROLE_DEVICE;
  fn->method_of = cls;
  fn->method_name = def->u.function_def.name;
  fn->method_kind = kind;
}

/* `.NAME` read in tile code: a twin for each method NAME of a module-level dataclass. */
static void scan_for_methods(Node *node, void *data) {
  MethodScan *scan = data;
  if (node->kind == N_ATTRIBUTE) {
    Converter *conv = scan->conv;
    const NodeList *body = &conv->module->u.module.body;
    for (int i = 0; i < body->count; i++) {
      const Node *cls = body->items[i];
      if (cls->kind != N_CLASS_DEF || !resolve_is_dataclass(cls, NULL))
        continue;
      const Node *def = resolve_method_def(cls, node->u.attribute.attr);
      MethodKind kind;
      if (def && twin_kind(def, &kind) && !resolve_method_twin(conv, cls, def->u.function_def.name)) {
        add_twin(conv, cls, def, kind);
        scan->added = true;
      }
    }
  }
  node_children(node, scan_for_methods, data);
}

/* Each twin after its class, in the order they were made (twins placed before move too). */
static void place_twins(Converter *conv) {
  NodeList *body = &conv->module->u.module.body, out = {0};
  for (int i = 0; i < body->count; i++) {
    Node *stmt = body->items[i];
    Function *fn = function_of_def(conv, stmt);
    if (fn && fn->method_of)
      continue;
    node_list_push(&conv->ctx->arena, &out, stmt);
    for (int k = 0; k < conv->function_count; k++)
      if (conv->functions[k].method_of == stmt)
        node_list_push(&conv->ctx->arena, &out, conv->functions[k].def);
  }
  *body = out;
}

bool resolve_dataclass_methods(Converter *conv) {
  int before = conv->function_count;
  for (bool again = true; again;) { /* the twins' own bodies too: self.other() in a method */
    MethodScan scan = {conv, false};
    int count = conv->function_count;
    for (int i = 0; i < count; i++)
      if (conv->functions[i].role != ROLE_HOST)
        node_children(conv->functions[i].def, scan_for_methods, &scan);
    again = scan.added;
  }
  if (conv->function_count == before)
    return false;
  place_twins(conv);
  return true;
}
