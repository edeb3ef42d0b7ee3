"""fairacq's acquire-then-post-process strategy: buy rows for accuracy, close the gap after.

Measured on COMPAS and Adult (``docs/results/peers-rows``), a representative sample plus
group thresholds fitted on held-out rows traces a better accuracy-fairness front than
steering which rows to buy; this strategy makes that combination one acquirer whose ``tol``
is the knob of the front.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from fairacq._random import RandomState, child_int
from fairacq._validation import Interval, Options
from fairacq._warnings import warn_caller
from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._acquisition_loop import AcquisitionLoop
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.methods._entropy import entropy_order
from fairacq.acquisition.pools._pool_scorer import PoolScorer
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError, ResultWarning
from fairacq.models import (
    DEFAULT_METRICS,
    THRESHOLD_CONSTRAINTS,
    GroupThresholds,
    MitigatedModel,
    evaluate_thresholds,
    fit_thresholds,
    group_rates,
    thresholds_at_rates,
)
from fairacq.models import threshold_constraint as _threshold_constraint

__all__ = ["PostThresholdAcquirer"]

_DRAW_KEY = (2**20, 1)


class _ThresholdLoop(AcquisitionLoop):
    """Every model the run measures is the learner plus thresholds fitted on validation."""

    def start(self, root: np.random.SeedSequence) -> dict[str, Any]:
        # one seed for every randomised prediction of the run: a resumed run draws the same
        # (a two-part key, apart from the one-part keys of the rounds' generators)
        self._draw_seed = child_int(root, *_DRAW_KEY)
        self._fitted: tuple[Any, Any] | None = None
        self._notes: dict[str, None] = {}  # each threshold fallback met, in order
        # one scorer for the entropy policy and the pool placement: the model that gets
        # thresholds at the end of a step ranks the pool at the next, scored once
        self.acq._scorer = PoolScorer(self.source, self.executor)
        self._checked = False
        return super().start(root)

    def _check_scorer(self, model: Any) -> None:
        """Give the pool scorer the run's checked fast scorer (pool and validation rows).

        The shortcut is checked once, on the first model and the validation rows, before
        any pool block is sent to a chunk executor (its workers then repeat no check).
        """
        if not self._checked:
            X_val = self._features[id(self.validation)]
            self.acq._scorer.score = self._refit.scorer(model, X_val)
            self._checked = True

    def thresholds(self, model: Any) -> Any:
        """Return ``model``'s thresholds (fitted once per model, on the validation rows)."""
        if self._fitted is None or self._fitted[0] is not model:
            self._check_scorer(model)
            acq = self.acq
            with warnings.catch_warnings():  # a fallback is told once, at the end of the run
                warnings.simplefilter("ignore", ResultWarning)
                post = fit_thresholds(model, self.validation, metric=acq.metric, tol=acq.tol)
            note = getattr(post.model, "note", None)
            if note is not None:
                self._notes[note] = None
            if acq._placement() == "pool":
                post = self._place_on_pool(model, post)
            self._fitted = (model, post)
        return self._fitted[1]

    def _place_on_pool(self, model: Any, post: MitigatedModel) -> MitigatedModel:
        """Keep the rates ``post`` chose on validation; place them on the pool's scores.

        The pool (streamed or in memory) and the validation rows are scored block by block;
        their labels are not read.
        """
        val, scorer = self.validation, self.acq._scorer
        val_scores = scorer.score(model, self._features[id(val)])
        scores = np.concatenate([scorer.scores(model), val_scores])
        groups = np.concatenate([self.source.s, np.asarray(val.s, dtype=np.int64)])
        rates = group_rates(post, val)
        cuts = thresholds_at_rates(scores, groups, rates, val.group_names)
        rule = GroupThresholds(model, cuts, note=getattr(post.model, "note", None))
        return MitigatedModel(post.name, rule, post.learner)

    def _evaluate(self, model: Any, data: FairDataset) -> dict[str, float]:
        post = self.thresholds(model)
        return evaluate_thresholds(post, data, self.metrics, random_state=self._draw_seed)

    def finish(self) -> dict[str, Any]:
        self.acq.thresholds_ = self.thresholds(self.state.model)
        self.acq.threshold_notes_ = list(self._notes)
        for note in self._notes:
            warn_caller(note, ResultWarning)
        del self.acq._scorer  # its copy of the pool's features is not kept after the run
        return super().finish()


