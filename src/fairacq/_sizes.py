"""A size written as a count (``200``) or as a share of a total (``"20%"``).

Budgets and batches are written either way on the command line and in the API; one reader
keeps the forms, the rounding and the messages the same everywhere.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any, Literal

from fairacq.exceptions import InvalidParameterError

__all__ = ["read_size"]

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
