"""``fairacq features train|acquire``: which features to ask each person for (DADI, Bakker et al.).

``train`` reads your table (``--data FILE --label COL --sensitive COL[,COL]``; raw string
columns are one-hot encoded, each raw column is one thing the agent may ask for) or a bundled
``--dataset``, splits it as DADI does (87.5/12.5 train-val/test, then 80/20; the encoder is
fitted on the training rows), trains the agent, reports its test AUC and disparity (and any
``--metric``) and saves it with its encoder (``encoder.json``, ``columns.json``, both in the
folder's checksum manifest) and ``summary.json``. Results that are not what they seem (a
classifier predicting one class, exploration not decayed) are printed as ``warning: ...``
lines and listed under ``warnings`` in ``summary.json``.

``acquire MODEL PEOPLE`` reads people with the raw columns you trained on (a group column
may also be named ``sensitive:COL``; the model's encoded columns work too), and writes per
person, after their id (``--id COL``, or the row number) and all their columns, the raw
features to ask for in order (``revealed``), their number, and the classifier's probability
and decision on them (``proba``, ``prediction``, 1 = the favourable label).
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from fairacq.cli.shared._data_options import (
    CategoricalOpt,
    DataOpt,
    DropOpt,
    ImputeOpt,
    LabelOpt,
    PositiveOpt,
    SensitiveOpt,
    sensitive_text,
    table_columns,
)
from fairacq.cli.shared._errors import err_console, fail, user_errors
from fairacq.cli.shared._out_folder import OverwriteOpt, check_out_folder

if TYPE_CHECKING:
    from fairacq.data import TableColumns

__all__ = ["features_app"]

features_app = typer.Typer(
    help="Which features to ask each person for, so that what is asked stays fair (DADI).",
    no_args_is_help=True,
)
console = Console(highlight=False)

#: Iterations and sizes of the presets; ``full`` is Appendix B of Bakker et al.
_PRESETS: dict[str, dict[str, int]] = {
    # quick: exploration decays over 100 of the 150 joint iterations, so the policy is used.
    # A smoke test (QUICK_NOTE): see docs/paper-notes/features.md for what was measured.
    "quick": {
        "n_pretrain_iter": 150,
        "n_train_iter": 150,
        "epsilon_decay_iter": 100,
        "batch_size": 32,
        "n_parallel": 16,
    },
    "full": {
        "n_pretrain_iter": 10_000,
        "n_train_iter": 10_000,
        "batch_size": 64,
        "n_parallel": 64,
    },
}
#: Fewer people than this are too few to warn that every decision is the same.
_MIN_PEOPLE = 20
#: What ``--preset quick`` is, said on the terminal and kept in ``summary.json``.
QUICK_NOTE = (
    "--preset quick trains for about a minute: a smoke test that the pipeline runs on your "
    "table, not a model to act on (on large tables such as Adult its classifier can still "
    "predict one class for everyone). Use --preset full, the paper's training, for that."
)
_TABLE_ONLY = "--label, --categorical, --drop, --positive and --impute"

DatasetOpt = Annotated[
    str | None,
    typer.Option(
        "--dataset",
        help="A bundled dataset (fairacq datasets list) instead of --data; adult if neither.",
    ),
]
GammaOpt = Annotated[
    float,
    typer.Option(
        help="How much fairness weighs against accuracy in the agent's reward, in [0, 1]."
    ),
]
RewardOpt = Annotated[
    str,
    typer.Option(
        help="How the reward measures what the answers reveal about the group: gnl1 (an "
        "adversary's error, normalised per group) or ce (its cross-entropy)."
    ),
]
ModelOutOpt = Annotated[
    Path,
    typer.Option("--out", help="Folder to save the agent, its encoder and summary.json in."),
]
PresetOpt = Annotated[
    str,
    typer.Option(
        help="quick (about a minute: a smoke test of the pipeline) or full (the "
        "published training settings)."
    ),
]
SeedOpt = Annotated[int, typer.Option(help="Seed of the split and of training.")]
MaxRowsOpt = Annotated[
    int | None, typer.Option(help="Train on a random subsample of this many rows.")
]
PretrainOpt = Annotated[
    int | None, typer.Option(help="Pre-training iterations (overrides the preset).")
]
TrainIterOpt = Annotated[
    int | None, typer.Option(help="Joint-training iterations (overrides the preset).")
]
SetElementsOpt = Annotated[
    str,
    typer.Option(
        help="What the set encoder reads: columns (every observed column, the paper) or "
        "hot (one element per observed one-hot group; lossless, faster on wide data).",
    ),
]
IncludeSensitiveOpt = Annotated[
    bool,
    typer.Option(
        "--include-sensitive/--exclude-sensitive",
        help="Offer the group column(s) themselves as features the agent may ask for (the "
        "paper does; people files then need them).",
    ),
]
MetricOpt = Annotated[
    list[str] | None,
    typer.Option(
        help="Also report this fairness metric of the test decisions: dp, eo, eopp, or any "
        "name the `fairacq metrics` command lists; repeat for several.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]


@features_app.command("train")
def train_cmd(
    data: DataOpt = None,
    dataset: DatasetOpt = None,
    label: LabelOpt = "",
    sensitive_given: SensitiveOpt = None,
    categorical: CategoricalOpt = None,
    drop: DropOpt = None,
    positive: PositiveOpt = None,
    impute: ImputeOpt = False,
    gamma: GammaOpt = 0.5,
    reward: RewardOpt = "gnl1",
    out: ModelOutOpt = Path("model"),
    preset: PresetOpt = "quick",
    seed: SeedOpt = 0,
    max_rows: MaxRowsOpt = None,
    pretrain_iter: PretrainOpt = None,
    train_iter: TrainIterOpt = None,
    set_elements: SetElementsOpt = "columns",
    include_sensitive: IncludeSensitiveOpt = True,
    metric: MetricOpt = None,
    as_json: JsonOpt = False,
    overwrite: OverwriteOpt = False,
) -> None:
    """Train a DADI agent on your table (--data) or a dataset; save it with its encoder.

    The folder is built beside --out and swapped in when training ends, so a stopped run
    leaves an earlier model there as it was (replacing one needs --overwrite).
    """
    sensitive = sensitive_text(sensitive_given)
    _check_train_options(preset, gamma, set_elements, max_rows, pretrain_iter, train_iter)
    options = (label, categorical, drop, positive, impute)
    columns = _train_columns(data, dataset, sensitive, options)
    from fairacq._io import write_json
    from fairacq._run_folder import run_folder
    from fairacq.cli.acquire._acquire import resolve_metric
    from fairacq.parallel import single_thread

    single_thread()
    params: dict[str, Any] = {
        "gamma": gamma,
        "reward": reward,
        "set_elements": set_elements,
        **_PRESETS[preset],
    }
    if pretrain_iter is not None:
        params["n_pretrain_iter"] = pretrain_iter
    if train_iter is not None:
        params["n_train_iter"] = train_iter
    with user_errors():
        check_out_folder(out, {"--data": data}, overwrite=overwrite)
        with _recorded_warnings() as caught:
            source, extra = _training_data(data, dataset, sensitive, columns, include_sensitive)
            run = _train(source, extra, seed, max_rows, metric, resolve_metric, params)
    lines = _warning_lines(caught)
    settings = {
        **({"data": str(data)} if data is not None else {"dataset": dataset or "adult"}),
        **({"columns": columns.to_dict()} if columns is not None else {}),
        "sensitive": sensitive or "sex" if columns is None else list(columns.sensitive),
        "include_sensitive": include_sensitive,
        **{k: params[k] for k in ("gamma", "reward", "set_elements")},
        "preset": preset,
        "seed": seed,
    }
    note = {"preset_note": QUICK_NOTE} if preset == "quick" else {}
    summary = {**settings, **note, **run.summary(), "warnings": lines, "out": str(out)}
    with user_errors(), run_folder(out) as building:  # swapped in whole when written
        run.model.save(building)
        write_json(building / "summary.json", summary)
    if note:
        err_console.print(f"note: {QUICK_NOTE}", markup=False)
    _print_warnings(lines)
    _print_training(summary, as_json=as_json)


def _train(
    source: Any,
    extra: dict[str, Any],
    seed: int,
    max_rows: int | None,
    metric: list[str] | None,
    resolve: Any,
    params: dict[str, Any],
) -> Any:
    """Run :func:`fairacq.features.train_dadi` with a bar of its iterations on stderr.

    The bar counts pre-training (classifier, then adversary) and joint training together,
    as the trace's ``cost`` does: ``2 * n_pretrain_iter + n_train_iter`` iterations.
    """
    from fairacq.cli.shared._progress import progress, run_callback
    from fairacq.features import train_dadi

    total = 2 * params["n_pretrain_iter"] + params["n_train_iter"]
    with progress("DADI", total, "iterations") as bar:
        return train_dadi(
            source,
            random_state=seed,
            max_rows=max_rows,
            metrics=[resolve(m) for m in metric or []],
            callbacks=[run_callback(bar, column="cost")],
            **extra,
            **params,
        )


def _train_columns(
    data: Path | None, dataset: str | None, sensitive: str | None, options: tuple[Any, ...]
) -> TableColumns | None:
    """Return the roles of a --data table's columns (None for a --dataset); exit 2 on misuse."""
    label, categorical, drop, positive, impute = options
    if data is None:
        if label or categorical or drop or positive or impute:
            raise fail(f"{_TABLE_ONLY} describe a --data table; a --dataset has its own columns.")
        return None
    if dataset is not None:
        raise fail("Pass either --data FILE (your table) or --dataset NAME, not both.")
    if not label:
        raise fail("--data needs --label COL naming the outcome column (e.g. --label hired).")
    return table_columns(
        label, sensitive, categorical=categorical, drop=drop, positive=positive, impute=impute
    )


