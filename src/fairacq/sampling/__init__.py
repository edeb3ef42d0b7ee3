"""Adaptive group sampling for minimax fairness (Shekhar et al. 2021).

Given a budget and an oracle that draws labelled samples of any group ``z``, decide how many
samples to draw from each group so the classifier trained on them has the smallest worst-group
risk. Samplers share one loop (:class:`GroupSampler`): Phase 1 visits every group, then each
round picks a group, draws from it (paired draws feed a per-group validation set), updates the
model and records the mixture ``pi_t`` and per-group losses in a :class:`fairacq.Trace`.

Entry points: the oracles :class:`DatasetOracle`, :class:`GeneratorOracle`,
:class:`CallbackOracle`; the samplers :class:`AoptSampler` (Algorithms 1-2, eq. 4/6),
:class:`AoptPlusSampler` (Mann-Kendall trend term), and the baselines
:class:`EpsilonGreedySampler`, :class:`GreedySampler`, :class:`UniformSampler`,
:class:`UncuratedSampler`; peers from other papers (``docs/paper-notes/peers-groups.md``):
:class:`SliceTunerSampler` (Tae & Whang 2021: learning curves and a convex split),
:class:`MinimaxFairSampler` (Diana et al. 2021: the regulator's weights as sampling shares) and
:class:`AbernethyGreedySampler` (Abernethy et al. 2022: population exploration, averaged SGD
with :class:`AveragedSGDLogistic`); the round learners :class:`ExactLogistic`,
:class:`IncrementalMLP`, :class:`IncrementalCNN`; the score functions :func:`vc_deviation`,
:func:`rademacher_deviation`, :func:`theory_ucb`, :func:`practical_ucb`,
:func:`mann_kendall_score`; :func:`run_sampler_trials` runs a sampler in independent trials on
a dataset (a fresh pool/test split each, :func:`trial_split`); :func:`allocate_budget` answers
"how many samples of each group should I collect?" (the method beside Uniform on the same
seeds: an :class:`AllocationResult`, written by :func:`write_allocation`), as ``fairacq
sample`` does, with one count per group to act on (:func:`recommend_counts`, the median over
trials rounded to the budget by :func:`largest_remainder`) and a verdict against Uniform
(:func:`compare_to_baseline`, paired by trial when :func:`trials_are_paired`);
:class:`RefitLearner` refits any scikit-learn classifier (``learner=``) each round;
:func:`resolve_budget` reads a budget written as a count or ``"20%"``. Choices the paper
leaves open: ``docs/paper-notes/aopt.md``.
"""

from __future__ import annotations

from fairacq.sampling.allocation._allocate import MIN_GROUP_ROWS, allocate_budget
from fairacq.sampling.allocation._allocation import AllocationResult
from fairacq.sampling.allocation._allocation_files import write_allocation
from fairacq.sampling.allocation._budget import resolve_budget
from fairacq.sampling.allocation._recommend import (
    RecommendedCounts,
    largest_remainder,
    recommend_counts,
)
from fairacq.sampling.allocation._trials import run_sampler_trials, trial_split
from fairacq.sampling.allocation._versus_baseline import (
    BaselineVerdict,
    compare_to_baseline,
    trials_are_paired,
)
from fairacq.sampling.learners._averaged_sgd import AveragedSGDLogistic
from fairacq.sampling.learners._cnn import IncrementalCNN
from fairacq.sampling.learners._learners import ExactLogistic, IncrementalMLP
from fairacq.sampling.learners._refit import RefitLearner
from fairacq.sampling.loop._base import GroupSampler, SamplerState
from fairacq.sampling.loop._oracles import (
    CallbackOracle,
    DatasetOracle,
    GeneratorOracle,
    GroupOracle,
)
from fairacq.sampling.samplers._abernethy import AbernethyGreedySampler
from fairacq.sampling.samplers._aopt import AoptPlusSampler, AoptSampler
from fairacq.sampling.samplers._baselines import (
    EpsilonGreedySampler,
    GreedySampler,
    UncuratedSampler,
    UniformSampler,
)
from fairacq.sampling.samplers._learning_curve import fit_power_law
from fairacq.sampling.samplers._minimax_fair import (
    MinimaxFairSampler,
    exponentiated_update,
    regulator_step_size,
)
from fairacq.sampling.samplers._registry import (
    available_samplers,
    check_params_apply,
    make_sampler,
    samplers_taking,
)
from fairacq.sampling.samplers._slice_allocation import allocate_slices, slice_objective
from fairacq.sampling.samplers._slice_tuner import SliceTunerSampler
from fairacq.sampling.samplers._trend import mann_kendall_score
from fairacq.sampling.samplers._ucb import (
    practical_ucb,
    rademacher_deviation,
    theory_ucb,
    vc_deviation,
)

__all__ = [
    "MIN_GROUP_ROWS",
    "AbernethyGreedySampler",
    "AllocationResult",
    "AoptPlusSampler",
    "AoptSampler",
    "AveragedSGDLogistic",
    "BaselineVerdict",
    "CallbackOracle",
    "DatasetOracle",
    "EpsilonGreedySampler",
    "ExactLogistic",
    "GeneratorOracle",
    "GreedySampler",
    "GroupOracle",
    "GroupSampler",
    "IncrementalCNN",
    "IncrementalMLP",
    "MinimaxFairSampler",
    "RecommendedCounts",
    "RefitLearner",
    "SamplerState",
    "SliceTunerSampler",
    "UncuratedSampler",
    "UniformSampler",
    "allocate_budget",
    "allocate_slices",
    "available_samplers",
    "check_params_apply",
    "compare_to_baseline",
    "exponentiated_update",
    "fit_power_law",
    "largest_remainder",
    "make_sampler",
    "mann_kendall_score",
    "practical_ucb",
    "rademacher_deviation",
    "recommend_counts",
    "regulator_step_size",
    "resolve_budget",
    "run_sampler_trials",
    "samplers_taking",
    "slice_objective",
    "theory_ucb",
    "trial_split",
    "trials_are_paired",
    "vc_deviation",
    "write_allocation",
]
