"""Parameter constraints and input checks with messages that name the fix.

A small, independent take on scikit-learn's idea of declarative parameter constraints:
each strategy lists ``_parameter_constraints`` and calls ``_validate_params()`` when its work
starts. Messages follow one shape: what is wrong, where, the value found, and the fix.
:func:`read_size` reads a size written as a count (``200``) or a share (``"20%"``), so
budgets and batches keep one form, one rounding and one message everywhere.
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError

__all__ = [
    "HasMethods",
    "Interval",
    "Options",
    "check_binary_labels",
    "check_consistent_length",
    "check_groups",
    "check_known_params",
    "check_no_nan",
    "did_you_mean",
    "read_size",
    "validate_parameter_constraints",
]


@dataclass(frozen=True)
class Interval:
    """A numeric range constraint.

    Parameters
    ----------
    type : type
        ``int`` (integers only) or ``float`` (any real number).
    left, right : float or None
        Bounds; ``None`` means unbounded.
    closed : {"left", "right", "both", "neither"}
        Which bounds are included.
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def is_satisfied_by(self, value: Any) -> bool:
        """Return whether ``value`` lies in the interval and has the right type."""
        if isinstance(value, bool):
            return False
        if self.type is int and not isinstance(value, numbers.Integral):
            return False
        if not isinstance(value, numbers.Real) or np.isnan(float(value)):
            return False
        value = float(value)
        lo_ok = (
            self.left is None
            or value > self.left
            or (self.closed in ("left", "both") and value == self.left)
        )
        hi_ok = (
            self.right is None
            or value < self.right
            or (self.closed in ("right", "both") and value == self.right)
        )
        return bool(lo_ok and hi_ok)

    def __str__(self) -> str:
        lb = "[" if self.closed in ("left", "both") else "("
        rb = "]" if self.closed in ("right", "both") else ")"
        lo = "-inf" if self.left is None else f"{self.left:g}"
        hi = "inf" if self.right is None else f"{self.right:g}"
        kind = "an int" if self.type is int else "a float"
        return f"{kind} in {lb}{lo}, {hi}{rb}"


@dataclass(frozen=True)
class Options:
    """A constraint that accepts one of a fixed set of values (usually strings)."""

    values: frozenset[Any]

    def __init__(self, values: Iterable[Any]) -> None:
        object.__setattr__(self, "values", frozenset(values))

    def is_satisfied_by(self, value: Any) -> bool:
        """Return whether ``value`` is one of the options."""
        try:
            return value in self.values
        except TypeError:
            return False

    def __str__(self) -> str:
        return "one of {" + ", ".join(repr(v) for v in sorted(self.values, key=str)) + "}"


@dataclass(frozen=True)
class HasMethods:
    """A constraint that accepts objects exposing all the named methods."""

    methods: tuple[str, ...]

    def __init__(self, methods: Sequence[str]) -> None:
        object.__setattr__(self, "methods", tuple(methods))

    def is_satisfied_by(self, value: Any) -> bool:
        """Return whether ``value`` has every method."""
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self) -> str:
        return "an object with methods " + ", ".join(self.methods)


def _satisfies(constraint: Any, value: Any) -> bool:
    if constraint is None:
        return value is None
    if constraint == "random_state":
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value) >= 0
        return value is None or isinstance(
            value, (np.random.Generator, np.random.SeedSequence, np.random.RandomState)
        )
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "callable":
        return callable(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return bool(constraint.is_satisfied_by(value))


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if constraint == "random_state":
        return "an int >= 0, a numpy Generator, SeedSequence or RandomState, or None"
    if constraint in ("boolean", "callable"):
        return {"boolean": "a bool", "callable": "a callable"}[constraint]
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__}"
    return str(constraint)


def validate_parameter_constraints(
    constraints: dict[str, list[Any]], params: dict[str, Any], caller: str
) -> None:
    """Check every parameter against its list of accepted constraints.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, the caller, what is accepted and the value found.
    """
    for name, accepted in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if any(_satisfies(c, value) for c in accepted):
            continue
        wanted = " or ".join(_describe(c) for c in accepted)
        raise InvalidParameterError(
            f"The '{name}' parameter of {caller} must be {wanted}. Got {value!r} instead."
            + _suggestion(value, accepted)
        )


