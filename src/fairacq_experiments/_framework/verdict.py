"""Acceptance checks of an experiment as data: what was checked, ours, the target, met or not."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from fairacq.exceptions import InvalidParameterError

__all__ = ["Verdict"]


@dataclass(frozen=True)
class Verdict:
    """Whether a run met one acceptance check: ``ours`` against ``target``.

    Experiments return verdicts in :attr:`ExperimentResult.verdicts`; ``summary.json`` keeps
    their fields and ``summary.md`` words each as one line
    (:func:`fairacq.reporting.format_verdict`).

    Parameters
    ----------
    name : str
        What is checked, e.g. ``"Fair-A3SL1: auc_roc"``.
    met : bool
        Whether the check holds (usually ``ours op target``; False when it cannot be tested).
    ours : float or None
        The value the check is decided on; None when there is nothing to measure.
    target : float
        The bound ``ours`` must reach.
    op : {"<=", ">="}
        The direction of the bound.
    paper : float or None
        What the paper reports for the same quantity, when it does.
    detail : str
        The context a reader needs: the other numbers behind the verdict.
    facts : dict of str to JSON value
        The numbers and flags ``detail`` words, by name (kept under ``facts`` in
        ``summary.json``): what a program or a test reads instead of the sentence.

    Examples
    --------
    >>> Verdict.check("gap to the ceiling", 0.016, "<=", 0.01).met
    False
    """

    name: str
    met: bool
    ours: float | None
    target: float
    op: Literal["<=", ">="] = "<="
    paper: float | None = None
    detail: str = ""
    facts: dict[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.op not in ("<=", ">="):
            raise InvalidParameterError(f"Verdict op must be '<=' or '>=', got {self.op!r}.")

    @classmethod
    def check(
        cls,
        name: str,
        ours: float | None,
        op: Literal["<=", ">="],
        target: float,
        **extra: Any,
    ) -> Verdict:
        """Build the verdict of ``ours op target`` (not met when ``ours`` is None or NaN)."""
        value = None if ours is None else float(ours)
        met = value is not None and not math.isnan(value)
        if met:
            met = value <= target if op == "<=" else value >= target  # type: ignore[operator]
        return cls(name=name, met=bool(met), ours=value, target=float(target), op=op, **extra)
