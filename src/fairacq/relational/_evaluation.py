"""Evaluation of relational predictions: the metrics of Zhang & Ramesh's Tables 4, 5, 8, 9, 12, 13.

Predictions are continuous truth values in ``[0, 1]``; groups are a boolean mask (``True`` =
protected). Classification targets (paper review, COMPAS) get AUC-PR per group, AUC-ROC,
RD/RR/RC (Farnadi et al.: on the *mean predicted truth value* of each group, through
:func:`fairacq.metrics.risk_difference` & co.) and the equalised-odds gaps; rating targets
(MovieLens) get per-group MSE, non-parity and overestimation (through
:func:`fairacq.metrics.non_parity_unfairness` and
:func:`fairacq.metrics.overestimation_unfairness`).

Choices, checked against the paper's "COMPAS Scores" row (Table 8-9) on the authors' folds:

- RD, RR, RC and the equalised-odds gaps reproduce it to 1e-4 (0.2632, 1.8170, 0.6106,
  0.2261, 0.2285) with soft (unthresholded) rates, and the ``±`` is the population standard
  deviation over folds (``ddof=0``), as :func:`summarise_folds` reports.
- "Equal Odds Pos." is ``|E[y_hat | protected, y=1] - E[y_hat | unprotected, y=1]|`` (the TPR
  gap) and "Neg." the same for ``y = 0`` (the FPR gap): the two terms of the paper's
  equalised-odds difference (§4.3). Soft rates explain the paper's gaps of order 1e-4.
- AUC-PR is PSL's ranking evaluator: atoms sorted by decreasing prediction (ties in input
  order), one precision-recall point per atom, trapezoids from ``(recall 0, precision 1)``
  (:func:`ranked_auc_pr`). On the binary COMPAS score it gives 0.616 / 0.518 for the protected
  / unprotected groups against the paper's 0.6168 / 0.5118, where scikit-learn's average
  precision gives 0.597 / 0.482; ``auc_pr="average_precision"`` selects the latter.
- AUC-ROC is scikit-learn's (ties averaged): 0.6513 against the paper's 0.6530.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.metrics import (
    auc_roc,
    non_parity_unfairness,
    overestimation_unfairness,
    relative_chance,
    risk_difference,
    risk_ratio,
)

__all__ = [
    "align_predictions",
    "equalized_odds_gaps",
    "evaluate_atoms",
    "evaluate_classification",
    "evaluate_ratings",
    "group_mse",
    "ranked_auc_pr",
    "summarise_folds",
]

AucPrMethod = Literal["ranked", "average_precision"]


def _unit(where: str, values: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise InvalidDataError(f"{where}: '{name}' must be 1-D. Got shape {arr.shape}.")
    bad = ~np.isfinite(arr) | (arr < 0.0) | (arr > 1.0)
    if bad.any():
        raise InvalidDataError(
            f"{where}: '{name}' must hold truth values in [0, 1]; {int(bad.sum())} do not "
            f"(first at row {int(np.flatnonzero(bad)[0])}). Clip or rescale them."
        )
    return arr


def _mask(where: str, protected: ArrayLike, n: int) -> NDArray[np.bool_]:
    arr = np.asarray(protected)
    if arr.dtype != np.bool_:
        raise InvalidDataError(
            f"{where}: 'protected' must be a boolean mask (True = protected). Got dtype "
            f"{arr.dtype}. Pass e.g. groups == 'female'."
        )
    if arr.shape != (n,):
        raise InvalidDataError(
            f"{where}: 'protected' has shape {arr.shape}; expected ({n},), one flag per atom."
        )
    if arr.all() or not arr.any():
        raise InvalidDataError(
            f"{where}: every atom is in one group ({int(arr.sum())} protected of {n}). Both "
            "the protected and the unprotected group need atoms."
        )
    return arr


def _binary_truth(where: str, y_true: ArrayLike) -> NDArray[np.int64]:
    """Truth values in [0, 1] read as labels with PSL's threshold 0.5 (``> 0.5`` is 1)."""
    return (_unit(where, y_true, "y_true") > 0.5).astype(np.int64)


