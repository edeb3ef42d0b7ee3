"""Trade-off plots: a metric against a knob with median and quartiles, and AUC-disparity fronts.

Bakker et al.'s Fig. 2 in two kinds of panel: (a, b) disparity or AUC against ``1 - gamma`` with
the median over folds as a line and the first/third quartiles as a band, one line per
adversarial reward; (c) the AUC-disparity plane, each method's points faint and its Pareto
front as a staircase (the best AUC reachable within each disparity budget), with the
full-feature classifier as a black square.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fairacq.metrics import pareto_front
from fairacq.reporting._plots import band_label, new_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_median_band", "plot_pareto_fronts"]


def _tidy(
    ax: Axes, xlabel: str, ylabel: str, title: str | None, *, legend_outside: bool = False
) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if legend_outside:  # beside the axes: a long legend then covers no point
        ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    else:
        ax.legend(frameon=False, fontsize=8)


def plot_median_band(
    frame: pd.DataFrame,
    x: str,
    y: str,
    *,
    by: str | None = None,
    ax: Axes | None = None,
    reference: float | None = None,
    reference_label: str = "full-feature classifier",
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    unit: str = "folds",
) -> Axes:
    """Plot the median of ``y`` against ``x`` with its interquartile band, per series.

    The legend says what the band spans (``"ce (median of 5 folds, band 25th-75th
    percentile)"``).

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy rows, e.g. one per (reward, gamma, fold).
    x, y : str
        Columns on the horizontal and vertical axes; rows sharing ``x`` are summarised.
    by : str or None, default=None
        Column naming the series (one line each), e.g. ``"reward"``.
    ax : matplotlib Axes or None, default=None
        Where to draw; a new figure when None.
    reference : float or None, default=None
        A horizontal dotted line, e.g. the full-feature classifier's median.
    reference_label : str, default="full-feature classifier"
        Its legend entry.
    xlabel, ylabel : str or None, default=None
        Axis labels (default: the column names); say which way is fairer.
    title : str or None, default=None
        Axes title: name the data set, the sensitive attribute and the metric.
    unit : str, default="folds"
        What the rows sharing an ``x`` are, named in the legend with the band.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        ax = new_figure().subplots()
    colours = matplotlib.colormaps["tab10"]
    groups = [(None, frame)] if by is None else list(frame.groupby(by, sort=True))
    for i, (name, part) in enumerate(groups):
        stats = part.groupby(x)[y].quantile(np.array([0.25, 0.5, 0.75])).unstack().sort_index()
        colour = colours(i % 10)
        n = int(part.groupby(x)[y].size().max())
        band = f" ({band_label(n, unit=unit, kind='iqr')})" if n > 1 else ""
        label = ("all" if name is None else str(name)) + band
        xs = stats.index.to_numpy(dtype=float)
        ax.plot(xs, stats[0.5], color=colour, marker="o", markersize=4, linewidth=2, label=label)
        if n > 1:
            ax.fill_between(xs, stats[0.25], stats[0.75], color=colour, alpha=0.2, linewidth=0)
    if reference is not None:
        ax.axhline(reference, color="black", linestyle=":", linewidth=1.2, label=reference_label)
    _tidy(ax, xlabel or x, ylabel or y, title)
    return ax


