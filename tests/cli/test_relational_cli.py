"""``fairacq relational infer|learn``."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()

RULES = "5: risky(U) -> recid(U) ^2\n5: !recid(U) ^2\n"


@pytest.fixture
def psl_dir(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    users = [f"u{i}" for i in range(8)]
    risky = [1, 1, 1, 0.5, 0, 0, 1, 0]
    truth = [1, 1, 0, 1, 0, 0, 1, 0]
    group = [1, 1, 1, 1, 0, 0, 0, 0]
    (data / "risky_obs.txt").write_text(
        "".join(f"{u}\t{v}\n" for u, v in zip(users, risky, strict=True))
    )
    (data / "grp_obs.txt").write_text(
        "".join(f"{u}\t{v}\n" for u, v in zip(users, group, strict=True))
    )
    (data / "recid_targets.txt").write_text("".join(f"{u}\n" for u in users))
    (data / "recid_truth.txt").write_text(
        "".join(f"{u}\t{v}\n" for u, v in zip(users, truth, strict=True))
    )
    rules = tmp_path / "model.psl"
    rules.write_text(RULES)
    return tmp_path


def test_infer_writes_atoms_metrics_and_model(psl_dir):
    out = psl_dir / "out"
    res = runner.invoke(
        app,
        [
            "relational", "infer", "--rules", str(psl_dir / "model.psl"),
            "--data", str(psl_dir / "data"), "--fair", "rd<=0.05 protected=grp",
            "--out", str(out), "--learn", "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert abs(summary["metrics"]["rd"]) <= 0.05 + 1e-4
    assert summary["fairness"] == ["rd<=0.05"]
    atoms = pd.read_parquet(out / "atoms.parquet")
    assert len(atoms) == 8
    assert atoms["value"].between(0, 1).all()
    assert json.loads((out / "metrics.json").read_text())["metrics"] == summary["metrics"]
    model = (out / "model.psl").read_text().splitlines()
    assert len(model) == 2
    assert all(line.endswith("^2") for line in model)


def test_infer_csv_without_constraint_prints_one_line(psl_dir):
    out = psl_dir / "plain"
    res = runner.invoke(
        app,
        [
            "relational", "infer", "--rules", str(psl_dir / "model.psl"),
            "--data", str(psl_dir / "data"), "--out", str(out), "--format", "csv",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert len(res.output.strip().splitlines()) == 1
    frame = pd.read_csv(out / "atoms.csv")
    assert list(frame.columns) == ["predicate", "arg0", "value"]


@pytest.mark.parametrize(
    ("fair", "fragment"),
    [("rd<=0.1 colour=red", "unknown option"), ("rd<=0.1", "protected=")],
)
def test_infer_bad_fair_option_exits_2(psl_dir, fair, fragment):
    res = runner.invoke(
        app,
        [
            "relational", "infer", "--rules", str(psl_dir / "model.psl"),
            "--data", str(psl_dir / "data"), "--fair", fair, "--out", str(psl_dir / "x"),
        ],
    )  # fmt: skip
    assert res.exit_code == 2
    assert fragment in res.output


def test_infer_unknown_group_predicate_exits_2(psl_dir):
    res = runner.invoke(
        app,
        [
            "relational", "infer", "--rules", str(psl_dir / "model.psl"),
            "--data", str(psl_dir / "data"), "--fair", "rd<=0.1 protected=student",
            "--out", str(psl_dir / "x"),
        ],
    )  # fmt: skip
    assert res.exit_code == 2
    assert "not an observed predicate" in res.output


def test_learn_rejects_bad_input():
    res = runner.invoke(app, ["relational", "learn", "--dataset", "compass"])
    assert res.exit_code == 2
    assert "Did you mean 'compas'" in res.output
    res = runner.invoke(app, ["relational", "learn", "--prior", "odds0.1"])
    assert res.exit_code == 2
    assert "eqodds=" in res.output
    res = runner.invoke(app, ["relational", "learn", "--refine-seconds", "0"])
    assert res.exit_code == 2
    assert "--refine-seconds must be > 0" in res.output


@pytest.mark.slow
@pytest.mark.needs_data("fair-a3sl/biasedPaperReview")
def test_learn_paper_review_writes_rules_and_metrics(tmp_path):
    out = tmp_path / "learned"
    res = runner.invoke(
        app,
        [
            "relational", "learn", "--dataset", "paper-review", "--fair", "rd<=0.1",
            "--prior", "eqodds=0.1", "--episodes", "2", "--out", str(out), "--json",
            "--refine-seconds", "2",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    payload = json.loads(res.output)
    assert payload["variant"] == "fair1"
    assert payload["alpha_odds"] == 0.1
    assert abs(payload["test_metrics"]["rd"]) <= 0.1 + 1e-3
    rules = (out / "rules.psl").read_text().splitlines()
    assert rules
    assert len(payload["weights"]) == len(rules)
    assert (out / "history.csv").exists()
    assert (out / "agent_rules.psl").read_text().splitlines()
    assert payload["best_reward"] >= payload["agent_reward"]
    assert payload["refine_seconds"] == 2.0
