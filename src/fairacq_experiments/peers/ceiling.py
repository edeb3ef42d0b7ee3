"""``peers-rows-ceiling``: what a row strategy deploying group thresholds can reach at most.

Every fairacq row strategy so far deploys a logistic regression with one threshold per group
(``post-thresholds``, ``threshold-aware``). Two fronts bound what any such strategy can reach
on a split, whatever rows it buys:

- **every pool label**: the model trained on the initial rows and the whole pool, labels
  and all (many times any budget), then group thresholds over a fine ``tol`` grid, placed
  at the pool's quantiles as the strategies place them;
- **nothing bought**: the model trained on the initial rows only, the same thresholds.

Both are set against Falcon's λ front at equal labels seen, with the same verdict as the
strategies' fronts (:func:`~fairacq_experiments.peers._fronts.front_verdict`). When even the
every-pool-label front does not dominate Falcon's by more than the seeds' spread, the
difference a choice of rows can make is below the split's own noise (evidence, not a proof:
a skewed set of rows could rank people differently). Findings:
``docs/paper-notes/peers-rows.md``.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from fairacq._random import spawn_seeds
from fairacq._trace import Trace
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError, ResultWarning
from fairacq.metrics import gap_noise_floor
from fairacq.models import evaluate, evaluate_thresholds, fit_thresholds, make_learner
from fairacq.parallel import Executor
from fairacq.reporting import new_figure
from fairacq_experiments._framework.config import ExperimentConfig
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult
from fairacq_experiments._framework.verdict import Verdict
from fairacq_experiments.peers._config import RowsConfig
from fairacq_experiments.peers._fronts import FrontPoint, front_verdict
from fairacq_experiments.peers._tasks import (
    MITIGATION,
    RowTask,
    load_rows_dataset,
    rows_task,
    split_cells,
)
from fairacq_experiments.peers.rows import at_most, split_present

__all__ = ["BOUNDS", "CEILING_TOLS", "CeilingConfig", "run_ceiling"]

#: The thresholds' tolerances of both bounding fronts (finer than any strategy's grid).
CEILING_TOLS = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.3)

#: The bounding fronts: label -> which rows train the model.
BOUNDS = {"every pool label": "train + pool", "nothing bought": "train"}

ACC, DP = "test_accuracy", "test_demographic_parity_diff_abs"


@dataclass(frozen=True)
class CeilingConfig(ExperimentConfig):
    """``peers-rows-ceiling``: Falcon's λ front against the fronts that bound a threshold strategy.

    Parameters
    ----------
    datasets, budgets, batch_sizes, max_rows, include_sensitive
        As in :class:`~fairacq_experiments.peers.RowsConfig` (the same splits and Falcon runs).
    lams : tuple of float
        Falcon's λ settings (its front).
    mitigation : bool
        Also fit fairlearn's ThresholdOptimizer on the initial rows (collect nothing) and set
        its test |DP| beside the gap an exactly fair rule shows on the test split
        (:func:`fairacq.metrics.gap_noise_floor`).
    tols : tuple of float
        The bounding fronts' threshold tolerances.
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "n_trials": 2,
        "datasets": ("compas", "adult"),
        "budgets": (40, 200),
        "batch_sizes": (2, 20),
        "max_rows": 1500,
        "lams": (1.0, 0.0),
        "tols": (0.0, 0.05, 0.2),
    }
    #: Falcon's protocol: peers-rows' full preset (the same data sets, budgets and batches)
    FULL: ClassVar[dict[str, Any]] = RowsConfig.FULL

    datasets: tuple[str, ...] = RowsConfig.datasets
    budgets: tuple[int, ...] = RowsConfig.budgets
    batch_sizes: tuple[int, ...] = RowsConfig.batch_sizes
    max_rows: int | None = None
    include_sensitive: bool = True
    lams: tuple[float, ...] = (1.0, 0.8, 0.5, 0.0)
    tols: tuple[float, ...] = CEILING_TOLS
    mitigation: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.tols or min(self.tols) < 0:
            raise InvalidParameterError("CeilingConfig: tols needs values >= 0.")
        self.rows_config()  # checks datasets, budgets, batches and the λ values

    def rows_config(self) -> RowsConfig:
        """Return the ``peers-rows`` configuration of the Falcon runs (same splits and seeds)."""
        return RowsConfig(
            preset=self.preset,
            n_trials=self.n_trials,
            seed=self.seed,
            datasets=self.datasets,
            budgets=self.budgets,
            batch_sizes=self.batch_sizes,
            max_rows=self.max_rows,
            include_sensitive=self.include_sensitive,
            methods=tuple(f"falcon lam={lam:g}" for lam in self.lams),
            mitigation=self.mitigation,
        )


