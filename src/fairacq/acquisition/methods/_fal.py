"""FAL: fair active learning by uncertainty and expected unfairness reduction.

Anahideh, Asudeh and Thirumuruganathan, "Fair active learning", Expert Systems with
Applications 199 (2022), arXiv 2001.01796; public code ``anahideh/FAL--Fair-Active-Learning``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._validation import Interval, Options
from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._exact_refit import ExactRefit
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.methods._entropy import binary_entropy, entropy_order
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError
from fairacq.metrics import RowGroups
from fairacq.models import DEFAULT_METRICS, prediction_metrics

__all__ = ["FALAcquirer", "expected_unfairness", "fal_scores"]


def expected_unfairness(
    p1: NDArray[np.float64], unfair_if0: NDArray[np.float64], unfair_if1: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Unfairness expected after labelling each row: ``(1 - p1) F(x, 0) + p1 F(x, 1)``.

    ``p1`` is the current model's probability that the row is positive; ``F(x, k)`` the
    validation unfairness of the model retrained with the row labelled ``k``.

    Examples
    --------
    >>> expected_unfairness(np.array([0.25]), np.array([0.5]), np.array([0.25])).tolist()
    [0.4375]
    """
    p1 = np.asarray(p1, dtype=np.float64)
    return np.asarray((1.0 - p1) * unfair_if0 + p1 * unfair_if1, dtype=np.float64)


