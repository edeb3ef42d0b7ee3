"""Parse PSL rule text into :class:`Rule` and :class:`ArithmeticRule` values.

A recursive-descent parser over the tokens of :mod:`fairacq.relational.psl._syntax`,
following PSL 2.x's grammar (``PSL.g4``): weights ``w:``, hinge exponents ``^1`` / ``^2``,
hard rules ending with ``.``, conjunction ``&`` / ``&&``, disjunction ``|`` / ``||``,
negation ``!`` / ``~``, implication ``->`` / ``>>`` and ``<-`` / ``<<``, quoted constants,
term comparisons ``==``, ``!=`` and ``%``, and arithmetic rules with ``<=``, ``>=``, ``=``,
coefficients (numbers, ``|X|``, ``@Max[a, b]``, ``@Min[a, b]``, ``+ - * /`` and parentheses),
summation variables ``+X`` and filter clauses ``{X: formula}``.
"""

from __future__ import annotations

import itertools
from typing import Literal as TypingLiteral
from typing import cast

from fairacq.exceptions import InvalidDataError
from fairacq.relational.psl._rules import (
    ArithmeticRule,
    Atom,
    BoolAnd,
    BoolFormula,
    BoolOr,
    Cardinality,
    Coefficient,
    Comparison,
    Constant,
    Filter,
    LinearTerm,
    Literal,
    Number,
    Rule,
    SumVariable,
    Term,
    Variable,
    coef_binary,
    coef_function,
    negate,
)
from fairacq.relational.psl._syntax import Token, rule_lines, syntax_error, tokenize

__all__ = ["parse_rule", "parse_rules"]

#: Deepest nesting of brackets a rule may use: the parser recurses once per level, and no
#: real rule comes near this (PSL's own rules nest two or three deep).
MAX_NESTING = 64
#: Most atoms one rule may hold: grounding time grows with the square of a rule's length
#: (500 atoms ground in about a second), and real rules hold a handful.
MAX_ATOMS = 500
_OPENING, _CLOSING = ("(", "[", "{"), (")", "]", "}")

_RELATIONS = ("<=", ">=", "=")
_COMPARATORS = ("==", "!=", "%")
_AND = ("&", "&&")
_OR = ("|", "||")
_THEN = ("->", ">>")
_IMPLIED_BY = ("<-", "<<")
# A line starting with one of these continues the rule of the line above.
_CONTINUATION = ("{", "->", "<-", ">>", "<<", "&", "|", "^")


