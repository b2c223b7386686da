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
 * makes a new tuple. A class that is not frozen, has a base class, a
 * `field(...)` default, or an __init__/__post_init__ of its own, a field that
 * is not one, a method or a property read: located errors.
 */
#include <string.h>

#include "lower.h"

/* A decorator `dataclass`, `dataclasses.dataclass`, called or not; *frozen says frozen=True. */
static bool is_dataclass_decorator(const Node *decorator, bool *frozen) {
  const Node *callee = decorator->kind == N_CALL ? decorator->u.call.func : decorator;
  bool named = (callee->kind == N_NAME && str_eq(callee->u.name.id, "dataclass")) ||
               (callee->kind == N_ATTRIBUTE && str_eq(callee->u.attribute.attr, "dataclass") &&
                callee->u.attribute.value->kind == N_NAME && str_eq(callee->u.attribute.value->u.name.id, "dataclasses"));
  *frozen = false;
  for (int i = 0; named && decorator->kind == N_CALL && i < decorator->u.call.keywords.count; i++) {
    const Node *kw = decorator->u.call.keywords.items[i];
    if (str_eq(kw->u.keyword.arg, "frozen") && kw->u.keyword.value->kind == N_CONSTANT &&
        kw->u.keyword.value->u.constant.kind == CONST_TRUE)
      *frozen = true;
  }
  return named;
}

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
  bool frozen = false;
  for (int i = 0; found && i < found->u.class_def.decorator_list.count; i++)
    if (is_dataclass_decorator(found->u.class_def.decorator_list.items[i], &frozen))
      return found;
  return NULL;
}

/* The fields of a dataclass in their order (annotated names of its body, ClassVar ones
 * left out); checks what the conversion takes. */
static int dataclass_fields(Lowerer *L, const Node *cls, const Node *at, const Node **fields, int max) {
  Str name = cls->u.class_def.name;
  bool frozen = false;
  for (int i = 0; i < cls->u.class_def.decorator_list.count; i++)
    if (is_dataclass_decorator(cls->u.class_def.decorator_list.items[i], &frozen) && !frozen)
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
  lower_error(L, expr, "'%.*s' is not a field of the dataclass '%.*s' (its methods and properties are not "
              "converted)", attr.len, attr.text, cls->u.class_def.name.len, cls->u.class_def.name.text);
}
