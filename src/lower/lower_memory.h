/*
 * lower_memory.h — private to the memory family (lower_memory*.c).
 *
 *   lower_memory.c          ct.load, ct.store, ct.num_tiles, Array.slice;
 *                           TMA descriptors and the constexpr path choice
 *   lower_memory_helpers.c  the pointer-path runtime helpers (Python text)
 *   lower_memory_gather.c   ct.gather, ct.scatter, ct.atomic_*
 *   lower_memory_advidx.c   ct.load_advanced_indexing, ct.store_advanced_indexing, ct.Slice
 *   lower_memory_view.c     Array.tiled_view and the tiled view's methods
 *   lower_memory_order.c    which array each lowered operation touches, and
 *                           the tl.debug_barrier() pass that restores
 *                           cuTile's block-wide memory order
 */
#ifndef C2T_LOWER_MEMORY_H
#define C2T_LOWER_MEMORY_H

#include "lower.h"

/* Tiles of ct.load / ct.store / gather / scatter / atomics: at most this
 * many dimensions, as a tile's (C2T_MAX_RANK); the ct_load_Nd helpers are
 * made for the rank asked. */
#define MAX_TILE_RANK 8
/* A tensor descriptor (a TMA tensor map) has at most 5 dimensions: a tile of
 * more goes through pointers. */
#define TMA_MAX_RANK 5
/* Array.slice views of arrays whose rank is not known yet, per module. */
#define MEMORY_MAX_VIEWS 64

/* ------------------------------------------------------- lower_memory.c */

/* The entries of an index, shape or indices argument: a tuple written in the
 * call or kept in a local, else the 1-D shorthand (one entry); `what` names
 * them for the limit's message. */
int memory_tuple_items(Lowerer *L, Node *arg, Node **items, int max, const char *what);

/* -------------------------------------------------- lower_memory_reuse.c */

/* A tile load of a whole array parameter, in the array's axes. */
typedef struct ReuseSite {
  Str param;
  Node *index[MAX_TILE_RANK], *size[MAX_TILE_RANK]; /* per array axis */
  int perm[MAX_TILE_RANK]; /* tile axis d walks array axis perm[d] */
  int rank;
  int padding;
  const Node *check;
  bool rank_in_branch; /* the array's rank was learnt under a constexpr `if` (another launch may
                          give another): followed for lower_memory_kmajor.c, never taken from or for */
} ReuseSite;

/* `loaded` (the load of `site`), or the choice of it and the tile an earlier load of another
 * array read, by their flag; the load is remembered for later ones. */
Node *reuse_load(Lowerer *L, const ReuseSite *site, Node *loaded);

/* ------------------------------------------------ lower_memory_helpers.c */

Node *load_helper(Lowerer *L, int rank);         /* ct_load_Nd */
Node *store_helper(Lowerer *L, int rank);        /* ct_store_Nd */
Node *tile_mask_helper(Lowerer *L, int rank);    /* ct_tile_mask_Nd */
Node *load_element_helper(Lowerer *L, int rank); /* ct_load_element_Nd: shape=() */
Node *store_element_helper(Lowerer *L, int rank);/* ct_store_element_Nd: a scalar tile */
Node *load_view_helper(Lowerer *L, int rank);    /* ct_load_view_Nd: a view with traversal steps */
Node *store_view_helper(Lowerer *L, int rank);   /* ct_store_view_Nd */
Node *atomic_view_helper(Lowerer *L, int rank);  /* ct_atomic_view_Nd: TiledView.atomic_store_* */

/* -------------------------------------------------- lower_memory_order.c */

/* What a lowered operation does to its array. */
enum {
  MEM_READ = 1,     /* load, gather */
  MEM_WRITE = 2,    /* store, scatter */
  MEM_ATOMIC = 4,   /* atomic read-modify-write (also MEM_READ) */
  MEM_ACQUIRE = 8,  /* memory_order ACQUIRE or ACQ_REL */
  MEM_RELEASE = 16, /* memory_order RELEASE or ACQ_REL */
};

typedef struct MemoryAccess {
  const Node *node; /* the lowered expression (found again in the function body) */
  Str array;        /* the array parameter it reaches (slices: their parent's) */
  unsigned effects;
} MemoryAccess;

