"""Falcon (Tae et al., PVLDB 2024): policies, target groups, EXP3, postponing, lambda."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from fairacq import CheckpointCallback, Trace
from fairacq.acquisition import (
    EntropyAcquirer,
    Exp3,
    FalconAcquirer,
    make_acquirer,
    policy_order,
    target_groups,
)
from fairacq.data import FairDataset, load_toy
from fairacq.exceptions import InvalidParameterError


class ScoreIsX0(ClassifierMixin, BaseEstimator):
    """A 'model' whose P(y=1) is the row's first feature, whatever it was trained on."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p = np.clip(np.asarray(X)[:, 0], 0.0, 1.0)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)


def _table(x0, y, groups, name):
    X = pd.DataFrame({"x0": np.asarray(x0, dtype=float), "x1": np.arange(len(y), dtype=float)})
    return FairDataset(X, y, pd.Series(groups, name="grp"), name=name)


def _parts(n=600):
    ds = load_toy(n, random_state=1)
    return ds.subset(range(100)), ds.subset(range(100, 250)), ds.subset(range(250, n))


# -- single policies and target groups ------------------------------------------------------
def test_policy_order_is_closest_to_one_minus_r():
    p_label = np.array([0.10, 0.28, 0.35, 0.90, 0.31])
    rows = np.array([10, 11, 12, 13, 14])
    # r = 0.7 aims at P = 0.3: distances 0.20, 0.02, 0.05, 0.60, 0.01
    assert policy_order(p_label, rows, 0.7).tolist() == [14, 11, 12, 10, 13]
    # r = 0.3 aims at P = 0.7: distances 0.60, 0.42, 0.35, 0.20, 0.39
    assert policy_order(p_label, rows, 0.3).tolist() == [13, 12, 14, 11, 10]
    # equal distances (0.25 from 0.5) go by position
    assert policy_order(np.array([0.75, 0.25]), np.array([5, 3]), 0.5).tolist() == [3, 5]


def test_target_groups_by_hand():
    s = np.array([0, 0, 0, 1, 1, 1])
    y = np.array([1, 1, 0, 1, 0, 0])
    # selection rates: group 0 -> 1/3, group 1 -> 2/3
    pred = np.array([1, 0, 0, 1, 1, 0])
    assert target_groups("dp", y, pred, s, 2) == [(1, 0), (0, 1)]
    # TPR: group 0 -> 1/2, group 1 -> 1/1; FPR: group 0 -> 0/1, group 1 -> 1/2
    assert target_groups("eopp", y, pred, s, 2) == [(1, 0)]
    # equal gaps (1/2 and 1/2): the FPR gap decides, as in the authors' code
    assert target_groups("eodds", y, pred, s, 2) == [(0, 1)]
    pred_tpr = np.array([0, 0, 0, 1, 0, 0])  # TPR gap 1, FPR gap 0
    assert target_groups("eodds", y, pred_tpr, s, 2) == [(1, 0)]


def test_fairness_round_takes_the_target_group_rows_closest_to_1_minus_r():
    # Validation: group a always predicted 0 and b always 1 -> TPR a = 0: target (1, a).
    val = _table([0.2, 0.1, 0.9, 0.8], [1, 0, 1, 0], ["a", "a", "b", "b"], "val")
    train = _table([0.2, 0.7, 0.6, 0.3], [0, 1, 1, 0], ["a", "a", "b", "b"], "train")
    #                 0     1     2     3     4     5     6
    x0 = [0.10, 0.28, 0.60, 0.35, 0.90, 0.31, 0.29]
    labels = [1, 0, 1, 1, 1, 0, 1]
    groups = ["a", "a", "b", "a", "a", "b", "b"]
    pool = _table(x0, labels, groups, "pool")
    acq = FalconAcquirer(
        budget=2,
        batch_size=2,
        learner=ScoreIsX0(),
        metric="equal_opportunity_diff",
        policies=(0.7,),
        random_state=0,
    )
    frame = acq.fit(train, pool, validation=val).trace_.to_frame()
    row = frame.iloc[1]
    assert (row["target_label"], row["target_group"], row["policy_r"]) == (1, 0, 0.7)
    # group a rows 0, 1, 3, 4 have P(y=1) 0.10, 0.28, 0.35, 0.90: closest to 0.3 are 1 then 3;
    # row 3 is positive (kept), row 1 negative (postponed); group b rows are never looked at
    assert list(row["batch"]) == [3]
    assert list(row["postponed"]) == [1]
    assert (row["rows_paid"], row["labels_seen"], row["rows_evaluated"]) == (2, 2, 1)
    assert row["cost"] == 2.0
    assert row["n_train"] == len(train) + 1


