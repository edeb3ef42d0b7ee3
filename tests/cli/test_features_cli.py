"""``fairacq features train|acquire`` end to end on a small Adult subsample."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.data import load_adult

runner = CliRunner()


_TINY = ("--max-rows", "400", "--pretrain-iter", "10", "--train-iter", "4")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("features") / "model"
    res = runner.invoke(
        app,
        [
            "features",
            "train",
            "--dataset",
            "adult",
            "--sensitive",
            "sex",
            "--gamma",
            "0.5",
            "--reward",
            "gnl1",
            "--out",
            str(out),
            "--seed",
            "3",
            "--json",
            *_TINY,
        ],
    )
    assert res.exit_code == 0, res.output
    return out, json.loads(res.stdout)


def test_train_writes_a_loadable_model(model_dir):
    out, summary = model_dir
    assert summary["gamma"] == 0.5
    assert summary["reward"] == "gnl1"
    assert 0.0 <= summary["test_auc"] <= 1.0
    assert 0.0 <= summary["test_disparity"] <= 1.0
    assert 0.0 <= summary["test_share_of_columns_revealed"] <= 1.0
    from fairacq.features import DADI

    agent = DADI.load(out)
    assert agent.gamma == 0.5
    assert "sex" in agent.feature_groups_  # the paper offers the sensitive attribute too


def _raw_columns(people, groups):
    """Undo the one-hot encoding of a bundled dataset's rows: one raw column per group."""
    raw = {}
    for group, cols in groups.items():
        if cols == [group]:
            raw[group] = people[group]
        else:
            values = [c.split("=", 1)[1] for c in cols]
            raw[group] = [values[i] for i in people[cols].to_numpy().argmax(axis=1)]
    return pd.DataFrame(raw)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_acquire_masks_unrevealed_values(model_dir, tmp_path, suffix):
    out, _ = model_dir
    people = load_adult(include_sensitive_features=True).X.iloc[:12]
    source = tmp_path / f"people{suffix}"
    if suffix == ".parquet":
        people.to_parquet(source)
    else:
        people.to_csv(source, index=False)
    target = tmp_path / f"revealed{suffix}"
    res = runner.invoke(
        app,
        ["features", "acquire", str(out), str(source), "--out", str(target), "--blank-unrevealed"],
    )
    assert res.exit_code == 0, res.output
    assert "12 people" in res.output
    assert "encoded columns" in res.output
    got = pd.read_parquet(target) if suffix == ".parquet" else pd.read_csv(target)
    assert len(got) == 12
    assert got["row"].tolist() == list(range(12))
    from fairacq.features import DADI

    agent = DADI.load(out)
    for i in range(12):
        revealed = [g for g in str(got["revealed"].iloc[i]).split(",") if g and g != "nan"]
        assert got["n_revealed"].iloc[i] == len(revealed)
        assert len(set(revealed)) == len(revealed)
        expected = agent.acquire(people.iloc[i])
        assert tuple(revealed) == expected.features
        assert got["proba"].iloc[i] == pytest.approx(expected.proba)
        assert got["prediction"].iloc[i] == int(expected.proba >= 0.5)
        shown = {c for g in revealed for c in agent.feature_groups_[g]}
        for col in people.columns:
            value = got[col].iloc[i]
            if col in shown:
                assert value == pytest.approx(people[col].iloc[i])
            else:
                assert np.isnan(value)


def test_bundled_model_takes_raw_columns_and_to_frame(model_dir, tmp_path):
    """A bundled dataset's model reads raw columns (sex = Female), as a table of yours does,
    and also what FairDataset.to_frame writes (one-hot columns, sensitive:sex)."""
    out, _ = model_dir
    data = load_adult(include_sensitive_features=True)
    encoded = data.X.iloc[:8]
    raw = _raw_columns(encoded, data.feature_groups)
    assert raw["sex"].iloc[0] in {"Female", "Male"}
    raw = raw.rename(columns={"sex": "sensitive:sex"})  # how to_frame names a group column
    results = {}
    for name, frame in (("raw", raw), ("frame", data.subset(np.arange(8)).to_frame())):
        source = tmp_path / f"{name}.csv"
        frame.to_csv(source, index=False)
        res = runner.invoke(app, ["features", "acquire", str(out), str(source), "--json"])
        assert res.exit_code == 0, res.output
        results[name] = json.loads(res.stdout)
    assert results["raw"]["input"] == "raw"
    assert results["frame"]["input"] == "encoded"
    assert results["raw"]["people"] == results["frame"]["people"]


def test_train_reports_other_fairness_metrics(tmp_path):
    args = ["features", "train", "--out", str(tmp_path / "m"), *_TINY]
    res = runner.invoke(app, [*args, "--metric", "eo", "--metric", "eopp", "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    for key in ("test_equalized_odds_diff", "test_equal_opportunity_diff"):
        assert 0.0 <= summary[key] <= 1.0
    res = runner.invoke(app, [*args, "--metric", "dp", "--overwrite"])  # the model above
    assert res.exit_code == 0, res.output
    assert "demographic_parity_diff_abs:" in res.output
    res = runner.invoke(app, [*args, "--metric", "fairness_of_nothing", "--overwrite"])
    assert res.exit_code == 2
    assert "fairness_of_nothing" in res.output


def test_train_with_hot_set_elements(tmp_path):
    out = tmp_path / "hot"
    res = runner.invoke(
        app,
        ["features", "train", "--set-elements", "hot", "--out", str(out), "--json", *_TINY],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["set_elements"] == "hot"
    from fairacq.features import DADI

    assert DADI.load(out).set_elements == "hot"
    res = runner.invoke(
        app, ["features", "train", "--set-elements", "sparse", "--out", str(out), *_TINY]
    )
    assert res.exit_code == 2
    assert "--set-elements must be 'columns' or 'hot'" in res.output


def test_bad_input_exits_2(model_dir, tmp_path):
    out, _ = model_dir
    res = runner.invoke(
        app, ["features", "train", "--gamma", "1.5", "--out", str(tmp_path / "m"), *_TINY]
    )
    assert res.exit_code == 2
    assert "--gamma must be in [0, 1]" in res.output
    res = runner.invoke(
        app, ["features", "train", "--reward", "l2", "--out", str(tmp_path / "m"), *_TINY]
    )
    assert res.exit_code == 2
    assert "reward" in res.output
    assert len(res.output.strip().splitlines()) == 1
    res = runner.invoke(app, ["features", "train", "--preset", "medium"])
    assert res.exit_code == 2
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"age": [30.0]}).to_csv(bad, index=False)
    res = runner.invoke(
        app,
        ["features", "acquire", str(out), str(bad), "--out", str(tmp_path / "o.csv")],
    )
    assert res.exit_code == 2
    assert "no column 'workclass'" in res.output
    res = runner.invoke(
        app,
        [
            "features",
            "acquire",
            str(tmp_path / "none"),
            str(bad),
            "--out",
            str(tmp_path / "o.csv"),
        ],
    )
    assert res.exit_code == 2
    assert "does not exist" in res.output
    assert not (tmp_path / "o.csv").exists()
