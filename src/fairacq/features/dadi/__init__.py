"""DADI's parts: the agent that acquires features person by person (Bakker et al.).

The action space of feature groups plus STOP (``_actions.py``), the terminal rewards of
eq. (2) (``_rewards.py``), the MDP as a gymnasium environment (``_env.py``), the set encoder
with its one-hot group elements (``_encoder.py``, ``_elements.py``), the agent and adversary
networks (``_networks.py``), pre-training with random missingness (``_pretrain.py``), the
joint n-step double Q-learning (``_qlearning.py``) and the estimator :class:`DADI` that runs
them (``_dadi.py``). The comparisons (baselines, Pareto fronts, the leakage audit) and the
user workflow stay in :mod:`fairacq.features` above, which exports every public name, so
nothing is exported here; importing this package loads neither torch nor gymnasium (its
modules do, on first access from :mod:`fairacq.features`).
"""

from __future__ import annotations

__all__: list[str] = []
