"""``fairacq acquire``: run one pool-acquisition method and write its order, trace and plot."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq.cli._errors import err_console, fail, user_errors

__all__ = ["METRIC_ALIASES", "acquire_cmd", "resolve_metric"]

console = Console(highlight=False)

#: Short metric names accepted on the command line.
METRIC_ALIASES = {
    "dp": "demographic_parity_diff_abs",
    "eo": "equalized_odds_diff",
    "eopp": "equal_opportunity_diff",
}


def resolve_metric(name: str) -> str:
    """Map a CLI alias (dp, eo, eopp) to the metric's registered name."""
    return METRIC_ALIASES.get(name, name)


def _size(value: float, total: float, what: str) -> int:
    """Read ``--budget``/``--batch``: a fraction in (0, 1] of ``total``, or a count > 1."""
    if value <= 0:
        raise fail(f"--{what} must be positive (a fraction <= 1 or a count), got {value}.")
    if value > 1 and value != int(value):
        raise fail(
            f"--{what} {value:g} is neither a fraction in (0, 1] nor a whole number of rows "
            "or cost units. Write a whole number (2 or more) or a fraction."
        )
    return max(1, round(value * total)) if value <= 1 else int(value)


def acquire_cmd(
    dataset: Annotated[str, typer.Option(help="Dataset name (ignored with --pool).")] = "adult",
    sensitive: Annotated[str | None, typer.Option(help="Sensitive attribute.")] = None,
    method: Annotated[
        str, typer.Option(help="random, entropy, inf, autodata, datasift, datasift-inf.")
    ] = "datasift-inf",
    budget: Annotated[float, typer.Option(help="Fraction of the pool (<= 1) or rows.")] = 0.2,
    batch: Annotated[float, typer.Option(help="Fraction of the budget (<= 1) or rows.")] = 0.1,
    model: Annotated[str, typer.Option(help="Learner.")] = "lr",
    metric: Annotated[str, typer.Option(help="dp, eo, eopp or a metric name.")] = "dp",
    tau: Annotated[float, typer.Option(help="Early-stop fairness threshold.")] = 0.01,
    alpha: Annotated[float, typer.Option(help="UCB exploration weight.")] = 0.1,
    accuracy_weight: Annotated[
        float,
        typer.Option(
            help="datasift-inf only: also rank rows by their predicted influence on the "
            "validation log-loss, with this weight (0: the paper's fairness-only ranking)."
        ),
    ] = 0.0,
    bias: Annotated[str, typer.Option(help="Biased training sample: paper or authors.")] = "paper",
    refit: Annotated[
        str,
        typer.Option(
            help="scratch: retrain after every batch (the paper); partial: update learners "
            "with partial_fit (mlp) with the batch only (the authors' code)."
        ),
    ] = "scratch",
    seed: Annotated[int, typer.Option(help="Seed.")] = 0,
    pool: Annotated[Path | None, typer.Option(help="Your own pool (.parquet or .csv).")] = None,
    train: Annotated[Path | None, typer.Option(help="Your own training split.")] = None,
    val: Annotated[Path | None, typer.Option(help="Your own validation split.")] = None,
    test: Annotated[Path | None, typer.Option(help="Your own test split.")] = None,
    label: Annotated[str, typer.Option(help="Label column of your files.")] = "label",
    sensitive_column: Annotated[str, typer.Option(help="Group column of your files.")] = "group",
    cost_column: Annotated[
        str | None,
        typer.Option(help="Per-row cost column of the pool (budget and batch in cost units)."),
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
    checkpoint_every: Annotated[
        int,
        typer.Option(help="Write OUT/checkpoint every this many batches (0: never)."),
    ] = 0,
    resume: Annotated[
        bool,
        typer.Option(
            help="Go on from OUT/checkpoint if a killed run left one: the result equals an "
            "uninterrupted run's (same options needed)."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Acquire rows from a pool to make a model fairer; write the order, trace, plot, summary.

    A ``--pool`` Parquet file is always streamed chunk by chunk (``--chunk-rows``): labels,
    groups and costs stay in memory, features are read per chunk and fetched by position for
    the rows a batch tries, so pools larger than memory work; the order is the one an
    in-memory pool gives. ``--executor dask --address ...`` scores the chunks on a dask cluster
    whose workers read the file themselves (same path on every worker). A CSV pool is read
    into memory.
    """
    from fairacq._io import check_output_dir
    from fairacq.acquisition import make_acquirer

    _check_acquire_options(method, accuracy_weight, executor, chunk_rows, pool, train, val)
    if checkpoint_every < 0:
        raise fail(f"--checkpoint-every must be >= 0 batches, got {checkpoint_every}.")
    with user_errors():
        check_output_dir(out, option="--out")
        train_ds, pool_ds, val_ds, test_ds, costs = _inputs(
            dataset, sensitive, bias, seed, pool, train, val, test,
            label, sensitive_column, cost_column, chunk_rows,
        )  # fmt: skip
        total = float(costs.sum()) if costs is not None else float(len(pool_ds))
        n_budget = _size(budget, total, "budget")
        acquirer = make_acquirer(
            method,
            budget=n_budget,
            batch_size=_size(batch, n_budget, "batch"),
            learner=model,
            metric=resolve_metric(metric),
            tau=tau,
            alpha=alpha,
            accuracy_weight=accuracy_weight,
            refit=refit,
            random_state=seed,
        )
        data = (train_ds, pool_ds, val_ds, test_ds, costs)
        resuming = _checkpointing(out, checkpoint_every, resume)
        trace = _run_noting_warnings(acquirer, method, data, executor, address, resuming)
        split_name = "test" if test_ds is not None else "val"
        rows = _write_acquisition(
            trace, acquirer, out, method, train_ds.name, f"{split_name}_", resolve_metric(metric)
        )
    if as_json:
        typer.echo(json.dumps({"rows": rows, "stop_reason": acquirer.stop_reason_}, indent=2))
    else:
        for r in rows:
            console.print(f"{r['stage']:>7} {r['metric']}: {r['value']:.4f}")
        console.print(f"Wrote {out}/acquisition_order.csv, trace, fairness.png and summary.md")


def _check_acquire_options(
    method: str,
    accuracy_weight: float,
    executor: str,
    chunk_rows: int,
    pool: Path | None,
    train: Path | None,
    val: Path | None,
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
    if pool is not None and (train is None or val is None):
        raise fail("--pool needs --train and --val (and optionally --test).")


def _checkpointing(out: Path, every: int, resume: bool) -> dict[str, Any]:
    """Return the ``callbacks`` and ``continue_from`` of a run checkpointing into ``out``."""
    from fairacq import CheckpointCallback

    path = out / "checkpoint"
    kwargs: dict[str, Any] = {}
    if every:
        kwargs["callbacks"] = [CheckpointCallback(path, every=every)]
    if resume:
        if path.with_suffix(".json").exists():
            kwargs["continue_from"] = path
            err_console.print(f"note: going on from {path}", markup=False)
        else:
            err_console.print(f"note: no checkpoint in {out}; starting afresh", markup=False)
    return kwargs


def _run_noting_warnings(
    acquirer: Any,
    method: str,
    data: tuple[Any, Any, Any, Any, Any],
    executor: str,
    address: str | None,
    resuming: dict[str, Any],
) -> Any:
    """Run the acquirer on (train, pool, validation, test, costs); warnings become notes."""
    from fairacq.acquisition import DaskChunkExecutor, make_chunk_executor

    train_ds, pool_ds, val_ds, test_ds, costs = data
    chunks = make_chunk_executor(executor, address=address)  # type: ignore[arg-type]
    with (
        console.status(f"Acquiring with {method} ..."),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        try:
            trace = acquirer.run(
                train_ds,
                pool_ds,
                validation=val_ds,
                test=test_ds,
                costs=costs,
                executor=chunks,
                **resuming,
            )
        finally:
            if isinstance(chunks, DaskChunkExecutor):
                chunks.close()
    for w in caught:
        err_console.print(f"note: {w.message}", markup=False)
    return trace


def _write_acquisition(
    trace: Any, acquirer: Any, out: Path, method: str, dataset: str, prefix: str, metric: str
) -> list[dict[str, Any]]:
    """Write the order, trace, plot and summary; return the summary rows."""
    from fairacq.reporting import write_run

    report = write_run(
        trace,
        out,
        method=method,
        dataset=dataset,
        metric=f"{prefix}{metric}",
        metrics=[f"{prefix}accuracy"],
        order=acquirer.acquired_,
        experiment=f"acquire-{method}",
        notes=[
            f"Stopped because: {acquirer.stop_reason_}; "
            f"{acquirer.n_evaluations_} batches evaluated."
        ],
    )
    rows: list[dict[str, Any]] = report.rows
    return rows


def _inputs(
    dataset: str,
    sensitive: str | None,
    bias: str,
    seed: int,
    pool: Path | None,
    train: Path | None,
    val: Path | None,
    test: Path | None,
    label: str,
    sensitive_column: str,
    cost_column: str | None,
    chunk_rows: int,
) -> tuple[Any, Any, Any, Any, Any]:
    """(train, pool, validation, test, costs): the user's files, or a named dataset's split."""
    from fairacq.acquisition import read_pool
    from fairacq.data import load_dataset, read_dataset, split_datasift

    if pool is None:
        data = load_dataset(dataset, **({"sensitive": sensitive} if sensitive else {}))
        split = split_datasift(data, bias=bias, random_state=seed)  # type: ignore[arg-type]
        return split.train, split.pool, split.validation, split.test, None
    assert train is not None
    assert val is not None
    columns = {"label": label, "sensitive": sensitive_column}
    train_ds = read_dataset(train, **columns, name="train")
    val_ds = read_dataset(val, **columns, name="validation")
    test_ds = read_dataset(test, **columns, name="test") if test is not None else None
    pool_ds, costs = read_pool(
        pool, like=train_ds, **columns, cost_column=cost_column, chunk_rows=chunk_rows
    )
    return train_ds, pool_ds, val_ds, test_ds, costs
