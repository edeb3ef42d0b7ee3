"""What an experiment returns and how it is written to disk."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._io import write_json
from fairacq._trace import Trace
from fairacq.reporting import format_markdown_table, save_figure, write_summary
from fairacq_experiments._framework.verdict import Verdict

__all__ = ["ExperimentResult", "mean_std_row", "rows_from_mapping"]


@dataclass
class ExperimentResult:
    """Rows comparing our numbers with the paper's, plus traces, figures and notes.

    Attributes
    ----------
    experiment, preset : str
        Name and preset of the run.
    rows : list of dict
        Tidy rows (``dataset``, ``method``, ``metric``, ``value``, ``paper_value`` and any
        keys such as ``seed`` or ``budget``).
    traces : dict of str to list of Trace
        Method -> trials.
    figures : dict of str to matplotlib Figure
        File stem -> figure.
    notes : list of str
        Sentences for the summary, e.g. where a paper number is not reached and why.
    verdicts : list of Verdict
        The run's acceptance checks, kept field by field in ``summary.json``.
    tables : dict of str to pandas.DataFrame
        Heading -> a compact table shown after the notes (a paper's table beside ours).
    title : str
        Human title of the experiment.
    config : dict
        The configuration that produced the result.
    """

    experiment: str
    preset: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    traces: dict[str, list[Trace]] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    title: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def write(self, out_dir: str | os.PathLike[str], *, command: str = "") -> Path:
        """Write traces, PNG plots, ``summary.md``, ``summary.json`` and ``config.json``.

        Returns
        -------
        pathlib.Path
            The output directory.
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        self._write_traces(out / "traces")
        names = []
        for stem, fig in self.figures.items():
            name = f"{_slug(stem)}.png"
            save_figure(fig, out / name, title=self.title)
            names.append(name)
        write_json(
            out / "config.json",
            {"experiment": self.experiment, "preset": self.preset, "config": self.config},
        )
        write_summary(
            out,
            experiment=self.experiment,
            preset=self.preset,
            rows=self.rows,
            title=self.title,
            notes=self.notes,
            figures=names,
            command=command,
            meta=self.meta,
            tables={k: format_markdown_table(v) for k, v in self.tables.items()},
            verdicts=self.verdicts,
        )
        return out

    def _write_traces(self, folder: Path) -> None:
        """Write every trial's trace and remove the traces an earlier run left in ``folder``.

        A re-run with fewer seeds or methods would otherwise leave old traces beside the new
        summary. Only ``<name>.parquet`` / ``<name>.json`` pairs are removed, nothing else.
        """
        written: set[str] = set()
        for method, trials in self.traces.items():
            for i, trace in enumerate(trials):
                name = f"{_slug(method)}-trial{i}"
                trace.save(folder / name)
                written.add(name)
        if not folder.is_dir():
            return
        for stale in folder.glob("*.parquet"):
            if stale.stem not in written and stale.with_suffix(".json").exists():
                stale.unlink()
                stale.with_suffix(".json").unlink()

    def value(self, **match: Any) -> float:
        """Return the single row value matching all ``key=value`` pairs."""
        hits = [r for r in self.rows if all(r.get(k) == v for k, v in match.items())]
        if len(hits) != 1:
            raise KeyError(f"{len(hits)} rows match {match}; expected exactly one.")
        return float(hits[0]["value"])


def _slug(text: str) -> str:
    """Return a file-name stem of ``text`` with no dot, which a suffix would cut."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "item"


def rows_from_mapping(values: Mapping[str, float], **keys: Any) -> list[dict[str, Any]]:
    """One tidy row per metric with the shared ``keys``."""
    return [{**keys, "metric": m, "value": v} for m, v in values.items()]


def mean_std_row(
    values: NDArray[np.float64] | Sequence[float], paper_value: float | None = None, **keys: Any
) -> dict[str, Any]:
    """One tidy row: the ``keys``, then the mean and standard deviation of ``values``.

    Examples
    --------
    >>> mean_std_row([1.0, 3.0], method="lr", metric="acc")
    {'method': 'lr', 'metric': 'acc', 'value': 2.0, 'std': 1.0, 'paper_value': None}
    """
    return {
        **keys,
        "value": float(np.mean(values)),
        "std": float(np.std(values)),
        "paper_value": paper_value,
    }
