"""Falcon: fair active learning with a bandit over selection policies (Tae et al., PVLDB 2024)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import KEY_PREPARE, RandomState, child_rng
from fairacq._validation import Interval
from fairacq.acquisition.bandits._exp3 import Exp3
from fairacq.acquisition.loop._exact_refit import ExactRefit
from fairacq.acquisition.loop._ledger import fill_limit
from fairacq.acquisition.loop._paid_loop import PaidRowsAcquirer
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.methods._entropy import entropy_order
from fairacq.acquisition.methods._falcon_policies import (
    DEFAULT_POLICIES,
    policy_order,
    target_groups,
    target_kind,
)
from fairacq.acquisition.pools._pool_scorer import PoolScorer
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError
from fairacq.models import DEFAULT_METRICS

__all__ = ["FalconAcquirer"]

#: Fixed children of the run's root seed: the coin of each round (fairness bandit or
#: entropy) and the bandit's draw, keyed by step (independent of the step's own stream,
#: which entropy rounds use exactly as EntropyAcquirer does).
KEY_COIN = KEY_PREPARE + 101
KEY_ARM = KEY_PREPARE + 102


@dataclass
class _Round:
    """The fairness round under way: its bandit, arm, target and what was paid."""

    key: str
    arm: int
    prob: float
    label: int
    group: int
    r: float
    rows: int = 0


class FalconAcquirer(PaidRowsAcquirer):
    """Falcon: pool rows of target groups picked by policies an EXP3 bandit chooses.

    Implements Falcon (Tae, Zhang, Park, Rong, Whang, "Falcon: Fair Active Learning using
    Multi-armed Bandits", PVLDB 17(5), 2024; public code ``khtae8250/Falcon``). Each round:

    1. with probability ``lam`` the round is a fairness round, otherwise an entropy round
       that labels the ``batch_size`` most uncertain pool rows (exactly what
       :class:`~fairacq.acquisition.EntropyAcquirer` would pick; ``lam`` trades accuracy for
       fairness and the paper sweeps it from 1 to 0);
    2. a fairness round finds the *target groups* of the steering metric from the current
       model's per-group rates on the validation split (demographic parity: positives of
       the group with the lowest selection rate and negatives of the one with the highest;
       see :mod:`fairacq.acquisition.methods._falcon_policies`);
    3. an EXP3 bandit over (target group, policy ``r``) arms, one bandit per distinct set of
       target groups, draws an arm (:class:`~fairacq.acquisition.bandits._exp3.Exp3`);
    4. the policy takes the pool rows of that sensitive group whose predicted probability of
       the target label is closest to ``1 - r`` and buys their labels (trial and error);
    5. rows whose label is the target label join the training set; the others are
       *postponed*: paid for and removed from the pool, but not trained on (the authors'
       code never uses them later);
    6. the model is retrained and the bandit rewarded with the validation fairness gain
       (negative gains count 0, scaled by the largest gain seen after the warm-up).

    Budget accounting: the budget counts every row whose label was paid for, postponed rows
    included (cost units with per-row costs). Every step of the trace records
    ``rows_paid`` (rows whose label was paid for so far), ``labels_seen`` (labels revealed to
    the method so far; equal to ``rows_paid`` here) and ``rows_evaluated`` (rows that entered
    an evaluated model so far: the kept ones), besides ``postponed`` (this step's postponed
    positions), ``target_label`` / ``target_group`` / ``policy_r`` of a fairness round
    (-1, -1, NaN for an entropy round) and the usual ``cost``, ``batch`` (kept rows) and
    ``val_`` / ``test_`` metrics. Every round is kept; ``tau`` still stops early.

    Parameters
    ----------
    budget : int or float, default=4000
        Rows whose labels are bought (cost units with per-row costs). The authors' defaults
        are 400 rounds of 10 rows on the ACS tasks (4000) and 200 rounds of 1 row on COMPAS
        (``budget=200, batch_size=1``).
    batch_size : int or float, default=10
        Rows labelled per round.
    learner : str or estimator, default="lr"
        Learner name (``"lr"``: logistic regression, lbfgs, C=1, as the authors') or a
        scikit-learn classifier with ``predict_proba``.
    metric : str, default="demographic_parity_diff_abs"
        Steering fairness gap: a demographic parity, equal opportunity or equalised odds
        metric (the ones Falcon defines target groups for).
    track : sequence of str, default=fairacq.models.DEFAULT_METRICS
        Further metrics recorded.
    tau : float, default=0.0
        Stop once the validation gap is below ``tau`` (0: never; Falcon has no early stop).
    max_evaluations : int or None, default=None
        Cap on rounds.
    lam : float, default=1.0
        Probability that a round is a fairness round (the paper's lambda); 0 is entropy
        sampling, 1 spends every label on fairness.
    policies : sequence of float, default=(0.7, 0.6, 0.5, 0.4, 0.3)
        The policies ``r`` in (0, 1), in order (neighbours share rewards).
    warmup : int, default=100
        Labelled rows per bandit drawn uniformly before its weights move (authors: 100).
    refit : {"scratch", "partial"}, default="scratch"
        See :class:`~fairacq.acquisition.Acquirer` (the authors retrain from scratch).
    random_state : int, Generator, SeedSequence or None, default=None
        Controls the coins, the bandit draws, entropy ties and the learner.

    Attributes
    ----------
    acquired_ : ndarray of int
        Kept pool positions, in order.
    postponed_ : ndarray of int
        Postponed pool positions, in order.
    bandits_ : dict of str to Exp3
        The bandit of each set of target groups (keys like ``"1@0|0@1"``: label@group).
    stop_reason_, n_evaluations_, model_, trace_
        See :class:`~fairacq.acquisition.Acquirer`.

    Notes
    -----
    A label bought in a target group moves that group's predictions most when the model
    sees the sensitive attribute, as in the authors' experiments (their features include it).
    FairDataset keeps sensitive columns out of the features by default
    (``load_dataset(..., include_sensitive_features=True)`` puts them in); on COMPAS without
    them Falcon left the demographic parity gap where it was, with them it nearly closed it
    (``docs/paper-notes/peers-rows.md``).

    A fairness round scores only the target group's available pool rows, as the authors'
    code does (a streamed pool, and entropy rounds, score the whole pool block by block once
    per model with :class:`~fairacq.acquisition.pools._pool_scorer.PoolScorer`; an in-memory
    pool's features are then held a second time, C-contiguous), reuses the loop's validation
    scores of the current model for the target groups, and sorts only the target group's
    rows that can make the batch. The selections are those of scoring and sorting
    everything (``tests/acquisition/test_falcon_exact.py``); ``benchmarks/falcon_reference.py``
    times a round against a re-implementation of the authors' loop.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(400, random_state=0)
    >>> train, val, pool = ds.subset(range(60)), ds.subset(range(60, 160)), ds.subset(
    ...     range(160, 400))
    >>> falcon = FalconAcquirer(budget=20, batch_size=5, random_state=0)
    >>> frame = falcon.fit(train, pool, validation=val).trace_.to_frame()
    >>> int(frame["rows_paid"].iloc[-1])
    20
    >>> bool((frame["rows_evaluated"] <= frame["rows_paid"]).all())
    True
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        # Every label is paid for (postponed rows too): no cost model to choose.
        **{k: v for k, v in PaidRowsAcquirer._parameter_constraints.items() if k != "cost_model"},
        "lam": [Interval(float, 0, 1, closed="both")],
        "policies": [list, tuple],
        "warmup": [Interval(int, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        budget: float = 4000,
        batch_size: float = 10,
        learner: str = "lr",
        metric: str = "demographic_parity_diff_abs",
        track: Sequence[str] = DEFAULT_METRICS,
        tau: float = 0.0,
        max_evaluations: int | None = None,
        lam: float = 1.0,
        policies: Sequence[float] = DEFAULT_POLICIES,
        warmup: int = 100,
        refit: str = "scratch",
        random_state: RandomState = None,
    ) -> None:
        super().__init__(
            budget=budget,
            batch_size=batch_size,
            learner=learner,
            metric=metric,
            track=track,
            tau=tau,
            max_evaluations=max_evaluations,
            refit=refit,
            random_state=random_state,
        )
        self.lam = lam
        self.policies = policies
        self.warmup = warmup

    # -- one-off work ----------------------------------------------------------------------
    def _prepare(
        self, state: AcquisitionState, validation: FairDataset, root: np.random.SeedSequence
    ) -> None:
        self._kind = target_kind(self.metric, type(self).__name__)
        self._policies = _check_policies(self.policies, type(self).__name__)
        self._root = root
        self._validation = validation
        self._X_val = validation.to_numpy()
        self._n_groups = validation.n_groups
        # predict_scores's bits without scikit-learn's per-call checks (checked here once)
        self._score = ExactRefit(self.learner).scorer(state.model, self._X_val)
        self._scorer = PoolScorer(state.pool, state.executor)
        self._scorer.score = self._score
        self._scorer_model: Any = None  # the model whose whole-pool scores the scorer holds
        self.bandits_: dict[str, Exp3] = {}
        self._round: _Round | None = None

    # -- one round ---------------------------------------------------------------------------
    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        step = state.evaluation
        self._round = None
        if float(child_rng(self._root, KEY_COIN, step).random()) < self.lam:
            proposal = self._fairness_proposal(state, step)
            if proposal is not None:
                return proposal
        self._scorer_model = state.model
        return Proposal(entropy_order(state, rng, self._scorer.scores(state.model)))

    def _fairness_proposal(self, state: AcquisitionState, step: int) -> Proposal | None:
        """Draw a (target group, policy) arm and rank its group's pool rows by the policy.

        Returns None when no target group has pool rows left (an entropy round follows).
        """
        val = self._validation
        y_pred = (self._val_scores(state) >= 0.5).astype(np.int64)
        targets = target_groups(self._kind, val.y, y_pred, val.s, self._n_groups)
        key = "|".join(f"{label}@{group}" for label, group in targets)
        n_pol = len(self._policies)
        bandit = self.bandits_.setdefault(
            key, Exp3(len(targets) * n_pol, n_policies=n_pol, warmup=self.warmup)
        )
        pool_s = state.pool.s
        has_rows = [bool(np.any(state.available & (pool_s == g))) for _, g in targets]
        if not any(has_rows):
            return None
        arm, prob = bandit.draw(child_rng(self._root, KEY_ARM, step), np.repeat(has_rows, n_pol))
        label, group = targets[arm // n_pol]
        r = self._policies[arm % n_pol]
        rows = np.flatnonzero(state.available & (pool_s == group))
        p1 = self._group_scores(state, rows)
        # the loop takes candidates while they fit in batch_size: only the first few matter
        first = fill_limit(state.costs[rows], self.batch_size)
        order = policy_order(p1 if label == 1 else 1.0 - p1, rows, r, first=first)
        self._round = _Round(key, arm, prob, label, group, r)
        return Proposal(order, arm)

    def _group_scores(
        self, state: AcquisitionState, rows: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """P(y=1) of the target group's available pool ``rows`` (only those rows are scored).

        They are read by position (an in-memory pool's from the :class:`PoolScorer`'s
        C-contiguous copy). A model whose whole-pool scores an entropy round already holds
        is read from the :class:`PoolScorer` instead.
        """
        if self._scorer_model is state.model:
            return self._scorer.scores(state.model)[rows]
        return self._score(state.model, self._scorer.read_rows(rows))

    def _val_scores(self, state: AcquisitionState) -> NDArray[np.float64]:
        """Return the current model's validation scores (the loop's, when it has them)."""
        if state.val_scores is not None and state.val_scores[0] is state.model:
            return state.val_scores[1]
        return self._score(state.model, self._X_val)

    def _split_paid(
        self, state: AcquisitionState, proposal: Proposal, paid: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        rnd = self._round
        if rnd is None:
            return paid, np.empty(0, dtype=np.int64)
        rnd.rows = int(paid.size)
        inside = state.pool.y[paid] == rnd.label
        return paid[inside], paid[~inside]

    def _feedback(
        self,
        state: AcquisitionState,
        proposal: Proposal,
        batch: NDArray[np.int64],
        improvement: float,
        accepted: bool,
        batch_cost: float,
    ) -> None:
        rnd = self._round
        if rnd is not None:
            self.bandits_[rnd.key].update(rnd.arm, improvement, rnd.prob, rnd.rows)

    def _round_columns(self) -> dict[str, Any]:
        rnd = self._round
        if rnd is None:
            return {"target_label": -1, "target_group": -1, "policy_r": float("nan")}
        return {"target_label": rnd.label, "target_group": rnd.group, "policy_r": rnd.r}

    # -- resuming and metadata ---------------------------------------------------------------
    def _resume_state(self) -> dict[str, Any]:
        return {"bandits": {key: b.state_dict() for key, b in self.bandits_.items()}}

    def _load_resume_state(self, state: dict[str, Any]) -> None:
        saved: Mapping[str, Any] = state.get("bandits", {})
        self.bandits_ = {key: Exp3.from_state_dict(dict(s)) for key, s in saved.items()}

    def _run_meta(self) -> dict[str, Any]:
        return {
            "policies": list(self._policies),
            "bandit_probabilities": {
                key: b.probabilities().tolist() for key, b in self.bandits_.items()
            },
        }


def _check_policies(policies: Sequence[float], caller: str) -> tuple[float, ...]:
    values = tuple(policies)
    ok = len(values) > 0 and all(
        isinstance(r, numbers.Real) and not isinstance(r, bool) and 0 < float(r) < 1
        for r in values
    )
    if not ok:
        raise InvalidParameterError(
            f"The 'policies' parameter of {caller} must hold at least one number in (0, 1), "
            f"e.g. (0.7, 0.6, 0.5, 0.4, 0.3). Got {policies!r} instead."
        )
    return tuple(float(r) for r in values)