def _suggestion(value: Any, accepted: list[Any]) -> str:
    """`` Did you mean 'x'?`` for a string close to one of the options, else ``""``."""
    if not isinstance(value, str):
        return ""
    names = [v for c in accepted if isinstance(c, Options) for v in c.values if isinstance(v, str)]
    close = difflib.get_close_matches(value, sorted(names), n=1, cutoff=0.5)
    return f" Did you mean '{close[0]}'?" if close else ""


def did_you_mean(kind: str, name: str, choices: Iterable[str], where: str) -> UnknownNameError:
    """Build an :class:`UnknownNameError` suggesting the closest known name.

    Examples
    --------
    >>> str(did_you_mean("metric", "acuracy", ["accuracy", "auc"], "fairacq.metrics.available()"))
    "Unknown metric 'acuracy'. Did you mean 'accuracy'? See fairacq.metrics.available()."
    """
    choices = sorted(choices)
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
    hint = f" Did you mean '{close[0]}'?" if close else f" Known: {', '.join(choices)}."
    return UnknownNameError(f"Unknown {kind} '{name}'.{hint} See {where}.")


def check_known_params(where: str, params: Iterable[str], accepted: Iterable[str]) -> None:
    """Refuse a keyword that is not among ``accepted``, naming the closest accepted one.

    A factory calls this before building, so a typo (``alhpa=``) fails instead of being
    dropped silently.

    Parameters
    ----------
    where : str
        What received the keywords, named first in the message (e.g. ``"make_acquirer: method
        'datasift'"``).
    params : iterable of str
        The keywords given.
    accepted : iterable of str
        The keywords ``where`` takes.

    Raises
    ------
    InvalidParameterError
        Naming the first unknown keyword, the closest accepted one and every accepted one.

    Examples
    --------
    >>> check_known_params("f", ["alpha"], ["alpha", "budget"])
    >>> try:
    ...     check_known_params("f", ["alhpa"], ["alpha", "budget"])
    ... except InvalidParameterError as exc:
    ...     print(exc)
    f takes no parameter 'alhpa'. Did you mean 'alpha'? It takes: alpha, budget.
    """
    known = sorted(accepted)
    unknown = sorted(set(params) - set(known))
    if not unknown:
        return
    close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.6)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise InvalidParameterError(
        f"{where} takes no parameter '{unknown[0]}'.{hint} It takes: {', '.join(known) or 'none'}."
    )


def check_consistent_length(where: str, **arrays: Any) -> int:
    """Check that all named arrays have the same length and return it.

    Raises
    ------
    InvalidDataError
        Listing every array's length.
    """
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        found = ", ".join(f"{k}={n}" for k, n in lengths.items())
        raise InvalidDataError(
            f"{where}: inputs have different lengths ({found}). "
            "Pass one value per row for every input."
        )
    return next(iter(lengths.values()), 0)


#: Largest magnitude a feature may have: its square must stay finite in float64, since
#: standardising, regressions and distances square every value.
MAX_ABS_VALUE = 1e150


