"""``filter fit`` / ``filter apply`` say when the filter admits everyone alike, and why."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()
ROLES = ["--label", "decision", "--positive", "hired", "--sensitive", "district"]
NAN_MODEL = """
import numpy as np
from sklearn.linear_model import LogisticRegression


class NanProba(LogisticRegression):
    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), np.nan)
"""


def _table(n: int, seed: int, *, tied: bool) -> pd.DataFrame:
    """Districts independent of the other columns, or (tied) told apart by the trade."""
    rng = np.random.default_rng(seed)
    district = rng.choice(["east", "west"], n, p=[0.7, 0.3])
    trade = (
        np.where(district == "east", "baker", "coder")
        if tied
        else rng.choice(["baker", "coder"], n)
    )
    age = rng.integers(18, 70, n)
    hired = (rng.normal(size=n) + (age - 40) / 20 + (district == "east")) > 0.5
    return pd.DataFrame(
        {"age": age, "trade": trade, "district": district,
         "decision": np.where(hired, "hired", "rejected")}
    )  # fmt: skip


def _readme_table() -> pd.DataFrame:
    """The README's own table: districts drawn apart from age and trade."""
    rng = np.random.default_rng(0)
    n = 3000
    people = pd.DataFrame({
        "applicant": [f"a{i}" for i in range(n)],
        "age": rng.integers(18, 70, n),
        "trade": rng.choice(["baker", "welder", "coder", "nurse"], n),
        "district": rng.choice(["east", "west", "north"], n, p=[0.6, 0.3, 0.1]),
        "fee": rng.uniform(1, 4, n).round(2),
    })  # fmt: skip
    merit = rng.normal(size=n) + (people.age - 40) / 20 + (people.trade == "coder")
    hired = merit + (people.district == "east") > 0.8
    people["decision"] = np.where(hired, "hired", "rejected")
    return people.drop(columns=["applicant", "fee"])


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("honest")
    readme = _readme_table()
    readme[:1000].to_csv(root / "mine.csv", index=False)
    readme[2500:].drop(columns="decision").to_csv(root / "people.csv", index=False)
    _table(600, 0, tied=False).to_csv(root / "noise.csv", index=False)
    (root / "nanmodel.py").write_text(NAN_MODEL)
    return root


def _fit(files: Path, out: Path, *extra: str):
    args = ["filter", "fit", "--data", str(files / "mine.csv"), *ROLES, "--out", str(out)]
    return runner.invoke(app, [*args, *extra])


def test_fit_and_apply_say_the_filter_admits_everyone_and_why(files: Path, tmp_path: Path):
    res = _fit(files, tmp_path / "proxy.json")
    assert res.exit_code == 0, res.output
    warned = [w for w in res.stderr.splitlines() if w.startswith("warning: ")]
    assert any("admits every candidate with the same chance" in w for w in warned), warned
    assert any("do not tell the groups apart" in w for w in warned), warned
    assert not any("hull distance" in w for w in warned)
    record = json.loads((tmp_path / "proxy.summary.json").read_text())
    assert any("do not tell the groups apart" in w for w in record["warnings"])
    assert record["held_out_group_accuracy"] <= record["largest_group_share"] + 0.05

    applied = runner.invoke(
        app, ["filter", "apply", str(tmp_path / "proxy.json"), str(files / "people.csv"),
              "--out", str(tmp_path / "admitted.csv")]
    )  # fmt: skip
    assert applied.exit_code == 0, applied.output
    assert "the same chance of admission" in applied.stderr
    summary = json.loads((tmp_path / "admitted.summary.json").read_text())
    assert any("shares stay as they were" in w for w in summary["warnings"])


def test_a_filter_selecting_on_chance_is_named(files: Path, tmp_path: Path):
    args = ["filter", "fit", "--data", str(files / "noise.csv"), *ROLES]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "p.json")])
    assert res.exit_code == 0, res.output
    assert "comes from chance in this sample" in res.stderr


def test_a_selecting_filter_gets_no_admits_everyone_warning(tmp_path: Path):
    _table(600, 0, tied=True).to_csv(tmp_path / "tied.csv", index=False)
    args = ["filter", "fit", "--data", str(tmp_path / "tied.csv"), *ROLES, "--proxy", "qp-tree"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "p.json")])
    assert res.exit_code == 0, res.output
    assert "admits every candidate" not in res.stderr
    record = json.loads((tmp_path / "p.summary.json").read_text())
    assert record["held_out_group_accuracy"] > 0.95
    assert record["acceptance_rate"] < 0.95


def test_a_one_group_classifier_is_named_on_held_out_rows(files: Path, tmp_path: Path):
    res = _fit(files, tmp_path / "p.json", "--proxy", "naive-tree", "--model",
               "sklearn.linear_model:LogisticRegression", "--model-param", "C=1e-9")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "predicts group 'east' for every one of the 250 held-out rows" in res.stderr
    record = json.loads((tmp_path / "p.summary.json").read_text())
    assert any("held-out rows" in w for w in record["warnings"])


def test_nan_probabilities_are_one_error_line(
    files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.syspath_prepend(str(files))
    res = _fit(files, tmp_path / "p.json", "--proxy", "naive-tree", "--model", "nanmodel:NanProba")
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith("error: "), res.stderr
    assert "not numbers" in lines[-1]
    assert sum(line.startswith("error: ") for line in lines) == 1
    assert "Traceback" not in res.output
