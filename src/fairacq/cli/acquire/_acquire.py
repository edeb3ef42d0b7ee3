"""``fairacq acquire``: run one pool-acquisition method; write its rows, order, trace, plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq._run_folder import run_folder
from fairacq.cli.acquire._acquire_inputs import UserFiles, check_files, load_inputs, parse_size
from fairacq.cli.acquire._acquire_resume import run_stamp
from fairacq.cli.acquire._acquire_run import (
    checkpointing,
    make_acquirer_for,
    run_baseline,
    run_method,
    write_outputs,
)
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
    sensitive_text,
    table_columns,
)
from fairacq.cli.shared._errors import err_console, fail, user_errors
from fairacq.cli.shared._out_folder import OverwriteOpt, check_out_folder

__all__ = ["METRIC_ALIASES", "acquire_cmd", "resolve_metric"]

console = Console(highlight=False)

#: Short metric names accepted on the command line.
METRIC_ALIASES = {
    "dp": "demographic_parity_diff_abs",
    "eo": "equalized_odds_diff",
    "eopp": "equal_opportunity_diff",
}


def resolve_metric(name: str) -> str:
    """Map a CLI alias (dp, eo, eopp) to the metric's registered name.

    Raises
    ------
    UnknownNameError
        For a name that is neither an alias nor a metric, with the closest one.
    """
    from fairacq._validation import did_you_mean
    from fairacq.metrics import available

    if name in METRIC_ALIASES:
        return METRIC_ALIASES[name]
    if name not in available():
        raise did_you_mean("metric", name, [*METRIC_ALIASES, *available()], "`fairacq metrics`")
    return name


def acquire_cmd(
    dataset: Annotated[
        str, typer.Option(help="Bundled dataset (fairacq datasets list); not with --pool.")
    ] = "adult",
    sensitive_given: SensitiveOpt = None,
    method: Annotated[
        str,
        typer.Option(
            help="random, entropy, inf, autodata, datasift, datasift-inf; published peers: "
            "falcon, fal; fairacq's post-thresholds (random rows, then group thresholds "
            "within --tol: rates chosen on validation; for dp placed at the pool's quantiles) "
            "and threshold-aware (dp: the rows closest to their group's threshold)."
        ),
    ] = "datasift-inf",
    budget: Annotated[
        str,
        typer.Option(
            help="How much to acquire: rows (or cost units with --cost) such as 200, or a "
            "share of the pool such as 20%."
        ),
    ] = "20%",
    batch: Annotated[
        str,
        typer.Option(help="Rows per batch, such as 20, or a share of the budget such as 10%."),
    ] = "10%",
    model: ModelOpt = "lr",
    model_param: ModelParamOpt = None,
    metric: Annotated[str, typer.Option(help="dp, eo, eopp or a metric name.")] = "dp",
    tau: Annotated[
        float,
        typer.Option(
            help="The fairness tolerance: stop buying once the validation gap is at most "
            "this (0: spend the whole budget)."
        ),
    ] = 0.01,
    alpha: Annotated[
        float,
        typer.Option(
            help="datasift, autodata, datasift-inf: how much the method favours parts of the "
            "pool it has tried little (higher explores more); fal: the weight of the model's "
            "uncertainty against the expected fairness gain, from 0 to 1."
        ),
    ] = 0.1,
    accuracy_weight: Annotated[
        float,
        typer.Option(
            help="datasift-inf only: also rank rows by how much they are predicted to lower "
            "the validation log-loss, with this weight (0: rank by fairness alone)."
        ),
    ] = 0.0,
    tol: Annotated[
        float,
        typer.Option(
            help="post-thresholds, threshold-aware: how far the groups' validation rates "
            "may stay apart after the thresholds (0: equal; larger keeps more accuracy)."
        ),
    ] = 0.0,
    placement: Annotated[
        str,
        typer.Option(
            help="post-thresholds only: where each group's threshold goes once validation "
            "chose its rate. auto: pool for dp, else validation; pool: at that rate's "
            "quantile of the pool's scores (labels not read; dp only); validation: "
            "fairlearn's coin between two thresholds fitted on the validation rows."
        ),
    ] = "auto",
    bias: Annotated[
        str,
        typer.Option(
            help="Bundled data only: how the biased training rows are drawn, as the DataSift "
            "paper describes (paper) or as its authors' code does (authors)."
        ),
    ] = "paper",
    refit: Annotated[
        str,
        typer.Option(
            help="scratch: retrain on every row after each batch; partial: update models "
            "that have partial_fit (mlp) with the batch's rows only (faster)."
        ),
    ] = "scratch",
    cost_model: Annotated[
        str,
        typer.Option(
            help="kept: only the batches kept are paid for (the pool's labels are taken as "
            "known); evaluated: every row a batch tries is paid for once (labels are "
            "bought), so the budget bounds the rows tried."
        ),
    ] = "kept",
    seed: Annotated[int, typer.Option(help="Seed.")] = 0,
    data: DataOpt = None,
    pool: Annotated[
        Path | None, typer.Option(help="Candidate rows to choose from (.parquet or .csv).")
    ] = None,
    train: Annotated[
        Path | None, typer.Option(help="Your training rows (instead of --data).")
    ] = None,
    val: Annotated[Path | None, typer.Option(help="Your validation rows.")] = None,
    test: Annotated[Path | None, typer.Option(help="Your test rows.")] = None,
    label: LabelOpt = "label",
    cost: CostOpt = None,
    categorical: CategoricalOpt = None,
    drop: DropOpt = None,
    positive: PositiveOpt = None,
    impute: ImputeOpt = False,
    sensitive_column: Annotated[
        str | None, typer.Option(hidden=True, help="Deprecated: use --sensitive.")
    ] = None,
    cost_column: Annotated[
        str | None, typer.Option(hidden=True, help="Deprecated: use --cost.")
    ] = None,
    chunk_rows: Annotated[
        int,
        typer.Option(
            help="Rows read at a time from a Parquet pool (always streamed: only a few bytes "
            "per row stay in memory)."
        ),
    ] = 65_536,
    executor: Annotated[
        str, typer.Option(help="Where pool chunks are scored: serial or dask.")
    ] = "serial",
    address: Annotated[
        str | None, typer.Option(help="Dask scheduler address (tcp://host:8786); implies dask.")
    ] = None,
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("acquisition"),
    overwrite: OverwriteOpt = False,
    baseline: Annotated[
        bool,
        typer.Option(
            "--baseline/--no-baseline",
            help="Also run Random on the same data, seed and budget, drawn beside the method.",
        ),
    ] = True,
    checkpoint_every: Annotated[
        int,
        typer.Option(
            help="Write OUT/checkpoint every this many batches (0: never); it records the "
            "run's inputs and options, and is removed when the run finishes."
        ),
    ] = 0,
    resume: Annotated[
        bool,
        typer.Option(
            help="Go on from OUT/checkpoint if a killed run left one: the result equals an "
            "uninterrupted run's (the same inputs and options are needed, and checked)."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Acquire rows from a pool to make a model fairer; write the rows, order, trace, plot.

    Your own data: --pool (the candidates) with --data (the rows you have, split 60/20/20
    into training, validation and test) or --train and --val (and --test); raw string
    columns are one-hot encoded as in the training rows. Writes acquired.parquet (every pool
    row paid for, with its own columns, in order, with step, batch, trained_on and
    cost_paid, which sums to the cost), fairness.png (fairness and accuracy against cost,
    with Random beside the method), the trace and summary.md/json.
    A Parquet pool is streamed chunk by chunk (--chunk-rows), so pools larger than memory
    work; --executor dask --address ... scores the chunks on a dask cluster.
    """
    sensitive = sensitive_text(sensitive_given)
    shaping = dict(locals())  # the options as given: a checkpoint records them
    _check_acquire_options(method, accuracy_weight, executor, chunk_rows, checkpoint_every)
    if not 0 <= tau < float("inf"):
        raise fail(
            f"--tau, the fairness tolerance, must be a number >= 0 (0: spend the whole "
            f"budget); got {tau}."
        )
    _check_tol(method, tol, placement)
    check_files(pool, data, train, val)
    for text, option in ((budget, "--budget"), (batch, "--batch")):
        parse_size(text, 1.0, option)  # the form now; the size once the pool is read
    learner = model_from_options(model, model_param)
    for old_name, value, new_name in (
        ("--sensitive-column", sensitive_column, "--sensitive"),
        ("--cost-column", cost_column, "--cost"),
    ):
        if value is not None:
            err_console.print(f"note: {old_name} is deprecated; use {new_name}.", markup=False)
    files = None
    if pool is not None:
        group = sensitive or sensitive_column or "group"
        columns = table_columns(
            label, group, cost=cost or cost_column, categorical=categorical, drop=drop,
            positive=positive, impute=impute,
        )  # fmt: skip
        files = UserFiles(pool, data, train, val, test, columns, chunk_rows)
    with user_errors():
        given = {"--pool": pool, "--data": data, "--train": train, "--val": val, "--test": test}
        check_out_folder(out, given, overwrite=overwrite, checkpoint_ok=True)
        stamp = run_stamp(given, shaping) if checkpoint_every or resume else {}
        resuming = checkpointing(out, checkpoint_every, resume, stamp)
        inputs = load_inputs(dataset, None if files else sensitive, bias, seed, files)
        params = {
            "learner": learner, "metric": resolve_metric(metric), "tau": tau, "alpha": alpha,
            "accuracy_weight": accuracy_weight, "refit": refit, "cost_model": cost_model,
            "tol": tol, "placement": placement, "random_state": seed,
        }  # fmt: skip
        if method in ("post-thresholds", "threshold-aware"):
            params["tau"] = 0.0  # its thresholds close the validation gap: spend the budget
        acquirer = make_acquirer_for(method, budget, batch, inputs, params)
        summary = _run_and_write(
            acquirer, method, inputs, out, executor, address, resuming, baseline
        )  # fmt: skip
    _print(summary, out, as_json)


