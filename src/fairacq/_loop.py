"""The run skeleton every step-wise strategy shares.

A family describes one run as a :class:`RunLoop` (how to start, replay a recorded step, take
one step, and what to remember); :func:`run_loop` does the rest the same way for all of them::

    root seed -> recorder -> start -> replay ``continue_from`` -> restore its state
      -> read its files -> loop: stop? -> step -> record -> resume state -> callbacks -> finish

A resumed run takes the checkpoint's root seed and replays its steps, so it equals the
uninterrupted run with the same seed, bit for bit, whenever ``replay`` rebuilds what ``step``
built. A loop whose state is more than its trace (network weights, optimiser state) also
overrides :meth:`RunLoop.write_state` / :meth:`RunLoop.read_state`: checkpoints are then
folders holding the trace and those files (:mod:`fairacq._checkpoint`).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from fairacq._callbacks import Callback, ProgressCallback, run_callbacks
from fairacq._random import RandomState, root_seed, seed_state
from fairacq._trace import Trace, TraceRecorder
from fairacq.exceptions import CorruptFileError, InvalidDataError, InvalidParameterError

__all__ = [
    "Checkpoint",
    "LoopResult",
    "RunLoop",
    "iter_loop",
    "load_checkpoint",
    "one_shot_trace",
    "open_checkpoint",
    "refuse_resume",
    "run_loop",
]

Row = Mapping[str, Any]


class RunLoop(ABC):
    """One run of a step-wise strategy, as :func:`run_loop` drives it.

    ``start`` builds the initial state from the root seed; ``step`` takes one step and returns
    its trace row; ``replay`` re-applies a row of a checkpoint without deciding anything;
    ``resume_state``/``restore`` carry what the rows do not (a bandit's statistics, ...);
    ``write_state``/``read_state`` carry what JSON cannot (network weights, ...).
    """

    #: Run the callbacks once after a fresh start (with a checkpoint request), so that the
    #: work of ``start`` (a pre-training) is kept by a checkpoint before the first step.
    checkpoint_after_start: ClassVar[bool] = False

    #: Set by :func:`run_loop` before ``start``: whether the run resumes a checkpoint, so that
    #: ``start`` can skip work whose result the checkpoint holds.
    resuming: bool = False

    #: Set by :func:`run_loop` before ``start``: None, or a function to call with the cost
    #: done so far while a long ``start`` works (DADI's pre-training iterations), so that the
    #: progress callbacks counting ``cost`` move before the first row is recorded. It only
    #: reports: calling it or not changes nothing in the run.
    start_progress: Callable[[float], None] | None = None

    @abstractmethod
    def start(self, root: np.random.SeedSequence) -> Row | Sequence[Row] | None:
        """Build the initial state; return the row of step 0, several rows, or None.

        Several rows record a phase done before the steps (a pre-training's evaluations);
        a resumed run gets them back through :meth:`replay`.
        """

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
        """State needed to go on after the last step (JSON types, numpy arrays or scalars).

        Asked after every step, so it must cost about the same at every step (no copy of
        something that grows with the run); it is converted to JSON only when a checkpoint
        or the final trace is built. Return snapshots that later steps do not change: fresh
        containers, or read-only views of append-only arrays.
        """
        return {}

    def write_state(self, folder: Path) -> None:
        """Write the state the trace cannot hold into ``folder`` (override with read_state).

        Tensors go through :func:`fairacq._checkpoint.save_tensors` (read back with
        ``weights_only=True``, so a stranger's checkpoint runs no code).
        """
        raise NotImplementedError

    def read_state(self, folder: Path) -> None:
        """Load what :meth:`write_state` wrote (after ``replay`` and ``restore``)."""
        raise NotImplementedError

    @property
    def has_state_files(self) -> bool:
        """Whether this loop writes files of its own into its checkpoints."""
        return type(self).write_state is not RunLoop.write_state

    def finish(self) -> dict[str, Any]:
        """Extra metadata for the finished trace."""
        return {}


@dataclass(frozen=True)
class LoopResult:
    """What :func:`run_loop` returns: the trace and why the run stopped."""

    trace: Trace
    stop_reason: str


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint to resume: its trace and, for a checkpoint folder, the folder.

    Attributes
    ----------
    trace : Trace
        The steps recorded before the interruption (and the resume state in its metadata).
    folder : pathlib.Path or None
        The checkpoint folder holding the strategy's own files; None for a bare trace.
    """

    trace: Trace
    folder: Path | None


def open_checkpoint(source: Checkpoint | Trace | str | os.PathLike[str]) -> Checkpoint:
    """Return the checkpoint to resume from a :class:`Trace`, its path, or a folder.

    A folder is what :class:`~fairacq.CheckpointCallback` writes for a strategy with state
    files (``trace.parquet`` + ``trace.json`` + the strategy's files); a trace loaded from such
    a folder (``Trace.load(folder)``) still knows it.
    """
    if isinstance(source, Checkpoint):
        return source
    trace = source if isinstance(source, Trace) else Trace.load(source)
    return Checkpoint(trace, trace.folder)


def load_checkpoint(source: Trace | str | os.PathLike[str]) -> Trace:
    """Return the trace to resume: a :class:`Trace`, its path, or a folder holding one.

    A folder is a checkpoint directory with ``trace.parquet`` + ``trace.json`` (what
    :class:`~fairacq.CheckpointCallback` writes when given a folder).
    """
    return open_checkpoint(source).trace


def run_loop(
    loop: RunLoop,
    *,
    method: str,
    config: Mapping[str, Any],
    random_state: RandomState,
    continue_from: Checkpoint | Trace | str | os.PathLike[str] | None = None,
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
        A checkpoint of an interrupted run (see :func:`open_checkpoint`).
    callbacks : sequence of callables
        Called after each step with the recorder; one returning ``False`` stops the run
        (``stop_reason="callback"``); one raising interrupts it.
    **meta
        Further trace metadata.

    Raises
    ------
    InvalidDataError
        If ``continue_from`` was written by another method, or is a bare trace while the
        strategy needs the files of its checkpoint folder.
    """
    results: list[LoopResult] = []
    for _ in iter_loop(
        loop,
        method=method,
        config=config,
        random_state=random_state,
        continue_from=continue_from,
        callbacks=callbacks,
        on_stop=results.append,
        **meta,
    ):
        pass
    return results[-1]


def iter_loop(
    loop: RunLoop,
    *,
    method: str,
    config: Mapping[str, Any],
    random_state: RandomState,
    continue_from: Checkpoint | Trace | str | os.PathLike[str] | None = None,
    callbacks: Sequence[Callback] = (),
    on_stop: Callable[[LoopResult], None] | None = None,
    **meta: Any,
) -> Generator[Mapping[str, Any], None, None]:
    """:func:`run_loop` one step at a time: yield each new step's row, then run its callbacks.

    For strategies that hand results out as they go (a filtered stream): the callbacks of a
    step (its checkpoint) run when the consumer asks for the next one. ``on_stop`` receives
    the :class:`LoopResult` when the run ends, also when the consumer closes the iterator
    early (``stop_reason="closed"``); not when a step or a callback raises (the run is
    interrupted: resume it from its checkpoint).
    """
    checkpoint = None if continue_from is None else open_checkpoint(continue_from)
    trace = None if checkpoint is None else checkpoint.trace
    saved = {} if trace is None else _saved_state(trace)
    if trace is not None and trace.method != method:
        raise InvalidDataError(
            f"continue_from holds a '{trace.method}' trace, not a '{method}' one. Resume "
            "with the strategy and data that wrote the checkpoint."
        )
    if checkpoint is not None and loop.has_state_files and checkpoint.folder is None:
        raise InvalidDataError(
            f"continue_from holds a bare '{method}' trace, but this strategy resumes from the "
            "checkpoint folder CheckpointCallback wrote (its trace plus the strategy's state "
            "files). Pass that folder."
        )
    root = root_seed(random_state, saved)
    recorder = TraceRecorder(
        method=method, config=config, random_state=random_state, continue_from=trace, **meta
    )
    if loop.has_state_files:
        recorder.attach_state(loop.write_state)
    loop.resuming = checkpoint is not None
    loop.start_progress = _start_progress(callbacks)
    first = loop.start(root)
    if checkpoint is None:
        for first_row in _rows(first):
            recorder.record(**first_row)
    else:
        for row in checkpoint.trace.to_frame().to_dict("records"):
            loop.replay({str(k): v for k, v in row.items()})
        loop.restore(saved)
        if checkpoint.folder is not None and loop.has_state_files:
            loop.read_state(checkpoint.folder)
    recorder.set_resume_state({**saved, **seed_state(root)})
    reason = "closed"
    try:
        if checkpoint is None and loop.checkpoint_after_start:
            recorder.request_checkpoint()
            keep_going = run_callbacks(list(callbacks), recorder)
        else:
            keep_going = True
        reason = (
            (yield from _drive(loop, recorder, root, list(callbacks)))
            if keep_going
            else "callback"
        )
    except GeneratorExit:
        reason = "closed"
        _stop(recorder, loop, reason, on_stop)
        raise
    _stop(recorder, loop, reason, on_stop)


def _saved_state(trace: Trace) -> dict[str, Any]:
    """Return the resume state of ``trace``; a checkpoint's must be there, as a mapping."""
    state = trace.meta.get("resume_state")
    if isinstance(state, Mapping):
        return dict(state)
    if state is None and not trace.meta.get("checkpoint"):
        return {}
    raise CorruptFileError(
        f"continue_from: the '{trace.method}' checkpoint's resume_state is "
        f"{'missing' if state is None else 'not a mapping'} (its JSON was edited or cut "
        "short). Restore the checkpoint's files from the run that wrote them, or start afresh."
    )


def _stop(
    recorder: TraceRecorder,
    loop: RunLoop,
    reason: str,
    on_stop: Callable[[LoopResult], None] | None,
) -> None:
    if on_stop is not None:
        on_stop(LoopResult(recorder.finish(stop_reason=reason, **loop.finish()), reason))


def _start_progress(callbacks: Sequence[Callback]) -> Callable[[float], None] | None:
    """Return what ``start`` calls with its cost so far: the cost-counting progress callbacks."""
    counters = [cb for cb in callbacks if isinstance(cb, ProgressCallback) and cb.column == "cost"]
    if not counters:
        return None

    def report(cost: float) -> None:
        for cb in counters:
            cb.report(max(0.0, float(cost) - cb.offset))

    return report


def _rows(first: Row | Sequence[Row] | None) -> list[Row]:
    if first is None:
        return []
    if isinstance(first, Mapping):
        return [first]
    return list(first)


def _drive(
    loop: RunLoop,
    recorder: TraceRecorder,
    root: np.random.SeedSequence,
    callbacks: list[Callback],
) -> Generator[Row, None, str]:
    """Take steps until the loop stops, a callback asks to, or nothing is left.

    Each step's row is yielded before its callbacks run: a consumer that asks for the next
    row is done with this one, so a checkpoint never counts a step whose result the consumer
    has not handled (a kill in between repeats that step on resume, with the same result).
    """
    while True:
        reason = loop.stop_reason()
        if reason is not None:
            return reason
        row = loop.step(recorder.n_steps)
        if row is None:
            return "exhausted"
        recorder.record(**row)
        recorder.set_resume_state({**seed_state(root), **loop.resume_state()})
        yield row
        if not run_callbacks(callbacks, recorder):
            return "callback"


def refuse_resume(where: str, continue_from: object) -> None:
    """Refuse ``continue_from`` in a fit done in one go: it has no steps to go on from.

    Parameters
    ----------
    where : str
        The strategy's class name, for the message.
    continue_from : object
        What the caller passed; only None is accepted.

    Raises
    ------
    InvalidParameterError
        If ``continue_from`` is not None.
    """
    if continue_from is not None:
        raise InvalidParameterError(
            f"{where}.fit fits in one go, so there is nothing to resume from continue_from. "
            "Call fit without it: the same parameters and data give the same fit."
        )


def one_shot_trace(
    *,
    method: str,
    config: Mapping[str, Any],
    random_state: RandomState,
    rows: Sequence[Row],
    callbacks: Sequence[Callback] = (),
    **meta: Any,
) -> Trace:
    """Return the trace of a fit done in one go, after calling ``callbacks`` once.

    The callbacks see the finished fit with a checkpoint request, so a
    :class:`~fairacq.CheckpointCallback` writes the trace whatever its ``every``; a callback
    returning ``False`` changes nothing (the fit is over). The trace's ``stop_reason`` is
    ``"fitted"``.

    Parameters
    ----------
    method : str
        Name recorded in the trace.
    config : mapping
        The strategy's hyper-parameters (recorded).
    random_state : int, Generator, SeedSequence or None
        The strategy's seed (recorded when it is an int or a seed sequence).
    rows : sequence of mappings
        The fit's rows, each with its cumulative ``cost``.
    callbacks : sequence of callables, default=()
        Called once with the recorder after the rows are recorded.
    **meta
        Further trace metadata.

    Returns
    -------
    Trace
    """
    recorder = TraceRecorder(method=method, config=config, random_state=random_state, **meta)
    for row in rows:
        recorder.record(**row)
    recorder.request_checkpoint()
    run_callbacks(list(callbacks), recorder)
    return recorder.finish(stop_reason="fitted")
