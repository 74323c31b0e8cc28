"""Small examples printed in the lessons: the worked example, the perceptron quiz's 20
points (package data) and its rescaling, the MSDN article's example.
"""

from __future__ import annotations

import importlib.resources
import io

import numpy as np

from .._validation import check_array
from ._files import DataIntegrityError


def worked_example():
    """Four labelled points in the plane: the perceptron's worked example.

    ``X = (1, 2), (1, 1), (2, 4), (3, 2)`` with labels ``y = +1, -1, +1, -1``,
    small enough to follow every perceptron update by hand.

    Returns
    -------
    X : ndarray of shape (4, 2), dtype float64
    y : ndarray of shape (4,), dtype int64
        Labels in {-1, +1}.

    Examples
    --------
    >>> X, y = worked_example()
    >>> X[2], int(y[2])
    (array([2., 4.]), 1)

    Lesson 02 (the perceptron by hand) and 03 (dual form).
    """
    X = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 4.0], [3.0, 2.0]])
    y = np.array([1, -1, 1, -1], dtype=np.int64)
    return X, y


# The quiz's 20 points are package data (kpcourse/data/README.md gives their provenance:
# the public nbgrader notebook Quiz6/Quiz_Perceptron.ipynb of katowice/introAI_Quizzes).
_QUIZ_FILE = "quiz_perceptron.csv"


def quiz_points():
    """The 20 raw points and labels of the perceptron quiz.

    Read from the package's own copy, ``kpcourse/data/quiz_perceptron.csv`` (columns
    ``x1, x2, label`` with labels 0/1), the locked data cell of the public nbgrader quiz
    notebook ``Quiz6/Quiz_Perceptron.ipynb`` (repository ``katowice/introAI_Quizzes``).
    Labels are mapped 1 -> +1, 0 -> -1. The quiz trains on ``quiz_transform(X)`` with
    learning rate 1 from ``w = 0``, visiting the points in file order, and expects
    ``w = (-1.26035052, -1.21318978, 2.0)``.

    Returns
    -------
    X : ndarray of shape (20, 2), dtype float64
        The raw points, in file order (before :func:`quiz_transform`).
    y : ndarray of shape (20,), dtype int64
        Labels in {-1, +1}.

    Raises
    ------
    DataIntegrityError
        If the packaged file does not hold 20 rows of two numbers and a 0/1 label.

    Examples
    --------
    >>> X, y = quiz_points()
    >>> X.shape, int((y == 1).sum())
    ((20, 2), 10)

    Lessons 02 (the perceptron by hand) and 03 (dual form).
    """
    text = (importlib.resources.files("kpcourse") / "data" / _QUIZ_FILE).read_text("utf-8")
    data = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, ndmin=2)
    if data.shape != (20, 3) or not np.isin(data[:, 2], (0, 1)).all():
        raise DataIntegrityError(
            f"kpcourse/data/{_QUIZ_FILE} must hold 20 rows of x1, x2 and a 0/1 label, "
            f"got an array of shape {data.shape}; reinstall kpcourse."
        )
    return data[:, :2].copy(), np.where(data[:, 2] == 1, 1, -1).astype(np.int64)


_QUIZ_SHIFT = 0.94
_QUIZ_SCALE = 1.3


def quiz_transform(X):
    """Rescale the perceptron quiz's points and append a constant-1 column.

    Each feature becomes ``(x + 0.94) / 1.3`` and a last column of ones is added,
    so that a perceptron without intercept (``fit_intercept=False``) learns the
    bias as its last weight: ``[x_1, ..., x_d] -> [(x_1 + 0.94)/1.3, ..., 1]``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw points, as printed in the quiz.

    Returns
    -------
    Xt : ndarray of shape (n_samples, n_features + 1), dtype float64

    Examples
    --------
    >>> quiz_transform([[-0.94, 0.36]])
    array([[0., 1., 1.]])

    Lesson 02 (the perceptron quiz).
    """
    X = check_array(X, "X")
    return np.hstack([(X + _QUIZ_SHIFT) / _QUIZ_SCALE, np.ones((X.shape[0], 1))])


def msdn_example():
    """The RBF kernel perceptron example of J. McCaffrey's MSDN article (April 2017).

    Four training items with mistake counts ``alpha`` and one query point; the
    kernel perceptron scores the query as
    ``f(q) = sum_i alpha_i y_i exp(-||x_i - q||^2 / (2 sigma^2))``.
    Source: "Test Run - Kernel Perceptrons using C#", MSDN Magazine 32(4), April 2017,
    https://docs.microsoft.com/en-us/archive/msdn-magazine/2017/april/test-run-kernel-perceptrons-using-csharp

    Returns
    -------
    example : dict
        ``"X"``: ndarray of shape (4, 2), the items (2, 3), (3, 2), (3, 5), (4, 3);
        ``"y"``: ndarray of shape (4,), int64, labels (-1, +1, +1, -1);
        ``"alpha"``: ndarray of shape (4,), int64, mistake counts (1, 2, 3, 4);
        ``"query"``: ndarray of shape (2,), the point (3, 6) to classify;
        ``"sigma"``: float, the RBF width 1.5.

    Examples
    --------
    >>> ex = msdn_example()
    >>> d2 = ((ex["X"] - ex["query"]) ** 2).sum(axis=1)
    >>> k = np.exp(-d2 / (2 * ex["sigma"] ** 2))
    >>> round(float(np.sum(ex["alpha"] * ex["y"] * k)), 4)
    1.9175

    Used in the Gaussian-kernel lesson.
    """
    return {
        "X": np.array([[2.0, 3.0], [3.0, 2.0], [3.0, 5.0], [4.0, 3.0]]),
        "y": np.array([-1, 1, 1, -1], dtype=np.int64),
        "alpha": np.array([1, 2, 3, 4], dtype=np.int64),
        "query": np.array([3.0, 6.0]),
        "sigma": 1.5,
    }
