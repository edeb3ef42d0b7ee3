"""The peers of DataSift and Aopt, measured as experiments.

:mod:`.rows` (``peers-rows``) runs pool-based fair acquirers -- Falcon with a λ sweep, FAL,
DataSift-Inf, Entropy, Random -- beside fairlearn's ThresholdOptimizer on COMPAS and Adult
(ACS Income when present); :mod:`.ceiling` (``peers-rows-ceiling``) bounds what a row
strategy deploying group thresholds can reach there (every pool label, or none);
:mod:`.groups` (``peers-groups``) runs the group samplers -- Aopt, Uniform, Slice Tuner,
MinimaxFair, Abernethy et al.'s ε-greedy -- on Adult's race x sex groups, beside fairlearn's
mitigations fitted on the rows Uniform draws. This package imports the acquisition and
sampling families and ``fairacq.models``.
"""

from fairacq_experiments.peers import ceiling, groups, rows
from fairacq_experiments.peers._config import GroupsConfig, RowsConfig
from fairacq_experiments.peers.ceiling import CeilingConfig, run_ceiling
from fairacq_experiments.peers.groups import run_groups
from fairacq_experiments.peers.rows import run_rows

__all__ = [
    "CeilingConfig",
    "GroupsConfig",
    "RowsConfig",
    "ceiling",
    "groups",
    "rows",
    "run_ceiling",
    "run_groups",
    "run_rows",
]
