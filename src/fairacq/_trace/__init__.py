"""The step-by-step record of one run, shared by all five families, and its line plot.

:class:`Trace` and :class:`TraceRecorder` (``_trace.py``) and the plot of traces against
cumulative cost that :meth:`Trace.plot` and :func:`fairacq.reporting.plot_traces` draw
(``_plot.py``, matplotlib loaded on the first plot).
"""

from __future__ import annotations

from fairacq._trace._trace import Trace, TraceRecorder

__all__ = ["Trace", "TraceRecorder"]
