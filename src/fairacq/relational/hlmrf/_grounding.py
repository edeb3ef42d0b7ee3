"""Ground rules over a :class:`Database` into a :class:`GroundModel` (vectorised joins).

Logical rules (Lukasiewicz relaxation, as PSL). A rule ``b1 & ... & bk -> h1 | ... | hl`` is
violated to the degree that the conjunction of its *negated clause* ``b1 & ... & bk & !h1 &
... & !hl`` is true; with literal values ``v_i`` (``x`` for a positive literal, ``1 - x`` for a
negated one) its distance to satisfaction is ``max(0, sum_i v_i - (n - 1))``, ``n`` the number
of literals. This is linear in the target atoms; observed atoms fold into the constant.
Substitutions are enumerated by joining (hash joins on integer-coded constants) the tables of
the atoms that are positive in the negated clause -- observed atoms with value > 0 and
target atoms -- as PSL's grounding query does; the other atoms are looked up (absent atoms
are 0). Term comparisons (``==``, ``!=``, ``%``) filter the joined rows. Ground rules whose
distance is <= 0 for every value of their targets in [0, 1] are dropped (this includes PSL's
"trivially satisfied by a constant" case and every ground rule without a target atom). A
weighted rule gives one hinge potential ``w * max(a.y + b, 0) ** p``; a hard rule gives the
constraint ``a.y + b <= 0``.

Arithmetic rules. Substitutions of the plain variables come from joining all atoms of the
expression (summation atoms projected on their plain variables) over the atoms present in the
database (observed, of any value, or target). Each summation atom then expands over the atoms
present for the substitution that pass the filter of each of its summation variables (filters
read observed atoms; an atom holds when its value is > 0; a filter with a disjunction splits
the rule into one rule per disjunct, as PSL does), and ``|X|`` is the number of
retained expanded atoms of the summation atom holding ``X`` (PSL's count). A hard rule gives
one constraint row (``=`` an equality); a weighted rule gives the hinge ``max(lhs - rhs, 0)``
for ``<=``, ``max(rhs - lhs, 0)`` for ``>=`` and both for ``=``, as PSL does. Rows without a
target atom, and inequalities (or hinges) that no value of the targets can violate, are
dropped.

Only the loops over rules and over the literals of one rule are Python loops; every ground
rule of a rule is built by array operations.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.typing import NDArray

from fairacq.exceptions import InvalidDataError, ResourceLimitError
from fairacq.relational.hlmrf._database import _KEY_LIMIT, Database, _row_keys
from fairacq.relational.hlmrf._ground_model import (
    GroundModel,
    HingePotentials,
    LinearConstraints,
    SparseMatrix,
)
from fairacq.relational.psl._rules import (
    ArithmeticRule,
    Atom,
    BoolAnd,
    BoolFormula,
    BoolOr,
    Cardinality,
    Coefficient,
    CoefficientBinary,
    CoefficientFunction,
    Comparison,
    Constant,
    Literal,
    Negative,
    Number,
    Rule,
    SumVariable,
    Variable,
)

__all__ = ["MAX_GROUND_RULES", "ground"]

#: Default cap on the rows one join of a rule may produce (see :func:`ground`).
MAX_GROUND_RULES = 20_000_000
#: Rough memory of one joined row (codes, values and variable indices of a few atoms, plus
#: its share of the sparse potential), used only to word the refusal.
_BYTES_PER_ROW = 200

_EPS = 1e-12


def _col(name: str) -> str:
    return f"V:{name}"


@dataclass
class _Linear:
    """Rows ``a_r . y + b_r`` of one rule (before splitting into potentials/constraints).

    The nonzeros of ``a`` are triplets ``(rows, cols, data)``, canonical as in a sparse
    matrix: no two share a row and column and none is 0. One sparse matrix is built for all
    rules at the end (:func:`_stack`), which saves a scipy round trip per rule.
    """

    rows: NDArray[np.int64]
    cols: NDArray[np.int64]
    data: NDArray[np.float64]
    constant: NDArray[np.float64]

    @classmethod
    def empty(cls) -> _Linear:
        """Return no rows."""
        none = np.zeros(0, dtype=np.int64)
        return cls(none, none, np.zeros(0), np.zeros(0))

    def has_variable(self) -> NDArray[np.bool_]:
        """Return whether each row has a nonzero coefficient."""
        return np.bincount(self.rows, minlength=len(self.constant)) > 0


# --------------------------------------------------------------------------- validation


def _check_rules(rules: Sequence[Rule | ArithmeticRule], database: Database) -> None:
    known = database.predicates
    for rule in rules:
        if not isinstance(rule, Rule | ArithmeticRule):
            raise InvalidDataError(
                f"ground: expected Rule or ArithmeticRule values (see parse_rules), got "
                f"{type(rule).__name__}."
            )
        atoms: list[Atom] = []
        if isinstance(rule, Rule):
            atoms = [lit.atom for lit in rule.literals()]
        else:
            atoms = list(rule.atoms())
            for flt in rule.filters:
                for atom in flt.atoms():
                    atoms.append(atom)
                    if atom.predicate in known and not database.is_closed(atom.predicate):
                        raise InvalidDataError(
                            f"Rule {rule.text!r}: the filter uses '{atom.predicate}', which has "
                            "target atoms. Filters may only read observed predicates; add an "
                            "observed predicate for the group (e.g. protectedPaper(P))."
                        )
        for atom in atoms:
            if atom.predicate not in known:
                close = difflib.get_close_matches(atom.predicate, list(known), n=1)
                hint = f" Did you mean '{close[0]}'?" if close else ""
                raise InvalidDataError(
                    f"Rule {rule.text!r}: unknown predicate '{atom.predicate}'.{hint} The "
                    f"database knows {sorted(known)}; add observations or targets for it, or "
                    "fix the name."
                )
            if known[atom.predicate] != atom.arity:
                raise InvalidDataError(_arity_message(rule.text, atom, known[atom.predicate]))


def _arity_message(rule: str, atom: Atom, in_data: int) -> str:
    """Explain an arity mismatch; one column more in the data is most likely a truth value."""
    head = (
        f"Rule {rule!r}: '{atom.predicate}' takes {in_data} argument(s) in the data but "
        f"{atom.arity} in {atom.to_psl()}."
    )
    if in_data == atom.arity + 1:
        return (
            f"{head} The data's last column is probably its truth value, read as an argument "
            "because it is not a number in [0, 1] or the other columns repeat an atom; make "
            f"it one value in [0, 1] per atom, or read the data with "
            f"arities={{'{atom.predicate}': {atom.arity}}} (the rules' arities)."
        )
    if in_data == atom.arity - 1:
        return (
            f"{head} The data's last column holds numbers in [0, 1], so it was read as the "
            f"truth value; read the data with arities={{'{atom.predicate}': {atom.arity}}} "
            "(the rules' arities) so that it is an argument."
        )
    return f"{head} Fix the rule or the data."


# --------------------------------------------------------------------------- substitution frames


_Part: TypeAlias = tuple[dict[str, NDArray[Any]], NDArray[np.intp] | None]


class _Frame:
    """Equal-length columns: constant codes ``V:<name>`` of variables, and atom columns.

    The atom columns are ``val<tag>`` (value of an observed atom, NaN for a target) and
    ``var<tag>`` (model variable of a target atom, -1 for an observed one). A bare stand-in
    for a DataFrame in the grounding hot path. Rows are kept as *parts*: a dict of source
    columns and the row index into them (None for all rows in order). Joins and filters only
    compose the row indices, one per part; a column is gathered when it is read. When two
    parts hold a column of the same name (a shared variable), the first one is read.
    """

    __slots__ = ("_cache", "length", "parts")

    def __init__(self, parts: list[_Part], length: int) -> None:
        self.parts = parts
        self.length = length
        self._cache: dict[str, NDArray[Any]] = {}

    @classmethod
    def of(cls, columns: dict[str, NDArray[Any]], length: int) -> _Frame:
        """Return a frame of one part holding ``columns`` in order."""
        return cls([(columns, None)], length)

    def __len__(self) -> int:
        return self.length

    def names(self) -> list[str]:
        """Return every column name, in order of first appearance."""
        return list(dict.fromkeys(c for columns, _ in self.parts for c in columns))

    def variables(self) -> list[str]:
        """Return the variable columns (``V:<name>``)."""
        return [c for c in self.names() if c.startswith("V:")]

    def column(self, name: str) -> NDArray[Any]:
        """Return the values of column ``name``, one per row."""
        if name not in self._cache:
            columns, rows = next((p for p in self.parts if name in p[0]), ({}, None))
            if name not in columns:
                raise KeyError(name)
            self._cache[name] = columns[name] if rows is None else columns[name][rows]
        return self._cache[name]

    def take(self, index: NDArray[np.intp]) -> _Frame:
        """Return the rows ``index``, in that order."""
        parts: list[_Part] = [
            (c, index if rows is None else rows[index]) for c, rows in self.parts
        ]
        return _Frame(parts, len(index))

    def where(self, mask: NDArray[np.bool_]) -> _Frame:
        """Return the rows where ``mask`` holds."""
        return self.take(np.flatnonzero(mask))

    def select(self, names: Sequence[str]) -> _Frame:
        """Return the columns ``names`` only, gathered into one part."""
        return _Frame.of({c: self.column(c) for c in names}, self.length)

    def with_column(self, name: str, values: NDArray[Any]) -> _Frame:
        """Return the frame with one more column."""
        return _Frame([({name: values}, None), *self.parts], self.length)


def _n_codes(db: Database) -> int:
    """Return the number of constant codes of ``db`` (the radix of row keys)."""
    return max(len(db._constants), 1)


def _atom_frame(
    atom: Atom, database: Database, tag: str, *, positive_only: bool = False
) -> _Frame:
    """Atoms matching ``atom``: one column per (summation) variable, ``val{tag}``, ``var{tag}``."""
    table = database._atoms(atom.predicate, positive_only=positive_only)
    keep: NDArray[np.bool_] | None = None
    first: dict[str, int] = {}
    for j, arg in enumerate(atom.args):
        column = table.codes[:, j]
        if isinstance(arg, Constant):
            match = column == database._code(arg.value)
        elif arg.name in first:
            match = column == table.codes[:, first[arg.name]]
        else:
            first[arg.name] = j
            continue
        keep = match if keep is None else keep & match
    index = None if keep is None else np.flatnonzero(keep)

    def pick(values: NDArray[Any]) -> NDArray[Any]:
        return values if index is None else values[index]

    columns = {_col(name): pick(table.codes[:, j]) for name, j in first.items()}
    columns[f"val{tag}"] = pick(table.values)
    columns[f"var{tag}"] = pick(table.variables)
    return _Frame.of(columns, len(table) if index is None else len(index))


def _keys(frame: _Frame, on: Sequence[str], base: int) -> NDArray[np.int64]:
    """One integer key per row of ``frame`` over the columns ``on`` (codes below ``base``).

    Keys of different frames are comparable unless several columns could overflow int64
    (then :func:`_merge` renumbers both frames together).
    """
    key = np.asarray(frame.column(on[0]), dtype=np.int64)
    for c in on[1:]:
        key = key * base + frame.column(c)
    return key


def _fits(on: Sequence[str], base: int) -> bool:
    """Whether :func:`_keys` over ``on`` cannot overflow."""
    return bool(base ** len(on) < _KEY_LIMIT)


def _small(span: int, size: int) -> bool:
    """Whether keys below ``span`` are few enough to index an array (for ``size`` rows)."""
    return span <= max(4 * size, 1 << 16)


def _match_keys(
    lkey: NDArray[np.int64], rkey: NDArray[np.int64], span: int | None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Return the pairs ``(i, j)`` with ``lkey[i] == rkey[j]``, ordered by ``i`` then ``j``.

    The right rows are grouped by key (stably, so the rows of one key keep their order) and
    each left key finds its group: by direct addressing when the keys lie below a small
    ``span`` (None when unknown), else by hashing the distinct right keys.
    """
    if span is not None and _small(span, len(lkey) + len(rkey)):
        group, at = rkey, lkey
        size = np.bincount(group, minlength=span)
    else:
        codes, distinct = pd.factorize(rkey)
        group = np.asarray(codes, dtype=np.int64)
        size = np.bincount(group, minlength=len(distinct) + 1)  # last: "absent", size 0
        found = pd.Index(distinct, copy=False).get_indexer(pd.Index(lkey, copy=False))
        at = np.where(found >= 0, found, len(distinct))
    hit = np.flatnonzero(size[at] > 0)
    at = at[hit]
    if size.max(initial=0) <= 1:  # unique right keys: at most one match per left row
        position = np.full(len(size), -1, dtype=np.intp)
        position[group] = np.arange(len(group), dtype=np.intp)
        return hit, position[at]
    counts = size[at]
    order = np.argsort(group, kind="stable")
    first = np.cumsum(size) - size
    li = np.repeat(hit, counts)
    starts = np.repeat(first[at] - (np.cumsum(counts) - counts), counts)
    return li, order[starts + np.arange(len(li))]


