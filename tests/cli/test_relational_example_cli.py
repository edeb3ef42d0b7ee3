"""``fairacq relational example``: the commands it prints run as printed."""

from __future__ import annotations

import json
import shlex

from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()


def _printed_commands(output: str) -> list[list[str]]:
    lines = [line.strip() for line in output.splitlines()]
    commands = [shlex.split(line) for line in lines if line.startswith("fairacq ")]
    assert all(c[:3] == ["fairacq", "relational", "infer"] for c in commands)
    return [c[1:] for c in commands]


def test_example_prints_commands_that_run(tmp_path):
    folder = tmp_path / "my example"  # a space: the printed paths are quoted
    res = runner.invoke(app, ["relational", "example", "--out", str(folder)])
    assert res.exit_code == 0, res.output
    assert (folder / "model.psl").is_file()
    assert (folder / "data" / "protectedPaper_obs.txt").is_file()
    plain, fair = _printed_commands(res.stdout)
    assert "--fair" in fair
    assert "rd<=0.1" in fair[fair.index("--fair") + 1]
    results = {}
    for name, args in (("plain", plain), ("fair", fair)):
        ran = runner.invoke(app, [*args, "--json"])
        assert ran.exit_code == 0, ran.output
        assert ran.stderr == ""  # no warning on the example
        results[name] = json.loads(ran.stdout)
    assert results["plain"]["fairness"] == []
    assert abs(results["plain"]["metrics"]["rd"]) > 0.1  # the bias the constraint removes
    assert results["fair"]["fairness"] == ["rd<=0.1"]
    assert abs(results["fair"]["metrics"]["rd"]) <= 0.1 + 1e-4
    assert (folder / "run-fair" / "summary.json").is_file()
    # Printed without --json: one line each.
    again = runner.invoke(app, [*fair, "--overwrite"])  # the run above is in its --out
    assert again.exit_code == 0, again.output
    assert len(again.stdout.strip().splitlines()) == 1


def test_example_json(tmp_path):
    res = runner.invoke(app, ["relational", "example", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["rules"] == str(tmp_path / "model.psl")
    assert len(payload["commands"]) == 2


def test_the_readme_command_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (
        runner.invoke(app, ["relational", "example", "--out", "relational-example"]).exit_code == 0
    )
    res = runner.invoke(
        app,
        ["relational", "infer", "--rules", "relational-example/model.psl",
         "--data", "relational-example/data",
         "--fair", "rd<=0.1 protected=protectedPaper target=positiveSummary",
         "--learn", "--out", "inferred/"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert (tmp_path / "inferred" / "atoms.parquet").is_file()
