"""The perceptron, primal and dual (kernel), as scikit-learn classifiers.

Primal rule (lesson 02): on a mistake y (w · x + b) <= 0, update
w ← w + η y x and b ← b + η y. A score of exactly 0 counts as a mistake.

Dual rule (lesson 03 on): keep a mistake counter αᵢ per training point and predict
with f(x) = Σᵢ αᵢ yᵢ k(xᵢ, x) + b; on a mistake αᵢ ← αᵢ + 1 and b ← b + yᵢ.

Both train online, one sample at a time in a fixed visiting order per epoch
(``rng.permutation(n)`` from ``np.random.default_rng(random_state)`` when
``shuffle=True``, else ``0..n-1``), and stop after the first epoch without a
mistake or after ``max_epochs``. More than two classes: one-vs-rest, every class
seeing the same visiting orders.
"""

from __future__ import annotations

import numbers
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_int, check_positive
from .gram import KERNEL_NAMES, kernel_params

__all__ = ["Perceptron", "KernelPerceptron"]

class _Orders:
    """Visiting order of each epoch, drawn lazily and shared by all classes."""

    def __init__(self, n, shuffle, random_state):
        self.n, self.shuffle = n, shuffle
        self.rng = np.random.default_rng(random_state) if shuffle else None
        self.orders = []

    def __getitem__(self, epoch):
        while len(self.orders) <= epoch:
            self.orders.append(self.rng.permutation(self.n) if self.shuffle else np.arange(self.n))
        return self.orders[epoch]


def _fit_labels(estimator, X, y, **kw):
    """Validate (X, y) the scikit-learn way; return X, ±1 targets (n, C) and classes."""
    X, y = validate_data(estimator, X, y, **kw)
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


