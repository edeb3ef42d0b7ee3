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
    res = runner.invoke(app, ["relational", "learn", "--refine-evaluations", "0"])
    assert res.exit_code == 2
    assert "--refine-evaluations must be >= 1" in res.output


@pytest.mark.slow
@pytest.mark.needs_data("fair-a3sl/biasedPaperReview")
def test_learn_paper_review_writes_rules_and_metrics(tmp_path):
    out = tmp_path / "learned"
    res = runner.invoke(
        app,
        [
            "relational", "learn", "--dataset", "paper-review", "--fair", "rd<=0.1",
            "--prior", "eqodds=0.1", "--episodes", "2", "--out", str(out), "--json",
            "--refine-evaluations", "20",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["variant"] == "fair1"
    assert payload["alpha_odds"] == 0.1
    assert abs(payload["test_metrics"]["rd"]) <= 0.1 + 1e-3
    rules = (out / "rules.psl").read_text().splitlines()
    assert rules
    assert len(payload["weights"]) == len(rules)
    assert (out / "history.csv").exists()
    assert (out / "agent_rules.psl").read_text().splitlines()
    assert payload["best_reward"] >= payload["agent_reward"]
    assert payload["refine_evaluations"] == 20
    # Two episodes leave the policy exploring: warned on stderr and kept in summary.json.
    assert 0.5 < payload["exploration"] <= 1.0
    assert any("exploration did not decay" in w for w in payload["warnings"])
    assert "warning: Fair-A3SL: exploration did not decay" in res.stderr
    assert json.loads((out / "summary.json").read_text()) == payload


def test_infer_soft_truth_warns_and_reports_null_not_nan(psl_dir):
    users = [f"u{i}" for i in range(8)]
    soft = [0.3, 0.4, 0.3, 0.2, 0.3, 0.3, 0.4, 0.3]  # all below 0.5: one class
    (psl_dir / "data" / "recid_truth.txt").write_text(
        "".join(f"{u}\t{v}\n" for u, v in zip(users, soft, strict=True))
    )
    out = psl_dir / "soft"
    res = runner.invoke(
        app,
        [
            "relational", "infer", "--rules", str(psl_dir / "model.psl"),
            "--data", str(psl_dir / "data"), "--fair", "rd<=0.1 protected=grp",
            "--out", str(out), "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("warning: 8 of 8 truth values of 'recid' lie strictly between")
    assert "threshold 0.5" in lines[0]
    assert lines[1].startswith("warning: auc_pr_protected, auc_pr_unprotected, auc_roc")
    assert "NaN" not in res.stdout
    summary = json.loads(res.stdout)
    assert summary["metrics"]["auc_roc"] is None
    assert abs(summary["metrics"]["rd"]) <= 0.1 + 1e-4
    assert summary["warnings"] == [line.removeprefix("warning: ") for line in lines]
    assert json.loads((out / "summary.json").read_text()) == summary
    # Without --json: the short line skips what is undefined.
    res = runner.invoke(
        app,
        [
            "relational", "infer", "--rules", str(psl_dir / "model.psl"),
            "--data", str(psl_dir / "data"), "--fair", "rd<=0.1 protected=grp",
            "--out", str(out), "--overwrite",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "nan" not in res.stdout.lower()
    assert "rd -0.1000" in res.stdout


def test_infer_rating_task_gives_mse(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    pairs = [(f"u{u}", f"m{m}") for u in range(4) for m in range(3)]
    ratings = [0.2, 0.4, 0.6, 0.8, 1.0, 0.6, 0.4, 0.2, 0.8, 0.6, 0.4, 1.0]
    (data / "avg_obs.txt").write_text(
        "".join(f"{u}\t{m}\t{r}\n" for (u, m), r in zip(pairs, ratings, strict=True))
    )
    (data / "female_obs.txt").write_text(
        "".join(f"{u}\t{m}\t{int(u in ('u0', 'u1'))}\n" for u, m in pairs)
    )
    (data / "rating_targets.txt").write_text("".join(f"{u}\t{m}\n" for u, m in pairs))
    (data / "rating_truth.txt").write_text(
        "".join(f"{u}\t{m}\t{r}\n" for (u, m), r in zip(pairs, ratings[::-1], strict=True))
    )
    (tmp_path / "model.psl").write_text(
        "1: avg(U, M) -> rating(U, M) ^2\n1: rating(U, M) -> avg(U, M) ^2\n"
    )
    res = runner.invoke(
        app,
        [
            "relational", "infer", "--rules", str(tmp_path / "model.psl"), "--data", str(data),
            "--fair", "nonparity<=0.05 protected=female", "--task", "rating",
            "--out", str(tmp_path / "out"), "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
    metrics = json.loads(res.stdout)["metrics"]
    assert set(metrics) >= {"mse", "non_parity", "overestimation"}
    assert metrics["non_parity"] <= 0.05 + 1e-4
