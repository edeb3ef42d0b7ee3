"""The run's one fast pool scorer gives predict_scores's bits, and steps aside when it cannot."""

from __future__ import annotations

import pickle
from functools import partial

import numpy as np
import pytest

import fairacq.acquisition.loop._exact_refit as exact_refit
from fairacq.acquisition import InMemoryPool, ParquetPool, make_acquirer
from fairacq.acquisition.loop._exact_refit import ExactRefit
from fairacq.acquisition.methods._entropy import _entropy_block, binary_entropy
from fairacq.acquisition.pools._pool_scorer import PoolScorer
from fairacq.data import load_toy
from fairacq.models import make_learner, predict_scores


@pytest.fixture(scope="module")
def toy():
    ds = load_toy(600, random_state=4)
    X, y = ds.to_numpy(), ds.y
    return ds, X[:200], y[:200], X[200:]


def test_scorer_gives_predict_scores_bits_for_the_lr_pipeline(toy):
    _, X, y, X_pool = toy
    exact = ExactRefit("lr")
    model = make_learner("lr", random_state=0).fit(X, y)
    score = exact.scorer(model, X)
    assert exact.fast_scores is True
    assert score is not predict_scores  # the shortcut, checked
    assert np.array_equal(score(model, X_pool), predict_scores(model, X_pool))
    other = make_learner("lr", random_state=1).fit(X[::2], y[::2])  # a later model of the run
    assert np.array_equal(score(other, X_pool), predict_scores(other, X_pool))


def test_scorer_falls_back_for_another_model(toy):
    _, X, y, _ = toy
    tree = make_learner("decision_tree", random_state=0).fit(X, y)
    exact = ExactRefit("decision_tree")
    assert exact.scorer(tree, X) is predict_scores
    assert exact.fast_scores is None  # nothing was checked: no shortcut applies


def test_scorer_falls_back_when_one_bit_differs(toy, monkeypatch):
    _, X, y, _ = toy
    model = make_learner("lr", random_state=0).fit(X, y)
    exact_scores = exact_refit.lr_scores

    def off_by_a_bit(model, X):
        return np.nextafter(exact_scores(model, X), 2.0)

    monkeypatch.setattr(exact_refit, "lr_scores", off_by_a_bit)
    exact = ExactRefit("lr")
    assert exact.scorer(model, X) is predict_scores
    assert exact.fast_scores is False


def test_block_functions_with_the_scorer_pickle_and_score_as_before(toy):
    ds, X, y, X_pool = toy
    model = make_learner("lr", random_state=0).fit(X, y)
    score = ExactRefit("lr").scorer(model, X)
    block = pickle.loads(pickle.dumps(partial(_entropy_block, model=model, score=score)))
    assert np.array_equal(block(X_pool, {}), binary_entropy(predict_scores(model, X_pool)))
    pool = InMemoryPool(ds.subset(range(200, 600)), block_rows=64, chunk_rows=128)
    fast, slow = PoolScorer(pool, score=score), PoolScorer(pool)
    assert np.array_equal(fast.scores(model), slow.scores(model))


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("entropy", {}),
        ("falcon", {"lam": 0.5, "warmup": 5}),
        ("post-thresholds", {"policy": "entropy", "tol": 0.02}),
        ("threshold-aware", {"tol": 0.05}),
    ],
)
def test_runs_score_through_the_shortcut_and_keep_their_trace(toy, method, params, monkeypatch):
    ds = toy[0]
    train, val, pool = ds.subset(range(80)), ds.subset(range(80, 200)), ds.subset(range(200, 600))

    def run():
        acq = make_acquirer(method, budget=30, batch_size=10, random_state=3, **params)
        return acq.fit(train, InMemoryPool(pool, block_rows=64), validation=val).trace_

    calls = []
    shortcut = exact_refit.lr_scores
    monkeypatch.setattr(exact_refit, "lr_scores", lambda m, X: calls.append(1) or shortcut(m, X))
    fast = run().to_frame()
    fast_calls = len(calls)
    monkeypatch.setattr(ExactRefit, "scorer", lambda self, model, X: predict_scores)
    slow = run().to_frame()
    assert fast_calls > 2 * (len(calls) - fast_calls)  # the method's scoring took the shortcut
    assert fast.drop(columns="batch").equals(slow.drop(columns="batch"))
    assert fast["batch"].tolist() == slow["batch"].tolist()


def test_pool_scorer_reads_rows_as_the_pool_does(toy, tmp_path):
    ds = toy[0].subset(range(200, 600))
    path = tmp_path / "pool.parquet"
    ds.X.assign(label=ds.y, group=ds.sensitive["group"].to_numpy()).to_parquet(path)
    positions = np.array([7, 3, 390, 3])
    for pool in (InMemoryPool(ds, block_rows=64), ParquetPool(path, like=ds, sensitive="group")):
        got = PoolScorer(pool).read_rows(positions)
        assert got.flags["C_CONTIGUOUS"]
        assert np.array_equal(got, pool.read_rows(positions))
        assert np.array_equal(got, ds.to_numpy()[positions])
