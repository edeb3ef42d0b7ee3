"""Online logistic regression by SGD with averaged iterates (Abernethy et al. 2022, Alg. 1)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

__all__ = ["AveragedSGDLogistic"]


class AveragedSGDLogistic:
    """Logistic regression taking one SGD step per new sample; predicts with the average iterate.

    The learner of Abernethy et al. (ICML 2022, "Active sampling for min-max fairness", §3,
    Algorithm 1): the model starts at zero, and each sample drawn gives one stochastic gradient
    step on its log-loss, ``theta <- theta - eta_t * (grad + alpha * w)`` with
    ``eta_t = eta0 / sqrt(t)`` (``t`` counts steps, the convex-case rate of their analysis);
    predictions use the running average of the iterates ``theta_1 .. theta_t`` (Polyak
    averaging), whose convergence their Theorem covers. ``update`` receives the whole
    accumulated training set, as every round learner does, and steps only on the rows it has
    not seen (the new draws, in the order drawn), so the round's seed is not needed.

    Parameters
    ----------
    eta0 : float, default=0.5
        Step size at the first step.
    alpha : float, default=0.0
        L2 penalty on the weights (not the intercept).

    Examples
    --------
    >>> X = np.array([[-2.0], [2.0]] * 50)
    >>> y = np.array([0, 1] * 50)
    >>> model = AveragedSGDLogistic()
    >>> model.update(X, y, seed=0)
    >>> (model.predict_proba(np.array([[-2.0], [2.0]])) > 0.5).tolist()
    [False, True]
    """

    def __init__(self, *, eta0: float = 0.5, alpha: float = 0.0) -> None:
        self.eta0 = eta0
        self.alpha = alpha
        self._theta: NDArray[np.float64] | None = None  # weights then intercept
        self._average: NDArray[np.float64] | None = None
        self._steps = 0
        self._seen = 0

    def update(self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int) -> None:
        """Take one SGD step on each row of ``(X, y)`` past those already seen."""
        if self._theta is None or self._average is None:
            self._theta = np.zeros(X.shape[1] + 1)
            self._average = np.zeros(X.shape[1] + 1)
        theta, average = self._theta, self._average
        for x, label in zip(X[self._seen :], y[self._seen :], strict=True):
            self._steps += 1
            margin = float(x @ theta[:-1] + theta[-1])
            error = float(expit(margin)) - float(label)
            step = self.eta0 / np.sqrt(self._steps)
            theta[:-1] -= step * (error * x + self.alpha * theta[:-1])
            theta[-1] -= step * error
            average += (theta - average) / self._steps
        self._seen = len(y)

    def predict_proba(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``P(y = 1 | x)`` under the averaged iterate (0.5 before any step)."""
        if self._average is None:
            return np.full(len(X), 0.5, dtype=np.float64)
        margin = X @ self._average[:-1] + self._average[-1]
        return np.asarray(expit(margin), dtype=np.float64)

    def state(self) -> dict[str, Any]:
        """Return the iterate, its average and the counters (JSON floats are exact)."""
        return {
            "theta": None if self._theta is None else self._theta.tolist(),
            "average": None if self._average is None else self._average.tolist(),
            "steps": self._steps,
            "seen": self._seen,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned."""
        theta, average = state.get("theta"), state.get("average")
        self._theta = None if theta is None else np.asarray(theta, dtype=np.float64)
        self._average = None if average is None else np.asarray(average, dtype=np.float64)
        self._steps = int(state.get("steps", 0))
        self._seen = int(state.get("seen", 0))
