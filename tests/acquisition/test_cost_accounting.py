"""Honest cost accounting (rows_paid, labels_seen, rows_evaluated; cost_model) and the
retirement of partitions whose open rows were all tried and rejected (issue "peers", item 2)."""

from __future__ import annotations

import collections
import hashlib
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from fairacq import CheckpointCallback, Trace
from fairacq.acquisition import (
    AutoDataAcquirer,
    DataSiftAcquirer,
    DataSiftInfAcquirer,
    EntropyAcquirer,
    InfAcquirer,
    RandomAcquirer,
    make_acquirer,
)
from fairacq.acquisition.loop._ledger import CostLedger
from fairacq.data import load_toy, split_datasift
from fairacq.exceptions import InvalidParameterError
from tests.checks import Interrupted, interrupt_at

COUNTS = ["rows_paid", "labels_seen", "rows_evaluated"]


@pytest.fixture(scope="module")
def toy():
    ds = load_toy(600, random_state=1)
    return ds.subset(range(100)), ds.subset(range(100, 250)), ds.subset(range(250, 600))


def _run(acq, data, **kw):
    train, val, pool = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return acq.fit(train, pool, validation=val, **kw).trace_


def _cum(values):
    return np.cumsum([0, *values]).tolist()


# -- the counts, by hand -------------------------------------------------------------------
@pytest.mark.parametrize("cost_model", ["kept", "evaluated"])
def test_random_counts_every_batch_once(toy, cost_model):
    frame = _run(
        RandomAcquirer(budget=50, batch_size=20, cost_model=cost_model, random_state=0), toy
    ).to_frame()
    # batches of 20, 20, then the 10 the budget has left; Random keeps all, reads no label
    assert frame["rows_paid"].tolist() == [0, 20, 40, 50]
    assert frame["rows_evaluated"].tolist() == [0, 20, 40, 50]
    assert frame["labels_seen"].tolist() == [0, 20, 40, 50]
    assert frame["cost"].tolist() == [0.0, 20.0, 40.0, 50.0]


def test_random_same_under_both_cost_models(toy):
    kept, evaluated = (
        _run(RandomAcquirer(budget=60, batch_size=20, cost_model=m, random_state=3), toy)
        for m in ("kept", "evaluated")
    )
    assert kept.to_frame().equals(evaluated.to_frame())


def test_datasift_reads_every_pool_label_and_pays_kept_rows(toy):
    acq = DataSiftAcquirer(budget=60, batch_size=10, n_partitions=3, tau=0.0, random_state=0)
    frame = _run(acq, toy).to_frame()
    steps = frame.iloc[1:]
    sizes = [len(b) for b in steps["batch"]]
    assert set(sizes) == {10}
    kept = [n if a else 0 for n, a in zip(sizes, steps["accepted"], strict=True)]
    assert frame["rows_evaluated"].tolist() == _cum(sizes)
    assert frame["rows_paid"].tolist() == _cum(kept)
    assert frame["cost"].tolist() == [float(v) for v in _cum(kept)]
    # eq. (1)'s base-rate differences read the label of every pool row, once, before step 1
    assert (frame["labels_seen"] == len(toy[2])).all()
    assert not steps["accepted"].all()  # some batches were rejected: evaluated > paid
    assert frame["rows_evaluated"].iloc[-1] > frame["rows_paid"].iloc[-1]


@pytest.mark.parametrize("cls", [DataSiftInfAcquirer, InfAcquirer])
def test_influence_reads_every_pool_label(toy, cls):
    kw = {"n_partitions": 3} if cls is DataSiftInfAcquirer else {}
    frame = _run(cls(budget=30, batch_size=10, random_state=0, **kw), toy).to_frame()
    assert (frame["labels_seen"] == len(toy[2])).all()


@pytest.mark.parametrize("cls", [AutoDataAcquirer, EntropyAcquirer])
def test_methods_without_pool_labels_see_only_evaluated_rows(toy, cls):
    kw = {"n_partitions": 3, "tau": 0.0, "max_evaluations": 8} if cls is AutoDataAcquirer else {}
    acq = cls(budget=40, batch_size=10, random_state=0, **kw)
    frame = _run(acq, toy).to_frame()
    seen: set[int] = set()
    expected = [0]
    for batch in frame["batch"].iloc[1:]:
        seen.update(int(i) for i in batch)
        expected.append(len(seen))
    assert frame["labels_seen"].tolist() == expected
    if cls is AutoDataAcquirer:  # the distance reward needs no base rate: none is computed
        assert acq.base_rate_diffs_ is None


