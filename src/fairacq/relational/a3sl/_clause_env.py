"""The structure-learning environment of (Fair-)A3SL: build a clause list token by token.

Implements the environment of Zhang & Ramesh §4.1 (Algorithm 1, line 3): the state is the clause
list built so far, the actions are every feature and target predicate, their negations and
``END`` (which closes the current clause). A finished clause list is scored by a
:class:`ClauseScorer` (any callable from a tuple of :class:`Clause` to a float); the reward is
that score at the last step and 0 before (discount 1, so the return is the score).

Variables
---------
Every predicate argument has an entity *type* (``user``, ``paper``, ``reviewer``...). Inside
one clause all literals share one logical variable per type: the variable of type ``paper`` is
``Paper`` wherever it appears, so ``submits(Author, Paper) & student(Author) ->
positiveSummary(Paper)`` joins on the typed arguments. A literal with two arguments of the same
type uses ``Type`` then ``Type2`` (``friends(User, User2)``). Types are read from the argument
column names of the data frames (a trailing digit is dropped), or given explicitly.

Clauses
-------
The first target literal chosen in a clause is its head (negated: ``-> ~target(...)``); every
other literal goes to the body (a later target literal becomes a body atom: a collective
rule). A clause is *safe* when each of its variables occurs in a clause-negative literal (a
non-negated body atom or a negated head), as PSL requires for grounding; a variable may
instead be bound by a domain predicate of its type (``user(User)``), which is then added to
the body when the rule is rendered. Actions that would make the clause impossible to finish
(unsafe, without the required target, or unconnected, within the literal limit) are masked,
as are a second literal of a predicate already in the clause, a literal sharing no entity
type with the clause so far (``connected``) and ``END`` on an empty clause. The list
is finished when ``max_clauses`` clauses are closed, or, with ``allow_stop``, when ``END`` is
chosen on an empty clause after at least one closed clause (lists of *at most*
``max_clauses``); a clause equal to an earlier one adds nothing (the list is a set of
clauses).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from fairacq._result import saveable
from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "END",
    "Clause",
    "ClauseEnv",
    "ClauseLiteral",
    "ClauseScorer",
    "ClauseSpace",
    "PredicateSignature",
    "canonical_clause_list",
    "signatures_from_frames",
]

#: Action id of the END token (closes the current clause).
END = 0

_TRAILING_DIGITS = re.compile(r"\d+$")


@saveable
@dataclass(frozen=True, order=True)
class ClauseLiteral:
    """A predicate, possibly negated.

    Parameters
    ----------
    predicate : str
        Predicate name.
    negated : bool, default=False
        ``True`` for ``~predicate(...)``.
    """

    predicate: str
    negated: bool = False

    def __str__(self) -> str:
        return ("~" if self.negated else "") + self.predicate


@saveable
@dataclass(frozen=True, order=True)
class Clause:
    """One first-order clause ``body -> head`` in canonical form.

    Parameters
    ----------
    head : ClauseLiteral
        The head literal (a target predicate when the space requires one).
    body : tuple of ClauseLiteral
        Body literals, sorted (the order they were chosen in does not matter).
    """

    head: ClauseLiteral
    body: tuple[ClauseLiteral, ...] = ()

    @property
    def length(self) -> int:
        """Number of literals, head included."""
        return len(self.body) + 1

    def literals(self) -> tuple[ClauseLiteral, ...]:
        """Body literals followed by the head."""
        return (*self.body, self.head)

    def __str__(self) -> str:
        body = " & ".join(map(str, self.body))
        return f"{body} -> {self.head}" if body else f"-> {self.head}"


#: Scores a finished clause list (larger is better); the reward of one episode.
ClauseScorer: TypeAlias = Callable[[tuple[Clause, ...]], float]


def canonical_clause_list(clauses: Iterable[Clause]) -> tuple[Clause, ...]:
    """Return the distinct clauses sorted, the cache key of a clause list."""
    return tuple(sorted(set(clauses)))


@dataclass(frozen=True)
class PredicateSignature:
    """A predicate's name, argument types and role.

    Parameters
    ----------
    name : str
    arg_types : tuple of str
        Entity type of each argument (``("reviewer", "paper")``).
    target : bool, default=False
        ``True`` for a target (inferred) predicate, ``False`` for an observed feature.
    """

    name: str
    arg_types: tuple[str, ...]
    target: bool = False


def signatures_from_frames(
    observations: Mapping[str, Any],
    targets: Mapping[str, Any],
    *,
    arg_types: Mapping[str, Sequence[str]] | None = None,
    private_types: Sequence[str] = (),
) -> list[PredicateSignature]:
    """Read predicate signatures from data frames in the ``from_frames`` layout.

    Argument columns (every column but ``value``) name the entity types, a trailing digit
    dropped (``paper1`` -> ``paper``); ``arg_types`` overrides them per predicate. A type in
    ``private_types`` is made specific to each predicate (``instance`` of ``priors`` becomes
    ``priorsInstance``), so two predicates never join on it: COMPAS's history instances
    ``priors(U, I4)`` and ``priorFelony(U, I5)`` are different entities (Zhang & Ramesh, Table 7).

    Parameters
    ----------
    observations, targets : mapping of str to pandas.DataFrame
        Observed and target predicates.
    arg_types : mapping of str to sequence of str, optional
        Explicit argument types of some predicates.
    private_types : sequence of str, default=()
        Types that are not shared between predicates.

    Returns
    -------
    list of PredicateSignature
        Observed predicates, then targets, each group in name order.
    """
    explicit = dict(arg_types or {})
    out: list[PredicateSignature] = []
    for frames, is_target in ((observations, False), (targets, True)):
        for name in sorted(frames):
            if is_target is False and name in targets:
                continue
            if name in explicit:
                types = tuple(explicit[name])
            else:
                cols = [str(c) for c in frames[name].columns if str(c) != "value"]
                types = tuple(_TRAILING_DIGITS.sub("", c) or c for c in cols)
            types = tuple(
                f"{name}{t[:1].upper()}{t[1:]}" if t in private_types else t for t in types
            )
            out.append(PredicateSignature(name, types, is_target))
    return out


def _variable_names(types: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    names = []
    for t in types:
        seen[t] = seen.get(t, 0) + 1
        base = t[:1].upper() + t[1:]
        names.append(base if seen[t] == 1 else f"{base}{seen[t]}")
    return names


@dataclass(frozen=True)
class _Partial:
    head: ClauseLiteral | None
    body: tuple[ClauseLiteral, ...]


@dataclass
class ClauseSpace:
    """The action space, limits and PSL rendering of clause lists.

    Parameters
    ----------
    predicates : sequence of PredicateSignature
        Feature and target predicates the agent may use.
    max_literals : int, default=5
        Literals per clause, head included (authors: 5; COMPAS 3).
    max_clauses : int, default=8
        Clauses per list (authors: 8; COMPAS 12).
    require_target : bool, default=True
        Every clause must contain a target predicate (the authors' constraint). When
        ``False`` a clause without a target takes its last chosen literal as head.
    domains : mapping of str to str, optional
        Type -> observed unary predicate listing its entities (``{"user": "user"}``); such a
        type needs no positive body atom to be safe. A domain predicate may be chosen, but
        not negated (its negation is false for every entity).
    connected : bool, default=True
        Each literal after the first must share an entity type with the clause so far, so
        the rule's variables form one connected join (no cross-product groundings).
    weight : float, default=5.0
        Initial weight of every rendered rule.
    squared : bool, default=True
        Render squared hinges (``^2``).
    allow_stop : bool, default=False
        ``END`` on an empty clause (after at least one closed clause) finishes the list, so
        lists hold between 1 and ``max_clauses`` clauses; ``False``: every list is built up
        to ``max_clauses`` closed clauses.
    """

    predicates: Sequence[PredicateSignature]
    max_literals: int = 5
    max_clauses: int = 8
    require_target: bool = True
    domains: Mapping[str, str] = field(default_factory=dict)
    connected: bool = True
    weight: float = 5.0
    squared: bool = True
    allow_stop: bool = False

    def __post_init__(self) -> None:
        self.predicates = tuple(self.predicates)
        names = [p.name for p in self.predicates]
        if len(set(names)) != len(names):
            raise InvalidDataError(f"ClauseSpace: predicate names repeat: {names}.")
        if not names:
            raise InvalidDataError("ClauseSpace: no predicates; pass at least one target.")
        if self.require_target and not any(p.target for p in self.predicates):
            raise InvalidDataError(
                "ClauseSpace: require_target=True but no predicate is a target. Mark the "
                "predicate to learn with target=True."
            )
        if self.max_literals < 1 or self.max_clauses < 1:
            raise InvalidParameterError(
                f"ClauseSpace: max_literals and max_clauses must be >= 1. Got "
                f"{self.max_literals} and {self.max_clauses}."
            )
        self._by_name = {p.name: p for p in self.predicates}
        self._masks: dict[tuple[ClauseLiteral, ...], NDArray[np.bool_]] = {}
        for t, pred in self.domains.items():
            sig = self._by_name.get(pred)
            if sig is None or sig.arg_types != (t,) or sig.target:
                raise InvalidDataError(
                    f"ClauseSpace: domain predicate {pred!r} of type {t!r} must be an "
                    f"observed predicate with one argument of type {t!r}."
                )

    # ------------------------------------------------------------------ actions
    @property
    def n_actions(self) -> int:
        """``END`` plus a positive and a negated literal per predicate."""
        return 1 + 2 * len(self.predicates)

    def literal_of(self, action: int) -> ClauseLiteral:
        """ClauseLiteral added by ``action`` (not ``END``)."""
        if action <= END or action >= self.n_actions:
            raise InvalidParameterError(f"ClauseSpace: action {action} is not a literal.")
        pred = self.predicates[(action - 1) // 2]
        return ClauseLiteral(pred.name, negated=(action - 1) % 2 == 1)

    def action_of(self, literal: ClauseLiteral) -> int:
        """Return the action id that adds ``literal``."""
        idx = [p.name for p in self.predicates].index(literal.predicate)
        return 1 + 2 * idx + int(literal.negated)

    def action_names(self) -> list[str]:
        """Readable name of every action (``END``, ``p``, ``~p``, ...)."""
        return ["END"] + [str(self.literal_of(a)) for a in range(1, self.n_actions)]

    def signature(self, predicate: str) -> PredicateSignature:
        """Return the signature of ``predicate``."""
        sig = self._by_name.get(predicate)
        if sig is None:
            raise InvalidDataError(
                f"ClauseSpace: unknown predicate {predicate!r}. Known: {sorted(self._by_name)}."
            )
        return sig

    def is_target(self, predicate: str) -> bool:
        """Return whether ``predicate`` is a target."""
        return self.signature(predicate).target

    # ------------------------------------------------------------------ validity
    def _types(self, lit: ClauseLiteral) -> set[str]:
        return set(self.signature(lit.predicate).arg_types)

    def _uncovered(self, part: _Partial) -> set[str]:
        present: set[str] = set()
        covered: set[str] = set(self.domains)
        for lit in part.body:
            present |= self._types(lit)
            if not lit.negated:
                covered |= self._types(lit)
        if part.head is not None:
            present |= self._types(part.head)
            if part.head.negated:
                covered |= self._types(part.head)
        return present - covered

    def _add(self, part: _Partial, lit: ClauseLiteral) -> _Partial:
        if part.head is None and self.is_target(lit.predicate):
            return _Partial(lit, part.body)
        return _Partial(part.head, (*part.body, lit))

    def _completion_cost(self, part: _Partial) -> int | None:
        """Fewest literals that make ``part`` a valid clause (``None``: cannot).

        The construction behind the count (cover the unbound types with positive feature atoms,
        then add a negated target head) keeps every intermediate state valid, so masking by
        this count never strands the agent.
        """
        used = {lit.predicate for lit in part.body}
        if part.head is not None:
            used.add(part.head.predicate)
        need_head = part.head is None and self.require_target
        uncovered = self._uncovered(part)
        if need_head and not any(p.target and p.name not in used for p in self.predicates):
            return None
        cover = 0
        if uncovered:
            candidates = [
                set(p.arg_types) & uncovered
                for p in self.predicates
                if p.name not in used
                and (not p.target or part.head is not None)
                and set(p.arg_types) & uncovered
            ]
            found = None
            for k in range(1, min(len(candidates), self.max_literals) + 1):
                if any(
                    set().union(*combo) >= uncovered
                    for combo in itertools.combinations(candidates, k)
                ):
                    found = k
                    break
            if found is None:
                return None
            cover = found
        if part.head is None and not part.body:
            return max(1, cover + int(need_head))
        connect = 0
        if need_head and self.connected:
            found_path = self._connect_cost(part, used)
            if found_path is None:
                return None
            connect = found_path
        return cover + connect + int(need_head)

    def _clause_types(self, part: _Partial) -> set[str]:
        types: set[str] = set()
        for lit in (*part.body, *([part.head] if part.head is not None else [])):
            types |= self._types(lit)
        return types

    def _connect_cost(self, part: _Partial, used: set[str]) -> int | None:
        """Fewest positive feature atoms chaining the clause's types to an unused target."""
        dist = dict.fromkeys(self._clause_types(part), 0)
        features = [p for p in self.predicates if not p.target and p.name not in used]
        changed = True
        while changed:
            changed = False
            for p in features:
                reach = [dist[t] for t in p.arg_types if t in dist]
                if not reach:
                    continue
                d = min(reach) + 1
                for t in p.arg_types:
                    if dist.get(t, d + 1) > d:
                        dist[t] = d
                        changed = True
        costs = [
            min(dist[t] for t in p.arg_types if t in dist)
            for p in self.predicates
            if p.target and p.name not in used and any(t in dist for t in p.arg_types)
        ]
        return min(costs) if costs else None

    def _literal_count(self, part: _Partial) -> int:
        return len(part.body) + int(part.head is not None)

    def valid_actions(self, current: Sequence[ClauseLiteral]) -> NDArray[np.bool_]:
        """Return the mask of the actions allowed after the literals ``current`` of a clause."""
        key = tuple(current)
        cached = self._masks.get(key)
        if cached is None:
            cached = self._masks[key] = self._valid_actions(key)
        return cached.copy()

    def _valid_actions(self, current: tuple[ClauseLiteral, ...]) -> NDArray[np.bool_]:
        part = self._partial(current)
        mask = np.zeros(self.n_actions, dtype=bool)
        n = self._literal_count(part)
        cost = self._completion_cost(part)
        mask[END] = n > 0 and cost == 0
        if n >= self.max_literals:
            return mask
        used = {lit.predicate for lit in current}
        types = self._clause_types(part)
        domain_predicates = set(self.domains.values())
        for action in range(1, self.n_actions):
            lit = self.literal_of(action)
            if lit.predicate in used or (self.connected and n and not self._types(lit) & types):
                continue
            if lit.negated and lit.predicate in domain_predicates:
                continue
            nxt = self._add(part, lit)
            c = self._completion_cost(nxt)
            mask[action] = c is not None and n + 1 + c <= self.max_literals
        return mask

    def _partial(self, literals: Sequence[ClauseLiteral]) -> _Partial:
        part = _Partial(None, ())
        for lit in literals:
            part = self._add(part, lit)
        return part

    def close(self, literals: Sequence[ClauseLiteral]) -> Clause:
        """Turn the literals of a finished clause into its canonical :class:`Clause`."""
        part = self._partial(literals)
        if part.head is None:
            if self.require_target or not part.body:
                raise InvalidDataError(
                    f"ClauseSpace: clause {[str(x) for x in literals]} has no target literal."
                )
            return Clause(part.body[-1], tuple(sorted(part.body[:-1])))
        return Clause(part.head, tuple(sorted(part.body)))

    # ------------------------------------------------------------------ rendering
    def _atom(self, lit: ClauseLiteral) -> str:
        names = _variable_names(self.signature(lit.predicate).arg_types)
        return f"{'~' if lit.negated else ''}{lit.predicate}({', '.join(names)})"

    def render(self, clause: Clause, weight: float | None = None) -> str:
        """Render ``clause`` as a weighted PSL rule (``5.0: a(X) & b(X) -> t(X) ^2``)."""
        body = [self._atom(lit) for lit in clause.body]
        present: set[str] = self._types(clause.head)
        covered: set[str] = self._types(clause.head) if clause.head.negated else set()
        for lit in clause.body:
            present |= self._types(lit)
            if not lit.negated:
                covered |= self._types(lit)
        bound_by_atoms = {t for t in present - covered if t in self.domains}
        anchors = [f"{self.domains[t]}({_variable_names([t])[0]})" for t in sorted(bound_by_atoms)]
        lhs = " & ".join(anchors + body)
        w = self.weight if weight is None else float(weight)
        rule = f"{lhs} -> {self._atom(clause.head)}" if lhs else self._atom(clause.head)
        return f"{round(w, 6)!r}: {rule}" + (" ^2" if self.squared else "")

    def render_rules(
        self, clauses: Iterable[Clause], weights: Sequence[float] | None = None
    ) -> list[str]:
        """Render a clause list (canonical order) as PSL rule lines."""
        canon = canonical_clause_list(clauses)
        if weights is None:
            return [self.render(c) for c in canon]
        return [self.render(c, w) for c, w in zip(canon, weights, strict=True)]


class ClauseEnv:
    """One episode of clause-list construction (Zhang & Ramesh §4.1).

    Parameters
    ----------
    space : ClauseSpace
    scorer : callable
        ``scorer(clauses) -> float``, called once per finished list (the terminal reward).

    Attributes
    ----------
    tokens : list of int
        Actions taken in this episode (the state as a token sequence).
    clauses : list of Clause
        Clauses closed so far.
    current : list of ClauseLiteral
        Literals of the open clause.
    """

    def __init__(self, space: ClauseSpace, scorer: ClauseScorer) -> None:
        self.space = space
        self.scorer = scorer
        self.reset()

    def reset(self) -> None:
        """Start an empty clause list."""
        self.tokens: list[int] = []
        self.clauses: list[Clause] = []
        self.current: list[ClauseLiteral] = []
        self.done = False
        self._mask = self.space.valid_actions(())

    def action_mask(self) -> NDArray[np.bool_]:
        """Mask of valid actions in the current state."""
        return self._mask.copy()

    def step(self, action: int) -> tuple[float, bool]:
        """Apply ``action``; return ``(reward, done)`` (the reward is 0 until done)."""
        if self.done:
            raise InvalidParameterError("ClauseEnv: the episode is over; call reset().")
        if not (0 <= action < self.space.n_actions) or not self._mask[action]:
            names = self.space.action_names()
            name = names[action] if 0 <= action < len(names) else action
            raise InvalidParameterError(
                f"ClauseEnv: action {name!r} is not valid after {self.describe()!r}; "
                "sample from action_mask()."
            )
        self.tokens.append(int(action))
        stop = action == END and not self.current
        if stop:
            pass  # END on an empty clause: the list is finished (allow_stop)
        elif action == END:
            self.clauses.append(self.space.close(self.current))
            self.current = []
        else:
            self.current.append(self.space.literal_of(action))
        if stop or len(self.clauses) >= self.space.max_clauses:
            self.done = True
            self._mask = np.zeros(self.space.n_actions, dtype=bool)
            return float(self.scorer(self.clause_list())), True
        self._mask = self._state_mask()
        return 0.0, False

    def _state_mask(self) -> NDArray[np.bool_]:
        mask = self.space.valid_actions(self.current)
        if self.space.allow_stop and not self.current and self.clauses:
            mask[END] = True
        return mask

    def clause_list(self) -> tuple[Clause, ...]:
        """Return the closed clauses in canonical form (distinct, sorted)."""
        return canonical_clause_list(self.clauses)

    def describe(self) -> str:
        """Readable state: closed clauses, then the open one."""
        parts = [str(c) for c in self.clauses]
        parts.append(" & ".join(map(str, self.current)) + " ...")
        return " | ".join(parts)

    def features(self) -> NDArray[np.float32]:
        """Fixed-length state encoding for the MLP policy (authors' set-up).

        Multi-hot of the open clause's literals, literal counts of the closed clauses divided
        by ``max_clauses``, and the fill levels of the open clause and of the list.
        """
        n_lit = self.space.n_actions - 1
        out = np.zeros(2 * n_lit + 2, dtype=np.float32)
        for lit in self.current:
            out[self.space.action_of(lit) - 1] = 1.0
        for clause in self.clauses:
            for lit in clause.literals():
                out[n_lit + self.space.action_of(lit) - 1] += 1.0 / self.space.max_clauses
        out[-2] = len(self.current) / self.space.max_literals
        out[-1] = len(self.clauses) / self.space.max_clauses
        return out

    @property
    def n_features(self) -> int:
        """Length of :meth:`features`."""
        return 2 * (self.space.n_actions - 1) + 2
