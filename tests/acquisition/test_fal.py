"""FAL (Anahideh et al., ESWA 2022): the score by hand, alpha, sub-sampling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from fairacq.acquisition import (
    EntropyAcquirer,
    FALAcquirer,
    as_pool_source,
    expected_unfairness,
    fal_scores,
)
from fairacq.acquisition.loop._state import AcquisitionState
from fairacq.data import FairDataset, load_toy
from fairacq.models import evaluate, make_learner, predict_scores


class CellRate(ClassifierMixin, BaseEstimator):
    """P(y=1) of a row = the share of positives among training rows with its x0."""

    def fit(self, X, y):
        X, y = np.asarray(X), np.asarray(y)
        self.classes_ = np.array([0, 1])
        self.rate_ = {v: float(y[X[:, 0] == v].mean()) for v in np.unique(X[:, 0])}
        return self

    def predict_proba(self, X):
        p = np.array([self.rate_.get(v, 0.5) for v in np.asarray(X)[:, 0]])
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)


def _table(x0, y, name):
    x0 = np.asarray(x0, dtype=float)
    groups = np.where(x0 == 0, "a", "b")  # the cell is the group
    return FairDataset(pd.DataFrame({"x0": x0}), y, pd.Series(groups, name="grp"), name=name)


def test_fal_scores_by_hand():
    entropy = np.array([1.0, 0.8, 0.6])
    p1 = np.array([0.5, 0.2, 0.9])
    if0, if1 = np.array([0.30, 0.10, 0.20]), np.array([0.10, 0.50, 0.40])
    # expected unfairness: 0.2, 0.8*0.1 + 0.2*0.5 = 0.18, 0.1*0.2 + 0.9*0.4 = 0.38
    assert expected_unfairness(p1, if0, if1) == pytest.approx([0.20, 0.18, 0.38])
    # reductions from 0.3: 0.10, 0.12, -0.08 -> scaled 0.9, 1, 0; entropy scaled 1, 0.5, 0
    scores = fal_scores(entropy, p1, if0, if1, 0.3, alpha=0.25)
    assert scores == pytest.approx([0.25 * 1 + 0.75 * 0.9, 0.25 * 0.5 + 0.75 * 1, 0.0])
    assert fal_scores(entropy, p1, if0, if1, 0.3, alpha=1.0) == pytest.approx([1, 0.5, 0])


def test_fal_score_on_a_tiny_case_by_hand():
    # Cells (x0) 0 / 1 / 2; group a is cell 0, group b cells 1 and 2. Training positives:
    # cell 0 1/3 (predicted 0), cell 1 3/4 (predicted 1), cell 2 1/2 (predicted 1).
    train = _table([0, 0, 0, 1, 1, 1, 1, 2, 2], [1, 0, 0, 1, 1, 1, 0, 1, 0], "train")
    val = _table([0, 1, 2], [1, 0, 1], "val")  # selection rates a 0, b 1: DP = 1
    pool = _table([0, 1, 2], [1, 1, 1], "pool")  # candidates A, B, C: one per cell
    # A as 0 -> DP 1, as 1 -> cell 0 at 2/4 -> DP 0; P(1) = 1/3: expected 2/3, reduction 1/3
    # B as 0 or 1 -> cell 1 at 3/5 or 4/5, still 1: DP 1; reduction 0
    # C as 0 -> cell 2 at 1/3 -> b's rate 1/2 -> DP 1/2; as 1 -> DP 1; P(1) = 1/2:
    #   expected 3/4, reduction 1/4
    # scaled reductions: A 1, B 0, C 3/4; entropies H(1/3), H(3/4), H(1/2) = 1 scaled:
    h = lambda p: -(p * np.log2(p) + (1 - p) * np.log2(1 - p))  # noqa: E731
    h_a = (h(1 / 3) - h(3 / 4)) / (1 - h(3 / 4))  # = 0.567069
    fal = FALAcquirer(budget=1, learner=CellRate(), n_candidates=None, random_state=0)
    fal._prepare(None, val, np.random.SeedSequence(0))  # the what-if fits need only these
    model = CellRate().fit(train.to_numpy(), train.y)
    state = AcquisitionState(
        train, as_pool_source(pool), np.ones(3, bool), np.ones(3), model, 1.0, 1.0
    )
    rows = np.array([0, 1, 2])
    expected = [0.6 * h_a + 0.4 * 1, 0.0, 0.6 * 1 + 0.4 * 0.75]  # 0.740241, 0, 0.9
    assert fal._scores(state, rows, 0.6) == pytest.approx(expected)
    assert fal._scores(state, rows, 0.2) == pytest.approx([0.2 * h_a + 0.8, 0.0, 0.8])
    # the run labels the best-scored row: C with alpha 0.6, A once fairness weighs more
    fal.fit(train, pool, validation=val)
    assert fal.acquired_.tolist() == [2]
    fal.set_params(alpha=0.2).fit(train, pool, validation=val)
    assert fal.acquired_.tolist() == [0]


def test_alpha_one_is_entropy_sampling():
    ds = load_toy(500, random_state=2)
    train, val, pool = ds.subset(range(80)), ds.subset(range(80, 200)), ds.subset(range(200, 500))
    fal = FALAcquirer(budget=30, batch_size=10, alpha=1.0, n_candidates=None, random_state=3)
    ent = EntropyAcquirer(budget=30, batch_size=10, random_state=3)
    fal.fit(train, pool, validation=val)
    ent.fit(train, pool, validation=val)
    assert fal.acquired_.tolist() == ent.acquired_.tolist()


def test_candidates_are_subsampled_and_alpha_adapts():
    ds = load_toy(500, random_state=2)
    train, val, pool = ds.subset(range(80)), ds.subset(range(80, 200)), ds.subset(range(200, 500))
    calls = []
    fal = FALAcquirer(budget=3, n_candidates=5, alpha=0.0, random_state=0)
    original = fal._unfairness_with
    fal._unfairness_with = lambda *a: calls.append(1) or original(*a)  # type: ignore[method-assign]
    trace = fal.fit(train, pool, validation=val).trace_
    assert len(trace) == 4
    assert len(calls) == 3 * 5 * 2
    schedule = FALAcquirer(budget=110, alpha=0.5, adaptive_alpha=True)
    assert [schedule.alpha_at(t) for t in (0, 9, 10, 55, 109)] == pytest.approx(
        [0.5, 0.5, 0.45, 0.25, 0.0]
    )


@pytest.mark.parametrize(
    ("kwargs", "rows"),
    [
        ({"n_candidates": 8}, [148, 213, 214, 119, 132, 209, 136, 66]),
        ({"n_candidates": 5, "candidates": "random"}, [103, 194, 159, 61, 43, 188, 138, 78]),
    ],
)
def test_fal_rows_are_pinned(kwargs, rows):
    # Rows of the from-scratch what-if refits through make_learner(...).fit, predict_scores
    # and evaluate; a 1e-3 change of one what-if unfairness changes them.
    ds = load_toy(400, random_state=7)
    train, val, pool = ds.subset(range(60)), ds.subset(range(60, 160)), ds.subset(range(160, 400))
    fal = FALAcquirer(budget=8, batch_size=2, alpha=0.0, random_state=4, **kwargs)
    fal.fit(train, pool, validation=val)
    assert fal.acquired_.tolist() == rows
    assert fal._refit.fast_fit  # the cheap refits were used
    assert fal._refit.fast_scores


@pytest.mark.parametrize(
    ("metric", "n_groups"),
    [
        ("demographic_parity_diff_abs", 2),
        ("demographic_parity_diff_abs", 3),
        ("equalized_odds_diff", 2),
    ],
)
def test_what_if_unfairness_is_the_ordinary_fits(metric, n_groups):
    ds = load_toy(300, n_groups=n_groups, random_state=3)
    train, val = ds.subset(range(80)), ds.subset(range(80, 200))
    fal = FALAcquirer(metric=metric, random_state=0)
    fal._prepare(None, val, np.random.SeedSequence(5))
    X, y = train.to_numpy(), train.y
    for _ in range(3):  # the first what-if takes the ordinary path, later ones the cheap one
        model = make_learner("lr", random_state=fal._learner_seed).fit(X, y)
        slow = evaluate(model, val, [metric], scores=predict_scores(model, val.to_numpy()))
        assert fal._unfairness_with(X, y) == abs(slow[metric])
        y = 1 - y
    # demographic parity is counted directly once checked; other metrics never are
    assert (fal._unfairness._groups is not None) == (metric == "demographic_parity_diff_abs")
