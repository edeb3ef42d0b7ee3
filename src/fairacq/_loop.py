"""The run skeleton every step-wise strategy shares.

A family describes one run as a :class:`RunLoop` (how to start, replay a recorded step, take
one step, and what to remember); :func:`run_loop` does the rest the same way for all of them::

    root seed -> recorder -> start -> replay ``continue_from`` -> restore its state
      -> loop: stop? -> step -> record -> resume state -> callbacks -> finish

A resumed run takes the checkpoint's root seed and replays its steps, so it equals the
uninterrupted run with the same seed, bit for bit, whenever ``replay`` rebuilds what ``step``
built.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fairacq._callbacks import Callback, run_callbacks
from fairacq._random import root_seed, seed_state
from fairacq._trace import Trace, TraceRecorder
from fairacq.exceptions import InvalidDataError

__all__ = ["LoopResult", "RunLoop", "load_checkpoint", "run_loop"]


class RunLoop(ABC):
    """One run of a step-wise strategy, as :func:`run_loop` drives it.

    ``start`` builds the initial state from the root seed; ``step`` takes one step and returns
    its trace row; ``replay`` re-applies a row of a checkpoint without deciding anything;
    ``resume_state``/``restore`` carry what the rows do not (a bandit's statistics, ...).
    """

    @abstractmethod
    def start(self, root: np.random.SeedSequence) -> Mapping[str, Any] | None:
        """Build the initial state; return the row of step 0 (None: no such row)."""

    def replay(self, row: Mapping[str, Any]) -> None:  # noqa: B027  # optional hook
        """Re-apply one recorded step of a checkpoint (rows arrive in order, step 0 first)."""

    def restore(self, state: Mapping[str, Any]) -> None:  # noqa: B027  # optional hook
        """Load what :meth:`resume_state` returned after the checkpoint's last step."""

    def stop_reason(self) -> str | None:
        """Why the run stops before the next step (None: take it)."""
        return None

    @abstractmethod
    def step(self, index: int) -> Mapping[str, Any] | None:
        """Take one step and return its row (``index``: the rows recorded so far).

        The row must hold the cumulative ``cost``. None means nothing is left to do (the run
        stops with ``stop_reason="exhausted"``).
        """

    def resume_state(self) -> dict[str, Any]:
        """JSON-ready state needed to go on after the last step."""
        return {}

    def finish(self) -> dict[str, Any]:
        """Extra metadata for the finished trace."""
        return {}


@dataclass(frozen=True)
class LoopResult:
    """What :func:`run_loop` returns: the trace and why the run stopped."""

    trace: Trace
    stop_reason: str


def load_checkpoint(source: Trace | str | os.PathLike[str]) -> Trace:
    """Return the trace to resume from: a :class:`Trace`, its path, or a folder holding one.

    A folder is a checkpoint directory with ``trace.parquet`` + ``trace.json`` (what
    :class:`~fairacq.CheckpointCallback` writes when given a folder).
    """
    if isinstance(source, Trace):
        return source
    path = Path(source)
    if path.is_dir():
        path = path / "trace"
    return Trace.load(path)


def run_loop(
    loop: RunLoop,
    *,
    method: str,
    config: Mapping[str, Any],
    random_state: Any,
    continue_from: Trace | str | os.PathLike[str] | None = None,
    callbacks: Sequence[Callback] = (),
    **meta: Any,
) -> LoopResult:
    """Run ``loop`` to its end, recording one trace row per step.

    Parameters
    ----------
    loop : RunLoop
        The family's run.
    method : str
        Name recorded in the trace; a checkpoint of another method is refused.
    config : mapping
        The strategy's hyper-parameters (recorded).
    random_state : int, Generator, SeedSequence, RandomState or None
        The strategy's seed; a checkpoint's recorded root seed takes precedence.
    continue_from : Trace, path or None, default=None
        A checkpoint of an interrupted run (see :func:`load_checkpoint`).
    callbacks : sequence of callables
        Called after each step with the recorder; one returning ``False`` stops the run
        (``stop_reason="callback"``); one raising interrupts it.
    **meta
        Further trace metadata.

    Raises
    ------
    InvalidDataError
        If ``continue_from`` was written by another method.
    """
    checkpoint = None if continue_from is None else load_checkpoint(continue_from)
    saved = {} if checkpoint is None else dict(checkpoint.meta.get("resume_state", {}))
    if checkpoint is not None and checkpoint.method != method:
        raise InvalidDataError(
            f"continue_from holds a '{checkpoint.method}' trace, not a '{method}' one. Resume "
            "with the strategy and data that wrote the checkpoint."
        )
    root = root_seed(random_state, saved)
    recorder = TraceRecorder(
        method=method, config=config, random_state=random_state, continue_from=checkpoint, **meta
    )
    first = loop.start(root)
    if checkpoint is None:
        if first is not None:
            recorder.record(**first)
    else:
        for row in checkpoint.to_frame().to_dict("records"):
            loop.replay({str(k): v for k, v in row.items()})
        loop.restore(saved)
    reason = _drive(loop, recorder, root, list(callbacks))
    trace = recorder.finish(stop_reason=reason, **loop.finish())
    return LoopResult(trace, reason)


def _drive(
    loop: RunLoop,
    recorder: TraceRecorder,
    root: np.random.SeedSequence,
    callbacks: list[Callback],
) -> str:
    """Take steps until the loop stops, a callback asks to, or nothing is left."""
    while True:
        reason = loop.stop_reason()
        if reason is not None:
            return reason
        row = loop.step(recorder.n_steps)
        if row is None:
            return "exhausted"
        recorder.record(**row)
        recorder.set_resume_state({**seed_state(root), **loop.resume_state()})
        if not run_callbacks(callbacks, recorder):
            return "callback"
