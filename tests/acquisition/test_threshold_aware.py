"""ThresholdAwareAcquirer: rows closest to their group's threshold, thresholded model measured."""

from __future__ import annotations

import numpy as np
import pytest

from fairacq.acquisition import (
    OWN_FRONT_TOLS,
    EntropyAcquirer,
    ThresholdAwareAcquirer,
    boundary_order,
    make_acquirer,
)
from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError, ResultWarning
from fairacq.models import fit_thresholds, predict_scores

pytest.importorskip("fairlearn")

DATA = load_toy(900, random_state=1)
TRAIN, VAL = DATA.subset(range(150)), DATA.subset(range(150, 400))
POOL, TEST = DATA.subset(range(400, 700)), DATA.subset(range(700, 900))
RUN = {"budget": 40, "batch_size": 20, "random_state": 4}


def _run(acq, validation=VAL):
    return acq, acq.fit(TRAIN, POOL, validation=validation, test=TEST).trace_


def test_boundary_order_ranks_by_distance_to_the_rows_own_group_cut() -> None:
    scores = np.array([0.30, 0.55, 0.30, 0.90, 0.50])
    groups = np.array([0, 0, 1, 1, 1])
    available = np.array([True, True, True, True, False])
    cuts = np.array([0.5, 0.3])
    order = boundary_order(scores, groups, cuts, available, np.random.default_rng(0))
    # distances: 0.20, 0.05, 0.00, 0.60; row 4 is taken already
    assert order.tolist() == [2, 1, 0, 3]


def test_boundary_order_breaks_ties_with_the_generator() -> None:
    scores, groups = np.full(6, 0.5), np.zeros(6, dtype=np.int64)
    orders = {
        tuple(boundary_order(scores, groups, np.array([0.5]), np.ones(6, bool),
                             np.random.default_rng(seed)))
        for seed in range(5)
    }  # fmt: skip
    assert len(orders) > 1


def test_the_first_batch_is_the_rows_at_the_initial_models_group_thresholds() -> None:
    acq, _ = _run(ThresholdAwareAcquirer(tol=0.05, **RUN))
    first_model = acq.initial_model_
    post = fit_thresholds(first_model, VAL, tol=0.05, unlabelled=POOL)
    cuts = post.model.thresholds
    dist = np.abs(predict_scores(first_model, POOL.to_numpy()) - cuts[np.asarray(POOL.s)])
    bought = acq.acquired_[:20]
    assert dist[bought].max() <= np.sort(dist)[19] + 1e-12
    entropy, _ = _run(EntropyAcquirer(**RUN))
    assert set(bought) != set(entropy.acquired_[:20])  # not Entropy's rows (cut != 0.5)


def test_it_reads_only_the_labels_it_pays_for_and_deploys_the_thresholded_model() -> None:
    acq, trace = _run(ThresholdAwareAcquirer(tol=0.0, **RUN))
    frame = trace.to_frame()
    assert (frame["labels_seen"] == frame["rows_paid"]).all()
    assert int(frame["labels_seen"].iloc[-1]) == 40
    assert acq.thresholds_.name == "threshold-dp"
    assert abs(trace.final("val_demographic_parity_diff_abs")) < 0.05


def test_it_is_registered_and_its_grid_is_fixed() -> None:
    acq = make_acquirer("threshold-aware", tol=0.1, budget=10)
    assert isinstance(acq, ThresholdAwareAcquirer)
    assert acq.tol == 0.1
    assert OWN_FRONT_TOLS[0] == 0.0
    assert list(OWN_FRONT_TOLS) == sorted(OWN_FRONT_TOLS)


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"metric": "equal_opportunity_diff"}, "demographic parity only"),
        ({"metric": "worst_group_accuracy"}, "cannot steer"),
        ({"tol": -0.5}, "tol"),
    ],
)
def test_bad_parameters_are_refused_before_any_work(params: dict, words: str) -> None:
    with pytest.raises(InvalidParameterError, match=words):
        ThresholdAwareAcquirer(**{**RUN, **params}).fit(TRAIN, POOL, validation=VAL)


def test_a_validation_set_without_a_group_label_cell_falls_back_and_says_so_once() -> None:
    s, y = np.asarray(VAL.s), np.asarray(VAL.y)
    val = VAL.subset(np.flatnonzero((s == 0) | (y == 0)))  # (g1, label 1) is empty
    acq = ThresholdAwareAcquirer(**RUN)
    with pytest.warns(ResultWarning, match="group 'g1' has label 0 only") as told:
        _, trace = _run(acq, validation=val)
    assert len([w for w in told if w.category is ResultWarning]) == 1
    assert len(trace) == 3
    assert np.isfinite(trace.final("test_accuracy"))
    assert acq.threshold_notes_ == [str(told[0].message)]
