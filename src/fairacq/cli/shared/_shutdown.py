"""Stop a command cleanly on SIGTERM or SIGINT: one line on stderr, exit 128 + signal.

Inside :func:`stop_on_signals` both signals raise :class:`Interrupted` (a
``KeyboardInterrupt``) in the main thread, so the work unwinds: the experiments' process pool
terminates its workers, a dask cluster it started closes, open files are closed. Whatever was
already written was written atomically and stays whole. The command then prints one line
(no traceback) and exits with 130 (SIGINT) or 143 (SIGTERM).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

import typer

from fairacq.cli.shared._errors import err_console

__all__ = ["Interrupted", "stop_on_signals"]

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Interrupted(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM or SIGINT inside :func:`stop_on_signals`."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def stop_on_signals(hint: str = "") -> Iterator[None]:
    """Turn SIGTERM and SIGINT inside the block into a one-line exit (128 + signal).

    Parameters
    ----------
    hint : str, default=""
        Appended to the line, e.g. how to resume: ``"; run the same command to go on"``.

    Raises
    ------
    typer.Exit
        With code 130 after SIGINT (or a ``KeyboardInterrupt``), 143 after SIGTERM.

    Notes
    -----
    Only the first signal interrupts; later ones are ignored while the work unwinds (the
    pool's workers get a few seconds before they are killed), so stopping never leaves
    half-stopped workers behind. Outside the main thread the handlers cannot be installed
    and only ``KeyboardInterrupt`` is handled.
    """
    fired: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if fired:
            return
        fired.append(signum)
        raise Interrupted(signum)

    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, handler) for sig in _SIGNALS} if main else {}
    try:
        yield
    except KeyboardInterrupt as exc:
        signum = exc.signum if isinstance(exc, Interrupted) else int(signal.SIGINT)
        name = signal.Signals(signum).name
        err_console.print(f"error: stopped by {name}{hint}", markup=False)
        raise typer.Exit(code=128 + signum) from None
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
