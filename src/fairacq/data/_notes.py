"""Short notes on how a user's table was read, for the command line to print.

Notes go to the ``fairacq.notes`` logger at INFO level: a library user sees them only when
logging is switched on, and the command line prints each as one ``note: ...`` line on stderr.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["NOTES_LOGGER", "note", "reading_summary"]

#: The logger the notes go to.
NOTES_LOGGER = "fairacq.notes"


def note(text: str) -> None:
    """Log ``text`` as a note (INFO on :data:`NOTES_LOGGER`)."""
    logging.getLogger(NOTES_LOGGER).info(text)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("s" if word in ("label", "group") and n != 1 else "")


def reading_summary(n_columns: int, columns: Any, encoder: Any, *, where: str = "table") -> str:
    """Say in one line how many columns were read in each role and kind.

    ``columns`` is the :class:`~fairacq.data.TableColumns` and ``encoder`` the fitted
    :class:`~fairacq.data.TableEncoder` (typed loosely: this module sits below both).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.data import TableColumns, TableEncoder
    >>> enc = TableEncoder().fit(pd.DataFrame({"age": [30, 41], "job": ["b", "a"]}))
    >>> reading_summary(5, TableColumns("y", ("sex",), drop=("id",)), enc, where="people.csv")
    'people.csv: 5 columns: 1 numeric, 1 categorical, 1 label, 1 group, 1 dropped'
    """
    kinds = [k.kind for k in encoder.kinds_.values()]
    parts = [
        (kinds.count("numeric"), "numeric"),
        (kinds.count("boolean"), "true/false"),
        (kinds.count("categorical"), "categorical"),
        (1, "label"),
        (len(columns.sensitive), "group"),
        (1 if columns.cost else 0, "cost"),
        (
            n_columns - len(kinds) - 1 - len(columns.sensitive) - (1 if columns.cost else 0),
            "dropped",
        ),
    ]
    shown = [_count(n, w) for n, w in parts if n or w in ("numeric", "categorical")]
    return f"{where}: {n_columns} columns: {', '.join(shown)}"
