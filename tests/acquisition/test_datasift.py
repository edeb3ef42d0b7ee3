"""DataSift, DataSift-Inf, Inf and AutoData (paper 000, Algorithms 1-2, §4.1.2)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fairacq import Trace
from fairacq.acquisition import (
    AutoDataAcquirer,
    DataSiftAcquirer,
    DataSiftInfAcquirer,
    InfAcquirer,
    PartitionDroppedWarning,
    make_acquirer,
)
from fairacq.data import load_toy, split_datasift
from fairacq.exceptions import InvalidParameterError, UnknownNameError


@pytest.fixture(scope="module")
def parts():
    ds = load_toy(3000, random_state=5)
    split = split_datasift(ds, random_state=0)
    return split.train, split.validation, split.test, split.pool


def _run(acq, parts, **kw):
    train, val, test, pool = parts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        return acq.fit(train, pool, validation=val, test=test, **kw).trace_


@pytest.mark.parametrize("cls", [DataSiftAcquirer, DataSiftInfAcquirer, AutoDataAcquirer])
def test_acceptance_rule_and_determinism(cls, parts):
    acq = cls(budget=300, batch_size=30, n_partitions=4, tau=0.0, random_state=1)
    trace = _run(acq, parts)
    frame = trace.to_frame()
    best = frame["candidate_val_fairness"].iloc[0]
    for _, row in frame.iloc[1:].iterrows():
        if row["accepted"]:
            assert row["candidate_val_fairness"] <= best + 1e-12
            best = row["candidate_val_fairness"]
        assert 0 <= row["arm"] < 4
    assert frame["cost"].iloc[-1] <= 300
    assert (
        _run(cls(budget=300, batch_size=30, n_partitions=4, tau=0.0, random_state=1), parts)
        == trace
    )
    assert len(set(acq.acquired_.tolist())) == len(acq.acquired_)


def test_tau_early_stop_and_stop_reason(parts):
    acq = DataSiftAcquirer(budget=300, batch_size=30, n_partitions=3, tau=1.0, random_state=0)
    trace = _run(acq, parts)
    assert len(trace) == 1
    assert acq.stop_reason_ == "tau"


def test_small_partitions_are_dropped_with_a_warning(parts):
    train, val, _, pool = parts
    acq = DataSiftAcquirer(
        budget=800, batch_size=400, n_partitions=8, partitioning="kmeans", random_state=0
    )
    with pytest.warns(PartitionDroppedWarning):
        acq.fit(train, pool, validation=val)
    labels = acq.partitioning_.labels
    taken = acq.acquired_
    assert not np.isin(labels[taken], acq.dropped_partitions_).any()


def test_column_partitioning(parts):
    acq = DataSiftAcquirer(
        budget=200,
        batch_size=20,
        partitioning="column",
        partition_column="region",
        max_partitions=2,
        random_state=0,
    )
    _run(acq, parts)
    assert acq.partitioning_.n_partitions == 2
    with pytest.raises(InvalidParameterError, match="partition_column"):
        _run(
            DataSiftAcquirer(
                budget=200, batch_size=20, partitioning="column", partition_column="nope"
            ),
            parts,
        )


def test_resume_matches_uninterrupted(parts, tmp_path):
    from fairacq import CheckpointCallback

    kw = {"budget": 300, "batch_size": 30, "n_partitions": 3, "tau": 0.0, "random_state": 2}
    full = _run(DataSiftAcquirer(**kw), parts)
    stop = [CheckpointCallback(tmp_path / "ck", every=1), lambda rec: rec.n_steps < 4]
    _run(DataSiftAcquirer(**kw), parts, callbacks=stop)
    resumed = _run(DataSiftAcquirer(**kw), parts, continue_from=Trace.load(tmp_path / "ck"))
    cols = ["cost", "arm", "accepted", "candidate_val_fairness"]
    assert resumed.to_frame()[cols].equals(full.to_frame()[cols])


def test_influence_needs_a_differentiable_learner(parts):
    with pytest.raises(InvalidParameterError, match="differentiable"):
        _run(
            DataSiftInfAcquirer(
                budget=100, batch_size=10, learner="decision_tree", n_partitions=2
            ),
            parts,
        )
    with pytest.raises(InvalidParameterError, match="surrogate"):
        _run(InfAcquirer(budget=100, batch_size=10, metric="minimax_zero_one_risk"), parts)
    with pytest.raises(InvalidParameterError, match="cannot steer acquisition"):
        _run(InfAcquirer(budget=100, batch_size=10, metric="accuracy"), parts)


def test_inf_takes_top_scored_rows(parts):
    acq = InfAcquirer(budget=60, batch_size=30, random_state=0)
    _run(acq, parts)
    top = np.argsort(-acq.pool_scores_, kind="stable")[:60]
    assert set(acq.acquired_.tolist()) == set(top.tolist())


def test_registry_builds_and_refuses_foreign_params():
    acq = make_acquirer("random", budget=10, batch_size=5)
    assert acq.get_params()["budget"] == 10
    with pytest.raises(InvalidParameterError, match="'random' takes no parameter 'alpha'"):
        make_acquirer("random", budget=10, batch_size=5, alpha=0.3)
    assert make_acquirer("autodata").method_name == "autodata"
    with pytest.raises(UnknownNameError, match="datasift-inf"):
        make_acquirer("datasift_inf")


def test_multi_group_influence_runs():
    ds = load_toy(2000, n_groups=3, random_state=2)
    split = split_datasift(ds, random_state=0)
    acq = DataSiftInfAcquirer(budget=200, batch_size=40, n_partitions=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        trace = acq.fit(split.train, split.pool, validation=split.validation).trace_
    assert np.isfinite(acq.pool_scores_).all()
    assert len(trace) >= 2


def test_accuracy_weight_ranks_by_both_influences(parts):
    from fairacq.acquisition.methods._valuation_scores import pool_improvement_scores
    from fairacq.models import make_learner

    train, val, _, pool = parts
    model = make_learner("lr", random_state=0).fit(train.to_numpy(), train.y)
    kw = {"metric": "demographic_parity_diff_abs"}
    fair = pool_improvement_scores(model, train, val, pool, **kw)
    # weight 0 is the paper's score exactly; a huge weight ranks by accuracy alone
    np.testing.assert_array_equal(
        pool_improvement_scores(model, train, val, pool, accuracy_weight=0.0, **kw), fair
    )
    mixed = pool_improvement_scores(model, train, val, pool, accuracy_weight=1.0, **kw)
    huge = pool_improvement_scores(model, train, val, pool, accuracy_weight=1e9, **kw)
    acc = (huge - fair / fair.std()) / 1e9  # the standardised accuracy score
    assert np.corrcoef(mixed, fair / fair.std() + acc)[0, 1] == pytest.approx(1.0)
    assert abs(np.corrcoef(fair, acc)[0, 1]) < 0.99  # the two rankings differ
    with pytest.raises(InvalidParameterError, match="accuracy_weight"):
        pool_improvement_scores(model, train, val, pool, accuracy_weight=-1.0, **kw)


def test_accuracy_weight_changes_datasift_inf_and_is_refused_elsewhere(parts):
    kw = {"budget": 300, "batch_size": 30, "n_partitions": 3, "tau": 0.0, "random_state": 1}
    plain = DataSiftInfAcquirer(**kw)
    _run(plain, parts)
    aware = DataSiftInfAcquirer(accuracy_weight=2.0, **kw)
    _run(aware, parts)
    assert not np.array_equal(plain.pool_scores_, aware.pool_scores_)
    assert aware.get_params()["accuracy_weight"] == 2.0
    with pytest.raises(InvalidParameterError, match="only DataSift-Inf"):
        _run(DataSiftAcquirer(accuracy_weight=1.0, **kw), parts)
