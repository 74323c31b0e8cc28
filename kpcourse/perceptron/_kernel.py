"""The kernel perceptron (lessons 03–07): the dual rule with any kernel, trained exactly online."""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _dual
from .._validation import check_int
from ..gram import gram_matrix, resolve_device
from ..kernels import KERNEL_NAMES, KERNELS
from ._common import Orders, check_common, fit_labels, predict_from_scores, squeeze
from ._virtual import check_augment

MODES = ("last", "averaged", "voted")
PRECISIONS = ("auto", "float64", "float32", "float16", "bfloat16")


class KernelPerceptron(ClassifierMixin, BaseEstimator):
    """Kernel perceptron: the dual rule with mistake counts α and any kernel.

    f(x) = Σᵢ αᵢ yᵢ k(xᵢ, x) + b; on a mistake yᵢ f(xᵢ) <= 0: αᵢ ← αᵢ + 1, b ← b + yᵢ.

    Training is exact online: the same α, bias and epochs as the one-sample-at-a-time
    loop over the same visiting order. The decision values of all training points
    are kept and updated by one kernel column per mistake, so correctly classified
    samples cost no kernel work, and a column is computed only the first time its
    sample errs: training evaluates the kernel about n × (number of distinct samples
    that ever err) times, not n² (the whole Gram matrix is used only when you pass it,
    ``kernel="precomputed"``). All classes of a one-vs-rest problem advance together in
    one pass over the data.

    Parameters
    ----------
    kernel : {"linear", "poly", "polynomial", "rbf", "cosine", "precomputed"} or callable, default="rbf"
        A name of ``kpcourse.kernels.KERNELS``. A callable takes (A, B) and returns the
        kernel matrix of shape (len(A), len(B)); it is called on blocks of training
        samples. With "precomputed", ``fit`` takes the (n, n) training Gram matrix (read
        in place, without a copy, when it is a C- or F-ordered float64 or float32
        array on the CPU) and ``predict`` the (m, n) matrix K(test, train).
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
        The most bytes of kernel values held in working memory at once, besides the
        inputs and the result — the same meaning as in ``kpcourse.gram.gram_matrix``.
        Here: the store of training kernel columns (new columns are computed in place
        in it; float16 storage adds a float32 staging block of 64 columns). When the
        store is full, the oldest columns are dropped and recomputed if needed (exact,
        slower). ``None``: 40 % of the machine's memory on CPU, 50 % of free GPU
        memory on CUDA.
    precision : {"auto", "float64", "float32", "float16", "bfloat16"}, default="auto"
        Storage precision of the kernel columns (dot products are computed in float64
        when storing float64, else in float32; decision values are float64 on the CPU,
        float32 on CUDA). "auto": the highest precision in which every column that
        training needs fits ``max_memory`` — float64 on CPU, then float32, then
        float16 if the kernel cannot overflow it (with a warning: float16 keeps about
        3 significant digits); float32 on CUDA, then float16. Overflow raises
        ``OverflowError``.
    verbose : bool, default=False
        Show a tqdm progress bar per epoch with the mistakes made and the kernel
        columns computed so far.
    augment : VirtualExamples or None, default=None
        Virtual examples (``kpcourse.perceptron.VirtualExamples``): train once
        (``augment.first_epochs`` epochs), make shifted / rotated copies of the samples
        that erred (the support vectors) only, then train from scratch on the training
        samples followed by those copies, ``max_epochs`` epochs. Kernel columns are still
        computed only for samples (original or virtual) that err, and the column store
        stays within ``max_memory`` (the copies themselves are an input: n_virtual ×
        n_features floats). Deterministic with ``random_state``. Not with
        ``kernel="precomputed"``.
    budget : int or None, default=None
        The most support vectors kept: when a mistake on a new sample would make one too
        many, the oldest support vector is removed after that step (its α set to 0, its
        contribution to every decision value subtracted: the Forgetron's removal, without
        its shrinking). The column store then holds at most ``budget + 64`` columns, so
        memory grows with the budget, not with n. Needs ``mode="last"``: the averaged
        and voted predictors would need the removed support vectors too.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Mistake counts (with ``augment``: n_samples + n_virtual_, the training samples
        first, then the virtual copies).
    intercept_ : float or ndarray of shape (n_classes,)
    alpha_avg_, intercept_avg_ : ndarray, float
        The averaged perceptron's dual coefficients and bias.
    support_ : ndarray of shape (n_support,)
        Indices of training samples with α > 0 (for any class); with ``augment``, indices
        ≥ n_samples are virtual copies (``virtual_source_`` names their originals).
    n_virtual_ : int
        Virtual copies trained on (0 without ``augment``).
    virtual_source_ : ndarray of shape (n_virtual_,)
        The training sample each virtual copy was made from.
    removed_ : int
        Support vectors removed to stay within ``budget`` (0 without one).
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
        Storage precision of the kernel values used in training.
    columns_computed_ : int
        Kernel columns computed during training (one per distinct sample that erred,
        more if the store had to drop some; 0 for ``kernel="precomputed"``).
    kernel_evaluations_ : int
        Kernel values computed during training: ``columns_computed_ × n`` plus the
        short rows that move the decision values within a window of visited samples.
    timings_ : dict
        Seconds computing training kernel values ("gram") and in the rest of the
        training passes ("train"), and the number of columns computed ("columns");
        with ``augment`` these sum both trainings, and "first" and "first_columns" hold
        the seconds and the columns of the first one.

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
                 mode="last", device="auto", max_memory=None, precision="auto", verbose=False,
                 augment=None, budget=None):
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
        self.augment = augment
        self.budget = budget

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Train on X (n_samples, n_features) — or an (n, n) Gram matrix — and y."""
        # 1. validate
        self._check_params()
        pre = self.kernel == "precomputed"
        X, Y, classes = fit_labels(self, X, y, dtype=(np.float64, np.float32) if pre else np.float64)
        params = self._kernel_params(X)
        device = resolve_device(self.device)
        if self.augment is not None and pre:
            raise ValueError("augment needs the samples themselves, not kernel='precomputed'.")
        augment = check_augment(self.augment, X.shape[1])
        # 2.-3. choose the column source (precomputed matrix, or columns on demand) and train
        start = time.perf_counter()
        r = self._train(X, Y, params, device, self.max_epochs if augment is None else
                        augment.first_epochs or self.max_epochs, Orders(X.shape[0], self.shuffle, self.random_state))
        self.n_virtual_, self.virtual_source_, first = 0, np.zeros(0, dtype=np.int64), None
        if augment is not None:  # virtual copies of the samples that erred, then train again on all
            first = (time.perf_counter() - start, r.kernel_seconds, r.columns_computed, r.kernel_evaluations)
            rng = np.random.default_rng(self.random_state)
            V, self.virtual_source_ = augment.make(X, np.flatnonzero(r.alpha.any(0)), rng)
            X, Y = np.vstack([X, V]), np.vstack([Y, Y[self.virtual_source_]])
            self.n_virtual_ = len(V)
            del V
            r = self._train(X, Y, params, device, self.max_epochs, Orders(X.shape[0], self.shuffle, rng))
        seconds = time.perf_counter() - start
        if first is not None:
            r.kernel_seconds += first[1]
            r.columns_computed += first[2]
            r.kernel_evaluations += first[3]
        # 4. store the fitted state
        n = X.shape[0]
        a_avg, b_avg = _dual.averaged(r.alpha, r.tau, r.bias, r.bias_tau, np.maximum(r.epochs * n, 1))
        self.classes_, self._params, self._result, self._Y = classes, params, r, Y
        self.gamma_ = params.get("gamma")
        self.support_ = np.flatnonzero(r.alpha.any(0))
        self.dual_coef_ = (r.alpha * Y.T)[:, self.support_]
        self._dual_coef_avg = (a_avg * Y.T)[:, self.support_]
        if not pre:
            self.support_vectors_ = X[self.support_]
        # with a budget, the earlier epochs had support vectors that were removed since
        self._staged = None if self.budget is None else np.unique(r.log_index)
        if self._staged is not None and not pre:
            self._staged_vectors = X[self._staged]
        self.alpha_, self.intercept_ = squeeze(classes, r.alpha), squeeze(classes, r.bias)
        self.alpha_avg_, self.intercept_avg_ = squeeze(classes, a_avg), squeeze(classes, b_avg)
        self.n_epochs_, self.converged_, self.history_ = int(r.epochs.max()), bool(r.converged.all()), r.history
        self.precision_, self.columns_computed_ = r.precision, int(r.columns_computed)
        self.kernel_evaluations_ = int(r.kernel_evaluations)
        self.removed_ = int(r.removed)
        self.timings_ = {"gram": r.kernel_seconds, "train": seconds - r.kernel_seconds,
                         "columns": self.columns_computed_}
        if first is not None:
            self.timings_["first"], self.timings_["first_columns"] = first[0], int(first[2])
        return self

    def _train(self, X, Y, params, device, epochs, orders):
        """One training run on (X, Y): the column sources, then the exact online trainer."""
        sources = _dual.column_sources(X, self.kernel, params, device, self.max_memory, self.precision,
                                       self.fit_intercept, call=_call_kernel, keep=self.budget)
        return _dual.dual_train(sources, Y, self.fit_intercept, epochs, orders, progress=self.verbose,
                                budget=self.budget)

    def _check_params(self):
        check_common(self)
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}.")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {self.precision!r}.")
        if self.budget is not None:
            check_int(self.budget, "budget")
            if self.mode != "last":
                raise ValueError(f"budget needs mode='last', got mode={self.mode!r}: the averaged and voted "
                                 "predictors would need the support vectors the budget removed.")
        k = self.kernel
        if not (callable(k) or k == "precomputed" or (isinstance(k, str) and k in KERNELS)):
            raise ValueError(
                f"kernel must be one of {KERNEL_NAMES + ('precomputed',)} or a callable; got {k!r}.")

    def _kernel_params(self, X):
        """The kernel's validated parameters (RBF's γ from the "scale" rule if none is given)."""
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    f"kernel='precomputed' needs the square (n, n) training Gram matrix; got {X.shape}.")
            return {}
        if callable(self.kernel):
            return {}
        return KERNELS[self.kernel].params(degree=self.degree, gamma=self.gamma, sigma=self.sigma,
                                           coef0=self.coef0, X=X)

    # ------------------------------------------------------------- predict
    def _kernel_to_support(self, X, support=None, vectors=None):
        support = self.support_ if support is None else support
        if self.kernel == "precomputed":
            return X[:, support]
        vectors = self.support_vectors_ if vectors is None else vectors
        if callable(self.kernel):
            return _call_kernel(self.kernel, X, vectors)
        if len(support) == 0:
            return np.zeros((X.shape[0], 0))
        return gram_matrix(X, vectors, kernel=self.kernel, device=self.device, **self._params)

    def decision_function(self, X):
        """Scores of the predictor chosen by ``mode``: shape (n,) for two classes, else (n, n_classes).

        "last" and "averaged": f(x) = Σᵢ αᵢ yᵢ k(xᵢ, x) + b with the final or the
        averaged α and b; "voted": Σₖ cₖ sign(fₖ(x)) over the intermediate predictors.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Ks = self._kernel_to_support(X)
        if self.mode == "voted":
            scores = _dual.voted_scores(self._result, self._Y, Ks, self.support_, self.fit_intercept)
        else:
            coef = self.dual_coef_ if self.mode == "last" else self._dual_coef_avg
            b = self.intercept_ if self.mode == "last" else self.intercept_avg_
            scores = Ks @ coef.T + b
        return scores[:, 0] if len(self.classes_) == 2 and scores.ndim == 2 else scores

    def predict(self, X):
        """Predicted labels; a score of exactly 0 predicts ``classes_[0]``."""
        check_is_fitted(self)
        return predict_from_scores(self.classes_, self.decision_function(X))

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
        check_is_fitted(self)
        mode = mode or self.mode
        if mode not in ("last", "averaged"):
            raise ValueError(f"staged_decision_function supports mode 'last' or 'averaged', got {mode!r}.")
        if mode != "last" and self.budget is not None:
            raise ValueError("with a budget only mode='last' is staged (the averaged predictor would need "
                             "the removed support vectors).")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        support = self.support_ if self._staged is None else self._staged
        Ks = self._kernel_to_support(X, support, None if self._staged is None or self.kernel == "precomputed"
                                     else self._staged_vectors)
        n = self._Y.shape[0]
        for epoch in range(1, self.n_epochs_ + 1):
            alpha, b, a_avg, b_avg = _dual.state_after(self._result, self._Y, n, epoch, self.fit_intercept)
            a, bb = (alpha, b) if mode == "last" else (a_avg, b_avg)
            scores = Ks @ (a * self._Y.T)[:, support].T + bb
            yield scores[:, 0] if len(self.classes_) == 2 else scores

    def staged_predict(self, X, mode=None):
        """Yield the predicted labels after each epoch."""
        for scores in self.staged_decision_function(X, mode):
            yield predict_from_scores(self.classes_, scores)


def _call_kernel(kernel, X, Z):
    K = np.asarray(kernel(X, Z), dtype=np.float64)
    if K.shape != (X.shape[0], Z.shape[0]):
        raise ValueError(
            f"the kernel callable must return shape ({X.shape[0]}, {Z.shape[0]}) for "
            f"inputs of {X.shape[0]} and {Z.shape[0]} samples; it returned {K.shape}.")
    if not np.all(np.isfinite(K)):
        raise ValueError("the kernel callable returned NaN or infinite values.")
    return K
