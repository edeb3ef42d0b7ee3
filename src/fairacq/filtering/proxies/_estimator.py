"""A user's scikit-learn classifier as the predictor of a naive or QP proxy.

The naive and QP proxies (Deng et al., §5) predict the group with a classifier; by default a
multinomial logistic regression or a decision tree, fitted here and saved as plain arrays
(:class:`~fairacq.filtering.LinearRule`, :class:`~fairacq.filtering.TreeRule`). Any other
classifier may stand in (``estimator=``: a name of :func:`fairacq.models.make_learner`,
``"module:Class"`` or an estimator, a :class:`~sklearn.pipeline.Pipeline` too). After
fitting it is turned into the same plain arrays when that is exact: a linear classifier
(``coef_``, ``intercept_``) or a decision tree, optionally after affine scalers
(:class:`~sklearn.preprocessing.StandardScaler`, ``MinMaxScaler`` without clipping,
``MaxAbsScaler``), whose scaling is folded into the coefficients or thresholds. Anything else
(a forest, boosting, an MLP, a one-hot step) stays the fitted estimator, an
:class:`EstimatorRule`: the proxy works in memory but cannot be saved as JSON (saving it
raises one line saying so), since fairacq saves no pickles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._typing import LearnerLike, Predictor
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.filtering.proxies._rules import LinearRule, TreeRule

__all__ = ["EstimatorRule", "check_saveable_model", "estimator_rule", "saveable_problem"]

_SAVEABLE = (
    "only a linear classifier (e.g. lr, sklearn.linear_model:LogisticRegression) or a "
    "decision tree (decision_tree), optionally after StandardScaler, MinMaxScaler or "
    "MaxAbsScaler, can be saved as JSON"
)


def _describe(model: Any) -> str:
    from fairacq.models import describe_learner

    return str(describe_learner(model))


@dataclass(frozen=True, eq=False)
class EstimatorRule:
    """A fitted classifier used as it is: predicts in memory, cannot be saved as JSON.

    Attributes
    ----------
    estimator : estimator
        The fitted classifier (trained on group codes).
    """

    estimator: Predictor

    def predict(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Return the proxy value (predicted group code) of each row of ``X``."""
        return np.asarray(self.estimator.predict(X), dtype=np.int64)

    def to_dict(self) -> dict[str, Any]:
        """Refuse: a fitted estimator is not plain JSON (fairacq writes no pickles).

        Raises
        ------
        InvalidDataError
            Always, naming the classifier and what can be saved.
        """
        raise InvalidDataError(
            f"The proxy's classifier {_describe(self.estimator)} cannot be saved as JSON: "
            f"{_SAVEABLE}. Use this proxy in memory (filter_table or BalancedFilter) or fit "
            "it with such a model."
        )


def _steps(model: Any) -> list[Any]:
    steps = getattr(model, "steps", None)
    if isinstance(steps, list):
        return [step for _, step in steps]
    return [model]


def saveable_problem(model: Any) -> str | None:
    """Return why a classifier's proxy could not be saved as JSON, or None if it can.

    Checked on the unfitted estimator (its classes only); the fitted one is checked again
    against its own predictions.
    """
    from sklearn.linear_model._base import LinearClassifierMixin
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler
    from sklearn.tree import BaseDecisionTree

    steps = _steps(model)
    for step in steps[:-1]:
        scaler = isinstance(step, (StandardScaler, MaxAbsScaler)) or (
            isinstance(step, MinMaxScaler) and not step.clip
        )
        if not (scaler or step is None or step == "passthrough"):
            return f"its step {type(step).__name__} is not an affine scaler; {_SAVEABLE}"
    last = steps[-1]
    if isinstance(last, (LinearClassifierMixin, BaseDecisionTree)):
        return None
    return f"{_SAVEABLE}, not {type(last).__name__}"


def check_saveable_model(model: LearnerLike) -> None:
    """Raise if a proxy predicting with ``model`` could not be saved as JSON.

    Parameters
    ----------
    model : str or estimator
        A name of :func:`fairacq.models.make_learner`, ``"module:Class"`` or an estimator.

    Raises
    ------
    InvalidParameterError
        One line naming the model and what can be saved.
    UnknownNameError
        On an unknown model name.
    """
    from fairacq.models import make_learner

    problem = saveable_problem(make_learner(model))
    if problem is not None:
        raise InvalidParameterError(
            f"A proxy predicting with {_describe(model)} cannot be saved as JSON: {problem}. "
            "Pick such a model, or use the library to apply the proxy in memory."
        )


