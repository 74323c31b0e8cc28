"""Two small tables that scikit-learn installs, read without importing it: the capstone's data.

Wine (178 wines, 13 chemical measurements, 3 cultivars) and breast cancer (569 tumours, 30
features of a cell-nucleus image, malignant or benign), both from the UCI Machine Learning
Repository. No lecture uses them.
"""

from __future__ import annotations

import numpy as np

from ._files import _TABLES, _fetch, parse_table

#: What each table holds, for its docstring and messages.
_ABOUT = {
    "wine": "M. Forina et al., PARVUS (1988); UCI Machine Learning Repository, doi:10.24432/C5PC7J",
    "breast_cancer": "W. Wolberg, O. Mangasarian, N. Street and W. Street (1995); UCI Machine Learning "
                     "Repository, doi:10.24432/C5DW2B",
}


def load_table(name):
    """One of the capstone's tables: features and class names.

    The file is the copy that scikit-learn installs (``sklearn/datasets/data``), found
    without importing scikit-learn and checked value by value; it is looked up first in
    ``KPCOURSE_DATA/tables/`` and in the course's cache, like every data file.

    Parameters
    ----------
    name : {"wine", "breast_cancer"}
        Wine: 178 rows, 13 measurements, classes ``"class_0"``, ``"class_1"``, ``"class_2"``
        (59, 71 and 48 wines; Forina et al., UCI, doi:10.24432/C5PC7J). Breast cancer: 569
        rows, 30 features, classes ``"malignant"`` (212) and ``"benign"`` (357) (Wolberg et
        al., UCI, doi:10.24432/C5DW2B).

    Returns
    -------
    X : ndarray of shape (n, d), dtype float64
    y : ndarray of shape (n,), dtype str
        The class name of each row.

    Raises
    ------
    ValueError
        If ``name`` is not one of the two tables.
    DataNotFoundError
        The file is in no data folder and scikit-learn is not installed (nor a download possible).
    DataIntegrityError
        The file found does not hold the expected values.

    Examples
    --------
    >>> X, y = load_table("wine")  # doctest: +SKIP
    >>> X.shape, sorted(set(y))  # doctest: +SKIP
    ((178, 13), ['class_0', 'class_1', 'class_2'])

    The capstone (lesson 09).
    """
    if name not in _TABLES:
        raise ValueError(f"name must be one of {sorted(_TABLES)}, got {name!r}.")
    X, classes, names = parse_table(_fetch(_TABLES[name][0]))
    return X, np.array(names)[classes]
