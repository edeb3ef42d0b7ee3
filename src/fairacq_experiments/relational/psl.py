"""Paper 004 (Zhang & Ramesh, Fair-A3SL) §5: the hand-written PSL models and the baselines.

Three experiments put our numbers beside the paper's tables (``mean ± std`` over folds or
samples, population std as the paper; the wide tables are written to ``tables.md``):

- ``psl-paper-review`` (Tables 4-5 layout): Sensitive-PSL and Fair-PSL (RD <= 0.1) on the
  paper-review network. ``source="authors"`` (full preset) runs the authors' ten samples
  ``bias1..bias10``, learning the weights and inferring on the same sample, as the authors'
  ``paperReview_baseline.groovy`` does; ``source="generator"`` (quick preset) trains on one
  sample of :func:`~fairacq.data.synthetic.make_paper_review` and tests on another (the
  paper's text), one pair per trial.
- ``psl-compas`` (Tables 8-9 layout): 5-fold cross-validation; the COMPAS score, a logistic
  regression, fairlearn's ExponentiatedGradient (demographic parity, equalised odds) and
  ThresholdOptimizer (equalised odds) standing in for the paper's AIF360 models, and
  Sensitive-PSL / Fair-PSL (RD <= 0.1 on the test fold). Weights are learned on the training
  folds, inference runs on the test fold.
- ``psl-movielens`` (Tables 12-13 layout): MF, Fair-MF (non-parity and overestimation
  regularisers), and the HyPER-style PSL model without and with a non-parity constraint.

The paper's "Fair-A3SL" rows are learned models (another experiment); they are listed in
``tables.md`` for reference, beside the hand-written models here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from fairacq._io import atomic_write
from fairacq._random import child_seeds, spawn_seeds
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidParameterError
from fairacq.parallel import Executor, single_thread
from fairacq.reporting import format_markdown_table
from fairacq_experiments._framework.config import ExperimentConfig
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult
from fairacq_experiments.relational._paper_numbers import (
    PAPER_REVIEW_TABLES_4_5,
    RELATIONAL_TABLE_COLUMNS,
    TABLES_8_9,
    TABLES_12_13,
    relational_paper_value,
)

__all__ = [
    "PslCompasConfig",
    "PslMovieLensConfig",
    "PslPaperReviewConfig",
    "RelationalResult",
    "run_psl_compas",
    "run_psl_movielens",
    "run_psl_paper_review",
]

Metrics = dict[str, float]


@dataclass
class RelationalResult(ExperimentResult):
    """An :class:`ExperimentResult` that also writes the paper-layout tables (``tables.md``).

    Its ``tables`` map a table name (``"Table 8"``) to one row per model and one column per
    metric, cells ``"ours (paper)"`` as ``mean ± std``.
    """

    def write(self, out_dir: str | os.PathLike[str], *, command: str = "") -> Path:
        """Write the usual outputs, then ``tables.md`` with the paper's layout."""
        out = super().write(out_dir, command=command)
        if self.tables:
            parts = [f"# {self.title or self.experiment}: tables in the paper's layout", ""]
            parts.append(
                "Cells: ours `mean ± std` (over folds or samples, population std), then the "
                "paper's in brackets where the paper has that row."
            )
            for name, frame in self.tables.items():
                parts += ["", f"## {name}", "", format_markdown_table(frame)]
            with atomic_write(out / "tables.md") as fh:
                fh.write("\n".join(parts) + "\n")
        return out


def _fmt(mean: float | None, std: float | None) -> str:
    if mean is None or not np.isfinite(mean):
        return "—"
    return f"{mean:.4f} ± {std:.4f}" if std is not None and np.isfinite(std) else f"{mean:.4f}"


