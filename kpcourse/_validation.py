"""Input checks shared by every public function of :mod:`kpcourse`.

Each check raises ``ValueError`` or ``TypeError`` naming the argument, what was
expected and what arrived, so that a student can act on the message. Private
cores elsewhere in the package assume the data already passed these checks.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "check_array",
    "check_pair",
    "check_labels",
    "check_positive",
    "check_int",
]


def check_array(X, name="X", *, ndim=2, dtype=np.float64, allow_empty=False):
    """Return ``X`` as a finite float array of ``ndim`` dimensions.

    ``dtype=None`` keeps float32 and float64 input as it is (no copy) and converts
    anything else to float64. A 1-D array where a 2-D one is expected gets a hint to
    reshape it.
    """
    if X is None:
        raise TypeError(f"{name} must be an array, got None.")
    try:
        arr = np.asarray(X)
        if dtype is not None or arr.dtype not in (np.float32, np.float64):
            arr = np.asarray(arr, dtype=np.float64 if dtype is None else dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be numeric (convertible to {np.dtype(dtype or np.float64).name}); "
            f"got {type(X).__name__}: {exc}"
        ) from None
    if arr.ndim != ndim:
        hint = ""
        if ndim == 2 and arr.ndim == 1:
            hint = (" Use X.reshape(-1, 1) for a single feature or "
                    "X.reshape(1, -1) for a single sample.")
        raise ValueError(
            f"{name} must be a {ndim}-D array, got {arr.ndim}-D with shape {arr.shape}.{hint}"
        )
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one sample "
                         "and one feature are needed.")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        n_bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} contains {n_bad} NaN or infinite value(s); remove or impute "
            "them before calling this function."
        )
    return arr


def check_pair(X, Z=None, *, names=("X", "Z"), dtype=np.float64):
    """Check ``X`` and optional ``Z`` as 2-D arrays with the same number of features.

    Returns ``(X, Z)`` where ``Z`` is ``X`` itself when it was ``None``; ``dtype`` as
    in :func:`check_array`.
    """
    X = check_array(X, names[0], dtype=dtype)
    if Z is None:
        return X, X
    Z = check_array(Z, names[1], dtype=dtype)
    if X.shape[1] != Z.shape[1]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same number of features (columns): "
            f"{names[0]} has {X.shape[1]}, {names[1]} has {Z.shape[1]}."
        )
    return X, Z


def check_labels(y, n_samples, name="y", *, min_classes=2):
    """Check a 1-D label vector of length ``n_samples`` with at least two classes.

    Returns ``(y, classes)`` with ``classes`` the sorted distinct labels.
    """
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape and arr.size == n_samples:
        raise ValueError(
            f"{name} must be a 1-D array of shape ({n_samples},), got shape {arr.shape}; "
            f"use {name}.ravel()."
        )
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}.")
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {arr.shape[0]} labels but X has {n_samples} samples; "
            "they must match."
        )
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite labels.")
    if arr.dtype.kind == "f" and np.any(arr != np.round(arr)):
        raise ValueError(
            f"{name} holds continuous values ({arr[:3]}...); a classifier needs "
            "class labels such as -1/+1 or 0/1."
        )
    classes = np.unique(arr)
    if classes.size < min_classes:
        raise ValueError(
            f"{name} has {classes.size} class ({classes.tolist()}); at least "
            f"{min_classes} distinct labels are needed to train a classifier."
        )
    return arr, classes


def check_positive(value, name, *, strict=True, allow_none=False):
    """Check that ``value`` is a finite real number, > 0 (or >= 0 if not strict)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not np.isfinite(value) or (value <= 0 if strict else value < 0):
        kind = "positive" if strict else "non-negative"
        raise ValueError(f"{name} must be a finite {kind} number, got {value!r}.")
    return value


def check_int(value, name, *, minimum=1):
    """Check that ``value`` is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    return int(value)
