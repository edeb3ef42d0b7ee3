"""fairacq's own row strategy: buy the rows at the decision boundary the fair model will use.

A model given group thresholds (demographic parity within ``tol``) decides each group at its
own cut of the model's probabilities, not at 0.5. The rows worth a label are those whose
probability lies closest to their group's cut: there a better model changes decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._validation import Interval
from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._acquisition_loop import AcquisitionLoop
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.methods._post_thresholds import _ThresholdLoop
from fairacq.acquisition.pools._pool_scorer import PoolScorer
from fairacq.exceptions import InvalidParameterError
from fairacq.models import DEFAULT_METRICS, THRESHOLD_CONSTRAINTS

__all__ = ["OWN_FRONT_TOLS", "ThresholdAwareAcquirer", "boundary_order"]

#: The tolerances that trace the strategy's accuracy-fairness front, fixed before the
#: held-out runs (docs/paper-notes/peers-rows.md, "fairacq's own row strategy"); the
#: front's no-threshold end (tol -> infinity) is Entropy (every group's cut at 0.5).
OWN_FRONT_TOLS = (0.0, 0.025, 0.05, 0.1, 0.15)


class _BoundaryLoop(_ThresholdLoop):
    """The post-thresholds loop, whose thresholds the acquirer also reads to rank rows."""

    def start(self, root: np.random.SeedSequence) -> dict[str, Any]:
        self.acq._thresholds_of = self.thresholds
        return super().start(root)

    def finish(self) -> dict[str, Any]:
        del self.acq._thresholds_of
        return super().finish()


class ThresholdAwareAcquirer(Acquirer):
    """Buy the pool rows closest to their group's threshold; deploy the thresholded model.

    fairacq's own answer to "which rows should I buy, when the model must also be fair".
    Each round the current model gets one threshold per group, chosen as
    :class:`~fairacq.acquisition.PostThresholdAcquirer` chooses them (the validation rows
    pick each group's selection rate so that the rates differ by at most ``tol``; each
    threshold sits at that rate's quantile of the model's probabilities over the pool and
    validation rows, labels not read). The next batch is the available pool rows whose
    probability is closest to their own group's threshold: uncertainty at the decision
    boundary the deployed model uses, not at 0.5 (which is Entropy's). Only the labels of
    bought rows are read (``labels_seen`` equals ``rows_paid``). Every step of the trace
    measures the thresholded model. ``tol`` is the one knob of the accuracy-fairness
    front; the grid fixed for the comparisons is :data:`OWN_FRONT_TOLS`
    ``(0, 0.025, 0.05, 0.1, 0.15)``, with
    :class:`~fairacq.acquisition.EntropyAcquirer` as its no-threshold end (with no
    thresholds every group's cut is 0.5, and the rows closest to it are Entropy's).

    Steers demographic parity only (a selection rate needs no labels, so the thresholds can
    be placed on the pool). A group whose validation rows hold one label falls back as
    :func:`~fairacq.models.fit_thresholds` does, with one warning at the end of the run.

    Parameters
    ----------
    budget, batch_size, learner, track, tau, max_evaluations, refit, random_state
        As :class:`~fairacq.acquisition.RandomAcquirer`; ``random_state`` breaks ties.
    metric : str, default="demographic_parity_diff_abs"
        A demographic parity gap (``demographic_parity_diff_abs``, ``_signed``, ``_ratio``).
    tol : float, default=0.0
        How far the groups' validation selection rates may stay apart.

    Attributes
    ----------
    thresholds_ : MitigatedModel
        The final model's thresholds: ``thresholds_.predict(dataset)``.
    threshold_notes_ : list of str
        Each threshold fallback met during the run (empty when none was needed).
    acquired_, stop_reason_, n_evaluations_, model_, trace_
        See :class:`~fairacq.acquisition.Acquirer`.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(400, random_state=0)
    >>> acq = ThresholdAwareAcquirer(budget=40, batch_size=20, tol=0.05, random_state=0)
    >>> trace = acq.fit(ds.subset(range(100)), ds.subset(range(200, 400)),
    ...                 validation=ds.subset(range(100, 200))).trace_
    >>> len(trace), int(trace.final("labels_seen"))
    (3, 40)
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        # Every batch is kept, so what is paid does not depend on a cost model.
        **{k: v for k, v in Acquirer._parameter_constraints.items() if k != "cost_model"},
        "tol": [Interval(float, 0, None, closed="left")],
    }

    _loop_class: ClassVar[type[AcquisitionLoop]] = _BoundaryLoop
    #: Set by the run's loop: the pool's scores per model, and each model's thresholds.
    _scorer: PoolScorer
    _thresholds_of: Any

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
        tol: float = 0.0,
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
        self.tol = tol

    def _check_metric(self) -> None:
        super()._check_metric()
        if THRESHOLD_CONSTRAINTS.get(self.metric) != "demographic_parity":
            raise InvalidParameterError(
                f"ThresholdAwareAcquirer steers demographic parity only; got {self.metric!r}. "
                "Use metric='demographic_parity_diff_abs', or post-thresholds for equal "
                "opportunity and equalized odds."
            )

    def _placement(self) -> str:
        """Where the loop places the thresholds: always the pool (demographic parity)."""
        return "pool"

    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        cuts = self._thresholds_of(state.model).model.thresholds
        scores = self._scorer.scores(state.model)
        return Proposal(boundary_order(scores, state.pool.s, cuts, state.available, rng))


def boundary_order(
    scores: NDArray[np.float64],
    groups: NDArray[np.int64],
    cuts: NDArray[np.float64],
    available: NDArray[np.bool_],
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Available positions by distance of their score to their group's cut, closest first.

    Ties are broken at random with ``rng``.

    Examples
    --------
    >>> order = boundary_order(np.array([0.1, 0.5, 0.3, 0.9]), np.array([0, 0, 1, 1]),
    ...                        np.array([0.5, 0.2]), np.ones(4, bool), np.random.default_rng(0))
    >>> order.tolist()
    [1, 2, 0, 3]
    """
    idx = np.flatnonzero(available)
    dist = np.abs(scores[idx] - cuts[np.asarray(groups)[idx]])
    order = np.lexsort((rng.random(idx.size), dist))
    return idx[order].astype(np.int64)
