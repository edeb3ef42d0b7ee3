"""``fairacq relational infer|learn|example``: fair MAP inference, Fair-A3SL, the example."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from fairacq.cli.shared._errors import err_console, fail, user_errors
from fairacq.cli.shared._out_folder import OverwriteOpt, check_out_folder

__all__ = ["relational_app"]

relational_app = typer.Typer(
    help="Relational models written as PSL rules: fair inference, and learning fair rules.",
    no_args_is_help=True,
)
console = Console(highlight=False)

_DATASETS = ("paper-review", "compas", "movielens")
_OPTION = re.compile(r"^\s*([A-Za-z_]+)\s*=\s*(\S+)\s*$")
_T = TypeVar("_T")


def _parse_fair(text: str | None) -> tuple[list[str], dict[str, str]]:
    """Split ``"rd<=0.1 rr<=0.05 protected=pred target=pred"`` into specs and options."""
    if text is None:
        return [], {}
    specs: list[str] = []
    options: dict[str, str] = {}
    for token in text.replace(",", " ").split():
        match = _OPTION.match(token)
        if match is not None and "<" not in token:
            key = match.group(1).lower()
            if key in options:
                raise fail(f"--fair: {key}= is given twice ({text!r}). Give each option once.")
            options[key] = match.group(2)
        else:
            specs.append(token)
    unknown = sorted(set(options) - {"protected", "target"})
    if unknown:
        raise fail(
            f"--fair: unknown option {unknown[0]!r}. Write e.g. "
            "'rd<=0.1 protected=protectedPaper target=positiveSummary'."
        )
    return specs, options


def _named(option: str, call: Callable[[], _T]) -> _T:
    """Run ``call``; a fairacq error exits 2 with one line that starts with ``option``."""
    from fairacq.exceptions import FairacqError

    try:
        return call()
    except FairacqError as exc:
        raise fail(f"{option}: {exc}".replace("\n", " ")) from None


@contextmanager
def _quiet_warnings() -> Iterator[None]:
    """Silence Python's copies of the relational warnings (printed from the result)."""
    from fairacq.relational import FairA3SLWarning, MetricsWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairA3SLWarning)
        warnings.simplefilter("ignore", MetricsWarning)
        yield


def _print_warnings(lines: list[str]) -> None:
    for line in lines:
        err_console.print(f"warning: {line}", markup=False)


