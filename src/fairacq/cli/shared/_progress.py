"""Progress of long runs on stderr: a rich bar on a terminal, a plain line in logs.

A command wraps its work in :func:`progress` and counts what is done::

    with progress("acquire", total=40, unit="batches") as bar:
        acquirer.fit(..., callbacks=[run_callback(bar, offset=1)])

On a terminal a bar (done/total, elapsed, time left) appears once the run has taken
:data:`DELAY` seconds, so quick commands stay quiet; when stderr is not a terminal (a log, a
pipe, a batch job) a plain line such as ``acquire: 12/40 batches, 0:00:31 elapsed, ~0:01:10
left`` is printed every :data:`PLAIN_INTERVAL` seconds instead, and a last one at the end.
Everything goes to stderr, so ``--json`` output on stdout stays parseable.
``FAIRACQ_PROGRESS=off`` turns it off.

A resumed run starts with part of its count already done (tasks reused from a task cache, a
checkpoint's batches): ``bar.update(40, resumed=40)`` says so, and the time left is then
estimated from the pace of this run's own work alone; before any of it is done no estimate is
shown (one from the reused count would promise seconds for hours of work).

One thread draws; every write it makes holds a lock that a fork also takes, so a process
pool forked while a bar is shown never copies a half-written line or a held lock into its
workers.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import TaskID

    from fairacq._callbacks import ProgressCallback

__all__ = ["DELAY", "PLAIN_INTERVAL", "ProgressBar", "progress", "run_callback"]

#: Seconds a run takes before its bar appears on a terminal.
DELAY = 1.0
#: Seconds between two plain progress lines when stderr is not a terminal.
PLAIN_INTERVAL = 5.0
#: Seconds between two redraws of the bar.
_TICK = 0.2

_WRITE_LOCK = threading.Lock()
if hasattr(os, "register_at_fork"):  # POSIX: no fork while the drawing thread writes
    os.register_at_fork(
        before=_WRITE_LOCK.acquire,
        after_in_parent=_WRITE_LOCK.release,
        after_in_child=_WRITE_LOCK.release,
    )


class ProgressBar:
    """What :func:`progress` yields: the count of a run, read by the display.

    Call it to advance (``bar()``, ``bar(5)``), or :meth:`update` to set the count, the
    total and what of the count a resumed run found done. Cheap and thread-safe enough to
    call after every step: it only stores numbers.

    Attributes
    ----------
    description, unit : str
        What runs (``"acquire"``) and what is counted (``"batches"``).
    completed : float
        Done so far, including ``resumed``.
    resumed : float
        Of ``completed``, what was done before this run (reused or resumed, not worked on
        now): left out of the pace that estimates the time left.
    total : float or None
        Expected in all (None: unknown).
    started : float
        When the run started (:func:`time.monotonic`).
    """

    def __init__(self, description: str, total: float | None, unit: str) -> None:
        self.description = description
        self.unit = unit
        self.completed = 0.0
        self.resumed = 0.0
        self.total = None if total is None else float(total)
        self.started = time.monotonic()

    def __call__(self, n: float = 1) -> None:
        """Count ``n`` more done."""
        self.completed += n

    def update(
        self,
        completed: float | None = None,
        *,
        total: float | None = None,
        resumed: float | None = None,
    ) -> None:
        """Set the count done, the total and/or the part of the count done before this run.

        None leaves a value as it is. ``resumed`` is included in ``completed``: a run
        resumed with 40 of 60 tasks reused calls ``update(40, total=60, resumed=40)``.
        """
        if resumed is not None:  # first: a draw in between sees no work of this run yet
            self.resumed = float(resumed)
        if completed is not None:
            self.completed = float(completed)
        if total is not None:
            self.total = float(total)

    def time_left(self) -> float | None:
        """Return the seconds left at the pace of this run's own work (None: unknown).

        The pace is ``(completed - resumed) / elapsed``: None before this run has done any
        work, or without a total; 0 once the count reaches the total.
        """
        return self._left(time.monotonic() - self.started)

    def _left(self, elapsed: float) -> float | None:
        total = self.total
        if total is None:
            return None
        if self.completed >= total:
            return 0.0
        worked = self.completed - self.resumed
        if worked <= 0:
            return None
        return elapsed / worked * (total - self.completed)

    def line(self, *, final: bool = False) -> str:
        """Return the plain line: ``acquire: 12/40 batches, 0:00:31 elapsed, ~0:01:10 left``.

        The time left is left out while unknown (see :meth:`time_left`).
        """
        elapsed = time.monotonic() - self.started
        done, total = self.completed, self.total
        count = _number(done) if total is None else f"{_number(done)}/{_number(total)}"
        before = f" ({_number(self.resumed)} done before)" if self.resumed else ""
        text = f"{self.description}: {count} {self.unit}{before}, {_clock(elapsed)} elapsed"
        if final:
            return f"{text}, done"
        left = self._left(elapsed)
        if left is not None and total is not None and done < total:
            text += f", ~{_clock(left)} left"
        return text


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _clock(seconds: float) -> str:
    return str(datetime.timedelta(seconds=round(max(0.0, seconds))))


class _Display:
    """Draws a :class:`ProgressBar` from a thread until :meth:`close`."""

    def __init__(self, bar: ProgressBar, delay: float) -> None:
        self.bar = bar
        self.delay = delay
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fairacq-progress", daemon=True)

    def open(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(_TICK):
            with _WRITE_LOCK:
                if not self._stop.is_set():
                    self.draw(time.monotonic() - self.bar.started)

    def close(self, ok: bool) -> None:
        self._stop.set()
        self._thread.join()
        with _WRITE_LOCK:
            self.finish(ok)

    def draw(self, elapsed: float) -> None:
        raise NotImplementedError

    def finish(self, ok: bool) -> None:
        raise NotImplementedError


class _RichDisplay(_Display):
    """A rich bar on a terminal: description, bar, done/total unit, elapsed, time left.

    The time left is the bar's own :meth:`ProgressBar.time_left`, as on the plain line, not
    rich's (the speed over the last 30 s: it counts reused tasks reported then as work, and
    knows nothing once a task takes longer).
    """

    def __init__(self, bar: ProgressBar, delay: float, console: Console) -> None:
        from rich.progress import (  # ~20 ms: only when a bar is drawn, not for --help
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        super().__init__(bar, delay)
        self.progress = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(bar.unit, markup=False),
            TextColumn("•"),
            TimeElapsedColumn(),
            TextColumn("• left"),
            TextColumn("{task.fields[left]}", style="progress.remaining", markup=False),
            console=console,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self.task: TaskID | None = None

    def draw(self, elapsed: float) -> None:
        if self.task is None:
            if elapsed < self.delay:
                return
            self.progress.start()
            self.task = self.progress.add_task(
                self.bar.description, total=self.bar.total, left=self._left()
            )
        self._sync()
        self.progress.refresh()

    def _sync(self) -> None:
        assert self.task is not None
        self.progress.update(
            self.task, completed=self.bar.completed, total=self.bar.total, left=self._left()
        )

    def _left(self) -> str:
        """Return the time left as rich shows it: ``0:01:10``, ``-:--:--`` while unknown."""
        if self.bar.total is None:
            return ""
        left = self.bar.time_left()
        return "-:--:--" if left is None else _clock(left)

    def finish(self, ok: bool) -> None:
        if self.task is None:
            return
        if ok:  # a run that stopped early (tau, a callback) ends with a full bar
            self.bar.total = self.bar.completed
        self._sync()
        self.progress.refresh()
        self.progress.stop()


class _PlainDisplay(_Display):
    """A plain line every ``interval`` seconds (and one at the end) for logs and pipes."""

    def __init__(self, bar: ProgressBar, delay: float, console: Console, interval: float):
        super().__init__(bar, delay)
        self.console = console
        self.interval = interval
        self.printed = 0
        self.next_at = max(delay, interval)

    def draw(self, elapsed: float) -> None:
        if elapsed >= self.next_at:
            self._print(self.bar.line())
            self.next_at = elapsed + self.interval

    def finish(self, ok: bool) -> None:
        if ok and self.printed:
            self._print(self.bar.line(final=True))

    def _print(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)
        self.printed += 1


@contextlib.contextmanager
def progress(
    description: str,
    total: float | None,
    unit: str = "steps",
    *,
    console: Console | None = None,
    delay: float | None = None,
    interval: float | None = None,
) -> Iterator[ProgressBar]:
    """Show the progress of the work inside the block on stderr.

    Parameters
    ----------
    description : str
        What runs (``"acquire"``, the experiment's name), first on the line.
    total : float or None
        How much there is to do in ``unit`` (None: unknown; set it later with
        ``bar.update(total=...)``). A run that ends early is shown complete.
    unit : str, default="steps"
        What is counted: ``"batches"``, ``"samples"``, ``"tasks"``, ...
    console : rich.console.Console or None, default=None
        Where to draw (default: stderr). A terminal gets a bar, anything else plain lines.
    delay : float or None, default=None
        Seconds before the bar appears (default :data:`DELAY`).
    interval : float or None, default=None
        Seconds between plain lines (default :data:`PLAIN_INTERVAL`).

    Yields
    ------
    ProgressBar
        Call it to advance, or ``update(completed, total=...)``; :func:`run_callback` turns
        it into a callback of a strategy's ``fit``.
    """
    bar = ProgressBar(description, total, unit)
    display = _display(bar, console, delay, interval)
    if display is None:
        yield bar
        return
    display.open()
    ok = False
    try:
        yield bar
        ok = True
    finally:
        display.close(ok)


def _display(
    bar: ProgressBar, console: Console | None, delay: float | None, interval: float | None
) -> _Display | None:
    """Return the display for ``console`` (None when progress is turned off)."""
    if os.environ.get("FAIRACQ_PROGRESS", "").strip().lower() in ("0", "off", "no", "false"):
        return None
    if console is None:
        from fairacq.cli.shared._errors import err_console

        console = err_console
    wait = DELAY if delay is None else delay
    if console.is_terminal and not console.is_dumb_terminal:
        return _RichDisplay(bar, wait, console)
    return _PlainDisplay(bar, wait, console, PLAIN_INTERVAL if interval is None else interval)


def run_callback(
    bar: ProgressBar, *, offset: float = 0, column: str | None = None
) -> ProgressCallback:
    """Return a callback for ``strategy.fit(..., callbacks=[...])`` that moves ``bar``.

    Parameters
    ----------
    bar : ProgressBar
        What :func:`progress` yielded.
    offset : float, default=0
        Rows recorded before the first step (1 for an acquirer's step-0 row), or with
        ``column`` that column's value before the steps (DADI: ``2 * n_pretrain_iter``).
    column : str or None, default=None
        Count with this column of the last trace row instead of the rows (``"cost"``: a
        sampler's samples, Fair-A3SL's episodes, DADI's iterations after ``offset``).

    Returns
    -------
    fairacq._callbacks.ProgressCallback

    Notes
    -----
    A run resumed from a checkpoint counts the checkpoint's steps (or cost) too: mark them
    first with ``bar.update(n, resumed=n)`` so they do not count as this run's pace.
    """
    from fairacq._callbacks import ProgressCallback

    return ProgressCallback(_setter(bar), offset=offset, column=column)


def _setter(bar: ProgressBar) -> Callable[[float], Any]:
    return lambda done: bar.update(done)
