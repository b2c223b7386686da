/*
 * lower_dataclass.c — frozen dataclasses in tile code.
 *
 * cuTile compiles an instance of a module-level `@dataclass(frozen=True)`
 * class as the aggregate of its fields. The converted kernel holds it as a
 * tuple of the fields in their order, which Triton passes, returns and carries
 * as any tuple; a field is read by its position, known when converting:
 *
 *     @dataclass(frozen=True)
 *     class Window:                       w = (lo, lo + 16, 1.0)
 *         lo: int                  ->     t = t * w[2]
 *         hi: int
 *         scale: float = 1.0
 *     w = Window(lo, hi=lo + 16)
 *     t = t * w.scale
 *
 * Arguments bind to fields as the generated __init__ binds them (positions,
 * then keywords, then the fields' defaults); `dataclasses.replace(w, f=v)`
 * makes a new tuple. `w.apply(t)`, `w.width` (a @property) and
 * `Window.shifted(t)` (a @staticmethod) call the method's twin, a tile function
 * of the instance (resolve_methods.c). A class that is not frozen, has a base
 * class, a `field(...)` default, or an __init__/__post_init__ of its own, a
 * field that is not one, a method decorated otherwise: located errors.
 */
#include <string.h>

#include "lower.h"

const Node *lower_dataclass_named(Lowerer *L, Str name) {
  if (scope_lookup(L, name))
    return NULL;
  NodeList *body = &L->conv->module->u.module.body;
  const Node *found = NULL;
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (stmt->kind == N_CLASS_DEF && str_same(stmt->u.class_def.name, name))
      found = stmt;
  }
  return found && resolve_is_dataclass(found, NULL) ? found : NULL;
}

/* The fields of a dataclass in their order (annotated names of its body, ClassVar ones
 * left out); checks what the conversion takes. */
static int dataclass_fields(Lowerer *L, const Node *cls, const Node *at, const Node **fields, int max) {
  Str name = cls->u.class_def.name;
  bool frozen = false;
  if (resolve_is_dataclass(cls, &frozen) && !frozen)
    lower_error(L, at, "the dataclass '%.*s' is not frozen: cuTile takes frozen dataclasses only "
                  "(@dataclass(frozen=True))", name.len, name.text);
  if (cls->u.class_def.bases.count || cls->u.class_def.keywords.count)
    lower_error(L, at, "the dataclass '%.*s' has a base class: not converted", name.len, name.text);
  int count = 0;
  const NodeList *body = &cls->u.class_def.body;
  for (int i = 0; i < body->count; i++) {
    const Node *stmt = body->items[i];
    if (stmt->kind == N_FUNCTION_DEF) {
      Str method = stmt->u.function_def.name;
      if (str_eq(method, "__init__") || str_eq(method, "__post_init__") || str_eq(method, "__new__"))
        lower_error(L, at, "the dataclass '%.*s' defines %.*s: not converted (fields only)", name.len, name.text,
                    method.len, method.text);
      continue;
    }
    if (stmt->kind != N_ANN_ASSIGN || stmt->u.ann_assign.target->kind != N_NAME)
      continue;
    const Node *annotation = stmt->u.ann_assign.annotation;
    const Node *base = annotation->kind == N_SUBSCRIPT ? annotation->u.subscript.value : annotation;
    if ((base->kind == N_NAME && str_eq(base->u.name.id, "ClassVar")) ||
        (base->kind == N_ATTRIBUTE && str_eq(base->u.attribute.attr, "ClassVar")))
      continue;
    const Node *value = stmt->u.ann_assign.value;
    if (value && value->kind == N_CALL)
      lower_error(L, value, "a dataclass field given by a call (field(...)) is not converted");
    if (count == max)
      lower_limit(L, stmt, "fields of a dataclass", max);
    fields[count++] = stmt;
  }
  return count;
}

static Str field_name(const Node *field) { return field->u.ann_assign.target->u.name.id; }

/* The tuple of `values` (lowered) typed as an instance of `cls`. */
static Node *instance(Lowerer *L, const Node *cls, Node **values, int count, Node *at) {
  Node *tuple = T0(L, "()");
  TypeInfo *type = type_new(L->ctx, VAL_TUPLE);
  type->count = count;
  type->elts = arena_alloc(&L->ctx->arena, sizeof(TypeInfo *) * (size_t)(count + 1));
  type->dataclass = cls;
  for (int i = 0; i < count; i++) {
    node_list_push(&L->ctx->arena, &tuple->u.list.elts, values[i]);
    type->elts[i] = values[i]->type;
  }
  tuple->type = type;
  return tuple;
}

