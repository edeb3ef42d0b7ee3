"""Mitigation comparators: make the model fairer with the data you have ("collect nothing").

Before buying data, ask what the usual fixes do with the rows already in hand. Each
comparator trains on a :class:`~fairacq.data.FairDataset`'s rows with the same base learner
the acquisition methods use, and :func:`evaluate_mitigation` reports the same metrics as
:func:`fairacq.models.evaluate`:

- ``"threshold-dp"`` / ``"threshold-eo"``: fairlearn's ``ThresholdOptimizer`` (Hardt et al.
  2016), group-specific thresholds on the learner's probabilities under demographic parity /
  equalised odds; it needs each row's group at prediction time;
- ``"expgrad-dp"`` / ``"expgrad-eo"`` / ``"expgrad-error"``: fairlearn's
  ``ExponentiatedGradient`` reduction (Agarwal et al. 2018) with ``DemographicParity()`` /
  ``EqualizedOdds()`` / ``ErrorRateParity()`` (each group's error rate within 0.01 of the
  overall one, for a worst-group accuracy target): a randomised mixture of learners refitted
  on reweighted rows (the learner must take ``sample_weight``);
- ``"reweighing"``: Kamiran & Calders' (2012) reweighing, each row weighted
  ``P(group) P(label) / P(group, label)`` so that group and label look independent, then the
  learner fitted once with these weights.

The fairlearn methods predict at random (a mixture, or a coin between two thresholds); their
predictions are drawn with a seed, so the same ``random_state`` gives the same numbers.
fairlearn is imported only when one of them is fitted (``pip install fairlearn``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._deps import require
from fairacq._random import RandomState
from fairacq._typing import LearnerLike
from fairacq._validation import did_you_mean
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError
from fairacq.models._evaluate import DEFAULT_METRICS
from fairacq.models._mitigated_model import MitigatedModel, prediction_metrics, quiet_fairlearn
from fairacq.models._registry import describe_learner, make_learner

__all__ = [
    "MITIGATIONS",
    "MitigatedModel",
    "evaluate_mitigation",
    "fit_mitigation",
    "mitigation_unavailable",
    "prediction_metrics",
    "quiet_fairlearn",
    "reweighing_weights",
]

#: Mitigation name -> what it is (the comparators of :func:`fit_mitigation`).
MITIGATIONS: dict[str, str] = {
    "threshold-dp": "fairlearn ThresholdOptimizer, demographic parity (post-processing)",
    "threshold-eo": "fairlearn ThresholdOptimizer, equalized odds (post-processing)",
    "expgrad-dp": "fairlearn ExponentiatedGradient, demographic parity (in-processing)",
    "expgrad-eo": "fairlearn ExponentiatedGradient, equalized odds (in-processing)",
    "expgrad-error": "fairlearn ExponentiatedGradient, error rate parity (in-processing)",
    "reweighing": "Kamiran-Calders reweighing by group x label (pre-processing)",
}


def _final_step(learner: Any) -> tuple[str | None, Any]:
    """Return the last step's name (None outside a Pipeline) and the classifier itself."""
    steps = getattr(learner, "steps", None)
    if isinstance(steps, list) and steps:
        return str(steps[-1][0]), steps[-1][1]
    return None, learner


def _weight_name(learner: Any) -> str:
    step, _ = _final_step(learner)
    return "sample_weight" if step is None else f"{step}__sample_weight"


def mitigation_unavailable(name: str, learner: LearnerLike) -> str | None:
    """Why ``name`` cannot run with ``learner`` (None when it can).

    The reweighting comparators (``expgrad-*``, ``reweighing``) need a learner whose ``fit``
    takes ``sample_weight`` (last in a Pipeline); the thresholds need ``predict_proba``.
    """
    from sklearn.utils.validation import has_fit_parameter

    _check_name(name)
    model = make_learner(learner)
    _, final = _final_step(model)
    if name.startswith("threshold") or has_fit_parameter(final, "sample_weight"):
        return None
    return (
        f"{name} refits the model on weighted rows, and {describe_learner(model)}'s fit takes "
        "no sample_weight"
    )


def _check_name(name: str) -> None:
    if name not in MITIGATIONS:
        raise did_you_mean("mitigation", name, MITIGATIONS, "fairacq.models.MITIGATIONS")


