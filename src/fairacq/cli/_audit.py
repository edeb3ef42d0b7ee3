"""``fairacq audit``: per-group table and fairness metrics of a baseline model."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from fairacq.cli._acquire import resolve_metric
from fairacq.cli._data_options import (
    CategoricalOpt,
    DataOpt,
    DropOpt,
    ImputeOpt,
    LabelOpt,
    ModelOpt,
    ModelParamOpt,
    PositiveOpt,
    model_from_options,
    read_user_table,
    table_columns,
)
from fairacq.cli._errors import fail, user_errors

__all__ = ["audit_cmd", "print_audit"]

console = Console(highlight=False)


def print_audit(report: object) -> None:
    """Print an :class:`~fairacq.models.AuditReport` as two tables."""
    from fairacq.models import AuditReport

    assert isinstance(report, AuditReport)
    title = (
        f"{report.model} on {report.dataset} by {' & '.join(report.sensitive)} "
        f"(train {report.n_train}, test {report.n_test})"
    )
    groups = Table(title=title, title_justify="left")
    frame = report.groups.copy()
    if "accuracy_low" in frame:
        frame["accuracy"] = [
            f"{a:.3f} ({lo:.2f}-{hi:.2f})"
            for a, lo, hi in zip(
                frame["accuracy"], frame["accuracy_low"], frame["accuracy_high"], strict=True
            )
        ]
        frame = frame.drop(columns=["accuracy_low", "accuracy_high"]).rename(
            columns={"accuracy": "accuracy (95% CI)"}
        )
    for col in frame.columns:
        groups.add_column(
            str(col).replace("_", " "), justify="left" if col == "group" else "right"
        )
    for row in frame.itertuples(index=False):
        groups.add_row(*[_cell(v) for v in row])
    console.print(groups)
    metrics = Table(title="fairness and accuracy (test split)", title_justify="left")
    metrics.add_column("metric")
    metrics.add_column("value", justify="right")
    for name, value in report.metrics.items():
        metrics.add_row(name, f"{value:.4f}")
    console.print(metrics)


def _cell(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int,)) or (
        isinstance(value, float) and value.is_integer() and value > 1
    ):
        return f"{int(value)}"
    return f"{value:.3f}"


def audit_cmd(
    dataset: Annotated[
        str, typer.Option(help="Bundled dataset (fairacq datasets list).")
    ] = "adult",
    data: DataOpt = None,
    label: LabelOpt = "label",
    sensitive: Annotated[
        list[str] | None,
        typer.Option(
            help="Group column(s): comma-separated or repeated for intersectional groups."
        ),
    ] = None,
    categorical: CategoricalOpt = None,
    drop: DropOpt = None,
    positive: PositiveOpt = None,
    impute: ImputeOpt = False,
    model: ModelOpt = "lr",
    model_param: ModelParamOpt = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            help="Metric to report: dp, eo, eopp or a name from fairacq metrics; repeat for "
            "several (default: accuracy and parity gaps)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the split and the learner.")] = 0,
    test_size: Annotated[float, typer.Option(help="Held-out fraction.")] = 0.3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Train a model and report its per-group table and fairness metrics.

    On your own table: --data FILE --label COL --sensitive COL[,COL] (raw string columns are
    one-hot encoded); any scikit-learn classifier with --model module:Class.
    """
    from fairacq.models import DEFAULT_METRICS, audit

    if not 0 < test_size < 1:
        raise fail(f"--test-size must lie strictly between 0 and 1, got {test_size:g}.")
    attrs = [a.strip() for item in sensitive or [] for a in item.split(",") if a.strip()]
    learner = model_from_options(model, model_param)
    with user_errors():
        if data is not None:
            columns = table_columns(
                label, ",".join(attrs), categorical=categorical, drop=drop,
                positive=positive, impute=impute,
            )  # fmt: skip
            ds = read_user_table(data, columns, name=data.name).dataset
        else:
            ds = _bundled(dataset, attrs)
        report = audit(
            ds,
            learner,
            metrics=[resolve_metric(m) for m in metric] if metric else list(DEFAULT_METRICS),
            test_size=test_size,
            random_state=seed,
        )
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        print_audit(report)


def _bundled(dataset: str, attrs: list[str]) -> Any:
    from fairacq.data import load_dataset

    ds = load_dataset(dataset, **({"sensitive": attrs[0]} if attrs else {}))
    return ds.with_sensitive(*attrs) if len(attrs) > 1 else ds
