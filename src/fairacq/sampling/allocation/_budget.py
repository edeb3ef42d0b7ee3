"""A sampling budget written as a count of samples or as a percentage of the table."""

from __future__ import annotations

import math

from fairacq._validation import read_size
from fairacq.exceptions import BudgetError

__all__ = ["check_budget_fits", "resolve_budget"]


def resolve_budget(budget: int | str, n_rows: int) -> int:
    """Return the number of samples ``budget`` means for a table of ``n_rows`` rows.

    Parameters
    ----------
    budget : int or str
        A count (``200`` or ``"200"``) or a percentage of the table (``"20%"``: 20 % of
        ``n_rows``, rounded down). A fraction such as ``0.2`` is refused: it could mean 20 %
        or a count.
    n_rows : int
        Rows of the table.

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        For anything else, naming both accepted forms, or a percentage outside (0, 100].

    Examples
    --------
    >>> resolve_budget("20%", 1000), resolve_budget(150, 1000), resolve_budget("150", 10)
    (200, 150, 150)
    """
    return read_size(budget, n_rows, name="budget", unit="samples", rounding="floor")


def check_budget_fits(budget: int, n_rows: int, test_size: float) -> None:
    """Refuse a budget larger than the rows left to draw once the test split is held out.

    Raises
    ------
    BudgetError
        Naming the budget, the table's rows, the held-out rows and the largest budget.
    """
    n_test = math.ceil(test_size * n_rows)
    n_pool = n_rows - n_test
    if budget > n_pool:
        raise BudgetError(
            f"budget {budget} is larger than the {n_pool} rows there are to draw from (the "
            f"table's {n_rows} rows less {n_test} held out for testing, test_size="
            f"{test_size:g}); samples are drawn without replacement. Lower the budget "
            f"(--budget {n_pool} or less, or a percentage up to "
            f"{math.floor(100 * n_pool / n_rows)}%)."
        )
