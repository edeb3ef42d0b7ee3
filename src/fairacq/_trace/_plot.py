"""Line plots of traces against cumulative cost, for :meth:`Trace.plot` and reporting.

The kernel draws here so that :meth:`fairacq.Trace.plot` needs no upper layer;
:func:`fairacq.reporting.plot_traces` is this function. matplotlib is imported on the first
plot, through :func:`fairacq._deps.require`, so importing the kernel does not load it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pandas as pd

from fairacq._deps import require

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["aggregate_traces", "band_label", "new_figure", "plot_traces"]


class Trace(Protocol):
    """What plotting needs of a :class:`fairacq.Trace`: its steps as a DataFrame."""

    def to_frame(self) -> pd.DataFrame:
        """Return the steps."""


def aggregate_traces(traces: Sequence[Trace], metric: str, *, x: str = "cost") -> pd.DataFrame:
    """Mean, standard deviation and count of ``metric`` at each ``x`` over several trials.

    Trials are aligned on the union of their ``x`` values; a trial that ended earlier carries
    its last value forward (a stopped run keeps the model it had).

    Returns
    -------
    pandas.DataFrame
        Columns ``x``, ``mean``, ``std``, ``n``.
    """
    series = []
    for t in traces:
        frame = t.to_frame()
        s = frame.groupby(x)[metric].last()
        series.append(s)
    grid = np.unique(np.concatenate([s.index.to_numpy(dtype=float) for s in series]))
    aligned = (
        np.column_stack([s.reindex(grid, method="ffill").to_numpy(dtype=float) for s in series])
        if series
        else np.empty((0, 0))
    )
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN step: NaN, said by n=0
        mean = np.nanmean(aligned, axis=1) if aligned.size else np.array([])
        std = np.nanstd(aligned, axis=1) if aligned.size else np.array([])
    n = (~np.isnan(aligned)).sum(axis=1) if aligned.size else np.array([])
    return pd.DataFrame({"x": grid, "mean": mean, "std": std, "n": n})


def band_label(n: int, *, unit: str = "trials", kind: str = "std") -> str:
    """Return the words that say what a shaded band spans, for a legend or caption.

    Parameters
    ----------
    n : int
        Number of runs the band summarises.
    unit : str, default="trials"
        What the runs are ("trials", "seeds", "folds").
    kind : {"std", "iqr"}, default="std"
        ``"std"``: the mean plus and minus one standard deviation (:func:`plot_traces`);
        ``"iqr"``: the 25th to 75th percentile around the median.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``kind`` is neither ``"std"`` nor ``"iqr"``.

    Examples
    --------
    >>> band_label(5, unit="seeds")
    'mean of 5 seeds, band ± 1 std'
    """
    if kind == "std":
        return f"mean of {n} {unit}, band ± 1 std"
    if kind == "iqr":
        return f"median of {n} {unit}, band 25th-75th percentile"
    raise ValueError(f"band_label: kind must be 'std' or 'iqr'. Got {kind!r}.")


def new_figure(width: float = 6.4, height: float = 4.0) -> Figure:
    """Create a figure that needs no GUI backend (drawn with Agg when saved)."""
    figure = require("matplotlib.figure", purpose="plots")
    fig: Figure = figure.Figure(figsize=(width, height), layout="constrained")
    return fig


def plot_traces(
    traces: Mapping[str, Sequence[Trace]],
    metric: str,
    *,
    x: str = "cost",
    ax: Axes | None = None,
    reference: float | None = None,
    reference_label: str = "paper",
    title: str | None = None,
    ylabel: str | None = None,
    xlabel: str | None = None,
    first_colour: int = 0,
    limits: tuple[float, float] | None = None,
    unit: str = "trials",
) -> Axes:
    """Plot ``metric`` against ``x`` with one line per method.

    Several traces of one method are drawn as their mean with a band of one standard
    deviation, and the legend says so (``"aopt (mean of 5 trials, band ± 1 std)"``). The
    paper's value, when given, is a dashed horizontal line.

    Parameters
    ----------
    traces : mapping of str to sequence of Trace
        Method name -> its trials.
    metric : str
        Column to plot.
    x : str, default="cost"
        Column on the horizontal axis.
    ax : matplotlib Axes or None, default=None
        Where to draw; a new figure when None.
    reference : float or None, default=None
        The paper's reported value.
    first_colour : int, default=0
        Index of the first line's colour (to continue a palette across calls on one axis).
    limits : (float, float) or None, default=None
        The values ``metric`` can take (``(0, 1)`` for accuracies and shares): the spread
        band is clipped to them. None leaves it unclipped.
    unit : str, default="trials"
        What one trace of a method is ("trials", "seeds"), named in the legend.

    Returns
    -------
    matplotlib.axes.Axes
    """
    matplotlib = require("matplotlib", purpose="plots")
    if ax is None:
        ax = new_figure().subplots()
    colours = matplotlib.colormaps["tab10"]
    for i, (method, trials) in enumerate(traces.items()):
        if not trials:
            continue
        agg = aggregate_traces(trials, metric, x=x)
        colour = colours((first_colour + i) % 10)
        n = len(trials)
        label = method if n == 1 else f"{method} ({band_label(n, unit=unit)})"
        ax.plot(agg["x"], agg["mean"], color=colour, label=label, linewidth=2.0)
        if len(trials) > 1:
            low, high = agg["mean"] - agg["std"], agg["mean"] + agg["std"]
            if limits is not None:
                low, high = low.clip(*limits), high.clip(*limits)
            ax.fill_between(
                agg["x"],
                low,
                high,
                color=colour,
                alpha=0.18,
                linewidth=0,
            )
    if reference is not None:
        ax.axhline(reference, color="0.25", linestyle="--", linewidth=1.2, label=reference_label)
    ax.set_xlabel(xlabel or x.replace("_", " "))
    ax.set_ylabel(ylabel or metric.replace("_", " "))
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(frameon=False)
    return ax
