"""Bad input to ``fairacq compare`` and :func:`fairacq.compare.compare_strategies`.

Each case is refused before any run starts: no model is trained (the runs are replaced by a
function that fails the test) and no output folder is written.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairacq._random import spawn_seeds
from fairacq.compare import ROWS_FRACTIONS, compare_strategies, make_plan
from fairacq.compare._sizes import SAMPLER_TEST_SIZE, check_sizes
from fairacq.data import FairDataset, load_toy
from fairacq.exceptions import BudgetError, FairacqError, InvalidParameterError, UnknownNameError
from fairacq.sampling import allocate_budget
from tests.bad_input._corpus import Fragments, assert_api_error, assert_cli_error, run_cli

BASE = {
    "--data": "people.csv",
    "--label": "approved",
    "--positive": "yes",
    "--sensitive": "gender",
    "--drop": "person",
    "--seeds": "2",
}


@pytest.fixture(autouse=True)
def no_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a comparison starts running strategies."""

    def run_seed(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a run started before the inputs were refused")

    monkeypatch.setattr("fairacq.compare._compare._run_seed", run_seed)


def _args(files: Path, out: Path, change: dict[str, str | None]) -> list[str]:
    args = ["compare", "--out", str(out)]
    for option, value in {**BASE, **change}.items():
        if value is not None:
            args += [option, str(files / value) if option == "--data" else value]
    return args


GAP_DOWN = ("'dp>=0.05'", "a lower demographic parity gap is fairer", "Write dp<=0.05.")
INFLUENCE = ("'datasift-inf'", "needs gradients", "Strategies that run with it:", "entropy")

# people.csv has 160 rows: a pool of 64 (40%); groups: 120 to draw from less 36 held out
CLI_CASES: list[tuple[dict[str, Any], Fragments]] = [
    ({"--target": "dp>=0.05"}, GAP_DOWN),
    ({"--target": "dp<=-0.1"}, ("between 0 and 1", "Write e.g. dp<=0.1.")),
    ({"--target": "worst<=0.7"}, ("higher worst-group accuracy is better", "worst>=0.7")),
    ({"--target": "acc>=1.5"}, ("accuracy is between 0 and 1", "acc>=0.8")),
    ({"--target": "dp<0"}, ("can never be met",)),
    ({"--target": "demographic_parity_diff_signed<=0.1"}, ("signed", "dp<=0.1")),
    ({"--target": "dp=0.05"}, ("not METRIC<=VALUE",)),
    ({"--budget": "500"}, ("--budget 500", "64 of your 160 rows", "--budget 64 or less")),
    ({"--budget": "65"}, ("--budget 65 is more than the simulated pool holds",)),
    ({"--budget": "1%"}, ("'1%' comes to 0 rows", "--budget 1 or more")),
    ({"--budget": "0"}, ("--budget must be at least 1",)),
    ({"--budget": "10", "--batch": "20"}, ("--batch 20 is larger than the budget (10 rows)",)),
    ({"--budget": "20", "--batch": "1%"}, ("--batch '1%' comes to 0 rows",)),
    ({"--cost": "years", "--budget": "100000"}, ("which cost", "in all", "or less")),
    ({"--cost": "years", "--budget": "500", "--batch": "5"}, ("--batch 5 buys nothing",)),
    (
        {"--question": "groups", "--budget": "150"},
        ("the samplers can draw", "84 of your 160 rows", "--budget 84 or less"),
    ),
    ({"--methods": "datasift-inf", "--model": "decision_tree"}, INFLUENCE),
    (
        {"--methods": "inf,datasift-inf,entropy", "--model": "random_forest"},
        ("'inf', 'datasift-inf'", "needs gradients", "Drop them from --methods"),
    ),
    ({"--methods": "foo"}, ("Unknown strategy 'foo'", "Known: autodata, datasift")),
    ({"--methods": "datasfit"}, ("Did you mean 'datasift'?", "Known:")),
    ({"--methods": "aopt,fooo"}, ("'aopt' is a strategy of --question groups",)),
    ({"--question": "groups", "--methods": "datasift"}, ("of --question rows", "Known: ")),
]


@pytest.mark.parametrize(("change", "fragments"), CLI_CASES, ids=lambda v: str(v)[:60])
def test_compare_cli(files: Path, tmp_path: Path, change, fragments) -> None:
    out = tmp_path / "out"
    assert_cli_error(run_cli(*_args(files, out, change)), fragments)
    assert not out.exists()


def test_a_budget_that_fits_passes_the_check_and_reaches_the_runs(files, tmp_path) -> None:
    res = run_cli(*_args(files, tmp_path / "out", {"--budget": "64", "--methods": "entropy"}))
    assert res.exit_code == 1
    assert "a run started" in str(res.exception)


# -- the library -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def toy() -> FairDataset:
    return load_toy(400, random_state=0)  # a pool of 160 rows, groups: 300 less 90 held out


API_CASES: list[tuple[str, dict[str, Any], type[FairacqError], Fragments]] = [
    ("gap pushed up", {"target": "dp>=0.05"}, InvalidParameterError, GAP_DOWN),
    ("accuracy pushed down", {"target": "worst<=0.7"}, InvalidParameterError, "worst>=0.7"),
    ("gap below 0", {"target": "dp<=-0.1"}, InvalidParameterError, "between 0 and 1"),
    ("budget over the pool", {"budget": 161}, BudgetError, "--budget 160 or less"),
    ("budget zero", {"budget": 0}, BudgetError, "comes to 0 rows"),
    ("batch over budget", {"budget": 20, "batch": 21}, BudgetError, "--batch 20 or less"),
    (
        "budget over the costs",
        {"budget": 321, "costs": np.full(400, 2.0)},
        BudgetError,
        ("cost 320 in all", "--budget 320 or less"),
    ),
    (
        "batch under the cheapest row",
        {"budget": 100, "batch": 1, "costs": np.full(400, 2.0)},
        BudgetError,
        "Write --batch 2 or more",
    ),
    (
        "groups budget over the draws",
        {"question": "groups", "budget": 211},
        BudgetError,
        "--budget 210 or less",
    ),
    (
        "method without gradients",
        {"methods": ["datasift-inf"], "learner": "decision_tree"},
        InvalidParameterError,
        INFLUENCE,
    ),
    ("unknown method", {"methods": ["nope"]}, UnknownNameError, "Known: autodata"),
]


@pytest.mark.parametrize(("name", "kwargs", "kind", "fragments"), API_CASES, ids=lambda v: v)
def test_compare_api(toy: FairDataset, name: str, kwargs, kind, fragments) -> None:
    kwargs = dict(kwargs)
    question = kwargs.pop("question", "rows")
    assert_api_error(lambda: compare_strategies(toy, question, **kwargs), fragments, kind)


@pytest.mark.parametrize(
    ("question", "fits", "over"),
    [("rows", 160, 161), ("groups", 210, 211), ("groups", "70%", "71%")],
)
def test_check_sizes_refuses_just_above_what_the_pool_holds(toy, question, fits, over) -> None:
    common: dict[str, Any] = {
        "batch": "10%", "costs": None, "seeds": spawn_seeds(0, 3),
        "fractions": ROWS_FRACTIONS, "test_fraction": 0.25,
    }  # fmt: skip
    check_sizes(toy, question, budget=fits, **common)
    with pytest.raises(BudgetError, match="or less"):
        check_sizes(toy, question, budget=over, **common)


def test_check_sizes_holds_each_seed_to_its_own_pool_cost(toy) -> None:
    costs = np.random.default_rng(0).uniform(1, 3, len(toy))
    seeds = spawn_seeds(0, 3)
    totals = []
    for seed in seeds:
        with pytest.raises(BudgetError, match=r"cost ([\d.]+) in all") as info:
            check_sizes(
                toy, "rows", budget=10_000, batch=1, costs=costs, seeds=[seed],
                fractions=ROWS_FRACTIONS, test_fraction=0.25,
            )  # fmt: skip
        totals.append(float(str(info.value).split("cost ")[1].split(" in all")[0]))
    assert len(set(totals)) > 1
    fits_all = int(min(totals))
    check_sizes(
        toy, "rows", budget=fits_all, batch=fits_all, costs=costs, seeds=seeds,
        fractions=ROWS_FRACTIONS, test_fraction=0.25,
    )  # fmt: skip
    with pytest.raises(BudgetError):
        check_sizes(
            toy, "rows", budget=int(max(totals)), batch=1, costs=costs, seeds=seeds,
            fractions=ROWS_FRACTIONS, test_fraction=0.25,
        )  # fmt: skip


def test_the_samplers_hold_out_what_the_check_assumes() -> None:
    default = inspect.signature(allocate_budget).parameters["test_size"].default
    assert default == SAMPLER_TEST_SIZE


def test_without_methods_a_plan_leaves_out_what_cannot_run_without_an_error() -> None:
    plan = make_plan("rows", "decision_tree")
    assert set(plan.skipped) == {"datasift-inf", "inf"}
    assert "inf" not in plan.acquirers
    assert make_plan("rows", "decision_tree", ["entropy"]).acquirers == ("entropy", "random")
