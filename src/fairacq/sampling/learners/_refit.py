"""Refit mode: a clone of any scikit-learn classifier, refitted on every sample each round."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._typing import LearnerLike

__all__ = ["RefitLearner"]


class RefitLearner:
    """Refit a fresh clone of a scikit-learn classifier on all samples drawn so far.

    Each round builds the estimator anew (:func:`fairacq.models.make_learner`: a registry
    name such as ``"lr"``, ``"module:Class"``, or a classifier or
    :class:`~sklearn.pipeline.Pipeline`, cloned) with its unset ``random_state`` parameters
    seeded from the round's seed, and fits it on the whole accumulated training set. The model
    is a deterministic function of the drawn rows and the round's seed, so the learner keeps
    no state of its own: a resumed run refits on the replayed rows (``refits_on_resume``).
    A training set with a single class gives the constant predictor of that class, as
    :class:`ExactLogistic` does. Convergence warnings of the early, tiny training sets are
    silenced (the next round fits again).

    Parameters
    ----------
    learner : str or estimator, default="lr"
        What :func:`fairacq.models.make_learner` builds; needs ``fit`` and ``predict_proba``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    >>> model = RefitLearner(DecisionTreeClassifier(max_depth=1))
    >>> model.update(X, y, seed=0)
    >>> model.predict_proba(np.array([[0.5], [2.5]])).tolist()
    [0.0, 1.0]
    """

    #: The model is rebuilt from the drawn rows on resume, not loaded from the state.
    refits_on_resume: ClassVar[bool] = True

    def __init__(self, learner: LearnerLike = "lr") -> None:
        self.learner = learner
        self._model: Any = None
        self._constant: float | None = 0.5

    def update(self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int) -> None:
        """Fit a fresh clone, seeded by ``seed``, on ``(X, y)``."""
        from sklearn.exceptions import ConvergenceWarning

        from fairacq.models import make_learner

        classes = np.unique(y)
        if classes.size < 2:
            self._model = None
            self._constant = float(classes[0]) if classes.size else 0.5
            return
        model = make_learner(self.learner, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            try:
                model.fit(X, y)
            except ValueError as exc:  # e.g. a calibrated SVM given < 3 rows of a class
                raise _too_few_rows(self.learner, y, exc) from None
        self._model, self._constant = model, None

    def predict_proba(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``P(y = 1 | x)`` (the constant before two classes were drawn)."""
        if self._model is None:
            value = 0.5 if self._constant is None else self._constant
            return np.full(len(X), value, dtype=np.float64)
        from fairacq.models import check_probabilities

        proba = np.asarray(self._model.predict_proba(X), dtype=np.float64)
        if proba.ndim != 2 or proba.shape[1] != 2:  # refused: no classifier's probabilities
            return check_probabilities(proba, where="the sampler's model")
        return proba[:, list(self._model.classes_).index(1)]

    def held_out_proba(
        self, X: NDArray[np.float64], y: NDArray[np.int64], seed: int
    ) -> NDArray[np.float64]:
        """Return each row's ``P(y = 1)`` by clones fitted on the other of five shuffled folds.

        ``seed`` seeds the folds and the clones, so the estimate is reproducible.
        """
        from fairacq.sampling.learners._held_out import kfold_proba

        def fit_predict(train: NDArray[np.intp], test: NDArray[np.intp]) -> NDArray[np.float64]:
            fold = RefitLearner(self.learner)
            fold.update(X[train], y[train], seed)
            return fold.predict_proba(X[test])

        return kfold_proba(fit_predict, len(y), seed)

    def state(self) -> dict[str, Any]:
        """Return nothing: the drawn rows are the state (see ``refits_on_resume``)."""
        return {}

    def load_state(self, state: dict[str, Any]) -> None:
        """Nothing to load; the loop refits on the replayed rows."""


def _too_few_rows(learner: Any, y: NDArray[np.int64], exc: ValueError) -> Exception:
    """Return the one-line error for a model that cannot be fitted on the rows drawn so far."""
    from fairacq.exceptions import InvalidDataError
    from fairacq.models import describe_learner

    counts = np.bincount(np.asarray(y, dtype=np.int64), minlength=2)
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InvalidDataError(
        f"the sampler's model {describe_learner(learner)} cannot be fitted on {len(y)} rows "
        f"({int(counts[0])} of label 0, {int(counts[1])} of label 1): {detail} The sampler "
        "refits it on the few rows of its first rounds (and, with validation 'cross', on "
        "four fifths of them). Pick a model that fits on a few rows, such as lr or "
        "decision_tree."
    )
