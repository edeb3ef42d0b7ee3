"""Aopt and Aopt+: optimistic adaptive sampling for minimax fairness (Shekhar et al., §3-§4)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._typing import LearnerLike
from fairacq._validation import Interval, Options
from fairacq.sampling.loop._base import GroupSampler, SamplerState
from fairacq.sampling.samplers._trend import mann_kendall_score
from fairacq.sampling.samplers._ucb import (
    practical_ucb,
    rademacher_deviation,
    theory_ucb,
    vc_deviation,
)

__all__ = ["AoptPlusSampler", "AoptSampler"]


class AoptSampler(GroupSampler):
    """Allocate a sampling budget across groups to minimise the worst group risk (Aopt).

    Implements Algorithms 1-2 of Shekhar et al. 2021 (Shekhar et al., §3) and the practical variant
    of §4. After Phase 1 (``n0`` rounds visiting the groups in turn), a group whose number of
    draws is below ``t ** xi`` is forced (Algorithm 1, line 5); otherwise the group with the
    largest upper confidence bound on its risk is drawn:

    - ``bound="vc"`` / ``"rademacher"``: the three-term UCB of eq. (4) with the deviation
      ``e_z(N)`` of Remark 1 (:func:`vc_deviation`, :func:`rademacher_deviation`) and the
      ``C``-dependent third term;
    - ``bound="practical"``: the two-term UCB of eq. (6), ``L_hat(z) + c0 / sqrt(N_z,t)``.

    ``mode="exact"`` re-fits logistic regression each round (§3, §5 synthetic and Adult);
    ``mode="incremental"`` makes one SGD epoch per round (§4); ``learner=`` (any scikit-learn
    classifier) refits a clone of it on every drawn sample each round. Defaults follow §5
    (``c0=0.1``); the paper is loose on ``xi``, ``C`` and the loss (see
    ``docs/paper-notes/aopt.md``).

    Parameters
    ----------
    budget : int, default=1000
        Samples drawn in total (training plus paired validation draws).
    b0 : int, default=1
        Samples per draw (§4 batches).
    n0 : int or None, default=None
        Phase 1 rounds; None means one per group (Algorithm 1).
    c0 : float, default=0.1
        Exploration weight of eq. (6) (``bound="practical"`` only).
    bound : {"practical", "vc", "rademacher"}, default="practical"
        Which UCB selects the group.
    C : float, default=1.0
        Constant of Assumption 3 in the third term of eq. (4) (``"vc"``/``"rademacher"``).
    delta : float, default=0.05
        Confidence parameter of the deviation bounds.
    vc_dim : float or None, default=None
        VC dimension for ``bound="vc"``; None means ``n_features + 1`` (linear classifiers).
    rademacher_scale : float, default=1.0
        ``B`` in ``R_N = B / sqrt(N)`` for ``bound="rademacher"``.
    xi : float, default=0.5
        Forced exploration: a group drawn in fewer than ``t ** xi`` rounds is drawn next;
        0 disables it.
    mode : {"exact", "incremental", "incremental-cnn", "refit"}, default="exact"
        Learner update per round.
    learner : str, estimator or None, default=None
        A scikit-learn classifier (or Pipeline, name, ``"module:Class"``) refitted, as a
        fresh clone, on every drawn sample each round; implies ``mode="refit"``.
    loss : {"zero_one", "log"}, default="zero_one"
        Loss inside the score.
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Controls every draw. Pass an int for identical results across calls.

    Attributes
    ----------
    allocation_ : dict of str to int
        Training samples drawn per group.
    n_rounds_ : int
        Rounds run.

    Examples
    --------
    >>> from fairacq.data.synthetic import SyntheticModel1
    >>> from fairacq.sampling import GeneratorOracle
    >>> sampler = AoptSampler(budget=40, random_state=0).fit(GeneratorOracle(SyntheticModel1()))
    >>> trace = sampler.trace_
    >>> len(trace), trace.final("cost")
    (20, 40.0)
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **GroupSampler._parameter_constraints,
        "c0": [Interval(float, 0, None, closed="left")],
        "bound": [Options(["practical", "rademacher", "vc"])],
        "C": [Interval(float, 0, None, closed="left")],
        "delta": [Interval(float, 0, 1, closed="neither")],
        "vc_dim": [Interval(float, 0, None, closed="neither"), None],
        "rademacher_scale": [Interval(float, 0, None, closed="left")],
        "xi": [Interval(float, 0, 1, closed="left")],
    }

    def __init__(
        self,
        *,
        budget: int = 1000,
        b0: int = 1,
        n0: int | None = None,
        c0: float = 0.1,
        bound: str = "practical",
        C: float = 1.0,
        delta: float = 0.05,
        vc_dim: float | None = None,
        rademacher_scale: float = 1.0,
        xi: float = 0.5,
        mode: str = "exact",
        learner: LearnerLike | None = None,
        loss: str = "zero_one",
        random_state: RandomState = None,
    ) -> None:
        self.budget = budget
        self.b0 = b0
        self.n0 = n0
        self.c0 = c0
        self.bound = bound
        self.C = C
        self.delta = delta
        self.vc_dim = vc_dim
        self.rademacher_scale = rademacher_scale
        self.xi = xi
        self.mode = mode
        self.learner = learner
        self.loss = loss
        self.random_state = random_state

    def _scores(self, state: SamplerState) -> NDArray[np.float64]:
        """Return the UCB of each group (eq. 4 or eq. 6)."""
        counts = np.maximum(state.counts, 1)
        if self.bound == "practical":
            return practical_ucb(state.val_loss, counts, c0=self.c0)
        if self.bound == "vc":
            d = float(self.vc_dim) if self.vc_dim is not None else state.n_features + 1.0
            dev = [
                vc_deviation(int(n), vc_dim=d, n_groups=state.n_groups, delta=self.delta)
                for n in counts
            ]
        else:
            dev = [
                rademacher_deviation(
                    int(n),
                    n_groups=state.n_groups,
                    delta=self.delta,
                    rademacher_scale=self.rademacher_scale,
                )
                for n in counts
            ]
        return theory_ucb(state.val_loss, dev, state.pi, C=self.C)

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        scores = self._scores(state)
        rounds = state.counts / state.b0
        # Algorithm 1, line 5: force a group drawn in fewer than t^xi rounds (t counted from 1).
        if self.xi > 0 and rounds.min() < (state.t + 1) ** self.xi:
            return int(np.argmin(rounds)), "forced", scores
        return int(np.argmax(scores)), "ucb", scores


