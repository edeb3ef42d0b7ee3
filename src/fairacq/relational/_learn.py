"""Learn fair rules on training data and check them on test data: the ``learn`` workflow.

:func:`learn_rules` fits :class:`FairA3SL`, infers the test atoms under the same constraints,
evaluates them and gathers what deserves a second look: an agent that never stopped exploring
(:class:`ExplorationWarning`), a test fairness measure past its bound
(:class:`FairnessBoundWarning`) and metrics that read soft truth or have no value
(:class:`MetricsWarning`). Each is issued as a Python warning and kept in
:attr:`LearnResult.warnings`, which ``fairacq relational learn`` prints and writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairacq._callbacks import Callback
from fairacq._random import RandomState
from fairacq._result import Result
from fairacq._trace import Trace
from fairacq._warnings import warn_caller
from fairacq.data.relational._relational_data import RelationalData
from fairacq.relational._evaluation import evaluate_atoms
from fairacq.relational._fairness_check import fairness_warnings
from fairacq.relational._files import rule_weights
from fairacq.relational._metric_notes import MetricsWarning, json_metrics, metric_notes
from fairacq.relational.a3sl._a3sl import FairA3SL
from fairacq.relational.a3sl._warnings import ExplorationWarning, FairnessBoundWarning
from fairacq.relational.inference._fairness import parse_fairness

__all__ = ["LearnResult", "learn_rules"]


@dataclass(frozen=True, eq=False)
class LearnResult(Result):
    """What :func:`learn_rules` produced.

    A :class:`~fairacq.Result`: :meth:`to_frame` has one row per learned rule with its
    weight, since the rules are what ``learn`` is for (the test atoms are in
    ``predictions``, the numbers of the run in :meth:`summary`). Saving: ``save(path)``
    writes every field but ``learner`` (a live agent and scorer); after
    ``LearnResult.load(path)`` ``learner`` is None, and everything else, :meth:`summary`
    included, works. To keep the agent's clause lists too, write the learner's folder with
    :func:`~fairacq.relational.write_a3sl` (what ``fairacq relational learn`` does).

    Parameters
    ----------
    learner : FairA3SL or None
        The fitted learner (``best_rules_``, ``trace_``...); None after loading.
    predictions : pandas.DataFrame
        MAP values of the test target atoms under the learned rules (and the constraints).
    metrics : dict of str to float
        The paper's metrics on the test data (NaN where undefined, see ``warnings``).
    settings : dict
        The run's settings, as recorded in the summary.
    warnings : tuple of str
        One line each: what was issued as a warning during the run.
    rules : tuple of str
        The learned rules as PSL text, with their weights (``learner.best_rules_``).
    trace : Trace
        One row per training step (``learner.trace_``).
    best_reward, agent_reward : float
        Reward of the rules kept, and of the agent's own best list (before local search).
    exploration : float
        How much the trained policy still explores (``learner.exploration_``; 1 is uniform).
    """

    learner: FairA3SL | None
    predictions: pd.DataFrame
    metrics: dict[str, float]
    settings: dict[str, Any]
    warnings: tuple[str, ...]
    rules: tuple[str, ...]
    trace: Trace
    best_reward: float
    agent_reward: float
    exploration: float

    _not_saved = ("learner",)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per learned rule: ``rule`` and ``weight`` (NaN for a hard rule).

        ``rule`` is the PSL text without its starting weight, which has its own column
        (``rules`` keeps the full text).
        """
        weights = {row["rule"]: row["weight"] for row in rule_weights(list(self.rules))}
        return pd.DataFrame(
            {
                "rule": [r.split(":", 1)[1].strip() if r in weights else r for r in self.rules],
                "weight": [weights.get(rule, np.nan) for rule in self.rules],
            }
        )

    def _caption(self) -> str:
        auc, rd = self.metrics.get("auc_roc", np.nan), self.metrics.get("rd", np.nan)
        return (
            f"{len(self.rules)} rules, reward {self.best_reward:.4f}, "
            f"test AUC-ROC {auc:.4f}, RD {rd:.4f}"
        )

    def summary(self) -> dict[str, Any]:
        """Return a JSON-ready dict: settings, rewards, weights, test metrics, warnings."""
        rows = self.trace.to_frame()
        moves: list[str] = []
        if "move" in rows:  # only a refined fit has local-search rows
            moves = [str(m) for m in rows.loc[rows["phase"] == "refine", "move"]]
        return {
            **self.settings,
            "best_reward": self.best_reward,
            "agent_reward": self.agent_reward,
            "refine_moves": moves,
            "exploration": self.exploration,
            "weights": rule_weights(list(self.rules)),
            "test_metrics": json_metrics(self.metrics),
            "warnings": list(self.warnings),
        }


