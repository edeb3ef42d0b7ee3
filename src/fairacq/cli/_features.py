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


def _read_table(path: Path) -> Any:
    import pandas as pd

    from fairacq.exceptions import CorruptFileError

    if not path.is_file():
        raise FileNotFoundError(f"Input file {path} does not exist.")
    try:
        return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    except Exception as exc:  # pandas/pyarrow raise many types on unreadable files
        raise CorruptFileError(f"Cannot read {path} ({type(exc).__name__}).") from exc


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
    if preset not in _PRESETS:
        raise fail(f"--preset must be 'quick' or 'full', got {preset!r}.")
    if not 0.0 <= gamma <= 1.0:
        raise fail(f"--gamma must be in [0, 1], got {gamma}.")
    from fairacq.features._actions import SET_ELEMENTS

    if set_elements not in SET_ELEMENTS:
        raise fail(f"--set-elements must be 'columns' or 'hot', got {set_elements!r}.")
    for flag, value, least in (
        ("--max-rows", max_rows, 1),
        ("--pretrain-iter", pretrain_iter, 0),
        ("--train-iter", train_iter, 0),
    ):
        if value is not None and value < least:
            raise fail(f"{flag} must be an int >= {least}, got {value}.")
    import numpy as np

    from fairacq.cli._acquire import resolve_metric
    from fairacq.data import load_dataset, split_dadi
    from fairacq.experiments._framework.executor import single_thread
    from fairacq.features._baselines import score_predictions
    from fairacq.metrics import compute, get_metric

    single_thread()
    with user_errors():
        extra = [resolve_metric(m) for m in metric or []]
        for name in extra:
            get_metric(name)  # an unknown name fails before training
        data = load_dataset(
            dataset, sensitive=sensitive, include_sensitive_features=include_sensitive
        )
        if max_rows is not None and len(data) > max_rows:
            keep = np.random.default_rng(seed).choice(len(data), max_rows, replace=False)
            data = data.subset(np.sort(keep))
        split = split_dadi(data, random_state=seed)
        train, validation, test = split.train, split.validation, split.test
        from fairacq.features import DADI

        params: dict[str, Any] = {
            "gamma": gamma,
            "reward": reward,
            "set_elements": set_elements,
            "random_state": seed,
            **_PRESETS[preset],
        }
        if pretrain_iter is not None:
            params["n_pretrain_iter"] = pretrain_iter
        if train_iter is not None:
            params["n_train_iter"] = train_iter
        agent = DADI(**params)
        with console.status(f"Training DADI ({preset}, gamma {gamma}, {reward}) ..."):
            agent.fit(train, validation=validation)
        proba = agent.predict_proba(test.X)
        auc, disparity = score_predictions(test.y, proba, test.s)
        decisions = (proba >= 0.5).astype(np.int64)
        fairness = {
            f"test_{name}": float(compute(name, test.y, decisions, test.s, scores=proba))
            for name in extra
        }
        revealed = np.asarray(agent.acquisition_mask(test.X), dtype=bool)
        agent.save(out)
    share = float(revealed.mean())
    summary = {
        "dataset": dataset,
        "sensitive": sensitive,
        "gamma": gamma,
        "reward": reward,
        "set_elements": set_elements,
        "preset": preset,
        "n_train": len(train),
        "n_test": len(test),
        "test_auc": auc,
        "test_disparity": disparity,
        "test_share_of_columns_revealed": share,
        **fairness,
        "out": str(out),
    }
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        console.print(
            f"DADI gamma {gamma} ({reward}): test AUC {auc:.3f}, disparity {disparity:.3f}, "
            f"{100 * share:.0f}% of columns revealed; "
            f"saved {out}"
        )
        for key, score in fairness.items():
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
    import numpy as np
    import pandas as pd

    from fairacq._io import atomic_path
    from fairacq.exceptions import InvalidDataError
    from fairacq.experiments._framework.executor import single_thread

    single_thread()
    with user_errors():
        if not model.is_dir():
            raise FileNotFoundError(
                f"Model directory {model} does not exist. Pass a directory written by "
                "`fairacq features train`."
            )
        from fairacq.features import DADI

        agent = DADI.load(model)
        columns = list(agent.columns_)
        frame = _read_table(input)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InvalidDataError(
                f"{input}: {len(missing)} of the model's feature columns are missing "
                f"(first: {missing[0]!r}). Give the input the columns the model was trained "
                "on (one-hot encoded as fairacq.data.load_dataset does)."
            )
        try:
            raw = pd.DataFrame(frame[columns].to_numpy(dtype=float), columns=columns)
        except (TypeError, ValueError) as exc:
            raise InvalidDataError(
                f"{input}: the model's feature columns must be numeric ({exc}). One-hot encode "
                "categorical values as fairacq.data.load_dataset does."
            ) from exc
        nan_rows = np.flatnonzero(raw.isna().any(axis=1).to_numpy())
        if nan_rows.size:
            raise InvalidDataError(
                f"{input}: {nan_rows.size} rows have missing feature values (first row "
                f"{int(nan_rows[0])}). The agent decides what to reveal from complete rows: "
                "fill or drop them first."
            )
        position = {c: j for j, c in enumerate(columns)}
        group_cols = {g: [position[c] for c in cs] for g, cs in agent.feature_groups_.items()}
        order, probas = [], []
        keep = np.zeros(raw.shape, dtype=bool)
        for i in range(len(raw)):  # one greedy episode per person, in the agent's order
            result = agent.acquire(raw.iloc[i])
            order.append(",".join(result.features))
            probas.append(float(result.proba))
            for g in result.features:
                keep[i, group_cols[g]] = True
        proba = np.asarray(probas, dtype=float)
        decisions = pd.DataFrame(
            {
                "revealed": order,
                "n_revealed": [len(o.split(",")) if o else 0 for o in order],
                "proba": proba,
                "prediction": (proba >= 0.5).astype(np.int64),
            },
            index=raw.index,
        )
        revealed_values = pd.concat([raw.where(keep), decisions], axis=1)
        with atomic_path(out) as tmp:
            if out.suffix == ".parquet":
                revealed_values.to_parquet(tmp, index=False)
            else:
                revealed_values.to_csv(tmp, index=False)
    share = float(keep.mean()) if keep.size else 0.0
    console.print(
        f"revealed {100 * share:.0f}% of the feature values of {len(frame)} people -> {out}"
    )
