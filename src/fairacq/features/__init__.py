"""Fair per-individual feature acquisition: DADI (Bakker et al.).

An agent decides, individual by individual, which feature group to reveal next and when to
stop, trading the accuracy of a third party's classifier against how much the revealed
features tell an adversary about the sensitive attribute (the reward of eq. 2, with the
adversary's cross-entropy or group-normalised L1 loss). Entry points: :class:`DADI`
(``fit`` on a :class:`~fairacq.data.FairDataset`, then ``acquire`` one individual or
``transform`` a table), :class:`DADIEnv` (the MDP as a gymnasium environment for other
agents), :class:`ActionSpace` (feature groups as actions), the reward functions, and the baselines
that show why dynamic acquisition matters (:func:`static_selection_front`,
:func:`fixed_subset_baselines`) with :func:`compare_fronts` for AUC-disparity fronts, and
:func:`leakage_audit`, a fresh adversary's view of what a revealed feature set tells about the
group. :func:`train_dadi` trains and scores an agent on a dataset or a user's raw table (split
first, its :class:`~fairacq.data.TableEncoder` fitted on the training rows, one action per raw
column), :class:`DadiModel` saves and loads it with that encoder, and :func:`reveal_table` runs
it over a table of people's raw columns (what ``fairacq features train`` and ``acquire`` do).

Importing this package is cheap: the torch- and gymnasium-based names (:class:`DADI`,
:class:`DADIEnv`, the networks) load on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from fairacq.features._baselines import (
    AgentScorer,
    LearnerScorer,
    StaticSelection,
    SubsetScore,
    column_mask,
    fixed_subset_baselines,
    greedy_fair_selection,
    score_predictions,
    sensitive_feature_groups,
    static_selection_front,
)
from fairacq.features._leakage import LeakageAudit, group_auc, leakage_audit
from fairacq.features._model_dir import DadiModel
from fairacq.features._pareto import FrontComparison, compare_fronts
from fairacq.features._policy import PolicyVariety, policy_variety, policy_warnings
from fairacq.features._reveal import reveal_table
from fairacq.features._workflow import DadiRun, train_dadi
from fairacq.features.dadi._actions import ActionSpace
from fairacq.features.dadi._rewards import (
    REWARDS,
    adversary_loss,
    classifier_loss,
    group_weights,
    terminal_reward,
)

if TYPE_CHECKING:
    from fairacq.features.dadi._encoder import SetEncoder
    from fairacq.features.dadi._env import DADIEnv
    from fairacq.features.dadi._estimator import DADI
    from fairacq.features.dadi._networks import AdversaryNetwork, AgentNetwork
    from fairacq.features.dadi._serving import Acquisition

__all__ = [
    "DADI",
    "REWARDS",
    "Acquisition",
    "ActionSpace",
    "AdversaryNetwork",
    "AgentNetwork",
    "AgentScorer",
    "DADIEnv",
    "DadiModel",
    "DadiRun",
    "FrontComparison",
    "LeakageAudit",
    "LearnerScorer",
    "PolicyVariety",
    "SetEncoder",
    "StaticSelection",
    "SubsetScore",
    "adversary_loss",
    "classifier_loss",
    "column_mask",
    "compare_fronts",
    "fixed_subset_baselines",
    "greedy_fair_selection",
    "group_auc",
    "group_weights",
    "leakage_audit",
    "policy_variety",
    "policy_warnings",
    "reveal_table",
    "score_predictions",
    "sensitive_feature_groups",
    "static_selection_front",
    "terminal_reward",
    "train_dadi",
]

_LAZY = {
    "Acquisition": "fairacq.features.dadi._serving",
    "AdversaryNetwork": "fairacq.features.dadi._networks",
    "AgentNetwork": "fairacq.features.dadi._networks",
    "DADI": "fairacq.features.dadi._estimator",
    "DADIEnv": "fairacq.features.dadi._env",
    "SetEncoder": "fairacq.features.dadi._encoder",
}


def __getattr__(name: str) -> Any:
    """Import the torch- and gymnasium-based names on first access."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairacq.features' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
