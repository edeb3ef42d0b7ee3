from __future__ import annotations

import json

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from fairacq import TraceRecorder
from fairacq.reporting import (
    aggregate_traces,
    format_markdown_table,
    new_figure,
    plot_median_band,
    plot_pareto_fronts,
    plot_traces,
    save_figure,
    summary_frame,
    write_summary,
)


def _trace(values, costs=None):
    rec = TraceRecorder(method="m", config={})
    for i, v in enumerate(values):
        rec.record(cost=(costs or range(len(values)))[i], fairness=v)
    return rec.finish()


def test_aggregate_mean_std_and_carry_forward():
    agg = aggregate_traces([_trace([1.0, 2.0, 3.0]), _trace([3.0, 4.0])], "fairness")
    assert agg["x"].tolist() == [0, 1, 2]
    assert agg["mean"].tolist() == [2.0, 3.0, 3.5]  # the short trial keeps its last value
    assert agg["std"].iloc[0] == pytest.approx(1.0)


def test_plot_and_save(tmp_path):
    fig = new_figure()
    ax = fig.subplots()
    plot_traces(
        {"a": [_trace([1, 2]), _trace([2, 3])], "b": [_trace([0, 0])]},
        "fairness",
        ax=ax,
        reference=0.5,
    )
    assert [line.get_label() for line in ax.lines] == [
        "a (mean of 2 trials, band ± 1 std)",
        "b",
        "paper",
    ]
    assert ax.lines[-1].get_linestyle() == "--"
    path = save_figure(fig, tmp_path / "p.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_median_band_one_line_and_band_per_series():
    import pandas as pd

    frame = pd.DataFrame(
        {
            "g": [0.1, 0.1, 0.1, 0.9, 0.9, 0.9] * 2,
            "auc": np.arange(12.0),
            "r": ["a"] * 6 + ["b"] * 6,
        }
    )
    ax = plot_median_band(frame, "g", "auc", by="r", reference=5.0)
    assert [line.get_label() for line in ax.lines] == [
        "a (median of 3 folds, band 25th-75th percentile)",
        "b (median of 3 folds, band 25th-75th percentile)",
        "full-feature classifier",
    ]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [1.0, 4.0])  # medians per x
    assert len(ax.collections) == 2  # the interquartile bands


def test_pareto_fronts_staircase_reference_and_target():
    points = {"dadi": ([0.80, 0.85, 0.84], [0.05, 0.10, 0.20]), "static": ([0.78], [0.0])}
    ax = plot_pareto_fronts(
        points,
        reference=(0.9, 0.18),
        extra={"lr": (0.89, 0.19)},
        target=(0.85, 0.06),
        target_label="goal",
    )
    labels = [line.get_label() for line in ax.lines]
    assert labels == ["dadi front", "static front"]
    front = ax.lines[0]
    np.testing.assert_allclose(front.get_xdata()[:2], [0.05, 0.10])  # (0.84, 0.20) dominated
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"goal", "lr", "full-feature classifier"} <= set(legend)
    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    renderer = canvas.get_renderer()  # the legend sits beside the axes, covering no point
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    region = next(c for c in ax.collections if c.get_label() == "goal")
    xs, ys = region.get_paths()[0].vertices.T
    assert xs.max() == pytest.approx(0.06)
    assert ys.min() == pytest.approx(0.85)


def test_write_summary(tmp_path):
    rows = [
        {
            "dataset": "adult",
            "method": "random",
            "metric": "dp",
            "value": 0.12,
            "paper_value": 0.10,
            "seed": 0,
        },
        {
            "dataset": "adult",
            "method": "random",
            "metric": "acc",
            "value": 0.8,
            "paper_value": None,
            "seed": 0,
        },
        {
            "dataset": "adult",
            "method": "random",
            "metric": "x",
            "value": float("nan"),
            "paper_value": None,
            "seed": 0,
        },
    ]
    md, js = write_summary(
        tmp_path,
        experiment="e",
        preset="quick",
        rows=rows,
        notes=["we fall short of 0.10"],
        figures=["p.png"],
        command="fairacq x",
        tables={"Paper's table beside ours": "| a |\n|---|\n| 1 |"},
    )
    text = md.read_text()
    assert "## Paper's table beside ours\n\n| a |" in text
    assert text.index("## Paper's table") < text.index("## Figures")
    assert "| dataset | method | metric | seed | value | paper_value | gap |" in text
    assert "0.02" in text
    assert "we fall short" in text
    assert "![p.png](p.png)" in text
    # findings and plots come before the full table
    assert text.index("we fall short") < text.index("![p.png]") < text.index("| dataset |")
    data = json.loads(js.read_text())
    assert data["experiment"] == "e"
    assert data["preset"] == "quick"
    assert data["rows"][1]["paper_value"] is None
    assert data["rows"][2]["value"] is None
    frame = summary_frame(rows)
    assert frame["gap"].iloc[0] == pytest.approx(0.02)
    assert np.isnan(frame["gap"].iloc[1])
    assert format_markdown_table(frame, ["metric"]).splitlines()[2] == "| dp |"