def ranked_auc_pr(y_true: ArrayLike, scores: ArrayLike, *, pos_label: int = 1) -> float:
    """Return the area under the precision-recall curve as PSL's ranking evaluator computes it.

    Atoms are sorted by decreasing score (``pos_label=0``: increasing), ties kept in input
    order; after each atom, precision and recall are updated and the area grows by the
    trapezoid from the previous point, starting from ``(recall 0, precision 1)``. With
    distinct scores this equals the trapezoidal area of scikit-learn's
    ``precision_recall_curve``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Truth values in ``[0, 1]``; above 0.5 is the positive class.
    scores : array-like of shape (n,)
        Predicted truth values in ``[0, 1]``.
    pos_label : {1, 0}, default=1
        ``0`` scores the negative class: labels and the ranking are flipped (PSL's
        "negative AUPRC").

    Returns
    -------
    float
        In ``[0, 1]``; NaN when the scored class has no atom.

    Raises
    ------
    InvalidDataError
        On lengths that differ or values outside ``[0, 1]``.
    InvalidParameterError
        If ``pos_label`` is not 0 or 1.

    Examples
    --------
    >>> ranked_auc_pr([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])
    0.7916666666666666
    """
    where = "ranked_auc_pr"
    if isinstance(pos_label, bool) or pos_label not in (0, 1):
        raise InvalidParameterError(f"{where}: pos_label must be 0 or 1. Got {pos_label!r}.")
    label = _binary_truth(where, y_true)
    score = _unit(where, scores, "scores")
    if len(label) != len(score):
        raise InvalidDataError(
            f"{where}: y_true has {len(label)} values and scores {len(score)}. Pass one "
            "score per atom."
        )
    if pos_label == 0:
        label, score = 1 - label, 1.0 - score
    n_pos = int(label.sum())
    if n_pos == 0:
        return float("nan")
    ordered = label[np.argsort(-score, kind="stable")]
    tp = np.cumsum(ordered)
    precision = np.concatenate([[1.0], tp / np.arange(1, len(ordered) + 1)])
    recall = np.concatenate([[0.0], tp / n_pos])
    return float(np.sum(np.diff(recall) * (precision[1:] + precision[:-1]) / 2.0))


def _auc_pr(method: AucPrMethod, y: NDArray[np.int64], s: NDArray[np.float64], pos: int) -> float:
    target = y if pos == 1 else 1 - y
    if target.sum() == 0:
        return float("nan")
    if method == "ranked":
        return ranked_auc_pr(y, s, pos_label=pos)
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(target, s if pos == 1 else 1.0 - s))


def equalized_odds_gaps(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    protected: ArrayLike,
    *,
    threshold: float | None = None,
) -> tuple[float, float]:
    """Return the equalised-odds gaps (positive, negative) of Zhang & Ramesh (Tables 5 and 9).

    ``pos = |E[y_hat | protected, y=1] - E[y_hat | unprotected, y=1]|`` and ``neg`` the same
    for ``y = 0``; their sum is the equalised-odds difference of §4.3. With binary
    predictions they are the TPR and FPR gaps.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Truth values in ``[0, 1]`` (above 0.5 is ``y = 1``).
    y_pred : array-like of shape (n,)
        Predicted truth values in ``[0, 1]``.
    protected : array-like of bool, shape (n,)
        ``True`` for the protected group's atoms.
    threshold : float or None, default=None
        ``None`` uses the soft values (as the paper); a float counts ``y_pred >= threshold``
        as a positive prediction.

    Returns
    -------
    tuple of float
        ``(pos, neg)``, each in ``[0, 1]``; NaN where a group has no atom with that label.

    Raises
    ------
    InvalidDataError
        On lengths that differ, values outside ``[0, 1]`` or an empty group.

    Examples
    --------
    >>> equalized_odds_gaps([1, 0, 1, 0], [0.75, 0.25, 0.5, 0.5], [True, True, False, False])
    (0.25, 0.25)
    """
    where = "equalized_odds_gaps"
    y = _binary_truth(where, y_true)
    pred = _predictions(where, y_pred, len(y), threshold)
    mask = _mask(where, protected, len(y))
    gaps = []
    for label in (1, 0):
        a, b = pred[mask & (y == label)], pred[~mask & (y == label)]
        gaps.append(float(abs(a.mean() - b.mean())) if a.size and b.size else float("nan"))
    return gaps[0], gaps[1]


