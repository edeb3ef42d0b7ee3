"""Every figure says what it shows: titles, axis directions and what a band spans."""

from __future__ import annotations

import pandas as pd
import pytest

from fairacq import TraceRecorder
from fairacq.reporting import (
    band_label,
    figure_title,
    metric_label,
    new_figure,
    plot_median_band,
    plot_pareto_fronts,
    plot_traces,
    save_figure,
    write_run,
)


def _trace(gap: float, acc: float, method: str = "m"):
    rec = TraceRecorder(method=method, config={})
    rec.record(cost=0.0, test_demographic_parity_diff_abs=0.3, test_accuracy=0.8)
    rec.record(cost=10.0, test_demographic_parity_diff_abs=gap, test_accuracy=acc)
    return rec.finish()


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        ("test_demographic_parity_diff_abs", "demographic parity gap (test; lower is fairer)"),
        ("val_equalized_odds_diff", "equalized odds gap (validation; lower is fairer)"),
        ("test_accuracy", "accuracy (test; higher is better)"),
        ("worst_group_accuracy", "worst-group accuracy (higher is better)"),
        ("demographic_parity_diff_signed",
         "signed demographic parity gap (closer to 0 is fairer)"),
        ("demographic_parity_ratio", "demographic parity ratio (higher is fairer)"),
        ("cost", "cost"),
    ],
)  # fmt: skip
def test_metric_label_says_which_way_is_fairer(column, expected):
    assert metric_label(column) == expected


def test_metric_label_can_leave_the_split_out():
    assert metric_label("test_accuracy", split=False) == "accuracy (higher is better)"


def test_figure_title_names_data_attribute_and_metric():
    assert figure_title("mine.csv", "district", "val_equalized_odds_diff") == (
        "mine.csv, groups by district: equalized odds gap"
    )
    assert figure_title("adult", None) == "adult"


def test_band_label_names_the_band_and_refuses_unknown_kinds():
    assert band_label(3) == "mean of 3 trials, band ± 1 std"
    assert (
        band_label(5, unit="folds", kind="iqr") == "median of 5 folds, band 25th-75th percentile"
    )
    with pytest.raises(ValueError, match="'std' or 'iqr'"):
        band_label(3, kind="minmax")


def test_plot_traces_legend_explains_the_band():
    ax = plot_traces(
        {"aopt": [_trace(0.1, 0.7), _trace(0.2, 0.75)], "one": [_trace(0.1, 0.7)]},
        "test_accuracy",
        unit="seeds",
    )
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["aopt (mean of 2 seeds, band ± 1 std)", "one"]


def test_write_run_figure_has_title_and_directed_axes(tmp_path, monkeypatch):
    seen = {}

    def spy(fig, path, **kw):
        seen["title"] = fig.get_suptitle()
        seen["ylabels"] = [ax.get_ylabel() for ax in fig.axes]
        return save_figure(fig, path, **kw)

    monkeypatch.setattr("fairacq.reporting._run.save_figure", spy)
    write_run(
        _trace(0.1, 0.7),
        tmp_path,
        method="datasift-inf",
        dataset="mine.csv",
        sensitive="district",
        metric="test_demographic_parity_diff_abs",
        panels=["test_accuracy"],
        experiment="acquire-datasift-inf",
    )
    assert seen["title"] == (
        "mine.csv, groups by district: demographic parity gap and accuracy by cost acquired"
    )
    assert seen["ylabels"] == [
        "demographic parity gap (test; lower is fairer)",
        "accuracy (test; higher is better)",
    ]


def test_save_figure_adds_a_title_only_when_the_figure_has_none(tmp_path):
    fig = new_figure()
    fig.subplots()
    save_figure(fig, tmp_path / "a.png", title="adult, groups by sex")
    assert fig.get_suptitle() == "adult, groups by sex"
    save_figure(fig, tmp_path / "b.png", title="something else")
    assert fig.get_suptitle() == "adult, groups by sex"


def test_median_band_legend_names_the_percentiles():
    frame = pd.DataFrame(
        {"g": [0.1, 0.1, 0.1, 0.5, 0.5, 0.5], "auc": [0.7, 0.72, 0.75, 0.8, 0.81, 0.83]}
    )
    ax = plot_median_band(frame, "g", "auc")
    (label,) = [t.get_text() for t in ax.get_legend().get_texts()]
    assert label == "all (median of 3 folds, band 25th-75th percentile)"


def test_pareto_axes_say_which_way_is_fairer():
    ax = plot_pareto_fronts({"dadi": ([0.8, 0.7], [0.2, 0.05])})
    assert ax.get_xlabel().endswith("(lower is fairer)")
    assert ax.get_ylabel() == "AUC (higher is better)"
    assert "|" not in ax.get_xlabel()
