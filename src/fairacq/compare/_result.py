"""What a comparison returns: every run, the strategies' table, the recommendation."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from fairacq._result import Result
from fairacq._trace import Trace
from fairacq.compare._noise import floor_warning, summarise_floor
from fairacq.compare._plan import Plan
from fairacq.compare._recommend import Recommendation, recommend
from fairacq.compare._table import strategy_table
from fairacq.compare._target import Target

__all__ = ["CompareResult"]


def _plain(value: Any) -> Any:
    """``value`` with NaN and infinite floats as None (JSON has neither)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _recommendation(rec: Recommendation) -> dict[str, Any]:
    evidence = rec.evidence
    return {
        "text": rec.text,
        "reached": rec.reached,
        "method": rec.method,
        "closest": rec.closest,
        "most_accurate": rec.most_accurate,
        "too_lossy": list(rec.too_lossy),
        "one_class": list(rec.degenerate),
        "max_accuracy_loss": rec.max_accuracy_loss,
        "evidence": None
        if evidence is None
        else {
            "thin": evidence.thin,
            "seeds_needed": evidence.seeds_needed,
            "runner_up": evidence.runner_up,
        },
    }


@dataclass(frozen=True)
class CompareResult(Result):
    """The back-test of every applicable strategy on a user's own labelled table.

    :meth:`to_frame` gives one row per strategy (mean and spread over seeds), and
    :attr:`recommendation` the strategy to use. Saving: ``result.save(folder)`` writes every
    field, the traces included, and ``CompareResult.load(folder)`` reads it back (the
    strategies' table and the recommendation are recomputed from the runs).

    Attributes
    ----------
    question : str
        ``"rows"`` (which pool rows to buy) or ``"groups"`` (how many rows of each group).
    target : Target
        The bound checked on the test rows.
    records : list of dict
        One per run (strategy x seed): ``method``, ``kind``, ``seed``, ``cost``,
        ``seconds``, the metrics on the test rows.
    plan : Plan
        The strategies run, and those skipped with the reason.
    metrics : tuple of str
        The metrics measured.
    baseline : str
        The reference of the accuracy losses (``no action`` for rows, ``uniform`` for groups).
    unit : str
        What cost counts.
    budget : float
        The budget each strategy had (the first seed's, for a share of a cost column).
    config : dict
        The settings, JSON-ready.
    dataset : str
        The table's name.
    sensitive : str
        The group column(s) the groups come from (``"district"``, ``"race, sex"``).
    failures, notes : list of str
        Runs that raised; distinct warnings raised inside the runs.
    traces : dict of str to list of Trace
        Acquisition methods' traces per seed (rows question).
    elapsed_s : float
        Wall time of the comparison.
    max_accuracy_loss : float
        The accuracy a recommended strategy may lose against the baseline (0.02: two points).
    """

    question: str
    target: Target
    records: list[dict[str, Any]]
    plan: Plan
    metrics: tuple[str, ...]
    baseline: str
    unit: str
    budget: float
    config: dict[str, Any]
    dataset: str = "table"
    sensitive: str = "group"
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    traces: dict[str, list[Trace]] = field(default_factory=dict)
    elapsed_s: float = 0.0
    max_accuracy_loss: float = 0.02

    @cached_property
    def _rows(self) -> list[dict[str, Any]]:
        """One dict per strategy (see :func:`fairacq.compare.strategy_table`)."""
        return strategy_table(
            self.records,
            self.target,
            self.metrics,
            self.baseline,
            max_accuracy_loss=self.max_accuracy_loss,
        )

    @cached_property
    def recommendation(self) -> Recommendation:
        """The cheapest strategy meeting the target within the accuracy tolerance, or none."""
        return recommend(
            self._rows,
            self.target,
            unit=self.unit,
            baseline=self.baseline,
            budget=self.budget,
            max_accuracy_loss=self.max_accuracy_loss,
        )

    def to_frame(self) -> pd.DataFrame:
        """Return one row per strategy, in the order they ran: cost, metrics, target met.

        Returns
        -------
        pandas.DataFrame
            The columns of :func:`~fairacq.compare.strategy_table` (``method``, ``kind``,
            ``seeds``, ``cost``, each metric and its spread, ``met_seeds``,
            ``accuracy_loss``, ``pareto``, ...).
        """
        return pd.DataFrame(self._rows)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (``summary.json`` adds the version and timing to it)."""
        rec = self.recommendation
        out: dict[str, Any] = _plain(
            {
                "question": self.question,
                "dataset": self.dataset,
                "sensitive": self.sensitive,
                "target": {
                    "text": str(self.target),
                    "metric": self.target.metric,
                    "op": self.target.op,
                    "value": self.target.value,
                },
                "recommendation": _recommendation(rec),
                "baseline": self.baseline,
                "unit": self.unit,
                "budget": self.budget,
                "rows": self._rows,
                "runs": self.records,
                "skipped": dict(self.plan.skipped),
                "failures": list(self.failures),
                "noise_floor": self.noise_floor,
                "warnings": [*self.one_class_warnings(), *self.floor_warnings(), *self.notes],
                "config": self.config,
                "elapsed_s": round(self.elapsed_s, 3),
            }
        )
        return out

    def one_class_warnings(self) -> list[str]:
        """Return a warning for each strategy whose model predicted one class (never fair)."""
        rows = {r["method"]: r for r in self._rows}
        return [
            f"{name}: its model predicts one class for every test row in "
            f"{rows[name]['one_class_seeds']}/{rows[name]['seeds']} seeds, so its fairness "
            "gaps are zero by construction and say nothing about fairness; it is never "
            "recommended. Check the label balance (--positive), the features or the model."
            for name in self.recommendation.degenerate
        ]

    @cached_property
    def noise_floor(self) -> dict[str, Any] | None:
        """The gap an exactly fair rule shows on the test rows, or None for other targets.

        For a demographic parity or equal opportunity target: ``mean`` and ``std`` of that
        gap (:func:`fairacq.metrics.gap_noise_floor` of each seed's test group sizes, at the
        baseline's share of positive predictions; averaged over seeds), ``test_rows``,
        ``rate`` and ``seeds``.
        """
        return summarise_floor(self.records, self.baseline)

    def floor_warnings(self) -> list[str]:
        """Return one warning when the target is within :attr:`noise_floor`, else none."""
        text = floor_warning(
            self.target, self.noise_floor, baseline=self.baseline, question=self.question
        )
        return [] if text is None else [text]

    def to_html(self) -> str:
        """Return the whole report as one self-contained HTML page (figures inline)."""
        from fairacq.compare._html import report_page

        return report_page(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: the recommendation, the figure and the table."""
        from fairacq.compare._html import report_body

        return f'<div class="fairacq-compare">{report_body(self)}</div>'
