"""``fairacq compare``: back-test the strategies of a question on your table; one HTML report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq.cli.shared._data_options import (
    CategoricalOpt,
    CostOpt,
    DataOpt,
    DropOpt,
    ImputeOpt,
    LabelOpt,
    ModelOpt,
    ModelParamOpt,
    PositiveOpt,
    SensitiveOpt,
    model_from_options,
    read_user_table,
    sensitive_text,
    table_columns,
)
from fairacq.cli.shared._errors import err_console, fail, user_errors
from fairacq.cli.shared._out_folder import OverwriteOpt
from fairacq.cli.shared._shutdown import stop_on_signals

__all__ = ["compare_cmd"]

console = Console(highlight=False)

#: The short metric names of --target (as fairacq.compare.METRIC_ALIASES has them).
_ALIASES = {
    "dp": "demographic_parity_diff_abs",
    "eo": "equalized_odds_diff",
    "eopp": "equal_opportunity_diff",
    "acc": "accuracy",
    "worst": "worst_group_accuracy",
}

QuestionOpt = Annotated[
    str,
    typer.Option(
        "--question",
        help="rows: which pool rows to buy (acquisition methods, Random, and fixing the model "
        "instead); groups: how many rows of each group to collect (the samplers).",
    ),
]
BudgetOpt = Annotated[
    str,
    typer.Option(
        "--budget",
        help="What each strategy may buy: rows (cost units with --cost; samples for groups) "
        "such as 200, or a share of the simulated pool such as 20%.",
    ),
]
TargetOpt = Annotated[
    str,
    typer.Option(
        "--target",
        help='The bound to reach on the test rows: a gap pushed down, "dp<=0.05" (dp, eo, '
        'eopp), or an accuracy pushed up, "worst>=0.7" (acc, worst); a value in [0, 1].',
    ),
]
MaxLossOpt = Annotated[
    float,
    typer.Option(
        "--max-accuracy-loss",
        help="Accuracy a recommended strategy may lose against doing nothing (rows) or "
        "Uniform (groups), as a share: 0.02 is two accuracy points.",
    ),
]
MethodsOpt = Annotated[
    str | None,
    typer.Option(
        "--methods",
        help="Only these strategies, comma-separated (default: every registered one that "
        "works with the model; Random / Uniform always run as the baseline).",
    ),
]


def _check(data: Path | None, label: str, budget: str, batch: str, target: str) -> None:
    """Refuse what is wrong before the table is read: what compare_strategies checks too.

    The sizes against the simulated pool, and the methods against the model, are checked by
    :func:`fairacq.compare.compare_strategies` once the table is read, before any run.
    """
    from fairacq.cli.acquire._acquire_inputs import parse_size
    from fairacq.compare import parse_target

    if data is None:
        raise fail("compare needs --data FILE: your labelled table, with --label and --sensitive.")
    if not label:
        raise fail("--data needs --label COL naming the outcome column.")
    parse_size(budget, 1.0, "--budget")  # the form now; the size once the table is split
    parse_size(batch, 1.0, "--batch")
    with user_errors():
        parse_target(target)


def _print(summary: dict[str, Any], out: Path) -> None:
    from rich import box
    from rich.table import Table

    target = summary["target"]
    metric = target["metric"]
    short = {v: k for k, v in _ALIASES.items()}.get(metric, metric)
    allowed = summary["recommendation"]["max_accuracy_loss"] * 100
    notes = [note for row in summary["rows"] if (note := _note(row))]
    table = Table(
        title=f"Strategies on the test rows (mean over seeds; target {target['text']}; at most "
        f"{allowed:.1f} accuracy points lost against {summary['baseline']})",
        title_justify="left",
        caption="loss: accuracy points lost; met: seeds meeting the target, 95%: interval of "
        "that share; ok: seeds meeting it within the loss allowed; *: on the front, nothing "
        "beats it on cost, fairness and accuracy at once." + "".join(f"\n{n}" for n in notes),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
    )
    for col in ("strategy", "cost", "accuracy", "loss", short, "met", "95%", "ok"):
        table.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
    table.add_column("*", justify="center", no_wrap=True)
    for row in summary["rows"]:
        table.add_row(*_cells(row, metric))
    console.print(table)
    console.print(summary["recommendation"]["text"], markup=False)
    console.print(
        f"Wrote {out}/report.html, {out}/summary.json and {out}/result (every strategy's "
        "numbers and each acquisition run's trace; fairacq.compare.CompareResult.load reads it)",
        markup=False,
    )


def _note(row: dict[str, Any]) -> str:
    """Return the line under the table for a repeat or a one-class model (or "")."""
    if row.get("same_as"):
        same = row["same_as"]
        return f"{row['method']} = {same}: same results as {same} on every seed."
    if row["one_class_seeds"]:
        return (
            f"{row['method']} (!): its model predicts one class for every test row in "
            f"{row['one_class_seeds']}/{row['seeds']} seeds; its gap means nothing."
        )
    return ""


def _cells(row: dict[str, Any], metric: str) -> list[str]:
    """One strategy's cells; a repeat of another strategy's results only points to it."""
    if row.get("same_as"):
        return [f"{row['method']} = {row['same_as']}", *[""] * 8]
    low, high = row["met_interval"]
    loss = row.get("accuracy_loss")
    return [
        row["method"] + (" (!)" if row["one_class_seeds"] else ""),
        _number(row.get("cost"), ".0f"),
        _number(row.get("accuracy"), ".3f"),
        _number(None if loss is None else loss * 100, "+.1f"),
        _number(row.get(metric), ".3f"),
        f"{row['met_seeds']}/{row['seeds']}",
        f"{low * 100:.0f}-{high * 100:.0f}%",
        f"{row['ok_seeds']}/{row['seeds']}",
        "*" if row["pareto"] else "",
    ]


def _number(value: float | None, form: str) -> str:
    return "—" if value is None else format(value, form)


def compare_cmd(
    data: DataOpt = None,
    label: LabelOpt = "",
    positive: PositiveOpt = None,
    sensitive_given: SensitiveOpt = None,
    cost: CostOpt = None,
    categorical: CategoricalOpt = None,
    drop: DropOpt = None,
    impute: ImputeOpt = False,
    model: ModelOpt = "lr",
    model_param: ModelParamOpt = None,
    question: QuestionOpt = "rows",
    budget: BudgetOpt = "20%",
    target: TargetOpt = "dp<=0.05",
    seeds: Annotated[int, typer.Option(help="Seeds (splits and methods redrawn).")] = 3,
    seed: Annotated[int, typer.Option(help="Root seed.")] = 0,
    methods: MethodsOpt = None,
    max_accuracy_loss: MaxLossOpt = 0.02,
    batch: Annotated[
        str, typer.Option(help="Rows per acquisition batch, or a share of the budget (10%).")
    ] = "10%",
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("compare"),
    overwrite: OverwriteOpt = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON (only that on stdout).")
    ] = False,
) -> None:
    """Back-test every strategy of a question on your own labelled table; recommend one.

    Simulates acquisition from part of your table, on several seeds. --question rows: a small
    initial training part (20%), a pool (40%), validation and test rows (20% each); every
    acquisition method that works with --model, Random, and fixing the model instead
    (fairlearn's ThresholdOptimizer and ExponentiatedGradient, reweighing) on the rows you
    have and on those plus Random's. --question groups: every sampler (aopt, uniform,
    slice-tuner, minimax-fair, ...). Writes report.html (self-contained: the accuracy-fairness
    front, a table, the recommendation), summary.json and result/ (for CompareResult.load).
    A back-test on your rows, not a guarantee.
    """
    sensitive = sensitive_text(sensitive_given)
    import shlex
    import sys

    from fairacq._run_folder import run_folder
    from fairacq.cli.shared._out_folder import check_out_folder

    _check(data, label, budget, batch, target)
    assert data is not None
    learner = model_from_options(model, model_param)
    columns = table_columns(
        label, sensitive, cost=cost, categorical=categorical, drop=drop, positive=positive,
        impute=impute,
    )  # fmt: skip
    chosen = [m.strip() for m in methods.split(",") if m.strip()] if methods else None
    with stop_on_signals(), user_errors():
        check_out_folder(out, {"--data": data}, overwrite=overwrite)
        table = read_user_table(data, columns)
        result = _run(
            table, question, budget, target, learner, seeds, seed, batch, chosen, max_accuracy_loss
        )
        command = "fairacq " + shlex.join(sys.argv[1:])
        from fairacq.compare import write_compare_report

        with run_folder(out) as building:  # swapped in whole when written
            summary = write_compare_report(result, building, command=command)
            result.save(building / "result")  # the runs and their traces: CompareResult.load
    for failure in result.failures:
        err_console.print(f"warning: a run failed: {failure}", markup=False)
    if result.notes:
        err_console.print(
            f"note: {len(result.notes)} warning(s) were raised inside the runs; see "
            f"{out}/report.html.",
            markup=False,
        )
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        _print(summary, out)


def _run(
    table: Any,
    question: str,
    budget: str,
    target: str,
    learner: Any,
    seeds: int,
    seed: int,
    batch: str,
    methods: list[str] | None,
    max_accuracy_loss: float = 0.02,
) -> Any:
    """Run :func:`fairacq.compare.compare_strategies` with a progress bar of the runs."""
    from fairacq.cli.shared._progress import progress
    from fairacq.compare import compare_strategies

    with progress(f"compare ({question})", None, "runs") as bar:
        return compare_strategies(
            table.dataset,
            question,
            budget=budget,
            target=target,
            learner=learner,
            n_seeds=seeds,
            random_state=seed,
            costs=table.costs,
            batch=batch,
            methods=methods,
            progress=lambda done, total: bar.update(done, total=total),
            max_accuracy_loss=max_accuracy_loss,
        )
