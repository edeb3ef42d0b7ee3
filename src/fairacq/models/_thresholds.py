"""Group thresholds fitted after training, within a tolerance: post-processing as a knob.

Hardt, Price and Srebro (2016) pick a (randomised) threshold per group on a trained model's
probabilities so that a group-rate constraint holds with the best accuracy; fairlearn's
``ThresholdOptimizer`` does it, and since fairlearn 0.13 relaxes the constraint to a
tolerance ``tol`` (the groups' rates may differ by at most ``tol``). Sweeping ``tol`` from 0
upwards traces an accuracy-fairness front from one trained model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._deps import require
from fairacq._random import RandomState
from fairacq._typing import Classifier
from fairacq._warnings import warn_caller
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError, ResultWarning
from fairacq.models._evaluate import DEFAULT_METRICS
from fairacq.models._group_thresholds import GroupThresholds, place_on_unlabelled
from fairacq.models._mitigated_model import MitigatedModel, prediction_metrics, quiet_fairlearn
from fairacq.models._registry import describe_learner
from fairacq.models._threshold_fallback import (
    PartialThresholds,
    fallback_thresholds,
    one_label_groups,
)

__all__ = [
    "THRESHOLD_CONSTRAINTS",
    "describe_thresholds",
    "evaluate_thresholds",
    "fit_thresholds",
    "group_rates",
    "threshold_constraint",
]

#: fairacq metric -> the ThresholdOptimizer constraint that drives it to 0.
THRESHOLD_CONSTRAINTS: dict[str, str] = {
    "demographic_parity_diff_abs": "demographic_parity",
    "demographic_parity_diff_signed": "demographic_parity",
    "equal_opportunity_diff": "true_positive_rate_parity",
    "equal_opportunity_diff_signed": "true_positive_rate_parity",
    "equalized_odds_diff": "equalized_odds",
    "equalized_odds_diff_signed": "equalized_odds",
}

_SHORT = {
    "demographic_parity": "dp",
    "true_positive_rate_parity": "eopp",
    "equalized_odds": "eo",
}


def threshold_constraint(metric: str, tol: float = 0.0) -> str:
    """Return the ThresholdOptimizer constraint for ``metric`` (refusing what it cannot do).

    Examples
    --------
    >>> threshold_constraint("equal_opportunity_diff")
    'true_positive_rate_parity'
    """
    constraint = THRESHOLD_CONSTRAINTS.get(metric)
    if constraint is None:
        raise InvalidParameterError(
            f"group thresholds cannot target {metric!r}; they equalise demographic parity "
            "(dp), equal opportunity (eopp) or equalized odds (eo). Use one of those metrics."
        )
    if constraint == "equalized_odds" and tol > 0:
        raise InvalidParameterError(
            f"group thresholds for equalized odds take no tolerance (tol={tol}); use tol=0, "
            "or demographic parity / equal opportunity for a tolerance."
        )
    return constraint


def fit_thresholds(
    model: Classifier,
    dataset: FairDataset,
    *,
    metric: str = "demographic_parity_diff_abs",
    tol: float = 0.0,
    unlabelled: FairDataset | None = None,
) -> MitigatedModel:
    """Fit each group's threshold on a fitted ``model``'s probabilities of ``dataset``'s rows.

    Parameters
    ----------
    model : estimator
        A fitted classifier with ``predict_proba`` (left unchanged).
    dataset : FairDataset
        Labelled rows the thresholds are chosen on: held-out rows (a validation split), not
        the model's own training rows, whose probabilities are over-confident.
        A group whose rows here hold one label only falls back, with a
        :class:`~fairacq.exceptions.ResultWarning`: for demographic parity it gets the rate,
        within ``tol`` of the other groups', that suits its label; for equal opportunity and
        equalized odds the model's own threshold, 0.5 (its error rates cannot be measured).
        A group with no row, or no group with both labels, is an
        :class:`~fairacq.exceptions.InvalidDataError`.
    metric : str, default="demographic_parity_diff_abs"
        The gap to close (:data:`THRESHOLD_CONSTRAINTS`).
    tol : float, default=0.0
        How far the groups' rates may stay apart (0: equal); larger keeps more accuracy.
    unlabelled : FairDataset or None, default=None
        Demographic parity only: rows drawn like those to be predicted, whose labels are
        not read (a pool of candidates). The rates chosen on ``dataset`` are kept and each
        group's threshold placed at the matching quantile of the probabilities over these
        rows and ``dataset``'s (:func:`~fairacq.models.place_on_unlabelled`):
        one deterministic threshold per group, whose realised rates vary less than those
        placed on ``dataset`` alone.

    Returns
    -------
    MitigatedModel
        Without ``unlabelled``, predicts at random between two thresholds per group
        (``predict(dataset, random_state=...)`` draws with a seed); with it, one threshold per
        group.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy(400, random_state=0)
    >>> lr = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> post = fit_thresholds(lr, ds, tol=0.05)
    >>> post.name, post.predict(ds, random_state=0).shape
    ('threshold-dp', (400,))
    """
    if not np.isfinite(tol) or tol < 0:
        raise InvalidParameterError(f"fit_thresholds: tol must be >= 0, got {tol}.")
    constraint = threshold_constraint(metric, tol)
    post = require("fairlearn.postprocessing", purpose="group thresholds")
    opt = post.ThresholdOptimizer(
        estimator=model,
        constraints=constraint,
        predict_method="predict_proba",
        prefit=True,
        tol=float(tol) if tol > 0 else None,
    )
    rule = _fit_rule(opt, model, dataset, constraint=constraint, tol=tol)
    name, learner = f"threshold-{_SHORT[constraint]}", describe_learner(model)
    if unlabelled is None:
        return MitigatedModel(name=name, model=rule, learner=learner)
    if constraint != "demographic_parity":
        raise InvalidParameterError(
            f"fit_thresholds: unlabelled rows place thresholds for demographic parity only "
            f"({metric!r} compares rates among labelled rows); leave unlabelled=None."
        )
    rates = group_rates(MitigatedModel(name=name, model=rule, learner=learner), dataset)
    placed = place_on_unlabelled(model, rates, [unlabelled, dataset])
    placed.note = getattr(rule, "note", None)
    return MitigatedModel(name=name, model=placed, learner=learner)


def _fit_rule(opt: Any, model: Any, dataset: FairDataset, **how: Any) -> Any:
    """Fit ``opt`` on ``dataset``; a group with one label only falls back (and warns).

    See :mod:`fairacq.models._threshold_fallback` for what such a group gets.
    """
    one_label = one_label_groups(dataset)
    rows = dataset
    if one_label:
        s = np.asarray(dataset.s, dtype=np.int64)
        rows = dataset.subset(np.flatnonzero(~np.isin(s, list(one_label))))
    with quiet_fairlearn():
        opt.fit(rows.to_numpy(), rows.y, sensitive_features=rows.s)
    if not one_label:
        return opt
    rule = fallback_thresholds(model, opt, dataset, one_label, **how)
    warn_caller(rule.note, ResultWarning)
    return rule


def evaluate_thresholds(
    post: MitigatedModel,
    dataset: FairDataset,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    random_state: RandomState = 0,
) -> dict[str, float]:
    """Compute ``metrics`` of ``post``'s predictions of ``dataset``'s rows.

    The 0/1 predictions are drawn with ``random_state``; metrics that need scores (AUC) get
    each row's chance of a positive prediction.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy(400, random_state=0)
    >>> lr = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> sorted(evaluate_thresholds(fit_thresholds(lr, ds), ds, ["accuracy", "auc_roc"]))
    ['accuracy', 'auc_roc']
    """
    chances = _chances(post, dataset)
    if isinstance(post.model, GroupThresholds):  # no coin: the chances are the predictions
        pred = chances.astype(np.int64)
    else:
        pred = post.predict(dataset, random_state=random_state)
    return prediction_metrics(pred, dataset, metrics, scores=chances)


def group_rates(post: MitigatedModel, dataset: FairDataset) -> NDArray[np.float64]:
    """Return each group's expected selection rate under ``post`` on ``dataset``'s rows.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy(400, random_state=0)
    >>> lr = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> rates = group_rates(fit_thresholds(lr, ds), ds)
    >>> bool(abs(rates[0] - rates[1]) < 1e-6)
    True
    """
    chances, s = _chances(post, dataset), np.asarray(dataset.s)
    return np.array([chances[s == g].mean() for g in range(dataset.n_groups)])


def _chances(post: MitigatedModel, dataset: FairDataset) -> NDArray[np.float64]:
    """Return each row's chance of a positive prediction under ``post``'s thresholds."""
    if isinstance(post.model, GroupThresholds | PartialThresholds):
        return post.model.chances(dataset.to_numpy(), sensitive_features=dataset.s)
    with quiet_fairlearn():
        pmf = post.model._pmf_predict(dataset.to_numpy(), sensitive_features=dataset.s)
    return np.asarray(pmf[:, 1], dtype=np.float64)


def describe_thresholds(post: MitigatedModel, group_names: Sequence[str]) -> dict[str, Any]:
    """Return each group's randomised threshold rule as plain numbers (JSON-safe).

    A row of group ``g`` with score ``p`` (the learner's P(y=1)) is predicted 1 with
    probability ``p0 * [p > threshold0] + p1 * [p > threshold1]`` (``>=`` where the
    operator says so); with ``p_ignore`` > 0 a share of rows gets ``prediction_constant``
    instead, whatever their score. Thresholds placed on unlabelled rows have no coin:
    ``p0 = 1``, ``p1 = 0`` and both thresholds equal. An infinite threshold (always or never)
    is the string ``"inf"`` or ``"-inf"``, so that any JSON reader takes the file.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy(400, random_state=0)
    >>> lr = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> rules = describe_thresholds(fit_thresholds(lr, ds), ds.group_names)
    >>> rules["g0"]["operator0"], round(rules["g0"]["p0"] + rules["g0"]["p1"], 6)
    ('>', 1.0)
    """
    if isinstance(post.model, GroupThresholds):  # one threshold, no coin: p0 = 1
        pairs = zip(group_names, post.model.thresholds, strict=True)
        return {str(name): _one_threshold(float(t)) for name, t in pairs}
    model, out = post.model, {}
    if isinstance(model, PartialThresholds):  # one-label groups: a fixed threshold each
        out = {str(group_names[g]): _one_threshold(t) for g, t in model.fixed.items()}
        model = model.fitted
    table = model.interpolated_thresholder_.interpolation_dict
    for code, rule in table.items():
        entry: dict[str, Any] = {
            "p_ignore": float(rule.get("p_ignore", 0.0)),
            "prediction_constant": float(rule.get("prediction_constant", 0.0)),
        }
        for k in (0, 1):
            operation = rule[f"operation{k}"]
            entry[f"p{k}"] = float(rule[f"p{k}"])
            entry[f"operator{k}"] = str(operation.operator)
            entry[f"threshold{k}"] = _plain(float(operation.threshold))
        out[str(group_names[int(code)])] = entry
    return {str(name): out[str(name)] for name in group_names if str(name) in out}


def _one_threshold(value: float) -> dict[str, Any]:
    """Return a deterministic rule in :func:`describe_thresholds`'s shape (``p0 = 1``)."""
    plain = {"p_ignore": 0.0, "prediction_constant": 0.0, "p0": 1.0, "p1": 0.0}
    return {
        **plain,
        **{f"operator{k}": ">" for k in (0, 1)},
        **{f"threshold{k}": _plain(value) for k in (0, 1)},
    }


def _plain(value: float) -> float | str:
    if np.isfinite(value):
        return value
    return "inf" if value > 0 else "-inf"
