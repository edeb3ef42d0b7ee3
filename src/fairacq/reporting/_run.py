"""Write one run's outputs: traces, acquisition order, plot and summary (``write_run``)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from fairacq._io import atomic_write
from fairacq.exceptions import InvalidDataError
from fairacq.reporting._labels import figure_title, metric_label
from fairacq.reporting._plots import new_figure, plot_traces, save_figure
from fairacq.reporting._summary import write_summary

if TYPE_CHECKING:
    from fairacq._trace import Trace

__all__ = ["RunReport", "write_run"]


@dataclass(frozen=True)
class RunReport:
    """What :func:`write_run` wrote.

    Attributes
    ----------
    rows : list of dict
        The summary rows (as in ``summary.json``).
    files : list of Path
        Every file written, in order.
    """

    rows: list[dict[str, Any]]
    files: list[Path] = field(default_factory=list)


def write_run(
    traces: Trace | Sequence[Trace],
    out: str | os.PathLike[str],
    *,
    method: str,
    dataset: str,
    metric: str,
    experiment: str,
    metrics: Sequence[str] = (),
    shares: str | None = None,
    order: ArrayLike | None = None,
    figure: str = "fairness.png",
    xlabel: str = "cost acquired",
    ylabel: str | None = None,
    shares_ylabel: str | None = None,
    notes: Sequence[str] = (),
    compare: Mapping[str, Trace | Sequence[Trace]] | None = None,
    panels: Sequence[str] = (),
    labels: Mapping[str, str] | None = None,
    warnings: Sequence[str] = (),
    meta: Mapping[str, Any] | None = None,
    sensitive: str | None = None,
    title: str | None = None,
) -> RunReport:
    """Write a run's traces, acquisition order, plot, ``summary.md`` and ``summary.json``.

    One :class:`~fairacq.Trace` is a single run (``fairacq acquire``); a sequence of traces
    is one trial each (``fairacq sample``).

    Parameters
    ----------
    traces : Trace or sequence of Trace
        One trace: saved as ``out/trace.parquet`` + ``trace.json``; its summary gives the
        ``initial`` (first row) and ``final`` (last row) value of ``metric`` and ``metrics``,
        plus the final ``cost``. Several traces: saved as
        ``out/traces/<method>-trial<i>.parquet`` + ``.json``; the summary gives the mean and
        standard deviation over trials of the final ``metric`` and ``metrics`` values, and the
        mean final value of every ``shares`` column.
    out : str or path-like
        Output directory (created).
    method : str
        The method's name (legend, summary rows, trace file names).
    dataset : str
        The dataset's name (summary rows).
    metric : str
        Trace column plotted against ``cost`` and summarised first.
    experiment : str
        Name written in the summary (e.g. ``"acquire-datasift-inf"``).
    metrics : sequence of str, default=()
        Further trace columns summarised (not plotted).
    shares : str or None, default=None
        Prefix of trace columns (e.g. ``"pi_"``) drawn in a second panel, one line each (the
        prefix removed from the legend), and summarised.
    order : array-like of int or None, default=None
        Acquired pool rows in order: written as ``out/acquisition_order.csv`` (columns
        ``order``, ``pool_row``).
    figure : str, default="fairness.png"
        File name of the plot in ``out``.
    xlabel : str, default="cost acquired"
        Label of the x axes.
    ylabel, shares_ylabel : str or None, default=None
        Labels of the y axes (default: the metric's name and which way is fairer, see
        :func:`~fairacq.reporting.metric_label`).
    notes : sequence of str, default=()
        Findings written under the summary's title.
    compare : mapping of str to Trace or sequence of Trace, optional
        Other methods run on the same data, seed and budget (e.g. a Random baseline): drawn
        beside ``method`` in every panel, summarised in their own rows and saved as
        ``out/baselines/<name>.parquet`` + ``.json``.
    panels : sequence of str, default=()
        Further trace columns drawn each in its own panel right of ``metric`` (e.g. the
        accuracy beside the fairness).
    labels : mapping of str to str, optional
        Column -> axis label of its panel.
    warnings : sequence of str, default=()
        Where the result is not what was asked: written first in the summary's findings and
        under ``meta.warnings`` in ``summary.json``.
    meta : mapping, optional
        Further facts for ``summary.json`` (e.g. counts per group).
    sensitive : str or None, default=None
        The column(s) the groups come from, named in the figure's title.
    title : str or None, default=None
        The figure's title; by default the data set, ``sensitive`` and ``metric`` (see
        :func:`~fairacq.reporting.figure_title`) and the x axis.

    Returns
    -------
    RunReport
        The summary rows and the files written.

    Raises
    ------
    InvalidDataError
        If ``traces`` is empty or a trace lacks ``metric``, one of ``metrics`` or ``cost``.

    Examples
    --------
    >>> import tempfile
    >>> from fairacq import TraceRecorder
    >>> rec = TraceRecorder(method="random", config={})
    >>> rec.record(cost=0.0, val_accuracy=0.70)
    >>> rec.record(cost=10.0, val_accuracy=0.75)
    >>> report = write_run(rec.finish(), tempfile.mkdtemp(), method="random",
    ...                    dataset="toy", metric="val_accuracy", experiment="acquire-random")
    >>> [(r["stage"], r["metric"], r["value"]) for r in report.rows]
    [('initial', 'val_accuracy', 0.7), ('final', 'val_accuracy', 0.75), ('final', 'cost', 10.0)]
    >>> sorted(p.name for p in report.files)
    ['fairness.png', 'summary.json', 'summary.md', 'trace.json', 'trace.parquet']
    """
    from fairacq._trace import Trace

    runs: list[Trace] = [traces] if isinstance(traces, Trace) else list(traces)
    several = not isinstance(traces, Trace)
    if not runs:
        raise InvalidDataError("write_run: no traces to write. Pass a trace or a list of them.")
    columns = list(runs[0].to_frame().columns)
    share_cols = [c for c in columns if shares is not None and c.startswith(shares)]
    needed = [metric, *metrics, *([] if several else ["cost"])]
    missing = [c for c in needed if c not in columns]
    if missing:
        raise InvalidDataError(
            f"write_run: the trace has no column {missing[0]!r} (columns: "
            f"{', '.join(columns[:10])}). Pass a metric the run recorded."
        )
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    if several:
        for i, trace in enumerate(runs):
            files += _save(trace, root / "traces" / f"{method}-trial{i}")
    else:
        files += _save(runs[0], root / "trace")
    if order is not None:
        files.append(_write_order(root / "acquisition_order.csv", order))
    others = {
        name: [t] if isinstance(t, Trace) else list(t) for name, t in (compare or {}).items()
    }
    files += _save_compared(others, root / "baselines")
    named = _axis_labels([metric, *panels], labels or {}, ylabel)
    files.append(
        _plot(
            {method: runs, **others},
            root / figure,
            metrics=[metric, *panels],
            share_cols=share_cols,
            prefix=shares or "",
            xlabel=xlabel,
            labels=named,
            shares_ylabel=shares_ylabel,
            title=title or f"{figure_title(dataset, sensitive, [metric, *panels])} by {xlabel}",
        )
    )
    rows = _rows(runs, several, dataset, method, [metric, *metrics], share_cols)
    for name, trials in others.items():
        rows += _rows(trials, len(trials) > 1, dataset, name, [metric, *metrics], [])
    md, js = write_summary(
        root,
        experiment=experiment,
        preset="custom",
        rows=rows,
        figures=[figure],
        notes=[*(f"Warning: {w}" for w in warnings), *notes],
        meta={
            **(dict(meta) if meta else {}),
            **({"warnings": list(warnings)} if warnings else {}),
        },
    )
    return RunReport(rows=rows, files=[*files, md, js])


def _axis_labels(
    columns: list[str], labels: Mapping[str, str], ylabel: str | None
) -> dict[str, str]:
    """Return each panel's y label: the caller's, else the metric and which way is fairer."""
    named = {col: labels.get(col, metric_label(col)) for col in columns}
    if ylabel:
        named[columns[0]] = ylabel
    return named


def _save_compared(others: dict[str, list[Trace]], folder: Path) -> list[Path]:
    files: list[Path] = []
    for name, trials in others.items():
        for i, trace in enumerate(trials):
            suffix = f"-trial{i}" if len(trials) > 1 else ""
            files += _save(trace, folder / f"{name}{suffix}")
    return files


def _save(trace: Trace, stem: Path) -> list[Path]:
    parquet = trace.save(stem)
    return [parquet, parquet.with_suffix(".json")]


def _write_order(path: Path, order: ArrayLike) -> Path:
    rows = np.asarray(order, dtype=np.int64).ravel().tolist()
    with atomic_write(path) as f:
        f.write("order,pool_row\n")
        f.writelines(f"{i},{row}\n" for i, row in enumerate(rows))
    return path


def _rows(
    runs: list[Trace],
    several: bool,
    dataset: str,
    method: str,
    metrics: list[str],
    share_cols: list[str],
) -> list[dict[str, Any]]:
    if several:
        return _trial_rows(runs, dataset, method, metrics, share_cols)
    return _stage_rows(runs[0], dataset, method, metrics)


def _plot(
    methods: dict[str, list[Trace]],
    path: Path,
    *,
    metrics: list[str],
    share_cols: list[str],
    prefix: str,
    xlabel: str,
    labels: dict[str, str],
    shares_ylabel: str | None,
    title: str,
) -> Path:
    n_panels = len(metrics) + (1 if share_cols else 0)
    fig = new_figure(7.0 if n_panels == 1 else 5.5 * n_panels, 4.2)
    axes = fig.subplots(1, n_panels) if n_panels > 1 else [fig.subplots()]
    for ax, col in zip(axes, metrics, strict=False):
        plot_traces(
            methods, col, ax=ax, xlabel=xlabel, ylabel=labels.get(col, col.replace("_", " "))
        )
    right = axes[-1]
    runs = next(iter(methods.values()))
    for i, col in enumerate(share_cols):
        plot_traces(
            {col.removeprefix(prefix): runs},
            col,
            ax=right,
            xlabel=xlabel,
            ylabel=shares_ylabel,
            first_colour=i,
        )
    fig.suptitle(title)
    return save_figure(fig, path)


def _stage_rows(
    trace: Trace, dataset: str, method: str, metrics: list[str]
) -> list[dict[str, Any]]:
    frame = trace.to_frame()
    rows: list[dict[str, Any]] = [
        {
            "dataset": dataset,
            "method": method,
            "metric": col,
            "stage": stage,
            "value": float(frame[col].iloc[pos]),
            "paper_value": None,
        }
        for col in metrics
        for stage, pos in (("initial", 0), ("final", -1))
    ]
    rows.append(
        {
            "dataset": dataset,
            "method": method,
            "metric": "cost",
            "stage": "final",
            "value": float(frame["cost"].iloc[-1]),
            "paper_value": None,
        }
    )
    return rows


def _trial_rows(
    runs: list[Trace], dataset: str, method: str, metrics: list[str], share_cols: list[str]
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for col in metrics:
        final = np.array([t.final(col) for t in runs], dtype=float)
        rows.append(
            {
                "dataset": dataset,
                "method": method,
                "metric": col,
                "value": float(final.mean()),
                "std": float(final.std()),
                "paper_value": None,
            }
        )
    rows += [
        {
            "dataset": dataset,
            "method": method,
            "metric": col,
            "value": float(np.mean([t.final(col) for t in runs])),
            "paper_value": None,
        }
        for col in share_cols
    ]
    return rows
