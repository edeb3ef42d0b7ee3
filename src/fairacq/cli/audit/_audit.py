"""``fairacq audit``: per-group table and fairness metrics of a baseline model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from fairacq.cli.acquire._acquire import resolve_metric
from fairacq.cli.audit._audit_predictions import audit_table_predictions
from fairacq.cli.shared._data_options import (
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
from fairacq.cli.shared._errors import fail, user_errors

__all__ = ["audit_cmd", "print_audit"]

console = Console(highlight=False)


def print_audit(report: object) -> None:
    """Print an :class:`~fairacq.models.AuditReport` as two tables.

    A model that predicts one class gets its verdict under the metrics table, so that its
    zero gaps are never read as fairness.
    """
    from fairacq.models import AuditReport

    assert isinstance(report, AuditReport)
    groups = Table(title=_title(report), title_justify="left")
    frame = report.groups.copy()
    if "accuracy_low" in frame:
        frame["accuracy"] = [
            f"{a:.3f}\n{lo:.2f}-{hi:.2f}"
            for a, lo, hi in zip(
                frame["accuracy"], frame["accuracy_low"], frame["accuracy_high"], strict=True
            )
        ]
        frame = frame.drop(columns=["accuracy_low", "accuracy_high"]).rename(
            columns={"accuracy": "accuracy (95% CI)"}
        )
    for col in frame.columns:
        groups.add_column(
            str(col).replace("_", " "),
            justify="left" if col == "group" else "right",
        )
    for row in frame.itertuples(index=False):
        groups.add_row(*[_cell(v) for v in row])
    console.print(groups)
    rows = "test split" if report.source == "trained" else f"all {report.n_test} rows"
    metrics = Table(title=f"fairness and accuracy ({rows})", title_justify="left")
    metrics.add_column("metric")
    metrics.add_column("value", justify="right")
    for name, value in report.metrics.items():
        metrics.add_row(name, f"{value:.4f}")
    console.print(metrics)
    if report.one_class:
        console.print(_ONE_CLASS_CAPTION)


#: Under the metrics of a one-class model: its zero gaps are no verdict.
_ONE_CLASS_CAPTION = (
    "NOT A SIGN OF FAIRNESS: the model predicts the same class for everyone, so every gap is "
    "zero by construction (see the warning)."
)


def _title(report: Any) -> str:
    where = {
        "trained": f"train {report.n_train}, test {report.n_test}",
        "fitted": f"fitted model, all {report.n_test} rows",
        "predictions": f"all {report.n_test} rows, no model trained",
    }[report.source]
    return f"{report.model} on {report.dataset} by {' & '.join(report.sensitive)} ({where})"


def _cell(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float) and np.isnan(value):
        return "-"  # undefined: no positive row for the TPR, no scores for the AUC
    if isinstance(value, (int,)) or (
        isinstance(value, float) and value.is_integer() and value > 1
    ):
        return f"{int(value)}"
    return f"{value:.3f}"


PredictionsOpt = Annotated[
    str | None,
    typer.Option(
        "--predictions",
        help="Column of --data holding your own model's predictions: 0/1, values of the "
        "label (with --positive), or scores from 0 to 1. Nothing is trained; every row is "
        "audited.",
    ),
]
ThresholdOpt = Annotated[
    float | None,
    typer.Option(
        "--threshold",
        help="With a --predictions column of scores: a score at or above it predicts the "
        "favourable label (default 0.5).",
    ),
]


def audit_cmd(
    ctx: typer.Context,
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
    predictions: PredictionsOpt = None,
    threshold: ThresholdOpt = None,
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
    """Train a model, or take your model's predictions, and report its per-group fairness.

    On your own table: --data FILE --label COL --sensitive COL[,COL] (raw string columns are
    one-hot encoded); any scikit-learn classifier with --model module:Class. To audit a model
    you trained yourself, write its predictions (or scores) into a column and pass
    --predictions COL: nothing is trained and every row is audited.
    """
    from fairacq.models import DEFAULT_METRICS

    attrs = [a.strip() for item in sensitive or [] for a in item.split(",") if a.strip()]
    with user_errors():
        metrics = [resolve_metric(m) for m in metric] if metric else list(DEFAULT_METRICS)
    if predictions is not None:
        _check_predictions_options(ctx, data, model_param, threshold)
        assert data is not None
        with user_errors():
            report = audit_table_predictions(
                data, label=label, sensitive=attrs, predictions=predictions,
                positive=positive, threshold=threshold, metrics=metrics,
            )  # fmt: skip
    else:
        if threshold is not None:
            raise fail("--threshold applies to --predictions COL (a column of scores).")
        if not 0 < test_size < 1:
            raise fail(f"--test-size must lie strictly between 0 and 1, got {test_size:g}.")
        options = (label, attrs, categorical, drop, positive, impute)
        report = _train_and_audit(data, dataset, options, model, model_param, metrics, seed,
                                  test_size)  # fmt: skip
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        print_audit(report)


def _check_predictions_options(
    ctx: typer.Context, data: object, model_param: list[str] | None, threshold: float | None
) -> None:
    """Refuse options that make no sense when the predictions come from the user's model."""
    if data is None:
        raise fail("--predictions needs --data FILE, the table that holds the column.")
    given = {
        name
        for name in ("model", "test_size")
        if getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT"
    }
    if "model" in given or model_param:
        raise fail(
            "--predictions audits predictions your own model already made, so nothing is "
            "trained: drop --model and --model-param."
        )
    if "test_size" in given:
        raise fail("--predictions audits every row (nothing is trained): drop --test-size.")
    if threshold is not None and not 0 < threshold <= 1:
        raise fail(f"--threshold must lie in (0, 1], got {threshold:g}.")


def _train_and_audit(
    data: Path | None,
    dataset: str,
    options: tuple[str, list[str], list[str] | None, list[str] | None, str | None, bool],
    model: str,
    model_param: list[str] | None,
    metrics: list[str],
    seed: int,
    test_size: float,
) -> Any:
    """Train the model on a split of the table (or bundled dataset) and audit it."""
    from fairacq.models import audit

    label, attrs, categorical, drop, positive, impute = options
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
        return audit(ds, learner, metrics=metrics, test_size=test_size, random_state=seed)


def _bundled(dataset: str, attrs: list[str]) -> Any:
    from fairacq.data import load_dataset

    ds = load_dataset(dataset, **({"sensitive": attrs[0]} if attrs else {}))
    return ds.with_sensitive(*attrs) if len(attrs) > 1 else ds