class PostThresholdAcquirer(Acquirer):
    """Acquire rows for the model's accuracy, then fit group thresholds within ``tol``.

    fairacq's own strategy for the question "which rows should I buy, when the model must
    also be fair": buy a representative sample (``policy="random"``) or the rows the model
    is least sure of (``policy="entropy"``), train the learner on everything bought, and
    give it a threshold per group (Hardt et al. 2016, fairlearn's ``ThresholdOptimizer``)
    chosen on the validation rows so that the groups' rates differ by at most ``tol``.
    Every step of the trace measures that post-processed model, so the curves show what a
    user would deploy. ``tol`` is the knob of the accuracy-fairness front: 0 closes the gap
    on validation, larger values keep more accuracy.

    Why: on COMPAS and Adult the fairness-steering acquirers (DataSift-Inf, Falcon) bend
    the training set towards one group; post-processing a model trained on a representative
    sample reached a lower gap at the same accuracy for the same labels bought
    (``docs/results/peers-rows``). The thresholds are fitted on held-out rows, not on the
    training rows, whose probabilities are over-confident. They need each row's group at
    prediction time, and their predictions are drawn at random between two thresholds per
    group (seeded from ``random_state``).

    Parameters
    ----------
    budget, batch_size, learner, track, tau, max_evaluations, refit, random_state
        As :class:`~fairacq.acquisition.RandomAcquirer`; ``tau`` reads the post-processed
        model's validation gap.
    metric : str, default="demographic_parity_diff_abs"
        The gap the thresholds close: demographic parity, equal opportunity or equalized
        odds (the last only with ``tol=0``).
    policy : {"random", "entropy"}, default="random"
        Which rows are bought: uniformly at random, or the most uncertain first.
    tol : float, default=0.0
        How far the groups' validation rates may stay apart.
    placement : {"auto", "pool", "validation"}, default="auto"
        Where the thresholds are placed once the validation rows chose each group's rate:
        ``"pool"`` at the matching quantile of the model's probabilities over the pool and
        validation rows (labels not read; demographic parity only; one deterministic
        threshold per group, whose realised rates vary less), ``"validation"`` on the
        validation rows as fairlearn does (randomised between two thresholds per group);
        ``"auto"`` is ``"pool"`` for demographic parity, else ``"validation"``. A streamed
        pool is scored block by block, as the acquirers score it.

    Attributes
    ----------
    thresholds_ : MitigatedModel
        The final model's thresholds: ``thresholds_.predict(dataset, random_state=...)``.
    threshold_notes_ : list of str
        Each fallback the thresholds needed during the run (a group whose validation rows
        hold one label only, see :func:`~fairacq.models.fit_thresholds`), also raised once
        as a :class:`~fairacq.exceptions.ResultWarning`; empty when none was needed.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(400, random_state=0)
    >>> acq = PostThresholdAcquirer(budget=40, batch_size=20, tol=0.05, random_state=0)
    >>> trace = acq.fit(ds.subset(range(100)), ds.subset(range(200, 400)),
    ...                 validation=ds.subset(range(100, 200))).trace_
    >>> len(trace), acq.thresholds_.name
    (3, 'threshold-dp')
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        # Every batch is kept, so what is paid does not depend on a cost model.
        **{k: v for k, v in Acquirer._parameter_constraints.items() if k != "cost_model"},
        "policy": [Options({"random", "entropy"})],
        "tol": [Interval(float, 0, None, closed="left")],
        "placement": [Options({"auto", "pool", "validation"})],
    }

    _loop_class: ClassVar[type[AcquisitionLoop]] = _ThresholdLoop
    #: Scores the pool once per model for the entropy policy and the pool placement (set
    #: by the run's loop).
    _scorer: PoolScorer

    def __init__(
        self,
        *,
        budget: float = 1000,
        batch_size: float = 100,
        learner: str = "lr",
        metric: str = "demographic_parity_diff_abs",
        track: Sequence[str] = DEFAULT_METRICS,
        tau: float = 0.0,
        max_evaluations: int | None = None,
        policy: str = "random",
        tol: float = 0.0,
        placement: str = "auto",
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
        self.policy = policy
        self.tol = tol
        self.placement = placement

    def _check_metric(self) -> None:
        super()._check_metric()
        _threshold_constraint(self.metric, self.tol)
        if self.placement == "pool" and not self._dp():
            raise InvalidParameterError(
                f"PostThresholdAcquirer: placement='pool' places thresholds for demographic "
                f"parity only ({self.metric!r} compares rates among labelled rows); use "
                "placement='validation' or 'auto'."
            )

    def _dp(self) -> bool:
        """Whether the thresholds close a demographic parity gap (rates without labels)."""
        return THRESHOLD_CONSTRAINTS[self.metric] == "demographic_parity"

    def _placement(self) -> str:
        """Return where the thresholds are placed (``"auto"``: the pool for dp)."""
        if self.placement == "auto":
            return "pool" if self._dp() else "validation"
        return str(self.placement)

    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        if self.policy == "entropy":
            return Proposal(entropy_order(state, rng, scores=self._scorer.scores(state.model)))
        return Proposal(rng.permutation(np.flatnonzero(state.available)).astype(np.int64))