def _summarise(
    runs: Mapping[str, list[Metrics]],
    labels: Mapping[str, str],
    paper_rows: Mapping[str, str | None],
    table: dict[tuple[str, str], tuple[float, float]],
    tables: Mapping[str, Sequence[str]],
    dataset: str,
) -> tuple[list[dict[str, Any]], dict[str, pd.DataFrame]]:
    """Tidy rows (ours beside the paper's) and the wide tables of the paper's layout."""
    rows: list[dict[str, Any]] = []
    wide: dict[str, pd.DataFrame] = {}
    stats: dict[tuple[str, str], tuple[float, float, int]] = {}
    for method, results in runs.items():
        frame = pd.DataFrame(results, dtype=np.float64)
        for metric in frame.columns:
            vals = frame[metric].to_numpy()
            vals = vals[np.isfinite(vals)]
            mean = float(vals.mean()) if vals.size else float("nan")
            std = float(vals.std(ddof=0)) if vals.size else float("nan")
            stats[method, metric] = (mean, std, int(vals.size))
    for table_name, metric_list in tables.items():
        key = table_name.lower().replace(" ", "")
        cols = dict(RELATIONAL_TABLE_COLUMNS[key])
        body: list[dict[str, str]] = []
        for method in runs:
            paper_row = paper_rows.get(method)
            cells = {"Model": labels[method]}
            for metric in metric_list:
                mean, std, n = stats.get((method, metric), (float("nan"), float("nan"), 0))
                p_mean, p_std = relational_paper_value(table, paper_row, metric)
                rows.append(
                    {
                        "dataset": dataset,
                        "method": labels[method],
                        "metric": metric,
                        "value": mean,
                        "std": std,
                        "n": n,
                        "paper_value": p_mean,
                        "paper_std": p_std,
                        "paper_row": paper_row,
                        "table": table_name,
                    }
                )
                cell = _fmt(mean, std)
                if p_mean is not None:
                    cell += f" ({_fmt(p_mean, p_std)})"
                cells[cols[metric]] = cell
            body.append(cells)
        ours = {paper_rows.get(m) for m in runs}
        for paper_row in dict.fromkeys(r for r, _ in table):
            if paper_row in ours:
                continue
            cells = {"Model": f"*{paper_row} (paper)*"}
            for metric in metric_list:
                p_mean, p_std = relational_paper_value(table, paper_row, metric)
                cells[cols[metric]] = f"({_fmt(p_mean, p_std)})"
            body.append(cells)
        wide[table_name] = pd.DataFrame(body)
    return rows, wide


def _result(
    config: ExperimentConfig, name: str, title: str, rows: list[dict[str, Any]]
) -> RelationalResult:
    return RelationalResult(
        experiment=name,
        preset=config.preset,
        title=title,
        config=config.to_dict(),
        rows=rows,
    )


# --------------------------------------------------------------------------- paper review


@dataclass(frozen=True)
class PslPaperReviewConfig(ExperimentConfig):
    """Configuration of ``psl-paper-review`` (paper 004 §5.1, Tables 4-5).

    Parameters
    ----------
    source : {"authors", "generator"}
        The authors' samples (learn and infer in-sample, as their code) or fresh samples of
        the generator (train on one, test on another; ``n_trials`` pairs).
    samples : tuple of int
        Which authors' samples (1-10).
    delta : float
        RD tolerance of Fair-PSL (§5.1: 0.1).
    protected : {"student_low_rank", "student"}
        Protected group (the authors' code / the paper's text).
    weight_iter : int
        Voted-perceptron steps (PSL default 25).
    """

    QUICK: ClassVar[dict[str, Any]] = {"source": "generator", "n_trials": 2, "weight_iter": 10}
    FULL: ClassVar[dict[str, Any]] = {"source": "authors", "samples": tuple(range(1, 11))}

    source: str = "authors"
    samples: tuple[int, ...] = tuple(range(1, 11))
    delta: float = 0.1
    protected: str = "student_low_rank"
    weight_iter: int = 25

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.source not in ("authors", "generator"):
            raise InvalidParameterError(
                f"PslPaperReviewConfig: source must be 'authors' or 'generator', got "
                f"{self.source!r}."
            )


_PR_MODELS = {"Sensitive-PSL": "paper-review-sensitive", "Fair-PSL": "paper-review-fair"}


def _pipeline_metrics(
    model_name: str,
    train: RelationalData,
    test: RelationalData,
    *,
    delta: float | None,
    weight_iter: int,
    seed: np.random.SeedSequence,
) -> Metrics:
    from fairacq.relational._pipeline import run_pipeline
    from fairacq.relational.psl._models import make_psl_model

    model = make_psl_model(model_name)
    fairness = tuple(
        f"{spec.split('<=')[0]}<={delta}" if delta is not None else spec for spec in model.fairness
    )
    out = run_pipeline(
        model.rules,
        train,
        test,
        fairness=fairness,
        weight_learning={"n_iter": weight_iter},
        random_state=seed,
    )
    metrics = dict(out.metrics)
    metrics["seconds"] = float(sum(out.seconds.values()))
    metrics["max_violation"] = float(out.map_result.max_violation)
    return metrics


