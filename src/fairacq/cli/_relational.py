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


def _data_from_dir(path: Path, options: dict[str, str]) -> Any:
    """Read a PSL data directory as RelationalData, groups from an observed predicate."""
    import pandas as pd

    from fairacq.exceptions import InvalidDataError
    from fairacq.relational import Database, RelationalData

    db = Database.from_psl_dir(path)
    observations, targets, truth = db.to_frames()
    if not targets:
        raise InvalidDataError(
            f"relational infer: {path} has no '*_targets.txt' file; list the atoms to infer."
        )
    target = options.get("target", next(iter(targets)))
    if target not in targets:
        raise InvalidDataError(
            f"relational infer: target={target!r} is not a target predicate "
            f"({', '.join(targets)})."
        )
    args = [c for c in targets[target].columns if c != "value"]
    atoms = targets[target][args].astype(str)
    protected_pred = options.get("protected")
    if protected_pred is None:
        empty = atoms.iloc[:0]
        protected, unprotected = empty, atoms
    else:
        if protected_pred not in observations:
            raise InvalidDataError(
                f"relational infer: protected={protected_pred!r} is not an observed predicate "
                f"of {path}. Add '{protected_pred}_obs.txt' listing the protected atoms."
            )
        group = observations[protected_pred]
        gargs = [c for c in group.columns if c != "value"]
        if len(gargs) != len(args):
            raise InvalidDataError(
                f"relational infer: protected={protected_pred!r} has {len(gargs)} arguments "
                f"but {target!r} has {len(args)}; the group predicate must list target atoms "
                f"(e.g. protectedPaper(P) for positiveSummary(P))."
            )
        flagged = group.loc[group["value"].to_numpy(dtype=float) >= 0.5, gargs].astype(str)
        keys = set(flagged.itertuples(index=False, name=None))
        mask = [k in keys for k in atoms.itertuples(index=False, name=None)]
        protected = atoms.loc[mask].reset_index(drop=True)
        unprotected = atoms.loc[[not m for m in mask]].reset_index(drop=True)
    return RelationalData(
        observations=observations,
        targets=targets,
        truth=truth,
        protected=pd.DataFrame(protected),
        unprotected=pd.DataFrame(unprotected),
        metadata={"fairness_predicate": target, "task": "classification", "source": str(path)},
    )


def _write_atoms(frame: Any, out: Path, fmt: str) -> Path:
    from fairacq._io import atomic_path

    target = out / f"atoms.{fmt}"
    frame = frame.copy()
    for col in frame.columns:
        if col.startswith("arg"):
            frame[col] = frame[col].astype("string")
    with atomic_path(target) as tmp:
        if fmt == "parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)
    return target


def _write_json(path: Path, payload: Any) -> None:
    from fairacq._io import write_json

    write_json(path, payload)


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
    from fairacq.relational._pipeline import run_pipeline

    if fmt not in ("parquet", "csv"):
        raise fail(f"--format must be parquet or csv, got {fmt!r}.")
    specs, options = _parse_fair(fair)
    if specs and "protected" not in options:
        raise fail(
            "--fair: a constraint needs the groups; add protected=<observed predicate listing "
            "the protected target atoms>."
        )
    with user_errors():
        text = rules.read_text(encoding="utf-8")
        test = _data_from_dir(data, options)
        train_data = None
        if train is not None:
            train_data = _data_from_dir(train, options)
        elif learn:
            train_data = test
        pred = test.fairness_predicate
        can_eval = (
            pred in test.truth
            and len(test.protected) > 0
            and len(test.unprotected) > 0
            and len(test.truth[pred]) == len(test.targets[pred])
        )
        result = run_pipeline(
            text,
            train_data,
            test,
            fairness=specs,
            evaluate=bool(can_eval),
            random_state=seed,
        )
        out.mkdir(parents=True, exist_ok=True)
        atoms_path = _write_atoms(result.predictions, out, fmt)
        summary = result.summary()
        summary["atoms"] = str(atoms_path)
        _write_json(out / "metrics.json", summary)
        (out / "model.psl").write_text("\n".join(result.rules) + "\n", encoding="utf-8")
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


