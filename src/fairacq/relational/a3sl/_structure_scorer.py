"""The reward of a clause list: weight learning, fair MAP inference and the utility.

Implements Algorithm 1 lines 4-7 of Zhang & Ramesh: render the clause list as PSL rules (weights
5.0, squared hinges), ground them on the training data, learn the rule weights, run MAP
inference under the delta-fairness constraints (§4.2), and return the utility

``U(C) = L(Y, X) - alpha_len * mean_c length(c) - alpha_num * |C|
- alpha_sem * sum_c Dist(c) * lambda_c - sum_k alpha_k * U_k(Y_hat)`` (eq. 2 and §4.3).

``L`` is chosen by ``utility``:

- ``"loglik"`` (the paper): ``log P(Y | X)`` of eq. (1) at the ground truth, with the log
  partition function approximated by its MAP value as PSL's MPE weight learning does:
  ``L = -(E(Y_true) - E(Y_map)) / n``, ``E`` the weighted hinge energy (without fairness rows)
  and ``n`` the number of target atoms (a per-atom scale, so the priors' weights mean the same
  thing on data sets of any size);
- ``"auc"`` (the authors' code): AUC-ROC of the target predicate's MAP values against its
  truth on the training data;
- ``"neg_mse"``: minus the mean squared error of the target predicate (ratings, §4.5.2).

``Dist(c)`` (§4.4, Table 1) is 0 when the clause follows the right reasons: its head is a
positive signal and every body literal is a positive signal or the negation of a negative
signal, or symmetrically for a negative-signal head; it is 1 otherwise (and 0 for every clause
when no signal sets are given). The fairness priors (equalised odds, overestimation) are
unfairness measures, so they are subtracted (eq. 3 writes ``+ alpha U``; a prior that rewards
unfairness would contradict §4.3).

Scores are cached by the canonical clause list (distinct clauses, sorted), and each evaluation
uses the same seed, so a clause list's score does not depend on when it is met.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._random import RandomState, derive_int_seed
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import FairacqError, InvalidDataError, InvalidParameterError
from fairacq.relational.a3sl._clause_env import (
    Clause,
    ClauseSpace,
    canonical_clause_list,
)
from fairacq.relational.a3sl._clause_env import ClauseLiteral as Lit
from fairacq.relational.hlmrf._ground_model import GroundModel, LinearConstraints

__all__ = ["ScoreDetail", "StructureScorer", "UtilityConfig", "semantic_distance"]

Utility = Literal["loglik", "auc", "neg_mse"]


def semantic_distance(clause: Clause, positive: Iterable[Lit], negative: Iterable[Lit]) -> int:
    """Return ``Dist(c)`` (Zhang & Ramesh §4.4, Table 1): 0 if ``clause`` has the right reasons.

    Parameters
    ----------
    clause : Clause
    positive, negative : iterable of ClauseLiteral
        Positive signals ``P`` and negative signals ``N`` (signed literals, targets included,
        e.g. ``recidivism`` in ``P`` and ``~recidivism`` in ``N``).

    Returns
    -------
    int
        0 or 1.

    Examples
    --------
    >>> from fairacq.relational import Clause, ClauseLiteral as L
    >>> P = {L("priors"), L("recid")}
    >>> N = {L("oldAge"), L("recid", True)}
    >>> semantic_distance(Clause(L("recid"), (L("priors"),)), P, N)
    0
    >>> semantic_distance(Clause(L("recid"), (L("oldAge"),)), P, N)
    1
    """
    pos, neg = set(positive), set(negative)

    def flip(lits: set[Lit]) -> set[Lit]:
        return {Lit(x.predicate, not x.negated) for x in lits}

    for head_set, allowed in ((pos, pos | flip(neg)), (neg, neg | flip(pos))):
        if clause.head in head_set and all(b in allowed and b != clause.head for b in clause.body):
            return 0
    return 1


@dataclass(frozen=True)
class UtilityConfig:
    """What the reward measures (Zhang & Ramesh eq. 2 and §4.3-4.5, or the authors' set-up).

    Parameters
    ----------
    utility : {"loglik", "auc", "neg_mse"}, default="loglik"
        The data term ``L`` (see the module docstring).
    fairness : tuple of str, default=()
        Delta-fairness constraints of MAP inference (``"rd<=0.1"``, ...), §4.2.
    priors : tuple of (str, float), default=()
        Fairness priors ``(measure, alpha)``, measure ``"equalized_odds"`` or
        ``"overestimation"`` (§4.3).
    alpha_len, alpha_num, alpha_sem : float, default=0.0
        Interpretability prior strengths of eq. (2).
    positive_signals, negative_signals : tuple of ClauseLiteral, default=()
        Signal sets of §4.4 for ``Dist(c)``.
    """

    utility: Utility = "loglik"
    fairness: tuple[str, ...] = ()
    priors: tuple[tuple[str, float], ...] = ()
    alpha_len: float = 0.0
    alpha_num: float = 0.0
    alpha_sem: float = 0.0
    positive_signals: tuple[Lit, ...] = ()
    negative_signals: tuple[Lit, ...] = ()

    def __post_init__(self) -> None:
        if self.utility not in ("loglik", "auc", "neg_mse"):
            raise InvalidParameterError(
                f"UtilityConfig: utility must be 'loglik', 'auc' or 'neg_mse'. "
                f"Got {self.utility!r} instead."
            )
        for name in ("alpha_len", "alpha_num", "alpha_sem"):
            if not getattr(self, name) >= 0:
                raise InvalidParameterError(f"UtilityConfig: {name} must be >= 0.")
        for measure, alpha in self.priors:
            if measure not in ("equalized_odds", "overestimation") or not alpha >= 0:
                raise InvalidParameterError(
                    f"UtilityConfig: prior ({measure!r}, {alpha!r}) must name "
                    "'equalized_odds' or 'overestimation' with alpha >= 0."
                )

    @classmethod
    def paper(
        cls, fairness: Sequence[str] = ("rd<=0.1", "rr<=0.1", "rc<=0.1"), **kw: Any
    ) -> UtilityConfig:
        """Return the paper's utility: log-likelihood, priors of eq. (2), delta 0.1 (§5.1).

        The paper gives no values for the interpretability strengths; we use 0.01 each.
        """
        base: dict[str, Any] = {
            "utility": "loglik",
            "fairness": tuple(fairness),
            "alpha_len": 0.01,
            "alpha_num": 0.01,
            "alpha_sem": 0.01,
        }
        base.update(kw)
        return cls(**base)

    @classmethod
    def authors(cls, fairness: Sequence[str] = ("rd<=0",), **kw: Any) -> UtilityConfig:
        """Return the authors' set-up: AUC-ROC on the training data, priors 0, exact parity."""
        base: dict[str, Any] = {"utility": "auc", "fairness": tuple(fairness)}
        base.update(kw)
        return cls(**base)


@dataclass(frozen=True, eq=False)
class ScoreDetail:
    """Everything one evaluation of a clause list produced.

    Attributes
    ----------
    reward : float
        The utility (what the agent maximises).
    data_term : float
        ``L`` (log-likelihood, AUC or minus MSE).
    penalties : dict of str to float
        Each subtracted prior (``len``, ``num``, ``sem`` and the fairness priors).
    rules : list of str
        The PSL rules with their learned weights.
    weights : ndarray
        Learned weight of each rule.
    predictions : pandas.DataFrame
        MAP values of the target predicate's atoms (argument columns, ``value``, ``truth``).
    max_violation : float
        Largest constraint violation of the MAP state.
    seconds : float
        Wall time of the evaluation.
    error : str or None
        Why the clause list could not be scored (then ``reward`` is the failure reward).
    """

    reward: float
    data_term: float = float("nan")
    penalties: dict[str, float] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)
    weights: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    predictions: pd.DataFrame | None = None
    max_violation: float = float("nan")
    seconds: float = 0.0
    error: str | None = None


