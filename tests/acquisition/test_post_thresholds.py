"""PostThresholdAcquirer: the rows of Random (or Entropy), measured after group thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from fairacq.acquisition import (
    EntropyAcquirer,
    PostThresholdAcquirer,
    RandomAcquirer,
    make_acquirer,
)
from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError, ResultWarning
from fairacq.models import evaluate_thresholds, fit_thresholds, make_learner

pytest.importorskip("fairlearn")

DATA = load_toy(900, random_state=1)
TRAIN, VAL = DATA.subset(range(150)), DATA.subset(range(150, 400))
POOL, TEST = DATA.subset(range(400, 700)), DATA.subset(range(700, 900))
RUN = {"budget": 60, "batch_size": 20, "random_state": 4}


def _run(acq):
    return acq, acq.fit(TRAIN, POOL, validation=VAL, test=TEST).trace_


@pytest.mark.parametrize(
    ("policy", "twin"), [("random", RandomAcquirer), ("entropy", EntropyAcquirer)]
)
def test_it_buys_the_rows_its_policy_would(policy: str, twin: type) -> None:
    post, _ = _run(PostThresholdAcquirer(policy=policy, **RUN))
    plain, _ = _run(twin(**RUN))
    np.testing.assert_array_equal(post.acquired_, plain.acquired_)


def test_every_step_measures_the_thresholded_model() -> None:
    acq, trace = _run(PostThresholdAcquirer(tol=0.0, **RUN))
    train = TRAIN.concat(POOL.subset(acq.acquired_))
    # lbfgs logistic regression does not depend on its seed
    model = make_learner("lr", random_state=0).fit(train.to_numpy(), train.y)
    np.testing.assert_allclose(
        model.predict_proba(TEST.to_numpy()), acq.model_.predict_proba(TEST.to_numpy())
    )
    post = fit_thresholds(acq.model_, VAL, unlabelled=POOL)
    assert acq.thresholds_.name == "threshold-dp"
    expected = evaluate_thresholds(post, TEST, ["accuracy"], random_state=0)["accuracy"]
    # the run draws its own seed; the accuracy of a draw is close to any other draw's
    assert abs(trace.final("test_accuracy") - expected) < 0.06
    plain = RandomAcquirer(**RUN).fit(TRAIN, POOL, validation=VAL, test=TEST).trace_
    assert abs(trace.final("val_demographic_parity_diff_abs")) < abs(
        plain.final("val_demographic_parity_diff_abs")
    )


def test_the_same_seed_gives_the_same_trace() -> None:
    _, a = _run(PostThresholdAcquirer(tol=0.05, **RUN))
    _, b = _run(PostThresholdAcquirer(tol=0.05, **RUN))
    assert a == b


def test_it_is_registered_with_its_knob() -> None:
    acq = make_acquirer("post-thresholds", tol=0.1, budget=10)
    assert isinstance(acq, PostThresholdAcquirer)
    assert acq.tol == 0.1


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"metric": "equalized_odds_diff", "tol": 0.1}, "take no tolerance"),
        ({"metric": "worst_group_accuracy"}, "cannot steer"),
        ({"tol": -1.0}, "tol"),
        ({"policy": "falcon"}, "policy"),
    ],
)
def test_bad_parameters_are_refused_before_any_work(params: dict, words: str) -> None:
    with pytest.raises(InvalidParameterError, match=words):
        PostThresholdAcquirer(**{**RUN, **params}).fit(TRAIN, POOL, validation=VAL)


@pytest.mark.parametrize("placement", ["pool", "validation"])
def test_four_intersectional_groups_and_a_users_pipeline(placement: str) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fairacq.data import load_dataset

    data = load_dataset("adult").with_sensitive("race_binary", "sex")
    rows = np.random.default_rng(0).permutation(len(data))[:2400]
    train, val = data.subset(rows[:400]), data.subset(rows[400:1400])
    pool = data.subset(rows[1400:])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
    acq = PostThresholdAcquirer(
        budget=100, batch_size=50, learner=model, tol=0.05, placement=placement, random_state=0
    )
    acq.fit(train, pool, validation=val)
    # the rates hold on the rows the thresholds were placed on: pool and validation, or
    # validation alone (each group's "lower" quantile is off by at most one of its rows)
    placed = pool.concat(val) if placement == "pool" else val
    chance = evaluate_chances(acq.thresholds_, placed)
    s = np.asarray(placed.s)
    rates = [chance[s == g].mean() for g in range(data.n_groups)]
    slack = 2 / min(np.bincount(s)) if placement == "pool" else 1e-6
    assert data.n_groups == 4
    assert max(rates) - min(rates) <= 0.05 + slack
    assert set(np.unique(chance)) <= ({0.0, 1.0} if placement == "pool" else set(chance))


def evaluate_chances(post, data):
    """Each row's chance of a positive prediction under ``post`` (its AUC input)."""
    from fairacq.models._thresholds import _chances

    return _chances(post, data)


