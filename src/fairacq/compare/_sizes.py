"""Budget and batch checked against the simulated pool before any run starts.

A comparison splits the table on every seed the way the runs will (the rows question: the
pool is a share of the table, :data:`fairacq.compare.ROWS_FRACTIONS`; the groups question:
the rows to draw from less each sampler's own test rows), and refuses a budget the pool
cannot serve, a zero budget, and a batch larger than the budget or smaller than the cheapest
pool row, each in one line saying what fits. Without this check each run would fail on its
own and the comparison would end with nothing to compare.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from fairacq.compare._groups import groups_parts
from fairacq.compare._rows import rows_parts
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError
from fairacq.sampling import resolve_budget

__all__ = ["SAMPLER_TEST_SIZE", "check_sizes"]

#: Share of the rows to draw from that each sampler holds out as its own test rows
#: (:func:`fairacq.sampling.allocate_budget`'s default, which the groups question keeps).
SAMPLER_TEST_SIZE = 0.3


@dataclass(frozen=True)
class _Pool:
    """What one seed's simulated pool can serve, and how to say where it comes from."""

    total: float  # rows, or cost units
    share_of: float  # what a percentage budget is a share of
    cheapest: float  # the cheapest row (1 without costs)
    where: str  # how the pool was made, for the message
    unit: str
    holds: str = "the simulated pool holds"


def check_sizes(
    dataset: FairDataset,
    question: str,
    *,
    budget: int | str,
    batch: int | str,
    costs: NDArray[np.float64] | None,
    seeds: Sequence[np.random.SeedSequence],
    fractions: Sequence[float],
    test_fraction: float,
) -> None:
    """Refuse a budget or batch that the simulated pool of some seed cannot serve.

    Parameters
    ----------
    dataset : FairDataset
        The whole labelled table.
    question : {"rows", "groups"}
        The question compared.
    budget, batch : int or str
        As :func:`fairacq.compare.compare_strategies` takes them (``batch`` is a count or a
        share of the budget, checked for the rows question only).
    costs : ndarray or None
        The price of each row of ``dataset`` (rows question), or None to count rows.
    seeds : sequence of SeedSequence
        The comparison's seeds: each seed's split is checked (with costs the pool's total
        differs from seed to seed).
    fractions : sequence of float
        Shares of the initial, pool, validation and test parts (rows question).
    test_fraction : float
        Share of test rows (groups question).

    Raises
    ------
    BudgetError
        For a budget of less than one row (or cost unit), a budget above what the pool
        holds, a batch larger than the budget or of less than one row, and a batch smaller
        than the cheapest pool row; each message says what to write instead.
    InvalidParameterError
        For a budget or batch written in another form.
    InvalidDataError
        For a table too small to split with every group in each part.

    Examples
    --------
    >>> from fairacq._random import spawn_seeds
    >>> from fairacq.data import load_toy
    >>> check_sizes(load_toy(200), "rows", budget=500, batch="10%", costs=None,
    ...             seeds=spawn_seeds(0, 1), fractions=(0.2, 0.4, 0.2, 0.2), test_fraction=0.25)
    Traceback (most recent call last):
    ...
    fairacq.exceptions.BudgetError: --budget 500 is more than the simulated pool holds: \
compare buys from 80 of your 200 rows (40%). Write --budget 80 or less, or a share such as \
20%.
    """
    for seed in seeds:
        if question == "groups":
            pool = _groups_pool(dataset, test_fraction, seed)
        else:
            pool = _rows_pool(dataset, costs, fractions, seed)
        size = _check_budget(budget, pool)
        if question == "rows":
            _check_batch(batch, size, pool)


def _rows_pool(
    dataset: FairDataset,
    costs: NDArray[np.float64] | None,
    fractions: Sequence[float],
    seed: np.random.SeedSequence,
) -> _Pool:
    parts = rows_parts(dataset, costs, fractions, seed)
    rows, share = len(parts.pool), f"{100 * fractions[1]:g}%"
    where = f"compare buys from {rows} of your {len(dataset)} rows ({share})"
    if parts.pool_costs is None:
        return _Pool(float(rows), float(rows), 1.0, where, "rows")
    total = float(parts.pool_costs.sum())
    where += f", which cost {total:g} in all on one seed's split"
    return _Pool(total, total, float(parts.pool_costs.min()), where, "cost units")


def _groups_pool(
    dataset: FairDataset, test_fraction: float, seed: np.random.SeedSequence
) -> _Pool:
    source, test = groups_parts(dataset, test_fraction, seed)
    held = math.ceil(SAMPLER_TEST_SIZE * len(source))
    drawable = len(source) - held
    where = (
        f"the samplers draw without replacement from {drawable} of your {len(dataset)} rows "
        f"({len(test)} are the comparison's test rows, {held} more each sampler's own test "
        "rows)"
    )
    return _Pool(
        float(drawable), float(len(source)), 1.0, where, "samples", "the samplers can draw"
    )


def _check_budget(budget: int | str, pool: _Pool) -> int:
    """Return the budget ``budget`` comes to on ``pool``; refuse zero or more than it holds."""
    size = resolve_budget(budget, int(pool.share_of))
    largest = math.floor(pool.total)
    if size < 1:
        raise BudgetError(
            f"--budget {budget!r} comes to 0 {pool.unit} of the simulated pool, so nothing "
            f"would be bought ({pool.where}). Write --budget 1 or more."
        )
    if size > pool.total:
        top = math.floor(100 * pool.total / pool.share_of)
        raise BudgetError(
            f"--budget {size} is more than {pool.holds}: {pool.where}. Write --budget "
            f"{largest} or less, or a share such as {min(20, top)}%."
        )
    return size


def _check_batch(batch: int | str, budget: int, pool: _Pool) -> None:
    """Refuse a batch of nothing, above the budget, or below the cheapest pool row."""
    size = resolve_budget(batch, budget)
    if size < 1:
        raise BudgetError(
            f"--batch {batch!r} comes to 0 {pool.unit} of the budget ({budget}), so nothing "
            "would be bought. Write --batch 1 or more, or raise the budget."
        )
    if size > budget:
        raise BudgetError(
            f"--batch {size} is larger than the budget ({budget} {pool.unit}). Write "
            f"--batch {budget} or less, or a share of the budget such as 10%."
        )
    if pool.cheapest > size:
        raise BudgetError(
            f"--batch {size} buys nothing: the cheapest pool row costs {pool.cheapest:g}. "
            f"Write --batch {math.ceil(pool.cheapest)} or more."
        )
