"""What the primal and the kernel perceptron share: labels, visiting orders, parameter checks."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .._validation import check_int


class Orders:
    """Visiting order of each epoch, drawn lazily and shared by all classes."""

    def __init__(self, n, shuffle, random_state):
        self.n, self.shuffle = n, shuffle
        self.rng = np.random.default_rng(random_state) if shuffle else None
        self.orders = []

    def __getitem__(self, epoch):
        while len(self.orders) <= epoch:
            self.orders.append(self.rng.permutation(self.n) if self.shuffle else np.arange(self.n))
        return self.orders[epoch]


def fit_labels(estimator, X, y, dtype="numeric"):
    """Validate (X, y) the scikit-learn way; return X, ±1 targets (n, C) and classes.

    Arrays that ``validate_data`` would hand back as they are (a finite 2-D array of an
    accepted dtype, 1-D integer, bool or string labels of the same length) are checked
    here directly, in microseconds instead of a millisecond, with the same fitted
    attributes; anything else goes through ``validate_data``, which says what is wrong.
    """
    if _plain(X, y, dtype):
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    else:
        X, y = validate_data(estimator, X, y, dtype=dtype)
    if y.dtype.kind not in "biuUS":  # 1-D integer, bool or string labels are always classes
        check_classification_targets(y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"y has 1 class ({classes.tolist()}); at least 2 distinct labels are "
            "needed to train a classifier."
        )
    if classes.size == 2:
        Y = np.where(y == classes[1], 1.0, -1.0)[:, None]
    else:
        Y = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
    return X, Y, classes


def _plain(X, y, dtype):
    """Whether ``validate_data(X, y, dtype=dtype)`` would return X and y unchanged, without a warning."""
    if isinstance(dtype, str):  # "numeric": floats are kept as they are (other kinds go through validate_data)
        dtypes = (np.float64, np.float32)
    else:
        dtypes = dtype if isinstance(dtype, tuple) else (dtype,)
    return (type(X) is np.ndarray and type(y) is np.ndarray and X.ndim == 2 and y.ndim == 1
            and X.shape[0] == y.shape[0] >= 1 and X.shape[1] >= 1 and X.dtype in dtypes
            and y.dtype.kind in "biuUS" and bool(np.isfinite(X).all()))


def check_common(est):
    check_int(est.max_epochs, "max_epochs")
    for name in ("fit_intercept", "shuffle"):
        if not isinstance(getattr(est, name), (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {getattr(est, name)!r}.")
    rs = est.random_state
    if rs is not None and not isinstance(rs, (numbers.Integral, np.random.Generator)):
        raise TypeError(f"random_state must be None, an int or a numpy Generator, got {rs!r}.")


def squeeze(classes, value):
    """Binary problems store 1-D coefficients and a float intercept (row 0 of the class axis)."""
    if len(classes) != 2:
        return value
    value = value[0]
    return float(value) if np.ndim(value) == 0 else value


def predict_from_scores(classes, scores):
    if scores.ndim == 1:  # binary: a score of exactly 0 is not a positive vote
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]
