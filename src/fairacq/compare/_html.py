"""The comparison's HTML report: the recommendation, the figures inline, the table, the limits."""

from __future__ import annotations

import html
from typing import Any

from fairacq.compare._front import fairness_axis
from fairacq.compare._target import METRIC_LABELS

#: A :class:`~fairacq.compare.CompareResult` (not imported: the result imports this module).
CompareResult = Any

__all__ = ["report_body", "report_page"]

_INTRO = {
    "rows": (
        "Each seed splits your table (stratified on group and label) into a small initial "
        "training part, a pool, validation and test rows. Every acquisition method buys pool "
        "rows up to the whole budget (steered on the validation rows; a row is paid once its "
        "label is looked at); the mitigation comparators retrain on the initial rows (cost 0) "
        "and on the initial rows plus those Random bought. All are scored on the test rows, "
        "which no strategy sees."
    ),
    "groups": (
        "Each seed splits your table into rows to draw from and test rows. Each sampler says "
        "how many samples of each group to collect (steered on its own validation draws); that "
        "many rows of each group are then drawn, the model is trained on them and scored on "
        "the test rows, which no sampler sees."
    ),
}
_LIMITS = (
    "This is a back-test on your own labelled rows: the pool is simulated from part of your "
    "table, so new rows are assumed to look like the ones you have. It is not a guarantee for "
    "data you have not seen; small groups and few test rows make the numbers noisy (see the "
    "spread over seeds)."
)


def _y_metric(result: CompareResult) -> str:
    return fairness_axis(result.target)[0]


def _fairer(result: CompareResult) -> str:
    return "lower is fairer" if fairness_axis(result.target)[1] else "higher is fairer"


def _label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def _front_figure(result: CompareResult) -> str:
    from fairacq.reporting import html_figure, plot_tradeoff

    y = _y_metric(result)
    points = [
        {
            "label": r["method"],
            "kind": r["kind"],
            "x": r["accuracy"],
            "x_std": r["accuracy_std"],
            "y": r[y],
            "y_std": r[f"{y}_std"],
            "front": r["pareto"],
        }
        for r in result._rows
        if r.get("same_as") is None
    ]
    ax = plot_tradeoff(
        points,
        xlabel="accuracy (test rows)",
        ylabel=f"{_label(y)} (test rows; {_fairer(result)})",
        target=result.target.value if y == result.target.metric else None,
        target_label=f"target ({result.target})",
        title=f"{_where(result)}: accuracy and fairness (mean ± 1 sd over seeds)",
    )
    return html_figure(
        ax.figure,
        f"Each strategy's mean over seeds, bars one standard deviation; {_fairer(result)}. Ringed "
        "points are on the front: no other strategy is at most as costly, at most as unfair "
        "and at least as accurate while better on one of the three (cost is not drawn, so a "
        "ringed point may look beaten here by a costlier one).",
    )


def _where(result: CompareResult) -> str:
    """Name the data and the groups a figure is about (``mine.csv, groups by district``)."""
    return f"{result.dataset}, groups by {result.sensitive}"


def _cost_figure(result: CompareResult) -> str:
    """Rows: the acquisition methods' fairness against cost. Groups: the allocations."""
    from fairacq.reporting import html_figure, plot_allocations, plot_traces

    if result.question == "groups":
        allocations = {r["method"]: r["allocation"] for r in result._rows if "allocation" in r}
        ax = plot_allocations(
            allocations,
            xlabel="samples (mean over seeds)",
            title=f"{_where(result)}: samples of each group per sampler",
        )
        return html_figure(ax.figure, "Samples of each group each sampler asked for.")
    y = _y_metric(result)
    ax = plot_traces(
        result.traces,
        f"test_{y}",
        reference=result.target.value if y == result.target.metric else None,
        reference_label="target",
        xlabel=f"{result.unit} bought",
        ylabel=f"{_label(y)} (test rows; {_fairer(result)})",
        title=f"{_where(result)}: acquisition methods' fairness against cost",
        unit="seeds",
    )
    # many methods: the legend beside the axes, not over the lines
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    root = ax.get_figure(root=True)
    if root is not None:
        root.set_size_inches(9.6, 4.2)
    return html_figure(ax.figure, "Each acquisition method's test gap as it buys rows.")


def _figures(result: CompareResult) -> str:
    parts = []
    if result._rows:
        parts.append(_front_figure(result))
    if result.traces or (result.question == "groups" and result._rows):
        parts.append(_cost_figure(result))
    return "\n".join(parts)


