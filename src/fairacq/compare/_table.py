"""One row per strategy: cost, metrics (mean and spread over seeds), target met, accuracy lost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fairacq.compare._target import Target

__all__ = ["strategy_table"]


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


def strategy_table(
    records: Sequence[Mapping[str, Any]],
    target: Target,
    metrics: Sequence[str],
    baseline: str,
) -> list[dict[str, Any]]:
    """Aggregate the runs of each strategy over seeds.

    Parameters
    ----------
    records : sequence of mapping
        One per run (``method``, ``kind``, ``seed``, ``cost``, the metrics, ...).
    target : Target
        What is checked.
    metrics : sequence of str
        The metrics measured on the test rows.
    baseline : str
        The strategy accuracy losses are measured against (seed by seed).

    Returns
    -------
    list of dict
        In the order strategies first appear: ``method``, ``kind``, ``seeds``, ``cost`` and
        ``cost_std``, ``<metric>`` and ``<metric>_std`` for each metric, ``met_seeds``
        (seeds meeting the target), ``reached`` (the mean meets it), ``shortfall``,
        ``accuracy_loss`` (mean baseline accuracy minus this one's, in [0, 1]),
        ``seconds``, ``first_met_cost`` (acquisition methods: the mean cost at which the test
        curve first met the target, over the seeds where it did) and ``allocation``
        (samplers: mean samples per group).
    """
    base = {int(r["seed"]): float(r["accuracy"]) for r in records if r["method"] == baseline}
    out = []
    for method in dict.fromkeys(r["method"] for r in records):
        mine = [r for r in records if r["method"] == method]
        row: dict[str, Any] = {"method": method, "kind": mine[0]["kind"], "seeds": len(mine)}
        row["cost"], row["cost_std"] = _stats([float(r["cost"]) for r in mine])
        for metric in metrics:
            row[metric], row[f"{metric}_std"] = _stats([float(r[metric]) for r in mine])
        row["met_seeds"] = sum(target.met(float(r[target.metric])) for r in mine)
        row["reached"] = target.met(row[target.metric])
        row["shortfall"] = target.shortfall(row[target.metric])
        row["accuracy_loss"], _ = _stats(_losses(mine, base))
        row["seconds"], _ = _stats([float(r.get("seconds", float("nan"))) for r in mine])
        if "first_met_cost" in mine[0]:
            row["first_met_cost"], _ = _stats([float(r["first_met_cost"]) for r in mine])
        allocation = _allocation(mine)
        if allocation is not None:
            row["allocation"] = allocation
        out.append(row)
    return out
