"""Every command takes ``--json`` and then prints only JSON on stdout.

The walk covers the typer app itself, so a new command without ``--json`` fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()


def _invoke(*args: object) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def _walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Yield (words, command) for every leaf command under ``command`` (hidden ones too)."""
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        yield path, command
        return
    for name in sorted(subcommands):
        yield from _walk(subcommands[name], (*path, name))


COMMANDS = list(_walk(typer.main.get_command(app)))
NAMES = [" ".join(words) for words, _ in COMMANDS]


def test_the_walk_finds_every_command() -> None:
    assert set(NAMES) >= {
        "audit", "acquire", "sample", "compare", "reproduce", "demo", "metrics",
        "datasets list", "datasets describe", "datasets fetch",
        "filter fit", "filter apply", "features train", "features acquire",
        "relational infer", "relational learn", "relational example",
    }  # fmt: skip


@pytest.mark.parametrize(("words", "command"), COMMANDS, ids=NAMES)
def test_every_command_has_a_json_option(words: tuple[str, ...], command: Any) -> None:
    options = {opt for param in command.params for opt in getattr(param, "opts", ())}
    assert "--json" in options, f"`fairacq {' '.join(words)}` has no --json option"


@pytest.mark.parametrize("words", [w for w, _ in COMMANDS], ids=NAMES)
def test_every_help_page_renders_and_names_json(words: tuple[str, ...]) -> None:
    res = runner.invoke(app, [*words, "--help"])
    assert res.exit_code == 0, res.output
    assert "--json" in res.stdout


def _json_only(res: Any) -> Any:
    """Parse stdout as one JSON document (anything else on stdout fails)."""
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_quick_commands_print_only_json(tmp_path) -> None:
    assert _json_only(_invoke("metrics", "--json"))
    assert _json_only(_invoke("reproduce", "--list", "--json"))
    assert _json_only(_invoke("datasets", "list", "--json"))
    assert _json_only(_invoke("datasets", "describe", "german", "--json"))
    assert _json_only(_invoke("datasets", "info", "german", "--json"))
    fetched = _json_only(_invoke("datasets", "fetch", "adult", "--json"))
    assert fetched["ok"]
    assert fetched["bundled"]
    example = tmp_path / "example"
    files = _json_only(_invoke("relational", "example", "--out", example, "--json"))
    inferred = _invoke(
        "relational", "infer", "--rules", files["rules"], "--data", files["data"],
        "--out", tmp_path / "inferred", "--json",
    )  # fmt: skip
    assert "map" in _json_only(inferred)


def test_audit_and_filter_print_only_json(tmp_path) -> None:
    audit = _invoke("audit", "--dataset", "german", "--sensitive", "sex", "--json")
    assert _json_only(audit)["dataset"]
    proxy = tmp_path / "proxy.json"
    fit = _invoke(
        "filter", "fit", "--dataset", "german", "--sensitive", "sex", "--proxy",
        "naive-regression", "--out", proxy, "--json",
    )  # fmt: skip
    assert _json_only(fit)["proxy"] == "naive-regression"
    from fairacq.data import load_dataset

    candidates = tmp_path / "candidates.csv"
    load_dataset("german", sensitive="sex").X.to_csv(candidates, index=False)
    applied = _invoke("filter", "apply", proxy, candidates, "--out", tmp_path / "a.csv", "--json")
    assert _json_only(applied)["n_seen"] == 1000


def test_acquire_and_features_print_only_json(tmp_path) -> None:
    acquired = _invoke(
        "acquire", "--dataset", "german", "--sensitive", "sex", "--method", "random",
        "--budget", "20%", "--batch", "50%", "--no-baseline", "--out", tmp_path / "a", "--json",
    )  # fmt: skip
    assert _json_only(acquired)["n_acquired"] > 0
    model = tmp_path / "model"
    trained = _invoke(
        "features", "train", "--dataset", "german", "--max-rows", "300", "--pretrain-iter",
        "5", "--train-iter", "2", "--out", model, "--json",
    )  # fmt: skip
    assert _json_only(trained)["out"] == str(model)
    from fairacq.data import load_dataset

    people = tmp_path / "people.csv"
    frame = load_dataset("german", sensitive="sex", include_sensitive_features=True).X
    frame.head(20).to_csv(people, index=False)
    revealed = _invoke("features", "acquire", model, people, "--json")
    assert _json_only(revealed)["n_people"] == 20
