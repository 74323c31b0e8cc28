"""Private core of :class:`kpcourse.perceptron.KernelPerceptron`: exact online dual training.

Inputs here are already validated. The idea, for a reader:

* ``F[c, j]`` is the decision value of training point j for class c. A mistake on
  sample i adds ``yᵢ (k(·, xᵢ) + 1)`` to row c of F, so correctly classified samples
  cost nothing, and training needs one kernel column per sample that ever errs — not
  the Gram matrix (:mod:`.columns`: computed on demand, or read from a precomputed one).
* The per-sample rule is replayed window by window on the host, and a window's
  mistakes reach every decision value in one matrix product (:mod:`.train`).
* Averaged, per-epoch and voted predictors are rebuilt from the mistake log
  (:mod:`.replay`).
"""

from .choose import column_sources
from .columns import CallableKernel, GramColumns, KernelColumns, NamedKernel, StoreFull, capacity
from .replay import averaged, state_after, voted_scores
from .train import DualResult, dual_train

__all__ = ["column_sources", "CallableKernel", "GramColumns", "KernelColumns", "NamedKernel", "StoreFull", "capacity",
           "averaged", "state_after", "voted_scores", "DualResult", "dual_train"]
