"""``fairacq relational infer|learn``: fair MAP inference with PSL rules; Fair-A3SL learning."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq.cli._errors import fail, user_errors

__all__ = ["relational_app"]

relational_app = typer.Typer(
    help="Hinge-loss MRFs with PSL rules: fair MAP inference and Fair-A3SL (paper 004).",
    no_args_is_help=True,
)
console = Console(highlight=False)

_DATASETS = ("paper-review", "compas", "movielens")
_OPTION = re.compile(r"^\s*([A-Za-z_]+)\s*=\s*(\S+)\s*$")


def _parse_fair(text: str | None) -> tuple[list[str], dict[str, str]]:
    """Split ``"rd<=0.1 rr<=0.05 protected=pred target=pred"`` into specs and options."""
    if text is None:
        return [], {}
    specs: list[str] = []
    options: dict[str, str] = {}
    for token in text.replace(",", " ").split():
        match = _OPTION.match(token)
        if match is not None and "<" not in token:
            options[match.group(1).lower()] = match.group(2)
        else:
            specs.append(token)
    unknown = sorted(set(options) - {"protected", "target"})
    if unknown:
        raise fail(
            f"--fair: unknown option {unknown[0]!r}. Write e.g. "
            "'rd<=0.1 protected=protectedPaper target=positiveSummary'."
        )
    return specs, options


@relational_app.command("infer")
def infer_cmd(
    rules: Annotated[Path, typer.Option(help="PSL rules, one per line (a .psl text file).")],
    data: Annotated[
        Path,
        typer.Option(
            help="PSL data directory: <pred>_obs.txt, <pred>_targets.txt, <pred>_truth.txt "
            "(tab-separated, value column optional)."
        ),
    ],
    out: Annotated[Path, typer.Option(help="Output directory (atoms, metrics.json, model).")],
    fair: Annotated[
        str | None,
        typer.Option(
            help="Constraints and groups, e.g. 'rd<=0.1 protected=protectedPaper "
            "target=positiveSummary' (protected: an observed predicate over target atoms)."
        ),
    ] = None,
    train: Annotated[
        Path | None,
        typer.Option(help="Learn the rule weights on this data directory (truth needed)."),
    ] = None,
    learn: Annotated[
        bool, typer.Option("--learn/--no-learn", help="Learn the weights on --data itself.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="parquet or csv.")] = "parquet",
    seed: Annotated[int, typer.Option(help="Seed of weight learning.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
) -> None:
    """Infer the target atoms of --data under --rules (fair MAP) and write them with metrics."""
    if fmt not in ("parquet", "csv"):
        raise fail(f"--format must be parquet or csv, got {fmt!r}.")
    specs, options = _parse_fair(fair)
    if specs and "protected" not in options:
        raise fail(
            "--fair: a constraint needs the groups; add protected=<observed predicate listing "
            "the protected target atoms>."
        )
    from fairacq._io import check_output_dir
    from fairacq.relational import can_evaluate, read_psl_data, run_pipeline, write_inference

    groups = {"target": options.get("target"), "protected": options.get("protected")}
    with user_errors():
        check_output_dir(out, option="--out")
        text = rules.read_text(encoding="utf-8")
        test = read_psl_data(data, **groups)
        train_data = read_psl_data(train, **groups) if train is not None else None
        result = run_pipeline(
            text,
            test if learn and train is None else train_data,
            test,
            fairness=specs,
            evaluate=can_evaluate(test),
            random_state=seed,
        )
        summary = write_inference(result, out, fmt=fmt)  # type: ignore[arg-type]
    if as_json:
        typer.echo(json.dumps(summary, indent=2, default=str))
    else:
        shown = ", ".join(f"{k} {v:.4f}" for k, v in result.metrics.items() if k in _SHOWN)
        console.print(
            f"inferred {len(result.predictions)} atoms ({summary['map']['n_iter']} ADMM "
            f"iterations){'; ' + shown if shown else ''} -> {out}",
            soft_wrap=True,
        )


_SHOWN = ("auc_roc", "rd", "mse", "non_parity")


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
    preset: Annotated[str, typer.Option(help="authors or paper (see FairA3SL).")] = "authors",
    fold: Annotated[int, typer.Option(help="Fold (COMPAS, MovieLens) or sample - 1.")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the agent and weight learning.")] = 0,
    refine_seconds: Annotated[
        float | None,
        typer.Option(
            help="After the agent, polish its best rules by local search for this many "
            "seconds (fairacq's addition; omit for the paper's algorithm)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
) -> None:
    """Learn fair rules with Fair-A3SL, then write the rules, weights and test metrics.

    Without --fair it learns Sensitive-A3SL (no constraint, the sensitive attribute allowed).
    With --refine-seconds the agent's own best rules go to agent_rules.psl beside rules.psl.
    """
    specs, alpha = _learn_options(dataset, episodes, refine_seconds, fair, prior)
    variant = "fair1" if specs else "sensitive"
    from fairacq._io import check_output_dir
    from fairacq.relational import (
        FairA3SL,
        a3sl_options,
        evaluate_atoms,
        load_named_relational,
        write_a3sl,
    )

    with user_errors():
        check_output_dir(out, option="--out")
        train = load_named_relational(dataset, fold, "train")
        test = load_named_relational(dataset, fold, "test")
        learner = FairA3SL(
            preset=preset,
            variant=variant,
            n_episodes=episodes,
            fairness=tuple(specs) if specs else None,
            alpha_odds=alpha,
            refine_seconds=refine_seconds,
            random_state=seed,
            **a3sl_options(dataset, bool(specs)),
        ).fit(train)
        metrics = evaluate_atoms(test, learner.predict(test, fair=bool(specs)))
        settings = {
            "dataset": dataset,
            "fold": fold,
            "variant": variant,
            "fairness": specs,
            "alpha_odds": alpha,
            "episodes": episodes,
        }
        payload = _learned_payload(settings, learner, refine_seconds, metrics)
        write_a3sl(learner, out, payload)
    if as_json:
        typer.echo(json.dumps(payload, indent=2, default=str))
    else:
        console.print(
            f"Fair-A3SL ({variant}, {episodes} episodes): {len(learner.best_rules_)} rules, "
            f"test AUC-ROC {metrics.get('auc_roc', float('nan')):.4f}, RD "
            f"{metrics.get('rd', float('nan')):.4f} -> {out}",
            soft_wrap=True,
        )


def _learn_options(
    dataset: str, episodes: int, refine_seconds: float | None, fair: str | None, prior: str | None
) -> tuple[list[str], float]:
    """Check the options of ``learn``; return the fairness constraints and the prior."""
    if dataset not in _DATASETS:
        from fairacq._validation import did_you_mean

        with user_errors():
            raise did_you_mean("dataset", dataset, _DATASETS, "fairacq relational learn --help")
    if episodes < 1:
        raise fail(f"--episodes must be >= 1, got {episodes}.")
    if refine_seconds is not None and refine_seconds <= 0:
        raise fail(f"--refine-seconds must be > 0, got {refine_seconds}.")
    specs, options = _parse_fair(fair)
    if options:
        raise fail("--fair of `learn` takes constraints only; the dataset defines the groups.")
    return specs, _parse_prior(prior)


def _learned_payload(
    settings: dict[str, Any],
    learner: Any,
    refine_seconds: float | None,
    metrics: dict[str, float],
) -> dict[str, Any]:
    """Return what ``learn`` writes and prints as JSON: settings, rewards, weights, metrics."""
    from fairacq.relational import rule_weights

    refined = learner.refine_history_
    return {
        **settings,
        "best_reward": learner.best_reward_,
        "agent_reward": learner.agent_reward_,
        "refine_seconds": refine_seconds,
        "refine_moves": [] if refined is None else refined["move"].tolist(),
        "weights": rule_weights(learner.best_rules_),
        "test_metrics": metrics,
    }


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
