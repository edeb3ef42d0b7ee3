"""Joint training of DADI's agent, classifier and adversary (Bakker et al., Appendix B).

``n_parallel`` agents (64 in the paper), one per training individual, act in one batched,
tensor-valued environment: the state of agent ``k`` is its individual's row index and the
boolean mask of the feature groups acquired so far. Every iteration each agent takes
``n_step`` (4) epsilon-greedy steps; an agent that chooses STOP receives the terminal reward
of eq. (2) from the current classifier and adversary and starts a new episode on a fresh
random individual. Then

* the Q head and the shared encoder are updated on the plain squared loss
  ``(Q(s_t, a_t) - R_t)^2`` of n-step returns ``R_t``, bootstrapped with the double-Q
  estimate ``Q(s_{t+n}, argmax_a Q(s_{t+n}, a; phi); phi')`` of a target network copied from
  the online network every ``target_update`` (100) iterations; acquired actions get Q-value
  ``-inf`` (so they are never chosen nor bootstrapped);
* in the same step the label classifier is trained with binary cross-entropy on the visited
  (partial) states, sharing the encoder with the Q head (Fig. 1a);
* the adversary (its own encoder) is trained with cross-entropy on the same states.

Epsilon decays linearly from 1 to 0.1 over the first 5,000 iterations. The paper gives no
discount factor; rewards arrive only at the end of short episodes, so the default is 1
(undiscounted). Random draws (individuals, exploration) come from one ``torch.Generator``
whose state is checkpointed with the networks, optimisers and environment state
(``checkpoint.pt`` + ``checkpoint.json`` inside DADI's checkpoint folder, beside the trace),
so a run resumed from a checkpoint is identical to an uninterrupted one.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fairacq._checkpoint import load_tensors as _load_tensors
from fairacq._checkpoint import save_tensors
from fairacq._io import read_json, sha256_file, write_json
from fairacq.exceptions import CorruptFileError
from fairacq.features.dadi._networks import AdversaryNetwork, AgentNetwork, logits_to_group_proba
from fairacq.features.dadi._rewards import terminal_reward

__all__ = [
    "CHECKPOINT_META",
    "CHECKPOINT_TENSORS",
    "JointConfig",
    "JointTrainer",
    "load_checkpoint",
    "load_tensors",
    "save_checkpoint",
]

CHECKPOINT_TENSORS = "checkpoint.pt"
CHECKPOINT_META = "checkpoint.json"


@dataclass(frozen=True)
class JointConfig:
    """Hyper-parameters of the joint phase (defaults: Bakker et al., Appendix B)."""

    gamma: float = 0.5
    reward: str = "gnl1"
    n_parallel: int = 64
    n_step: int = 4
    target_update: int = 100
    epsilon_start: float = 1.0
    epsilon_end: float = 0.1
    epsilon_decay_iter: int = 5_000
    learning_rate: float = 1e-3
    discount: float = 1.0

    def epsilon(self, iteration: int) -> float:
        """Return epsilon at (0-based) ``iteration``: linear decay, then constant."""
        if self.epsilon_decay_iter <= 0:
            return self.epsilon_end
        frac = min(1.0, iteration / self.epsilon_decay_iter)
        return self.epsilon_start + frac * (self.epsilon_end - self.epsilon_start)


@dataclass
class _Segment:
    """What ``n_step`` steps of every agent leave for the update, and the episodes ended."""

    idx: torch.Tensor  # (n_step, n_parallel): each agent's individual at each step
    reward: torch.Tensor  # (n_step, n_parallel): terminal rewards, 0 elsewhere
    done: torch.Tensor  # (n_step, n_parallel): whether the agent chose STOP
    logit: list[torch.Tensor] = field(default_factory=list)
    q_sa: list[torch.Tensor] = field(default_factory=list)
    adversary_logits: list[torch.Tensor] = field(default_factory=list)
    episode_rewards: list[float] = field(default_factory=list)
    episode_lengths: list[int] = field(default_factory=list)
    episode_acquired: list[int] = field(default_factory=list)

    @classmethod
    def empty(cls, n_step: int, n_par: int) -> _Segment:
        return cls(
            idx=torch.empty(n_step, n_par, dtype=torch.long),
            reward=torch.zeros(n_step, n_par),
            done=torch.zeros(n_step, n_par, dtype=torch.bool),
        )


class JointTrainer:
    """Run DADI's joint phase on batched tensor states.

    Parameters
    ----------
    agent : AgentNetwork
        Encoder, label classifier and Q head (trained in place).
    adversary : AdversaryNetwork
        The adversary (trained in place).
    X : torch.Tensor of shape (n, d)
        Training features (already scaled).
    y, s : torch.Tensor of shape (n,)
        Labels and group codes.
    column_action : torch.Tensor of int64, shape (d,)
        The action of every column.
    weights : ndarray of shape (G,)
        Group weights of eq. (6) over the training population.
    config : JointConfig
        Hyper-parameters.
    generator : torch.Generator
        The run's random stream.
    """

    def __init__(
        self,
        agent: AgentNetwork,
        adversary: AdversaryNetwork,
        X: torch.Tensor,
        y: torch.Tensor,
        s: torch.Tensor,
        column_action: torch.Tensor,
        weights: np.ndarray,
        config: JointConfig,
        generator: torch.Generator,
    ) -> None:
        self.agent = agent
        self.adversary = adversary
        self.target: AgentNetwork = copy.deepcopy(agent)
        self.target.eval()
        for p in self.target.parameters():
            p.requires_grad_(False)
        self.X, self.y, self.s = X, y, s
        self.y_np, self.s_np = y.numpy(), s.numpy()
        self.column_action = column_action
        self.n_actions = int(column_action.max()) + 1
        self.weights = weights
        self.config = config
        self.generator = generator
        self.opt_agent = torch.optim.Adam(
            agent.parameters(), lr=config.learning_rate, foreach=True
        )
        self.opt_adversary = torch.optim.Adam(
            adversary.parameters(), lr=config.learning_rate, foreach=True
        )
        n_par = config.n_parallel
        self.iteration = 0
        self.idx = torch.randint(X.shape[0], (n_par,), generator=generator)
        self.acquired = torch.zeros(n_par, self.n_actions, dtype=torch.bool)
        self.steps = torch.zeros(n_par, dtype=torch.long)
        self.history: list[dict[str, Any]] = []

    # -- acting -------------------------------------------------------------------------
    def _valid(self, acquired: torch.Tensor) -> torch.Tensor:
        stop = torch.ones(acquired.shape[0], 1, dtype=torch.bool)
        return torch.cat([~acquired, stop], dim=1)

    def _collect(self, epsilon: float) -> _Segment:
        """Step every agent ``n_step`` times; return the segment's tensors and episode stats.

        The networks do not change while the agents act, so the forward passes that choose
        the actions (kept with their autograd graphs) also serve the update that follows.
        """
        cfg = self.config
        seg = _Segment.empty(cfg.n_step, cfg.n_parallel)
        self.agent.train()
        self.adversary.train()
        for k in range(cfg.n_step):
            logit, q, adv_logits, action = self._act(epsilon)
            done = action == self.n_actions  # the STOP action
            seg.idx[k], seg.done[k] = self.idx, done
            seg.logit.append(logit)
            seg.q_sa.append(q.gather(1, action.unsqueeze(1)).squeeze(1))
            seg.adversary_logits.append(adv_logits)
            if bool(done.any()):
                seg.reward[k, done] = self._end_episodes(done, logit, adv_logits, seg)
            self._advance(action, done)
        return seg

    def _act(
        self, epsilon: float
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Run the networks on the agents' states; return their outputs and chosen actions."""
        values = self.X[self.idx]
        colmask = self.acquired[:, self.column_action]
        valid = self._valid(self.acquired)
        logit, q = self.agent(values, colmask)
        adv_logits = self.adversary(values, colmask)
        greedy = q.detach().masked_fill(~valid, -torch.inf).argmax(dim=1)
        explore = torch.rand(self.config.n_parallel, generator=self.generator) < epsilon
        random_a = torch.multinomial(valid.float(), 1, generator=self.generator).squeeze(1)
        return logit, q, adv_logits, torch.where(explore, random_a, greedy)

    def _end_episodes(
        self, done: torch.Tensor, logit: torch.Tensor, adv_logits: torch.Tensor, seg: _Segment
    ) -> torch.Tensor:
        """Return the terminal rewards of the agents that stopped; note their episodes."""
        cfg = self.config
        rows = self.idx[done].numpy()
        proba_s = logits_to_group_proba(adv_logits.detach()[done], self.adversary.n_groups)
        r = terminal_reward(
            torch.sigmoid(logit.detach()[done]).numpy(),
            self.y_np[rows],
            proba_s.numpy(),
            self.s_np[rows],
            gamma=cfg.gamma,
            kind=cfg.reward,  # type: ignore[arg-type]
            weights=self.weights,
        )
        seg.episode_rewards.extend(r.tolist())
        seg.episode_lengths.extend((self.steps[done] + 1).tolist())
        seg.episode_acquired.extend(self.acquired[done].sum(dim=1).tolist())
        return torch.as_tensor(r, dtype=seg.reward.dtype)

    def _advance(self, action: torch.Tensor, done: torch.Tensor) -> None:
        """Acquire the chosen groups; restart the agents that stopped on fresh individuals."""
        go = ~done
        self.acquired[go.nonzero().squeeze(1), action[go]] = True
        self.steps += 1
        n_done = int(done.sum())
        if n_done:
            self.idx[done] = torch.randint(self.X.shape[0], (n_done,), generator=self.generator)
            self.acquired[done] = False
            self.steps[done] = 0

    def _bootstrap(self) -> torch.Tensor:
        """Return the double-Q value of the agents' current states (0 is never needed here)."""
        values = self.X[self.idx]
        colmask = self.acquired[:, self.column_action]
        valid = self._valid(self.acquired)
        with torch.no_grad():
            _, q_online = self.agent(values, colmask)
            _, q_target = self.target(values, colmask)
        best = q_online.masked_fill(~valid, -torch.inf).argmax(dim=1, keepdim=True)
        out: torch.Tensor = q_target.gather(1, best).squeeze(1)
        return out

    # -- learning -----------------------------------------------------------------------
    def train_iteration(self) -> dict[str, Any]:
        """Run one joint iteration (collect, then update) and return its statistics."""
        cfg = self.config
        epsilon = cfg.epsilon(self.iteration)
        seg = self._collect(epsilon)
        returns = torch.empty_like(seg.reward)
        running = self._bootstrap()
        for k in range(cfg.n_step - 1, -1, -1):
            running = seg.reward[k] + cfg.discount * (~seg.done[k]).float() * running
            returns[k] = running
        idx = seg.idx.reshape(-1)
        q_sa = torch.cat(seg.q_sa)
        q_loss = ((q_sa - returns.reshape(-1)) ** 2).mean()  # plain squared loss
        clf_loss = self.agent.loss(torch.cat(seg.logit), self.y[idx]).mean()
        self.opt_agent.zero_grad()
        (q_loss + clf_loss).backward()  # type: ignore[no-untyped-call]
        self.opt_agent.step()

        adv_loss = self.adversary.loss(torch.cat(seg.adversary_logits), self.s[idx]).mean()
        self.opt_adversary.zero_grad()
        adv_loss.backward()  # type: ignore[no-untyped-call]
        self.opt_adversary.step()

        self.iteration += 1
        if self.iteration % cfg.target_update == 0:
            self.target.load_state_dict(self.agent.state_dict())
        n_ep = len(seg.episode_rewards)
        row: dict[str, Any] = {
            "phase": "joint",
            "iteration": self.iteration,
            "epsilon": epsilon,
            "q_loss": float(q_loss.detach()),
            "train_loss": float(clf_loss.detach()),
            "adversary_loss": float(adv_loss.detach()),
            "episodes": n_ep,
            "mean_reward": float(np.mean(seg.episode_rewards)) if n_ep else float("nan"),
            "mean_length": float(np.mean(seg.episode_lengths)) if n_ep else float("nan"),
            "mean_acquired": float(np.mean(seg.episode_acquired)) if n_ep else float("nan"),
        }
        self.history.append(row)
        return row

    # -- checkpoints ---------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Return everything needed to resume: networks, optimisers, env state, RNG."""
        return {
            "agent": self.agent.state_dict(),
            "target": self.target.state_dict(),
            "adversary": self.adversary.state_dict(),
            "opt_agent": self.opt_agent.state_dict(),
            "opt_adversary": self.opt_adversary.state_dict(),
            "generator": self.generator.get_state(),
            "idx": self.idx.clone(),
            "acquired": self.acquired.clone(),
            "steps": self.steps.clone(),
            "iteration": torch.tensor(self.iteration),
        }

    def load_state_dict(self, state: dict[str, Any], history: list[dict[str, Any]]) -> None:
        """Restore a state written by :meth:`state_dict` (and the history rows so far)."""
        self.agent.load_state_dict(state["agent"])
        self.target.load_state_dict(state["target"])
        self.adversary.load_state_dict(state["adversary"])
        self.opt_agent.load_state_dict(state["opt_agent"])
        self.opt_adversary.load_state_dict(state["opt_adversary"])
        self.generator.set_state(state["generator"])
        self.idx = state["idx"].clone()
        self.acquired = state["acquired"].clone()
        self.steps = state["steps"].clone()
        self.iteration = int(state["iteration"])
        self.history = list(history)