def _truth_lookup(frame: pd.DataFrame) -> dict[tuple[str, ...], float]:
    cols = [c for c in frame.columns if c != "value"]
    keys = frame[cols].astype(str).itertuples(index=False, name=None)
    return dict(zip(keys, frame["value"].astype(float), strict=True))


class StructureScorer:
    """Score clause lists on a training :class:`RelationalData` (the reward of Fair-A3SL).

    Parameters
    ----------
    data : RelationalData
        Training observations, targets, truth and fairness groups.
    space : ClauseSpace
        Renders clauses as PSL rules.
    config : UtilityConfig, optional
        What to measure; defaults to :meth:`UtilityConfig.authors`.
    target : str or None, default=None
        Predicate scored by ``"auc"``/``"neg_mse"``; ``None``: the data's fairness predicate.
    weight_learning : dict, optional
        Keyword arguments of ``learn_weights`` (``n_iter``, ``step``, ``schedule``...).
    map_options : dict, optional
        Keyword arguments of ``map_inference`` (``solver``, ``max_iter``, ``eps_abs``...);
        the solver defaults to ``"auto"``: the exact separable solver when every potential
        touches one variable (COMPAS), ADMM otherwise.
    failure_reward : float, default=0.0
        Reward of a clause list that cannot be grounded or solved.
    fair_weight_learning : bool, default=False
        Impose the fairness constraints during weight learning too (Algorithm 1 learns the
        weights first, line 5, and imposes fairness in MAP inference, line 6).
    random_state : int, numpy.random.Generator or None
        Seeds weight learning (one seed, reused for every clause list).

    Attributes
    ----------
    cache : dict
        Canonical clause list -> :class:`ScoreDetail`.
    n_evaluations : int
        Clause lists scored (cache misses).
    """

    def __init__(
        self,
        data: RelationalData,
        space: ClauseSpace,
        config: UtilityConfig | None = None,
        *,
        target: str | None = None,
        weight_learning: Mapping[str, Any] | None = None,
        map_options: Mapping[str, Any] | None = None,
        failure_reward: float = 0.0,
        fair_weight_learning: bool = False,
        random_state: RandomState = None,
    ) -> None:
        self.data = data
        self.space = space
        self.config = config if config is not None else UtilityConfig.authors()
        self.target = target if target is not None else data.fairness_predicate
        if self.target is None or self.target not in data.truth:
            raise InvalidDataError(
                f"StructureScorer: target predicate {self.target!r} has no truth table "
                f"(truth: {sorted(data.truth)}). Pass target=<a target predicate with truth>."
            )
        self.weight_learning = dict(weight_learning or {})
        self.map_options = {"solver": "auto"} | dict(map_options or {})
        self.failure_reward = float(failure_reward)
        self.fair_weight_learning = bool(fair_weight_learning)
        self.seed = derive_int_seed(random_state)
        self.cache: dict[tuple[Clause, ...], ScoreDetail] = {}
        self.n_evaluations = 0
        self._database: Any = None
        self._truth = {name: _truth_lookup(frame) for name, frame in data.truth.items()}
        labels = np.asarray(list(self._truth[self.target].values())) >= 0.5
        if self.config.utility == "auc" and labels.all() == labels.any():
            raise InvalidDataError(
                f"StructureScorer: the truth of {self.target!r} has a single class, so AUC-ROC "
                "is undefined. Use utility='loglik' or more data."
            )

    def __call__(self, clauses: tuple[Clause, ...]) -> float:
        """Return the reward of ``clauses`` (cached)."""
        return self.evaluate(clauses).reward

    def evaluate(self, clauses: Iterable[Clause]) -> ScoreDetail:
        """Score ``clauses`` and return the full :class:`ScoreDetail` (cached)."""
        key = canonical_clause_list(clauses)
        hit = self.cache.get(key)
        if hit is None:
            t0 = time.perf_counter()
            try:
                hit = self._score(key)
            except FairacqError as exc:
                hit = ScoreDetail(reward=self.failure_reward, error=f"{type(exc).__name__}: {exc}")
            hit = _with_seconds(hit, time.perf_counter() - t0)
            self.cache[key] = hit
            self.n_evaluations += 1
        return hit

    # ------------------------------------------------------------------ the pipeline
    def _score(self, clauses: tuple[Clause, ...]) -> ScoreDetail:
        from fairacq.relational.hlmrf._database import Database
        from fairacq.relational.hlmrf._grounding import ground
        from fairacq.relational.inference._fairness import fairness_constraints
        from fairacq.relational.inference._map_inference import map_inference
        from fairacq.relational.learning._weight_learning import learn_weights
        from fairacq.relational.psl._parser import parse_rules

        if self._database is None:
            self._database = Database.from_data(self.data)
        rules = parse_rules("\n".join(self.space.render_rules(clauses)))
        model = ground(rules, self._database)
        truth = self._truth_vector(model)
        protected = unprotected = np.zeros(0, dtype=np.int64)
        if self.config.fairness or self.config.priors:
            protected, unprotected = self.data.group_variables(model)
        fair_rows = LinearConstraints.empty(model.n_variables)
        for spec in self.config.fairness:
            fair_rows = fair_rows + fairness_constraints(
                model, spec, protected=protected, unprotected=unprotected
            )
        learned = learn_weights(
            model,
            truth,
            init_weight=self.space.weight,
            fairness=fair_rows if self.fair_weight_learning else None,
            admm_options=self.map_options,
            random_state=self.seed,
            **self.weight_learning,
        )
        weights = np.asarray(learned.weights, dtype=np.float64)
        model = model.with_rule_weights(weights)
        result = map_inference(model.with_constraints(fair_rows), **self.map_options)
        values = np.clip(result.values, 0.0, 1.0)

        pred_frame = self._target_frame(model, values)
        data_term = self._data_term(model, values, truth, pred_frame)
        penalties = self._length_penalties(clauses, weights)
        penalties.update(self._prior_penalties(model, values, truth, (protected, unprotected)))
        reward = data_term - sum(penalties.values())
        return ScoreDetail(
            reward=float(reward),
            data_term=float(data_term),
            penalties=penalties,
            rules=self.space.render_rules(clauses, weights.tolist()),
            weights=weights,
            predictions=pred_frame,
            max_violation=float(result.max_violation),
        )

    def _length_penalties(
        self, clauses: tuple[Clause, ...], weights: NDArray[np.float64]
    ) -> dict[str, float]:
        """Return the length, number and semantic penalties of ``clauses``."""
        cfg = self.config
        penalties: dict[str, float] = {}
        if clauses:
            penalties["len"] = cfg.alpha_len * float(np.mean([c.length for c in clauses]))
        penalties["num"] = cfg.alpha_num * len(clauses)
        if cfg.alpha_sem and (cfg.positive_signals or cfg.negative_signals):
            dist = np.array(
                [
                    semantic_distance(c, cfg.positive_signals, cfg.negative_signals)
                    for c in clauses
                ],
                dtype=np.float64,
            )
            penalties["sem"] = cfg.alpha_sem * float(dist @ weights[: len(dist)])
        return penalties

    def _prior_penalties(
        self,
        model: GroundModel,
        values: NDArray[np.float64],
        truth: NDArray[np.float64],
        groups: tuple[NDArray[np.int64], NDArray[np.int64]],
    ) -> dict[str, float]:
        """Return the fairness prior penalties of the MAP ``values``, keyed by prior name."""
        from fairacq.relational.a3sl._fairness_priors import FairnessPrior

        penalties: dict[str, float] = {}
        for measure, alpha in self.config.priors:
            items = None
            if measure == "overestimation":
                items = np.array([args[-1] for args in model.variables["args"]], dtype=object)
            prior = FairnessPrior(
                measure,  # type: ignore[arg-type]
                truth,
                *groups,
                alpha=alpha,
                items=items,
            )
            penalties[prior.name] = prior(values)
        return penalties

    def _truth_vector(self, model: GroundModel) -> NDArray[np.float64]:
        """Truth of every model variable (NaN where none is known: weight learning rejects)."""
        out = np.full(model.n_variables, np.nan)
        preds = model.variables["predicate"].to_numpy()
        args = model.variables["args"].to_numpy()
        for i, (pred, arg) in enumerate(zip(preds, args, strict=True)):
            table = self._truth.get(str(pred))
            if table is not None:
                out[i] = table.get(tuple(str(a) for a in arg), np.nan)
        return out

    def _target_frame(self, model: GroundModel, values: NDArray[np.float64]) -> pd.DataFrame:
        """MAP value and truth of every truth atom of the target (0 if not a variable)."""
        assert self.target is not None
        truth = self._truth[self.target]
        keep = model.variables["predicate"].to_numpy() == self.target
        found = {
            tuple(str(a) for a in arg): float(v)
            for arg, v in zip(model.variables["args"].to_numpy()[keep], values[keep], strict=True)
        }
        keys = list(truth)
        width = len(keys[0]) if keys else 0
        frame = pd.DataFrame(keys, columns=[f"arg{i}" for i in range(width)])
        frame["value"] = [found.get(k, 0.0) for k in keys]
        frame["truth"] = [truth[k] for k in keys]
        return frame

    def _data_term(
        self,
        model: GroundModel,
        values: NDArray[np.float64],
        truth: NDArray[np.float64],
        frame: pd.DataFrame,
    ) -> float:
        if self.config.utility == "auc":
            from sklearn.metrics import roc_auc_score

            return float(roc_auc_score(frame["truth"] >= 0.5, frame["value"]))
        if self.config.utility == "neg_mse":
            return -float(np.mean((frame["truth"] - frame["value"]) ** 2))
        y_true = np.where(np.isnan(truth), values, truth)
        n = max(model.n_variables, 1)
        return -(float(model.objective(y_true)) - float(model.objective(values))) / n


def _with_seconds(detail: ScoreDetail, seconds: float) -> ScoreDetail:
    return ScoreDetail(
        reward=detail.reward,
        data_term=detail.data_term,
        penalties=detail.penalties,
        rules=detail.rules,
        weights=detail.weights,
        predictions=detail.predictions,
        max_violation=detail.max_violation,
        seconds=seconds,
        error=detail.error,
    )