# -- EXP3 -----------------------------------------------------------------------------------
def test_exp3_update_matches_hand_computed_probabilities():
    bandit = Exp3(4, n_policies=2, warmup=2)  # arms: group 0 -> 0, 1; group 1 -> 2, 3
    assert bandit.probabilities().tolist() == [0.25] * 4  # gamma = 1 during the warm-up
    bandit.update(0, gain=0.1, prob=0.25, rows=1)  # inside the warm-up: weights stay
    assert bandit.weights.tolist() == [1.0] * 4
    assert bandit.scale is None
    bandit.update(1, gain=0.05, prob=0.25, rows=1)  # warm-up over: scale = max gain = 0.1
    gamma = math.sqrt(4 * math.log(4) * 0.1 / (math.e - 1))  # = 0.568081
    assert bandit.scale == 0.1
    assert bandit.gamma == pytest.approx(gamma)
    # reward 0.05 / 0.1 = 0.5, estimate 0.5 / 0.25 = 2: arm 1 gets 2, its neighbour arm 0
    # gets 1, arm 2 (the other target group) nothing: w = (e^{g/4}, e^{g/2}, 1, 1)
    #   = (1.152825, 1.328541, 1, 1), p = (1 - g) w / sum(w) + g / 4
    assert bandit.probabilities() == pytest.approx(
        [0.253116, 0.270069, 0.238407, 0.238407], abs=1e-6
    )
    before = bandit.probabilities()
    bandit.update(2, gain=-0.3, prob=0.238407, rows=1)  # a loss is a reward of 0
    assert bandit.probabilities() == pytest.approx(before)
    masked = bandit.probabilities(np.array([True, False, True, False]))
    assert masked.tolist() == pytest.approx([0.253116 / 0.491523, 0, 0.238407 / 0.491523, 0])


def test_exp3_state_round_trip():
    bandit = Exp3(10, n_policies=5, warmup=0)
    bandit.update(3, gain=0.2, prob=0.1, rows=10)
    again = Exp3.from_state_dict(bandit.state_dict())
    assert again.state_dict() == bandit.state_dict()
    assert again.probabilities().tolist() == bandit.probabilities().tolist()


# -- postponing, lambda, budget ---------------------------------------------------------------
def test_postponed_rows_are_paid_but_not_trained_on():
    train, val, pool = _parts()
    acq = FalconAcquirer(budget=60, batch_size=10, warmup=20, random_state=1)
    frame = acq.fit(train, pool, validation=val).trace_.to_frame().iloc[1:]
    for _, row in frame.iterrows():
        kept, postponed = np.asarray(row["batch"], int), np.asarray(row["postponed"], int)
        assert (pool.y[kept] == row["target_label"]).all()
        assert (pool.y[postponed] != row["target_label"]).all()
        assert (pool.s[np.concatenate([kept, postponed])] == row["target_group"]).all()
        assert kept.size + postponed.size == row["batch_cost"] == 10
    last = frame.iloc[-1]
    assert last["cost"] == last["rows_paid"] == last["labels_seen"] == 60
    assert last["rows_evaluated"] == acq.acquired_.size == last["n_train"] - len(train)
    assert acq.postponed_.size == 60 - acq.acquired_.size > 0
    assert not set(acq.acquired_) & set(acq.postponed_)
    assert acq.stop_reason_ == "budget"