def test_pool_placement_is_the_default_for_demographic_parity_only() -> None:
    dp, _ = _run(PostThresholdAcquirer(**RUN))
    eopp, _ = _run(PostThresholdAcquirer(metric="equal_opportunity_diff", **RUN))
    assert type(dp.thresholds_.model).__name__ == "GroupThresholds"
    assert type(eopp.thresholds_.model).__name__ == "ThresholdOptimizer"


def test_pool_placement_refuses_a_rate_that_needs_labels() -> None:
    acq = PostThresholdAcquirer(metric="equal_opportunity_diff", placement="pool", **RUN)
    with pytest.raises(InvalidParameterError, match="demographic parity only"):
        acq.fit(TRAIN, POOL, validation=VAL)


def test_a_streamed_pool_places_the_same_thresholds_as_the_pool_in_memory(tmp_path) -> None:
    from fairacq.acquisition import ParquetPool

    path = tmp_path / "pool.parquet"
    POOL.X.assign(label=POOL.y, group=POOL.sensitive["group"].to_numpy()).to_parquet(path)
    stream = ParquetPool(path, like=TRAIN, chunk_rows=64, block_rows=16)
    streamed = PostThresholdAcquirer(**RUN)
    streamed.fit(TRAIN, stream, validation=VAL)
    in_memory, _ = _run(PostThresholdAcquirer(**RUN))
    np.testing.assert_array_equal(
        streamed.thresholds_.model.thresholds, in_memory.thresholds_.model.thresholds
    )


def test_pool_placement_equals_fit_thresholds_on_the_pool() -> None:
    acq, _ = _run(PostThresholdAcquirer(tol=0.05, **RUN))
    assert not hasattr(acq, "_scorer")  # the pool's scored copy is let go after the run
    direct = fit_thresholds(acq.model_, VAL, tol=0.05, unlabelled=POOL)
    np.testing.assert_array_equal(acq.thresholds_.model.thresholds, direct.model.thresholds)


@pytest.mark.parametrize("metric", ["demographic_parity_diff_abs", "equal_opportunity_diff"])
def test_a_validation_set_without_a_group_label_cell_falls_back_and_says_so(
    metric: str,
) -> None:
    s, y = np.asarray(VAL.s), np.asarray(VAL.y)
    val = VAL.subset(np.flatnonzero((s == 0) | (y == 0)))  # (g1, label 1) is empty
    acq = PostThresholdAcquirer(metric=metric, **RUN)
    with pytest.warns(ResultWarning, match="group 'g1' has label 0 only") as told:
        trace = acq.fit(TRAIN, POOL, validation=val, test=TEST).trace_
    assert len([w for w in told if w.category is ResultWarning]) == 1  # once, not per round
    assert len(trace) == 4
    assert np.isfinite(trace.final("test_accuracy"))
    assert acq.threshold_notes_ == [str(told[0].message)]
