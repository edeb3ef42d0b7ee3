"""``fairacq compare``: a user's own table back-tested; the HTML report renders in a browser."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app
from tests.cli.browser_available import CHROMIUM, needs_chromium

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _run(*args: object):
    return runner.invoke(app, ["compare", *(str(a) for a in args)])


def _table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Applicants: own column names, string features, a string group and a string label."""
    rng = np.random.default_rng(seed)
    gender = rng.choice(["woman", "man"], n, p=[0.35, 0.65])
    years = rng.normal(5, 2, n).round(1)
    frame = pd.DataFrame(
        {
            "applicant_id": [f"a{i}" for i in range(n)],
            "years_experience": years,
            "degree": rng.choice(["none", "bachelor", "master"], n),
            "city": np.where(
                rng.random(n) < 0.7, np.where(gender == "woman", "Lyon", "Paris"), "Nice"
            ),
            "gender": gender,
            "fee": rng.uniform(1, 3, n).round(2),
        }
    )
    score = years - 5 + np.where(gender == "woman", -1.0, 0.5) + rng.normal(0, 1, n)
    frame["decision"] = np.where(score > 0, "offer", "decline")
    return frame


@pytest.fixture(scope="module")
def table_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compare") / "applicants.csv"
    _table().to_csv(path, index=False)
    return path


ROLES = ("--label", "decision", "--positive", "offer", "--sensitive", "gender", "--drop",
         "applicant_id,fee")  # fmt: skip


@needs_chromium
def test_rows_report_renders_every_figure_in_a_browser(table_csv, tmp_path):
    assert CHROMIUM is not None, "Chromium is needed to check the report renders (CI=true)"
    out = tmp_path / "report"
    result = _run(
        "--data", table_csv, *ROLES, "--question", "rows", "--budget", "15%", "--seeds", 2,
        "--methods", "entropy,threshold-dp",  # both figures; every method: the README's test
        "--target", "dp<=0.05", "--out", out, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    from fairacq.compare import CompareResult

    traces = CompareResult.load(out / "result").traces  # each acquisition run's trace
    entropy = next(r for r in summary["rows"] if r["method"] == "entropy")
    costs = [trace.to_frame()["cost"].iloc[-1] for trace in traces["entropy"]]
    assert len(costs) == 2  # one trace a seed, their mean cost the summary's
    assert sum(costs) / 2 == pytest.approx(entropy["cost"])
    assert summary["recommendation"]["text"]
    assert {r["method"] for r in summary["rows"]} >= {"no action", "random", "threshold-dp"}
    dom = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
            "--virtual-time-budget=10000", "--dump-dom", (out / "report.html").as_uri(),
        ],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    match = re.search(r'<body[^>]*data-figures="(\d+)/(\d+)"', dom)
    assert match is not None, dom[:500]
    loaded, total = map(int, match.groups())
    assert total > 0
    assert loaded == total


def test_groups_prints_the_table_and_the_recommendation(table_csv, tmp_path):
    out = tmp_path / "groups"
    result = _run(
        "--data", table_csv, *ROLES, "--question", "groups", "--budget", 80, "--seeds", 1,
        "--methods", "aopt,minimax-fair", "--target", "eo<=0.2", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in ("aopt", "minimax-fair", "uniform"):
        assert name in result.stdout
    assert "Wrote" in result.stdout
    assert (out / "report.html").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["question"] == "groups"
    assert summary["config"]["budget"] == "80"
    assert summary["command"].startswith("fairacq ")
    # the saved result holds every strategy's numbers, as the summary lists them
    from fairacq.compare import CompareResult

    saved = CompareResult.load(out / "result")
    assert saved.to_frame()["method"].tolist() == [r["method"] for r in summary["rows"]]
    assert len(saved.records) == len(summary["rows"])  # one method, one seed: a record each


def test_cost_column_prices_the_pool_rows(table_csv, tmp_path):
    out = tmp_path / "costs"
    result = _run(
        "--data", table_csv, "--label", "decision", "--positive", "offer", "--sensitive",
        "gender", "--drop", "applicant_id", "--cost", "fee", "--budget", 40, "--seeds", 1,
        "--methods", "entropy,reweighing", "--out", out, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["unit"] == "cost units"
    random = next(r for r in summary["rows"] if r["method"] == "random")
    assert 30 < random["cost"] <= 40  # batches of 10% of the budget, the last one that fits


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--label", "decision", "--sensitive", "gender"), "--data FILE"),
        (("--target", "dp=0.05"), "METRIC<=VALUE"),
        (("--question", "which"), "--question must be rows"),
        (("--budget", "0.2"), "--budget"),
        (("--question", "groups", "--cost", "fee"), "--cost"),
        (("--methods", "datasfit"), "Did you mean 'datasift'"),
        (("--max-accuracy-loss", "1.5"), "--max-accuracy-loss is a share of accuracy"),
    ],
)
def test_bad_options_exit_2_with_one_line(table_csv, tmp_path, args, message):
    data = () if "--data FILE" in message else ("--data", table_csv, *ROLES)
    result = _run(*data, *args, "--seeds", 1, "--out", tmp_path / "x")
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len([line for line in result.output.splitlines() if line.startswith("error:")]) == 1


