"""Relational models: hinge-loss MRFs with a PSL-style rule language (Zhang & Ramesh).

Rules written as text are grounded over observed and target atoms into a
:class:`GroundModel` (hinge potentials and linear constraints over the target atoms); MAP
inference minimises its objective under fairness constraints; weight learning and the
Fair-A3SL structure learner build on it. :func:`read_psl_data` and :func:`write_psl_data`
read and write PSL data folders, :func:`read_rules` rule files, :func:`write_inference` and
:func:`write_a3sl` the outputs of ``fairacq relational``; :func:`learn_rules` is the
learn-and-check workflow and :func:`write_example` copies the shipped example.

The code is layered in subpackages, each importing only those before it (import-linter
contracts): ``psl`` (the rule language and the hand-written models), ``hlmrf`` (the
closed-world :class:`Database`, grounding, the ground model), ``inference`` (the MAP solvers
and the fairness constraints), ``learning`` (weight learning) and ``a3sl`` (Fair-A3SL);
``baselines`` and ``bridge`` (the reference PSL) sit beside them, the pipeline, evaluation and
files on top. The data sets (:class:`RelationalData` and its loaders) are
:mod:`fairacq.data.relational`'s, re-exported here.

Importing this package is cheap: every public name loads its submodule on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairacq._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from fairacq.data.relational._compas import (
        COMPAS_PREDICATES,
        LONG_JAIL_DAYS,
        load_compas_relational,
    )
    from fairacq.data.relational._movielens import pearson_top_k
    from fairacq.data.relational._paper_review import (
        PAPER_REVIEW_PREDICATES,
        load_paper_review,
        paper_review_data,
    )
    from fairacq.data.relational._relational_data import RelationalData
    from fairacq.models._biased_mf import BiasedMF, fit_biased_mf
    from fairacq.relational._datasets import (
        NAMED_RELATIONAL,
        a3sl_options,
        load_movielens_relational,
        load_named_relational,
    )
    from fairacq.relational._evaluation import (
        align_predictions,
        equalized_odds_gaps,
        evaluate_atoms,
        evaluate_classification,
        evaluate_ratings,
        group_mse,
        ranked_auc_pr,
        summarise_folds,
    )
    from fairacq.relational._example import EXAMPLE_FAIRNESS, ExampleFiles, write_example
    from fairacq.relational._fairness_check import (
        FAIRNESS_TOLERANCE,
        fairness_excess,
        fairness_warnings,
    )
    from fairacq.relational._files import rule_weights, write_a3sl, write_inference, write_rules
    from fairacq.relational._learn import LearnResult, learn_rules
    from fairacq.relational._metric_notes import MetricsWarning, json_metrics, metric_notes
    from fairacq.relational._pipeline import (
        MAP_TIGHT,
        PipelineResult,
        apply_fairness,
        fairness_rows,
        run_pipeline,
    )
    from fairacq.relational._psl_layout import (
        PSL_SUFFIXES,
        can_evaluate,
        read_psl_data,
        write_psl_data,
    )
    from fairacq.relational._rule_file import read_rules
    from fairacq.relational.a3sl._a3sl import FairA3SL
    from fairacq.relational.a3sl._clause_env import (
        Clause,
        ClauseEnv,
        ClauseLiteral,
        ClauseSpace,
        PredicateSignature,
        signatures_from_frames,
    )
    from fairacq.relational.a3sl._clause_search import (
        RefineResult,
        enumerate_clauses,
        refine_clause_list,
    )
    from fairacq.relational.a3sl._fairness_priors import (
        FairnessPrior,
        equalized_odds_prior,
        overestimation_prior,
    )
    from fairacq.relational.a3sl._structure_scorer import (
        ScoreDetail,
        StructureScorer,
        UtilityConfig,
        semantic_distance,
    )
    from fairacq.relational.a3sl._warnings import (
        EXPLORATION_LIMIT,
        ExplorationWarning,
        FairA3SLWarning,
        FairnessBoundWarning,
    )
    from fairacq.relational.baselines._compas import (
        COMPAS_BASELINES,
        COMPAS_FEATURES,
        compas_baseline,
        compas_features,
    )
    from fairacq.relational.baselines._movielens import (
        MOVIELENS_BASELINES,
        fit_fair_mf,
        movielens_baseline,
    )
    from fairacq.relational.bridge._pslpython import (
        PSL_TIGHT_OPTIONS,
        PslResult,
        psl_fairness,
        psl_unavailable,
        run_psl,
    )
    from fairacq.relational.hlmrf._database import Database
    from fairacq.relational.hlmrf._ground_model import (
        GroundModel,
        HingePotentials,
        LinearConstraints,
        SparseMatrix,
    )
    from fairacq.relational.hlmrf._grounding import ground
    from fairacq.relational.inference._admm import admm_map
    from fairacq.relational.inference._exact import exact_map
    from fairacq.relational.inference._fairness import (
        FAIRNESS_MEASURES,
        FairnessSpec,
        fairness_constraints,
        parse_fairness,
    )
    from fairacq.relational.inference._map_inference import MAP_SOLVERS, map_inference
    from fairacq.relational.inference._map_result import MapResult
    from fairacq.relational.inference._separable import separable_map
    from fairacq.relational.learning._weight_learning import WeightLearningResult, learn_weights
    from fairacq.relational.psl._arities import rule_arities
    from fairacq.relational.psl._models import (
        COMPAS_BASE_RULES,
        MOVIELENS_HYPER_RULES,
        PAPER_REVIEW_BASE_RULES,
        PSL_MODELS,
        PslModel,
        make_psl_model,
    )
    from fairacq.relational.psl._parser import parse_rule, parse_rules
    from fairacq.relational.psl._rules import ArithmeticRule, Atom, Literal, Rule

__all__ = [
    "COMPAS_BASELINES",
    "COMPAS_BASE_RULES",
    "COMPAS_FEATURES",
    "COMPAS_PREDICATES",
    "EXAMPLE_FAIRNESS",
    "EXPLORATION_LIMIT",
    "FAIRNESS_MEASURES",
    "FAIRNESS_TOLERANCE",
    "LONG_JAIL_DAYS",
    "MAP_SOLVERS",
    "MAP_TIGHT",
    "MOVIELENS_BASELINES",
    "MOVIELENS_HYPER_RULES",
    "NAMED_RELATIONAL",
    "PAPER_REVIEW_BASE_RULES",
    "PAPER_REVIEW_PREDICATES",
    "PSL_MODELS",
    "PSL_SUFFIXES",
    "PSL_TIGHT_OPTIONS",
    "ArithmeticRule",
    "Atom",
    "BiasedMF",
    "Clause",
    "ClauseEnv",
    "ClauseLiteral",
    "ClauseSpace",
    "Database",
    "ExampleFiles",
    "ExplorationWarning",
    "FairA3SL",
    "FairA3SLWarning",
    "FairnessBoundWarning",
    "FairnessPrior",
    "FairnessSpec",
    "GroundModel",
    "HingePotentials",
    "LearnResult",
    "LinearConstraints",
    "Literal",
    "MapResult",
    "MetricsWarning",
    "PipelineResult",
    "PredicateSignature",
    "PslModel",
    "PslResult",
    "RefineResult",
    "RelationalData",
    "Rule",
    "ScoreDetail",
    "SparseMatrix",
    "StructureScorer",
    "UtilityConfig",
    "WeightLearningResult",
    "a3sl_options",
    "admm_map",
    "align_predictions",
    "apply_fairness",
    "can_evaluate",
    "compas_baseline",
    "compas_features",
    "enumerate_clauses",
    "equalized_odds_gaps",
    "equalized_odds_prior",
    "evaluate_atoms",
    "evaluate_classification",
    "evaluate_ratings",
    "exact_map",
    "fairness_constraints",
    "fairness_excess",
    "fairness_rows",
    "fairness_warnings",
    "fit_biased_mf",
    "fit_fair_mf",
    "ground",
    "group_mse",
    "json_metrics",
    "learn_rules",
    "learn_weights",
    "load_compas_relational",
    "load_movielens_relational",
    "load_named_relational",
    "load_paper_review",
    "make_psl_model",
    "map_inference",
    "metric_notes",
    "movielens_baseline",
    "overestimation_prior",
    "paper_review_data",
    "parse_fairness",
    "parse_rule",
    "parse_rules",
    "pearson_top_k",
    "psl_fairness",
    "psl_unavailable",
    "ranked_auc_pr",
    "read_psl_data",
    "read_rules",
    "refine_clause_list",
    "rule_arities",
    "rule_weights",
    "run_pipeline",
    "run_psl",
    "semantic_distance",
    "separable_map",
    "signatures_from_frames",
    "summarise_folds",
    "write_a3sl",
    "write_example",
    "write_inference",
    "write_psl_data",
    "write_rules",
]

# Public name -> the submodule that defines it, imported on first access.
_LAZY = {
    "a3sl_options": "fairacq.relational._datasets",
    "admm_map": "fairacq.relational.inference._admm",
    "align_predictions": "fairacq.relational._evaluation",
    "apply_fairness": "fairacq.relational._pipeline",
    "ArithmeticRule": "fairacq.relational.psl._rules",
    "Atom": "fairacq.relational.psl._rules",
    "BiasedMF": "fairacq.models._biased_mf",
    "can_evaluate": "fairacq.relational._psl_layout",
    "Clause": "fairacq.relational.a3sl._clause_env",
    "ClauseEnv": "fairacq.relational.a3sl._clause_env",
    "ClauseLiteral": "fairacq.relational.a3sl._clause_env",
    "ClauseSpace": "fairacq.relational.a3sl._clause_env",
    "COMPAS_BASE_RULES": "fairacq.relational.psl._models",
    "compas_baseline": "fairacq.relational.baselines._compas",
    "COMPAS_BASELINES": "fairacq.relational.baselines._compas",
    "COMPAS_FEATURES": "fairacq.relational.baselines._compas",
    "compas_features": "fairacq.relational.baselines._compas",
    "COMPAS_PREDICATES": "fairacq.data.relational._compas",
    "Database": "fairacq.relational.hlmrf._database",
    "enumerate_clauses": "fairacq.relational.a3sl._clause_search",
    "equalized_odds_gaps": "fairacq.relational._evaluation",
    "equalized_odds_prior": "fairacq.relational.a3sl._fairness_priors",
    "evaluate_atoms": "fairacq.relational._evaluation",
    "evaluate_classification": "fairacq.relational._evaluation",
    "evaluate_ratings": "fairacq.relational._evaluation",
    "exact_map": "fairacq.relational.inference._exact",
    "EXAMPLE_FAIRNESS": "fairacq.relational._example",
    "ExampleFiles": "fairacq.relational._example",
    "EXPLORATION_LIMIT": "fairacq.relational.a3sl._warnings",
    "ExplorationWarning": "fairacq.relational.a3sl._warnings",
    "FairA3SL": "fairacq.relational.a3sl._a3sl",
    "FairA3SLWarning": "fairacq.relational.a3sl._warnings",
    "fairness_constraints": "fairacq.relational.inference._fairness",
    "fairness_excess": "fairacq.relational._fairness_check",
    "FAIRNESS_MEASURES": "fairacq.relational.inference._fairness",
    "fairness_rows": "fairacq.relational._pipeline",
    "FAIRNESS_TOLERANCE": "fairacq.relational._fairness_check",
    "fairness_warnings": "fairacq.relational._fairness_check",
    "FairnessBoundWarning": "fairacq.relational.a3sl._warnings",
    "FairnessPrior": "fairacq.relational.a3sl._fairness_priors",
    "FairnessSpec": "fairacq.relational.inference._fairness",
    "fit_biased_mf": "fairacq.models._biased_mf",
    "fit_fair_mf": "fairacq.relational.baselines._movielens",
    "ground": "fairacq.relational.hlmrf._grounding",
    "GroundModel": "fairacq.relational.hlmrf._ground_model",
    "group_mse": "fairacq.relational._evaluation",
    "HingePotentials": "fairacq.relational.hlmrf._ground_model",
    "json_metrics": "fairacq.relational._metric_notes",
    "learn_rules": "fairacq.relational._learn",
    "learn_weights": "fairacq.relational.learning._weight_learning",
    "LearnResult": "fairacq.relational._learn",
    "LinearConstraints": "fairacq.relational.hlmrf._ground_model",
    "Literal": "fairacq.relational.psl._rules",
    "load_compas_relational": "fairacq.data.relational._compas",
    "load_movielens_relational": "fairacq.relational._datasets",
    "load_named_relational": "fairacq.relational._datasets",
    "load_paper_review": "fairacq.data.relational._paper_review",
    "LONG_JAIL_DAYS": "fairacq.data.relational._compas",
    "make_psl_model": "fairacq.relational.psl._models",
    "map_inference": "fairacq.relational.inference._map_inference",
    "MAP_SOLVERS": "fairacq.relational.inference._map_inference",
    "MAP_TIGHT": "fairacq.relational._pipeline",
    "MapResult": "fairacq.relational.inference._map_result",
    "metric_notes": "fairacq.relational._metric_notes",
    "MetricsWarning": "fairacq.relational._metric_notes",
    "movielens_baseline": "fairacq.relational.baselines._movielens",
    "MOVIELENS_BASELINES": "fairacq.relational.baselines._movielens",
    "MOVIELENS_HYPER_RULES": "fairacq.relational.psl._models",
    "NAMED_RELATIONAL": "fairacq.relational._datasets",
    "overestimation_prior": "fairacq.relational.a3sl._fairness_priors",
    "PAPER_REVIEW_BASE_RULES": "fairacq.relational.psl._models",
    "paper_review_data": "fairacq.data.relational._paper_review",
    "PAPER_REVIEW_PREDICATES": "fairacq.data.relational._paper_review",
    "parse_fairness": "fairacq.relational.inference._fairness",
    "parse_rule": "fairacq.relational.psl._parser",
    "parse_rules": "fairacq.relational.psl._parser",
    "pearson_top_k": "fairacq.data.relational._movielens",
    "PipelineResult": "fairacq.relational._pipeline",
    "PredicateSignature": "fairacq.relational.a3sl._clause_env",
    "psl_fairness": "fairacq.relational.bridge._pslpython",
    "PSL_MODELS": "fairacq.relational.psl._models",
    "PSL_SUFFIXES": "fairacq.relational._psl_layout",
    "PSL_TIGHT_OPTIONS": "fairacq.relational.bridge._pslpython",
    "psl_unavailable": "fairacq.relational.bridge._pslpython",
    "PslModel": "fairacq.relational.psl._models",
    "PslResult": "fairacq.relational.bridge._pslpython",
    "ranked_auc_pr": "fairacq.relational._evaluation",
    "read_psl_data": "fairacq.relational._psl_layout",
    "read_rules": "fairacq.relational._rule_file",
    "refine_clause_list": "fairacq.relational.a3sl._clause_search",
    "RefineResult": "fairacq.relational.a3sl._clause_search",
    "RelationalData": "fairacq.data.relational._relational_data",
    "Rule": "fairacq.relational.psl._rules",
    "rule_arities": "fairacq.relational.psl._arities",
    "rule_weights": "fairacq.relational._files",
    "run_pipeline": "fairacq.relational._pipeline",
    "run_psl": "fairacq.relational.bridge._pslpython",
    "ScoreDetail": "fairacq.relational.a3sl._structure_scorer",
    "semantic_distance": "fairacq.relational.a3sl._structure_scorer",
    "separable_map": "fairacq.relational.inference._separable",
    "signatures_from_frames": "fairacq.relational.a3sl._clause_env",
    "SparseMatrix": "fairacq.relational.hlmrf._ground_model",
    "StructureScorer": "fairacq.relational.a3sl._structure_scorer",
    "summarise_folds": "fairacq.relational._evaluation",
    "UtilityConfig": "fairacq.relational.a3sl._structure_scorer",
    "WeightLearningResult": "fairacq.relational.learning._weight_learning",
    "write_a3sl": "fairacq.relational._files",
    "write_example": "fairacq.relational._example",
    "write_inference": "fairacq.relational._files",
    "write_psl_data": "fairacq.relational._psl_layout",
    "write_rules": "fairacq.relational._files",
}

__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, __all__)
