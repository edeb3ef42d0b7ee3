"""What ``fairacq sample`` writes and prints: counts, figure, summary, the people's table.

Imported by the command when it runs (the library is imported inside the functions, as in
every command module), so ``fairacq --help`` loads none of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairacq.sampling import AllocationResult, BaselineVerdict

__all__ = [
    "mode_note",
    "people_table",
    "result_lines",
    "table_title",
    "worst_group_line",
    "write_report",
]

FIGURE = "sampling.png"


def _cell(mean: float, std: float | None = None, digits: int = 1) -> str:
    if mean != mean:  # NaN
        return "—"
    if std is None or std != std or std == 0:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def _recommended_cell(rec: Any, i: int) -> str:
    low, high, count = int(rec.low[i]), int(rec.high[i]), int(rec.counts[i])
    return str(count) if low == high == count else f"{count} ({low}-{high})"


def people_table(result: AllocationResult) -> list[dict[str, str]]:
    """Return one row per group: rows in the table, recommended samples and test accuracy.

    A method's samples cell is its recommended count (:meth:`AllocationResult.recommended`)
    with, in brackets, the range of the middle 80 % of trials (when not a single value).
    """
    recommended = {method: result.recommended(method) for method, _ in result.runs}
    out = []
    for i, row in enumerate(result.to_frame().to_dict("records")):
        entry = {"group": str(row["group"]), "rows in table": str(row["rows"])}
        for method, _ in result.runs:
            entry[f"{method} samples"] = _recommended_cell(recommended[method], i)
        for method, _ in result.runs:
            entry[f"{method} test acc"] = _cell(row[f"{method} test accuracy"], digits=3)
        out.append(entry)
    return out


def table_title(result: AllocationResult, validation: str) -> str:
    """Return the people's table title: what the counts are and what the brackets mean."""
    draws = "training + validation draws" if validation == "paired" else "training draws"
    return (
        f"Recommended samples per group ({draws}): the median over {len(result.traces)} "
        "trial(s), in brackets the range of the middle 80 % of trials"
    )


def worst_group_line(result: AllocationResult) -> str:
    """Return the worst-group test accuracy of the method beside the baseline's, in words."""
    acc = result.worst_group_accuracy()
    parts = [f"{m} {_cell(v['mean'], v['std'], 3)}" for m, v in acc.items()]
    return (
        f"Worst-group test accuracy (mean ± std over {len(result.traces)} trial(s)): "
        + " vs ".join(parts)
        + "."
    )


def _rounding_line(result: AllocationResult) -> str | None:
    rec = result.recommended()
    if not rec.rounded:
        return None
    total = int(rec.counts.sum())
    return (
        f"The groups' medians add up to {rec.median.sum():g}, not {total}: the recommended "
        f"counts are the medians scaled to {total} and rounded (largest remainder)."
    )


_MODES = {
    "paired": (
        "--validation paired: each group's loss is measured on fresh draws no model trains "
        "on, so the model learns from half the samples."
    ),
    "cross": (
        "--validation cross: every sample trains, and each group's loss is measured on "
        "held-out predictions of its training rows."
    ),
}


def mode_note(validation: str, verdict: BaselineVerdict | None) -> str:
    """Return what the validation mode measures, and which counts to trust, in words."""
    return f"{_MODES[validation]} {_TRUST[_standing(verdict)]}"


_TRUST = {
    "beats": "Follow the counts only when the sampler beats Uniform: here it does.",
    "worse": "Follow the counts only when the sampler beats Uniform: here it does worse, so "
    "collect Uniform's equal counts instead.",
    "same": "Follow the counts only when the sampler beats Uniform: here it does not, so the "
    "split between groups made no difference beyond the trials' spread, Uniform's equal "
    "counts are as good, and the other --validation mode may recommend other counts (both "
    "then follow noise).",
    "unknown": "Follow the counts only when the sampler beats Uniform; with no verdict "
    "(no baseline, or one trial) that is not known.",
}


def _standing(verdict: BaselineVerdict | None) -> str:
    if verdict is None or verdict.low != verdict.low:  # no baseline, or no interval
        return "unknown"
    return "beats" if verdict.beats else "worse" if verdict.high < 0 else "same"


def result_lines(result: AllocationResult, validation: str) -> list[str]:
    """Return the lines printed under the table: accuracy, verdict, rounding, mode note."""
    verdict = result.verdict()
    lines = [worst_group_line(result)]
    lines += [] if verdict is None else [verdict.sentence()]
    rounding = _rounding_line(result)
    lines += [] if rounding is None else [rounding]
    return [*lines, mode_note(validation, verdict)]