class _Backtrack(Exception):
    """Raised inside a speculative parse; the caller rewinds and tries another reading."""


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = tokenize(source)
        _check_nesting(source, self.tokens)
        _check_size(source, self.tokens)
        self.i = 0
        self.arithmetic = any(t.kind == "op" and t.text in _RELATIONS for t in self.tokens)

    # -- token helpers -------------------------------------------------------------------
    def peek(self, offset: int = 0) -> Token:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def at(self, *ops: str, offset: int = 0) -> bool:
        tok = self.peek(offset)
        return tok.kind == "op" and tok.text in ops

    def take(self) -> Token:
        tok = self.peek()
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def error(self, expected: str, tok: Token | None = None) -> InvalidDataError:
        tok = tok or self.peek()
        return syntax_error(self.source, tok.pos, f"expected {expected}, found {tok.describe()}")

    def expect(self, op: str, expected: str) -> Token:
        if not self.at(op):
            raise self.error(expected)
        return self.take()

    def at_atom(self, offset: int = 0) -> bool:
        return self.peek(offset).kind == "ident" and self.at("(", offset=offset + 1)

    # -- rule ------------------------------------------------------------------------------
    def rule(self) -> Rule | ArithmeticRule:
        weight = self.weight()
        if self.arithmetic:
            return self.arithmetic_rule(weight)
        return self.logical_rule(weight)

    def weight(self) -> float | None:
        if self.at("-") and self.peek(1).kind == "number" and self.at(":", offset=2):
            raise syntax_error(
                self.source, self.peek().pos, "a weight must be >= 0 (PSL weights are not signed)"
            )
        if self.peek().kind == "number" and self.at(":", offset=1):
            value = float(self.take().text)
            self.take()
            return value
        return None

    def ending(self, weight: float | None) -> bool:
        """Read the exponent (weighted) or the final '.' (hard); return ``squared``."""
        squared = False
        if self.at("^"):
            caret = self.take()
            if weight is None:
                raise syntax_error(
                    self.source,
                    caret.pos,
                    "a hard rule (no weight) cannot have a hinge exponent; "
                    "drop '^' or give the rule a weight 'w: ...'",
                )
            tok = self.take()
            if tok.kind != "number" or tok.text not in ("1", "2"):
                raise self.error("1 or 2 after '^' (the hinge exponent)", tok)
            squared = tok.text == "2"
        if weight is None:
            if not self.at("."):
                raise self.error("'.' at the end of a hard rule (or a weight 'w:' at its start)")
            self.take()
        elif self.at("."):
            raise syntax_error(
                self.source,
                self.peek().pos,
                "a weighted rule does not end with '.'; the final '.' marks a hard rule",
            )
        return squared

    def finish(self) -> None:
        if self.peek().kind != "end":
            raise self.error("the end of the rule")

    # -- logical rules ---------------------------------------------------------------------
    def logical_rule(self, weight: float | None) -> Rule:
        start = self.peek()
        left_kind, left = self.junction()
        if self.at(*_THEN, *_IMPLIED_BY):
            arrow = self.take()
            right_kind, right = self.junction()
            if arrow.text in _THEN:
                body_kind, body, head_kind, head = left_kind, left, right_kind, right
                body_tok = start
            else:
                body_kind, body, head_kind, head = right_kind, right, left_kind, left
                body_tok = arrow
            if body_kind == "or":
                raise syntax_error(
                    self.source,
                    body_tok.pos,
                    "the body of a rule is a conjunction ('&'); PSL cannot mix '|' into it",
                )
            if head_kind == "and":
                raise syntax_error(
                    self.source,
                    arrow.pos,
                    "the head of a rule is a disjunction ('|'); split a conjunctive head "
                    "into one rule per literal",
                )
        else:
            if left_kind == "and":
                raise syntax_error(
                    self.source,
                    self.peek().pos,
                    "expected '->' after a conjunction (a rule is 'body -> head' or a "
                    "disjunction of literals)",
                )
            body, head = [], left
        heads: list[Literal] = []
        for item in head:
            if isinstance(item, Comparison):
                raise syntax_error(
                    self.source,
                    start.pos,
                    f"the comparison '{item.to_psl()}' must be in the body of the rule",
                )
            heads.append(item)
        squared = self.ending(weight)
        self.finish()
        return Rule(body=tuple(body), head=tuple(heads), weight=weight, squared=squared)

    def junction(self) -> tuple[str, list[Literal | Comparison]]:
        """Read literals joined by one kind of connective: ('single'|'and'|'or', items)."""
        kind = "single"
        items = self.junction_item(kind)
        while self.at(*_AND, *_OR):
            op = self.take()
            this = "and" if op.text in _AND else "or"
            if kind not in ("single", this):
                raise syntax_error(
                    self.source,
                    op.pos,
                    "'&' and '|' cannot be mixed on one side of a rule; "
                    "the body is a conjunction and the head a disjunction",
                )
            kind = this
            items += self.junction_item(kind)
        return kind, items

    def junction_item(self, kind: str) -> list[Literal | Comparison]:
        if self.at("("):
            open_tok = self.take()
            inner_kind, inner = self.junction()
            self.expect(")", "')' to close the parenthesis")
            if inner_kind != "single" and kind != "single" and inner_kind != kind:
                raise syntax_error(
                    self.source, open_tok.pos, "'&' and '|' cannot be mixed in one rule side"
                )
            return inner
        return [self.literal_or_comparison()]

    def literal_or_comparison(self) -> Literal | Comparison:
        negated = False
        while self.at("!", "~"):
            self.take()
            negated = not negated
        if self.at_atom():
            return Literal(self.atom(allow_sum=False), negated)
        tok = self.peek()
        if tok.kind in ("ident", "string") and self.at(*_COMPARATORS, offset=1):
            if negated:
                raise syntax_error(
                    self.source, tok.pos, "a comparison cannot be negated; use '==' or '!='"
                )
            return self.comparison()
        if self.at("(") and negated:
            raise syntax_error(
                self.source, tok.pos, "only single atoms can be negated in PSL, not groups"
            )
        raise self.error("an atom such as 'name(X, Y)'")

    def comparison(self) -> Comparison:
        left = self.plain_term()
        op = self.take().text
        right = self.plain_term()
        return Comparison(cast(TypingLiteral["==", "!=", "%"], op), left, right)

    def plain_term(self) -> Variable | Constant:
        tok = self.take()
        if tok.kind == "ident":
            return Variable(tok.text)
        if tok.kind == "string":
            return Constant(tok.text)
        raise self.error("a variable or a quoted constant", tok)

    def atom(self, *, allow_sum: bool) -> Atom:
        name = self.take().text
        self.expect("(", f"'(' after the predicate '{name}'")
        args: list[Term] = [self.argument(name, allow_sum)]
        while self.at(","):
            self.take()
            args.append(self.argument(name, allow_sum))
        if not self.at(")"):
            raise self.error(f"',' or ')' in the arguments of '{name}'")
        self.take()
        return Atom(name, tuple(args))

    def argument(self, predicate: str, allow_sum: bool) -> Term:
        tok = self.peek()
        if tok.kind == "ident":
            self.take()
            return Variable(tok.text)
        if tok.kind == "string":
            self.take()
            return Constant(tok.text)
        if self.at("+") and self.peek(1).kind == "ident":
            if not allow_sum:
                raise syntax_error(
                    self.source,
                    tok.pos,
                    "summation variables ('+X') are only allowed in arithmetic rules",
                )
            self.take()
            return SumVariable(self.take().text)
        if tok.kind == "number":
            raise syntax_error(
                self.source,
                tok.pos,
                f"constants must be quoted in PSL; write '{tok.text}' in quotes "
                f"in the arguments of '{predicate}'",
            )
        raise self.error(f"a variable or a quoted constant in the arguments of '{predicate}'")

    # -- arithmetic rules ------------------------------------------------------------------
    def arithmetic_rule(self, weight: float | None) -> ArithmeticRule:
        lhs = self.linear()
        if not self.at(*_RELATIONS):
            raise self.error("'<=', '>=' or '=' between the two sides of an arithmetic rule")
        relation = self.take().text
        rhs = self.linear()
        squared = self.ending(weight)
        filters: list[Filter] = []
        while self.at("{"):
            filters.append(self.filter_clause())
        self.finish()
        return ArithmeticRule(
            lhs=tuple(lhs),
            relation=cast(TypingLiteral["<=", ">=", "="], relation),
            rhs=tuple(rhs),
            weight=weight,
            squared=squared,
            filters=tuple(filters),
        )

    def linear(self) -> list[LinearTerm]:
        sign = 1
        if self.at("-") and self.peek(1).kind != "number":
            # a leading '-' before a number belongs to the coefficient ("-2 * a(X)")
            self.take()
            sign = -1
        terms = self.operand(sign)
        while self.at("+", "-"):
            sign = 1 if self.take().text == "+" else -1
            terms += self.operand(sign)
        return terms

    def operand(self, sign: int) -> list[LinearTerm]:
        if self.at("("):
            start = self.i
            try:
                term = self.coefficient_operand(speculative=True)
            except (_Backtrack, InvalidDataError):
                self.i = start
                self.take()
                inner = self.linear()
                self.expect(")", "')' to close the parenthesis")
                if sign < 0:
                    inner = [LinearTerm(negate(t.coefficient), t.atom) for t in inner]
                return inner
        else:
            term = self.coefficient_operand(speculative=False)
        if sign < 0:
            term = LinearTerm(negate(term.coefficient), term.atom)
        return [term]

    def coefficient_operand(self, *, speculative: bool) -> LinearTerm:
        if self.at_atom():
            coef: Coefficient = Number(1.0)
        else:
            coef = self.coef_multiplicative(speculative)
            if self.at("*") and self.at_atom(offset=1):
                self.take()
            elif not self.at_atom():
                return LinearTerm(coef, None)
        atom = self.atom(allow_sum=True)
        if self.at("/"):
            self.take()
            coef = coef_binary("/", coef, self.coef_factor(speculative))
            if self.at("*", "/"):
                raise syntax_error(
                    self.source,
                    self.peek().pos,
                    "a divisor after an atom must be one number, |X| or a parenthesised "
                    "expression; add parentheses",
                )
        return LinearTerm(coef, atom)

    def coef_additive(self, speculative: bool) -> Coefficient:
        value = self.coef_multiplicative(speculative)
        while self.at("+", "-"):
            op = self.take().text
            value = coef_binary(op, value, self.coef_multiplicative(speculative))
        return value

    def coef_multiplicative(self, speculative: bool) -> Coefficient:
        value = self.coef_factor(speculative)
        while self.at("*", "/") and not self.at_atom(offset=1):
            op = self.take().text
            value = coef_binary(op, value, self.coef_factor(speculative))
        return value

    def coef_factor(self, speculative: bool) -> Coefficient:
        tok = self.peek()
        if tok.kind == "number":
            self.take()
            return Number(float(tok.text))
        if self.at("-"):
            self.take()
            return negate(self.coef_factor(speculative))
        if self.at("|"):
            self.take()
            name = self.take()
            if name.kind != "ident":
                raise self.error("a summation variable name inside |...|", name)
            self.expect("|", "'|' to close the cardinality |X|")
            return Cardinality(name.text)
        if self.at("@Max", "@Min"):
            func = self.take().text[1:]
            close = "]" if self.at("[") else ")"
            if not self.at("[", "("):
                raise self.error(f"'[' after '@{func}'")
            self.take()
            left = self.coef_additive(speculative)
            self.expect(",", f"',' between the two arguments of '@{func}'")
            right = self.coef_additive(speculative)
            self.expect(close, f"'{close}' to close '@{func}'")
            return coef_function(func, left, right)
        if self.at("("):
            self.take()
            value = self.coef_additive(speculative)
            if not self.at(")"):
                if speculative:
                    raise _Backtrack
                raise self.error("')' to close the parenthesis")
            self.take()
            return value
        if speculative and self.at_atom():
            raise _Backtrack
        raise self.error("a number, |X|, @Max[a, b], @Min[a, b] or an atom")

    # -- filters ---------------------------------------------------------------------------
    def filter_clause(self) -> Filter:
        self.take()
        name = self.take()
        if name.kind != "ident":
            raise self.error("a summation variable name after '{'", name)
        self.expect(":", f"':' after the filter variable '{name.text}'")
        formula = self.bool_or()
        self.expect("}", "'}' to close the filter")
        return Filter(name.text, formula)

    def bool_or(self) -> BoolFormula:
        items = [self.bool_and()]
        while self.at(*_OR):
            self.take()
            items.append(self.bool_and())
        if len(items) == 1:
            return items[0]
        flat: list[BoolFormula] = []
        for item in items:
            flat.extend(item.items if isinstance(item, BoolOr) else (item,))
        return BoolOr(tuple(flat))

    def bool_and(self) -> BoolFormula:
        items = [self.bool_value()]
        while self.at(*_AND):
            self.take()
            items.append(self.bool_value())
        if len(items) == 1:
            return items[0]
        flat: list[BoolFormula] = []
        for item in items:
            flat.extend(item.items if isinstance(item, BoolAnd) else (item,))
        return BoolAnd(tuple(flat))

    def bool_value(self) -> BoolFormula:
        if self.at("("):
            self.take()
            inner = self.bool_or()
            self.expect(")", "')' to close the parenthesis")
            return inner
        return self.literal_or_comparison()


