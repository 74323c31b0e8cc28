"""The banknote authentication data set (UCI), read and checked.
"""

from __future__ import annotations

import numpy as np

from ._files import _BANKNOTE, _fetch, _parse_banknote


def load_banknote():
    """The UCI banknote authentication data: 1372 banknotes, 4 wavelet features.

    Columns of ``X``: variance, skewness, curtosis and entropy of the
    wavelet-transformed image of a banknote; ``y`` is 1 for a forgery (610 notes)
    and 0 for a genuine note (762). Source: V. Lohweg and H. Dörksen, UCI Machine
    Learning Repository (2012), CC BY 4.0, doi:10.24432/C55P57.

    Returns
    -------
    X : ndarray of shape (1372, 4), dtype float64
    y : ndarray of shape (1372,), dtype int64
        Labels in {0, 1}; map to {-1, +1} with ``2 * y - 1``.

    Raises
    ------
    DataNotFoundError
        The file is not available and cannot be downloaded.
    DataIntegrityError
        The file found or downloaded does not hold the expected values.

    Examples
    --------
    >>> X, y = load_banknote()  # doctest: +SKIP
    >>> X.shape, np.bincount(y)  # doctest: +SKIP
    ((1372, 4), array([762, 610]))

    Lesson 05 (banknote authentication).
    """
    arr = _parse_banknote(_fetch(_BANKNOTE))
    return arr[:, :4].copy(), arr[:, 4].astype(np.int64)
