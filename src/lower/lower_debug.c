/*
 * lower_debug.c — ct.printf, ct.print, ct.assert_, ct.static_assert,
 * ct.static_eval, ct.ensure_constant, ct.assume_divisible_by.
 */
#include "lower.h"

const OpEntry lower_debug_ops[] = {
    {NULL, NULL},
};