def bound_task(
    config: CeilingConfig, seeds: Sequence[np.random.SeedSequence], task: RowTask
) -> list[dict[str, float]]:
    """Fit one bounding front's model on one trial's split: test accuracy and |DP| per tol.

    The last entry is the model without thresholds (the front's no-threshold end, as
    Entropy is the end of the strategies' fronts), marked ``"tol": -1``.
    """
    data = load_rows_dataset(task.dataset, config.include_sensitive)
    train, val, pool, test = split_cells(data, seeds[task.trial], config.max_rows)
    rows = train.concat(pool) if BOUNDS[task.method] == "train + pool" else train
    model = make_learner("lr").fit(rows.to_numpy(), rows.y)
    got = [_thresholded(model, val, pool, test, tol) | {"tol": tol} for tol in config.tols]
    plain = evaluate(model, test, ["accuracy", "demographic_parity_diff_abs"])
    end = {"acc": plain["accuracy"], "dp": abs(plain["demographic_parity_diff_abs"]), "tol": -1.0}
    return [*got, end]


def _thresholded(
    model: Any, val: FairDataset, pool: FairDataset, test: FairDataset, tol: float
) -> dict[str, float]:
    with warnings.catch_warnings():  # a one-label group falls back; the rows are reported
        warnings.simplefilter("ignore", ResultWarning)
        post = fit_thresholds(model, val, tol=tol, unlabelled=pool)
    got = evaluate_thresholds(post, test, ["accuracy", "demographic_parity_diff_abs"])
    return {"acc": got["accuracy"], "dp": abs(got["demographic_parity_diff_abs"])}


def _task(
    config: CeilingConfig, seeds: Sequence[np.random.SeedSequence], task: RowTask
) -> Trace | dict[str, float] | list[dict[str, float]]:
    if task.method in BOUNDS:
        return bound_task(config, seeds, task)
    return rows_task(config.rows_config(), seeds, task)


def run_ceiling(config: CeilingConfig, executor: Executor) -> ExperimentResult:
    """Run Falcon's λ sweep and the two bounding fronts on every dataset and trial."""
    present, missing = split_present(config.datasets, config.include_sensitive)
    falcon = list(config.rows_config().methods)
    nothing = [MITIGATION] if config.mitigation else []
    tasks = [
        RowTask(d, m, t)
        for d in present
        for m in [*falcon, *BOUNDS, *nothing]
        for t in range(config.n_trials)
    ]
    seeds = spawn_seeds(config.seed, config.n_trials)
    outs = executor.map(functools.partial(_task, config, seeds), tasks)
    result = ExperimentResult(
        experiment="peers-rows-ceiling",
        preset=config.preset,
        title="What group thresholds can reach with every pool label, or none, beside "
        "Falcon's λ front",
        config=config.to_dict(),
    )
    fronts: dict[str, dict[str, list[FrontPoint]]] = {}
    for name in present:
        got = {
            (t.method, t.trial): o for t, o in zip(tasks, outs, strict=True) if t.dataset == name
        }
        fronts[name] = _summarise(result, config, name, falcon, got)
    if fronts:
        result.figures["peers-rows-ceiling"] = _figure(fronts)
    result.meta["skipped_datasets"] = missing
    result.notes += _notes(config, missing)
    return result


