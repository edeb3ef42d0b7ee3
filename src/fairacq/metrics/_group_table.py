"""One table with the size, rates and performance of every group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fairacq._typing import GroupLabel
from fairacq.exceptions import InvalidDataError
from fairacq.metrics._checks import _binary, _groups, _real, _rows
from fairacq.metrics._performance import _per_group_auc

__all__ = ["group_table"]

_COLUMNS = ["group", "size", "base_rate", "selection_rate", "accuracy", "tpr", "fpr", "auc"]


def group_table(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    *,
    scores: ArrayLike | None = None,
    group_names: Sequence[GroupLabel] | None = None,
) -> pd.DataFrame:
    """Return one row per group with its size, rates, accuracy and AUC-ROC.

    Every rate comes from one :func:`numpy.bincount` over (group, label) cells; the AUC
    needs scikit-learn once per group.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Binary predictions.
    s : array-like of shape (n,)
        Group of each row: any labels, or int codes ``0..G-1`` when ``group_names`` is
        given; at least two groups.
    scores : array-like of shape (n,) or None, default=None
        Scores for the AUC-ROC column (e.g. ``predict_proba(X)[:, 1]``); None leaves the
        column NaN.
    group_names : sequence or None, default=None
        Name of each code ``0..G-1`` (e.g. ``FairDataset.group_names`` with
        ``FairDataset.s``). Every name gets a row, with size 0 and NaN rates if no row has
        its code. None uses the labels found in ``s``, in sorted order.

    Returns
    -------
    pandas.DataFrame
        Columns ``group``, ``size``, ``base_rate``, ``selection_rate``, ``accuracy``,
        ``tpr``, ``fpr``, ``auc``. A value is NaN where undefined: ``tpr`` without a
        positive row, ``fpr`` without a negative row, ``auc`` with one class or no scores.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels, a single group, or codes of ``s``
        outside ``0..len(group_names)-1``.

    Examples
    --------
    >>> t = group_table([1, 0, 1, 1], [1, 1, 0, 1], ["a", "a", "b", "b"])
    >>> t[["group", "size", "selection_rate", "tpr", "fpr"]].to_dict("list")
    {'group': ['a', 'b'], 'size': [2, 2], 'selection_rate': [1.0, 0.5], \
'tpr': [1.0, 0.5], 'fpr': [1.0, nan]}
    """
    where = "group_table"
    a = _rows(where, y_true=y_true, y_pred=y_pred, s=s, scores=scores)
    true = _binary(where, a["y_true"], "y_true")
    pred = _binary(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    names: list[Any] = labels
    if group_names is not None:
        names = list(group_names)
        raw = a["s"]
        if raw.dtype.kind not in "iu" or raw.min() < 0 or raw.max() >= len(names):
            raise InvalidDataError(
                f"{where}: with group_names ({len(names)} names), s must hold int codes "
                f"0..{len(names) - 1}. Got labels {labels[:6]!r}. Pass FairDataset.s, or "
                "leave group_names=None to use the labels in s."
            )
        codes = raw.astype(np.int64)
    n_groups = len(names)

    cell = 2 * codes + true
    cnt = np.bincount(cell, minlength=2 * n_groups).reshape(n_groups, 2).astype(np.float64)
    sel = np.bincount(cell, weights=pred, minlength=2 * n_groups).reshape(n_groups, 2)
    size = cnt.sum(axis=1)

    def ratio(num: Any, den: Any) -> Any:
        out = np.full(np.shape(num), np.nan)
        np.divide(num, den, out=out, where=den > 0)
        return out

    auc = np.full(n_groups, np.nan)
    if "scores" in a:
        auc = _per_group_auc("roc", true, _real(where, a["scores"], "scores"), codes, n_groups)
    return pd.DataFrame(
        {
            "group": names,
            "size": size.astype(np.int64),
            "base_rate": ratio(cnt[:, 1], size),
            "selection_rate": ratio(sel.sum(axis=1), size),
            # correct = true positives + true negatives (negatives not selected)
            "accuracy": ratio(sel[:, 1] + (cnt[:, 0] - sel[:, 0]), size),
            "tpr": ratio(sel[:, 1], cnt[:, 1]),
            "fpr": ratio(sel[:, 0], cnt[:, 0]),
            "auc": auc,
        },
        columns=_COLUMNS,
    )