def reweighing_weights(dataset: FairDataset) -> NDArray[np.float64]:
    """Kamiran-Calders weights ``P(s) P(y) / P(s, y)`` of each row (mean 1).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> w = reweighing_weights(load_toy(200))
    >>> round(float(w.mean()), 6)
    1.0
    """
    s, y = np.asarray(dataset.s), np.asarray(dataset.y)
    n = len(y)
    cell = 2 * s + y
    p_cell = np.bincount(cell, minlength=2 * dataset.n_groups) / n
    p_s = np.bincount(s, minlength=dataset.n_groups) / n
    p_y = np.bincount(y, minlength=2) / n
    weights: NDArray[np.float64] = p_s[s] * p_y[y] / p_cell[cell]
    return weights


def fit_mitigation(
    name: str, train: FairDataset, *, learner: LearnerLike = "lr", random_state: RandomState = 0
) -> MitigatedModel:
    """Fit comparator ``name`` on ``train`` with the base ``learner``.

    Parameters
    ----------
    name : str
        A key of :data:`MITIGATIONS`.
    train : FairDataset
        The rows to learn from (their groups are ``train.s``).
    learner : str or estimator, default="lr"
        The base learner (:func:`fairacq.models.make_learner` takes it), seeded from
        ``random_state``.
    random_state : int, SeedSequence or None, default=0
        Seeds the learner.

    Returns
    -------
    MitigatedModel

    Raises
    ------
    UnknownNameError
        For an unknown ``name``.
    InvalidParameterError
        For a learner the comparator cannot use (see :func:`mitigation_unavailable`).
    MissingDependencyError
        Without fairlearn, for the fairlearn comparators.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> model = fit_mitigation("reweighing", load_toy(200), random_state=0)
    >>> model.predict(load_toy(200)).shape
    (200,)
    """
    reason = mitigation_unavailable(name, learner)
    if reason is not None:
        raise InvalidParameterError(f"fit_mitigation: {reason}. Use another learner.")
    base = make_learner(learner, random_state=random_state)
    X, y = train.to_numpy(), train.y
    with quiet_fairlearn():
        model = _fit(name, base, X, y, train)
    return MitigatedModel(name=name, model=model, learner=describe_learner(base))


def _fit(name: str, base: Any, X: Any, y: Any, train: FairDataset) -> Any:
    if name == "reweighing":
        return base.fit(X, y, **{_weight_name(base): reweighing_weights(train)})
    if name.startswith("threshold"):
        post = require("fairlearn.postprocessing", purpose=f"the {name} comparator")
        constraint = "demographic_parity" if name.endswith("-dp") else "equalized_odds"
        model = post.ThresholdOptimizer(
            estimator=base, constraints=constraint, predict_method="predict_proba"
        )
    else:
        red = require("fairlearn.reductions", purpose=f"the {name} comparator")
        moment = {
            "expgrad-dp": red.DemographicParity,
            "expgrad-eo": red.EqualizedOdds,
            "expgrad-error": red.ErrorRateParity,
        }[name]()
        model = red.ExponentiatedGradient(base, moment, sample_weight_name=_weight_name(base))
    return model.fit(X, y, sensitive_features=train.s)


def evaluate_mitigation(
    model: MitigatedModel,
    dataset: FairDataset,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    random_state: RandomState = 0,
) -> dict[str, float]:
    """Compute ``metrics`` of a fitted comparator's predictions on ``dataset``.

    Parameters
    ----------
    model : MitigatedModel
        From :func:`fit_mitigation`.
    dataset : FairDataset
        Rows to score (validation or test).
    metrics : sequence of str, default=DEFAULT_METRICS
        Names from :func:`fairacq.metrics.available` that need no scores.
    random_state : int, SeedSequence or None, default=0
        Seeds the randomised predictions.

    Returns
    -------
    dict
        Metric name -> value, as :func:`fairacq.models.evaluate` returns.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(300)
    >>> model = fit_mitigation("reweighing", ds.subset(range(200)), random_state=0)
    >>> sorted(evaluate_mitigation(model, ds.subset(range(200, 300))))[:2]
    ['accuracy', 'demographic_parity_diff_abs']
    """
    return prediction_metrics(model.predict(dataset, random_state=random_state), dataset, metrics)