def _variant(tmp_path: Path, name: str, frame: pd.DataFrame) -> Path:
    path = tmp_path / f"{name}.csv"
    frame.to_csv(path, index=False)
    return path


QUICK = ("--question", "rows", "--budget", "10%", "--seeds", 1, "--methods", "threshold-dp")


def _never_called_fair(result) -> None:
    assert result.exit_code == 0, result.output
    assert "already meets" not in result.stdout
    assert "Recommended: no action" not in result.stdout


def test_two_seeds_report_the_front_the_intervals_and_thin_evidence(table_csv, tmp_path):
    from scipy.stats import binomtest

    out = tmp_path / "thin"
    result = _run(
        "--data", table_csv, *ROLES, "--question", "rows", "--budget", "10%", "--seeds", 2,
        "--methods", "threshold-dp", "--target", "dp<=0.5", "--max-accuracy-loss", 0.05,
        "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "The evidence is thin: only 2 seeds" in result.stdout
    assert "95%" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["recommendation"]["max_accuracy_loss"] == 0.05
    assert summary["recommendation"]["evidence"]["thin"]
    assert summary["recommendation"]["evidence"]["seeds_needed"] >= 3
    for row in summary["rows"]:
        assert {"pareto", "met_interval", "ok_seeds", "same_as", "one_class_seeds"} <= set(row)
        # the 95 % Wilson interval of met_seeds of 2, computed a second way by scipy
        wilson = binomtest(row["met_seeds"], 2).proportion_ci(method="wilson")
        assert row["met_interval"] == pytest.approx([wilson.low, wilson.high], abs=1e-6)
    assert any(row["pareto"] for row in summary["rows"])
    report = (out / "report.html").read_text()
    assert "on the accuracy-fairness-cost front" in report
    assert "95 % interval" in report
    assert "The evidence is thin" in report


def test_a_constant_model_is_never_called_fair(table_csv, tmp_path):
    out = tmp_path / "dummy"
    result = _run(
        "--data", table_csv, *ROLES, *QUICK, "--model", "sklearn.dummy:DummyClassifier",
        "--out", out,
    )  # fmt: skip
    _never_called_fair(result)
    assert "warning: no action: its model predicts one class for every test row" in (result.stderr)
    summary = json.loads((out / "summary.json").read_text())
    assert "no action" in summary["recommendation"]["one_class"]
    assert any(
        w.startswith("no action: its model predicts one class") for w in summary["warnings"]
    )


def test_a_label_with_one_percent_positives_is_never_called_fair(tmp_path):
    frame = _table(1500, seed=3)
    rng = np.random.default_rng(0)
    frame["decision"] = np.where(rng.random(len(frame)) < 0.01, "offer", "decline")
    frame.loc[frame.index[:4], "decision"] = "offer"  # a few in each group
    frame.loc[frame.index[:2], "gender"] = "woman"
    frame.loc[frame.index[2:4], "gender"] = "man"
    result = _run("--data", _variant(tmp_path, "rare", frame), *ROLES, *QUICK,
                  "--out", tmp_path / "rare")  # fmt: skip
    _never_called_fair(result)
    assert "predicts one class" in result.stderr


def test_a_pool_row_holding_huge_values_is_never_called_fair(tmp_path):
    frame = _table(400, seed=1)
    frame.loc[5, "years_experience"] = 1e308
    frame.loc[6, "years_experience"] = -1e308
    result = _run("--data", _variant(tmp_path, "huge", frame), *ROLES, *QUICK,
                  "--out", tmp_path / "huge")  # fmt: skip
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        assert len([x for x in result.output.splitlines() if x.startswith("error:")]) == 1
    else:
        _never_called_fair(result)
        assert "warning:" in result.stderr


def test_a_model_with_nan_probabilities_stops_with_one_error_line(table_csv, tmp_path):
    result = _run(
        "--data", table_csv, *ROLES, *QUICK, "--model", "tests.degenerate_models:NanProba",
        "--out", tmp_path / "nan",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert (
        "no action, the strategy every other is measured against, has no usable model"
        in (errors[0])
    )
    assert "not numbers" in errors[0]
    assert "Traceback" not in result.output