def _paper_review_unit(
    config: PslPaperReviewConfig, unit: tuple[int, np.random.SeedSequence]
) -> dict[str, Metrics]:
    from fairacq.data.relational._paper_review import load_paper_review, paper_review_data
    from fairacq.data.synthetic import make_paper_review

    index, seed = unit
    data_seed, train_seed, learn_seed = child_seeds(seed, 3)
    protected: Any = config.protected
    if config.source == "authors":
        train = test = load_paper_review(index, protected=protected)
    else:
        train = paper_review_data(make_paper_review(random_state=data_seed), protected=protected)
        test = paper_review_data(make_paper_review(random_state=train_seed), protected=protected)
    return {
        label: _pipeline_metrics(
            name,
            train,
            test,
            delta=config.delta if "fair" in name else None,
            weight_iter=config.weight_iter,
            seed=learn_seed,
        )
        for label, name in _PR_MODELS.items()
    }


def run_psl_paper_review(config: PslPaperReviewConfig, executor: Executor) -> RelationalResult:
    """Run Sensitive-PSL and Fair-PSL on every sample and summarise Tables 4-5."""
    if config.source == "authors":
        seeds = spawn_seeds(config.seed, len(config.samples))
        units = list(zip(config.samples, seeds, strict=True))
    else:
        seeds = spawn_seeds(config.seed, config.n_trials)
        units = list(zip(range(config.n_trials), seeds, strict=True))
    outs = executor.map(_run_unit(_paper_review_unit, config), units)
    runs: dict[str, list[Metrics]] = {label: [o[label] for o in outs] for label in _PR_MODELS}
    labels = {k: k for k in runs}
    paper_rows: dict[str, str | None] = {k: k for k in runs}
    rows, tables = _summarise(
        runs,
        labels,
        paper_rows,
        PAPER_REVIEW_TABLES_4_5,
        {
            "Table 4": ("auc_pr_protected", "auc_pr_unprotected", "auc_roc"),
            "Table 5": ("rd", "rr", "rc", "equal_odds_pos", "equal_odds_neg"),
        },
        "paper-review",
    )
    result = _result(
        config,
        "psl-paper-review",
        "Sensitive-PSL and Fair-PSL on the paper-review network (Tables 4-5)",
        rows,
    )
    result.tables = tables
    fair_rd = [abs(m["rd"]) for m in runs["Fair-PSL"]]
    where = (
        f"the authors' samples {list(config.samples)}, weights learned and MAP inferred on "
        "the same sample (the authors' protocol)"
        if config.source == "authors"
        else f"{config.n_trials} generator pairs (train on one sample, test on another)"
    )
    result.notes += [
        f"Data: {where}; protected group: {config.protected}.",
        f"Fair-PSL imposes RD <= {config.delta} at MAP inference: |RD| per unit "
        f"{', '.join(f'{v:.4f}' for v in fair_rd)} (max {max(fair_rd):.4f}).",
        "The paper's Fair-PSL reaches RD 0.0005 because the authors' code enforces parity "
        "(delta effectively 0, see REPRODUCTION-NOTES); with delta 0.1 the constraint binds at "
        "0.1 when the unconstrained RD is larger.",
        "Metric definitions (soft rates, PSL's ranked AUC-PR) follow "
        "fairacq.relational.evaluate_classification; RR/RC are on the rates of the "
        "unfavourable outcome (no positive summary), so they need not match the paper's sign "
        "conventions.",
    ]
    return result


class _run_unit:
    def __init__(self, fn: Callable[..., Any], config: ExperimentConfig) -> None:
        self.fn, self.config = fn, config

    def __call__(self, unit: Any) -> Any:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)  # 2 shared cores; trials may run in a process pool
        return self.fn(self.config, unit)


# --------------------------------------------------------------------------- COMPAS


