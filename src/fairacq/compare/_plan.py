"""Which strategies a comparison runs: every registered one that works with the model."""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fairacq._result import saveable
from fairacq._typing import LearnerLike
from fairacq.acquisition import acquirer_needs_gradients, available_acquirers, metric_problem
from fairacq.exceptions import InvalidParameterError, UnknownNameError
from fairacq.models import MITIGATIONS, describe_learner, make_learner, mitigation_unavailable
from fairacq.sampling import available_samplers
from fairacq.valuation import has_gradients

__all__ = ["QUESTIONS", "Plan", "make_plan"]

#: The questions a comparison answers: which pool rows to buy, how many rows per group.
QUESTIONS = ("rows", "groups")


@saveable
@dataclass(frozen=True)
class Plan:
    """The strategies to run, and those left out with the reason.

    Attributes
    ----------
    question : str
        ``"rows"`` or ``"groups"``.
    acquirers, mitigations, samplers : tuple of str
        Registered names to run (acquirers and mitigations for rows, samplers for groups).
    skipped : dict of str to str
        Method -> why it does not run (a model without gradients, fairlearn missing, ...).
    """

    question: str
    acquirers: tuple[str, ...] = ()
    mitigations: tuple[str, ...] = ()
    samplers: tuple[str, ...] = ()
    skipped: dict[str, str] = field(default_factory=dict)

    def runs_per_seed(self) -> int:
        """Return the number of runs on each seed (for a progress bar)."""
        if self.question == "groups":
            return len(self.samplers)
        after_random = len(self.mitigations) if "random" in self.acquirers else 0
        return 1 + len(self.acquirers) + len(self.mitigations) + after_random


def _chosen(
    question: str, names: list[str], methods: Sequence[str] | None, baseline: str
) -> list[str]:
    """``names`` narrowed to ``methods`` (each checked), the baseline always kept."""
    if methods is None:
        return names
    unknown = [m for m in methods if m not in names]
    if unknown:
        raise _unknown(question, unknown, names)
    return [n for n in names if n in methods or n == baseline]


def _unknown(question: str, unknown: list[str], names: list[str]) -> UnknownNameError:
    """One line naming the unknown strategies and every strategy the question has."""
    close = difflib.get_close_matches(unknown[0], names, n=1, cutoff=0.5)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    other = "groups" if question == "rows" else "rows"
    elsewhere = [m for m in unknown if m in _names(other)]
    if elsewhere:
        are = "is a strategy" if len(elsewhere) == 1 else "are strategies"
        hint += f" {_listed(elsewhere)} {are} of --question {other}."
    noun = "strategy" if len(unknown) == 1 else "strategies"
    return UnknownNameError(
        f"Unknown {noun} {_listed(unknown)} for --question {question}.{hint} Known: "
        f"{', '.join(sorted(names))}."
    )


def _listed(names: Sequence[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _names(question: str) -> list[str]:
    """Every strategy of ``question``, baseline included."""
    if question == "rows":
        return [*available_acquirers(), *MITIGATIONS]
    return list(available_samplers())


def _rows_plan(learner: Any, methods: Sequence[str] | None, steer: str) -> Plan:
    everything = _names("rows")
    names = _chosen("rows", everything, methods, "random")
    skipped = _not_runnable(everything, learner, steer)
    if methods is not None:
        _refuse_unrunnable([m for m in methods if m in skipped], skipped, everything, learner)
    return Plan(
        "rows",
        acquirers=tuple(n for n in available_acquirers() if n in names and n not in skipped),
        mitigations=tuple(n for n in MITIGATIONS if n in names and n not in skipped),
        skipped={n: why for n, why in skipped.items() if n in names},
    )


def _not_runnable(names: list[str], learner: Any, steer: str) -> dict[str, str]:
    """Strategy -> why it cannot run with ``learner`` steering ``steer``, for those that cannot."""
    model = make_learner(learner)
    skipped: dict[str, str] = {}
    for name in names:
        if name in MITIGATIONS:
            reason = mitigation_unavailable(name, learner)
            if reason is None and name != "reweighing" and not _has_fairlearn():
                reason = "fairlearn is not installed (pip install fairlearn)"
        elif acquirer_needs_gradients(name) and not has_gradients(model):
            reason = f"it computes influence, which needs gradients; {describe_learner(model)}"
            reason += " has none"
        else:
            reason = metric_problem(name, steer)
        if reason is not None:
            skipped[name] = reason
    return skipped


def _refuse_unrunnable(
    asked: list[str], skipped: dict[str, str], names: list[str], learner: Any
) -> None:
    """Refuse requested strategies that cannot run, naming why and those that can."""
    if not asked:
        return
    grouped: dict[str, list[str]] = {}
    for name in asked:
        grouped.setdefault(skipped[name], []).append(name)
    why = "; ".join(f"{', '.join(group)}: {reason}" for reason, group in grouped.items())
    runnable = ", ".join(sorted(n for n in names if n not in skipped))
    raise InvalidParameterError(
        f"--methods asks for {_listed(asked)}, which cannot run with the model "
        f"{describe_learner(learner)} ({why}). Strategies that run with it: {runnable}. "
        "Drop them from --methods, or choose another --model."
    )


def _has_fairlearn() -> bool:
    return importlib.util.find_spec("fairlearn") is not None


def make_plan(
    question: str,
    learner: LearnerLike,
    methods: Sequence[str] | None = None,
    steer: str = "demographic_parity_diff_abs",
) -> Plan:
    """Return the strategies of ``question`` that can run with ``learner``.

    Parameters
    ----------
    question : str
        ``"rows"``: every registered acquisition method (those computing influence only for
        a model with gradients, :func:`fairacq.valuation.has_gradients`) and the mitigation
        comparators; ``"groups"``: every registered sampler.
    learner : str or estimator
        The base model.
    methods : sequence of str or None, default=None
        Run only these (Random, or Uniform for groups, always runs as the baseline). Each
        must run with ``learner``; without ``methods``, those that cannot are left out and
        listed in ``skipped``.
    steer : str, default="demographic_parity_diff_abs"
        The metric the acquisition methods push down; a method that cannot steer it (e.g.
        ``threshold-aware`` for equal opportunity) cannot run.

    Raises
    ------
    InvalidParameterError
        For another question, or a requested method that cannot run with ``learner``
        (naming why, and the methods that can).
    UnknownNameError
        For a method the question does not have, listing those it has.

    Examples
    --------
    >>> make_plan("rows", "random_forest").skipped["inf"][:27]
    'it computes influence, whic'
    >>> make_plan("groups", "lr", ["aopt"]).samplers
    ('aopt', 'uniform')
    """
    if question not in QUESTIONS:
        raise InvalidParameterError(
            f"--question must be rows (which pool rows to buy) or groups (how many rows of "
            f"each group), got {question!r}."
        )
    if question == "rows":
        return _rows_plan(learner, methods, steer)
    samplers = _chosen("groups", _names("groups"), methods, "uniform")
    return Plan("groups", samplers=tuple(samplers))
