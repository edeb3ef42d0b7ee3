"""Turn fairacq errors into exit code 2 and one line on stderr."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

import typer
from rich.console import Console

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

    A warning fairacq raises inside the block (a :class:`UserWarning`) is printed once as
    one ``warning: ...`` line on stderr; other warnings pass on unchanged.
    """
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    except FairacqError as exc:
        raise fail(str(exc).replace("\n", " ")) from None
    except FileNotFoundError as exc:
        raise fail(str(exc)) from None
    finally:
        _print_warnings(caught)


def _print_warnings(caught: list[warnings.WarningMessage]) -> None:
    shown: set[str] = set()
    for w in caught:
        text = str(w.message).replace("\n", " ")
        if not issubclass(w.category, UserWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif text not in shown:
            shown.add(text)
            err_console.print(f"warning: {text}", markup=False)
