"""Commands other installed packages add to ``fairacq`` through entry points.

A package declares, in the ``fairacq.commands`` entry-point group, a name and either a typer
application (added as a command group) or a command function (added as a command). The
library never imports such a package by name: the paper harness of this repository adds
``reproduce`` and ``demo`` this way. A command that fails to load still appears, and running
it prints one ``error:`` line saying why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import typer

from fairacq.cli.shared._errors import fail

__all__ = ["GROUP", "add_registered_commands"]

#: The entry-point group holding the extra commands.
GROUP = "fairacq.commands"


def add_registered_commands(app: typer.Typer, points: Iterable[EntryPoint] | None = None) -> None:
    """Add every command registered under :data:`GROUP` to ``app``, in name order.

    Parameters
    ----------
    app : typer.Typer
        The application; a registered name it already has is left out (its own command
        wins).
    points : iterable of EntryPoint or None, default=None
        The entry points to add; None reads the installed ones.
    """
    taken = {info.name for info in app.registered_commands}
    taken |= {info.name for info in app.registered_groups}
    chosen = entry_points(group=GROUP) if points is None else points
    for point in sorted(chosen, key=lambda p: p.name):
        if point.name in taken:
            continue
        taken.add(point.name)
        target = _load(point)
        if isinstance(target, typer.Typer):
            app.add_typer(target, name=point.name)
        else:
            app.command(point.name)(target)


def _load(point: EntryPoint) -> Any:
    """Return the entry point's object, or a command that reports why it failed to load."""
    try:
        return point.load()
    except Exception as exc:  # any failure of a third-party import: report it, keep going
        return _broken(point, exc)


def _broken(point: EntryPoint, exc: Exception) -> Callable[[], None]:
    reason = f"{type(exc).__name__}: {exc}"

    def command() -> None:
        raise fail(
            f"the command {point.name!r} ({point.value}) could not be loaded ({reason}). "
            "Reinstall the package that provides it."
        )

    command.__doc__ = f"Unavailable: could not be loaded ({type(exc).__name__})."
    return command
