"""What ``fairacq acquire`` tells its user: what was paid for, and why the run stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is loaded by the run, not by `fairacq --help`
    import pandas as pd

__all__ = ["spending", "spending_counts", "stop_words"]

#: Why a run stopped, in words (the keys are ``Acquirer.stop_reason_``).
_STOPS = {
    "budget": "the budget was spent",
    "tau": "the validation gap came within the fairness tolerance (--tau)",
    "max_evaluations": "it had tried as many batches as the pool can fill, the most it tries",
    "exhausted": "no pool row it could still take was left",
    "callback": "it was asked to stop",
}


def stop_words(reason: str) -> str:
    """Say why a run stopped in words (an unknown reason is shown as it is).

    Examples
    --------
    >>> stop_words("budget")
    'the budget was spent'
    """
    return _STOPS.get(reason, reason)


def spending_counts(rows: pd.DataFrame, counts: dict[str, int]) -> dict[str, Any]:
    """Return what ``summary.json`` says was paid for, trained on, set aside and read.

    Parameters
    ----------
    rows : pandas.DataFrame
        ``acquired.parquet``: one row per row paid for, with ``trained_on`` and ``cost_paid``.
    counts : dict
        The trace's final ``labels_seen`` and ``rows_evaluated`` (empty from older traces).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"trained_on": [True, False], "cost_paid": [2.0, 1.5]})
    >>> spending_counts(rows, {"labels_seen": 5, "rows_evaluated": 2})["rows_set_aside"]
    1
    """
    n_trained = int(rows["trained_on"].sum())
    return {
        "rows_paid": len(rows),
        "cost_paid": float(rows["cost_paid"].sum()),
        "rows_trained_on": n_trained,
        "rows_set_aside": len(rows) - n_trained,
        "labels_seen": int(counts.get("labels_seen", len(rows))),
        "rows_evaluated": int(counts.get("rows_evaluated", len(rows))),
    }


def spending(
    paid: dict[str, Any], *, cost_name: str | None, postpones: bool, cost_model: str = "kept"
) -> str:
    """Say in words what a run paid for, trained on, set aside and read.

    Parameters
    ----------
    paid : dict
        What :func:`spending_counts` returned.
    cost_name : str or None
        The pool's cost column (None: every row costs 1).
    postpones : bool
        Whether the method sets aside rows whose label it bought (Falcon) rather than rows
        of batches that did not make the model fairer.
    cost_model : {"kept", "evaluated"}, default="kept"
        Whether batches that were not kept were paid for (``"evaluated"``).

    Examples
    --------
    >>> paid = {"rows_paid": 4, "cost_paid": 9.5, "rows_trained_on": 3, "rows_set_aside": 1,
    ...         "labels_seen": 4, "rows_evaluated": 3}
    >>> spending(paid, cost_name="fee", postpones=True)[:58]
    'Paid for 4 rows (9.50 in fee); trained on 3 of them; the o'
    """
    n_paid, n_trained = paid["rows_paid"], paid["rows_trained_on"]
    fee = f" ({paid['cost_paid']:,.2f} in {cost_name})" if cost_name else ""
    if n_paid == 0:
        text = "Paid for no row"
    elif n_trained == n_paid:
        text = f"Paid for {n_paid:,} rows{fee} and trained on all of them"
    else:
        why = (
            "paid for and their labels read, then set aside because their label was not "
            "the one the method was looking for in that round"
            if postpones
            else "paid for and tried, then set aside because the batch they came in did "
            "not make the model fairer on the validation rows"
        )
        text = (
            f"Paid for {n_paid:,} rows{fee}; trained on {n_trained:,} of them; the other "
            f"{paid['rows_set_aside']:,} were {why}"
        )
    return text + "." + _unpaid(paid, postpones or cost_model == "evaluated")


def _unpaid(paid: dict[str, Any], pays_tried: bool) -> str:
    """Say what was tried or read without being paid for ("" if nothing was)."""
    handed_back = not pays_tried and paid["rows_evaluated"] > paid["rows_trained_on"]
    extra = paid["labels_seen"] - paid["rows_paid"]
    out = " Batches that did not make the model fairer were handed back unpaid." * handed_back
    if extra > 0:
        out += f" To choose, the method also read the labels of {extra:,} rows it did not pay for."
    if out:
        out += " This takes the pool's labels as known in advance"
        out += " (--cost-model evaluated pays for every row tried)." if handed_back else "."
    return out
