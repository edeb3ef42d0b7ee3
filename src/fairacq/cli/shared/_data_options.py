"""The options every question command shares: a user's table, its columns and a model.

``--data FILE --label COL --sensitive COL[,COL] --cost COL --categorical COL,...
--drop COL,... --positive VALUE --impute`` name the roles of a raw table's columns;
``--model NAME|module:Class --model-param k=v`` name the classifier. :func:`read_user_table`
reads and encodes the table; :func:`model_from_options` builds the model the library takes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fairacq.cli.shared._errors import fail

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
    "join_names",
    "model_from_options",
    "read_user_table",
    "sensitive_text",
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
    list[str] | None,
    typer.Option(
        "--sensitive",
        help="Group column(s) for intersectional groups, comma-separated or repeated "
        "(sex,race or --sensitive sex --sensitive race).",
    ),
]
CostOpt = Annotated[
    str | None, typer.Option("--cost", help="Per-row cost column (kept out of the features).")
]
CategoricalOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--categorical",
        help="Columns to one-hot encode, comma-separated or repeated (default: every text "
        "column; at most 50 columns each, rare categories grouped as '(other)').",
    ),
]
DropOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--drop",
        help="Columns to ignore (ids, dates, free text), comma-separated or repeated.",
    ),
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


def sensitive_text(given: Sequence[str] | None) -> str | None:
    """``--sensitive`` given repeated and/or comma-separated, as one ``"a,b"`` text.

    Empty parts are kept (``"a,,b"`` stays as written) so the commands' own checks name them.

    Examples
    --------
    >>> sensitive_text(["race", "sex"]), sensitive_text(["race,sex"]), sensitive_text(None)
    ('race,sex', 'race,sex', None)
    """
    return ",".join(given) if given else None


def join_names(value: str | Sequence[str] | None) -> str | None:
    """Join an option given repeated and/or comma-separated into one comma-separated text.

    ``["a", "b,c"]`` and ``"a,b,c"`` both give ``"a,b,c"``; ``None`` or nothing gives None.
    """
    items = [value] if isinstance(value, str) else list(value or [])
    names = [p.strip() for item in items for p in item.split(",") if p.strip()]
    return ",".join(names) if names else None


def table_columns(
    label: str,
    sensitive: str | Sequence[str] | None,
    *,
    cost: str | None = None,
    categorical: str | Sequence[str] | None = None,
    drop: str | Sequence[str] | None = None,
    positive: str | None = None,
    impute: bool = False,
) -> TableColumns:
    """Return the :class:`~fairacq.data.TableColumns` the options name; exit 2 without a group.

    ``sensitive``, ``categorical`` and ``drop`` may each be comma-separated text or a list of
    such texts (the option given several times); all the names count.
    """
    from fairacq.data import columns_from_options

    groups = join_names(sensitive)
    if groups is None:
        raise fail("--data needs --sensitive COL naming the group column (e.g. --sensitive sex).")
    cats = None if categorical is None else join_names(categorical) or ""
    return columns_from_options(
        label,
        groups,
        cost=cost,
        categorical=cats,
        drop=join_names(drop) or (),
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
        Code 2 on a malformed ``--model-param`` or a model that cannot be built (a
        ``module:Class`` whose import fails too). A ``module:Class`` is remembered, so a later
        failure in its ``fit`` or ``predict_proba`` is one error line (``user_errors``).
    """
    from fairacq.cli.shared._user_model import model_build_failure, remember_user_model
    from fairacq.exceptions import FairacqError
    from fairacq.models import make_learner

    kwargs = dict(_parse_param(p) for p in params or [])
    if not kwargs and ":" not in model:
        return model
    try:
        learner = make_learner(model, **kwargs)
        if ":" in model:
            remember_user_model(model, learner)  # its failures become one error line
        return learner
    except FairacqError as exc:
        raise fail(str(exc)) from None
    except Exception as exc:  # the user's constructor raised, or took no such parameter
        raise fail(model_build_failure(model, list(kwargs), exc)) from None