def _training_data(
    data: Path | None,
    dataset: str | None,
    sensitive: str | None,
    columns: TableColumns | None,
    include_sensitive: bool,
) -> tuple[Any, dict[str, Any]]:
    """Return what ``train_dadi`` trains on (a raw table or a dataset) and its arguments."""
    if data is not None and columns is not None:
        from fairacq.data import read_table

        extra = {"columns": columns, "include_sensitive": include_sensitive, "source": data.name}
        return read_table(data), extra
    from fairacq.data import load_dataset

    return load_dataset(
        dataset or "adult",
        sensitive=sensitive or "sex",
        include_sensitive_features=include_sensitive,
    ), {}


def _check_train_options(
    preset: str,
    gamma: float,
    set_elements: str,
    max_rows: int | None,
    pretrain_iter: int | None,
    train_iter: int | None,
) -> None:
    """Exit with code 2 on an option of ``train`` out of range."""
    if preset not in _PRESETS:
        raise fail(f"--preset must be 'quick' or 'full', got {preset!r}.")
    if not 0.0 <= gamma <= 1.0:
        raise fail(f"--gamma must be in [0, 1], got {gamma}.")
    from fairacq.features.dadi._actions import SET_ELEMENTS

    if set_elements not in SET_ELEMENTS:
        raise fail(f"--set-elements must be 'columns' or 'hot', got {set_elements!r}.")
    for flag, value, least in (
        ("--max-rows", max_rows, 1),
        ("--pretrain-iter", pretrain_iter, 0),
        ("--train-iter", train_iter, 0),
    ):
        if value is not None and value < least:
            raise fail(f"{flag} must be an int >= {least}, got {value}.")


