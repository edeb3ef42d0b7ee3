"""``GroupSampler``: the loop shared by Aopt and its baselines (paper 001, Algorithms 1-2)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._base import Strategy
from fairacq._callbacks import Callback, run_callbacks
from fairacq._trace import Trace, TraceRecorder
from fairacq._validation import Interval, Options
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError, InvalidDataError, InvalidParameterError
from fairacq.sampling._learners import RoundLearner, make_round_learner
from fairacq.sampling._oracles import GroupOracle

__all__ = ["GroupSampler", "SamplerState"]

_EPS = 1e-12
_INIT_KEY = 2**31  # spawn-key slot of the evaluation sets drawn before round 0

Arrays = tuple[NDArray[np.float64], NDArray[np.int64]]


@dataclasses.dataclass
class SamplerState:
    """What a selection rule sees at the start of a round.

    Attributes
    ----------
    t : int
        Round index (0-based).
    counts : ndarray of shape (n_groups,)
        Training samples ``N_z,t`` drawn from each group so far.
    val_loss : ndarray of shape (n_groups,)
        Loss of the current model on each group's validation set.
    val_acc_history : list of list of float
        Per group, the validation accuracy after every round so far (oldest first).
    proportions : ndarray of shape (n_groups,)
        The natural share of each group (from the oracle).
    n_features : int
        Number of features.
    b0 : int
        Samples per draw.
    """

    t: int
    counts: NDArray[np.int64]
    val_loss: NDArray[np.float64]
    val_acc_history: list[list[float]]
    proportions: NDArray[np.float64]
    n_features: int
    b0: int

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return len(self.counts)

    @property
    def pi(self) -> NDArray[np.float64]:
        """The empirical training mixture ``pi_t``."""
        total = self.counts.sum()
        if total == 0:
            return np.full(self.n_groups, 1.0 / self.n_groups)
        out: NDArray[np.float64] = self.counts / total
        return out


class GroupSampler(Strategy):
    """Base class of the group samplers: draw a training set group by group under a budget.

    Each round picks a group ``z_t`` (subclasses implement :meth:`_choose`), draws ``b0``
    samples of it for training and, unless a fixed validation set is given, ``b0`` more for that
    group's validation set ``D_z`` (Algorithm 1 of paper 001 draws such pairs), updates the
    model and records the round. The first ``n0`` rounds visit the groups in turn (Phase 1).

    Parameters
    ----------
    budget : int, default=1000
        Samples drawn in total (training plus validation draws); ``cost`` counts them.
    b0 : int, default=1
        Samples per draw; each round draws ``b0`` (or ``2 * b0`` with paired validation).
    n0 : int or None, default=None
        Rounds of Phase 1, visiting the groups in turn; None means one round per group.
    mode : {"exact", "incremental", "incremental-cnn"}, default="exact"
        ``"exact"`` re-fits logistic regression each round (warm-started); ``"incremental"``
        trains a small torch MLP by one SGD epoch per round (paper 001, §4);
        ``"incremental-cnn"`` does the same with a small CNN on square single-channel images
        (:class:`~fairacq.sampling.IncrementalCNN`).
    loss : {"zero_one", "log"}, default="zero_one"
        Loss measured on the validation sets and used by the selection rules.
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Controls every draw. An int gives identical traces across calls.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "budget": [Interval(int, 2, None, closed="left")],
        "b0": [Interval(int, 1, None, closed="left")],
        "n0": [Interval(int, 1, None, closed="left"), None],
        "mode": [Options(["exact", "incremental", "incremental-cnn"])],
        "loss": [Options(["log", "zero_one"])],
        "random_state": ["random_state"],
    }

    budget: int
    b0: int
    n0: int | None
    mode: str
    loss: str
    random_state: Any

    # -- to implement ----------------------------------------------------------------------
    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        """Return the group code, the reason and the per-group scores (or None)."""
        raise NotImplementedError

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return type(self).__name__.removesuffix("Sampler").lower()

    # -- the loop --------------------------------------------------------------------------
    def run(
        self,
        oracle: GroupOracle,
        *,
        validation: FairDataset | int | None = None,
        test: FairDataset | int | None = None,
        continue_from: Trace | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> Trace:
        """Spend the budget round by round and record each round.

        Parameters
        ----------
        oracle : GroupOracle
            Where samples come from (:class:`DatasetOracle`, :class:`GeneratorOracle`,
            :class:`CallbackOracle`). A :class:`DatasetOracle` is reset first.
        validation : FairDataset, int or None, default=None
            None grows each group's validation set with the paired draws of Algorithm 1. A
            FairDataset (same group names as the oracle) is a fixed held-out validation set,
            and each round then draws only ``b0`` samples. An int draws that many rows per
            group from the oracle before round 0 (not counted in ``cost``).
        test : FairDataset, int or None, default=None
            Only reported (``test_*`` columns), never used to decide. An int draws that many
            rows per group from the oracle before round 0.
        continue_from : Trace or None, default=None
            A trace (or checkpoint) of this sampler on the same oracle; the run replays its
            draws, restores the model and goes on, giving the rows an uninterrupted run gives.
        callbacks : sequence of callables
            Called after each round with the recorder; one returning ``False`` stops.

        Returns
        -------
        Trace
            One row per round: ``group``, ``group_code``, ``reason``, ``n_<g>`` and ``pi_<g>``
            (training counts and mixture), ``score_<g>`` (selection score, NaN when unused),
            ``val_loss_<g>``, ``val_acc_<g>``, ``val_worst_acc``, with a test set
            ``test_loss_<g>``, ``test_acc_<g>``, ``test_worst_acc``, and ``cost`` (samples
            drawn so far).

        Raises
        ------
        BudgetError
            If the budget cannot pay for Phase 1, or a dataset group runs out.
        InvalidParameterError
            For a bad hyper-parameter or an object that is not a group oracle.
        InvalidDataError
            If an evaluation set lacks a group, or the oracle returns bad arrays.
        """
        self._validate_params()
        _check_oracle(oracle)
        m = int(oracle.n_groups)
        names = list(oracle.group_names)
        n0 = m if self.n0 is None else int(self.n0)
        if n0 < m:
            raise InvalidParameterError(
                f"The 'n0' parameter of {type(self).__name__} must be >= the number of groups "
                f"({m}) so Phase 1 draws every group once. Got {n0}; raise n0 or leave it None."
            )
        paired = validation is None
        per_round = self.b0 * (2 if paired else 1)
        if self.budget < n0 * per_round:
            raise BudgetError(
                f"{type(self).__name__}: budget {self.budget} is smaller than Phase 1, which "
                f"draws {n0 * per_round} samples (n0={n0} rounds x {per_round}). Raise the "
                "budget or lower n0/b0."
            )

        root = _root_seed(self.random_state, continue_from)
        if hasattr(oracle, "reset"):
            oracle.reset()
        init_rng = _child_rng(root, _INIT_KEY)
        val_sets = _eval_sets("validation", validation, oracle, names, init_rng)
        test_sets = _eval_sets("test", test, oracle, names, init_rng)
        if val_sets is None:
            val_sets = [_empty(0) for _ in range(m)]

        rec = TraceRecorder(
            method=self.method_name,
            config=self.get_params(deep=False),
            random_state=self.random_state,
            continue_from=continue_from,
            groups=names,
            validation="paired" if paired else "fixed",
        )
        train_X: list[NDArray[np.float64]] = []
        train_y: list[NDArray[np.int64]] = []
        counts = np.zeros(m, dtype=np.int64)
        history: list[list[float]] = [[] for _ in range(m)]
        spent = 0.0
        t = 0
        learner: RoundLearner = make_round_learner(self.mode, _child_int(root, _INIT_KEY + 1))
        val_loss = np.zeros(m)
        n_features = 0

        def draw_round(z: int, t: int) -> None:
            nonlocal spent, n_features
            rng = _child_rng(root, t, 1)
            X, y = oracle.draw(z, self.b0, rng)
            if not train_X:
                _check_width(X.shape[1], val_sets, test_sets)
            train_X.append(X)
            train_y.append(y)
            n_features = X.shape[1]
            counts[z] += self.b0
            spent += self.b0
            if paired:
                Xv, yv = oracle.draw(z, self.b0, rng)
                old_X, old_y = val_sets[z]
                new_X = np.vstack([old_X, Xv]) if len(old_y) else Xv
                val_sets[z] = (new_X, np.concatenate([old_y, yv]))
                spent += self.b0

        if continue_from is not None:
            state_json = continue_from.meta.get("resume_state", {})
            _check_resumable(continue_from, self.method_name, names)
            for old in continue_from.to_frame().to_dict("records"):
                draw_round(int(old["group_code"]), t)
                for g, name in enumerate(names):
                    history[g].append(float(old[f"val_acc_{name}"]))
                    val_loss[g] = float(old[f"val_loss_{name}"])
                t += 1
            learner.load_state(state_json.get("learner", {}))

        while self.budget - spent >= per_round:
            state = SamplerState(
                t, counts.copy(), val_loss.copy(), history, oracle.proportions, n_features, self.b0
            )
            if t < n0:
                z, reason, scores = t % m, "initial", None
            else:
                z, reason, scores = self._choose(state, _child_rng(root, t, 0))
            draw_round(z, t)
            learner.update(np.vstack(train_X), np.concatenate(train_y), _child_int(root, t, 2))
            row: dict[str, Any] = {"round": t, "group": names[z], "group_code": z}
            row["reason"] = reason
            pi = counts / counts.sum()
            for g, name in enumerate(names):
                row[f"n_{name}"] = int(counts[g])
            for g, name in enumerate(names):
                row[f"pi_{name}"] = float(pi[g])
            for g, name in enumerate(names):
                row[f"score_{name}"] = float("nan") if scores is None else float(scores[g])
            val = _measure(learner, val_sets, self.loss)
            for g, name in enumerate(names):
                row[f"val_loss_{name}"], row[f"val_acc_{name}"] = val[g]
                val_loss[g] = val[g][0]
                history[g].append(val[g][1])
            row["val_worst_acc"] = float(np.nanmin([v[1] for v in val]))
            if test_sets is not None:
                tst = _measure(learner, test_sets, self.loss)
                for g, name in enumerate(names):
                    row[f"test_loss_{name}"], row[f"test_acc_{name}"] = tst[g]
                row["test_worst_acc"] = float(np.nanmin([v[1] for v in tst]))
            rec.record(cost=spent, **row)
            rec.set_resume_state({"learner": learner.state(), **_seed_state(root)})
            t += 1
            if not run_callbacks(list(callbacks), rec):
                break
        self.allocation_ = {name: int(counts[g]) for g, name in enumerate(names)}
        self.n_rounds_ = t
        return rec.finish()


def _check_oracle(oracle: Any) -> None:
    if not isinstance(oracle, GroupOracle):
        raise InvalidParameterError(
            f"Group samplers need a group oracle (n_groups, group_names, proportions, draw), "
            f"got {type(oracle).__name__}. Wrap data in DatasetOracle, GeneratorOracle or "
            "CallbackOracle."
        )


def _check_resumable(trace: Trace, method: str, names: list[str]) -> None:
    if trace.method != method or trace.meta.get("groups") != names:
        raise InvalidDataError(
            f"continue_from holds a '{trace.method}' trace over groups {trace.meta.get('groups')}"
            f", not a '{method}' trace over {names}. Resume with the sampler and oracle that "
            "wrote the checkpoint."
        )


def _check_width(n_features: int, *groups_of_sets: list[Arrays] | None) -> None:
    for sets in groups_of_sets:
        for X, y in sets or []:
            if len(y) and X.shape[1] != n_features:
                raise InvalidDataError(
                    f"An evaluation set has {X.shape[1]} feature columns but the oracle draws "
                    f"{n_features}. Give validation/test sets with the oracle's columns."
                )


def _empty(n_features: int) -> Arrays:
    return np.empty((0, n_features)), np.empty(0, dtype=np.int64)


def _eval_sets(
    kind: str,
    data: FairDataset | int | None,
    oracle: GroupOracle,
    names: list[str],
    rng: np.random.Generator,
) -> list[Arrays] | None:
    if data is None:
        return None
    if isinstance(data, FairDataset):
        X, y, s = data.to_numpy().astype(np.float64), np.asarray(data.y), np.asarray(data.s)
        present = {str(n): g for g, n in enumerate(data.group_names)}
        out = []
        for name in names:
            code = present.get(name)
            rows = np.flatnonzero(s == code) if code is not None else np.empty(0, dtype=int)
            if rows.size == 0:
                raise InvalidDataError(
                    f"The {kind} set '{data.name}' has no samples of group '{name}' (its groups: "
                    f"{list(present)}). Every group of the oracle needs {kind} rows; split "
                    "with stratification by group."
                )
            out.append((X[rows], y[rows].astype(np.int64)))
        return out
    if isinstance(data, bool) or not isinstance(data, (int, np.integer)) or int(data) < 1:
        raise InvalidParameterError(
            f"The {kind} argument must be a FairDataset, an int >= 1 (rows per group drawn "
            f"from the oracle) or None, got {data!r}."
        )
    return [oracle.draw(g, int(data), rng) for g in range(len(names))]


def _measure(learner: RoundLearner, sets: list[Arrays], loss: str) -> list[tuple[float, float]]:
    out = []
    for X, y in sets:
        if len(y) == 0:
            out.append((float("nan"), float("nan")))
            continue
        p = np.clip(learner.predict_proba(X), _EPS, 1 - _EPS)
        acc = float(np.mean((p >= 0.5) == (y == 1)))
        if loss == "log":
            value = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
        else:
            value = 1.0 - acc
        out.append((value, acc))
    return out


def _root_seed(random_state: Any, continue_from: Trace | None) -> np.random.SeedSequence:
    if continue_from is not None:
        state = continue_from.meta.get("resume_state", {})
        if "entropy" in state:
            return np.random.SeedSequence(
                int(state["entropy"]), spawn_key=tuple(state.get("spawn_key", ()))
            )
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(2**63)))
    return np.random.SeedSequence(random_state)


def _seed_state(root: np.random.SeedSequence) -> dict[str, Any]:
    return {"entropy": str(root.entropy), "spawn_key": [int(k) for k in root.spawn_key]}


def _child(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key))


def _child_rng(root: np.random.SeedSequence, *key: int) -> np.random.Generator:
    return np.random.default_rng(_child(root, *key))


def _child_int(root: np.random.SeedSequence, *key: int) -> int:
    return int(_child(root, *key).generate_state(1)[0])