def _check_size(source: str, tokens: list[Token]) -> None:
    """Refuse a rule of more than :data:`MAX_ATOMS` atoms before it is parsed and grounded."""
    atoms = [
        tok for prev, tok in itertools.pairwise(tokens)
        if tok.kind == "op" and tok.text == "(" and prev.kind == "ident"
    ]  # fmt: skip
    if len(atoms) > MAX_ATOMS:
        raise syntax_error(
            source[:60] + " ...",
            atoms[0].pos,
            f"the rule holds {len(atoms)} atoms, more than {MAX_ATOMS} (grounding time grows "
            "with the square of a rule's length); split it into shorter rules",
        )


def _check_nesting(source: str, tokens: list[Token]) -> None:
    """Refuse brackets nested deeper than :data:`MAX_NESTING` before parsing recurses."""
    depth = 0
    for tok in tokens:
        if tok.kind != "op":
            continue
        if tok.text in _OPENING:
            depth += 1
            if depth > MAX_NESTING:
                raise syntax_error(
                    source[: tok.pos + 40],
                    tok.pos,
                    f"brackets nest more than {MAX_NESTING} deep; write the rule with fewer "
                    "nested parentheses",
                )
        elif tok.text in _CLOSING:
            depth = max(depth - 1, 0)


def parse_rule(text: str) -> Rule | ArithmeticRule:
    """Parse one rule written in PSL syntax.

    Parameters
    ----------
    text : str
        E.g. ``"2.0: submits(A, P) & student(A) -> !positiveSummary(P) ^2"`` (weighted,
        squared hinge), ``"acceptable(P) -> positiveSummary(P) ."`` (hard), or
        ``"positiveSummary(+P) / |P| <= 0.5 . {P: protectedPaper(P)}"`` (arithmetic, with a
        summation variable, its cardinality and a filter).

    Returns
    -------
    Rule or ArithmeticRule

    Raises
    ------
    InvalidDataError
        For a syntax error (the message gives the column and what was expected) or a rule
        PSL cannot ground (a variable bound by no positive body atom, a filter on a
        non-summation variable, ...).

    Examples
    --------
    >>> parse_rule("1: !positiveSummary(P) ^2").to_psl()
    '1.0: !positiveSummary(P) ^2'
    >>> parse_rule("positiveSummary(P) <- acceptable(P) & reviews(R, P) .").to_psl()
    'acceptable(P) & reviews(R, P) -> positiveSummary(P) .'
    """
    if not isinstance(text, str):
        raise InvalidDataError(f"parse_rule: expected rule text (str), got {type(text).__name__}.")
    if not text.strip():
        raise InvalidDataError("parse_rule: the rule text is empty.")
    return _Parser(text).rule()


