"""DADI's Markov decision process as a :class:`gymnasium.Env` (Bakker et al., §3 "MDP").

One episode is one individual: the state is the set of feature values acquired so far,
the actions are the feature groups not yet acquired plus STOP, and the only reward comes at
the end, by eq. (2), from a label classifier and an adversary given to the environment. The
env lets any gymnasium agent (for example a maskable PPO) learn DADI's task; fairacq's own
trainer steps a batch of such episodes as tensors instead (``_qlearning``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, SupportsInt

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import check_binary_labels, check_consistent_length, check_no_nan
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.features.dadi._actions import ActionSpace
from fairacq.features.dadi._rewards import REWARDS, group_weights, terminal_reward

__all__ = ["DADIEnv", "SetPredictor"]

SetPredictor = Callable[[NDArray[np.float64], NDArray[np.bool_]], ArrayLike]
"""``(values (n, d), column_mask (n, d)) -> probabilities``: P(y=1) (n,) for the classifier,
P(b=1) (n,) or group probabilities (n, G) for the adversary."""

#: One part of an observation: the observed values (float32) or the acquired mask (int8).
_Array = NDArray[np.float32] | NDArray[np.int8]


class DADIEnv(gymnasium.Env):
    """Acquire one individual's feature groups, then STOP and be rewarded by eq. (2).

    Observation: a dict with ``"values"`` (the feature values, 0 where not acquired, float32)
    and ``"acquired"`` (a 0/1 vector over the feature-group actions). Actions:
    ``Discrete(n_actions + 1)``, the last being STOP. :meth:`action_masks` and
    ``info["action_mask"]`` give the valid actions (the unacquired groups and STOP).

    Choosing an already acquired group is a deterministic no-op: the state does not change,
    the reward is 0 and ``info["repeated"]`` is true. An episode ends (``terminated``) with
    STOP, or is ``truncated`` after ``n_actions + 1`` steps without STOP (only possible with
    repeated actions, since a valid episode takes at most ``n_actions + 1`` steps). Both
    endings pay the terminal reward of eq. (2) on the features acquired so far.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Feature values (finite), one row per individual.
    y : array-like of shape (n,)
        Binary labels.
    s : array-like of shape (n,)
        Sensitive group codes ``0..G-1``.
    classifier : callable
        ``(values, column_mask) -> P(y=1)`` of shape (batch,).
    adversary : callable
        ``(values, column_mask) -> P(b=1)`` of shape (batch,) or group probabilities
        (batch, G).
    actions : ActionSpace or None, default=None
        The feature groups; by default one action per column.
    gamma : float, default=0.5
        Trade-off of eq. (2) in [0, 1].
    reward : {"gnl1", "ce"}, default="gnl1"
        Adversary loss: group-normalised L1 (eq. 6) or cross-entropy (eq. 5).
    weights : array-like of shape (G,) or None, default=None
        Group weights of eq. (6); by default from ``s``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> env = DADIEnv(X, [0, 1], [0, 1], classifier=lambda v, m: np.full(len(v), 0.5),
    ...               adversary=lambda v, m: np.full(len(v), 0.5))
    >>> obs, info = env.reset(seed=0)
    >>> obs, r, terminated, truncated, info = env.step(2)  # STOP at once
    >>> terminated, round(r, 4)
    (True, -0.0966)
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  # gymnasium's convention

    def __init__(
        self,
        X: ArrayLike,
        y: ArrayLike,
        s: ArrayLike,
        *,
        classifier: SetPredictor,
        adversary: SetPredictor,
        actions: ActionSpace | None = None,
        gamma: float = 0.5,
        reward: Literal["gnl1", "ce"] = "gnl1",
        weights: ArrayLike | None = None,
    ) -> None:
        where = "DADIEnv"
        X_arr = np.asarray(X, dtype=np.float64)
        if X_arr.ndim != 2 or X_arr.shape[0] == 0:
            raise InvalidDataError(
                f"{where}: X must be a non-empty 2-d array, got shape {X_arr.shape}."
            )
        check_consistent_length(where, X=X_arr, y=np.asarray(y), s=np.asarray(s))
        check_no_nan(where, "X", X_arr)
        if not np.isfinite(X_arr).all():
            raise InvalidDataError(f"{where}: X holds infinite values. Clip or drop them.")
        if not 0.0 <= float(gamma) <= 1.0:
            raise InvalidParameterError(
                f"The 'gamma' parameter of {where} must be a float in [0, 1]. Got {gamma!r}."
            )
        if reward not in REWARDS:
            raise InvalidParameterError(
                f"The 'reward' parameter of {where} must be one of {REWARDS}. Got {reward!r}."
            )
        self.X = X_arr
        self.y = check_binary_labels(where, y)
        self.s = np.asarray(s, dtype=np.int64)
        self.actions = actions or ActionSpace.from_groups([f"x{j}" for j in range(X_arr.shape[1])])
        if self.actions.n_columns != X_arr.shape[1]:
            raise InvalidDataError(
                f"{where}: the action space has {self.actions.n_columns} columns but X has "
                f"{X_arr.shape[1]}. Build the actions from the same table."
            )
        self.classifier = classifier
        self.adversary = adversary
        self.gamma = float(gamma)
        self.reward = reward
        self.weights = (
            group_weights(self.s) if weights is None else np.asarray(weights, dtype=np.float64)
        )
        low = np.minimum(X_arr.min(axis=0), 0.0).astype(np.float32)
        high = np.maximum(X_arr.max(axis=0), 0.0).astype(np.float32)
        high = np.where(high > low, high, low + 1).astype(np.float32)  # a constant column
        n_actions = self.actions.n_actions
        self.observation_space = spaces.Dict(
            {
                "values": spaces.Box(low=low, high=high, dtype=np.float32),
                "acquired": spaces.MultiBinary(n_actions),
            }
        )
        self.action_space = spaces.Discrete(n_actions + 1)
        self._index = 0
        self._acquired = np.zeros(n_actions, dtype=bool)
        self._steps = 0

    @classmethod
    def from_dataset(
        cls,
        dataset: FairDataset,
        *,
        classifier: SetPredictor,
        adversary: SetPredictor,
        **kwargs: Any,
    ) -> DADIEnv:
        """Build the env from a :class:`~fairacq.data.FairDataset` (its feature groups too)."""
        return cls(
            dataset.X.to_numpy(dtype=np.float64),
            dataset.y,
            dataset.s,
            classifier=classifier,
            adversary=adversary,
            actions=ActionSpace.from_dataset(dataset),
            **kwargs,
        )

    # -- gymnasium API ----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, _Array], dict[str, Any]]:
        """Start an episode on a random individual (or ``options["index"]``)."""
        super().reset(seed=seed)
        if options is not None and "index" in options:
            index = int(options["index"])
            if not 0 <= index < len(self.y):
                raise InvalidParameterError(
                    f"DADIEnv.reset: options['index'] must be in [0, {len(self.y)}). Got {index}."
                )
        else:
            index = int(self.np_random.integers(len(self.y)))
        self._index = index
        self._acquired = np.zeros(self.actions.n_actions, dtype=bool)
        self._steps = 0
        return self._observation(), self._info(repeated=False)

    def step(
        self, action: SupportsInt
    ) -> tuple[dict[str, _Array], float, bool, bool, dict[str, Any]]:
        """Acquire a feature group, repeat one (a no-op), or STOP."""
        a = int(action)
        if not self.action_space.contains(a):
            raise InvalidParameterError(
                f"DADIEnv.step: action {action!r} is outside "
                f"Discrete({self.actions.n_actions + 1}). Pass a feature group or STOP."
            )
        self._steps += 1
        stop = self.actions.stop
        repeated = a != stop and bool(self._acquired[a])
        if a != stop and not repeated:
            self._acquired[a] = True
        terminated = a == stop
        truncated = not terminated and self._steps >= self.actions.n_actions + 1
        reward = self._terminal_reward() if terminated or truncated else 0.0
        return self._observation(), reward, terminated, truncated, self._info(repeated)

    def action_masks(self) -> NDArray[np.bool_]:
        """Return the valid actions: unacquired feature groups and STOP (always valid)."""
        return np.append(~self._acquired, True)

    # -- helpers --------------------------------------------------------------------------
    def column_mask(self) -> NDArray[np.bool_]:
        """Return which columns are observed in the current state."""
        return self.actions.column_mask(self._acquired)

    def _observation(self) -> dict[str, _Array]:
        values = np.where(self.column_mask(), self.X[self._index], 0.0).astype(np.float32)
        return {"values": values, "acquired": self._acquired.astype(np.int8)}

    def _info(self, repeated: bool) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks(),
            "index": self._index,
            "repeated": repeated,
            "acquired": tuple(
                n for n, a in zip(self.actions.names, self._acquired, strict=True) if a
            ),
        }

    def _terminal_reward(self) -> float:
        values = self.X[self._index][None, :]
        mask = self.column_mask()[None, :]
        proba_y = np.asarray(self.classifier(values, mask), dtype=np.float64).reshape(1)
        proba_s = np.asarray(self.adversary(values, mask), dtype=np.float64)
        proba_s = proba_s.reshape(1) if proba_s.size == 1 else proba_s.reshape(1, -1)
        r = terminal_reward(
            proba_y,
            self.y[self._index : self._index + 1],
            proba_s,
            self.s[self._index : self._index + 1],
            gamma=self.gamma,
            kind=self.reward,
            weights=self.weights,
        )
        return float(r[0])
