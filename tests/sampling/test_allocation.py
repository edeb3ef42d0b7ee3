"""``allocate_budget``, the refit learner mode, budgets as counts or percentages."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError as SkNotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_is_fitted

from fairacq import CheckpointCallback
from fairacq.data import FairDataset, TableColumns, load_toy, prepare_table
from fairacq.exceptions import BudgetError, InvalidParameterError, ResultWarning
from fairacq.sampling import (
    AllocationResult,
    AoptSampler,
    DatasetOracle,
    RefitLearner,
    UniformSampler,
    allocate_budget,
    resolve_budget,
    run_sampler_trials,
    write_allocation,
)


def _table(n: int = 200, tiny: int = 0, seed: int = 0) -> FairDataset:
    """A raw table with a string feature, a string group and string labels, encoded."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "hours": rng.normal(30, 8, n),
            "contract": rng.choice(["temp", "permanent"], n),
            "site": rng.choice(["north", "south"], n, p=[0.35, 0.65]),
        }
    )
    signal = (frame["hours"] - 30) * np.where(frame["site"] == "north", -1, 1)
    frame["outcome"] = np.where(signal + rng.normal(0, 4, n) > 0, "kept", "left")
    if tiny:
        extra = frame.head(tiny).assign(site="east", outcome=["kept", "left"] * (tiny // 2))
        frame = pd.concat([frame, extra], ignore_index=True)
    columns = TableColumns("outcome", ("site",), positive="kept")
    return prepare_table(frame, columns).dataset


def _pipeline() -> Any:
    return make_pipeline(StandardScaler(), LogisticRegression(C=0.5))


# 40 samples may leave a trial's model predicting one class: warned (test_allocation_answer).
@pytest.mark.filterwarnings("ignore:uniform, in:fairacq.exceptions.ResultWarning")
def test_allocate_budget_with_a_pipeline_counts_per_group_beside_uniform() -> None:
    data, pipe = _table(), _pipeline()
    result = allocate_budget(data, budget="20%", n_trials=2, learner=pipe)
    with pytest.raises(SkNotFittedError):
        check_is_fitted(pipe)  # the caller's estimator is cloned, never fitted
    assert result.budget == 40
    assert result.available == {"north": 60, "south": 140}
    counts = result.counts()
    assert len(counts) == 2 * 2 * 2  # methods x trials x groups
    totals = counts.groupby(["method", "trial"])["samples"].sum()
    assert (totals == 40).all()
    table = result.to_frame()
    assert table["uniform samples"].tolist() == [20.0, 20.0]
    assert table["aopt share"].sum() == pytest.approx(1.0)
    assert "Pipeline" in str(result.traces[0].meta["config"]["learner"])
    as_dict = result.to_dict()
    north = as_dict["groups"][0]
    assert north["group"] == "north"
    assert len(north["aopt"]["samples_per_trial"]) == 2
    assert set(as_dict["worst_group_accuracy"]) == {"aopt", "uniform"}


def test_same_seeds_give_same_splits_for_method_and_baseline() -> None:
    data = _table()
    result = allocate_budget(data, "uniform", budget=20, n_trials=2, baseline=None)
    assert result.baseline is None
    assert result.baseline_traces == []
    again = allocate_budget(data, "aopt", budget=20, n_trials=2)
    for a, b in zip(result.traces, again.baseline_traces, strict=True):
        pd.testing.assert_frame_equal(
            a.to_frame().drop(columns="elapsed_s", errors="ignore"),
            b.to_frame().drop(columns="elapsed_s", errors="ignore"),
        )


def test_refit_mode_is_deterministic_and_seeds_the_clone() -> None:
    data = _table()
    forest = RandomForestClassifier(n_estimators=5, max_depth=3)
    runs = [
        run_sampler_trials(data, "aopt", n_trials=1, random_state=4, budget=24, learner=forest)
        for _ in range(2)
    ]
    a, b = (r[0].to_frame().drop(columns="elapsed_s", errors="ignore") for r in runs)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert forest.get_params()["random_state"] is None


def test_paper_default_is_unchanged_and_learner_implies_refit() -> None:
    assert AoptSampler()._round_mode() == "exact"
    assert AoptSampler(learner=_pipeline())._round_mode() == "refit"
    assert AoptSampler(mode="refit")._round_mode() == "refit"
    with pytest.raises(InvalidParameterError, match="learner= is refitted"):
        AoptSampler(learner=_pipeline(), mode="incremental")._check_params()
    with pytest.raises(InvalidParameterError, match="'learner' parameter"):
        AoptSampler(learner=LinearSVC(), budget=10).fit(DatasetOracle(_table()))
    with pytest.raises(InvalidParameterError, match="Cannot import"):
        AoptSampler(learner="no_such_module_y:Model", budget=10).fit(DatasetOracle(_table()))


def test_refit_learner_one_class_and_predictions() -> None:
    model = RefitLearner(_pipeline())
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    assert model.predict_proba(X).tolist() == [0.5] * 4
    model.update(X, np.ones(4, dtype=np.int64), seed=0)
    assert model.predict_proba(X).tolist() == [1.0] * 4
    model.update(X, np.array([0, 0, 1, 1]), seed=0)
    p = model.predict_proba(X)
    assert p[0] < 0.5 < p[3]
    assert model.state() == {}


class _Interrupt(Exception):
    """Raised by a callback to simulate a killed run."""


def test_refit_mode_resumes_to_the_uninterrupted_run(tmp_path: Path) -> None:
    data = load_toy(300, random_state=0)
    forest = RandomForestClassifier(n_estimators=4, max_depth=3)

    def make() -> AoptSampler:
        return AoptSampler(budget=30, learner=forest, random_state=7)

    def interrupt(rec: Any) -> None:
        if rec.n_steps >= 6:
            raise _Interrupt

    with pytest.raises(_Interrupt):
        make().fit(
            DatasetOracle(data),
            test=15,
            callbacks=[CheckpointCallback(tmp_path / "ck", every=1), interrupt],
        )
    resumed = make().fit(DatasetOracle(data), test=15, continue_from=tmp_path / "ck").trace_
    full = make().fit(DatasetOracle(data), test=15).trace_
    pd.testing.assert_frame_equal(
        resumed.to_frame().drop(columns="elapsed_s", errors="ignore"),
        full.to_frame().drop(columns="elapsed_s", errors="ignore"),
        check_exact=True,
    )


@pytest.mark.parametrize(
    ("budget", "expected"), [("20%", 40), ("12.5 %", 25), (30, 30), ("30", 30), ("100%", 200)]
)
def test_resolve_budget(budget: Any, expected: int) -> None:
    assert resolve_budget(budget, 200) == expected


@pytest.mark.parametrize("budget", [0.2, "0.2", "20 samples", True, None, "0%", "150%"])
def test_resolve_budget_refuses_ambiguous_values(budget: Any) -> None:
    with pytest.raises(InvalidParameterError, match="budget"):
        resolve_budget(budget, 200)


def test_budget_larger_than_the_pool_and_groups_running_out() -> None:
    data = _table(n=100, tiny=10)
    with (
        pytest.warns(ResultWarning, match="only 10 rows"),
        pytest.raises(BudgetError, match=r"budget 100 is larger than the 77 rows"),
    ):
        allocate_budget(data, budget=100, n_trials=1)
    with (
        pytest.warns(ResultWarning, match="only 10 rows"),
        pytest.warns(ResultWarning, match=r"ran out of group\(s\) 'east'.* in 1 of 1 trial"),
    ):
        result = allocate_budget(data, "uncurated", budget=30, n_trials=1)
    east = result.to_frame().set_index("group").loc["east"]
    assert east["uniform samples"] == 6  # all its rows; the budget went to the others
    assert result.to_frame()["uniform samples"].sum() == 30


def test_a_group_running_out_sends_its_rounds_to_the_fallback() -> None:
    data = _table(n=100, tiny=10)
    with pytest.warns(ResultWarning, match=r"'east' in 2 of 2 trial\(s\): \d+ round"):
        traces = run_sampler_trials(data, "uniform", n_trials=2, budget=30)
    for trace in traces:
        frame = trace.to_frame()
        assert trace.meta["exhausted"] == ["east"]
        fallback = frame["reason"].str.startswith("fallback (east ran out)")
        assert trace.meta["redirected_rounds"] == fallback.sum() > 0
        assert (frame.loc[fallback, "group"] != "east").all()
        assert frame["cost"].iloc[-1] == 30
        # Uniform's fallback keeps the groups left balanced
        left = frame.iloc[-1][[c for c in frame.columns if c.startswith("n_")]].drop("n_east")
        assert left.max() - left.min() <= 1
    ran_out = r"UniformSampler: group '\w+' ran out after \d+ of .* it had \d+ rows to draw"
    with pytest.raises(BudgetError, match=ran_out):  # every group runs out
        UniformSampler(budget=10_000, random_state=0).fit(DatasetOracle(data))


def test_small_groups_warn_with_result_warning() -> None:
    data = _table(n=100, tiny=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        allocate_budget(data, "uniform", budget=12, n_trials=1)
    mine = [w for w in caught if issubclass(w.category, ResultWarning)]
    assert len(mine) == 1
    assert "group 'east' has only 10 rows" in str(mine[0].message)
    assert mine[0].filename == __file__  # attributed to the caller's line


def test_write_allocation_counts_csv(tmp_path: Path) -> None:
    result = allocate_budget(_table(), budget=16, n_trials=2)
    files = write_allocation(result, tmp_path)
    assert tmp_path / "counts.csv" in files
    counts = pd.read_csv(tmp_path / "counts.csv", dtype={"trial": str})
    top = counts[counts["trial"] == "recommended"].set_index(["method", "group"])["samples"]
    per_trial = counts[counts["trial"] != "recommended"].groupby(["method", "group"])["samples"]
    assert top.groupby("method").sum().to_dict() == {"aopt": 16, "uniform": 16}
    assert (top <= per_trial.max()).all()  # never more than a trial drew
    assert (top >= per_trial.min()).all() or result.recommended().rounded
    assert len(list((tmp_path / "traces" / "baseline").glob("*.parquet"))) == 2
    assert isinstance(result, AllocationResult)
    assert UniformSampler().method_name == result.baseline


def test_fallbacks_pick_the_worst_served_or_the_least_drawn_group_left() -> None:
    from fairacq.sampling import EpsilonGreedySampler, SamplerState, UncuratedSampler

    state = SamplerState(
        t=5,
        counts=np.array([4, 1, 3]),
        val_loss=np.array([0.9, 0.2, 0.4]),
        val_acc_history=[[], [], []],
        proportions=np.array([0.2, 0.3, 0.5]),
        n_features=2,
        b0=1,
    )
    assert EpsilonGreedySampler()._fallback(state, [1, 2]) == 2  # larger loss of those left
    assert UniformSampler()._fallback(state, [1, 2]) == 1  # least drawn
    assert UncuratedSampler()._fallback(state, [0, 2]) == 2  # 0.5 * 9 - 3 > 0.2 * 9 - 4


def test_resume_after_a_group_ran_out_equals_uninterrupted(tmp_path: Any) -> None:
    from fairacq import Trace

    data = _table(n=100, tiny=10)
    make = lambda: UniformSampler(budget=40, random_state=2)  # noqa: E731
    with pytest.warns(ResultWarning, match="ran out"):
        full = make().fit(DatasetOracle(data)).trace_
    first = make().fit(DatasetOracle(data), callbacks=[lambda rec: rec.n_steps < 12]).trace_
    first.save(tmp_path / "ck")
    with pytest.warns(ResultWarning, match="ran out"):
        resumed = make().fit(DatasetOracle(data), continue_from=Trace.load(tmp_path / "ck")).trace_
    pd.testing.assert_frame_equal(resumed.to_frame(), full.to_frame(), check_exact=True)
    assert resumed.meta["redirected_rounds"] == full.meta["redirected_rounds"] > 0