def _check_common(est):
    check_int(est.max_epochs, "max_epochs")
    for name in ("fit_intercept", "shuffle"):
        if not isinstance(getattr(est, name), (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {getattr(est, name)!r}.")
    rs = est.random_state
    if rs is not None and not isinstance(rs, (numbers.Integral, np.random.Generator)):
        raise TypeError(f"random_state must be None, an int or a numpy Generator, got {rs!r}.")


def _squeeze_binary(est, **arrays):
    """Binary problems store 1-D coefficients and a float intercept."""
    for name, value in arrays.items():
        if len(est.classes_) == 2:
            value = value[0]
            if np.ndim(value) == 0:
                value = float(value)
        setattr(est, name, value)


def _predict_from_scores(classes, scores):
    if scores.ndim == 1:  # binary: a score of exactly 0 is not a positive vote
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


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
        _check_common(self)
        X, Y, self.classes_ = _fit_labels(self, X, y)
        orders = _Orders(X.shape[0], self.shuffle, self.random_state)
        runs = [_primal_run(X, Y[:, c], self.learning_rate, self.fit_intercept,
                            self.max_epochs, orders) for c in range(Y.shape[1])]
        w, b, mistakes, epochs, converged, traces = zip(*runs, strict=True)
        _squeeze_binary(self, coef_=np.array(w), intercept_=np.array(b),
                        mistakes_=np.array(mistakes))
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
        return _predict_from_scores(self.classes_, self.decision_function(X))


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


class KernelPerceptron(ClassifierMixin, BaseEstimator):
    """Kernel perceptron: the dual rule with mistake counts α and any kernel.

    f(x) = Σᵢ αᵢ yᵢ k(xᵢ, x) + b; on a mistake yᵢ f(xᵢ) <= 0: αᵢ ← αᵢ + 1, b ← b + yᵢ.

    Training is exact online: the same α, bias and epochs as the one-sample-at-a-time
    loop over the same visiting order. The decision values of all training points
    are kept and updated by one kernel column per mistake, and the next mistake is
    found by a vectorised check, so correctly classified samples cost no Python work.
    All classes of a one-vs-rest problem advance together in one pass over the data.

    Parameters
    ----------
    kernel : {"linear", "poly", "polynomial", "rbf", "cosine", "precomputed"} or callable, default="rbf"
        A callable takes (X, Z) and returns the Gram matrix of shape (len(X), len(Z)).
        With "precomputed", ``fit`` takes the (n, n) training Gram matrix and
        ``predict`` the (m, n) matrix K(test, train).
    degree : int, default=2
        Degree of the polynomial kernel.
    gamma : float, default=None
        RBF: exp(-γ‖x − z‖²); poly: (γ x·z + coef0)^degree. ``None``: for RBF with
        no ``sigma`` the "scale" rule γ = 1 / (n_features · X.var()); for poly 1.
    sigma : float, default=None
        RBF bandwidth, exp(-‖x − z‖² / (2σ²)). Give ``sigma`` or ``gamma``, not both.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    max_epochs : int, default=10
    fit_intercept : bool, default=True
    shuffle : bool, default=True
    random_state : int, numpy Generator or None, default=None
    mode : {"last", "averaged", "voted"}, default="last"
        Which predictor ``decision_function``/``predict`` use: the final α, the
        average of α over every visited step (averaged perceptron), or the vote of
        every intermediate predictor weighted by how long it survived (voted
        perceptron, Freund & Schapire 1999; one vote per class for one-vs-rest).
    device : "auto", "cpu" or "cuda", default="auto"
        Where the kernel columns and decision values live; "auto" picks CUDA if present.
    max_memory : int, default=None
        Bytes allowed for the training kernel columns. When the full n×n matrix
        does not fit, columns are computed in blocks on demand (the next
        misclassified samples first) and cached within the budget. ``None``: 40 % of
        the machine's memory on CPU, 50 % of free GPU memory on CUDA.
    precision : {"auto", "float64", "float32", "float16", "bfloat16"}, default="auto"
        Storage precision of the kernel columns (dot products are computed in
        float32, or float64 when storing float64). "auto": float64 on CPU when
        the full matrix fits, else the lowest precision whose full matrix fits the
        budget and cannot overflow for the kernel (float32, float16), else cached
        float32 columns; float32 on CUDA. Overflow raises ``OverflowError``.
    verbose : bool, default=False
        Show a tqdm progress bar per epoch with the mistakes made.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Mistake counts.
    intercept_ : float or ndarray of shape (n_classes,)
    alpha_avg_, intercept_avg_ : ndarray, float
        The averaged perceptron's dual coefficients and bias.
    support_ : ndarray of shape (n_support,)
        Indices of training samples with α > 0 (for any class).
    dual_coef_ : ndarray of shape (n_classes or 1, n_support)
        αᵢ yᵢ of the support vectors.
    support_vectors_ : ndarray of shape (n_support, n_features)
        (Not stored for ``kernel="precomputed"``.)
    n_epochs_ : int
    converged_ : bool
    history_ : list of int
        Mistakes per epoch (summed over classes).
    gamma_ : float or None
        The γ actually used (RBF and poly).
    precision_ : str
        Storage precision used for the kernel columns.
    columns_computed_ : int
        Kernel columns computed during training (n when the full matrix was built).
    timings_ : dict
        Seconds spent on the training Gram matrix ("gram"; 0-ish when columns are
        cached on demand) and in the training passes ("train").

    Examples
    --------
    >>> from kpcourse.datasets import circles
    >>> X, y = circles(200, noise=0.05, random_state=0)
    >>> KernelPerceptron(kernel="poly", degree=2, random_state=0).fit(X, y).score(X, y)
    1.0

    Lessons 03 (dual form) to 07 (MNIST on the GPU).
    """

    def __init__(self, kernel="rbf", *, degree=2, gamma=None, sigma=None, coef0=1.0,
                 max_epochs=10, fit_intercept=True, shuffle=True, random_state=None,
                 mode="last", device="auto", max_memory=None, precision="auto", verbose=False):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.sigma = sigma
        self.coef0 = coef0
        self.max_epochs = max_epochs
        self.fit_intercept = fit_intercept
        self.shuffle = shuffle
        self.random_state = random_state
        self.mode = mode
        self.device = device
        self.max_memory = max_memory
        self.precision = precision
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Train on X (n_samples, n_features) — or an (n, n) Gram matrix — and y."""
        import torch

        from . import _dual
        from .gram import resolve_device

        _check_common(self)
        if self.mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, got {self.mode!r}.")
        if self.precision not in _PRECISIONS:
            raise ValueError(f"precision must be one of {_PRECISIONS}, got {self.precision!r}.")
        X, Y, self.classes_ = _fit_labels(self, X, y, dtype=np.float64)
        self._params = self._kernel_params(X)
        dev = resolve_device(self.device)
        compute = torch.float64 if dev.type == "cpu" else torch.float32
        t0 = time.perf_counter()
        cols = self._train_columns(X, dev)
        t1 = time.perf_counter()
        orders = _Orders(X.shape[0], self.shuffle, self.random_state)
        r = _dual.dual_train(cols, torch.as_tensor(Y, dtype=compute, device=dev), self.fit_intercept,
                             self.max_epochs, orders, progress=self.verbose)
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        self.timings_ = {"gram": t1 - t0, "train": time.perf_counter() - t1}
        n = X.shape[0]
        a_avg, b_avg = _dual.averaged(r.alpha, r.tau, r.bias, r.bias_tau, np.maximum(r.epochs * n, 1))
        self._result, self._Y = r, Y
        self.support_ = np.flatnonzero(r.alpha.any(0))
        self.dual_coef_ = (r.alpha * Y.T)[:, self.support_]
        self._dual_coef_avg = (a_avg * Y.T)[:, self.support_]
        if self.kernel != "precomputed":
            self.support_vectors_ = X[self.support_]
        _squeeze_binary(self, alpha_=r.alpha, intercept_=r.bias, alpha_avg_=a_avg, intercept_avg_=b_avg)
        self.n_epochs_ = int(r.epochs.max())
        self.converged_ = bool(r.converged.all())
        self.history_ = r.history
        self.columns_computed_ = int(r.columns_computed)
        return self

    def _kernel_params(self, X):
        k = self.kernel
        if callable(k) or k == "precomputed":
            if k == "precomputed" and X.shape[0] != X.shape[1]:
                raise ValueError(
                    f"kernel='precomputed' needs the square (n, n) training Gram matrix; got {X.shape}.")
            self.gamma_ = None
            return {}
        if k not in KERNEL_NAMES:
            raise ValueError(
                f"kernel must be one of {KERNEL_NAMES + ('precomputed',)} or a callable; got {k!r}.")
        gamma, sigma = self.gamma, self.sigma
        if k == "rbf" and gamma is None and sigma is None:
            var = X.var()
            gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        p = kernel_params(k, degree=self.degree, gamma=gamma, sigma=sigma, coef0=self.coef0)
        self.gamma_ = p.get("gamma")
        return p

    def _train_columns(self, X, dev):
        """A column source whose ``get(i)`` is the kernel column k(X, x_i)."""
        import torch

        from . import _dual
        from .gram import gram_matrix

        n = X.shape[0]
        if self.kernel == "precomputed" or callable(self.kernel):
            K = X.T if self.kernel == "precomputed" else _call_kernel(self.kernel, X, X).T
            store = torch.float64 if dev.type == "cpu" else torch.float32
            self.precision_ = str(store).replace("torch.", "")
            return _dual.FullColumns(torch.tensor(np.ascontiguousarray(K), dtype=store, device=dev))
        budget = _memory_budget(self.max_memory, dev)
        store, full = self._storage(X, n, budget, dev)
        self.precision_ = str(store).replace("torch.", "")
        compute = torch.float64 if store == torch.float64 else torch.float32
        Xt = torch.tensor(X, dtype=compute, device=dev)
        if full:
            K = gram_matrix(Xt, kernel=self.kernel, device=dev, dtype=compute, out_dtype=store,
                            max_memory=min(budget, 1 << 30), **self._params)
            return _dual.FullColumns(K)
        itemsize = torch.finfo(store).bits // 8
        return _dual.CachedColumns(Xt, self.kernel, self._params, budget // (n * itemsize), store)

    def _storage(self, X, n, budget, dev):
        """Storage dtype and whether the full matrix fits (see ``precision``)."""
        import torch

        bound = _kernel_bound(self.kernel, X, self._params)
        if self.precision != "auto":
            store = getattr(torch, self.precision)
            if bound > torch.finfo(store).max:
                raise OverflowError(
                    f"{self.kernel} kernel values can reach {bound:.4g}, above the largest "
                    f"{self.precision} ({torch.finfo(store).max:.4g}); use precision='float32', "
                    "a smaller gamma or degree.")
            return store, n * n * (torch.finfo(store).bits // 8) <= budget
        choices = (torch.float64, torch.float32, torch.float16) if dev.type == "cpu" else \
            (torch.float32, torch.float16)
        for store in choices:
            if n * n * (torch.finfo(store).bits // 8) <= budget and bound <= torch.finfo(store).max:
                return store, True
        return torch.float32, False

    # ------------------------------------------------------------- predict
    def _kernel_to_support(self, X):
        if self.kernel == "precomputed":
            return X[:, self.support_]
        if callable(self.kernel):
            return _call_kernel(self.kernel, X, self.support_vectors_)
        if len(self.support_) == 0:
            return np.zeros((X.shape[0], 0))
        from .gram import gram_matrix

        return gram_matrix(X, self.support_vectors_, kernel=self.kernel, device=self.device,
                           **self._params)

    def decision_function(self, X):
        """Scores of the predictor chosen by ``mode``: shape (n,) for two classes, else (n, n_classes).

        "last" and "averaged": f(x) = Σᵢ αᵢ yᵢ k(xᵢ, x) + b with the final or the
        averaged α and b; "voted": Σₖ cₖ sign(fₖ(x)) over the intermediate predictors.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Ks = self._kernel_to_support(X)
        if self.mode == "voted":
            scores = self._voted_scores(Ks)
        else:
            coef = self.dual_coef_ if self.mode == "last" else self._dual_coef_avg
            b = self.intercept_ if self.mode == "last" else self.intercept_avg_
            scores = Ks @ coef.T + b
        return scores[:, 0] if len(self.classes_) == 2 and scores.ndim == 2 else scores

    def predict(self, X):
        """Predicted labels; a score of exactly 0 predicts ``classes_[0]``."""
        check_is_fitted(self)
        return _predict_from_scores(self.classes_, self.decision_function(X))

    def staged_decision_function(self, X, mode=None):
        """Yield the decision function after each epoch (for learning curves).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        mode : {"last", "averaged"}, default=None
            ``None`` uses ``self.mode`` ("voted" is not staged).

        Yields
        ------
        scores : ndarray of shape (n,) or (n, n_classes), one per epoch run.
        """
        from ._dual import state_after

        check_is_fitted(self)
        mode = mode or self.mode
        if mode not in ("last", "averaged"):
            raise ValueError(f"staged_decision_function supports mode 'last' or 'averaged', got {mode!r}.")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Ks = self._kernel_to_support(X)
        n = self._Y.shape[0]
        for epoch in range(1, self.n_epochs_ + 1):
            alpha, b, a_avg, b_avg = state_after(self._result, self._Y, n, epoch, self.fit_intercept)
            a, bb = (alpha, b) if mode == "last" else (a_avg, b_avg)
            scores = Ks @ (a * self._Y.T)[:, self.support_].T + bb
            yield scores[:, 0] if len(self.classes_) == 2 else scores

    def staged_predict(self, X, mode=None):
        """Yield the predicted labels after each epoch."""
        for scores in self.staged_decision_function(X, mode):
            yield _predict_from_scores(self.classes_, scores)

    def _voted_scores(self, Ks):
        """Σₖ cₖ sign(fₖ(x)), the intermediate predictors rebuilt from the mistake log."""
        r, Y = self._result, self._Y
        n = Y.shape[0]
        pos = np.searchsorted(self.support_, r.log_index)  # column of Ks for each mistake
        out = np.zeros((Ks.shape[0], Y.shape[1]))
        for c in range(Y.shape[1]):
            sel = r.log_classes[:, c]
            steps, cols = r.log_step[sel], pos[sel]
            if steps.size == 0:
                continue
            T = r.epochs[c] * n
            survive = np.diff(np.append(steps, T + 1)).astype(float)  # cₖ
            f = np.full(Ks.shape[0], 0.0)
            for start in range(0, steps.size, 512):  # prefix sums, a block of mistakes at a time
                blk = slice(start, start + 512)
                upd = (Ks[:, cols[blk]] + (1.0 if self.fit_intercept else 0.0)) * Y[r.log_index[sel][blk], c]
                F = f[:, None] + np.cumsum(upd, axis=1)
                out[:, c] += np.sign(F) @ survive[blk]
                f = F[:, -1]
        return out


_MODES = ("last", "averaged", "voted")


_PRECISIONS = ("auto", "float64", "float32", "float16", "bfloat16")


def _memory_budget(max_memory, dev):
    """Bytes for the kernel columns: ``max_memory`` or a share of the device's memory."""
    if max_memory is not None:
        return check_int(max_memory, "max_memory")
    import os

    import torch

    if dev.type == "cuda":
        free, _ = torch.cuda.mem_get_info(dev)
        return int(0.5 * free)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 * 2**30
    return int(0.4 * total)


def _kernel_bound(kernel, X, params):
    """An upper bound on |k(x, z)| over the training set (Cauchy–Schwarz)."""
    if kernel in ("rbf", "cosine"):
        return 1.0
    r2 = float((X * X).sum(1).max())
    if kernel == "linear":
        return r2
    return (params["gamma"] * r2 + params["coef0"]) ** params["degree"]


def _call_kernel(kernel, X, Z):
    K = np.asarray(kernel(X, Z), dtype=np.float64)
    if K.shape != (X.shape[0], Z.shape[0]):
        raise ValueError(
            f"the kernel callable must return shape ({X.shape[0]}, {Z.shape[0]}) for "
            f"inputs of {X.shape[0]} and {Z.shape[0]} samples; it returned {K.shape}.")
    if not np.all(np.isfinite(K)):
        raise ValueError("the kernel callable returned NaN or infinite values.")
    return K
