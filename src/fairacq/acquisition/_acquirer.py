"""The acquisition loop that every pool-based method shares.

A method decides which pool rows to try next (:meth:`Acquirer._propose` returns candidates in
priority order); the loop fills a batch from them up to the batch size (or the batch cost when
rows have costs), retrains the learner on the training set plus the batch, measures fairness
and accuracy on the validation split, and asks the method whether to keep the batch
(:meth:`Acquirer._accept`) and what it learned (:meth:`Acquirer._feedback`). The validation
split steers; the test split is only reported. One trace row is recorded per evaluation.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._base import Strategy
from fairacq._callbacks import Callback, run_callbacks
from fairacq._trace import Trace, TraceRecorder
from fairacq._validation import Interval, Options
from fairacq.acquisition._chunk_map import ChunkExecutor
from fairacq.acquisition._pool_source import InMemoryPool, PoolSource, as_pool_source
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError, InvalidDataError
from fairacq.metrics import available
from fairacq.models import (
    DEFAULT_METRICS,
    available_learners,
    evaluate,
    learner_spec,
    make_learner,
    partial_update,
)

__all__ = ["Acquirer", "AcquisitionState", "Proposal"]


@dataclass
class AcquisitionState:
    """What a method may look at when it proposes the next batch.

    Attributes
    ----------
    train : FairDataset
        Training rows so far (initial plus accepted batches).
    pool : PoolSource
        The whole candidate pool (positions index it): an :class:`InMemoryPool` or a
        streamed :class:`ParquetPool`; score it with ``pool.map_blocks``.
    available : ndarray of bool
        Pool positions not yet acquired (and not excluded by the method).
    costs : ndarray of float
        Acquisition cost of each pool row (ones when the pool has no cost column).
    model : estimator
        The learner fitted on ``train``.
    fairness : float
        The steering metric of ``model`` on the validation split.
    best_fairness : float
        The best (smallest absolute) steering value accepted so far.
    evaluation : int
        Number of batches evaluated so far.
    X_pool : ndarray of shape (len(pool), n_features)
        The pool's features as one float array for an in-memory pool; empty (0, 0) for a
        streamed one. Methods read the pool through ``pool`` instead.
    extra : dict
        Scratch space for a method.
    executor : ChunkExecutor or None
        Where per-block scoring of the pool runs (None: serially here).
    """

    train: FairDataset
    pool: PoolSource
    available: NDArray[np.bool_]
    costs: NDArray[np.float64]
    model: Any
    fairness: float
    best_fairness: float
    evaluation: int = 0
    X_pool: NDArray[np.float64] = field(default_factory=lambda: np.empty((0, 0)))
    extra: dict[str, Any] = field(default_factory=dict)
    executor: ChunkExecutor | None = None


@dataclass(frozen=True)
class Proposal:
    """Candidates for the next batch, in priority order, and the arm they come from."""

    candidates: NDArray[np.int64]
    arm: int = -1


class Acquirer(Strategy):
    """Base class of pool-based acquirers (paper 000's methods and baselines).

    Parameters
    ----------
    budget : int or float
        Pool rows to acquire in total (or cost units when the pool has costs).
    batch_size : int or float
        Rows per batch (or cost units per batch when the pool has costs).
    learner : str
        Name from :func:`fairacq.models.available_learners`.
    metric : str
        Fairness metric that steers and is reported (absolute value is minimised); any of
        :func:`fairacq.metrics.available`.
    track : sequence of str
        Further metrics recorded at every step (accuracy is always among them).
    tau : float
        Early stop once the absolute steering metric on validation is below ``tau``
        (0 disables it).
    max_evaluations : int or None
        Cap on the batches evaluated (None: ``ceil(pool cost / batch size)``).
    refit : {"scratch", "partial"}
        How a candidate model learns a batch. ``"scratch"`` (the paper's text) retrains on
        the training rows plus the batch. ``"partial"`` (the authors' public code) updates a
        copy of the current model with one ``partial_fit`` pass over the batch's rows only,
        for learners that have one (``LearnerSpec.partial_fit``: the MLP); the others are
        still retrained from scratch, as the authors' code does for trees. The trace records
        which was used (``meta["refit_used"]``).
    random_state : int, Generator, SeedSequence or None
        Controls every random draw.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "budget": [Interval(float, 0, None, closed="neither")],
        "batch_size": [Interval(float, 0, None, closed="neither")],
        "learner": [Options(available_learners())],
        "metric": [Options(available())],
        "track": [list, tuple],
        "tau": [Interval(float, 0, None, closed="left")],
        "max_evaluations": [Interval(int, 1, None, closed="left"), None],
        "refit": [Options({"scratch", "partial"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        budget: float = 1000,
        batch_size: float = 100,
        learner: str = "lr",
        metric: str = "demographic_parity_diff_abs",
        track: Sequence[str] = DEFAULT_METRICS,
        tau: float = 0.0,
        max_evaluations: int | None = None,
        refit: str = "scratch",
        random_state: Any = None,
    ) -> None:
        self.budget = budget
        self.batch_size = batch_size
        self.learner = learner
        self.metric = metric
        self.track = track
        self.tau = tau
        self.max_evaluations = max_evaluations
        self.refit = refit
        self.random_state = random_state

    # -- hooks a method implements ---------------------------------------------------------
    def _prepare(
        self, state: AcquisitionState, validation: FairDataset, root: np.random.SeedSequence
    ) -> None:
        """Do one-off work before the first batch (partitioning, influence, ...)."""

    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        """Return candidate pool positions for the next batch, best first."""
        raise NotImplementedError

    def _accept(self, state: AcquisitionState, new_fairness: float) -> bool:
        """Whether to keep an evaluated batch (default: always)."""
        return True

    def _feedback(
        self,
        state: AcquisitionState,
        proposal: Proposal,
        batch: NDArray[np.int64],
        improvement: float,
        accepted: bool,
        batch_cost: float,
    ) -> None:
        """Learn from an evaluated batch (bandit updates)."""

    def _run_meta(self) -> dict[str, Any]:
        """Extra metadata for the finished trace (e.g. partitions dropped)."""
        return {}

    def _resume_state(self) -> dict[str, Any]:
        """JSON-ready state needed to resume after the current step."""
        return {}

    def _load_resume_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`_resume_state` returned."""

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return type(self).__name__.removesuffix("Acquirer").lower()

    # -- the loop ----------------------------------------------------------------------------
    def run(
        self,
        train: FairDataset,
        pool: FairDataset | PoolSource,
        *,
        validation: FairDataset,
        test: FairDataset | None = None,
        costs: Any = None,
        continue_from: Trace | None = None,
        callbacks: Sequence[Callback] = (),
        executor: ChunkExecutor | None = None,
    ) -> Trace:
        """Acquire pool rows batch by batch and record each evaluation.

        Parameters
        ----------
        train : FairDataset
            The initial (often biased) training set.
        pool : FairDataset or PoolSource
            Candidate rows, same columns and groups as ``train``: in memory, or a
            :class:`~fairacq.acquisition.ParquetPool` streamed chunk by chunk (only a few
            bytes per row stay in memory). With the same seed and rows, both give the same
            acquisition order.
        validation : FairDataset
            Steers acquisition: every decision uses fairness measured here.
        test : FairDataset or None, default=None
            Only reported, never used to decide.
        costs : array-like of shape (len(pool),) or None, default=None
            Cost of acquiring each pool row; ``budget`` and ``batch_size`` are then in cost units.
            None means the pool's cost column (``ParquetPool(cost_column=...)``) or, without
            one, every row costs 1 (the paper's setting).
        continue_from : Trace or None, default=None
            A checkpoint of an interrupted run with the same inputs and parameters; the run
            replays its accepted batches, restores the method's state and goes on.
        callbacks : sequence of callables
            Called after each evaluation with the recorder; one returning ``False`` stops.
        executor : ChunkExecutor or None, default=None
            Where the pool's blocks are scored (partitioning, influence, entropy): None runs
            them here, :class:`~fairacq.acquisition.DaskChunkExecutor` on a dask cluster.

        Returns
        -------
        Trace
            Step 0 is the initial model. Each later step is one evaluated batch with columns
            ``batch`` (pool positions), ``arm``, ``accepted``, ``batch_cost``, ``n_train``,
            ``val_<metric>`` / ``test_<metric>`` of the current model and
            ``candidate_val_fairness`` of the evaluated one. ``cost`` is the cost acquired.

        Raises
        ------
        BudgetError
            If the budget exceeds the pool or the batch exceeds the budget.
        InvalidDataError
            If the splits differ in columns or groups, costs are invalid, or the training set
            has a single class.
        """
        self._validate_params()
        source = as_pool_source(pool)
        if costs is None:
            costs = source.costs
        cost_arr = self._check_inputs(train, source, validation, test, costs)
        del pool
        root = self._seed_sequence()
        learner_seed = int(root.generate_state(1)[0])
        metrics = list(dict.fromkeys(["accuracy", self.metric, *self.track]))
        rec = TraceRecorder(
            method=self.method_name,
            config=self._config(),
            random_state=self.random_state,
            continue_from=continue_from,
            dataset=train.name,
            pool_size=len(source),
            cost_model="uniform" if costs is None else "per-row",
        )

        incremental = self.refit == "partial" and learner_spec(self.learner).partial_fit

        def fit(data: FairDataset) -> Any:
            return make_learner(self.learner, random_state=learner_seed).fit(
                data.to_numpy(), data.y
            )

        def learn(model: Any, data: FairDataset, batch_rows: FairDataset) -> Any:
            """Return the model after ``batch_rows`` joined ``data`` (its last rows)."""
            if incremental:
                return partial_update(model, batch_rows.to_numpy(), batch_rows.y)
            return fit(data)

        available_mask = np.ones(len(source), dtype=bool)
        spent = 0.0
        current = train
        replayed: list[FairDataset] = []
        if continue_from is not None:
            for row in continue_from.to_frame().to_dict("records"):
                if row.get("accepted") and row.get("step", 0) > 0:
                    batch = np.asarray(_as_list(row.get("batch")), dtype=np.int64)
                    available_mask[batch] = False
                    spent += float(cost_arr[batch].sum())
                    replayed.append(source.take(batch))
                    current = current.concat(replayed[-1])
        if incremental:  # replay the updates in order: the model depends on its history
            model = fit(train)
            for batch_rows in replayed:
                model = learn(model, current, batch_rows)
        else:
            model = fit(current)
        val = evaluate(model, validation, metrics)
        fairness = abs(val[self.metric])
        state = AcquisitionState(
            current,
            source,
            available_mask,
            cost_arr,
            model,
            fairness,
            fairness,
            X_pool=source.X if isinstance(source, InMemoryPool) else np.empty((0, 0)),
            executor=executor,
        )
        clock = time.perf_counter()
        self._prepare(state, validation, root)
        timings = {"prepare_s": time.perf_counter() - clock, "propose_s": 0.0, "fit_s": 0.0}
        if continue_from is None:
            rec.record(
                cost=0.0,
                batch=[],
                arm=-1,
                accepted=True,
                batch_cost=0.0,
                n_train=len(current),
                candidate_val_fairness=fairness,
                **self._measure(val, model, test, metrics),
            )
        else:
            resume = continue_from.meta.get("resume_state", {})
            state.best_fairness = float(resume.get("best_fairness", fairness))
            state.evaluation = int(resume.get("evaluation", len(continue_from) - 1))
            self._load_resume_state(resume.get("method", {}))
        cap = self.max_evaluations or int(np.ceil(cost_arr.sum() / self.batch_size)) + 1
        self.stop_reason_ = "budget"
        while True:
            if state.best_fairness < self.tau:
                self.stop_reason_ = "tau"
                break
            if state.evaluation >= cap:
                self.stop_reason_ = "max_evaluations"
                break
            remaining = self.budget - spent
            if remaining < np.min(cost_arr[available_mask], initial=np.inf):
                break
            clock = time.perf_counter()
            proposal = self._propose(state, _round_rng(root, state.evaluation))
            timings["propose_s"] += time.perf_counter() - clock
            batch = _fill_batch(proposal.candidates, cost_arr, min(self.batch_size, remaining))
            if batch.size == 0:
                self.stop_reason_ = "exhausted"
                break
            state.evaluation += 1
            batch_cost = float(cost_arr[batch].sum())
            batch_rows = source.take(batch)
            candidate_data = state.train.concat(batch_rows)
            clock = time.perf_counter()
            candidate = learn(state.model, candidate_data, batch_rows)
            timings["fit_s"] += time.perf_counter() - clock
            cand_val = evaluate(candidate, validation, metrics)
            new_fairness = abs(cand_val[self.metric])
            improvement = state.fairness - new_fairness
            accepted = self._accept(state, new_fairness)
            self._feedback(state, proposal, batch, improvement, accepted, batch_cost)
            if accepted:
                available_mask[batch] = False
                spent += batch_cost
                state.train, state.model, state.fairness = candidate_data, candidate, new_fairness
                state.best_fairness = min(state.best_fairness, new_fairness)
                val = cand_val
            rec.record(
                cost=spent,
                batch=batch.tolist(),
                arm=proposal.arm,
                accepted=accepted,
                batch_cost=batch_cost,
                n_train=len(state.train),
                candidate_val_fairness=new_fairness,
                **self._measure(val, state.model, test, metrics),
            )
            rec.set_resume_state(
                {
                    "best_fairness": state.best_fairness,
                    "evaluation": state.evaluation,
                    "method": self._resume_state(),
                }
            )
            if not run_callbacks(list(callbacks), rec):
                self.stop_reason_ = "callback"
                break
        acquired = [int(i) for r in _rec_rows(rec) if r["accepted"] for i in r["batch"]]
        self.acquired_ = np.asarray(acquired, dtype=np.int64)
        self.n_evaluations_ = state.evaluation
        self.model_ = state.model
        self.timings_ = timings
        return rec.finish(
            stop_reason=self.stop_reason_,
            timings=timings,
            refit_used="partial" if incremental else "scratch",
            **self._run_meta(),
        )

    # -- helpers ---------------------------------------------------------------------------
    def _config(self) -> dict[str, Any]:
        return {k: v for k, v in self.get_params(deep=False).items() if k != "random_state"}

    def _measure(
        self, val: dict[str, float], model: Any, test: FairDataset | None, metrics: list[str]
    ) -> dict[str, float]:
        out = {f"val_{k}": v for k, v in val.items()}
        if test is not None:
            out.update({f"test_{k}": v for k, v in evaluate(model, test, metrics).items()})
        return out

    def _seed_sequence(self) -> np.random.SeedSequence:
        rs = self.random_state
        if isinstance(rs, np.random.SeedSequence):
            return rs
        if isinstance(rs, np.random.Generator):
            return np.random.SeedSequence(int(rs.integers(2**63)))
        return np.random.SeedSequence(rs)

    def _check_inputs(
        self,
        train: FairDataset,
        pool: PoolSource,
        validation: FairDataset,
        test: FairDataset | None,
        costs: Any,
    ) -> NDArray[np.float64]:
        name = type(self).__name__
        for label, other in (("pool", pool), ("validation", validation), ("test", test)):
            if other is not None and (
                other.feature_names != train.feature_names
                or other.group_names != train.group_names
            ):
                raise InvalidDataError(
                    f"{name}: the {label} set's columns or groups differ from the training "
                    "set's. Split one FairDataset (fairacq.data.split_datasift)."
                )
        if len(np.unique(train.y)) < 2:
            raise InvalidDataError(
                f"{name}: the training set holds a single class ({int(train.y[0])}). "
                "A classifier needs both labels; add rows of the other class."
            )
        if costs is None:
            cost_arr = np.ones(len(pool))
        else:
            cost_arr = np.asarray(costs, dtype=np.float64)
            if (
                cost_arr.shape != (len(pool),)
                or not np.all(np.isfinite(cost_arr))
                or (cost_arr <= 0).any()
            ):
                raise InvalidDataError(
                    f"{name}: costs must hold one finite positive number per pool row "
                    f"({len(pool)}). Got shape {cost_arr.shape}; fix or drop bad rows."
                )
        unit = "cost" if costs is not None else "pool size"
        total = float(cost_arr.sum())
        if self.budget > total:
            raise BudgetError(
                f"The 'budget' parameter of {name} must be in (0, {total:g}] (the {unit}). "
                f"Got {self.budget} instead. Lower budget or pass a larger pool."
            )
        if self.batch_size > self.budget:
            raise BudgetError(
                f"The 'batch_size' of {name} ({self.batch_size}) exceeds its budget "
                f"({self.budget}). Use a batch no larger than the budget."
            )
        return cost_arr


def _rec_rows(rec: TraceRecorder) -> list[dict[str, Any]]:
    """Return the rows recorded so far, excluding the initial step."""
    frame = rec.finish().to_frame()
    return [{str(k): v for k, v in r.items()} for r in frame.to_dict("records") if r["step"] > 0]


def _fill_batch(
    candidates: NDArray[np.int64], costs: NDArray[np.float64], capacity: float
) -> NDArray[np.int64]:
    """Take candidates in order while their cumulative cost fits in ``capacity``."""
    if candidates.size == 0:
        return candidates
    cum = np.cumsum(costs[candidates])
    return candidates[cum <= capacity + 1e-9]


def _round_rng(root: np.random.SeedSequence, step: int) -> np.random.Generator:
    """Return the stream of evaluation ``step``, a fixed child of the run's seed (resumable)."""
    return np.random.default_rng(
        np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, step))
    )


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(np.asarray(value).ravel())
