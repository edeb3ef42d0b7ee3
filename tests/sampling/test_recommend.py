"""One allocation from many trials: medians, intervals, rounding to the budget."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.sampling import largest_remainder, recommend_counts

_WEIGHTS = st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=6)


@given(_WEIGHTS, st.integers(0, 500))
def test_parts_add_up_to_the_total(weights, total):
    parts = largest_remainder(weights, total)
    assert parts.sum() == total
    assert (parts >= 0).all()


@given(_WEIGHTS, st.integers(1, 500))
def test_each_part_is_its_quota_rounded_down_or_up(weights, total):
    w = np.asarray(weights)
    if w.sum() <= 0:
        w = np.ones_like(w)
    quota = total * w / w.sum()
    parts = largest_remainder(weights, total)
    assert (parts >= np.floor(quota) - 1e-9).all()
    assert (parts <= np.ceil(quota) + 1e-9).all()


@given(st.lists(st.integers(0, 60), min_size=2, max_size=5), st.data())
def test_caps_are_respected_and_the_total_still_met(caps, data):
    total = data.draw(st.integers(0, sum(caps)))
    weights = data.draw(st.lists(st.floats(0, 10), min_size=len(caps), max_size=len(caps)))
    parts = largest_remainder(weights, total, caps=caps)
    assert parts.sum() == total
    assert (parts <= np.asarray(caps)).all()


def test_largest_fraction_gets_the_unit_left():
    # Quotas 3.3, 3.6, 3.1 -> floors 3, 3, 3 and one unit left, for the second.
    assert largest_remainder([33, 36, 31], 10).tolist() == [3, 4, 3]


def test_median_and_interval_per_group():
    per_trial = np.array([[100, 25, 25], [18, 66, 66], [18, 80, 52], [20, 70, 60], [30, 60, 60]])
    rec = recommend_counts(per_trial, 150)
    np.testing.assert_array_equal(rec.median, [20, 66, 60])
    assert rec.counts.sum() == 150
    assert rec.rounded  # the medians add up to 146
    assert (rec.low <= rec.median).all()
    assert (rec.median <= rec.high).all()
    assert rec.low.tolist() == [18, 39, 35]  # 10th percentile (linear), rounded down
    assert rec.high.tolist() == [72, 76, 64]  # 90th percentile, rounded up


def test_medians_that_add_up_are_kept_as_they_are():
    rec = recommend_counts([[10, 30], [20, 20], [30, 10]], 40)
    assert rec.counts.tolist() == [20, 20]
    assert not rec.rounded


def test_never_above_what_some_trial_drew():
    # A small group every trial drew in full: scaling the medians up must not exceed it.
    rec = recommend_counts([[10, 40, 50], [10, 20, 70], [10, 60, 30]], 100)
    assert rec.counts[0] == 10
    assert rec.counts.sum() == 100


@given(
    st.integers(1, 12).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(0, 50), min_size=3, max_size=3), min_size=n, max_size=n
        )
    )
)
def test_recommendation_sums_to_every_trial_total(rows):
    per_trial = np.array(rows)
    per_trial[:, 2] = 100 - per_trial[:, :2].sum(axis=1)  # every trial spends 100
    rec = recommend_counts(per_trial, 100)
    assert rec.counts.sum() == 100
    assert (rec.counts <= per_trial.max(axis=0)).all()


@pytest.mark.parametrize("n_trials", [1, 2])
def test_one_or_two_trials(n_trials):
    per_trial = np.array([[30, 70], [50, 50]])[:n_trials]
    rec = recommend_counts(per_trial, 100)
    assert rec.counts.sum() == 100
    assert rec.low[0] <= rec.counts[0] <= rec.high[0]