@dataclass(frozen=True)
class PslCompasConfig(ExperimentConfig):
    """Configuration of ``psl-compas`` (paper 004 §5.2, Tables 8-9).

    Parameters
    ----------
    source : {"authors", "bundled"}
        The authors' five folds (``fair-a3sl/compas_5cv.tar.gz``) or folds of the bundled
        ProPublica file (seeded by ``seed``).
    folds : tuple of int
        Which folds to run (§5: all five).
    delta : float
        RD tolerance of Fair-PSL (0.1).
    baselines : tuple of str
        Keys of :data:`fairacq.relational.baselines._compas.COMPAS_BASELINES`.
    weight_iter : int
        Voted-perceptron steps.
    """

    QUICK: ClassVar[dict[str, Any]] = {"source": "bundled", "folds": (0,), "weight_iter": 5}
    FULL: ClassVar[dict[str, Any]] = {"source": "authors", "folds": (0, 1, 2, 3, 4)}

    source: str = "authors"
    folds: tuple[int, ...] = (0, 1, 2, 3, 4)
    delta: float = 0.1
    baselines: tuple[str, ...] = (
        "compas-score",
        "logistic",
        "expgrad-dp",
        "expgrad-eo",
        "threshold-eo",
    )
    weight_iter: int = 25


_COMPAS_LABELS = {
    "compas-score": "COMPAS Scores",
    "logistic": "Logistic regression",
    "expgrad-dp": "ExpGrad-DP (fairlearn)",
    "expgrad-eo": "ExpGrad-EO (fairlearn)",
    "threshold-eo": "ThresholdOptimizer-EO (fairlearn)",
    "Sensitive-PSL": "Sensitive-PSL",
    "Fair-PSL": "Fair-PSL (RD <= delta)",
}
#: The paper's row each of ours is put beside (nearest counterpart; the AIF360 models are
#: replaced by fairlearn ones, and the paper's relational fair model is Fair-A3SL).
_COMPAS_PAPER_ROWS: dict[str, str | None] = {
    "compas-score": "COMPAS Scores",
    "logistic": None,
    "expgrad-dp": "Prejudice Remover",
    "expgrad-eo": "Line-FERM",
    "threshold-eo": "Calibrated Equalized Odds",
    "Sensitive-PSL": None,
    "Fair-PSL": "Fair-A3SL",
}


def _compas_unit(
    config: PslCompasConfig, unit: tuple[int, np.random.SeedSequence]
) -> dict[str, Metrics]:
    from fairacq.data.relational._compas import load_compas_relational
    from fairacq.relational._evaluation import evaluate_atoms
    from fairacq.relational.baselines._compas import compas_baseline

    fold, seed = unit
    source: Any = config.source
    kw: dict[str, Any] = {"source": source, "random_state": config.seed}
    train = load_compas_relational(fold, split="train", **kw)
    test = load_compas_relational(fold, split="test", include_compas_score=True, **kw)
    out: dict[str, Metrics] = {}
    for method in config.baselines:
        tic = time.perf_counter()
        metrics = dict(evaluate_atoms(test, compas_baseline(method, train, test)))
        metrics["seconds"] = time.perf_counter() - tic
        out[method] = metrics
    for label, name in (("Sensitive-PSL", "compas-sensitive"), ("Fair-PSL", "compas-fair")):
        out[label] = _pipeline_metrics(
            name,
            train,
            test,
            delta=config.delta if label == "Fair-PSL" else None,
            weight_iter=config.weight_iter,
            seed=seed,
        )
    return out


def run_psl_compas(config: PslCompasConfig, executor: Executor) -> RelationalResult:
    """Run the baselines and the PSL models on every fold and summarise Tables 8-9."""
    seeds = spawn_seeds(config.seed, len(config.folds))
    outs = executor.map(
        _run_unit(_compas_unit, config), list(zip(config.folds, seeds, strict=True))
    )
    methods = [*config.baselines, "Sensitive-PSL", "Fair-PSL"]
    runs = {m: [o[m] for o in outs] for m in methods}
    rows, tables = _summarise(
        runs,
        {m: _COMPAS_LABELS[m] for m in methods},
        {m: _COMPAS_PAPER_ROWS[m] for m in methods},
        TABLES_8_9,
        {
            "Table 8": ("auc_pr_protected", "auc_pr_unprotected", "auc_roc"),
            "Table 9": ("rd", "rr", "rc", "equal_odds_pos", "equal_odds_neg"),
        },
        "compas",
    )
    result = _result(
        config, "psl-compas", "COMPAS: baselines and hand-written PSL models (Tables 8-9)", rows
    )
    result.tables = tables
    fair_rd = [abs(m["rd"]) for m in runs["Fair-PSL"]]
    result.meta["fair_psl_test_rd"] = fair_rd
    excess = max(fair_rd) - config.delta
    ok = excess <= 1e-4
    result.notes += [
        f"Folds {list(config.folds)} of the {config.source} split; weights learned on the "
        "training folds, MAP inference and metrics on the test fold.",
        f"Fair-PSL with RD <= {config.delta} on the test fold: |RD| per fold "
        f"{', '.join(f'{v:.4f}' for v in fair_rd)} -> "
        + (
            f"within delta on every fold (largest excess {max(excess, 0.0):.1e}, the ADMM "
            "feasibility tolerance)."
            if ok
            else "NOT within delta on every fold."
        ),
        "The paper's Fair-A3SL RD of 0.0035 ± 0.0003 is only reachable under exact parity "
        "(the authors' delta is effectively 0, see REPRODUCTION-NOTES); across folds RD varies "
        "by 0.02-0.05 for an unconstrained model, so an out-of-sample constraint with delta "
        "0.1 binds at about 0.1.",
        "fairlearn stands in for AIF360: ExpGrad-DP beside Prejudice Remover, ExpGrad-EO "
        "beside Line-FERM, ThresholdOptimizer-EO beside Calibrated Equalized Odds; their "
        "scores are the randomised classifiers' probabilities of a positive label. "
        "Fair-PSL is put beside the paper's Fair-A3SL row (the paper's relational fair model).",
    ]
    return result