def _rows(result: AllocationResult, dataset: str) -> list[dict[str, Any]]:
    """Summary rows: worst-group accuracy and samples per group per method, the shares."""
    base = {"dataset": dataset, "paper_value": None}
    acc, table = result.worst_group_accuracy(), result.to_frame()
    rows: list[dict[str, Any]] = []
    for method in acc:
        rows.append({**base, "method": method, "metric": "test_worst_acc", **_num(acc[method])})
        for rec in table.to_dict("records"):
            mean, std = rec[f"{method} samples"], rec[f"{method} samples std"]
            metric = f"samples_{rec['group']}"
            rows.append({**base, "method": method, "metric": metric, "value": mean, "std": std})
    for group in result.groups:
        share = sum(float(t.final(f"pi_{group}")) for t in result.traces) / len(result.traces)
        rows.append({**base, "method": result.method, "metric": f"share_{group}", "value": share})
    return rows


def _num(stats: dict[str, Any]) -> dict[str, Any]:
    return {"value": stats["mean"], "std": stats["std"]}


def _figure(result: AllocationResult, path: Path, *, title: str = "") -> Path:
    """Worst-group accuracy of the method and baseline, and the method's shares, in [0, 1].

    ``title`` (the data set and groups) heads the figure; the left panel's title is the
    verdict against the baseline. The legends name the bands (one std over trials).
    """
    import textwrap

    from fairacq.reporting import new_figure, plot_traces, save_figure

    fig = new_figure(11.0, 4.6)
    left, right = fig.subplots(1, 2)
    verdict = result.verdict()
    if title:
        fig.suptitle(title)
    verdict_text = verdict.sentence() if verdict else "Worst-group test accuracy."
    left.set_title(textwrap.fill(verdict_text, 70), fontsize=8)
    right.set_title(f"Where {result.method} drew its samples", fontsize=8)
    plot_traces(
        dict(result.runs),
        "test_worst_acc",
        ax=left,
        xlabel="samples drawn",
        ylabel="worst-group accuracy (test; higher is fairer)",
        limits=(0.0, 1.0),
    )
    for i, group in enumerate(result.groups):
        plot_traces(
            {group: result.traces},
            f"pi_{group}",
            ax=right,
            xlabel="samples drawn",
            ylabel=f"share of {result.method}'s samples",
            first_colour=i,
            limits=(0.0, 1.0),
        )
    return save_figure(fig, path)


def write_report(
    result: AllocationResult,
    out: Path,
    *,
    dataset: str,
    notes: list[str],
    warnings: list[str],
    settings: dict[str, Any],
    title: str = "",
) -> dict[str, Any]:
    """Write traces, ``counts.csv``, the figure, ``summary.md`` and ``summary.json``.

    Parameters
    ----------
    result : AllocationResult
        The run.
    out : Path
        Output folder.
    dataset : str
        The table's name (summary rows).
    notes : list of str
        Findings for ``summary.md`` (:func:`result_lines` and the run's own notes).
    warnings : list of str
        The run's warnings: listed in ``summary.md`` and under ``warnings`` in
        ``summary.json``.
    settings : dict
        The options of the run, under ``settings`` in ``summary.json``.
    title : str, default=""
        The figure's title (the data set and its groups).

    Returns
    -------
    dict
        What ``summary.json`` holds: ``rows``, ``counts`` (:meth:`AllocationResult.to_dict`),
        ``warnings``, ``settings`` and the usual keys.
    """
    import pandas as pd

    from fairacq._io import read_json, write_json
    from fairacq.reporting import format_markdown_table, write_summary
    from fairacq.sampling import write_allocation

    write_allocation(result, out)
    _figure(result, out / FIGURE, title=title)
    _, json_path = write_summary(
        out,
        experiment=f"sample-{result.method}",
        preset="custom",
        rows=_rows(result, dataset),
        notes=[*notes, *(f"Warning: {w}" for w in warnings)],
        figures=[FIGURE],
        tables={
            "Recommended samples per group": format_markdown_table(
                pd.DataFrame(people_table(result))
            )
        },
    )
    summary = {
        **read_json(json_path),
        "counts": result.to_dict(),
        "warnings": list(warnings),
        "settings": settings,
    }
    write_json(json_path, summary)
    return summary
