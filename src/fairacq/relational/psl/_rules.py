"""Rules of the PSL language as immutable values: logical rules and arithmetic rules.

A logical rule ``w: b1 & b2 & !b3 -> h1 | h2 ^2`` is a weighted disjunctive clause
``!b1 | !b2 | b3 | h1 | h2``; its Lukasiewicz distance to satisfaction is
``max(0, 1 - sum of literal truth values)``, the hinge that grounding builds (Bach et al. 2017,
the HL-MRF Zhang & Ramesh builds on, eq. 1). An arithmetic rule ``w: 2 * a(X) + b(+Y) / |Y| <= 1
^2 {Y: c(Y)}`` compares two linear expressions over atoms; ``+Y`` sums over the constants of
``Y`` that pass the filter ``{Y: ...}`` and ``|Y|`` counts them. A rule without a weight is
hard (written with a final ``.``) and becomes a linear constraint.

Every class writes itself back as PSL text with ``to_psl()``; parsing that text gives an
equal value (``parse_rule(r.to_psl()) == r``), and the text is accepted by PSL 2.x.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal as TypingLiteral
from typing import TypeAlias

from fairacq.exceptions import InvalidDataError
from fairacq.relational.psl._syntax import format_constant, format_number

__all__ = [
    "ArithmeticRule",
    "Atom",
    "BoolAnd",
    "BoolOr",
    "Cardinality",
    "CoefficientBinary",
    "CoefficientFunction",
    "Comparison",
    "Constant",
    "Filter",
    "LinearTerm",
    "Literal",
    "Negative",
    "Number",
    "Rule",
    "SumVariable",
    "Variable",
    "coef_binary",
    "coef_function",
    "coefficient_cardinalities",
    "negate",
]


# --------------------------------------------------------------------------- terms and atoms


@dataclass(frozen=True)
class Variable:
    """A logical variable, written as a bare identifier (``A``, ``paper``)."""

    name: str

    def to_psl(self) -> str:
        """Write the variable."""
        return self.name


@dataclass(frozen=True)
class SumVariable:
    """A summation variable of an arithmetic rule, written ``+P``."""

    name: str

    def to_psl(self) -> str:
        """Write the summation variable."""
        return f"+{self.name}"


@dataclass(frozen=True)
class Constant:
    """A constant argument, written in quotes (``'p1'``); compared as a string."""

    value: str

    def to_psl(self) -> str:
        """Write the quoted constant."""
        return format_constant(self.value)


Term: TypeAlias = Variable | SumVariable | Constant


@dataclass(frozen=True)
class Atom:
    """A predicate applied to terms, ``submits(A, P)``."""

    predicate: str
    args: tuple[Term, ...]

    def __post_init__(self) -> None:
        if not self.args:
            raise InvalidDataError(
                f"Atom {self.predicate!r} has no arguments; PSL atoms take at least one, "
                f"e.g. {self.predicate}(X)."
            )

    @property
    def arity(self) -> int:
        """Number of arguments."""
        return len(self.args)

    def variables(self) -> tuple[str, ...]:
        """Names of the (non-summation) variables, in order of first appearance."""
        return _unique(a.name for a in self.args if isinstance(a, Variable))

    def sum_variables(self) -> tuple[str, ...]:
        """Names of the summation variables, in order of first appearance."""
        return _unique(a.name for a in self.args if isinstance(a, SumVariable))

    def to_psl(self) -> str:
        """Write the atom."""
        return f"{self.predicate}({', '.join(a.to_psl() for a in self.args)})"


@dataclass(frozen=True)
class Literal:
    """An atom or its negation (``!atom``)."""

    atom: Atom
    negated: bool = False

    def to_psl(self) -> str:
        """Write the literal."""
        return ("!" if self.negated else "") + self.atom.to_psl()


@dataclass(frozen=True)
class Comparison:
    """A term comparison in a rule body: ``A == B``, ``A != B`` or ``A % B`` (``A < B``).

    ``%`` is PSL's non-symmetric operator: it keeps one of the two orders of a pair of
    constants (here: ``str(A) < str(B)``), so a symmetric rule is grounded once per pair.
    """

    op: TypingLiteral["==", "!=", "%"]
    left: Variable | Constant
    right: Variable | Constant

    def variables(self) -> tuple[str, ...]:
        """Names of the variables compared."""
        return _unique(t.name for t in (self.left, self.right) if isinstance(t, Variable))

    def to_psl(self) -> str:
        """Write the comparison."""
        return f"{self.left.to_psl()} {self.op} {self.right.to_psl()}"


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for name in names:
        if name not in out:
            out.append(name)
    return tuple(out)


def _check_weight(weight: float | None, squared: bool, text: str) -> None:
    if weight is None:
        if squared:
            raise InvalidDataError(
                f"Rule {text!r}: a hard rule (no weight) cannot have a hinge exponent '^2'; "
                "drop the exponent or give the rule a weight ('w: ...')."
            )
        return
    if isinstance(weight, bool) or not math.isfinite(weight) or weight < 0:
        raise InvalidDataError(
            f"Rule {text!r}: the weight must be a finite number >= 0, got {weight!r}."
        )


# --------------------------------------------------------------------------- logical rules


class _RuleText:
    """What logical and arithmetic rules share: a weight (None when hard) and PSL text."""

    weight: float | None

    def to_psl(self) -> str:  # pragma: no cover - defined by each rule class
        raise NotImplementedError

    def _raw(self) -> str:
        try:
            return self.to_psl()
        except Exception:  # pragma: no cover - only for error messages
            return repr(self)

    @property
    def is_hard(self) -> bool:
        """Whether the rule is a hard constraint (no weight)."""
        return self.weight is None

    @property
    def text(self) -> str:
        """The rule in PSL syntax (same as :meth:`to_psl`)."""
        return self.to_psl()


@dataclass(frozen=True)
class Rule(_RuleText):
    """A logical rule ``weight: body -> head ^p`` (or a hard rule ``body -> head .``).

    Parameters
    ----------
    body : tuple of Literal or Comparison
        Conjunction (``&``); empty for a rule written as a bare disjunction (``!y(P)``).
    head : tuple of Literal
        Disjunction (``|``); at least one literal.
    weight : float or None, default=None
        Non-negative weight; ``None`` for a hard rule (a linear constraint).
    squared : bool, default=False
        Squared hinge (``^2``) instead of the linear one.

    Raises
    ------
    InvalidDataError
        For a rule with no literal, a negative weight, an exponent on a hard rule, or a
        variable that no positive body literal (or negated head literal) binds, which PSL
        cannot ground.

    Examples
    --------
    >>> from fairacq.relational import parse_rule
    >>> rule = parse_rule("2: submits(A, P) & student(A) -> !positiveSummary(P) ^2")
    >>> rule.weight, rule.squared, rule.predicates()
    (2.0, True, ('submits', 'student', 'positiveSummary'))
    >>> rule.to_psl()
    '2.0: submits(A, P) & student(A) -> !positiveSummary(P) ^2'
    """

    body: tuple[Literal | Comparison, ...]
    head: tuple[Literal, ...]
    weight: float | None = None
    squared: bool = False

    def __post_init__(self) -> None:
        if not self.head:
            raise InvalidDataError(
                "A logical rule needs a head (a disjunction of literals); write a rule that "
                "forbids a conjunction as 'a(X) & b(X) -> !c(X)' or as '!a(X) | !b(X)'."
            )
        for lit in self.literals():
            for arg in lit.atom.args:
                if isinstance(arg, SumVariable):
                    raise InvalidDataError(
                        f"Rule {self._raw()!r}: summation variable '+{arg.name}' is only "
                        "allowed in arithmetic rules."
                    )
        _check_weight(self.weight, self.squared, self._raw())
        bound: set[str] = set()
        for atom in self.positive_atoms():
            bound.update(atom.variables())
        used: list[str] = []
        for lit in self.literals():
            used.extend(lit.atom.variables())
        for comp in self.comparisons():
            used.extend(comp.variables())
        if not used:
            raise InvalidDataError(
                f"Rule {self._raw()!r} has no variables; PSL grounds rules over variables. "
                "Write the rule with variables and put the constants in the data."
            )
        unbound = [v for v in _unique(used) if v not in bound]
        if unbound:
            raise InvalidDataError(
                f"Rule {self._raw()!r}: variable(s) {', '.join(unbound)} appear only in negated "
                "body literals, head literals or comparisons, so the rule cannot be grounded. "
                "Every variable must appear in a non-negated body atom (or a negated head atom); "
                "add a body atom that lists them, e.g. 'paper(P) -> ...'."
            )

    def literals(self) -> tuple[Literal, ...]:
        """Body literals then head literals (comparisons excluded)."""
        return tuple(b for b in self.body if isinstance(b, Literal)) + self.head

    def comparisons(self) -> tuple[Comparison, ...]:
        """Term comparisons of the body."""
        return tuple(b for b in self.body if isinstance(b, Comparison))

    def clause(self) -> tuple[tuple[Atom, bool], ...]:
        """Return the negated clause as ``(atom, positive)`` pairs.

        The rule is violated to the degree that the conjunction of the body and of the
        negated head is true; ``positive`` is ``True`` for an atom that appears un-negated in
        that conjunction (a positive body literal or a negated head literal).
        """
        out = [(b.atom, not b.negated) for b in self.body if isinstance(b, Literal)]
        out += [(h.atom, h.negated) for h in self.head]
        return tuple(out)

    def positive_atoms(self) -> tuple[Atom, ...]:
        """Atoms that grounding enumerates (positive in the negated clause)."""
        return tuple(atom for atom, positive in self.clause() if positive)

    def predicates(self) -> tuple[str, ...]:
        """Predicate names, in order of first appearance."""
        return _unique(lit.atom.predicate for lit in self.literals())

    def variables(self) -> tuple[str, ...]:
        """Variable names, in order of first appearance."""
        names: list[str] = []
        for item in self.body:
            names.extend(
                item.variables() if isinstance(item, Comparison) else item.atom.variables()
            )
        for lit in self.head:
            names.extend(lit.atom.variables())
        return _unique(names)

    def to_psl(self) -> str:
        """Write the rule in PSL syntax (``->`` form, ``.`` for a hard rule)."""
        body = " & ".join(b.to_psl() for b in self.body)
        head = " | ".join(h.to_psl() for h in self.head)
        text = f"{body} -> {head}" if self.body else head
        return _finish(text, self.weight, self.squared)


def _finish(text: str, weight: float | None, squared: bool, filters: str = "") -> str:
    if weight is None:
        return f"{text} .{filters}"
    exponent = " ^2" if squared else ""
    return f"{format_number(weight)}: {text}{exponent}{filters}"


# --------------------------------------------------------------------------- coefficients


@dataclass(frozen=True)
class Number:
    """A numeric coefficient."""

    value: float

    def to_psl(self) -> str:
        """Write the number."""
        return format_number(self.value)


@dataclass(frozen=True)
class Cardinality:
    """``|X|``: the number of terms a summation variable expands to in one grounding."""

    variable: str

    def to_psl(self) -> str:
        """Write the cardinality."""
        return f"|{self.variable}|"


@dataclass(frozen=True)
class CoefficientBinary:
    """``left op right`` with ``op`` one of ``+ - * /``."""

    op: TypingLiteral["+", "-", "*", "/"]
    left: Coefficient
    right: Coefficient

    def to_psl(self) -> str:
        """Write the expression with the parentheses it needs."""
        prec = _PRECEDENCE[self.op]
        left = _wrap(self.left, _precedence(self.left) < prec)
        right = _wrap(self.right, _precedence(self.right) <= prec)
        return f"{left} {self.op} {right}"


@dataclass(frozen=True)
class CoefficientFunction:
    """``@Max[a, b]`` or ``@Min[a, b]``."""

    name: TypingLiteral["Max", "Min"]
    left: Coefficient
    right: Coefficient

    def to_psl(self) -> str:
        """Write the function call."""
        return f"@{self.name}[{self.left.to_psl()}, {self.right.to_psl()}]"


@dataclass(frozen=True)
class Negative:
    """``-x`` for a coefficient that is not a number (written ``-1.0 * x``)."""

    operand: Coefficient

    def to_psl(self) -> str:
        """Write ``-1.0 * operand``."""
        return f"-1.0 * {_wrap(self.operand, _precedence(self.operand) <= 2)}"


Coefficient: TypeAlias = Number | Cardinality | CoefficientBinary | CoefficientFunction | Negative

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def _precedence(c: Coefficient) -> int:
    if isinstance(c, CoefficientBinary):
        return _PRECEDENCE[c.op]
    if isinstance(c, Negative):
        return 2
    return 3


def _wrap(c: Coefficient, parens: bool) -> str:
    return f"({c.to_psl()})" if parens else c.to_psl()


def negate(c: Coefficient) -> Coefficient:
    """Return ``-c`` in canonical form (numbers fold, double negation cancels)."""
    if isinstance(c, Number):
        return Number(-c.value)
    if isinstance(c, Negative):
        return c.operand
    if isinstance(c, CoefficientBinary) and c.op == "/" and isinstance(c.left, Number):
        return CoefficientBinary("/", Number(-c.left.value), c.right)
    return Negative(c)


def coef_binary(op: str, left: Coefficient, right: Coefficient) -> Coefficient:
    """Build ``left op right`` in canonical form (the parser builds every coefficient so).

    Two numbers fold into one, ``-1 * x`` becomes :func:`negate` ``(x)``, ``1 * x`` and
    ``x / 1`` become ``x``.
    """
    if op not in _PRECEDENCE:
        raise InvalidDataError(f"Unknown coefficient operator {op!r}.")
    if isinstance(left, Number) and isinstance(right, Number):
        a, b = left.value, right.value
        if op == "/" and b == 0:
            raise InvalidDataError("A coefficient divides a number by zero.")
        value = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[op]
        if not math.isfinite(value):
            raise InvalidDataError(f"A coefficient evaluates to {value!r}.")
        return Number(value)
    if op == "*" and isinstance(left, Number) and left.value == -1.0:
        return negate(right)
    if op == "*" and isinstance(left, Number) and left.value == 1.0:
        return right
    if op == "/" and isinstance(right, Number) and right.value == 1.0:
        return left
    return CoefficientBinary(op, left, right)  # type: ignore[arg-type]


def coef_function(name: str, left: Coefficient, right: Coefficient) -> Coefficient:
    """Build ``@Max[left, right]`` / ``@Min[...]``, folding two numbers."""
    if name not in ("Max", "Min"):
        raise InvalidDataError(f"Unknown coefficient function '@{name}'; use @Max or @Min.")
    if isinstance(left, Number) and isinstance(right, Number):
        pick = max if name == "Max" else min
        return Number(pick(left.value, right.value))
    return CoefficientFunction(name, left, right)  # type: ignore[arg-type]


def _is_negative(c: Coefficient) -> bool:
    if isinstance(c, Number):
        return c.value < 0 or (c.value == 0 and math.copysign(1.0, c.value) < 0)
    if isinstance(c, Negative):
        return True
    return (
        isinstance(c, CoefficientBinary)
        and c.op == "/"
        and isinstance(c.left, Number)
        and _is_negative(c.left)
    )


def coefficient_cardinalities(c: Coefficient) -> tuple[str, ...]:
    """Summation variables whose cardinality ``c`` uses."""
    if isinstance(c, Cardinality):
        return (c.variable,)
    if isinstance(c, Negative):
        return coefficient_cardinalities(c.operand)
    if isinstance(c, CoefficientBinary | CoefficientFunction):
        return _unique(coefficient_cardinalities(c.left) + coefficient_cardinalities(c.right))
    return ()


# --------------------------------------------------------------------------- arithmetic rules


@dataclass(frozen=True)
class LinearTerm:
    """``coefficient * atom``, or a constant term when ``atom`` is ``None``."""

    coefficient: Coefficient
    atom: Atom | None = None

    def to_psl(self) -> str:
        """Write the term (without a leading sign)."""
        c = self.coefficient
        if self.atom is None:
            return _wrap(c, _precedence(c) == 1)
        atom = self.atom.to_psl()
        if c == Number(1.0):
            return atom
        if (
            isinstance(c, CoefficientBinary)
            and c.op == "/"
            and c.left == Number(1.0)
            and not _is_negative(c.left)
        ):
            return f"{atom} / {_wrap(c.right, _precedence(c.right) < 3)}"
        return f"{_wrap(c, _precedence(c) == 1)} * {atom}"


def _format_side(terms: tuple[LinearTerm, ...]) -> str:
    parts: list[str] = []
    for i, term in enumerate(terms):
        if i == 0:
            parts.append(term.to_psl())
        elif _is_negative(term.coefficient):
            parts.append("- " + LinearTerm(negate(term.coefficient), term.atom).to_psl())
        else:
            parts.append("+ " + term.to_psl())
    return " ".join(parts)


@dataclass(frozen=True)
class BoolAnd:
    """Conjunction inside a filter."""

    items: tuple[BoolFormula, ...]

    def to_psl(self) -> str:
        """Write the conjunction; disjunctions inside get parentheses."""
        return " & ".join(
            f"({i.to_psl()})" if isinstance(i, BoolOr) else i.to_psl() for i in self.items
        )


@dataclass(frozen=True)
class BoolOr:
    """Disjunction inside a filter."""

    items: tuple[BoolFormula, ...]

    def to_psl(self) -> str:
        """Write the disjunction."""
        return " | ".join(i.to_psl() for i in self.items)


BoolFormula: TypeAlias = Literal | Comparison | BoolAnd | BoolOr


def _formula_atoms(formula: BoolFormula) -> tuple[Atom, ...]:
    if isinstance(formula, Literal):
        return (formula.atom,)
    if isinstance(formula, Comparison):
        return ()
    out: tuple[Atom, ...] = ()
    for item in formula.items:
        out += _formula_atoms(item)
    return out


def _formula_variables(formula: BoolFormula) -> tuple[str, ...]:
    if isinstance(formula, Comparison):
        return formula.variables()
    if isinstance(formula, Literal):
        return formula.atom.variables()
    names: tuple[str, ...] = ()
    for item in formula.items:
        names += _formula_variables(item)
    return _unique(names)


@dataclass(frozen=True)
class Filter:
    """``{P: formula}``: keep the terms of summation variable ``P`` where ``formula`` holds.

    The formula is over observed (closed) predicates; an atom holds when its value is > 0.
    As in PSL, a formula with a disjunction splits the rule: grounding makes one rule per
    disjunct of its disjunctive normal form (``{P: a(P) | b(P)}`` sums once over ``a`` and
    once over ``b``), not one rule over the union.
    """

    variable: str
    formula: BoolFormula

    def atoms(self) -> tuple[Atom, ...]:
        """Atoms of the formula."""
        return _formula_atoms(self.formula)

    def variables(self) -> tuple[str, ...]:
        """Variables of the formula."""
        return _formula_variables(self.formula)

    def to_psl(self) -> str:
        """Write the filter clause."""
        return f"{{{self.variable}: {self.formula.to_psl()}}}"


@dataclass(frozen=True)
class ArithmeticRule(_RuleText):
    """A linear arithmetic rule ``lhs relation rhs`` with optional weight, exponent, filters.

    Parameters
    ----------
    lhs, rhs : tuple of LinearTerm
        The two sides; constant terms have ``atom=None``.
    relation : {"<=", ">=", "="}
    weight : float or None, default=None
        ``None`` for a hard rule (a linear constraint); otherwise the weight of the hinge
        ``max(lhs - rhs, 0)`` (``<=``), ``max(rhs - lhs, 0)`` (``>=``) or both (``=``).
    squared : bool, default=False
    filters : tuple of Filter, default=()

    Examples
    --------
    >>> from fairacq.relational import parse_rule
    >>> rule = parse_rule(
    ...     "positiveSummary(+P1) / |P1| - positiveSummary(+P2) / |P2| <= 0.1 . "
    ...     "{P1: protectedPaper(P1)} {P2: unprotectedPaper(P2)}"
    ... )
    >>> rule.relation, rule.sum_variables()
    ('<=', ('P1', 'P2'))
    """

    lhs: tuple[LinearTerm, ...]
    relation: TypingLiteral["<=", ">=", "="]
    rhs: tuple[LinearTerm, ...]
    weight: float | None = None
    squared: bool = False
    filters: tuple[Filter, ...] = ()

    def __post_init__(self) -> None:  # noqa: PLR0912
        raw = self._raw()
        if not self.lhs or not self.rhs:
            raise InvalidDataError(f"Arithmetic rule {raw!r}: both sides need a term.")
        if self.relation not in ("<=", ">=", "="):
            raise InvalidDataError(
                f"Arithmetic rule {raw!r}: unknown relation {self.relation!r}; use <=, >= or =."
            )
        if not self.atoms():
            raise InvalidDataError(f"Arithmetic rule {raw!r}: it holds no atom.")
        _check_weight(self.weight, self.squared, raw)
        sums = set(self.sum_variables())
        plain = set(self.variables())
        both = sorted(sums & plain)
        if both:
            raise InvalidDataError(
                f"Arithmetic rule {raw!r}: {', '.join(both)} is used both as a summation "
                "variable (+X) and as a plain variable; rename one of them."
            )
        for term in self.terms():
            for name in coefficient_cardinalities(term.coefficient):
                if name not in sums:
                    raise InvalidDataError(
                        f"Arithmetic rule {raw!r}: |{name}| counts a variable that is not a "
                        f"summation variable; write +{name} in an atom or drop |{name}|."
                    )
        owners: dict[str, int] = {}
        for atom in self.atoms():
            for name in atom.sum_variables():
                owners[name] = owners.get(name, 0) + 1
        shared = sorted(name for name, count in owners.items() if count > 1)
        if shared:
            raise InvalidDataError(
                f"Arithmetic rule {raw!r}: summation variable(s) {', '.join(shared)} appear in "
                "more than one atom; PSL expands each summation variable over one atom. Use a "
                "new name (+X2) in the second atom."
            )
        seen: set[str] = set()
        for flt in self.filters:
            if flt.variable not in sums:
                raise InvalidDataError(
                    f"Arithmetic rule {raw!r}: the filter {{{flt.variable}: ...}} names a "
                    f"variable that is not a summation variable; write +{flt.variable} in an "
                    "atom of the rule."
                )
            if flt.variable in seen:
                raise InvalidDataError(
                    f"Arithmetic rule {raw!r}: two filters for {flt.variable}; join them "
                    "with '&' in one filter."
                )
            seen.add(flt.variable)
            extra = [v for v in flt.variables() if v != flt.variable and v not in plain]
            if extra:
                raise InvalidDataError(
                    f"Arithmetic rule {raw!r}: the filter for {flt.variable} uses "
                    f"{', '.join(extra)}, which the rule does not bind; a filter may use its "
                    "own summation variable and the rule's plain variables."
                )

    def terms(self) -> tuple[LinearTerm, ...]:
        """Terms of both sides."""
        return self.lhs + self.rhs

    def atoms(self) -> tuple[Atom, ...]:
        """Atoms of both sides (filters excluded)."""
        return tuple(t.atom for t in self.terms() if t.atom is not None)

    def predicates(self) -> tuple[str, ...]:
        """Predicate names of the expression then of the filters, first appearance order."""
        names = [a.predicate for a in self.atoms()]
        for flt in self.filters:
            names.extend(a.predicate for a in flt.atoms())
        return _unique(names)

    def variables(self) -> tuple[str, ...]:
        """Plain (non-summation) variables of the expression."""
        names: list[str] = []
        for atom in self.atoms():
            names.extend(atom.variables())
        return _unique(names)

    def sum_variables(self) -> tuple[str, ...]:
        """Summation variables of the expression."""
        names: list[str] = []
        for atom in self.atoms():
            names.extend(atom.sum_variables())
        return _unique(names)

    def filter_for(self, variable: str) -> Filter | None:
        """Return the filter of a summation variable, if any."""
        for flt in self.filters:
            if flt.variable == variable:
                return flt
        return None

    def to_psl(self) -> str:
        """Write the rule in PSL syntax (filters after the ``.`` or the exponent)."""
        text = f"{_format_side(self.lhs)} {self.relation} {_format_side(self.rhs)}"
        filters = "".join(" " + f.to_psl() for f in self.filters)
        return _finish(text, self.weight, self.squared, filters)
