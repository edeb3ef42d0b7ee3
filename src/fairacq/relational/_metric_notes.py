"""What a user must know about reported relational metrics: soft truth and undefined values.

The classification metrics read truth values as labels (above 0.5 is positive, PSL's
threshold); a truth value strictly between 0 and 1 is thereby rounded, which
:func:`metric_notes` says. A metric without a value on the data at hand (an AUC when the
thresholded truth has one class, an odds gap when a group lacks a class, a ratio over a zero
rate) is NaN in the metrics dict; :func:`metric_notes` names it and the class counts that
explain it, and :func:`json_metrics` writes it as ``null``, so no NaN is reported silently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from fairacq.data.relational._relational_data import RelationalData

__all__ = ["MetricsWarning", "json_metrics", "metric_notes"]


class MetricsWarning(UserWarning):
    """A reported metric reads graded truth as labels, or has no value on this data."""


def json_metrics(metrics: Mapping[str, float]) -> dict[str, float | None]:
    """Return ``metrics`` with every NaN or infinite value as None (``null`` in JSON).

    Examples
    --------
    >>> json_metrics({"auc_roc": float("nan"), "rd": 0.1})
    {'auc_roc': None, 'rd': 0.1}
    """
    return {k: (float(v) if math.isfinite(float(v)) else None) for k, v in metrics.items()}


def metric_notes(
    data: RelationalData, metrics: Mapping[str, float], *, predicate: str | None = None
) -> list[str]:
    """Return one line per thing to know about ``metrics`` computed on ``data``.

    Parameters
    ----------
    data : RelationalData
        The evaluated data (truth, groups, ``metadata["task"]``).
    metrics : mapping of str to float
        What :func:`~fairacq.relational.evaluate_atoms` returned.
    predicate : str or None, default=None
        The evaluated predicate; ``None`` means ``data.fairness_predicate``.

    Returns
    -------
    list of str
        A note when a classification target has truth values strictly between 0 and 1 (read
        with the threshold 0.5), and one naming the metrics that are NaN or infinite.
    """
    pred = predicate if predicate is not None else data.fairness_predicate
    if not metrics or pred is None or pred not in data.truth:
        return []
    notes: list[str] = []
    truth = data.truth[pred]["value"].to_numpy(dtype=np.float64)
    classification = data.metadata.get("task", "classification") == "classification"
    soft = int(((truth > 0.0) & (truth < 1.0)).sum())
    if classification and soft:
        notes.append(
            f"{soft} of {truth.size} truth values of {pred!r} lie strictly between 0 and 1; "
            "the classification metrics (AUCs, equalised-odds gaps) read them as labels with "
            "the threshold 0.5 (above 0.5 is positive), RD/RR/RC use the predictions only. "
            "For graded truth such as ratings use task='rating' (--task rating): MSE and "
            "non-parity."
        )
    undefined = sorted(k for k, v in metrics.items() if not math.isfinite(float(v)))
    if undefined:
        notes.append(
            f"{', '.join(undefined)} undefined on this data and reported as null: "
            f"{_class_counts(data, pred)}. AUCs need both classes in a group and the odds "
            "gaps a class in both groups; RR and RC need a non-zero rate in the denominator."
        )
    return notes


def _class_counts(data: RelationalData, pred: str) -> str:
    """Describe the positive/negative truth labels (threshold 0.5) of each group."""
    truth = data.truth[pred]
    args = [c for c in truth.columns if c != "value"]
    label = dict(
        zip(
            truth[args].astype(str).itertuples(index=False, name=None),
            truth["value"].to_numpy(dtype=np.float64) > 0.5,
            strict=True,
        )
    )
    parts = []
    for name, group in (("protected", data.protected), ("unprotected", data.unprotected)):
        keys = list(group[args].astype(str).itertuples(index=False, name=None))
        pos = sum(bool(label.get(k, False)) for k in keys)
        parts.append(f"the {name} group has {pos} positive and {len(keys) - pos} negative atoms")
    return "with truth above 0.5 as positive, " + " and ".join(parts)
