"""Is a model's output worth measuring? Probabilities checked, one-class models named.

A model whose probabilities are NaN, outside [0, 1] or not one column per class is no
classifier: every metric computed from it is meaningless, so :func:`check_probabilities`
refuses it with :class:`~fairacq.exceptions.DegenerateModelError`. A model that predicts
one class for every row is a classifier, but its parity gaps are zero by construction, not
because it is fair: :func:`one_class_problem` words that, and every command that reports a
fairness number keeps the words as a warning and never calls such a model fair.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import DegenerateModelError

__all__ = ["check_probabilities", "is_one_class", "one_class_problem"]

#: How far outside [0, 1] a probability may stray by rounding before it is refused.
_ROUNDING = 1e-6


def check_probabilities(proba: ArrayLike, *, where: str = "the model") -> NDArray[np.float64]:
    """Return the positive-class probability of each row, or refuse outputs no classifier gives.

    Parameters
    ----------
    proba : array-like of shape (n_rows, 2) or (n_rows,)
        What ``predict_proba`` returned: one column per class, or the positive class's
        probability alone.
    where : str, default="the model"
        Names the model in the message.

    Returns
    -------
    ndarray of shape (n_rows,)
        The positive-class probabilities, clipped to [0, 1] (rounding only).

    Raises
    ------
    DegenerateModelError
        On NaN or infinite values, values outside [0, 1], or a column count other than two.

    Examples
    --------
    >>> check_probabilities([[0.8, 0.2], [0.1, 0.9]])
    array([0.2, 0.9])
    """
    arr = np.asarray(proba, dtype=np.float64)
    if arr.ndim == 2:
        if arr.shape[1] != 2:
            raise DegenerateModelError(_columns_message(arr.shape[1], where))
        arr = arr[:, 1]
    elif arr.ndim != 1:
        raise DegenerateModelError(
            f"{where} gave probabilities of shape {arr.shape}; a classifier gives one row per "
            "person and one column per class. Check the model's predict_proba."
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        raise DegenerateModelError(
            f"{where} gave {int(bad.sum())} of {arr.size} probabilities that are not numbers "
            "(NaN or infinite): its fit diverged or the features hold extreme values. Scale "
            "or clip the features, or use another model; no fairness number can be read "
            "from it."
        )
    if arr.size and (arr.min() < -_ROUNDING or arr.max() > 1 + _ROUNDING):
        raise DegenerateModelError(
            f"{where} gave probabilities from {arr.min():.4g} to {arr.max():.4g}, outside 0 "
            "to 1: its predict_proba does not return probabilities. Wrap it in scikit-learn's "
            "CalibratedClassifierCV or use another model."
        )
    return np.clip(arr, 0.0, 1.0)


def _columns_message(n_columns: int, where: str) -> str:
    if n_columns == 1:
        return (
            f"{where} gave one probability column, not one per class: it was trained on rows "
            "of one class only, or its predict_proba is not a classifier's. Give it rows of "
            "both classes (check --label and --positive), or use another model."
        )
    return (
        f"{where} gave {n_columns} probability columns; fairacq needs a binary classifier "
        "(two columns). Check --label and --positive."
    )


def is_one_class(y_pred: ArrayLike) -> bool:
    """Whether the predictions hold a single class (an empty array does not count)."""
    arr = np.asarray(y_pred)
    return bool(arr.size) and bool((arr == arr.flat[0]).all())


def one_class_problem(y_pred: ArrayLike, *, where: str = "test rows") -> str | None:
    """Word the warning for a model that predicts one class on ``where`` (None otherwise).

    Examples
    --------
    >>> one_class_problem([0, 0, 0])[:44]
    'the model predicts 0 for every one of the te'
    >>> one_class_problem([0, 1, 0]) is None
    True
    """
    arr: Any = np.asarray(y_pred)
    if not is_one_class(arr):
        return None
    value = arr.flat[0]
    shown = int(value) if np.issubdtype(arr.dtype, np.number) else value
    return (
        f"the model predicts {shown} for every one of the {where}, so its fairness gaps are "
        "zero by construction and say nothing about fairness; do not read it as fair. Check "
        "the label balance (--positive), the features or the model."
    )
