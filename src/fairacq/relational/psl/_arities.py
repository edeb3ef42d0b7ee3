"""The number of arguments each predicate takes in a set of rules."""

from __future__ import annotations

from collections.abc import Sequence

from fairacq.exceptions import InvalidDataError
from fairacq.relational.psl._rules import ArithmeticRule, Atom, Rule

__all__ = ["rule_arities"]


def rule_arities(rules: Sequence[Rule | ArithmeticRule]) -> dict[str, int]:
    """Return predicate -> number of arguments, over every atom of ``rules`` (filters too).

    Data files can then be read with these arities, so that a last column is known to be the
    truth value (``read_psl_data(..., arities=rule_arities(rules))``).

    Raises
    ------
    InvalidDataError
        If one predicate is used with two numbers of arguments.

    Examples
    --------
    >>> from fairacq.relational import parse_rules
    >>> rule_arities(parse_rules("1: risky(U) & knows(U, V) -> recid(V) ^2"))
    {'risky': 1, 'knows': 2, 'recid': 1}
    """
    arities: dict[str, int] = {}
    where: dict[str, str] = {}
    for rule in rules:
        for atom in _atoms(rule):
            known = arities.setdefault(atom.predicate, atom.arity)
            where.setdefault(atom.predicate, rule.text)
            if known != atom.arity:
                raise InvalidDataError(
                    f"'{atom.predicate}' takes {known} argument(s) in {where[atom.predicate]!r} "
                    f"but {atom.arity} in {rule.text!r}; a predicate has one number of "
                    "arguments. Fix one of the rules."
                )
    return arities


def _atoms(rule: Rule | ArithmeticRule) -> list[Atom]:
    if isinstance(rule, Rule):
        return [lit.atom for lit in rule.literals()]
    atoms = list(rule.atoms())
    for flt in rule.filters:
        atoms.extend(flt.atoms())
    return atoms
