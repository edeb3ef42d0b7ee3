"""``fairacq acquire`` on a user's raw tables: own column names, strings, costs, any model."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("raw")
    rng = np.random.default_rng(0)
    n = 900
    gender = rng.choice(["woman", "man"], n, p=[0.4, 0.6])
    job = rng.choice(["clerk", "nurse", "driver", "teacher"], n)
    age = rng.integers(18, 70, n)
    score = rng.normal(size=n) + (job == "teacher") * 1.0 + (age - 40) / 20
    hired = np.where(score + (gender == "man") * 0.6 > 0.4, "yes", "no")
    frame = pd.DataFrame(
        {
            "applicant_id": np.arange(n),
            "age": age,
            "job": job,
            "gender": gender,
            "hired": hired,
            "price": rng.uniform(1, 3, n).round(2),
        }
    )
    have = frame.iloc[:400].drop(columns=["price"])
    have.to_csv(root / "have.csv", index=False)
    pool = frame.iloc[400:].copy()
    pool.loc[pool.index[:5], "job"] = "pilot"  # a category the rows you have lack
    pool.to_parquet(root / "pool.parquet", index=False)
    pool.to_csv(root / "pool.csv", index=False)
    return root


def _acquire(tables, out, *extra):
    args = [
        "acquire", "--data", tables / "have.csv", "--pool", tables / "pool.parquet",
        "--label", "hired", "--positive", "yes", "--sensitive", "gender",
        "--drop", "applicant_id", "--cost", "price", "--method", "datasift",
        "--budget", "60", "--batch", "15", "--tau", "0.0001", "--out", out, *extra,
    ]  # fmt: skip
    return runner.invoke(app, [str(a) for a in args])


def test_raw_parquet_pool_runs_and_writes_rows(tables, tmp_path):
    res = _acquire(tables, tmp_path / "run")
    assert res.exit_code == 0, res.output
    assert "categories the training data did not have (job: 5)" in res.output
    rows = pd.read_parquet(tmp_path / "run" / "acquired.parquet")
    assert list(rows.columns[:4]) == ["order", "step", "batch", "pool_row"]
    assert {"applicant_id", "job", "gender", "hired", "price"} <= set(rows.columns)
    pool = pd.read_parquet(tables / "pool.parquet")
    assert rows["applicant_id"].tolist() == pool["applicant_id"].iloc[rows["pool_row"]].tolist()
    assert rows["price"].sum() <= 60 + 1e-9
    assert "job" in json.loads((tmp_path / "run" / "encoder.json").read_text())["categories"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert {r["method"] for r in summary["rows"]} == {"datasift", "random"}
    assert (tmp_path / "run" / "fairness.png").stat().st_size > 10_000


def test_csv_pool_same_order_as_parquet_and_no_baseline(tables, tmp_path):
    first = _acquire(tables, tmp_path / "pq", "--no-baseline")
    assert first.exit_code == 0, first.output
    args = [
        "acquire", "--data", tables / "have.csv", "--pool", tables / "pool.csv",
        "--label", "hired", "--positive", "yes", "--sensitive", "gender",
        "--drop", "applicant_id", "--cost", "price", "--method", "datasift",
        "--budget", "60", "--batch", "15", "--tau", "0.0001", "--out", tmp_path / "csv",
        "--no-baseline", "--json",
    ]  # fmt: skip
    second = runner.invoke(app, [str(a) for a in args])
    assert second.exit_code == 0, second.output
    a = pd.read_parquet(tmp_path / "pq" / "acquired.parquet")
    b = pd.read_parquet(tmp_path / "csv" / "acquired.parquet")
    assert a["applicant_id"].tolist() == b["applicant_id"].tolist()
    summary = json.loads(tmp_path.joinpath("csv", "summary.json").read_text())
    assert {r["method"] for r in summary["rows"]} == {"datasift"}


def test_user_model_and_influence_refusal(tables, tmp_path):
    res = _acquire(
        tables, tmp_path / "rf", "--model", "sklearn.ensemble:RandomForestClassifier",
        "--model-param", "n_estimators=5", "--no-baseline",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    bad = _acquire(
        tables, tmp_path / "inf", "--method", "datasift-inf",
        "--model", "sklearn.ensemble:RandomForestClassifier",
    )  # fmt: skip
    assert bad.exit_code == 2
    assert "needs a model with gradients" in bad.output
    assert "random, entropy, autodata or datasift" in bad.output
    assert "Traceback" not in bad.output


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (["--label", "outcome"], "no column 'outcome' for --label"),
        (["--positive", "maybe"], "--positive 'maybe' is not a value"),
        (["--sensitive", "sex"], "no column 'sex' for --sensitive"),
        (["--budget", "0.5x"], "is not a size"),
        (["--budget", "0.2"], "such as 20%"),
        (["--batch", "0"], "at least 1"),
        (["--model", "nosuch_pkg_xyz:Model"], "Cannot import module"),
        (["--model-param", "C"], "is not key=value"),
        (
            ["--model", "sklearn.linear_model:LogisticRegression", "--model-param", "nope=1"],
            "takes no parameter 'nope'",
        ),
    ],
)
def test_bad_options_one_line(tables, tmp_path, change, fragment):
    res = _acquire(tables, tmp_path / "bad", *change)
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert fragment in lines[0]


def test_label_with_three_values_needs_positive(tables, tmp_path):
    frame = pd.read_csv(tables / "have.csv")
    frame["hired"] = np.where(frame.index % 3 == 0, "maybe", frame["hired"])
    frame.to_csv(tmp_path / "have3.csv", index=False)
    args = [
        "acquire", "--data", tmp_path / "have3.csv", "--pool", tables / "pool.csv",
        "--label", "hired", "--sensitive", "gender", "--drop", "applicant_id",
        "--cost", "price", "--out", tmp_path / "o",
    ]  # fmt: skip
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 2
    assert "not 0/1. Name the favourable one with --positive" in res.output


def test_pool_without_rows_you_have(tables, tmp_path):
    res = runner.invoke(
        app, ["acquire", "--pool", str(tables / "pool.csv"), "--out", str(tmp_path)]
    )
    assert res.exit_code == 2
    assert "--data FILE" in res.output


def test_deprecated_column_options_still_work_with_a_note(tables, tmp_path):
    args = [
        "acquire", "--data", tables / "have.csv", "--pool", tables / "pool.csv",
        "--label", "hired", "--positive", "yes", "--sensitive-column", "gender",
        "--drop", "applicant_id", "--cost-column", "price", "--method", "random",
        "--budget", "20", "--batch", "10", "--out", tmp_path,
    ]  # fmt: skip
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    assert "note: --sensitive-column is deprecated; use --sensitive." in res.stderr
    assert "note: --cost-column is deprecated; use --cost." in res.stderr


def test_post_thresholds_writes_each_groups_rule_by_its_own_name(tables, tmp_path):
    res = _acquire(tables, tmp_path / "post", "--method", "post-thresholds", "--tol", "0.05")
    assert res.exit_code == 0, res.output
    assert "thresholds.json" in res.output
    saved = json.loads((tmp_path / "post" / "thresholds.json").read_text())
    assert (saved["tol"], saved["metric"]) == (0.05, "demographic_parity_diff_abs")
    assert saved["placement"] == "pool"  # demographic parity: one threshold per group
    assert set(saved["groups"]) == {"woman", "man"}
    assert {(r["p0"], r["p1"]) for r in saved["groups"].values()} == {(1.0, 0.0)}
    for rule in saved["groups"].values():
        assert rule["p0"] + rule["p1"] == pytest.approx(1.0)
        assert rule["threshold0"] in ("inf", "-inf") or 0.0 <= rule["threshold0"] <= 1.0
    summary = json.loads((tmp_path / "post" / "summary.json").read_text())
    assert not any("fairness target was not reached" in w for w in summary.get("warnings", []))
    res = _acquire(tables, tmp_path / "coin", "--method", "post-thresholds", "--placement",
                   "validation")  # fmt: skip
    assert res.exit_code == 0, res.output
    saved = json.loads((tmp_path / "coin" / "thresholds.json").read_text())
    assert saved["placement"] == "validation"
