"""``features train|acquire`` say how varied the policy is and never hide a degenerate model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()
TINY = ["--pretrain-iter", "10", "--train-iter", "3", "--seed", "1"]


def _table(n: int, *, positive_share: float = 0.5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hired = rng.random(n) < positive_share
    return pd.DataFrame(
        {"age": rng.integers(18, 70, n), "trade": rng.choice(["baker", "coder"], n),
         "district": rng.choice(["east", "west"], n),
         "decision": np.where(hired, "hired", "rejected")}
    )  # fmt: skip


def _train(table: Path, out: Path, *extra: str):
    roles = ["--label", "decision", "--positive", "hired", "--sensitive", "district"]
    args = ["features", "train", "--data", str(table), *roles, "--out", str(out)]
    return runner.invoke(app, [*args, *TINY, *extra])


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("policy")
    _table(200).to_csv(root / "mine.csv", index=False)
    _table(60, seed=3).drop(columns="decision").to_csv(root / "people.csv", index=False)
    res = _train(root / "mine.csv", root / "model")
    assert res.exit_code == 0, res.output
    return root, root / "model"


def test_train_says_quick_is_a_smoke_test_and_reports_the_policy(trained) -> None:
    _root, model = trained
    summary = json.loads((model / "summary.json").read_text())
    assert "smoke test" in summary["preset_note"]
    policy = summary["test_policy"]
    assert policy["n_people"] == summary["n_test"]
    assert 1 <= policy["n_feature_sets"] <= 8


def test_acquire_prints_how_varied_the_policy_is(trained, tmp_path: Path) -> None:
    root, model = trained
    args = ["features", "acquire", str(model), str(root / "people.csv")]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "asked.csv")])
    assert res.exit_code == 0, res.output
    asked = pd.read_csv(tmp_path / "asked.csv", dtype={"revealed": str}, keep_default_na=False)
    n_sets = asked["revealed"].map(lambda o: frozenset(o.split(","))).nunique()
    assert f"asked {n_sets} " in res.stdout
    as_json = runner.invoke(app, [*args, "--json"])
    policy = json.loads(as_json.stdout)["policy"]
    assert policy["n_feature_sets"] == n_sets
    if n_sets == 1:  # a collapsed policy is never silent
        assert "warning: the agent asks" in as_json.stderr


def test_a_one_percent_positive_label_is_flagged(tmp_path: Path) -> None:
    _table(3000, positive_share=0.01).to_csv(tmp_path / "rare.csv", index=False)
    res = _train(tmp_path / "rare.csv", tmp_path / "m")
    assert res.exit_code == 0, res.output
    assert "warning: one-class classifier: the classifier predicts 0" in res.stderr
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert any(w.startswith("one-class classifier") for w in summary["warnings"])
    assert "already fair" not in res.output


def test_nan_probabilities_are_one_error_line(tmp_path: Path, monkeypatch) -> None:
    from fairacq.features.dadi._estimator import DADI

    monkeypatch.setattr(DADI, "predict_proba", lambda self, X, mask=None: np.full(len(X), np.nan))
    _table(200).to_csv(tmp_path / "mine.csv", index=False)
    res = _train(tmp_path / "mine.csv", tmp_path / "m")
    assert res.exit_code == 2, res.output
    errors = [line for line in res.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1
    assert "not numbers" in errors[0]
    assert "Traceback" not in res.output


def test_train_writes_a_loadable_trace(trained) -> None:
    from fairacq import Trace, __version__

    _root, model = trained
    trace = Trace.load(model)  # the folder's trace.parquet + trace.json, as for every command
    rows = trace.to_frame()
    joint = rows[rows["phase"] == "joint"]
    assert joint["iteration"].tolist() == [1, 2, 3]
    assert set(rows["phase"]) == {"pretrain-classifier", "pretrain-adversary", "joint"}
    assert rows["cost"].iloc[-1] == 2 * 10 + 3  # both pre-trainings, then the joint ones
    assert {"q_loss", "adversary_loss", "epsilon", "val_auc"} <= set(trace.metrics)
    assert trace.meta["method"] == "dadi"
    assert trace.meta["config"]["n_train_iter"] == 3
    assert trace.meta["seed"] == 1
    assert trace.meta["fairacq_version"] == __version__