def _print_training(summary: dict[str, Any], *, as_json: bool) -> None:
    """Print the test AUC, disparity and fairness metrics of a trained agent."""
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    console.print(
        f"DADI gamma {summary['gamma']} ({summary['reward']}): test AUC "
        f"{summary['test_auc']:.3f}, disparity {summary['test_disparity']:.3f}, "
        f"{100 * summary['test_share_of_columns_revealed']:.0f}% of columns revealed; saved "
        f"{summary['out']}"
    )
    for key, score in summary.items():
        if key.startswith("test_") and key not in {
            "test_auc",
            "test_disparity",
            "test_share_of_columns_revealed",
            "test_policy",
        }:
            console.print(f"  {key.removeprefix('test_')}: {score:.4f}")
    policy = summary.get("test_policy")
    if policy:
        from fairacq.features import PolicyVariety

        variety = PolicyVariety(
            policy["n_people"],
            policy["n_feature_sets"],
            tuple(policy["commonest_set"]),
            policy["commonest_share"],
            policy["set_shares"],
        )
        console.print(f"  on the {policy['n_people']} test rows: {variety.sentence()}")


# -- warnings ------------------------------------------------------------------------------
@contextlib.contextmanager
def _recorded_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning of the block (printed afterwards as ``warning: ...`` lines)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def _warning_lines(caught: list[warnings.WarningMessage]) -> list[str]:
    """Return the distinct messages of the user-facing warnings (UserWarning and its kin)."""
    lines: list[str] = []
    for w in caught:
        text = " ".join(str(w.message).split())
        if issubclass(w.category, UserWarning) and text not in lines:
            lines.append(text)
    return lines