# -- cost_model="evaluated" ----------------------------------------------------------------
def test_evaluated_stops_when_paid_rows_reach_the_budget(toy):
    acq = DataSiftAcquirer(
        budget=50, batch_size=10, n_partitions=3, tau=0.0, cost_model="evaluated", random_state=0
    )
    frame = _run(acq, toy).to_frame()
    tried = {int(i) for b in frame["batch"] for i in b}
    assert acq.stop_reason_ == "budget"
    assert frame["rows_paid"].iloc[-1] == 50 == len(tried)  # each tried row paid once
    assert frame["cost"].iloc[-1] == 50.0
    assert frame["rows_evaluated"].iloc[-1] >= 50
    assert (frame["rows_paid"].diff().iloc[1:] <= 10).all()
    # the paper's model pays only kept rows and evaluates far more with the same budget
    paper = DataSiftAcquirer(budget=50, batch_size=10, n_partitions=3, tau=0.0, random_state=0)
    assert _run(paper, toy).to_frame()["rows_evaluated"].iloc[-1] > 50


def test_evaluated_budget_in_cost_units(toy):
    costs = np.where(np.arange(len(toy[2])) % 3 == 0, 2.0, 1.0)
    acq = DataSiftAcquirer(
        budget=40, batch_size=8, n_partitions=3, tau=0.0, cost_model="evaluated", random_state=1
    )
    frame = _run(acq, toy, costs=costs).to_frame()
    tried = np.asarray(sorted({int(i) for b in frame["batch"] for i in b}), dtype=np.int64)
    assert frame["cost"].iloc[-1] == pytest.approx(costs[tried].sum())
    assert frame["cost"].iloc[-1] <= 40
    assert acq.stop_reason_ == "budget"


def test_ledger_pays_a_row_once_and_fills_within_both_limits():
    costs = np.array([1.0, 2.0, 1.0, 1.0])
    ledger = CostLedger(costs, 3.0, "evaluated", np.zeros(4, dtype=bool))
    ledger.record(np.array([0, 1]), accepted=False)
    assert (ledger.spent, ledger.rows_paid, ledger.rows_evaluated) == (3.0, 2, 2)
    assert ledger.out_of_budget(np.ones(4, dtype=bool))
    # rows already paid are free; the batch size still bounds the batch's whole cost
    assert ledger.fill(np.array([1, 0, 2]), batch_size=3.0).tolist() == [1, 0]
    ledger.record(np.array([1, 0]), accepted=True)
    assert (ledger.spent, ledger.rows_paid, ledger.rows_evaluated) == (3.0, 2, 4)
    kept = CostLedger(costs, 3.0, "kept", np.zeros(4, dtype=bool))
    kept.record(np.array([0, 1]), accepted=False)
    kept.record(np.array([2]), accepted=True)
    assert (kept.spent, kept.rows_paid, kept.counts()["labels_seen"]) == (1.0, 1, 3)


def test_unknown_cost_model_is_refused(toy):
    with pytest.raises(InvalidParameterError, match="cost_model"):
        _run(RandomAcquirer(budget=10, batch_size=5, cost_model="bought"), toy)


# -- the stuck bandit ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stuck():
    """A large training set and a 30-row pool: no single added row moves validation parity.

    Every batch (one row) leaves fairness unchanged, so it is rejected with reward 0 and UCB's
    scores never move: Algorithm 1 as written re-draws the same partition forever.
    """
    ds = load_toy(1600, random_state=2)
    return ds.subset(range(1000)), ds.subset(range(1000, 1400)), ds.subset(range(1400, 1430))


def _stuck_acquirer(**kw):
    params = {"budget": 10, "batch_size": 1, "tau": 0.0, "max_evaluations": 150, **kw}
    return DataSiftAcquirer(
        partitioning="column", partition_column="region", random_state=0, **params
    )


@pytest.fixture(scope="module")
def stuck_run(stuck):
    return _run(_stuck_acquirer(budget=30), stuck)


def test_a_partition_tried_out_is_retired_and_the_run_ends_exhausted(stuck, stuck_run):
    old = _stuck_acquirer(retire_tried=False, max_evaluations=60)
    old_frame = _run(old, stuck).to_frame().iloc[1:]
    arms = collections.Counter(old_frame["arm"])
    assert old.stop_reason_ == "max_evaluations"
    assert max(arms.values()) >= 55  # the literal Algorithm 1 loops on one partition
    assert len({i for b in old_frame["batch"] for i in b}) < 10

    trace = stuck_run
    frame = trace.to_frame().iloc[1:]
    assert not frame["accepted"].any()
    assert (
        trace.meta["stop_reason"] == "exhausted"
    )  # every partition tried out, nothing left to offer
    assert len(frame) < 150
    assert {i for b in frame["batch"] for i in b} == set(range(30))  # every row was tried
    assert set(frame["arm"]) == {0, 1, 2}
    assert trace.meta["partition_retirements"] == 3
    assert frame["rows_paid"].iloc[-1] == 0
    assert frame["rows_evaluated"].iloc[-1] == len(frame)


