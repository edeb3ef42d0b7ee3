"""The tasks of the DADI experiments: one agent, or one fold's baselines, per task.

Kept apart from the summaries (``fairacq_experiments.dadi``) because the task cache keys a
finished task by the source of the module that defines its function: editing a summary does
not invalidate trained agents.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from fairacq._random import derive_int_seed
from fairacq.data import FairDataset, is_available_offline, load_dataset, split_dadi
from fairacq.features import group_auc, leakage_audit
from fairacq.features._baselines import (
    AgentScorer,
    LearnerScorer,
    column_mask,
    fixed_subset_baselines,
    score_predictions,
    sensitive_feature_groups,
    static_selection_front,
)
from fairacq.parallel import single_thread

if TYPE_CHECKING:
    from fairacq_experiments.dadi._config import DadiFig2Config

__all__ = ["fold_task", "fold_tasks", "resolve_second_dataset"]

_ACS_STATES = ("DE", "HI", "ID", "ME", "MT", "ND", "NE", "NH", "NM", "RI", "SD", "VT", "WV", "WY")


def resolve_second_dataset(config: DadiFig2Config) -> tuple[str, str, dict[str, Any]]:
    """Return ``(dataset, sensitive, loader kwargs)`` for ``config``.

    ``"auto"`` means ACS Income with sex when the PUMS files are under ``$FAIRACQ_DATA``
    (every one of the 14 small states fairacq's data folder can hold that is present, unless
    ``dataset_kwargs`` names states), and Bank Marketing with age otherwise.
    """
    kwargs = dict(config.dataset_kwargs)
    if config.dataset != "auto":
        return config.dataset, config.sensitive, kwargs
    if is_available_offline("acs-income"):
        if "states" not in kwargs:
            from fairacq.data import data_dir

            folder = data_dir() / "acs" / "2018" / "1-Year"
            codes = {p.name[6:8] for p in folder.glob("psam_p*.csv*")}
            kwargs["states"] = tuple(s for s in _ACS_STATES if _FIPS[s] in codes) or ("WY",)
        return "acs-income", "sex", kwargs
    kwargs.pop("states", None)
    return "bank-marketing", "age", kwargs


_FIPS = {
    "DE": "10",
    "HI": "15",
    "ID": "16",
    "ME": "23",
    "MT": "30",
    "ND": "38",
    "NE": "31",
    "NH": "33",
    "NM": "35",
    "RI": "44",
    "SD": "46",
    "VT": "50",
    "WV": "54",
    "WY": "56",
}


@functools.lru_cache(maxsize=2)
def _load_cached(
    name: str,
    sensitive: str,
    kwargs: tuple[tuple[str, Any], ...],
    max_rows: int | None,
    seed: int,
) -> FairDataset:
    """Load (and subsample) once per process: every task of a run reads the same rows."""
    data = load_dataset(name, sensitive=sensitive, include_sensitive_features=True, **dict(kwargs))
    if max_rows is not None and len(data) > max_rows:
        keep = np.random.default_rng(seed).choice(len(data), max_rows, replace=False)
        data = data.subset(np.sort(keep))
    return data


def _load(config: DadiFig2Config, seed: np.random.SeedSequence) -> FairDataset:
    name, sensitive, kwargs = resolve_second_dataset(config)
    return _load_cached(
        name, sensitive, tuple(sorted(kwargs.items())), config.max_rows, derive_int_seed(seed)
    )


def _split(config: DadiFig2Config, seeds: list[np.random.SeedSequence], fold: int) -> Any:
    data = _load(config, seeds[0])
    split = split_dadi(
        data,
        fold=fold,
        n_folds=config.n_folds,
        validation_fraction=config.validation_fraction,
        random_state=derive_int_seed(seeds[1]),
    )
    return split.train, split.validation, split.test


def _agent(config: DadiFig2Config, seed: np.random.SeedSequence, **params: Any) -> Any:
    from fairacq.features import DADI

    base = {
        "n_pretrain_iter": config.n_pretrain_iter,
        "n_train_iter": config.n_train_iter,
        "batch_size": config.batch_size,
        "n_parallel": config.n_parallel,
        "epsilon_decay_iter": (
            config.n_train_iter // 2
            if config.epsilon_decay_iter is None
            else config.epsilon_decay_iter
        ),
        "set_elements": config.set_elements,
        "random_state": derive_int_seed(seed),
    }
    return DADI(**{**base, **params})


#: Pre-trained models of this process, by (config, fold, seeds): pre-training does not depend
#: on gamma or the reward, so every agent of a fold copies one (``DADI.fit(pretrained=...)``;
#: the result equals pre-training afresh). A worker keeps the last two folds.
_PRETRAINED: dict[tuple[Any, ...], Any] = {}
#: Static fronts chosen with a fold's pre-trained classifier, by the same keys.
_STATIC: dict[tuple[Any, ...], pd.DataFrame] = {}


def _fold_key(
    config: DadiFig2Config, seeds: list[np.random.SeedSequence], fold: int
) -> tuple[Any, ...]:
    return (config, fold, *(derive_int_seed(seeds[i]) for i in (0, 1, 2 + fold)))


def _remember(store: dict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any) -> Any:
    while len(store) >= 2:
        store.pop(next(iter(store)))
    store[key] = value
    return value


def _pretrained(config: DadiFig2Config, seeds: list[np.random.SeedSequence], fold: int) -> Any:
    """Return the fold's pre-trained DADI (the black square and every agent's start)."""
    key = _fold_key(config, seeds, fold)
    if key in _PRETRAINED:
        return _PRETRAINED[key]
    train, validation, _ = _split(config, seeds, fold)
    model = _agent(config, seeds[2 + fold], n_train_iter=0).fit(train, validation=validation)
    return _remember(_PRETRAINED, key, model)


def _agent_static_front(
    config: DadiFig2Config, seeds: list[np.random.SeedSequence], fold: int
) -> pd.DataFrame:
    """Select static subsets with the fold's pre-trained classifier (on validation; test)."""
    key = _fold_key(config, seeds, fold)
    if key in _STATIC:
        return _STATIC[key]
    train, validation, test = _split(config, seeds, fold)
    pretrained = _pretrained(config, seeds, fold)
    front = static_selection_front(
        AgentScorer(pretrained, validation),
        list(train.feature_groups),
        config.lams,
        report=AgentScorer(pretrained, test),
    )
    return cast(pd.DataFrame, _remember(_STATIC, key, front))


