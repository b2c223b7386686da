/*
 * lower_math_runtime.c — the runtime helpers of the elementwise math family.
 *
 * The fixed helpers (ct_truediv, ct_floordiv, ct_mod, ct_common_dtype, ...)
 * are Python in src/lower/helpers/math_helpers.py, used through use_helper;
 * here is the one built per function: ct_<name>(x) of the float functions.
 *
 * Triton's interpreter (TRITON_INTERPRET=1, CPU) has no libdevice: helpers
 * that call libdevice take another path there (`if INTERPRETED:`), numpy's
 * function through interpreted_numpy; Triton compiles only the branch its
 * constexpr condition picks, so the GPU never sees that path.
 */
#include <string.h>

#include "lower_math.h"

static const char FLOAT32_ONLY[] =
    "    tl.static_assert(x.dtype == tl.float32, \"cuTile takes this mode or flag for float32 only\")\n";

/* ct_<name>(x): a float math function with cuTile's dtypes: integers and
 * bool give float32, float16/bfloat16 are computed in float32 and rounded
 * back (Triton's math functions take float32/float64 only). */
Node *math_unary_helper(Lowerer *L, const char *name, const char *gpu_expr, const char *interpreted_expr,
                        const char *doc, bool float32_only) {
  use_helper(L, HELPER_ct_float_dtype);
  use_helper(L, HELPER_ct_compute_dtype);
  Buf body = {0};
  if (interpreted_expr) {
    if (strstr(interpreted_expr, "interpreted_numpy"))
      use_helper(L, HELPER_interpreted_numpy);
    L->needs_interpreted_flag = true;
    buf_printf(&body,
               "    if INTERPRETED:\n"
               "        r = %s\n"
               "    else:\n"
               "        r = %s\n",
               interpreted_expr, gpu_expr);
  } else {
    buf_printf(&body, "    r = %s\n", gpu_expr);
  }
  if (strstr(buf_text(&body), "libdevice.")) /* not an inline_asm_elementwise alone */
    L->needs_libdevice = true;
  const char *source = arena_printf(&L->ctx->arena,
                                    "@triton.jit\n"
                                    "def %s(x):\n"
                                    "    \"\"\"%s\"\"\"\n"
                                    "%s"
                                    "    dtype: tl.constexpr = ct_float_dtype(x.dtype)\n"
                                    "    x = x.to(ct_compute_dtype(dtype))\n"
                                    "%s"
                                    "    return r.to(dtype)\n",
                                    name, doc, float32_only ? FLOAT32_ONLY : "", buf_text(&body));
  buf_free(&body);
  return use_runtime(L, arena_strndup(&L->ctx->arena, name, strlen(name)), source);
}