def _run_and_write(
    acquirer: Any,
    method: str,
    inputs: Any,
    out: Path,
    executor: str,
    address: str | None,
    resuming: dict[str, Any],
    baseline: bool,
) -> dict[str, Any]:
    from fairacq.acquisition import DaskChunkExecutor, make_chunk_executor

    chunks = make_chunk_executor(executor, address=address)  # type: ignore[arg-type]
    try:
        notes = run_method(acquirer, method, inputs, chunks, resuming)
        compare = run_baseline(acquirer, inputs, chunks) if baseline else {}
    finally:
        if isinstance(chunks, DaskChunkExecutor):
            chunks.close()
    with run_folder(out) as building:  # swapped in whole; the checkpoint left behind
        return write_outputs(acquirer, inputs, building, method, compare, notes)


def _print(summary: dict[str, Any], out: Path, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    for r in summary["rows"]:
        console.print(f"{r['method']:>13} {r['stage']:>7} {r['metric']}: {r['value']:.4f}")
    console.print(summary["spending"])
    extra = ", thresholds.json (the group thresholds)" if "thresholds" in summary else ""
    console.print(
        f"Wrote {out}/acquired.parquet ({summary['n_acquired']} rows paid for; column "
        f"trained_on), acquisition_order.csv{extra}, trace, fairness.png and summary.md"
    )


def _check_tol(method: str, tol: float, placement: str) -> None:
    """Exit with code 2 on a --tol or --placement that cannot apply."""
    if placement not in ("auto", "pool", "validation"):
        raise fail(f"--placement takes auto, pool or validation; got {placement!r}.")
    if placement != "auto" and method != "post-thresholds":
        raise fail(
            f"--placement says where group thresholds go, which only post-thresholds fits; "
            f"got --method {method}. Use --method post-thresholds or drop the option."
        )
    if tol and method not in ("post-thresholds", "threshold-aware"):
        raise fail(
            f"--tol sets how far the groups' rates may stay apart after group thresholds, "
            f"which only post-thresholds and threshold-aware fit; got --method {method}. Use "
            "--method threshold-aware (or post-thresholds) or drop the option."
        )
    if not tol >= 0 or tol == float("inf"):
        raise fail(f"--tol must be a number >= 0, got {tol}.")


def _check_acquire_options(
    method: str, accuracy_weight: float, executor: str, chunk_rows: int, checkpoint_every: int
) -> None:
    """Exit with code 2 on options of ``acquire`` that do not go together."""
    if accuracy_weight and method != "datasift-inf":
        raise fail(
            f"--accuracy-weight ranks rows by predicted influence, which only datasift-inf "
            f"computes; got --method {method}. Use --method datasift-inf or drop the option."
        )
    if executor not in ("serial", "dask"):
        raise fail(f"--executor must be serial or dask, got {executor!r}.")
    if chunk_rows < 1:
        raise fail(f"--chunk-rows must be a positive number of rows, got {chunk_rows}.")
    if checkpoint_every < 0:
        raise fail(f"--checkpoint-every must be >= 0 batches, got {checkpoint_every}.")
