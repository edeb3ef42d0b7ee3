"""What an audit reports: the per-group table with intervals, the metrics and the warnings.

:class:`AuditReport` is the one result shape of :func:`~fairacq.models.audit` (a model
trained here, or one already fitted) and :func:`~fairacq.models.audit_predictions` (the
predictions of the user's own model). Whatever produced the predictions, the same code turns
them into the report, so the three read alike and warn alike.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq.data import FairDataset
from fairacq.exceptions import ResultWarning
from fairacq.metrics import group_table
from fairacq.models._health import one_class_problem
from fairacq.models._mitigated_model import prediction_metrics

__all__ = ["AuditReport"]

#: Fewer test rows than this in a group make its numbers too noisy to compare.
SMALL_GROUP = 30

#: Where the predictions came from: a model trained here on a split, a model the user
#: fitted, or a column of predictions the user's own model made.
Source = Literal["trained", "fitted", "predictions"]


@dataclass(frozen=True)
class AuditReport:
    """The result of :func:`~fairacq.models.audit` and :func:`~fairacq.models.audit_predictions`.

    Attributes
    ----------
    dataset, model : str
        What was audited.
    sensitive : tuple of str
        The sensitive attribute(s) defining the groups.
    n_train, n_test : int
        Split sizes; ``n_train`` is 0 when no model was trained here (every row is a test
        row).
    metrics : dict
        Metric name -> value on the test rows.
    groups : pandas.DataFrame
        Per-group size, base rate, selection rate, accuracy with its 95 % Wilson interval
        (``accuracy_low``, ``accuracy_high``), TPR, FPR and AUC.
    y_test, y_pred, s_test : ndarray
        Test labels, predictions and group codes (for cross-checks).
    warnings : tuple of str
        Where the numbers cannot be trusted as asked (small groups, a one-class model).
    source : {"trained", "fitted", "predictions"}, default="trained"
        Where the predictions came from: a model trained here on a split, an already fitted
        model scored on every row, or the user's own predictions.
    """

    dataset: str
    model: str
    sensitive: tuple[str, ...]
    n_train: int
    n_test: int
    metrics: dict[str, float]
    groups: pd.DataFrame
    y_test: np.ndarray = field(repr=False)
    y_pred: np.ndarray = field(repr=False)
    s_test: np.ndarray = field(repr=False)
    warnings: tuple[str, ...] = ()
    source: Source = "trained"

    @property
    def one_class(self) -> bool:
        """Whether the audited predictions hold one class (so every parity gap is zero)."""
        return one_class_problem(self.y_pred) is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the per-row arrays)."""
        return {
            "dataset": self.dataset,
            "model": self.model,
            "sensitive": list(self.sensitive),
            "n_train": self.n_train,
            "n_test": self.n_test,
            "source": self.source,
            "one_class": self.one_class,
            "metrics": self.metrics,
            "warnings": list(self.warnings),
            "groups": [
                {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in row.items()}
                for row in self.groups.to_dict("records")
            ],
        }


def _build_report(
    labels: FairDataset,
    y_pred: NDArray[np.int64],
    scores: NDArray[np.float64] | None,
    *,
    model: str,
    metrics: Sequence[str],
    source: Source,
    n_train: int = 0,
) -> AuditReport:
    """Measure ``y_pred`` against ``labels``' rows, warn where it cannot be trusted, report.

    ``labels`` gives the true labels, groups and names of the audited rows (its features are
    not used). Each warning is raised as a :class:`~fairacq.exceptions.ResultWarning` and
    kept in the report.
    """
    values = prediction_metrics(y_pred, labels, metrics, scores=scores)
    table = _with_intervals(
        group_table(labels.y, y_pred, labels.s, scores=scores, group_names=labels.group_names)
    )
    where = "test rows" if source == "trained" else "rows"
    problems = _audit_warnings(table, y_pred, where=where)
    for problem in problems:
        warnings.warn(problem, ResultWarning, stacklevel=3)
    return AuditReport(
        dataset=labels.name,
        model=model,
        sensitive=tuple(a.removeprefix("sensitive:") for a in labels.sensitive_attrs),
        n_train=n_train,
        n_test=len(labels),
        metrics=values,
        groups=table,
        y_test=labels.y,
        y_pred=y_pred,
        s_test=labels.s,
        warnings=tuple(problems),
        source=source,
    )


def _with_intervals(table: pd.DataFrame) -> pd.DataFrame:
    """Add the 95 % Wilson interval of each group's accuracy (NaN for an empty group)."""
    n = table["size"].to_numpy(dtype=float)
    p = table["accuracy"].to_numpy(dtype=float)
    z = 1.959963984540054
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    at = list(table.columns).index("accuracy") + 1
    table.insert(at, "accuracy_low", centre - half)
    table.insert(at + 1, "accuracy_high", centre + half)
    return table


def _audit_warnings(table: pd.DataFrame, y_pred: np.ndarray, *, where: str) -> list[str]:
    """List what voids the numbers: one predicted class first, then small groups."""
    out = []
    one_class = one_class_problem(y_pred, where=where)
    if one_class is not None:
        out.append(one_class)
    small = table[table["size"] < SMALL_GROUP]
    if len(small):
        listed = ", ".join(
            f"{g} ({int(n)} rows, accuracy {lo:.2f}-{hi:.2f})"
            for g, n, lo, hi in small[
                ["group", "size", "accuracy_low", "accuracy_high"]
            ].itertuples(index=False)
        )
        out.append(
            f"groups with fewer than {SMALL_GROUP} {where}: {listed}; their rates are too "
            "noisy to compare (95 % intervals shown). Collect more rows of them or merge groups."
        )
    return out
