"""The actor-critic agent of Fair-A3SL on a synthetic reward (a hidden clause set)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairacq.exceptions import CorruptFileError, InvalidParameterError
from fairacq.relational.a3sl._a2c import A2CAgent, A2CConfig
from fairacq.relational.a3sl._clause_env import (
    Clause,
    ClauseEnv,
    ClauseLiteral,
    ClauseSpace,
    PredicateSignature,
)

SPACE = ClauseSpace(
    [PredicateSignature(f"f{i}", ("user",)) for i in range(5)]
    + [PredicateSignature("t", ("user",), target=True)],
    max_literals=3,
    max_clauses=2,
)
HIDDEN = {
    Clause(ClauseLiteral("t"), (ClauseLiteral("f1"),)),
    Clause(ClauseLiteral("t", True), (ClauseLiteral("f3", True), ClauseLiteral("f4"))),
}


def hidden_overlap(clauses):
    found = set(clauses)
    return len(found & HIDDEN) - 0.25 * len(found - HIDDEN)


def _random_policy_mean(n, seed):
    env, rng, rewards = ClauseEnv(SPACE, hidden_overlap), np.random.default_rng(seed), []
    for _ in range(n):
        env.reset()
        done = False
        while not done:
            reward, done = env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        rewards.append(reward)
    return float(np.mean(rewards))


@pytest.mark.parametrize(
    "config",
    [
        A2CConfig(policy="recurrent", hidden=32, lr=3e-3, entropy_coef=0.01),
        A2CConfig(policy="mlp", hidden=18, lr=1e-2, entropy_coef=0.01),
    ],
    ids=["recurrent", "mlp"],
)
def test_agent_learns_hidden_clause_set_better_than_random(config):
    agent = A2CAgent(SPACE, hidden_overlap, config, random_state=0).train(400)
    history = agent.history()
    random_mean = _random_policy_mean(300, seed=0)
    assert random_mean < 0.0
    assert history["reward"].iloc[-100:].mean() > random_mean + 0.8
    assert history["reward"].iloc[-100:].mean() > history["reward"].iloc[:100].mean() + 0.5
    assert agent.best_reward >= 1.0
    assert agent.best_reward == history["reward"].max()
    assert hidden_overlap(agent.best_clauses) == agent.best_reward
    greedy = agent.greedy_clauses()
    assert set(greedy) & HIDDEN


def _run(seed, episodes=16, **kw):
    return A2CAgent(SPACE, hidden_overlap, A2CConfig(**kw), random_state=seed).train(episodes)


def _same(a, b):
    cols = ["episode", "env", "update", "reward", "n_clauses", "clauses"]
    return a.history()[cols].equals(b.history()[cols]) and all(
        torch.equal(x, y) for x, y in zip(a.net.parameters(), b.net.parameters(), strict=True)
    )


@pytest.mark.parametrize("policy", ["recurrent", "mlp"])
def test_same_seed_same_run_other_seed_differs(policy):
    assert _same(_run(3, policy=policy, n_envs=1), _run(3, policy=policy, n_envs=1))
    assert _same(_run(3, policy=policy), _run(3, policy=policy))
    assert not _same(_run(3, policy=policy), _run(4, policy=policy))


@pytest.mark.parametrize("policy", ["recurrent", "mlp"])
def test_checkpoint_resume_equals_uninterrupted(tmp_path, policy):
    config = A2CConfig(policy=policy, n_envs=2, t_max=4)
    straight = A2CAgent(SPACE, hidden_overlap, config, random_state=7).train(40)
    first = A2CAgent(SPACE, hidden_overlap, config, random_state=7)
    first.train(15).save(tmp_path / "ckpt")
    # the environments are mid-episode at the checkpoint
    assert any(env.tokens for env in first.envs)
    resumed = A2CAgent.load(tmp_path / "ckpt", SPACE, hidden_overlap).train(40)
    assert _same(straight, resumed)
    assert resumed.best_reward == straight.best_reward
    assert resumed.best_clauses == straight.best_clauses
    assert resumed.n_updates == straight.n_updates


def test_callback_saves_and_stops(tmp_path):
    seen = []

    def stop_after_three(agent):
        seen.append(agent.n_updates)
        agent.save(tmp_path)
        return agent.n_updates < 3

    agent = A2CAgent(SPACE, hidden_overlap, random_state=0)
    agent.train(10_000, callback=stop_after_three)
    assert seen == [1, 2, 3]
    assert (tmp_path / "agent.pt").exists()
    assert (tmp_path / "agent.json").exists()
    assert A2CAgent.load(tmp_path, SPACE, hidden_overlap).n_updates == 3


def test_load_rejects_other_space_and_corrupt_files(tmp_path):
    A2CAgent(SPACE, hidden_overlap, random_state=0).train(4).save(tmp_path)
    other = ClauseSpace([PredicateSignature("t", ("user",), target=True)])
    with pytest.raises(CorruptFileError, match="saved for actions"):
        A2CAgent.load(tmp_path, other, hidden_overlap)
    (tmp_path / "agent.pt").write_bytes(b"not a torch file")
    with pytest.raises(CorruptFileError, match="cannot be read"):
        A2CAgent.load(tmp_path, SPACE, hidden_overlap)


def test_config_validation():
    with pytest.raises(InvalidParameterError, match="policy"):
        A2CConfig(policy="transformer")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="t_max"):
        A2CConfig(t_max=0)
    with pytest.raises(InvalidParameterError, match="gamma"):
        A2CConfig(gamma=1.5)
