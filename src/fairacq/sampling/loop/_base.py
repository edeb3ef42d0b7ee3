"""``GroupSampler``: the loop shared by Aopt and its baselines (Shekhar et al., Algorithms 1-2)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar, Self

import numpy as np
from numpy.typing import NDArray

from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._loop import load_checkpoint, run_loop
from fairacq._random import RandomState, seed_of
from fairacq._trace import Trace
from fairacq._validation import HasMethods, Interval, Options
from fairacq._warnings import warn_caller
from fairacq.data import FairDataset
from fairacq.exceptions import (
    BudgetError,
    InvalidDataError,
    InvalidParameterError,
    ResultWarning,
)
from fairacq.sampling.learners._learners import RoundLearner, make_round_learner
from fairacq.sampling.loop._oracles import GroupOracle
from fairacq.sampling.loop._sampling_loop import SamplingLoop
from fairacq.sampling.loop._state import SamplerState

__all__ = ["GroupSampler", "SamplerState", "exhausted_message"]


class GroupSampler(Strategy):
    """Base class of the group samplers: draw a training set group by group under a budget.

    Each round picks a group ``z_t`` (subclasses implement :meth:`_choose`), draws ``b0``
    samples of it for training and, unless a fixed validation set is given, ``b0`` more for that
    group's validation set ``D_z`` (Algorithm 1 of Shekhar et al. draws such pairs), updates the
    model and records the round. The first ``n0`` rounds visit the groups in turn (Phase 1).

    Parameters
    ----------
    budget : int, default=1000
        Samples drawn in total (training plus validation draws); ``cost`` counts them.
    b0 : int, default=1
        Samples per draw; each round draws ``b0`` (or ``2 * b0`` with paired validation).
    n0 : int or None, default=None
        Rounds of Phase 1, visiting the groups in turn; None means one round per group.
    mode : {"exact", "incremental", "incremental-cnn", "refit"}, default="exact"
        ``"exact"`` re-fits logistic regression each round (warm-started); ``"incremental"``
        trains a small torch MLP by one SGD epoch per round (Shekhar et al., §4);
        ``"incremental-cnn"`` does the same with a small CNN on square single-channel images
        (:class:`~fairacq.sampling.IncrementalCNN`); ``"refit"`` fits a fresh clone of
        ``learner`` on every sample drawn so far (:class:`~fairacq.sampling.RefitLearner`).
    learner : str, estimator or None, default=None
        The classifier of ``mode="refit"``: a :func:`fairacq.models.make_learner` name,
        ``"module:Class"``, or any scikit-learn classifier with ``predict_proba`` (a
        :class:`~sklearn.pipeline.Pipeline` too), cloned each round, its unset
        ``random_state`` seeded from the run's seed. Given with the default ``mode="exact"``
        it implies ``"refit"``; None with ``"refit"`` means ``"lr"``.
    loss : {"zero_one", "log"}, default="zero_one"
        Loss measured on the validation sets and used by the selection rules.
    random_state : int, numpy.random.Generator, SeedSequence, RandomState or None, default=None
        Controls every draw. An int gives identical traces across calls.

    Attributes
    ----------
    trace_ : Trace
        The trace of the last :meth:`fit`: one row per round (see :meth:`fit`).
    allocation_ : dict of str to int
        Training samples drawn from each group.
    n_rounds_ : int
        Rounds run.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "budget": [Interval(int, 2, None, closed="left")],
        "b0": [Interval(int, 1, None, closed="left")],
        "n0": [Interval(int, 1, None, closed="left"), None],
        "mode": [Options(["exact", "incremental", "incremental-cnn", "refit"])],
        "learner": [None, str, HasMethods(["fit", "predict_proba"])],
        "loss": [Options(["log", "zero_one"])],
        "random_state": ["random_state"],
    }

    #: Whether the rule reads held-out validation rows (``validation="cross"`` has none).
    needs_held_out_rows: ClassVar[bool] = False

    budget: int
    b0: int
    n0: int | None
    mode: str
    learner: Any = None
    loss: str
    random_state: RandomState

    # -- to implement ----------------------------------------------------------------------
    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        """Return the group code, the reason and the per-group scores (or None)."""
        raise NotImplementedError

    def _fallback(self, state: SamplerState, left: list[int]) -> int:
        """Return the group to draw when the pool has run out of the chosen one.

        ``left`` are the groups still drawable; by default the one of largest validation
        loss, the worst-served group left (rules that balance counts override this).
        """
        loss = np.nan_to_num(state.val_loss[left], nan=np.inf)
        return left[int(np.argmax(loss))]

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return type(self).__name__.removesuffix("Sampler").lower()

    def _check_params(self) -> str:
        """Validate the hyper-parameters and build ``learner`` once; return the round mode."""
        self._validate_params()
        mode = self._round_mode()
        if mode == "refit":
            from fairacq.models import make_learner

            make_learner("lr" if self.learner is None else self.learner)  # fails before a draw
        return mode

    def check_validation(
        self, validation: FairDataset | int | str | None, mode: str | None = None
    ) -> None:
        """Refuse a ``validation`` argument of :meth:`fit` this sampler cannot use.

        Raises
        ------
        InvalidParameterError
            For a string other than ``"cross"``, or ``"cross"`` with a learner that gives no
            held-out predictions or a rule that reads held-out rows.
        """
        _check_validation(self, validation, self._round_mode() if mode is None else mode)

    def _make_round_learner(self, mode: str, seed: int) -> RoundLearner:
        """Return a fresh round learner of ``mode`` (overridden by samplers with their own)."""
        return make_round_learner(mode, seed, self.learner)

    def _round_mode(self) -> str:
        """Return the learner mode of a run: ``learner`` turns the default "exact" into refit."""
        if self.learner is None or self.mode == "refit":
            return self.mode
        if self.mode == "exact":
            return "refit"
        raise InvalidParameterError(
            f"{type(self).__name__}: learner= is refitted each round (mode 'refit'), but mode "
            f"{self.mode!r} trains its own torch network. Drop learner= or use mode='refit'."
        )

    # -- the loop --------------------------------------------------------------------------
    def fit(
        self,
        oracle: GroupOracle,
        *,
        validation: FairDataset | int | str | None = None,
        test: FairDataset | int | None = None,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> Self:
        """Spend the budget round by round and record each round in ``trace_``.

        Parameters
        ----------
        oracle : GroupOracle
            Where samples come from (:class:`DatasetOracle`, :class:`GeneratorOracle`,
            :class:`CallbackOracle`). A :class:`DatasetOracle` is reset first.
        validation : FairDataset, int, "cross" or None, default=None
            None grows each group's validation set with the paired draws of Algorithm 1. A
            FairDataset (same group names as the oracle) is a fixed held-out validation set,
            and each round then draws only ``b0`` samples. An int draws that many rows per
            group from the oracle before round 0 (not counted in ``cost``). ``"cross"`` draws
            no validation rows: every sample paid for trains the model, and each group's
            ``val_*`` loss is measured on its own training rows by held-out predictions
            (approximate leave-one-out for ``mode="exact"``, five folds for ``"refit"``; the
            torch modes and :class:`SliceTunerSampler`, which needs held-out rows for its
            curves, refuse it).
        test : FairDataset, int or None, default=None
            Only reported (``test_*`` columns), never used to decide. An int draws that many
            rows per group from the oracle before round 0.
        continue_from : Trace, path or None, default=None
            A trace (or checkpoint, or its path) of this sampler on the same oracle; the run
            replays its
            draws, restores the model and goes on, giving the rows an uninterrupted run gives.
        callbacks : sequence of callables
            Called after each round with the recorder; one returning ``False`` stops.

        Returns
        -------
        GroupSampler
            ``self``, fitted: ``trace_`` holds the run's :class:`~fairacq.Trace`, one row per
            round: ``group``, ``group_code``, ``reason``, ``n_<g>`` and ``pi_<g>``
            (training counts and mixture), ``score_<g>`` (selection score, NaN when unused),
            ``val_loss_<g>``, ``val_acc_<g>``, ``val_worst_acc``, with a test set
            ``test_loss_<g>``, ``test_acc_<g>``, ``test_worst_acc``, and ``cost`` (samples
            drawn so far).

        Raises
        ------
        BudgetError
            If the budget cannot pay for Phase 1, or a dataset runs out of every group
            (naming the group chosen last, its rows and the samples drawn when it ran out).
        InvalidParameterError
            For a bad hyper-parameter or an object that is not a group oracle.
        InvalidDataError
            If an evaluation set lacks a group, or the oracle returns bad arrays.

        Warns
        -----
        ResultWarning
            When a dataset runs out of a group the rule chooses: that round draws the rule's
            fallback group instead (the largest validation loss among the groups left;
            Uniform: the least drawn), its ``reason`` says so, and the trace's metadata names
            the groups (``exhausted``) and counts the rounds (``redirected_rounds``).
        """
        mode = self._check_params()
        _check_oracle(oracle)
        m = int(oracle.n_groups)
        names = list(oracle.group_names)
        n0 = m if self.n0 is None else int(self.n0)
        if n0 < m:
            raise InvalidParameterError(
                f"The 'n0' parameter of {type(self).__name__} must be >= the number of groups "
                f"({m}) so Phase 1 draws every group once. Got {n0}; raise n0 or leave it None."
            )
        self.check_validation(validation, mode)
        paired = validation is None
        per_round = self.b0 * (2 if paired else 1)
        if self.budget < n0 * per_round:
            raise BudgetError(
                f"{type(self).__name__}: budget {self.budget} is smaller than Phase 1, which "
                f"draws {n0 * per_round} samples (n0={n0} rounds x {per_round}). Raise the "
                "budget or lower n0/b0."
            )

        checkpoint = None if continue_from is None else load_checkpoint(continue_from)
        if checkpoint is not None:
            _check_resumable(checkpoint, self.method_name, names)
            _check_same_seed(checkpoint, self.random_state)
        loop = SamplingLoop(self, oracle, validation=validation, test=test, n0=n0, mode=mode)
        result = run_loop(
            loop,
            method=self.method_name,
            config=self.get_params(deep=False),
            random_state=self.random_state,
            continue_from=checkpoint,
            callbacks=callbacks,
            groups=names,
            validation=_validation_kind(validation),
        )
        self.allocation_ = {name: int(loop.counts[g]) for g, name in enumerate(names)}
        self.n_rounds_ = loop.t
        self.trace_ = result.trace
        if "exhausted" in result.trace.meta:
            warn_caller(exhausted_message([result.trace]), ResultWarning)
        return self


def exhausted_message(traces: Sequence[Trace], *, trials: bool = False) -> str:
    """Say which groups the pool ran out of in ``traces`` and where their rounds went."""
    ran_out = [t for t in traces if "exhausted" in t.meta]
    groups = sorted({g for t in ran_out for g in t.meta["exhausted"]})
    rounds = sum(int(t.meta["redirected_rounds"]) for t in ran_out)
    where = f"in {len(ran_out)} of {len(traces)} trial(s)" if trials else "in this run"
    named = ", ".join(f"'{g}'" for g in groups)
    return (
        f"The pool ran out of group(s) {named} {where}: {rounds} round(s) that chose them drew "
        "another group instead (reason 'fallback' in the trace), so the allocation is not the "
        "rule's own there. Add rows of those groups or lower the budget."
    )


def _validation_kind(validation: Any) -> str:
    """Name the validation of a run in its trace: paired draws, held-out estimates or fixed."""
    if validation is None:
        return "paired"
    return "cross" if isinstance(validation, str) else "fixed"


def _check_validation(sampler: GroupSampler, validation: Any, mode: str) -> None:
    """Refuse a validation string other than "cross", and "cross" where it cannot run."""
    if not isinstance(validation, str):
        return
    name = type(sampler).__name__
    if validation != "cross":
        raise InvalidParameterError(
            f"{name}.fit: validation={validation!r} is not known. Give None (paired validation "
            "draws), 'cross' (held-out estimates on the training rows), a FairDataset or an int."
        )
    if not hasattr(sampler._make_round_learner(mode, 0), "held_out_proba"):
        raise InvalidParameterError(
            f"{name}.fit: validation='cross' needs held-out predictions, which its learner "
            f"(mode {mode!r}) does not give. Use mode='exact' or 'refit', or paired validation "
            "draws (validation=None, --validation paired)."
        )
    if sampler.needs_held_out_rows:
        raise InvalidParameterError(
            f"{name}.fit: validation='cross' draws no validation rows, but this sampler fits "
            "its learning curves on held-out rows. Use paired validation draws (validation=None, "
            "--validation paired)."
        )


def _check_oracle(oracle: Any) -> None:
    if not isinstance(oracle, GroupOracle):
        raise InvalidParameterError(
            f"Group samplers need a group oracle (n_groups, group_names, proportions, draw), "
            f"got {type(oracle).__name__}. Wrap data in DatasetOracle, GeneratorOracle or "
            "CallbackOracle."
        )


def _check_same_seed(trace: Trace, random_state: RandomState) -> None:
    """Refuse to resume a trace written with another seed (its draws could not be replayed)."""
    given = seed_of(random_state)
    written = {"seed": trace.meta.get("seed"), "spawn_key": list(trace.meta.get("spawn_key", []))}
    if given["seed"] is None or written["seed"] is None or given == written:
        return
    fix = f"random_state={written['seed']}"
    if written["spawn_key"]:
        fix = f"SeedSequence({written['seed']}, spawn_key={tuple(written['spawn_key'])})"
    raise InvalidDataError(
        f"continue_from holds a trace of {_seed_text(written)}, but this sampler's "
        f"random_state is {_seed_text(given)}: its draws would not be the ones replayed. "
        f"Resume with {fix}, the seed that wrote it, or start afresh without continue_from."
    )


def _seed_text(seed: dict[str, Any]) -> str:
    key = seed["spawn_key"]
    return f"seed {seed['seed']}" + (f" (spawn key {key})" if key else "")


def _check_resumable(trace: Trace, method: str, names: list[str]) -> None:
    if trace.method != method or trace.meta.get("groups") != names:
        raise InvalidDataError(
            f"continue_from holds a '{trace.method}' trace over groups {trace.meta.get('groups')}"
            f", not a '{method}' trace over {names}. Resume with the sampler and oracle that "
            "wrote the checkpoint."
        )
