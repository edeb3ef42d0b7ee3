"""Bandit policies that choose DataSift's next partition (Hasan & Pradhan, §3.1-§3.2, Algorithm 1).

Every policy has the same small interface, so DataSift's acquirer can swap them:
``reset(n_arms)``, ``select(available_mask) -> arm``, ``update(rewards, chosen)`` with *full
feedback* (every arm receives its shared reward of eq. 1 each round), ``scores()``, and
``state_dict()`` / ``load_state_dict()`` in plain JSON types so a run can checkpoint and
resume with identical later choices.

- :class:`UCBPolicy`: the paper's policy, eq. (2) with the aggregated score ``R``.
- :class:`ThompsonPolicy` and :class:`EpsilonGreedyPolicy`: alternatives the paper names
  (§3.1, and Thompson sampling as future work in §6).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState, as_generator
from fairacq._validation import (
    Interval,
    check_known_params,
    did_you_mean,
    validate_parameter_constraints,
)
from fairacq.exceptions import (
    BudgetError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
)

__all__ = [
    "BanditPolicy",
    "EpsilonGreedyPolicy",
    "ThompsonPolicy",
    "UCBPolicy",
    "available_policies",
    "make_policy",
    "policy_from_state_dict",
]


class BanditPolicy(ABC):
    """Base class of the partition-selection policies of DataSift's bandit.

    A policy keeps, per arm (partition), the sum of the shared rewards it received and the
    number of rounds; subclasses add what they need. Hyper-parameters are stored unchanged in
    ``__init__`` and validated by :meth:`reset`, which starts the work.

    Notes
    -----
    Ties between equal scores go to the lowest arm index, so a deterministic policy gives the
    same choices on every run.
    """

    #: Registry name (:func:`make_policy`).
    name: ClassVar[str] = ""
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {}

    def __init__(self) -> None:
        self._n_arms: int | None = None
        self._reward_sums = np.zeros(0, dtype=np.float64)
        self._n_rounds = 0
        self._rng: np.random.Generator | None = None

    # -- parameters ---------------------------------------------------------------------
    def get_params(self) -> dict[str, Any]:
        """Return the hyper-parameters as passed to ``__init__``."""
        return {k: getattr(self, k) for k in self._parameter_constraints}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    @property
    def n_arms(self) -> int:
        """Number of arms set by :meth:`reset`."""
        return self._check_reset()

    @property
    def n_rounds(self) -> int:
        """Number of :meth:`update` calls since :meth:`reset`."""
        return self._n_rounds

    # -- the interface ------------------------------------------------------------------
    def reset(self, n_arms: int) -> None:
        """Validate the hyper-parameters and start a fresh run with ``n_arms`` arms.

        Parameters
        ----------
        n_arms : int
            Number of partitions (>= 1).

        Raises
        ------
        InvalidParameterError
            For a hyper-parameter out of range or ``n_arms < 1``.
        """
        caller = type(self).__name__
        validate_parameter_constraints(self._parameter_constraints, self.get_params(), caller)
        validate_parameter_constraints(
            {"n_arms": [Interval(int, 1, None, closed="left")]},
            {"n_arms": n_arms},
            f"{caller}.reset",
        )
        self._n_arms = int(n_arms)
        self._reward_sums = np.zeros(self._n_arms, dtype=np.float64)
        self._n_rounds = 0
        self._reset_extra()
        if "random_state" in self._parameter_constraints:
            self._rng = as_generator(getattr(self, "random_state", None))

    def select(self, available_mask: ArrayLike) -> int:
        """Return the arm to play next, among the available ones.

        Parameters
        ----------
        available_mask : array-like of bool, shape (n_arms,)
            ``True`` for partitions that still have rows to offer.

        Returns
        -------
        int
            Index of the chosen arm.

        Raises
        ------
        NotFittedError
            Before :meth:`reset`.
        BudgetError
            If no arm is available.
        InvalidDataError
            If the mask has the wrong length.
        """
        mask = self._check_mask(available_mask)
        return int(self._select(mask))

    def update(self, rewards: ArrayLike, chosen: int) -> None:
        """Record one round: every arm's shared reward, and which arm was played.

        Parameters
        ----------
        rewards : array-like of float, shape (n_arms,)
            Shared rewards of the round (:func:`share_reward`), positive for a fairness
            improvement.
        chosen : int
            The arm whose batch was evaluated.

        Raises
        ------
        NotFittedError
            Before :meth:`reset`.
        InvalidDataError
            For rewards of the wrong length or non-finite rewards.
        InvalidParameterError
            For ``chosen`` outside ``0 .. n_arms-1``.
        """
        g = self._check_reset()
        r = np.asarray(rewards, dtype=np.float64)
        if r.shape != (g,) or not np.isfinite(r).all():
            raise InvalidDataError(
                f"{type(self).__name__}.update: rewards must hold {g} finite values (one per "
                f"arm). Got shape {r.shape}. Pass share_reward(...) for every partition."
            )
        if isinstance(chosen, bool) or not isinstance(chosen, (int, np.integer)):
            raise InvalidParameterError(
                f"{type(self).__name__}.update: chosen must be an int arm index. Got {chosen!r}."
            )
        if not 0 <= int(chosen) < g:
            raise InvalidParameterError(
                f"{type(self).__name__}.update: chosen={chosen} is not an arm (0 .. {g - 1})."
            )
        self._reward_sums += r
        self._n_rounds += 1
        self._update_extra(r, int(chosen))

    @abstractmethod
    def scores(self) -> NDArray[np.float64]:
        """Return the current score of every arm (what :meth:`select` maximises)."""

    def mean_rewards(self) -> NDArray[np.float64]:
        """Return each arm's mean shared reward over the rounds so far (0 before any)."""
        self._check_reset()
        return self._reward_sums / max(self._n_rounds, 1)

    # -- checkpoints --------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Return the full state in plain JSON types (dict, list, str, int, float, bool).

        Contains the policy name, its JSON-able hyper-parameters, the per-arm statistics and,
        for random policies, the random generator's state, so that
        :meth:`load_state_dict` resumes with the same later choices.

        Raises
        ------
        NotFittedError
            Before :meth:`reset`.
        """
        g = self._check_reset()
        state: dict[str, Any] = {
            "policy": self.name,
            "params": {k: v for k, v in self.get_params().items() if k != "random_state"},
            "n_arms": g,
            "n_rounds": self._n_rounds,
            "reward_sums": self._reward_sums.tolist(),
        }
        state.update(self._extra_state())
        if self._rng is not None:
            state["rng"] = _to_json(self._rng.bit_generator.state)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a state saved by :meth:`state_dict` of the same policy.

        Parameters
        ----------
        state : dict
            As returned by :meth:`state_dict` (possibly after a JSON round trip).

        Raises
        ------
        InvalidParameterError
            If the state belongs to another policy or other hyper-parameters.
        InvalidDataError
            If the state is malformed.
        """
        caller = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state, dict) or state.get("policy") != self.name:
            found = state.get("policy") if isinstance(state, dict) else type(state).__name__
            raise InvalidParameterError(
                f"{caller}: the state was saved by policy {found!r}, not {self.name!r}. Use "
                "policy_from_state_dict(state) to rebuild the right policy."
            )
        params = {k: v for k, v in self.get_params().items() if k != "random_state"}
        if state.get("params") != params:
            raise InvalidParameterError(
                f"{caller}: the state was saved with {state.get('params')}, this policy has "
                f"{params}. Use policy_from_state_dict(state) to rebuild it."
            )
        try:
            g = int(state["n_arms"])
            sums = np.asarray(state["reward_sums"], dtype=np.float64)
            n_rounds = int(state["n_rounds"])
            if sums.shape != (g,):
                raise ValueError(f"reward_sums has shape {sums.shape}, expected ({g},)")
            self.reset(g)
            self._reward_sums = sums
            self._n_rounds = n_rounds
            self._load_extra(state, g)
            if self._rng is not None:
                self._rng = _generator_from_state(state["rng"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidDataError(
                f"{caller}: malformed state ({exc}). Pass a dict returned by state_dict()."
            ) from exc

    # -- hooks for subclasses -----------------------------------------------------------
    @abstractmethod
    def _select(self, mask: NDArray[np.bool_]) -> int:
        """Return an available arm; ``mask`` has at least one ``True``."""

    def _reset_extra(self) -> None:  # noqa: B027 - optional hook
        """Reset subclass statistics (``n_arms`` is set)."""

    def _update_extra(self, rewards: NDArray[np.float64], chosen: int) -> None:  # noqa: B027
        """Update subclass statistics after the shared ones."""

    def _extra_state(self) -> dict[str, Any]:
        return {}

    def _load_extra(self, state: dict[str, Any], n_arms: int) -> None:  # noqa: B027
        """Restore subclass statistics."""

    # -- helpers ------------------------------------------------------------------------
    def _check_reset(self) -> int:
        if self._n_arms is None:
            raise NotFittedError(
                f"{type(self).__name__} has no arms yet. Call reset(n_arms) before use."
            )
        return self._n_arms

    def _check_mask(self, available_mask: ArrayLike) -> NDArray[np.bool_]:
        g = self._check_reset()
        mask = np.asarray(available_mask, dtype=bool)
        if mask.shape != (g,):
            raise InvalidDataError(
                f"{type(self).__name__}.select: available_mask must have one bool per arm "
                f"({g}). Got shape {mask.shape}."
            )
        if not mask.any():
            raise BudgetError(
                f"{type(self).__name__}.select: no partition is available (every arm is "
                "exhausted or dropped). Stop the run, or lower the batch size."
            )
        return mask

    def _generator(self) -> np.random.Generator:
        assert self._rng is not None  # set by reset() for random policies
        return self._rng


def _argmax_available(values: NDArray[np.float64], mask: NDArray[np.bool_]) -> int:
    """Largest value among available arms; ties go to the lowest index."""
    masked = np.where(mask, values, -np.inf)
    return int(np.flatnonzero(masked == masked.max())[0])


# ---------------------------------------------------------------------------------------------
# UCB (the paper)
# ---------------------------------------------------------------------------------------------
class UCBPolicy(BanditPolicy):
    """Upper-confidence-bound policy of DataSift (Hasan & Pradhan, §3.2, eq. 2, Algorithm 1).

    Scores each partition ``i`` after ``k`` rounds by::

        R_i = (1 / n_i) * sum_j r_i^j                    (aggregated score)
        U_i = R_i + alpha * sqrt(2 ln(n / (n_i + 1)))    (eq. 2),  n = sum_i n_i

    and plays ``argmax_i U_i`` among the available partitions (lowest index on ties).

    The paper's ``n_i`` is "the number of times C_i is selected and rewarded a positive
    score". fairacq counts exactly that: ``n_i`` grows by one in a round where arm ``i`` was
    the chosen arm *and* its own reward was positive (the batch improved fairness). The sum
    ``sum_j r_i^j`` runs over every round, because every arm receives a shared reward each
    round (full feedback). Two guards keep eq. (2) defined:

    - ``n_i = 0``: ``R_i`` divides by ``max(n_i, 1)``, so an arm never rewarded as the chosen
      arm still ranks by the rewards and penalties shared to it. (Setting ``R_i = 0`` would
      throw full feedback away: after a penalty every arm would stay at 0 and the first arm
      would be chosen again and again.)
    - ``n / (n_i + 1) <= 1`` (log <= 0) or ``n = 0``: the exploration bonus is 0. The bonus is
      the square root of a log and is never negative.

    Initialisation follows Algorithm 1 (line 3: ``R = n = U = 0``), so the first round plays
    the lowest-index available arm; with partitions numbered by decreasing size this is the
    largest partition.

    Parameters
    ----------
    alpha : float, default=0.1
        Exploration weight of eq. (2); the paper's value (§4.1.3). ``0`` is pure exploitation.

    Examples
    --------
    >>> policy = UCBPolicy(alpha=0.1)
    >>> policy.reset(3)
    >>> policy.select([True, True, True])
    0
    >>> policy.update([0.02, 0.01, 0.005], chosen=0)
    >>> policy.scores().round(4).tolist()
    [0.02, 0.01, 0.005]
    """

    name: ClassVar[str] = "ucb"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "alpha": [Interval(float, 0, None, closed="left")],
    }

    def __init__(self, *, alpha: float = 0.1) -> None:
        super().__init__()
        self.alpha = alpha

    def _reset_extra(self) -> None:
        self._counts = np.zeros(self.n_arms, dtype=np.int64)

    def _update_extra(self, rewards: NDArray[np.float64], chosen: int) -> None:
        if rewards[chosen] > 0:
            self._counts[chosen] += 1

    @property
    def counts(self) -> NDArray[np.int64]:
        """``n_i``: rounds in which arm ``i`` was chosen and rewarded positively."""
        self._check_reset()
        return self._counts.copy()

    def aggregated_scores(self) -> NDArray[np.float64]:
        """Return the aggregated scores ``R_i = sum_j r_i^j / max(n_i, 1)``."""
        self._check_reset()
        return self._reward_sums / np.maximum(self._counts, 1)

    def exploration_bonus(self) -> NDArray[np.float64]:
        """Return ``alpha * sqrt(2 ln(n / (n_i + 1)))``, clamped at 0 (0 while ``n = 0``)."""
        self._check_reset()
        n = int(self._counts.sum())
        if n == 0:
            return np.zeros(self.n_arms, dtype=np.float64)
        log_term = np.log(n / (self._counts + 1.0))
        bonus: NDArray[np.float64] = float(self.alpha) * np.sqrt(2.0 * np.maximum(log_term, 0.0))
        return bonus

    def scores(self) -> NDArray[np.float64]:
        """Return the UCB scores ``U_i`` of eq. (2)."""
        return self.aggregated_scores() + self.exploration_bonus()

    def mean_rewards(self) -> NDArray[np.float64]:
        """Return the aggregated scores ``R_i`` (the paper's mean reward)."""
        return self.aggregated_scores()

    def _select(self, mask: NDArray[np.bool_]) -> int:
        return _argmax_available(self.scores(), mask)

    def _extra_state(self) -> dict[str, Any]:
        return {"counts": self._counts.tolist()}

    def _load_extra(self, state: dict[str, Any], n_arms: int) -> None:
        counts = np.asarray(state["counts"], dtype=np.int64)
        if counts.shape != (n_arms,) or (counts < 0).any():
            raise ValueError(f"counts must be {n_arms} non-negative ints")
        self._counts = counts


# ---------------------------------------------------------------------------------------------
# Thompson sampling
# ---------------------------------------------------------------------------------------------
class ThompsonPolicy(BanditPolicy):
    """Gaussian Thompson sampling on the shared rewards (Hasan & Pradhan, §3.1 and §6).

    Agrawal & Goyal's Gaussian Thompson sampling (2013) with a scale: each arm's mean reward
    has a posterior ``N(S_i / (m_i + 1), tau^2 / (m_i + 1))``, where ``S_i`` is the sum and
    ``m_i`` the number of shared rewards the arm received (every round, with full feedback).
    This is the conjugate posterior for a prior ``N(0, tau^2)`` and Gaussian rewards of
    variance ``tau^2``. Each round draws one value per arm and plays the largest available.

    ``tau`` is ``prior_scale`` when given. With ``prior_scale=None`` it is the root mean
    square of all rewards received so far (1 before any), which makes the policy invariant
    to the units of the reward (fairness change, or fairness change per unit cost).

    Parameters
    ----------
    prior_scale : float or None, default=None
        ``tau``, the prior and noise scale, in reward units; ``None`` adapts it (above).
    random_state : int, numpy.random.Generator or None, default=None
        Controls the posterior draws.

    Examples
    --------
    >>> policy = ThompsonPolicy(random_state=0)
    >>> policy.reset(2)
    >>> policy.update([0.05, -0.05], chosen=0)
    >>> policy.scores().tolist()  # posterior means
    [0.025, -0.025]
    >>> policy.select([False, True])
    1
    """

    name: ClassVar[str] = "thompson"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "prior_scale": [Interval(float, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self, *, prior_scale: float | None = None, random_state: RandomState = None
    ) -> None:
        super().__init__()
        self.prior_scale = prior_scale
        self.random_state = random_state

    def _reset_extra(self) -> None:
        self._sq_sum = 0.0

    def _update_extra(self, rewards: NDArray[np.float64], chosen: int) -> None:
        self._sq_sum += float(np.sum(rewards**2))

    def _scale(self) -> float:
        if self.prior_scale is not None:
            return float(self.prior_scale)
        n_values = self._n_rounds * self.n_arms
        rms = math.sqrt(self._sq_sum / n_values) if n_values else 0.0
        return rms if rms > 0 else 1.0

    def scores(self) -> NDArray[np.float64]:
        """Return the posterior means ``S_i / (m_i + 1)``."""
        self._check_reset()
        return self._reward_sums / (self._n_rounds + 1.0)

    def _select(self, mask: NDArray[np.bool_]) -> int:
        std = self._scale() / math.sqrt(self._n_rounds + 1.0)
        draws = self.scores() + std * self._generator().standard_normal(self.n_arms)
        return _argmax_available(draws, mask)

    def _extra_state(self) -> dict[str, Any]:
        return {"sq_sum": self._sq_sum}

    def _load_extra(self, state: dict[str, Any], n_arms: int) -> None:
        self._sq_sum = float(state["sq_sum"])


# ---------------------------------------------------------------------------------------------
# epsilon-greedy
# ---------------------------------------------------------------------------------------------
class EpsilonGreedyPolicy(BanditPolicy):
    """Epsilon-greedy on the mean shared reward (Hasan & Pradhan, §3.1).

    With probability ``epsilon`` plays a uniformly random available arm; otherwise the arm
    with the largest mean shared reward (lowest index on ties, so the first round plays the
    lowest-index available arm unless it explores).

    Parameters
    ----------
    epsilon : float, default=0.1
        Exploration probability in [0, 1].
    random_state : int, numpy.random.Generator or None, default=None
        Controls the exploration draws.

    Examples
    --------
    >>> policy = EpsilonGreedyPolicy(epsilon=0.0)
    >>> policy.reset(3)
    >>> policy.update([0.0, 0.03, 0.01], chosen=0)
    >>> policy.select([True, True, True])
    1
    """

    name: ClassVar[str] = "epsilon_greedy"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "epsilon": [Interval(float, 0, 1, closed="both")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, epsilon: float = 0.1, random_state: RandomState = None) -> None:
        super().__init__()
        self.epsilon = epsilon
        self.random_state = random_state

    def scores(self) -> NDArray[np.float64]:
        """Return the mean shared reward of every arm."""
        return self.mean_rewards()

    def _select(self, mask: NDArray[np.bool_]) -> int:
        rng = self._generator()
        if rng.random() < float(self.epsilon):
            return int(rng.choice(np.flatnonzero(mask)))
        return _argmax_available(self.scores(), mask)


# ---------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------
_POLICIES: dict[str, type[BanditPolicy]] = {
    cls.name: cls for cls in (EpsilonGreedyPolicy, ThompsonPolicy, UCBPolicy)
}


def available_policies() -> list[str]:
    """Return the names accepted by :func:`make_policy`.

    Examples
    --------
    >>> available_policies()
    ['epsilon_greedy', 'thompson', 'ucb']
    """
    return sorted(_POLICIES)


def make_policy(name: str, **params: Any) -> BanditPolicy:
    """Build a bandit policy by name.

    Parameters
    ----------
    name : {"ucb", "thompson", "epsilon_greedy"}
        ``"ucb"`` is the paper's (eq. 2); ``-`` may replace ``_``.
    **params
        Hyper-parameters of the policy (e.g. ``alpha=0.1`` for UCB).

    Returns
    -------
    BanditPolicy
        A new policy; call :meth:`BanditPolicy.reset` before use.

    Raises
    ------
    UnknownNameError
        For an unknown name, suggesting the closest one.
    InvalidParameterError
        For a hyper-parameter the policy does not take.

    Examples
    --------
    >>> make_policy("ucb", alpha=0.5)
    UCBPolicy(alpha=0.5)
    """
    key = str(name).strip().lower().replace("-", "_")
    if key not in _POLICIES:
        raise did_you_mean(
            "bandit policy", str(name), _POLICIES, "fairacq.acquisition.available_policies()"
        )
    cls = _POLICIES[key]
    check_known_params(f"make_policy: policy {key!r}", params, cls._parameter_constraints)
    return cls(**params)


def policy_from_state_dict(
    state: dict[str, Any], *, random_state: RandomState = None
) -> BanditPolicy:
    """Rebuild a policy from :meth:`BanditPolicy.state_dict` and restore its state.

    Parameters
    ----------
    state : dict
        A saved state (possibly after a JSON round trip).
    random_state : optional
        Passed to random policies; their generator is then replaced by the saved one.

    Returns
    -------
    BanditPolicy

    Raises
    ------
    InvalidDataError
        If the state is malformed.
    UnknownNameError
        If it names an unknown policy.

    Examples
    --------
    >>> p = UCBPolicy()
    >>> p.reset(2)
    >>> p.update([0.1, 0.0], chosen=0)
    >>> policy_from_state_dict(p.state_dict()).scores().tolist()
    [0.1, 0.0]
    """
    if not isinstance(state, dict) or "policy" not in state or "params" not in state:
        raise InvalidDataError(
            "policy_from_state_dict: state must be a dict returned by state_dict(), with "
            "'policy' and 'params'."
        )
    params = dict(state["params"])
    name = str(state["policy"])
    if name in _POLICIES and "random_state" in _POLICIES[name]._parameter_constraints:
        params["random_state"] = random_state
    policy = make_policy(name, **params)
    policy.load_state_dict(state)
    return policy


# ---------------------------------------------------------------------------------------------
# JSON helpers for generator states
# ---------------------------------------------------------------------------------------------
def _to_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _to_json(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    return value


def _generator_from_state(state: dict[str, Any]) -> np.random.Generator:
    name = state["bit_generator"]
    bitgen_cls = getattr(np.random, str(name), None)
    if bitgen_cls is None or not isinstance(bitgen_cls, type):
        raise ValueError(f"unknown bit generator {name!r}")
    bitgen = bitgen_cls()
    restored = dict(state)
    inner = restored.get("state")
    if isinstance(inner, dict) and isinstance(inner.get("key"), list):  # MT19937
        restored["state"] = {**inner, "key": np.asarray(inner["key"], dtype=np.uint32)}
    bitgen.state = restored
    return np.random.Generator(bitgen)