# --------------------------------------------------------------------------- MovieLens


@dataclass(frozen=True)
class PslMovieLensConfig(ExperimentConfig):
    """Configuration of ``psl-movielens`` (paper 004 §5.3, Tables 12-13).

    Parameters
    ----------
    folds : tuple of int
        Which of the five rating folds to test on (§5: all five).
    max_targets : int or None
        Keep only this many target ratings per split (quick preset; ``None`` keeps all).
    psl : bool
        Run the PSL models (HyPER and HyPER with non-parity).
    nonparity_delta : float
        Non-parity tolerance of the constrained PSL model.
    lam_parity, lam_over : float
        Fair-MF regulariser strengths.
    fair_epochs : int
        Adam steps of Fair-MF.
    weight_iter : int
        Voted-perceptron steps of the PSL models.
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "folds": (0,),
        "max_targets": 1500,
        "weight_iter": 3,
        "fair_epochs": 50,
    }
    FULL: ClassVar[dict[str, Any]] = {"folds": (0, 1, 2, 3, 4), "weight_iter": 10}

    folds: tuple[int, ...] = (0, 1, 2, 3, 4)
    max_targets: int | None = None
    psl: bool = True
    nonparity_delta: float = 0.001
    lam_parity: float = 1.0
    lam_over: float = 1.0
    fair_epochs: int = 200
    weight_iter: int = 10


def _head_targets(data: RelationalData, n: int | None, seed: np.random.SeedSequence) -> Any:
    """Keep ``n`` random target ratings (and their truth and groups) of a MovieLens split."""
    if n is None or n >= data.n_atoms("rating"):
        return data
    targets = data.targets["rating"]
    keep = np.sort(np.random.default_rng(seed).choice(len(targets), n, replace=False))
    kept = targets.iloc[keep].reset_index(drop=True)
    key = set(kept.astype(str).itertuples(index=False, name=None))

    def sub(frame: pd.DataFrame) -> pd.DataFrame:
        tuples = frame[["user", "item"]].astype(str).itertuples(index=False, name=None)
        mask = np.fromiter((t in key for t in tuples), dtype=bool, count=len(frame))
        return frame.loc[mask].reset_index(drop=True)

    return RelationalData(
        observations=data.observations,
        targets={"rating": kept},
        truth={"rating": sub(data.truth["rating"])},
        protected=sub(data.protected),
        unprotected=sub(data.unprotected),
        metadata={**data.metadata, "max_targets": n},
    )


def _movielens_unit(
    config: PslMovieLensConfig, unit: tuple[int, np.random.SeedSequence]
) -> dict[str, Metrics]:
    from fairacq.relational._datasets import load_movielens_relational
    from fairacq.relational._evaluation import evaluate_atoms
    from fairacq.relational.baselines._movielens import movielens_baseline

    single_thread()  # Fair-MF runs torch
    fold, seed = unit
    sub_seed, mf_seed, learn_seed = child_seeds(seed, 3)
    test = _head_targets(
        load_movielens_relational(fold, split="test", random_state=config.seed),
        config.max_targets,
        sub_seed,
    )
    out: dict[str, Metrics] = {}
    tic = time.perf_counter()
    out["MF"] = dict(evaluate_atoms(test, movielens_baseline("mf", test)))
    out["MF"]["seconds"] = time.perf_counter() - tic
    tic = time.perf_counter()
    fair = movielens_baseline(
        "fair-mf",
        test,
        lam_parity=config.lam_parity,
        lam_over=config.lam_over,
        fair_options={"n_epochs": config.fair_epochs},
        random_state=mf_seed,
    )
    out["Fair-MF"] = dict(evaluate_atoms(test, fair))
    out["Fair-MF"]["seconds"] = time.perf_counter() - tic
    if config.psl:
        train = _head_targets(
            load_movielens_relational(fold, split="train", random_state=config.seed),
            config.max_targets,
            sub_seed,
        )
        out["HyPER"] = _pipeline_metrics(
            "movielens-hyper",
            train,
            test,
            delta=None,
            weight_iter=config.weight_iter,
            seed=learn_seed,
        )
        out["Fair-HyPER-NP"] = _pipeline_metrics(
            "movielens-fair",
            train,
            test,
            delta=config.nonparity_delta,
            weight_iter=config.weight_iter,
            seed=learn_seed,
        )
    return out


def run_psl_movielens(config: PslMovieLensConfig, executor: Executor) -> RelationalResult:
    """Run MF, Fair-MF and the PSL models on every fold and summarise Tables 12-13."""
    seeds = spawn_seeds(config.seed, len(config.folds))
    outs = executor.map(
        _run_unit(_movielens_unit, config), list(zip(config.folds, seeds, strict=True))
    )
    methods = list(outs[0])
    runs = {m: [o[m] for o in outs] for m in methods}
    labels = {
        "MF": "MF",
        "Fair-MF": "Fair-MF",
        "HyPER": "HyPER (PSL)",
        "Fair-HyPER-NP": "HyPER + non-parity (PSL)",
    }
    paper_rows: dict[str, str | None] = {
        "MF": "MF",
        "Fair-MF": "Fair-MF",
        "HyPER": "HyPER",
        "Fair-HyPER-NP": "Fair-HyPER",
    }
    rows, tables = _summarise(
        runs,
        {m: labels[m] for m in methods},
        {m: paper_rows[m] for m in methods},
        TABLES_12_13,
        {
            "Table 12": ("mse_protected", "mse_unprotected", "mse"),
            "Table 13": ("non_parity", "overestimation"),
        },
        "movielens-100k",
    )
    result = _result(
        config, "psl-movielens", "MovieLens: MF, Fair-MF and PSL models (Tables 12-13)", rows
    )
    result.tables = tables
    subset = (
        f"{config.max_targets} random target ratings per fold"
        if config.max_targets
        else "all target ratings"
    )
    result.notes += [
        f"Folds {list(config.folds)} of 5 seeded rating folds; {subset}. Ratings are /5.",
        "MF is the ALS factorisation behind the ratingMF predicate; Fair-MF starts from an "
        f"ALS fit and adds lam_parity={config.lam_parity} * non-parity + "
        f"lam_over={config.lam_over} * overestimation on the training ratings "
        f"({config.fair_epochs} Adam steps).",
        "The PSL model is HyPER-style (MF, averages and Pearson similarities); the "
        "constrained one adds non-parity <= "
        f"{config.nonparity_delta} at MAP inference. It is beside the paper's Fair-HyPER row, "
        "which instead adds latent group-rating variables against overestimation.",
    ]
    return result


for _name, _paper, _title, _cls, _run in (
    (
        "psl-paper-review",
        "004 Tables 4-5",
        "Paper review: Sensitive-PSL vs Fair-PSL (AUC-PR, AUC-ROC, RD/RR/RC, equalised odds)",
        PslPaperReviewConfig,
        run_psl_paper_review,
    ),
    (
        "psl-compas",
        "004 Tables 8-9",
        "COMPAS: COMPAS score, fairlearn baselines, Sensitive/Fair-PSL (RD <= 0.1), 5 folds",
        PslCompasConfig,
        run_psl_compas,
    ),
    (
        "psl-movielens",
        "004 Tables 12-13",
        "MovieLens 100K: MF, Fair-MF and HyPER-style PSL (per-group MSE, non-parity)",
        PslMovieLensConfig,
        run_psl_movielens,
    ),
):
    register(
        ExperimentSpec(
            name=_name,
            family="relational",
            paper=_paper,
            title=_title,
            config_cls=_cls,
            run=_run,  # type: ignore[arg-type]
        )
    )
