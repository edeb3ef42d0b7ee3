"""Slice Tuner (Tae & Whang, SIGMOD 2021) as a group sampler: learning curves, then a plan."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._typing import LearnerLike
from fairacq._validation import Interval, Options
from fairacq.exceptions import InvalidDataError
from fairacq.sampling.loop._base import GroupSampler, SamplerState
from fairacq.sampling.samplers._learning_curve import curve_points, fit_slice_curve, subset_sizes
from fairacq.sampling.samplers._slice_allocation import (
    allocate_slices,
    limit_imbalance,
    round_allocation,
)

__all__ = ["SliceTunerSampler"]

_NEXT_LIMIT = {
    "aggressive": lambda limit: 2 * limit,
    "moderate": lambda limit: limit + 1,
    "conservative": lambda limit: limit,
    "one-shot": lambda limit: limit,
}


class SliceTunerSampler(GroupSampler):
    """Selective acquisition per slice from learning curves (Slice Tuner, Tae & Whang 2021).

    After an initial uniform phase (``init_share`` of the rounds; the authors start from
    given initial slices), each *iteration* of Slice Tuner:

    1. estimates a learning curve ``loss_i(n) = b_i * n ** -a_i`` per slice (group): fresh
       models of the run's learner are trained on ``n_subsets`` random subsets of the
       training set of growing size, ``n_repeats`` times, and each slice's validation loss is
       fitted against its size in the subsets (§3; :mod:`._learning_curve`);
    2. splits the whole remaining budget by the convex program of §4, minimising
       ``sum_i loss_i + lam * sum_i max(0, loss_i / A - 1)`` (``A`` the average estimated
       loss now; :func:`allocate_slices`, cvxpy);
    3. unless ``strategy="one-shot"``, scales that split down so the slices' imbalance ratio
       ``max n / min n`` moves by at most the limit ``T`` (§5, the iterative algorithm), and
       raises the limit for the next iteration: doubled (``"aggressive"``), plus one
       (``"moderate"``) or kept (``"conservative"``).

    The rounds then draw the planned counts, each round the slice furthest below its target
    (``score_<g>`` records the deficits), and the next iteration starts when the plan is
    drawn, with curves fitted afresh on the grown training set (the authors' code for Adult).
    The plan, the limit and the last curves are kept in ``SamplerState.memory``, so a resumed
    run follows the same plan. Defaults follow the authors' Adult notebook (``lam=0.1``,
    ``k=10`` subsets from 100 rows, 5 repeats, Moderate, ``T=1``); choices the paper leaves
    open: ``docs/paper-notes/peers-groups.md``.

    Parameters
    ----------
    budget : int, default=1000
        Samples drawn in total (training plus paired validation draws).
    b0 : int, default=1
        Samples per draw.
    n0 : int or None, default=None
        Phase 1 rounds visiting the groups in turn; None means one per group.
    lam : float, default=0.1
        Weight of unfairness against loss (the paper's lambda).
    strategy : {"moderate", "aggressive", "conservative", "one-shot"}, default="moderate"
        How the limit ``T`` grows between iterations; ``"one-shot"`` plans once, unlimited.
    T : float, default=1.0
        The first limit on the change of the imbalance ratio per iteration.
    n_subsets : int, default=10
        Training-subset sizes per learning curve (the paper's ``k``).
    n_repeats : int, default=5
        Random subsets per size, averaged (the code's ``num_iter``).
    min_subset : int, default=100
        The smallest subset (``initial_k``); smaller training sets start lower.
    init_share : float, default=0.25
        Share of the rounds spent uniformly before the first curves (fairacq's choice).
    mode : {"exact", "incremental", "incremental-cnn", "refit"}, default="exact"
        Learner update per round; the curves train fresh learners of the same kind.
    learner : str, estimator or None, default=None
        A scikit-learn classifier refitted on every sample each round; implies ``"refit"``.
    loss : {"log", "zero_one"}, default="log"
        The validation loss of the curves (the authors': cross-entropy).
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Controls every draw. Pass an int for identical results across calls.

    Examples
    --------
    >>> from fairacq.data.synthetic import SyntheticModel1
    >>> from fairacq.sampling import GeneratorOracle
    >>> s = SliceTunerSampler(budget=40, n_repeats=2, random_state=0)
    >>> s.fit(GeneratorOracle(SyntheticModel1())).trace_.final("cost")
    40.0
    """

    needs_held_out_rows: ClassVar[bool] = True

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **GroupSampler._parameter_constraints,
        "lam": [Interval(float, 0, None, closed="left")],
        "strategy": [Options(sorted(_NEXT_LIMIT))],
        "T": [Interval(float, 0, None, closed="neither")],
        "n_subsets": [Interval(int, 2, None, closed="left")],
        "n_repeats": [Interval(int, 1, None, closed="left")],
        "min_subset": [Interval(int, 1, None, closed="left")],
        "init_share": [Interval(float, 0, 1, closed="left")],
    }

    def __init__(
        self,
        *,
        budget: int = 1000,
        b0: int = 1,
        n0: int | None = None,
        lam: float = 0.1,
        strategy: str = "moderate",
        T: float = 1.0,
        n_subsets: int = 10,
        n_repeats: int = 5,
        min_subset: int = 100,
        init_share: float = 0.25,
        mode: str = "exact",
        learner: LearnerLike | None = None,
        loss: str = "log",
        random_state: RandomState = None,
    ) -> None:
        self.budget = budget
        self.b0 = b0
        self.n0 = n0
        self.lam = lam
        self.strategy = strategy
        self.T = T
        self.n_subsets = n_subsets
        self.n_repeats = n_repeats
        self.min_subset = min_subset
        self.init_share = init_share
        self.mode = mode
        self.learner = learner
        self.loss = loss
        self.random_state = random_state

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return "slice-tuner"

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        memory = state.memory
        if "iteration" not in memory:
            total = state.t + int(state.rounds_left or 0)
            initial = int(self.init_share * total / state.n_groups)
            if (state.counts // state.b0).min() < initial:
                return int(np.argmin(state.counts)), "initial", None
        deficit = np.asarray(memory.get("target", state.counts), dtype=np.float64) - state.counts
        if deficit.max() <= 0:
            self._plan(state, rng)
            deficit = np.asarray(memory["target"], dtype=np.float64) - state.counts
        return int(np.argmax(deficit)), "plan", deficit

    def _plan(self, state: SamplerState, rng: np.random.Generator) -> None:
        """One iteration: fit the curves, solve the program, apply the limit; keep the plan."""
        a, b = self._curves(state, rng)
        n = state.counts.astype(np.float64)
        rounds_left = max(int(state.rounds_left or 0), 1)
        x = allocate_slices(a, b, n, rounds_left * state.b0, self.lam)
        limit = float(state.memory.get("T", self.T))
        rounds = self._rounds(n, x, limit, rounds_left, state.b0)
        state.memory.update(
            iteration=int(state.memory.get("iteration", 0)) + 1,
            T=float(_NEXT_LIMIT[self.strategy](limit)),
            target=[int(v) for v in state.counts + rounds * state.b0],
            a=[float(v) for v in a],
            b=[float(v) for v in b],
        )

    def _rounds(
        self, n: NDArray[np.float64], x: NDArray[np.float64], limit: float, rounds: int, b0: int
    ) -> NDArray[np.int64]:
        """Return the rounds each slice gets this iteration (whole rounds of ``b0`` draws)."""
        if self.strategy != "one-shot":
            limited, was_limited = limit_imbalance(n, x, limit)
            if was_limited:
                out = np.floor(limited / b0).astype(np.int64)
                if out.sum() == 0:  # the authors' loop could stall here: take one round
                    out[int(np.argmax(x))] = 1
                return out
        return round_allocation(x / b0, rounds)

    def _curves(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Fit each slice's learning curve on subsets of the training set (§3)."""
        if state.training is None or state.validation is None:
            raise InvalidDataError(
                "SliceTunerSampler needs the training and validation sets in the sampler "
                "state; run it through GroupSampler.fit."
            )
        training = state.training()
        mode = self._round_mode()
        sizes, losses = curve_points(
            training,
            state.validation,
            subset_sizes(len(training[1]), self.n_subsets, self.min_subset),
            make_learner=lambda seed: self._make_round_learner(mode, seed),
            loss=self.loss,
            n_repeats=self.n_repeats,
            rng=rng,
        )
        curves = [fit_slice_curve(sizes[g], losses[g]) for g in range(state.n_groups)]
        return np.array([c[0] for c in curves]), np.array([c[1] for c in curves])
