"""Self-contained HTML reports: figures inlined as base64 PNG, no external resource.

:func:`html_page` wraps a body in one page with its own small stylesheet and a tiny script
that, once the page and its images have loaded, sets ``document.body.dataset.figures`` to
``"<loaded>/<total>"`` (images with a non-zero natural width): a headless browser, or a
reader's devtools, can check that every figure renders. :func:`figure_data_uri` turns a
matplotlib figure into a ``data:`` URI, :func:`html_table` a list of rows into a table
(every cell escaped).
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure, SubFigure

__all__ = ["FIGURES_SCRIPT", "figure_data_uri", "html_figure", "html_page", "html_table"]

#: Sets ``document.body.dataset.figures = "<loaded>/<total>"`` once the page has loaded.
FIGURES_SCRIPT = """<script>
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (img) {
    return img.complete && img.naturalWidth > 0;
  }).length;
  document.body.dataset.figures = loaded + "/" + images.length;
});
</script>"""

_STYLE = """<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 70em; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
td { white-space: nowrap; } .wide { overflow-x: auto; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f4f4; }
.recommendation { background: #eef6ee; border-left: 4px solid #3a7d44; padding: 0.6em 1em; }
.recommendation.missed { background: #fbf1e6; border-left-color: #c4741c; }
.note { color: #555; font-size: 0.9em; }
figure { margin: 1em 0; } img { max-width: 100%; height: auto; }
</style>"""


def figure_data_uri(fig: Figure | SubFigure, *, dpi: int = 110) -> str:
    """Return ``fig`` (its whole figure) as a ``data:image/png;base64,...`` URI, in memory."""
    from matplotlib.figure import Figure

    root = fig if isinstance(fig, Figure) else fig.figure
    buffer = io.BytesIO()
    root.savefig(buffer, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def html_figure(fig: Figure | SubFigure, caption: str, *, alt: str | None = None) -> str:
    """Return a ``<figure>`` holding ``fig`` inline, with ``caption`` under it."""
    text = html.escape(caption)
    return (
        f'<figure><img src="{figure_data_uri(fig)}" alt="{html.escape(alt or caption)}">'
        f"<figcaption>{text}</figcaption></figure>"
    )


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def html_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
) -> str:
    """Return ``rows`` as an HTML table, every header and cell escaped.

    Parameters
    ----------
    rows : sequence of mapping
        One mapping per row.
    columns : sequence of str or None, default=None
        Keys to show, in order (default: the first row's keys).
    headers : mapping of str to str or None, default=None
        Header text of a key (default: the key).
    formats : mapping of str to callable or None, default=None
        How to write a key's values (default: 4 significant digits, ``—`` for missing).

    Examples
    --------
    >>> html_table([{"method": "a<b", "value": 0.5}])
    '<table><thead><tr><th>method</th><th>value</th></tr></thead><tbody><tr><td>a&lt;b</td><td>0.5</td></tr></tbody></table>'
    """
    cols = list(columns) if columns is not None else list(rows[0]) if rows else []
    names, fmt = headers or {}, formats or {}
    head = "".join(f"<th>{html.escape(names.get(c, c))}</th>" for c in cols)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(fmt.get(c, _cell)(row.get(c)))}</td>" for c in cols)
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_page(title: str, body: str) -> str:
    """Return one self-contained HTML page: ``body`` (already HTML) under ``title``.

    The page loads nothing from elsewhere: its style and the figure-check script
    (:data:`FIGURES_SCRIPT`) are inline, and figures should be ``data:`` URIs.
    """
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n{_STYLE}\n</head>\n"
        f'<body data-figures="pending">\n<h1>{html.escape(title)}</h1>\n{body}\n'
        f"{FIGURES_SCRIPT}\n</body>\n</html>\n"
    )
