"""Falcon at its authors' cost: a reference loop and fairacq's FalconAcquirer, one process.

The reference loop below re-implements, from the Falcon paper (Tae et al., PVLDB 17(5), 2024)
and a reading of the authors' public code (``khtae8250/Falcon``: ``src/falcon.py``,
``src/entropy.py``, ``src/utils.py``, ``demos/Baseline_Comparison.ipynb``), what their loop
does in one round, in the same order and with the same data handling:

1. the current model predicts the validation rows; the target groups follow from the
   per-group selection rates (demographic parity: positives of the lowest, negatives of
   the highest);
2. a coin with probability ``lam`` picks a fairness round, else an entropy round;
3. fairness round: the EXP3 bandit of these target groups draws a (group, policy ``r``) arm;
   only that group's pool rows are scored; the ``batch`` rows whose probability of the target
   label is closest to ``1 - r`` are paid for; those with the target label are appended to
   the training arrays (a copy), the others postponed; the model is refitted from scratch;
   the reward is the validation fairness gain of the new model over the previous one (both
   predicted again), scaled by the largest gain after a warm-up of 100 rows; every queried
   row is deleted from the pool arrays (a copy); after the warm-up the drawn arm and its
   neighbours of the same group gain weight;
4. entropy round: the whole pool is scored, the ``batch`` rows of highest entropy appended;
5. the driver scores the test rows (accuracy and the fairness gap).

fairacq's :class:`~fairacq.acquisition.FalconAcquirer` runs on the same split, ``lam``,
learner, batch and rounds (its own seeded draws: the two runs pick different rows, so their
accuracies agree only within the seeds' spread). Both learners are fairacq's ``"lr"``
(standardise, then logistic regression, lbfgs, C=1), so the table compares the loops, not
the models. Each is timed in CPU seconds (``time.process_time``), three times, median
reported; ``ratio`` is fairacq / reference. FAL (its authors' candidates and alpha, as in the
peers experiments) is timed per round on the same split (median of the same repeats), against
Falcon's per round.

Splits: Falcon's recipe (each (group, label) cell split 1 : 1 : 8 : 4 into training,
validation, pool and test; :func:`fairacq_experiments.peers._tasks.split_cells`) on ACS
Income by sex (14 offline states, one-hot, sensitive columns among the features; or
``acs-income-codes``: the categorical codes kept as numbers) and COMPAS by race (200 rounds:
its pool cannot give 4,000 labels). ``FAIRACQ_DATA`` must hold ACS. Writes
``benchmarks/out/falcon_reference.json``.

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/falcon_reference.py`` (about
5 minutes); ``--quick``: COMPAS, 40 rounds, one repeat (under 20 s).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from _common import parse_args, report

#: The quick run reads COMPAS from FAIRACQ_DATA (tests/test_benchmarks.py skips it without).
NEEDS_DATA = ("compas",)
POLICIES = (0.7, 0.6, 0.5, 0.4, 0.3)
#: Rounds of 10 rows per data set: COMPAS's pool (3,016 rows) cannot give 4,000 labels.
ROUNDS = {"compas": 200}
WARMUP = 100


# -- the reference loop ----------------------------------------------------------------------
def _dp_targets(model: Any, X: Any, s: Any, n_groups: int) -> tuple[float, list[tuple]]:
    """Demographic parity score (1 - gap) and the target groups, from one prediction."""
    y_hat = model.predict(X)
    rates = [np.mean(y_hat[s == g] == 1) for g in range(n_groups)]
    high, low = int(np.argmax(rates)), int(np.argmin(rates))
    return 1.0 - (rates[high] - rates[low]), [(1, low), (0, high)]


@dataclass
class _Bandit:
    """EXP3 over (target group, policy) arms with the warm-up and neighbour credit."""

    n_arms: int
    weights: np.ndarray = field(init=False)
    rounds: int = 0
    gamma: float = 1.0
    best: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        self.weights = np.ones(self.n_arms)

    def probabilities(self) -> np.ndarray:
        return (1 - self.gamma) * self.weights / self.weights.sum() + self.gamma / self.n_arms

    def reward(self, gain: float, batch: int) -> float:
        self.best = max(self.best, gain)
        seen = self.rounds * batch
        if seen >= WARMUP and self.scale == 1.0 and self.best != 0:
            self.scale = self.best
            k = self.n_arms
            self.gamma = min(1.0, np.sqrt(k * np.log(k) / (np.e - 1) * self.scale))
        return gain / self.scale if gain >= 0 else 0.0

    def credit(self, arm: int, reward: float, prob: float) -> None:
        n_pol = len(POLICIES)
        gain = np.zeros(self.n_arms)
        for i in range(self.n_arms):
            if i // n_pol == arm // n_pol and abs(i - arm) <= 1:
                gain[i] = reward / prob * (1 - abs(i - arm) * 0.5)
        self.weights = self.weights * np.exp(self.gamma * gain / self.n_arms)


class ReferenceFalcon:
    """The authors' round, on plain arrays (copies on every append and delete, as theirs)."""

    def __init__(self, parts: dict[str, tuple], make_model: Any, lam: float, seed: int):
        (self.Xt, self.yt, self.st), (self.Xu, self.yu, self.su) = parts["train"], parts["pool"]
        self.Xv, self.yv, self.sv = parts["val"]
        self.Xe, self.ye, self.se = parts["test"]
        self.n_groups = int(max(self.sv.max(), self.st.max())) + 1
        self.make_model, self.lam = make_model, lam
        self.rng = np.random.default_rng(seed)
        self.bandits: dict[str, _Bandit] = {}
        self.log: list[tuple[float, float]] = []

    def fit(self) -> Any:
        return self.make_model().fit(self.Xt, self.yt)

    def run(self, rounds: int, batch: int) -> tuple[float, float]:
        model = self.fit()
        _, targets = _dp_targets(model, self.Xv, self.sv, self.n_groups)
        for _ in range(rounds):
            if self.rng.random() < self.lam:
                model = self._fairness_round(model, targets, batch)
            else:
                model = self._entropy_round(model, batch)
            _, targets = _dp_targets(model, self.Xv, self.sv, self.n_groups)
            acc = float(model.score(self.Xe, self.ye))
            score, _ = _dp_targets(model, self.Xe, self.se, self.n_groups)
            self.log.append((acc, 1.0 - score))
        return self.log[-1]

    def _fairness_round(self, prev: Any, targets: list[tuple], batch: int) -> Any:
        bandit = self.bandits.setdefault(str(targets), _Bandit(len(targets) * len(POLICIES)))
        bandit.rounds += 1
        p = bandit.probabilities()
        arm = int(self.rng.choice(bandit.n_arms, p=p))
        label, group = targets[arm // len(POLICIES)]
        r = POLICIES[arm % len(POLICIES)]
        rows = np.flatnonzero(self.su == group)
        if rows.size == 0:  # the group ran out of pool rows: an entropy round (as fairacq)
            return self._entropy_round(prev, batch)
        proba = prev.predict_proba(self.Xu[rows])[:, label]
        queried = rows[np.argsort(-np.abs(proba - (1 - r)))[::-1][:batch]]  # closest first
        kept = queried[self.yu[queried] == label]
        model = self._append_fit(kept)
        new, _ = _dp_targets(model, self.Xv, self.sv, self.n_groups)
        old, _ = _dp_targets(prev, self.Xv, self.sv, self.n_groups)
        reward = bandit.reward(new - old, batch)
        self._delete(queried)
        if bandit.rounds * batch >= WARMUP:
            bandit.credit(arm, reward, p[arm])
        return model

    def _entropy_round(self, prev: Any, batch: int) -> Any:
        proba = prev.predict_proba(self.Xu)
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = np.nan_to_num(np.sum(-proba * np.log(proba), axis=1))
        queried = np.argsort(entropy)[::-1][:batch]
        model = self._append_fit(queried)
        self._delete(queried)
        return model

    def _append_fit(self, rows: np.ndarray) -> Any:
        self.Xt = np.concatenate((self.Xt, self.Xu[rows]), axis=0)
        self.yt = np.concatenate((self.yt, self.yu[rows]), axis=0)
        self.st = np.concatenate((self.st, self.su[rows]), axis=0)
        return self.fit()

    def _delete(self, rows: np.ndarray) -> None:
        self.Xu = np.delete(self.Xu, rows, axis=0)
        self.yu = np.delete(self.yu, rows, axis=0)
        self.su = np.delete(self.su, rows, axis=0)


# -- the runs --------------------------------------------------------------------------------
def _split(name: str, seed: int) -> dict[str, Any]:
    from fairacq._random import spawn_seeds
    from fairacq.data import load_dataset
    from fairacq_experiments.peers._tasks import ACS_OFFLINE_STATES, load_rows_dataset, split_cells

    if name == "acs-income-codes":  # the categorical codes kept as numbers: 8 features
        data = load_dataset(
            "acs-income",
            states=ACS_OFFLINE_STATES,
            sensitive="sex",
            one_hot=False,
            include_sensitive_features=True,
        )
    else:
        data = load_rows_dataset(name, True)
    train, val, pool, test = split_cells(data, spawn_seeds(seed, 1)[0])
    return {"train": train, "val": val, "pool": pool, "test": test}


def _arrays(parts: dict[str, Any]) -> dict[str, tuple]:
    return {
        k: (d.to_numpy(), np.asarray(d.y, dtype=np.int64), np.asarray(d.s, dtype=np.int64))
        for k, d in parts.items()
    }


def _cpu(fn: Any) -> tuple[float, Any]:
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return time.process_time() - start, out


def _fairacq(method: str, parts: dict[str, Any], rounds: int, batch: int, seed: int, **kw):
    from fairacq.acquisition import make_acquirer

    acq = make_acquirer(
        method,
        budget=rounds * batch,
        batch_size=batch,
        max_evaluations=rounds,
        tau=0.0,
        learner="lr",
        random_state=seed,
        **kw,
    )
    trace = acq.fit(
        parts["train"], parts["pool"], validation=parts["val"], test=parts["test"]
    ).trace_
    return (
        trace.final("test_accuracy"),
        trace.final("test_demographic_parity_diff_abs"),
        int(acq.n_evaluations_),
    )


def _reference(arrays: dict[str, tuple], rounds: int, batch: int, seed: int, lam: float):
    from sklearn.base import clone

    from fairacq.models import make_learner

    proto = make_learner("lr", random_state=0)
    loop = ReferenceFalcon(arrays, lambda: clone(proto), lam, seed)
    return (*loop.run(rounds, batch), rounds)


def _median_cpu(fn: Any, repeat: int) -> tuple[float, Any]:
    runs = [_cpu(fn) for _ in range(repeat)]
    return statistics.median(t for t, _ in runs), runs[-1][1]


def measure(name: str, rounds: int, batch: int, lam: float, repeat: int, fal: bool) -> dict:
    """One data set: CPU seconds of the reference loop, Falcon and (optionally) FAL."""
    parts = _split(name, seed=1)
    arrays = _arrays(parts)  # the authors' loop starts from arrays: converted untimed
    ref_s, (ref_acc, ref_dp, _) = _median_cpu(
        lambda: _reference(arrays, rounds, batch, 1, lam), repeat
    )
    fal_s, (f_acc, f_dp, n) = _median_cpu(
        lambda: _fairacq("falcon", parts, rounds, batch, 1, lam=lam), repeat
    )
    row = {
        "data": name,
        "pool rows": len(parts["pool"]),
        "features": int(parts["pool"].to_numpy().shape[1]),
        "rounds": n,
        "batch": batch,
        "lam": lam,
        "reference cpu s": round(ref_s, 2),
        "fairacq cpu s": round(fal_s, 2),
        "ratio": round(fal_s / ref_s, 2),
        "reference acc/dp": f"{ref_acc:.3f}/{ref_dp:.3f}",
        "fairacq acc/dp": f"{f_acc:.3f}/{f_dp:.3f}",
    }
    if fal:
        fal_rounds = max(2, rounds // 10)  # FAL is costly: fewer rounds, cost per round
        fal_cpu, _ = _median_cpu(
            lambda: _fairacq("fal", parts, fal_rounds, batch, 1, n_candidates=16, alpha=0.6),
            repeat,
        )
        row["fal ms/round"] = round(1000 * fal_cpu / fal_rounds, 1)
        row["falcon ms/round"] = round(1000 * fal_s / n, 1)
        row["fal / falcon"] = round(fal_cpu / fal_rounds / (fal_s / n), 2)
    return row


def main() -> None:
    """Time both loops on each split and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=None, help="default: 400 (COMPAS 200)")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--lam", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", nargs="+", default=["acs-income", "compas"])
    parser.add_argument("--no-fal", action="store_true", help="skip FAL's cost per round")
    args = parse_args(parser)
    if args.quick:
        args.rounds, args.repeat, args.data, args.no_fal = 40, 1, ["compas"], True
    rows = [
        measure(d, args.rounds or ROUNDS.get(d, 400), args.batch, args.lam, args.repeat,
                not args.no_fal)
        for d in args.data
    ]  # fmt: skip
    report("falcon_reference" + ("_quick" if args.quick else ""), rows)


if __name__ == "__main__":
    main()
