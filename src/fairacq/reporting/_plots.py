"""Plots of any metric against cumulative cost: one line per method, mean and spread.

The drawing itself lives in the kernel (:mod:`fairacq._plot`), so that
:meth:`fairacq.Trace.plot` draws the same lines without importing this package.
"""

from __future__ import annotations

import os
from pathlib import Path

from matplotlib.figure import Figure

from fairacq._io import atomic_path
from fairacq._plot import aggregate_traces, new_figure, plot_traces

__all__ = ["aggregate_traces", "new_figure", "plot_traces", "save_figure"]


def save_figure(fig: Figure, path: str | os.PathLike[str], *, dpi: int = 130) -> Path:
    """Save ``fig`` atomically as PNG (or the format of the suffix)."""
    final = Path(path)
    with atomic_path(final) as tmp:
        fig.savefig(tmp, dpi=dpi, format=final.suffix.lstrip(".") or "png")
    return final
