"""``fairacq metrics``: every fairness and performance metric a command's ``--metric`` takes."""

from __future__ import annotations

import json
import math
from typing import Annotated, Any

import typer

__all__ = ["metrics_cmd"]


def _describe(metric: Any) -> dict[str, Any]:
    """Return a metric's record in JSON types (infinite bounds as null)."""
    low, high = (None if math.isinf(v) else v for v in metric.range)
    return {
        "name": metric.name,
        "description": metric.description,
        "needs": list(metric.needs),
        "higher_is_better": metric.higher_is_better,
        "range": [low, high],
        "ideal": metric.ideal,
        "paper": metric.paper,
    }


def metrics_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List every metric by name: what it measures, its inputs, range and ideal value."""
    from rich.console import Console
    from rich.table import Table

    from fairacq.metrics import available, get_metric

    records = [_describe(get_metric(name)) for name in available()]
    if as_json:
        typer.echo(json.dumps(records, indent=2))
        return
    table = Table(title="fairacq metrics", title_justify="left")
    for col in ("name", "what it measures", "needs", "ideal"):
        table.add_column(col, overflow="fold")
    for r in records:
        ideal = "-" if r["ideal"] is None else f"{r['ideal']:g}"
        table.add_row(r["name"], r["description"], ", ".join(r["needs"]), ideal)
    Console(highlight=False).print(table)
