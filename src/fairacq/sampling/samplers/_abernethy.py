"""Abernethy et al.'s epsilon-greedy in its own form: population exploration, averaged SGD."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._typing import LearnerLike
from fairacq._validation import HasMethods, Interval, Options
from fairacq.sampling.learners._averaged_sgd import AveragedSGDLogistic
from fairacq.sampling.learners._learners import RoundLearner
from fairacq.sampling.loop._base import GroupSampler, SamplerState

__all__ = ["AbernethyGreedySampler"]

_MODES = ["averaged-sgd", "exact", "incremental", "incremental-cnn", "refit"]


class AbernethyGreedySampler(GroupSampler):
    """Active sampling for min-max fairness (Abernethy et al., ICML 2022, §3, Algorithm 1).

    Each round, with probability ``p`` the sample comes from the whole population (its group
    drawn with the population's shares, ``oracle.proportions``, so a row of the pool is as
    likely as any other), and otherwise from the group whose validation loss under the current
    model is largest (log-loss by default, as in their code). The model is logistic regression
    trained online: one SGD step per sample drawn, step size ``eta0 / sqrt(t)``, predictions
    from the average of the iterates (:class:`AveragedSGDLogistic`, ``mode="averaged-sgd"``).

    This differs from :class:`EpsilonGreedySampler`, the form Shekhar et al. (§5) describes, in
    the exploration (a population draw rather than a uniformly random group) and the learner
    (online averaged SGD rather than a refit each round). The other modes of
    :class:`GroupSampler` are accepted, for comparisons. Choices:
    ``docs/paper-notes/peers-groups.md``.

    Parameters
    ----------
    budget : int, default=1000
        Samples drawn in total (training plus paired validation draws).
    b0 : int, default=1
        Samples per draw (the paper draws one; each gives one SGD step).
    n0 : int or None, default=None
        Phase 1 rounds visiting the groups in turn; None means one per group.
    p : float, default=0.1
        Probability of a population draw (their exploration rate; Shekhar et al. uses 0.1 too).
    eta0 : float, default=0.5
        First SGD step size of ``mode="averaged-sgd"``.
    alpha : float, default=0.0
        L2 penalty of ``mode="averaged-sgd"`` (the paper's analysis has none).
    mode : {"averaged-sgd", "exact", "incremental", "incremental-cnn", "refit"}, \
default="averaged-sgd"
        The learner; ``"averaged-sgd"`` is the paper's.
    learner : str, estimator or None, default=None
        A scikit-learn classifier refitted on every sample each round; implies ``"refit"``.
    loss : {"log", "zero_one"}, default="log"
        Validation loss picking the worst group (their code: log-loss).
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Controls every draw. Pass an int for identical results across calls.

    Examples
    --------
    >>> from fairacq.data.synthetic import SyntheticModel1
    >>> from fairacq.sampling import GeneratorOracle
    >>> s = AbernethyGreedySampler(budget=30, random_state=0)
    >>> s.fit(GeneratorOracle(SyntheticModel1())).trace_.final("cost")
    30.0
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **GroupSampler._parameter_constraints,
        "p": [Interval(float, 0, 1, closed="both")],
        "eta0": [Interval(float, 0, None, closed="neither")],
        "alpha": [Interval(float, 0, None, closed="left")],
        "mode": [Options(_MODES)],
        "learner": [None, str, HasMethods(["fit", "predict_proba"])],
    }

    def __init__(
        self,
        *,
        budget: int = 1000,
        b0: int = 1,
        n0: int | None = None,
        p: float = 0.1,
        eta0: float = 0.5,
        alpha: float = 0.0,
        mode: str = "averaged-sgd",
        learner: LearnerLike | None = None,
        loss: str = "log",
        random_state: RandomState = None,
    ) -> None:
        self.budget = budget
        self.b0 = b0
        self.n0 = n0
        self.p = p
        self.eta0 = eta0
        self.alpha = alpha
        self.mode = mode
        self.learner = learner
        self.loss = loss
        self.random_state = random_state

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return "abernethy-greedy"

    def _round_mode(self) -> str:
        """``learner=`` turns the paper's averaged SGD (or "exact") into a refit each round."""
        if self.learner is not None and self.mode == "averaged-sgd":
            return "refit"
        return super()._round_mode()

    def _make_round_learner(self, mode: str, seed: int) -> RoundLearner:
        if mode == "averaged-sgd":
            return AveragedSGDLogistic(eta0=self.eta0, alpha=self.alpha)
        return super()._make_round_learner(mode, seed)

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        if self.p > 0 and rng.random() < self.p:
            z = int(rng.choice(state.n_groups, p=state.proportions))
            return z, "population", state.val_loss
        return int(np.argmax(state.val_loss)), "worst", state.val_loss