def save_checkpoint(
    directory: str | os.PathLike[str], tensors: dict[str, Any], meta: dict[str, Any]
) -> None:
    """Write ``checkpoint.pt`` (tensors only) then ``checkpoint.json``, each atomically.

    The JSON records the sha256 of the tensor file, so a torn pair is detected on load.
    """
    directory = Path(directory)
    save_tensors(tensors, directory / CHECKPOINT_TENSORS)
    meta = dict(meta, tensors_sha256=sha256_file(directory / CHECKPOINT_TENSORS))
    write_json(directory / CHECKPOINT_META, meta)


def load_checkpoint(
    directory: str | os.PathLike[str],
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Read a checkpoint pair, or return ``None`` when ``directory`` holds none.

    Raises
    ------
    CorruptFileError
        If a file is unreadable or the pair does not match.
    """
    directory = Path(directory)
    meta_path = directory / CHECKPOINT_META
    pt_path = directory / CHECKPOINT_TENSORS
    if not meta_path.exists():
        return None
    meta = read_json(meta_path)
    if not isinstance(meta, dict) or not pt_path.exists():
        raise CorruptFileError(
            f"{directory}: the checkpoint is incomplete ({CHECKPOINT_TENSORS} missing or "
            f"{CHECKPOINT_META} malformed). Delete the directory to start afresh."
        )
    if meta.get("tensors_sha256") != sha256_file(pt_path):
        raise CorruptFileError(
            f"{pt_path}: checksum differs from the one in {CHECKPOINT_META} (a torn or edited "
            "checkpoint). Delete the directory to start afresh."
        )
    tensors = load_tensors(pt_path)
    return tensors, meta


def load_tensors(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Load a tensors-only torch file (``weights_only=True``), raising CorruptFileError."""
    return _load_tensors(path)
