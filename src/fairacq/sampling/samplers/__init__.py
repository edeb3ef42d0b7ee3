"""The sampling methods: how each one picks the next group to draw from.

Aopt and Aopt+ with their confidence bounds and trend score (``_aopt.py``, ``_ucb.py``,
``_trend.py``), the baselines (``_baselines.py``), the peers Slice Tuner (``_slice_tuner.py``
with its learning curves and convex split, ``_learning_curve.py``, ``_slice_allocation.py``),
minimax fair sampling (``_minimax_fair.py``) and Abernethy et al.'s greedy sampler
(``_abernethy.py``), and the registry that builds them by name (``_registry.py``). Every
public name is exported from :mod:`fairacq.sampling`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
