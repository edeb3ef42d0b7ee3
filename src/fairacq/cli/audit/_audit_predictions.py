"""``fairacq audit --predictions COL``: audit the predictions the user's own model made.

A predictions column holds either decisions or scores, told apart by their values: 0/1 (or
booleans, or values of the label column compared with ``--positive``) are decisions; numbers
with any value strictly between 0 and 1 are scores, and a row is predicted favourable when
its score is at least ``--threshold`` (0.5). Nothing is trained: every row is a test row.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairacq.cli.shared._errors import fail

if TYPE_CHECKING:
    import pandas as pd

    from fairacq.models import AuditReport

__all__ = ["audit_table_predictions", "is_score_column"]


def is_score_column(values: pd.Series) -> bool:
    """Whether a predictions column holds scores: numbers, one of them strictly between 0 and 1.

    Examples
    --------
    >>> import pandas as pd
    >>> is_score_column(pd.Series([0.2, 0.9])), is_score_column(pd.Series([0, 1, 2]))
    (True, False)
    """
    import pandas as pd

    if values.dtype == bool or not pd.api.types.is_numeric_dtype(values):
        return False
    found = values.dropna()
    return bool(((found > 0) & (found < 1)).any())


def audit_table_predictions(
    path: Path,
    *,
    label: str,
    sensitive: Sequence[str],
    predictions: str,
    positive: str | None,
    threshold: float | None,
    metrics: Sequence[str],
) -> AuditReport:
    """Audit column ``predictions`` of the table at ``path`` against its ``label`` column.

    Raises
    ------
    typer.Exit
        Code 2 when the column is missing, is also the label or a group column, or
        ``threshold`` is given for a column of decisions.
    FairacqError
        On a table, label, group or predictions column fairacq cannot use.
    """
    from fairacq.data import read_table
    from fairacq.models import audit_predictions

    frame = read_table(path)
    _check_roles(
        frame, path.name, label=label, sensitive=sensitive, predictions=predictions,
        positive=positive,
    )  # fmt: skip
    values = frame[predictions]
    scores = is_score_column(values)
    if threshold is not None and not scores:
        raise fail(
            f"--threshold applies to a column of scores; column {predictions!r} holds "
            "decisions (0/1 or label values). Drop --threshold."
        )
    return audit_predictions(
        frame[label],
        None if scores else values,
        scores=values if scores else None,
        sensitive_features=frame[list(sensitive)],
        positive=positive,
        threshold=0.5 if threshold is None else threshold,
        metrics=metrics,
        name=path.name,
        model=f"predictions in column '{predictions}'",
    )


def _check_roles(
    frame: pd.DataFrame,
    name: str,
    *,
    label: str,
    sensitive: Sequence[str],
    predictions: str,
    positive: str | None,
) -> None:
    """Refuse a missing predictions column or one named in two roles; check label and groups."""
    from fairacq.data import TableColumns, prepare_table

    if predictions not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:12]))
        raise fail(
            f"{name}: no column {predictions!r} for --predictions (the table has {shown}). "
            "Name the column holding your model's predictions."
        )
    if predictions == label or predictions in sensitive:
        role = "--label" if predictions == label else "--sensitive"
        raise fail(
            f"{name}: column {predictions!r} is named by both {role} and --predictions. "
            "Give each role its own column."
        )
    roles: list[Any] = [label, *sensitive]
    others = tuple(c for c in frame.columns if c not in roles)
    columns = TableColumns(label, tuple(sensitive), drop=others, positive=positive)
    prepare_table(frame, columns, name=name)  # label and groups checked as in every command
