/*
 * lower_memory_order.c — cuTile's block-wide memory order in Triton.
 *
 * cuTile chains the memory operations of a block on the same array in
 * program order (its token-order pass): a ct.store followed by a ct.load
 * of the same array observes the store, even when other threads of the
 * block wrote the elements. And an atomic with RELEASE (or ACQ_REL) order
 * keeps the block's earlier reads and writes before it; one with ACQUIRE
 * (or ACQ_REL) keeps the block's later ones after it. Triton orders memory
 * per thread only, so the converted kernel needs tl.debug_barrier() (a
 * block-wide barrier) there:
 *
 *   - before a load, gather or atomic of an array that a store or scatter
 *     of this block wrote since the last barrier (for a load or gather
 *     also after an atomic on it): read after write;
 *   - before a RELEASE atomic when the block accessed memory since the last
 *     barrier (the lock release after the critical section);
 *   - after an ACQUIRE atomic, before the next memory operation (the lock
 *     acquire before the critical section).
 *
 * Every memory lowering notes the node it returns and its effects; after
 * a function is lowered, this pass walks its statements in program order
 * (loops twice: a later iteration follows the end of the body) and puts
 * the barriers in. Writes after reads (a store over what the block read
 * before) are not ordered by this pass.
 */
#include <string.h>

#include "lower_memory.h"

/* ------------------------------------------------------- the registry */

MemoryState *memory_state(Lowerer *L) {
  if (!L->memory)
    L->memory = arena_alloc(&L->ctx->arena, sizeof(MemoryState));
  return L->memory;
}

static void *grow(Lowerer *L, void *items, int count, int *capacity, size_t size) {
  if (count < *capacity)
    return items;
  int wanted = *capacity ? *capacity * 2 : 16;
  void *bigger = arena_alloc(&L->ctx->arena, size * (size_t)wanted);
  if (count)
    memcpy(bigger, items, size * (size_t)count);
  *capacity = wanted;
  return bigger;
}

void memory_note_access(Lowerer *L, const Node *node, const ArrayRef *array, unsigned effects) {
  MemoryState *state = memory_state(L);
  state->accesses = grow(L, state->accesses, state->access_count, &state->access_capacity, sizeof(MemoryAccess));
  Str key = array->param.len ? array->param : (Str){"?", 1};
  state->accesses[state->access_count++] = (MemoryAccess){node, key, effects};
  if (effects & (MEM_WRITE | MEM_ATOMIC))
    reuse_note_write(L); /* no load after it takes the tile of a load before it */
}

bool memory_first_time(Lowerer *L, const char *key) {
  MemoryState *state = memory_state(L);
  for (int i = 0; i < state->once_count; i++)
    if (strcmp(state->once[i], key) == 0)
      return false;
  state->once = grow(L, (void *)state->once, state->once_count, &state->once_capacity, sizeof(char *));
  state->once[state->once_count++] = arena_strndup(&L->ctx->arena, key, strlen(key));
  return true;
}

void memory_note_view_axis(Lowerer *L, const ArrayRef *view, int axis) {
  MemoryState *state = memory_state(L);
  if (state->view_count == MEMORY_MAX_VIEWS)
    lower_limit(L, NULL, "slices of arrays of unknown rank in one module", MEMORY_MAX_VIEWS);
  state->views[state->view_count] = view;
  state->view_axes[state->view_count++] = axis;
}

bool memory_view_slices_axis(Lowerer *L, const ArrayRef *view, int axis) {
  MemoryState *state = L->memory;
  for (int i = 0; state && i < state->view_count; i++)
    if (state->views[i]->pointer == view->pointer || str_same(state->views[i]->pointer->u.name.id, view->pointer->u.name.id))
      if (state->view_axes[i] == axis)
        return true;
  return false;
}

/* ------------------------------------------------------ order state */

/* Arrays tracked by name in one ArraySet; past it the set is "every array"
 * (more barriers, never fewer: no access loses its ordering). */
#define ORDER_MAX_TRACKED_ARRAYS 32

typedef struct ArraySet {
  Str names[ORDER_MAX_TRACKED_ARRAYS];
  int count;
  bool everything; /* more arrays than tracked: assume any */
} ArraySet;

