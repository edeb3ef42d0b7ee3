"""compare warns when a gap target is within what an exactly fair rule measures by chance."""

from __future__ import annotations

import html
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq._random import child, spawn_seeds
from fairacq.cli import app
from fairacq.compare import CompareResult, compare_strategies
from fairacq.compare._compare import ROWS_FRACTIONS
from fairacq.compare._rows import rows_parts
from fairacq.data import load_toy
from fairacq.exceptions import ResultWarning
from fairacq.metrics import gap_noise_floor
from fairacq.models import make_learner

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
DATA = load_toy(400)
WITHIN = "within the gap a rule that is exactly fair shows"


def _compare(target: str, question: str = "rows") -> tuple[CompareResult, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare_strategies(
            DATA,
            question,
            budget=40 if question == "rows" else 60,
            n_seeds=2,
            methods=["random"] if question == "rows" else ["aopt"],
            target=target,
        )
    said = [str(w.message) for w in caught if issubclass(w.category, ResultWarning)]
    return result, said


def _expected(on_positives: bool) -> list[tuple[float, float, int]]:
    """Each seed's floor, rebuilt: its test split's group sizes and no action's rate."""
    out = []
    for seed in spawn_seeds(0, 2):
        parts = rows_parts(DATA, None, ROWS_FRACTIONS, seed)
        model = make_learner("lr", random_state=child(seed, 1))
        model.fit(parts.initial.to_numpy(), parts.initial.y)
        rows = parts.test.y == 1 if on_positives else np.ones(len(parts.test), bool)
        chosen = model.predict_proba(parts.test.to_numpy())[:, 1][rows] >= 0.5
        sizes = np.bincount(parts.test.s[rows]).tolist()
        out.append((*gap_noise_floor(sizes, float(chosen.mean())), int(rows.sum())))
    return out


def test_a_tight_dp_target_warns_with_the_floor_of_the_test_split() -> None:
    result, said = _compare("dp<=0.01")
    expected = _expected(on_positives=False)
    floor = result.noise_floor
    assert floor is not None
    assert floor["mean"] == pytest.approx(np.mean([e[0] for e in expected]), rel=1e-9)
    assert floor["std"] == pytest.approx(np.mean([e[1] for e in expected]), rel=1e-9)
    assert floor["test_rows"] == 80 == expected[0][2]
    assert 0.05 < floor["mean"] < 0.15  # 80 test rows: a floor near 0.09
    texts = [t for t in said if WITHIN in t]
    assert len(texts) == 1
    assert f"about {floor['mean']:.3f} ± {floor['std']:.3f}" in texts[0]
    assert "80 test rows" in texts[0]
    assert "'no action'" in texts[0]
    summary = result.to_dict()
    assert texts[0] in summary["warnings"]
    assert summary["noise_floor"]["mean"] == floor["mean"]
    assert html.escape(texts[0]) in result.to_html()


def test_a_loose_target_or_a_target_without_a_floor_gets_no_warning() -> None:
    loose, said = _compare("dp<=0.3")
    assert loose.noise_floor is not None  # measured, but the target is well above it
    assert not [t for t in said if WITHIN in t]
    assert not [t for t in loose.to_dict()["warnings"] if WITHIN in t]
    accuracy, said = _compare("acc>=0.6")
    assert accuracy.noise_floor is None
    assert not [t for t in said if WITHIN in t]


def test_equal_opportunity_floor_is_on_the_positive_test_rows() -> None:
    result, said = _compare("eopp<=0.02")
    expected = _expected(on_positives=True)
    floor = result.noise_floor
    assert floor is not None
    assert floor["mean"] == pytest.approx(np.mean([e[0] for e in expected]), rel=1e-9)
    assert floor["test_rows"] == np.mean([e[2] for e in expected]) < 80
    assert any("test rows whose label is positive" in t for t in said)


def test_groups_question_names_test_fraction_and_the_floor_survives_save(tmp_path) -> None:
    result, said = _compare("dp<=0.01", question="groups")
    assert result.noise_floor is not None
    assert result.noise_floor["test_rows"] == 100  # 25 % of 400
    assert any("--test-fraction" in t and "'uniform'" in t for t in said)
    again = CompareResult.load(result.save(tmp_path / "saved"))
    assert again.noise_floor == result.noise_floor
    assert again.floor_warnings() == result.floor_warnings()


def test_cli_prints_one_warning_line_and_keeps_it_in_the_summary(tmp_path) -> None:
    rng = np.random.default_rng(3)
    n = 300
    table = pd.DataFrame(
        {
            "client_id": [f"c{i}" for i in range(n)],
            "income": rng.normal(3, 1, n).round(2),
            "region": rng.choice(["north", "south", "east"], n),
            "group": rng.choice(["big", "small"], n, p=[0.85, 0.15]),
        }
    )
    table["repaid"] = np.where(table["income"] + rng.normal(0, 1, n) > 3, "yes", "no")
    table.to_csv(tmp_path / "loans.csv", index=False)
    args = ["compare", "--data", str(tmp_path / "loans.csv"), "--label", "repaid", "--positive",
            "yes", "--sensitive", "group", "--drop", "client_id", "--methods", "random",
            "--seeds", "1", "--budget", "30", "--out", str(tmp_path / "out")]  # fmt: skip
    got = CliRunner().invoke(app, [*args, "--target", "dp<=0.01"])
    assert got.exit_code == 0, got.output
    lines = [line for line in got.output.splitlines() if WITHIN in line]
    assert len(lines) == 1
    assert lines[0].startswith("warning: the target")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert any(WITHIN in w for w in summary["warnings"])
