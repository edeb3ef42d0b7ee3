"""``fairacq filter fit --data`` / ``filter apply PROXY CANDIDATES`` on a user's raw tables."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq import Trace
from fairacq.cli import app
from fairacq.filtering import TableProxy, load_proxy
from tests.filtering.test_table import REGIONS, candidates, make_table

runner = CliRunner()

TABLE = ["--label", "verdict", "--positive", "accept", "--sensitive", "region", "--drop", "badge"]


def _run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _one_line_error(res, *fragments: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("table")
    make_table().to_csv(root / "train.csv", index=False)
    candidates().to_csv(root / "cands.csv", index=False)
    return root


@pytest.fixture(scope="module")
def fitted(files: Path) -> tuple[Path, dict]:
    out = files / "proxy.json"
    res = _run("filter", "fit", "--data", files / "train.csv", *TABLE, "--proxy", "qp-tree",
               "--out", out, "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    return out, json.loads(res.stdout)  # JSON only on stdout


def test_fit_on_raw_table_saves_encoder_roles_and_summary(files: Path, fitted) -> None:
    out, record = fitted
    assert record["groups"] == list(REGIONS)
    assert record["rows_per_group"] == make_table().region.value_counts().to_dict()
    assert (record["command"], record["seed"], record["config"]["proxy"]) == (
        "filter fit", 0, "qp-tree")  # fmt: skip
    assert record["fairacq_version"]
    summary = json.loads((files / "proxy.summary.json").read_text())
    assert summary == record
    proxy = load_proxy(out)
    assert isinstance(proxy, TableProxy)
    assert proxy.columns.sensitive == ("region",)
    assert "region" not in proxy.encoder.columns_
    assert "dept=law" in proxy.proxy.feature_names
    # the fit's trace beside the proxy, its one row the proxy's own numbers
    assert record["trace"] == str(files / "proxy.trace.parquet")
    row = Trace.load(record["trace"]).to_frame().iloc[-1]
    assert row["acceptance_rate"] == pytest.approx(record["acceptance_rate"])
    assert row["n_rows"] == sum(record["rows_per_group"].values())


def test_apply_raw_candidates_writes_their_own_rows(files: Path, fitted) -> None:
    proxy, _ = fitted
    out = files / "admitted.csv"
    res = _run("filter", "apply", proxy, files / "cands.csv", "--out", out, "--seed", "5",
               "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    record = json.loads(res.stdout)
    assert res.stderr.strip().splitlines() == [
        "warning: cands.cs" + "v: 1 value(s) in categories the training data did not have "
        "(dept: 1); they are encoded as all zeros."
    ]
    cands = pd.read_csv(files / "cands.csv")
    admitted = pd.read_csv(out)
    assert list(admitted.columns) == [*cands.columns, "admission_probability"]
    assert admitted["badge"].is_monotonic_increasing  # candidates' order kept
    merged = admitted.drop(columns="admission_probability").merge(cands, how="left",
                                                                  indicator=True)  # fmt: skip
    assert (merged["_merge"] == "both").all()
    assert record["n_admitted"] == len(admitted)
    assert record["n_seen"] == len(cands)
    # The group column is in the candidates: counts by real name, for the report only.
    for g in REGIONS:
        assert record["groups"][g]["admitted"] == int((admitted.region == g).sum())
        assert record["groups"][g]["seen"] == int((cands.region == g).sum())
    assert record["unknown_categories"] == {"dept": 1}
    summary = json.loads((files / "admitted.summary.json").read_text())
    assert summary["warnings"] == [res.stderr.strip()[len("warning: ") :]]
    assert summary["seed"] == 5
    assert summary["config"]["method"] == "qp-tree"
    trace = Trace.load(files / "admitted.trace").to_frame()  # the run's trace beside --out
    assert trace["n_admitted"].iloc[-1] == len(admitted)
    assert trace["n_seen"].iloc[-1] == len(cands)


def test_apply_without_group_columns_and_with_evaluate(files: Path, fitted, tmp_path) -> None:
    proxy, _ = fitted
    blind = candidates().drop(columns=["region"]).iloc[4:]
    blind.to_csv(tmp_path / "blind.csv", index=False)
    res = _run("filter", "apply", proxy, tmp_path / "blind.csv", "--out", tmp_path / "a.parquet")
    assert res.exit_code == 0, res.output
    assert "admitted" in res.stdout
    assert "beta" not in res.stdout
    renamed = candidates().rename(columns={"region": "area"}).iloc[4:]
    renamed.to_csv(tmp_path / "renamed.csv", index=False)
    res = _run("filter", "apply", "--proxy", proxy, "--input", tmp_path / "renamed.csv",
               "--out", tmp_path / "b.csv", "--evaluate", "area", "--all")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert all(f"  {g}: " in res.stdout for g in REGIONS)
    assert "beta of the admitted set" in res.stdout
    every = pd.read_csv(tmp_path / "b.csv")
    assert len(every) == len(renamed)
    assert every["admitted"].dtype == bool


def test_model_option_trains_the_proxy_classifier(files: Path, tmp_path) -> None:
    out = tmp_path / "p.json"
    res = _run("filter", "fit", "--data", files / "train.csv", *TABLE, "--proxy",
               "qp-regression", "--model", "lr", "--model-param", "C=0.5", "--out", out,
               "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["model"].startswith("Pipeline(StandardScaler")
    assert json.loads(out.read_text())["rule"]["kind"] == "linear"


def test_fit_warns_on_small_groups(tmp_path) -> None:
    make_table(300, shares=(0.65, 0.3, 0.05)).to_csv(tmp_path / "t.csv", index=False)
    res = _run("filter", "fit", "--data", tmp_path / "t.csv", *TABLE, "--proxy", "qp-tree",
               "--out", tmp_path / "p.json")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "warning: group 'plains' has" in res.stderr
    summary = json.loads((tmp_path / "p.summary.json").read_text())
    assert any("(< 30)" in w for w in summary["warnings"])


def _table_with(tmp_path: Path, **changes) -> Path:
    frame = make_table()
    for column, value in changes.items():
        frame[column] = value
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--label", "verdict", "--positive", "accept", "--sensitive", "colour"],
         ["no column 'colour' for --sensitive"]),
        (["--label", "verdict", "--positive", "accept"], ["--sensitive COL"]),
        (["--label", "verdict", "--sensitive", "region", "--drop", "badge"],
         ["label column 'verdict'", "--positive"]),
        (["--sensitive", "region"], ["--data needs --label"]),
        ([*TABLE, "--proxy", "qp-tree", "--model", "sklearn.ensemble:NoSuchForest"],
         ["NoSuchForest"]),
        ([*TABLE, "--proxy", "qp-tree", "--model", "sklearn.ensemble:RandomForestClassifier"],
         ["cannot be saved as JSON"]),
        ([*TABLE, "--proxy", "alpha-beta", "--model", "lr"], ["naive and QP proxies"]),
    ],
)  # fmt: skip
def test_fit_bad_input_exits_2_in_one_line(files: Path, tmp_path, args, fragments) -> None:
    res = _run("filter", "fit", "--data", files / "train.csv", *args, "--out", tmp_path / "p.json")
    _one_line_error(res, *fragments)
    assert not (tmp_path / "p.json").exists()


def test_fit_missing_value_needs_impute(tmp_path) -> None:
    years = make_table()["years"].where(lambda v: v.index % 50 != 7)
    path = _table_with(tmp_path, years=years)
    res = _run("filter", "fit", "--data", path, *TABLE, "--out", tmp_path / "p.json")
    _one_line_error(res, "'years' has 8 missing value(s)", "--impute")
    res = _run("filter", "fit", "--data", path, *TABLE, "--impute", "--proxy", "qp-tree",
               "--out", tmp_path / "p.json")  # fmt: skip
    assert res.exit_code == 0, res.output
    # the gaps are filled as learned on the training rows: the median of the 352 years left,
    # the most frequent department
    fills = json.loads((tmp_path / "p.json").read_text())["table"]["encoder"]["fill_values"]
    assert fills["years"] == pytest.approx(float(years.median()))
    assert fills["dept"] == make_table()["dept"].mode()[0]


def test_apply_bad_candidates_exit_2_in_one_line(files: Path, fitted, tmp_path) -> None:
    proxy, _ = fitted
    cands = candidates()
    cands.drop(columns=["dept"]).to_csv(tmp_path / "nodept.csv", index=False)
    res = _run("filter", "apply", proxy, tmp_path / "nodept.csv", "--out", tmp_path / "a.csv")
    _one_line_error(res, "no column 'dept'")
    cands.assign(years=np.where(cands.index == 2, np.nan, cands.years)).to_csv(
        tmp_path / "gap.csv", index=False
    )
    res = _run("filter", "apply", proxy, tmp_path / "gap.csv", "--out", tmp_path / "a.csv")
    _one_line_error(res, "'years' has 1 missing value(s) (rows 2)")
    res = _run("filter", "apply", proxy, "--out", tmp_path / "a.csv")
    _one_line_error(res, "Missing CANDIDATES")
    assert not (tmp_path / "a.csv").exists()


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda d: d["table"]["encoder"]["columns"].append("region"), "encoder's columns"),
        (lambda d: d["table"]["columns"].update(label=3), "column roles"),
        (lambda d: d.update(rho=[2.0] * len(d["rho"])), "rho must hold"),
    ],
)
def test_apply_tampered_proxy_exits_2_in_one_line(files, fitted, tmp_path, edit, fragment):
    proxy, _ = fitted
    data = json.loads(proxy.read_text())
    edit(data)
    (tmp_path / "p.json").write_text(json.dumps(data))
    res = _run("filter", "apply", tmp_path / "p.json", files / "cands.csv",
               "--out", tmp_path / "a.csv")  # fmt: skip
    _one_line_error(res, fragment)
