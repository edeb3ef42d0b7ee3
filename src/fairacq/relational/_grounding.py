"""Ground rules over a :class:`Database` into a :class:`GroundModel` (vectorised joins).

Logical rules (Lukasiewicz relaxation, as PSL). A rule ``b1 & ... & bk -> h1 | ... | hl`` is
violated to the degree that the conjunction of its *negated clause* ``b1 & ... & bk & !h1 &
... & !hl`` is true; with literal values ``v_i`` (``x`` for a positive literal, ``1 - x`` for a
negated one) its distance to satisfaction is ``max(0, sum_i v_i - (n - 1))``, ``n`` the number
of literals. This is linear in the target atoms; observed atoms fold into the constant.
Substitutions are enumerated by joining (pandas merges on integer-coded constants) the tables
of the atoms that are positive in the negated clause -- observed atoms with value > 0 and
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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.typing import NDArray

from fairacq.exceptions import InvalidDataError
from fairacq.relational._database import Database
from fairacq.relational._ground_model import (
    GroundModel,
    HingePotentials,
    LinearConstraints,
    SparseMatrix,
)
from fairacq.relational._rules import (
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

__all__ = ["ground"]

_EPS = 1e-12


def _col(name: str) -> str:
    return f"V:{name}"


@dataclass
class _Linear:
    """Rows ``a_r . y + b_r`` of one rule (before splitting into potentials/constraints)."""

    matrix: SparseMatrix
    constant: NDArray[np.float64]


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
                raise InvalidDataError(
                    f"Rule {rule.text!r}: '{atom.predicate}' takes {known[atom.predicate]} "
                    f"argument(s) in the data but {atom.arity} in {atom.to_psl()}. Fix the "
                    "rule or the data."
                )


# --------------------------------------------------------------------------- atom frames


def _atom_frame(
    atom: Atom, database: Database, tag: str, *, positive_only: bool = False
) -> pd.DataFrame:
    """Atoms matching ``atom``: one column per (summation) variable, ``val{tag}``, ``var{tag}``."""
    table = database._atoms(atom.predicate, positive_only=positive_only)
    keep = np.ones(len(table), dtype=bool)
    first: dict[str, str] = {}
    for j, arg in enumerate(atom.args):
        column = table[f"c{j}"].to_numpy()
        if isinstance(arg, Constant):
            keep &= column == database._code(arg.value)
        elif arg.name in first:
            keep &= column == table[first[arg.name]].to_numpy()
        else:
            first[arg.name] = f"c{j}"
    table = table[keep]
    out = pd.DataFrame({_col(name): table[c].to_numpy() for name, c in first.items()})
    out[f"val{tag}"] = table["value"].to_numpy()
    out[f"var{tag}"] = table["var"].to_numpy()
    return out


def _join(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Inner-join frames on their shared variable columns, smallest and connected first."""
    remaining = sorted(frames, key=len)
    result = remaining.pop(0)
    while remaining:
        bound = {c for c in result.columns if c.startswith("V:")}
        connected = [k for k, f in enumerate(remaining) if bound & set(f.columns)]
        nxt = remaining.pop(connected[0] if connected else 0)
        shared = sorted(bound & set(nxt.columns))
        if shared:
            result = result.merge(nxt, on=shared, how="inner", sort=False)
        else:
            result = result.merge(nxt, how="cross")
        if result.empty:
            break
    return result.reset_index(drop=True)


def _term_codes(
    term: Variable | SumVariable | Constant, frame: pd.DataFrame, db: Database
) -> NDArray[np.int64]:
    if isinstance(term, Constant):
        return np.full(len(frame), db._code(term.value), dtype=np.int64)
    return frame[_col(term.name)].to_numpy(dtype=np.int64)