typedef struct OrderState {
  ArraySet written; /* by stores and scatters since the last barrier */
  ArraySet atomics; /* by atomics since the last barrier */
  bool accessed;    /* any memory operation since the last barrier */
  bool acquired;    /* an ACQUIRE atomic since the last barrier */
} OrderState;

static bool set_has(const ArraySet *set, Str name) {
  if (set->everything)
    return set->count > 0 || set->everything;
  for (int i = 0; i < set->count; i++)
    if (str_same(set->names[i], name))
      return true;
  return false;
}

static void set_add(ArraySet *set, Str name) {
  if (set_has(set, name) && !set->everything)
    return;
  if (set->count == ORDER_MAX_TRACKED_ARRAYS)
    set->everything = true;
  else
    set->names[set->count++] = name;
}

static void set_union(ArraySet *into, const ArraySet *from) {
  into->everything |= from->everything;
  for (int i = 0; i < from->count; i++)
    set_add(into, from->names[i]);
}

static void state_union(OrderState *into, const OrderState *from) {
  set_union(&into->written, &from->written);
  set_union(&into->atomics, &from->atomics);
  into->accessed |= from->accessed;
  into->acquired |= from->acquired;
}

/* Whether `set` may hold `array`: named there, or either side an array reached through no
 * kernel parameter of its own ("?": an item of a tuple of arrays, an array chosen while the kernel
 * runs), which may be any of them. */
static bool may_hold(const ArraySet *set, Str array) {
  if (set_has(set, array))
    return true;
  if (!set->count)
    return false;
  return str_eq(array, "?") || set_has(set, (Str){"?", 1});
}

/* Whether an operation with `effects` on `array` must wait for a barrier. */
static bool needs_barrier(const OrderState *state, Str array, unsigned effects) {
  if (state->acquired)
    return true;
  if ((effects & MEM_RELEASE) && state->accessed)
    return true;
  if ((effects & MEM_READ) && may_hold(&state->written, array))
    return true;
  return (effects & MEM_READ) && !(effects & MEM_ATOMIC) && may_hold(&state->atomics, array);
}

static void apply_effects(OrderState *state, Str array, unsigned effects) {
  if ((effects & MEM_WRITE) && !(effects & MEM_ATOMIC))
    set_add(&state->written, array);
  if (effects & MEM_ATOMIC)
    set_add(&state->atomics, array);
  state->accessed = true;
  state->acquired |= (effects & MEM_ACQUIRE) != 0;
}

/* ------------------------------------------- effects of an expression */

/* Memory accesses in one statement whose order is checked; past it, a
 * located error (accesses used to be dropped silently: no barrier). */
#define C2T_MAX_STATEMENT_ACCESSES 64

typedef struct EffectScan {
  Lowerer *L;
  MemoryState *memory;
  const MemoryAccess *found[C2T_MAX_STATEMENT_ACCESSES];
  int count;
} EffectScan;

static const MemoryAccess *access_of(const MemoryState *memory, const Node *node) {
  for (int i = 0; i < memory->access_count; i++)
    if (memory->accesses[i].node == node)
      return &memory->accesses[i];
  return NULL;
}

/* Post-order: arguments are evaluated before the operation using them. */
static void scan_effects(Node *node, void *data) {
  EffectScan *scan = data;
  node_children(node, scan_effects, data);
  const MemoryAccess *access = access_of(scan->memory, node);
  if (!access)
    return;
  if (scan->count == C2T_MAX_STATEMENT_ACCESSES)
    lower_limit(scan->L, node, "memory accesses in one statement", C2T_MAX_STATEMENT_ACCESSES);
  scan->found[scan->count++] = access;
}

/* ------------------------------------------------------------- the pass */

typedef struct OrderPass {
  Lowerer *L;
  bool insert; /* false on the first walk of a loop body: only the state is wanted */
} OrderPass;

/* The barrier, with a note (a comment at the end of its line) saying why. */
static void push_barrier(OrderPass *pass, NodeList *out) {
  if (!pass->insert)
    return;
  Node *stmt = template_stmts(pass->L->ctx, "tl.debug_barrier()\n", NULL, 0).items[0];
  stmt->note = "cuTile orders the block's memory operations; Triton orders each thread's only";
  node_list_push(&pass->L->ctx->arena, out, stmt);
}

