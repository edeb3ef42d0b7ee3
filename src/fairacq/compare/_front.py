"""The Pareto front of accuracy, fairness and cost: the strategies no other one beats outright.

A strategy is on the front when no other strategy is at most as costly, at most as unfair and
at least as accurate, and strictly better on one of the three (means over seeds). A
strategy whose model predicted one class in most seeds is left off: its zero gap says
nothing about fairness.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from fairacq.compare._target import Target

__all__ = ["fairness_axis", "pareto_front"]


def fairness_axis(target: Target) -> tuple[str, bool]:
    """Return the fairness metric a comparison plots and ranks by, and whether lower is fairer.

    The target's metric, except for an accuracy target, whose fairness axis is the
    demographic parity gap.

    Examples
    --------
    >>> fairness_axis(Target("worst_group_accuracy", ">=", 0.7))
    ('worst_group_accuracy', False)
    """
    if target.metric == "accuracy":
        return "demographic_parity_diff_abs", True
    return target.metric, target.lower_is_better


def _point(row: Mapping[str, Any], metric: str, lower: bool) -> tuple[float, float, float]:
    """(cost, unfairness, -accuracy): lower is better on each."""
    unfair = float(row[metric]) if lower else -float(row[metric])
    return float(row["cost"]), unfair, -float(row["accuracy"])


def _dominates(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(x <= y for x, y in zip(a, b, strict=True)) and a != b


def pareto_front(rows: Sequence[Mapping[str, Any]], target: Target) -> list[bool]:
    """Return, for each strategy row, whether it is on the accuracy-fairness-cost front.

    Parameters
    ----------
    rows : sequence of mapping
        Rows of :func:`fairacq.compare.strategy_table` (``cost``, ``accuracy``, the fairness
        metric, ``seeds`` and ``one_class_seeds``).
    target : Target
        Names the fairness metric (:func:`fairness_axis`).

    Returns
    -------
    list of bool
        In the order of ``rows``. Rows with a missing value, or one class in most seeds, are
        never on the front and never push another off it.

    Examples
    --------
    >>> t = Target("demographic_parity_diff_abs", "<=", 0.05)
    >>> rows = [
    ...     {"cost": 0, "accuracy": 0.80, "demographic_parity_diff_abs": 0.10},
    ...     {"cost": 0, "accuracy": 0.78, "demographic_parity_diff_abs": 0.02},
    ...     {"cost": 50, "accuracy": 0.77, "demographic_parity_diff_abs": 0.03},
    ... ]
    >>> pareto_front(rows, t)
    [True, True, False]
    """
    metric, lower = fairness_axis(target)
    points = [_point(r, metric, lower) if _eligible(r, metric) else None for r in rows]
    eligible = [p for p in points if p is not None]
    return [p is not None and not any(_dominates(q, p) for q in eligible) for p in points]


def _eligible(row: Mapping[str, Any], metric: str) -> bool:
    values = (row["cost"], row["accuracy"], row[metric])
    if not all(math.isfinite(float(v)) for v in values):
        return False
    return 2 * int(row.get("one_class_seeds", 0)) <= int(row.get("seeds", 1))