@dataclass(frozen=True)
class _SizeGuard:
    """The most rows one join of a rule may produce, and the rule (for the message)."""

    limit: int
    rule: str

    def check(self, rows: int) -> None:
        """Refuse a join of ``rows`` rows before it is materialised."""
        if rows > self.limit:
            raise ResourceLimitError(
                f"Grounding the rule {self.rule[:120]!r} would create at least {rows:,} ground "
                f"rules (more than max_ground_rules={self.limit:,}, about "
                f"{rows * _BYTES_PER_ROW / 1e9:,.0f} GB). Share variables between the rule's "
                "atoms so they join instead of multiplying, or raise max_ground_rules."
            )


def _join_size(lkey: NDArray[np.int64], rkey: NDArray[np.int64]) -> int:
    """Rows of the inner join of two key columns, counted without building it."""
    values, counts = np.unique(rkey, return_counts=True)
    at = np.clip(np.searchsorted(values, lkey), 0, max(len(values) - 1, 0))
    hit = values[at] == lkey if len(values) else np.zeros(len(lkey), dtype=bool)
    return int(counts[at[hit]].sum())


def _merge(
    left: _Frame, right: _Frame, on: Sequence[str], base: int, guard: _SizeGuard | None = None
) -> _Frame:
    """Inner join on the columns ``on`` (a cross join if empty).

    Rows come in the order of ``left`` and, for one left row, in the order of ``right`` (as
    pandas' ``merge(sort=False)``). Keys of several columns are combined into one integer
    key (see :func:`_keys`); the join itself is :func:`_match_keys`. With a ``guard``, a
    join larger than its limit is refused before it is built.
    """
    n_left, n_right = len(left), len(right)
    may_exceed = guard is not None and n_left * n_right > guard.limit
    if not on:
        if guard is not None:
            guard.check(n_left * n_right)
        li = np.repeat(np.arange(n_left), n_right)
        ri = np.tile(np.arange(n_right), n_left)
    else:
        span: int | None = base ** len(on)
        if _fits(on, base):
            lkey, rkey = _keys(left, on, base), _keys(right, on, base)
        else:
            span = None
            codes = np.column_stack(
                [np.concatenate([left.column(c), right.column(c)]) for c in on]
            )
            both = _row_keys(codes.astype(np.int64), base)
            lkey, rkey = both[:n_left], both[n_left:]
        if may_exceed and guard is not None:
            guard.check(_join_size(lkey, rkey))
        li, ri = _match_keys(lkey, rkey, span)
    return _Frame(left.take(li).parts + right.take(ri).parts, len(li))