/* Effects of `expr` against `state`: true when a barrier must come first
 * (the state then starts over from it). */
static bool expression_needs_barrier(OrderPass *pass, Node *expr, OrderState *state) {
  if (!expr || !pass->L->memory)
    return false;
  EffectScan scan = {.L = pass->L, .memory = pass->L->memory};
  scan_effects(expr, &scan);
  bool barrier = false;
  for (int i = 0; i < scan.count; i++) {
    if (!barrier && needs_barrier(state, scan.found[i]->array, scan.found[i]->effects)) {
      barrier = true;
      *state = (OrderState){0};
    }
    apply_effects(state, scan.found[i]->array, scan.found[i]->effects);
  }
  return barrier;
}

static bool is_choice_stmt(OrderPass *pass, const Node *stmt) {
  MemoryState *memory = pass->L->memory;
  for (int i = 0; memory && i < memory->choice_count; i++)
    if (memory->choices[i] == stmt)
      return true;
  return false;
}

static void order_stmts(OrderPass *pass, NodeList *stmts, OrderState *state);

static void push(OrderPass *pass, NodeList *out, Node *stmt) { node_list_push(&pass->L->ctx->arena, out, stmt); }

static void order_loop(OrderPass *pass, Node *loop_test, NodeList *body, OrderState *state, NodeList *out, Node *stmt) {
  /* the state at the loop head: on entry, or after the body ran */
  OrderPass dry = {pass->L, false};
  OrderState after_body = *state;
  Node *dry_test = loop_test;
  expression_needs_barrier(&dry, dry_test, &after_body);
  NodeList copy = *body;
  order_stmts(&dry, &copy, &after_body);
  OrderState head = *state;
  state_union(&head, &after_body);
  OrderState entry = *state;
  if (loop_test && expression_needs_barrier(pass, loop_test, &entry))
    push_barrier(pass, out);
  OrderState in_body = head;
  expression_needs_barrier(pass, loop_test, &in_body);
  order_stmts(pass, body, &in_body);
  if (loop_test) {
    OrderState back_edge = in_body;
    if (expression_needs_barrier(pass, loop_test, &back_edge)) {
      if (body->count == 1 && body->items[0]->kind == N_PASS)
        body->count = 0; /* the barrier replaces a spin loop's `pass` */
      push_barrier(pass, body);
    }
  }
  push(pass, out, stmt);
  /* after the loop: it ran zero or more times */
  *state = entry;
  state_union(state, &in_body);
}

static void order_stmt(OrderPass *pass, Node *stmt, OrderState *state, NodeList *out) {
  switch (is_choice_stmt(pass, stmt) ? N_EXPR_STMT : stmt->kind) {
  case N_IF: {
    if (expression_needs_barrier(pass, stmt->u.if_.test, state))
      push_barrier(pass, out);
    OrderState then_state = *state, else_state = *state;
    order_stmts(pass, &stmt->u.if_.body, &then_state);
    order_stmts(pass, &stmt->u.if_.orelse, &else_state);
    *state = then_state;
    state_union(state, &else_state);
    push(pass, out, stmt);
    return;
  }
  case N_FOR:
    if (expression_needs_barrier(pass, stmt->u.for_.iter, state))
      push_barrier(pass, out);
    order_loop(pass, NULL, &stmt->u.for_.body, state, out, stmt);
    return;
  case N_WHILE:
    order_loop(pass, stmt->u.while_.test, &stmt->u.while_.body, state, out, stmt);
    return;
  default:
    if (expression_needs_barrier(pass, stmt, state))
      push_barrier(pass, out);
    push(pass, out, stmt);
    return;
  }
}

static void order_stmts(OrderPass *pass, NodeList *stmts, OrderState *state) {
  NodeList out = {0};
  for (int i = 0; i < stmts->count; i++)
    order_stmt(pass, stmts->items[i], state, &out);
  if (pass->insert)
    *stmts = out;
}

void insert_memory_barriers(Lowerer *L, NodeList *body) {
  if (!L->memory || L->memory->access_count == 0)
    return;
  OrderPass pass = {L, true};
  OrderState state = {0};
  order_stmts(&pass, body, &state);
}