def _reward_comparison(
    agent: Any, test: FairDataset, front: pd.DataFrame, policy_mask: np.ndarray
) -> dict[str, Any]:
    """Return mean eq. (2) rewards on ``test`` under the agent's own networks.

    For its policy (the columns ``policy_mask`` reveals), every feature, none, and the best
    subset of the static front (one subset for everybody).
    """
    y, s = test.y, np.asarray(test.s)

    def mean_reward(group_mask: Any = None) -> float:
        mask = policy_mask if group_mask is None else column_mask(test, group_mask)
        return float(np.mean(agent.rewards(test.X, y, s, mask=mask)))

    names = np.array(list(test.feature_groups))
    static = {
        float(lam): mean_reward(np.isin(names, str(groups).split(",")))
        for lam, groups in zip(front["lam"], front["groups"], strict=True)
    }
    best = max(static, key=static.__getitem__)
    return {
        "reward_policy": mean_reward(),
        "reward_all": mean_reward(np.ones(names.size, dtype=bool)),
        "reward_none": mean_reward(np.zeros(names.size, dtype=bool)),
        "reward_static_best": static[best],
        "reward_static_best_lam": best,
    }


def _dadi_task(
    config: DadiFig2Config,
    seeds: list[np.random.SeedSequence],
    task: tuple[int, str, float],
) -> dict[str, Any]:
    """Train DADI on one fold for one (reward, 1 - gamma); score its policy on the test part."""
    single_thread()
    fold, reward, omg = task
    train, validation, test = _split(config, seeds, fold)
    gamma = round(1.0 - omg, 10)
    start = time.perf_counter()
    pretrained = _pretrained(config, seeds, fold)
    pretrain_s = time.perf_counter() - start  # 0 when this worker pre-trained the fold before
    agent = _agent(config, seeds[2 + fold], gamma=gamma, reward=reward)
    agent.fit(train, validation=validation, pretrained=pretrained)
    fit_s = time.perf_counter() - start - pretrain_s
    proba = agent.predict_proba(test.X)
    auc, disp = score_predictions(test.y, proba, test.s)
    mask = np.asarray(agent.acquisition_mask(test.X), dtype=bool)
    rewards = _reward_comparison(agent, test, _agent_static_front(config, seeds, fold), mask)
    leakage = _leakage(agent, test, mask, proba)
    groups = train.feature_groups
    names = list(test.feature_names)
    acquired = np.column_stack(
        [mask[:, [names.index(c) for c in cols]].any(axis=1) for cols in groups.values()]
    )
    sens = [i for i, g in enumerate(groups) if g in sensitive_feature_groups(train)]
    return {
        "fold": fold,
        "reward": reward,
        "one_minus_gamma": omg,
        "gamma": gamma,
        "auc": auc,
        "disparity": disp,
        "groups_acquired": float(acquired.sum(axis=1).mean()),
        "sensitive_acquired": float(acquired[:, sens].any(axis=1).mean()) if sens else 0.0,
        "pretrain_s": pretrain_s,
        "fit_s": fit_s,
        **rewards,
        **leakage,
    }


