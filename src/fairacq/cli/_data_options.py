"""The options every question command shares: a user's table, its columns and a model.

``--data FILE --label COL --sensitive COL[,COL] --cost COL --categorical COL,...
--drop COL,... --positive VALUE --impute`` name the roles of a raw table's columns;
``--model NAME|module:Class --model-param k=v`` name the classifier. :func:`read_user_table`
reads and encodes the table; :func:`model_from_options` builds the model the library takes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fairacq.cli._errors import fail

if TYPE_CHECKING:
    from fairacq.data import PreparedTable, TableColumns, TableEncoder

__all__ = [
    "CategoricalOpt",
    "CostOpt",
    "DataOpt",
    "DropOpt",
    "ImputeOpt",
    "LabelOpt",
    "ModelOpt",
    "ModelParamOpt",
    "PositiveOpt",
    "SensitiveOpt",
    "model_from_options",
    "read_user_table",
    "table_columns",
]

DataOpt = Annotated[
    Path | None,
    typer.Option(
        "--data",
        help="Your table (.parquet or .csv), one row per person; raw string columns are "
        "one-hot encoded for you. Used instead of --dataset.",
    ),
]
LabelOpt = Annotated[
    str, typer.Option("--label", help="Outcome column of --data (0/1, or see --positive).")
]
SensitiveOpt = Annotated[
    str | None,
    typer.Option(
        "--sensitive",
        help="Group column(s), comma-separated for intersectional groups (e.g. sex,race).",
    ),
]
CostOpt = Annotated[
    str | None, typer.Option("--cost", help="Per-row cost column (kept out of the features).")
]
CategoricalOpt = Annotated[
    str | None,
    typer.Option(
        "--categorical",
        help="Columns to one-hot encode, comma-separated (default: every non-numeric one).",
    ),
]
DropOpt = Annotated[
    str | None,
    typer.Option("--drop", help="Columns to ignore (ids, free text), comma-separated."),
]
PositiveOpt = Annotated[
    str | None,
    typer.Option(
        "--positive",
        help="The favourable value of a label that is not 0/1 (others become 0).",
    ),
]
ImputeOpt = Annotated[
    bool,
    typer.Option(
        "--impute",
        help="Fill missing feature values (median; most frequent category) instead of "
        "refusing them.",
    ),
]
ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        help="lr, linear_svm, mlp, decision_tree, random_forest, or any scikit-learn "
        "classifier as module:Class (e.g. sklearn.ensemble:HistGradientBoostingClassifier).",
    ),
]
ModelParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--model-param", help="A parameter of --model as key=value (JSON value); repeatable."
    ),
]


def table_columns(
    label: str,
    sensitive: str | None,
    *,
    cost: str | None = None,
    categorical: str | None = None,
    drop: str | None = None,
    positive: str | None = None,
    impute: bool = False,
) -> TableColumns:
    """Return the :class:`~fairacq.data.TableColumns` the options name; exit 2 without a group."""
    from fairacq.data import columns_from_options

    if not sensitive or not sensitive.strip(" ,"):
        raise fail("--data needs --sensitive COL naming the group column (e.g. --sensitive sex).")
    return columns_from_options(
        label,
        sensitive,
        cost=cost,
        categorical=categorical,
        drop=drop or (),
        positive=positive,
        impute=impute,
    )


def read_user_table(
    path: Path,
    columns: TableColumns,
    *,
    encoder: TableEncoder | None = None,
    name: str | None = None,
) -> PreparedTable:
    """Read ``path`` and encode it (with ``encoder`` if given, else one fitted on it)."""
    from fairacq.data import prepare_table, read_table

    return prepare_table(read_table(path), columns, encoder=encoder, name=name or path.name)


def _parse_param(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise fail(f"--model-param {text!r} is not key=value. Write e.g. --model-param C=0.1.")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def model_from_options(model: str, params: list[str] | None) -> Any:
    """Return the learner for the library: a name, or an estimator built with ``params``.

    Raises
    ------
    typer.Exit
        Code 2 on a malformed ``--model-param`` or a model that cannot be built.
    """
    from fairacq.exceptions import FairacqError
    from fairacq.models import make_learner

    kwargs = dict(_parse_param(p) for p in params or [])
    if not kwargs and ":" not in model:
        return model
    try:
        return make_learner(model, **kwargs)
    except FairacqError as exc:
        raise fail(str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise fail(
            f"--model {model} does not take --model-param {', '.join(kwargs)} ({exc}). Check "
            "the parameter names."
        ) from None
