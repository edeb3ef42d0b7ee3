"""The loop every group sampler shares.

The oracles that draw labelled rows of a group (``_oracles.py``), the per-group validation
sets built from paired draws (``_eval_sets.py``), the sampler's state between rounds
(``_state.py``), the round-by-round loop that retrains the learner and records each group's
loss (``_sampling_loop.py``) and the :class:`GroupSampler` base every method subclasses
(``_base.py``). The loop knows no method; every public name is exported from
:mod:`fairacq.sampling`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