@pytest.mark.parametrize(("cost_model", "at"), [("kept", 70), ("evaluated", 30)])
def test_retirement_resumes_bit_for_bit(stuck, stuck_run, tmp_path: Path, cost_model, at):
    """Resumed mid-way (after a retirement, amid tried rows), the run ends as a whole one."""
    acquirer = _stuck_acquirer(budget=30, cost_model=cost_model)
    whole = stuck_run if cost_model == "kept" else _run(acquirer, stuck)
    assert set(whole.to_frame()["arm"].iloc[1:at]) == {0, 1, 2}  # a partition was retired
    folder = tmp_path / "ck"
    with pytest.raises(Interrupted):
        _run(
            _stuck_acquirer(budget=30, cost_model=cost_model),
            stuck,
            callbacks=[CheckpointCallback(folder, every=1), interrupt_at(at)],
        )
    assert len(Trace.load(folder)) == at
    resumed = _run(_stuck_acquirer(budget=30, cost_model=cost_model), stuck, continue_from=folder)
    assert resumed == whole


# -- the paper's choices when nothing is stuck -----------------------------------------------
#: (batch, arm, accepted) of every step before retirement existed (fairacq 76a703d): runs
#: that never get stuck must make the same choices.
GOLDEN = [
    ("datasift", {"n_partitions": 4}, 1, "2357c1338ba8bcefe40c57f1"),
    ("datasift", {"policy": "thompson", "n_partitions": 4}, 0, "74626e413bc2ae06a98f3176"),
    ("autodata", {"n_partitions": 4}, 0, "a467446cdc92eeebece8616c"),
    ("datasift-inf", {"n_partitions": 4}, 0, "01034ce1d694ded85fa502d7"),
]


@pytest.mark.parametrize(("method", "kw", "seed", "digest"), GOLDEN)
def test_runs_that_never_get_stuck_make_the_papers_choices(method, kw, seed, digest):
    split = split_datasift(load_toy(3000, random_state=5), random_state=0)
    acq = make_acquirer(method, budget=300, batch_size=30, tau=0.0, random_state=seed, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = acq.fit(
            split.train, split.pool, validation=split.validation, test=split.test
        ).trace_
    frame = trace.to_frame()
    rows = [
        [[int(i) for i in b], int(a), bool(c)]
        for b, a, c in zip(frame["batch"], frame["arm"], frame["accepted"], strict=True)
    ]
    assert trace.meta["partition_retirements"] == 0
    assert hashlib.sha256(json.dumps(rows).encode()).hexdigest().startswith(digest)


# -- the command line --------------------------------------------------------------------------
@pytest.mark.parametrize("cost_model", ["kept", "evaluated"])
def test_cli_writes_the_counts(tmp_path: Path, cost_model):
    from typer.testing import CliRunner

    from fairacq.cli import app

    out = tmp_path / cost_model
    args = ["acquire", "--dataset", "german", "--method", "datasift", "--budget", "20%"]
    args += ["--batch", "25%", "--tau", "0", "--no-baseline", "--json", "--out", str(out)]
    res = CliRunner().invoke(app, [*args, "--cost-model", cost_model])
    assert res.exit_code == 0, res.output
    printed = json.loads(res.output[res.output.index("{") :])
    meta = json.loads((out / "summary.json").read_text())["meta"]
    frame = Trace.load(out / "trace").to_frame()
    for key in COUNTS:
        assert printed[key] == meta[key] == int(frame[key].iloc[-1])
    assert meta["cost_model"] == cost_model
    assert meta["labels_seen"] == Trace.load(out / "trace").meta["pool_size"]
    assert meta["spending"] in (out / "summary.md").read_text()
    handed_back = "handed back unpaid" in meta["spending"]
    assert handed_back == (cost_model == "kept")
    if cost_model == "evaluated":
        assert meta["rows_paid"] == frame["cost"].iloc[-1]
    bad = CliRunner().invoke(app, [*args, "--cost-model", "bought", "--out", str(out) + "-bad"])
    assert bad.exit_code == 2
    assert "cost_model" in bad.output
