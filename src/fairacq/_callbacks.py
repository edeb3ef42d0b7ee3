"""Callbacks that long runs call after each step: checkpointing and early stopping."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from fairacq._checkpoint import is_checkpoint_folder, resolve_checkpoint, write_checkpoint
from fairacq._trace import TraceRecorder

__all__ = ["Callback", "CheckpointCallback", "run_callbacks"]


class Callback(Protocol):
    """Called after each step with the recorder; return ``False`` to stop the run cleanly."""

    def __call__(self, recorder: TraceRecorder) -> bool | None:
        """Inspect the run so far."""


class CheckpointCallback:
    """Save the run so far every ``every`` steps, so a stopped run can resume.

    Resume with ``strategy.run(..., continue_from=path)`` (or ``fit``): the same ``path``.

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
    """

    def __init__(self, path: str | os.PathLike[str], *, every: int = 50) -> None:
        if every < 1:
            raise ValueError(f"CheckpointCallback: every must be >= 1, got {every}.")
        self.path = Path(path)
        self.every = every

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
        trace = recorder.finish(checkpoint=True)
        writer = recorder.state_writer
        if writer is not None or is_checkpoint_folder(resolve_checkpoint(self.path)):
            return write_checkpoint(self.path, trace, writer)
        if self.path.is_dir():
            return write_checkpoint(self.path, trace)
        trace.save(self.path)
        return self.path


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
