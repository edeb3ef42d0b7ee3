"""The acquisition loop that every pool-based method shares.

A method decides which pool rows to try next (:meth:`Acquirer._propose` returns candidates in
priority order); the loop fills a batch from them up to the batch size (or the batch cost when
rows have costs), retrains the learner on the training set plus the batch, measures fairness
and accuracy on the validation split, and asks the method whether to keep the batch
(:meth:`Acquirer._accept`) and what it learned (:meth:`Acquirer._feedback`). The validation
split steers; the test split is only reported. One trace row is recorded per evaluation.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._loop import run_loop
from fairacq._random import RandomState, seed_of
from fairacq._trace import Trace
from fairacq._validation import HasMethods, Interval, Options
from fairacq.acquisition.loop._acquisition_loop import AcquisitionLoop
from fairacq.acquisition.loop._ledger import COST_MODELS
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.pools._chunk_map import ChunkExecutor
from fairacq.acquisition.pools._pool_source import PoolSource, as_pool_source
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError, InvalidDataError, InvalidParameterError
from fairacq.metrics import available, get_metric
from fairacq.models import DEFAULT_METRICS, available_learners, describe_learner

__all__ = ["Acquirer", "AcquisitionState", "Proposal"]


class Acquirer(Strategy):
    """Base class of pool-based acquirers (Hasan & Pradhan's methods and baselines).

    Parameters
    ----------
    budget : int or float
        Pool rows to pay for in total (or cost units when the pool has costs); which rows are
        paid is ``cost_model``'s.
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
    cost_model : {"kept", "evaluated"}
        Which rows are paid. ``"kept"`` (Hasan & Pradhan's DataSift): the pool is labelled and only
        kept batches are paid; a rejected batch is handed back at no cost. ``"evaluated"``
        (labels are bought): every row a batch tries is paid, once (a row tried again is not
        paid twice), so the budget bounds the rows evaluated and the run stops when the paid
        rows reach it. Methods that keep every batch (Random, Entropy, Inf) run the same under
        both. The trace's ``cost`` is the cost paid under the model; ``rows_paid``,
        ``labels_seen`` and ``rows_evaluated`` count the rest (:meth:`fit`).
    random_state : int, Generator, SeedSequence, RandomState or None
        Controls every random draw.

    Attributes
    ----------
    trace_ : Trace
        The trace of the last :meth:`fit`: one row per evaluation (see :meth:`fit`).
    acquired_ : ndarray of int
        Pool positions acquired, in order.
    stop_reason_ : str
        ``"budget"``, ``"tau"``, ``"max_evaluations"``, ``"exhausted"`` or ``"callback"``.
    n_evaluations_ : int
        Batches evaluated (kept or not).
    model_ : estimator
        The learner fitted on the final training set.
    initial_model_ : estimator
        The learner fitted on the initial training set (step 0 of the trace).
    costs_ : ndarray of float
        The cost of each pool row the run used (ones without per-row costs).
    timings_ : dict
        Seconds spent preparing, proposing and fitting.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "budget": [Interval(float, 0, None, closed="neither")],
        "batch_size": [Interval(float, 0, None, closed="neither")],
        "learner": [Options(available_learners()), HasMethods(["fit", "predict_proba"])],
        "metric": [Options(available())],
        "track": [list, tuple],
        "tau": [Interval(float, 0, None, closed="left")],
        "max_evaluations": [Interval(int, 1, None, closed="left"), None],
        "refit": [Options({"scratch", "partial"})],
        "cost_model": [Options(set(COST_MODELS))],
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
        cost_model: str = "kept",
        random_state: RandomState = None,
    ) -> None:
        self.budget = budget
        self.batch_size = batch_size
        self.learner = learner
        self.metric = metric
        self.track = track
        self.tau = tau
        self.max_evaluations = max_evaluations
        self.refit = refit
        self.cost_model = cost_model
        self.random_state = random_state

    # -- hooks a method implements ---------------------------------------------------------
    def _prepare(
        self, state: AcquisitionState, validation: FairDataset, root: np.random.SeedSequence
    ) -> None:
        """Do one-off work before the first batch (partitioning, influence, ...).

        A method that reads pool labels here (to rank or partition) marks them in
        ``state.labels_seen``; the trace counts them in ``labels_seen``.
        """

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

    def _replay_accepted(self, state: AcquisitionState, batch: NDArray[np.int64]) -> None:
        """Re-apply what keeping ``batch`` did to the method (a resumed run replays it)."""

    def _replay_rejected(self, state: AcquisitionState, batch: NDArray[np.int64]) -> None:
        """Re-apply what rejecting ``batch`` did to the method (a resumed run replays it)."""

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return type(self).__name__.removesuffix("Acquirer").lower()

    # -- the loop ----------------------------------------------------------------------------
    def fit(
        self,
        train: FairDataset,
        pool: FairDataset | PoolSource,
        *,
        validation: FairDataset,
        test: FairDataset | None = None,
        costs: ArrayLike | None = None,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
        executor: ChunkExecutor | None = None,
    ) -> Self:
        """Acquire pool rows batch by batch and record each evaluation in ``trace_``.

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
        continue_from : Trace, path or None, default=None
            A checkpoint of an interrupted run with the same inputs and parameters (a
            :class:`~fairacq.Trace`, the path :class:`~fairacq.CheckpointCallback` wrote, or a
            folder holding ``trace.parquet``); the run prepares on the initial data as the
            uninterrupted run did, replays the accepted batches, restores the method's state
            and goes on: the result equals the uninterrupted run's.
        callbacks : sequence of callables
            Called after each evaluation with the recorder; one returning ``False`` stops.
        executor : ChunkExecutor or None, default=None
            Where the pool's blocks are scored (partitioning, influence, entropy): None runs
            them here, :class:`~fairacq.acquisition.DaskChunkExecutor` on a dask cluster.

        Returns
        -------
        Acquirer
            ``self``, fitted: ``trace_`` holds the run's :class:`~fairacq.Trace`, whose
            step 0 is the initial model. Each later step is one evaluated batch with columns
            ``batch`` (pool positions), ``arm``, ``accepted``, ``batch_cost``, ``n_train``,
            ``val_<metric>`` / ``test_<metric>`` of the current model and
            ``candidate_val_fairness`` of the evaluated one. ``cost`` is the cost paid
            under ``cost_model`` (with ``"kept"``: the cost acquired). Cumulative counts:
            ``rows_paid`` (rows paid under ``cost_model``), ``labels_seen`` (pool rows whose
            label the method looked at: every evaluated batch's rows, plus the pool labels its
            ranking or partitioning read, e.g. the whole pool for DataSift's base-rate
            differences and for influence scores) and ``rows_evaluated`` (rows tried in
            evaluated batches; a row tried twice counts twice).

        Raises
        ------
        BudgetError
            If the budget exceeds the pool or the batch exceeds the budget.
        InvalidDataError
            If the splits differ in columns or groups, costs are invalid, or the training set
            has a single class.
        """
        self._validate_params()
        self._check_metric()
        self._check_learner()
        source = as_pool_source(pool)
        if costs is None:
            costs = source.costs
        cost_arr = self._check_inputs(train, source, validation, test, costs)
        if continue_from is not None:
            self._check_resumable(continue_from, len(source))
        del pool
        loop = self._loop_class(
            self,
            train,
            source,
            validation=validation,
            test=test,
            costs=cost_arr,
            executor=executor,
        )
        result = run_loop(
            loop,
            method=self.method_name,
            config=self._config(),
            random_state=self.random_state,
            continue_from=continue_from,
            callbacks=callbacks,
            dataset=train.name,
            pool_size=len(source),
            cost_model="uniform" if costs is None else "per-row",
        )
        frame = result.trace.to_frame()
        kept = frame[(frame["step"] > 0) & frame["accepted"].astype(bool)]
        self.acquired_ = np.asarray([int(i) for b in kept["batch"] for i in b], dtype=np.int64)
        self.stop_reason_ = result.stop_reason
        self.n_evaluations_ = loop.state.evaluation
        self.model_ = loop.state.model
        self.initial_model_ = loop.initial_model
        self.costs_ = cost_arr
        self.timings_ = loop.timings
        self.trace_ = result.trace
        self._after_run(frame)
        return self

    #: The loop the run uses (a subclass may pay for rows it then postpones, as Falcon does).
    _loop_class: ClassVar[type[AcquisitionLoop]] = AcquisitionLoop

    def _after_run(self, frame: Any) -> None:
        """Set further fitted attributes from the run's trace frame (none by default)."""

    # -- helpers ---------------------------------------------------------------------------
    #: Whether the method computes influence, which needs a model with gradients.
    _needs_gradients: ClassVar[bool] = False

    #: Parameters a resumed run may change: they only decide when the run stops.
    _STOP_PARAMS: ClassVar[frozenset[str]] = frozenset({"budget", "max_evaluations", "tau"})

    def _check_resumable(self, continue_from: Any, pool_size: int) -> None:
        """Refuse a checkpoint of another seed, pool size or step-changing parameters."""
        from fairacq._artefact import to_jsonable
        from fairacq._loop import open_checkpoint

        meta = open_checkpoint(continue_from).trace.meta
        seed = seed_of(self.random_state)["seed"]
        _check_same_run(type(self).__name__, meta, seed, pool_size)
        saved = meta.get("config")
        ours = to_jsonable(self._config())
        if not isinstance(saved, dict):
            saved = {}
        changed = sorted(
            k for k in set(saved) | set(ours)
            if k not in self._STOP_PARAMS and saved.get(k) != ours.get(k)
        )  # fmt: skip
        if changed:
            shown = ", ".join(f"{k}={saved.get(k)!r} (now {ours.get(k)!r})" for k in changed[:3])
            raise InvalidDataError(
                f"{type(self).__name__}: continue_from was written with {shown}. Resume with "
                "the parameters of the run that wrote the checkpoint, or start afresh."
            )

    def _check_metric(self) -> None:
        """Refuse a metric whose absolute value is not a model's unfairness (ideal 0)."""
        record = get_metric(self.metric)
        needs = set(record.needs)
        if (
            record.ideal == 0.0
            and "s" in needs
            and needs & {"y_pred", "scores"}
            and not (needs & {"items", "proxy"})
        ):
            return
        raise InvalidParameterError(
            f"{type(self).__name__}: metric {self.metric!r} cannot steer acquisition, which "
            "drives the metric's absolute value towards 0: that fits only a gap between the "
            "groups in a model's decisions. Use e.g. demographic_parity_diff_abs (dp), "
            "equalized_odds_diff (eo) or equal_opportunity_diff (eopp)."
        )

    def _check_learner(self) -> None:
        """Refuse, before any work, a user's model this method cannot use."""
        from fairacq.valuation import has_gradients

        if isinstance(self.learner, str):
            return
        name = describe_learner(self.learner)
        if self._needs_gradients and not has_gradients(self.learner):
            raise InvalidParameterError(
                f"{self.method_name} computes influence, which needs a model with gradients "
                f"(LogisticRegression, a calibrated LinearSVC or MLPClassifier, alone or last "
                f"in a Pipeline); {name} has none. With this model use random, entropy, "
                "autodata or datasift."
            )
        if self.refit == "partial" and not hasattr(self.learner, "partial_fit"):
            raise InvalidParameterError(
                f"refit='partial' updates the model with partial_fit, which {name} lacks. "
                "Use refit='scratch'."
            )

    def _config(self) -> dict[str, Any]:
        config = {k: v for k, v in self.get_params(deep=False).items() if k != "random_state"}
        config["learner"] = describe_learner(self.learner)
        return config

    def _check_inputs(
        self,
        train: FairDataset,
        pool: PoolSource,
        validation: FairDataset,
        test: FairDataset | None,
        costs: Any,
    ) -> NDArray[np.float64]:
        name = type(self).__name__
        _check_types(name, train=train, validation=validation, test=test)
        for label, other in (("pool", pool), ("validation", validation), ("test", test)):
            if other is not None and (
                other.feature_names != train.feature_names
                or other.group_names != train.group_names
            ):
                what = (
                    f"groups {other.group_names} differ from the training set's "
                    f"{train.group_names}"
                    if other.feature_names == train.feature_names
                    else "feature columns differ from the training set's"
                )
                raise InvalidDataError(
                    f"{name}: the {label} set's {what}. Give every part rows of every group "
                    "and the same columns (or split one FairDataset)."
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
        cheapest = float(cost_arr.min())
        if cheapest > self.batch_size:
            raise BudgetError(
                f"{name}: every pool row costs more than a batch holds (the cheapest costs "
                f"{cheapest:g}, batch_size is {self.batch_size:g}), so nothing could be "
                f"acquired. Raise the batch to at least {cheapest:g} or lower the costs."
            )
        return cost_arr


def _check_types(name: str, **splits: Any) -> None:
    """Refuse a split that is not a FairDataset (test may be None) with the fix."""
    for label, value in splits.items():
        if value is None and label == "test":
            continue
        if not isinstance(value, FairDataset):
            got = "None" if value is None else type(value).__name__
            raise InvalidDataError(
                f"{name}.fit: {label} must be a FairDataset, got {got}. Build one with "
                "fairacq.FairDataset(X, y, sensitive) or split one with "
                "fairacq.data.split_datasift."
            )


def _check_same_run(who: str, meta: Mapping[str, Any], seed: Any, pool_size: int) -> None:
    """Refuse a checkpoint (trace ``meta``) written with another seed or pool size."""
    checks = (("seed", meta.get("seed"), seed), ("pool size", meta.get("pool_size"), pool_size))
    for what, then, now in checks:
        if then is not None and now is not None and then != now:
            raise InvalidParameterError(
                f"{who}: continue_from was written with {what} {then}, but this run has "
                f"{now}. Resume with the seed and pool of the run that wrote the checkpoint, "
                "or start afresh."
            )
