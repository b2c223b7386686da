/*
 * types.c — dtypes and the TypeInfo of lowered expressions.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "toolkit.h"

static const DTypeInfo DTYPES[DT_COUNT] = {
    [DT_UNKNOWN] = {"?", "?", "?", 0, '?'},
    [DT_BOOL] = {"bool_", "tl.int1", "torch.bool", 1, 'b'},
    [DT_INT8] = {"int8", "tl.int8", "torch.int8", 8, 'i'},
    [DT_INT16] = {"int16", "tl.int16", "torch.int16", 16, 'i'},
    [DT_INT32] = {"int32", "tl.int32", "torch.int32", 32, 'i'},
    [DT_INT64] = {"int64", "tl.int64", "torch.int64", 64, 'i'},
    [DT_UINT8] = {"uint8", "tl.uint8", "torch.uint8", 8, 'u'},
    [DT_UINT16] = {"uint16", "tl.uint16", "torch.uint16", 16, 'u'},
    [DT_UINT32] = {"uint32", "tl.uint32", "torch.uint32", 32, 'u'},
    [DT_UINT64] = {"uint64", "tl.uint64", "torch.uint64", 64, 'u'},
    [DT_FLOAT16] = {"float16", "tl.float16", "torch.float16", 16, 'f'},
    [DT_BFLOAT16] = {"bfloat16", "tl.bfloat16", "torch.bfloat16", 16, 'f'},
    [DT_FLOAT32] = {"float32", "tl.float32", "torch.float32", 32, 'f'},
    [DT_FLOAT64] = {"float64", "tl.float64", "torch.float64", 64, 'f'},
    [DT_TFLOAT32] = {"tfloat32", "tl.float32", "torch.float32", 32, 'f'},
    [DT_FLOAT8_E4M3FN] = {"float8_e4m3fn", "tl.float8e4nv", "torch.float8_e4m3fn", 8, 'f'},
    [DT_FLOAT8_E5M2] = {"float8_e5m2", "tl.float8e5", "torch.float8_e5m2", 8, 'f'},
    /* its codes: cuTile's FP4 bits (S.EE.M) in a uint8, which only the rows flagged OPF_FP4 take */
    [DT_FLOAT4_E2M1FN] = {"float4_e2m1fn", "tl.uint8", NULL, 4, 'f'},
    /* its bits (exponent only, bias 127), which only the rows flagged OPF_E8M0 take; arrays
     * of torch.float8_e8m0fnu reach kernels as uint8 views (the launcher's _tensor) */
    [DT_FLOAT8_E8M0FNU] = {"float8_e8m0fnu", "tl.uint8", "torch.float8_e8m0fnu", 8, 'f'},
};

const DTypeInfo *dtype_info(DType dtype) { return &DTYPES[dtype < DT_COUNT ? dtype : DT_UNKNOWN]; }

DType dtype_from_cutile_name(const char *name) {
  if (strcmp(name, "bool") == 0)
    return DT_BOOL;
  for (int i = DT_BOOL; i < DT_COUNT; i++)
    if (strcmp(DTYPES[i].cutile, name) == 0)
      return (DType)i;
  return DT_UNKNOWN;
}

TypeInfo *type_new(Context *ctx, ValueKind kind) {
  TypeInfo *type = arena_alloc(&ctx->arena, sizeof(TypeInfo));
  type->kind = kind;
  type->rank = -1;
  for (int i = 0; i < C2T_MAX_RANK; i++)
    type->shape[i] = -1;
  return type;
}

TypeInfo *type_tile(Context *ctx, DType dtype, int rank, const int *shape) {
  TypeInfo *type = type_new(ctx, VAL_TILE);
  type->dtype = dtype;
  type->rank = rank;
  for (int i = 0; shape && i < rank && i < C2T_MAX_RANK; i++)
    type->shape[i] = shape[i];
  return type;
}

TypeInfo *type_launch_tuple_item(Context *ctx) {
  TypeInfo *type = type_new(ctx, VAL_CONST);
  type->rank = 0;
  type->dtype = DT_UNKNOWN; /* its value comes with each launch */
  type->const_tuple = true; /* an item may be a tuple again (nested) */
  return type;
}

TypeInfo *type_const_int(Context *ctx, long long value) {
  TypeInfo *type = type_new(ctx, VAL_CONST);
  type->dtype = DT_INT32;
  type->loose = true;
  type->int_value = value;
  type->float_value = (double)value;
  type->rank = 0;
  return type;
}