def _learn_result(
    learner: FairA3SL,
    predictions: pd.DataFrame,
    metrics: dict[str, float],
    settings: dict[str, Any],
    warnings: tuple[str, ...],
) -> LearnResult:
    """Gather the fitted learner's rules, trace and rewards beside it, as plain data."""
    return LearnResult(
        learner,
        predictions,
        metrics,
        settings,
        warnings,
        rules=tuple(learner.best_rules_),
        trace=learner.trace_,
        best_reward=float(learner.best_reward_),
        agent_reward=float(learner.agent_reward_),
        exploration=float(learner.exploration_),
    )


def learn_rules(
    train: RelationalData,
    test: RelationalData,
    *,
    fairness: Sequence[str] = (),
    alpha_odds: float = 0.0,
    n_episodes: int = 200,
    preset: str = "authors",
    refine_evaluations: int | None = None,
    random_state: RandomState = 0,
    options: Mapping[str, Any] | None = None,
    callbacks: Sequence[Callback] = (),
) -> LearnResult:
    """Learn rules with Fair-A3SL on ``train``, infer and evaluate ``test``, collect warnings.

    Parameters
    ----------
    train, test : RelationalData
        Training data (truth for the reward) and test data (truth for the metrics); both
        with their fairness groups.
    fairness : sequence of str, default=()
        Delta-fairness bounds, e.g. ``("rd<=0.1",)``: imposed at MAP inference while
        learning and on the test atoms (variant ``"fair1"``). Empty: Sensitive-A3SL.
    alpha_odds : float, default=0.0
        Equalised-odds prior strength.
    n_episodes : int, default=200
        Clause lists to build and score.
    preset : {"authors", "paper"}, default="authors"
        See :class:`FairA3SL`.
    refine_evaluations : int or None, default=None
        Local search after the agent (fairacq's addition): the most clause lists it
        scores, see :class:`FairA3SL`.
    random_state : int, numpy.random.Generator or None, default=0
        Seeds the agent and weight learning.
    options : mapping or None, default=None
        Further :class:`FairA3SL` parameters (``exclude``, ``domains``, ``agent_options``...).
    callbacks : sequence of callables, default=()
        Passed to :meth:`FairA3SL.fit`: called after every actor-critic update with the
        run's recorder (progress, checkpoints); its ``cost`` counts the episodes.

    Returns
    -------
    LearnResult

    Warns
    -----
    ExplorationWarning
        When the policy's normalised entropy at the end of training is above
        :data:`EXPLORATION_LIMIT`.
    FairnessBoundWarning
        When a bound of ``fairness`` is missed on the test atoms by more than
        :data:`FAIRNESS_TOLERANCE`.
    MetricsWarning
        When the test truth is soft or a metric is undefined (:func:`metric_notes`).
    """
    specs = [str(parse_fairness(s)) for s in fairness]
    variant = "fair1" if specs else "sensitive"
    learner = FairA3SL(
        preset=preset,
        variant=variant,
        n_episodes=n_episodes,
        fairness=tuple(specs) if specs else None,
        alpha_odds=alpha_odds,
        refine_evaluations=refine_evaluations,
        random_state=random_state,
        **dict(options or {}),
    ).fit(train, callbacks=callbacks)
    predictions = learner.predict(test, fair=bool(specs))
    metrics = evaluate_atoms(test, predictions)
    found = [
        *((m, ExplorationWarning) for m in learner.warnings_),
        *((m, FairnessBoundWarning) for m in fairness_warnings(test, predictions, specs)),
        *((m, MetricsWarning) for m in metric_notes(test, metrics)),
    ]
    for message, category in found:
        warn_caller(message, category)
    settings = {
        "variant": variant,
        "fairness": specs,
        "alpha_odds": alpha_odds,
        "episodes": n_episodes,
        "preset": preset,
        "refine_evaluations": refine_evaluations,
    }
    return _learn_result(learner, predictions, metrics, settings, tuple(m for m, _ in found))
