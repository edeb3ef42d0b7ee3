"""How many samples a sampler drew from each group, over trials, beside a baseline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fairacq._result import Result
from fairacq._trace import Trace
from fairacq.sampling.allocation._recommend import RecommendedCounts, recommend_counts
from fairacq.sampling.allocation._versus_baseline import (
    BaselineVerdict,
    compare_to_baseline,
    trials_are_paired,
)

__all__ = ["AllocationResult"]


def _trial_counts(
    trace: Trace, method: str, trial: int, groups: list[str]
) -> list[dict[str, Any]]:
    """Return the samples drawn per group in one trial (training plus paired validation)."""
    paired = trace.meta.get("validation", "paired") == "paired"
    rows = []
    for group in groups:
        train = int(trace.final(f"n_{group}"))
        validation = train if paired else 0
        rows.append(
            {
                "method": method,
                "trial": trial,
                "group": group,
                "samples": train + validation,
                "train": train,
                "validation": validation,
            }
        )
    return rows


def _finals(traces: list[Trace], column: str) -> np.ndarray:
    return np.array([float(t.final(column)) for t in traces], dtype=float)


def _plain(value: Any) -> Any:
    """Return ``value`` with every NaN float replaced by None (JSON has no NaN)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def _mean_std(values: np.ndarray) -> tuple[float, float]:
    if values.size == 0:
        return float("nan"), float("nan")
    return float(values.mean()), float(values.std())