TypeInfo *type_const_float(Context *ctx, double value) {
  TypeInfo *type = type_new(ctx, VAL_CONST);
  type->dtype = DT_FLOAT32;
  type->loose = true;
  type->is_float = true;
  type->float_value = value;
  type->rank = 0;
  return type;
}

TypeInfo *type_const_bool(Context *ctx, bool value) {
  TypeInfo *type = type_new(ctx, VAL_CONST);
  type->dtype = DT_BOOL;
  type->loose = true;
  type->int_value = value;
  type->rank = 0;
  return type;
}

/* The float8 code of a value past the dtype's finite range (or infinite) with `sign` (0x80 or 0):
 * e4m3fn has no infinity, so its NaN (all ones); e5m2 its infinity. */
static int float8_overflow(DType dtype, int sign) { return sign | (dtype == DT_FLOAT8_E4M3FN ? 0x7F : 0x7C); }

int dtype_fold_float8(DType dtype, double value, double *finite) {
  const bool e4m3 = dtype == DT_FLOAT8_E4M3FN;
  const int precision = e4m3 ? 3 : 2, emin = e4m3 ? -6 : -14, emax = e4m3 ? 8 : 15;
  double v = (double)(float)value; /* float32 first, to nearest, ties to even */
  int sign = signbit(v) ? 0x80 : 0;
  if (isnan(v)) /* e4m3fn's NaN is all ones; e5m2 keeps the quiet bit of float64's payload */
    return sign | (e4m3 ? 0x7F : 0x7E);
  if (isinf(v))
    return float8_overflow(dtype, sign);
  *finite = v;
  if (v == 0)
    return sign;
  int e;
  double m = 2 * frexp(fabs(v), &e); /* |v| = m * 2**e, m in [1, 2) */
  e -= 1;
  if (e > emax)
    return float8_overflow(dtype, sign);
  int biased = 0;
  if (e < emin) /* subnormals: the quantum of the smallest normals */
    m = ldexp(m, e - emin);
  else {
    m -= 1.0;
    biased = e - emin + 1;
  }
  double steps = nearbyint(m * (1 << precision)); /* exact before rounding: to nearest, ties to even */
  if (steps == (1 << precision)) {
    steps = 0;
    if (++biased > emax - emin + 1)
      return float8_overflow(dtype, sign);
  }
  int code = sign | biased << precision | (int)steps;
  double magnitude = biased ? ldexp(1.0 + steps / (1 << precision), biased + emin - 1)
                            : ldexp(steps, emin - precision);
  *finite = sign ? -magnitude : magnitude;
  return code;
}

bool dtype_float8_is_special(DType dtype, int code) {
  return dtype == DT_FLOAT8_E4M3FN ? (code & 0x7F) == 0x7F : (code & 0x7C) == 0x7C;
}

double dtype_fold_tfloat32(double value) {
  float f = (float)value; /* float32 first */
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7F800000) != 0x7F800000) /* then 10 mantissa bits, to nearest, ties to even */
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000;
  memcpy(&f, &bits, sizeof f);
  return f;
}

bool dtype_is_coded(DType dtype) { return dtype == DT_FLOAT4_E2M1FN || dtype == DT_FLOAT8_E8M0FNU; }

#define CODED_SCAN_MAX_DEPTH 16 /* tuples nested in a value scanned for a tile of a coded dtype */

static DType coded_dtype(const TypeInfo *type, int depth) {
  if (!type)
    return DT_UNKNOWN;
  if (depth > CODED_SCAN_MAX_DEPTH)
    return DT_FLOAT4_E2M1FN; /* not looked into: taken as holding one (refused) */
  if ((type->kind == VAL_TILE || type->kind == VAL_DTYPE) && dtype_is_coded(type->dtype))
    return type->dtype;
  for (int i = 0; type->kind == VAL_TUPLE && type->elts && i < type->count; i++) {
    DType found = coded_dtype(type->elts[i], depth + 1);
    if (found != DT_UNKNOWN)
      return found;
  }
  return DT_UNKNOWN;
}

/* A tile of a coded dtype holds uint8 codes: only the rows flagged for it may
 * take it (bind_call), so every other use has to be found. A tuple nested
 * deeper than CODED_SCAN_MAX_DEPTH counts as holding one. */
DType type_coded_dtype(const TypeInfo *type) { return coded_dtype(type, 0); }

