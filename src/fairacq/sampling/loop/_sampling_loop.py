"""One group-sampling run as a :class:`~fairacq._loop.RunLoop`: a group per round."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from fairacq._loop import RunLoop
from fairacq._random import KEY_INIT, child_int, child_rng
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError
from fairacq.models import check_probabilities, is_one_class
from fairacq.sampling.learners._learners import HeldOutEstimates, RoundLearner
from fairacq.sampling.loop._eval_sets import Arrays, check_width, empty, eval_sets
from fairacq.sampling.loop._oracles import GroupOracle
from fairacq.sampling.loop._state import SamplerState

__all__ = ["SamplingLoop", "group_scores", "measure_groups"]

_EPS = 1e-12


class SamplingLoop(RunLoop):
    """The loop of :meth:`GroupSampler.fit <fairacq.sampling.GroupSampler.fit>`.

    Round ``t`` draws from the fixed children ``(t, 0)`` (the rule), ``(t, 1)`` (the oracle)
    and ``(t, 2)`` (the learner) of the run's root seed; a resumed run replays the recorded
    rounds' draws and loads the learner's saved parameters (a refit learner is refitted on the
    replayed rows with the last round's seed instead). ``sampler`` is the
    :class:`~fairacq.sampling.GroupSampler` whose ``_choose`` picks each round's group.
    """

    def __init__(
        self,
        sampler: Any,
        oracle: GroupOracle,
        *,
        validation: FairDataset | int | str | None,
        test: FairDataset | int | None,
        n0: int,
        mode: str = "exact",
    ) -> None:
        self.sampler = sampler
        self.mode = mode
        self.oracle = oracle
        self.validation = validation
        self.test = test
        self.n0 = n0
        self.names = list(oracle.group_names)
        self.paired = validation is None
        self.cross = isinstance(validation, str)  # "cross": held-out estimates on training rows
        self.per_round = sampler.b0 * (2 if self.paired else 1)
        m = len(self.names)
        self.train_X: list[NDArray[np.float64]] = []
        self.train_y: list[NDArray[np.int64]] = []
        self.train_z: list[NDArray[np.int64]] = []
        self.memory: dict[str, Any] = {}  # the rule's JSON state (SamplerState.memory)
        self.counts = np.zeros(m, dtype=np.int64)
        self.history: list[list[float]] = [[] for _ in range(m)]
        self.val_loss = np.zeros(m)
        self.spent = 0.0
        self.redirected = 0  # rounds whose chosen group the pool had run out of
        self.t = 0
        self.n_features = 0

    def start(self, root: np.random.SeedSequence) -> None:
        self.root = root
        if hasattr(self.oracle, "reset"):
            self.oracle.reset()
        init_rng = child_rng(root, KEY_INIT)
        m = len(self.names)
        given = None if isinstance(self.validation, str) else self.validation  # "cross"
        val_sets = eval_sets("validation", given, self.oracle, self.names, init_rng)
        self.test_sets = eval_sets("test", self.test, self.oracle, self.names, init_rng)
        self.val_sets: list[Arrays] = val_sets or [empty(0) for _ in range(m)]
        self.learner: RoundLearner = self.sampler._make_round_learner(
            self.mode, child_int(root, KEY_INIT + 1)
        )
        return None

    def _draw(self, z: int) -> None:
        """Draw round ``self.t``'s samples of group ``z`` (and its paired validation rows)."""
        b0, rng = self.sampler.b0, child_rng(self.root, self.t, 1)
        self._round_start = self.spent
        X, y = self._oracle_draw(z, b0, rng)
        if not self.train_X:
            check_width(X.shape[1], self.val_sets, self.test_sets)
        self.train_X.append(X)
        self.train_y.append(y)
        self.train_z.append(np.full(len(y), z, dtype=np.int64))
        self.n_features = X.shape[1]
        self.counts[z] += b0
        self.spent += b0
        if self.paired:
            Xv, yv = self._oracle_draw(z, b0, rng)
            old_X, old_y = self.val_sets[z]
            new_X = np.vstack([old_X, Xv]) if len(old_y) else Xv
            self.val_sets[z] = (new_X, np.concatenate([old_y, yv]))
            self.spent += b0

    def _oracle_draw(self, z: int, n: int, rng: np.random.Generator) -> Arrays:
        """Draw from the oracle; a finite group that runs out names the group and the fix."""
        try:
            return self.oracle.draw(z, n, rng)
        except BudgetError:
            sizes = getattr(self.oracle, "group_sizes", None)
            if sizes is None:
                raise
            name, had, start = self.names[z], int(sizes[z]), int(self._round_start)
            held = int(getattr(self.oracle, "held_out", {}).get(name, 0))
            kept = f" ({held} more are held out for testing)" if held else ""
            raise BudgetError(
                f"{type(self.sampler).__name__}: group '{name}' ran out after {start} of the "
                f"{self.sampler.budget} budgeted samples: it had {had} rows to draw from{kept}, "
                f"fewer than the sampler asked for. Lower the budget (this trial would not have "
                f"run out with --budget {start}) or add rows of group '{name}'."
            ) from None

    def replay(self, row: Mapping[str, Any]) -> None:
        self._draw(int(row["group_code"]))
        self.redirected += str(row["reason"]).startswith("fallback")
        for g, name in enumerate(self.names):
            self.history[g].append(float(row[f"val_acc_{name}"]))
            self.val_loss[g] = float(row[f"val_loss_{name}"])
        self.t += 1

    def restore(self, state: Mapping[str, Any]) -> None:
        self.memory.update(state.get("rule", {}))
        self.learner.load_state(dict(state.get("learner", {})))
        if getattr(self.learner, "refits_on_resume", False) and self.train_X:
            X, y = np.vstack(self.train_X), np.concatenate(self.train_y)
            self.learner.update(X, y, child_int(self.root, self.t - 1, 2))

    def stop_reason(self) -> str | None:
        return "budget" if self.sampler.budget - self.spent < self.per_round else None

    def step(self, index: int) -> dict[str, Any]:
        t, m = self.t, len(self.names)
        state = SamplerState(
            t,
            self.counts.copy(),
            self.val_loss.copy(),
            self.history,
            self.oracle.proportions,
            self.n_features,
            self.sampler.b0,
            memory=self.memory,
            training=self._training,
            validation=None if self.cross else self.val_sets,
            rounds_left=int((self.sampler.budget - self.spent) // self.per_round),
        )
        if t < self.n0:
            z, reason, scores = t % m, "initial", None
        else:
            z, reason, scores = self.sampler._choose(state, child_rng(self.root, t, 0))
        z, reason = self._open_group(z, reason, state)
        self._draw(z)
        X, y = np.vstack(self.train_X), np.concatenate(self.train_y)
        self.learner.update(X, y, child_int(self.root, t, 2))
        row: dict[str, Any] = {"round": t, "group": self.names[z], "group_code": z}
        row["reason"] = reason
        row.update(self._allocation_columns(scores))
        row.update(self._evaluation_columns())
        self.t += 1
        return {"cost": self.spent, **row}

    def _can_draw(self, z: int) -> bool:
        """Whether group ``z`` has the rows for one more round (always, for a generator)."""
        remaining = getattr(self.oracle, "remaining", None)
        return remaining is None or int(remaining(z)) >= self.per_round

    def _open_group(self, z: int, reason: str, state: SamplerState) -> tuple[int, str]:
        """Return the chosen group, or the rule's fallback when the pool has run out of it.

        A finite pool may run out of the group a rule keeps choosing; the round then goes to
        the rule's :meth:`~fairacq.sampling.GroupSampler._fallback` among the groups left. When
        every group has run out, the draw itself fails naming the group (a ``BudgetError``).
        """
        if self._can_draw(z):
            return z, reason
        left = [g for g in range(len(self.names)) if self._can_draw(g)]
        if not left:
            return z, reason
        self.redirected += 1
        return self.sampler._fallback(state, left), f"fallback ({self.names[z]} ran out)"

    def finish(self) -> dict[str, Any]:
        """Name the groups the pool ran out of and the rounds sent elsewhere because of it.

        Also ``one_class``: the class the final model predicts for every test row, when it
        predicts only one.
        """
        meta = self._one_class()
        if not self.redirected:
            return meta
        gone = [name for g, name in enumerate(self.names) if not self._can_draw(g)]
        return {**meta, "exhausted": gone, "redirected_rounds": self.redirected}

    def _one_class(self) -> dict[str, Any]:
        """``{"one_class": c}`` when the final model predicts class ``c`` for every test row."""
        sets = [X for X, y in self.test_sets or [] if len(y)]
        if not sets or not self.train_X:
            return {}
        predicted = self.learner.predict_proba(np.vstack(sets)) >= 0.5
        return {"one_class": int(predicted[0])} if is_one_class(predicted) else {}

    def _training(self) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
        """Return the training rows drawn so far with their group codes."""
        if not self.train_X:
            return (*empty(self.n_features), np.empty(0, dtype=np.int64))
        return np.vstack(self.train_X), np.concatenate(self.train_y), np.concatenate(self.train_z)

    def _allocation_columns(self, scores: NDArray[np.float64] | None) -> dict[str, Any]:
        pi = self.counts / self.counts.sum()
        row: dict[str, Any] = {f"n_{n}": int(self.counts[g]) for g, n in enumerate(self.names)}
        row.update({f"pi_{n}": float(pi[g]) for g, n in enumerate(self.names)})
        for g, name in enumerate(self.names):
            row[f"score_{name}"] = float("nan") if scores is None else float(scores[g])
        return row

    def _evaluation_columns(self) -> dict[str, Any]:
        row: dict[str, Any] = {}
        if self.cross:
            val = self._held_out_scores()
        else:
            val = measure_groups(self.learner, self.val_sets, self.sampler.loss)
        for g, name in enumerate(self.names):
            row[f"val_loss_{name}"], row[f"val_acc_{name}"] = val[g]
            self.val_loss[g] = val[g][0]
            self.history[g].append(val[g][1])
        row["val_worst_acc"] = float(np.nanmin([v[1] for v in val]))
        if self.test_sets is not None:
            tst = measure_groups(self.learner, self.test_sets, self.sampler.loss)
            for g, name in enumerate(self.names):
                row[f"test_loss_{name}"], row[f"test_acc_{name}"] = tst[g]
            row["test_worst_acc"] = float(np.nanmin([v[1] for v in tst]))
        return row

    def _held_out_scores(self) -> list[tuple[float, float]]:
        """Each group's loss and accuracy from held-out predictions on its training rows."""
        X, y, z = self._training()
        learner = cast(HeldOutEstimates, self.learner)  # checked by GroupSampler.fit
        p = learner.held_out_proba(X, y, child_int(self.root, self.t, 3))
        rows = [np.flatnonzero(z == g) for g in range(len(self.names))]
        return [group_scores(p[r], y[r], self.sampler.loss) for r in rows]

    def resume_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {"learner": self.learner.state()}
        if self.memory:  # a snapshot: the rule goes on changing its memory
            state["rule"] = json.loads(json.dumps(self.memory))
        return state


def measure_groups(
    learner: RoundLearner, sets: list[Arrays], loss: str
) -> list[tuple[float, float]]:
    """Return ``(loss, accuracy)`` of ``learner`` on each group's set (NaN for an empty set)."""
    return [group_scores(learner.predict_proba(X) if len(y) else None, y, loss) for X, y in sets]


def group_scores(
    proba: NDArray[np.float64] | None, y: NDArray[np.int64], loss: str
) -> tuple[float, float]:
    """Return ``(loss, accuracy)`` of predictions ``proba`` of labels ``y`` (NaN when empty)."""
    if proba is None or len(y) == 0:
        return float("nan"), float("nan")
    p = np.clip(check_probabilities(proba, where="the sampler's model"), _EPS, 1 - _EPS)
    acc = float(np.mean((p >= 0.5) == (y == 1)))
    if loss == "log":
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))), acc
    return 1.0 - acc, acc