def _predictions(
    where: str, y_pred: ArrayLike, n: int, threshold: float | None
) -> NDArray[np.float64]:
    pred = _unit(where, y_pred, "y_pred")
    if len(pred) != n:
        raise InvalidDataError(
            f"{where}: y_true has {n} values and y_pred {len(pred)}. Pass one prediction per atom."
        )
    if threshold is None:
        return pred
    if not 0.0 <= float(threshold) <= 1.0:
        raise InvalidParameterError(
            f"{where}: threshold must be in [0, 1] or None. Got {threshold!r} instead."
        )
    return (pred >= threshold).astype(np.float64)


def group_mse(y_true: ArrayLike, y_pred: ArrayLike, protected: ArrayLike) -> dict[str, float]:
    """Return the mean squared error of each group and overall (Zhang & Ramesh, Table 12).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted values in ``[0, 1]``.
    protected : array-like of bool, shape (n,)
        ``True`` for the protected group's atoms.

    Returns
    -------
    dict
        ``{"mse_protected", "mse_unprotected", "mse"}``.

    Examples
    --------
    >>> group_mse([1.0, 0.0, 1.0], [0.5, 0.0, 1.0], [True, False, False])
    {'mse_protected': 0.25, 'mse_unprotected': 0.0, 'mse': 0.08333333333333333}
    """
    where = "group_mse"
    true = _unit(where, y_true, "y_true")
    pred = _predictions(where, y_pred, len(true), None)
    mask = _mask(where, protected, len(true))
    err = (pred - true) ** 2
    return {
        "mse_protected": float(err[mask].mean()),
        "mse_unprotected": float(err[~mask].mean()),
        "mse": float(err.mean()),
    }


def evaluate_classification(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    protected: ArrayLike,
    *,
    favourable: int = 1,
    threshold: float | None = None,
    auc_pr: AucPrMethod = "ranked",
) -> dict[str, float]:
    """Return the metrics of Zhang & Ramesh's Tables 4-5 and 8-9 for one set of predictions.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Truth values in ``[0, 1]`` (above 0.5 is the positive class).
    y_pred : array-like of shape (n,)
        Predicted truth values in ``[0, 1]``.
    protected : array-like of bool, shape (n,)
        ``True`` for the protected group's atoms.
    favourable : {1, 0}, default=1
        The outcome that is good for the individual: 1 for a positive summary, 0 for
        recidivism. RD/RR/RC compare the rates of the *unfavourable* outcome ``p1``
        (protected) and ``p2`` (unprotected), as Farnadi et al.
    threshold : float or None, default=None
        ``None`` computes RD/RR/RC and the odds gaps on the soft values (the paper); a float
        thresholds the predictions first. AUCs always use the soft values.
    auc_pr : {"ranked", "average_precision"}, default="ranked"
        PSL's ranked trapezoids (:func:`ranked_auc_pr`, the paper) or scikit-learn's
        average precision.

    Returns
    -------
    dict
        ``auc_pr_protected``, ``auc_pr_unprotected`` (positive class),
        ``auc_pr_neg_protected``, ``auc_pr_neg_unprotected`` (negative class), ``auc_roc``,
        ``rd``, ``rr``, ``rc``, ``equal_odds_pos``, ``equal_odds_neg``. AUCs are NaN when
        undefined (one class only).

    Raises
    ------
    InvalidDataError
        On lengths that differ, values outside ``[0, 1]`` or an empty group.
    InvalidParameterError
        For an unknown ``auc_pr``, a ``favourable`` other than 0/1 or a bad threshold.

    Examples
    --------
    >>> out = evaluate_classification([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.3],
    ...                               [True, True, False, False])
    >>> round(out["rd"], 3), out["auc_roc"]
    (-0.1, 1.0)
    """
    where = "evaluate_classification"
    if auc_pr not in ("ranked", "average_precision"):
        raise InvalidParameterError(
            f"{where}: auc_pr must be 'ranked' or 'average_precision'. Got {auc_pr!r}."
        )
    y = _binary_truth(where, y_true)
    soft = _predictions(where, y_pred, len(y), None)
    pred = _predictions(where, y_pred, len(y), threshold)
    mask = _mask(where, protected, len(y))
    out = {
        "auc_pr_protected": _auc_pr(auc_pr, y[mask], soft[mask], 1),
        "auc_pr_unprotected": _auc_pr(auc_pr, y[~mask], soft[~mask], 1),
        "auc_pr_neg_protected": _auc_pr(auc_pr, y[mask], soft[mask], 0),
        "auc_pr_neg_unprotected": _auc_pr(auc_pr, y[~mask], soft[~mask], 0),
        "auc_roc": auc_roc(y, soft) if 0 < y.sum() < len(y) else float("nan"),
        "rd": risk_difference(pred, mask, protected=True, favourable=favourable),
        "rr": risk_ratio(pred, mask, protected=True, favourable=favourable),
        "rc": relative_chance(pred, mask, protected=True, favourable=favourable),
    }
    pos, neg = equalized_odds_gaps(y, pred, mask)
    out["equal_odds_pos"], out["equal_odds_neg"] = pos, neg
    return out


