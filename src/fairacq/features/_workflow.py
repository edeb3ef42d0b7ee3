"""Train a DADI agent on a dataset and score it; reveal a table of people with it.

:func:`train_dadi` is what ``fairacq features train`` runs (DADI's split, fit, test AUC,
disparity and any fairness metric), :func:`reveal_table` what ``fairacq features acquire``
runs (one greedy episode per person, the revealed values and the decision).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairacq.data import FairDataset, split_dadi
from fairacq.exceptions import InvalidDataError
from fairacq.features._baselines import score_predictions
from fairacq.metrics import compute, get_metric

if TYPE_CHECKING:
    from fairacq.features.dadi._dadi import DADI

__all__ = ["DadiRun", "reveal_table", "train_dadi"]


@dataclass(frozen=True)
class DadiRun:
    """A trained DADI agent and its scores on DADI's test split.

    Attributes
    ----------
    agent : DADI
        The fitted agent.
    n_train, n_test : int
        Rows of the training and test parts.
    test_auc, test_disparity : float
        AUC and disparity of the agent's decisions on the test part.
    share_revealed : float
        Share of the test part's columns the agent reveals.
    fairness : dict of str to float
        ``test_<metric>`` for every metric asked for.
    """

    agent: DADI
    n_train: int
    n_test: int
    test_auc: float
    test_disparity: float
    share_revealed: float
    fairness: dict[str, float] = field(default_factory=dict)


def train_dadi(
    data: FairDataset,
    *,
    random_state: int = 0,
    max_rows: int | None = None,
    metrics: Sequence[str] = (),
    **params: Any,
) -> DadiRun:
    """Split ``data`` as DADI does, train an agent and score it on the test part.

    Parameters
    ----------
    data : FairDataset
        The dataset (its sensitive attribute may be among the features, as paper 002 does).
    random_state : int, default=0
        Seed of the subsample, the split and training.
    max_rows : int or None, default=None
        Train on a random subsample of this many rows.
    metrics : sequence of str, default=()
        Fairness metrics (registered names) of the test decisions to report as well; an
        unknown name fails before training.
    **params
        Parameters of :class:`DADI` (``gamma``, ``reward``, iterations, ...).

    Returns
    -------
    DadiRun

    Raises
    ------
    UnknownNameError
        For an unknown metric.
    """
    from fairacq.features.dadi._dadi import DADI

    for name in metrics:
        get_metric(name)
    if max_rows is not None and len(data) > max_rows:
        keep = np.random.default_rng(random_state).choice(len(data), max_rows, replace=False)
        data = data.subset(np.sort(keep))
    split = split_dadi(data, random_state=random_state)
    train, validation, test = split.train, split.validation, split.test
    agent = DADI(random_state=random_state, **params)
    agent.fit(train, validation=validation)
    proba = agent.predict_proba(test.X)
    auc, disparity = score_predictions(test.y, proba, test.s)
    decisions = (proba >= 0.5).astype(np.int64)
    fairness = {
        f"test_{name}": float(compute(name, test.y, decisions, test.s, scores=proba))
        for name in metrics
    }
    revealed = np.asarray(agent.acquisition_mask(test.X), dtype=bool)
    return DadiRun(
        agent=agent,
        n_train=len(train),
        n_test=len(test),
        test_auc=float(auc),
        test_disparity=float(disparity),
        share_revealed=float(revealed.mean()),
        fairness=fairness,
    )


def reveal_table(agent: DADI, frame: pd.DataFrame, *, source: str = "input") -> pd.DataFrame:
    """Reveal, person by person, the feature groups the agent picks, and predict from them.

    Parameters
    ----------
    agent : DADI
        A fitted agent.
    frame : pandas.DataFrame
        People with the agent's feature columns (raw values, one-hot encoded as
        :func:`fairacq.data.load_dataset` does); other columns are ignored.
    source : str, default="input"
        Where the table comes from (a file name), quoted in errors.

    Returns
    -------
    pandas.DataFrame
        The agent's columns with unrevealed values missing, then ``revealed`` (the groups in
        the order revealed, comma-separated), ``n_revealed``, ``proba`` and ``prediction``.

    Raises
    ------
    InvalidDataError
        If feature columns are missing or not numeric, or a row has a missing value.
    """
    columns = list(agent.columns_)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InvalidDataError(
            f"{source}: {len(missing)} of the model's feature columns are missing "
            f"(first: {missing[0]!r}). Give the input the columns the model was trained "
            "on (one-hot encoded as fairacq.data.load_dataset does)."
        )
    try:
        raw = pd.DataFrame(frame[columns].to_numpy(dtype=float), columns=columns)
    except (TypeError, ValueError) as exc:
        raise InvalidDataError(
            f"{source}: the model's feature columns must be numeric ({exc}). One-hot encode "
            "categorical values as fairacq.data.load_dataset does."
        ) from exc
    nan_rows = np.flatnonzero(raw.isna().any(axis=1).to_numpy())
    if nan_rows.size:
        raise InvalidDataError(
            f"{source}: {nan_rows.size} rows have missing feature values (first row "
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
    return pd.concat([raw.where(keep), decisions], axis=1)