class AoptPlusSampler(AoptSampler):
    """Aopt+ : Aopt with the Mann-Kendall trend term in the UCB (Shekhar et al., §4, eq. 6).

    The score of group ``z`` gains ``c1 * S_z / sqrt(var S_z)``, where ``S_z`` is the
    Mann-Kendall statistic of the last ``mk_window`` validation accuracies of ``z``
    (:func:`mann_kendall_score`), so groups whose accuracy still rises are favoured and a group
    that no longer improves loses priority. The trend term is added to whichever ``bound`` is
    chosen (the paper uses ``"practical"``).

    Parameters
    ----------
    c1 : float, default=0.1
        Weight of the trend term (``c1=0`` gives :class:`AoptSampler`).
    mk_window : int, default=10
        Rounds of accuracy history entering the Mann-Kendall statistic.
    budget, b0, n0, c0, bound, C, delta, vc_dim, rademacher_scale, xi, mode, learner, loss
        As in :class:`AoptSampler`.
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        As in :class:`AoptSampler`.

    Examples
    --------
    >>> from fairacq.data.synthetic import SyntheticModel2
    >>> from fairacq.sampling import GeneratorOracle
    >>> s = AoptPlusSampler(budget=60, c1=0.5, random_state=0)
    >>> s.fit(GeneratorOracle(SyntheticModel2())).trace_.final("cost")
    60.0
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **AoptSampler._parameter_constraints,
        "c1": [Interval(float, 0, None, closed="left")],
        "mk_window": [Interval(int, 3, None, closed="left")],
    }

    def __init__(
        self,
        *,
        budget: int = 1000,
        b0: int = 1,
        n0: int | None = None,
        c0: float = 0.1,
        c1: float = 0.1,
        mk_window: int = 10,
        bound: str = "practical",
        C: float = 1.0,
        delta: float = 0.05,
        vc_dim: float | None = None,
        rademacher_scale: float = 1.0,
        xi: float = 0.5,
        mode: str = "exact",
        learner: LearnerLike | None = None,
        loss: str = "zero_one",
        random_state: RandomState = None,
    ) -> None:
        super().__init__(
            budget=budget,
            b0=b0,
            n0=n0,
            c0=c0,
            bound=bound,
            C=C,
            delta=delta,
            vc_dim=vc_dim,
            rademacher_scale=rademacher_scale,
            xi=xi,
            mode=mode,
            learner=learner,
            loss=loss,
            random_state=random_state,
        )
        self.c1 = c1
        self.mk_window = mk_window

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return "aopt+"

    def _scores(self, state: SamplerState) -> NDArray[np.float64]:
        base = super()._scores(state)
        if self.c1 == 0:
            return base
        trend = np.array(
            [mann_kendall_score(h, window=self.mk_window) for h in state.val_acc_history]
        )
        return base + self.c1 * trend