def evaluate_ratings(
    y_true: ArrayLike, y_pred: ArrayLike, protected: ArrayLike, items: ArrayLike
) -> dict[str, float]:
    """Return the metrics of Zhang & Ramesh's Tables 12-13 for predicted ratings.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted ratings in ``[0, 1]``.
    protected : array-like of bool, shape (n,)
        ``True`` for the protected users' ratings.
    items : array-like of shape (n,)
        Item of each rating (for the per-item overestimation).

    Returns
    -------
    dict
        ``mse_protected``, ``mse_unprotected``, ``mse``, ``non_parity`` (``|E_prot[y_hat] -
        E_unprot[y_hat]|``) and ``overestimation`` (``U_over`` over items rated by both
        groups).

    Raises
    ------
    InvalidDataError
        On lengths that differ, values outside ``[0, 1]``, an empty group or no item rated
        by both groups.

    Examples
    --------
    >>> out = evaluate_ratings([0.6, 0.8, 0.6, 0.8], [0.8, 0.8, 0.6, 0.8],
    ...                        [True, True, False, False], ["a", "b", "a", "b"])
    >>> round(out["non_parity"], 3), round(out["overestimation"], 3)
    (0.1, 0.1)
    """
    out = group_mse(y_true, y_pred, protected)
    mask = np.asarray(protected)
    out["non_parity"] = non_parity_unfairness(y_pred, mask, protected=True)
    out["overestimation"] = overestimation_unfairness(y_true, y_pred, mask, items, protected=True)
    return out


def align_predictions(
    data: RelationalData, predictions: pd.DataFrame, predicate: str | None = None
) -> pd.DataFrame:
    """Match predicted atoms with their truth and group.

    Parameters
    ----------
    data : RelationalData
        Gives the truth and the groups.
    predictions : pandas.DataFrame
        Predicted atoms: optional ``predicate`` column, the argument columns in order (any
        names, e.g. ``arg0, arg1`` from ``MapResult.to_frame``; extra padding columns after
        the predicate's arity are ignored) and ``value``.
    predicate : str or None, default=None
        The predicate to evaluate; ``None`` means ``data.fairness_predicate``.

    Returns
    -------
    pandas.DataFrame
        One row per group atom, in the order of ``data.protected`` then
        ``data.unprotected``: the argument columns, ``truth``, ``prediction`` and
        ``protected`` (bool).

    Raises
    ------
    InvalidDataError
        If the predicate is unknown, a column is missing or a group atom has no prediction
        or no truth.
    """
    where = "align_predictions"
    pred_name = predicate if predicate is not None else data.fairness_predicate
    if pred_name is None or pred_name not in data.truth:
        raise InvalidDataError(
            f"{where}: no truth for predicate {pred_name!r}. Pass predicate=<a target "
            f"predicate with truth> ({', '.join(sorted(data.truth))})."
        )
    truth = data.truth[pred_name]
    args = [c for c in truth.columns if c != "value"]
    if "value" not in predictions.columns:
        raise InvalidDataError(f"{where}: predictions need a 'value' column.")
    frame = predictions
    if "predicate" in frame.columns:
        frame = frame.loc[frame["predicate"] == pred_name]
    pcols = [c for c in frame.columns if c not in ("predicate", "value")]
    if len(pcols) < len(args):
        raise InvalidDataError(
            f"{where}: {pred_name!r} has {len(args)} arguments but the predictions have "
            f"{len(pcols)} argument columns ({pcols})."
        )
    pred_map = dict(
        zip(
            frame[pcols[: len(args)]].astype(str).itertuples(index=False, name=None),
            frame["value"].to_numpy(dtype=np.float64),
            strict=True,
        )
    )
    truth_map = dict(
        zip(
            truth[args].astype(str).itertuples(index=False, name=None),
            truth["value"].to_numpy(dtype=np.float64),
            strict=True,
        )
    )
    rows = []
    for flag, group in ((True, data.protected), (False, data.unprotected)):
        for key in group[args].astype(str).itertuples(index=False, name=None):
            if key not in pred_map or key not in truth_map:
                what = "prediction" if key not in pred_map else "truth value"
                raise InvalidDataError(
                    f"{where}: atom {pred_name}{key} has no {what}. Predict every target "
                    "atom of the groups."
                )
            rows.append((*key, truth_map[key], pred_map[key], flag))
    return pd.DataFrame(rows, columns=[*args, "truth", "prediction", "protected"])


