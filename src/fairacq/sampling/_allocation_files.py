"""Write an :class:`AllocationResult`'s traces and ``counts.csv`` (the figure: reporting)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from fairacq._io import atomic_write
from fairacq.sampling._allocation import AllocationResult

__all__ = ["write_allocation"]


def _save_traces(result: AllocationResult, root: Path) -> list[Path]:
    files: list[Path] = []
    runs = [(root / "traces", result.method, result.traces)]
    if result.baseline is not None:
        runs.append((root / "traces" / "baseline", result.baseline, result.baseline_traces))
    for folder, method, traces in runs:
        for i, trace in enumerate(traces):
            parquet = trace.save(folder / f"{method}-trial{i}")
            files += [parquet, parquet.with_suffix(".json")]
    return files


def _counts_csv(result: AllocationResult) -> str:
    """Return the counts as CSV: per method and group a ``trial="mean"`` row, then trials."""
    counts = result.counts()
    means = counts.groupby(["method", "group"], sort=False)[["samples", "train", "validation"]]
    mean_rows = means.mean().reset_index().assign(trial="mean")[counts.columns]
    both = pd.concat([mean_rows, counts.astype({"trial": object})], ignore_index=True)
    return str(both.to_csv(index=False, float_format="%g"))


def write_allocation(result: AllocationResult, out: str | os.PathLike[str]) -> list[Path]:
    """Write ``result``'s traces and ``counts.csv`` into ``out``.

    Parameters
    ----------
    result : AllocationResult
        What :func:`allocate_budget` returned.
    out : str or path-like
        Output folder (created).

    Returns
    -------
    list of Path
        ``traces/<method>-trial<i>.parquet`` + ``.json`` (the baseline's under
        ``traces/baseline/``), then ``counts.csv``: one row per method and group with
        ``trial`` ``"mean"`` (the mean over trials), then :meth:`AllocationResult.counts`
        (one row per method, trial and group; ``samples`` = ``train`` + ``validation``).
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    files = _save_traces(result, root)
    with atomic_write(root / "counts.csv") as f:
        f.write(_counts_csv(result))
    return [*files, root / "counts.csv"]
