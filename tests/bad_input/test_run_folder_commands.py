"""Every command that writes a folder keeps one run in it: features, relational, demo, reproduce.

``features train``, ``relational infer``/``learn`` and ``demo`` build their folder aside and
swap it in: an earlier run is refused without ``--overwrite`` (byte-for-byte intact), a
folder with the user's own files always. ``demo`` replaces its own earlier demo (reusing its
finished tasks). ``reproduce`` goes on in its own folder but refuses another command's run
or another experiment's.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from fairacq.exceptions import InvalidParameterError
from fairacq_experiments.cli._experiment_folder import check_experiment_folder, experiment_in
from tests.bad_input._corpus import assert_api_error, assert_cli_error, run_cli
from tests.bad_input.test_run_folders import ROLES, _snapshot

TINY = ("--max-rows", "200", "--pretrain-iter", "2", "--train-iter", "1")
RULES = "5: risky(U) -> recid(U) ^2\n5: !recid(U) ^2\n"


@pytest.fixture
def work(files: Path, tmp_path: Path) -> Path:
    """``run/``: a finished sample run; ``psl/``: rules and a PSL data folder."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.json").write_text('{"method": "aopt"}\n')
    (run / "counts.csv").write_text("group,count\nf,10\n")
    data = tmp_path / "psl" / "data"
    data.mkdir(parents=True)
    users = [f"u{i}" for i in range(8)]
    for name, values in (("risky_obs", [1, 1, 1, 0, 0, 0, 1, 0]), ("grp_obs", [1] * 4 + [0] * 4)):
        (data / f"{name}.txt").write_text(
            "".join(f"{u}\t{v}\n" for u, v in zip(users, values, strict=True))
        )
    (data / "recid_targets.txt").write_text("".join(f"{u}\n" for u in users))
    (tmp_path / "psl" / "model.psl").write_text(RULES)
    (tmp_path / "people.csv").write_bytes((files / "people.csv").read_bytes())
    return tmp_path


def _command(name: str, work: Path) -> list[object]:
    psl = work / "psl"
    return {
        "features train": ["features", "train", "--data", work / "people.csv", *ROLES, *TINY],
        "relational infer": ["relational", "infer", "--rules", psl / "model.psl",
                             "--data", psl / "data"],
        "relational learn": ["relational", "learn", "--dataset", "paper-review",
                             "--episodes", "1"],
        "demo": ["demo"],
    }[name] + ["--out", work / "run"]  # fmt: skip


COMMANDS = ["features train", "relational infer", "relational learn", "demo"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_holding_a_finished_run_is_refused(work: Path, command: str) -> None:
    before = _snapshot(work / "run")
    res = run_cli(*_command(command, work))
    assert_cli_error(res, ("already holds a finished run", "--overwrite", "another --out"))
    assert _snapshot(work / "run") == before


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_holding_other_files_is_never_replaced(work: Path, command: str) -> None:
    (work / "run" / "my notes.txt").write_text("mine\n")
    before = _snapshot(work / "run")
    res = run_cli(*_command(command, work), "--overwrite")
    assert_cli_error(res, ("files fairacq did not write", "my notes.txt", "empty or new --out"))
    assert _snapshot(work / "run") == before


def test_overwrite_replaces_the_whole_earlier_run(work: Path) -> None:
    """(features train goes through the same swap: tests/cli/test_features_cli.py.)"""
    res = run_cli(*_command("relational infer", work), "--overwrite", "--json")
    assert res.exit_code == 0, res.output
    names = {p.name for p in (work / "run").iterdir()}
    assert "atoms.parquet" in names
    assert "summary.json" in names
    assert "counts.csv" not in names  # nothing of the earlier run is left beside the new one
    assert not list(work.glob(".run.*")), "a building or aside folder was left behind"
    saved = json.loads((work / "run" / "summary.json").read_text())
    assert saved["atoms"] == str(work / "run" / "atoms.parquet")  # not the building folder


# -- demo ------------------------------------------------------------------------------------


def _fake_demo(monkeypatch: pytest.MonkeyPatch, seen: list[set[str]]) -> None:
    """Stand-ins for the demo's audit and experiment (the real ones take a minute)."""

    def run_named(name: str, *, out: Path, **_: Any) -> Any:
        seen.append({p.name for p in (out / "task-cache").glob("*")})
        (out / "task-cache").mkdir(exist_ok=True)
        (out / "task-cache" / f"task{len(seen)}.jsonl").write_text("{}\n")
        (out / "config.json").write_text(json.dumps({"experiment": name}))
        (out / "summary.md").write_text(f"run {len(seen)}\n")
        return SimpleNamespace(experiment=name, preset="quick", config={"n_trials": 1}, rows=[])

    report = SimpleNamespace(to_dict=lambda: {"audit": True})
    monkeypatch.setattr("fairacq_experiments.cli._demo.run_named", run_named)
    monkeypatch.setattr("fairacq.models.audit", lambda *a, **k: report)
    monkeypatch.setattr("fairacq.data.load_dataset", lambda *a, **k: None)


def test_demo_replaces_its_own_earlier_demo_and_reuses_its_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[set[str]] = []
    _fake_demo(monkeypatch, seen)
    for _ in range(2):  # `make demo` twice
        res = run_cli("demo", "--out", tmp_path / "demo", "--json")
        assert res.exit_code == 0, res.output
    assert seen == [set(), {"task1.jsonl"}]  # the second demo started from the first's tasks
    assert (tmp_path / "demo" / "summary.md").read_text() == "run 2\n"
    assert sorted(p.name for p in (tmp_path / "demo" / "task-cache").iterdir()) == [
        "task1.jsonl",
        "task2.jsonl",
    ]
    assert not list(tmp_path.glob(".demo.*"))


def test_demo_over_another_experiment_needs_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_demo(monkeypatch, [])
    out = tmp_path / "demo"
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"experiment": "dadi-fig2"}))
    assert_cli_error(
        run_cli("demo", "--out", out), ("already holds a finished run", "--overwrite")
    )
    res = run_cli("demo", "--out", out, "--overwrite", "--json")
    assert res.exit_code == 0, res.output
    assert experiment_in(out) == "demo-datasift"


# -- reproduce -------------------------------------------------------------------------------


def test_reproduce_refuses_another_commands_run(work: Path) -> None:
    before = _snapshot(work / "run")
    res = run_cli("reproduce", "demo-datasift", "--out", work / "run")
    assert_cli_error(
        res, ("holds the run of another fairacq command (counts.csv)", "another --out")
    )
    assert _snapshot(work / "run") == before


def test_check_experiment_folder(tmp_path: Path) -> None:
    check_experiment_folder(tmp_path / "new", "demo-datasift")  # a new folder is fine
    (tmp_path / "notes.txt").write_text("mine\n")  # left alone: files are written beside it
    check_experiment_folder(tmp_path, "demo-datasift")
    (tmp_path / "config.json").write_text(json.dumps({"experiment": "demo-datasift"}))
    check_experiment_folder(tmp_path, "demo-datasift")  # its own earlier run: goes on
    assert_api_error(
        lambda: check_experiment_folder(tmp_path, "dadi-fig2"),
        ("holds a run of 'demo-datasift', not of 'dadi-fig2'", "another --out"),
        InvalidParameterError,
    )
    (tmp_path / "config.json").write_text("[1, 2]")
    assert_api_error(
        lambda: check_experiment_folder(tmp_path, "dadi-fig2"),
        "a config.json that is no experiment's",
        InvalidParameterError,
    )
