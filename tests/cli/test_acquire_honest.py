"""``fairacq acquire`` says what it paid for and never calls a one-class model fair."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()

ROLES = ["--label", "decision", "--positive", "hired", "--sensitive", "district"]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The README's table, smaller: rows you have, a pool with fees, and broken variants."""
    root = tmp_path_factory.mktemp("honest")
    rng = np.random.default_rng(0)
    n = 1300
    people = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n).astype(float),
            "trade": rng.choice(["baker", "welder", "coder", "nurse"], n),
            "district": rng.choice(["east", "west", "north"], n, p=[0.6, 0.3, 0.1]),
            "fee": rng.uniform(1, 4, n).round(2),
        }
    )
    merit = rng.normal(size=n) + (people.age - 40) / 20 + (people.trade == "coder")
    hired = merit + (people.district == "east") > 0.8
    people["decision"] = np.where(hired, "hired", "rejected")
    people[:600].drop(columns="fee").to_csv(root / "mine.csv", index=False)
    pool = people[600:].reset_index(drop=True)
    pool.to_parquet(root / "pool.parquet", index=False)
    rare = people[:600].drop(columns="fee").copy()
    rare["decision"] = "rejected"
    rare.loc[rng.choice(600, 6, replace=False), "decision"] = "hired"  # 1 % positive
    rare.to_csv(root / "rare.csv", index=False)
    extreme = pool.copy()
    extreme.loc[[0, 1], "age"] = [1e308, -1e308]
    extreme.to_parquet(root / "extreme.parquet", index=False)
    extreme.to_csv(root / "extreme.csv", index=False)
    people[:600].drop(columns="fee").assign(order=1).to_csv(root / "order.csv", index=False)
    pool.assign(order=2).to_parquet(root / "clash.parquet", index=False)  # an order number
    return root


def _acquire(tables, out, *extra, data="mine.csv", pool="pool.parquet"):
    args = [
        "acquire", "--data", tables / data, "--pool", tables / pool, *ROLES,
        "--cost", "fee", "--out", out, "--no-baseline", *extra,
    ]  # fmt: skip
    return runner.invoke(app, [str(a) for a in args])


