"""Write an :class:`AllocationResult`'s traces and ``counts.csv`` (the figure: reporting)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from fairacq._io import atomic_write
from fairacq.sampling.allocation._allocation import AllocationResult

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


def _recommended_rows(result: AllocationResult) -> pd.DataFrame:
    """One ``trial="recommended"`` row per method and group, with ``low`` and ``high``."""
    frames = []
    for method, _ in result.runs:
        rec = result.recommended(method)
        frames.append(
            pd.DataFrame(
                {
                    "method": method,
                    "trial": "recommended",
                    "group": result.groups,
                    "samples": rec.counts,
                    "low": rec.low,
                    "high": rec.high,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _counts_csv(result: AllocationResult) -> str:
    """Return the counts as CSV: the recommended rows first, then one row per trial."""
    counts = result.counts().astype({"trial": object})
    both = pd.concat([_recommended_rows(result), counts], ignore_index=True)
    columns = ["method", "trial", "group", "samples", "low", "high", "train", "validation"]
    return str(both[columns].to_csv(index=False, float_format="%g"))


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
        ``trial`` ``"recommended"`` (:meth:`AllocationResult.recommended`: ``samples`` the
        count to collect, ``low`` and ``high`` the 10th and 90th percentile over trials),
        then :meth:`AllocationResult.counts` (one row per method, trial and group;
        ``samples`` = ``train`` + ``validation``; ``low`` and ``high`` empty).
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    files = _save_traces(result, root)
    with atomic_write(root / "counts.csv") as f:
        f.write(_counts_csv(result))
    return [*files, root / "counts.csv"]
