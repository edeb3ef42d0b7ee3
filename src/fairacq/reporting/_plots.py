"""Plots of any metric against cumulative cost: one line per method, mean and spread.

The drawing itself lives in the kernel (:mod:`fairacq._trace._plot`), so that
:meth:`fairacq.Trace.plot` draws the same lines without importing this package.
"""

from __future__ import annotations

import os
from pathlib import Path

from matplotlib.figure import Figure

from fairacq._io import atomic_path
from fairacq._trace._plot import aggregate_traces, band_label, new_figure, plot_traces

__all__ = ["aggregate_traces", "band_label", "new_figure", "plot_traces", "save_figure"]


def save_figure(
    fig: Figure, path: str | os.PathLike[str], *, dpi: int = 130, title: str | None = None
) -> Path:
    """Save ``fig`` atomically as PNG (or the format of the suffix).

    Parameters
    ----------
    fig : matplotlib Figure
        The figure.
    path : str or path-like
        Where to write it.
    dpi : int, default=130
        Resolution.
    title : str or None, default=None
        A title for a figure that has none yet (an experiment's title, naming its data set
        and sensitive attribute); a figure's own title is kept.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    if title and fig.get_suptitle() == "":
        fig.suptitle(title)
    final = Path(path)
    with atomic_path(final) as tmp:
        fig.savefig(tmp, dpi=dpi, format=final.suffix.lstrip(".") or "png")
    return final
