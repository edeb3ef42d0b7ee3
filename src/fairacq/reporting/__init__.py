"""Plots and summaries that every family's results share.

:func:`plot_traces` draws any metric against cumulative cost, one line per method with the
mean and one standard deviation over trials and the paper's value as a dashed line;
:func:`write_summary` writes ``summary.md`` (ours beside the paper's numbers) and the tidy
``summary.json``; :func:`write_run` writes everything one run produces (traces, acquisition
order, plot, summaries), as ``fairacq acquire`` and ``fairacq sample`` do;
:func:`format_verdict` words an acceptance check; :func:`figure_title`, :func:`metric_label`
and :func:`band_label` give every figure a title naming the data and the metric, axes that
say which way is fairer, and a band that says what it spans; :func:`plot_tradeoff` draws
methods on the accuracy-fairness plane and :func:`html_page` / :func:`html_figure` /
:func:`html_table` build self-contained HTML reports (figures inlined, a script that checks
they load). Names load on first use, so importing the package is cheap. Figures need no GUI
backend, so it works on machines without a screen; the line plot itself is the kernel's
(``fairacq._trace._plot``, which :meth:`fairacq.Trace.plot` uses too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairacq._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from fairacq.reporting._html import (
        FIGURES_SCRIPT,
        figure_data_uri,
        html_figure,
        html_page,
        html_table,
    )
    from fairacq.reporting._labels import figure_title, metric_label
    from fairacq.reporting._pareto_plot import plot_median_band, plot_pareto_fronts
    from fairacq.reporting._plots import (
        aggregate_traces,
        band_label,
        new_figure,
        plot_traces,
        save_figure,
    )
    from fairacq.reporting._run import RunReport, write_run
    from fairacq.reporting._summary import format_markdown_table, summary_frame, write_summary
    from fairacq.reporting._tradeoff_plot import plot_allocations, plot_tradeoff
    from fairacq.reporting._verdict import VerdictLike, format_verdict

__all__ = [
    "FIGURES_SCRIPT",
    "RunReport",
    "VerdictLike",
    "aggregate_traces",
    "band_label",
    "figure_data_uri",
    "figure_title",
    "format_markdown_table",
    "format_verdict",
    "html_figure",
    "html_page",
    "html_table",
    "metric_label",
    "new_figure",
    "plot_allocations",
    "plot_median_band",
    "plot_pareto_fronts",
    "plot_traces",
    "plot_tradeoff",
    "save_figure",
    "summary_frame",
    "write_run",
    "write_summary",
]

# Public name -> the submodule that defines it, imported on first access.
_LAZY = {
    "aggregate_traces": "fairacq.reporting._plots",
    "band_label": "fairacq.reporting._plots",
    "figure_title": "fairacq.reporting._labels",
    "metric_label": "fairacq.reporting._labels",
    "FIGURES_SCRIPT": "fairacq.reporting._html",
    "figure_data_uri": "fairacq.reporting._html",
    "html_figure": "fairacq.reporting._html",
    "html_page": "fairacq.reporting._html",
    "html_table": "fairacq.reporting._html",
    "format_markdown_table": "fairacq.reporting._summary",
    "format_verdict": "fairacq.reporting._verdict",
    "VerdictLike": "fairacq.reporting._verdict",
    "new_figure": "fairacq.reporting._plots",
    "plot_allocations": "fairacq.reporting._tradeoff_plot",
    "plot_median_band": "fairacq.reporting._pareto_plot",
    "plot_pareto_fronts": "fairacq.reporting._pareto_plot",
    "plot_tradeoff": "fairacq.reporting._tradeoff_plot",
    "plot_traces": "fairacq.reporting._plots",
    "RunReport": "fairacq.reporting._run",
    "save_figure": "fairacq.reporting._plots",
    "summary_frame": "fairacq.reporting._summary",
    "write_run": "fairacq.reporting._run",
    "write_summary": "fairacq.reporting._summary",
}

__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, __all__)
