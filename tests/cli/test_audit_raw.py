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
from fairacq.models import audit, audit_predictions

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
    with pytest.warns(ResultWarning, match="predicts 0 for every one of the test rows"):
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


# --- the user's own predictions (--predictions COL) -------------------------------------


@pytest.fixture
def scored(tmp_path):
    """The clients table with a model's scores and decisions written into it by the user."""
    people = _people(500, seed=3)
    people["score"] = np.clip((people["income"] - 20) / 40, 0, 1).round(4)
    people["decision"] = np.where(people["score"] >= 0.5, "paid", "late")
    people["flag"] = (people["score"] >= 0.5).astype(int)
    people["always"] = 0
    path = tmp_path / "scored.csv"
    people.to_csv(path, index=False)
    return path, people


def _audit(path, *extra):
    args = ["audit", "--data", path, "--label", "repaid", "--positive", "paid",
            "--sensitive", "region", *extra]  # fmt: skip
    return runner.invoke(app, [str(a) for a in args])


def test_cli_predictions_label_values_match_the_api(scored):
    path, people = scored
    res = _audit(path, "--predictions", "decision", "--json")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert (payload["source"], payload["n_train"], payload["n_test"]) == ("predictions", 0, 500)
    assert payload["model"] == "predictions in column 'decision'"
    api = audit_predictions(people["repaid"], people["decision"],
                            sensitive_features=people["region"], positive="paid")  # fmt: skip
    assert payload["metrics"] == pytest.approx(api.metrics)
    flags = json.loads(_audit(path, "--predictions", "flag", "--json").stdout)
    assert flags["metrics"] == payload["metrics"]  # 0/1 decisions read the same


def test_cli_predictions_scores_are_thresholded(scored):
    path, people = scored
    res = _audit(path, "--predictions", "score", "--threshold", "0.7", "--json")
    assert res.exit_code == 0, res.output
    groups = json.loads(res.stdout)["groups"]
    chosen = people["score"] >= 0.7
    expected = chosen.groupby(people["region"]).mean()
    assert [g["selection_rate"] for g in groups] == pytest.approx(expected.tolist())
    assert all(g["auc"] is not None for g in groups)
    plain = _audit(path, "--predictions", "score")
    assert plain.exit_code == 0, plain.output
    assert "all 500 rows, no model trained" in " ".join(plain.stdout.split())


def test_cli_constant_predictions_are_never_called_fair(scored):
    path, _ = scored
    res = _audit(path, "--predictions", "always")
    assert res.exit_code == 0, res.output
    assert "warning: the model predicts 0 for every one of the rows" in res.stderr
    assert "NOT A SIGN OF FAIRNESS" in res.stdout
    payload = json.loads(_audit(path, "--predictions", "always", "--json").stdout)
    assert payload["one_class"] is True
    assert any("do not read it as fair" in w for w in payload["warnings"])


# --- degenerate models: an error, or a warning the table cannot hide --------------------


def test_cli_dummy_model_and_rare_label_warn(table, tmp_path):
    base = ["audit", "--data", table, "--label", "repaid", "--positive", "paid",
            "--sensitive", "region", "--drop", "client"]  # fmt: skip
    res = runner.invoke(app, [*map(str, base), "--model", "sklearn.dummy:DummyClassifier"])
    assert res.exit_code == 0, res.output
    assert "warning: the model predicts" in res.stderr
    assert "NOT A SIGN OF FAIRNESS" in res.stdout
    rare = _people(1000, seed=4)
    rare["repaid"] = np.where(np.arange(1000) % 100 == 0, "paid", "late")  # 1 % positives
    rare_path = tmp_path / "rare.csv"
    rare.to_csv(rare_path, index=False)
    out = runner.invoke(app, [*map(str, base[:2]), str(rare_path), *base[3:], "--json"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload["one_class"] is True
    assert payload["warnings"][0].startswith("the model predicts 0 for every one of the test")


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("tests.degenerate_models:NanProba", "probabilities that are not numbers"),
        ("tests.degenerate_models:WideProba", "outside 0 to 1"),
    ],
)
def test_cli_degenerate_probabilities_are_one_error_line(table, model, fragment):
    args = ["audit", "--data", table, "--label", "repaid", "--positive", "paid",
            "--sensitive", "region", "--drop", "client", "--model", model]  # fmt: skip
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: ")
    assert fragment in lines[0]


def test_cli_huge_value_row_is_refused(tmp_path):
    people = _people(300, seed=5)
    people.loc[7, "income"] = 1e308
    people.loc[9, "income"] = -1e308
    path = tmp_path / "huge.csv"
    people.to_csv(path, index=False)
    args = ["audit", "--data", path, "--label", "repaid", "--positive", "paid",
            "--sensitive", "region", "--drop", "client"]  # fmt: skip
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 2, res.output
    assert "'income'" in res.output
    assert "Rescale" in res.output