def _lookup(
    atom: Atom, frame: pd.DataFrame, db: Database
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Value and variable index of ``atom`` for each row of ``frame`` (absent: 0, -1)."""
    codes = np.column_stack([_term_codes(a, frame, db) for a in atom.args]).astype(np.int64)
    return db._lookup_codes(atom.predicate, codes.reshape(len(frame), atom.arity))


def _rank(
    term: Variable | SumVariable | Constant, frame: pd.DataFrame, db: Database
) -> NDArray[np.int64]:
    """Rank constants in string order for the ``%`` comparison.

    A constant of the data ranks ``2 * position + 1``; a rule constant the data does not hold
    ranks ``2 * insertion point``, between its neighbours.
    """
    strings = db._constants.to_numpy().astype(str)
    order = np.argsort(strings, kind="stable")
    if isinstance(term, Constant):
        pos = int(np.searchsorted(strings[order], term.value))
        present = pos < len(strings) and strings[order][pos] == term.value
        return np.full(len(frame), 2 * pos + (1 if present else 0), dtype=np.int64)
    rank = np.empty(len(strings), dtype=np.int64)
    rank[order] = 2 * np.arange(len(strings), dtype=np.int64) + 1
    out: NDArray[np.int64] = rank[frame[_col(term.name)].to_numpy(dtype=np.int64)]
    return out


def _compare(comp: Comparison, frame: pd.DataFrame, db: Database) -> NDArray[np.bool_]:
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


def _ground_logical(rule: Rule, db: Database, n: int) -> _Linear:
    clause = rule.clause()
    positives = [(i, atom) for i, (atom, pos) in enumerate(clause) if pos]
    frames = [_atom_frame(atom, db, str(i), positive_only=True) for i, atom in positives]
    subs = _join(frames)
    for comp in rule.comparisons():
        if subs.empty:
            break
        subs = subs[_compare(comp, subs, db)].reset_index(drop=True)
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
            val = subs[f"val{i}"].to_numpy(dtype=np.float64)
            var = subs[f"var{i}"].to_numpy(dtype=np.int64)
        else:
            val, var = _lookup(atom, subs, db)
        is_var = var >= 0
        rows.append(index[is_var])
        cols.append(var[is_var])
        data.append(np.full(int(is_var.sum()), 1.0 if positive else -1.0))
        obs = np.where(is_var, 0.0 if positive else 1.0, val if positive else 1.0 - val)
        constant += obs
    return _assemble(rows, cols, data, constant, n)


def _assemble(
    rows: list[NDArray[np.int64]],
    cols: list[NDArray[np.int64]],
    data: list[NDArray[np.float64]],
    constant: NDArray[np.float64],
    n: int,
) -> _Linear:
    m = len(constant)
    if rows:
        r, c, d = np.concatenate(rows), np.concatenate(cols), np.concatenate(data)
    else:
        r, c, d = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    matrix: SparseMatrix = sp.csr_array((d, (r, c)), shape=(m, n))
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    return _Linear(matrix, constant)


def _box_max(lin: _Linear) -> NDArray[np.float64]:
    """Largest value of ``a.y + b`` over ``y in [0, 1]^n``, per row."""
    positive = lin.matrix.copy()
    positive.data = np.maximum(positive.data, 0.0)
    return np.asarray(positive.sum(axis=1)).reshape(-1) + lin.constant


def _rows(lin: _Linear, keep: NDArray[np.bool_]) -> _Linear:
    idx = np.flatnonzero(keep)
    return _Linear(sp.csr_array(lin.matrix[idx]), lin.constant[idx])


def _negated(lin: _Linear) -> _Linear:
    return _Linear(sp.csr_array(-lin.matrix), -lin.constant)


def _nontrivial(lin: _Linear) -> _Linear:
    has_var = np.diff(lin.matrix.indptr) > 0
    return _rows(lin, has_var & (_box_max(lin) > _EPS))


# --------------------------------------------------------------------------- arithmetic rules


def _eval_filter(formula: BoolFormula, frame: pd.DataFrame, db: Database) -> NDArray[np.bool_]:
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


def _ground_arithmetic(
    rule: ArithmeticRule, db: Database, n: int, filters: dict[str, BoolFormula]
) -> _Linear:
    plain = rule.variables()
    frames: list[pd.DataFrame] = []
    for i, atom in enumerate(rule.atoms()):
        frame = _atom_frame(atom, db, str(i))
        if frame.empty:
            return _Linear(sp.csr_array((0, n)), np.zeros(0))
        keep = [c for c in frame.columns if c.startswith("V:") and c[2:] in plain]
        if keep:
            frames.append(frame[keep].drop_duplicates())
    if frames:
        groups = _join(frames)[[_col(v) for v in plain]].drop_duplicates().reset_index(drop=True)
    else:
        groups = pd.DataFrame(index=pd.RangeIndex(1))
    g = len(groups)
    if g == 0:
        return _Linear(sp.csr_array((0, n)), np.zeros(0))
    groups["gid"] = np.arange(g, dtype=np.int64)

    # expand each summation atom; count retained atoms per group
    expansions: dict[int, pd.DataFrame] = {}
    card: dict[str, NDArray[np.float64]] = {}
    for i, term in enumerate(rule.terms()):
        if term.atom is None or not term.atom.sum_variables():
            continue
        atom = term.atom
        frame = _atom_frame(atom, db, "")
        shared = [_col(v) for v in atom.variables()]
        rows = (
            groups.merge(frame, on=shared, how="inner")
            if shared
            else groups.merge(frame, how="cross")
        )
        for name in atom.sum_variables():
            formula = filters.get(name)
            if formula is not None and not rows.empty:
                rows = rows[_eval_filter(formula, rows, db)]
        rows = rows.reset_index(drop=True)
        expansions[i] = rows
        counts = np.bincount(rows["gid"].to_numpy(dtype=np.int64), minlength=g).astype(np.float64)
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
            gid = rows["gid"].to_numpy(dtype=np.int64)
            val = rows["val"].to_numpy(dtype=np.float64)
            var = rows["var"].to_numpy(dtype=np.int64)
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


def ground(rules: Sequence[Rule | ArithmeticRule], database: Database) -> GroundModel:
    r"""Ground rules over a database into a hinge-loss MRF.

    Parameters
    ----------
    rules : sequence of Rule or ArithmeticRule
        E.g. from :func:`parse_rules`. Weighted rules become hinge potentials (their order
        defines ``rule_weights`` / ``rule_names`` / ``rule_index``); hard rules become rows
        of ``constraints`` labelled with the rule text.
    database : Database

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
        if isinstance(rule, Rule):
            lin = _ground_logical(rule, database, n)
            pieces = [(lin, False)]
        else:
            pieces = []
            for filters in _filter_variants(rule):
                lin = _ground_arithmetic(rule, database, n, filters)
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
                if equality:
                    kept = _rows(piece, np.diff(piece.matrix.indptr) > 0)
                else:
                    kept = _nontrivial(piece)
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
        sp.vstack([lin.matrix for lin, _, _, _ in pot], format="csr"),
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
        sp.vstack([lin.matrix for lin, _, _ in cons], format="csr"),
        np.concatenate([lin.constant for lin, _, _ in cons]),
        np.repeat([eq for _, eq, _ in cons], sizes).astype(bool),
        labels,
        n_variables=n,
    )
