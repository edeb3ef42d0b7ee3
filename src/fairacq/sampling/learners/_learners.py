"""The learner modes of the group samplers (Shekhar et al., §3 exact, §4 incremental; refit)."""

from __future__ import annotations

import warnings
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from fairacq._deps import require
from fairacq.sampling.learners._torch_training import seeded_reset, sgd_epoch

__all__ = [
    "ExactLogistic",
    "HeldOutEstimates",
    "IncrementalMLP",
    "RoundLearner",
    "make_round_learner",
]


class RoundLearner(Protocol):
    """A model updated once per sampling round on the accumulated training set."""

    def update(self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int) -> None:
        """Update the model on the whole accumulated training set ``(X, y)``."""

    def predict_proba(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``P(y = 1 | x)`` for each row."""

    def state(self) -> dict[str, Any]:
        """Return the parameters as JSON types (to resume a run exactly)."""

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned."""


class HeldOutEstimates(Protocol):
    """A round learner that also predicts each training row as if it had not seen it."""

    def held_out_proba(
        self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int
    ) -> NDArray[np.float64]:
        """Return ``P(y = 1)`` of each row of the last update's ``(X, y)``, held out."""


class ExactLogistic:
    """Exact mode: logistic regression re-fitted to convergence each round, warm-started.

    Shekhar et al. (§3, §5 "exact version") retrains the ERM classifier after each new sample; the
    previous coefficients start the solver (``warm_start=True``), which gives the same optimum
    faster. A training set with a single class gives the constant predictor of that class.

    Parameters
    ----------
    C : float, default=1.0
        Inverse L2 regularisation strength of :class:`sklearn.linear_model.LogisticRegression`.
    max_iter : int, default=500
        Solver iterations per round.
    """

    def __init__(self, *, C: float = 1.0, max_iter: int = 500) -> None:
        from sklearn.linear_model import LogisticRegression

        self._model = LogisticRegression(C=C, max_iter=max_iter, warm_start=True)
        self._constant: float | None = None

    def update(self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int) -> None:
        """Re-fit on ``(X, y)`` starting from the previous coefficients."""
        from sklearn.exceptions import ConvergenceWarning

        classes = np.unique(y)
        if classes.size < 2:
            self._constant = float(classes[0]) if classes.size else 0.5
            return
        self._constant = None
        with warnings.catch_warnings():
            # Early rounds may stop at max_iter; the next round continues from there.
            warnings.simplefilter("ignore", ConvergenceWarning)
            self._model.fit(X, y)

    def predict_proba(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``P(y = 1 | x)``."""
        if self._constant is not None or not hasattr(self._model, "coef_"):
            value = 0.5 if self._constant is None else self._constant
            return np.full(len(X), value, dtype=np.float64)
        return np.asarray(self._model.predict_proba(X)[:, 1], dtype=np.float64)

    def held_out_proba(
        self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int
    ) -> NDArray[np.float64]:
        """Return each training row's approximate leave-one-out ``P(y = 1)`` (no refit).

        ``(X, y)`` are the rows of the last :meth:`update`; ``seed`` is unused (the estimate
        is deterministic). See :func:`~fairacq.sampling.learners._held_out.logistic_loo_proba`.
        """
        from fairacq.sampling.learners._held_out import logistic_loo_proba

        if self._constant is not None or not hasattr(self._model, "coef_"):
            return self.predict_proba(X)
        return logistic_loo_proba(self._model, X, y)

    def state(self) -> dict[str, Any]:
        """Return coefficients, intercept and the constant (JSON types)."""
        fitted = hasattr(self._model, "coef_")
        return {
            "constant": self._constant,
            "coef": self._model.coef_.tolist() if fitted else None,
            "intercept": self._model.intercept_.tolist() if fitted else None,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore coefficients so the next warm start matches an uninterrupted run."""
        self._constant = state.get("constant")
        if state.get("coef") is not None:
            self._model.coef_ = np.asarray(state["coef"], dtype=np.float64)
            self._model.intercept_ = np.asarray(state["intercept"], dtype=np.float64)
            self._model.classes_ = np.array([0, 1])


class IncrementalMLP:
    """Incremental mode: a small torch MLP trained by one SGD epoch per round (Shekhar et al., §4).

    Instead of re-training, each round makes one pass of mini-batch SGD over the whole
    accumulated training set, continuing from the previous weights. Randomness (initial
    weights, shuffling) comes from :func:`fairacq._random.torch_generator`; no global seed
    is touched.

    Parameters
    ----------
    hidden : int, default=32
        Width of the single hidden layer (ReLU).
    lr : float, default=0.1
        SGD learning rate.
    batch_size : int, default=32
        Mini-batch size.
    seed : int, default=0
        Seeds the initial weights.
    """

    def __init__(
        self, *, hidden: int = 32, lr: float = 0.1, batch_size: int = 32, seed: int = 0
    ) -> None:
        self.hidden, self.lr, self.batch_size, self.seed = hidden, lr, batch_size, seed
        self._net: Any = None

    def _build(self, n_features: int) -> Any:
        torch = require("torch", purpose="the incremental (MLP) sampling mode")
        net = torch.nn.Sequential(
            torch.nn.Linear(n_features, self.hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(self.hidden, 1),
        )
        seeded_reset((net[0], net[2]), self.seed)
        return net

    def update(self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int) -> None:
        """Make one shuffled mini-batch SGD pass over ``(X, y)``."""
        torch = require("torch", purpose="the incremental (MLP) sampling mode")
        if self._net is None:
            self._net = self._build(X.shape[1])
        Xt = torch.as_tensor(X, dtype=torch.float32)
        yt = torch.as_tensor(y, dtype=torch.float32)
        sgd_epoch(self._net, Xt, yt, lr=self.lr, batch_size=self.batch_size, seed=seed)

    def predict_proba(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``P(y = 1 | x)`` (0.5 before the first update)."""
        if self._net is None:
            return np.full(len(X), 0.5, dtype=np.float64)
        torch = require("torch", purpose="the incremental (MLP) sampling mode")
        with torch.no_grad():
            logits = self._net(torch.as_tensor(X, dtype=torch.float32)).squeeze(1)
            return np.asarray(torch.sigmoid(logits).numpy(), dtype=np.float64)

    def state(self) -> dict[str, Any]:
        """Return the weights as nested lists (float32 values survive JSON exactly)."""
        if self._net is None:
            return {"weights": None}
        return {"weights": {k: v.tolist() for k, v in self._net.state_dict().items()}}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore the weights."""
        weights = state.get("weights")
        if weights is None:
            self._net = None
            return
        torch = require("torch", purpose="the incremental (MLP) sampling mode")
        n_features = len(weights["0.weight"][0])
        self._net = self._build(n_features)
        self._net.load_state_dict(
            {k: torch.tensor(v, dtype=torch.float32) for k, v in weights.items()}
        )


def make_round_learner(mode: str, seed: int, learner: Any = None) -> RoundLearner:
    """Return the learner of ``mode``.

    ``"exact"`` (:class:`ExactLogistic`), ``"incremental"`` (:class:`IncrementalMLP`),
    ``"incremental-cnn"`` (:class:`IncrementalCNN`) or ``"refit"``
    (:class:`~fairacq.sampling.learners._refit.RefitLearner` of ``learner``, default ``"lr"``).
    """
    if mode == "exact":
        return ExactLogistic()
    if mode == "refit":
        from fairacq.sampling.learners._refit import RefitLearner

        return RefitLearner("lr" if learner is None else learner)
    if mode == "incremental-cnn":
        from fairacq.sampling.learners._cnn import IncrementalCNN

        return IncrementalCNN(seed=seed)
    return IncrementalMLP(seed=seed)
