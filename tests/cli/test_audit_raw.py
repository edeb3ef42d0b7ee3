"""``fairacq audit`` and ``audit()`` on a user's raw table, any model, warnings on trust."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.exceptions import InvalidDataError, ResultWarning
from fairacq.models import audit

runner = CliRunner()


def _people(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south"], n, p=[0.9, 0.1])
    sector = rng.choice(["retail", "health", "transport"], n)
    income = rng.normal(40, 10, n).round(1)
    repaid = np.where(income + (sector == "health") * 5 + rng.normal(0, 5, n) > 40, "paid", "late")
    return pd.DataFrame(
        {"client": np.arange(n), "income": income, "sector": sector, "region": region,
         "repaid": repaid}
    )  # fmt: skip


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "clients.parquet"
    _people().to_parquet(path, index=False)
    return path


def test_cli_audit_raw_table_json(table):
    args = [
        "audit", "--data", table, "--label", "repaid", "--positive", "paid",
        "--sensitive", "region", "--drop", "client", "--json",
    ]  # fmt: skip
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert [g["group"] for g in payload["groups"]] == ["north", "south"]
    assert all(g["accuracy_low"] <= g["accuracy"] <= g["accuracy_high"] for g in payload["groups"])
    assert any("fewer than 30 test rows: south" in w for w in payload["warnings"])
    assert "warning: groups with fewer than 30" in res.stderr


def test_cli_audit_user_model_intersectional(table):
    args = [
        "audit", "--data", table, "--label", "repaid", "--positive", "paid",
        "--sensitive", "region,sector", "--drop", "client",
        "--model", "sklearn.tree:DecisionTreeClassifier", "--model-param", "max_depth=3",
    ]  # fmt: skip
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    assert "DecisionTreeClassifier on clients.parquet" in res.stdout
    payload = json.loads(runner.invoke(app, [*map(str, args), "--json"]).stdout)
    assert payload["model"] == "DecisionTreeClassifier"
    assert payload["sensitive"] == ["region", "sector"]
    assert "north & health" in [g["group"] for g in payload["groups"]]


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--sensitive", "gender"], "no column 'gender' for --sensitive"),
        (["--sensitive", "region", "--label", "repaid"], "not 0/1"),
        (
            ["--sensitive", "region", "--positive", "paid", "--model", "x_no_such:M"],
            "Cannot import module",
        ),
        (
            ["--sensitive", "region", "--positive", "paid", "--test-size", "1.5"],
            "--test-size must lie strictly between 0 and 1",
        ),
    ],
)
def test_cli_audit_bad_input(table, extra, fragment):
    args = ["audit", "--data", table, "--label", "repaid", "--drop", "client", *extra]
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 2
    assert fragment in res.output
    assert "Traceback" not in res.output


def test_api_fairlearn_form_with_pipeline():
    people = _people(600, seed=1)
    X = people[["income", "sector"]]
    pipe = make_pipeline(StandardScaler(), LogisticRegression(C=0.5))
    with pytest.warns(ResultWarning, match="fewer than 30 test rows"):
        report = audit(
            X, pipe, y=people["repaid"], sensitive_features=people["region"], positive="paid"
        )
    assert report.model == "Pipeline(StandardScaler, LogisticRegression)"
    assert report.groups["group"].tolist() == ["north", "south"]
    assert report.n_train + report.n_test == 600


def test_api_one_class_model_warns():
    people = _people(600, seed=2)
    people["repaid"] = np.where(np.arange(600) % 25 == 0, "paid", "late")  # 4 % positives
    with pytest.warns(ResultWarning, match="predicts 0 for every test row"):
        audit(
            people[["income"]], "lr", y=people["repaid"],
            sensitive_features=people["sector"], positive="paid",
        )  # fmt: skip


def test_api_needs_labels_with_raw_features():
    with pytest.raises(InvalidDataError, match="need y and sensitive_features"):
        audit(pd.DataFrame({"a": [1, 2]}))


def test_cli_audit_metric_short_names(table):
    args = [
        "audit", "--data", table, "--label", "repaid", "--positive", "paid",
        "--sensitive", "region", "--drop", "client", "--metric", "dp", "--metric", "eopp",
        "--json",
    ]  # fmt: skip
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    metrics = json.loads(res.stdout)["metrics"]
    assert set(metrics) == {"demographic_parity_diff_abs", "equal_opportunity_diff"}