def test_lambda_zero_is_entropy_sampling():
    train, val, pool = _parts()
    falcon = FalconAcquirer(budget=50, batch_size=10, lam=0.0, random_state=4)
    entropy = EntropyAcquirer(budget=50, batch_size=10, random_state=4)
    f_frame = falcon.fit(train, pool, validation=val, test=val).trace_.to_frame()
    e_frame = entropy.fit(train, pool, validation=val, test=val).trace_.to_frame()
    assert falcon.acquired_.tolist() == entropy.acquired_.tolist()
    assert falcon.postponed_.size == 0
    assert (f_frame["target_label"] == -1).all()
    assert f_frame["policy_r"].isna().all()
    for col in ("cost", "n_train", "val_accuracy", "test_demographic_parity_diff_abs"):
        assert f_frame[col].tolist() == e_frame[col].tolist()


def test_lambda_mixes_round_kinds_and_is_seeded():
    train, val, pool = _parts()
    runs = [
        FalconAcquirer(budget=100, batch_size=5, lam=0.5, random_state=seed)
        .fit(train, pool, validation=val)
        .trace_
        for seed in (0, 0, 1)
    ]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
    kinds = runs[0].to_frame()["target_label"].iloc[1:]
    assert (kinds == -1).any()
    assert (kinds != -1).any()


def test_resume_with_costs_equals_the_whole_run(tmp_path):
    train, val, pool = _parts()
    costs = np.where(np.arange(len(pool)) % 3 == 0, 2.0, 0.5)
    params = {"budget": 40.0, "batch_size": 4.0, "lam": 0.6, "warmup": 8, "random_state": 2}
    whole = FalconAcquirer(**params).fit(train, pool, validation=val, costs=costs).trace_
    with pytest.raises(RuntimeError):
        FalconAcquirer(**params).fit(
            train,
            pool,
            validation=val,
            costs=costs,
            callbacks=[CheckpointCallback(tmp_path / "ck", every=1), _stop_after(6)],
        )
    assert len(Trace.load(tmp_path / "ck")) == 6
    resumed = (
        FalconAcquirer(**params)
        .fit(train, pool, validation=val, costs=costs, continue_from=tmp_path / "ck")
        .trace_
    )
    assert resumed == whole
    assert whole.final("cost") <= 40.0


def _stop_after(k):
    def callback(recorder):
        if recorder.n_steps >= k:
            raise RuntimeError("interrupted")

    return callback


# -- parameters and registry ------------------------------------------------------------------
def test_bad_metric_and_policies_are_refused():
    train, val, pool = _parts()
    with pytest.raises(InvalidParameterError, match="metric 'accuracy' cannot steer acquisition"):
        FalconAcquirer(budget=10, metric="accuracy").fit(train, pool, validation=val)
    with pytest.raises(InvalidParameterError, match="'policies' parameter of FalconAcquirer"):
        FalconAcquirer(budget=10, policies=(0.5, 1.5)).fit(train, pool, validation=val)


def test_registry_builds_falcon_and_fal():
    falcon = make_acquirer("falcon", budget=200, batch_size=1, lam=0.5)
    assert isinstance(falcon, FalconAcquirer)
    assert falcon.lam == 0.5
    assert type(make_acquirer("fal", n_candidates=8)).__name__ == "FALAcquirer"


class CountingScoreIsX0(ScoreIsX0):
    """ScoreIsX0 that records how many rows each predict_proba call scores."""

    calls: ClassVar[list[int]] = []

    def predict_proba(self, X):
        CountingScoreIsX0.calls.append(len(X))
        return super().predict_proba(X)


def test_a_fairness_round_scores_only_the_target_groups_rows_and_no_validation_again():
    train, val, pool = _parts()
    CountingScoreIsX0.calls = []
    acq = FalconAcquirer(budget=10, batch_size=5, learner=CountingScoreIsX0(), random_state=0)
    frame = acq.fit(train, pool, validation=val).trace_.to_frame()
    rounds = frame[frame["step"] > 0]
    assert (rounds["target_group"] >= 0).all()  # fairness rounds only (lam = 1)
    pool_s = pool.s
    group_rows = [int((pool_s == g).sum()) for g in rounds["target_group"]]
    # per model: the validation rows once (the loop's), then the target group's pool rows
    assert CountingScoreIsX0.calls[:2] == [len(val), group_rows[0]]
    assert len(pool) not in CountingScoreIsX0.calls  # the whole pool is never scored
