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
    """Convert a fraction in (0, 1] of ``total``, or an absolute count > 1, to a count."""
    if value <= 0:
        raise fail(f"--{what} must be positive (a fraction <= 1 or a count), got {value}.")
    return max(1, round(value * total)) if value <= 1 else int(value)


def _read_split(path: Path, label: str, sensitive: str, name: str) -> Any:
    """Read a user's split file into a FairDataset (every other column is a feature)."""
    return _frame_split(_read_frame(path), label, sensitive, name)


def _read_frame(path: Path) -> Any:
    import pandas as pd

    from fairacq.exceptions import CorruptFileError

    try:
        return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    except FileNotFoundError:
        raise
    except Exception as exc:  # pandas/pyarrow raise many types for unreadable files
        raise CorruptFileError(f"Cannot read {path} ({type(exc).__name__}: {exc}).") from exc


def _frame_split(frame: Any, label: str, sensitive: str, name: str) -> Any:
    from fairacq.data import FairDataset
    from fairacq.exceptions import InvalidDataError

    for col in (label, sensitive):
        if col not in frame.columns:
            raise InvalidDataError(
                f"{name}: no column {col!r}. Pass --label/--sensitive-column "
                "naming the label and group columns."
            )
    features = frame.drop(columns=[label, sensitive])
    return FairDataset(features, frame[label].to_numpy(), frame[[sensitive]], name=name)


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
    import numpy as np

    from fairacq._io import atomic_write
    from fairacq.acquisition import (
        DaskChunkExecutor,
        ParquetPool,
        make_acquirer,
        make_chunk_executor,
    )
    from fairacq.data import load_dataset, split_datasift
    from fairacq.reporting import new_figure, plot_traces, save_figure, write_summary

    if accuracy_weight and method != "datasift-inf":
        raise fail(
            f"--accuracy-weight ranks rows by predicted influence, which only datasift-inf "
            f"computes; got --method {method}. Use --method datasift-inf or drop the option."
        )
    with user_errors():
        costs = None
        if executor not in ("serial", "dask"):
            raise fail(f"--executor must be serial or dask, got {executor!r}.")
        if chunk_rows < 1:
            raise fail(f"--chunk-rows must be a positive number of rows, got {chunk_rows}.")
        chunks = make_chunk_executor("dask" if executor == "dask" else "serial", address=address)
        pool_ds: Any
        if pool is not None:
            if train is None or val is None:
                raise fail("--pool needs --train and --val (and optionally --test).")
            train_ds = _read_split(train, label, sensitive_column, "train")
            val_ds = _read_split(val, label, sensitive_column, "validation")
            test_ds = _read_split(test, label, sensitive_column, "test") if test else None
            if pool.suffix == ".parquet":
                pool_ds = ParquetPool(
                    pool,
                    like=train_ds,
                    label=label,
                    sensitive=sensitive_column,
                    cost_column=cost_column,
                    chunk_rows=chunk_rows,
                    name="pool",
                )
                costs = pool_ds.costs
            else:
                pool_frame = _read_frame(pool)
                if cost_column is not None:
                    if cost_column not in pool_frame.columns:
                        raise fail(f"The pool has no cost column {cost_column!r}.")
                    costs = pool_frame.pop(cost_column).to_numpy(dtype=float)
                pool_ds = _frame_split(pool_frame, label, sensitive_column, "pool")
        else:
            data = load_dataset(dataset, **({"sensitive": sensitive} if sensitive else {}))
            split = split_datasift(data, bias=bias, random_state=seed)  # type: ignore[arg-type]
            train_ds, pool_ds = split.train, split.pool
            val_ds, test_ds = split.validation, split.test
        total = float(np.sum(costs)) if costs is not None else float(len(pool_ds))
        n_budget = _size(budget, total, "budget")
        n_batch = _size(batch, n_budget, "batch")
        acquirer = make_acquirer(
            method,
            budget=n_budget,
            batch_size=n_batch,
            learner=model,
            metric=resolve_metric(metric),
            tau=tau,
            alpha=alpha,
            accuracy_weight=accuracy_weight,
            refit=refit,
            random_state=seed,
        )
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
                )
            finally:
                if isinstance(chunks, DaskChunkExecutor):
                    chunks.close()
        for w in caught:
            err_console.print(f"note: {w.message}", markup=False)
        out.mkdir(parents=True, exist_ok=True)
        trace.save(out / "trace")
        with atomic_write(out / "acquisition_order.csv") as f:
            f.write("order,pool_row\n")
            f.writelines(f"{i},{row}\n" for i, row in enumerate(acquirer.acquired_.tolist()))
        split_name = "test" if test_ds is not None else "val"
        fair_col = f"{split_name}_{resolve_metric(metric)}"
        fig = new_figure(7.0, 4.2)
        plot_traces({method: [trace]}, fair_col, ax=fig.subplots(), xlabel="cost acquired")
        save_figure(fig, out / "fairness.png")
        frame = trace.to_frame()
        rows = [
            {
                "dataset": train_ds.name,
                "method": method,
                "metric": col,
                "stage": stage,
                "value": float(frame[col].iloc[pos]),
                "paper_value": None,
            }
            for col in (fair_col, f"{split_name}_accuracy")
            for stage, pos in (("initial", 0), ("final", -1))
        ]
        rows.append(
            {
                "dataset": train_ds.name,
                "method": method,
                "metric": "cost",
                "stage": "final",
                "value": float(frame["cost"].iloc[-1]),
                "paper_value": None,
            }
        )
        write_summary(
            out,
            experiment=f"acquire-{method}",
            preset="custom",
            rows=rows,
            figures=["fairness.png"],
            notes=[
                f"Stopped because: {acquirer.stop_reason_}; "
                f"{acquirer.n_evaluations_} batches evaluated."
            ],
        )
    if as_json:
        typer.echo(json.dumps({"rows": rows, "stop_reason": acquirer.stop_reason_}, indent=2))
    else:
        for r in rows:
            console.print(f"{r['stage']:>7} {r['metric']}: {r['value']:.4f}")
        console.print(f"Wrote {out}/acquisition_order.csv, trace, fairness.png and summary.md")
