"""The recommendation: the cheapest strategy meeting the target without losing too much accuracy.

Seed by seed, a strategy meets both when it meets the fairness target (its model not one-class)
and loses at most ``max_accuracy_loss`` accuracy against the baseline. Among the strategies that
meet both in more than half the seeds, and whose mean loss is within the tolerance, the cheapest
is recommended (ties: the smaller loss; at equal cost, doing nothing first). The text also names
the most accurate strategy meeting the target, those that met it only by losing more accuracy
than allowed, models that predicted one class, and whether the seeds are enough to tell the
recommended strategy from the runner-up (:func:`~fairacq.compare._evidence.weigh_evidence`).
Or, when none meets both, it says so and names the one that came closest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairacq.compare._evidence import MAX_SEEDS, Evidence, weigh_evidence
from fairacq.compare._front import fairness_axis
from fairacq.compare._target import Target

__all__ = ["Recommendation", "recommend"]

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Recommendation:
    """What a comparison recommends.

    Attributes
    ----------
    text : str
        The recommendation in words.
    reached : bool
        Whether some strategy met the target within the accuracy tolerance in most seeds.
    method : str or None
        The one recommended: the cheapest of those (ties: the smaller accuracy loss).
    closest : str or None
        When none did, the one that came closest.
    most_accurate : str or None
        The most accurate strategy meeting the target in most seeds, whatever its loss.
    too_lossy : tuple of str
        Strategies that met the target in most seeds only by losing more accuracy than allowed.
    degenerate : tuple of str
        Strategies whose model predicted one class on the test rows in most seeds.
    evidence : Evidence or None
        Whether the seeds tell the recommended strategy from the runner-up.
    max_accuracy_loss : float
        The accuracy tolerance used.
    """

    text: str
    reached: bool
    method: str | None = None
    closest: str | None = None
    most_accurate: str | None = None
    too_lossy: tuple[str, ...] = ()
    degenerate: tuple[str, ...] = ()
    evidence: Evidence | None = None
    max_accuracy_loss: float = 0.02


def _points(loss: float) -> str:
    if math.isnan(loss):
        return "accuracy change unknown"
    if abs(loss) < 0.0005:
        return "no accuracy lost"
    verb = "losing" if loss > 0 else "gaining"
    return f"{verb} {abs(loss) * 100:.1f} accuracy points"


def _describe(row: Row, target: Target, unit: str, baseline: str) -> str:
    metric = target.metric
    low, high = row["met_interval"]
    cost = f"{row['cost']:.0f} {unit}" if row["cost"] else "no data bought"
    return (
        f"{target.label} {row[metric]:.3f} ± {row[f'{metric}_std']:.3f} (met in "
        f"{row['met_seeds']}/{row['seeds']} seeds, 95 % interval {low * 100:.0f}-"
        f"{high * 100:.0f} %), accuracy {row['accuracy']:.3f} "
        f"({_points(row['accuracy_loss'])} against {baseline}), {cost}"
    )


def _loss(row: Row) -> float:
    value = float(row["accuracy_loss"])
    return math.inf if math.isnan(value) else value


def _known(value: float) -> float:
    """Return a value to rank by, an unknown (NaN) one ranking last."""
    value = float(value)
    return -math.inf if math.isnan(value) else value


def _degenerate(row: Row, baseline: str) -> bool:
    """One class in most seeds (the baseline: in any seed, so it is never called fair)."""
    seeds = int(row["one_class_seeds"])
    return seeds > 0 if row["method"] == baseline else 2 * seeds > int(row["seeds"])


def _usable(table: Sequence[Row], baseline: str) -> list[Row]:
    return [r for r in table if r.get("same_as") is None and not _degenerate(r, baseline)]


def _candidates(usable: Sequence[Row], baseline: str) -> list[Row]:
    """Those meeting both in most seeds, best first: cost, doing nothing, then accuracy loss."""
    meet = [r for r in usable if 2 * int(r["ok_seeds"]) > int(r["seeds"]) and r["within_loss"]]
    return sorted(meet, key=lambda r: (r["cost"], r["method"] != baseline, _loss(r)))


def _runner_up(chosen: Row, candidates: Sequence[Row], usable: Sequence[Row]) -> Row | None:
    """Return the next candidate, else the strategy that came closest to meeting both."""
    others = [r for r in candidates if r is not chosen]
    if others:
        return others[0]
    rest = [r for r in usable if r is not chosen]
    return min(rest, key=_closeness) if rest else None


def _closeness(row: Row) -> tuple[float, ...]:
    return (-int(row["ok_seeds"]), row["shortfall"], _loss(row), row["cost"])


def recommend(
    table: Sequence[Row],
    target: Target,
    *,
    unit: str,
    baseline: str,
    budget: float,
    max_accuracy_loss: float = 0.02,
) -> Recommendation:
    """Word the recommendation of a :func:`strategy_table`.

    Parameters
    ----------
    table : sequence of mapping
        The strategies' rows (:func:`fairacq.compare.strategy_table`, built with the same
        ``max_accuracy_loss``).
    target : Target
        The bound checked on the test rows.
    unit : str
        What cost counts (``rows``, ``cost units``, ``samples``).
    baseline : str
        The strategy accuracy losses are measured against.
    budget : float
        The budget each strategy had.
    max_accuracy_loss : float, default=0.02
        The accuracy a recommended strategy may lose against the baseline.

    Returns
    -------
    Recommendation
        Never a strategy whose mean loss exceeds ``max_accuracy_loss``, one whose model
        predicted one class in most seeds, or a baseline that predicted one class in any.
    """
    usable = _usable(table, baseline)
    candidates = _candidates(usable, baseline)
    met = [r for r in usable if r["reached"]]
    lossy = [r for r in met if not r["within_loss"]]
    degenerate = [r for r in table if r.get("same_as") is None and _degenerate(r, baseline)]
    words = _Words(target, unit, baseline, budget, max_accuracy_loss)
    extra = words.lossy(lossy) + words.degenerate(degenerate)
    common: dict[str, Any] = {
        "too_lossy": tuple(str(r["method"]) for r in lossy),
        "degenerate": tuple(str(r["method"]) for r in degenerate),
        "max_accuracy_loss": max_accuracy_loss,
    }
    if not candidates:
        closest = _closest(usable)
        text = words.none_met(closest, table) + extra
        if closest is None:
            return Recommendation(text=text, reached=False, **common)
        metric, lower = fairness_axis(target)
        evidence = weigh_evidence(closest, None, metric=metric, lower_is_better=lower)
        text += words.evidence(evidence, closest)
        name = str(closest["method"])
        return Recommendation(text, False, closest=name, evidence=evidence, **common)
    chosen = candidates[0]
    metric, lower = fairness_axis(target)
    evidence = weigh_evidence(
        chosen, _runner_up(chosen, candidates, usable), metric=metric, lower_is_better=lower
    )
    accurate = max(met, key=lambda r: (_known(r["accuracy"]), -r["cost"]))
    text = words.chosen(chosen, table) + words.accurate(accurate, chosen) + extra
    text += words.evidence(evidence, chosen)
    return Recommendation(
        text=text, reached=True, method=str(chosen["method"]),
        most_accurate=str(accurate["method"]), evidence=evidence, **common,
    )  # fmt: skip


def _closest(usable: Sequence[Row]) -> Row | None:
    if not usable:
        return None
    return min(usable, key=lambda r: (not r["within_loss"], r["shortfall"], r["cost"]))


@dataclass(frozen=True)
class _Words:
    """The sentences of a recommendation."""

    target: Target
    unit: str
    baseline: str
    budget: float
    tolerance: float

    def _describe(self, row: Row) -> str:
        return _describe(row, self.target, self.unit, self.baseline)

    def _allowed(self) -> str:
        return f"{self.tolerance * 100:.1f} accuracy points"

    def chosen(self, row: Row, table: Sequence[Row]) -> str:
        same = [str(r["method"]) for r in table if r.get("same_as") == row["method"]]
        also = f" ({_join(same)} gave the same results.)" if same else ""
        if row["method"] == self.baseline and not row["cost"]:
            return (
                f"Recommended: {self.baseline}. The model trained on the rows you have already "
                f"meets {self.target} on the test rows: {self._describe(row)}.{also}"
            )
        return (
            f"Recommended: {row['method']}. It is the cheapest strategy that met "
            f"{self.target} on the test rows in most seeds while losing at most "
            f"{self._allowed()} against {self.baseline}: {self._describe(row)}.{also}"
        )

    def accurate(self, row: Row, chosen: Row) -> str:
        if row is chosen or not _known(row["accuracy"]) > _known(chosen["accuracy"]):
            return ""
        return f" The most accurate strategy meeting the target: {row['method']}, " + (
            f"{self._describe(row)}."
        )

    def lossy(self, rows: Sequence[Row]) -> str:
        if not rows:
            return ""
        known = [r for r in rows if not math.isnan(float(r["accuracy_loss"]))]
        unknown = [str(r["method"]) for r in rows if r not in known]
        text = (
            f" {_join(unknown)} reached it, but its accuracy change is unknown (no accuracy in "
            "some seeds), so it is not recommended."
            if unknown
            else ""
        )
        if not known:
            return text
        names = _join([str(r["method"]) for r in known])
        losses = _join([f"{_loss(r) * 100:.1f}" for r in known])
        return text + (
            f" {names} reached it only by losing {losses} accuracy points, more than the "
            f"{self.tolerance * 100:.1f} you allow (--max-accuracy-loss)."
        )

    def degenerate(self, rows: Sequence[Row]) -> str:
        parts = []
        for row in rows:
            seeds = f"{row['one_class_seeds']}/{row['seeds']} seeds"
            if row["method"] == self.baseline:
                parts.append(
                    f" The model trained on the rows you have ({self.baseline}) predicts one "
                    f"class for every test row in {seeds}, so its {self.target.label} of "
                    f"{row[self.target.metric]:.3f} means nothing about fairness: the model "
                    "is constant, not fair (accuracy losses are still measured against it)."
                )
            else:
                parts.append(
                    f" {row['method']} was left out: its model predicts one class for every "
                    f"test row in {seeds}."
                )
        return "".join(parts)

    def evidence(self, evidence: Evidence, row: Row) -> str:
        if not evidence.thin:
            return ""
        n, needed = int(row["seeds"]), evidence.seeds_needed
        why = f"only {n} seed{'s' if n != 1 else ''}"
        if n >= 3 and evidence.runner_up is not None:
            why = (
                f"{row['method']} is not ahead of {evidence.runner_up} by more than the spread "
                "over seeds"
            )
        if needed is not None and needed >= MAX_SEEDS:
            return (
                f" The evidence is thin: {why}, and the two are so close that even "
                f"{MAX_SEEDS} seeds may not tell them apart; either will do."
            )
        return (
            f" The evidence is thin: {why}; about {needed} seeds would settle it "
            f"(--seeds {needed})."
        )

    def none_met(self, closest: Row | None, table: Sequence[Row]) -> str:
        if not table:
            return "No strategy ran to the end: nothing to recommend."
        text = (
            f"No strategy met {self.target} on the test rows while losing at most "
            f"{self._allowed()} against {self.baseline}, in most seeds, within a budget of "
            f"{self.budget:.0f} {self.unit}."
        )
        if closest is not None:
            text += f" Closest: {closest['method']}, {self._describe(closest)}."
        nearest = min(table, key=lambda r: (r["shortfall"], r["cost"]))
        if closest is not None and nearest["shortfall"] < closest["shortfall"]:
            text += (
                f" Closest to the target whatever the accuracy: {nearest['method']}, "
                f"{self._describe(nearest)}."
            )
        return text + (
            " A larger budget, another model, more rows of the groups that are short, or a "
            "looser target or accuracy tolerance may be needed."
        )


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
