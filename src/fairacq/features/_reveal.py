"""Ask a trained DADI agent, person by person, which features to ask for, and predict.

:func:`reveal_table` is what ``fairacq features acquire`` runs. People come as the table the
model was trained on: its raw columns (``job = "nurse"``), encoded with the model's
:class:`~fairacq.data.TableEncoder` (a category it never saw is counted and warned about), a
group column also accepted as ``sensitive:<column>`` (how ``FairDataset.to_frame`` names it);
or as the model's own encoded columns (``job=nurse``), what ``to_frame`` writes for a
bundled dataset. Every column of the people's table is kept, after their id (a column, or the
row number); then the raw features to ask for, in the agent's order, and the decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairacq.data import TableEncoder
from fairacq.exceptions import InvalidDataError
from fairacq.features._model_dir import DadiModel
from fairacq.features._tables import SENSITIVE_PREFIX
from fairacq.models import check_probabilities

if TYPE_CHECKING:
    from fairacq.features.dadi._estimator import DADI

__all__ = ["DECISION_COLUMNS", "reveal_table"]

#: The columns :func:`reveal_table` adds after the people's own.
DECISION_COLUMNS = ("revealed", "n_revealed", "proba", "prediction")


def reveal_table(
    model: DADI | DadiModel,
    frame: pd.DataFrame,
    *,
    encoder: TableEncoder | None = None,
    source: str = "input",
    id_column: str | None = None,
    blank_unrevealed: bool = False,
) -> pd.DataFrame:
    """Run the agent over a table of people: what to ask each of them for, and the decision.

    Parameters
    ----------
    model : DADI or DadiModel
        A fitted agent, or a saved model with its encoder (:meth:`DadiModel.load`).
    frame : pandas.DataFrame
        One row per person: the raw feature columns the model was trained on (when it has an
        encoder), or its encoded columns; other columns are kept as they are.
    encoder : TableEncoder or None, default=None
        The encoder of a bare agent's raw columns (a :class:`DadiModel` brings its own).
    source : str, default="input"
        Where the table comes from (a file name), quoted in errors and warnings.
    id_column : str or None, default=None
        The column identifying each person (unique, no gaps), placed first; by default the
        row number ``row`` (0-based, in the table's order).
    blank_unrevealed : bool, default=False
        Blank (NaN) each feature value the agent does not ask that person for.

    Returns
    -------
    pandas.DataFrame
        The id, the people's columns, then ``revealed`` (the raw features to ask for, in
        order, comma-separated), ``n_revealed``, ``proba`` (the classifier's P(y=1) on them)
        and ``prediction`` (1 = the favourable label).

    Raises
    ------
    InvalidDataError
        For a missing feature column, values the encoder or the agent cannot use (text in a
        numeric column, a missing value), a bad id column, or a column named like the output.
    DegenerateModelError
        When the classifier's probabilities are not numbers.

    Warns
    -----
    UserWarning
        For values in categories the training data did not have (encoded as all zeros; the
        counts stay in ``encoder.unknown_counts_``).
    """
    if isinstance(model, DadiModel):
        agent, encoder = model.agent, encoder or model.encoder
    else:
        agent = model
    frame = frame.reset_index(drop=True)
    if frame.empty:
        raise InvalidDataError(f"{source}: the table has no rows. Pass at least one person.")
    id_name, ids = _ids(frame, id_column, source)
    clash = [c for c in DECISION_COLUMNS if c in frame.columns]
    if clash:
        raise InvalidDataError(
            f"{source}: already has a column {clash[0]!r}, a name of the output's decision "
            f"columns ({', '.join(DECISION_COLUMNS)}). Rename it."
        )
    X, used = _model_inputs(agent, encoder, frame, source)
    results = agent.acquire_many(X)
    order = [",".join(r.features) for r in results]
    proba = check_probabilities([r.proba for r in results], where="the DADI classifier")
    people = frame.drop(columns=[id_name]) if id_column is not None else frame
    if blank_unrevealed:
        people = _blank(people, used, [set(r.features) for r in results])
    decisions = pd.DataFrame(
        {
            "revealed": order,
            "n_revealed": [len(r.features) for r in results],
            "proba": proba,
            "prediction": (proba >= 0.5).astype(np.int64),
        },
        index=frame.index,
    )
    return pd.concat([ids.rename(id_name).to_frame(), people, decisions], axis=1)


def _ids(frame: pd.DataFrame, id_column: str | None, source: str) -> tuple[str, pd.Series]:
    """Return the id column's name and values (the row number without ``id_column``)."""
    if id_column is None:
        if "row" in frame.columns:
            raise InvalidDataError(
                f"{source}: has a column 'row', the name the output gives the row numbers. "
                "Name the column identifying each person with --id COL (id_column=...)."
            )
        return "row", pd.Series(np.arange(len(frame)), index=frame.index)
    if id_column not in frame.columns:
        raise InvalidDataError(
            f"{source}: no column {id_column!r} for --id (the table has "
            f"{', '.join(map(str, frame.columns[:12]))}). Name an existing column."
        )
    ids = frame[id_column]
    bad = ids.isna() | ids.duplicated(keep=False)
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        raise InvalidDataError(
            f"{source}: id column {id_column!r} has missing or repeated values (row {first}: "
            f"{ids.iloc[first]!r}). Name a column that identifies each person once."
        )
    return id_column, ids


def _model_inputs(
    agent: DADI, encoder: TableEncoder | None, frame: pd.DataFrame, source: str
) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """Return the agent's inputs for ``frame`` and each action's columns of ``frame``."""
    encoded = list(agent.columns_)
    if encoder is not None:
        found = {c: _raw_column(frame, c) for c in encoder.columns_}
        missing = [c for c, name in found.items() if name is None]
        if not missing:
            raw = pd.DataFrame({c: frame[name] for c, name in found.items()})
            if not encoder.impute:
                _check_complete(raw, source)
            X = encoder.transform(raw, where=source)
            return X, {c: [str(name)] for c, name in found.items()}
        if all(c in frame.columns for c in encoded):
            return frame[encoded], dict(agent.feature_groups_)
        raise InvalidDataError(
            f"{source}: no column {missing[0]!r}, a feature the model was trained on "
            f"({len(missing)} of its {len(found)} feature columns missing: "
            f"{_listed(missing)}). Give the people the training table's feature columns, "
            "raw values as in training (ids and other columns may stay)."
        )
    absent = [c for c in encoded if c not in frame.columns]
    if absent:
        raise InvalidDataError(
            f"{source}: {len(absent)} of the model's feature columns are missing "
            f"({_listed(absent)}); this model has no encoder of raw columns, so give the "
            "columns it was trained on, encoded as fairacq.data.load_dataset does."
        )
    return frame[encoded], dict(agent.feature_groups_)


def _check_complete(raw: pd.DataFrame, source: str) -> None:
    """Refuse missing feature values of a model trained without ``--impute``."""
    gaps = raw.isna().to_numpy()
    if gaps.any():
        rows, cols = np.nonzero(gaps)
        raise InvalidDataError(
            f"{source}: column {raw.columns[cols[0]]!r} has missing values (row {rows[0]}, "
            f"{int(gaps.sum())} in all). The agent decides from complete rows: fill or drop "
            "them, or train the model with --impute (impute=True) to fill them as in training."
        )


def _raw_column(frame: pd.DataFrame, name: str) -> str | None:
    """Return the column of ``frame`` holding raw feature ``name`` (or ``sensitive:name``)."""
    for candidate in (name, f"{SENSITIVE_PREFIX}{name}"):
        if candidate in frame.columns:
            return candidate
    return None


def _blank(
    people: pd.DataFrame, used: Mapping[str, Sequence[str]], revealed: Sequence[set[str]]
) -> pd.DataFrame:
    """Set each feature value the agent does not ask that person for to NaN."""
    out = people.copy()
    for group, cols in used.items():
        hide = np.asarray([group not in r for r in revealed], dtype=bool)
        for col in cols:
            if col in out.columns and hide.any():
                out[col] = out[col].mask(hide)
    return out


def _listed(names: Sequence[Any]) -> str:
    shown = ", ".join(map(str, names[:5]))
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")
