"""``write_run``: the files ``fairacq acquire`` and ``fairacq sample`` write."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairacq import Trace, TraceRecorder
from fairacq.exceptions import InvalidDataError
from fairacq.reporting import RunReport, write_run


def _trace(values, shares=None, seed=0):
    rec = TraceRecorder(method="m", config={}, random_state=seed)
    for i, v in enumerate(values):
        extra = {} if shares is None else {f"pi_{k}": s[i] for k, s in shares.items()}
        rec.record(cost=float(10 * i), val_acc=v, val_gap=1 - v, **extra)
    return rec.finish()


def test_one_trace_writes_trace_order_plot_and_summary(tmp_path):
    report = write_run(
        _trace([0.6, 0.7, 0.8]),
        tmp_path / "run",
        method="random",
        dataset="toy",
        metric="val_gap",
        metrics=["val_acc"],
        order=np.array([4, 1, 7]),
        experiment="acquire-random",
        notes=["Stopped because: budget."],
    )
    assert isinstance(report, RunReport)
    out = tmp_path / "run"
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "acquisition_order.csv", "fairness.png", "summary.json", "summary.md", "trace.json",
        "trace.parquet",
    ]  # fmt: skip
    assert (out / "acquisition_order.csv").read_text() == "order,pool_row\n0,4\n1,1\n2,7\n"
    assert Trace.load(out / "trace").final("val_acc") == pytest.approx(0.8)
    stages = [(r["metric"], r["stage"], r["value"]) for r in report.rows]
    assert stages == [
        ("val_gap", "initial", pytest.approx(0.4)),
        ("val_gap", "final", pytest.approx(0.2)),
        ("val_acc", "initial", pytest.approx(0.6)),
        ("val_acc", "final", pytest.approx(0.8)),
        ("cost", "final", 20.0),
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["experiment"] == "acquire-random"
    assert summary["rows"] == report.rows
    assert "Stopped because: budget." in (out / "summary.md").read_text()
    assert set(report.files) == set(out.iterdir())


def test_trials_write_one_trace_each_and_mean_rows(tmp_path):
    shares = {"a": [0.5, 0.25], "b": [0.5, 0.75]}
    traces = [_trace([0.6, 0.7], shares, seed=0), _trace([0.6, 0.9], shares, seed=1)]
    report = write_run(
        traces, tmp_path, method="aopt", dataset="toy", metric="val_acc", shares="pi_",
        experiment="sample-aopt", figure="sampling.png", xlabel="samples drawn",
    )  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "traces").iterdir()) == [
        "aopt-trial0.json", "aopt-trial0.parquet", "aopt-trial1.json", "aopt-trial1.parquet",
    ]  # fmt: skip
    assert (tmp_path / "sampling.png").exists()
    first, *pis = report.rows
    assert first["metric"] == "val_acc"
    assert first["value"] == pytest.approx(0.8)
    assert first["std"] == pytest.approx(0.1)
    assert [(r["metric"], r["value"]) for r in pis] == [("pi_a", 0.25), ("pi_b", 0.75)]
    assert all("std" not in r for r in pis)


def test_bad_input(tmp_path):
    with pytest.raises(InvalidDataError, match="no traces"):
        write_run([], tmp_path, method="m", dataset="d", metric="x", experiment="e")
    with pytest.raises(InvalidDataError, match="'test_gap'"):
        write_run(_trace([0.5]), tmp_path, method="m", dataset="d", metric="test_gap",
                  experiment="e")  # fmt: skip
    assert not any(tmp_path.iterdir())