static bool nested_deeper(const TypeInfo *type, int depth) {
  if (!type || type->kind != VAL_TUPLE || !type->elts)
    return false;
  if (depth >= CODED_SCAN_MAX_DEPTH)
    return true;
  for (int i = 0; i < type->count; i++)
    if (nested_deeper(type->elts[i], depth + 1))
      return true;
  return false;
}

bool type_too_deep_to_scan(const TypeInfo *type, int *limit) {
  *limit = CODED_SCAN_MAX_DEPTH;
  return nested_deeper(type, 0);
}

bool dtype_float8_e8m0fnu_bits(double value, int *bits) {
  if (signbit(value))
    return false;
  if (isnan(value) || isinf(value)) {
    *bits = 255;
    return true;
  }
  if (value == 0) {
    *bits = 0;
    return true;
  }
  int exponent;
  double fraction = frexp(value, &exponent); /* value = fraction * 2**exponent, fraction in [0.5, 1) */
  exponent -= 1;                             /* value = (2 * fraction) * 2**exponent */
  if (exponent > 127) {
    *bits = 255;
    return true;
  }
  if (exponent < -127) {
    *bits = 0;
    return true;
  }
  int biased = exponent + 127 + (2 * fraction >= 1.5); /* no mantissa: from 1.5 up it is the next power */
  *bits = biased > 254 ? 255 : biased;
  return true;
}

bool dtype_float4_code(double value, int *code) {
  /* the midpoints between FP4 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6, with
   * whether a tie goes up (to the even code) */
  static const struct {
    double midpoint;
    bool tie_up;
  } STEPS[] = {{0.25, false}, {0.75, true}, {1.25, false}, {1.75, true}, {2.5, false}, {3.5, true}, {5.0, false}};
  if (isnan(value))
    return false;
  double magnitude = fabs(value);
  int m = 0;
  for (size_t i = 0; i < sizeof STEPS / sizeof STEPS[0]; i++)
    m += magnitude > STEPS[i].midpoint || (STEPS[i].tie_up && magnitude == STEPS[i].midpoint);
  *code = m | (signbit(value) ? 8 : 0);
  return true;
}

bool type_is_scalar(const TypeInfo *type) {
  return type && (type->kind == VAL_CONST || (type->kind == VAL_TILE && type->rank == 0));
}

const char *const TYPE_OPAQUE_WHY =
    "the function is copied into this module, and what it returns is known, only where its file is found "
    "beside this one and can be copied: README, 'What the conversion does', sibling modules";

const char *type_describe(Context *ctx, const TypeInfo *type) {
  static const char *KIND_NAMES[] = {
      [VAL_UNKNOWN] = "a value of unknown kind", [VAL_ARRAY] = "an array", [VAL_TILE] = "a tile",
      [VAL_CONST] = "a constant", [VAL_DTYPE] = "a dtype", [VAL_TUPLE] = "a tuple",
      [VAL_ENUM] = "an enum member", [VAL_NONE] = "None", [VAL_FUNCTION] = "a function", [VAL_STRING] = "a string",
      [VAL_SLICE] = "a ct.Slice",
      [VAL_LIST] = "a list of arrays",
  };
  if (!type)
    return "nothing";
  /* " of float16", or nothing where the dtype comes only with a launch or a call */
  const char *of = type->dtype == DT_UNKNOWN ? "" : arena_printf(&ctx->arena, " of %s", dtype_info(type->dtype)->cutile);
  if (type->kind == VAL_TILE && type->rank == 0)
    return arena_printf(&ctx->arena, "a scalar%s", of);
  if (type->kind == VAL_CONST && type->const_tuple && type->dtype == DT_UNKNOWN)
    return "a Constant parameter's tuple (or an item of one), known only at launch";
  if (type->kind == VAL_TILE && type->rank < 0 && type->opaque)
    return arena_printf(&ctx->arena,
                        "a tile that comes from a tile function of another module, whose rank is not known at "
                        "conversion (%s)",
                        TYPE_OPAQUE_WHY);
  if (type->kind == VAL_TILE && type->rank < 0) /* e.g. branches of an `if` gave it two ranks */
    return arena_printf(&ctx->arena, "a tile%s whose rank is not known at conversion", of);
  if (type->kind == VAL_TILE)
    return arena_printf(&ctx->arena, "a %d-d tile%s", type->rank, of);
  return KIND_NAMES[type->kind];
}
