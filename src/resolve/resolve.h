/*
 * resolve.h — what the resolver's files share (not exported): sets of names.
 */
#ifndef C2T_RESOLVE_H
#define C2T_RESOLVE_H

#include "../convert.h"

/* A set of names, grown in the arena as needed. */
typedef struct NameSet {
  Converter *conv;
  Str *names;
  int count, capacity;
  bool stores; /* collect_names in resolve.c: collect the names bound (else the names read) */
  bool comprehension_scopes; /* with stores: a comprehension's targets are its own, not bound here */
} NameSet;

bool resolve_set_has(const NameSet *set, Str name);
void resolve_set_add(NameSet *set, Str name);

#endif
