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


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["sample", "--trials", "abc"], "Invalid value for '--trials'"),
        (["acquire", "--nope"], "No such option: --nope"),
        (["datasets", "nope"], "No such command 'nope'"),
        (["reproduce", "aopt-fig1", "--workers", "abc"], "Invalid value for '--workers'"),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else "",
)
def test_usage_errors_are_one_line(args: list[str], fragment: str) -> None:
    assert_cli_error(run_cli(*args), (fragment, "--help"))