typedef struct MemoryState {
  MemoryAccess *accesses;
  int access_count, access_capacity;
  const Node **choices; /* IfExp nodes that choose TMA or pointers by a constexpr */
  int choice_count, choice_capacity;
  const char **once;    /* keys of prologue statements already made */
  int once_count, once_capacity;
  const ArrayRef *views[MEMORY_MAX_VIEWS]; /* slices of arrays whose rank was not known yet, */
  int view_axes[MEMORY_MAX_VIEWS];         /* and the axis each slices (its own or its parent's) */
  int view_count;
} MemoryState;

MemoryState *memory_state(Lowerer *L);
/* `array`, a parameter of the function being lowered, is read or written
 * through a descriptor: it gets a `NAME_tma` flag parameter. */
void memory_note_tma_array(Lowerer *L, const ArrayRef *array);
void memory_note_access(Lowerer *L, const Node *node, const ArrayRef *array, unsigned effects);
/* Array.slice on an axis of an array whose rank is not known yet: a load
 * of rank r takes no TMA when the view (or a view it was sliced from)
 * slices axis r - 1, the contiguous one. */
void memory_note_view_axis(Lowerer *L, const ArrayRef *view, int axis);
/* An array of rank unknown until now is indexed with `rank` entries: it has that rank. A kernel's
 * array parameter so indexed outside a constexpr `if` of unknown rank gets it pinned: cuTile
 * refuses a launch whose array has another rank ("Index size 1 does not match the array rank
 * 2"), and the launcher checks it (_tensor's rank=), where the kernel would read another rank's
 * array with the wrong strides. */
void memory_learn_rank(TypeInfo *array, int rank);
/* An element offset of a tensor descriptor's load or store: as it is, or, where the index it
 * scales may be 64-bit (int64, or an integer dtype known only at launch), through
 * ct_descriptor_coordinate (Triton takes 32-bit coordinates only). */
Node *memory_descriptor_offset(Lowerer *L, Node *offset, const TypeInfo *index);
/* Whether a block shape reads a local of the function (`shape=(1, total)`, `TK = 32` in the
 * kernel): a descriptor of it cannot be made at the top of the kernel, before the local is set. */
bool memory_sizes_read_locals(Lowerer *L, Node **sizes, int rank);
bool memory_view_slices_axis(Lowerer *L, const ArrayRef *view, int axis);
/* True the first time `key` is asked for in this module. */
bool memory_first_time(Lowerer *L, const char *key);

/* --------------------------------------------------------- lower_memory.c */

/* `by_tma if condition else by_pointers`, marked so that an assignment or
 * expression statement becomes an if/else statement. */
Node *memory_choice(Lowerer *L, Node *condition, Node *by_tma, Node *by_pointers);
/* The array a name holds after an `if` whose branches bind it to two arrays
 * (lower_memory.c): fresh pieces set at the end of each branch, or an error. */
TypeInfo *memory_merge_arrays(Lowerer *L, Node *at, Str name, TypeInfo *body, TypeInfo *orelse, bool constexpr_if,
                              NodeList *body_out, NodeList *else_out);
/* The name of a fresh local for a memory operation (`x_slice_1`). */
Str memory_temp(Lowerer *L, Str base, const char *what);
TypeInfo *memory_chosen_array(Lowerer *L, Str name, const TypeInfo *body, const TypeInfo *orelse, NodeList *body_out,
                              NodeList *else_out);
bool memory_is_false(const Node *flag);
/* A constant the converter knows the integer value of (a literal, not a constexpr parameter). */
bool memory_known_int(const Node *node, long long *value);
/* A constant: a literal or a constexpr (a parameter, an expression of them). */
bool memory_is_constant(const Node *node);
/* check_bounds=: NULL when bounds are always checked (absent, True); else
 * what the pointer helpers take as their constexpr check_bounds: the False
 * constant, or a constexpr parameter or expression (`not NO_PADDING`) that
 * Triton decides at compile time. A run-time value is a located error. */
Node *memory_check_bounds(Lowerer *L, Node *flag, const char *what);
/* memory_check_bounds's flag given to a pointer helper's call: nothing when always checked,
 * else `check_bounds=False` or `check_bounds=FLAG` (the helpers' constexpr). */
