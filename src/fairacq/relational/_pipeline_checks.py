"""Checks of what :func:`~fairacq.relational.run_pipeline` is given, before any work.

A wrong type (``rules=123``, ``rules=[None]``) or an option key the solver does not take
(``map_options={"nope": 1}``) is one :class:`~fairacq.exceptions.InvalidParameterError`
naming the argument, the value and the fix, not a TypeError from deep inside.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fairacq.exceptions import InvalidParameterError
from fairacq.relational.psl._rules import ArithmeticRule, Rule

__all__ = ["check_option_keys", "check_rule_items"]


def check_rule_items(rules: Any, where: str) -> list[Any]:
    """Return ``rules`` as a list of texts and rule objects, or refuse it naming the bad item.

    ``rules`` is PSL text or an iterable (not a mapping) of texts, ``Rule`` and
    ``ArithmeticRule`` objects.
    """
    if isinstance(rules, str):
        return [rules]
    if isinstance(rules, (Mapping, bytes)) or not isinstance(rules, Iterable):
        raise InvalidParameterError(
            f"{where}: rules must be PSL rule text or a list of rule texts, got "
            f"{_short(rules)}. Pass e.g. '5: risky(U) -> recid(U) ^2'."
        )
    items = list(rules)
    for i, item in enumerate(items):
        if not isinstance(item, (str, Rule, ArithmeticRule)):
            raise InvalidParameterError(
                f"{where}: rules[{i}] is {_short(item)}, not a rule. "
                "Give each rule as PSL text (or a parsed Rule)."
            )
    return items


def check_option_keys(
    options: Any, name: str, takers: Iterable[Callable[..., Any]], *, skip: Iterable[str] = ()
) -> dict[str, Any]:
    """Return ``options`` as a dict, or refuse a non-mapping or a key no taker accepts.

    Parameters
    ----------
    options : mapping or None
        Keyword arguments given for the functions ``takers``.
    name : str
        The argument that held them (``"run_pipeline: map_options"``), named in the message.
    takers : iterable of callables
        The functions the keys go to; a key is accepted if one of them has a keyword
        parameter of that name.
    skip : iterable of str, default=()
        Parameters of ``takers`` the caller sets itself (not accepted from ``options``).

    Raises
    ------
    InvalidParameterError
        For a non-mapping, a key that is not a string, or an unknown key (listing the known).
    """
    if options is None:
        return {}
    known = sorted(_keywords(takers) - set(skip))
    if not isinstance(options, Mapping):
        raise InvalidParameterError(
            f"{name} must be a dict of keyword arguments (keys: {', '.join(known)}) or None, "
            f"got {_short(options)}."
        )
    for key in options:
        if key not in known:
            raise InvalidParameterError(
                f"{name} has the unknown key {key!r}. Known: {', '.join(known)}."
            )
    return dict(options)


def _keywords(takers: Iterable[Callable[..., Any]]) -> set[str]:
    kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return {
        p.name
        for taker in takers
        for i, p in enumerate(inspect.signature(taker).parameters.values())
        if p.kind in kinds and i > 0  # the first is the model
    }


def _short(value: Any) -> str:
    """``None``, or the type and a shortened repr: ``int 123``."""
    if value is None:
        return "None"
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{type(value).__name__} {text}"
