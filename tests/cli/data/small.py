# A small module: comments and a docstring survive the round trip.
"""Docstring."""

import math  # trailing


def area(r: float) -> float:
    # own-line comment
    return math.pi * r ** 2
