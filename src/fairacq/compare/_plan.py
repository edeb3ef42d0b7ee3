"""Which strategies a comparison runs: every registered one that works with the model."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fairacq._validation import did_you_mean
from fairacq.acquisition import acquirer_needs_gradients, available_acquirers
from fairacq.exceptions import InvalidParameterError
from fairacq.models import MITIGATIONS, describe_learner, make_learner, mitigation_unavailable
from fairacq.sampling import available_samplers
from fairacq.valuation import has_gradients

__all__ = ["QUESTIONS", "Plan", "make_plan"]

#: The questions a comparison answers: which pool rows to buy, how many rows per group.
QUESTIONS = ("rows", "groups")


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


def _chosen(names: list[str], methods: Sequence[str] | None, baseline: str) -> list[str]:
    """``names`` narrowed to ``methods`` (each checked), the baseline always kept."""
    if methods is None:
        return names
    for method in methods:
        if method not in names:
            raise did_you_mean("strategy", method, names, "fairacq compare --help")
    return [n for n in names if n in methods or n == baseline]


def _rows_plan(learner: Any, methods: Sequence[str] | None) -> Plan:
    names = _chosen([*available_acquirers(), *MITIGATIONS], methods, "random")
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
            reason = None
        if reason is not None:
            skipped[name] = reason
    return Plan(
        "rows",
        acquirers=tuple(n for n in available_acquirers() if n in names and n not in skipped),
        mitigations=tuple(n for n in MITIGATIONS if n in names and n not in skipped),
        skipped=skipped,
    )


def _has_fairlearn() -> bool:
    return importlib.util.find_spec("fairlearn") is not None


def make_plan(question: str, learner: Any, methods: Sequence[str] | None = None) -> Plan:
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
        Run only these (Random, or Uniform for groups, always runs as the baseline).

    Raises
    ------
    InvalidParameterError
        For another question.
    UnknownNameError
        For a method the question does not have.

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
        return _rows_plan(learner, methods)
    return Plan("groups", samplers=tuple(_chosen(available_samplers(), methods, "uniform")))
