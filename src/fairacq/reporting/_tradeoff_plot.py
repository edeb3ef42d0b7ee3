"""The accuracy-fairness plane: one point per method, its spread over seeds as error bars.

Used by ``fairacq compare``: each strategy's mean accuracy against its mean fairness metric
on the test rows, with one standard deviation over seeds both ways, a marker per kind of
strategy (acquire, mitigate, sample, ...) and the target as a dashed line; and the samples
of each group a sampler asked for, one stacked bar per method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import matplotlib

from fairacq.reporting._plots import new_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_allocations", "plot_tradeoff"]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def plot_tradeoff(
    points: Sequence[Mapping[str, Any]],
    *,
    xlabel: str = "accuracy",
    ylabel: str = "fairness gap",
    target: float | None = None,
    target_label: str = "target",
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Plot each method's mean (x, y) with one standard deviation as error bars.

    Parameters
    ----------
    points : sequence of mapping
        One per method: ``label``, ``x``, ``y``, and optionally ``x_std``, ``y_std``,
        ``kind`` (one marker per kind) and ``front`` (True: ringed, on the front).
    xlabel, ylabel : str
        Axis labels.
    target : float or None, default=None
        Drawn as a dashed horizontal line (the fairness target).
    target_label : str, default="target"
        Its legend entry.
    title : str or None, default=None
        Axes title.
    ax : matplotlib Axes or None, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        ax = new_figure(8.0, 4.8).subplots()
    colours = matplotlib.colormaps["tab20"]
    kinds = list(dict.fromkeys(str(p.get("kind", "")) for p in points))
    for i, point in enumerate(points):
        marker = _MARKERS[kinds.index(str(point.get("kind", ""))) % len(_MARKERS)]
        ax.errorbar(
            point["x"],
            point["y"],
            xerr=point.get("x_std") or None,
            yerr=point.get("y_std") or None,
            fmt=marker,
            color=colours(i % 20),
            markersize=7,
            capsize=3,
            linewidth=1.0,
            label=str(point["label"]),
        )
    _draw_front(ax, [p for p in points if p.get("front")])
    if target is not None:
        ax.axhline(target, color="0.25", linestyle="--", linewidth=1.2, label=target_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


def _draw_front(ax: Axes, front: Sequence[Mapping[str, Any]]) -> None:
    """Ring the points on the front (a front in cost too, so no line joins them here)."""
    if not front:
        return
    ax.scatter(
        [float(p["x"]) for p in front], [float(p["y"]) for p in front], s=220,
        facecolors="none", edgecolors="0.2", linewidths=1.2, zorder=3, label="on the front",
    )  # fmt: skip


def plot_allocations(
    allocations: Mapping[str, Mapping[str, float]],
    *,
    xlabel: str = "samples",
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Plot each method's samples per group as one stacked horizontal bar.

    Parameters
    ----------
    allocations : mapping of str to mapping of str to float
        Method -> group -> samples (e.g. the mean over seeds).
    xlabel : str, default="samples"
        Axis label.
    title : str or None, default=None
        Axes title.
    ax : matplotlib Axes or None, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        ax = new_figure(8.0, 0.6 + 0.35 * max(len(allocations), 2)).subplots()
    colours = matplotlib.colormaps["tab10"]
    groups = list(dict.fromkeys(g for counts in allocations.values() for g in counts))
    methods = list(allocations)
    left = [0.0] * len(methods)
    for j, group in enumerate(groups):
        widths = [float(allocations[m].get(group, 0.0)) for m in methods]
        ax.barh(methods, widths, left=left, color=colours(j % 10), label=str(group))
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax
