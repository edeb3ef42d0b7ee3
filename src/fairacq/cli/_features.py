"""``fairacq features train|acquire``: train a DADI agent, then reveal features person by person.

``train`` loads a dataset (with its sensitive attribute among the features, as paper 002
§4 does), splits it as DADI does (87.5/12.5 train-val/test, then 80/20), trains the agent on
the training part (it standardises numerical columns itself), reports its AUC and disparity
(and any other fairness metric asked for with ``--metric``) on the test part and saves it.
``acquire`` reads a table with the model's feature columns (raw values, one-hot encoded as
:func:`fairacq.data.load_dataset` does), asks the agent for each row which feature groups to
reveal and in which order, and writes the revealed values (unrevealed ones empty), the
revealed groups in order (``revealed``), their number, and the classifier's probability and
decision on the revealed set (``proba``, ``prediction``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq.cli._errors import fail, user_errors

__all__ = ["features_app"]

features_app = typer.Typer(
    help="Fair per-individual feature acquisition with DADI (paper 002).", no_args_is_help=True
)
console = Console(highlight=False)

#: Iterations and sizes of the presets; ``full`` is Appendix B of paper 002.
_PRESETS: dict[str, dict[str, int]] = {
    "quick": {"n_pretrain_iter": 150, "n_train_iter": 150, "batch_size": 32, "n_parallel": 16},
    "full": {
        "n_pretrain_iter": 10_000,
        "n_train_iter": 10_000,
        "batch_size": 64,
        "n_parallel": 64,
    },
}


@features_app.command("train")
def train_cmd(
    dataset: Annotated[str, typer.Option(help="Dataset name (fairacq datasets list).")] = "adult",
    sensitive: Annotated[str, typer.Option(help="Sensitive attribute.")] = "sex",
    gamma: Annotated[
        float, typer.Option(help="Weight of the adversary's reward, in [0, 1] (eq. 2).")
    ] = 0.5,
    reward: Annotated[
        str, typer.Option(help="Adversarial reward: gnl1 (eq. 6) or ce (eq. 5).")
    ] = ("gnl1"),
    out: Annotated[Path, typer.Option(help="Directory to save the agent in.")] = Path("model"),
    preset: Annotated[
        str, typer.Option(help="quick (minutes on a laptop) or full (paper's Appendix B).")
    ] = "quick",
    seed: Annotated[int, typer.Option(help="Seed of the split and of training.")] = 0,
    max_rows: Annotated[
        int | None, typer.Option(help="Train on a random subsample of this many rows.")
    ] = None,
    pretrain_iter: Annotated[
        int | None, typer.Option(help="Pre-training iterations (overrides the preset).")
    ] = None,
    train_iter: Annotated[
        int | None, typer.Option(help="Joint-training iterations (overrides the preset).")
    ] = None,
    set_elements: Annotated[
        str,
        typer.Option(
            help="What the set encoder reads: columns (every observed column, the paper) or "
            "hot (one element per observed one-hot group; lossless, faster on wide data).",
        ),
    ] = "columns",
    include_sensitive: Annotated[
        bool,
        typer.Option(
            "--include-sensitive/--exclude-sensitive",
            help="Offer the sensitive attribute itself as a feature (the paper does).",
        ),
    ] = True,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            help="Also report this fairness metric of the test decisions (dp, eo, eopp or a "
            "name from `fairacq metrics`; repeat for several).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Train a DADI agent and save it with its preprocessing."""
    _check_train_options(preset, gamma, set_elements, max_rows, pretrain_iter, train_iter)
    from fairacq._io import check_output_dir
    from fairacq.cli._acquire import resolve_metric
    from fairacq.data import load_dataset
    from fairacq.experiments import single_thread
    from fairacq.features import train_dadi

    single_thread()
    with user_errors():
        check_output_dir(out, option="--out")
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
        data = load_dataset(
            dataset, sensitive=sensitive, include_sensitive_features=include_sensitive
        )
        with console.status(f"Training DADI ({preset}, gamma {gamma}, {reward}) ..."):
            run = train_dadi(
                data,
                random_state=seed,
                max_rows=max_rows,
                metrics=[resolve_metric(m) for m in metric or []],
                **params,
            )
        run.agent.save(out)
    settings = {
        "dataset": dataset,
        "sensitive": sensitive,
        "gamma": gamma,
        "reward": reward,
        "set_elements": set_elements,
        "preset": preset,
    }
    _print_training(settings, run, out, as_json=as_json)


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


def _print_training(settings: dict[str, Any], run: Any, out: Path, *, as_json: bool) -> None:
    """Print the test AUC, disparity and fairness metrics of a trained agent."""
    if as_json:
        summary = {
            **settings,
            "n_train": run.n_train,
            "n_test": run.n_test,
            "test_auc": run.test_auc,
            "test_disparity": run.test_disparity,
            "test_share_of_columns_revealed": run.share_revealed,
            **run.fairness,
            "out": str(out),
        }
        typer.echo(json.dumps(summary, indent=2))
        return
    console.print(
        f"DADI gamma {settings['gamma']} ({settings['reward']}): test AUC {run.test_auc:.3f}, "
        f"disparity {run.test_disparity:.3f}, {100 * run.share_revealed:.0f}% of columns "
        f"revealed; saved {out}"
    )
    for key, score in run.fairness.items():
        console.print(f"  {key.removeprefix('test_')}: {score:.4f}")


@features_app.command("acquire")
def acquire_cmd(
    model: Annotated[Path, typer.Option(help="A directory written by `fairacq features train`.")],
    input: Annotated[
        Path, typer.Option(help="People (.parquet or .csv) with the model's feature columns.")
    ],
    out: Annotated[Path, typer.Option(help="Revealed values and decisions (.parquet or .csv).")],
) -> None:
    """Reveal, for each person, the feature groups the agent picks, and predict from them."""
    from fairacq._io import check_output_file
    from fairacq.data import TABLE_SUFFIXES, read_table, write_table
    from fairacq.experiments import single_thread
    from fairacq.features import reveal_table

    single_thread()
    with user_errors():
        check_output_file(out, option="--out", suffixes=tuple(TABLE_SUFFIXES))
        if not model.is_dir():
            raise FileNotFoundError(
                f"Model directory {model} does not exist. Pass a directory written by "
                "`fairacq features train`."
            )
        from fairacq.features import DADI

        agent = DADI.load(model)
        revealed = reveal_table(agent, read_table(input), source=str(input))
        write_table(revealed, out, index=False)
    share = float(revealed[list(agent.columns_)].notna().to_numpy().mean())
    console.print(
        f"revealed {100 * share:.0f}% of the feature values of {len(revealed)} people -> {out}"
    )
