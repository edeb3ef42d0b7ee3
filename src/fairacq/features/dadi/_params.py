"""DADI's parameters, fitted attributes and the helpers built from them.

:class:`DADIParams` is the base of :class:`~fairacq.features.DADI`: the training run
(:mod:`._loop`) and the model folder (:mod:`._persistence`) read a model through it, so they
need not import the estimator that drives them.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import torch
from numpy.typing import NDArray

from fairacq._artefact import to_jsonable
from fairacq._base import Strategy
from fairacq._random import RandomState
from fairacq._trace import Trace
from fairacq._validation import Interval, Options
from fairacq.features.dadi._actions import SET_ELEMENTS, ActionSpace
from fairacq.features.dadi._elements import HotElements
from fairacq.features.dadi._networks import AdversaryNetwork, AgentNetwork
from fairacq.features.dadi._qlearning import JointConfig
from fairacq.features.dadi._rewards import REWARDS
from fairacq.features.dadi._serving import DADIServing

__all__ = ["DADIParams"]


class DADIParams(DADIServing, Strategy):
    """DADI's parameters (see :class:`~fairacq.features.DADI`) and fitted attributes."""

    _parameter_constraints = {  # noqa: RUF012  # sklearn's convention, read-only
        "gamma": [Interval(float, 0, 1, closed="both")],
        "reward": [Options(REWARDS)],
        "n_pretrain_iter": [Interval(int, 0, None, closed="left")],
        "n_train_iter": [Interval(int, 0, None, closed="left")],
        "batch_size": [Interval(int, 2, None, closed="left")],
        "n_parallel": [Interval(int, 1, None, closed="left")],
        "n_step": [Interval(int, 1, None, closed="left")],
        "target_update": [Interval(int, 1, None, closed="left")],
        "epsilon_start": [Interval(float, 0, 1, closed="both")],
        "epsilon_end": [Interval(float, 0, 1, closed="both")],
        "epsilon_decay_iter": [Interval(int, 0, None, closed="left")],
        "learning_rate": [Interval(float, 0, None, closed="neither")],
        "validation_fraction": [Interval(float, 0, 1, closed="neither")],
        "set_elements": [Options(SET_ELEMENTS)],
        "random_state": ["random_state"],
    }

    # Fitted attributes (set by fit or load).
    trace_: Trace
    n_iter_: int
    fingerprint_: str
    warnings_: list[str]
    saved_files_: dict[str, str]
    columns_: list[str]
    actions_: ActionSpace
    feature_groups_: dict[str, list[str]]
    group_names_: tuple[str, ...]
    n_groups_: int
    scale_mean_: NDArray[np.float64]
    scale_std_: NDArray[np.float64]
    group_weights_: NDArray[np.float64]

    def __init__(
        self,
        *,
        gamma: float = 0.5,
        reward: Literal["gnl1", "ce"] = "gnl1",
        n_pretrain_iter: int = 10_000,
        n_train_iter: int = 10_000,
        batch_size: int = 64,
        n_parallel: int = 64,
        n_step: int = 4,
        target_update: int = 100,
        epsilon_start: float = 1.0,
        epsilon_end: float = 0.1,
        epsilon_decay_iter: int = 5_000,
        learning_rate: float = 1e-3,
        validation_fraction: float = 0.2,
        set_elements: Literal["columns", "hot"] = "columns",
        random_state: RandomState = None,
    ) -> None:
        self.gamma = gamma
        self.reward = reward
        self.n_pretrain_iter = n_pretrain_iter
        self.n_train_iter = n_train_iter
        self.batch_size = batch_size
        self.n_parallel = n_parallel
        self.n_step = n_step
        self.target_update = target_update
        self.epsilon_start = epsilon_start
        self.epsilon_end = epsilon_end
        self.epsilon_decay_iter = epsilon_decay_iter
        self.learning_rate = learning_rate
        self.validation_fraction = validation_fraction
        self.set_elements = set_elements
        self.random_state = random_state

    def _joint_config(self) -> JointConfig:
        """Return the joint phase's settings of this model's parameters."""
        return JointConfig(
            gamma=float(self.gamma),
            reward=str(self.reward),
            n_parallel=self.n_parallel,
            n_step=self.n_step,
            target_update=self.target_update,
            epsilon_start=float(self.epsilon_start),
            epsilon_end=float(self.epsilon_end),
            epsilon_decay_iter=self.epsilon_decay_iter,
            learning_rate=float(self.learning_rate),
        )

    def _networks(
        self, actions: ActionSpace, n_groups: int, generator: torch.Generator | None
    ) -> tuple[AgentNetwork, AdversaryNetwork]:
        """Build the agent and adversary networks for ``actions`` (weights from ``generator``)."""
        elements = HotElements(actions.column_action) if self.set_elements == "hot" else None
        agent = AgentNetwork(
            actions.n_columns, actions.n_actions, generator=generator, elements=elements
        )
        adversary = AdversaryNetwork(
            actions.n_columns, n_groups=n_groups, generator=generator, elements=elements
        )
        return agent, adversary

    def _json_params(self) -> dict[str, Any]:
        """Return the parameters in JSON types (a generator as its ``repr``)."""
        params: dict[str, Any] = to_jsonable(self.get_params(deep=False))
        return params