def _affine(steps: list[Any], width: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return ``(a, b)`` with ``steps(x) = a * x + b`` for the fitted scalers ``steps``."""
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler

    a, b = np.ones(width), np.zeros(width)
    for step in steps:
        if isinstance(step, StandardScaler):
            scale = np.ones(width) if step.scale_ is None else np.asarray(step.scale_)
            mean = np.zeros(width) if step.mean_ is None else np.asarray(step.mean_)
            a2, b2 = 1.0 / scale, -mean / scale
        elif isinstance(step, MinMaxScaler):
            a2, b2 = np.asarray(step.scale_), np.asarray(step.min_)
        elif isinstance(step, MaxAbsScaler):
            a2, b2 = 1.0 / np.asarray(step.scale_), np.zeros(width)
        else:  # None or "passthrough"
            continue
        a, b = a2 * a, a2 * b + b2
    return a, b


def _linear(clf: Any, a: NDArray[np.float64], b: NDArray[np.float64]) -> LinearRule:
    coef = np.asarray(clf.coef_, dtype=np.float64).reshape(-1, a.shape[0])
    intercept = np.asarray(clf.intercept_, dtype=np.float64).reshape(-1)
    if intercept.shape[0] != coef.shape[0]:
        intercept = np.broadcast_to(intercept, (coef.shape[0],)).copy()
    return LinearRule(
        coef=coef * a,
        intercept=intercept + coef @ b,
        outputs=np.asarray(clf.classes_, dtype=np.int64),
    )


def _tree(clf: Any, a: NDArray[np.float64], b: NDArray[np.float64]) -> TreeRule:
    tree = clf.tree_
    inner = tree.children_left >= 0
    feature = np.where(inner, tree.feature, -1).astype(np.int64)
    threshold = np.asarray(tree.threshold, dtype=np.float64).copy()
    f = feature[inner]
    # a * x + b <= t  <=>  x <= (t - b) / a, every scaler's a being > 0.
    threshold[inner] = (threshold[inner] - b[f]) / a[f]
    value = np.asarray(tree.value)[:, 0, :]
    classes = np.asarray(clf.classes_, dtype=np.int64)
    return TreeRule(
        left=np.asarray(tree.children_left, dtype=np.int64),
        right=np.asarray(tree.children_right, dtype=np.int64),
        feature=feature,
        threshold=threshold,
        outputs=classes[np.argmax(value, axis=1)],
    )


def estimator_rule(
    model: Any,
    X: NDArray[np.float64],
    codes: NDArray[np.int64],
    *,
    random_state: RandomState = None,
) -> LinearRule | TreeRule | EstimatorRule:
    """Fit ``model`` to predict ``codes`` from ``X``; return it as a rule.

    Parameters
    ----------
    model : str or estimator
        Built with :func:`fairacq.models.make_learner` (a copy: the caller's is not fitted).
    X : numpy.ndarray of shape (n, d)
    codes : numpy.ndarray of shape (n,)
        The group (or cell) code of each row.
    random_state : int, Generator or None, default=None
        Seeds the classifier's unset ``random_state`` parameters.

    Returns
    -------
    LinearRule, TreeRule or EstimatorRule
        Plain arrays when they predict exactly what the fitted classifier predicts on
        ``X``; else the fitted classifier itself.
    """
    from fairacq.models import make_learner

    estimator = make_learner(model, random_state=random_state)
    try:
        estimator.fit(X, codes)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"The proxy's classifier {_describe(estimator)} failed to fit ({exc}). Check the "
            "model and its parameters."
        ) from None
    if saveable_problem(estimator) is not None:
        return EstimatorRule(estimator)
    steps = _steps(estimator)
    a, b = _affine(steps[:-1], X.shape[1])
    clf = steps[-1]
    rule = _tree(clf, a, b) if hasattr(clf, "tree_") else _linear(clf, a, b)
    if np.array_equal(rule.predict(X), np.asarray(estimator.predict(X), dtype=np.int64)):
        return rule
    return EstimatorRule(estimator)