def _leakage(
    agent: Any, test: FairDataset, policy_mask: np.ndarray, proba: np.ndarray
) -> dict[str, float]:
    """Group AUC of the joint adversary and of fresh ones on what the policy reveals.

    ``adversary_auc_fresh_all`` is the fresh adversary given every feature (how recoverable
    the group is at all); ``prediction_group_auc`` is the AUC of the classifier's own score
    for the group (two groups; 0.5 = no disparity in scores), from its policy's ``proba``.
    """
    s, values = np.asarray(test.s), test.to_numpy()
    fresh = leakage_audit(values, s, policy_mask)
    return {
        "adversary_auc_joint": group_auc(s, agent.predict_group_proba(test.X, mask=policy_mask)),
        "adversary_auc_fresh": fresh.auc,
        "adversary_acc_fresh": fresh.accuracy,
        "group_majority": fresh.majority,
        "adversary_auc_fresh_all": leakage_audit(values, s, True).auc,
        "prediction_group_auc": group_auc(s, proba) if np.unique(s).size == 2 else np.nan,
    }


def _baseline_task(
    config: DadiFig2Config, seeds: list[np.random.SeedSequence], fold: int
) -> list[dict[str, Any]]:
    """Full, without-sensitive and static-selection baselines on one fold."""
    single_thread()
    train, validation, test = _split(config, seeds, fold)
    rows: list[dict[str, Any]] = []
    report = LearnerScorer(train, test, learner=config.learner, random_state=0)
    select = LearnerScorer(train, validation, learner=config.learner, random_state=0)
    scorers: list[tuple[str, Any, Callable[[], pd.DataFrame]]] = [
        (
            config.learner,
            report,
            lambda: static_selection_front(
                select, list(train.feature_groups), config.lams, report=report
            ),
        )
    ]
    if config.static_with_agent:
        # The paper's black square: DADI's pretrained classifier with the full feature set.
        pretrained = _pretrained(config, seeds, fold)
        scorers.append(
            (
                "dadi-classifier",
                AgentScorer(pretrained, test),
                lambda: _agent_static_front(config, seeds, fold),
            )
        )
    for scorer_name, fixed_report, static_front in scorers:
        fixed = fixed_subset_baselines(fixed_report, train)
        for _, r in fixed.iterrows():
            rows.append(
                {
                    "fold": fold,
                    "method": f"{scorer_name}-{r['method']}",
                    "lam": None,
                    "groups": r["groups_dropped"],
                    "auc": float(r["auc"]),
                    "disparity": float(r["disparity"]),
                }
            )
        front = static_front()
        for _, r in front.iterrows():
            rows.append(
                {
                    "fold": fold,
                    "method": f"static-{scorer_name}",
                    "lam": float(r["lam"]),
                    "groups": r["groups"],
                    "auc": float(r["auc"]),
                    "disparity": float(r["disparity"]),
                }
            )
    return rows


#: A task: ``(fold, "baselines", None)`` or ``(fold, reward, 1 - gamma)`` for one agent.
FoldTask = tuple[int, str, float | None]


def fold_tasks(config: DadiFig2Config) -> list[FoldTask]:
    """Every task of ``config``, fold by fold: the fold's baselines, then each agent.

    The baselines come first so that the worker which pre-trains a fold for the black square
    reuses that pre-training for the fold's agents it runs next.
    """
    return [
        task
        for fold in config.fold_indices
        for task in (
            (fold, "baselines", None),
            *((fold, r, g) for r in config.rewards for g in config.one_minus_gammas),
        )
    ]


def fold_task(
    config: DadiFig2Config, seeds: list[np.random.SeedSequence], task: FoldTask
) -> dict[str, Any] | list[dict[str, Any]]:
    """Run one task of :func:`fold_tasks`: a list of baseline rows, or one agent's row."""
    fold, what, omg = task
    if what == "baselines":
        return _baseline_task(config, seeds, fold)
    return _dadi_task(config, seeds, (fold, what, float(cast(float, omg))))
