"""Paper 000 Fig. 7: DataSift's sensitivity to batch size, alpha, partitioning and reward.

Each panel varies one design choice on one dataset (the paper uses ACSIncome with logistic
regression; the quick preset uses Adult) and reports the final test |demographic parity
difference| of DataSift and DataSift-Inf, mean and standard deviation over trials:

- (a) batch size as a fraction of the budget;
- (b) alpha, the UCB exploration weight of eq. (2);
- (c) GMM clusters against partitions given by a column (the paper: the four largest states);
- (d) the reward share: eq. (1) (``datasift``), distance only (AutoData's), base rate only.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fairacq._random import child_seeds, spawn_seeds
from fairacq.acquisition import PartitionDroppedWarning, make_acquirer
from fairacq.parallel import Executor
from fairacq.reporting import new_figure
from fairacq_experiments._framework.config import ExperimentConfig
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult, mean_std_row
from fairacq_experiments.datasift._tasks import split_for_experiment

__all__ = ["AblationConfig", "run_ablation"]


@dataclass(frozen=True)
class AblationConfig(ExperimentConfig):
    """Configuration of the Fig. 7 ablations.

    Parameters
    ----------
    dataset : str
        Dataset (the paper: ACSIncome).
    partition_column : str
        Column whose largest values give the "partition by state" panel (ACS: ``ST``).
    batch_fractions, alphas : tuple of float
        Values of panels (a) and (b).
    rewards : tuple of str
        Reward shares of panel (d).
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "dataset": "adult",
        "partition_column": "race",
        "n_trials": 2,
        "max_rows": 12_000,
        "batch_fractions": (0.05, 0.1, 0.2),
        "alphas": (0.0, 0.1, 1.0),
    }
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 3}

    dataset: str = "acs-income"
    partition_column: str = "ST"
    max_partitions: int = 4
    methods: tuple[str, ...] = ("datasift", "datasift-inf")
    batch_fractions: tuple[float, ...] = (0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.2)
    alphas: tuple[float, ...] = (0.0, 0.01, 0.1, 0.5, 1.0)
    rewards: tuple[str, ...] = ("datasift", "distance", "base_rate")
    budget_fraction: float = 0.2
    tau: float = 0.01
    metric: str = "demographic_parity_diff_abs"
    bias: str = "paper"
    max_rows: int | None = None

    @property
    def datasets(self) -> tuple[str, ...]:
        """The one dataset, as a tuple like the DataSift configurations' ``datasets``."""
        return (self.dataset,)


@dataclass(frozen=True)
class _Variant:
    panel: str
    value: Any
    method: str
    trial: int


def _params(config: AblationConfig, v: _Variant) -> dict[str, Any]:
    params: dict[str, Any] = {"alpha": 0.1, "batch_fraction": 0.1}
    if v.panel == "batch":
        params["batch_fraction"] = v.value
    elif v.panel == "alpha":
        params["alpha"] = v.value
    elif v.panel == "partitioning" and v.value == "column":
        params.update(
            partitioning="column",
            partition_column=config.partition_column,
            max_partitions=config.max_partitions,
        )
    elif v.panel == "reward":
        params["reward"] = v.value
    return params


def _run_variant(
    config: AblationConfig, seeds: list[np.random.SeedSequence], v: _Variant
) -> float:
    seed = seeds[v.trial]
    split = split_for_experiment(config, config.dataset, seed)  # type: ignore[arg-type]
    params = _params(config, v)
    budget = max(1, round(config.budget_fraction * len(split.pool)))
    batch = max(1, round(params.pop("batch_fraction") * budget))
    acquirer = make_acquirer(
        v.method,
        budget=budget,
        batch_size=batch,
        metric=config.metric,
        tau=config.tau,
        random_state=child_seeds(seed, 1)[0],
        **params,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        trace = acquirer.fit(
            split.train, split.pool, validation=split.validation, test=split.test
        ).trace_
    return float(trace.final(f"test_{config.metric}"))


def run_ablation(config: AblationConfig, executor: Executor) -> ExperimentResult:
    """Run the four ablation panels and plot them side by side."""
    panels: dict[str, tuple[Any, ...]] = {
        "batch": config.batch_fractions,
        "alpha": config.alphas,
        "partitioning": ("gmm", "column"),
        "reward": config.rewards,
    }
    seeds = spawn_seeds(config.seed, config.n_trials)
    variants = [
        _Variant(p, val, m, t)
        for p, vals in panels.items()
        for val in vals
        for m in config.methods
        for t in range(config.n_trials)
    ]
    values = executor.map(functools.partial(_run_variant, config, seeds), variants)
    result = ExperimentResult(
        experiment="datasift-fig7",
        preset=config.preset,
        title="DataSift ablations (Fig. 7)",
        config=config.to_dict(),
    )
    result.rows += _ablation_rows(config, panels, list(zip(variants, values, strict=True)))
    result.figures["datasift-fig7"] = _ablation_figure(config, panels, result.rows)
    result.notes.extend(
        [
            "Paper 000 §4.4 reports: DataSift-Inf nearly stable across batch sizes with the best "
            "between 6% and 12% of the budget; moderate alpha (0.1) best; DataSift-Inf robust to "
            "GMM vs state partitions while DataSift declines slightly with the larger state "
            "partitions; base-rate and combined rewards both better than AutoData's distance-only "
            "reward. Compare with the table above; the paper gives curves, not numbers.",
            f"Partition-by-column panel uses the {config.max_partitions} largest values of "
            f"'{config.partition_column}'.",
        ]
    )
    return result


def _ablation_rows(
    config: AblationConfig,
    panels: dict[str, tuple[Any, ...]],
    outcomes: list[tuple[_Variant, float]],
) -> list[dict[str, Any]]:
    """One row per (panel, method, setting): the final fairness over the trials."""
    rows = []
    for panel, vals in panels.items():
        for method in config.methods:
            for val in vals:
                got = [
                    x for v, x in outcomes if (v.panel, v.value, v.method) == (panel, val, method)
                ]
                rows.append(
                    mean_std_row(
                        got,
                        dataset=config.dataset,
                        method=method,
                        metric=f"test_{config.metric}",
                        panel=panel,
                        setting=str(val),
                    )
                )
    return rows


def _ablation_figure(
    config: AblationConfig, panels: dict[str, tuple[Any, ...]], rows: list[dict[str, Any]]
) -> Any:
    """One panel per ablation: each method's mean and spread against the setting."""
    fig = new_figure(14.0, 3.6)
    axes = fig.subplots(1, 4)
    for i, (ax, (panel, vals)) in enumerate(zip(axes, panels.items(), strict=True)):
        xs = np.arange(len(vals))
        for method in config.methods:
            mine = [r for r in rows if (r["panel"], r["method"]) == (panel, method)]
            means, stds = [r["value"] for r in mine], [r["std"] for r in mine]
            ax.errorbar(xs, means, yerr=stds, marker="o", capsize=3, label=method)
            ax.set_xticks(xs, [str(v) for v in vals], rotation=45)
        ax.set_title(f"({'abcd'[i]}) {panel}")
        ax.set_ylabel("final demographic parity gap (test; lower is fairer)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(frameon=False)
    return fig


register(
    ExperimentSpec(
        name="datasift-fig7",
        family="acquisition",
        paper="Hasan & Pradhan Fig. 7",
        title="Ablations: batch size, alpha, GMM vs column partitions, reward share",
        config_cls=AblationConfig,
        run=run_ablation,  # type: ignore[arg-type]
    )
)
