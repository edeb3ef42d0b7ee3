"""The command group that prints click's usage errors as one line, like fairacq's own errors.

click and typer report a wrong option value, an unknown option or an unknown command as a
framed, multi-line box. :class:`OneLineErrorsGroup` runs the application in click's
non-standalone mode and prints such a usage error as ``error: <message> (see <command>
--help)`` with exit code 2 -- the shape of every other error of the command line.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import typer
from typer._click import exceptions as click_errors  # typer's own copy of click (0.29+)
from typer.core import TyperGroup

from fairacq.cli.shared._errors import err_console

__all__ = ["OneLineErrorsGroup"]


class OneLineErrorsGroup(TyperGroup):
    """A :class:`typer.core.TyperGroup` whose usage errors are one ``error:`` line."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line; in standalone mode, exit with one line on a usage error."""
        standalone = bool(kwargs.pop("standalone_mode", True))
        kwargs["standalone_mode"] = False
        if not standalone:
            return super().main(*args, **kwargs)
        try:
            result = super().main(*args, **kwargs)
        except click_errors.NoArgsIsHelpError as exc:
            exc.show()
            _exit(exc.exit_code)
        except click_errors.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "fairacq"
            message = " ".join(exc.format_message().split())
            err_console.print(f"error: {message} (see {where} --help)", markup=False)
            _exit(2)
        except click_errors.ClickException as exc:
            exc.show()
            _exit(exc.exit_code)
        except typer.Abort:
            err_console.print("Aborted.", markup=False)
            _exit(1)
        _exit(result if isinstance(result, int) else 0)


def _exit(code: int) -> NoReturn:
    sys.exit(code)
