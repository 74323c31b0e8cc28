"""Rosenblatt's perceptron in primal form (lesson 02), with a trace of every step."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_positive
from ._common import Orders, check_common, fit_labels, predict_from_scores, squeeze


class Perceptron(ClassifierMixin, BaseEstimator):
    """Rosenblatt's perceptron in primal form, with a full trace of every step.

    On a mistake y (w · x + b) <= 0: w ← w + η y x, b ← b + η y.

    Parameters
    ----------
    learning_rate : float, default=1.0
        Step size η > 0.
    max_epochs : int, default=100
        Upper bound on passes over the data (non-separable data never converges).
    fit_intercept : bool, default=True
        Learn the bias b; with ``False`` append a constant feature yourself.
    shuffle : bool, default=False
        Visit the samples in a new random order each epoch.
    random_state : int, numpy Generator or None, default=None
        Seed of the visiting orders when ``shuffle=True``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
    intercept_ : float or ndarray of shape (n_classes,)
    mistakes_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Mistakes made on each training sample: the dual counts α.
    alpha_ : ndarray
        Same as ``mistakes_``: w = η Σᵢ αᵢ yᵢ xᵢ.
    n_epochs_ : int
        Epochs run, counting the final mistake-free one.
    converged_ : bool
        Whether an epoch without mistakes was reached (for every class).
    trace_ : ndarray of shape (n_steps, 4 + n_features)
        One row per visited sample, after its step: epoch (from 1), index,
        mistake (0/1), intercept, coef_1, coef_2, … (a list of such arrays, one
        per class, with more than two classes).

    Examples
    --------
    >>> from kpcourse.datasets import worked_example
    >>> X, y = worked_example()
    >>> clf = Perceptron(learning_rate=0.25).fit(X, y)
    >>> clf.coef_, clf.intercept_, clf.n_epochs_
    (array([-1.25,  1.  ]), -0.25, 4)

    Lesson 02 (the perceptron by hand).
    """

    def __init__(self, learning_rate=1.0, max_epochs=100, fit_intercept=True, shuffle=False,
                 random_state=None):
        self.learning_rate = learning_rate
        self.max_epochs = max_epochs
        self.fit_intercept = fit_intercept
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        """Train on X of shape (n_samples, n_features) and labels y; return self."""
        check_positive(self.learning_rate, "learning_rate")
        check_common(self)
        X, Y, self.classes_ = fit_labels(self, X, y)
        orders = Orders(X.shape[0], self.shuffle, self.random_state)
        runs = [_primal_run(X, Y[:, c], self.learning_rate, self.fit_intercept,
                            self.max_epochs, orders) for c in range(Y.shape[1])]
        w, b, mistakes, epochs, converged, traces = zip(*runs, strict=True)
        self.coef_ = squeeze(self.classes_, np.array(w))
        self.intercept_ = squeeze(self.classes_, np.array(b))
        self.mistakes_ = squeeze(self.classes_, np.array(mistakes))
        self.alpha_ = self.mistakes_
        self.n_epochs_ = int(max(epochs))
        self.converged_ = bool(all(converged))
        self.trace_ = traces[0] if len(traces) == 1 else list(traces)
        return self

    def decision_function(self, X):
        """Scores w · x + b: shape (n,) for two classes, (n, n_classes) otherwise."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return X @ np.asarray(self.coef_).T + self.intercept_

    def predict(self, X):
        """Predicted labels; a score of exactly 0 predicts ``classes_[0]``."""
        check_is_fitted(self)
        return predict_from_scores(self.classes_, self.decision_function(X))


def _primal_run(X, y, eta, fit_intercept, max_epochs, orders):
    """The textbook loop, one sample at a time (inputs already validated)."""
    n, d = X.shape
    w, b = np.zeros(d), 0.0
    mistakes = np.zeros(n, dtype=np.int64)
    trace = []
    converged = False
    for epoch in range(max_epochs):
        n_mistakes = 0
        for i in orders[epoch]:
            mistake = y[i] * (X[i] @ w + b) <= 0
            if mistake:
                w = w + eta * y[i] * X[i]
                b = b + eta * y[i] if fit_intercept else b
                mistakes[i] += 1
                n_mistakes += 1
            trace.append([epoch + 1, i, int(mistake), b, *w])
        if n_mistakes == 0:
            converged = True
            break
    return w, b, mistakes, epoch + 1, converged, np.array(trace, dtype=float)