def _learner_options(dataset: str, fair: bool) -> dict[str, Any]:
    """Per-dataset settings of the authors' code (which predicates are off limits).

    A fair run may not use the sensitive attribute (nor its proxies in the data); a
    sensitive run (no constraint: Sensitive-A3SL) may, as in the paper's Table 6.
    """
    if dataset == "compas":
        race = ("african_race", "other_race", "race", "raceTruth")
        return {
            "exclude": (*race, "sex") if fair else ("other_race", "race", "raceTruth", "sex"),
            "private_types": ("instance",),
            "domains": {"user": "user"},
            "max_literals": 3,
            "max_clauses": 12,
        }
    if dataset == "movielens":
        return {
            "exclude": ("female",) if fair else (),
            "domains": {"user": "user", "item": "item"},
        }
    return {}


def _load(dataset: str, fold: int, split: str) -> Any:
    from fairacq.relational import (
        load_compas_relational,
        load_movielens_relational,
        load_paper_review,
    )

    if dataset == "compas":
        return load_compas_relational(fold, split=split)  # type: ignore[arg-type]
    if dataset == "movielens":
        return load_movielens_relational(fold, split=split)  # type: ignore[arg-type]
    # Paper review: the authors' samples; train on sample fold+1, test on the next one.
    sample = fold % 10 + 1 if split == "train" else (fold + 1) % 10 + 1
    return load_paper_review(sample)


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
    from fairacq.relational import FairA3SL, evaluate_atoms

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
    alpha = 0.0
    if prior is not None:
        match = _OPTION.match(prior)
        if match is None or match.group(1).lower() not in ("eqodds", "equalized_odds"):
            raise fail(f"--prior: write 'eqodds=<strength>', got {prior!r}.")
        try:
            alpha = float(match.group(2))
        except ValueError:
            raise fail(
                f"--prior: the strength must be a number, got {match.group(2)!r}."
            ) from None
    variant = "fair1" if specs else "sensitive"
    with user_errors():
        train = _load(dataset, fold, "train")
        test = _load(dataset, fold, "test")
        learner = FairA3SL(
            preset=preset,
            variant=variant,
            n_episodes=episodes,
            fairness=tuple(specs) if specs else None,
            alpha_odds=alpha,
            refine_seconds=refine_seconds,
            random_state=seed,
            **_learner_options(dataset, bool(specs)),
        ).fit(train)
        predictions = learner.predict(test, fair=bool(specs))
        metrics = evaluate_atoms(test, predictions)
        out.mkdir(parents=True, exist_ok=True)
        (out / "rules.psl").write_text("\n".join(learner.best_rules_) + "\n", encoding="utf-8")
        if learner.refine_history_ is not None:
            (out / "agent_rules.psl").write_text(
                "\n".join(learner.agent_rules_) + "\n", encoding="utf-8"
            )
        weights = [
            {"rule": r, "weight": float(r.split(":", 1)[0])}
            for r in learner.best_rules_
            if ":" in r and _is_float(r.split(":", 1)[0])
        ]
        payload = {
            "dataset": dataset,
            "fold": fold,
            "variant": variant,
            "fairness": specs,
            "alpha_odds": alpha,
            "episodes": episodes,
            "best_reward": learner.best_reward_,
            "agent_reward": learner.agent_reward_,
            "refine_seconds": refine_seconds,
            "refine_moves": (
                [] if learner.refine_history_ is None else learner.refine_history_["move"].tolist()
            ),
            "weights": weights,
            "test_metrics": metrics,
        }
        _write_json(out / "metrics.json", payload)
        learner.history_.astype({"clauses": str}).to_csv(out / "history.csv", index=False)
    if as_json:
        typer.echo(json.dumps(payload, indent=2, default=str))
    else:
        console.print(
            f"Fair-A3SL ({variant}, {episodes} episodes): {len(learner.best_rules_)} rules, "
            f"test AUC-ROC {metrics.get('auc_roc', float('nan')):.4f}, RD "
            f"{metrics.get('rd', float('nan')):.4f} -> {out}",
            soft_wrap=True,
        )


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
