"""What ``fairacq sample`` writes and prints: counts, figure, summary, the people's table.

Imported by the command when it runs (the library is imported inside the functions, as in
every command module), so ``fairacq --help`` loads none of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairacq.sampling import AllocationResult

__all__ = ["people_table", "worst_group_line", "write_report"]

FIGURE = "sampling.png"


def _cell(mean: float, std: float | None = None, digits: int = 1) -> str:
    if mean != mean:  # NaN
        return "—"
    if std is None or std != std or std == 0:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def people_table(result: AllocationResult) -> list[dict[str, str]]:
    """Return one row per group: rows in the table, samples and test accuracy per method."""
    out = []
    for row in result.table().to_dict("records"):
        entry = {"group": str(row["group"]), "rows in table": str(row["rows"])}
        for method, _ in result.runs:
            entry[f"{method} samples"] = _cell(
                row[f"{method} samples"], row[f"{method} samples std"]
            )
        for method, _ in result.runs:
            entry[f"{method} test acc"] = _cell(row[f"{method} test accuracy"], digits=3)
        out.append(entry)
    return out


def worst_group_line(result: AllocationResult) -> str:
    """Return the worst-group test accuracy of the method beside the baseline's, in words."""
    acc = result.worst_group_accuracy()
    parts = [f"{m} {_cell(v['mean'], v['std'], 3)}" for m, v in acc.items()]
    return (
        f"Worst-group test accuracy (mean ± std over {len(result.traces)} trial(s)): "
        + " vs ".join(parts)
        + "."
    )


def _rows(result: AllocationResult, dataset: str) -> list[dict[str, Any]]:
    """Summary rows: worst-group accuracy and samples per group per method, the shares."""
    base = {"dataset": dataset, "paper_value": None}
    acc, table = result.worst_group_accuracy(), result.table()
    rows: list[dict[str, Any]] = []
    for method in acc:
        rows.append({**base, "method": method, "metric": "test_worst_acc", **_num(acc[method])})
        for rec in table.to_dict("records"):
            mean, std = rec[f"{method} samples"], rec[f"{method} samples std"]
            metric = f"samples_{rec['group']}"
            rows.append({**base, "method": method, "metric": metric, "value": mean, "std": std})
    for group in result.groups:
        share = sum(float(t.final(f"pi_{group}")) for t in result.traces) / len(result.traces)
        rows.append({**base, "method": result.method, "metric": f"pi_{group}", "value": share})
    return rows


def _num(stats: dict[str, Any]) -> dict[str, Any]:
    return {"value": stats["mean"], "std": stats["std"]}


def _figure(result: AllocationResult, path: Path) -> Path:
    """Worst-group accuracy of the method and baseline, and the method's shares, in [0, 1]."""
    from fairacq.reporting import new_figure, plot_traces, save_figure

    fig = new_figure(11.0, 4.0)
    left, right = fig.subplots(1, 2)
    plot_traces(
        dict(result.runs),
        "test_worst_acc",
        ax=left,
        xlabel="samples drawn",
        ylabel="worst-group accuracy (test)",
        limits=(0.0, 1.0),
    )
    for i, group in enumerate(result.groups):
        plot_traces(
            {group: result.traces},
            f"pi_{group}",
            ax=right,
            xlabel="samples drawn",
            ylabel=f"share of {result.method}'s samples, pi_t(z)",
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
        Findings for ``summary.md``.
    warnings : list of str
        The run's warnings: listed in ``summary.md`` and under ``warnings`` in
        ``summary.json``.
    settings : dict
        The options of the run, under ``settings`` in ``summary.json``.

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
    _figure(result, out / FIGURE)
    _, json_path = write_summary(
        out,
        experiment=f"sample-{result.method}",
        preset="custom",
        rows=_rows(result, dataset),
        notes=[worst_group_line(result), *notes, *(f"Warning: {w}" for w in warnings)],
        figures=[FIGURE],
        tables={"Samples per group": format_markdown_table(pd.DataFrame(people_table(result)))},
    )
    summary = {
        **read_json(json_path),
        "counts": result.to_dict(),
        "warnings": list(warnings),
        "settings": settings,
    }
    write_json(json_path, summary)
    return summary
