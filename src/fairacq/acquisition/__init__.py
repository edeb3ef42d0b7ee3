"""Pool-based fair data acquisition (Hasan & Pradhan: DataSift, DataSift-Inf and their baselines).

Given a (biased) training set and a pool of candidate rows, an acquirer decides which rows to
acquire, batch by batch, so that the retrained model becomes fairer. Every acquirer shares the
loop of :class:`Acquirer` (propose, retrain, measure on validation, keep or drop, record a
:class:`~fairacq.Trace` row) and differs in its proposal rule: :class:`RandomAcquirer`,
:class:`EntropyAcquirer`, :class:`InfAcquirer`, :class:`AutoDataAcquirer`,
:class:`DataSiftAcquirer` (a bandit over pool partitions) and :class:`DataSiftInfAcquirer`
(the bandit with influence-sorted batches), and two published peers: :class:`FalconAcquirer`
(Falcon, PVLDB 2024: target groups, postponing, an EXP3 bandit over selection policies) and
:class:`FALAcquirer` (FAL, ESWA 2022: entropy mixed with expected unfairness reduction); and
fairacq's own :class:`PostThresholdAcquirer` (buy for accuracy, then group thresholds within a
tolerance fitted on validation: the tolerance traces the front) and
:class:`ThresholdAwareAcquirer` (buy the rows closest to their group's threshold). Build
any of them by name with :func:`make_acquirer`, or run one with :func:`acquire`.

The pool is a :class:`~fairacq.FairDataset` in memory or a :class:`ParquetPool` larger than
memory, read chunk by chunk (a few bytes per row stay in memory); its blocks are scored
serially or on a dask cluster (:func:`make_chunk_executor`), with the same acquisition order.
:func:`read_pool` reads a user's pool file (Parquet streamed, CSV in memory), and
:func:`acquired_rows` hands every row paid for back with the file's own columns, whether
it was trained on and its cost.
"""

from fairacq.acquisition._registry import (
    acquire,
    acquirer_needs_gradients,
    available_acquirers,
    make_acquirer,
    metric_problem,
)
from fairacq.acquisition.bandits._bandit import (
    BanditPolicy,
    EpsilonGreedyPolicy,
    ThompsonPolicy,
    UCBPolicy,
    available_policies,
    make_policy,
    policy_from_state_dict,
)
from fairacq.acquisition.bandits._exp3 import Exp3
from fairacq.acquisition.bandits._rewards import REWARD_KINDS, reward_per_cost, share_reward
from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.methods._datasift import (
    AutoDataAcquirer,
    DataSiftAcquirer,
    DataSiftInfAcquirer,
    partition_labels,
)
from fairacq.acquisition.methods._entropy import EntropyAcquirer, binary_entropy
from fairacq.acquisition.methods._fal import FALAcquirer, expected_unfairness, fal_scores
from fairacq.acquisition.methods._falcon import FalconAcquirer
from fairacq.acquisition.methods._falcon_policies import policy_order, target_groups
from fairacq.acquisition.methods._inf import InfAcquirer
from fairacq.acquisition.methods._partition import (
    PartitionDroppedWarning,
    Partitioning,
    drop_small_partitions,
    partition_base_rate_diffs,
    partition_pool,
)
from fairacq.acquisition.methods._post_thresholds import PostThresholdAcquirer
from fairacq.acquisition.methods._random_acquirer import RandomAcquirer
from fairacq.acquisition.methods._threshold_aware import (
    OWN_FRONT_TOLS,
    ThresholdAwareAcquirer,
    boundary_order,
)
from fairacq.acquisition.methods._valuation_scores import pool_improvement_scores, surrogate_for
from fairacq.acquisition.pools._acquired_rows import (
    ROW_COLUMNS,
    acquired_rows,
    acquisition_steps,
    check_pool_columns,
)
from fairacq.acquisition.pools._chunk_map import (
    ChunkExecutor,
    DaskChunkExecutor,
    SerialChunkExecutor,
    make_chunk_executor,
)
from fairacq.acquisition.pools._parquet_pool import ParquetPool
from fairacq.acquisition.pools._pool_files import read_pool
from fairacq.acquisition.pools._pool_source import InMemoryPool, PoolSource, as_pool_source

__all__ = [
    "OWN_FRONT_TOLS",
    "REWARD_KINDS",
    "ROW_COLUMNS",
    "Acquirer",
    "AcquisitionState",
    "AutoDataAcquirer",
    "BanditPolicy",
    "ChunkExecutor",
    "DaskChunkExecutor",
    "DataSiftAcquirer",
    "DataSiftInfAcquirer",
    "EntropyAcquirer",
    "EpsilonGreedyPolicy",
    "Exp3",
    "FALAcquirer",
    "FalconAcquirer",
    "InMemoryPool",
    "InfAcquirer",
    "ParquetPool",
    "PartitionDroppedWarning",
    "Partitioning",
    "PoolSource",
    "PostThresholdAcquirer",
    "Proposal",
    "RandomAcquirer",
    "SerialChunkExecutor",
    "ThompsonPolicy",
    "ThresholdAwareAcquirer",
    "UCBPolicy",
    "acquire",
    "acquired_rows",
    "acquirer_needs_gradients",
    "acquisition_steps",
    "as_pool_source",
    "available_acquirers",
    "available_policies",
    "binary_entropy",
    "boundary_order",
    "check_pool_columns",
    "drop_small_partitions",
    "expected_unfairness",
    "fal_scores",
    "make_acquirer",
    "make_chunk_executor",
    "make_policy",
    "metric_problem",
    "partition_base_rate_diffs",
    "partition_labels",
    "partition_pool",
    "policy_from_state_dict",
    "policy_order",
    "pool_improvement_scores",
    "read_pool",
    "reward_per_cost",
    "share_reward",
    "surrogate_for",
    "target_groups",
]
