"""Baselines of Shekhar et al. (§5): epsilon-greedy, Greedy, Uniform and Uncurated sampling."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._typing import LearnerLike
from fairacq._validation import Interval
from fairacq.sampling.loop._base import GroupSampler, SamplerState

__all__ = ["EpsilonGreedySampler", "GreedySampler", "UncuratedSampler", "UniformSampler"]

_COMMON_DOC = """budget : int, default=1000
        Samples drawn in total (training plus paired validation draws).
    b0 : int, default=1
        Samples per draw.
    n0 : int or None, default=None
        Phase 1 rounds visiting the groups in turn; None means one per group.
    mode : {"exact", "incremental", "incremental-cnn", "refit"}, default="exact"
        Learner update per round.
    learner : str, estimator or None, default=None
        A scikit-learn classifier refitted (a fresh clone) on every drawn sample each round;
        implies ``mode="refit"``.
    loss : {"zero_one", "log"}, default="zero_one"
        Loss measured on the validation sets.
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Controls every draw. Pass an int for identical results across calls."""


class _SimpleSampler(GroupSampler):
    """A sampler with only the shared hyper-parameters."""

    def __init__(
        self,
        *,
        budget: int = 1000,
        b0: int = 1,
        n0: int | None = None,
        mode: str = "exact",
        learner: LearnerLike | None = None,
        loss: str = "zero_one",
        random_state: RandomState = None,
    ) -> None:
        self.budget = budget
        self.b0 = b0
        self.n0 = n0
        self.mode = mode
        self.learner = learner
        self.loss = loss
        self.random_state = random_state


def _greedy(
    state: SamplerState, rng: np.random.Generator, epsilon: float
) -> tuple[int, str, NDArray[np.float64] | None]:
    if epsilon > 0 and rng.random() < epsilon:
        return int(rng.integers(state.n_groups)), "explore", state.val_loss
    return int(np.argmax(state.val_loss)), "greedy", state.val_loss


class EpsilonGreedySampler(GroupSampler):
    """Epsilon-greedy group sampling (Abernethy et al. 2020, as described in Shekhar et al., §5).

    Each round draws, with probability ``epsilon``, a group chosen uniformly at random, and
    otherwise the group with the largest validation loss of the current model. (Abernethy et
    al.'s public code explores by sampling the whole population instead; see
    ``docs/paper-notes/aopt.md``.)

    Parameters
    ----------
    epsilon : float, default=0.1
        Exploration probability (§5 uses 0.1).
    {common}

    Examples
    --------
    >>> from fairacq.data.synthetic import SyntheticModel1
    >>> from fairacq.sampling import GeneratorOracle
    >>> s = EpsilonGreedySampler(budget=30, random_state=0)
    >>> len(s.fit(GeneratorOracle(SyntheticModel1())).trace_)
    15
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **GroupSampler._parameter_constraints,
        "epsilon": [Interval(float, 0, 1, closed="both")],
    }

    def __init__(
        self,
        *,
        budget: int = 1000,
        b0: int = 1,
        n0: int | None = None,
        epsilon: float = 0.1,
        mode: str = "exact",
        learner: LearnerLike | None = None,
        loss: str = "zero_one",
        random_state: RandomState = None,
    ) -> None:
        self.budget = budget
        self.b0 = b0
        self.n0 = n0
        self.epsilon = epsilon
        self.mode = mode
        self.learner = learner
        self.loss = loss
        self.random_state = random_state

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return "epsilon-greedy"

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        return _greedy(state, rng, self.epsilon)


class GreedySampler(_SimpleSampler):
    """Greedy sampling: always the group with the largest validation loss (epsilon = 0).

    The "Greedy" / "Empirical" baseline of Shekhar et al. (§5, Fig. 2): epsilon-greedy with
    ``epsilon=0``. Without exploration it can lock onto a wrong mixture.

    Parameters
    ----------
    {common}
    """

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        return _greedy(state, rng, 0.0)


class UniformSampler(_SimpleSampler):
    """Uniform sampling: the groups in turn, so each gets an equal share (Shekhar et al., §5).

    Parameters
    ----------
    {common}
    """

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        return int(np.argmin(state.counts)), "uniform", None

    def _fallback(self, state: SamplerState, left: list[int]) -> int:
        """Return the least drawn of the groups left."""
        return left[int(np.argmin(state.counts[left]))]


class UncuratedSampler(_SimpleSampler):
    """Uncurated sampling: each round's group drawn in natural proportions (Shekhar et al., §5).

    The proportions come from the oracle (``oracle.proportions``: group shares of a
    :class:`DatasetOracle`'s dataset, or those given to the other oracles).

    Parameters
    ----------
    {common}
    """

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        return int(rng.choice(state.n_groups, p=state.proportions)), "natural", None

    def _fallback(self, state: SamplerState, left: list[int]) -> int:
        """Return the group left furthest below its natural share of the draws so far."""
        short = state.proportions[left] * (state.counts.sum() + 1) - state.counts[left]
        return left[int(np.argmax(short))]


for _cls in (EpsilonGreedySampler, GreedySampler, UniformSampler, UncuratedSampler):
    _cls.__doc__ = (_cls.__doc__ or "").replace("{common}", _COMMON_DOC)
