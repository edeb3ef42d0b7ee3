"""Self-contained HTML pieces: escaped tables, inline figures, the figure-load script."""

from __future__ import annotations

import re

from fairacq.reporting import (
    FIGURES_SCRIPT,
    figure_data_uri,
    html_figure,
    html_page,
    html_table,
    plot_allocations,
    plot_tradeoff,
)


def test_table_escapes_headers_and_cells_and_marks_missing_values():
    out = html_table(
        [{"a": "<b>", "b": float("nan")}, {"a": "x&y", "b": 0.123456}],
        headers={"a": "A<"},
    )
    assert "<th>A&lt;</th>" in out
    assert "<td>&lt;b&gt;</td><td>—</td>" in out
    assert "<td>x&amp;y</td><td>0.1235</td>" in out


def test_page_is_self_contained_with_the_figure_check():
    ax = plot_tradeoff(
        [
            {"label": "a", "kind": "acquire", "x": 0.8, "y": 0.1, "x_std": 0.01, "y_std": 0.02},
            {"label": "b", "kind": "mitigate", "x": 0.7, "y": 0.03},
        ],
        target=0.05,
    )
    bars = plot_allocations({"aopt": {"g0": 30, "g1": 70}, "uniform": {"g0": 50, "g1": 50}})
    page = html_page("T <1>", html_figure(ax.figure, "front") + html_figure(bars.figure, "bars"))
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>T &lt;1&gt;</title>" in page
    assert FIGURES_SCRIPT in page
    assert 'data-figures="pending"' in page
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == 2
    assert all(s.startswith("data:image/png;base64,") for s in sources)
    assert "http://" not in page
    assert "https://" not in page


def test_data_uri_is_a_png():
    import base64

    uri = figure_data_uri(plot_tradeoff([{"label": "a", "x": 1.0, "y": 0.0}]).figure)
    assert base64.b64decode(uri.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
