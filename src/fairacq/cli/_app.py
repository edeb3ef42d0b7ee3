"""The ``fairacq`` command-line application."""

from __future__ import annotations

import typer

from fairacq._version import __version__
from fairacq.cli._compare import compare_cmd
from fairacq.cli._datasets import datasets_app
from fairacq.cli._features import features_app
from fairacq.cli._filter import filter_app
from fairacq.cli._group import OneLineErrorsGroup
from fairacq.cli._metrics import metrics_cmd
from fairacq.cli._plugins import add_registered_commands
from fairacq.cli._relational import relational_app
from fairacq.cli.acquire._acquire import acquire_cmd
from fairacq.cli.audit._audit import audit_cmd
from fairacq.cli.sample._sample import sample_cmd

__all__ = ["app", "main"]

app = typer.Typer(
    cls=OneLineErrorsGroup,
    name="fairacq",
    help="Fairness-aware data and information acquisition: which rows, groups, features, "
    "candidates and rules to collect next.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(datasets_app, name="datasets")
app.add_typer(filter_app, name="filter")
app.add_typer(features_app, name="features")
app.add_typer(relational_app, name="relational")
app.command("audit")(audit_cmd)
app.command("acquire")(acquire_cmd)
app.command("sample")(sample_cmd)
app.command("compare")(compare_cmd)
app.command("metrics")(metrics_cmd)
add_registered_commands(app)  # e.g. the paper harness's `reproduce` and `demo`


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fairacq {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Fairness-aware data and information acquisition."""
    from fairacq.cli.shared._user_model import forget_user_models

    forget_user_models()  # a --model of an earlier command (in this process) is no longer used


def main() -> None:
    """Entry point of the ``fairacq`` script."""
    app()