def _summarise(
    result: ExperimentResult,
    config: CeilingConfig,
    name: str,
    falcon: list[str],
    got: dict[tuple[str, int], Any],
) -> dict[str, list[FrontPoint]]:
    """Add ``name``'s table rows and verdicts to ``result``; return its fronts by name."""
    trials = range(config.n_trials)
    budget, _ = config.rows_config().budget_of(name)
    theirs = [
        FrontPoint.of(m, [at_most(got[(m, t)], "labels_seen", budget) for t in trials])
        for m in falcon
    ]
    for m in falcon:
        result.traces[f"{name} {m}"] = [got[(m, t)] for t in trials]
    fronts = {"falcon": theirs}
    for bound in BOUNDS:
        labels = [f"{bound} tol={tol:g}" for tol in config.tols] + [f"{bound}, no thresholds"]
        ours = [
            FrontPoint.of(label, [got[(bound, t)][i] for t in trials])
            for i, label in enumerate(labels)
        ]
        fronts[bound] = ours
        result.rows += [_row(name, p) for p in ours]
        result.verdicts.append(_verdict(name, bound, budget, ours, theirs))
    result.rows += [_row(name, p) for p in theirs]
    if config.mitigation:
        result.verdicts.append(
            _floor_verdict(config, name, [got[(MITIGATION, t)] for t in trials])
        )
    result.tables[f"{name}: test accuracy and |DP| (mean ± std over seeds)"] = pd.DataFrame(
        [
            {
                "method": r["method"],
                "accuracy": f"{r['accuracy']:.3f}",
                "|DP|": f"{r['value']:.3f} ± {r['std']:.3f}",
            }
            for r in result.rows
            if r["dataset"] == name
        ]
    )
    return fronts


#: How the figure draws each front: colour, line style, marker, legend words.
_STYLE = {
    "falcon": ("k", "--", "o", "Falcon λ front (labels bought: the budget)"),
    "every pool label": ("crimson", "-", "D", "group thresholds, every pool label"),
    "nothing bought": ("teal", ":", "s", "group thresholds, nothing bought"),
}


def _figure(fronts: dict[str, dict[str, list[FrontPoint]]]) -> Any:
    """Accuracy vs |DP| per dataset: Falcon's front and the two bounding fronts (± std)."""
    fig = new_figure(5.0 * len(fronts) + 2.5, 4.2)
    axes = np.atleast_1d(fig.subplots(1, len(fronts)))
    for ax, (name, by_front) in zip(axes, fronts.items(), strict=True):
        for key, points in by_front.items():
            color, line, marker, words = _STYLE[key]
            pts = points  # in knob order: λ from 1 down, tol up
            acc = np.array([p.acc for p in pts])
            dp, std = np.array([p.dp for p in pts]), np.array([p.dp_std for p in pts])
            ax.fill_between(acc, np.clip(dp - std, 0, None), dp + std, color=color, alpha=0.1)
            ax.plot(acc, dp, line, marker=marker, color=color, ms=4, label=words)
        for p in by_front["falcon"]:  # which λ each of Falcon's points is
            lam = p.label.removeprefix("falcon lam=")
            ax.annotate(
                f"λ={lam}",
                (p.acc, p.dp),
                textcoords="offset points",
                xytext=(-6, 6),
                ha="right",
                fontsize=7,
            )
        ax.set_title(name)
        ax.set_xlabel("test accuracy (higher is better)")
        ax.set_ylabel("test |demographic parity gap| (lower is better)")
        ax.text(
            0.99,
            0.01,
            "bands: |gap| ± std over seeds",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=7,
            color="0.4",
        )
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8)
    return fig


