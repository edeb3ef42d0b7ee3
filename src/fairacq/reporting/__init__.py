"""Plots and summaries that every family's results share.

:func:`plot_traces` draws any metric against cumulative cost, one line per method with the
mean and one standard deviation over trials and the paper's value as a dashed line;
:func:`write_summary` writes ``summary.md`` (ours beside the paper's numbers) and the tidy
``summary.json``; :func:`write_run` writes everything one run produces (traces, acquisition
order, plot, summaries), as ``fairacq acquire`` and ``fairacq sample`` do;
:func:`format_verdict` words an acceptance check. Names load on first use, so importing the
package is cheap. Figures need no GUI backend, so it works on machines without a screen; the
line plot itself is the kernel's (``fairacq._plot``, which :meth:`fairacq.Trace.plot` uses
too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairacq._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from fairacq.reporting._pareto_plot import plot_median_band, plot_pareto_fronts
    from fairacq.reporting._plots import aggregate_traces, new_figure, plot_traces, save_figure
    from fairacq.reporting._run import RunReport, write_run
    from fairacq.reporting._summary import format_markdown_table, summary_frame, write_summary
    from fairacq.reporting._verdict import VerdictLike, format_verdict

__all__ = [
    "RunReport",
    "VerdictLike",
    "aggregate_traces",
    "format_markdown_table",
    "format_verdict",
    "new_figure",
    "plot_median_band",
    "plot_pareto_fronts",
    "plot_traces",
    "save_figure",
    "summary_frame",
    "write_run",
    "write_summary",
]

# Public name -> the submodule that defines it, imported on first access.
_LAZY = {
    "aggregate_traces": "fairacq.reporting._plots",
    "format_markdown_table": "fairacq.reporting._summary",
    "format_verdict": "fairacq.reporting._verdict",
    "VerdictLike": "fairacq.reporting._verdict",
    "new_figure": "fairacq.reporting._plots",
    "plot_median_band": "fairacq.reporting._pareto_plot",
    "plot_pareto_fronts": "fairacq.reporting._pareto_plot",
    "plot_traces": "fairacq.reporting._plots",
    "RunReport": "fairacq.reporting._run",
    "save_figure": "fairacq.reporting._plots",
    "summary_frame": "fairacq.reporting._summary",
    "write_run": "fairacq.reporting._run",
    "write_summary": "fairacq.reporting._summary",
}

__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, __all__)