def _cells(r: dict[str, Any], result: CompareResult) -> dict[str, str]:
    """One strategy's cells (a repeat of another strategy's results only points to it)."""
    if r.get("same_as"):
        return {"strategy": r["method"], "note": f"same results as {r['same_as']}"}
    metric = result.target.metric
    low, high = r["met_interval"]
    row = {
        "strategy": r["method"],
        "kind": r["kind"],
        "cost": _num(r["cost"], ".0f"),
        "accuracy": f"{_num(r['accuracy'])} ± {_num(r['accuracy_std'])}",
        "loss": _num(r["accuracy_loss"] * 100, "+.1f"),
        metric: f"{_num(r[metric])} ± {_num(r[f'{metric}_std'])}",
        "met": f"{r['met_seeds']}/{r['seeds']} ({low * 100:.0f}-{high * 100:.0f} %)",
        "ok": f"{r['ok_seeds']}/{r['seeds']}",
        "front": "yes" if r["pareto"] else "",
        "note": f"one class in {r['one_class_seeds']}/{r['seeds']} seeds"
        if r["one_class_seeds"]
        else "",
    }
    if "first_met_cost" in r:
        row["first met"] = _num(r["first_met_cost"], ".0f")
    for extra in result.metrics:
        if extra not in ("accuracy", metric):
            row[extra] = _num(r[extra])
    if "allocation" in r:
        row["allocation"] = ", ".join(f"{g} {n:.0f}" for g, n in r["allocation"].items())
    return row


def _table(result: CompareResult) -> str:
    from fairacq.reporting import html_table

    metric = result.target.metric
    rows = [_cells(r, result) for r in result._rows]
    allowed = result.max_accuracy_loss * 100
    headers = {m: _label(m) for m in result.metrics} | {
        "cost": result.unit,
        "loss": f"accuracy points lost vs {result.baseline}",
        metric: f"{_label(metric)} (target {result.target.op} {result.target.value:g})",
        "met": "seeds meeting target (95 % interval of the share)",
        "ok": f"seeds meeting target losing at most {allowed:.1f} points",
        "front": "on the accuracy-fairness-cost front",
        "first met": f"test curve first met target at ({result.unit})",
    }
    columns = list(dict.fromkeys(key for row in rows for key in row if key != "note"))
    columns.append("note")
    return html_table(rows, columns, headers=headers)


def _num(value: float, form: str = ".3f") -> str:
    """``value`` formatted, or a dash for NaN (never met, undefined for a group)."""
    return "—" if value != value else format(value, form)


def _list(title: str, items: list[str]) -> str:
    if not items:
        return ""
    lines = "".join(f"<li>{html.escape(i)}</li>" for i in items)
    return f"<h2>{html.escape(title)}</h2><ul class='note'>{lines}</ul>"


def report_body(result: CompareResult) -> str:
    """Return the report's body: recommendation, figures, table, skipped, notes, limits."""
    rec = result.recommendation
    klass = "recommendation" if rec.reached else "recommendation missed"
    settings = (
        f"Question: {result.question}; table {result.dataset}; budget {result.budget:.0f} "
        f"{result.unit}; target {result.target}; {result.config.get('seeds')} seed(s); model "
        f"{result.config.get('model')}; {result.elapsed_s:.1f} s."
    )
    skipped = [f"{m}: {why}" for m, why in result.plan.skipped.items()]
    return "\n".join(
        [
            f'<p class="{klass}">{html.escape(rec.text)}</p>',
            f'<p class="note">{html.escape(settings)}</p>',
            f"<p>{html.escape(_INTRO[result.question])}</p>",
            _figures(result),
            "<h2>Strategies</h2>",
            f'<div class="wide">{_table(result)}</div>',
            _list("Not run", skipped),
            _list("Runs that failed", result.failures),
            _list(
                "Warnings",
                [*result.one_class_warnings(), *result.floor_warnings(), *result.notes],
            ),
            f"<h2>Limits</h2><p class='note'>{html.escape(_LIMITS)}</p>",
        ]
    )


def report_page(result: CompareResult) -> str:
    """Return the whole report as one self-contained HTML page."""
    from fairacq.reporting import html_page

    title = f"fairacq compare: {result.question} on {result.dataset}"
    return html_page(title, report_body(result))
