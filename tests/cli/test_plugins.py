"""Commands registered through the ``fairacq.commands`` entry points join the CLI."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.cli._plugins import GROUP, add_registered_commands

runner = CliRunner()

_PLUGIN = '''
import typer

def hello(name: str = "you") -> None:
    """Say hello."""
    typer.echo(f"hello {name}")

tools = typer.Typer(help="Some tools.")

@tools.command("ping")
def ping() -> None:
    """Answer pong."""
    typer.echo("pong")
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The name of an importable module holding a command and a typer app."""
    (tmp_path / "fairacq_test_plugin.py").write_text(_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "fairacq_test_plugin"


def _app() -> typer.Typer:
    new = typer.Typer(no_args_is_help=True)

    @new.callback()
    def root() -> None:
        """A group, not a single command."""

    @new.command("audit")
    def audit() -> None:
        typer.echo("the app's own audit")

    return new


def _point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=GROUP)


def test_the_harness_commands_are_registered_through_entry_points() -> None:
    where = {info.name: info.callback.__module__ for info in app.registered_commands}
    assert where["reproduce"] == "fairacq_experiments.cli._reproduce"
    assert where["demo"] == "fairacq_experiments.cli._demo"


def test_a_command_and_a_group_are_added_and_run(plugin: str) -> None:
    new = _app()
    add_registered_commands(
        new, [_point("tools", f"{plugin}:tools"), _point("hello", f"{plugin}:hello")]
    )
    assert runner.invoke(new, ["hello", "--name", "Ada"]).output == "hello Ada\n"
    assert runner.invoke(new, ["tools", "ping"]).output == "pong\n"


def test_the_apps_own_command_wins_over_a_registered_one(plugin: str) -> None:
    new = _app()
    add_registered_commands(new, [_point("audit", f"{plugin}:hello")])
    assert [info.name for info in new.registered_commands] == ["audit"]
    assert runner.invoke(new, ["audit"]).output == "the app's own audit\n"


def test_a_command_that_fails_to_load_says_why_when_run(plugin: str) -> None:
    new = _app()
    add_registered_commands(new, [_point("gone", "fairacq_no_such_module:cmd")])
    res = runner.invoke(new, ["gone"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: the command 'gone'")
    assert "ModuleNotFoundError" in lines[0]


def test_starting_the_cli_does_not_load_the_experiments() -> None:
    code = "import sys, fairacq.cli; print('fairacq_experiments._catalogue' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False"
