"""Input checks and group encoding shared by every metric module (private helpers only).

Every public metric validates its inputs here, once, with the messages of
:mod:`fairacq._validation`: one value per row, no NaN, binary labels where the metric needs
them, and at least two groups. Group labels may be ints, strings or bools; they are encoded
as codes ``0..G-1`` in sorted label order with :func:`numpy.unique`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import (
    check_binary_labels,
    check_consistent_length,
    check_groups,
    check_no_nan,
)
from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__: list[str] = []


def _as_1d(where: str, values: ArrayLike, name: str) -> NDArray[Any]:
    """Return ``values`` as a 1-D array or raise naming the shape found."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidDataError(
            f"{where}: '{name}' must be 1-D (one value per row). Got shape {arr.shape}. "
            "Pass a 1-D array or a pandas Series (use .ravel() on a column vector)."
        )
    return arr


def _rows(where: str, **arrays: ArrayLike | None) -> dict[str, NDArray[Any]]:
    """Return the non-None inputs as 1-D arrays after checking they have one value per row."""
    out = {k: _as_1d(where, v, k) for k, v in arrays.items() if v is not None}
    check_consistent_length(where, **out)
    return out


def _binary(where: str, values: ArrayLike, name: str) -> NDArray[np.int64]:
    """Return 0/1 labels as int64, rejecting NaN and other values."""
    arr = _as_1d(where, values, name)
    out: NDArray[np.int64] = check_binary_labels(where, arr, name)
    return out


def _real(where: str, values: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return finite real numbers as float64, rejecting NaN, infinities and non-numbers."""
    arr = _as_1d(where, values, name)
    check_no_nan(where, name, arr)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidDataError(
                f"{where}: '{name}' must hold numbers. Got dtype {arr.dtype}. "
                "Convert the column to float before calling the metric."
            ) from exc
    out = arr.astype(np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        rows = ", ".join(str(i) for i in np.flatnonzero(bad)[:5])
        raise InvalidDataError(
            f"{where}: '{name}' has {int(bad.sum())} infinite values (rows {rows}). "
            "Replace them with finite numbers."
        )
    return out


def _unit(where: str, values: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return values in ``[0, 1]`` (probabilities or soft truth values) as float64."""
    out = _real(where, values, name)
    bad = (out < 0.0) | (out > 1.0)
    if bad.any():
        rows = ", ".join(str(i) for i in np.flatnonzero(bad)[:5])
        raise InvalidDataError(
            f"{where}: '{name}' must lie in [0, 1]; {int(bad.sum())} values do not "
            f"(rows {rows}). Pass probabilities, e.g. predict_proba(X)[:, 1]."
        )
    return out


def _groups(where: str, s: ArrayLike, name: str = "s") -> tuple[NDArray[np.int64], list[Any]]:
    """Encode group labels as codes ``0..G-1`` (sorted label order) and return the labels.

    Raises :class:`InvalidDataError` on NaN/None, unsortable mixed types or fewer than two
    groups.
    """
    arr = _as_1d(where, s, name)
    check_no_nan(where, name, arr)
    try:
        labels, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise InvalidDataError(
            f"{where}: sensitive attribute '{name}' mixes label types that cannot be "
            "compared. Convert every label to one type (e.g. str) first."
        ) from exc
    if len(labels) < 2:
        check_groups(where, arr, name)  # raises the project's single-group message
        raise InvalidDataError(  # pragma: no cover - check_groups always raises here
            f"{where}: sensitive attribute '{name}' has a single group. "
            "Fairness needs at least two groups; check the upstream filter."
        )
    return codes.astype(np.int64).reshape(-1), list(labels.tolist())


def _code_of(where: str, labels: list[Any], value: Any, param: str) -> int:
    """Return the code of group ``value`` or raise naming the groups that exist."""
    if isinstance(value, np.generic):
        value = value.item()
    for code, label in enumerate(labels):
        if bool(label == value):
            return code
    raise InvalidParameterError(
        f"{where}: {param}={value!r} is not a group of s. Groups found: {labels!r}. "
        f"Pass one of them as {param}."
    )


def _pair(where: str, labels: list[Any], protected: Any, privileged: Any) -> tuple[int, int]:
    """Resolve the (protected, privileged) codes of a two-group attribute.

    With neither given, the first label in sorted order is protected and the second
    privileged (Hasan & Pradhan's S=0 protected / S=1 privileged convention).
    """
    if len(labels) != 2:
        raise InvalidDataError(
            f"{where}: the signed metric compares exactly two groups; s has {len(labels)} "
            f"({labels!r}). Use the *_abs / unsigned version (largest gap over all groups) "
            "or binarise s (protected vs rest) first."
        )
    if protected is None and privileged is None:
        return 0, 1
    if protected is None:
        j = _code_of(where, labels, privileged, "privileged")
        return 1 - j, j
    i = _code_of(where, labels, protected, "protected")
    if privileged is None:
        return i, 1 - i
    j = _code_of(where, labels, privileged, "privileged")
    if i == j:
        raise InvalidParameterError(
            f"{where}: protected and privileged are the same group ({protected!r}). "
            "Pass two different groups."
        )
    return i, j


def _protected_mask(
    where: str, codes: NDArray[np.int64], labels: list[Any], protected: Any
) -> NDArray[np.bool_]:
    """Rows of the protected group; everyone else is the unprotected group (Zhang & Ramesh)."""
    if protected is None:
        if len(labels) != 2:
            raise InvalidParameterError(
                f"{where}: s has {len(labels)} groups ({labels!r}), so the protected group "
                "is ambiguous. Pass protected=<label>; all other groups form the "
                "unprotected group."
            )
        code = 0
    else:
        code = _code_of(where, labels, protected, "protected")
    mask: NDArray[np.bool_] = codes == code
    return mask


def _group_mean(
    values: NDArray[np.float64] | NDArray[np.int64],
    codes: NDArray[np.int64],
    n_groups: int,
    mask: NDArray[np.bool_] | None = None,
) -> NDArray[np.float64]:
    """Mean of ``values`` per group over the rows in ``mask`` (NaN for an empty group)."""
    if mask is not None:
        codes = codes[mask]
        values = values[mask]
    counts = np.bincount(codes, minlength=n_groups).astype(np.float64)
    sums = np.bincount(codes, weights=values, minlength=n_groups).astype(np.float64)
    out = np.full(n_groups, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def _gap(rates: NDArray[np.float64]) -> float:
    """Largest pairwise gap (max - min) over the groups where the rate is defined."""
    defined = rates[~np.isnan(rates)]
    if defined.size < 2:
        return float("nan")
    return float(defined.max() - defined.min())


def _safe_ratio(num: float, den: float) -> float:
    """``num / den`` with 0/0 = 1 (both groups equal) and x/0 = inf for x > 0."""
    if den == 0.0:
        return 1.0 if num == 0.0 else float("inf")
    return num / den


def _series(values: NDArray[np.float64], labels: list[Any], name: str) -> pd.Series[float]:
    """Wrap per-group values in a Series indexed by group label (index name ``group``)."""
    return pd.Series(values, index=pd.Index(labels, name="group"), name=name, dtype=np.float64)
