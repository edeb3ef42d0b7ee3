"""What an acquisition run has paid for, tried and looked at: its cost and count columns.

Two cost models (``Acquirer(cost_model=...)``):

- ``"kept"`` (Hasan & Pradhan's DataSift, the default): the pool is labelled and only kept batches
  are paid; a rejected batch is handed back. ``cost`` is the cost of the kept rows.
- ``"evaluated"`` (labels are bought): every row a batch tries is paid, once; a row tried
  again later (DataSift re-offers rejected rows) is not paid twice, its label being known.
  ``cost`` is the cost of every row tried so far, and the budget bounds it.

Every trace row carries three cumulative counts: ``rows_paid`` (rows whose cost was paid
under the model), ``labels_seen`` (pool rows whose label the method looked at: the evaluated
batches' rows plus what its ranking or partitioning read) and ``rows_evaluated`` (rows tried
in evaluated batches, a row tried twice counted twice).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

__all__ = ["COST_MODELS", "CostLedger", "fill_batch", "fill_limit"]

#: The accepted values of ``Acquirer(cost_model=...)``.
COST_MODELS = ("kept", "evaluated")


def fill_batch(
    candidates: NDArray[np.int64], costs: NDArray[np.float64], capacity: float
) -> NDArray[np.int64]:
    """Take candidates in order while their cumulative cost fits in ``capacity``."""
    if candidates.size == 0:
        return candidates
    cum = np.cumsum(costs[candidates])
    return candidates[cum <= capacity + 1e-9]


def fill_limit(costs: NDArray[np.float64], capacity: float) -> int:
    """Return the most candidates :func:`fill_batch` can take from rows costing ``costs``.

    ``costs`` are the possible candidates' costs, in any order (positive, as the loop
    checks): ``k`` of them cost at least ``k`` times the cheapest, so fewer than
    ``capacity / min(costs) + 1`` fit. Proposing only that many first candidates gives the
    same batch as proposing them all.

    Examples
    --------
    >>> fill_limit(np.ones(100), 10.0)
    11
    >>> fill_limit(np.array([2.0, 0.5, 3.0]), 2.0)
    3
    """
    cheapest = float(costs.min()) if costs.size else 0.0
    if cheapest <= 0:
        return int(costs.size)
    return int(min(costs.size, np.floor((capacity + 1e-9) / cheapest) + 1))


class CostLedger:
    """The budget spent and the three counts of one acquisition run.

    Parameters
    ----------
    costs : ndarray of float
        Cost of each pool row.
    budget : float
        What the run may spend (rows, or cost units with per-row costs).
    cost_model : {"kept", "evaluated"}
        Which rows are paid (module docstring).
    seen : ndarray of bool
        The state's ``labels_seen`` flags (shared: evaluated rows are marked in it). Marks
        made after the ledger is built go through :meth:`record` or :meth:`mark_seen`.

    Every step costs about the size of its batch, not of the pool: the labels seen are
    counted as they are marked, and the cheapest open row is found by a pointer that walks
    the rows once in increasing cost (rows open to pay only ever close).
    """

    def __init__(
        self,
        costs: NDArray[np.float64],
        budget: float,
        cost_model: Literal["kept", "evaluated"],
        seen: NDArray[np.bool_],
    ) -> None:
        self.costs = costs
        self.budget = budget
        self.pays_evaluated = cost_model == "evaluated"
        self.seen = seen
        self.paid = np.zeros(len(costs) if self.pays_evaluated else 0, dtype=bool)
        self.spent = 0.0
        self.rows_paid = 0
        self.rows_evaluated = 0
        self.n_seen = int(np.count_nonzero(seen))
        # rows by increasing cost (by position when all costs are equal: no sort needed)
        uniform = costs.size == 0 or bool(costs.min() == costs.max())
        self._by_cost = None if uniform else np.argsort(costs, kind="stable")
        self._cheapest_at = 0

    def fill(self, candidates: NDArray[np.int64], batch_size: float) -> NDArray[np.int64]:
        """Return the next batch: candidates in order within the batch size and budget left.

        Under ``"evaluated"`` a row already paid costs nothing more: the batch size bounds
        the batch's whole cost, the budget left only what it adds.
        """
        if not self.pays_evaluated:
            return fill_batch(candidates, self.costs, min(batch_size, self.budget - self.spent))
        if candidates.size == 0:
            return candidates
        cost = self.costs[candidates]
        price = np.where(self.paid[candidates], 0.0, cost)
        fits = (np.cumsum(cost) <= batch_size + 1e-9) & (
            np.cumsum(price) <= self.budget - self.spent + 1e-9
        )
        return candidates[fits]

    def record(self, batch: NDArray[np.int64], accepted: bool) -> None:
        """Account for one evaluated batch (distinct pool positions), kept or not."""
        self.rows_evaluated += int(batch.size)
        self.mark_seen(batch)
        if self.pays_evaluated:
            new = batch[~self.paid[batch]]
            self.paid[new] = True
            self.rows_paid += int(new.size)
            self.spent += float(self.costs[new].sum())
        elif accepted:
            self.rows_paid += int(batch.size)
            self.spent += float(self.costs[batch].sum())

    def mark_seen(self, rows: NDArray[np.int64]) -> None:
        """Mark the labels of pool positions ``rows`` seen (counted once each)."""
        new = rows[~self.seen[rows]]
        self.seen[new] = True
        self.n_seen += int(np.unique(new).size)

    def out_of_budget(self, available: NDArray[np.bool_]) -> bool:
        """Whether the budget left cannot pay for one more open row.

        ``available`` flags the rows not yet acquired; a row it closes never reopens.
        """
        return bool(self.budget - self.spent < self._cheapest_open(available))

    def _cheapest_open(self, available: NDArray[np.bool_], chunk: int = 256) -> float:
        """Return the cost of the cheapest row open to pay for (inf when none is)."""
        n = self.costs.size
        while self._cheapest_at < n:
            stop = min(self._cheapest_at + chunk, n)
            rows = np.arange(self._cheapest_at, stop)
            if self._by_cost is not None:
                rows = self._by_cost[rows]
            is_open = (
                available[rows] & ~self.paid[rows] if self.pays_evaluated else available[rows]
            )
            hit = np.flatnonzero(is_open)
            if hit.size:
                self._cheapest_at += int(hit[0])
                return float(self.costs[rows[hit[0]]])
            self._cheapest_at = stop
        return float("inf")

    def counts(self) -> dict[str, int]:
        """Return the trace's ``rows_paid``, ``labels_seen`` and ``rows_evaluated`` so far."""
        return {
            "rows_paid": self.rows_paid,
            "labels_seen": self.n_seen,
            "rows_evaluated": self.rows_evaluated,
        }
