"""One acquisition run as a :class:`~fairacq._loop.RunLoop`: batches proposed, refit, kept."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._loop import RunLoop
from fairacq._random import child_rng
from fairacq.acquisition.loop._exact_refit import ExactRefit
from fairacq.acquisition.loop._ledger import CostLedger, fill_batch
from fairacq.acquisition.loop._state import AcquisitionState
from fairacq.acquisition.pools._chunk_map import ChunkExecutor
from fairacq.acquisition.pools._pool_source import InMemoryPool, PoolSource
from fairacq.data import FairDataset
from fairacq.models import (
    evaluate,
    learner_spec,
    partial_update,
)

__all__ = ["AcquisitionLoop", "fill_batch"]


class AcquisitionLoop(RunLoop):
    """The loop of :meth:`Acquirer.fit <fairacq.acquisition.Acquirer.fit>`.

    Step 0 is the model on the initial training set; every later step evaluates one batch.
    A resumed run prepares the method on the initial state, as the uninterrupted run did, then
    replays the evaluated batches and restores the method's state. ``acquirer`` is the
    :class:`~fairacq.acquisition.Acquirer` whose hooks (``_prepare``, ``_propose``, ...) it calls.
    What is paid, tried and seen is kept by a
    :class:`~fairacq.acquisition.loop._ledger.CostLedger`.
    """

    def __init__(
        self,
        acquirer: Any,
        train: FairDataset,
        source: PoolSource,
        *,
        validation: FairDataset,
        test: FairDataset | None,
        costs: NDArray[np.float64],
        executor: ChunkExecutor | None,
    ) -> None:
        self.acq = acquirer
        self.train = train
        self.source = source
        self.validation = validation
        self.test = test
        self.costs = costs
        self.executor = executor
        self.metrics = list(dict.fromkeys(["accuracy", acquirer.metric, *acquirer.track]))
        learner = acquirer.learner
        self.incremental = acquirer.refit == "partial" and bool(
            learner_spec(learner).partial_fit
            if isinstance(learner, str)
            else hasattr(learner, "partial_fit")
        )
        self.cap = acquirer.max_evaluations or int(np.ceil(costs.sum() / acquirer.batch_size)) + 1
        self.timings = {"prepare_s": 0.0, "propose_s": 0.0, "fit_s": 0.0}
        self._replayed: list[FairDataset] = []
        # validation and test features as arrays once, not converted again every round
        self._features = {id(d): d.to_numpy() for d in (validation, test) if d is not None}
        self._val_scores: tuple[Any, NDArray[np.float64]] | None = None
        self._refit = ExactRefit(learner)  # make_learner(...).fit, the same model cheaper
        self._test_metrics: tuple[Any, dict[str, float]] | None = None
        self._train_arrays: tuple[FairDataset, NDArray[np.float64], NDArray[np.int64]] | None
        self._train_arrays = None

    # -- models ------------------------------------------------------------------------------
    def _fit(self, data: FairDataset) -> Any:
        return self._refit.fit(self._learner_seed, *self._arrays_of(data))

    def _arrays_of(self, data: FairDataset) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Return the features and labels of the training set ``data`` (converted once a set)."""
        if self._train_arrays is None or self._train_arrays[0] is not data:
            self._train_arrays = (data, data.to_numpy(), data.y)
        return self._train_arrays[1], self._train_arrays[2]

    def _with_rows(
        self, rows: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
        """Return the training arrays with the pool ``rows`` appended, and the rows' arrays.

        Read by position, without building a dataset: a batch that is not kept costs no
        table copy (:meth:`_keep` builds the dataset of a kept one).
        """
        X, y = self._arrays_of(self.state.train)
        rows_X, rows_y = self.source.read_rows(rows), self.source.labels_at(rows)
        return np.concatenate([X, rows_X]), np.concatenate([y, rows_y]), rows_X, rows_y

    def _keep(self, rows: NDArray[np.int64], X: NDArray[np.float64], y: NDArray[Any]) -> None:
        """Make the pool ``rows`` part of the training set (whose arrays are ``X`` and ``y``)."""
        data = self.state.train.concat(self.source.take(rows))
        self._train_arrays = (data, X, y)
        self.state.train = data

    def _learn(
        self,
        model: Any,
        arrays: tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64], NDArray[Any]],
    ) -> Any:
        """Return the model after the rows joined the training set (``_with_rows``'s arrays)."""
        X, y, rows_X, rows_y = arrays
        if self.incremental:
            return partial_update(model, rows_X, rows_y)
        return self._refit.fit(self._learner_seed, X, y)

    def _evaluate(self, model: Any, data: FairDataset) -> dict[str, float]:
        """Measure the tracked metrics of ``model`` on ``data`` (a subclass may post-process)."""
        X = self._features.get(id(data))
        scores = None if X is None else self._refit.scores(model, X)
        if data is self.validation and scores is not None:  # for the method to reuse
            self._val_scores = (model, scores)
            if hasattr(self, "state"):
                self.state.val_scores = self._val_scores
        return evaluate(model, data, self.metrics, scores=scores)

    def _measure(self, val: dict[str, float], model: Any) -> dict[str, float]:
        out = {f"val_{k}": v for k, v in val.items()}
        if self.test is not None:
            # a rejected batch leaves the model as it was: its test metrics are measured once
            if self._test_metrics is None or self._test_metrics[0] is not model:
                self._test_metrics = (model, self._evaluate(model, self.test))
            out.update({f"test_{k}": v for k, v in self._test_metrics[1].items()})
        return out

    # -- the run -----------------------------------------------------------------------------
    def start(self, root: np.random.SeedSequence) -> dict[str, Any]:
        self.root = root
        self._learner_seed = int(root.generate_state(1)[0])
        model = self.initial_model = self._fit(self.train)
        self.val = self._evaluate(model, self.validation)
        fairness = abs(self.val[self.acq.metric])
        source = self.source
        self.state = AcquisitionState(
            self.train,
            source,
            np.ones(len(source), dtype=bool),
            self.costs,
            model,
            fairness,
            fairness,
            X_pool=source.X if isinstance(source, InMemoryPool) else np.empty((0, 0)),
            executor=self.executor,
            labels_seen=np.zeros(len(source), dtype=bool),
            val_scores=self._val_scores,
        )
        clock = time.perf_counter()
        self.acq._prepare(self.state, self.validation, root)
        self.timings["prepare_s"] = time.perf_counter() - clock
        self.ledger = CostLedger(
            self.costs,
            self.acq.budget,
            getattr(self.acq, "cost_model", "kept"),
            self.state.labels_seen,
        )
        return {
            "cost": 0.0,
            "batch": [],
            "arm": -1,
            "accepted": True,
            "batch_cost": 0.0,
            "n_train": len(self.train),
            "candidate_val_fairness": fairness,
            **self.ledger.counts(),
            **self._measure(self.val, model),
        }

    def replay(self, row: Mapping[str, Any]) -> None:
        if row.get("step", 0) == 0:
            return
        batch = np.asarray(_as_list(row.get("batch")), dtype=np.int64)
        accepted = bool(row.get("accepted"))
        self.ledger.record(batch, accepted)
        if not accepted:
            self.acq._replay_rejected(self.state, batch)
            return
        self.state.available[batch] = False
        self._replayed.append(self.source.take(batch))
        self.state.train = self.state.train.concat(self._replayed[-1])
        self.acq._replay_accepted(self.state, batch)

    def restore(self, state: Mapping[str, Any]) -> None:
        st = self.state
        if self.incremental:  # replay the updates in order: the model depends on its history
            model = st.model
            for batch_rows in self._replayed:
                rows_X, rows_y = batch_rows.to_numpy(), batch_rows.y
                model = self._learn(model, (rows_X, rows_y, rows_X, rows_y))
        elif self._replayed:
            model = self._fit(st.train)
        else:
            model = st.model
        st.model = model
        self.val = self._evaluate(model, self.validation)
        st.fairness = abs(self.val[self.acq.metric])
        st.best_fairness = float(state.get("best_fairness", st.fairness))
        st.evaluation = int(state.get("evaluation", len(self._replayed)))
        self.acq._load_resume_state(state.get("method", {}))

    def stop_reason(self) -> str | None:
        st = self.state
        if st.best_fairness < self.acq.tau:
            return "tau"
        if st.evaluation >= self.cap:
            return "max_evaluations"
        if self.ledger.out_of_budget(st.available):
            return "budget"
        return None

    def step(self, index: int) -> dict[str, Any] | None:
        st, acq = self.state, self.acq
        clock = time.perf_counter()
        proposal = acq._propose(st, child_rng(self.root, st.evaluation))
        self.timings["propose_s"] += time.perf_counter() - clock
        batch = self.ledger.fill(proposal.candidates, acq.batch_size)
        if batch.size == 0:
            return None
        st.evaluation += 1
        batch_cost = float(self.costs[batch].sum())
        arrays = self._with_rows(batch)
        clock = time.perf_counter()
        candidate = self._learn(st.model, arrays)
        self.timings["fit_s"] += time.perf_counter() - clock
        cand_val = self._evaluate(candidate, self.validation)
        new_fairness = abs(cand_val[acq.metric])
        improvement = st.fairness - new_fairness
        accepted = acq._accept(st, new_fairness)
        acq._feedback(st, proposal, batch, improvement, accepted, batch_cost)
        self.ledger.record(batch, accepted)
        if accepted:
            st.available[batch] = False
            self._keep(batch, arrays[0], arrays[1])
            st.model, st.fairness = candidate, new_fairness
            st.best_fairness = min(st.best_fairness, new_fairness)
            self.val = cand_val
        return {
            "cost": self.ledger.spent,
            "batch": batch.tolist(),
            "arm": proposal.arm,
            "accepted": accepted,
            "batch_cost": batch_cost,
            "n_train": len(st.train),
            "candidate_val_fairness": new_fairness,
            **self.ledger.counts(),
            **self._measure(self.val, st.model),
        }

    def resume_state(self) -> dict[str, Any]:
        return {
            "best_fairness": self.state.best_fairness,
            "evaluation": self.state.evaluation,
            "method": self.acq._resume_state(),
        }

    def finish(self) -> dict[str, Any]:
        return {
            "timings": self.timings,
            "refit_used": "partial" if self.incremental else "scratch",
            **self.acq._run_meta(),
        }


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(np.asarray(value).ravel())
