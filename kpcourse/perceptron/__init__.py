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

One file per part: ``_common`` (labels, visiting orders, shared checks), ``_primal``
(:class:`Perceptron`), ``_kernel`` (:class:`KernelPerceptron`; its training engine is
``kpcourse._dual``), ``_virtual`` (:class:`VirtualExamples`, shifted copies of erring images).
"""

from ._kernel import KernelPerceptron
from ._primal import Perceptron
from ._virtual import VirtualExamples

__all__ = ["Perceptron", "KernelPerceptron", "VirtualExamples"]