def _print_warnings(lines: list[str]) -> None:
    for line in lines:
        err_console.print(f"warning: {line}", markup=False)


# -- acquire -------------------------------------------------------------------------------
ModelArg = Annotated[
    Path | None,
    typer.Argument(
        metavar="MODEL", help="A folder written by `fairacq features train`.", show_default=False
    ),
]
PeopleArg = Annotated[
    Path | None,
    typer.Argument(
        metavar="PEOPLE",
        help="People (.csv or .parquet) with the raw feature columns you trained on.",
        show_default=False,
    ),
]


@features_app.command("acquire")
def acquire_cmd(
    model: ModelArg = None,
    people: PeopleArg = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Per-person table to write (.csv or .parquet); or use --json."),
    ] = None,
    id_column: Annotated[
        str | None,
        typer.Option("--id", help="Column identifying each person (default: the row number)."),
    ] = None,
    blank_unrevealed: Annotated[
        bool,
        typer.Option(
            "--blank-unrevealed", help="Blank the feature values the agent does not ask for."
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary and every person as JSON.")
    ] = False,
    model_option: Annotated[
        Path | None, typer.Option("--model", help="Deprecated: give MODEL as an argument.")
    ] = None,
    input_option: Annotated[
        Path | None, typer.Option("--input", help="Deprecated: give PEOPLE as an argument.")
    ] = None,
) -> None:
    """Say, for each person, which raw features to ask for (in order), and predict from them."""
    model_dir, people_path = _acquire_paths(model, people, model_option, input_option)
    if out is None and not as_json:
        raise fail("Pass --out FILE (.csv or .parquet) for the per-person table, or --json.")
    from fairacq._io import check_output_file
    from fairacq.data import TABLE_SUFFIXES, read_table, write_table
    from fairacq.features import DadiModel, reveal_table
    from fairacq.parallel import single_thread

    single_thread()
    with user_errors():
        if out is not None:
            given = {"MODEL": model_dir, "PEOPLE": people_path}
            check_output_file(out, option="--out", suffixes=tuple(TABLE_SUFFIXES), inputs=given)
        if not model_dir.is_dir():
            raise FileNotFoundError(
                f"Model folder {model_dir} does not exist. Pass a folder written by "
                "`fairacq features train`."
            )
        with _recorded_warnings() as caught:
            loaded = DadiModel.load(model_dir)
            revealed = reveal_table(
                loaded,
                read_table(people_path),
                source=people_path.name,
                id_column=id_column,
                blank_unrevealed=blank_unrevealed,
            )
            variety = _warn_policy(revealed, people_path.name)
        if out is not None:
            write_table(revealed, out, index=False)
    lines = _warning_lines(caught)
    _print_warnings(lines)
    summary = {**_acquire_summary(loaded, revealed, lines, out), "policy": variety.to_dict()}
    if as_json:
        summary["people"] = _people_records(revealed)
        typer.echo(json.dumps(summary, indent=2, default=str))
        return
    console.print(
        f"{len(revealed)} people: ask for {summary['mean_features_asked']:.1f} of "
        f"{summary['n_features']} features on average ({summary['input']} columns) -> {out}"
    )
    console.print(f"  {variety.sentence()}", markup=False)


