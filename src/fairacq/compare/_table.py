"""One row per strategy: cost, metrics (mean and spread over seeds), target met, accuracy lost.

Seed by seed, a strategy *meets the target* when its metric on the test rows meets it and its
model did not predict one class for every test row (a one-class model's gaps are zero by
construction); it *meets both* when it also loses at most the accuracy tolerance against the
baseline on that seed. Each count comes with a 95 % interval of the share of seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fairacq.compare._duplicates import same_results
from fairacq.compare._evidence import share_interval
from fairacq.compare._front import pareto_front
from fairacq.compare._target import Target

__all__ = ["strategy_table"]

#: Float slack when a seed's accuracy loss is compared with the tolerance.
_SLACK = 1e-9


def _stats(values: Sequence[float]) -> tuple[float, float]:
    arr = np.asarray(values, dtype=np.float64)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return float("nan"), float("nan")
    return float(arr.mean()), float(arr.std())


def _losses(mine: Sequence[Mapping[str, Any]], base: Mapping[int, float]) -> list[float]:
    """Accuracy of the baseline minus this strategy's, seed by seed (paired)."""
    return [base.get(int(r["seed"]), float("nan")) - float(r["accuracy"]) for r in mine]


def _allocation(mine: Sequence[Mapping[str, Any]]) -> dict[str, float] | None:
    """Mean samples per group over seeds (samplers only)."""
    found = [r["allocation"] for r in mine if isinstance(r.get("allocation"), Mapping)]
    if not found:
        return None
    groups = list(dict.fromkeys(g for a in found for g in a))
    return {g: float(np.mean([a.get(g, 0) for a in found])) for g in groups}


def _seed_counts(
    mine: Sequence[Mapping[str, Any]], losses: Sequence[float], target: Target, tolerance: float
) -> dict[str, Any]:
    """Seeds one class, meeting the target, and meeting it within the accuracy tolerance."""
    one_class = [bool(r.get("one_class", False)) for r in mine]
    met = [
        target.met(float(r[target.metric])) and not o for r, o in zip(mine, one_class, strict=True)
    ]
    ok = [m and loss <= tolerance + _SLACK for m, loss in zip(met, losses, strict=True)]
    n = len(mine)
    return {
        "one_class_seeds": sum(one_class),
        "met_seeds": sum(met),
        "met_interval": list(share_interval(sum(met), n)),
        "ok_seeds": sum(ok),
        "ok_interval": list(share_interval(sum(ok), n)),
        "reached": 2 * sum(met) > n,
    }


def _row(
    mine: Sequence[Mapping[str, Any]],
    target: Target,
    metrics: Sequence[str],
    base: Mapping[int, float],
    tolerance: float,
) -> dict[str, Any]:
    row: dict[str, Any] = {"method": mine[0]["method"], "kind": mine[0]["kind"]}
    row["seeds"] = len(mine)
    row["cost"], row["cost_std"] = _stats([float(r["cost"]) for r in mine])
    for metric in metrics:
        row[metric], row[f"{metric}_std"] = _stats([float(r[metric]) for r in mine])
    losses = _losses(mine, base)
    row.update(_seed_counts(mine, losses, target, tolerance))
    degenerate = 2 * row["one_class_seeds"] > row["seeds"]
    row["shortfall"] = float("inf") if degenerate else target.shortfall(row[target.metric])
    row["accuracy_loss"], row["accuracy_loss_std"] = _stats(losses)
    row["within_loss"] = bool(row["accuracy_loss"] <= tolerance + _SLACK)
    row["seconds"], _ = _stats([float(r.get("seconds", float("nan"))) for r in mine])
    if "first_met_cost" in mine[0]:
        row["first_met_cost"], _ = _stats([float(r["first_met_cost"]) for r in mine])
    allocation = _allocation(mine)
    if allocation is not None:
        row["allocation"] = allocation
    return row


def strategy_table(
    records: Sequence[Mapping[str, Any]],
    target: Target,
    metrics: Sequence[str],
    baseline: str,
    *,
    max_accuracy_loss: float = 0.02,
) -> list[dict[str, Any]]:
    """Aggregate the runs of each strategy over seeds.

    Parameters
    ----------
    records : sequence of mapping
        One per run (``method``, ``kind``, ``seed``, ``cost``, the metrics, and
        ``one_class``: whether the model predicted one class on every test row).
    target : Target
        What is checked.
    metrics : sequence of str
        The metrics measured on the test rows.
    baseline : str
        The strategy accuracy losses are measured against (seed by seed).
    max_accuracy_loss : float, default=0.02
        The accuracy a strategy may lose against the baseline (0.02: two points).

    Returns
    -------
    list of dict
        In the order strategies first appear: ``method``, ``kind``, ``seeds``, ``cost`` and
        ``cost_std``, ``<metric>`` and ``<metric>_std`` for each metric,
        ``one_class_seeds`` (seeds whose model predicted one class), ``met_seeds`` (seeds
        meeting the target, one-class seeds never do) and ``met_interval`` (95 % interval of
        the share), ``ok_seeds`` and ``ok_interval`` (seeds meeting the target while losing at
        most ``max_accuracy_loss``), ``reached`` (met in more than half the seeds),
        ``shortfall`` (of the mean; infinite for a model one-class in most seeds),
        ``accuracy_loss`` and ``accuracy_loss_std`` (baseline accuracy minus this one's, seed
        by seed), ``within_loss`` (the mean loss is within the tolerance), ``same_as`` (the
        first strategy with identical results on every seed, or None), ``pareto`` (on the
        accuracy-fairness-cost front), ``seconds``, ``first_met_cost`` (acquisition methods:
        the mean cost at which the test curve first met the target, over the seeds where it
        did) and ``allocation`` (samplers: mean samples per group).
    """
    base = {int(r["seed"]): float(r["accuracy"]) for r in records if r["method"] == baseline}
    repeats = same_results(records, metrics)
    out = []
    for method in dict.fromkeys(r["method"] for r in records):
        mine = [r for r in records if r["method"] == method]
        row = _row(mine, target, metrics, base, max_accuracy_loss)
        row["same_as"] = repeats.get(str(method))
        out.append(row)
    for row, on_front in zip(out, pareto_front(out, target), strict=True):
        row["pareto"] = on_front
    return out
