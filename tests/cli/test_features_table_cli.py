"""``fairacq features train --data`` / ``acquire MODEL PEOPLE`` on a user's own raw table.

A table built here with its own column names: a numeric feature, two string features, a
string group column, string labels (three values, so ``--positive``) and an id column.
Settings are the tiniest DADI runs, so every command takes a second or two.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()

_TINY = ("--pretrain-iter", "10", "--train-iter", "3", "--seed", "1")


def _table(n: int = 160, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    years = rng.integers(0, 30, n)
    shift = rng.choice(["day", "night", "rota"], n)
    score = years / 30 + (shift == "day") * 0.4 + rng.normal(0, 0.2, n)
    outcome = np.where(score > 0.6, "hired", np.where(score > 0.3, "waitlist", "rejected"))
    return pd.DataFrame(
        {
            "applicant": [f"a{i:03d}" for i in range(n)],
            "years": years,
            "shift": shift,
            "town": rng.choice(["Leeds", "York"], n),
            "gender": rng.choice(["woman", "man"], n),
            "outcome": outcome,
        }
    )


def _train(table_path, out, *extra):
    return runner.invoke(
        app,
        [
            "features",
            "train",
            "--data",
            str(table_path),
            "--label",
            "outcome",
            "--sensitive",
            "gender",
            "--positive",
            "hired",
            "--drop",
            "applicant",
            "--out",
            str(out),
            *_TINY,
            *extra,
        ],
    )


def _one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("features-table")
    table = root / "applicants.csv"
    _table().to_csv(table, index=False)
    out = root / "model"
    res = _train(table, out, "--json")
    assert res.exit_code == 0, res.output
    return root, out, json.loads(res.stdout)


def test_train_saves_encoder_columns_and_summary(trained):
    _, out, summary = trained
    assert summary["features"] == ["years", "shift", "town", "gender"]  # raw columns
    assert summary["columns"]["positive"] == "hired"
    assert summary["sensitive"] == ["gender"]
    for name in ("encoder.json", "columns.json", "summary.json", "config.json"):
        assert (out / name).is_file()
    manifest = json.loads((out / "config.json").read_text())["files"]
    assert {"encoder.json", "columns.json"} <= set(manifest)
    saved = json.loads((out / "summary.json").read_text())
    assert saved["test_auc"] == summary["test_auc"]
    # 3 joint iterations leave epsilon near 1: said on stderr and kept in summary.json
    assert any(w.startswith("exploration not decayed") for w in saved["warnings"])
    from fairacq.features import DadiModel

    model = DadiModel.load(out)
    assert model.encoder.columns_ == ["years", "shift", "town", "gender"]
    assert model.columns.label == "outcome"
    assert model.include_sensitive


def test_train_prints_warning_lines(trained, tmp_path):
    root, _, _ = trained
    res = _train(root / "applicants.csv", tmp_path / "m")
    assert res.exit_code == 0, res.output
    assert "test AUC" in res.stdout
    warnings = [line for line in res.stderr.splitlines() if line.startswith("warning: ")]
    assert any("epsilon is still" in line for line in warnings)
    assert "Traceback" not in res.output


def test_acquire_raw_people_with_an_unseen_category(trained, tmp_path):
    _root, out, _ = trained
    people = _table(6, seed=5).drop(columns=["outcome"])
    people.loc[2, "shift"] = "weekend"  # never seen in training
    source = tmp_path / "people.csv"
    people.to_csv(source, index=False)
    target = tmp_path / "asks.csv"
    args = ["features", "acquire", str(out), str(source), "--id", "applicant"]
    res = runner.invoke(app, [*args, "--out", str(target)])
    assert res.exit_code == 0, res.output
    assert "6 people" in res.stdout
    assert "warning: people.csv: 1 value(s) in categories" in res.stderr
    got = pd.read_csv(target)
    assert list(got.columns) == [
        "applicant",
        "years",
        "shift",
        "town",
        "gender",
        "revealed",
        "n_revealed",
        "proba",
        "prediction",
    ]
    assert got["applicant"].tolist() == people["applicant"].tolist()
    assert got["shift"].tolist() == people["shift"].tolist()  # the people's values, as given
    features = {"years", "shift", "town", "gender"}
    for order, n in zip(got["revealed"].fillna(""), got["n_revealed"], strict=True):
        asked = [g for g in order.split(",") if g]
        assert len(asked) == n
        assert set(asked) <= features

    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["n_people"] == 6
    assert report["input"] == "raw"
    assert report["unknown_categories"] == {"shift": 1}
    assert any("categories the training data did not have" in w for w in report["warnings"])
    assert [p["applicant"] for p in report["people"]] == people["applicant"].tolist()
    for record, row in zip(report["people"], got.itertuples(), strict=True):
        assert record["proba"] == pytest.approx(row.proba)
        assert record["prediction"] == row.prediction


def test_acquire_row_numbers_blanks_and_deprecated_options(trained, tmp_path):
    _, out, _ = trained
    people = _table(5, seed=6).drop(columns=["outcome", "applicant"])
    source = tmp_path / "people.parquet"
    people.to_parquet(source)
    target = tmp_path / "asks.parquet"
    res = runner.invoke(
        app,
        [
            "features",
            "acquire",
            "--model",
            str(out),
            "--input",
            str(source),
            "--out",
            str(target),
            "--blank-unrevealed",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "deprecated" in res.stderr
    got = pd.read_parquet(target)
    assert got["row"].tolist() == [0, 1, 2, 3, 4]
    for row in got.itertuples():
        asked = set(filter(None, str(row.revealed).split(",")))
        for col in ("years", "shift", "town", "gender"):
            value = getattr(row, col)
            assert pd.isna(value) == (col not in asked)


def test_one_class_warning_in_summary_json(tmp_path):
    """Every row has the same features, so the classifier sees one input: one class, surely."""
    n = 96
    rng = np.random.default_rng(3)
    table = pd.DataFrame(
        {
            "years": np.full(n, 7),
            "shift": ["day"] * n,
            "gender": rng.permutation(["woman", "man"] * (n // 2)),
            "outcome": rng.permutation(["hired", "rejected", "waitlist"] * (n // 3)),
        }
    )
    path = tmp_path / "flat.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "m"
    res = runner.invoke(
        app,
        [
            "features",
            "train",
            "--data",
            str(path),
            "--label",
            "outcome",
            "--sensitive",
            "gender",
            "--positive",
            "hired",
            "--exclude-sensitive",
            "--out",
            str(out),
            *_TINY,
        ],
    )
    assert res.exit_code == 0, res.output
    assert "disparity 0.000" in res.stdout
    warnings = json.loads((out / "summary.json").read_text())["warnings"]
    one_class = [w for w in warnings if w.startswith("one-class classifier:")]
    assert len(one_class) == 1
    assert "test rows" in one_class[0]
    assert "meaningless" in one_class[0]
    assert f"warning: {one_class[0]}" in res.stderr


def test_bad_inputs_exit_2_with_one_line(trained, tmp_path):
    root, out, _ = trained
    table = root / "applicants.csv"
    base = ["features", "train", "--data", str(table), "--out", str(tmp_path / "m"), *_TINY]
    line = _one_error_line(
        runner.invoke(
            app, [*base, "--label", "outcome", "--sensitive", "sex", "--positive", "hired"]
        )
    )
    assert "'sex'" in line
    assert "--sensitive" in line
    line = _one_error_line(
        runner.invoke(app, [*base, "--label", "outcome", "--sensitive", "gender"])
    )
    assert "--positive" in line
    line = _one_error_line(runner.invoke(app, [*base, "--label", "outcome"]))
    assert "--sensitive" in line
    gappy = _table(120)
    gappy.loc[[4, 9], "years"] = np.nan
    gappy.to_csv(tmp_path / "gappy.csv", index=False)
    line = _one_error_line(
        runner.invoke(
            app,
            [
                "features",
                "train",
                "--data",
                str(tmp_path / "gappy.csv"),
                "--label",
                "outcome",
                "--sensitive",
                "gender",
                "--positive",
                "hired",
                "--out",
                str(tmp_path / "g"),
                *_TINY,
            ],
        )
    )
    assert "'years'" in line
    assert "--impute" in line

    people = _table(4).drop(columns=["outcome", "town"])
    people.to_csv(tmp_path / "people.csv", index=False)
    acquire = ["features", "acquire", str(out), str(tmp_path / "people.csv"), "--json"]
    line = _one_error_line(runner.invoke(app, acquire))
    assert "'town'" in line
    gaps = _table(4).drop(columns=["outcome"])
    gaps.loc[1, "shift"] = None
    gaps.to_csv(tmp_path / "gaps.csv", index=False)
    acquire = ["features", "acquire", str(out), str(tmp_path / "gaps.csv"), "--json"]
    line = _one_error_line(runner.invoke(app, acquire))
    assert "'shift' has missing values (row 1" in line
    assert "train the model with --impute" in line

    tampered = tmp_path / "tampered"
    import shutil

    shutil.copytree(out, tampered)
    encoder = json.loads((tampered / "encoder.json").read_text())
    encoder["categories"]["shift"].append("weekend")
    (tampered / "encoder.json").write_text(json.dumps(encoder))
    _table(4).to_csv(tmp_path / "ok.csv", index=False)
    line = _one_error_line(
        runner.invoke(
            app, ["features", "acquire", str(tampered), str(tmp_path / "ok.csv"), "--json"]
        )
    )
    assert "encoder.json" in line
    assert "checksum" in line


def test_option_misuse_exits_2(trained, tmp_path):
    root, out, _ = trained
    table = str(root / "applicants.csv")
    line = _one_error_line(
        runner.invoke(app, ["features", "train", "--data", table, "--dataset", "adult"])
    )
    assert "not both" in line
    line = _one_error_line(runner.invoke(app, ["features", "train", "--label", "outcome"]))
    assert "--data" in line
    line = _one_error_line(runner.invoke(app, ["features", "acquire", str(out)]))
    assert "MODEL PEOPLE" in line
    line = _one_error_line(runner.invoke(app, ["features", "acquire", str(out), table]))
    assert "--out" in line
    assert "--json" in line
    res = runner.invoke(app, ["features", "acquire", str(out), table, "--id", "nope", "--json"])
    assert "'nope'" in _one_error_line(res)


def test_metric_help_points_to_the_metrics_command():
    res = runner.invoke(app, ["features", "train", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert "fairacq metrics" in " ".join(res.stdout.split())
