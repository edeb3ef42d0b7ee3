"""Bandit policies that choose which part of the pool to buy from next.

The policies (``_bandit.py``: epsilon-greedy, UCB, Thompson), EXP3 (``_exp3.py``) and the
rewards they learn from (``_rewards.py``). Every public name is exported from
:mod:`fairacq.acquisition`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