# -- costs that add up ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "extra"),
    [
        ("falcon", []),
        ("datasift-inf", []),
        ("datasift-inf", ["--cost-model", "evaluated"]),
    ],
)
def test_cost_column_sums_to_the_reported_cost(tables, tmp_path, method, extra):
    out = tmp_path / "run"
    res = _acquire(
        tables, out, "--method", method, "--budget", "300", "--batch", "40", "--tau", "0",
        *extra,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = pd.read_parquet(out / "acquired.parquet")
    summary = json.loads((out / "summary.json").read_text())
    cost = next(r["value"] for r in summary["rows"] if r["metric"] == "cost")
    assert rows["cost_paid"].sum() == pytest.approx(cost, abs=1e-9)
    assert rows["fee"].tolist() == rows["cost_paid"].tolist()
    meta = summary["meta"]
    assert meta["rows_paid"] == len(rows) == rows["pool_row"].nunique()
    assert meta["rows_trained_on"] == int(rows["trained_on"].sum())
    assert meta["rows_set_aside"] == len(rows) - meta["rows_trained_on"]
    order = pd.read_csv(out / "acquisition_order.csv")
    assert order["pool_row"].tolist() == rows.loc[rows["trained_on"], "pool_row"].tolist()
    printed = " ".join(res.stdout.split())
    assert f"Paid for {len(rows):,} rows ({cost:,.2f} in fee)" in printed
    assert meta["spending"] in (out / "summary.md").read_text()


def test_falcon_says_what_it_set_aside(tables, tmp_path):
    out = tmp_path / "falcon"
    res = _acquire(
        tables, out, "--method", "falcon", "--budget", "300", "--batch", "40", "--tau", "0",
        "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout[res.stdout.index("{") :])
    # counted a second way: the rows paid for but not trained on, in acquired.parquet
    rows = pd.read_parquet(out / "acquired.parquet")
    assert summary["rows_set_aside"] == int((~rows["trained_on"]).sum()) > 0
    assert f"trained on {summary['rows_trained_on']:,} of them" in summary["spending"]
    assert "label was not the one the method was looking for" in summary["spending"]


def test_datasift_inf_says_it_read_labels_it_did_not_pay_for(tables, tmp_path):
    res = _acquire(
        tables, tmp_path / "d", "--method", "datasift-inf", "--budget", "150", "--batch", "30",
        "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout[res.stdout.index("{") :])
    extra = summary["labels_seen"] - summary["rows_paid"]
    assert extra > 0
    assert f"read the labels of {extra:,} rows it did not pay for" in summary["spending"]


def test_pool_column_named_like_a_bookkeeping_column_is_refused_first(tables, tmp_path):
    res = _acquire(tables, tmp_path / "c", "--drop", "order", data="order.csv",
                   pool="clash.parquet")  # fmt: skip
    assert res.exit_code == 2, res.output
    assert res.output.count("error:") == 1
    assert "clash.parquet has columns named ['order']" in res.output
    assert not (tmp_path / "c" / "summary.json").exists()


# -- no one-class model called fair -------------------------------------------------------
def _warnings_of(out):
    return json.loads((out / "summary.json").read_text())["meta"]["warnings"]


@pytest.mark.parametrize(
    ("data", "extra"),
    [
        ("mine.csv", ["--model", "sklearn.dummy:DummyClassifier"]),
        ("rare.csv", []),
    ],
    ids=["constant-model", "one-percent-positive"],
)
def test_one_class_model_is_never_called_fair(tables, tmp_path, data, extra):
    out = tmp_path / "one"
    res = _acquire(
        tables, out, "--method", "datasift", "--budget", "100", "--batch", "25", *extra,
        data=data,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "already within" not in res.output
    assert (
        "warning: nothing was bought and the run stopped at once: the model trained on "
        "your rows predicts" in " ".join(res.stderr.split())
    )
    kept = _warnings_of(out)
    assert len(kept) == 1
    assert "zero by construction" in kept[0]
    assert "do not read it as fair" in kept[0]


def test_both_models_are_named_when_rows_were_bought(tables, tmp_path):
    # a DummyClassifier stays one class whatever it learns: --tau 0 makes the run buy
    out = tmp_path / "after"
    res = _acquire(
        tables, out, "--method", "random", "--budget", "60", "--batch", "30", "--tau", "0",
        "--model", "sklearn.dummy:DummyClassifier",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    kept = _warnings_of(out)
    assert any(w.startswith("the model trained on your rows predicts") for w in kept)
    assert any(w.startswith("the model trained on your rows and the rows bought") for w in kept)


def test_a_healthy_model_gets_no_one_class_warning(tables, tmp_path):
    out = tmp_path / "ok"
    res = _acquire(tables, out, "--method", "random", "--budget", "60", "--batch", "30")
    assert res.exit_code == 0, res.output
    assert not any("zero by construction" in w for w in _warnings_of(out))


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("tests.degenerate_models:NanProba", "not numbers (NaN or infinite)"),
        ("tests.degenerate_models:WideProba", "outside 0 to 1"),
    ],
)
def test_a_model_without_probabilities_is_one_error(tables, tmp_path, model, fragment):
    out = tmp_path / "nan"
    res = _acquire(tables, out, "--method", "random", "--budget", "60", "--batch", "30",
                   "--model", model)  # fmt: skip
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: ")
    assert fragment in lines[0]
    assert not (out / "summary.json").exists()


@pytest.mark.parametrize(
    ("pool", "method", "fragment"),
    [
        ("extreme.parquet", "datasift", "has the value 1e+308 in feature 'age'"),
        ("extreme.parquet", "falcon", "too large to compute with"),
        ("extreme.csv", "random", "magnitude 1e+150 or more"),
    ],
)
def test_a_pool_row_of_1e308_is_one_error(tables, tmp_path, pool, method, fragment):
    res = _acquire(tables, tmp_path / "x", "--method", method, "--budget", "100",
                   "--batch", "25", pool=pool)  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert fragment in lines[0]
