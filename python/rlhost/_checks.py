"""Checks of the numbers a caller passes (counts, seeds), with NumPy alone."""

import numpy as np


def check_int(value, what, low, high):
    """value as an int in [low, high], refused (not wrapped) otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {type(value).__name__} {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{what} is {int(value)}, outside [{low}, {high}]")
    return int(value)


def check_seed(seed, what="seed"):
    return check_int(seed, what, 0, (1 << 64) - 1)
