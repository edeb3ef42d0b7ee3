"""Advantage actor-critic over clause-list construction (the agent of A3SL / Fair-A3SL).

Implements the learner of Zhang & Ramesh §3.2 and Algorithm 1: a policy over the next token (a
literal or ``END``) and a separate value network, trained by n-step advantage actor-critic with
discount 1 and an entropy bonus, keeping the best-rewarded clause list (``C_list``). Two policy
families:

- ``"recurrent"`` (the paper, the default): a GRU reads the token sequence; the policy and the
  value function each have their own embedding and GRU.
- ``"mlp"`` (the authors' code): separate 3 x 18 tanh MLPs over a fixed state encoding
  (:meth:`ClauseEnv.features`).

The paper's workers run asynchronously (A3C). Here ``n_envs`` environments are stepped together
in one process and their segments form one synchronous batched update (A2C): on 2 cores the
reward evaluation (weight learning and MAP inference) dominates, and a single process keeps the
run deterministic for a fixed seed and cheap to checkpoint. A checkpoint (torch state dicts in
``agent.pt``, read back with ``weights_only=True``, plus ``agent.json``) taken between updates
resumes to exactly the run that was not interrupted; :class:`~fairacq.relational.FairA3SL`
keeps both inside its checkpoint folder, beside the trace.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import torch
from torch import nn

from fairacq._checkpoint import load_tensors, save_tensors
from fairacq._io import read_json, write_json
from fairacq._random import RandomState, derive_int_seed
from fairacq.exceptions import CorruptFileError, InvalidParameterError
from fairacq.relational.a3sl._clause_env import Clause, ClauseEnv, ClauseScorer, ClauseSpace

__all__ = ["A2CAgent", "A2CConfig"]

_NEG = -1e9  # logit of a masked action


@dataclass(frozen=True)
class A2CConfig:
    """Hyper-parameters of the actor-critic agent (defaults: the authors' set-up).

    Parameters
    ----------
    policy : {"recurrent", "mlp"}, default="recurrent"
        GRU over the token sequence (paper §3.2) or 3 x 18 tanh MLPs (authors' code).
    hidden : int, default=64
        GRU width (recurrent) or MLP layer width (the authors: 18).
    n_layers : int, default=3
        Hidden layers of each MLP (``policy="mlp"`` only).
    embedding : int, default=32
        Token embedding size (``policy="recurrent"`` only).
    lr : float, default=1e-3
        Adam learning rate.
    entropy_coef : float, default=0.001
        Entropy bonus.
    value_coef : float, default=0.5
        Weight of the value loss.
    t_max : int, default=6
        Steps per environment between updates.
    gamma : float, default=1.0
        Discount (paper §4.1: 1).
    n_envs : int, default=2
        Environments stepped together (the authors' 2 workers).
    normalize_rewards : bool, default=True
        Standardise terminal rewards with running statistics (AUC differences are small).
    max_grad_norm : float or None, default=1.0
        Clip the global gradient norm.
    """

    policy: Literal["recurrent", "mlp"] = "recurrent"
    hidden: int = 64
    n_layers: int = 3
    embedding: int = 32
    lr: float = 1e-3
    entropy_coef: float = 0.001
    value_coef: float = 0.5
    t_max: int = 6
    gamma: float = 1.0
    n_envs: int = 2
    normalize_rewards: bool = True
    max_grad_norm: float | None = 1.0

    def __post_init__(self) -> None:
        if self.policy not in ("recurrent", "mlp"):
            raise InvalidParameterError(
                f"A2CConfig: policy must be 'recurrent' or 'mlp'. Got {self.policy!r} instead."
            )
        for name in ("hidden", "n_layers", "embedding", "t_max", "n_envs"):
            if int(getattr(self, name)) < 1:
                raise InvalidParameterError(f"A2CConfig: {name} must be >= 1.")
        if not (self.lr > 0 and 0 <= self.gamma <= 1 and self.entropy_coef >= 0):
            raise InvalidParameterError(
                "A2CConfig: need lr > 0, 0 <= gamma <= 1 and entropy_coef >= 0. "
                f"Got {self.lr=}, {self.gamma=}, {self.entropy_coef=}."
            )


def _mlp(n_in: int, hidden: int, n_layers: int, n_out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = n_in
    for _ in range(n_layers):
        layers += [nn.Linear(width, hidden), nn.Tanh()]
        width = hidden
    layers.append(nn.Linear(width, n_out))
    return nn.Sequential(*layers)


class _Recurrent(nn.Module):
    """Embedding + GRU cell + linear head over the previous token."""

    def __init__(self, n_tokens: int, embedding: int, hidden: int, n_out: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(n_tokens, embedding)
        self.cell = nn.GRUCell(embedding, hidden)
        self.head = nn.Linear(hidden, n_out)

    def forward(self, token: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h_new: torch.Tensor = self.cell(self.embed(token), h)
        out: torch.Tensor = self.head(h_new)
        return out, h_new


class _ActorCritic(nn.Module):
    """Separate policy and value networks of one family."""

    def __init__(self, config: A2CConfig, n_actions: int, n_features: int) -> None:
        super().__init__()
        self.config = config
        self.start_token = n_actions  # token fed at the start of an episode
        if config.policy == "recurrent":
            self.pi_rnn = _Recurrent(n_actions + 1, config.embedding, config.hidden, n_actions)
            self.v_rnn = _Recurrent(n_actions + 1, config.embedding, config.hidden, 1)
        else:
            self.pi_mlp = _mlp(n_features, config.hidden, config.n_layers, n_actions)
            self.v_mlp = _mlp(n_features, config.hidden, config.n_layers, 1)

    @property
    def state_size(self) -> int:
        return self.config.hidden if self.config.policy == "recurrent" else 0

    def forward(
        self, token: torch.Tensor, features: torch.Tensor, h: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Return logits ``(B, A)``, values ``(B,)`` and the next recurrent state ``(B, 2H)``."""
        if self.config.policy == "recurrent":
            hid = self.config.hidden
            logits, h_pi = self.pi_rnn(token, h[:, :hid])
            value, h_v = self.v_rnn(token, h[:, hid:])
            return logits, value.squeeze(-1), torch.cat([h_pi, h_v], dim=1)
        return self.pi_mlp(features), self.v_mlp(features).squeeze(-1), h


def _normalised_entropy(entropy: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Each row's entropy over its largest value ``log(valid actions)`` (0 with one action)."""
    n_valid = masks.sum(dim=1).to(entropy.dtype)
    top = torch.log(n_valid.clamp(min=2.0))
    return torch.where(n_valid > 1, entropy / top, torch.zeros_like(entropy))


@dataclass
class _RunningStats:
    count: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def update(self, x: float) -> None:
        self.count += 1
        delta = x - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (x - self.mean)

    def normalize(self, x: float) -> float:
        if self.count < 2:
            return 0.0
        std = math.sqrt(self.m2 / (self.count - 1))
        return (x - self.mean) / max(std, 1e-8)


class A2CAgent:
    """Synchronous batched advantage actor-critic that builds clause lists.

    Parameters
    ----------
    space : ClauseSpace
        Actions, limits and rendering.
    scorer : callable
        ``scorer(clauses) -> float``: reward of a finished clause list (larger is better).
    config : A2CConfig, optional
        Hyper-parameters; defaults to :class:`A2CConfig()`.
    random_state : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seeds the network initialisation and every sampled action.

    Attributes
    ----------
    best_clauses : tuple of Clause
        Best-rewarded clause list so far (``C*`` of Algorithm 1).
    best_reward : float
        Its reward (``-inf`` before the first episode).
    n_episodes : int
        Finished episodes.
    n_updates : int
        Gradient updates.
    """

    def __init__(
        self,
        space: ClauseSpace,
        scorer: ClauseScorer,
        config: A2CConfig | None = None,
        *,
        random_state: RandomState = None,
    ) -> None:
        self.space = space
        self.scorer = scorer
        self.config = config or A2CConfig()
        self.envs = [ClauseEnv(space, scorer) for _ in range(self.config.n_envs)]
        seed = derive_int_seed(random_state)
        self._gen = torch.Generator().manual_seed(seed)
        init_gen = torch.Generator().manual_seed(seed + 1)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(torch.randint(2**31 - 1, (1,), generator=init_gen)))
            self.net = _ActorCritic(self.config, space.n_actions, self.envs[0].n_features)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=self.config.lr)
        n = self.config.n_envs
        self._h = torch.zeros(n, 2 * self.net.state_size)
        self._stats = _RunningStats()
        self.best_clauses: tuple[Clause, ...] = ()
        self.best_reward = -math.inf
        self.n_episodes = 0
        self.n_updates = 0
        self._history: list[dict[str, Any]] = []
        self._t0 = time.perf_counter()

    # ------------------------------------------------------------------ rollout
    def _observe(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        tokens = torch.tensor(
            [env.tokens[-1] if env.tokens else self.net.start_token for env in self.envs],
            dtype=torch.long,
        )
        feats = torch.from_numpy(np.stack([env.features() for env in self.envs]))
        masks = torch.from_numpy(np.stack([env.action_mask() for env in self.envs]))
        return tokens, feats, masks

    def _finish(self, env_id: int, reward: float) -> None:
        env = self.envs[env_id]
        clauses = env.clause_list()
        self._history.append(
            {
                "episode": self.n_episodes,
                "env": env_id,
                "update": self.n_updates,
                "reward": reward,
                "n_clauses": len(clauses),
                "clauses": " | ".join(map(str, clauses)),
                "seconds": time.perf_counter() - self._t0,
            }
        )
        self.n_episodes += 1
        if reward > self.best_reward:
            self.best_reward = reward
            self.best_clauses = clauses
        env.reset()

    def _segment(self) -> dict[str, float]:
        """Step every environment ``t_max`` times and apply one A2C update."""
        cfg = self.config
        h = self._h.detach()
        log_probs, values, entropies, rewards, dones = [], [], [], [], []
        spread = []
        for _ in range(cfg.t_max):
            tokens, feats, masks = self._observe()
            logits, value, h = self.net(tokens, feats, h)
            logits = logits.masked_fill(~masks, _NEG)
            logp_all = torch.log_softmax(logits, dim=-1)
            probs = logp_all.exp()
            actions = torch.multinomial(probs.detach(), 1, generator=self._gen).squeeze(1)
            log_probs.append(logp_all.gather(1, actions[:, None]).squeeze(1))
            entropies.append(-(probs * logp_all).sum(dim=1))
            spread.append(_normalised_entropy(entropies[-1].detach(), masks))
            values.append(value)
            step_r, step_d = [], []
            for i, env in enumerate(self.envs):
                reward, done = env.step(int(actions[i]))
                if done:
                    self._finish(i, reward)
                    if cfg.normalize_rewards:
                        self._stats.update(reward)
                        reward = self._stats.normalize(reward)
                step_r.append(reward)
                step_d.append(float(done))
            rewards.append(torch.tensor(step_r))
            done_t = torch.tensor(step_d)
            dones.append(done_t)
            h = h * (1.0 - done_t)[:, None]
        with torch.no_grad():
            tokens, feats, _ = self._observe()
            _, ret, _ = self.net(tokens, feats, h)
        returns = []
        for r, d in zip(reversed(rewards), reversed(dones), strict=True):
            ret = r + cfg.gamma * ret * (1.0 - d)
            returns.append(ret)
        returns.reverse()
        ret_t = torch.stack(returns)
        val_t = torch.stack(values)
        adv = (ret_t - val_t).detach()
        policy_loss = -(torch.stack(log_probs) * adv).mean()
        value_loss = (ret_t - val_t).pow(2).mean()
        entropy = torch.stack(entropies).mean()
        loss = policy_loss + cfg.value_coef * value_loss - cfg.entropy_coef * entropy
        self.optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        if cfg.max_grad_norm is not None:
            nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
        self.optimizer.step()
        self._h = h.detach()
        self.n_updates += 1
        return {
            "policy_loss": float(policy_loss.detach()),
            "value_loss": float(value_loss.detach()),
            "exploration": float(torch.stack(spread).mean()),
        }

    def train_step(self) -> dict[str, Any]:
        """Apply one update (``t_max`` steps of every environment); return its statistics.

        Returns
        -------
        dict
            ``policy_loss``, ``value_loss``, ``exploration`` (the policy's entropy over the
            update's steps divided by its largest value, the log of the number of valid
            actions: 1 is a uniform choice, 0 a fixed one; a step with one valid action
            counts 0) and ``episodes``: the history rows of the episodes that finished
            during the update.
        """
        before = len(self._history)
        stats: dict[str, Any] = dict(self._segment())
        stats["episodes"] = [dict(row) for row in self._history[before:]]
        return stats

    def train(
        self,
        n_episodes: int,
        *,
        callback: Callable[[A2CAgent], bool | None] | None = None,
    ) -> A2CAgent:
        """Train until ``n_episodes`` episodes in total have finished.

        Updates are whole segments, so the last one may finish a few extra episodes; an
        agent saved (:meth:`save`) and loaded (:meth:`load`) on the way continues with the
        same segments as an uninterrupted one. :class:`FairA3SL` trains with
        :meth:`train_step` on fairacq's shared loop instead, whose
        :class:`~fairacq.CheckpointCallback` folders hold these files.

        Parameters
        ----------
        n_episodes : int
            Total episodes (counting those of earlier calls and of a loaded checkpoint).
        callback : callable, optional
            Called after each update with the agent; returning ``False`` stops training.

        Returns
        -------
        A2CAgent
            ``self``.
        """
        torch.set_num_threads(1)
        while self.n_episodes < n_episodes:
            self._segment()
            if callback is not None and callback(self) is False:
                break
        return self

    # ------------------------------------------------------------------ results
    def history(self) -> pd.DataFrame:
        """One row per finished episode: episode, env, update, reward, n_clauses, clauses."""
        cols = ["episode", "env", "update", "reward", "n_clauses", "clauses", "seconds"]
        return pd.DataFrame(self._history, columns=cols)

    def greedy_clauses(self) -> tuple[Clause, ...]:
        """Build one clause list with the most probable valid action at every step."""
        env = ClauseEnv(self.space, lambda _: 0.0)
        h = torch.zeros(1, 2 * self.net.state_size)
        with torch.no_grad():
            while not env.done:
                token = env.tokens[-1] if env.tokens else self.net.start_token
                feats = torch.from_numpy(env.features()[None, :])
                logits, _, h = self.net(torch.tensor([token]), feats, h)
                mask = torch.from_numpy(env.action_mask()[None, :])
                env.step(int(logits.masked_fill(~mask, _NEG).argmax()))
        return env.clause_list()

    def exploration(self) -> float:
        """How much the policy still explores: its mean normalised entropy on its greedy list.

        Builds one clause list with the most probable valid action at every step (as
        :meth:`greedy_clauses`, drawing no random number) and averages, over the steps with
        more than one valid action, the policy's entropy divided by its largest value (the
        log of the number of valid actions). 1 is a uniform choice, 0 a fixed one.
        """
        env = ClauseEnv(self.space, lambda _: 0.0)
        h = torch.zeros(1, 2 * self.net.state_size)
        spread: list[float] = []
        with torch.no_grad():
            while not env.done:
                token = env.tokens[-1] if env.tokens else self.net.start_token
                feats = torch.from_numpy(env.features()[None, :])
                logits, _, h = self.net(torch.tensor([token]), feats, h)
                mask = torch.from_numpy(env.action_mask()[None, :])
                logp = torch.log_softmax(logits.masked_fill(~mask, _NEG), dim=-1)
                if int(mask.sum()) > 1:
                    entropy = -(logp.exp() * logp).sum(dim=1)
                    spread.append(float(_normalised_entropy(entropy, mask)[0]))
                env.step(int(logp.argmax()))
        return float(np.mean(spread)) if spread else 0.0

    # ------------------------------------------------------------------ checkpoints
    def save(self, directory: str | Path) -> None:
        """Write ``agent.pt`` (torch state) and ``agent.json`` (progress) atomically."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        save_tensors(
            {
                "net": self.net.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "generator": self._gen.get_state(),
                "hidden": self._h,
            },
            out / "agent.pt",
        )
        write_json(
            out / "agent.json",
            {
                "config": asdict(self.config),
                "action_names": self.space.action_names(),
                "tokens": [env.tokens for env in self.envs],
                "stats": asdict(self._stats),
                "best_reward": self.best_reward if math.isfinite(self.best_reward) else None,
                "best_clauses": [
                    [self.space.action_of(lit) for lit in (c.head, *c.body)]
                    for c in self.best_clauses
                ],
                "n_episodes": self.n_episodes,
                "n_updates": self.n_updates,
                "history": self._history,
            },
        )

    @classmethod
    def load(cls, directory: str | Path, space: ClauseSpace, scorer: ClauseScorer) -> A2CAgent:
        """Restore an agent saved by :meth:`save` (same space; any scorer)."""
        meta = _read_meta(Path(directory), space)
        agent = cls(space, scorer, A2CConfig(**meta["config"]), random_state=0)
        agent.load_state(directory)
        return agent

    def load_state(self, directory: str | Path) -> None:
        """Load the state :meth:`save` wrote into this agent (same space and config).

        Raises
        ------
        CorruptFileError
            If the files are unreadable, or were saved for other actions or another config.
        """
        src = Path(directory)
        meta = _read_meta(src, self.space)
        if A2CConfig(**meta["config"]) != self.config:
            raise CorruptFileError(
                f"{src / 'agent.json'}: saved with {meta['config']}, not "
                f"{asdict(self.config)}. Resume with the agent options that wrote it."
            )
        tensors = load_tensors(src / "agent.pt")
        self.net.load_state_dict(tensors["net"])
        self.optimizer.load_state_dict(tensors["optimizer"])
        self._gen.set_state(tensors["generator"])
        self._h = tensors["hidden"]
        self.envs = [ClauseEnv(self.space, self.scorer) for _ in range(self.config.n_envs)]
        for env, tokens in zip(self.envs, meta["tokens"], strict=True):
            for token in tokens:
                env.step(int(token))
        self._stats = _RunningStats(**meta["stats"])
        best = meta["best_reward"]
        self.best_reward = -math.inf if best is None else float(best)
        self.best_clauses = tuple(
            Clause(self.space.literal_of(ids[0]), tuple(self.space.literal_of(i) for i in ids[1:]))
            for ids in meta["best_clauses"]
        )
        self.n_episodes = int(meta["n_episodes"])
        self.n_updates = int(meta["n_updates"])
        self._history = list(meta["history"])


def _read_meta(src: Path, space: ClauseSpace) -> dict[str, Any]:
    """Read ``agent.json`` and check that it was saved for ``space``'s actions."""
    meta = read_json(src / "agent.json")
    if not isinstance(meta, dict) or meta.get("action_names") != space.action_names():
        saved = meta.get("action_names") if isinstance(meta, dict) else None
        raise CorruptFileError(
            f"{src / 'agent.json'}: saved for actions {saved}, but the "
            f"space has {space.action_names()}. Load with the space it was trained on."
        )
    return meta
