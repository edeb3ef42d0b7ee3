"""Falcon's cheaper round changes no result: pinned traces and the straightforward reference.

Falcon's round was made cheaper (a cached, C-contiguous pool scored once per model, only the
first candidates a batch can take sorted). Two checks that a seeded run is what it was:

- runs recorded before the change (``fixtures/falcon_traces.json``, written by the code of
  commit 89c33eb, see :mod:`tests.acquisition.falcon_cases`) give the same rows, targets,
  policies and costs, and the same metrics (to 1e-12 relative: another BLAS may move the
  last bits);
- the same runs with the straightforward computation (the whole pool scored through
  ``pool.map_blocks`` every round, the whole target group sorted) give an identical trace,
  bit for bit, here on any machine.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fairacq.acquisition.methods._falcon as falcon_module
from fairacq.acquisition import InMemoryPool, policy_order
from fairacq.acquisition.loop._ledger import fill_batch, fill_limit
from fairacq.acquisition.methods._entropy import entropy_order
from fairacq.acquisition.pools._pool_scorer import PoolScorer
from fairacq.data import load_toy
from fairacq.models import make_learner, predict_scores
from tests.acquisition.falcon_cases import CASES, CLOSE, EXACT, FIXTURE, adult_splits, summary


@pytest.mark.parametrize("name", list(CASES))
def test_seeded_run_matches_the_trace_recorded_before(name):
    expected = json.loads(FIXTURE.read_text())[name]
    got = summary(CASES[name]())
    for col in EXACT:
        assert got["columns"][col] == expected["columns"][col], col
    for col in CLOSE:
        np.testing.assert_allclose(got["columns"][col], expected["columns"][col], rtol=1e-12)
    assert got["bandits"].keys() == expected["bandits"].keys()
    for key, probs in expected["bandits"].items():
        np.testing.assert_allclose(got["bandits"][key], probs, rtol=1e-12)
    kinds = set(got["columns"]["target_label"][1:])
    assert -1 in kinds, "entropy rounds are pinned"
    assert kinds - {-1}, "fairness rounds are pinned"


class _StraightScorer:
    """The computation before the change: the whole pool through ``pool.map_blocks``."""

    def __init__(self, pool: Any, executor: Any = None) -> None:
        self.pool, self.executor = pool, executor

    def scores(self, model: Any) -> np.ndarray:
        blocks = self.pool.map_blocks(lambda X, side: predict_scores(model, X))
        return np.concatenate(blocks)

    def read_rows(self, rows: np.ndarray) -> np.ndarray:
        return self.pool.read_rows(rows)


@pytest.mark.parametrize("name", list(CASES))
def test_seeded_run_equals_the_straightforward_computation(name, monkeypatch):
    fast = CASES[name]()
    monkeypatch.setattr(falcon_module, "PoolScorer", _StraightScorer)
    monkeypatch.setattr(falcon_module, "fill_limit", lambda costs, capacity: costs.size)
    monkeypatch.setattr(falcon_module, "entropy_order", lambda st, rng, _: entropy_order(st, rng))
    assert CASES[name]() == fast  # every column and the bandits, bit for bit


# -- the pieces ---------------------------------------------------------------------------
@given(
    st.lists(st.sampled_from([0.1, 0.25, 0.3, 0.35, 0.5, 0.7, 0.75]), min_size=1, max_size=40),
    st.integers(0, 45),
    st.sampled_from([0.3, 0.5, 0.7]),
)
def test_policy_order_first_is_a_prefix_of_the_whole_order(p, first, r):
    p_label = np.asarray(p)  # few distinct values: many ties at equal distance
    rows = np.random.default_rng(len(p)).permutation(100)[: p_label.size]
    whole = policy_order(p_label, rows, r)
    assert policy_order(p_label, rows, r, first=first).tolist() == whole[:first].tolist()


@given(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.5]), min_size=1, max_size=30))
def test_fill_limit_leaves_the_batch_unchanged(costs_list):
    costs = np.asarray(costs_list)
    order = np.arange(costs.size)[::-1]
    for capacity in (0.4, 1.0, 4.0, 10.0, 100.0):
        k = fill_limit(costs, capacity)
        assert fill_batch(order[:k], costs, capacity).tolist() == (
            fill_batch(order, costs, capacity).tolist()
        )


def _toy_pool(block_rows):
    ds = load_toy(700, random_state=5)
    return ds.subset(range(200)), InMemoryPool(ds, block_rows=block_rows, chunk_rows=100)


def _adult_pool(block_rows):
    train, _, _, pool = adult_splits()  # 97 features: BLAS results depend on the blocks
    return train, InMemoryPool(pool, block_rows=block_rows)


@pytest.mark.parametrize(
    ("make", "block_rows"), [(_toy_pool, 16), (_toy_pool, 4096), (_adult_pool, 4096)]
)
def test_pool_scorer_gives_the_pool_blocks_scores_bit_for_bit(make, block_rows):
    train, pool = make(block_rows)
    model = make_learner("lr", random_state=0).fit(train.to_numpy(), train.y)
    blocks = pool.map_blocks(lambda X, side: predict_scores(model, X))
    scorer = PoolScorer(pool)
    scores = scorer.scores(model)
    np.testing.assert_array_equal(scores, np.concatenate(blocks))
    assert scorer.scores(model) is scores  # the same model is scored once
    other = make_learner("lr", random_state=1).fit(train.to_numpy()[::2], train.y[::2])
    assert not np.array_equal(scorer.scores(other), scores)
