"""Callbacks that long runs call after each step: checkpointing, progress, early stopping."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from fairacq._checkpoint import is_checkpoint_folder, resolve_checkpoint, write_checkpoint
from fairacq._trace import TraceRecorder

__all__ = ["Callback", "CheckpointCallback", "ProgressCallback", "run_callbacks"]


class Callback(Protocol):
    """Called after each step with the recorder; return ``False`` to stop the run cleanly."""

    def __call__(self, recorder: TraceRecorder) -> bool | None:
        """Inspect the run so far."""


class CheckpointCallback:
    """Save the run so far every ``every`` steps, so a stopped run can resume.

    Resume with ``strategy.fit(..., continue_from=path)``: the same ``path``.

    What is written depends on the strategy:

    - a strategy whose trace is its whole state (acquisition, sampling, the filter's stream)
      writes the trace as ``<path>.parquet`` + ``<path>.json`` (or, when ``path`` is an
      existing folder, ``path/trace.parquet`` + ``path/trace.json``);
    - a strategy with more state (DADI's and Fair-A3SL's networks and optimisers) writes the
      folder ``path/``: ``trace.parquet`` + ``trace.json`` + the strategy's own files, built
      beside it and swapped in as one unit, so a run killed while writing leaves the previous
      checkpoint whole (see :mod:`fairacq._checkpoint`).

    Parameters
    ----------
    path : path-like
        Where to write the checkpoint.
    every : int, default=50
        Steps (trace rows) between checkpoints. A strategy may also ask for one at the end
        of an expensive phase (DADI after pre-training).
    meta : mapping or None, default=None
        Further facts saved in every checkpoint's trace metadata (JSON types), e.g. what the
        run's inputs were, so that a resume can check it goes on from the same run.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        every: int = 50,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if every < 1:
            raise ValueError(f"CheckpointCallback: every must be >= 1, got {every}.")
        self.path = Path(path)
        self.every = every
        self.meta = dict(meta or {})

    def due(self, recorder: TraceRecorder) -> bool:
        """Whether to write now: every ``every`` rows, or when the strategy asked for it."""
        return recorder.n_steps % self.every == 0 or recorder.checkpoint_requested

    def __call__(self, recorder: TraceRecorder) -> bool:
        """Write a checkpoint when :meth:`due`."""
        if self.due(recorder):
            self.write(recorder)
        return True

    def write(self, recorder: TraceRecorder) -> Path:
        """Write the checkpoint of the run so far now; return where."""
        trace = recorder.finish(**self.meta, checkpoint=True)
        writer = recorder.state_writer
        if writer is not None or is_checkpoint_folder(resolve_checkpoint(self.path)):
            return write_checkpoint(self.path, trace, writer)
        if self.path.is_dir():
            return write_checkpoint(self.path, trace)
        trace.save(self.path)
        return self.path


class ProgressCallback:
    """Report how far a run has got after each step: ``report(done)``.

    ``done`` counts the trace rows recorded so far minus ``offset`` (a resumed run counts the
    checkpoint's rows too, so it goes on from where it was), or, with ``column``, takes the
    last row's value of that column minus ``offset``; never below 0.

    Parameters
    ----------
    report : callable
        Called with the count (a float) after every step; e.g. a progress bar's setter.
    offset : float, default=0
        Subtracted from the count: the rows a run records before its first step (1 for
        acquisition's step-0 row), or with ``column`` the column's value before the steps.
    column : str or None, default=None
        Count with this column of the last row instead of the rows: ``"cost"`` is the
        samples a sampler drew, the episodes of Fair-A3SL, ``2 * n_pretrain_iter`` plus the
        joint iterations of DADI.

    Examples
    --------
    >>> from fairacq import TraceRecorder
    >>> seen = []
    >>> recorder = TraceRecorder(method="demo", config={}, random_state=0)
    >>> recorder.record(cost=0)
    >>> recorder.record(cost=10)
    >>> ProgressCallback(seen.append, offset=1)(recorder), seen
    (True, [1.0])
    """

    def __init__(
        self, report: Callable[[float], object], *, offset: float = 0, column: str | None = None
    ) -> None:
        self.report = report
        self.offset = offset
        self.column = column

    def __call__(self, recorder: TraceRecorder) -> bool:
        """Report the count of ``recorder`` (a row without ``column`` reports nothing)."""
        if self.column is None:
            value = float(recorder.n_steps)
        else:
            raw = recorder.last().get(self.column)
            if raw is None:
                return True
            value = float(raw)
            if math.isnan(value):
                return True
        self.report(max(0.0, value - self.offset))
        return True


def run_callbacks(
    callbacks: tuple[Callback, ...] | list[Callback], recorder: TraceRecorder
) -> bool:
    """Call every callback; return ``False`` when any asks to stop.

    A checkpoint request of the recorder holds for this round only.
    """
    keep_going = True
    try:
        for cb in callbacks:
            if cb(recorder) is False:
                keep_going = False
    finally:
        recorder.clear_checkpoint_request()
    return keep_going
