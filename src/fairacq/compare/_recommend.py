"""The recommendation: which strategy reached the target at the least cost and accuracy loss.

Or, when none did, say so and name the one that came closest. Judged on the test rows, by the
mean over seeds; the seeds that met the target are counted beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairacq.compare._target import Target

__all__ = ["Recommendation", "recommend"]

_TIE = 1e-9


@dataclass(frozen=True)
class Recommendation:
    """What a comparison recommends.

    Attributes
    ----------
    text : str
        The recommendation in words.
    reached : bool
        Whether some strategy reached the target (mean over seeds on the test rows).
    method : str or None
        The one reaching it at the least cost (ties: the smaller accuracy loss).
    closest : str or None
        When none reached it, the one that came closest.
    """

    text: str
    reached: bool
    method: str | None = None
    closest: str | None = None


def _points(loss: float) -> str:
    if math.isnan(loss):
        return "accuracy change unknown"
    if abs(loss) < 0.0005:
        return "no accuracy lost"
    verb = "losing" if loss > 0 else "gaining"
    return f"{verb} {abs(loss) * 100:.1f} accuracy points"


def _describe(row: Mapping[str, Any], target: Target, unit: str, baseline: str) -> str:
    metric = target.metric
    spread = row[f"{metric}_std"]
    cost = f"{row['cost']:.0f} {unit}" if row["cost"] else "no data bought"
    return (
        f"{target.label} {row[metric]:.3f} ± {spread:.3f} (met in {row['met_seeds']}/"
        f"{row['seeds']} seeds), accuracy {row['accuracy']:.3f} "
        f"({_points(row['accuracy_loss'])} against {baseline}), {cost}"
    )


def recommend(
    table: Sequence[Mapping[str, Any]],
    target: Target,
    *,
    unit: str,
    baseline: str,
    budget: float,
) -> Recommendation:
    """Word the recommendation of a :func:`strategy_table`.

    Parameters
    ----------
    table : sequence of mapping
        The strategies' rows.
    target : Target
        The bound checked on the test rows.
    unit : str
        What cost counts (``rows``, ``cost units``, ``samples``).
    baseline : str
        The strategy accuracy losses are measured against.
    budget : float
        The budget each strategy had.

    Returns
    -------
    Recommendation
    """
    reached = [r for r in table if r["reached"]]
    if not reached:
        return _none_reached(table, target, unit=unit, baseline=baseline, budget=budget)

    def loss(r: Mapping[str, Any]) -> float:
        value = float(r["accuracy_loss"])
        return math.inf if math.isnan(value) else value

    # at equal cost, doing nothing comes first: a change must earn its place
    cheapest = min(reached, key=lambda r: (r["cost"], r["method"] != baseline, loss(r)))
    text = (
        f"Recommended: {cheapest['method']}. It reached {target} on the test rows at the "
        f"least cost: {_describe(cheapest, target, unit, baseline)}."
    )
    if cheapest["method"] == baseline and not cheapest["cost"]:
        text = (
            f"Recommended: {baseline}. The model trained on the rows you have already meets "
            f"{target} on the test rows: {_describe(cheapest, target, unit, baseline)}."
        )
    gentler = min(reached, key=lambda r: (loss(r), r["cost"]))
    if loss(gentler) < loss(cheapest) - _TIE:
        text += (
            f" If accuracy matters more: {gentler['method']} reached it too, "
            f"{_describe(gentler, target, unit, baseline)}."
        )
    return Recommendation(text=text, reached=True, method=str(cheapest["method"]))


def _none_reached(
    table: Sequence[Mapping[str, Any]],
    target: Target,
    *,
    unit: str,
    baseline: str,
    budget: float,
) -> Recommendation:
    if not table:
        return Recommendation(
            text="No strategy ran to the end: nothing to recommend.", reached=False
        )
    closest = min(table, key=lambda r: (r["shortfall"], r["cost"]))
    text = (
        f"No strategy reached {target} on the test rows (mean over seeds) within a budget of "
        f"{budget:.0f} {unit}. Closest: {closest['method']}, "
        f"{_describe(closest, target, unit, baseline)}. A larger budget, another model, more "
        "rows of the groups that are short, or a looser target may be needed."
    )
    return Recommendation(text=text, reached=False, closest=str(closest["method"]))