def plot_pareto_fronts(
    points: Mapping[str, tuple[ArrayLike, ArrayLike]],
    *,
    ax: Axes | None = None,
    reference: tuple[float, float] | None = None,
    reference_label: str = "full-feature classifier",
    extra: Mapping[str, tuple[float, float]] | None = None,
    target: tuple[float, float] | None = None,
    target_label: str = "target",
    title: str | None = None,
    xlabel: str = "demographic disparity between the groups (lower is fairer)",
    ylabel: str = "AUC (higher is better)",
) -> Axes:
    """Draw each method's (disparity, AUC) points and its Pareto front as a staircase.

    Parameters
    ----------
    points : mapping of str to (auc, disparity)
        Method name -> arrays of its points' AUC and disparity.
    ax : matplotlib Axes or None, default=None
        Where to draw; a new figure when None.
    reference : (float, float) or None, default=None
        ``(auc, disparity)`` of the full-feature classifier, drawn as a black square.
    extra : mapping of str to (float, float) or None, default=None
        Further single baselines ``name -> (auc, disparity)``, drawn as hollow markers.
    target : (float, float) or None, default=None
        ``(least AUC, largest disparity)`` of a goal, shaded as the region of the plane
        that meets it (e.g. AUC within 0.05 of the black square at a third of its
        disparity), so one sees at a glance which points reach it.
    target_label : str, default="target"
        Legend entry of the shaded region.
    title : str or None, default=None
        Axes title: name the data set, the sensitive attribute and the metric.
    xlabel, ylabel : str
        Axis labels, each saying which way is fairer or better.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        ax = new_figure().subplots()
    colours = matplotlib.colormaps["tab10"]
    right = _right_edge(points, reference)
    for i, (name, (auc, disp)) in enumerate(points.items()):
        _draw_front(ax, name, auc, disp, colours(i % 10), right)
    _draw_baselines(ax, extra or {}, reference, reference_label)
    if target is not None:
        _shade_target(ax, target, target_label, right)
    ax.set_xlim(left=-0.02 * right, right=right)  # a point at disparity 0 stays visible
    _tidy(ax, xlabel, ylabel, title, legend_outside=True)
    return ax


def _right_edge(
    points: Mapping[str, tuple[ArrayLike, ArrayLike]], reference: tuple[float, float] | None
) -> float:
    """Return the plot's largest disparity: 5 % beyond every point's (1 if all are 0)."""
    right = 0.0
    for _, d in points.values():
        if np.size(d):
            right = max(right, float(np.max(d)))
    if reference is not None:
        right = max(right, reference[1])
    return right * 1.05 if right > 0 else 1.0


def _draw_front(
    ax: Axes, name: str, auc: ArrayLike, disp: ArrayLike, colour: Any, right: float
) -> None:
    """Draw one method's points faint and its Pareto front as a staircase."""
    a = np.asarray(auc, dtype=float)
    d = np.asarray(disp, dtype=float)
    if a.size == 0:
        return
    ax.scatter(d, a, color=colour, alpha=0.35, s=18)
    front = pareto_front(a, d)
    fd, fa = d[front], a[front]
    # staircase: best AUC within each disparity budget, flat to the right edge
    ax.step(
        np.append(fd, right),
        np.append(fa, fa[-1]),
        where="post",
        color=colour,
        linewidth=2,
        label=f"{name} front",
    )
    ax.scatter(fd, fa, color=colour, s=30, zorder=3)


def _draw_baselines(
    ax: Axes,
    extra: Mapping[str, tuple[float, float]],
    reference: tuple[float, float] | None,
    reference_label: str,
) -> None:
    """Draw the single baselines hollow and the full-feature classifier as a black square."""
    for j, (name, (a_val, d_val)) in enumerate(extra.items()):
        ax.scatter(
            [d_val],
            [a_val],
            marker="o^vD"[j % 4],
            facecolors="none",
            edgecolors="0.2",
            s=60,
            zorder=4,
            label=name,
        )
    if reference is not None:
        ax.scatter(
            [reference[1]],
            [reference[0]],
            marker="s",
            color="black",
            s=60,
            zorder=5,
            label=reference_label,
        )


def _shade_target(ax: Axes, target: tuple[float, float], label: str, right: float) -> None:
    """Shade the region of the plane that meets ``target`` (least AUC, largest disparity)."""
    low, high = ax.get_ylim()
    high = max(high, target[0] + 0.01)
    ax.fill_between(
        [-0.02 * right, target[1]],
        target[0],
        high,
        color="tab:green",
        alpha=0.12,
        linewidth=0,
        label=label,
    )
    ax.set_ylim(low, high)
