"""No command calls a degenerate model fair: audit, acquire, sample and compare, through the CLI.

Four degenerate cases (a constant model, NaN probabilities, a label with 1 % positives, a
row holding 1e308) times four commands. Each must end in one ``error:`` line (exit 2) or
in a ``warning:`` naming the one-class model (exit 0) — and never in words that call the
model fair ("already within", "already meets", "Recommended: no action").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.bad_input._corpus import people_frame, run_cli

pytestmark = pytest.mark.slow

ROLES = ("--label", "approved", "--positive", "yes", "--sensitive", "gender", "--drop", "person")
#: Words that would tell a user the model is fair or that nothing need be done.
FAIR_WORDS = ("already within", "already meets", "Recommended: no action", "already fair")


def _rare_positives(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out["approved"] = "no"
    out.loc[out.index[:: len(out) // 4], "approved"] = "yes"  # 4 positives in 400 rows: 1 %
    return out


def _huge_value(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out.loc[out.index[0], "income"] = 1e308
    out.loc[out.index[1], "income"] = -1e308
    return out


#: case -> (how the rows are changed, extra options)
CASES = {
    "constant model": (lambda f: f, ("--model", "sklearn.dummy:DummyClassifier")),
    "nan probabilities": (lambda f: f, ("--model", "tests.degenerate_models:NanProba")),
    "one percent positives": (_rare_positives, ()),
    "a 1e308 row": (_huge_value, ()),
}


def _command(name: str, data: Path, pool: Path, out: Path) -> list[str]:
    data_opts = ["--data", str(data), *ROLES]
    if name == "audit":
        return ["audit", *data_opts]
    if name == "acquire":
        return [
            "acquire", *data_opts, "--pool", str(pool), "--method", "random", "--budget", "20",
            "--batch", "10", "--out", str(out),
        ]  # fmt: skip
    if name == "sample":
        return ["sample", *data_opts, "--budget", "40", "--trials", "2", "--out", str(out)]
    return [
        "compare", *data_opts, "--methods", "random", "--seeds", "1", "--budget", "20%",
        "--out", str(out),
    ]  # fmt: skip


@pytest.mark.parametrize("command", ["audit", "acquire", "sample", "compare"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_degenerate_model_is_never_called_fair(tmp_path: Path, command: str, case: str) -> None:
    change, extra = CASES[case]
    data, pool = tmp_path / "mine.csv", tmp_path / "pool.csv"
    change(people_frame(400, seed=3)).to_csv(data, index=False)
    change(people_frame(300, seed=4)).to_csv(pool, index=False)
    res = run_cli(*_command(command, data, pool, tmp_path / "out"), *extra)
    output = res.output
    for words in FAIR_WORDS:
        assert words not in output, f"{command} / {case}: {words!r} in\n{output}"
    assert "Traceback" not in output, output
    if res.exit_code == 2:
        errors = [line for line in output.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, output
        return
    assert res.exit_code == 0, output
    warned = [line for line in output.splitlines() if line.startswith("warning: ")]
    assert any("one class" in line or "for every one of the" in line for line in warned), output


def test_the_cases_are_degenerate_for_the_default_model() -> None:
    """The 1 % label really has four positives; the 1e308 row really holds the extremes."""
    rare = _rare_positives(people_frame(400, seed=3))
    assert (rare["approved"] == "yes").sum() == 4
    huge = _huge_value(people_frame(400, seed=3))
    assert np.isclose(huge["income"].abs().max(), 1e308)