/* Cls(args...) in tile code. */
Node *lower_dataclass_construct(Lowerer *L, Node *call, const Node *cls) {
  const Node *fields[C2T_MAX_DATACLASS_FIELDS];
  int count = dataclass_fields(L, cls, call, fields, C2T_MAX_DATACLASS_FIELDS);
  Str name = cls->u.class_def.name;
  Node *values[C2T_MAX_DATACLASS_FIELDS] = {0};
  const NodeList *args = &call->u.call.args, *keywords = &call->u.call.keywords;
  if (args->count > count)
    lower_error(L, call, "%.*s() takes %d fields, %d given", name.len, name.text, count, args->count);
  for (int i = 0; i < args->count; i++) {
    if (args->items[i]->kind == N_STARRED)
      lower_error(L, args->items[i], "*arguments to a dataclass cannot be converted");
    values[i] = args->items[i];
  }
  for (int k = 0; k < keywords->count; k++) {
    const Node *kw = keywords->items[k];
    int at = -1;
    for (int i = 0; i < count; i++)
      if (str_same(field_name(fields[i]), kw->u.keyword.arg))
        at = i;
    if (at < 0)
      lower_error(L, kw, "%.*s() has no field '%.*s'", name.len, name.text, kw->u.keyword.arg.len,
                  kw->u.keyword.arg.text);
    if (values[at])
      lower_error(L, kw, "%.*s() got two values for field '%.*s'", name.len, name.text, kw->u.keyword.arg.len,
                  kw->u.keyword.arg.text);
    values[at] = kw->u.keyword.value;
  }
  for (int i = 0; i < count; i++) {
    if (!values[i] && !fields[i]->u.ann_assign.value)
      lower_error(L, call, "%.*s() is missing field '%.*s'", name.len, name.text, field_name(fields[i]).len,
                  field_name(fields[i]).text);
    /* a default is written in the class at module level: a copy, lowered here */
    values[i] = lower_expr(L, values[i] ? values[i] : node_copy_tree(&L->ctx->arena, fields[i]->u.ann_assign.value));
  }
  return instance(L, cls, values, count, call);
}

/* dataclasses.replace(instance, field=value, ...) */
Node *lower_dataclass_replace(Lowerer *L, Node *call) {
  if (call->u.call.args.count != 1)
    lower_error(L, call, "dataclasses.replace() takes one instance and fields by keyword");
  Node *base = lower_expr(L, call->u.call.args.items[0]);
  const Node *cls = base->type && base->type->kind == VAL_TUPLE ? base->type->dataclass : NULL;
  if (!cls)
    lower_error(L, call->u.call.args.items[0], "dataclasses.replace() of %s: not a dataclass instance",
                type_describe(L->ctx, base->type));
  const Node *fields[C2T_MAX_DATACLASS_FIELDS];
  int count = dataclass_fields(L, cls, call, fields, C2T_MAX_DATACLASS_FIELDS);
  Node *values[C2T_MAX_DATACLASS_FIELDS] = {0};
  for (int k = 0; k < call->u.call.keywords.count; k++) {
    const Node *kw = call->u.call.keywords.items[k];
    int at = -1;
    for (int i = 0; i < count; i++)
      if (str_same(field_name(fields[i]), kw->u.keyword.arg))
        at = i;
    if (at < 0)
      lower_error(L, kw, "dataclasses.replace(): %.*s has no field '%.*s'", cls->u.class_def.name.len,
                  cls->u.class_def.name.text, kw->u.keyword.arg.len, kw->u.keyword.arg.text);
    values[at] = lower_expr(L, kw->u.keyword.value);
  }
  for (int i = 0; i < count; i++)
    if (!values[i])
      values[i] = lower_tuple_item(L, call, node_copy_tree(&L->ctx->arena, base), i);
  return instance(L, cls, values, count, call);
}

/* instance.field */
Node *lower_dataclass_field(Lowerer *L, Node *expr, Node *base, Str attr) {
  const Node *cls = base->type->dataclass;
  const Node *fields[C2T_MAX_DATACLASS_FIELDS];
  int count = dataclass_fields(L, cls, expr, fields, C2T_MAX_DATACLASS_FIELDS);
  for (int i = 0; i < count; i++)
    if (str_same(field_name(fields[i]), attr))
      return lower_tuple_item(L, expr, base, i);
  if (resolve_method_def(cls, attr))
    lower_error(L, expr, "'%.*s' is a method of the dataclass '%.*s': tile code calls it (a method read as a value "
                "is not converted)", attr.len, attr.text, cls->u.class_def.name.len, cls->u.class_def.name.text);
  lower_error(L, expr, "'%.*s' is not a field of the dataclass '%.*s'", attr.len, attr.text,
              cls->u.class_def.name.len, cls->u.class_def.name.text);
}

/* ------------------------------------------------------------- methods */