def check_no_nan(where: str, name: str, values: Any) -> None:
    """Raise :class:`InvalidDataError` naming the column and the first rows holding NaN or ±inf.

    Numeric values must also stay below :data:`MAX_ABS_VALUE` in magnitude (their square
    would overflow to inf).
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "fc":
        if arr.dtype.kind != "O":
            return
        flat = [v is None or (isinstance(v, float) and np.isnan(v)) for v in arr.ravel()]
        _refuse(where, name, np.asarray(flat, dtype=bool).reshape(arr.shape), "NaN values",
                "Impute or drop those rows first.")  # fmt: skip
        return
    _refuse(where, name, np.isnan(arr), "NaN values", "Impute or drop those rows first.")
    _refuse(where, name, np.isinf(arr), "infinite values", "Replace or drop those rows first.")
    with np.errstate(invalid="ignore"):
        huge = np.abs(arr) >= MAX_ABS_VALUE
    _refuse(
        where,
        name,
        huge,
        f"values of magnitude {MAX_ABS_VALUE:g} or more (their square overflows)",
        "Rescale the column (e.g. to other units or its logarithm).",
    )


def _refuse(where: str, name: str, mask: Any, what: str, fix: str) -> None:
    """Raise naming the column, how many rows are bad and the first five of them."""
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim > 1:
        mask = np.asarray(mask.any(axis=tuple(range(1, mask.ndim))), dtype=bool)
    n = int(mask.sum())
    if n:
        rows = ", ".join(str(i) for i in np.flatnonzero(mask)[:5])
        more = ", ..." if n > 5 else ""
        raise InvalidDataError(
            f"{where}: column '{name}' has {n} {what} (rows {rows}{more}). {fix}"
        )


def check_binary_labels(where: str, y: Any, name: str = "y") -> np.ndarray:
    """Return ``y`` as an int array of 0/1, or raise naming the values found."""
    arr = np.asarray(y)
    if arr.dtype.kind in "biu" and (arr.size == 0 or (arr.min() >= 0 and arr.max() <= 1)):
        return arr.astype(np.int64)  # the common case, without sorting the values
    check_no_nan(where, name, arr)
    values = np.unique(arr)
    if not np.isin(values, [0, 1]).all():
        shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values[:6])
        raise InvalidDataError(
            f"{where}: label '{name}' must be binary 0/1. Found values {{{shown}}}. "
            "Map the favourable outcome to 1 and the other to 0."
        )
    return arr.astype(np.int64)


def check_groups(where: str, s: Any, name: str = "s") -> np.ndarray:
    """Return group codes as ints ``0..G-1``-compatible, requiring at least two groups."""
    arr = np.asarray(s)
    if arr.dtype.kind in "iub" and arr.size and arr.min() != arr.max():
        return arr.astype(np.int64)  # integer codes of two groups or more, without sorting
    check_no_nan(where, name, arr)
    values = np.unique(arr)
    if len(values) < 2:
        only = values[0].item() if len(values) else "none"
        raise InvalidDataError(
            f"{where}: sensitive attribute '{name}' has a single group ({only!r}). "
            "Fairness needs at least two groups; check the upstream filter."
        )
    if arr.dtype.kind not in "iub":
        raise InvalidDataError(
            f"{where}: sensitive attribute '{name}' must hold integer group codes. "
            f"Got dtype {arr.dtype}. Encode groups as 0..G-1 (pandas.factorize does this)."
        )
    return arr.astype(np.int64)


_SIZE = re.compile(r"\s*(?:(?P<pct>\d+(?:\.\d*)?|\.\d+)\s*%|(?P<count>\d+))\s*")


def read_size(
    value: Any,
    total: float,
    *,
    name: str = "budget",
    unit: str = "rows",
    rounding: Literal["floor", "round"] = "floor",
    minimum: int = 0,
) -> int:
    """Return the count ``value`` means: itself, or ``N%`` of ``total``.

    Parameters
    ----------
    value : int or str
        A whole number (``200`` or ``"200"``) or a percentage (``"20%"``). A fraction such
        as ``0.2`` is refused: it could mean 20 % or a count.
    total : float
        What a percentage is a share of.
    name : str, default="budget"
        How the message names the value (``"--batch"`` on the command line).
    unit : str, default="rows"
        What a count counts, for the message.
    rounding : {"floor", "round"}, default="floor"
        A share rounded down (never more than asked) or to the nearest count.
    minimum : int, default=0
        The smallest count accepted (a share is raised to it).

    Raises
    ------
    InvalidParameterError
        For any other form, naming both, a percentage outside (0%, 100%], or a count below
        ``minimum``.

    Examples
    --------
    >>> read_size("20%", 1000), read_size(150, 10), read_size("12.5%", 9, rounding="round")
    (200, 150, 1)
    """
    match = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        count = int(value)
    elif match is not None and match["count"] is not None:
        count = int(match["count"])
    elif match is not None:
        share = float(match["pct"])
        if not 0 < share <= 100:
            raise InvalidParameterError(
                f"{name} {value!r} is not a percentage in (0%, 100%]. Write e.g. 20%."
            )
        exact = share / 100 * total
        return max(minimum, math.floor(exact) if rounding == "floor" else round(exact))
    else:
        raise InvalidParameterError(
            f"{name} {value!r} is not a size. Write a whole number of {unit} such as 200, "
            "or a percentage such as 20%."
        )
    if count < minimum:
        raise InvalidParameterError(f"{name} must be at least {minimum}, got {count}.")
    return count