def _floor_verdict(config: CeilingConfig, name: str, runs: list[dict[str, float]]) -> Verdict:
    """ThresholdOptimizer with no data against the gap an exactly fair rule shows on test.

    Met when its mean test |DP| is within two standard errors of that gap's mean: then no
    method's |DP| can be expected to be lower by more than the seeds' spread.
    """
    data = load_rows_dataset(name, config.include_sensitive)
    seeds = spawn_seeds(config.seed, config.n_trials)
    floors = []
    for t, run in enumerate(runs):
        test = split_cells(data, seeds[t], config.max_rows)[3]
        sizes = np.bincount(np.asarray(test.s, dtype=np.int64)).tolist()
        floors.append(gap_noise_floor(sizes, run["test_rate"]))
    floor = float(np.mean([f[0] for f in floors]))
    bound = floor + 2 * float(np.mean([f[1] for f in floors])) / math.sqrt(len(runs))
    dp = [r["test_dp"] for r in runs]
    acc = float(np.mean([r["test_accuracy"] for r in runs]))
    return Verdict(
        name=f"{name}: ThresholdOptimizer on the initial rows (collect nothing) is at the "
        "test split's noise floor (an exactly fair rule's expected |DP|)",
        met=bool(np.mean(dp) <= bound),
        ours=float(np.mean(dp)),
        target=bound,
        op="<=",
        detail=f"|DP| {np.mean(dp):.4f} ± {np.std(dp):.4f} at accuracy {acc:.3f}; an exactly "
        f"fair rule shows {floor:.4f} on these test splits (bound: two standard errors above, "
        f"{bound:.4f}).",
        facts={
            "floor": floor,
            "bound": bound,
            "dp": float(np.mean(dp)),
            "dp_std": float(np.std(dp)),
            "accuracy": acc,
        },
    )


def _row(dataset: str, point: FrontPoint) -> dict[str, Any]:
    return {
        "metric": "test_dp",
        "dataset": dataset,
        "method": point.label,
        "value": point.dp,
        "std": point.dp_std,
        "accuracy": point.acc,
        "paper_value": None,
    }


def _verdict(
    name: str, bound: str, budget: int, ours: list[FrontPoint], theirs: list[FrontPoint]
) -> Verdict:
    labels = "the whole pool's labels" if bound == "every pool label" else "no label bought"
    return front_verdict(
        f"{name}: group thresholds on a model trained with {labels} dominate Falcon's λ "
        f"front at equal labels seen (<= {budget})",
        ours,
        theirs,
        facts={"front": bound, "against": "falcon"},
    )


def _notes(config: CeilingConfig, missing: list[str]) -> list[str]:
    notes = [
        "Same splits, seeds and Falcon runs as peers-rows (train : validation : pool : test = "
        "1 : 1 : 8 : 4 per (group, label) cell; logistic regression; demographic parity). The "
        "bounding fronts: a logistic regression trained on the initial rows plus every pool "
        "row with its label ('every pool label'), or on the initial rows only ('nothing "
        "bought'); each group's rate chosen on validation within tol and its threshold placed "
        f"at the pool's quantiles; tol in {', '.join(f'{t:g}' for t in config.tols)}, and the "
        "model without thresholds as the front's end. A "
        "front read at Falcon's accuracies counts a coin between two of its points.",
        "The 'every pool label' model is the best-informed one a strategy buying pool rows "
        "could train: if even its thresholded front is not ahead of Falcon's by more than the "
        "seeds' spread, the difference a choice of rows makes is below the split's own noise "
        "(evidence, not a proof: a skewed set of rows could still rank people differently).",
    ]
    if config.mitigation:
        notes.append(
            "ThresholdOptimizer on the initial rows (collect nothing) is set beside the |DP| an "
            "exactly fair rule shows on each test split (a difference of two groups' shares: "
            "fairacq.metrics.gap_noise_floor). Where it sits at that floor, no front can be "
            "expected to be lower than it by more than the seeds' spread."
        )
    notes += [f"{n}: skipped, its data files are not present." for n in missing]
    if config.max_rows is not None:
        notes.append(
            f"Quick preset: {config.max_rows} rows a dataset, {config.n_trials} seed(s); "
            "indicative only."
        )
    return notes


register(
    ExperimentSpec(
        name="peers-rows-ceiling",
        family="acquisition",
        paper="peers: Falcon (PVLDB 2024); fairacq's threshold strategies' bounds",
        title="COMPAS / Adult (/ ACS Income): group thresholds with every pool label, or "
        "none, against Falcon's λ front",
        config_cls=CeilingConfig,
        run=run_ceiling,  # type: ignore[arg-type]
    )
)
