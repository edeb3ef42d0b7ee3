"""The peers of papers 000 and 001, measured as experiments.

:mod:`.rows` (``peers-rows``) runs pool-based fair acquirers -- Falcon with a λ sweep, FAL,
DataSift-Inf, Entropy, Random -- beside fairlearn's ThresholdOptimizer on COMPAS and Adult
(ACS Income when present); :mod:`.groups` (``peers-groups``) runs the group samplers -- Aopt,
Uniform, Slice Tuner, MinimaxFair, Abernethy et al.'s ε-greedy -- on Adult's race x sex
groups, beside fairlearn's mitigations fitted on the rows Uniform draws. This package imports
the acquisition and sampling families and ``fairacq.models``.
"""

from fairacq_experiments.peers import groups, rows
from fairacq_experiments.peers._config import GroupsConfig, RowsConfig
from fairacq_experiments.peers.groups import run_groups
from fairacq_experiments.peers.rows import run_rows

__all__ = ["GroupsConfig", "RowsConfig", "groups", "rows", "run_groups", "run_rows"]