def evaluate_atoms(
    data: RelationalData,
    predictions: pd.DataFrame,
    *,
    predicate: str | None = None,
    task: Literal["classification", "rating"] | None = None,
    threshold: float | None = None,
    auc_pr: AucPrMethod = "ranked",
) -> dict[str, float]:
    """Evaluate predicted atoms of ``data``'s groups with the paper's metrics.

    Parameters
    ----------
    data : RelationalData
        Truth, groups and ``metadata`` (``"task"``, ``"favourable"``).
    predictions : pandas.DataFrame
        Predicted atoms; see :func:`align_predictions`.
    predicate : str or None, default=None
        Defaults to ``data.fairness_predicate``.
    task : {"classification", "rating"} or None, default=None
        ``None`` reads ``data.metadata["task"]`` (the loaders set it). For ``"rating"`` the
        last argument of the predicate is the item.
    threshold : float or None, default=None
        See :func:`evaluate_classification`.
    auc_pr : {"ranked", "average_precision"}, default="ranked"
        See :func:`evaluate_classification`.

    Returns
    -------
    dict
        :func:`evaluate_classification` or :func:`evaluate_ratings` output.

    Raises
    ------
    InvalidParameterError
        If the task is unknown.
    InvalidDataError
        As :func:`align_predictions` and the metric functions.
    """
    kind = task if task is not None else data.metadata.get("task", "classification")
    table = align_predictions(data, predictions, predicate)
    mask = table["protected"].to_numpy(dtype=bool)
    if kind == "classification":
        return evaluate_classification(
            table["truth"].to_numpy(),
            table["prediction"].to_numpy(),
            mask,
            favourable=int(data.metadata.get("favourable", 1)),
            threshold=threshold,
            auc_pr=auc_pr,
        )
    if kind == "rating":
        args = list(table.columns[:-3])
        if len(args) < 2:
            raise InvalidDataError(
                "evaluate_atoms: rating evaluation needs (user, item) atoms; the predicate "
                f"has the single argument {args}."
            )
        return evaluate_ratings(
            table["truth"].to_numpy(), table["prediction"].to_numpy(), mask, table[args[-1]]
        )
    raise InvalidParameterError(
        f"evaluate_atoms: task must be 'classification' or 'rating'. Got {kind!r}."
    )


def summarise_folds(results: Sequence[Mapping[str, float]]) -> pd.DataFrame:
    """Return the mean and the population standard deviation of each metric over folds.

    Zhang & Ramesh reports ``mean ± std`` over 5 folds with ``ddof=0`` (its COMPAS Scores row is
    reproduced only with it: RD 0.2632 ± 0.0228).

    Parameters
    ----------
    results : sequence of mapping of str to float
        One metric dict per fold (e.g. from :func:`evaluate_atoms`).

    Returns
    -------
    pandas.DataFrame
        Index: metric; columns ``mean``, ``std``, ``n_folds`` (folds with a finite value).

    Examples
    --------
    >>> summarise_folds([{"rd": 0.1}, {"rd": 0.3}])["std"].round(3).tolist()
    [0.1]
    """
    if not results:
        raise InvalidDataError("summarise_folds: no results given. Pass one dict per fold.")
    table = pd.DataFrame(list(results), dtype=np.float64)
    return pd.DataFrame(
        {
            "mean": table.mean(),
            "std": table.std(ddof=0),
            "n_folds": table.notna().sum().astype(np.int64),
        }
    ).rename_axis("metric")
