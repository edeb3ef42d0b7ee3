"""One table of a user's own, four questions, the command line only; then the Python API.

The table has its own column names, a string feature, a string group column, string labels
and a cost column. Each command must answer from the raw table (no hand encoding) and write
outputs a person can act on.
"""

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
from fairacq.exceptions import ResultWarning

runner = CliRunner()


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    borough = rng.choice(["east", "west", "north"], n, p=[0.5, 0.3, 0.2])
    trade = rng.choice(["baker", "welder", "coder", "nurse"], n)
    years = rng.integers(0, 30, n)
    merit = rng.normal(size=n) + years / 15 + (trade == "coder") * 0.7
    outcome = np.where(merit + (borough == "east") * 0.8 > 1.0, "approved", "declined")
    return pd.DataFrame(
        {
            "case_no": [f"c{i:04d}" for i in range(n)],
            "years_experience": years,
            "trade": trade,
            "borough": borough,
            "outcome": outcome,
            "fee": rng.uniform(1.0, 4.0, n).round(2),
        }
    )


ROLES = ["--label", "outcome", "--positive", "approved", "--sensitive", "borough"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("own")
    table = _table(1600, seed=3)
    table.iloc[:700].drop(columns=["fee"]).to_csv(root / "mine.csv", index=False)
    table.iloc[700:1400].to_parquet(root / "candidates.parquet", index=False)
    people = table.iloc[1400:].drop(columns=["outcome", "fee"])
    people.loc[people.index[:3], "trade"] = "pilot"  # never seen in training
    people.to_csv(root / "people.csv", index=False)
    return root


def _ok(*args) -> str:
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res.stdout


def test_which_rows_to_acquire(files, tmp_path):
    _ok(
        "acquire", "--data", files / "mine.csv", "--pool", files / "candidates.parquet",
        *ROLES, "--drop", "case_no", "--cost", "fee", "--method", "datasift",
        "--budget", "40", "--batch", "10", "--tau", "0.0001", "--out", tmp_path,
    )  # fmt: skip
    rows = pd.read_parquet(tmp_path / "acquired.parquet")
    assert {"case_no", "trade", "borough", "outcome", "fee", "step", "batch"} <= set(rows.columns)
    assert rows["fee"].sum() <= 40
    assert (tmp_path / "fairness.png").exists()


def test_how_many_per_group(files, tmp_path):
    out = _ok(
        "sample", "--data", files / "mine.csv", *ROLES, "--drop", "case_no",
        "--budget", "120", "--trials", "2", "--workers", "1", "--out", tmp_path, "--json",
    )  # fmt: skip
    summary = json.loads(out)
    counts = pd.read_csv(tmp_path / "counts.csv")
    assert set(counts["group"]) >= {"east", "west", "north"}
    assert "counts" in summary


def test_whom_to_admit_without_seeing_groups(files, tmp_path):
    proxy = tmp_path / "proxy.json"
    _ok(
        "filter", "fit", "--data", files / "mine.csv", *ROLES, "--drop", "case_no",
        "--proxy", "qp-tree", "--out", proxy,
    )  # fmt: skip
    candidates = pd.read_parquet(files / "candidates.parquet").drop(columns=["outcome"])
    candidates.to_csv(tmp_path / "applicants.csv", index=False)
    admitted = tmp_path / "admitted.csv"
    _ok("filter", "apply", proxy, tmp_path / "applicants.csv", "--out", admitted)
    frame = pd.read_csv(admitted)
    assert {"case_no", "trade", "admission_probability"} <= set(frame.columns)
    assert 0 < len(frame) < len(candidates)


def test_which_features_to_ask_each_person(files, tmp_path):
    # a few iterations: what is checked is how the people's table is read and answered
    model = tmp_path / "dadi"
    _ok(
        "features", "train", "--data", files / "mine.csv", *ROLES, "--drop", "case_no",
        "--preset", "quick", "--pretrain-iter", "10", "--train-iter", "10", "--out", model,
    )  # fmt: skip
    out = _ok("features", "acquire", model, files / "people.csv", "--id", "case_no", "--json")
    answer = json.loads(out)
    assert answer["unknown_categories"]["trade"] == 3
    assert answer["n_people"] == 200
    assert all(person["revealed"] for person in answer["people"])
    assert {p["case_no"] for p in answer["people"]} >= {"c1400", "c1599"}


def test_the_same_questions_through_the_api(files):
    from fairacq.acquisition import acquired_rows, make_acquirer, read_pool
    from fairacq.data import TableColumns, prepare_table, read_table, split_train_val_test
    from fairacq.models import audit
    from fairacq.sampling import allocate_budget

    pipe = make_pipeline(StandardScaler(), LogisticRegression(C=0.5))
    columns = TableColumns("outcome", ("borough",), positive="approved", drop=("case_no",))
    mine = prepare_table(read_table(files / "mine.csv"), columns)
    report = audit(mine.dataset, pipe, random_state=0)
    assert report.model == "Pipeline(StandardScaler, LogisticRegression)"

    split = split_train_val_test(mine.dataset, random_state=0)
    pool_columns = TableColumns(
        "outcome", ("borough",), positive="approved", drop=("case_no",), cost="fee"
    )
    pool, costs = read_pool(
        files / "candidates.parquet", like=split.train, columns=pool_columns, encoder=mine.encoder
    )
    acquirer = make_acquirer(
        "datasift", budget=40, batch_size=10, learner=pipe, tau=0.0001, random_state=0
    )
    acquirer.fit(split.train, pool, validation=split.validation, test=split.test, costs=costs)
    rows = acquired_rows(acquirer, pool)
    assert rows["fee"].sum() <= 40

    from fairacq.features import train_dadi
    from fairacq.filtering import filter_table, fit_table_proxy

    honest = "in-sample beta|predicts one group|predicts group|admits every|chance"
    with pytest.warns(ResultWarning, match=honest):
        proxy = fit_table_proxy(read_table(files / "mine.csv"), columns, "qp-tree", model=pipe)
    applicants = pd.read_parquet(files / "candidates.parquet").drop(columns=["outcome", "fee"])
    with pytest.warns(ResultWarning, match="same chance"):  # the proxy tells no group apart
        admitted = filter_table(proxy, applicants, random_state=0)
    assert "admission_probability" in admitted.rows.columns

    with pytest.warns(ResultWarning, match="one-class|exploration|asks"):  # 30 iterations
        run = train_dadi(mine, random_state=0, n_pretrain_iter=30, n_train_iter=30)
    assert set(run.summary()["features"]) == {"years_experience", "trade"}

    result = allocate_budget(mine.dataset, "aopt", budget=120, n_trials=1, learner=pipe)
    counts = result.counts()
    assert set(result.groups) == {"east", "west", "north"}
    assert counts[counts["method"] == "aopt"]["samples"].sum() == 120
