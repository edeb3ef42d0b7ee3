"""``fairacq sample``: how many samples of each group to collect (Shekhar et al.'s samplers)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from fairacq.cli.sample import _sample_report as _report
from fairacq.cli.shared._data_options import (
    CategoricalOpt,
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

if TYPE_CHECKING:
    from fairacq.data import FairDataset

__all__ = ["sample_cmd"]

console = Console(highlight=False)

_DEFAULT_GROUPS = "race_binary,sex"
_NOISE = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)

GroupsOpt = Annotated[
    str | None,
    typer.Option("--groups", help="Deprecated name of --sensitive.", show_default=False),
]
BudgetOpt = Annotated[
    str,
    typer.Option(
        "--budget",
        help="Samples to draw per trial (training plus validation draws): a count (200) or "
        "a percentage of the table (20%).",
    ),
]


def _table(
    dataset: str | None, data: Path | None, group_cols: str | None, **columns: Any
) -> tuple[FairDataset, str]:
    """Return the table to sample from and its name: ``--data`` or ``--dataset``."""
    from fairacq.data import load_dataset

    if data is not None:
        if dataset is not None:
            raise fail("--data and --dataset name two tables; give one of them.")
        if not columns["label"]:
            raise fail("--data needs --label COL naming the outcome column.")
        return read_user_table(data, table_columns(sensitive=group_cols, **columns)).dataset, (
            data.name
        )
    given = [f"--{k}" for k, v in columns.items() if v]
    if given:
        raise fail(f"{', '.join(given)} describe(s) a --data table; pass --data FILE too.")
    attrs = [g.strip() for g in (group_cols or _DEFAULT_GROUPS).split(",") if g.strip()]
    if not attrs:
        raise fail("--sensitive needs at least one group column, e.g. --sensitive race,sex.")
    name = dataset or "adult"
    return load_dataset(name).with_sensitive(*attrs), name


def _method_options(method: str, **options: float | None) -> dict[str, float]:
    """Return the method-specific options given; exit 2 on one ``method`` does not take."""
    from fairacq.sampling import available_samplers, samplers_taking

    given = {name: value for name, value in options.items() if value is not None}
    for name in given:
        takers = samplers_taking(name)
        if method in available_samplers() and method not in takers:
            raise fail(
                f"--{name} applies to {' and '.join(takers)} only; got --method {method}. "
                f"Use --method {takers[0]} or drop the option."
            )
    return given


def _learner(model: str, params: list[str] | None) -> Any:
    """None (the paper's warm-started logistic regression) for plain ``lr``, else the model."""
    if model == "lr" and not params:
        return None
    return model_from_options(model, params)


def _warning_lines(caught: list[warnings.WarningMessage]) -> list[str]:
    """Return each distinct warning's message, third-party deprecation noise left out."""
    seen: dict[str, None] = {}
    for w in caught:
        if not issubclass(w.category, _NOISE):
            seen.setdefault(" ".join(str(w.message).split()), None)
    return list(seen)


class _CountedTrials:
    """Runs a sampler's trials (here, or on a process pool) and counts each one that ends."""

    def __init__(self, pool: Any, done: Callable[[], object]) -> None:
        self.pool = pool
        self.done = done

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """Apply ``fn`` to every item in order; count each finished trial."""
        if self.pool is not None:
            return list(self.pool.map(fn, items, on_done=self.done))
        out = []
        for item in items:
            out.append(fn(item))
            self.done()
        return out


def _allocate(table: FairDataset, method: str, *, workers: int | None, **options: Any) -> Any:
    """Run :func:`fairacq.sampling.allocate_budget` with a bar of the trials on stderr.

    The bar counts the trials of the method and then of the baseline (``2 * trials`` when
    there is one); the trials run in worker processes unless ``workers`` is 1.
    """
    from fairacq.cli.shared._progress import progress
    from fairacq.sampling import allocate_budget

    pool = None  # one worker: trials run here, without loading the experiments package
    if workers != 1:
        from fairacq.parallel import make_executor

        pool = make_executor("local", n_workers=workers)
    runs = 1 if options["baseline"] in (None, method) else 2
    with progress(f"sample ({method})", runs * options["n_trials"], "trials") as bar:
        return allocate_budget(table, method, executor=_CountedTrials(pool, bar), **options)


def _note(table: FairDataset, samples: int, budget: str, validation: str) -> str:
    counted = (
        "its training and paired validation draws"
        if validation == "paired"
        else "its training draws only (--validation cross: no validation draws)"
    )
    return (
        f"Groups: {' x '.join(table.sensitive_attrs)}; {samples} samples per trial (--budget "
        f"{budget}), a group's samples counting {counted}."
    )


def _figure_title(name: str, table: FairDataset, method: str, *, baseline: bool) -> str:
    beside = " beside Uniform" if baseline else ""
    return f"{name}: {method}{beside}, groups {' x '.join(table.sensitive_attrs)}"


def _print(rows: list[dict[str, str]], title: str, lines: list[str], out: Path) -> None:
    table = Table(title=title, title_justify="left")
    for col in rows[0] if rows else []:
        table.add_column(col, justify="left" if col == "group" else "right")
    for row in rows:
        table.add_row(*row.values())
    console.print(table)
    for line in lines:
        console.print(line, markup=False)
    console.print(f"Wrote {out}/counts.csv, summary.md, summary.json, sampling.png and traces.")


def sample_cmd(
    dataset: Annotated[
        str | None,
        typer.Option(help="A named dataset (fairacq datasets list); default adult."),
    ] = None,
    data: DataOpt = None,
    label: LabelOpt = "",
    sensitive_given: SensitiveOpt = None,
    groups: GroupsOpt = None,
    categorical: CategoricalOpt = None,
    drop: DropOpt = None,
    positive: PositiveOpt = None,
    impute: ImputeOpt = False,
    model: ModelOpt = "lr",
    model_param: ModelParamOpt = None,
    method: Annotated[
        str,
        typer.Option(
            help="aopt, aopt-plus, epsilon-greedy, greedy, uniform, uncurated; published peers: "
            "slice-tuner, minimax-fair, abernethy-greedy."
        ),
    ] = "aopt",
    budget: BudgetOpt = "2000",
    c0: Annotated[
        float | None,
        typer.Option(
            help="aopt and aopt-plus only: the exploration constant, how much they favour "
            "groups drawn less (default 0.1)."
        ),
    ] = None,
    epsilon: Annotated[
        float | None,
        typer.Option(
            help="epsilon-greedy only: the share of rounds that draw a random group (default 0.1)."
        ),
    ] = None,
    validation: Annotated[
        str,
        typer.Option(
            help="paired: pay for one validation draw per training draw, on which each "
            "group's loss is measured (as published); cross: pay for none, every sample trains, "
            "and the loss is measured by held-out predictions on the training rows."
        ),
    ] = "paired",
    trials: Annotated[
        int,
        typer.Option(
            help="Independent trials (each its own split). The default, 20, is what it takes "
            "to tell a gain of about one accuracy point over Uniform from noise."
        ),
    ] = 20,
    seed: Annotated[int, typer.Option(help="Root seed.")] = 0,
    test_size: Annotated[float, typer.Option(help="Held-out test fraction.")] = 0.3,
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    no_baseline: Annotated[
        bool, typer.Option("--no-baseline", help="Do not run Uniform beside the method.")
    ] = False,
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("sampling"),
    overwrite: OverwriteOpt = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON (only that on stdout).")
    ] = False,
) -> None:
    """How many samples of each group to collect so the worst group is served best.

    Runs the sampler (default aopt) in independent trials on --data (your table;
    rows drawn without replacement, per group, after a test split) or --dataset, and Uniform
    beside it on the same seeds. Prints and writes (counts.csv, summary.json) one recommended
    count per group (the median over trials, with the range of the middle 80 % of trials) and
    whether the sampler beats Uniform's worst-group test accuracy beyond the trials' spread
    (a 95 % interval, paired by trial); follow the counts only when it does.
    --model lr (the default) is the paper's learner, logistic regression refitted each round
    (warm-started); any other --model or a --model-param is refitted, as a fresh clone, on
    every sample drawn so far each round.
    """
    sensitive = sensitive_text(sensitive_given)
    from fairacq._run_folder import run_folder
    from fairacq.cli.shared._out_folder import check_out_folder

    if sensitive and groups:
        raise fail("--groups is the old name of --sensitive; give only --sensitive.")
    if validation not in ("paired", "cross"):
        raise fail(f"--validation must be paired or cross, got {validation!r}.")
    given = _method_options(method, c0=c0, epsilon=epsilon)
    with stop_on_signals(), user_errors(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_out_folder(out, {"--data": data}, overwrite=overwrite)
        if groups:
            err_console.print("note: --groups is deprecated; use --sensitive.", markup=False)
        table, name = _table(
            dataset,
            data,
            sensitive or groups,
            label=label,
            categorical=categorical,
            drop=drop,
            positive=positive,
            impute=impute,
        )
        result = _allocate(
            table,
            method,
            budget=budget,
            n_trials=trials,
            random_state=seed,
            test_size=test_size,
            learner=_learner(model, model_param),
            baseline=None if no_baseline else "uniform",
            workers=workers,
            **given,
            validation=None if validation == "paired" else validation,
        )
        lines = _warning_lines(caught)
        found = _report.result_lines(result, validation)
        settings = {"data": name, "method": method, "budget": budget, "seed": seed}
        settings["validation"] = validation
        settings |= {"model": model, "model_param": model_param}
        with run_folder(out) as building:  # swapped in whole when written
            summary = _report.write_report(
                result,
                building,
                dataset=name,
                notes=[*found, _note(table, result.budget, budget, validation)],
                warnings=lines,
                settings={**settings, "groups": list(table.sensitive_attrs), "trials": trials},
                title=_figure_title(name, table, method, baseline=not no_baseline),
            )
    for text in lines:
        err_console.print(f"warning: {text}", markup=False)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        _print(_report.people_table(result), _report.table_title(result, validation), found, out)
