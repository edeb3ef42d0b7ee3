"""Local search over clause lists around the agent's best list (fairacq's addition to A3SL).

The actor-critic agent of Zhang & Ramesh keeps the best-rewarded clause list ``C_list``; with a few
hundred episodes on 2 cores its policy barely improves and ``C_list`` comes from exploration
(docs/paper-notes/a3sl.md). :func:`refine_clause_list` polishes that list by first-improvement
hill climbing with the same reward: a move removes one clause, adds one short clause
(:func:`enumerate_clauses`) or, when the list is full, replaces one clause by a short one; the
first move (in a seeded random order) that raises the reward is taken, and the search stops
when no move does, or the time or evaluation budget is spent. Every list it scores is a valid
list of the agent's :class:`~fairacq.relational.a3sl._clause_env.ClauseSpace`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairacq._random import as_generator
from fairacq._result import Result
from fairacq.exceptions import InvalidParameterError
from fairacq.relational.a3sl._clause_env import (
    END,
    Clause,
    ClauseLiteral,
    ClauseScorer,
    ClauseSpace,
    canonical_clause_list,
)

__all__ = ["RefineResult", "enumerate_clauses", "refine_clause_list"]


def enumerate_clauses(space: ClauseSpace, max_literals: int = 2) -> list[Clause]:
    """Every valid clause of ``space`` with at most ``max_literals`` literals, head included.

    Walks the action masks of :meth:`ClauseSpace.valid_actions`, so the clauses are exactly
    those the agent could close (safe, connected, a target in each when required).

    Parameters
    ----------
    space : ClauseSpace
    max_literals : int, default=2
        Literal limit of the enumeration (capped by ``space.max_literals``).

    Returns
    -------
    list of Clause
        Distinct clauses, sorted.
    """
    if max_literals < 1:
        raise InvalidParameterError(
            f"enumerate_clauses: max_literals must be >= 1, got {max_literals}."
        )
    limit = min(max_literals, space.max_literals)
    found: set[Clause] = set()

    def walk(current: tuple[ClauseLiteral, ...]) -> None:
        mask = space.valid_actions(current)
        if current and mask[END]:
            found.add(space.close(current))
        if len(current) >= limit:
            return
        for action in np.flatnonzero(mask):
            if action == END:
                continue
            walk((*current, space.literal_of(int(action))))

    walk(())
    return sorted(found)


@dataclass(frozen=True)
class RefineResult(Result):
    """Outcome of :func:`refine_clause_list`.

    A :class:`~fairacq.Result`: :meth:`to_frame` is ``history``, the moves the search took
    with the reward after each. ``save(path)`` writes every field (the clauses as plain
    data) and ``RefineResult.load(path)`` reads them all back.

    Attributes
    ----------
    clauses : tuple of Clause
        The best list found (the start if nothing improved it).
    reward : float
    start_reward : float
    history : pandas.DataFrame
        One row per accepted move: ``step, move, reward, n_clauses, evaluations, seconds``.
    evaluations : int
        Lists scored (cached scores included).
    converged : bool
        ``True`` when no move improved the last list (a local optimum), ``False`` when the
        budget ran out first.
    """

    clauses: tuple[Clause, ...]
    reward: float
    start_reward: float
    history: pd.DataFrame
    evaluations: int
    converged: bool

    def to_frame(self) -> pd.DataFrame:
        """Return one row per accepted move (a copy of ``history``)."""
        return self.history.copy()

    def _caption(self) -> str:
        stop = "a local optimum" if self.converged else "the budget ran out"
        return (
            f"reward {self.reward:.4f} from {self.start_reward:.4f} with {len(self.clauses)} "
            f"clauses after {len(self.history)} moves, {self.evaluations} lists scored; "
            f"stopped at {stop}"
        )


def _moves(
    current: tuple[Clause, ...], candidates: Sequence[Clause], max_clauses: int
) -> Iterator[tuple[str, tuple[Clause, ...]]]:
    present = set(current)
    new = [c for c in candidates if c not in present]
    if len(current) > 1:
        for clause in current:
            yield f"remove {clause}", tuple(c for c in current if c != clause)
    if len(current) < max_clauses:
        for clause in new:
            yield f"add {clause}", (*current, clause)
    else:
        for old in current:
            rest = tuple(c for c in current if c != old)
            for clause in new:
                yield f"replace {old} by {clause}", (*rest, clause)


def refine_clause_list(
    start: Sequence[Clause],
    space: ClauseSpace,
    scorer: ClauseScorer,
    *,
    candidates: Sequence[Clause] | None = None,
    max_evaluations: int | None = None,
    tol: float = 1e-6,
    random_state: object = None,
) -> RefineResult:
    """First-improvement hill climbing over clause lists, starting from ``start``.

    Parameters
    ----------
    start : sequence of Clause
        The list to improve (the agent's ``C_list``); must be non-empty.
    space : ClauseSpace
        Its limits (``max_clauses``) bound the lists tried.
    scorer : callable
        ``clauses -> float``, larger is better (the agent's reward, cached by the caller).
    candidates : sequence of Clause, optional
        Clauses a move may add; default :func:`enumerate_clauses` with 2 literals.
    max_evaluations : int or None, optional
        Budget: the most clause lists scored (the start list included); ``None``: search
        until a local optimum. A count, not a time, so one seed takes the same moves on
        any machine.
    tol : float, default=1e-6
        A move is taken when it raises the reward by more than ``tol``.
    random_state : int, Generator or None
        Order in which moves are tried.

    Returns
    -------
    RefineResult
    """
    current = canonical_clause_list(start)
    if not current:
        raise InvalidParameterError(
            "refine_clause_list: the start list is empty; pass the agent's best list."
        )
    if len(current) > space.max_clauses:
        raise InvalidParameterError(
            f"refine_clause_list: the start list has {len(current)} clauses, more than the "
            f"space's max_clauses={space.max_clauses}."
        )
    rng = as_generator(random_state)
    pool = list(enumerate_clauses(space) if candidates is None else candidates)
    t0 = time.perf_counter()
    start_reward = reward = float(scorer(current))
    evaluations, converged = 1, False
    rows: list[dict[str, Any]] = []

    def out_of_budget() -> bool:
        return max_evaluations is not None and evaluations >= max_evaluations

    while not out_of_budget():
        moves = list(_moves(current, pool, space.max_clauses))
        order = rng.permutation(len(moves))
        for idx in order:
            if out_of_budget():
                break
            name, clauses = moves[int(idx)]
            trial = canonical_clause_list(clauses)
            value = float(scorer(trial))
            evaluations += 1
            if value > reward + tol:
                current, reward = trial, value
                rows.append(
                    {
                        "step": len(rows) + 1,
                        "move": name,
                        "reward": reward,
                        "n_clauses": len(current),
                        "evaluations": evaluations,
                        "seconds": time.perf_counter() - t0,
                    }
                )
                break
        else:
            converged = True
            break
    columns = ["step", "move", "reward", "n_clauses", "evaluations", "seconds"]
    return RefineResult(
        clauses=current,
        reward=reward,
        start_reward=start_reward,
        history=pd.DataFrame(rows, columns=columns),
        evaluations=evaluations,
        converged=converged,
    )
