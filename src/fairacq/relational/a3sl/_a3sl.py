"""Fair-A3SL: actor-critic structure learning of fair hinge-loss MRFs (Algorithm 1).

:class:`FairA3SL` wires the three parts together: the clause-list environment
(:class:`~fairacq.relational.a3sl._clause_env.ClauseSpace`), the reward
(:class:`~fairacq.relational.a3sl._structure_scorer.StructureScorer`: weight learning, fair MAP
inference, utility) and the advantage actor-critic agent
(:class:`~fairacq.relational.a3sl._a2c.A2CAgent`). Two presets:

- ``"authors"`` (what produced the paper's tables, per the authors' code): reward = AUC-ROC of
  the target on the training data after weight learning and fairness-constrained MAP, priors
  at 0, exact parity (``rd<=0``), at most 5 literals and 8 clauses, a target in every clause,
  separate 3 x 18 tanh MLP policy and value networks, 2 workers, t_max 6;
- ``"paper"`` (the text): reward = log-likelihood minus the interpretability priors of eq. (2)
  (strengths 0.01, our choice) minus the fairness priors, delta 0.1 for RD, RR and RC (§5.1),
  a recurrent (GRU) policy.

Variants (§5.1): ``"sensitive"`` (Sensitive-A3SL: no constraints, no priors), ``"fair1"``
(constraints only), ``"fair2"`` (constraints + equalised-odds prior, alpha 0.1) and ``"fair3"``
(alpha 0.5).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._deps import require
from fairacq._loop import RunLoop, run_loop
from fairacq._random import RandomState, child_seeds
from fairacq._trace import Trace
from fairacq._validation import Interval, Options
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidDataError, NotFittedError
from fairacq.relational.a3sl._clause_env import (
    Clause,
    ClauseScorer,
    ClauseSpace,
    signatures_from_frames,
)
from fairacq.relational.a3sl._clause_env import ClauseLiteral as Lit
from fairacq.relational.a3sl._clause_search import enumerate_clauses, refine_clause_list
from fairacq.relational.a3sl._structure_scorer import StructureScorer, UtilityConfig
from fairacq.relational.a3sl._warnings import exploration_message

if TYPE_CHECKING:
    from fairacq.relational.a3sl._a2c import A2CAgent

__all__ = ["FairA3SL"]

_PRESETS: dict[str, dict[str, Any]] = {
    "authors": {
        "max_literals": 5,
        "max_clauses": 8,
        "policy": "mlp",
        "hidden": 18,
        "fairness": ("rd<=0",),
    },
    "paper": {
        "max_literals": 5,
        "max_clauses": 8,
        "policy": "recurrent",
        "hidden": 64,
        "fairness": ("rd<=0.1", "rr<=0.1", "rc<=0.1"),
    },
}
_ALPHA_ODDS = {"sensitive": 0.0, "fair1": 0.0, "fair2": 0.1, "fair3": 0.5}


def _parse_literal(text: str) -> Lit:
    text = text.strip()
    return Lit(text.lstrip("~!").strip(), negated=text.startswith(("~", "!")))


class FairA3SL(Strategy):
    """Learn the rules of a fair hinge-loss MRF with advantage actor-critic (Fair-A3SL).

    Implements Algorithm 1 of Zhang & Ramesh (§4): an agent builds clause lists
    literal by literal; each finished list is scored by weight learning, MAP inference under
    the delta-fairness constraints and a utility; the best-scored list is kept.

    Parameters
    ----------
    preset : {"authors", "paper"}, default="authors"
        The authors' set-up (AUC reward, exact parity, MLP policy) or the paper's text
        (log-likelihood with priors, delta 0.1, recurrent policy); see the module docstring.
    variant : {"sensitive", "fair1", "fair2", "fair3"}, default="fair1"
        Sensitive-A3SL or Fair-A3SL 1-3 of §5.1.
    n_episodes : int, default=200
        Clause lists to build and score.
    fairness : tuple of str or None, default=None
        Overrides the preset's constraints (``("rd<=0.05",)``); ignored by ``"sensitive"``.
    alpha_odds : float or None, default=None
        Overrides the variant's equalised-odds prior strength.
    max_literals, max_clauses : int or None, default=None
        Override the preset's limits (COMPAS in the authors' code: 3 and 12).
    allow_stop : bool, default=True
        Let the agent finish a list early (``END`` on an empty clause), so lists hold *at
        most* ``max_clauses`` clauses (the authors' limit) and eq. (2)'s prior on the number
        of clauses has something to act on; ``False``: exactly ``max_clauses`` closed clauses
        (duplicates merge).
    require_target : bool, default=True
        Every clause must contain a target predicate.
    exclude : tuple of str, default=()
        Predicates the agent may not use (e.g. the sensitive attribute).
    target : str or None, default=None
        Target predicate of the reward; ``None``: the data's fairness predicate.
    domains : dict or None, default=None
        Entity type -> observed unary predicate listing it (``{"user": "user"}``).
    arg_types : dict or None, default=None
        Predicate -> argument types, where the column names do not say them.
    private_types : tuple of str, default=()
        Entity types not shared between predicates (COMPAS: ``("instance",)``, so that
        ``priors(User, PriorsInstance)`` and ``felony...`` never join on an instance).
    signals : dict or None, default=None
        ``{"positive": [...], "negative": [...]}`` literal texts (``"~oldAge"``) of §4.4.
    utility_options : dict or None, default=None
        Extra :class:`UtilityConfig` fields (``alpha_len``, ``utility``...).
    agent_options : dict or None, default=None
        Extra :class:`A2CConfig` fields (``lr``, ``t_max``, ``n_envs``, ``policy``...).
    weight_learning : dict or None, default=None
        Keyword arguments of ``learn_weights``.
    map_options : dict or None, default=None
        Keyword arguments of ``map_inference`` (the reward uses ``solver="auto"`` unless
        this names another).
    scorer : callable or None, default=None
        Replaces the reward (``clauses -> float``); for experiments with other utilities.
    failure_reward : float or None, default=None
        Reward of a clause list that cannot be grounded or solved. ``None``: below every
        attainable reward of the utility (0 for AUC, -1 for minus the MSE, -100 for the
        log-likelihood, which is never positive).
    refine_evaluations : int or None, default=None
        fairacq's addition, not in the paper: after the agent, polish its best list by
        first-improvement hill climbing with the same reward, scoring at most this many
        clause lists (:func:`~fairacq.relational.refine_clause_list`: remove a clause, add
        or swap in a clause of at most ``refine_literals`` literals); it stops earlier at a
        local optimum. A count, not a time, so one seed gives the same rules on any machine.
        ``None``: the paper's algorithm.
    refine_literals : int, default=2
        Literal limit (head included) of the clauses the local search may add.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the agent and weight learning.

    Attributes
    ----------
    best_clauses_ : tuple of Clause
        The best-rewarded clause list ``C*``.
    best_rules_ : list of str
        ``C*`` as PSL rules, with learned weights when the built-in scorer is used.
    agent_rules_ : list of str
        The agent's own best list as PSL rules (equal to ``best_rules_`` without
        refinement).
    best_reward_ : float
    agent_clauses_ : tuple of Clause
        The agent's own best list (``C_list`` of Algorithm 1), before any refinement.
    agent_reward_ : float
    trace_ : Trace
        One row per actor-critic update (``phase`` ``"agent"``): ``update``, ``episodes``
        (also the ``cost``), ``new_episodes``, their ``mean_reward``, the ``best_reward`` so
        far, the losses and ``exploration`` (the policy's entropy over its maximum on the
        update's sampled steps: 1 is a uniform choice); then, with ``refine_evaluations``,
        one row per accepted local-search move (``phase`` ``"refine"``: ``move``,
        ``best_reward`` after it, ``n_clauses``, ``evaluations``; ``cost`` adds the
        evaluations to the episodes). Every clause list the agent built, with its reward,
        is in ``agent_.history()``.
    exploration_ : float
        How much the trained policy still explores: its mean normalised entropy along its
        own most probable clause list (``A2CAgent.exploration``; 1 is a uniform choice).
    warnings_ : list of str
        What deserves a second look, one line each: an ``exploration_`` still above
        :data:`~fairacq.relational.EXPLORATION_LIMIT` (the policy did not settle). Recorded,
        not issued; :func:`~fairacq.relational.learn_rules` issues them as warnings.
    space_ : ClauseSpace
    scorer_ : callable
    agent_ : A2CAgent

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.relational import RelationalData
    >>> users = [f"u{i}" for i in range(8)]
    >>> data = RelationalData(
    ...     observations={"old": pd.DataFrame({"user": users, "value": [0, 1] * 4})},
    ...     targets={"recid": pd.DataFrame({"user": users})},
    ...     truth={"recid": pd.DataFrame({"user": users, "value": [1, 0] * 4})},
    ...     protected=pd.DataFrame({"user": users[:4]}),
    ...     unprotected=pd.DataFrame({"user": users[4:]}),
    ...     metadata={"fairness_predicate": "recid"},
    ... )
    >>> learner = FairA3SL(n_episodes=4, max_clauses=1, scorer=lambda c: float(len(c)),
    ...                    random_state=0).fit(data)
    >>> learner.best_reward_
    1.0
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "preset": [Options(["authors", "paper"])],
        "variant": [Options(["sensitive", "fair1", "fair2", "fair3"])],
        "n_episodes": [Interval(int, 1, None, closed="left")],
        "fairness": [tuple, list, None],
        "alpha_odds": [Interval(float, 0, None, closed="left"), None],
        "max_literals": [Interval(int, 1, None, closed="left"), None],
        "max_clauses": [Interval(int, 1, None, closed="left"), None],
        "allow_stop": ["boolean"],
        "require_target": ["boolean"],
        "exclude": [tuple, list],
        "target": [str, None],
        "domains": [Mapping, None],
        "arg_types": [Mapping, None],
        "private_types": [tuple, list],
        "signals": [Mapping, None],
        "utility_options": [Mapping, None],
        "agent_options": [Mapping, None],
        "weight_learning": [Mapping, None],
        "map_options": [Mapping, None],
        "scorer": ["callable", None],
        "failure_reward": [float, int, None],
        "refine_evaluations": [Interval(int, 1, None, closed="left"), None],
        "refine_literals": [Interval(int, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        preset: str = "authors",
        variant: str = "fair1",
        n_episodes: int = 200,
        fairness: Sequence[str] | None = None,
        alpha_odds: float | None = None,
        max_literals: int | None = None,
        max_clauses: int | None = None,
        allow_stop: bool = True,
        require_target: bool = True,
        exclude: Sequence[str] = (),
        target: str | None = None,
        domains: Mapping[str, str] | None = None,
        arg_types: Mapping[str, Sequence[str]] | None = None,
        private_types: Sequence[str] = (),
        signals: Mapping[str, Sequence[str]] | None = None,
        utility_options: Mapping[str, Any] | None = None,
        agent_options: Mapping[str, Any] | None = None,
        weight_learning: Mapping[str, Any] | None = None,
        map_options: Mapping[str, Any] | None = None,
        scorer: ClauseScorer | None = None,
        failure_reward: float | None = None,
        refine_evaluations: int | None = None,
        refine_literals: int = 2,
        random_state: RandomState = None,
    ) -> None:
        self.preset = preset
        self.variant = variant
        self.n_episodes = n_episodes
        self.fairness = fairness
        self.alpha_odds = alpha_odds
        self.max_literals = max_literals
        self.max_clauses = max_clauses
        self.allow_stop = allow_stop
        self.require_target = require_target
        self.exclude = exclude
        self.target = target
        self.domains = domains
        self.arg_types = arg_types
        self.private_types = private_types
        self.signals = signals
        self.utility_options = utility_options
        self.agent_options = agent_options
        self.weight_learning = weight_learning
        self.map_options = map_options
        self.scorer = scorer
        self.failure_reward = failure_reward
        self.refine_evaluations = refine_evaluations
        self.refine_literals = refine_literals
        self.random_state = random_state

    # ------------------------------------------------------------------ building blocks
    def _space(self, data: RelationalData) -> ClauseSpace:
        preset = _PRESETS[self.preset]
        sigs = signatures_from_frames(
            data.observations,
            data.targets,
            arg_types=self.arg_types,
            private_types=tuple(self.private_types),
        )
        unknown = set(self.exclude) - {s.name for s in sigs}
        if unknown:
            raise InvalidDataError(
                f"FairA3SL: exclude names unknown predicates {sorted(unknown)}. "
                f"Known: {sorted(s.name for s in sigs)}."
            )
        sigs = [s for s in sigs if s.name not in set(self.exclude)]
        return ClauseSpace(
            sigs,
            max_literals=self.max_literals or preset["max_literals"],
            max_clauses=self.max_clauses or preset["max_clauses"],
            require_target=self.require_target,
            allow_stop=self.allow_stop,
            domains=dict(self.domains or {}),
        )

    def utility_config(self) -> UtilityConfig:
        """Return the :class:`UtilityConfig` that the preset, variant and overrides give."""
        preset = _PRESETS[self.preset]
        fairness: tuple[str, ...] = ()
        if self.variant != "sensitive":
            fairness = tuple(self.fairness if self.fairness is not None else preset["fairness"])
        alpha = self.alpha_odds if self.alpha_odds is not None else _ALPHA_ODDS[self.variant]
        priors = (("equalized_odds", float(alpha)),) if alpha > 0 else ()
        signals = dict(self.signals or {})
        extra: dict[str, Any] = {
            "priors": priors,
            "positive_signals": tuple(_parse_literal(t) for t in signals.get("positive", ())),
            "negative_signals": tuple(_parse_literal(t) for t in signals.get("negative", ())),
        }
        extra.update(self.utility_options or {})
        if self.preset == "paper":
            return UtilityConfig.paper(fairness, **extra)
        return UtilityConfig.authors(fairness, **extra)

    def _agent_config(self) -> Any:
        from fairacq.relational.a3sl._a2c import A2CConfig

        preset = _PRESETS[self.preset]
        opts: dict[str, Any] = {"policy": preset["policy"], "hidden": preset["hidden"]}
        opts.update(self.agent_options or {})
        return A2CConfig(**opts)

    # ------------------------------------------------------------------ fit / predict
    def fit(
        self,
        data: RelationalData,
        *,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> FairA3SL:
        """Learn a clause list on the training ``data``.

        The agent's training runs on fairacq's shared loop: each step is one actor-critic
        update (``t_max`` steps of every environment), recorded as one row of
        :attr:`trace_`. A run stopped on the way resumes exactly::

            FairA3SL(...).fit(data, callbacks=[CheckpointCallback("ck", every=10)])
            FairA3SL(...).fit(data, continue_from="ck")  # equals the uninterrupted fit

        The checkpoint is the folder ``ck/``: ``trace.parquet`` + ``trace.json`` (the updates
        so far and the root seed), ``agent.pt`` (policy and value networks, optimiser,
        random stream and recurrent state, tensors only: read back with
        ``torch.load(weights_only=True)``) and ``agent.json`` (the environments' partial
        lists, reward statistics, best list and episode history).

        Parameters
        ----------
        data : RelationalData
            Training observations, targets, truth and fairness groups.
        continue_from : Trace, path-like, optional
            The checkpoint folder of an earlier run with the same data and parameters (or
            ``Trace.load(folder)``); training continues until ``n_episodes`` episodes in
            total.
        callbacks : sequence of callables, default=()
            Called after each update with the :class:`~fairacq.TraceRecorder`, e.g.
            :class:`~fairacq.CheckpointCallback`; one returning ``False`` stops training.

        Returns
        -------
        FairA3SL
            ``self``.
        """
        self._validate_params()
        loop = _A3SLLoop(self, data)
        result = run_loop(
            loop,
            method="fair-a3sl",
            config=_json_config(self.get_params(deep=False)),
            random_state=self.random_state,
            continue_from=continue_from,
            callbacks=callbacks,
        )
        agent, scorer, space = loop.agent, loop.scorer, loop.space
        self.space_ = space
        self.scorer_ = scorer
        self.agent_: A2CAgent = agent
        self.agent_clauses_: tuple[Clause, ...] = agent.best_clauses
        self.agent_reward_ = float(agent.best_reward)
        self.best_clauses_: tuple[Clause, ...] = agent.best_clauses
        self.best_reward_ = self.agent_reward_
        self.trace_: Trace = result.trace
        if self.refine_evaluations is not None and agent.best_clauses:
            self._refine(loop.refine_seed)
        self.agent_rules_ = self._rules(scorer, space, self.agent_clauses_)
        self.best_rules_ = (
            self.agent_rules_
            if self.best_clauses_ == self.agent_clauses_
            else self._rules(scorer, space, self.best_clauses_)
        )
        self._record_warnings()
        return self

    def _refine(self, seed: Any) -> None:
        """Polish the agent's best list by local search; append its moves to ``trace_``."""
        refined = refine_clause_list(
            self.agent_clauses_,
            self.space_,
            self.scorer_,
            candidates=enumerate_clauses(self.space_, self.refine_literals),
            max_evaluations=self.refine_evaluations,
            random_state=seed,
        )
        self.best_clauses_, self.best_reward_ = refined.clauses, refined.reward
        self.trace_ = _with_refine_rows(self.trace_, refined.history)

    def _record_warnings(self) -> None:
        """Set ``exploration_`` (of the trained policy) and ``warnings_``."""
        self.exploration_ = self.agent_.exploration()
        message = exploration_message(self.exploration_, int(self.agent_.n_episodes))
        self.warnings_: list[str] = [] if message is None else [message]

    def _scorer(self, data: RelationalData, space: ClauseSpace, seed: Any) -> ClauseScorer:
        """Return the reward of a clause list: ``scorer`` or the preset's StructureScorer."""
        if self.scorer is not None:
            return self.scorer
        config = self.utility_config()
        failure = self.failure_reward
        if failure is None:
            failure = {"auc": 0.0, "neg_mse": -1.0}.get(config.utility, -100.0)
        return StructureScorer(
            data,
            space,
            config,
            failure_reward=float(failure),
            target=self.target,
            weight_learning=self.weight_learning,
            map_options=self.map_options,
            random_state=seed,
        )

    @staticmethod
    def _rules(scorer: ClauseScorer, space: ClauseSpace, clauses: tuple[Clause, ...]) -> list[str]:
        """PSL rules of ``clauses``, with learned weights when the built-in scorer is used."""
        if isinstance(scorer, StructureScorer):
            return list(scorer.evaluate(clauses).rules)
        return list(space.render_rules(clauses))

    def _check_fitted(self) -> None:
        if not hasattr(self, "best_rules_"):
            raise NotFittedError(
                "FairA3SL is not fitted yet. Call fit(data) before predict or summary."
            )

    def predict(self, data: RelationalData, *, fair: bool = True) -> pd.DataFrame:
        """MAP values of every target atom of ``data`` under the learned rules.

        Parameters
        ----------
        data : RelationalData
            Test observations and targets (and fairness groups when ``fair``).
        fair : bool, default=True
            Impose the variant's fairness constraints (as in training).

        Returns
        -------
        pandas.DataFrame
            ``predicate``, ``arg0 ...``, ``value`` (``MapResult.to_frame``).
        """
        from fairacq.relational.hlmrf._database import Database
        from fairacq.relational.hlmrf._grounding import ground
        from fairacq.relational.inference._fairness import fairness_constraints
        from fairacq.relational.inference._map_inference import map_inference
        from fairacq.relational.psl._parser import parse_rules

        self._check_fitted()
        model = ground(parse_rules("\n".join(self.best_rules_)), Database.from_data(data))
        config = self.utility_config()
        if fair and config.fairness:
            protected, unprotected = data.group_variables(model)
            for spec in config.fairness:
                model = model.with_constraints(
                    fairness_constraints(model, spec, protected=protected, unprotected=unprotected)
                )
        result = map_inference(model, **dict(self.map_options or {}))
        frame: pd.DataFrame = result.to_frame(model)
        frame["value"] = np.clip(frame["value"].to_numpy(dtype=np.float64), 0.0, 1.0)
        return frame


class _A3SLLoop(RunLoop):
    """The agent's training in :meth:`FairA3SL.fit` as a :class:`~fairacq._loop.RunLoop`.

    One step is one actor-critic update (``phase`` ``"agent"``). The streams are the root
    seed's children 0-2 (the agent, weight learning in the reward, the refinement), the same
    as ``spawn_seeds(random_state, 3)``. The agent's networks and progress travel in the
    checkpoint folder (``agent.pt`` + ``agent.json``).
    """

    def __init__(self, learner: FairA3SL, data: RelationalData) -> None:
        self.learner = learner
        self.data = data

    def start(self, root: np.random.SeedSequence) -> None:
        from fairacq.relational.a3sl._a2c import A2CAgent

        learner = self.learner
        agent_seed, scorer_seed, self.refine_seed = child_seeds(root, 3)
        self.space = learner._space(self.data)
        self.scorer = learner._scorer(self.data, self.space, scorer_seed)
        self.agent = A2CAgent(
            self.space, self.scorer, learner._agent_config(), random_state=agent_seed
        )
        torch = require("torch", purpose="Fair-A3SL's agent")
        torch.set_num_threads(1)
        return None

    def read_state(self, folder: Path) -> None:
        self.agent.load_state(folder)

    def stop_reason(self) -> str | None:
        return "n_episodes" if self.agent.n_episodes >= self.learner.n_episodes else None

    def step(self, index: int) -> dict[str, Any]:
        stats = self.agent.train_step()
        rewards = [float(e["reward"]) for e in stats["episodes"]]
        agent = self.agent
        return {
            "cost": float(agent.n_episodes),
            "phase": "agent",
            "update": agent.n_updates,
            "episodes": agent.n_episodes,
            "new_episodes": len(rewards),
            "mean_reward": float(np.mean(rewards)) if rewards else float("nan"),
            "best_reward": float(agent.best_reward),
            "policy_loss": stats["policy_loss"],
            "value_loss": stats["value_loss"],
            "exploration": stats["exploration"],
        }

    def write_state(self, folder: Path) -> None:
        self.agent.save(folder)


def _json_config(params: Mapping[str, Any]) -> dict[str, Any]:
    """Return the parameters for a trace, a callable by its qualified name (no address)."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if callable(value):
            value = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
        out[key] = value
    return out


def _with_refine_rows(trace: Trace, moves: pd.DataFrame) -> Trace:
    """Return ``trace`` followed by one ``phase="refine"`` row per accepted local-search move.

    ``moves`` is :attr:`RefineResult.history`; a row's ``cost`` is the agent's episodes plus
    the lists the search had scored by then (its ``evaluations``), and its ``best_reward``
    the reward after the move. The search's wall time is left out: the trace of one seed is
    the same on any machine.
    """
    agent_rows = trace.to_frame()
    if moves.empty:
        return trace
    episodes = float(agent_rows["cost"].iloc[-1]) if len(agent_rows) else 0.0
    first = int(agent_rows["step"].iloc[-1]) + 1 if len(agent_rows) else 0
    rows = pd.DataFrame(
        {
            "step": np.arange(first, first + len(moves)),
            "cost": episodes + moves["evaluations"].to_numpy(dtype=np.float64),
            "phase": "refine",
            "move": moves["move"].astype(str).to_numpy(),
            "best_reward": moves["reward"].to_numpy(dtype=np.float64),
            "n_clauses": moves["n_clauses"].to_numpy(dtype=np.int64),
            "evaluations": moves["evaluations"].to_numpy(dtype=np.int64),
        }
    )
    return Trace(pd.concat([agent_rows, rows], ignore_index=True), trace.meta)
