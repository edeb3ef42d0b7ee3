"""Every command's ``--help`` renders: its text is printed, not parsed as rich markup."""

from __future__ import annotations

import pytest

from tests.bad_input._corpus import assert_cli_error, run_cli

COMMANDS = [
    [],
    ["audit"],
    ["acquire"],
    ["sample"],
    ["reproduce"],
    ["demo"],
    ["metrics"],
    ["datasets"],
    ["datasets", "list"],
    ["datasets", "info"],
    ["datasets", "fetch"],
    ["filter"],
    ["filter", "fit"],
    ["filter", "apply"],
    ["features"],
    ["features", "train"],
    ["features", "acquire"],
    ["relational"],
    ["relational", "infer"],
    ["relational", "learn"],
    ["relational", "example"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "fairacq")
def test_help_renders(command: list[str]) -> None:
    res = run_cli(*command, "--help")
    assert res.exit_code == 0, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Usage: fairacq" in res.output
    assert "Traceback" not in res.output


@pytest.mark.xfail(
    strict=True,
    reason="click/typer usage errors (an option value of the wrong type, an unknown option or "
    "command) print typer's multi-line rich box (usage, hint, framed message), exit 2; one "
    "line needs a CLI-wide handler of click.UsageError in cli/_app.py",
)
@pytest.mark.parametrize(
    "args",
    [
        ["sample", "--trials", "abc"],
        ["acquire", "--nope"],
        ["datasets", "describe", "german"],
        ["reproduce", "aopt-fig1", "--workers", "abc"],
    ],
    ids=lambda a: " ".join(a),
)
def test_usage_errors_are_one_line(args: list[str]) -> None:
    assert_cli_error(run_cli(*args), args[-1])