def _minmax(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Scale to [0, 1]; all equal gives zeros (the authors' NaN -> 0)."""
    lo, hi = float(np.min(values)), float(np.max(values))
    if hi - lo <= 0:
        return np.zeros_like(values, dtype=np.float64)
    return np.asarray((values - lo) / (hi - lo), dtype=np.float64)


def fal_scores(
    entropy: NDArray[np.float64],
    p1: NDArray[np.float64],
    unfair_if0: NDArray[np.float64],
    unfair_if1: NDArray[np.float64],
    unfair_now: float,
    alpha: float,
) -> NDArray[np.float64]:
    """FAL's score of each candidate: ``alpha * H~ + (1 - alpha) * R~``.

    ``H~`` is the entropy and ``R~`` the expected unfairness reduction
    ``unfair_now - expected_unfairness(...)``, each min-max scaled over the candidates (a
    constant column scales to 0), as the authors' code does.

    Examples
    --------
    >>> fal_scores(np.array([1.0, 0.5]), np.array([0.5, 0.5]), np.array([0.1, 0.3]),
    ...            np.array([0.3, 0.1]), 0.4, 0.5).tolist()
    [0.5, 0.0]
    """
    reduction = unfair_now - expected_unfairness(p1, unfair_if0, unfair_if1)
    return np.asarray(
        alpha * _minmax(np.asarray(entropy, dtype=np.float64))
        + (1.0 - alpha) * _minmax(reduction),
        dtype=np.float64,
    )


class _ValidationUnfairness:
    """The absolute steering metric of a what-if model's validation scores.

    The number ``evaluate`` gives. Demographic parity's gap (the default) goes through
    :class:`~fairacq.metrics.RowGroups`, built once from the validation groups (the same
    number as the metric, bit for bit, without its per-call input checks); other metrics,
    and a validation set of a single group (whose error the metric raises), go through
    :func:`~fairacq.models.prediction_metrics`.
    """

    def __init__(self, metric: str, validation: FairDataset) -> None:
        self.metric, self.validation = metric, validation
        self._groups: RowGroups | None = None
        if metric == "demographic_parity_diff_abs":
            with contextlib.suppress(InvalidDataError):  # one group: the metric's error
                self._groups = RowGroups(validation.s)

    def __call__(self, scores: NDArray[np.float64]) -> float:
        if self._groups is not None:  # evaluate()'s predictions: scores >= 0.5
            return self._groups.demographic_parity_diff_abs(scores >= 0.5)
        y_pred = (scores >= 0.5).astype(np.int64)
        metrics = prediction_metrics(y_pred, self.validation, [self.metric], scores=scores)
        return abs(metrics[self.metric])


class FALAcquirer(Acquirer):
    """FAL: label the rows that mix uncertainty and expected fairness improvement best.

    Implements FAL (Anahideh, Asudeh, Thirumuruganathan, ESWA 2022; arXiv 2001.01796). Each
    round the current model scores the pool; for each candidate row ``x`` two models are
    retrained, one with ``(x, 0)`` and one with ``(x, 1)`` added, and their unfairness (the
    absolute steering metric) is measured on the validation split. The expected unfairness
    after labelling ``x`` weighs them by the predicted probabilities,
    ``(1 - p) F(x, 0) + p F(x, 1)``, and the candidate with the largest
    ``alpha * entropy~ + (1 - alpha) * reduction~`` (both min-max scaled over the candidates)
    is labelled (:func:`fal_scores`). With ``batch_size > 1`` the top rows are taken, as
    Falcon's authors ran FAL; rows past the candidates follow in entropy order.

    Speed: scoring every pool row costs two fits per row per round. The authors' nested
    variant (and Falcon's comparison, "FAL-m") scores only the ``m`` most uncertain rows;
    ``n_candidates=m`` does that (``candidates="entropy"``) or scores ``m`` rows drawn at
    random (``candidates="random"``); ``n_candidates=None`` scores the whole pool (the
    paper's algorithm). The what-if models are always retrained from scratch with the run's
    learner seed; for ``learner="lr"`` through the loop's exact cheaper refit (the same models
    and unfairness, bit for bit, several times cheaper than scikit-learn's fit; see
    ``fairacq.acquisition.loop._exact_refit``). See ``docs/paper-notes/peers-rows.md`` for
    the choices made here.

    Parameters
    ----------
    budget : int or float, default=200
        Rows to label (the authors' budget ``b = 200``).
    batch_size : int or float, default=1
        Rows per round (FAL labels one at a time).
    learner : str or estimator, default="lr"
        Learner name or a scikit-learn classifier with ``predict_proba``.
    metric : str, default="demographic_parity_diff_abs"
        Unfairness measured (its absolute value); any registered metric.
    track : sequence of str, default=fairacq.models.DEFAULT_METRICS
        Further metrics recorded.
    tau : float, default=0.0
        Early stop on the validation gap (0: never).
    max_evaluations : int or None, default=None
        Cap on rounds.
    alpha : float, default=0.6
        Weight of uncertainty against fairness, in [0, 1] (1: entropy sampling; 0: pure
        expected fairness). 0.6 is the "accuracy weight" of the authors' script.
    adaptive_alpha : bool, default=False
        Lower the weight from ``alpha`` to 0 in 11 equal phases of the run (the authors'
        adaptive schedule, ``linspace(1, 0, 11) * alpha``).
    n_candidates : int or None, default=64
        Rows scored per round (None: every available row).
    candidates : {"entropy", "random"}, default="entropy"
        Which rows are scored: the most uncertain ones, or a uniform draw.
    refit : {"scratch", "partial"}, default="scratch"
        How the kept row is learned (see :class:`~fairacq.acquisition.Acquirer`).
    random_state : int, Generator, SeedSequence or None, default=None
        Controls ties, the random candidates and the learner.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(300, random_state=0)
    >>> fal = FALAcquirer(budget=3, n_candidates=4, random_state=0)
    >>> trace = fal.fit(ds.subset(range(60)), ds.subset(range(160, 300)),
    ...                 validation=ds.subset(range(60, 160))).trace_
    >>> len(trace), fal.acquired_.size
    (4, 3)
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        # Every batch is kept, so what is paid does not depend on a cost model.
        **{k: v for k, v in Acquirer._parameter_constraints.items() if k != "cost_model"},
        "alpha": [Interval(float, 0, 1, closed="both")],
        "adaptive_alpha": ["boolean"],
        "n_candidates": [Interval(int, 1, None, closed="left"), None],
        "candidates": [Options({"entropy", "random"})],
    }

    def __init__(
        self,
        *,
        budget: float = 200,
        batch_size: float = 1,
        learner: str = "lr",
        metric: str = "demographic_parity_diff_abs",
        track: Sequence[str] = DEFAULT_METRICS,
        tau: float = 0.0,
        max_evaluations: int | None = None,
        alpha: float = 0.6,
        adaptive_alpha: bool = False,
        n_candidates: int | None = 64,
        candidates: str = "entropy",
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
        self.alpha = alpha
        self.adaptive_alpha = adaptive_alpha
        self.n_candidates = n_candidates
        self.candidates = candidates

    def _prepare(
        self, state: AcquisitionState, validation: FairDataset, root: np.random.SeedSequence
    ) -> None:
        self._X_val = validation.to_numpy()  # once: every what-if model is measured on it
        # the seed the acquisition loop fits its models with: what-if models match them
        self._learner_seed = int(root.generate_state(1)[0])
        self._refit = ExactRefit(self.learner)  # make_learner(...).fit, the same model cheaper
        self._score: Callable[..., NDArray[np.float64]] | None = None  # set on the 1st model
        self._unfairness = _ValidationUnfairness(self.metric, validation)

    def alpha_at(self, step: int) -> float:
        """Return the uncertainty weight of round ``step`` (0-based).

        Examples
        --------
        >>> fal = FALAcquirer(budget=22, alpha=1.0, adaptive_alpha=True)
        >>> [fal.alpha_at(t) for t in (0, 2, 21)]
        [1.0, 0.9, 0.0]
        """
        if not self.adaptive_alpha:
            return float(self.alpha)
        rounds = max(1, math.ceil(self.budget / self.batch_size))
        phase = min(10, step // max(1, rounds // 11))
        return float(self.alpha) * (1.0 - phase / 10)

    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        if self.candidates == "entropy":
            if self._score is None:  # predict_scores's bits without its per-call checks
                self._score = self._refit.scorer(state.model, self._X_val)
            order = entropy_order(state, rng, score=self._score)
        else:
            order = rng.permutation(np.flatnonzero(state.available)).astype(np.int64)
        m = order.size if self.n_candidates is None else min(self.n_candidates, order.size)
        scored, rest = order[:m], order[m:]
        if m == 0:
            return Proposal(order)
        scores = self._scores(state, scored, self.alpha_at(state.evaluation))
        ranked = scored[np.lexsort((np.arange(m), -scores))]
        return Proposal(np.concatenate([ranked, rest]).astype(np.int64))

    def _scores(
        self, state: AcquisitionState, rows: NDArray[np.int64], alpha: float
    ) -> NDArray[np.float64]:
        """FAL's score of pool ``rows`` under the current model (see :func:`fal_scores`)."""
        X_rows = state.pool.read_rows(rows)
        p1 = self._refit.scores(state.model, X_rows)
        unfair = np.empty((rows.size, 2))
        if alpha < 1.0:  # alpha = 1 is entropy sampling: the what-if models are not needed
            # the training rows plus one slot for the candidate, filled in place (no copy)
            X_with = np.vstack([state.train.to_numpy(), X_rows[:1]])
            y_with = np.append(state.train.y, 0)
            for i, x in enumerate(X_rows):
                X_with[-1] = x
                for label in (0, 1):
                    y_with[-1] = label
                    unfair[i, label] = self._unfairness_with(X_with, y_with)
        else:
            unfair[:] = 0.0
        return fal_scores(
            binary_entropy(p1), p1, unfair[:, 0], unfair[:, 1], state.fairness, alpha
        )

    def _unfairness_with(self, X: NDArray[np.float64], y: NDArray[np.int64]) -> float:
        """Return the validation unfairness of the learner retrained on ``X``, ``y``.

        ``X``, ``y`` are the training rows with the candidate and its supposed label last.
        """
        return self._unfairness(self._refit.fit_scores(self._learner_seed, X, y, self._X_val))
