"""allocate_budget's answer: one count per group, a verdict, and no degenerate model unnamed."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyClassifier

from fairacq.data import load_toy
from fairacq.exceptions import DegenerateModelError, ResultWarning
from fairacq.sampling import allocate_budget, write_allocation
from tests.degenerate_models import NanProba


@pytest.fixture(scope="module")
def result():
    return allocate_budget(load_toy(400), budget=40, n_trials=4, random_state=0)


def test_recommended_counts_sum_to_the_budget_and_lie_in_their_interval(result):
    rec = result.recommended()
    assert rec.counts.sum() == 40
    per_trial = (
        result.counts()
        .query("method == 'aopt'")
        .pivot(index="trial", columns="group", values="samples")
    )
    np.testing.assert_array_equal(rec.median, per_trial[result.groups].median().to_numpy())
    uniform = result.recommended("uniform")
    assert uniform.counts.tolist() == [20, 20]
    assert uniform.low.tolist() == uniform.high.tolist() == [20, 20]


def test_verdict_is_paired_by_trial(result):
    verdict = result.verdict()
    assert verdict is not None
    assert verdict.paired
    assert verdict.n_trials == 4
    acc = result.worst_group_accuracy()
    gap = np.mean(acc["aopt"]["per_trial"]) - np.mean(acc["uniform"]["per_trial"])
    assert verdict.difference == pytest.approx(gap)


def test_json_form_holds_recommendation_and_verdict(result):
    out = json.loads(json.dumps(result.to_dict()))
    assert out["verdict"]["paired"] is True
    assert out["verdict"]["text"] == result.verdict().sentence()
    counts = [g["aopt"]["recommended"] for g in out["groups"]]
    assert sum(counts) == 40
    for g in out["groups"]:
        low, high = g["aopt"]["interval"]
        assert low <= g["aopt"]["samples_median"] <= high


def test_no_baseline_no_verdict():
    res = allocate_budget(load_toy(300), budget=20, n_trials=2, baseline=None)
    assert res.verdict() is None
    assert res.to_dict()["verdict"] is None


def test_counts_csv_starts_with_the_recommended_rows(result, tmp_path):
    write_allocation(result, tmp_path)
    counts = pd.read_csv(tmp_path / "counts.csv", dtype={"trial": str})
    top = counts[counts["trial"] == "recommended"]
    assert top.groupby("method")["samples"].sum().to_dict() == {"aopt": 40, "uniform": 40}
    mine = top[top["method"] == "aopt"]
    rec = result.recommended()
    assert mine["low"].tolist() == rec.low.tolist()
    assert mine["high"].tolist() == rec.high.tolist()
    assert counts.loc[counts["trial"] != "recommended", "low"].isna().all()


def test_one_class_model_is_named_in_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = allocate_budget(
            load_toy(300), budget=20, n_trials=2, learner=DummyClassifier(), baseline=None
        )
    texts = [str(w.message) for w in caught if issubclass(w.category, ResultWarning)]
    assert any(t.startswith("aopt, in 2 of 2 trial(s): the model predicts") for t in texts)
    assert all(t.meta["one_class"] in (0, 1) for t in res.traces)


def test_a_working_model_gives_no_one_class_warning(result):
    assert not any("one_class" in t.meta for t in result.traces)


def test_nan_probabilities_are_refused():
    with pytest.raises(DegenerateModelError, match="not numbers"):
        allocate_budget(load_toy(300), budget=20, n_trials=1, learner=NanProba())