def parse_rules(text: str) -> list[Rule | ArithmeticRule]:
    """Parse a rule file: one rule per line, ``#`` / ``//`` / ``/* */`` comments.

    A line that starts with ``{``, ``->``, ``<-``, ``&``, ``|`` or ``^`` continues the rule
    above it (so long rules and filter clauses may sit on their own lines).

    Raises
    ------
    InvalidDataError
        For the first rule that cannot be parsed; the message starts with its line number.

    Examples
    --------
    >>> rules = parse_rules('''
    ... # paper review
    ... 1: acceptable(P) & positiveReviews(R, P) -> positiveSummary(P) ^2
    ... 1: !positiveSummary(P) ^2   // prior
    ... ''')
    >>> len(rules)
    2
    """
    if not isinstance(text, str):
        raise InvalidDataError(
            f"parse_rules: expected rule text (str), got {type(text).__name__}."
        )
    merged: list[tuple[int, str]] = []
    for number, line in rule_lines(text):
        if line.startswith(_CONTINUATION) and merged:
            first, previous = merged[-1]
            merged[-1] = (first, f"{previous} {line}")
        else:
            merged.append((number, line))
    rules: list[Rule | ArithmeticRule] = []
    for number, line in merged:
        try:
            rules.append(parse_rule(line))
        except InvalidDataError as exc:
            raise InvalidDataError(f"line {number}: {exc}") from exc
    return rules
