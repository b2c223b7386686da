/*
 * arena.c — region allocation for one run.
 *
 * Every object of a run (tokens, syntax nodes, strings) comes from one arena
 * and is released at once. Blocks grow geometrically; large requests get a
 * block of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c2t.h"

#define ARENA_MIN_BLOCK (64u * 1024u)
#define ARENA_ALIGN 16u

struct ArenaBlock {
  ArenaBlock *next;
  size_t used;
  size_t capacity;
  _Alignas(16) unsigned char data[];
};

void arena_init(Arena *arena) {
  arena->head = NULL;
  arena->on_out_of_memory = NULL;
}

static _Noreturn void arena_out_of_memory(Arena *arena) {
  if (arena->on_out_of_memory)
    longjmp(*arena->on_out_of_memory, 1);
  fputs("cutile2triton: out of memory\n", stderr);
  abort();
}

static ArenaBlock *arena_new_block(Arena *arena, size_t at_least) {
  size_t capacity = ARENA_MIN_BLOCK;
  if (arena->head && arena->head->capacity * 2 > capacity)
    capacity = arena->head->capacity * 2;
  if (capacity > 16u * 1024u * 1024u)
    capacity = 16u * 1024u * 1024u;
  if (capacity < at_least)
    capacity = at_least;
  ArenaBlock *block = malloc(sizeof(ArenaBlock) + capacity);
  if (!block)
    arena_out_of_memory(arena);
  block->used = 0;
  block->capacity = capacity;
  block->next = arena->head;
  arena->head = block;
  return block;
}

void *arena_alloc_raw(Arena *arena, size_t size) {
  size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (rounded < size)
    arena_out_of_memory(arena);
  ArenaBlock *block = arena->head;
  if (!block || block->capacity - block->used < rounded)
    block = arena_new_block(arena, rounded);
  void *result = block->data + block->used;
  block->used += rounded;
  return result;
}

void *arena_alloc(Arena *arena, size_t size) {
  void *result = arena_alloc_raw(arena, size);
  memset(result, 0, size);
  return result;
}

void *arena_grown(Arena *arena, void *items, int count, int *capacity, size_t size) {
  if (count < *capacity)
    return items;
  int wanted = *capacity ? *capacity * 2 : 64;
  void *bigger = arena_alloc(arena, size * (size_t)wanted);
  if (count)
    memcpy(bigger, items, size * (size_t)count);
  *capacity = wanted;
  return bigger;
}

char *arena_strndup(Arena *arena, const char *text, size_t length) {
  char *copy = arena_alloc(arena, length + 1);
  memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

char *arena_printf(Arena *arena, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int length = vsnprintf(NULL, 0, fmt, args);
  va_end(args);
  if (length < 0)
    length = 0;
  char *text = arena_alloc(arena, (size_t)length + 1);
  va_start(args, fmt);
  vsnprintf(text, (size_t)length + 1, fmt, args);
  va_end(args);
  return text;
}

void arena_free(Arena *arena) {
  ArenaBlock *block = arena->head;
  while (block) {
    ArenaBlock *next = block->next;
    free(block);
    block = next;
  }
  arena->head = NULL;
}

void node_list_push(Arena *arena, NodeList *list, Node *node) {
  if (list->count == list->capacity) {
    int capacity = list->capacity ? list->capacity * 2 : 4;
    Node **items = arena_alloc_raw(arena, sizeof(Node *) * (size_t)capacity); /* filled before read */
    if (list->count)
      memcpy(items, list->items, sizeof(Node *) * (size_t)list->count);
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = node;
}

void dropped_lines_add(Arena *arena, DroppedLines *dropped, int first, int last) {
  int (*ranges)[2] = arena_alloc_raw(arena, sizeof(int[2]) * (size_t)(dropped->count + 1));
  if (dropped->count)
    memcpy(ranges, dropped->ranges, sizeof(int[2]) * (size_t)dropped->count);
  ranges[dropped->count][0] = first;
  ranges[dropped->count][1] = last;
  dropped->ranges = ranges;
  dropped->count++;
}