@dataclass(frozen=True)
class AllocationResult(Result):
    """The answer of :func:`allocate_budget`: samples per group, and what they bought.

    :meth:`to_frame` gives one row per group (rows in the table, samples and test accuracy
    per method), :meth:`recommended` the counts to act on. Saving: ``result.save(folder)``
    writes every field, the traces included, and ``AllocationResult.load(folder)`` reads
    it back.

    Attributes
    ----------
    method : str
        The sampler's name.
    budget : int
        Samples each trial could draw (training plus paired validation draws).
    groups : list of str
        The groups, in code order.
    available : dict of str to int
        Rows of each group in the table (before the test split is held out).
    traces : list of Trace
        One per trial of ``method``.
    baseline : str or None
        The comparison sampler (``"uniform"``), run on the same seeds, budget, data and
        learner; None when not run.
    baseline_traces : list of Trace
        One per trial of ``baseline``.
    """

    method: str
    budget: int
    groups: list[str]
    available: dict[str, int]
    traces: list[Trace]
    baseline: str | None = None
    baseline_traces: list[Trace] = field(default_factory=list)

    def counts(self) -> pd.DataFrame:
        """Return the samples drawn from each group in each trial, by method.

        Returns
        -------
        pandas.DataFrame
            Columns ``method``, ``trial``, ``group``, ``samples`` (drawn from the group:
            ``train`` plus its ``validation`` draws), ``train``, ``validation``.
        """
        rows = [
            row
            for method, traces in self.runs
            for i, trace in enumerate(traces)
            for row in _trial_counts(trace, method, i, self.groups)
        ]
        return pd.DataFrame(rows)

    @property
    def runs(self) -> list[tuple[str, list[Trace]]]:
        """``(method, traces)`` of the method, then of the baseline when it ran."""
        runs = [(self.method, self.traces)]
        if self.baseline is not None and self.baseline_traces:
            runs.append((self.baseline, self.baseline_traces))
        return runs

    def to_frame(self) -> pd.DataFrame:
        """One row per group: rows in the table, samples per method and test accuracy.

        Returns
        -------
        pandas.DataFrame
            ``group``, ``rows``, then per method ``<m> samples`` (mean over trials),
            ``<m> samples std``, ``<m> share`` and ``<m> test accuracy`` (mean over trials).
        """
        counts = self.counts()
        out = pd.DataFrame({"group": self.groups})
        out["rows"] = [self.available.get(g, 0) for g in self.groups]
        for method, traces in self.runs:
            mine = counts[counts["method"] == method].groupby("group")["samples"]
            mean = mine.mean().reindex(self.groups).to_numpy(dtype=float)
            out[f"{method} samples"] = mean
            out[f"{method} samples std"] = mine.std(ddof=0).reindex(self.groups).to_numpy()
            out[f"{method} share"] = mean / mean.sum()
            out[f"{method} test accuracy"] = [
                float(np.nanmean(_finals(traces, f"test_acc_{g}"))) for g in self.groups
            ]
        return out

    def _caption(self) -> str:
        base = f" beside {self.baseline}" if self.baseline and self.baseline_traces else ""
        return (
            f"{self.method}{base}: {self.budget} samples over {len(self.groups)} groups, "
            f"{len(self.traces)} trials"
        )

    def recommended(self, method: str | None = None) -> RecommendedCounts:
        """Return one count per group for ``method`` (default: the sampler) to act on.

        The median over trials of each group's samples, with the 10th-90th percentile range;
        scaled and rounded to the budget by the largest-remainder rule when the medians do
        not add up to it (:func:`~fairacq.sampling.recommend_counts`).
        """
        counts = self.counts()
        mine = counts[counts["method"] == (method or self.method)]
        matrix = mine.pivot(index="trial", columns="group", values="samples")[self.groups]
        spent = int(np.median(matrix.to_numpy().sum(axis=1)))  # the budget, unless b0 > 1
        return recommend_counts(matrix.to_numpy(), spent)

    def verdict(self) -> BaselineVerdict | None:
        """Whether the sampler beats the baseline's worst-group accuracy (None: no baseline).

        Paired by trial when both ran on the same seeds (:func:`trials_are_paired`).
        """
        if self.baseline is None or not self.baseline_traces:
            return None
        return compare_to_baseline(
            _finals(self.traces, "test_worst_acc"),
            _finals(self.baseline_traces, "test_worst_acc"),
            paired=trials_are_paired(self.traces, self.baseline_traces),
            method=self.method,
            baseline=self.baseline,
        )

    def worst_group_accuracy(self) -> dict[str, dict[str, Any]]:
        """Return the final worst-group test accuracy per method (mean, std, per trial)."""
        out: dict[str, dict[str, Any]] = {}
        for method, traces in self.runs:
            values = _finals(traces, "test_worst_acc")
            mean, std = _mean_std(values)
            out[method] = {"mean": mean, "std": std, "per_trial": values.tolist()}
        return out

    def to_dict(self) -> dict[str, Any]:
        """Return the plain JSON form: per group and method the recommended samples.

        Per group and method: ``recommended`` (:meth:`recommended`), its ``interval`` (10th
        and 90th percentile over trials), the median, mean, std and per-trial samples and
        the test accuracy; then ``recommended_rounded`` (whether the medians were rounded to
        the budget) and ``verdict`` (:meth:`verdict`, None without a baseline). NaN (a group
        without test rows) becomes None.
        """
        counts = self.counts()
        rec = {method: self.recommended(method) for method, _ in self.runs}
        verdict = self.verdict()
        groups = []
        for i, row in enumerate(self.to_frame().to_dict("records")):
            entry: dict[str, Any] = {"group": row["group"], "rows": int(row["rows"])}
            for method, _ in self.runs:
                trials = counts[(counts["method"] == method) & (counts["group"] == row["group"])]
                entry[method] = {
                    "recommended": int(rec[method].counts[i]),
                    "interval": [int(rec[method].low[i]), int(rec[method].high[i])],
                    "samples_median": float(rec[method].median[i]),
                    "samples_mean": float(row[f"{method} samples"]),
                    "samples_std": float(row[f"{method} samples std"]),
                    "share": float(row[f"{method} share"]),
                    "samples_per_trial": trials["samples"].astype(int).tolist(),
                    "train_per_trial": trials["train"].astype(int).tolist(),
                    "test_accuracy": float(row[f"{method} test accuracy"]),
                }
            groups.append(entry)
        out: dict[str, Any] = _plain(
            {
                "method": self.method,
                "baseline": self.baseline if self.baseline_traces else None,
                "budget": self.budget,
                "trials": len(self.traces),
                "groups": groups,
                "worst_group_accuracy": self.worst_group_accuracy(),
                "recommended_rounded": rec[self.method].rounded,
                "verdict": None if verdict is None else verdict.to_dict(),
            }
        )
        return out
