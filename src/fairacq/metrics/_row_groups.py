"""Group rates of many prediction vectors on the same rows, with the groups checked once.

A loop that scores many models on one validation set (FAL's what-if models, a threshold
sweep) pays the group checks and encoding of :func:`demographic_parity_diff_abs` on every
call. :class:`RowGroups` does them once and gives the same numbers, bit for bit: the same
counts, the same per-group sums of 0/1 predictions (whole numbers, exact in float64 in any
order), the same division and the same max - min.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import check_binary_labels
from fairacq.exceptions import InvalidDataError
from fairacq.metrics._checks import _groups

__all__ = ["RowGroups"]


class RowGroups:
    """The groups of a fixed set of rows, for the parity of many predictions on those rows.

    Built once from the group labels ``s`` (checked once, as every metric checks them: 1-D,
    no NaN, at least two groups). Each call then checks only the predictions' shape (one
    value per row) and that they are 0/1 (nothing more for a bool array, ``min`` and ``max``
    for an integer array, a full check for other dtypes), and returns exactly what
    :func:`~fairacq.metrics.group_selection_rates` and
    :func:`~fairacq.metrics.demographic_parity_diff_abs` return for the same rows.

    Parameters
    ----------
    s : array-like of shape (n,)
        Group label of each row (ints, strings or bools); at least two groups.

    Attributes
    ----------
    labels : list
        The group labels in sorted order; the columns of :meth:`selection_rates`.
    counts : numpy.ndarray of shape (n_groups,)
        Rows per group, as float64.
    n_rows : int
        Number of rows ``n``.

    Raises
    ------
    InvalidDataError
        If ``s`` is not 1-D, holds NaN or has a single group.

    Examples
    --------
    >>> groups = RowGroups([0, 0, 1, 1, 2, 2])
    >>> groups.demographic_parity_diff_abs([0, 1, 1, 1, 0, 0])
    1.0
    >>> groups.selection_rates([[0, 1, 1, 1, 0, 0], [1, 1, 0, 1, 0, 1]]).tolist()
    [[0.5, 1.0, 0.0], [1.0, 0.5, 0.5]]
    >>> groups.demographic_parity_diff_abs_many([[0, 1, 1, 1, 0, 0], [1, 1, 0, 1, 0, 1]])
    array([1. , 0.5])
    """

    _where = "RowGroups"

    def __init__(self, s: ArrayLike) -> None:
        codes, labels = _groups(self._where, s)
        self.labels: list[Any] = labels
        self.n_rows = int(codes.size)
        self.counts = np.bincount(codes, minlength=len(labels)).astype(np.float64)
        self._codes = codes
        self._one_hot: NDArray[np.float64] | None = None  # built on the first 2-D call

    def __repr__(self) -> str:
        return f"RowGroups(n_rows={self.n_rows}, labels={self.labels!r})"

    def selection_rates(self, y_pred: ArrayLike) -> NDArray[np.float64]:
        """Return the selection rate ``P(Y_hat = 1 | S = g)`` of every group.

        Parameters
        ----------
        y_pred : array-like of shape (n,) or (k, n)
            Binary predictions of the ``n`` rows; a 2-D array holds one prediction vector
            per row.

        Returns
        -------
        numpy.ndarray of shape (n_groups,) or (k, n_groups)
            The rates, one column per group in :attr:`labels` order.

        Raises
        ------
        InvalidDataError
            If ``y_pred`` is not 1-D or 2-D, does not have one value per row, or holds
            values other than 0/1.

        Examples
        --------
        >>> RowGroups(["a", "a", "b", "b"]).selection_rates([1, 0, 1, 1]).tolist()
        [0.5, 1.0]
        """
        return self._rates(self._check(y_pred))

    def demographic_parity_diff_abs(self, y_pred: ArrayLike) -> float:
        """Return the largest gap in selection rate between any two groups (max - min).

        Bit for bit :func:`fairacq.metrics.demographic_parity_diff_abs` of ``y_pred`` and
        the rows' groups.

        Parameters
        ----------
        y_pred : array-like of shape (n,)
            Binary predictions of the ``n`` rows.

        Returns
        -------
        float
            The gap, in ``[0, 1]``; 0 is parity.

        Raises
        ------
        InvalidDataError
            As for :meth:`selection_rates`, and if ``y_pred`` is not 1-D.

        Examples
        --------
        >>> RowGroups([0, 0, 1, 1]).demographic_parity_diff_abs([0, 1, 1, 1])
        0.5
        """
        rates = self._rates(self._check(y_pred, ndim=1))
        return float(rates.max() - rates.min())

    def demographic_parity_diff_abs_many(self, y_preds: ArrayLike) -> NDArray[np.float64]:
        """Return :meth:`demographic_parity_diff_abs` of each of ``k`` prediction vectors.

        Parameters
        ----------
        y_preds : array-like of shape (k, n)
            One vector of binary predictions of the ``n`` rows per row of the array.

        Returns
        -------
        numpy.ndarray of shape (k,)
            The gaps, each bit for bit the 1-D method's.

        Raises
        ------
        InvalidDataError
            As for :meth:`selection_rates`, and if ``y_preds`` is not 2-D.

        Examples
        --------
        >>> groups = RowGroups([0, 0, 1, 1])
        >>> groups.demographic_parity_diff_abs_many([[0, 1, 1, 1], [1, 1, 1, 1]])
        array([0.5, 0. ])
        """
        rates = self._rates(self._check(y_preds, ndim=2))
        gaps: NDArray[np.float64] = rates.max(axis=1) - rates.min(axis=1)
        return gaps

    def _check(self, y_pred: ArrayLike, ndim: int | None = None) -> NDArray[Any]:
        """Return ``y_pred`` if it is 0/1 with one value per row, else raise naming the fix."""
        pred = np.asarray(y_pred)
        if (pred.ndim != ndim if ndim else pred.ndim not in (1, 2)) or (
            pred.shape[-1] != self.n_rows
        ):
            self._wrong_shape(pred.shape, ndim)
        if pred.dtype.kind == "b":
            return pred
        return check_binary_labels(self._where, pred, "y_pred")

    def _wrong_shape(self, shape: tuple[int, ...], ndim: int | None) -> NoReturn:
        shapes = {1: f"({self.n_rows},)", 2: f"(k, {self.n_rows})"}
        wanted = " or ".join(shapes.values()) if ndim is None else shapes[ndim]
        fix = "Predict on the rows the groups were built from."
        if len(shape) == 2 and ndim == 1:
            fix = "For one prediction vector per row use demographic_parity_diff_abs_many."
        raise InvalidDataError(
            f"{self._where}: predictions must have one value per row of the groups, shape "
            f"{wanted}. Got shape {shape}. {fix}"
        )

    def _rates(self, pred: NDArray[Any]) -> NDArray[np.float64]:
        """Return the selection rates of checked predictions (as the metric: sums / counts)."""
        sums: NDArray[np.float64]
        if pred.ndim == 1:
            counted = np.bincount(self._codes, weights=pred, minlength=self.counts.size)
            sums = np.asarray(counted, dtype=np.float64)  # float64 already: no copy
        else:  # sums of 0/1 values are whole numbers, exact in float64 whatever the order
            sums = pred.astype(np.float64) @ self._groups_one_hot()
        rates: NDArray[np.float64] = sums / self.counts
        return rates

    def _groups_one_hot(self) -> NDArray[np.float64]:
        """Return the ``(n, n_groups)`` 0/1 group membership matrix (built once)."""
        if self._one_hot is None:
            one_hot = np.zeros((self.n_rows, self.counts.size))
            one_hot[np.arange(self.n_rows), self._codes] = 1.0
            self._one_hot = one_hot
        return self._one_hot
