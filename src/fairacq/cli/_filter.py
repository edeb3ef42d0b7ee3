"""``fairacq filter fit|apply``: learn a non-disclosive proxy, then admit candidates with it.

``fit --data FILE --label COL --sensitive COL[,COL]`` trains the proxy on a raw table (its
string columns one-hot encoded, the encoder saved inside the proxy's JSON); ``--dataset
NAME`` on a bundled dataset. ``apply PROXY CANDIDATES`` admits the candidates' raw rows and
writes them back with their own columns. Both write a summary JSON and the run's trace
(``<out>.trace.parquet`` + ``.json``, read by :meth:`fairacq.Trace.load`) beside ``--out``.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

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
    sensitive_text,
    table_columns,
)
from fairacq.cli.shared._errors import err_console, fail, user_errors

__all__ = ["filter_app"]

filter_app = typer.Typer(
    help="Whom to admit so the admitted set is balanced, without seeing candidates' groups.",
    no_args_is_help=True,
)
console = Console(highlight=False, soft_wrap=True)

#: Proxy names (kept here so that ``--help`` needs no import of the filtering package).
_PROXIES = ("naive-regression", "qp-regression", "naive-tree", "qp-tree", "alpha-beta")

SeedOpt = Annotated[int, typer.Option(help="Seed of the tree proxies and of --model.")]
SummaryOpt = Annotated[
    Path | None,
    typer.Option(
        help="Where to write the run's summary JSON (default: beside --out, named "
        "<out>.summary.json)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as JSON only.")]


def _split_attrs(sensitive: str) -> list[str]:
    """Split ``--sensitive race,sex`` into attribute names (several: intersecting classes)."""
    attrs = [a.strip() for a in sensitive.split(",")]
    if not attrs or any(not a for a in attrs):
        raise fail(
            f"--sensitive must name one attribute or several separated by commas (e.g. "
            f"race,sex). Got {sensitive!r}."
        )
    if len(set(attrs)) != len(attrs):
        raise fail(f"--sensitive repeats an attribute in {sensitive!r}. Name each once.")
    return attrs


def _summary_path(out: Path, summary: Path | None) -> Path:
    """``summary`` or ``<out without its suffixes>.summary.json`` beside ``out``."""
    if summary is not None:
        return summary
    stem = Path(out.stem).stem if out.suffix.lower() == ".gz" else out.stem
    return out.with_name(f"{stem}.summary.json")


@contextlib.contextmanager
def _caught() -> Iterator[list[str]]:
    """Collect the warnings of the block as text (printed and recorded by the caller)."""
    messages: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield messages
    messages.extend(dict.fromkeys(str(w.message).replace("\n", " ") for w in caught))


def _print_warnings(messages: list[str]) -> None:
    for message in messages:
        err_console.print(f"warning: {message}", markup=False)


def _proxy_model(proxy: str, model: str, params: list[str] | None) -> Any:
    """Return the classifier of a naive/QP proxy (None: the proxy's own); refuse it elsewhere."""
    if not model:
        if params:
            raise fail("--model-param needs --model (e.g. --model lr --model-param C=0.1).")
        return None
    if proxy == "alpha-beta":
        raise fail(
            "--model applies to the naive and QP proxies, which train a classifier; the "
            "alpha-beta proxy's splits come from its own split game. Drop --model or pick "
            "--proxy qp-tree (or qp-regression, naive-tree, naive-regression)."
        )
    learner = model_from_options(model, params)
    from fairacq.filtering import check_saveable_model

    with user_errors():
        check_saveable_model(learner)
    return learner


def _dataset_only(**given: Any) -> None:
    """Refuse the table options without ``--data``."""
    named = [name for name, value in given.items() if value]
    if named:
        raise fail(f"--{named[0]} applies to --data only. Pass --data FILE, or drop it.")


@filter_app.command("fit")
def fit_cmd(
    data: DataOpt = None,
    label: LabelOpt = "",
    sensitive_given: SensitiveOpt = None,
    categorical: CategoricalOpt = None,
    drop: DropOpt = None,
    positive: PositiveOpt = None,
    impute: ImputeOpt = False,
    dataset: Annotated[
        str | None,
        typer.Option(help="A bundled labelled sample by name instead of --data (default adult)."),
    ] = None,
    proxy: Annotated[str, typer.Option(help=", ".join(_PROXIES) + ".")] = "alpha-beta",
    alpha: Annotated[
        float | None,
        typer.Option(help="Disclosivity allowed, in [0, 1] (alpha-beta only; default 0.2)."),
    ] = None,
    gamma: Annotated[
        float | None,
        typer.Option(
            help="How much closer to balance each split must bring the admitted set "
            "(alpha-beta only; default 0.1): a smaller value splits further."
        ),
    ] = None,
    model: ModelOpt = "",
    model_param: ModelParamOpt = None,
    seed: SeedOpt = 0,
    out: Annotated[Path, typer.Option(help="Where to write the proxy (JSON).")] = Path(
        "proxy.json"
    ),
    summary: SummaryOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Learn a proxy on a labelled sample and save it as plain JSON (no individual's group).

    With --data the proxy is trained on the table's raw columns (all but --label,
    --sensitive and --drop; text columns one-hot encoded) and the encoder is saved with it,
    so `filter apply` takes candidates' raw columns. --sensitive race,sex balances several
    group columns as intersecting classes. Only the naive and QP
    proxies train a classifier: --model picks it (lr, decision_tree or any linear or tree
    classifier, optionally after a scaler; others cannot be saved as JSON).
    """
    sensitive = sensitive_text(sensitive_given)
    from fairacq._io import check_output_file, write_json
    from fairacq.filtering import run_summary, save_proxy

    alpha, gamma = _alpha_beta_options(proxy, alpha, gamma)
    learner = _proxy_model(proxy, model, model_param)
    if data is not None and dataset is not None:
        raise fail("Pass --data FILE (your table) or --dataset NAME, not both.")
    if data is not None and sensitive:
        _split_attrs(sensitive)  # one clear line for "a,,b" or "a,a"
    if data is not None and not label:
        raise fail("--data needs --label COL naming the outcome column (e.g. --label hired).")
    if data is None:
        _dataset_only(label=label, categorical=categorical, drop=drop, positive=positive,
                      impute=impute)  # fmt: skip
    settings = {"proxy": proxy, "alpha": alpha, "gamma": gamma, "model": learner, "seed": seed}
    summary_path = _summary_path(out, summary)
    with user_errors():
        check_output_file(out, option="--out", inputs={"--data": data})
        check_output_file(summary_path, option="--summary", inputs={"--data": data})
        _distinct_outputs(out, summary_path)
        _check_trace_outputs(out, {"--data": data})
        with _caught() as caught, err_console.status(f"Fitting the {proxy} proxy ..."):
            if data is not None:
                columns = table_columns(label, sensitive, categorical=categorical, drop=drop,
                                        positive=positive, impute=impute)  # fmt: skip
                fitted, report = _fit_table(data, columns, settings)
            else:
                fitted, report = _fit_dataset(dataset or "adult", sensitive or "race", settings)
        save_proxy(fitted, out)
        trace = _save_trace(getattr(fitted, "trace", getattr(fitted, "trace_", None)), out)
    _print_warnings(caught)
    ab = proxy == "alpha-beta"
    config = {"data": None if data is None else str(data), "dataset": dataset, "proxy": proxy,
              "alpha": alpha if ab else None, "gamma": gamma if ab else None,
              "model": report.get("model")}  # fmt: skip
    record = run_summary("filter fit", report, config=config, seed=seed, warnings=caught)
    record.update(out=str(out), summary=str(summary_path), trace=trace)
    with user_errors():
        write_json(summary_path, record)
    _print_fit(record, as_json)


def _fit_table(data: Path, columns: Any, settings: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Fit a proxy on the raw table ``data``; return it and its report."""
    from fairacq.data import read_table
    from fairacq.filtering import fit_table_proxy

    fitted = fit_table_proxy(
        read_table(data),
        columns,
        settings["proxy"],
        alpha=settings["alpha"],
        gamma=settings["gamma"],
        model=settings["model"],
        random_state=settings["seed"],
        name=data.name,
    )
    report = {**fitted.report, "groups": list(fitted.groups)}
    return fitted, {**report, "sensitive": list(columns.sensitive), "columns": columns.to_dict()}


def _fit_dataset(
    dataset: str, sensitive: str, settings: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """Fit a proxy on a bundled dataset; return it and its report."""
    from fairacq.data import load_dataset
    from fairacq.filtering import fit_proxy_report

    attrs = _split_attrs(sensitive)
    frame = load_dataset(dataset, sensitive=attrs[0])
    fitted, report = fit_proxy_report(
        frame,
        settings["proxy"],
        sensitive=attrs,
        alpha=settings["alpha"],
        gamma=settings["gamma"],
        model=settings["model"],
        random_state=settings["seed"],
    )
    return fitted, {**report, "groups": [str(g) for g in fitted.groups_], "sensitive": attrs}


def _print_fit(record: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(record, indent=2))
        return
    console.print(
        f"{record['proxy']}: in-sample alpha {record['alpha']:.3f}, beta {record['beta']:.3f}, "
        f"acceptance {record['acceptance_rate']:.3f}; saved {record['out']}",
        markup=False,
    )
    attrs = record["sensitive"]
    console.print(f"groups ({' x '.join(attrs)}): {', '.join(record['groups'])}", markup=False)
    console.print(f"summary -> {record['summary']}", markup=False)
    if record.get("trace"):
        console.print(f"trace -> {record['trace']} (fairacq.Trace.load reads it)", markup=False)


def _one(positional: Path | None, option: Path | None, name: str, flag: str) -> Path:
    if positional is not None and option is not None:
        raise fail(f"Pass {name} or {flag}, not both.")
    if positional is None and option is None:
        raise fail(f"Missing {name}: pass it as an argument (or with {flag}).")
    return positional or option  # type: ignore[return-value]


def _trace_paths(out: Path) -> tuple[Path, Path]:
    """``<out without its suffixes>.trace.parquet`` and its ``.json`` sidecar, beside ``out``."""
    base = _summary_path(out, None).name.removesuffix(".summary.json") + ".trace"
    return out.with_name(base + ".parquet"), out.with_name(base + ".json")


def _check_trace_outputs(out: Path, inputs: dict[str, Path | None]) -> None:
    """Refuse, before any work, a trace file that would overwrite an input or a folder."""
    from fairacq._io import check_output_file

    for path in _trace_paths(out):
        check_output_file(path, option="--out", inputs=inputs)


def _save_trace(trace: Any, out: Path) -> str | None:
    """Write the run's trace beside ``out``; return the Parquet file's path (None: no trace)."""
    if trace is None:
        return None
    return str(trace.save(_trace_paths(out)[0]))


def _distinct_outputs(out: Path, summary: Path) -> None:
    """Refuse a --summary that names the --out file: one would overwrite the other."""
    if out.resolve() == summary.resolve():
        raise fail(f"--summary {summary} is the --out file; pass two different paths.")


@filter_app.command("apply")
def apply_cmd(
    proxy_file: Annotated[
        Path | None,
        typer.Argument(metavar="PROXY", help="A proxy written by `fairacq filter fit`."),
    ] = None,
    candidates: Annotated[
        Path | None,
        typer.Argument(
            metavar="CANDIDATES",
            help="Candidates (.parquet or .csv): the raw columns the proxy was trained on "
            "(with or without the label and group columns).",
        ),
    ] = None,
    proxy: Annotated[Path | None, typer.Option(help="Same as PROXY.")] = None,
    input: Annotated[Path | None, typer.Option(help="Same as CANDIDATES.")] = None,
    out: Annotated[
        Path, typer.Option(help="Admitted candidates, their own columns (.csv or .parquet).")
    ] = Path("admitted.csv"),
    seed: Annotated[int, typer.Option(help="Seed of the admission draws.")] = 0,
    evaluate: Annotated[
        str | None,
        typer.Option(
            help="Columns of the candidates holding their true groups, comma-separated (one "
            "per group class), for the report only: never used to admit. Default: the "
            "proxy's --sensitive columns when the candidates have them (--data proxies)."
        ),
    ] = None,
    all_rows: Annotated[
        bool, typer.Option("--all", help="Write every candidate with an 'admitted' column.")
    ] = False,
    summary: SummaryOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Admit candidates at random, each with the admission probability the proxy gives it.

    The admitted rows keep every column of CANDIDATES, in order, plus their
    admission_probability; the counts (per group when the groups are known) go to the
    summary JSON.
    """
    from fairacq._io import check_output_file, write_json
    from fairacq.data import TABLE_SUFFIXES, read_table, write_table
    from fairacq.filtering import filter_table, load_proxy, run_summary

    proxy_path = _one(proxy_file, proxy, "PROXY", "--proxy")
    cand_path = _one(candidates, input, "CANDIDATES", "--input")
    summary_path = _summary_path(out, summary)
    columns = None if evaluate is None else [c.strip() for c in evaluate.split(",")]
    with user_errors():
        given = {"PROXY": proxy_path, "CANDIDATES": cand_path}
        check_output_file(out, option="--out", suffixes=tuple(TABLE_SUFFIXES), inputs=given)
        check_output_file(summary_path, option="--summary", inputs=given)
        _distinct_outputs(out, summary_path)
        _check_trace_outputs(out, dict(given))
        fitted = load_proxy(proxy_path)
        frame = read_table(cand_path)
        with _caught() as caught:
            result = filter_table(fitted, frame, random_state=seed, evaluate=columns,
                                  all_rows=all_rows, where=cand_path.name)  # fmt: skip
        write_table(result.rows, out)
        trace = _save_trace(result.trace, out)
    _print_warnings(caught)
    config = {"proxy": str(proxy_path), "candidates": str(cand_path), "method": fitted.method,
              "evaluate": columns, "all_rows": all_rows}  # fmt: skip
    record = run_summary("filter apply", result.summary(), config=config, seed=seed,
                         warnings=caught)  # fmt: skip
    record.update(out=str(out), summary=str(summary_path), trace=trace)
    with user_errors():
        write_json(summary_path, record)
    _print_apply(record, as_json)


def _print_apply(record: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(record, indent=2))
        return
    console.print(
        f"admitted {record['n_admitted']} of {record['n_seen']} candidates -> {record['out']}",
        markup=False,
    )
    for group, counts in (record.get("groups") or {}).items():
        console.print(
            f"  {group}: {counts['admitted']} of {counts['seen']} admitted, share "
            f"{record[f'share_seen_{group}']:.3f} -> {record[f'share_admitted_{group}']:.3f}",
            markup=False,
        )
    if "beta_admitted" in record:
        console.print(f"  beta of the admitted set: {record['beta_admitted']:.3f}")
    console.print(f"summary -> {record['summary']}", markup=False)
    if record.get("trace"):
        console.print(f"trace -> {record['trace']} (fairacq.Trace.load reads it)", markup=False)


def _alpha_beta_options(
    proxy: str, alpha: float | None, gamma: float | None
) -> tuple[float, float]:
    """Return (alpha, gamma); refuse them for a proxy that does not take them."""
    if proxy != "alpha-beta" and (alpha is not None or gamma is not None):
        flag = "--alpha" if alpha is not None else "--gamma"
        raise fail(
            f"{flag} applies to the (alpha, beta)-proxy only; the {proxy} proxy does not "
            "bound disclosivity (its alpha is reported after fitting). Drop "
            f"{flag} or use --proxy alpha-beta."
        )
    alpha = 0.2 if alpha is None else alpha
    if not 0.0 <= alpha <= 1.0:
        raise fail(f"--alpha must be in [0, 1], got {alpha}.")
    return alpha, 0.1 if gamma is None else gamma
