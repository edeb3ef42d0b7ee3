"""The seed a caller gives reaches the coin of randomised group thresholds.

Group thresholds (fairlearn's ThresholdOptimizer) predict 1 with a chance per row; the 0/1
prediction compares that chance with a uniform draw. The draws must come from the caller's
seed (not a fixed one): each prediction is checked against draws made here from that seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from fairacq._random import derive_int_seed
from fairacq.data import load_toy
from fairacq.models import evaluate_thresholds, fit_thresholds, make_learner

pytest.importorskip("fairlearn")

DATA = load_toy(600, random_state=3)
MODEL = make_learner("lr", random_state=0).fit(DATA.to_numpy(), DATA.y)


def _expected(post, seed: int) -> np.ndarray:
    """Each row is 1 when its chance is at least a uniform draw from ``seed`` (fairlearn's)."""
    chances = post.model._pmf_predict(DATA.to_numpy(), sensitive_features=DATA.s)[:, 1]
    coin = np.random.RandomState(derive_int_seed(seed)).rand(len(chances))
    return (chances >= coin).astype(np.int64)


def test_predictions_use_the_given_seed() -> None:
    post = fit_thresholds(MODEL, DATA, tol=0.02)
    chances = post.model._pmf_predict(DATA.to_numpy(), sensitive_features=DATA.s)[:, 1]
    assert ((chances > 0.01) & (chances < 0.99)).sum() >= 5  # some rows are a coin toss
    for seed in (1, 2, 7):
        np.testing.assert_array_equal(post.predict(DATA, random_state=seed), _expected(post, seed))


def test_evaluation_uses_the_given_seed() -> None:
    post = fit_thresholds(MODEL, DATA, tol=0.02)
    accuracies = []
    for seed in (1, 2, 7):
        got = evaluate_thresholds(post, DATA, ["accuracy"], random_state=seed)["accuracy"]
        assert got == pytest.approx(np.mean(_expected(post, seed) == DATA.y))
        accuracies.append(got)
    assert len(set(accuracies)) > 1  # the seeds draw differently