@relational_app.command("infer")
def infer_cmd(
    rules: Annotated[Path, typer.Option(help="PSL rules, one per line (a .psl text file).")],
    data: Annotated[
        Path,
        typer.Option(
            help="PSL data folder: <pred>_obs.txt, <pred>_targets.txt, <pred>_truth.txt "
            "(tab-separated: the arguments, then an optional truth value in [0, 1]). "
            "`fairacq relational example` writes one."
        ),
    ],
    out: Annotated[Path, typer.Option(help="Output folder (atoms, summary.json, model.psl).")],
    fair: Annotated[
        str | None,
        typer.Option(
            help="Constraints and groups, e.g. 'rd<=0.1 protected=protectedPaper "
            "target=positiveSummary' (protected: an observed predicate over the target's "
            "atoms; target: the constrained target predicate, default the first). Groups "
            "alone give the metrics without a constraint."
        ),
    ] = None,
    train: Annotated[
        Path | None,
        typer.Option(help="Learn the rule weights on this data folder (truth needed)."),
    ] = None,
    learn: Annotated[
        bool, typer.Option("--learn/--no-learn", help="Learn the weights on --data itself.")
    ] = False,
    task: Annotated[
        str,
        typer.Option(
            help="classification (truth read as labels, above 0.5 positive) or rating "
            "(graded truth: MSE and non-parity)."
        ),
    ] = "classification",
    fmt: Annotated[str, typer.Option("--format", help="parquet or csv.")] = "parquet",
    seed: Annotated[int, typer.Option(help="Seed of weight learning.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    overwrite: OverwriteOpt = False,
) -> None:
    """Infer the target atoms of --data under --rules (fair MAP) and write them with metrics."""
    specs, groups = _infer_options(fmt, task, fair)
    from fairacq._run_folder import run_folder
    from fairacq.relational import (
        can_evaluate,
        read_psl_data,
        read_rules,
        rule_arities,
        run_pipeline,
        write_inference,
    )

    with user_errors(), _quiet_warnings():
        given = {"--rules": rules, "--data": data, "--train": train}
        check_out_folder(out, given, overwrite=overwrite)
        parsed = _named("--rules", lambda: read_rules(rules))
        arities = _named("--rules", lambda: rule_arities(parsed))
        kw: dict[str, Any] = {**groups, "arities": arities, "task": task}
        test = _named("--data", lambda: read_psl_data(data, **kw))
        train_data = (
            None if train is None else _named("--train", lambda: read_psl_data(train, **kw))
        )
        result = run_pipeline(
            parsed,
            test if learn and train is None else train_data,
            test,
            fairness=specs,
            evaluate=can_evaluate(test),
            random_state=seed,
        )
        with run_folder(out) as building:  # swapped in whole when written
            summary = write_inference(result, building, fmt=fmt, final=out)  # type: ignore[arg-type]
    _print_warnings(summary["warnings"])
    if as_json:
        typer.echo(json.dumps(summary, indent=2, default=str))
        return
    shown = ", ".join(
        f"{k} {v:.4f}" for k, v in summary["metrics"].items() if k in _SHOWN and v is not None
    )
    if not summary["metrics"]:
        shown = "no metrics (add --fair 'protected=<group predicate>' and truth for them)"
    console.print(
        f"inferred {len(result.predictions)} atoms ({summary['map']['n_iter']} ADMM "
        f"iterations); {shown} -> {out}",
        soft_wrap=True,
    )


_SHOWN = ("auc_roc", "rd", "mse", "non_parity")


def _infer_options(fmt: str, task: str, fair: str | None) -> tuple[list[str], dict[str, Any]]:
    """Check the options of ``infer``; return the constraints and the groups to read."""
    if fmt not in ("parquet", "csv"):
        raise fail(f"--format must be parquet or csv, got {fmt!r}.")
    if task not in ("classification", "rating"):
        raise fail(f"--task must be classification or rating, got {task!r}.")
    specs, options = _parse_fair(fair)
    _check_specs(specs)
    if specs and "protected" not in options:
        raise fail(
            "--fair: a constraint needs the groups; add protected=<observed predicate listing "
            "the protected target atoms> (and target=<target predicate>)."
        )
    return specs, {"target": options.get("target"), "protected": options.get("protected")}


@relational_app.command("learn")
def learn_cmd(
    dataset: Annotated[str, typer.Option(help=", ".join(_DATASETS) + ".")] = "compas",
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("fair-a3sl"),
    fair: Annotated[
        str | None, typer.Option(help="Constraints at MAP inference, e.g. 'rd<=0.1'.")
    ] = None,
    prior: Annotated[
        str | None, typer.Option(help="Equalised-odds prior strength, e.g. 'eqodds=0.1'.")
    ] = None,
    episodes: Annotated[int, typer.Option(help="Clause lists to build and score.")] = 200,
    preset: Annotated[
        str,
        typer.Option(help="authors: the published code's settings; paper: the published text's."),
    ] = "authors",
    fold: Annotated[int, typer.Option(help="Fold (COMPAS, MovieLens) or sample - 1.")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the agent and weight learning.")] = 0,
    refine_evaluations: Annotated[
        int | None,
        typer.Option(
            help="After the agent, polish its best rules by local search, scoring at most "
            "this many rule lists (fairacq's addition; omit for the paper's algorithm)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    overwrite: OverwriteOpt = False,
) -> None:
    """Learn fair rules with Fair-A3SL, then write the rules, weights and test metrics.

    Without --fair it learns Sensitive-A3SL (no constraint, the sensitive attribute allowed).
    With --refine-evaluations the agent's own best rules go to agent_rules.psl beside
    rules.psl. The run's trace (one row per training step) is written as trace.parquet.
    A test fairness measure past its bound, or an agent still exploring at the end, is
    printed as a warning and listed under "warnings" in summary.json.
    """
    specs, alpha = _learn_options(dataset, episodes, refine_evaluations, fair, prior)
    from fairacq._run_folder import run_folder
    from fairacq.cli.shared._progress import progress, run_callback
    from fairacq.relational import a3sl_options, learn_rules, load_named_relational, write_a3sl

    with user_errors(), _quiet_warnings():
        check_out_folder(out, {}, overwrite=overwrite)
        train = load_named_relational(dataset, fold, "train")
        test = load_named_relational(dataset, fold, "test")
        with progress("Fair-A3SL", episodes, "episodes") as bar:
            result = learn_rules(
                train,
                test,
                fairness=specs,
                alpha_odds=alpha,
                n_episodes=episodes,
                preset=preset,
                refine_evaluations=refine_evaluations,
                random_state=seed,
                options=a3sl_options(dataset, bool(specs)),
                callbacks=[run_callback(bar, column="cost")],
            )
        payload = {"dataset": dataset, "fold": fold, **result.summary()}
        assert result.learner is not None  # a fresh result holds its learner
        with run_folder(out) as building:  # swapped in whole when written
            write_a3sl(result.learner, building, payload)
    _print_warnings(payload["warnings"])
    if as_json:
        typer.echo(json.dumps(payload, indent=2, default=str))
        return
    metrics = payload["test_metrics"]
    console.print(
        f"Fair-A3SL ({payload['variant']}, {episodes} episodes): "
        f"{len(result.rules)} rules, test AUC-ROC {_num(metrics.get('auc_roc'))}"
        f", RD {_num(metrics.get('rd'))} -> {out}",
        soft_wrap=True,
    )


def _num(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def _learn_options(
    dataset: str, episodes: int, refine: int | None, fair: str | None, prior: str | None
) -> tuple[list[str], float]:
    """Check the options of ``learn``; return the fairness constraints and the prior."""
    if dataset not in _DATASETS:
        from fairacq._validation import did_you_mean

        with user_errors():
            raise did_you_mean("dataset", dataset, _DATASETS, "fairacq relational learn --help")
    if episodes < 1:
        raise fail(f"--episodes must be >= 1, got {episodes}.")
    if refine is not None and refine < 1:
        raise fail(f"--refine-evaluations must be >= 1, got {refine}.")
    specs, options = _parse_fair(fair)
    if options:
        raise fail("--fair of `learn` takes constraints only; the dataset defines the groups.")
    _check_specs(specs)
    return specs, _parse_prior(prior)


def _check_specs(specs: list[str]) -> None:
    """Parse every ``--fair`` constraint now, before any work."""
    from fairacq.relational import parse_fairness

    _named("--fair", lambda: [parse_fairness(s) for s in specs])


def _parse_prior(prior: str | None) -> float:
    """Read ``--prior eqodds=<strength>`` (0 without the option)."""
    if prior is None:
        return 0.0
    match = _OPTION.match(prior)
    if match is None or match.group(1).lower() not in ("eqodds", "equalized_odds"):
        raise fail(f"--prior: write 'eqodds=<strength>', got {prior!r}.")
    try:
        return float(match.group(2))
    except ValueError:
        raise fail(f"--prior: the strength must be a number, got {match.group(2)!r}.") from None


@relational_app.command("example")
def example_cmd(
    out: Annotated[
        Path, typer.Option(help="Folder to write model.psl, data/ and README.md into.")
    ] = Path("relational-example"),
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the files and commands as JSON.")
    ] = False,
) -> None:
    """Write an example PSL model and data folder, and print the commands that run them."""
    from fairacq._io import check_output_dir
    from fairacq.relational import write_example

    with user_errors():
        check_output_dir(out, option="--out")
        files = _named("--out", lambda: write_example(out))
    if as_json:
        payload = {
            "folder": str(files.folder),
            "rules": str(files.rules),
            "data": str(files.data),
            "commands": list(files.commands),
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    typer.echo(
        f"wrote {files.rules} (rules) and {files.data} (PSL data folder; see README.md).\n"
        "Infer with the groups only (metrics, no constraint):\n"
        f"  {files.commands[0]}\n"
        "Infer under the fairness constraint rd <= 0.1:\n"
        f"  {files.commands[1]}"
    )
