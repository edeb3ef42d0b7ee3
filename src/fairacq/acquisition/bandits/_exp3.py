"""EXP3 over Falcon's selection policies (Tae et al., PVLDB 2024: the policy-selection bandit).

Falcon treats each (target group, policy) pair as an arm of an adversarial bandit and picks one
per round with EXP3 (Auer et al. 2002). Its public code adds three details that the bandit here
follows (``docs/paper-notes/peers-rows.md``):

- a warm-up: the first ``warmup`` labelled rows of a bandit are drawn uniformly
  (``gamma = 1``) and change no weight;
- the reward scale: after the warm-up, the largest fairness gain seen so far becomes the unit
  of reward, and ``gamma = min(1, sqrt(K ln K * scale / (e - 1)))`` (EXP3's tuning with the gain
  bound ``g = 1 / scale``); a negative gain is a reward of 0;
- neighbour sharing: the importance-weighted reward ``x = reward / p[arm]`` is credited to the
  arm and, halved, to the arms of the same target group whose policy is next to it
  (``r`` one step up or down), since close policies pick close rows.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["Exp3"]


class Exp3:
    """EXP3 with Falcon's warm-up, reward scale and neighbour sharing.

    Arms come in blocks of ``n_policies``: arm ``a`` is policy ``a % n_policies`` of target
    group ``a // n_policies``.

    Parameters
    ----------
    n_arms : int
        Number of arms (target groups times policies).
    n_policies : int
        Arms per target group; neighbours share rewards only within a block.
    warmup : int, default=100
        Labelled rows drawn uniformly before the weights move (Falcon's code: 100).

    Attributes
    ----------
    weights : ndarray of shape (n_arms,)
        EXP3 weights, rescaled so the largest is 1 (probabilities are unchanged).
    gamma : float
        Exploration share; 1 until the warm-up ends.
    rows_seen : int
        Labelled rows of the rounds this bandit chose.
    max_gain : float
        Largest fairness gain seen (0 if none was positive).
    scale : float or None
        The reward unit fixed after the warm-up (None: not yet; rewards then count as is).

    Examples
    --------
    >>> bandit = Exp3(4, n_policies=2, warmup=0)
    >>> bandit.probabilities().tolist()
    [0.25, 0.25, 0.25, 0.25]
    """

    def __init__(self, n_arms: int, *, n_policies: int, warmup: int = 100) -> None:
        self.n_arms = int(n_arms)
        self.n_policies = int(n_policies)
        self.warmup = int(warmup)
        self.weights = np.ones(self.n_arms)
        self.gamma = 1.0
        self.rows_seen = 0
        self.max_gain = 0.0
        self.scale: float | None = None

    def probabilities(self, open_arms: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
        """Return ``(1 - gamma) w / sum(w) + gamma / K``, renormalised over ``open_arms``."""
        p = (1.0 - self.gamma) * self.weights / self.weights.sum() + self.gamma / self.n_arms
        if open_arms is None or bool(np.all(open_arms)):
            return np.asarray(p, dtype=np.float64)
        p = np.where(open_arms, p, 0.0)
        return np.asarray(p / p.sum(), dtype=np.float64)

    def draw(
        self, rng: np.random.Generator, open_arms: NDArray[np.bool_] | None = None
    ) -> tuple[int, float]:
        """Draw an arm; return it and the probability it had (for the update)."""
        p = self.probabilities(open_arms)
        arm = int(rng.choice(self.n_arms, p=p))
        return arm, float(p[arm])

    def update(self, arm: int, gain: float, prob: float, rows: int) -> None:
        """Learn from one round of ``arm``.

        ``prob`` is the probability the arm was drawn with, ``rows`` the rows labelled in
        the round and ``gain`` the change of validation fairness (> 0: fairer).
        """
        self.rows_seen += int(rows)
        self.max_gain = max(self.max_gain, float(gain))
        if self.scale is None and self.rows_seen >= self.warmup and self.max_gain > 0:
            self.scale = self.max_gain
            k = self.n_arms
            self.gamma = min(1.0, math.sqrt(k * math.log(k) * self.scale / (math.e - 1)))
        if self.rows_seen < self.warmup:
            return
        reward = max(float(gain), 0.0) / (self.scale or 1.0)
        estimate = reward / prob
        block = arm // self.n_policies
        for other in (arm - 1, arm, arm + 1):
            if 0 <= other < self.n_arms and other // self.n_policies == block:
                credit = estimate * (1.0 - 0.5 * abs(other - arm))
                self.weights[other] *= math.exp(self.gamma * credit / self.n_arms)
        self.weights /= self.weights.max()

    def state_dict(self) -> dict[str, Any]:
        """JSON-ready state (:meth:`from_state_dict` rebuilds the bandit)."""
        return {
            "n_arms": self.n_arms,
            "n_policies": self.n_policies,
            "warmup": self.warmup,
            "weights": self.weights.tolist(),
            "gamma": self.gamma,
            "rows_seen": self.rows_seen,
            "max_gain": self.max_gain,
            "scale": self.scale,
        }

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> Exp3:
        """Rebuild a bandit from :meth:`state_dict`."""
        bandit = cls(
            int(state["n_arms"]), n_policies=int(state["n_policies"]), warmup=int(state["warmup"])
        )
        bandit.weights = np.asarray(state["weights"], dtype=np.float64)
        bandit.gamma = float(state["gamma"])
        bandit.rows_seen = int(state["rows_seen"])
        bandit.max_gain = float(state["max_gain"])
        bandit.scale = None if state["scale"] is None else float(state["scale"])
        return bandit
