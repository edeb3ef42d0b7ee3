"""Paper 004 (Zhang & Ramesh, Fair-A3SL): the structure-learning experiments of §5.

- ``a3sl-paper-review`` (Tables 3-5): Sensitive-A3SL and Fair-A3SL 1-3 learned on one of the
  authors' paper-review samples and tested on another (pairs 1->2, 3->4, ...); AUC-PR per
  group, AUC-ROC, RD/RR/RC and the equalised-odds differences of ``positiveSummary``.
- ``a3sl-compas`` (Tables 6-9): Fair-A3SL on COMPAS with 5-fold cross-validation; race and
  its proxies are excluded from the predicates the agent may use; RD and AUC-ROC per fold.
- ``a3sl-movielens`` (Tables 11-13): Fair-A3SL with the recommender utility (minus the MSE of
  ``rating``) under a non-parity constraint; MSE per group and non-parity against the
  matrix factorisation behind ``ratingMF``.

Every run learns the clause list on the training part with :class:`~fairacq.relational.
FairA3SL` and evaluates the best one on the test part with
:func:`~fairacq.relational._pipeline.run_pipeline` (weights from training, fairness-
constrained MAP inference on the test atoms with tight ADMM tolerances, the metrics of
:func:`~fairacq.relational.evaluate_atoms`). The learner preset (``"authors"``: AUC-ROC reward,
exact parity; ``"paper"``: log-likelihood with priors, delta 0.1) is recorded on every row.

Choices that differ from the paper (all stated in the summaries):

- clause variables are bound only by positive body atoms (no entity domains prepended): on
  the paper-review data this is about 20 times faster per episode, because domain-bound
  negated atoms ground over cross-products of authors, papers and reviewers;
- the episode budget is far below the authors' (their run lengths are not published);
- MovieLens: the clause list is searched on a random subset of the training users (a full
  fold has 100,000 rating atoms), then its weights are learned on the whole training split;
  rules that join two users or two items (the paper's lambda_3 and lambda_4) cannot be built
  by the clause space (one variable per entity type).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import time
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast

import numpy as np
import pandas as pd

from fairacq._random import RandomState, derive_int_seed, spawn_seeds
from fairacq._trace import Trace
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidParameterError
from fairacq.parallel import Executor, single_thread
from fairacq.reporting import new_figure, plot_traces
from fairacq_experiments._framework.config import ExperimentConfig
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult
from fairacq_experiments._framework.verdict import Verdict
from fairacq_experiments.relational._paper_numbers import (
    PAPER_REVIEW_TABLES_4_5,
    TABLES_8_9,
    TABLES_12_13,
    relational_paper_value,
)

__all__ = [
    "A3SL_TARGETS",
    "PAPER_004_RULES",
    "A3slCompasConfig",
    "A3slConfig",
    "A3slMovieLensConfig",
    "A3slPaperReviewConfig",
    "run_a3sl_compas",
    "run_a3sl_movielens",
    "run_a3sl_paper_review",
    "subsample_entities",
]

#: Metrics of Tables 4-5 and 8-9 (classification targets), in the paper's column order.
_CLASSIFICATION_METRICS = (
    "auc_pr_protected",
    "auc_pr_unprotected",
    "auc_roc",
    "rd",
    "abs_rd",
    "rr",
    "rc",
    "equal_odds_pos",
    "equal_odds_neg",
)

#: The acceptance targets, met on the means over folds: (metric, bound, "<=" or ">=").
A3SL_TARGETS: dict[str, tuple[tuple[str, float, Literal["<=", ">="]], ...]] = {
    "paper-review": (
        ("abs_rd", 0.01, "<="),
        ("equal_odds_pos", 0.02, "<="),
        ("equal_odds_neg", 0.02, "<="),
        ("auc_roc", 0.80, ">="),
    ),
    "compas": (("abs_rd", 0.01, "<="), ("auc_roc", 0.70, ">=")),
    "movielens": (("non_parity", 1e-3, "<="),),
}

#: The rules the paper prints (Tables 3, 6, 7 and 11), for comparison with ours.
PAPER_004_RULES: dict[str, tuple[str, ...]] = {
    "paper-review (Table 3, Fair-A3SL)": (
        "submits(A, P) & student(A) & positiveReviews(R1, P) -> ~positiveSummary(P)",
        "acceptable(P) & positiveReviews(R1, P) -> positiveSummary(P)",
        "~acceptable(P) -> ~positiveReviews(R1, P)",
        "acceptable(P) -> positiveReviews(R1, P)",
        "acceptable(P) & positiveReviews(R1, P) & reviews(R2, P) -> positiveReviews(R2, P)",
        "positiveSummary(P) & positiveReviews(R1, P) & reviews(R2, P) -> positiveReviews(R2, P)",
    ),
    "compas (Table 6, Sensitive-A3SL)": (
        "priors(U, I4) & africanAmerican(U) -> recidivism(U)",
        "priorFelony(U, I5) & africanAmerican(U) -> recidivism(U)",
        "~oldAge(U) & africanAmerican(U) -> recidivism(U)",
        "africanAmerican(U) -> recidivism(U)",
    ),
    "compas (Table 7, Fair-A3SL)": (
        "oldAge(U) -> ~recidivism(U)",
        "~oldAge(U) & longJailDay(U) -> recidivism(U)",
        "~longJailDay(U) -> recidivism(U)",
        "priorFelonHistory(U, I1) -> recidivism(U)",
        "priorMisdemeanorHistory(U, I2) -> recidivism(U)",
        "juvenileOtherHistory(U, I3) -> recidivism(U)",
        "priors(U, I4) -> recidivism(U)",
        "user(U) -> ~recidivism(U)",
    ),
    "movielens (Table 11, Fair-A3SL)": (
        "ratingMF(U, I) -> rating(U, I)",
        "avgUserRating(U) & reviews(U, I) -> rating(U, I)",
        "itemPearsonSim(I, I2) & ratingMF(U, I) & rating(U, I) -> rating(U, I2)",
        "userPearsonSim(U, U2) & rating(U2, I) & avgUserRating(U) -> avgItemRating(I)",
    ),
}

_VARIANT_LABEL = {
    "sensitive": "Sensitive-A3SL",
    "fair1": "Fair-A3SL1",
    "fair2": "Fair-A3SL2",
    "fair3": "Fair-A3SL3",
}
#: Method-name suffix of a list polished by local search after the agent (fairacq's addition).
_REFINED = " + local search"
_COMPAS_RACE = ("african_race", "other_race", "race", "raceTruth")
_RACE_PATTERN = re.compile(r"\b(?:" + "|".join(_COMPAS_RACE) + r")\(")


# ---------------------------------------------------------------------------- configs
@dataclass(frozen=True)
class A3slConfig(ExperimentConfig):
    """Settings shared by the three Fair-A3SL experiments.

    Parameters
    ----------
    learner_preset : {"authors", "paper"}
        The :class:`~fairacq.relational.FairA3SL` preset: the authors' set-up (AUC-ROC or
        minus-MSE reward, exact parity, 3 x 18 MLPs) or the paper's text (log-likelihood with
        priors, delta 0.1, GRU policy).
    variants : tuple of str
        Among ``"sensitive"``, ``"fair1"``, ``"fair2"``, ``"fair3"`` (§5.1).
    n_episodes : int
        Clause lists built per fit.
    max_literals, max_clauses : int or None
        Clause limits (``None``: the preset's, 5 and 8).
    weight_iter : int
        Voted-perceptron steps of weight learning inside the reward (PSL default 25).
    fairness : tuple of str or None
        Overrides the preset's constraints for the fair variants (``("rd<=0.1",)``).
    n_envs : int
        Environments stepped together by the agent (the authors' 2 workers).
    refine_evaluations : int or None
        fairacq's addition: polish the agent's best list by local search scoring at most
        this many lists (:func:`~fairacq.relational.refine_clause_list`). Each fold then reports
        both the agent's list (the paper's algorithm) and the refined one (method name
        suffixed " + local search"). ``None``: the agent only.
    eval_solver : {"admm", "auto"}
        MAP solver of the test evaluation (tight tolerances). ``"auto"`` is the reward's
        solver (exact separable when it applies): where a list's MAP state is not unique the
        two solvers return different optima, and only the reward's one is what the search
        optimised (MovieLens).
    """

    learner_preset: str = "authors"
    variants: tuple[str, ...] = ("sensitive", "fair1", "fair2", "fair3")
    n_episodes: int = 200
    max_literals: int | None = None
    max_clauses: int | None = None
    weight_iter: int = 25
    fairness: tuple[str, ...] | None = None
    n_envs: int = 2
    refine_evaluations: int | None = None
    eval_solver: str = "admm"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.learner_preset not in ("authors", "paper"):
            raise InvalidParameterError(
                f"{type(self).__name__}: learner_preset must be 'authors' or 'paper', "
                f"got {self.learner_preset!r}."
            )
        bad = [v for v in self.variants if v not in _VARIANT_LABEL]
        if bad or not self.variants:
            raise InvalidParameterError(
                f"{type(self).__name__}: variants must be a non-empty subset of "
                f"{sorted(_VARIANT_LABEL)}, got {list(self.variants)!r}."
            )
        if self.n_episodes < 1 or self.weight_iter < 1 or self.n_envs < 1:
            raise InvalidParameterError(
                f"{type(self).__name__}: n_episodes, weight_iter and n_envs must be >= 1."
            )
        if self.eval_solver not in ("admm", "auto"):
            raise InvalidParameterError(
                f"{type(self).__name__}: eval_solver must be 'admm' or 'auto', got "
                f"{self.eval_solver!r}."
            )
        if self.refine_evaluations is not None and self.refine_evaluations < 1:
            raise InvalidParameterError(
                f"{type(self).__name__}: refine_evaluations must be >= 1 or None, got "
                f"{self.refine_evaluations}."
            )


@dataclass(frozen=True)
class A3slPaperReviewConfig(A3slConfig):
    """Tables 3-5 of paper 004: the paper-review network (§5.1).

    Parameters
    ----------
    pairs : tuple of (int, int)
        (training sample, test sample) of the authors' ten samples; ``n_trials`` of them run.
    protected : {"student_low_rank", "student"}
        Protected papers: by a student at a non-high-rank institute (the authors' code) or
        by any student (the paper's text).
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "n_trials": 1,
        "variants": ("sensitive", "fair1"),
        "n_episodes": 8,
        "max_literals": 3,
        "max_clauses": 3,
        "weight_iter": 5,
    }
    # Five disjoint train/test pairs of the authors' ten samples; all four models of §5.1;
    # 5 literals / 8 clauses (authors' code); 120 episodes per fit (our budget), then a local
    # search scoring at most 300 lists (counts, not seconds: the same rules on any machine).
    FULL: ClassVar[dict[str, Any]] = {
        "n_trials": 5,
        "n_episodes": 120,
        "refine_evaluations": 300,
    }

    experiment: str = "a3sl-paper-review"
    title: str = "Fair-A3SL on the paper-review network (paper 004, Tables 3-5)"
    pairs: tuple[tuple[int, int], ...] = ((1, 2), (3, 4), (5, 6), (7, 8), (9, 10))
    protected: str = "student_low_rank"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_trials > len(self.pairs):
            raise InvalidParameterError(
                f"A3slPaperReviewConfig: n_trials ({self.n_trials}) must be <= the number of "
                f"pairs ({len(self.pairs)}). Add pairs or lower n_trials."
            )


@dataclass(frozen=True)
class A3slCompasConfig(A3slConfig):
    """Tables 6-9 of paper 004: COMPAS with 5-fold cross-validation (§5.2).

    Parameters
    ----------
    source : {"bundled", "authors"}
        Predicates from the bundled ProPublica file or the authors' folds (which also hold
        ``priorChargeFelony/Misd/Other``).
    n_folds : int
        Folds; ``n_trials`` of them are run.
    max_users : int or None
        Keep this many random training defendants (half as many test ones); quick only.
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "n_trials": 1,
        "variants": ("sensitive", "fair1"),
        "source": "bundled",
        "max_users": 300,
        "n_episodes": 6,
        "max_literals": 2,
        "max_clauses": 3,
        "weight_iter": 5,
    }
    # 5 folds (§5.2), the authors' folds and their COMPAS limits (3 literals, 12 clauses);
    # Fair-A3SL only. With the exact separable MAP solver a new clause list costs about
    # 0.3-0.5 s on a 5,771-defendant training fold, so the agent builds 700 lists per fold
    # (300 s used to build 417-1101) and the local search after it scores at most 500, which
    # keeps the 5 folds near 30 minutes on 2 workers (counts, not seconds: the same rules on
    # any machine).
    FULL: ClassVar[dict[str, Any]] = {
        "n_trials": 5,
        "variants": ("fair1",),
        "source": "authors",
        "n_episodes": 700,
        "refine_evaluations": 500,
    }

    experiment: str = "a3sl-compas"
    title: str = "Fair-A3SL on COMPAS, 5-fold cross-validation (paper 004, Tables 6-9)"
    variants: tuple[str, ...] = ("fair1",)
    max_literals: int | None = 3
    max_clauses: int | None = 12
    source: str = "authors"
    n_folds: int = 5
    max_users: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_trials > self.n_folds:
            raise InvalidParameterError(
                f"A3slCompasConfig: n_trials ({self.n_trials}) must be <= n_folds "
                f"({self.n_folds})."
            )


@dataclass(frozen=True)
class A3slMovieLensConfig(A3slConfig):
    """Tables 11-13 of paper 004: MovieLens 100K (§5.3).

    Parameters
    ----------
    n_folds : int
        Folds of the ratings; ``n_trials`` of them are run.
    search_users : int
        Training users kept for the structure search (then weights are learned on the whole
        training split).
    test_users : int or None
        Keep this many test users (quick only; ``None``: all).
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "n_trials": 1,
        "variants": ("fair1",),
        "search_users": 40,
        "test_users": 60,
        "n_episodes": 6,
        "max_literals": 2,
        "max_clauses": 3,
        "weight_iter": 5,
    }
    # 5 folds (§5.3); the search on 150 training users, 600 lists per fold (120 s used to
    # build 445-851), then a local search scoring at most 300 lists.
    FULL: ClassVar[dict[str, Any]] = {
        "n_trials": 5,
        "n_episodes": 600,
        "refine_evaluations": 300,
    }

    experiment: str = "a3sl-movielens"
    title: str = "Fair-A3SL on MovieLens 100K (paper 004, Tables 11-13)"
    variants: tuple[str, ...] = ("fair1",)
    max_literals: int | None = 3
    max_clauses: int | None = 4
    n_folds: int = 5
    search_users: int = 150
    test_users: int | None = None
    # The rating lists' MAP states are often not unique (flat along rules that only bound
    # ratings from one side); ADMM then lands on another optimum than the exact solver of the
    # reward, with test MSE up to 0.02 higher. Evaluate with the reward's solver.
    eval_solver: str = "auto"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_trials > self.n_folds:
            raise InvalidParameterError(
                f"A3slMovieLensConfig: n_trials ({self.n_trials}) must be <= n_folds "
                f"({self.n_folds})."
            )


# ---------------------------------------------------------------------------- helpers
def subsample_entities(
    data: RelationalData, column: str, keep: int, *, random_state: RandomState = None
) -> RelationalData:
    """Keep ``keep`` random entities of one type, and only the atoms that mention no other.

    Every table with a column named ``column`` or ``column`` plus a digit (``user``,
    ``user2``) is filtered to the kept entities; tables without such a column are unchanged.

    Parameters
    ----------
    data : RelationalData
    column : str
        Entity type (argument column name), e.g. ``"user"``.
    keep : int
        Entities to keep (all when there are fewer).
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    RelationalData
        With ``metadata["subsample"]`` recording the choice.

    Examples
    --------
    >>> from fairacq.relational import load_compas_relational
    >>> small = subsample_entities(load_compas_relational(0), "user", 50, random_state=0)
    >>> small.n_atoms("recidivist")
    50
    """
    pred = data.fairness_predicate
    base = data.targets[pred] if pred is not None else next(iter(data.targets.values()))
    entities = np.unique(base[column].astype(str).to_numpy())
    if keep >= len(entities):
        return data
    rng = np.random.default_rng(derive_int_seed(random_state))
    chosen = set(rng.choice(entities, size=keep, replace=False).tolist())

    def cut(frame: pd.DataFrame) -> pd.DataFrame:
        cols = [c for c in frame.columns if c == column or (c[:-1] == column and c[-1:].isdigit())]
        if not cols:
            return frame
        mask = np.ones(len(frame), dtype=bool)
        for c in cols:
            mask &= frame[c].astype(str).isin(chosen).to_numpy()
        return frame.loc[mask].reset_index(drop=True)

    meta = dict(data.metadata)
    meta["subsample"] = {"column": column, "keep": keep}
    return RelationalData(
        observations={k: cut(v) for k, v in data.observations.items()},
        targets={k: cut(v) for k, v in data.targets.items()},
        truth={k: cut(v) for k, v in data.truth.items()},
        protected=cut(data.protected),
        unprotected=cut(data.unprotected),
        metadata=meta,
    )


def _learner(config: A3slConfig, variant: str, seed: int, **params: Any) -> Any:
    from fairacq.relational import FairA3SL

    base: dict[str, Any] = {
        "preset": config.learner_preset,
        "variant": variant,
        "n_episodes": config.n_episodes,
        "max_literals": config.max_literals,
        "max_clauses": config.max_clauses,
        "fairness": config.fairness,
        "weight_learning": {"n_iter": config.weight_iter},
        "agent_options": {"n_envs": config.n_envs},
        "refine_evaluations": config.refine_evaluations,
        "random_state": seed,
    }
    base.update(params)
    return FairA3SL(**base)


def _fit_and_test(
    config: A3slConfig,
    variant: str,
    seed: int,
    train: RelationalData,
    test: RelationalData,
    *,
    relearn_on: RelationalData | None = None,
    **params: Any,
) -> dict[str, Any]:
    """Learn rules on ``train``; weights on ``relearn_on`` if given; evaluate on ``test``."""
    from fairacq.relational._pipeline import MAP_TIGHT, run_pipeline

    single_thread()
    start = time.perf_counter()
    learner = _learner(config, variant, seed, **params).fit(train)
    fit_s = time.perf_counter() - start
    fairness = learner.utility_config().fairness

    def test_metrics(rules: list[str]) -> tuple[list[str], dict[str, float]]:
        out = run_pipeline(
            rules,
            relearn_on,
            test,
            fairness=fairness,
            weight_learning={"n_iter": config.weight_iter},
            map_options={"solver": config.eval_solver, **MAP_TIGHT},
            random_state=seed,
        )
        metrics = {k: float(v) for k, v in out.metrics.items()}
        if "rd" in metrics:
            metrics["abs_rd"] = abs(metrics["rd"])
        return list(out.rules), metrics

    rules, metrics = test_metrics(list(learner.best_rules_))
    episodes = learner.agent_.history()
    history = episodes[["episode", "reward"]].to_dict(orient="list")
    task: dict[str, Any] = {
        "variant": variant,
        "method": _VARIANT_LABEL[variant],
        "learner_preset": config.learner_preset,
        "fairness": list(fairness),
        "rules": rules,
        "train_reward": float(learner.best_reward_),
        "episodes": len(episodes),
        "evaluations": int(getattr(learner.scorer_, "n_evaluations", 0)),
        "fit_s": fit_s,
        "metrics": metrics,
        "history": history,
    }
    rows = learner.trace_.to_frame()
    refine = rows[rows["phase"] == "refine"]
    if config.refine_evaluations is not None and learner.agent_clauses_:
        agent_rules, agent_metrics = test_metrics(list(learner.agent_rules_))
        task["agent"] = {
            "rules": agent_rules,
            "metrics": agent_metrics,
            "train_reward": float(learner.agent_reward_),
            "history": history,
        }
        last = max(history["episode"], default=-1)
        task["method"] += _REFINED
        task["history"] = {
            "episode": [*history["episode"], *range(last + 1, last + 1 + len(refine))],
            "reward": [*history["reward"], *(float(r) for r in refine.get("best_reward", []))],
        }
        task["refine_moves"] = [str(m) for m in refine.get("move", [])]
    return task | {"total_s": time.perf_counter() - start}


def _with_agent_rows(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Put the agent's own list (the paper's algorithm) before each refined list."""
    out: list[dict[str, Any]] = []
    for t in tasks:
        agent = t.get("agent")
        if agent is not None:
            rest = {k: v for k, v in t.items() if k != "agent"}
            out.append(rest | agent | {"method": _VARIANT_LABEL[t["variant"]]})
            out.append(rest | {"refined": True})
        else:
            out.append(t)
    return out


def _trace(task: dict[str, Any]) -> Trace:
    episodes = np.asarray(task["history"]["episode"], dtype=np.int64)
    reward = np.asarray(task["history"]["reward"], dtype=np.float64)
    order = np.argsort(episodes, kind="stable")
    episodes, reward = episodes[order], reward[order]
    steps = pd.DataFrame(
        {
            "step": np.arange(len(episodes)),
            "cost": episodes + 1,
            "reward": reward,
            "best_reward": np.maximum.accumulate(reward) if len(reward) else reward,
        }
    )
    return Trace(steps, {"method": task["method"], "learner_preset": task["learner_preset"]})


def _reward_figure(result: ExperimentResult, title: str) -> Any:
    fig = new_figure(10.0, 4.0)
    left, right = fig.subplots(1, 2)
    plot_traces(
        result.traces, "best_reward", ax=left, xlabel="episode", title="best reward so far"
    )
    refined = any(name.endswith(_REFINED) for name in result.traces)
    plot_traces(
        result.traces,
        "reward",
        ax=right,
        xlabel="episode" + (" (then local-search moves)" if refined else ""),
        title="episode reward" + (" / accepted move" if refined else ""),
    )
    fig.suptitle(title)
    return fig


def _aggregate(
    result: ExperimentResult,
    tasks: list[dict[str, Any]],
    dataset: str,
    metrics: tuple[str, ...],
    paper: dict[tuple[str, str], tuple[float, float]],
    paper_row: dict[str, str],
) -> pd.DataFrame:
    """Mean and std over folds of each (method, metric), beside the paper's numbers."""
    frame = pd.DataFrame(
        [
            {"method": t["method"], "metric": m, "value": t["metrics"].get(m, np.nan)}
            for t in tasks
            for m in metrics
        ]
    )
    stats = frame.groupby(["method", "metric"], sort=False)["value"].agg(["mean", "std", "count"])
    preset = tasks[0]["learner_preset"] if tasks else ""
    for key, row in stats.iterrows():
        method, metric = (str(k) for k in cast("tuple[Any, Any]", key))
        row_name = paper_row.get(method.removesuffix(_REFINED))
        p_mean, p_std = relational_paper_value(paper, row_name, metric)
        if p_mean is None and metric == "abs_rd":
            p_mean, p_std = relational_paper_value(paper, row_name, "rd")
        result.rows.append(
            {
                "dataset": dataset,
                "method": method,
                "learner_preset": preset,
                "metric": metric,
                "value": float(row["mean"]),
                "std": float(row["std"]) if row["count"] > 1 else None,
                "n_folds": int(row["count"]),
                "paper_value": p_mean,
                "paper_std": p_std,
            }
        )
    return stats.reset_index()


def _target_verdicts(stats: pd.DataFrame, key: str, fair_only: bool = True) -> list[Verdict]:
    """Return whether each fair method met each acceptance target (means over folds)."""
    verdicts = []
    for method, part in stats.groupby("method", sort=False):
        if fair_only and str(method).startswith("Sensitive"):
            continue
        means = dict(zip(part["metric"], part["mean"], strict=True))
        for metric, bound, op in A3SL_TARGETS[key]:
            value = float(means.get(metric, np.nan))
            verdicts.append(Verdict.check(f"{method}: {metric}", value, op, bound))
    return verdicts


def _rule_notes(tasks: list[dict[str, Any]], label: str) -> list[str]:
    notes = []
    seen: set[str] = set()
    for t in tasks:
        if t["method"] in seen:
            continue
        seen.add(t["method"])
        rules = "<br>".join(f"`{r}`" for r in t["rules"]) or "(none)"
        notes.append(
            f"Learned rules, {t['method']} ({label} {t['trial']}, learner preset "
            f"'{t['learner_preset']}', fairness {t['fairness'] or 'none'}): {rules}"
        )
    return notes


def _paper_rule_notes(*keys: str) -> list[str]:
    return [
        f"The paper's rules, {k}: " + "<br>".join(f"`{r}`" for r in PAPER_004_RULES[k])
        for k in keys
    ]


def _budget_note(config: A3slConfig, tasks: list[dict[str, Any]]) -> str:
    eps = [t["episodes"] for t in tasks]
    evals = [t["evaluations"] for t in tasks]
    secs = [t["fit_s"] for t in tasks]
    note = (
        f"Budget: {config.n_episodes} episodes per fit; fits built "
        f"{min(eps)}-{max(eps)} clause lists ({min(evals)}-{max(evals)} distinct ones scored) "
        f"in {min(secs):.0f}-{max(secs):.0f} s. The authors' run lengths are not published; "
        "ours are far shorter."
    )
    refined = [t for t in tasks if t.get("refined")]
    if refined:
        moves = [len(t["refine_moves"]) for t in refined]
        note += (
            f" Rows named '...{_REFINED}' (fairacq's addition, not the paper's algorithm): "
            f"after the agent, local search scoring at most {config.refine_evaluations} lists "
            f"from the agent's best list with the same reward took {min(moves)}-{max(moves)} "
            "improving moves (remove a clause, add or swap in one of at most 2 literals); "
            "the counts of lists scored above include its evaluations."
        )
    return note


def _new_result(config: A3slConfig) -> ExperimentResult:
    return ExperimentResult(
        experiment=getattr(config, "experiment", ""),
        preset=config.preset,
        title=getattr(config, "title", ""),
        config=config.to_dict(),
    )


def _finish(
    result: ExperimentResult, tasks: list[dict[str, Any]], config: A3slConfig, label: str
) -> None:
    for t in tasks:
        result.traces.setdefault(t["method"], []).append(_trace(t))
    result.meta["per_fold"] = [{k: v for k, v in t.items() if k != "history"} for t in tasks]
    result.notes.append(
        f"Learner preset '{config.learner_preset}' produced every number of this run "
        + (
            "(reward = AUC-ROC on the training data after weight learning and fair MAP, or "
            "minus the MSE for ratings; exact parity; priors 0 except the equalised-odds "
            "prior of Fair-A3SL2/3)."
            if config.learner_preset == "authors"
            else "(reward = log-likelihood minus the priors of eq. 2, delta 0.1)."
        )
    )
    result.notes.append(_budget_note(config, tasks))
    result.notes.append(
        f"Clause space: limits {config.max_literals} literals, {config.max_clauses} clauses; "
        f"{label}."
    )
    result.figures[f"{result.experiment}-reward"] = _reward_figure(
        result, f"{result.title}: reward over training"
    )


# ---------------------------------------------------------------------------- paper review
def _review_task(
    config: A3slPaperReviewConfig, seeds: list[int], task: tuple[int, str]
) -> dict[str, Any]:
    from fairacq.relational import load_paper_review

    trial, variant = task
    tr, te = config.pairs[trial]
    train = load_paper_review(tr, protected=config.protected)  # type: ignore[arg-type]
    test = load_paper_review(te, protected=config.protected)  # type: ignore[arg-type]
    out = _fit_and_test(config, variant, seeds[trial], train, test, target="positiveSummary")
    return out | {"trial": f"{tr}->{te}"}


def run_a3sl_paper_review(config: A3slPaperReviewConfig, executor: Executor) -> ExperimentResult:
    """Learn Sensitive-A3SL and Fair-A3SL 1-3 on sample pairs; Tables 4-5 beside ours."""
    seeds = [derive_int_seed(s) for s in spawn_seeds(config.seed, config.n_trials)]
    grid = [(i, v) for i in range(config.n_trials) for v in config.variants]
    tasks = _with_agent_rows(executor.map(functools.partial(_review_task, config, seeds), grid))
    result = _new_result(config)
    metrics = _CLASSIFICATION_METRICS
    stats = _aggregate(
        result,
        tasks,
        "paper-review",
        metrics,
        PAPER_REVIEW_TABLES_4_5,
        {label: label for label in _VARIANT_LABEL.values()},
    )
    result.verdicts.extend(_target_verdicts(stats, "paper-review"))
    sens = stats.loc[(stats["method"] == "Sensitive-A3SL") & (stats["metric"] == "abs_rd")]
    for method in stats["method"].unique():
        if method == "Sensitive-A3SL" or sens.empty:
            continue
        fair = stats.loc[(stats["method"] == method) & (stats["metric"] == "abs_rd"), "mean"]
        result.notes.append(
            f"|RD| {method} {float(fair.iloc[0]):.4f} vs Sensitive-A3SL "
            f"{float(sens['mean'].iloc[0]):.4f} on the same seeds and samples."
        )
    result.notes.append(
        "The paper's Table 5 signs RD as p_unprot - p_prot of a positive summary; we report "
        "the signed RD of fairacq.metrics (rd) and |RD| (abs_rd, compared with the paper's "
        "value). The samples are the authors' (theta1 = 0.6; protected: "
        f"{config.protected}); the paper's collective rules with two reviewers (R1, R2) "
        "cannot be built by our clause space."
    )
    result.notes.extend(_rule_notes(tasks, "pair"))
    result.notes.extend(_paper_rule_notes("paper-review (Table 3, Fair-A3SL)"))
    _finish(
        result,
        tasks,
        config,
        "variables bound by positive body atoms only (no entity domains: about 20 times "
        "faster per episode than with domains, whose negated atoms ground over cross-products "
        "of authors, papers and reviewers); reward on positiveSummary",
    )
    return result


# ---------------------------------------------------------------------------- COMPAS
def _compas_task(
    config: A3slCompasConfig, seeds: list[int], task: tuple[int, str]
) -> dict[str, Any]:
    from fairacq.relational import load_compas_relational

    fold, variant = task
    kw: dict[str, Any] = {"source": config.source}
    if config.source == "bundled":
        kw["n_folds"] = config.n_folds
    train = load_compas_relational(fold, split="train", **kw)
    test = load_compas_relational(fold, split="test", **kw)
    if config.max_users is not None:
        train = subsample_entities(train, "user", config.max_users, random_state=seeds[fold])
        test = subsample_entities(test, "user", config.max_users // 2, random_state=seeds[fold])
    present = set(train.observations)
    # Sensitive-A3SL may use race (Table 6); Fair-A3SL may not (Table 7).
    exclude = () if variant == "sensitive" else tuple(p for p in _COMPAS_RACE if p in present)
    out = _fit_and_test(
        config,
        variant,
        seeds[fold],
        train,
        test,
        exclude=exclude,
        private_types=("instance",),
        domains={"user": "user"},
    )
    learned = [*out["rules"], *out.get("agent", {}).get("rules", [])]
    uses_race = any(_RACE_PATTERN.search(rule) for rule in learned)
    reference = None
    if variant == config.variants[-1]:
        reference = _table7_reference(train, test, out["fairness"] or ["rd<=0"], seeds[fold])
    return out | {
        "trial": fold,
        "fold": fold,
        "uses_race": bool(uses_race),
        "table7_metrics": reference,
    }


#: Table 7 (Fair-A3SL) in our predicate names: priorFelonHistory = priorChargeFelony,
#: priorMisdemeanorHistory = priorChargeMisd, juvenileOtherHistory = juvOtherHistory.
_TABLE7_RULES = (
    "5: oldAge(U) -> !recidivist(U) ^2",
    "5: !oldAge(U) & longJailDay(U) -> recidivist(U) ^2",
    "5: user(U) & !longJailDay(U) -> recidivist(U) ^2",
    "5: priorChargeFelony(U, I1) -> recidivist(U) ^2",
    "5: priorChargeMisd(U, I2) -> recidivist(U) ^2",
    "5: juvOtherHistory(U, I3) -> recidivist(U) ^2",
    "5: priors(U, I4) -> recidivist(U) ^2",
    "5: user(U) -> !recidivist(U) ^2",
)


def _table7_reference(
    train: RelationalData, test: RelationalData, fairness: list[str], seed: int
) -> dict[str, float]:
    """Run the paper's Table 7 rules (over predicates the data has) through our pipeline."""
    from fairacq.relational._pipeline import run_pipeline

    missing = [p for p in ("priorChargeFelony", "priorChargeMisd") if p not in train.observations]
    rules = [r for r in _TABLE7_RULES if all(f"{p}(" not in r for p in missing)]
    out = run_pipeline(rules, train, test, fairness=tuple(fairness), random_state=seed)
    metrics = {k: float(v) for k, v in out.metrics.items()}
    metrics["abs_rd"] = abs(metrics["rd"])
    return metrics


def _compas_fold_rows(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """RD and AUC-ROC of every (method, fold)."""
    return [
        {
            "dataset": "compas",
            "method": t["method"],
            "learner_preset": t["learner_preset"],
            "metric": f"{metric} (fold {t['fold']})",
            "value": t["metrics"][metric],
            "paper_value": None,
        }
        for t in tasks
        for metric in ("rd", "auc_roc")
    ]


def _compas_notes(config: A3slCompasConfig, tasks: list[dict[str, Any]]) -> list[str]:
    """Whether a Fair-A3SL rule uses race, the folds, the rules learned and the paper's."""
    race = [t["fold"] for t in tasks if t["variant"] != "sensitive" and t["uses_race"]]
    return [
        "Race predicates (african_race, other_race, race, raceTruth) were excluded from the "
        "agent's actions; "
        + (
            f"yet rules of folds {race} mention one (a bug)."
            if race
            else "no learned Fair-A3SL rule uses race."
        ),
        f"Folds: {config.source} ({'the authors' if config.source == 'authors' else 'seeded'} "
        "5-fold split); the paper's RD of 0.0035 is the out-of-sample RD under exact-parity MAP "
        "on the test atoms, which is what we measure.",
        *_rule_notes(tasks, "fold"),
        *_paper_rule_notes("compas (Table 6, Sensitive-A3SL)", "compas (Table 7, Fair-A3SL)"),
    ]


def run_a3sl_compas(config: A3slCompasConfig, executor: Executor) -> ExperimentResult:
    """Fair-A3SL (and optionally Sensitive-A3SL) per fold; Tables 8-9 beside ours."""
    seeds = [derive_int_seed(s) for s in spawn_seeds(config.seed, config.n_trials)]
    grid = [(f, v) for f in range(config.n_trials) for v in config.variants]
    tasks = _with_agent_rows(executor.map(functools.partial(_compas_task, config, seeds), grid))
    result = _new_result(config)
    metrics = _CLASSIFICATION_METRICS
    labels = {"Fair-A3SL1": "Fair-A3SL", "Fair-A3SL2": "Fair-A3SL", "Fair-A3SL3": "Fair-A3SL"}
    reference = [
        t | {"method": "Table 7 rules (hand-entered)", "metrics": t["table7_metrics"]}
        for t in tasks
        if t["table7_metrics"] is not None and not t.get("refined")
    ]
    stats = _aggregate(result, tasks + reference, "compas", metrics, TABLES_8_9, labels)
    result.notes.append(
        "'Table 7 rules (hand-entered)' is the paper's Fair-A3SL rule set typed in by us "
        "(priorFelonHistory = priorChargeFelony, priorMisdemeanorHistory = priorChargeMisd, "
        "juvenileOtherHistory = juvOtherHistory; rules over predicates the source lacks are "
        "dropped), weights learned and MAP under the same constraints: what the search could "
        "reach with this engine."
    )
    result.rows += _compas_fold_rows(tasks)
    result.verdicts.extend(
        _target_verdicts(stats.loc[~stats["method"].str.startswith("Table 7")], "compas")
    )
    result.notes += _compas_notes(config, tasks)
    _finish(
        result,
        tasks,
        config,
        "domain user(U) binds the defendant; offence instances are private to each predicate",
    )
    return result


# ---------------------------------------------------------------------------- MovieLens
def _movielens_task(
    config: A3slMovieLensConfig, seeds: list[int], task: tuple[int, str]
) -> dict[str, Any]:
    from fairacq.relational import evaluate_atoms, load_movielens_relational

    fold, variant = task
    train = load_movielens_relational(fold, split="train", n_folds=config.n_folds)
    test = load_movielens_relational(fold, split="test", n_folds=config.n_folds)
    if config.test_users is not None:
        test = subsample_entities(test, "user", config.test_users, random_state=seeds[fold])
        train = subsample_entities(train, "user", config.test_users, random_state=seeds[fold])
    search = subsample_entities(train, "user", config.search_users, random_state=seeds[fold])
    fairness = config.fairness if config.fairness is not None else ("nonparity<=0",)
    out = _fit_and_test(
        dataclasses.replace(config, fairness=fairness),
        variant,
        seeds[fold],
        search,
        test,
        relearn_on=train,
        # The fair variants may not use the sensitive attribute (as race on COMPAS).
        exclude=() if variant == "sensitive" else ("female",),
        target="rating",
        utility_options={"utility": "neg_mse"},
    )
    mf = test.observations["ratingMF"]
    targets = test.targets["rating"][["user", "item"]].astype(str)
    mf_frame = targets.merge(mf, on=["user", "item"], how="left")
    mf_frame["value"] = mf_frame["value"].fillna(0.0)
    mf_metrics = evaluate_atoms(test, mf_frame.assign(predicate="rating"))
    return out | {
        "trial": fold,
        "fold": fold,
        "mf_metrics": {k: float(v) for k, v in mf_metrics.items()},
    }


def run_a3sl_movielens(config: A3slMovieLensConfig, executor: Executor) -> ExperimentResult:
    """Fair-A3SL with the recommender utility per fold; Tables 12-13 beside ours and MF's."""
    seeds = [derive_int_seed(s) for s in spawn_seeds(config.seed, config.n_trials)]
    grid = [(f, v) for f in range(config.n_trials) for v in config.variants]
    tasks = _with_agent_rows(executor.map(functools.partial(_movielens_task, config, seeds), grid))
    result = _new_result(config)
    metrics = ("mse_protected", "mse_unprotected", "mse", "non_parity", "overestimation")
    labels = dict.fromkeys(("Fair-A3SL1", "Fair-A3SL2", "Fair-A3SL3"), "Fair-A3SL")
    mf_tasks = [
        t | {"method": "MF (ratingMF)", "metrics": t["mf_metrics"]}
        for t in tasks
        if t["variant"] == config.variants[0] and not t.get("refined")
    ]
    stats = _aggregate(
        result,
        tasks + mf_tasks,
        "movielens",
        metrics,
        TABLES_12_13,
        labels | {"MF (ratingMF)": "MF"},
    )
    result.verdicts.extend(
        _target_verdicts(stats.loc[stats["method"] != "MF (ratingMF)"], "movielens")
    )
    mf_mse = stats.loc[(stats["method"] == "MF (ratingMF)") & (stats["metric"] == "mse"), "mean"]
    for method in stats["method"].unique():
        if method == "MF (ratingMF)" or mf_mse.empty:
            continue
        ours = float(
            stats.loc[(stats["method"] == method) & (stats["metric"] == "mse"), "mean"].iloc[0]
        )
        mf_value = float(mf_mse.iloc[0])
        verdict = "no worse than" if ours <= mf_value else "WORSE than"
        result.notes.append(
            f"MSE {method} {ours:.5f} is {verdict} matrix factorisation {mf_value:.5f} "
            "(target: no worse; paper 0.03331 vs 0.03415)."
        )
    result.notes.append(
        f"The clause list is searched on {config.search_users} random training users (reward: "
        "minus the training MSE under fair MAP); its weights are then learned on the whole "
        "training split and MAP inference runs on the test fold under "
        f"{config.fairness or ('nonparity<=0',)}. MF is the biased ALS factorisation behind "
        "ratingMF (fit on the observed ratings of the test split)."
    )
    result.notes.extend(_rule_notes(tasks, "fold"))
    result.notes.extend(_paper_rule_notes("movielens (Table 11, Fair-A3SL)"))
    _finish(
        result,
        tasks,
        config,
        "variables bound by positive body atoms only; rules joining two users or two items "
        "(Table 11, lambda_3 and lambda_4) cannot be built (one variable per entity type)",
    )
    return result


register(
    ExperimentSpec(
        name="a3sl-paper-review",
        family="relational",
        paper="Zhang & Ramesh Tables 3-5",
        title="Paper-review network: Sensitive-A3SL and Fair-A3SL 1-3 (rules, RD, EO, AUC)",
        config_cls=A3slPaperReviewConfig,
        run=run_a3sl_paper_review,  # type: ignore[arg-type]
    )
)
register(
    ExperimentSpec(
        name="a3sl-compas",
        family="relational",
        paper="Zhang & Ramesh Tables 6-9",
        title="COMPAS, 5-fold CV: Fair-A3SL rules without race, RD and AUC-ROC per fold",
        config_cls=A3slCompasConfig,
        run=run_a3sl_compas,  # type: ignore[arg-type]
    )
)
register(
    ExperimentSpec(
        name="a3sl-movielens",
        family="relational",
        paper="Zhang & Ramesh Tables 11-13",
        title="MovieLens 100K: Fair-A3SL non-parity and MSE against matrix factorisation",
        config_cls=A3slMovieLensConfig,
        run=run_a3sl_movielens,  # type: ignore[arg-type]
    )
)