def _distinct(frame: _Frame, base: int) -> _Frame:
    """Return the first occurrence of each distinct row (code columns only), in order."""
    on = frame.names()
    if len(frame) == 0 or not on:
        return frame
    if _fits(on, base):
        keys = _keys(frame, on, base)
    else:
        codes = np.column_stack([frame.column(c) for c in on]).astype(np.int64)
        keys = _row_keys(codes, base)
    seen = pd.Series(keys, copy=False).duplicated().to_numpy()
    return frame if not seen.any() else frame.where(~seen)


def _join(frames: list[_Frame], base: int, guard: _SizeGuard | None = None) -> _Frame:
    """Inner-join frames on their shared variable columns, smallest and connected first."""
    if guard is not None and _all_unrelated(frames):
        guard.check(math.prod(len(f) for f in frames))  # a pure cross product: exact size
    remaining = sorted(frames, key=len)
    result = remaining.pop(0)
    while remaining:
        bound = set(result.variables())
        connected = [k for k, f in enumerate(remaining) if bound & set(f.variables())]
        nxt = remaining.pop(connected[0] if connected else 0)
        shared = sorted(bound & set(nxt.variables()))
        result = _merge(result, nxt, shared, base, guard)
    return result


def _all_unrelated(frames: list[_Frame]) -> bool:
    """Whether no two frames share a variable (their join is their cross product)."""
    seen: set[str] = set()
    for frame in frames:
        names = set(frame.variables())
        if seen & names:
            return False
        seen |= names
    return len(frames) > 1


