"""DataSift and DataSift-Inf (Hasan & Pradhan, Algorithms 1 and 2) and the AutoData baseline."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import NDArray

from fairacq._random import KEY_PREPARE, RandomState, child
from fairacq._validation import Interval, Options
from fairacq._warnings import warn_caller
from fairacq.acquisition.bandits._bandit import make_policy
from fairacq.acquisition.bandits._rewards import reward_per_cost, share_reward
from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._growing import GrowingArray
from fairacq.acquisition.loop._ledger import fill_limit
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.methods._partition import (
    PartitionDroppedWarning,
    Partitioning,
    drop_small_partitions,
    partition_base_rate_diffs,
    partition_pool,
)
from fairacq.acquisition.methods._valuation_scores import pool_improvement_scores
from fairacq.acquisition.pools._chunk_map import ChunkExecutor
from fairacq.acquisition.pools._pool_source import PoolSource, as_pool_source
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError
from fairacq.models import DEFAULT_METRICS

__all__ = ["AutoDataAcquirer", "DataSiftAcquirer", "DataSiftInfAcquirer", "partition_labels"]


def partition_labels(
    pool: FairDataset | PoolSource, column: str, *, executor: ChunkExecutor | None = None
) -> NDArray[np.int64]:
    """Partition ids from a pool column, a one-hot feature group or a sensitive column.

    Parameters
    ----------
    pool : FairDataset or PoolSource
        The pool (a streamed pool is read block by block).
    column : str
        A feature group name (its one-hot columns are collapsed with argmax), a feature
        column, or a sensitive attribute column (e.g. ``"ST"`` for US state).
    executor : ChunkExecutor or None, default=None
        Where the blocks are read (None: serially here).

    Returns
    -------
    ndarray of int
        Codes ``0..m-1`` in sorted order of the values.
    """
    source = as_pool_source(pool)
    groups = source.feature_groups
    names = source.feature_names
    values: NDArray[Any] | None
    if column in groups and len(groups[column]) > 1:
        cols = np.asarray([names.index(c) for c in groups[column]], dtype=np.int64)
        values = _concat(source.map_blocks(partial(_argmax_block, cols=cols), executor=executor))
    elif column in names:
        cols = np.asarray([names.index(column)], dtype=np.int64)
        values = _concat(source.map_blocks(partial(_column_block, cols=cols), executor=executor))
    else:
        values = source.sensitive_values(column)
    if values is None:
        raise InvalidParameterError(
            f"partition_column {column!r} is neither a feature group, a feature nor a "
            f"sensitive column of the pool. Feature groups: {', '.join(sorted(groups))[:200]}."
        )
    _, codes = np.unique(values, return_inverse=True)
    return codes.astype(np.int64).ravel()


def _argmax_block(
    X: NDArray[np.float64], side: Mapping[str, NDArray[Any]], *, cols: NDArray[np.int64]
) -> NDArray[np.int64]:
    return np.asarray(np.argmax(X[:, cols], axis=1), dtype=np.int64)


def _column_block(
    X: NDArray[np.float64], side: Mapping[str, NDArray[Any]], *, cols: NDArray[np.int64]
) -> NDArray[np.float64]:
    return np.asarray(X[:, cols[0]], dtype=np.float64)


def _concat(parts: list[NDArray[Any]]) -> NDArray[Any]:
    return np.concatenate(parts) if parts else np.empty(0)


class DataSiftAcquirer(Acquirer):
    """Acquire pool partitions chosen by a multi-armed bandit, keeping batches that help.

    Implements Algorithm 1 (DataSift) of Hasan & Pradhan (§3.2): the pool is split
    into partitions (arms); each round the bandit picks the partition with the highest score
    (UCB of eq. 2 by default), a batch is drawn from it at random, the model is retrained on
    the training set plus the batch, and the batch is kept only if the absolute fairness gap on
    the validation split changed and is no worse than the best so far. Every partition then
    receives a share of the fairness improvement through eq. (1) (base-rate difference and
    normalised centroid distance). The run stops when the gap is below ``tau``, the budget is
    spent or ``max_evaluations`` batches were evaluated. Defaults follow §4.1.3.

    Parameters
    ----------
    budget : int or float, default=1000
        Pool rows (or cost units) to acquire; the paper uses 20% of the pool.
    batch_size : int or float, default=100
        Rows (or cost units) per batch; the paper uses 10% of the budget.
    learner : str, default="lr"
        Learner name.
    metric : str, default="demographic_parity_diff_abs"
        Fairness metric whose absolute value steers (paper: demographic parity).
    track : sequence of str, default=fairacq.models.DEFAULT_METRICS
        Further metrics recorded.
    tau : float, default=0.01
        Fairness threshold of the early stop (paper: 0.01).
    max_evaluations : int or None, default=None
        Cap on evaluated batches (None: the pool divided by the batch size, the paper's bound).
    alpha : float, default=0.1
        Exploration weight of the UCB score, eq. (2) (paper: 0.1).
    policy : {"ucb", "thompson", "epsilon_greedy"}, default="ucb"
        The bandit policy; UCB is the paper's, the others its future work.
    reward : {"auto", "datasift", "distance", "base_rate"}, default="auto"
        How a round's improvement is shared among partitions: eq. (1) (``"datasift"``, what
        ``"auto"`` means here), or the §4.4 ablations.
    partitioning : {"gmm", "kmeans", "column"}, default="gmm"
        How the pool is split; GMM with k chosen by BIC is the paper's default.
    n_partitions : int or None, default=None
        Fixed number of partitions (None: BIC over 2..10 for GMM).
    partition_column : str or None, default=None
        Column for ``partitioning="column"`` (e.g. a state).
    max_partitions : int or None, default=None
        With column partitioning, keep only the largest this many values (paper: 4 states).
    k_selection : {"min", "knee"}, default="min"
        How BIC picks the number of GMM components: its minimum (the paper's text) or the
        knee of the BIC curve (the authors' code; see ``docs/paper-notes/datasift-bandit.md``).
    accuracy_weight : float, default=0.0
        DataSift-Inf only (fairacq's accuracy-aware variant, not in the paper): weight of the
        predicted decrease of the validation log-loss beside the predicted fairness
        improvement when rows are ranked (both standardised). 0 is the paper's ranking.
    refit : {"scratch", "partial"}, default="scratch"
        Retrain on all rows after a batch (the paper) or update the model with the batch
        only where the learner has ``partial_fit`` (the authors' code; see
        :class:`~fairacq.acquisition.Acquirer`).
    retire_tried : bool, default=True
        fairacq's guard against a stuck bandit (not in the paper): a partition whose open
        rows were all tried in rejected batches since the last kept batch is not offered
        until a batch is kept again (the model then changed, so a row rejected before may
        now help). Without it a partition whose rows never change fairness (ΔF = 0, reward
        0, scores unchanged) is re-drawn until the evaluation cap. When no partition is
        retired the choices are the paper's; when every one is, the run stops with
        ``stop_reason_ == "exhausted"``. DataSift-Inf skips rejected rows anyway. False
        re-offers rejected rows as Algorithm 1 literally does.
    cost_model : {"kept", "evaluated"}, default="kept"
        Which rows the budget pays: kept batches only (the paper) or every evaluated row
        (labels bought); see :class:`~fairacq.acquisition.Acquirer`.
    random_state : int, Generator, SeedSequence or None, default=None
        Controls partitioning, batch draws and the learner.

    Attributes
    ----------
    partitioning_ : Partitioning
        The pool's partitions (labels, centroids, sizes, BIC scores).
    base_rate_diffs_ : ndarray or None
        Intra-partition base-rate difference of each partition; None when the reward does
        not use it (AutoData's ``"distance"``): the pool's labels are then never read.
    dropped_partitions_ : list of int
        Partitions smaller than a batch, excluded as the paper does.
    acquired_, n_evaluations_, stop_reason_, model_
        See :class:`~fairacq.acquisition.Acquirer`.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **Acquirer._parameter_constraints,
        "alpha": [Interval(float, 0, None, closed="left")],
        "policy": [Options({"ucb", "thompson", "epsilon_greedy"})],
        "reward": [Options({"auto", "datasift", "distance", "base_rate"})],
        "partitioning": [Options({"gmm", "kmeans", "column"})],
        "n_partitions": [Interval(int, 1, None, closed="left"), None],
        "partition_column": [str, None],
        "max_partitions": [Interval(int, 1, None, closed="left"), None],
        "k_selection": [Options({"min", "knee"})],
        "accuracy_weight": [Interval(float, 0, None, closed="left")],
        "retire_tried": ["boolean"],
    }
    _use_influence: ClassVar[bool] = False
    _default_reward: ClassVar[str] = "datasift"

    def __init__(
        self,
        *,
        budget: float = 1000,
        batch_size: float = 100,
        learner: str = "lr",
        metric: str = "demographic_parity_diff_abs",
        track: Sequence[str] = DEFAULT_METRICS,
        tau: float = 0.01,
        max_evaluations: int | None = None,
        alpha: float = 0.1,
        policy: str = "ucb",
        reward: str = "auto",
        partitioning: str = "gmm",
        n_partitions: int | None = None,
        partition_column: str | None = None,
        max_partitions: int | None = None,
        k_selection: str = "min",
        accuracy_weight: float = 0.0,
        refit: str = "scratch",
        retire_tried: bool = True,
        cost_model: str = "kept",
        random_state: RandomState = None,
    ) -> None:
        super().__init__(
            budget=budget,
            batch_size=batch_size,
            learner=learner,
            metric=metric,
            track=track,
            tau=tau,
            max_evaluations=max_evaluations,
            refit=refit,
            cost_model=cost_model,
            random_state=random_state,
        )
        self.alpha = alpha
        self.policy = policy
        self.reward = reward
        self.partitioning = partitioning
        self.n_partitions = n_partitions
        self.partition_column = partition_column
        self.max_partitions = max_partitions
        self.k_selection = k_selection
        self.accuracy_weight = accuracy_weight
        self.retire_tried = retire_tried

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return "datasift-inf" if self._use_influence else "datasift"

    # -- one-off work --------------------------------------------------------------------
    def _prepare(
        self, state: AcquisitionState, validation: FairDataset, root: np.random.SeedSequence
    ) -> None:
        part_seed, policy_seed = _children(root, 2)
        if self.accuracy_weight and not self._use_influence:
            raise InvalidParameterError(
                f"{type(self).__name__}: accuracy_weight ranks rows by predicted influence, "
                "which only DataSift-Inf computes. Use method 'datasift-inf' or leave it at 0."
            )
        pool = state.pool
        parts = self._partition(state, part_seed)
        self.partitioning_ = parts
        kept = self._drop_small_partitions(parts, state)
        labels = parts.labels
        state.available &= np.isin(labels, np.asarray(kept, dtype=np.int64))
        self.base_rate_diffs_ = None
        if self._reward_kind() != "distance":
            self.base_rate_diffs_ = partition_base_rate_diffs(
                labels,
                pool.y,
                pool.s,
                n_partitions=parts.n_partitions,
                protected=_protected(pool),
                privileged=pool.privileged_code,
            )
        if self.base_rate_diffs_ is not None or self._use_influence:
            state.labels_seen[:] = True  # base rates and influence read every pool label
        self._distances = parts.normalised_distances()
        self._policy = make_policy(self.policy, **self._policy_params(policy_seed))
        self._policy.reset(parts.n_partitions)
        self._excluded = GrowingArray()
        # once, not every round: whether costs are all 1, and the most rows a batch can hold
        self._unit_costs = bool(np.allclose(state.costs, 1.0))
        self._fill_cap = fill_limit(state.costs, float(self.batch_size))
        self._open = state.available.copy()
        g = parts.n_partitions
        self._open_counts = np.bincount(labels[self._open], minlength=g).astype(np.int64)
        self._pointers = np.zeros(g, dtype=np.int64)
        self._tried = np.zeros(len(labels), dtype=bool)
        self._tried_counts = np.zeros(g, dtype=np.int64)
        self._retirements = 0
        if self._use_influence:
            self.pool_scores_ = pool_improvement_scores(
                state.model,
                state.train,
                validation,
                state.pool,
                metric=self.metric,
                executor=state.executor,
                accuracy_weight=float(self.accuracy_weight),
            )
        self._members = [self._arm_rows(labels, arm) for arm in range(g)]

    def _partition(self, state: AcquisitionState, seed: np.random.SeedSequence) -> Partitioning:
        """Partition the pool: by a column's values, or by clustering (GMM, k-means)."""
        pool = state.pool
        if self.partitioning != "column":
            return partition_pool(
                pool,
                method=cast(Any, self.partitioning),
                n_partitions=self.n_partitions,
                k_selection=cast(Any, self.k_selection),
                random_state=seed,
                executor=state.executor,
            )
        if self.partition_column is None:
            raise InvalidParameterError(
                f"{type(self).__name__}: partitioning='column' needs partition_column, "
                "e.g. partition_column='ST'."
            )
        return partition_pool(
            pool,
            method="column",
            column=partition_labels(pool, self.partition_column, executor=state.executor),
            max_partitions=self.max_partitions,
            executor=state.executor,
        )

    def _drop_small_partitions(
        self, parts: Partitioning, state: AcquisitionState
    ) -> NDArray[np.int64]:
        """Return the partitions that can fill a batch; warn about (and note) the others."""
        min_size = int(np.ceil(self.batch_size / max(float(np.median(state.costs)), 1e-12)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PartitionDroppedWarning)
            kept, dropped = drop_small_partitions(parts, min_size)
        for w in caught:
            warn_caller(str(w.message), PartitionDroppedWarning)
        self.dropped_partitions_ = [int(d) for d in dropped]
        return kept

    def _arm_rows(self, labels: NDArray[np.int64], arm: int) -> NDArray[np.int64]:
        rows = np.flatnonzero(labels == arm)
        if not self._use_influence:
            return rows
        return rows[np.lexsort((rows, -self.pool_scores_[rows]))]

    def _policy_params(self, seed: np.random.SeedSequence) -> dict[str, Any]:
        if self.policy == "ucb":
            return {"alpha": self.alpha}
        return {"random_state": seed}

    # -- one round -----------------------------------------------------------------------
    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        arms_open = self._open_counts > 0
        if self.retire_tried:  # a partition whose open rows were all tried and rejected
            arms_open &= self._tried_counts < self._open_counts
        if not arms_open.any():
            return Proposal(np.empty(0, dtype=np.int64))
        arm = int(self._policy.select(arms_open))
        if self._use_influence:
            return Proposal(self._top_open(arm, state), arm)
        members = self._members[arm]
        return Proposal(rng.permutation(members[self._open[members]]).astype(np.int64), arm)

    def _top_open(self, arm: int, state: AcquisitionState) -> NDArray[np.int64]:
        """Open rows of ``arm`` by decreasing score, enough to fill a batch.

        A pointer walks the arm's rows sorted once by predicted improvement, so building a
        batch costs about the batch size, not the pool size (§4.5: nearly flat in pool size).
        """
        order, ptr = self._members[arm], int(self._pointers[arm])
        while ptr < order.size and not self._open[order[ptr]]:
            ptr += 1
        self._pointers[arm] = ptr
        need = (
            _batch_len(order[ptr:], state.costs, self.batch_size, self._fill_cap)
            if ptr < order.size
            else 0
        )
        window = max(2 * need, 16)
        while True:
            chunk = order[ptr : ptr + window]
            chunk = chunk[self._open[chunk]]
            if chunk.size >= need or ptr + window >= order.size:
                return chunk.astype(np.int64)
            window *= 2

    def _close(self, rows: NDArray[np.int64]) -> None:
        rows = rows[self._open[rows]]
        self._open[rows] = False
        labels = self.partitioning_.labels
        np.subtract.at(self._open_counts, labels[rows], 1)
        tried = rows[self._tried[rows]]
        self._tried[tried] = False
        np.subtract.at(self._tried_counts, labels[tried], 1)

    def _try(self, rows: NDArray[np.int64]) -> None:
        """Mark the open rows of a rejected batch tried; count the partitions this retires."""
        rows = rows[self._open[rows] & ~self._tried[rows]]
        self._tried[rows] = True
        arms = self.partitioning_.labels[rows]
        np.add.at(self._tried_counts, arms, 1)
        arms = np.unique(arms)
        self._retirements += int((self._tried_counts[arms] == self._open_counts[arms]).sum())

    def _untry(self) -> None:
        """Forget the tried rows: a batch was kept, the model changed, every partition is open."""
        if self._tried_counts.any():
            self._tried[:] = False
            self._tried_counts[:] = 0

    def _reward_kind(self) -> str:
        return self._default_reward if self.reward == "auto" else self.reward

    def _accept(self, state: AcquisitionState, new_fairness: float) -> bool:
        # Algorithm 1, line 15: the batch changed fairness and is no worse than the best so far
        return bool(new_fairness != state.fairness and new_fairness <= state.best_fairness)

    def _feedback(
        self,
        state: AcquisitionState,
        proposal: Proposal,
        batch: NDArray[np.int64],
        improvement: float,
        accepted: bool,
        batch_cost: float,
    ) -> None:
        kind = self._reward_kind()
        rewards = share_reward(
            improvement, proposal.arm, self._distances, self.base_rate_diffs_, kind=cast(Any, kind)
        )
        if not self._unit_costs:
            rewards = reward_per_cost(rewards, batch_cost)
        self._policy.update(rewards, proposal.arm)
        if accepted:
            self._close(batch)
            self._untry()
        elif self._use_influence:
            # the same top rows would be proposed again; DataSift-Inf moves past them
            self._excluded.extend(batch)
            self._close(batch)
        else:
            self._try(batch)

    def _run_meta(self) -> dict[str, Any]:
        parts = self.partitioning_
        return {
            "n_partitions": parts.n_partitions,
            "partition_sizes": parts.sizes.tolist(),
            "dropped_partitions": self.dropped_partitions_,
            **({"partition_retirements": self._retirements} if self.retire_tried else {}),
        }

    def _resume_state(self) -> dict[str, Any]:
        # a read-only view of the append-only list: no copy, whatever the run's length
        return {"policy": self._policy.state_dict(), "excluded": self._excluded.view()}

    def _replay_accepted(self, state: AcquisitionState, batch: NDArray[np.int64]) -> None:
        self._close(batch)
        self._untry()

    def _replay_rejected(self, state: AcquisitionState, batch: NDArray[np.int64]) -> None:
        if not self._use_influence:  # DataSift-Inf's rejected rows come back as "excluded"
            self._try(batch)

    def _load_resume_state(self, state: dict[str, Any]) -> None:
        if "policy" in state:
            self._policy.load_state_dict(state["policy"])
        self._excluded = GrowingArray([int(i) for i in state.get("excluded", [])])
        self._close(self._excluded.view())


class DataSiftInfAcquirer(DataSiftAcquirer):
    """DataSift with influence-sorted batches (Hasan & Pradhan, Algorithm 2).

    Before the first round, the first-order influence of up-weighting each training point on a
    differentiable surrogate of the fairness metric (eqs. 3-5) is computed on the validation
    split, a ridge regressor learns training point -> influence, and every pool row is scored.
    Each round then takes the top rows of the chosen partition by predicted fairness
    improvement instead of a random batch. Needs a differentiable learner (``lr``,
    ``linear_svm``, ``mlp``). Parameters as :class:`DataSiftAcquirer`.

    Attributes
    ----------
    pool_scores_ : ndarray
        Predicted fairness improvement of each pool row (higher is better).
    """

    _use_influence: ClassVar[bool] = True
    _needs_gradients: ClassVar[bool] = True


class AutoDataAcquirer(DataSiftAcquirer):
    """The AutoData baseline (Chai et al. 2022) as Hasan & Pradhan ran it (§4.1.2).

    AutoData's bandit shares rewards by centroid distance only, and Hasan & Pradhan switched its
    constraint from accuracy to fairness: this is DataSift with ``reward="distance"``.
    Parameters as :class:`DataSiftAcquirer` (``reward="auto"`` means ``"distance"`` here).
    """

    _default_reward: ClassVar[str] = "distance"

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return "autodata"


def _children(root: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """Return the fixed one-off children of ``root`` (independent of the steps' streams)."""
    return [child(root, KEY_PREPARE + i) for i in range(n)]


def _batch_len(
    candidates: NDArray[np.int64], costs: NDArray[np.float64], cap: float, limit: int
) -> int:
    """Return how many first candidates fit in ``cap``, summing at most ``limit`` costs.

    ``limit`` is :func:`~fairacq.acquisition.loop._ledger.fill_limit` of the pool: no more rows
    fit, so the first ``limit`` sums decide (the same sums, bit for bit, as over all); only
    if they all fit is the rest summed too.
    """
    head = candidates[:limit]
    fits = int((np.cumsum(costs[head]) <= cap + 1e-9).sum())
    if fits < head.size or head.size == candidates.size:
        return fits
    return int((np.cumsum(costs[candidates]) <= cap + 1e-9).sum())


def _protected(pool: PoolSource) -> int | None:
    priv = pool.privileged_code
    if priv is None or pool.n_groups != 2:
        return None
    return 1 - priv
