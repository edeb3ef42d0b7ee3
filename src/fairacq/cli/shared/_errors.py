"""Turn fairacq errors into exit code 2 and one line on stderr."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator

import typer
from rich.console import Console

from fairacq.cli.shared._user_model import user_model_failure
from fairacq.exceptions import FairacqError

__all__ = ["err_console", "fail", "user_errors"]

err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> typer.Exit:
    """Print ``message`` as one line on stderr and return the exit to raise (code 2)."""
    err_console.print(f"error: {message}", markup=False)
    return typer.Exit(code=2)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Inside this block a :class:`FairacqError` or a missing file exits with code 2.

    So do a file the system refuses (an unwritable ``--out``) and a failure inside the code
    of a user's ``--model module:Class``
    (:func:`~fairacq.cli.shared._user_model.user_model_failure`); any other exception passes
    on unchanged.

    A warning fairacq raises inside the block (a :class:`UserWarning`) is printed once as
    one ``warning: ...`` line on stderr; other warnings pass on unchanged. A note logged to
    the ``fairacq.notes`` logger (e.g. how a table's columns were read) is printed as one
    ``note: ...`` line when the block succeeds.
    """
    caught: list[warnings.WarningMessage] = []
    notes, ok = _NoteCollector(), False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        ok = True
    except FairacqError as exc:
        raise fail((user_model_failure(exc) or str(exc)).replace("\n", " ")) from None
    except FileNotFoundError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(user_model_failure(exc) or _os_error_line(exc)) from None
    except Exception as exc:
        line = user_model_failure(exc)
        if line is None:
            raise
        raise fail(line.replace("\n", " ")) from None
    finally:
        notes.close_and_print(ok)
        _print_warnings(caught)


class _NoteCollector(logging.Handler):
    """Collect the ``fairacq.notes`` log records of one command; print them at its end."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self._logger = logging.getLogger("fairacq.notes")
        self._level = self._logger.level
        self._logger.addHandler(self)
        self._logger.setLevel(logging.INFO)

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage().replace("\n", " "))

    def close_and_print(self, show: bool) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)
        for line in dict.fromkeys(self.lines) if show else ():
            err_console.print(f"note: {line}", markup=False)


def _os_error_line(exc: OSError) -> str:
    """One line for a file the system refused (an unwritable place, a full disk)."""
    where = f" {exc.filename}" if exc.filename else ""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return (
        f"cannot read or write{where}: {reason}. Check the path and that you may use it; "
        "for an output, pass a folder of your own (e.g. --out runs/first)."
    )


def _print_warnings(caught: list[warnings.WarningMessage]) -> None:
    shown: set[str] = set()
    for w in caught:
        text = str(w.message).replace("\n", " ")
        if not issubclass(w.category, UserWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif text not in shown:
            shown.add(text)
            err_console.print(f"warning: {text}", markup=False)