void memory_push_unchecked(Lowerer *L, Node *call, Node *check);
/* latency=: None, a constant from 1 to 10 or a constexpr (a hint, dropped). */
void memory_check_latency(Lowerer *L, Node *latency, const char *what);
/* padding_mode= of a pointer-path load (a ct.PaddingMode member or absent): the
 * `other` value of its tl.load (`None` for UNDETERMINED); -0.0, NaN and the
 * infinities need a float array (an error at `at`, or a static assertion). */
Node *memory_padding_other(Lowerer *L, Node *mode, Node *at, const TypeInfo *array);
/* `what` (what asks for it) needs a float array: an error at `at` where the array's dtype is
 * known, else a static assertion in the kernel's prologue that Triton checks when it compiles
 * it, whose message is `assertion` with the array's pointer for its %s. */
void memory_require_float_array(Lowerer *L, Node *at, const TypeInfo *array, const char *what,
                                const char *assertion);
/* The bound argument 0 of `call`, which must be an array (`what` `verb` an array, not ...). */
Node *memory_require_array(Lowerer *L, Node *call, const BoundArgs *args, const char *what, const char *verb);
/* "sem"/"scope" text for an atomic's memory_order / memory_scope argument. */
const char *memory_order_sem(Lowerer *L, Node *order, const char *what, unsigned *effects);
const char *memory_scope_text(Lowerer *L, Node *scope, const char *what);
/* The dtype a stored value must not narrow from (cuTile allows only
 * widening implicit casts): errors where both dtypes are known. */
void memory_check_store_cast(Lowerer *L, Node *at, const TypeInfo *value, const TypeInfo *array, const char *what);

/* Whether two expressions are written the same. */
bool memory_same_text(Lowerer *L, const Node *a, const Node *b);
bool memory_same_array(Lowerer *L, const TypeInfo *x, const TypeInfo *y);
/* The table's ct.load, ct.store and ct.num_tiles (a tiled view's methods lower to them). */
Node *lower_load(Lowerer *L, Node *call, const char *member);
Node *lower_store(Lowerer *L, Node *call, const char *member);
Node *lower_num_tiles(Lowerer *L, Node *call, const char *member);
/* -------------------------------------------------- lower_memory_gather.c */

Node *memory_lower_gather(Lowerer *L, Node *call, const char *member);
Node *memory_lower_scatter(Lowerer *L, Node *call, const char *member);
Node *memory_lower_atomic_rmw(Lowerer *L, Node *call, const char *member); /* add max min and or xor xchg */
Node *memory_lower_atomic_cas(Lowerer *L, Node *call, const char *member);
/* An integer tile or scalar (an index or offset). */
bool memory_is_integer(const TypeInfo *type);
/* mask=: a bool tile or scalar (an error at `mask` otherwise). */
void memory_check_mask(Lowerer *L, Node *mask, const char *what);
/* The `other` of a masked element load that reads padding value `padding` (NULL: 0). */
Node *memory_gather_other(Lowerer *L, Node *padding);
/* Adds `sem=` and `scope=` to an atomic's call where they are not Triton's defaults (NULL). */
void memory_push_sem_scope(Lowerer *L, Node *call, const char *sem, const char *scope);
/* The dtype checks of ct.atomic_<op> (`op`: "add", "max", ..., "cas") for an update of `array`
 * (`at`: where an error points). */
void memory_check_atomic(Lowerer *L, const char *op, TypeInfo *array, Node *update, Node *at, const char *what);

/* ----------------------------------------------------- lower_memory_raw.c */

/* Array.get_raw_memory and RawArrayMemory's methods: element offsets from the base pointer. */
Node *memory_lower_get_raw_memory(Lowerer *L, Node *call, const char *member);
Node *memory_lower_raw_load(Lowerer *L, Node *call, const char *member);
Node *memory_lower_raw_store(Lowerer *L, Node *call, const char *member);
Node *memory_lower_raw_atomic(Lowerer *L, Node *call, const char *member); /* add max min and or xor xchg */
Node *memory_lower_raw_atomic_cas(Lowerer *L, Node *call, const char *member);

/* -------------------------------------------------- lower_memory_advidx.c */

Node *memory_lower_slice(Lowerer *L, Node *call, const char *member); /* ct.Slice(start, length) */
Node *memory_lower_load_advanced(Lowerer *L, Node *call, const char *member);
Node *memory_lower_store_advanced(Lowerer *L, Node *call, const char *member);

#endif /* C2T_LOWER_MEMORY_H */
