"""Plots and summaries that every family's results share.

:func:`plot_traces` draws any metric against cumulative cost, one line per method with the
mean and one standard deviation over trials and the paper's value as a dashed line;
:func:`write_summary` writes ``summary.md`` (ours beside the paper's numbers) and the tidy
``summary.json``. It draws on figures that need no GUI backend, so it works on machines
without a screen; the line plot itself is the kernel's (``fairacq._plot``, which
:meth:`fairacq.Trace.plot` uses too).
"""

from fairacq.reporting._pareto_plot import plot_median_band, plot_pareto_fronts
from fairacq.reporting._plots import aggregate_traces, new_figure, plot_traces, save_figure
from fairacq.reporting._summary import format_markdown_table, summary_frame, write_summary
from fairacq.reporting._verdict import VerdictLike, format_verdict

__all__ = [
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
    "write_summary",
]