def _term_codes(
    term: Variable | SumVariable | Constant, frame: _Frame, db: Database
) -> NDArray[np.int64]:
    if isinstance(term, Constant):
        return np.full(len(frame), db._code(term.value), dtype=np.int64)
    return np.asarray(frame.column(_col(term.name)), dtype=np.int64)


def _lookup(
    atom: Atom, frame: _Frame, db: Database
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Value and variable index of ``atom`` for each row of ``frame`` (absent: 0, -1)."""
    codes = np.column_stack([_term_codes(a, frame, db) for a in atom.args]).astype(np.int64)
    return db._lookup_codes(atom.predicate, codes.reshape(len(frame), atom.arity))


def _rank(
    term: Variable | SumVariable | Constant, frame: _Frame, db: Database
) -> NDArray[np.int64]:
    """Rank constants in string order for the ``%`` comparison.

    A constant of the data ranks ``2 * position + 1``; a rule constant the data does not hold
    ranks ``2 * insertion point``, between its neighbours.
    """
    strings, rank = db._string_order()
    if isinstance(term, Constant):
        pos = int(np.searchsorted(strings, term.value))
        present = pos < len(strings) and strings[pos] == term.value
        return np.full(len(frame), 2 * pos + (1 if present else 0), dtype=np.int64)
    out: NDArray[np.int64] = rank[frame.column(_col(term.name))]
    return out


def _compare(comp: Comparison, frame: _Frame, db: Database) -> NDArray[np.bool_]:
    if isinstance(comp.left, Constant) and isinstance(comp.right, Constant):
        a, b = comp.left.value, comp.right.value
        static = {"==": a == b, "!=": a != b, "%": a < b}[comp.op]
        return np.full(len(frame), static, dtype=bool)
    left = _rank(comp.left, frame, db)
    right = _rank(comp.right, frame, db)
    if comp.op == "==":
        return np.asarray(left == right)
    if comp.op == "!=":
        return np.asarray(left != right)
    return np.asarray(left < right)


# --------------------------------------------------------------------------- logical rules


def _ground_logical(rule: Rule, db: Database, n: int, guard: _SizeGuard) -> _Linear:
    clause = rule.clause()
    positives = [(i, atom) for i, (atom, pos) in enumerate(clause) if pos]
    frames = [_atom_frame(atom, db, str(i), positive_only=True) for i, atom in positives]
    subs = _join(frames, _n_codes(db), guard)
    for comp in rule.comparisons():
        if len(subs) == 0:
            break
        subs = subs.where(_compare(comp, subs, db))
    m = len(subs)
    rows: list[NDArray[np.int64]] = []
    cols: list[NDArray[np.int64]] = []
    data: list[NDArray[np.float64]] = []
    constant = np.full(m, -(len(clause) - 1), dtype=np.float64)
    index = np.arange(m, dtype=np.int64)
    for i, (atom, positive) in enumerate(clause):
        if m == 0:
            break
        if positive:
            val = subs.column(f"val{i}")
            var = subs.column(f"var{i}")
        else:
            val, var = _lookup(atom, subs, db)
        is_var = var >= 0
        rows.append(index[is_var])
        cols.append(var[is_var])
        data.append(np.full(int(is_var.sum()), 1.0 if positive else -1.0))
        obs = np.where(is_var, 0.0 if positive else 1.0, val if positive else 1.0 - val)
        constant += obs
    predicates = [atom.predicate for atom, _ in clause]
    merge = len(set(predicates)) < len(predicates)  # else no variable can repeat in a row
    return _assemble(rows, cols, data, constant, n, merge=merge)


def _assemble(
    rows: list[NDArray[np.int64]],
    cols: list[NDArray[np.int64]],
    data: list[NDArray[np.float64]],
    constant: NDArray[np.float64],
    n: int,
    *,
    merge: bool = True,
) -> _Linear:
    """Collect per-term triplets into canonical rows.

    ``merge=False`` promises that no (row, column) pair repeats, which spares the sort that
    sums duplicates; zero coefficients are dropped either way.
    """
    if not rows:
        empty = _Linear.empty()
        return _Linear(empty.rows, empty.cols, empty.data, constant)
    r, c, d = np.concatenate(rows), np.concatenate(cols), np.concatenate(data)
    if merge:
        matrix: SparseMatrix = sp.csr_array((d, (r, c)), shape=(len(constant), n))
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
        coo = matrix.tocoo()
        r, c, d = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
    elif not np.all(d != 0):
        nonzero = d != 0
        r, c, d = r[nonzero], c[nonzero], d[nonzero]
    return _Linear(r, c, d, constant)


def _box_max(lin: _Linear) -> NDArray[np.float64]:
    """Largest value of ``a.y + b`` over ``y in [0, 1]^n``, per row."""
    positive = np.maximum(lin.data, 0.0)
    return np.bincount(lin.rows, weights=positive, minlength=len(lin.constant)) + lin.constant


def _rows(lin: _Linear, keep: NDArray[np.bool_]) -> _Linear:
    """Return the rows where ``keep`` holds, renumbered in order."""
    renumber = np.cumsum(keep) - 1
    entry = keep[lin.rows]
    return _Linear(renumber[lin.rows[entry]], lin.cols[entry], lin.data[entry], lin.constant[keep])


def _negated(lin: _Linear) -> _Linear:
    return _Linear(lin.rows, lin.cols, -lin.data, -lin.constant)


def _nontrivial(lin: _Linear) -> _Linear:
    return _rows(lin, lin.has_variable() & (_box_max(lin) > _EPS))


# --------------------------------------------------------------------------- arithmetic rules


def _eval_filter(formula: BoolFormula, frame: _Frame, db: Database) -> NDArray[np.bool_]:
    if isinstance(formula, Comparison):
        return _compare(formula, frame, db)
    if isinstance(formula, Literal):
        val, _ = _lookup(formula.atom, frame, db)
        holds = np.asarray(val > 0)
        return ~holds if formula.negated else holds
    parts = [_eval_filter(item, frame, db) for item in formula.items]
    if isinstance(formula, BoolAnd):
        return np.asarray(np.logical_and.reduce(parts), dtype=bool)
    if isinstance(formula, BoolOr):
        return np.asarray(np.logical_or.reduce(parts), dtype=bool)
    raise InvalidDataError(f"Unknown filter formula {formula!r}.")  # pragma: no cover


def _eval_coef(
    c: Coefficient, card: dict[str, NDArray[np.float64]], g: int
) -> NDArray[np.float64]:
    if isinstance(c, Number):
        return np.full(g, c.value)
    if isinstance(c, Cardinality):
        return card[c.variable]
    if isinstance(c, Negative):
        return -_eval_coef(c.operand, card, g)
    left = _eval_coef(c.left, card, g)
    right = _eval_coef(c.right, card, g)
    if isinstance(c, CoefficientFunction):
        return np.maximum(left, right) if c.name == "Max" else np.minimum(left, right)
    if isinstance(c, CoefficientBinary):
        with np.errstate(divide="ignore", invalid="ignore"):
            out = {"+": left + right, "-": left - right, "*": left * right, "/": left / right}
        return np.asarray(out[c.op], dtype=np.float64)
    raise InvalidDataError(f"Unknown coefficient {c!r}.")  # pragma: no cover


def _dnf(formula: BoolFormula) -> list[BoolFormula]:
    """Disjuncts of ``formula`` in disjunctive normal form (each a literal, comparison or And)."""
    if isinstance(formula, Literal | Comparison):
        return [formula]
    if isinstance(formula, BoolOr):
        return [d for item in formula.items for d in _dnf(item)]
    out: list[list[BoolFormula]] = [[]]
    for item in formula.items:
        out = [
            [*prefix, *(d.items if isinstance(d, BoolAnd) else (d,))]
            for prefix in out
            for d in _dnf(item)
        ]
    return [parts[0] if len(parts) == 1 else BoolAnd(tuple(parts)) for parts in out]


def _filter_variants(rule: ArithmeticRule) -> list[dict[str, BoolFormula]]:
    """Split disjunctive filters as PSL does: one filter set per combination of disjuncts."""
    variants: list[dict[str, BoolFormula]] = [{}]
    for flt in rule.filters:
        variants = [{**v, flt.variable: d} for v in variants for d in _dnf(flt.formula)]
    return variants


def _ground_arithmetic(  # noqa: PLR0912, PLR0915
    rule: ArithmeticRule,
    db: Database,
    n: int,
    filters: dict[str, BoolFormula],
    guard: _SizeGuard,
) -> _Linear:
    plain = rule.variables()
    base = _n_codes(db)
    frames: list[_Frame] = []
    for i, atom in enumerate(rule.atoms()):
        frame = _atom_frame(atom, db, str(i))
        if len(frame) == 0:
            return _Linear.empty()
        keep = [c for c in frame.variables() if c[2:] in plain]
        if keep:
            frames.append(_distinct(frame.select(keep), base))
    if frames:
        groups = _distinct(_join(frames, base, guard).select([_col(v) for v in plain]), base)
    else:
        groups = _Frame.of({}, 1)
    g = len(groups)
    if g == 0:
        return _Linear.empty()
    groups = groups.with_column("gid", np.arange(g, dtype=np.int64))

    # expand each summation atom; count retained atoms per group
    expansions: dict[int, _Frame] = {}
    card: dict[str, NDArray[np.float64]] = {}
    for i, term in enumerate(rule.terms()):
        if term.atom is None or not term.atom.sum_variables():
            continue
        atom = term.atom
        frame = _atom_frame(atom, db, "")
        rows = _merge(groups, frame, [_col(v) for v in atom.variables()], base, guard)
        for name in atom.sum_variables():
            formula = filters.get(name)
            if formula is not None and len(rows):
                rows = rows.where(_eval_filter(formula, rows, db))
        expansions[i] = rows
        counts = np.bincount(rows.column("gid"), minlength=g).astype(np.float64)
        for name in atom.sum_variables():
            card[name] = counts

    rows_l: list[NDArray[np.int64]] = []
    cols_l: list[NDArray[np.int64]] = []
    data_l: list[NDArray[np.float64]] = []
    constant = np.zeros(g)
    n_lhs = len(rule.lhs)
    for i, term in enumerate(rule.terms()):
        sign = 1.0 if i < n_lhs else -1.0
        coef = sign * _eval_coef(term.coefficient, card, g)
        if term.atom is None:
            gid = np.arange(g, dtype=np.int64)
            val, var = np.ones(g), np.full(g, -1, dtype=np.int64)
        elif i in expansions:
            rows = expansions[i]
            gid = rows.column("gid")
            val = rows.column("val")
            var = rows.column("var")
        else:
            gid = np.arange(g, dtype=np.int64)
            val, var = _lookup(term.atom, groups, db)
        c = coef[gid]
        if not np.all(np.isfinite(c)):
            raise InvalidDataError(
                f"Rule {rule.text!r}: the coefficient {term.coefficient.to_psl()} is not finite "
                "in some grounding (a cardinality |X| is 0, so it divides by zero). Check the "
                "filters, or guard the coefficient with @Max[|X|, 1]."
            )
        is_var = var >= 0
        rows_l.append(gid[is_var])
        cols_l.append(var[is_var])
        data_l.append(c[is_var])
        constant += np.bincount(gid[~is_var], weights=c[~is_var] * val[~is_var], minlength=g)
    return _assemble(rows_l, cols_l, data_l, constant, n)


# --------------------------------------------------------------------------- entry point


def ground(  # noqa: PLR0912
    rules: Sequence[Rule | ArithmeticRule],
    database: Database,
    *,
    max_ground_rules: int = MAX_GROUND_RULES,
) -> GroundModel:
    r"""Ground rules over a database into a hinge-loss MRF.

    Parameters
    ----------
    rules : sequence of Rule or ArithmeticRule
        E.g. from :func:`parse_rules`. Weighted rules become hinge potentials (their order
        defines ``rule_weights`` / ``rule_names`` / ``rule_index``); hard rules become rows
        of ``constraints`` labelled with the rule text.
    database : Database
    max_ground_rules : int, default=MAX_GROUND_RULES
        The most rows one join of a rule may produce. Each join's size is counted before it
        is built, and a rule whose atoms share no variables (12 unrelated variables multiply
        12 domains) is refused at once instead of filling the memory. The default (20
        million) fits a 24 GB machine with room to spare.

    Returns
    -------
    GroundModel
        Variables are every target atom of ``database`` in its order (even atoms no
        potential touches).

    Raises
    ------
    InvalidDataError
        For an unknown predicate or a wrong arity (naming the predicate and the fix), a
        filter over a predicate with target atoms, or a coefficient that divides by a zero
        cardinality.
    ResourceLimitError
        When a rule would ground to more than ``max_ground_rules`` rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.relational import Database, parse_rules
    >>> db = Database.from_frames(
    ...     observations={"good": pd.DataFrame({"p": ["a", "b"], "value": [1.0, 0.2]})},
    ...     targets={"accept": pd.DataFrame({"p": ["a", "b"]})},
    ... )
    >>> model = ground(parse_rules("2: good(P) -> accept(P) ^2\n1: !accept(P)"), db)
    >>> model.potentials.n_potentials, model.rule_weights.tolist()
    (4, [2.0, 1.0])
    >>> model.objective([1.0, 0.2])
    1.2
    """
    if not isinstance(database, Database):
        raise InvalidDataError(
            f"ground: expected a Database, got {type(database).__name__}; build one with "
            "Database.from_frames(...)."
        )
    rules = list(rules)
    _check_rules(rules, database)
    n = database.n_targets
    pot: list[tuple[_Linear, float, bool, int]] = []
    cons: list[tuple[_Linear, bool, str]] = []
    weights: list[float] = []
    names: list[str] = []
    for rule in rules:
        guard = _SizeGuard(int(max_ground_rules), rule.text)
        if isinstance(rule, Rule):
            lin = _ground_logical(rule, database, n, guard)
            pieces = [(lin, False)]
        else:
            pieces = []
            for filters in _filter_variants(rule):
                lin = _ground_arithmetic(rule, database, n, filters, guard)
                if rule.relation == "<=":
                    pieces.append((lin, False))
                elif rule.relation == ">=":
                    pieces.append((_negated(lin), False))
                elif rule.weight is None:
                    pieces.append((lin, True))
                else:
                    pieces += [(_negated(lin), False), (lin, False)]
        if rule.weight is None:
            for piece, equality in pieces:
                kept = _rows(piece, piece.has_variable()) if equality else _nontrivial(piece)
                cons.append((kept, equality, rule.text))
        else:
            index = len(weights)
            weights.append(float(rule.weight))
            names.append(rule.text)
            for piece, _ in pieces:
                pot.append((_nontrivial(piece), float(rule.weight), rule.squared, index))
    potentials = _build_potentials(pot, n)
    constraints = _build_constraints(cons, n)
    return GroundModel(
        variables=database.variables(),
        potentials=potentials,
        constraints=constraints,
        rule_weights=np.asarray(weights, dtype=np.float64),
        rule_names=tuple(names),
    )


def _build_potentials(pot: list[tuple[_Linear, float, bool, int]], n: int) -> HingePotentials:
    if not pot:
        return HingePotentials.empty(n)
    sizes = [len(lin.constant) for lin, _, _, _ in pot]
    return HingePotentials.build(
        _stack([lin for lin, _, _, _ in pot], n),
        np.concatenate([lin.constant for lin, _, _, _ in pot]),
        np.repeat([w for _, w, _, _ in pot], sizes),
        np.repeat([s for _, _, s, _ in pot], sizes).astype(bool),
        np.repeat([i for _, _, _, i in pot], sizes).astype(np.int64),
        n_variables=n,
    )


def _build_constraints(cons: list[tuple[_Linear, bool, str]], n: int) -> LinearConstraints:
    if not cons:
        return LinearConstraints.empty(n)
    sizes = [len(lin.constant) for lin, _, _ in cons]
    labels: list[str] = []
    for (_, _, text), size in zip(cons, sizes, strict=True):
        labels.extend([text] * size)
    return LinearConstraints.build(
        _stack([lin for lin, _, _ in cons], n),
        np.concatenate([lin.constant for lin, _, _ in cons]),
        np.repeat([eq for _, eq, _ in cons], sizes).astype(bool),
        labels,
        n_variables=n,
    )


def _stack(parts: list[_Linear], n: int) -> SparseMatrix:
    """Stack the rows of ``parts`` into one CSR matrix with ``n`` columns (sorted indices)."""
    sizes = np.array([len(lin.constant) for lin in parts], dtype=np.int64)
    offsets = np.cumsum(sizes) - sizes
    rows = np.concatenate([lin.rows + off for lin, off in zip(parts, offsets, strict=True)])
    cols = np.concatenate([lin.cols for lin in parts])
    data = np.concatenate([lin.data for lin in parts])
    matrix: SparseMatrix = sp.csr_array((data, (rows, cols)), shape=(int(sizes.sum()), n))
    matrix.sum_duplicates()
    return matrix