/* The type of `e`, a local or a field of one (w, w.inner), known before lowering it; else NULL. */
static const TypeInfo *known_type(Lowerer *L, const Node *e, int depth) {
  if (depth > C2T_MAX_PARSE_DEPTH)
    return NULL;
  if (e->kind == N_NAME) {
    Variable *var = scope_lookup(L, e->u.name.id);
    return var ? var->type : NULL;
  }
  if (e->kind != N_ATTRIBUTE)
    return NULL;
  const TypeInfo *base = known_type(L, e->u.attribute.value, depth + 1);
  if (!base || base->kind != VAL_TUPLE || !base->dataclass || !base->elts)
    return NULL;
  const Node *fields[C2T_MAX_DATACLASS_FIELDS];
  int count = dataclass_fields(L, base->dataclass, e, fields, C2T_MAX_DATACLASS_FIELDS);
  for (int i = 0; i < count && i < base->count; i++)
    if (str_same(field_name(fields[i]), e->u.attribute.attr))
      return base->elts[i];
  return NULL;
}

/* The dataclass whose instance `e` is, known before lowering it (a local, a field of one,
 * a call of the class); else NULL. */
static const Node *instance_class(Lowerer *L, const Node *e) {
  if (e->kind == N_CALL && e->u.call.func->kind == N_NAME)
    return lower_dataclass_named(L, e->u.call.func->u.name.id);
  const TypeInfo *type = known_type(L, e, 0);
  return type && type->kind == VAL_TUPLE ? type->dataclass : NULL;
}

/* The twin of `cls`.`method` (resolve_methods.c); a located error where the class defines
 * the method but it has none (another decorator, no parameter for the instance). */
static Function *method_twin(Lowerer *L, const Node *at, const Node *cls, Str method) {
  Function *twin = resolve_method_twin(L->conv, cls, method);
  if (twin)
    return twin;
  if (!resolve_method_def(cls, method))
    return NULL;
  Str name = cls->u.class_def.name;
  lower_error(L, at, "the method %.*s.%.*s cannot be converted: tile code calls methods without decorators, "
              "@property and @staticmethod ones (and the twin's name %.*s_%.*s must be free)",
              name.len, name.text, method.len, method.text, name.len, name.text, method.len, method.text);
}

/* twin(first, *args of `call`) lowered as a call of a tile function (`first` NULL: the
 * arguments as given). */
static Node *call_twin(Lowerer *L, Node *call, Function *twin, Node *first) {
  Node *made = arena_alloc(&L->ctx->arena, sizeof(Node));
  *made = *call;
  if (call->kind != N_CALL) { /* a property read */
    made->kind = N_CALL;
    memset(&made->u, 0, sizeof made->u);
  }
  Str name = twin->def->u.function_def.name;
  made->u.call.func = new_name(L, arena_printf(&L->ctx->arena, "%.*s", name.len, name.text));
  made->u.call.args = (NodeList){0};
  if (first)
    node_list_push(&L->ctx->arena, &made->u.call.args, first);
  for (int i = 0; call->kind == N_CALL && i < call->u.call.args.count; i++)
    node_list_push(&L->ctx->arena, &made->u.call.args, call->u.call.args.items[i]);
  stats_op(L->conv, "method ", arena_printf(&L->ctx->arena, "%.*s", twin->method_name.len, twin->method_name.text));
  return lower_device_call(L, made, twin);
}

Node *lower_dataclass_method(Lowerer *L, Node *call) {
  Node *callee = call->u.call.func;
  if (callee->kind != N_ATTRIBUTE)
    return NULL;
  Node *base = callee->u.attribute.value;
  Str method = callee->u.attribute.attr;
  const Node *cls = base->kind == N_NAME ? lower_dataclass_named(L, base->u.name.id) : NULL;
  if (cls) { /* Cls.method(...): the arguments as given, an instance first for a plain method */
    Function *twin = method_twin(L, call, cls, method);
    if (!twin)
      return NULL;
    if (twin->method_kind == METHOD_PROPERTY)
      lower_error(L, call, "%.*s.%.*s is a property: read it of an instance", cls->u.class_def.name.len,
                  cls->u.class_def.name.text, method.len, method.text);
    return call_twin(L, call, twin, NULL);
  }
  cls = instance_class(L, base);
  if (!cls)
    return NULL;
  Function *twin = method_twin(L, call, cls, method);
  if (!twin)
    return NULL;
  Str name = cls->u.class_def.name;
  if (twin->method_kind == METHOD_STATIC) /* cuTile passes the instance to it all the same */
    lower_error(L, call, "%.*s.%.*s is a @staticmethod called on an instance, which cuTile gives the instance as "
                "its first argument: call it on the class (%.*s.%.*s(...))", name.len, name.text, method.len,
                method.text, name.len, name.text, method.len, method.text);
  if (twin->method_kind == METHOD_PROPERTY)
    lower_error(L, call, "%.*s.%.*s is a property, not a method: read it without a call", name.len, name.text,
                method.len, method.text);
  return call_twin(L, call, twin, base);
}

Node *lower_dataclass_property(Lowerer *L, Node *expr) {
  Node *base = expr->u.attribute.value;
  const Node *cls = instance_class(L, base);
  Function *twin = cls ? resolve_method_twin(L->conv, cls, expr->u.attribute.attr) : NULL;
  if (!twin || twin->method_kind != METHOD_PROPERTY)
    return NULL;
  return call_twin(L, expr, twin, base);
}