def _warn_policy(revealed: Any, source: str) -> Any:
    """Warn when the policy collapsed or every decision is one class; return its variety."""
    from fairacq.exceptions import ResultWarning
    from fairacq.features import policy_variety, policy_warnings
    from fairacq.models import one_class_problem

    asked = [[f for f in str(order).split(",") if f] for order in revealed["revealed"]]
    variety = policy_variety(asked)
    where = f"people in {source}"
    problems = policy_warnings(variety, where=where)
    one_class = (
        one_class_problem(revealed["prediction"].to_numpy(), where=where)
        if len(revealed) >= _MIN_PEOPLE
        else None
    )
    for message in [*problems, *([one_class] if one_class else [])]:
        warnings.warn(message, ResultWarning, stacklevel=2)
    return variety


def _acquire_paths(
    model: Path | None, people: Path | None, model_option: Path | None, input_option: Path | None
) -> tuple[Path, Path]:
    """MODEL and PEOPLE, from the arguments or the deprecated --model/--input."""
    if model_option is not None or input_option is not None:
        err_console.print(
            "note: --model/--input are deprecated; write `fairacq features acquire MODEL PEOPLE`.",
            markup=False,
        )
        positional = [p for p in (model, people) if p is not None]
        slots = [model_option, input_option]
        for i, value in enumerate(slots):
            if value is None and positional:
                slots[i] = positional.pop(0)
        if positional:
            raise fail("Give MODEL and PEOPLE as arguments or with --model/--input, not both.")
        model, people = slots
    if model is None or people is None:
        raise fail(
            "Name the model folder and the people file: fairacq features acquire MODEL PEOPLE."
        )
    return model, people


def _acquire_summary(
    model: Any, revealed: Any, lines: list[str], out: Path | None
) -> dict[str, Any]:
    """Return what ``acquire`` reports: counts, input form, unknown categories, warnings."""
    unknown = getattr(model.encoder, "unknown_counts_", None)
    n_features = len(model.agent.feature_groups_)
    mean_asked = float(revealed["n_revealed"].mean()) if len(revealed) else 0.0
    return {
        "n_people": len(revealed),
        "input": "raw" if unknown is not None else "encoded",
        "n_features": n_features,
        "mean_features_asked": mean_asked,
        "share_of_features_asked": mean_asked / n_features if n_features else 0.0,
        "unknown_categories": {c: n for c, n in (unknown or {}).items() if n},
        "warnings": lines,
        "out": None if out is None else str(out),
    }


def _people_records(revealed: Any) -> list[dict[str, Any]]:
    """One JSON record per person: id, the features to ask for, the probability and decision."""
    id_name = str(revealed.columns[0])
    return [
        {
            id_name: ident,
            "revealed": [g for g in str(order).split(",") if g],
            "proba": float(proba),
            "prediction": int(pred),
        }
        for ident, order, proba, pred in zip(
            revealed[id_name].tolist(),
            revealed["revealed"],
            revealed["proba"],
            revealed["prediction"],
            strict=True,
        )
    ]
